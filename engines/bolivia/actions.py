"""The typed actions of a Bolivian Cacho game (frozen): the start, each roll read, and each decision."""

from __future__ import annotations

from dataclasses import dataclass, field

from .config import BoliviaConfig
from .scoring import Category


@dataclass(frozen=True, slots=True)
class Variant:
    """Which variations are played: 1 or 3 cross hatches, partner teams, Generala (Variations)."""

    hatches: int = 1
    teams: tuple[tuple[str, ...], ...] = ()
    generala: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """The log's names of the variations played ("classic" when none)."""
        names = [
            name
            for name, on in (
                ("three_hatches", self.hatches == 3),
                ("partners", bool(self.teams)),
                ("generala", self.generala),
            )
            if on
        ]
        return tuple(names) or ("classic",)


@dataclass(frozen=True, slots=True)
class Start:
    """The game starts: players in turn order, the variations played and the table's options."""

    players: tuple[str, ...]
    variant: Variant = field(default_factory=Variant)
    config: BoliviaConfig = field(default_factory=BoliviaConfig)


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll as the camera reads it: all five dice in place, set-aside ones included (How to play)."""

    player: str
    dice: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Declare:
    """The category the player will score, said after the first roll; a new one is a change (How to play)."""

    player: str
    category: Category


@dataclass(frozen=True, slots=True)
class SetAside:
    """The dice (1-based positions in the last roll) kept out of the next roll (How to play)."""

    player: str
    positions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Score:
    """The player scores the dice; `category` is the declared one, or the one chosen in Generala."""

    player: str
    category: Category | None = None


@dataclass(frozen=True, slots=True)
class Pick:
    """Partners: the team picks whose attempt, among its members', is scored this turn (Variations)."""

    player: str


@dataclass(frozen=True, slots=True)
class Hatch:
    """Three cross hatches: the hatch (1-3, worth that many game points) the turn's score goes on."""

    player: str
    hatch: int


@dataclass(frozen=True, slots=True)
class Undo:
    """The coordinator takes back the last action (a log event, never an action of the game itself)."""


PlayerAction = Roll | Declare | SetAside | Score | Pick | Hatch
Action = Start | PlayerAction
LogEvent = Action | Undo
