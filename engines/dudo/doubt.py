"""Rulings over dice in doubt, each die a set of faces it may show: is the ruling the same whichever face each
shows, and if not, which dice could change it? Only the dice that decide need be looked at (art. 6)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .actions import Reveal
from .errors import RuleError
from .pintas import AS, FACES, count

Candidates = frozenset[int]  # the faces one die may show; one face: a die read for sure
ANY_FACE: Candidates = frozenset(FACES)  # a die nobody could read


@dataclass(frozen=True, slots=True)
class DoubtfulReveal:
    """The cups lifted, each die given as the faces it may show: {player: (candidates of each die)}."""

    dice: tuple[tuple[str, tuple[Candidates, ...]], ...]

    @classmethod
    def of(cls, dice: Mapping[str, Sequence[Iterable[int]]]) -> DoubtfulReveal:
        """Build from {player: [[faces of die 1], [faces of die 2], ...]}."""
        return cls(tuple((name, tuple(frozenset(faces) for faces in cup)) for name, cup in dice.items()))

    @classmethod
    def sure(cls, reveal: Reveal) -> DoubtfulReveal:
        """A reveal whose every die was read for sure."""
        return cls(tuple((name, tuple(frozenset({face}) for face in faces)) for name, faces in reveal.dice))

    def as_dict(self) -> dict[str, tuple[Candidates, ...]]:
        """The dice as {player: candidates of each die}."""
        return dict(self.dice)

    def first(self) -> Reveal:
        """One reading of it: each die's lowest candidate (the shape the engine checks)."""
        return Reveal(tuple((name, tuple(min(c) if c else 0 for c in cup)) for name, cup in self.dice))


@dataclass(frozen=True, slots=True)
class Settlement:
    """What the dice in doubt leave of the ruling: settled (the same whichever face each die shows) or not, the
    pinta's count from least to most (a dudo or calzo), and the dice that could change it, as (player, die)."""

    settled: bool
    least: int | None
    most: int | None
    deciding: tuple[tuple[str, int], ...]
    loser: str | None  # where settled: who loses (None: a right calzo)
    lost: int  # where settled: how many dice

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "settled": self.settled,
            "count": None if self.least is None else {"min": self.least, "max": self.most},
            "deciding": [[player, die] for player, die in self.deciding],
            "loser": self.loser,
            "lost": self.lost,
        }


def counts(candidates: Candidates, face: int, aces_wild: bool) -> tuple[bool, bool]:
    """Whether some and whether every face of a die's candidates counts for the pinta `face` (art. 2 and 6)."""
    counted = [count((c,), face, aces_wild).total == 1 for c in candidates]
    return any(counted), all(counted)


def count_bounds(dice: Iterable[Candidates], face: int, aces_wild: bool) -> tuple[int, int]:
    """The least and the most dice that show pinta `face` (aces too where wild) over every choice of faces."""
    least = most = 0
    for candidates in dice:
        some, every = counts(candidates, face, aces_wild)
        least += every
        most += some
    return least, most


def check_candidates(reveal: DoubtfulReveal) -> RuleError | None:
    """A die with no face it may show, or a face that is not 1-6, is refused (art. 2)."""
    for name, cup in reveal.dice:
        for k, candidates in enumerate(cup, start=1):
            if not candidates:
                return RuleError("2", f"el dado {k} de {name} no tiene ninguna cara posible")
            wrong = sorted(c for c in candidates if c not in FACES)
            if wrong:
                return RuleError("2", f"el dado {k} de {name} no puede mostrar {wrong[0]}: un dado va de 1 a 6")
    return None


def representative(candidates: Candidates, wanted: bool, face: int, aces_wild: bool) -> int:
    """A face of the die's candidates that counts for the pinta (`wanted`) or that does not."""
    for c in sorted(candidates, key=lambda c: (c != face, c != AS, c)):
        if (count((c,), face, aces_wild).total == 1) == wanted:
            return c
    raise ValueError("no such face")  # the caller asks only for what `counts` says exists


def combinations(cup: Sequence[Candidates]) -> Iterable[tuple[int, ...]]:
    """Every distinct set of faces the dice may show, as sorted tuples (the order of dice in a cup never matters)."""
    return sorted({tuple(sorted(faces)) for faces in itertools.product(*(sorted(c) for c in cup))})


def faces_for_total(
    dice: Sequence[tuple[str, Candidates]], face: int, aces_wild: bool, total: int
) -> dict[str, tuple[int, ...]]:
    """One choice of faces, {player: faces}, for which exactly `total` dice count for the pinta (`total` within
    count_bounds)."""
    shown: dict[str, list[int]] = {}
    extra = total - count_bounds((c for _, c in dice), face, aces_wild)[0]
    for name, candidates in dice:
        some, every = counts(candidates, face, aces_wild)
        wanted = every or (some and extra > 0)
        if some and not every and extra > 0:
            extra -= 1
        shown.setdefault(name, []).append(representative(candidates, wanted, face, aces_wild))
    return {name: tuple(faces) for name, faces in shown.items()}


__all__ = [
    "ANY_FACE",
    "Candidates",
    "DoubtfulReveal",
    "Settlement",
    "check_candidates",
    "combinations",
    "count_bounds",
    "counts",
    "faces_for_total",
    "representative",
]
