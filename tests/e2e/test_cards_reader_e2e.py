"""The card reader's screens end to end: Debian's chromium (Playwright) on a kiosk served in this process with a
fake card reader (`CARD_READER`), at 800x480.

A Truco trick is read, its doubtful card confirmed by a tap in the picker, and confirmed; a Spanish Cacho showdown
is read with a hand short of a card, put right by taps, confirmed, and ruled by the engine; a Pif Paf player going
out has his nine cards read and his discard tapped.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from kiosk.app import create_app
from kiosk.cards.reader import SeenCard
from tests.e2e.conftest import free_port, set_pin, shot, state_of
from tests.e2e.conftest import tap as posted

PIN = "1357"

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


class FakeCardReader:
    """Reads whatever cards it is told to."""

    def __init__(self) -> None:
        self.cards: list[SeenCard] = []

    def read_cards(self, frame: Any, seats: Sequence[int], players: Sequence[str]) -> list[SeenCard]:
        return list(self.cards)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, FakeCardReader]]:
    """The kiosk (no camera) with the fake card reader, served on a free port from a thread."""
    reader = FakeCardReader()
    app = create_app({"DATABASE": str(tmp_path / "kiosk.sqlite3"), "CAMERA": None, "CARD_READER": reader})
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}", reader
    finally:
        server.shutdown()
        app.extensions["cacho.camera"].close()


tap = partial(posted, must_be_ok=True)  # every tap here must succeed


def test_a_trick_and_a_showdown_read(served: tuple[str, FakeCardReader], page: Any) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    url, reader = served
    set_pin(page, url, PIN)

    page.goto(url + "/truco/new")
    for k, name in enumerate(("Ana", "Beto", "Caro", "Davi")):
        page.fill(f"#p{k}", name)
    page.click("#create")
    page.wait_for_url(f"{url}/truco/*")
    truco = page.url
    tap(page, "#dealer-3")
    tap(page, "#keep")
    single = ("una sola esquina a la vista: falta la segunda lectura",)
    reader.cards = [
        SeenCard(0, "5S"),
        SeenCard(1, "7H"),
        SeenCard(2, "4C", confidence=0.95, doubted=True, reasons=single),
        SeenCard(3, "3S"),
    ]
    tap(page, "#read-trick", "/read")
    expect(page.locator('.rcard.doubtful[data-seat="2"]')).to_contain_text("4♣")
    expect(page.locator("#reading .why")).to_contain_text("Caro: una sola esquina a la vista")
    with page.expect_response(lambda r: r.url.endswith("/confirm")) as answer:
        page.click("#confirm-reading")
    assert answer.value.status == 409
    expect(page.locator("#error")).to_contain_text("la carta de Caro es dudosa")
    page.click('.rcard[data-seat="2"]')
    page.click('.pick[data-card="4C"]')
    tap(page, "#set-card", "/card")
    shot(page, "truco-reading")
    now = tap(page, "#confirm-reading", "/confirm")
    assert now["tricks"][0]["winner"] == 2 and now["reading"] is None

    page.goto(url + "/cacho/new")
    page.fill("#players", "Ana\nBeto")
    page.fill("#chips", "10")
    page.click("#create")
    page.wait_for_url(f"{url}/cacho/*")
    cacho = page.url
    tap(page, "#eldest-0")
    for _ in range(4):
        tap(page, "#bet")
    tap(page, "#call")
    now = tap(page, "#call")
    assert now["phase"] == "show"
    reader.cards = [SeenCard(0, "4S"), SeenCard(0, "2S"), SeenCard(0, "6D"), SeenCard(1, "AD"), SeenCard(1, "4D")]
    reader.cards[1] = SeenCard(0, "2S", confidence=0.9, doubted=True, reasons=("la segunda lectura dice 3S",))
    tap(page, "#read-hands", "/read")
    expect(page.locator(".why")).to_contain_text("Ana, 2♠: la segunda lectura dice 3♠")
    page.click('.shown-seat[data-seat="0"] .rcard[data-index="2"]')  # a doubted card comes after the sure ones
    tap(page, '.pick[data-card="2S"]', "/card")
    page.click('.shown-seat[data-seat="1"] .rcard[data-index="2"]')
    tap(page, '.pick[data-card="5D"]', "/card")
    expect(page.locator('.shown-seat[data-seat="1"] .rcard.corrected')).to_contain_text("5♦")
    shot(page, "cacho-reading")
    now = tap(page, "#confirm-hands", "/confirm")
    assert now["last_hand"]["winner"] == 1
    expect(page.locator("#winner")).to_contain_text("Beto")
    assert state_of(page, cacho)["summary"]["chips"] == [7, 13]
    assert state_of(page, truco)["summary"]["tricks"][0]["winner"] == 2

    page.goto(url + "/pifpaf/new")
    page.fill("#players", "Ana\nBeto\nCaro")
    page.click("#create")
    page.wait_for_url(f"{url}/pifpaf/*")
    tap(page, "#dealer-2")
    for _ in range(3):
        tap(page, "#call")
    tap(page, "#draw-stock")
    page.click("#go-out")
    nine = ["AS", "2S", "3S", "4H", "4D", "4C", "7C", "8C", "9C"]
    reader.cards = [SeenCard(0, card) for card in nine]
    tap(page, "#read-shown", "/read")
    page.click('.rcard[data-discard="1"]')
    tap(page, '.pick[data-card="QH"]', "/card")
    expect(page.locator('.rcard[data-discard="1"]')).to_contain_text("Q♥")
    shot(page, "pifpaf-reading")
    now = tap(page, "#confirm-shown", "/confirm")
    assert now["last_hand"]["winner"] == 0
    expect(page.locator("#winner")).to_contain_text("Ana")
    assert not script_errors, script_errors
