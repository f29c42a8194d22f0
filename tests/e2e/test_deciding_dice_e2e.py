"""Only the dice that decide the ruling are asked (issue 61): the page marks the others as left as read, in words."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Server, drawn_reading, shot
from tests.e2e.test_dudo_e2e import PLAYERS, bare, bid, expect, in_view, new_table, read_die

__all__ = ["bare"]  # the fixture: a kiosk with no camera and the coordinator signed in


def test_doubtful_dice_that_cannot_change_the_ruling_are_left_and_confirm_is_one_tap(bare: Server, page: Any) -> None:
    new_table(page, bare)
    bid(page, face=4)
    page.locator("#dudo-btn").click()
    expect(page.locator("#challenge")).to_contain_text("¡Dudo! Beto → Ana")
    doubt = "no se pudieron contar los puntos"
    players = {
        name: [read_die(f"{name}{i}", 2 + i % 4, 0.91, (doubt,) if i == 4 else ()) for i in range(5)]
        for name in PLAYERS
    }
    reading = {
        "state": "ready",
        "source": "camera",
        "photo": None,
        "message": "3 imágenes leídas",
        "players": players,
        "problems": [],
        "corrections": [],
        "proposal": {
            "ok": True,
            "blockers": [],
            "ruling": None,
            "deciding": ["Caro4"],
            "left": ["Ana4", "Beto4"],
        },
    }

    drawn_reading(page, reading)
    expect(page.locator('.rdie[data-id="Caro4"]')).to_have_class(re.compile(r"\bdoubtful\b"))
    for left in ("Ana4", "Beto4"):
        die = page.locator(f'.rdie[data-id="{left}"]')
        expect(die).to_have_class(re.compile(r"\bleft\b"))
        expect(die).not_to_have_class(re.compile(r"\bdoubtful\b"))
    expect(page.locator('.rwhy[data-name="Ana"] .left-note')).to_have_text(
        "1 dado dudoso no puede cambiar el fallo: quedan como se leyeron"
    )
    expect(page.locator('.rwhy[data-name="Caro"] ul.why')).to_have_text(f"⚁ 2 91 %: {doubt}")
    expect(page.locator("#confirm-btn")).to_be_enabled()


DEMO = Path(__file__).resolve().parents[2] / "kiosk" / "demo" / "fotos" / "00"


def scene_reading(deciding: list[str], ok: bool) -> dict[str, Any]:
    """The demo's rendered photo read: each seat's dice with their boxes, some doubted."""
    scene = json.loads((DEMO / "scene.json").read_text())
    players: dict[str, list[dict[str, Any]]] = {name: [] for name in PLAYERS}
    for die in scene["dice"]:
        if die["seat"] > len(PLAYERS):
            continue
        name = PLAYERS[die["seat"] - 1]
        entry = read_die(f"{name}{len(players[name])}", die["face"], 0.91, ("no se pudieron contar los puntos",))
        players[name].append(entry | {"box": die["box"]})
    return {
        "state": "ready",
        "source": "camera",
        "photo": "demo.jpg",
        "photo_url": "/foto-de-prueba.jpg",
        "size": [scene["width"], scene["height"]],
        "message": "esperó 0,1 s a que la mesa quedara quieta; 2 de 2 imágenes coinciden; cámara inclinada 3,8° "
        "(nadir medido con 3 marcadores)",
        "players": players,
        "problems": [],
        "corrections": [],
        "proposal": {
            "ok": ok,
            "blockers": [] if ok else [f"{len(deciding)} dados deciden el fallo: por confirmar o corregir"],
            "ruling": {"message": "Hay 5: pierde Beto un dado (art. 6)", "count": None, "changes": {"Beto": -1}}
            if ok
            else None,
            "deciding": deciding,
            "left": [],
        },
    }


def test_the_reading_fits_the_seven_inch_screen_with_each_players_dice_cropped_large(bare: Server, page: Any) -> None:
    """Issue 61: at 800x480 the challenge, every player's dice cropped from the photo, every die to tap and
    «Confirmar» are on screen with no scrolling; a die tapped opens zoomed; the whole photo and the reasons follow
    below."""
    new_table(page, bare)
    bid(page, face=4)
    page.locator("#dudo-btn").click()
    expect(page.locator("#challenge")).to_contain_text("¡Dudo! Beto → Ana")
    page.route("**/foto-de-prueba.jpg", lambda route: route.fulfill(path=str(DEMO / "004.jpg")))
    for deciding, ok in ((["Ana0", "Caro2"], False), ([], True)):
        drawn_reading(page, scene_reading(deciding, ok))
        expect(page.locator(".rplayer .crop")).to_have_count(3)
        page.evaluate("window.scrollTo(0, 0)")
        for selector in ("#challenge", ".rplayer .crop", ".rdie", "#confirm-btn", ".rplayer .add-die"):
            in_view(page, selector)
        if ok:
            in_view(page, "#ruling-preview")
            expect(page.locator("#confirm-btn")).to_be_enabled()
        else:
            in_view(page, "#blockers")
            expect(page.locator(".rdie.doubtful")).to_have_count(2)
            expect(page.locator("#confirm-btn")).to_be_disabled()
        crop = page.locator('.crop[data-name="Ana"]')
        assert "foto-de-prueba.jpg" in str(crop.get_attribute("style"))
        size = crop.bounding_box()
        assert size is not None and size["height"] >= 80 and size["width"] >= 1.25 * size["height"] - 2, size
        expect(crop.locator(".box")).to_have_count(5)  # each die's box on its crop
        expect(page.locator(".photo-frame img.photo")).to_be_attached()  # the whole photo, below
    shot(page, "dudo-reading-7in")
    page.locator('.crop[data-name="Caro"] .box').first.click()  # a die's box on the crop opens it, zoomed
    picker = page.locator("#picker")
    expect(picker.locator(".zoom")).to_be_visible()
    assert "foto-de-prueba.jpg" in str(picker.locator(".zoom").get_attribute("style"))
    shot(page, "dudo-die-zoom")
