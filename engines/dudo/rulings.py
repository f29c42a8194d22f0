"""Typed rulings: what was counted when the cups were lifted, who lost or got back dice, and why."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .pintas import Count, Hand, bid_text


class ChallengeKind(StrEnum):
    """What lifted the cups."""

    DUDO = "dudo"
    CALZO = "calzo"
    PASO = "paso"  # a paso was doubted


@dataclass(frozen=True, slots=True)
class StandingBid:
    """The bid on the table and who made it."""

    player: str
    quantity: int
    face: int

    def text(self) -> str:
        """As said at the table."""
        return bid_text(self.quantity, self.face)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {"player": self.player, "quantity": self.quantity, "face": self.face}


@dataclass(frozen=True, slots=True)
class Challenge:
    """A dudo, calzo or doubted paso waiting for the cups to be lifted."""

    kind: ChallengeKind
    challenger: str
    target: str  # the bidder (dudo, calzo) or the passer (paso)
    bid: StandingBid | None  # the bid challenged; for a paso, the bid before it
    aces_wild: bool
    siciliana: bool = False
    hand: Hand | None = None
    obligo: bool = False

    @property
    def article(self) -> str:
        """The article that resolves it."""
        return {ChallengeKind.DUDO: "6", ChallengeKind.CALZO: "7", ChallengeKind.PASO: "8"}[self.kind]


@dataclass(frozen=True, slots=True)
class Ruling:
    """One resolved round: the count, the dice lost or got back, eliminations, and the articles applied."""

    round: int
    kind: ChallengeKind
    challenger: str
    target: str
    bid: StandingBid | None
    count: Count | None  # dudo and calzo
    hand: Hand | None  # paso: the hand declared
    shown: tuple[int, ...] | None  # paso: the passer's dice
    hand_held: bool | None  # paso: the declared hand is in the cup
    changes: tuple[tuple[str, int], ...]  # (player, dice gained (+) or lost (-))
    eliminated: tuple[str, ...]
    siciliana: bool
    article: str
    articles: tuple[str, ...]
    next_opener: str | None
    message: str

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "round": self.round,
            "kind": self.kind.value,
            "challenger": self.challenger,
            "target": self.target,
            "bid": None if self.bid is None else self.bid.to_dict(),
            "count": None if self.count is None else self.count.to_dict(),
            "hand": None if self.hand is None else self.hand.value,
            "shown": None if self.shown is None else list(self.shown),
            "hand_held": self.hand_held,
            "changes": dict(self.changes),
            "eliminated": list(self.eliminated),
            "siciliana": self.siciliana,
            "article": self.article,
            "articles": list(self.articles),
            "next_opener": self.next_opener,
            "message": self.message,
        }
