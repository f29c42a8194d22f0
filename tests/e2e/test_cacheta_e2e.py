"""Cacheta end to end: Debian's chromium (Playwright) plays a table of two rounds by taps at 800x480.

Ana and Beto start with 2 points. Round 1 (flip 2H): Ana draws, tries to knock with cards that do not meld
(refused with the seed's section), then knocks with nine: Beto loses a point. Round 2: Beto, first to play,
knocks with ten: Ana is out, Beto wins the table; the points table shows both rounds and the VP and GP.
The export replays with `cacho cards replay` to the state on the screen.
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

PIN = "2580"
NINE = ["AS", "2S", "3S", "4H", "4D", "4C", "7C", "8C", "9C"]

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


def deal(page: Any, flip: str) -> dict[str, Any]:
    page.click(f'.pick[data-card="{flip}"]')
    return tap(page, "#deal")


def test_a_table_of_cacheta_in_two_rounds(kiosk: Server, page: Any, tmp_path: Path) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    url = kiosk.url
    set_pin(page, url, PIN)
    page.goto(url + "/cards/")
    page.click('a[href="/cacheta/new"]')
    page.fill("#players", "Ana\nBeto")
    page.fill("#start_points", "2")
    page.click("#create")
    page.wait_for_url(f"{url}/cacheta/*")
    base = page.url

    now = deal(page, "2H")
    assert now["round"] == 1
    expect(page.locator("#trumps")).to_contain_text("3♦")
    tap(page, "#draw-stock")
    page.click("#knock")
    pick(page, ["QH", *NINE[:-1], "10H"])
    with page.expect_response(lambda r: r.url.endswith("/action")) as answer:
        page.click("#go")
    assert answer.value.status == 409
    expect(page.locator("#error")).to_contain_text("Batir (knock out): las nueve cartas no forman todas juegos")
    page.click("#cancel-knock")
    page.click("#knock")
    pick(page, ["QH", *NINE])
    shot(page, "cacheta-knock")
    now = tap(page, "#go")
    assert [p["points"] for p in now["players"]] == [2, 1]
    expect(page.locator("#points-1")).to_have_text("1")

    now = deal(page, "2H")
    assert now["turn"] == 1
    tap(page, "#draw-stock")
    page.click("#knock")
    page.check("#ten")
    pick(page, [*NINE, "10C"])
    now = tap(page, "#go")
    assert now["winner"] == 1 and now["vp"] == [3, 5] and now["gp"] == [2, 3]
    expect(page.locator("#winner")).to_contain_text("Beto")
    expect(page.locator("#points-table tr.vp")).to_contain_text("5")
    shot(page, "cacheta-points")

    tv = page.context.browser.new_context(viewport={"width": 1280, "height": 720}, locale="es-CL").new_page()
    errors: list[str] = []
    tv.on("pageerror", lambda error: errors.append(str(error)))
    tv.goto(base + "/tv")
    expect(tv.locator("#winner")).to_contain_text("Beto")
    expect(tv.locator("#points-table tr.gp")).to_contain_text("3")
    assert tv.locator("#picker").count() == 0 and not errors
    shot(tv, "cacheta-tv")
    tv.context.close()

    exported = page.request.get(base + "/export.jsonl")
    log = tmp_path / "cacheta.jsonl"
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
