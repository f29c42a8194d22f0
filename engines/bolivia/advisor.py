"""The coaching helper: the exact expected final score of each open category under best play.

Dynamic programming over the 252 multisets of five dice. After a roll the player keeps a sub-multiset
(sets it aside) and rolls the rest; the chance of each outcome is its exact multinomial probability.
Tables are built once, at first use, per category and per table options.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement, product
from math import factorial, prod

from .config import BoliviaConfig, GrandeDeMano
from .errors import ART_HOW_TO_PLAY, RuleError
from .scoring import (
    CATEGORIES,
    DICE,
    GRANDES_AT_FULL_VALUE,
    MAX_ROLLS,
    Category,
    check_dice,
    check_roll_number,
    is_grande,
    score,
)

Multiset = tuple[int, ...]  # sorted pips
_EPSILON = 1e-12


def _sub_multisets(dice: Multiset) -> list[Multiset]:
    """Every distinct sub-multiset of `dice` (itself and the empty one included), sorted."""
    counts = Counter(dice)
    faces = sorted(counts)
    subs = []
    for chosen in product(*(range(counts[f] + 1) for f in faces)):
        subs.append(tuple(f for f, n in zip(faces, chosen, strict=True) for _ in range(n)))
    return subs


def outcome_probabilities(n: int) -> tuple[tuple[Multiset, Fraction], ...]:
    """Each multiset `n` fair dice can show, with its exact probability (multinomial / 6**n)."""
    out = []
    for faces in combinations_with_replacement(range(1, 7), n):
        ways = factorial(n) // prod(factorial(c) for c in Counter(faces).values())
        out.append((faces, Fraction(ways, 6**n)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Structure:
    """The dice-only part of the tables, shared by every category."""

    fives: tuple[Multiset, ...]  # the 252 multisets of five dice
    five_index: dict[Multiset, int]
    keeps: tuple[Multiset, ...]  # the multisets of 0 to 4 dice a player may keep before a roll
    keep_index: dict[Multiset, int]
    # For each keep: (five-dice result, probability, keeps allowed next that contain this keep).
    moves: tuple[tuple[tuple[int, float, tuple[int, ...]], ...], ...]
    proper_keeps: tuple[tuple[int, ...], ...]  # for each five-dice multiset, its sub-multisets but itself


@cache
def _structure() -> _Structure:
    fives = tuple(combinations_with_replacement(range(1, 7), DICE))
    five_index = {d: i for i, d in enumerate(fives)}
    keeps = tuple(k for n in range(DICE) for k in combinations_with_replacement(range(1, 7), n))
    keep_index = {k: i for i, k in enumerate(keeps)}
    outcomes = {n: outcome_probabilities(n) for n in range(1, DICE + 1)}
    moves = []
    for keep in keeps:
        row = []
        for rolled, probability in outcomes[DICE - len(keep)]:
            result = tuple(sorted(keep + rolled))
            # Dice set aside stay aside: the next keep is this one plus part of what was just rolled.
            following = tuple(
                sorted({keep_index[tuple(sorted(keep + more))] for more in _sub_multisets(rolled) if more != rolled})
            )
            row.append((five_index[result], float(probability), following))
        moves.append(tuple(row))
    proper = tuple(tuple(keep_index[s] for s in _sub_multisets(d) if s != d) for d in fives)
    return _Structure(fives, five_index, keeps, keep_index, tuple(moves), proper)


@dataclass(frozen=True, slots=True)
class _Table:
    """One category's values: keep before the 2nd roll (`before_second`) or the 3rd (`before_third`)."""

    before_second: tuple[float, ...]
    before_third: tuple[float, ...]


@cache
def _table(category: Category, config: BoliviaConfig, grandes_before: int) -> _Table:
    s = _structure()
    # Every score after the first roll is an "after a re-roll" score: rolls 2 and 3 are worth the same.
    later = [float(score(d, category, 2, config, grandes_before).points) for d in s.fives]
    before_third = tuple(sum(p * later[d] for d, p, _ in row) for row in s.moves)
    best_second = [max([later[d], *(before_third[k] for k in s.proper_keeps[d])]) for d in range(len(s.fives))]
    if config.retomar_apartados:
        before_second = tuple(sum(p * best_second[d] for d, p, _ in row) for row in s.moves)
    else:
        before_second = tuple(
            sum(p * max([later[d], *(before_third[k] for k in following)]) for d, p, following in row)
            for row in s.moves
        )
    return _Table(before_second, before_third)


def warm_up(config: BoliviaConfig | None = None) -> None:
    """Build every table for `config` now (what the first query would otherwise pay for)."""
    config = config or BoliviaConfig()
    for category in CATEGORIES:
        for grandes in range(GRANDES_AT_FULL_VALUE + 1):
            _table(category, config, grandes)


@dataclass(frozen=True, slots=True)
class Advice:
    """For one open category: its expected final score under best play, and what to do now."""

    category: Category
    expected: float | None  # None for a grande de mano: the game is won, points no longer matter
    score_now: int  # the points if the player scores now
    keep: tuple[int, ...] | None  # the dice to set aside before rolling the rest; None: score now
    instant_win: bool = False

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "category": self.category.value,
            "expected": self.expected,
            "score_now": self.score_now,
            "action": "score" if self.keep is None else "roll",
            "keep": None if self.keep is None else list(self.keep),
            "instant_win": self.instant_win,
        }


def advise(
    dice: Sequence[int],
    roll: int,
    open_categories: Iterable[Category] = CATEGORIES,
    set_aside: Sequence[int] = (),
    config: BoliviaConfig | None = None,
    grandes_before: int = 0,
    declared: Category | None = None,
    must_roll_all: bool = False,
) -> tuple[Advice, ...]:
    """Expected final score of each open category for `dice` made on roll `roll`, and the best keep.

    `set_aside` are the pips already set aside before this roll (they cannot go back into the cup unless
    `retomar_apartados`); `grandes_before` counts the grandes already written toward the two worth 50.
    `declared` is the category declared this turn, if any: another category can then only be reached by
    rolling all five dice again, and not at all after the third roll. `must_roll_all`: the category was just
    changed, so even the declared one must roll all five before scoring.
    """
    config = config or BoliviaConfig()
    pips = check_dice(dice)
    check_roll_number(roll)
    hand = tuple(sorted(pips))
    locked = tuple(sorted(set_aside))
    if locked and roll == 1:
        raise RuleError(ART_HOW_TO_PLAY, "antes de la primera tirada no hay dados apartados")
    if not Counter(locked) <= Counter(hand):
        raise RuleError(ART_HOW_TO_PLAY, f"los dados apartados {list(locked)} no están en la tirada {list(hand)}")
    if config.retomar_apartados:
        locked = ()
    grandes = min(grandes_before, GRANDES_AT_FULL_VALUE)
    s = _structure()
    won_by_roll = roll == 1 and config.grande_de_mano is GrandeDeMano.TIRADA and is_grande(hand)
    advice = []
    for category in open_categories:
        now = score(hand, category, roll, config, grandes)
        if declared is not None and (category is not declared or must_roll_all):
            # Changing the category means rolling all five dice again (How to play): it keeps nothing, and it is
            # priced as a fresh roll of five from the next roll on; on the last roll it is no longer possible.
            if roll < MAX_ROLLS:
                table = _table(category, config, grandes)
                values = table.before_second if roll == 1 else table.before_third
                advice.append(Advice(category, values[s.keep_index[()]], now.points, ()))
            continue
        if now.instant_win or (won_by_roll and score(hand, Category.GRANDE, 1, config, grandes).instant_win):
            advice.append(Advice(category, None, now.points, None, instant_win=True))
            continue
        best, keep = float(now.points), None
        if roll < MAX_ROLLS:
            table = _table(category, config, grandes)
            values = table.before_second if roll == 1 else table.before_third
            for candidate in _sub_multisets(hand):
                if candidate == hand or not Counter(locked) <= Counter(candidate):
                    continue
                value = values[s.keep_index[candidate]]
                better = value > best + _EPSILON
                tied = abs(value - best) <= _EPSILON and keep is not None and len(candidate) > len(keep)
                if better or tied:
                    best, keep = value, candidate
        advice.append(Advice(category, best, now.points, keep))
    return tuple(advice)
