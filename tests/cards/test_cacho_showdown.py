"""Spanish Cacho's showdown (seed 000, "Winning" and "Additional Notes")."""

from __future__ import annotations

import pytest

from engines.cards.cacho.showdown import CachoError, Category, evaluate, showdown
from tests.cards.helpers import cards


def test_seed_example_cacho_points() -> None:
    # "If a player held the Ace, 4, and 5 of diamonds, then the points would be 1+4+5+20=30."
    value = evaluate(cards("AD 4D 5D"))
    assert value.category is Category.CACHO
    assert value.points == 30


def test_seed_example_two_card_flush_points() -> None:
    # "4 of spades, a 2 of spades, and a 6 of diamonds, then the points would be 4+2+20=28": the seed's
    # formula (only the two cards of one suit, plus 20) gives 26; its printed total is a slip (rulings.md).
    value = evaluate(cards("4S 2S 6D"))
    assert value.category is Category.TWO_FLUSH
    assert value.points == 4 + 2 + 20 == 26
    assert evaluate(cards("2S 6S 4D")).points == 28  # the hand whose total the seed printed


def test_three_sixes_beat_everything() -> None:
    result = showdown([cards("4D 5D 6D"), cards("6S 6H 6C")])
    assert result.winner == 1
    assert result.hands[1].category is Category.THREE_SIXES
    assert result.decided_by == "category"


def test_cacho_always_beats_a_two_card_flush_regardless_of_points() -> None:
    # A-2-3 of hearts (26) against 5-6 of spades plus a 4 (31 as a two-card flush).
    result = showdown([cards("5S 6S 4C"), cards("AH 2H 3H")])
    assert result.winner == 1
    assert result.decided_by == "category"


def test_two_card_flush_beats_high_card() -> None:
    result = showdown([cards("6S 5H 4C"), cards("AD 2D 3C")])
    assert result.winner == 1


def test_points_decide_between_two_cachos() -> None:
    result = showdown([cards("AD 4D 5D"), cards("2C 3C 6C")])
    assert result.winner == 1  # 31 against 30
    assert result.decided_by == "points"


def test_points_decide_between_two_card_flushes() -> None:
    result = showdown([cards("4S 2S 6D"), cards("5H 4H AC"), cards("3C 2D 5S")])
    assert result.winner == 1  # 29 against 28; the high card hand is not in the contest
    assert result.decided_by == "points"


def test_equal_points_the_eldest_wins() -> None:
    # Seats are given from the eldest: seat 0 is the closest to the dealer's left.
    result = showdown([cards("AD 4D 5D"), cards("2C 3C 5C")])
    assert result.hands[0].points == result.hands[1].points == 30
    assert result.winner == 0
    assert result.decided_by == "eldest"
    reverse = showdown([cards("2C 3C 5C"), cards("AD 4D 5D")])
    assert reverse.winner == 0


def test_highest_card_decides_otherwise() -> None:
    result = showdown([cards("AS 2H 5C"), cards("6D 2S 3H")])
    assert result.winner == 1
    assert result.decided_by == "high_card"


def test_same_highest_card_default_eldest_option_kickers() -> None:
    low, high = cards("6S 2H AC"), cards("6D 5H 4C")
    assert showdown([low, high]).winner == 0
    assert showdown([low, high]).decided_by == "eldest"
    kickers = showdown([low, high], high_card_tiebreak="kickers")
    assert kickers.winner == 1
    assert kickers.decided_by == "kickers"


def test_refusals() -> None:
    with pytest.raises(CachoError, match="3 cartas"):
        evaluate(cards("AD 4D"))
    with pytest.raises(CachoError, match="no está en la baraja"):
        evaluate(cards("AD 4D 7D"))
    with pytest.raises(CachoError, match="repetida"):
        showdown([cards("AD 4D 5D"), cards("AD 2C 3C")])
    with pytest.raises(CachoError, match="de 2 a 4"):
        showdown([cards("AD 4D 5D")])
    with pytest.raises(CachoError, match="desempate"):
        showdown([cards("AD 4D 5D"), cards("2C 3C 5C")], high_card_tiebreak="suits")
