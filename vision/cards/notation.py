"""Card codes rank + suit (`AS`, `10H`, `QC`) and each game's deck, as in engines/cards/deck.py (not imported)."""

from __future__ import annotations

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
# One detector class per card: a corner index shows rank and suit together.
CLASS_NAMES = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS)
CLASS_OF = {name: index for index, name in enumerate(CLASS_NAMES)}

# Each game's ranks and how many decks are in play (engines/cards/deck.py: CACHO_DECK, TRUCO_DECK, DOUBLE_DECK).
GAME_DECKS: dict[str, tuple[tuple[str, ...], int]] = {
    "cacho": (("A", "2", "3", "4", "5", "6"), 1),
    "truco": (("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"), 1),
    "pifpaf": (RANKS, 2),
    "cacheta": (RANKS, 2),
}
GAMES = tuple(GAME_DECKS)


def parse_card(text: str) -> str:
    """The canonical code of a card written rank + suit (case-insensitive); ValueError in Spanish otherwise."""
    token = text.strip().upper()
    if token not in CLASS_OF:
        raise ValueError(f"carta inválida «{text.strip()}»: se escribe rango (A, 2-10, J, Q, K) y palo (S, H, D, C)")
    return token


def deck(game: str) -> list[str]:
    """Every physical card of a game's decks, copies included (two decks: each code twice)."""
    ranks, copies = GAME_DECKS[game]
    return [f"{rank}{suit}" for _ in range(copies) for suit in SUITS for rank in ranks]
