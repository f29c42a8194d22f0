"""The card games' demo tables: one seated table per card game, for the kiosk's first start in demo mode, and the
cards the demo camera shows when one of them is read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from kiosk.cards.desk import CardTables
from kiosk.store import Store
from vision.cards.notation import deck
from vision.cards.synth import Laid, melds

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


def demo_cards(game: str, players: int, seats: Sequence[int], size: int, seen: Collection[str], seed: int) -> Laid:
    """Cards for the demo camera to show: `size` in front of each seat asked for (melds in Pif Paf and Cacheta, a
    knock-out's), none before the others, from the game's deck less the cards `seen` already."""
    rng = np.random.default_rng(seed)
    pool = Counter(deck(game))
    pool.subtract(Counter(seen))
    pool = +pool
    laid: list[list[tuple[str, bool]]] = [[] for _ in range(players)]
    for seat in seats:
        if game in ("pifpaf", "cacheta"):
            chosen = [code for meld in melds(rng, pool, size) for code in meld][:size]
        else:
            left = sorted(pool.elements())
            chosen = [str(code) for code in rng.choice(left, size=min(size, len(left)), replace=False)]
            pool.subtract(Counter(chosen))
        laid[seat] = [(code, False) for code in chosen]
    return laid
