"""The card games' demo tables: one seated table per card game, for the kiosk's first start in demo mode."""

from __future__ import annotations

from typing import Any

from kiosk.cards.desk import CardTables
from kiosk.store import Store

PLAYERS = ["Ana", "Beto", "Caro", "Dani"]
DEMOS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("truco", "Truco de demostración", {"players": PLAYERS}),
    ("cacho", "Cacho español de demostración", {"players": PLAYERS[:3], "chips": [20, 20, 20], "evening": True}),
    (
        "pifpaf",
        "Pif Paf de demostración",
        {"players": PLAYERS[:3], "chips": [20, 20, 20], "ante": 1, "evening": True},
    ),
    ("cacheta", "Cacheta de demostración", {"players": PLAYERS[:3]}),
)


def seat_card_demos(store: Store) -> list[int]:
    """Seat a demo table for each card game that has none yet; the ids seated."""
    seated = []
    for game, name, start in DEMOS:
        if not store.tables(game):
            seated.append(CardTables(game).create(store, name, start))
    return seated
