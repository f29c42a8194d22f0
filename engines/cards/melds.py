"""Melds of Pif Paf and Cacheta and an exact (backtracking, never greedy) solver that splits a hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from engines.cards.deck import RANK_NAMES, SUITS, Card

ACE_HIGH = 14


@dataclass(frozen=True, slots=True)
class MeldRules:
    """How a game forms melds: aces, what a group/set needs, and which cards are trumps (wild)."""

    ace_high: bool = False  # Cacheta: the ace also follows the king (Q-K-A), never K-A-2
    exact_suits: int | None = 3  # Pif Paf: a group holds exactly three suits
    min_suits: int = 3  # Cacheta: a set holds at least this many different suits
    max_per_suit: int = 2  # Cacheta: at most two cards of one suit in a set
    trumps: frozenset[Card] = frozenset()
    trump_natural_free: bool = True  # a trump in its own place is an ordinary card


PIFPAF_RULES = MeldRules()


def trumps_for(flip: Card, king_makes_aces: bool = True) -> frozenset[Card]:
    """Cacheta's trumps: the next rank up from the flip card, in both suits of the flip's colour."""
    if flip.rank == 13 and not king_makes_aces:
        return frozenset()
    rank = 1 if flip.rank == 13 else flip.rank + 1
    suits = ("S", "C") if flip.black else ("H", "D")
    return frozenset(Card(rank, suit) for suit in suits)


def cacheta_rules(
    flip: Card | None,
    *,
    min_suits: int = 3,
    trump_natural_free: bool = True,
    king_makes_aces: bool = True,
) -> MeldRules:
    """Cacheta's meld rules for a given flip card (None: no trumps)."""
    trumps = frozenset() if flip is None else trumps_for(flip, king_makes_aces)
    return MeldRules(
        ace_high=True,
        exact_suits=None,
        min_suits=min_suits,
        max_per_suit=2,
        trumps=trumps,
        trump_natural_free=trump_natural_free,
    )


@dataclass(frozen=True, slots=True)
class Meld:
    """A valid meld: its kind, its cards, and what the trump stands for (if one is used as wild)."""

    kind: str  # "sequence" or "group"
    cards: tuple[Card, ...]
    wild: Card | None = None  # the trump used as wild
    stands_for: Card | None = None

    def describe(self) -> str:
        """The meld in words, in Spanish."""
        name = "escalera" if self.kind == "sequence" else "grupo"
        text = f"{name}: {' '.join(str(c) for c in self.cards)}"
        if self.wild is not None and self.stands_for is not None:
            text += f" ({self.wild} vale por {self.stands_for})"
        return text


def _natural_kind(cards: Sequence[Card], rules: MeldRules) -> str | None:
    if len(cards) < 3:
        return None
    if len({c.rank for c in cards}) == 1:
        suits = Counter(c.suit for c in cards)
        if rules.exact_suits is not None:
            return "group" if len(suits) == rules.exact_suits else None
        ok = len(suits) >= rules.min_suits and max(suits.values()) <= rules.max_per_suit
        return "group" if ok else None
    if len({c.suit for c in cards}) != 1:
        return None
    ranks = sorted(c.rank for c in cards)
    if _consecutive(ranks):
        return "sequence"
    if rules.ace_high and ranks[0] == 1:
        # The ace after the king (Q-K-A); it cannot be at both ends at once (no K-A-2).
        return "sequence" if _consecutive(sorted([*ranks[1:], ACE_HIGH])) else None
    return None


def _consecutive(ranks: Sequence[int]) -> bool:
    return all(b == a + 1 for a, b in pairwise(ranks))


@lru_cache(maxsize=200_000)
def _meld_sorted(cards: tuple[Card, ...], rules: MeldRules) -> Meld | None:
    trumps_in = [c for c in cards if c in rules.trumps]
    # "Only 1 trump is allowed per set or straight" (Cacheta, Trump Card).
    if rules.trump_natural_free or len(trumps_in) <= 1:
        kind = _natural_kind(cards, rules)
        if kind is not None:
            return Meld(kind, _in_order(kind, cards))
    for wild in dict.fromkeys(trumps_in):
        others = list(cards)
        others.remove(wild)
        if not rules.trump_natural_free and any(c in rules.trumps for c in others):
            continue
        for substitute in _substitutes(others):
            kind = _natural_kind([*others, substitute], rules)
            if kind is not None:
                return Meld(kind, _in_order(kind, cards), wild, substitute)
    return None


def _in_order(kind: str, cards: tuple[Card, ...]) -> tuple[Card, ...]:
    # Written as played: an ace above the king goes last (Q-K-A).
    if kind == "sequence" and cards[0].rank == 1 and any(c.rank == 13 for c in cards):
        return (*cards[1:], cards[0])
    return cards


def _substitutes(others: Sequence[Card]) -> list[Card]:
    if not others:
        return []
    if len({c.rank for c in others}) == 1:
        return [Card(others[0].rank, suit) for suit in SUITS]
    if len({c.suit for c in others}) == 1:
        return [Card(rank, others[0].suit) for rank in RANK_NAMES]
    return []


def meld(cards: Sequence[Card], rules: MeldRules) -> Meld | None:
    """The meld these cards form together, or None if they are not one valid meld."""
    return _meld_sorted(tuple(sorted(cards)), rules)


def split(cards: Sequence[Card], rules: MeldRules) -> tuple[Meld, ...] | None:
    """Split all the cards into valid melds (exact search over every meld), or None if impossible."""
    hand = tuple(sorted(cards))
    n = len(hand)
    if n == 0:
        return ()
    containing: list[list[tuple[int, Meld]]] = [[] for _ in range(n)]
    for mask in range(1, 1 << n):
        if mask.bit_count() < 3:
            continue
        found = meld(tuple(hand[i] for i in range(n) if mask >> i & 1), rules)
        if found is not None:
            low = (mask & -mask).bit_length() - 1
            containing[low].append((mask, found))
    memo: dict[int, tuple[Meld, ...] | None] = {}

    def solve(mask: int) -> tuple[Meld, ...] | None:
        if mask == 0:
            return ()
        if mask in memo:
            return memo[mask]
        low = (mask & -mask).bit_length() - 1
        answer: tuple[Meld, ...] | None = None
        # The lowest card left must be in some meld made of cards still left: try every such meld.
        for option, found in containing[low]:
            if option & mask == option:
                rest = solve(mask & ~option)
                if rest is not None:
                    answer = (found, *rest)
                    break
        memo[mask] = answer
        return answer

    return solve((1 << n) - 1)


def going_out(cards: Sequence[Card], rules: MeldRules, discard: Card | None) -> tuple[Meld, ...] | None:
    """The melds of the hand after the discard (None: keep all cards), or None if they do not all meld."""
    rest = list(cards)
    if discard is not None:
        if discard not in rest:
            return None
        rest.remove(discard)
    return split(rest, rules)


def any_going_out(cards: Sequence[Card], rules: MeldRules, keep_all: bool) -> bool:
    """Whether some discard (or, if allowed, keeping every card) leaves only melds."""
    if keep_all and split(cards, rules) is not None:
        return True
    return any(going_out(cards, rules, d) is not None for d in dict.fromkeys(cards))
