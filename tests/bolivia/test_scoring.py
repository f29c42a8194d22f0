"""How to play: scores — every category, its points on the first roll and after a re-roll, and the marks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.bolivia import (
    ART_EQUIPMENT,
    ART_HOW_TO_PLAY,
    BoliviaConfig,
    Category,
    GrandeTardia,
    RuleError,
    category_from,
    score,
    score_over,
)

from .play import refusal

# --- the seed's own examples --------------------------------------------------------------------------


def test_seed_three_twos_count_six() -> None:
    result = score((2, 2, 2, 5, 6), Category.TONTOS, 2)
    assert (result.points, result.mark, result.made) == (6, "6", True)


def test_seed_two_sixes_count_twelve_and_the_rest_score_nothing() -> None:
    result = score((6, 6, 1, 2, 3), Category.SENAS, 1)
    assert (result.points, result.mark) == (12, "12")


@pytest.mark.parametrize(
    ("category", "dice", "first", "later"),
    [
        (Category.ESCALERA, (1, 2, 3, 4, 5), 25, 20),
        (Category.ESCALERA, (6, 2, 4, 3, 5), 25, 20),
        (Category.FULL, (4, 4, 2, 2, 4), 35, 30),
        (Category.POKER, (3, 3, 3, 1, 3), 45, 40),
    ],
)
def test_seed_middle_categories_first_roll_and_after_a_re_roll(
    category: Category, dice: tuple[int, ...], first: int, later: int
) -> None:
    made_first = score(dice, category, 1)
    assert (made_first.points, made_first.mark, made_first.made) == (first, "5", True)
    for roll in (2, 3):
        made_later = score(dice, category, roll)
        assert (made_later.points, made_later.mark, made_later.made) == (later, "O", True)


def test_seed_grande_de_mano_is_an_instant_win() -> None:
    result = score((4, 4, 4, 4, 4), Category.GRANDE, 1)
    assert result.instant_win and result.grande and result.mark == "$"


@pytest.mark.parametrize("roll", [2, 3])
def test_seed_grande_after_a_re_roll_is_worth_fifty(roll: int) -> None:
    result = score((4, 4, 4, 4, 4), Category.GRANDE, roll)
    assert (result.points, result.mark, result.instant_win, result.grande) == (50, "$", False, True)


@pytest.mark.parametrize("before", [0, 1])
def test_seed_the_first_two_grandes_are_worth_fifty(before: int) -> None:
    assert score((1, 1, 1, 1, 1), Category.GRANDE, 2, grandes_before=before).points == 50


def test_seed_a_third_grande_is_worth_its_face_value_the_sum_by_default() -> None:
    result = score((4, 4, 4, 4, 4), Category.GRANDE, 3, grandes_before=2)
    assert (result.points, result.mark, result.grande) == (20, "$", True)
    assert score((6, 6, 6, 6, 6), Category.GRANDE, 2, grandes_before=5).points == 30


def test_option_grande_tardia_cara_counts_the_face_once() -> None:
    config = BoliviaConfig(grande_tardia=GrandeTardia.CARA)
    assert score((4, 4, 4, 4, 4), Category.GRANDE, 2, config, grandes_before=2).points == 4
    assert score((4, 4, 4, 4, 4), Category.GRANDE, 2, config, grandes_before=1).points == 50


def test_grande_de_mano_after_two_grandes_still_wins_by_default() -> None:
    result = score((3, 3, 3, 3, 3), Category.GRANDE, 1, grandes_before=2)
    assert result.instant_win and result.points == 15


def test_option_grande_de_mano_tras_limite_false_it_is_only_face_value() -> None:
    config = BoliviaConfig(grande_de_mano_tras_limite=False)
    result = score((3, 3, 3, 3, 3), Category.GRANDE, 1, config, grandes_before=2)
    assert not result.instant_win and (result.points, result.mark) == (15, "$")
    assert score((3, 3, 3, 3, 3), Category.GRANDE, 1, config, grandes_before=1).instant_win


# --- categories not made: 0 and crossed out ------------------------------------------------------------


@pytest.mark.parametrize(
    ("category", "dice"),
    [
        (Category.BALAS, (2, 3, 4, 5, 6)),
        (Category.SENAS, (1, 2, 3, 4, 5)),
        (Category.ESCALERA, (1, 2, 3, 4, 4)),
        (Category.ESCALERA, (1, 2, 3, 5, 6)),
        (Category.FULL, (2, 2, 3, 3, 4)),
        (Category.FULL, (2, 2, 2, 2, 3)),
        (Category.POKER, (2, 2, 2, 3, 3)),
        (Category.GRANDE, (2, 2, 2, 2, 3)),
    ],
)
@pytest.mark.parametrize("roll", [1, 2, 3])
def test_a_category_not_made_scores_zero_and_is_crossed_out(
    category: Category, dice: tuple[int, ...], roll: int
) -> None:
    result = score(dice, category, roll)
    assert (result.points, result.mark, result.made, result.instant_win) == (0, "X", False, False)


@pytest.mark.parametrize("face", range(1, 7))
def test_every_number_category_sums_only_its_own_face(face: int) -> None:
    category = category_from(str(face))
    assert category is not None and category.face == face
    dice = (face, face, face, face % 6 + 1, (face + 1) % 6 + 1)
    assert score(dice, category, 1).points == 3 * face
    assert score(dice, category, 3).points == 3 * face  # numbers are worth the same on every roll


# --- options where the seed is silent -------------------------------------------------------------------


def test_escalera_with_the_ace_high_is_refused_by_default_and_allowed_by_option() -> None:
    assert score((3, 4, 5, 6, 1), Category.ESCALERA, 1).points == 0
    config = BoliviaConfig(escalera_as_alto=True)
    result = score((3, 4, 5, 6, 1), Category.ESCALERA, 1, config)
    assert (result.points, result.mark) == (25, "5")
    assert score((1, 2, 4, 5, 6), Category.ESCALERA, 1, config).points == 0  # 4-5-6-1-2 is no sequence


def test_a_grande_counts_as_poker_by_default() -> None:
    assert score((5, 5, 5, 5, 5), Category.POKER, 2).points == 40
    assert score((5, 5, 5, 5, 5), Category.POKER, 1).points == 45
    assert score((5, 5, 5, 5, 5), Category.POKER, 2, BoliviaConfig(grande_como_poker=False)).mark == "X"


def test_a_grande_is_not_a_full_by_default() -> None:
    assert score((5, 5, 5, 5, 5), Category.FULL, 2).mark == "X"
    result = score((5, 5, 5, 5, 5), Category.FULL, 2, BoliviaConfig(grande_como_full=True))
    assert (result.points, result.mark) == (30, "O")


def test_five_alike_scored_elsewhere_is_not_a_grande() -> None:
    assert not score((6, 6, 6, 6, 6), Category.SENAS, 1).grande
    assert score((6, 6, 6, 6, 6), Category.SENAS, 1).points == 30
    assert not score((6, 6, 6, 6, 6), Category.POKER, 1).grande


# --- names and refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("1", Category.BALAS),
        ("balas", Category.BALAS),
        ("2", Category.TONTOS),
        ("Trenes", Category.TRENES),
        ("4", Category.CUADRAS),
        ("quinas", Category.QUINAS),
        ("6", Category.SENAS),
        ("escalera", Category.ESCALERA),
        ("FULL", Category.FULL),
        ("poker", Category.POKER),
        ("póker", Category.POKER),
        ("grande", Category.GRANDE),
        ("Dormida", Category.GRANDE),
    ],
)
def test_categories_by_number_or_bolivian_name(text: str, category: Category) -> None:
    assert category_from(text) is category


@pytest.mark.parametrize("text", ["0", "7", "yahtzee", "", "escala"])
def test_unknown_categories(text: str) -> None:
    assert category_from(text) is None


@pytest.mark.parametrize(
    ("dice", "reason"),
    [
        ((1, 2, 3, 4), "se juega con cinco dados: llegaron 4"),
        ((1, 2, 3, 4, 5, 6), "se juega con cinco dados: llegaron 6"),
        ((0, 1, 2, 3, 4), "el dado 1 muestra 0: un dado va de 1 a 6"),
        ((1, 2, 3, 4, 7), "el dado 5 muestra 7: un dado va de 1 a 6"),
    ],
)
def test_five_dice_of_one_to_six_or_refused(dice: tuple[int, ...], reason: str) -> None:
    with refusal(RuleError, ART_EQUIPMENT, reason):
        score(dice, Category.BALAS, 1)


@pytest.mark.parametrize("roll", [0, 4, -1])
def test_the_roll_is_one_two_or_three(roll: int) -> None:
    with refusal(RuleError, ART_HOW_TO_PLAY, f"la tirada es la 1, la 2 o la 3, no {roll}$"):
        score((1, 2, 3, 4, 5), Category.BALAS, roll)


# ----------------------------------------------------------------- over dice in doubt


def test_a_category_scored_over_dice_in_doubt_names_only_the_dice_that_change_it() -> None:
    """A doubtful six-or-four cannot change «trenes»: settled; in «senas» it is the die that decides."""
    dice = [frozenset({3}), frozenset({3}), frozenset({3}), frozenset({6, 4}), frozenset({2})]
    trenes = score_over(dice, Category.TRENES, 1)
    assert trenes.settled and [r.points for r in trenes.results] == [9] and trenes.deciding == ()
    senas = score_over(dice, Category.SENAS, 1)
    assert not senas.settled and [r.points for r in senas.results] == [0, 6] and senas.deciding == (3,)
    assert senas.to_dict() == {
        "category": "senas",
        "settled": False,
        "points": [0, 6],
        "marks": ["6", "X"],
        "deciding": [3],
    }
    full = score_over([frozenset({3})] * 3 + [frozenset({6}), frozenset({6, 5})], Category.FULL, 1)
    assert not full.settled and full.deciding == (4,) and {r.mark for r in full.results} == {"5", "X"}


def test_dice_in_doubt_of_the_wrong_shape_are_refused_with_the_section() -> None:
    for dice, words in (([frozenset({3})] * 4, "se tiran 5 dados, no 4"), ([frozenset()] * 5, "no tiene caras")):
        with pytest.raises(RuleError, match=words) as caught:
            score_over(dice, Category.TRENES, 1)
        assert caught.value.article == ART_EQUIPMENT


@settings(max_examples=60, deadline=None)
@given(
    category=st.sampled_from(list(Category)),
    roll=st.integers(1, 3),
    sure=st.lists(st.integers(1, 6), min_size=3, max_size=3),
    doubtful=st.lists(st.frozensets(st.integers(1, 6), min_size=1, max_size=4), min_size=2, max_size=2),
)
def test_score_over_agrees_with_every_choice_scored(
    category: Category, roll: int, sure: list[int], doubtful: list[frozenset[int]]
) -> None:
    from itertools import product

    dice = [frozenset({f}) for f in sure] + doubtful
    found = score_over(dice, category, roll)
    every = {(r.points, r.mark) for r in (score(c, category, roll) for c in product(*(sorted(f) for f in dice)))}
    assert {(r.points, r.mark) for r in found.results} == every and found.settled == (len(every) == 1)

    def decides(k: int) -> bool:
        others = product(*(sorted(f) for j, f in enumerate(dice) if j != k))
        return any(len({score((*rest, f), category, roll).points for f in dice[k]}) > 1 for rest in others)

    if not found.settled:
        assert set(found.deciding) >= {k for k in range(5) if decides(k)} and min(found.deciding) >= 3
