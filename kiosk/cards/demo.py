"""The card games' demo tables: one seated table per card game, for the kiosk's first start in demo mode, and the
cards the demo camera shows when one of them is read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from kiosk.cards.desk import CardTables
from kiosk.store import Store
from vision.cards.notation import RANKS, SUITS, deck
from vision.cards.synth import Laid

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


def knock_out(rng: np.random.Generator, pool: Counter[str], size: int) -> list[str]:
    """`size` cards (9 or 10) from the pool in melds every game here allows: runs of one suit (ace low) and sets of
    one rank in three suits; threes, and a run of four for ten."""
    for _ in range(200):
        left = Counter(pool)
        cards: list[str] = []
        for length in [3] * (size // 3 - 1) + [3 + size % 3]:
            if length > 3 or rng.random() < 0.5:
                suit = SUITS[int(rng.integers(len(SUITS)))]
                start = int(rng.integers(0, len(RANKS) - length + 1))
                meld = [f"{RANKS[start + k]}{suit}" for k in range(length)]
            else:
                rank = RANKS[int(rng.integers(len(RANKS)))]
                meld = [f"{rank}{suit}" for suit in list(rng.permutation(SUITS))[:3]]
            if any(left[code] < 1 for code in meld):
                break
            left.subtract(meld)
            cards += meld
        if len(cards) == size:
            pool.subtract(cards)
            return cards
    raise ValueError(f"no quedan cartas para {size} en juegos")


def demo_cards(game: str, players: int, seats: Sequence[int], size: int, seen: Collection[str], seed: int) -> Laid:
    """Cards for the demo camera to show: `size` in front of each seat asked for (a knock-out's melds in Pif Paf and
    Cacheta), none in front of the others, from the game's deck less the cards `seen` already."""
    rng = np.random.default_rng(seed)
    pool = Counter(deck(game))
    pool.subtract(Counter(seen))
    pool = +pool
    laid: list[list[tuple[str, bool]]] = [[] for _ in range(players)]
    for seat in seats:
        if game in ("pifpaf", "cacheta"):
            chosen = knock_out(rng, pool, size)
        else:
            left = sorted(pool.elements())
            chosen = [str(code) for code in rng.choice(left, size=min(size, len(left)), replace=False)]
            pool.subtract(Counter(chosen))
        laid[seat] = [(code, False) for code in chosen]
    return laid
