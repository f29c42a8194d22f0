"""Spanish Cacho end to end: Debian's chromium (Playwright) plays two hands by taps on a real `cacho kiosk` at 800x480.

Ana, Beto and Caro start with 10 chips. The first hand goes to the showdown: Caro passes the first round, Ana
raises in the third within the resto and Beto calls; the hands are tapped in the card picker and the engine rules
them (a cacho of 30 points against a two-card flush). The chips are carried to the second hand, won without showing.
The exported log replays with `cacho cards replay` to the state on the screen.
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

PIN = "9753"

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


@pytest.fixture
def kiosk(tmp_path: Path) -> Iterator[Server]:
    """The kiosk with no camera: the cards are tapped."""
    with serving(tmp_path, "none") as server:
        yield server


def test_two_hands_of_spanish_cacho_by_taps(kiosk: Server, page: Any, browser: Any, tmp_path: Path) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    url = kiosk.url
    set_pin(page, url, PIN)
    page.click('a[href="/cacho/new"]')
    page.fill("#players", "Ana\nBeto\nCaro")
    page.fill("#chips", "10")
    shot(page, "cacho-new")
    page.click("#create")
    page.wait_for_url(f"{url}/cacho/*")
    base = page.url
    expect(page.locator("#chips-0")).to_have_text("10")

    tap(page, "#eldest-0")
    expect(page.locator("#turn")).to_contain_text("Ana")
    tap(page, "#bet")  # Ana
    tap(page, "#bet")  # Beto
    now = tap(page, "#pass")  # Caro: out; the second card is dealt in the same tap
    assert now["round"] == 2
    tap(page, "#bet")
    now = tap(page, "#bet")
    assert now["round"] == 3 and now["resto"] == 7
    expect(page.locator("#resto")).to_contain_text("7")
    assert page.locator("#raise-7").count() == 1 and page.locator("#raise-8").count() == 0
    shot(page, "cacho-third-round")
    tap(page, "#raise-3")
    now = tap(page, "#call")
    assert now["phase"] == "show" and now["pot"] == 12

    # The showdown: Ana's hand, then Beto's, tapped in the picker (the picker moves on to the next hand).
    page.click("#show-seat-0")
    for card in ("4S", "2S", "6D", "AD", "4D", "5D"):
        page.click(f'.pick[data-card="{card}"]')
    shot(page, "cacho-showdown")
    now = tap(page, "#show")
    assert now["last_hand"]["winner"] == 1
    expect(page.locator("#winner")).to_contain_text("Beto")
    expect(page.locator('.shown[data-seat="1"] .category')).to_contain_text("cacho (tres del mismo palo) · 30")
    expect(page.locator('.shown[data-seat="0"] .category')).to_contain_text("26")
    expect(page.locator("#chips-1")).to_have_text("16")
    shot(page, "cacho-result")

    # The second hand: Beto is the eldest; his bet stands alone and he takes the pot without showing.
    tap(page, "#new-hand")
    expect(page.locator("#turn")).to_contain_text("Beto")
    tap(page, "#bet")
    tap(page, "#pass")
    now = tap(page, "#pass")
    assert now["last_hand"] == {"winner": 1, "pot": 1, "showdown": None}
    assert [p["chips"] for p in now["players"]] == [4, 16, 10]

    tv_context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="es-CL")
    tv = tv_context.new_page()
    tv.goto(base + "/tv")
    expect(tv.locator("#chips-1")).to_have_text("16")
    shot(tv, "cacho-tv")
    tv_context.close()

    exported = page.request.get(base + "/export.jsonl")
    assert exported.ok
    log = tmp_path / "cacho.jsonl"
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
