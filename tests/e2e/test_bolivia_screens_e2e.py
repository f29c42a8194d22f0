"""Bolivian Cacho's screens (issue 34, point 15), in Debian's chromium on `cacho kiosk --camera none`: tied winners
share their place, the teams box only with partners, no leader nor game points at 0-0 with three pizarras, a note
that changing the category rolls all five again, and the TV's grande de mano that fits and goes by itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Server, drawn_reading, serving, set_pin, shot

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PIN = "2468"
FIRST_ROLLS = {
    "balas": [1, 1, 2, 3, 5],
    "tontos": [2, 2, 1, 3, 5],
    "trenes": [3, 3, 1, 2, 5],
    "cuadras": [4, 4, 1, 2, 6],
    "quinas": [5, 5, 1, 2, 6],
    "senas": [6, 6, 1, 2, 4],
    "escalera": [1, 2, 3, 4, 5],
    "full": [2, 2, 3, 3, 3],
    "poker": [4, 4, 4, 4, 1],
    "grande": [1, 2, 3, 5, 6],
}


@pytest.fixture
def kiosk(tmp_path: Path) -> Iterator[Server]:
    """The kiosk with no camera."""
    with serving(tmp_path, "none") as server:
        yield server


def log(*events: dict[str, Any]) -> str:
    """A Bolivian log: Ana and Beto, classic, then `events`."""
    start = {"event": "start", "players": ["Ana", "Beto"], "variant": "classic"}
    return "\n".join(json.dumps(e) for e in (start, *events)) + "\n"


def turn(player: str, category: str) -> list[dict[str, Any]]:
    """One roll, its category declared and written."""
    return [
        {"event": "roll", "player": player, "dice": FIRST_ROLLS[category]},
        {"event": "declare", "player": player, "category": category},
        {"event": "score", "player": player},
    ]


def imported(page: Any, url: str, text: str) -> str:
    """A game imported from `text` by the home page's form; its page's address."""
    page.goto(url + "/")
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    response = page.request.post(url + "/bolivia/import", form={"text": text, "name": "Prueba", "csrf_token": token})
    assert response.ok, response.text()
    return str(response.url)


def test_tied_winners_share_their_place_and_a_change_of_category_says_all_five_are_rolled(
    kiosk: Server, page: Any
) -> None:
    set_pin(page, kiosk.url, PIN)
    game = [event for category in FIRST_ROLLS for player in ("Ana", "Beto") for event in turn(player, category)]
    page.goto(imported(page, kiosk.url, log(*game)))
    expect(page.locator("#ranking li")).to_have_count(2)
    assert page.locator("#ranking li").evaluate_all("items => items.map((li) => li.value)") == [1, 1]
    expect(page.locator("#winner")).to_contain_text("Ana, Beto")

    page.goto(imported(page, kiosk.url, log(turn("Ana", "balas")[0], turn("Ana", "balas")[1])))
    page.locator("details.change summary").click()
    expect(page.locator("#change-note")).to_be_visible()
    expect(page.locator("#change-note")).to_have_text("Al cambiar de categoría se vuelven a tirar los cinco dados")


def test_the_setup_form_and_three_pizarras_at_0_0(kiosk: Server, page: Any) -> None:
    set_pin(page, kiosk.url, PIN)
    page.goto(kiosk.url + "/bolivia/new")
    expect(page.locator("#teams-box")).to_be_hidden()
    page.locator("#v-partners").check()
    expect(page.locator("#teams-box")).to_be_visible()
    page.locator("#v-partners").uncheck()
    page.fill("#players", "Ana\nBeto\nCaro")
    page.locator("#v-three").check()
    page.click("#create")
    expect(page.locator("#pizarras .side")).to_have_count(3)
    expect(page.locator("#pizarras .side.leader")).to_have_count(0)
    expect(page.locator("#pizarras .gp")).to_have_count(0)
    assert "★" not in page.locator("#pizarras").inner_text()


def test_the_tvs_grande_de_mano_fits_and_goes_by_itself(kiosk: Server, page: Any, browser: Any) -> None:
    set_pin(page, kiosk.url, PIN)
    five = [{"event": "roll", "player": "Ana", "dice": [6, 6, 6, 6, 6]}]
    five += [{"event": "declare", "player": "Ana", "category": "grande"}, {"event": "score", "player": "Ana"}]
    address = imported(page, kiosk.url, log(*five))
    big = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    tv = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    try:
        for screen, width, height in ((big, 1920, 1080), (tv, 1280, 720)):
            screen.goto(address + "/tv")
            card = screen.locator("#grande-de-mano")
            expect(card).to_be_visible()
            expect(card.locator("button")).to_have_count(0)  # nobody taps a TV
            box = screen.locator(".celebration-title").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (width, box)
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (height, box)
            clipped = screen.locator(".celebration-title").evaluate("e => e.scrollWidth > e.clientWidth")
            assert not clipped, f"the title is cut at {width}x{height}"
        expect(tv.locator("#grande-de-mano")).to_be_hidden(timeout=20000)
    finally:
        tv.context.close()
        big.context.close()


def test_a_roll_by_hand_is_a_tap_a_die(kiosk: Server, page: Any) -> None:
    set_pin(page, kiosk.url, PIN)
    page.goto(kiosk.url + "/bolivia/new")
    page.fill("#players", "Ana\nBeto")
    page.click("#create")
    page.click("#manual-btn")
    for count, face in enumerate([1, 1, 1, 3, 2], start=1):
        page.click(f'#add-faces .face[data-face="{face}"]')
        expect(page.locator("#reading-dice .rdie.unset")).to_have_count(5 - count)
    expect(page.locator("#add-faces")).to_have_count(0)  # five dice: the row goes
    page.click("#confirm-btn")  # seven taps in all, from «Entrar a mano» to the roll logged
    expect(page.locator("#roll-dice")).to_be_visible()


def test_why_a_die_of_a_roll_is_doubted_is_written_on_screen(kiosk: Server, page: Any) -> None:
    """Issue 61: every reason as text on the screen, not in a tooltip a touch screen never shows."""

    set_pin(page, kiosk.url, PIN)
    page.goto(imported(page, kiosk.url, log()))
    doubt = "no se pudieron contar los puntos"

    def die(die_id: str, face: int, reasons: tuple[str, ...] = ()) -> dict[str, Any]:
        return {
            "id": die_id,
            "face": face,
            "read": face,
            "confidence": 0.9,
            "uncertain": bool(reasons),
            "reasons": list(reasons),
            "box": None,
            "corrected": False,
            "confirmed": False,
            "slot": None,
            "kept": None,
        }

    dice = [die("d1", 3), die("d2", 3), die("d3", 6, (doubt,)), die("d4", 1), die("d5", 2)]
    reading = {
        "state": "ready",
        "source": "camera",
        "photo": None,
        "message": "leída",
        "dice": dice,
        "kept": [],
        "problems": [],
        "area": None,
        "size": None,
        "capture": None,
        "corrections": [],
        "proposal": {
            "ok": False,
            "blockers": ["1 dado(s) dudoso(s)"],
            "dice": None,
            "moved": [],
            "extra": [],
            "order": [d["id"] for d in dice],
        },
    }

    drawn_reading(page, reading)
    expect(page.locator("#reading-why")).to_have_text(f"3: ⚅ 6: {doubt}")


def test_a_camera_roll_to_confirm_fits_the_seven_inch_screen(kiosk: Server, page: Any) -> None:
    """Issue 61: at 800x480 the roll's photo, its five dice (the doubted one with why) and «Confirmar tirada» are on
    screen with no scrolling."""
    photos = Path(__file__).resolve().parents[2] / "kiosk" / "demo" / "bolivia_fotos"
    shown = json.loads((photos / "fotos.json").read_text())["photos"][0]
    set_pin(page, kiosk.url, PIN)
    page.goto(imported(page, kiosk.url, log()))
    page.route("**/tirada-de-prueba.jpg", lambda route: route.fulfill(path=str(photos / shown["file"])))
    doubt = "no se pudieron contar los puntos"
    dice = [
        {
            "id": f"d{k}",
            "face": d["face"],
            "read": d["face"],
            "confidence": 0.9,
            "uncertain": k == 2,
            "reasons": [doubt] if k == 2 else [],
            "box": d["box"],
            "corrected": False,
            "confirmed": False,
            "slot": None,
            "kept": None,
        }
        for k, d in enumerate(shown["dice"])
    ]
    reading = {
        "state": "ready",
        "source": "camera",
        "photo": "tirada.jpg",
        "photo_url": "/tirada-de-prueba.jpg",
        "message": "esperó 0,1 s a que la mesa quedara quieta; 2 de 2 imágenes coinciden",
        "dice": dice,
        "kept": [],
        "problems": [],
        "area": None,
        "size": [640, 360],
        "capture": None,
        "corrections": [],
        "proposal": {
            "ok": False,
            "blockers": ["1 dado dudoso por confirmar o corregir"],
            "dice": None,
            "moved": [],
            "extra": [],
            "order": [d["id"] for d in dice],
        },
    }
    drawn_reading(page, reading)
    expect(page.locator("#reading-photo img")).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "bolivia-reading-7in")
    for selector in ("#reading-photo", "#reading-dice .rdie", "#reading-why", "#confirm-btn"):
        boxes = page.locator(selector).evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())")
        assert boxes, selector
        for box in boxes:
            assert box["top"] >= 0 and box["bottom"] <= 480 and box["right"] <= 800, (selector, box)
