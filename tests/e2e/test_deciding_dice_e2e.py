"""Only the dice that decide the ruling are asked (issue 61): the page marks the others as left as read, in words."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.conftest import Server, drawn_reading
from tests.e2e.test_dudo_e2e import PLAYERS, bare, bid, expect, new_table, read_die

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
    expect(page.locator('.rplayer[data-name="Ana"] .left-note')).to_have_text(
        "1 dado dudoso no puede cambiar el fallo: quedan como se leyeron"
    )
    expect(page.locator('.rplayer[data-name="Caro"] ul.why')).to_have_text(f"⚁ 2 91%: {doubt}")
    expect(page.locator("#confirm-btn")).to_be_enabled()
