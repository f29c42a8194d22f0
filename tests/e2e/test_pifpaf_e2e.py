"""Pif Paf end to end: Debian's chromium (Playwright) plays a hand by taps on a real `cacho kiosk` at 800x480.

Ana, Beto and Caro ante and are dealt face down; Ana raises, the others call. Ana draws from the stock and
discards; Beto takes her discard and tries to go out with a hand that does not meld (refused with the seed's
section), then goes out with three melds, tapped in the picker. The export replays with `cacho cards replay`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ROOT, Server, serving, set_pin, shot, state_of, tap

PIN = "7531"
OUT = ["AS", "2S", "3S", "4H", "4D", "4C", "7C", "8C", "9C"]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


@pytest.fixture
def kiosk(tmp_path: Path) -> Iterator[Server]:
    """The kiosk with no camera: the cards are tapped."""
    with serving(tmp_path, "none") as server:
        yield server


def pick(page: Any, cards: list[str]) -> None:
    for card in cards:
        page.click(f'.pick[data-card="{card}"]')


def test_a_hand_of_pif_paf_by_taps(kiosk: Server, page: Any, tmp_path: Path) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    url = kiosk.url
    set_pin(page, url, PIN)
    page.goto(url + "/cards/")
    page.click('a[href="/pifpaf/new"]')
    page.fill("#players", "Ana\nBeto\nCaro")
    page.fill("#chips", "10")
    page.fill("#ante", "1")
    page.click("#create")
    page.wait_for_url(f"{url}/pifpaf/*")
    base = page.url
    tap(page, "#dealer-2")  # Caro deals: Ana, on her left, speaks first
    tap(page, "#raise-1")
    tap(page, "#call")
    now = tap(page, "#call")
    assert now["phase"] == "play" and now["pot"] == 6

    tap(page, "#draw-stock")
    page.click('.pick[data-card="KS"]')
    now = tap(page, "#discard")
    assert now["top"]["card"] == "KS"
    expect(page.locator("#top")).to_contain_text("K♠")
    tap(page, "#draw-discard")

    # Beto goes out: first with a hand that does not meld, refused; then with three melds.
    page.click("#go-out")
    pick(page, ["KS", *OUT[:-1], "10H"])
    with page.expect_response(lambda r: r.url.endswith("/action")) as answer:
        page.click("#go")
    assert answer.value.status == 409
    expect(page.locator("#error")).to_contain_text(
        "Juego de la mano: las nueve cartas que quedan no forman todas juegos"
    )
    page.click("#cancel-out")  # the picks stay after a refusal, to be put right; here he starts again
    page.click("#go-out")
    pick(page, ["KS", *OUT])
    shot(page, "pifpaf-going-out")
    now = tap(page, "#go")
    assert now["last_hand"]["winner"] == 1
    expect(page.locator("#winner")).to_contain_text("Beto")
    expect(page.locator("#chips-1")).to_have_text("14")
    shot(page, "pifpaf-out")

    tv = page.context.browser.new_context(viewport={"width": 1280, "height": 720}, locale="es-CL").new_page()
    errors: list[str] = []
    tv.on("pageerror", lambda error: errors.append(str(error)))
    tv.goto(base + "/tv")
    expect(tv.locator("#winner")).to_contain_text("Beto")
    expect(tv.locator("#chips-1")).to_have_text("14")
    assert tv.locator("#picker").count() == 0 and not errors
    shot(tv, "pifpaf-tv")
    tv.context.close()

    exported = page.request.get(base + "/export.jsonl")
    log = tmp_path / "pifpaf.jsonl"
    log.write_text(exported.text(), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "kiosk.cli", "cards", "replay", str(log), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["state"] == state_of(page, base)["summary"]
    assert not script_errors, script_errors
