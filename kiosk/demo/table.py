"""The bundled demo table: four players seated as in the demo log, for the kiosk's first start."""

from __future__ import annotations

from engines.dudo import Start
from kiosk.dudo import desk as desks
from kiosk.store import Store

DEMO_PLAYERS = ("Ana", "Beto", "Caro", "Dani")
DEMO_OPENER = "Caro"
DEMO_NAME = "Mesa de demostración"


def seat_demo(store: Store) -> int | None:
    """Seat the demo table when the kiosk has no Dudo table yet; its id (None when there were tables)."""
    if store.tables(desks.GAME):
        return None
    return desks.create(store, DEMO_NAME, Start(DEMO_PLAYERS, DEMO_OPENER))
