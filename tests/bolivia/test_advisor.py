"""The coaching helper: exact expected scores, checked against independent brute force and hand sums."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from itertools import combinations, combinations_with_replacement, product
from math import comb

import pytest

from engines.bolivia import (
    ART_EQUIPMENT,
    ART_HOW_TO_PLAY,
    CATEGORIES,
    BoliviaConfig,
    Category,
    GrandeDeMano,
    RuleError,
    advise,
    outcome_probabilities,
    score,
)

from .play import refusal

TOLERANCE = 1e-9
DEFAULT = BoliviaConfig()


def expected(dice: tuple[int, ...], roll: int, category: Category, **kwargs: object) -> float:
    """The helper's expected score for one category."""
    (advice,) = advise(dice, roll, [category], **kwargs)  # type: ignore[arg-type]
    assert advice.expected is not None
    return advice.expected


# --- independent brute force: ordered outcomes, dice by position, exact fractions --------------------------


def brute_one_roll_left(dice: tuple[int, ...], category: Category, config: BoliviaConfig) -> Fraction:
    """Roll 2 made: score now, or keep any dice (by position) and roll the rest once, over all 6**n rolls."""
    best = Fraction(score(dice, category, 2, config).points)
    for kept in range(31):  # bit i set: die i kept; 31 would keep all five
        free = [i for i in range(5) if not kept >> i & 1]
        total = Fraction(0)
        for faces in product(range(1, 7), repeat=len(free)):
            new = list(dice)
            for i, face in zip(free, faces, strict=True):
                new[i] = face
            total += score(new, category, 3, config).points
        best = max(best, total / 6 ** len(free))
    return best


def brute_two_rolls_left(dice: tuple[int, ...], category: Category, config: BoliviaConfig) -> Fraction:
    """Roll 1 made: the same by recursion over ordered outcomes; dice set aside stay aside (no retomar)."""

    def kept_subsets(hand: tuple[int, ...], locked: tuple[int, ...]) -> set[tuple[int, ...]]:
        subsets = set()
        for size in range(len(locked), 5):
            for positions in combinations(range(5), size):
                keep = tuple(sorted(hand[i] for i in positions))
                rest = list(keep)
                if all(rest.count(f) >= locked.count(f) for f in set(locked)):
                    subsets.add(keep)
        return subsets

    def average(keep: tuple[int, ...], value: Callable[[tuple[int, ...]], Fraction]) -> Fraction:
        n = 5 - len(keep)
        return sum((value(tuple(sorted(keep + faces))) for faces in product(range(1, 7), repeat=n)), Fraction(0)) / (
            6**n
        )

    @cache
    def before_third(keep: tuple[int, ...]) -> Fraction:
        return average(keep, lambda hand: Fraction(score(hand, category, 3, config).points))

    @cache
    def at_second(hand: tuple[int, ...], locked: tuple[int, ...]) -> Fraction:
        options = [Fraction(score(hand, category, 2, config).points)]
        options += [before_third(k) for k in kept_subsets(hand, locked)]
        return max(options)

    best = Fraction(score(dice, category, 1, config).points)
    for keep in kept_subsets(tuple(dice), ()):
        best = max(best, average(keep, lambda hand, keep=keep: at_second(hand, keep)))
    return best


@pytest.mark.parametrize(
    ("dice", "category"),
    [
        ((6, 6, 1, 2, 3), Category.SENAS),
        ((1, 2, 3, 4, 6), Category.ESCALERA),
        ((2, 2, 3, 3, 5), Category.FULL),
        ((4, 4, 4, 1, 2), Category.POKER),
        ((5, 5, 5, 5, 2), Category.GRANDE),
        ((1, 3, 5, 2, 6), Category.FULL),
    ],
)
def test_one_roll_left_matches_brute_force(dice: tuple[int, ...], category: Category) -> None:
    assert expected(dice, 2, category) == pytest.approx(
        float(brute_one_roll_left(dice, category, DEFAULT)), abs=TOLERANCE
    )


def test_one_roll_left_with_the_ace_high_option_matches_brute_force() -> None:
    config = BoliviaConfig(escalera_as_alto=True)
    dice = (1, 3, 4, 5, 5)
    value = expected(dice, 2, Category.ESCALERA, config=config)
    assert value == pytest.approx(float(brute_one_roll_left(dice, Category.ESCALERA, config)), abs=TOLERANCE)
    assert value > expected(dice, 2, Category.ESCALERA)


@pytest.mark.parametrize(
    ("dice", "category"),
    [
        ((1, 2, 3, 4, 6), Category.ESCALERA),
        ((2, 2, 3, 3, 5), Category.FULL),
        ((6, 6, 6, 1, 2), Category.GRANDE),
    ],
)
def test_two_rolls_left_matches_brute_force(dice: tuple[int, ...], category: Category) -> None:
    assert expected(dice, 1, category) == pytest.approx(
        float(brute_two_rolls_left(dice, category, DEFAULT)), abs=TOLERANCE
    )


# --- computed by hand ---------------------------------------------------------------------------------------


def test_balas_with_no_ace_keeps_nothing_each_die_has_two_chances() -> None:
    # Five dice, each a 1 by the end with probability 1 - (5/6)**2 = 11/36.
    (advice,) = advise((2, 3, 4, 5, 6), 1, [Category.BALAS])
    assert advice.expected == pytest.approx(5 * 11 / 36, abs=TOLERANCE) and advice.keep == ()


def test_senas_keeps_the_sixes() -> None:
    (advice,) = advise((6, 1, 6, 2, 3), 1, [Category.SENAS])
    assert advice.expected == pytest.approx(12 + 3 * 6 * 11 / 36, abs=TOLERANCE)  # 17.5
    assert advice.keep == (6, 6) and advice.score_now == 12


def test_grande_one_roll_left_from_four_alike() -> None:
    assert expected((6, 6, 6, 6, 2), 2, Category.GRANDE) == pytest.approx(50 / 6, abs=TOLERANCE)
    # A third grande is worth its face value: five 6s are 30.
    assert expected((6, 6, 6, 6, 2), 2, Category.GRANDE, grandes_before=2) == pytest.approx(5, abs=TOLERANCE)


def test_dice_already_set_aside_must_be_kept() -> None:
    (free,) = advise((6, 1, 6, 2, 3), 2, [Category.SENAS])
    assert free.keep == (6, 6) and free.expected == pytest.approx(12 + 3, abs=TOLERANCE)
    (bound,) = advise((6, 1, 6, 2, 3), 2, [Category.SENAS], set_aside=(1, 2))
    assert bound.keep == (1, 2, 6, 6) and bound.expected == pytest.approx(12 + 1, abs=TOLERANCE)
    (back,) = advise(
        (6, 1, 6, 2, 3), 2, [Category.SENAS], set_aside=(1, 2), config=BoliviaConfig(retomar_apartados=True)
    )
    assert back.expected == free.expected


def test_on_the_last_roll_the_only_move_is_to_score() -> None:
    for advice in advise((2, 2, 3, 3, 3), 3):
        assert advice.keep is None
        assert advice.expected == score((2, 2, 3, 3, 3), advice.category, 3).points


def test_a_made_first_roll_escalera_is_scored_at_once() -> None:
    (advice,) = advise((5, 4, 3, 2, 1), 1, [Category.ESCALERA])
    assert advice.keep is None and advice.expected == 25 and advice.score_now == 25


def test_grande_de_mano_is_flagged_as_a_win() -> None:
    by_category = {a.category: a for a in advise((3, 3, 3, 3, 3), 1)}
    assert by_category[Category.GRANDE].instant_win and by_category[Category.GRANDE].expected is None
    assert not by_category[Category.TRENES].instant_win and by_category[Category.TRENES].expected == 15
    tirada = advise((3, 3, 3, 3, 3), 1, [Category.TRENES], config=BoliviaConfig(grande_de_mano=GrandeDeMano.TIRADA))
    assert tirada[0].instant_win


def test_only_open_categories_are_advised_in_the_order_given() -> None:
    advice = advise((1, 2, 3, 4, 6), 1, [Category.FULL, Category.BALAS])
    assert [a.category for a in advice] == [Category.FULL, Category.BALAS]


def test_taking_dice_back_never_hurts_and_sometimes_helps() -> None:
    helps = False
    back = BoliviaConfig(retomar_apartados=True)
    for dice in combinations_with_replacement(range(1, 7), 5):
        for category in (Category.FULL, Category.ESCALERA, Category.POKER):
            bound, free = expected(dice, 1, category), expected(dice, 1, category, config=back)
            assert free >= bound - TOLERANCE
            helps = helps or free > bound + TOLERANCE
    assert helps


@pytest.mark.parametrize("n", range(1, 6))
def test_outcome_probabilities_are_exact_and_sum_to_one(n: int) -> None:
    outcomes = outcome_probabilities(n)
    assert len(outcomes) == comb(n + 5, 5)
    assert sum(p for _, p in outcomes) == 1
    assert dict(outcomes)[(1,) * n] == Fraction(1, 6**n)


def test_every_category_is_advised_by_default() -> None:
    assert tuple(a.category for a in advise((1, 1, 2, 2, 3), 2)) == CATEGORIES


@pytest.mark.parametrize(
    ("kwargs", "article", "text"),
    [
        ({"dice": (1, 2, 3, 4), "roll": 1}, ART_EQUIPMENT, "se juega con cinco dados: llegaron 4"),
        ({"dice": (1, 2, 3, 4, 8), "roll": 1}, ART_EQUIPMENT, "el dado 5 muestra 8: un dado va de 1 a 6"),
        ({"dice": (1, 2, 3, 4, 5), "roll": 4}, ART_HOW_TO_PLAY, "la tirada es la 1, la 2 o la 3, no 4"),
        (
            {"dice": (1, 2, 3, 4, 5), "roll": 1, "set_aside": (1,)},
            ART_HOW_TO_PLAY,
            "antes de la primera tirada no hay dados apartados",
        ),
        (
            {"dice": (1, 2, 3, 4, 5), "roll": 2, "set_aside": (6,)},
            ART_HOW_TO_PLAY,
            r"los dados apartados \[6\] no están en la tirada",
        ),
    ],
)
def test_bad_queries_are_refused(kwargs: dict[str, object], article: str, text: str) -> None:
    with refusal(RuleError, article, text):
        advise(**kwargs)  # type: ignore[arg-type]


def test_after_declaring_another_category_means_rolling_all_five_again() -> None:
    # The seed (How to play): roll 5 5 5 3 1, declare quinas; póker is only reachable by rolling all five again.
    by_category = {a.category: a for a in advise((5, 5, 5, 3, 1), 1, declared=Category.QUINAS)}
    assert by_category[Category.QUINAS].keep == (5, 5, 5)
    poker = by_category[Category.POKER]
    assert poker.keep == () and not poker.instant_win
    # Rolling all five is the second roll: the mean of the best play from each outcome of five fresh dice.
    fresh = sum(float(p) * advise(d, 2, [Category.POKER])[0].expected for d, p in outcome_probabilities(5))  # type: ignore[operator]
    assert poker.expected == pytest.approx(fresh, abs=TOLERANCE)
    assert poker.expected < 20.7 - 1
    assert all(a.keep == () for a in by_category.values() if a.category is not Category.QUINAS)


def test_after_declaring_the_last_roll_and_a_change_of_category() -> None:
    (only,) = advise((5, 5, 5, 3, 1), 3, declared=Category.QUINAS)
    assert only.category is Category.QUINAS and only.keep is None and only.expected == 15
    changed = advise((5, 5, 5, 3, 1), 1, [Category.POKER, Category.QUINAS], declared=Category.POKER, must_roll_all=True)
    assert all(a.keep == () for a in changed)
