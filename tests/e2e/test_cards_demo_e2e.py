"""The card games read by the camera, end to end: the real `cacho kiosk --camera demo` and Debian's chromium
(Playwright) at 800x480. The demo camera renders the cards each reading expects; the card reader reads them.

A Spanish Cacho hand goes to the showdown and is read by the camera, a Pif Paf player's going out is read by the
camera and validated by the engine; the doubtful cards are put right by taps, as the coordinator would from the
table, and the annotated photo is on screen. Both exported logs replay with `cacho cards replay` to the screen's state.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from kiosk.cards.demo import demo_cards
from tests.e2e.conftest import ROOT, Server, serving, set_pin, shot, state_of
from tests.e2e.conftest import tap as posted
from vision.cards.notation import CLASS_NAMES

PIN = "8642"

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Server]:
    """The kiosk on the demo table and its demo camera."""
    with serving(tmp_path, "demo") as server:
        yield server


tap = partial(posted, must_be_ok=True)  # every tap here must succeed


def open_demo(page: Any, url: str, name: str) -> tuple[str, int]:
    """The demo table called `name`, from the card games' page: its address and id."""
    page.goto(url + "/cards/")
    page.click(f'li:has(strong:text-is("{name}")) a:text-is("Coordinador")')
    page.wait_for_url(lambda address: address.rstrip("/").rsplit("/", 1)[-1].isdigit())
    return page.url, int(page.url.rstrip("/").rsplit("/", 1)[-1])


def put_right(page: Any, seat_rows: str, cards: list[dict[str, Any]], laid: list[str], size: int) -> None:
    """Tap each doubtful card (and each missing one) to the laid card the reader did not read sure."""
    left = Counter(laid)
    left.subtract(c["card"] for c in cards if not c["doubtful"])
    unread = list((+left).elements())
    for index in [k for k, c in enumerate(cards) if c["doubtful"]] + list(range(len(cards), size)):
        page.click(f'{seat_rows} .rcard[data-index="{index}"]')
        tap(page, f'.pick[data-card="{unread.pop()}"]', "/card")


def test_a_showdown_and_a_going_out_read_by_the_demo_camera(demo: Server, page: Any, tmp_path: Path) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    url = demo.url
    set_pin(page, url, PIN)
    deadline = time.monotonic() + 120  # the dice reader loads first: a camera reading waits for it
    while page.request.get(url + "/camera/health").json()["reader"] != "ready":
        assert time.monotonic() < deadline, "el lector no quedó listo"
        time.sleep(0.5)

    cacho_base, cacho = open_demo(page, url, "Cacho español de demostración")
    base = cacho_base
    tap(page, "#eldest-0")
    tap(page, "#bet")  # Ana
    tap(page, "#bet")  # Beto
    tap(page, "#pass")  # Caro folds; the second round
    tap(page, "#bet")
    tap(page, "#bet")  # the third round
    tap(page, "#call")
    now = tap(page, "#call")
    assert now["phase"] == "show", now
    at = now["seq"]
    tap(page, "#read-hands", "/read")
    expect(page.locator("img.reading-photo")).to_be_visible()
    reading = state_of(page, base)["reading"]
    laid = demo_cards("cacho", 3, [0, 1], 3, (), cacho * 100_003 + at)
    for entry in reading["seats"]:
        seat = entry["seat"]
        mine = [code for code, _ in laid[seat]]
        assert all(c["card"] in mine for c in entry["cards"] if not c["doubtful"])  # no sure card that is not there
        put_right(page, f'.shown-seat[data-seat="{seat}"]', entry["cards"], mine, 3)
    shot(page, "cacho-camera")
    now = tap(page, "#confirm-hands", "/confirm")
    assert now["last_hand"]["winner"] in (0, 1) and now["reading"] is None
    expect(page.locator("#winner")).to_be_visible()

    base, pifpaf = open_demo(page, url, "Pif Paf de demostración")
    tap(page, "#dealer-2")
    for _ in range(3):
        tap(page, "#call")
    tap(page, "#draw-stock")
    page.click("#go-out")
    at = state_of(page, base)["seq"]
    tap(page, "#read-shown", "/read")
    expect(page.locator("img.reading-photo")).to_be_visible()
    nine = [code for code, _ in demo_cards("pifpaf", 3, [0], 9, (), pifpaf * 100_003 + at)[0]]
    cards = state_of(page, base)["reading"]["seats"][0]["cards"]
    assert all(c["card"] in nine for c in cards if not c["doubtful"])
    assert sum(not c["doubtful"] for c in cards) >= 5
    put_right(page, ".shown", cards, nine, 9)
    page.click('.rcard[data-discard="1"]')
    tap(page, f'.pick[data-card="{next(c for c in ("KD", "QD", "JD", "KH") if c not in nine)}"]', "/card")
    shot(page, "pifpaf-camera")
    now = tap(page, "#confirm-shown", "/confirm")
    assert now["last_hand"]["winner"] == 0
    expect(page.locator("#winner")).to_contain_text("Ana")

    # Both logs, their camera readings and corrections included, replay to the states on the screen.
    for address, name in ((base, "pifpaf"), (cacho_base, "cacho")):
        exported = page.request.get(address + "/export.jsonl")
        assert exported.ok and '"source": "camera"' in exported.text()
        log = tmp_path / f"{name}.jsonl"
        log.write_text(exported.text(), encoding="utf-8")
        command = [sys.executable, "-m", "kiosk.cli", "cards", "replay", str(log), "--json"]
        out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        assert json.loads(out.stdout)["state"] == state_of(page, address)["summary"]

    # Each confirmed reading left the corners of its cards confirmed as read, labelled with the cards laid, where
    # `cacho cards adapt` takes them; no kept frame waits any more.
    learned = tmp_path / "cartas-aprendidas"
    samples = {int(p.name.split("-")[0]): p for p in (learned / "labels").glob("*.txt")}
    assert sorted(samples) == sorted([cacho, pifpaf]) and not list((learned / "pendientes").iterdir())
    shown = {cacho: {code for seat in (0, 1) for code, _ in laid[seat]}, pifpaf: set(nine)}
    for table, sample in samples.items():
        named = {CLASS_NAMES[int(line.split()[0])] for line in sample.read_text().splitlines()}
        assert named and named <= shown[table], (table, named)
        assert (learned / "images" / f"{sample.stem}.jpg").is_file()
    assert not script_errors, script_errors
