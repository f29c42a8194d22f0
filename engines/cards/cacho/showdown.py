"""The showdown of Spanish Cacho (seed 000, "Winning" and "Additional Notes")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from engines.cards.deck import CACHO_DECK, Card
from engines.cards.errors import CardRuleError


class CachoError(CardRuleError):
    """A refused Spanish Cacho action: the seed's section and a Spanish message."""


class Category(IntEnum):
    """Hand categories, best last: three sixes > cacho > two-card flush > highest card."""

    HIGH_CARD = 0
    TWO_FLUSH = 1
    CACHO = 2
    THREE_SIXES = 3


CATEGORY_IDS = {
    Category.THREE_SIXES: "three_sixes",
    Category.CACHO: "cacho",
    Category.TWO_FLUSH: "two_flush",
    Category.HIGH_CARD: "high_card",
}
CATEGORY_NAMES = {
    Category.THREE_SIXES: "tres seises",
    Category.CACHO: "cacho (tres del mismo palo)",
    Category.TWO_FLUSH: "dos del mismo palo",
    Category.HIGH_CARD: "carta más alta",
}
CACHO_BONUS = 20
HIGH_CARD_TIEBREAKS = ("eldest", "kickers")


@dataclass(frozen=True, slots=True)
class HandValue:
    """A three-card hand's category and points (card values, plus 20 for a cacho or two-card flush)."""

    cards: tuple[Card, ...]
    category: Category
    points: int | None
    ranks: tuple[int, ...]  # descending, for the highest card


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Value one three-card hand."""
    if len(cards) != 3:
        raise CachoError("Playing the trick", f"una mano de Cacho tiene 3 cartas, no {len(cards)}")
    CACHO_DECK.check(cards, CachoError)
    ranks = tuple(sorted((card.rank for card in cards), reverse=True))
    if all(card.rank == 6 for card in cards):
        return HandValue(tuple(cards), Category.THREE_SIXES, None, ranks)
    suit, count = Counter(card.suit for card in cards).most_common(1)[0]
    # "the points of only the two cards in the same suit are added plus an additional 20 points"
    points = sum(card.rank for card in cards if card.suit == suit) + CACHO_BONUS
    if count == 3:
        return HandValue(tuple(cards), Category.CACHO, points, ranks)
    if count == 2:
        return HandValue(tuple(cards), Category.TWO_FLUSH, points, ranks)
    return HandValue(tuple(cards), Category.HIGH_CARD, ranks[0], ranks)


@dataclass(frozen=True, slots=True)
class Showdown:
    """Who wins a showdown (index in seat order from the eldest) and how it was decided."""

    winner: int
    hands: tuple[HandValue, ...]
    decided_by: str  # "category", "points", "high_card", "kickers" or "eldest"


def showdown(hands: Sequence[Sequence[Card]], high_card_tiebreak: str = "eldest") -> Showdown:
    """Decide the best of the hands, given in seat order from the eldest (ties go to the eldest)."""
    if high_card_tiebreak not in HIGH_CARD_TIEBREAKS:
        raise CachoError("Winning", f"desempate de carta alta desconocido: {high_card_tiebreak}")
    if not 2 <= len(hands) <= 4:
        raise CachoError("Background", f"se juega de 2 a 4 jugadores, no {len(hands)}")
    values = tuple(evaluate(hand) for hand in hands)
    CACHO_DECK.check([card for hand in hands for card in hand], CachoError)
    best = max(value.category for value in values)
    contenders = [i for i, value in enumerate(values) if value.category == best]
    if len(contenders) == 1:
        return Showdown(contenders[0], values, "category")

    def key(i: int) -> tuple[int, ...]:
        value = values[i]
        if best is Category.HIGH_CARD:
            return value.ranks if high_card_tiebreak == "kickers" else value.ranks[:1]
        # Points count only between two or more cachos or two-card flushes ("Additional Notes").
        return (value.points or 0,)

    top = max(key(i) for i in contenders)
    leaders = [i for i in contenders if key(i) == top]
    if len(leaders) > 1:
        # "If two players have the same point value, then the eldest player wins."
        return Showdown(leaders[0], values, "eldest")
    if best is Category.HIGH_CARD:
        second = [i for i in contenders if values[i].ranks[:1] == top[:1]]
        return Showdown(leaders[0], values, "kickers" if len(second) > 1 else "high_card")
    return Showdown(leaders[0], values, "points")
