"""The spectators' odds: how likely the standing bid is, knowing only how many dice are in play (binomial)."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from .pintas import AS


def face_chance(face: int, aces_wild: bool) -> float:
    """Chance one unseen die counts for `face`: 1/6, or 2/6 when aces are wild and the pinta is not ases."""
    return 2 / 6 if aces_wild and face != AS else 1 / 6


def at_least(quantity: int, dice: int, chance: float) -> float:
    """P(X >= quantity) for X ~ Binomial(dice, chance)."""
    if quantity <= 0:
        return 1.0
    if quantity > dice:
        return 0.0
    return sum(comb(dice, k) * chance**k * (1 - chance) ** (dice - k) for k in range(quantity, dice + 1))


def exactly(quantity: int, dice: int, chance: float) -> float:
    """P(X == quantity) for X ~ Binomial(dice, chance)."""
    if not 0 <= quantity <= dice:
        return 0.0
    return comb(dice, quantity) * chance**quantity * (1 - chance) ** (dice - quantity)


@dataclass(frozen=True, slots=True)
class BidOdds:
    """The chance that the bid stands (at least that many) and that it is exact (a calzo wins)."""

    quantity: int
    face: int
    dice: int
    aces_wild: bool
    true: float
    exact: float

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "quantity": self.quantity,
            "face": self.face,
            "dice": self.dice,
            "aces_wild": self.aces_wild,
            "true": round(self.true, 4),
            "exact": round(self.exact, 4),
        }


def bid_odds(quantity: int, face: int, dice: int, aces_wild: bool) -> BidOdds:
    """The odds of a bid over `dice` unseen dice."""
    chance = face_chance(face, aces_wild)
    return BidOdds(quantity, face, dice, aces_wild, at_least(quantity, dice, chance), exactly(quantity, dice, chance))
