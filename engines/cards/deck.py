"""Cards written rank + suit (`AS`, `10H`, `QC`) and the decks of each game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engines.cards.errors import CardRuleError

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"} | {r: str(r) for r in range(2, 11)}
_RANKS_BY_NAME = {name: rank for rank, name in RANK_NAMES.items()}
NOTATION_ARTICLE = "Notación de cartas"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A playing card: rank 1 (ace) to 13 (king) and suit S, H, D or C."""

    rank: int
    suit: str

    def __str__(self) -> str:
        return f"{RANK_NAMES[self.rank]}{self.suit}"

    @property
    def black(self) -> bool:
        """Spades and clubs are black; hearts and diamonds red."""
        return self.suit in ("S", "C")


def parse_card(text: str) -> Card:
    """Parse one card in the rank + suit notation (case-insensitive)."""
    token = text.strip().upper()
    rank = _RANKS_BY_NAME.get(token[:-1])
    suit = token[-1:]
    if rank is None or suit not in SUITS:
        raise CardRuleError(
            NOTATION_ARTICLE,
            f"carta inválida «{text.strip()}»: se escribe rango (A, 2-10, J, Q, K) y palo (S, H, D, C), "
            "p. ej. AS, 10H, QC",
        )
    return Card(rank, suit)


def parse_cards(text: str | Sequence[str]) -> tuple[Card, ...]:
    """Parse cards separated by spaces or commas, or a sequence of card strings."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(parse_card(token) for token in tokens)


def show(cards: Iterable[Card]) -> str:
    """Cards written back in the notation, separated by spaces."""
    return " ".join(str(card) for card in cards)


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """The cards a game uses: which ranks, how many copies of each card, and the seed's section."""

    name: str
    ranks: frozenset[int]
    copies: int
    article: str

    @property
    def size(self) -> int:
        """Number of cards in the whole deck."""
        return len(self.ranks) * len(SUITS) * self.copies

    def check(self, cards: Iterable[Card], error: type[CardRuleError] = CardRuleError) -> None:
        """Refuse (with the game's `error`) a card not in this deck or more copies than the decks in play."""
        counts: Counter[Card] = Counter()
        for card in cards:
            if card.rank not in self.ranks:
                raise error(self.article, f"la carta {card} no está en la baraja de {self.name}")
            counts[card] += 1
            if counts[card] > self.copies:
                each = "una" if self.copies == 1 else str(self.copies)
                raise error(
                    self.article,
                    f"la carta {card} está repetida más de lo que permiten las barajas en juego: "
                    f"en {self.name} hay {each} de cada carta",
                )


CACHO_DECK = DeckSpec("Cacho (24 cartas: A a 6)", frozenset(range(1, 7)), 1, "Background")
DOUBLE_DECK = DeckSpec("dos barajas de 52 cartas", frozenset(range(1, 14)), 2, "Pif Paf (Cacheta)")
TRUCO_DECK = DeckSpec("Truco (40 cartas, sin 8, 9 ni 10)", frozenset((*range(1, 8), 11, 12, 13)), 1, "Truco")
