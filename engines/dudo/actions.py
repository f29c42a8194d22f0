"""The typed actions of a Dudo table (frozen): what a player says, and the cups lifted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .config import DudoConfig
from .pintas import Hand


@dataclass(frozen=True, slots=True)
class Start:
    """A table sits down: seat order is clockwise (art. 3); `dice` and `table_start_dice` resume one."""

    players: tuple[str, ...]
    opener: str
    dice: tuple[int, ...] | None = None
    table_start_dice: int | None = None
    config: DudoConfig = field(default_factory=DudoConfig)


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid: quantity + pinta over every die on the table (art. 4); face 1 is ases."""

    player: str
    quantity: int
    face: int
    desestima: bool = False  # dismisses an opening in aces and opens anew (art. 5, option c)


@dataclass(frozen=True, slots=True)
class Dudo:
    """ "Dudo": doubts the standing bid (art. 6), or the paso just declared (art. 8)."""

    player: str


@dataclass(frozen=True, slots=True)
class Calzo:
    """ "Calzo": the standing bid is exactly right (art. 7)."""

    player: str


@dataclass(frozen=True, slots=True)
class Paso:
    """A paso declaring a hand in the player's own cup (art. 8)."""

    player: str
    hand: Hand


@dataclass(frozen=True, slots=True)
class Reveal:
    """The cups lifted after a dudo, calzo or doubted paso: the dice each player shows."""

    dice: tuple[tuple[str, tuple[int, ...]], ...]

    @classmethod
    def of(cls, dice: Mapping[str, Sequence[int]]) -> Reveal:
        """Build from {player: [faces]}."""
        return cls(tuple((name, tuple(faces)) for name, faces in dice.items()))

    def as_dict(self) -> dict[str, tuple[int, ...]]:
        """The dice as {player: faces}."""
        return dict(self.dice)


@dataclass(frozen=True, slots=True)
class Descalificacion:
    """The organizer disqualifies a player caught cheating (art. 11): out of the table at once, the round void."""

    player: str


@dataclass(frozen=True, slots=True)
class Undo:
    """The coordinator takes back the last action or ruling (art. 11); the log keeps both lines."""


PlayerAction = Bid | Dudo | Calzo | Paso
Action = PlayerAction | Reveal | Descalificacion
Event = Start | Action
LogEvent = Event | Undo
