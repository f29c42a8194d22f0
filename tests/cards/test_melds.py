"""Melds of Pif Paf (seed 001) and Cacheta (seed 003), and the exact meld solver."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.cards.deck import SUITS, Card
from engines.cards.melds import (
    PIFPAF_RULES,
    MeldRules,
    any_going_out,
    cacheta_rules,
    going_out,
    meld,
    split,
    trumps_for,
)
from tests.cards.helpers import cards

CACHETA = cacheta_rules(None)


def is_meld(text: str, rules: MeldRules) -> bool:
    return meld(cards(text), rules) is not None


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("QS QH QD", True),  # the seed's examples
        ("QS QH QD QD", True),
        ("QS QD QD", False),
        ("QS QH QD QC", False),
        ("QS QS QH QH QD QD", True),  # exactly three suits, any size
        ("QS QH", False),
        ("3H 4H 5H", True),
        ("AH 2H 3H", True),  # aces low
        ("QH KH AH", False),  # never high in Pif Paf
        ("3H 4H 6H", False),
        ("3H 4H 5D", False),
        ("3H 3H 4H 5H", False),
        ("9C 10C JC QC KC", True),
    ],
)
def test_pifpaf_melds(text: str, valid: bool) -> None:
    assert is_meld(text, PIFPAF_RULES) is valid


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("AH 2H 3H", True),  # the ace before the two
        ("QH KH AH", True),  # or after the king
        ("KH AH 2H", False),  # never both ways at once
        ("JH QH KH AH", True),
        ("5H 5C 5D 5D", True),  # the seed's example: two of one suit allowed
        ("5H 5C 5D", True),
        ("5H 5D 5D", False),  # default: three different suits
        ("5S 5H 5D 5C", True),  # four suits are fine in Cacheta
        ("5S 5S 5H 5H 5D 5D 5C 5C", True),
    ],
)
def test_cacheta_melds(text: str, valid: bool) -> None:
    assert is_meld(text, CACHETA) is valid


def test_cacheta_two_suit_sets_option() -> None:
    rules = cacheta_rules(None, min_suits=2)
    assert is_meld("5H 5D 5D", rules)
    assert not is_meld("5D 5D 5D", rules)


def test_trumps_are_the_next_rank_up_in_the_flips_colour() -> None:
    # "flip card is an eight of Clubs, the trump cards will be all black nines"
    assert trumps_for(cards("8C")[0]) == frozenset(cards("9S 9C"))
    assert trumps_for(cards("8D")[0]) == frozenset(cards("9H 9D"))
    assert trumps_for(cards("KH")[0]) == frozenset(cards("AH AD"))
    assert trumps_for(cards("KH")[0], king_makes_aces=False) == frozenset()
    assert trumps_for(cards("AS")[0]) == frozenset(cards("2S 2C"))


def test_a_trump_stands_for_any_card_one_per_meld() -> None:
    rules = cacheta_rules(cards("8C")[0])
    found = meld(cards("5H 7H 9S"), rules)
    assert found is not None and found.wild == cards("9S")[0] and found.stands_for == cards("6H")[0]
    assert is_meld("KD 9C QD", rules)  # J♦ (or A♦)
    assert is_meld("4S 4H 9C", rules)  # a set of fours
    assert not is_meld("5H 9S 9C", rules)  # two trumps as wild in one meld
    assert not is_meld("5H 9S 9C 8H", rules)
    assert not is_meld("5H 9H 7H", rules)  # red nines are not trumps with a black flip


def test_a_trump_in_its_own_place_is_ordinary_by_default() -> None:
    rules = cacheta_rules(cards("8C")[0])
    assert is_meld("9S 9C 9H", rules)
    assert is_meld("7C 8C 9C 10C 9S", rules)  # 9♣ natural, 9♠ wild for the 6♣ or the J♣
    assert is_meld("8S 9S 10S 9C", rules)  # 9♠ natural, 9♣ wild for J♠ (or 7♠)
    strict = cacheta_rules(cards("8C")[0], trump_natural_free=False)
    assert not is_meld("8S 9S 10S 9C", strict)
    assert is_meld("8S 9S 10S", strict)


def test_solver_is_not_greedy() -> None:
    # 3♠4♠5♠6♠ 6♥6♦: the 6♠ must go to the group, not the sequence.
    found = split(cards("3S 4S 5S 6S 6H 6D 9C 10C JC"), PIFPAF_RULES)
    assert found is not None
    melds = sorted(tuple(map(str, m.cards)) for m in found)
    assert melds == [("3S", "4S", "5S"), ("6D", "6H", "6S"), ("9C", "10C", "JC")]


def test_solver_says_no_when_no_split_exists() -> None:
    assert split(cards("3S 4S 5S 6S 6H 6D 9C 10C QC"), PIFPAF_RULES) is None
    assert split(cards("AS 2S"), PIFPAF_RULES) is None
    assert split((), PIFPAF_RULES) == ()


def test_solver_uses_two_decks() -> None:
    found = split(cards("3H 4H 5H 3H 4H 5H 7C 7D 7S"), PIFPAF_RULES)
    assert found is not None and len(found) == 3


def test_going_out_pifpaf_nine_after_the_discard() -> None:
    hand = cards("3S 4S 5S 6S 6H 6D 9C 10C JC KD")
    assert going_out(hand, PIFPAF_RULES, cards("KD")[0]) is not None
    assert going_out(hand, PIFPAF_RULES, cards("9C")[0]) is None
    assert going_out(hand, PIFPAF_RULES, cards("QD")[0]) is None  # not in the hand
    assert any_going_out(hand, PIFPAF_RULES, keep_all=False)


def test_cacheta_ten_card_knock_keeps_all() -> None:
    hand = cards("2D 3D 4D 5D 7S 7H 7C 8C 9C 10C")
    assert going_out(hand, CACHETA, None) is not None
    assert any_going_out(hand, CACHETA, keep_all=True)


# --- property: the solver agrees with brute force over every partition -------------------------------

SMALL = [Card(rank, suit) for rank in (1, 2, 3, 4, 11, 12, 13) for suit in SUITS]


def naive_meld(block: Sequence[Card], game: str, trumps: frozenset[Card]) -> bool:
    """An independent reading of the rules: try the block as is, or each trump replaced by any card."""
    options: list[list[Card]] = [list(block)]
    for i, c in enumerate(block):
        if c in trumps:
            others = list(block[:i]) + list(block[i + 1 :])
            options += [[*others, Card(r, s)] for r in range(1, 14) for s in SUITS]
    return any(_naive_natural(opt, game) for opt in options)


def _naive_natural(block: list[Card], game: str) -> bool:
    if len(block) < 3:
        return False
    if all(c.rank == block[0].rank for c in block):
        suits = [c.suit for c in block]
        if game == "pifpaf":
            return len(set(suits)) == 3
        return len(set(suits)) >= 3 and all(suits.count(s) <= 2 for s in suits)
    if any(c.suit != block[0].suit for c in block):
        return False
    ranks = sorted(c.rank for c in block)
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    if game == "cacheta" and ranks[0] == 1:
        high = sorted([*ranks[1:], 14])
        return high == list(range(high[0], high[0] + len(high)))
    return False


def partitions(items: list[int]) -> Iterator[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]
        yield [[first], *part]


@cache
def _naive_cached(block: tuple[Card, ...], game: str, trumps: frozenset[Card]) -> bool:
    return naive_meld(block, game, trumps)


def brute_force(hand: Sequence[Card], game: str, trumps: frozenset[Card]) -> bool:
    return any(
        all(len(b) >= 3 and _naive_cached(tuple(sorted(hand[i] for i in b)), game, trumps) for b in part)
        for part in partitions(list(range(len(hand))))
        if all(len(b) >= 3 for b in part)
    )


@st.composite
def near_melds(draw: st.DrawFn) -> list[Card]:
    """One or two runs or groups from the small deck, plus maybe a stray card: often (not always) valid."""
    hand: list[Card] = []
    for _ in range(draw(st.integers(1, 2))):
        suit = draw(st.sampled_from(SUITS))
        if draw(st.booleans()):
            start = draw(st.sampled_from([1, 2, 11, 12]))
            hand += [Card(r if r <= 13 else 1, suit) for r in range(start, start + 3)]
        else:
            rank = draw(st.sampled_from([1, 2, 3, 4, 12, 13]))
            suits = draw(st.permutations(SUITS))[: draw(st.integers(2, 4))]
            hand += [Card(rank, s) for s in suits]
    hand += draw(st.lists(st.sampled_from(SMALL), max_size=1))
    return hand


hands = st.one_of(near_melds(), st.lists(st.sampled_from(SMALL), min_size=3, max_size=7)).filter(
    lambda h: len(h) <= 7 and all(h.count(c) <= 2 for c in h)
)


@given(hands)
def test_pifpaf_solver_agrees_with_brute_force(hand: list[Card]) -> None:
    found = split(hand, PIFPAF_RULES)
    assert (found is not None) == brute_force(hand, "pifpaf", frozenset())
    if found is not None:
        assert sorted(c for m in found for c in m.cards) == sorted(hand)
        assert all(naive_meld(m.cards, "pifpaf", frozenset()) for m in found)


@given(hands, st.sampled_from([Card(3, "S"), Card(12, "H"), Card(1, "C")]))
def test_cacheta_solver_agrees_with_brute_force(hand: list[Card], flip: Card) -> None:
    rules = cacheta_rules(flip)
    found = split(hand, rules)
    assert (found is not None) == brute_force(hand, "cacheta", rules.trumps)
    if found is not None:
        assert sorted(c for m in found for c in m.cards) == sorted(hand)
        assert all(naive_meld(m.cards, "cacheta", rules.trumps) for m in found)
