"""Rulings over dice in doubt (art. 6-8): `settle` against every choice of faces applied one by one."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engines.dudo import ANY_FACE, Bid, DoubtfulReveal, DudoTable, Reveal, RuleError

from .helpers import play, seat

Cups = Mapping[str, Sequence[frozenset[int]]]


def every_reveal(cups: Cups) -> list[dict[str, tuple[int, ...]]]:
    """Every choice of one face per die."""
    names = list(cups)
    dice = [(name, faces) for name in names for faces in cups[name]]
    out = []
    for choice in itertools.product(*(sorted(faces) for _, faces in dice)):
        shown: dict[str, list[int]] = {name: [] for name in names}
        for (name, _), face in zip(dice, choice, strict=True):
            shown[name].append(face)
        out.append({name: tuple(faces) for name, faces in shown.items()})
    return out


def oracle(table: DudoTable, cups: Cups) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """The rulings' changes over every choice (applied by the engine itself) and the dice whose face alone changes
    the ruling for some choice of the others."""
    outcome = {}
    for shown in every_reveal(cups):
        ruling = table.apply(Reveal.of(shown)).rulings[-1]
        outcome[tuple(sorted(shown.items()))] = ruling.changes
    changes = set(outcome.values())
    deciding = set()
    for name, cup in cups.items():
        for k in range(len(cup)):
            for shown in every_reveal(cups):
                seen = set()
                for face in cup[k]:
                    other = dict(shown)
                    other[name] = (*shown[name][:k], face, *shown[name][k + 1 :])
                    seen.add(outcome[tuple(sorted(other.items()))])
                if len(seen) > 1:
                    deciding.add((name, k))
                    break
    return {c for change in changes for c in change}, deciding


def sure(*faces: int) -> list[frozenset[int]]:
    """Dice read for sure."""
    return [frozenset({f}) for f in faces]


def dudo_on(bid: str, *moves: str) -> DudoTable:
    """Ana, Beto and Caro with 3 dice each; Ana bids `bid`, then `moves`."""
    return play(seat("Ana Beto Caro", dice={"Ana": 3, "Beto": 3, "Caro": 3}), "Ana bid 2 5", f"Beto bid {bid}", *moves)


def test_sure_dice_settle_as_apply_rules() -> None:
    table = dudo_on("4 5", "Caro dudo")
    cups = {"Ana": sure(5, 1, 2), "Beto": sure(5, 3, 3), "Caro": sure(6, 6, 2)}
    settled = table.settle(DoubtfulReveal.of(cups))
    ruling = table.apply(Reveal.of({n: [min(c) for c in cup] for n, cup in cups.items()})).rulings[-1]
    assert settled.settled and (settled.least, settled.most) == (3, 3) and settled.deciding == ()
    assert (settled.loser, -settled.lost) == ruling.changes[0] == ("Beto", -1)


def test_dice_that_cannot_count_never_decide() -> None:
    """A six in doubt with a four cannot be a quina or an as: the dudo of «cuatro quinas» is settled by the rest."""
    table = dudo_on("4 5", "Caro dudo")
    six_or_four = frozenset({6, 4})
    cups = {"Ana": [*sure(5, 1), six_or_four], "Beto": sure(5, 5, 3), "Caro": [six_or_four, six_or_four, *sure(2)]}
    settled = table.settle(DoubtfulReveal.of(cups))
    assert settled.settled and settled.loser == "Caro" and settled.deciding == ()


def test_a_die_that_may_be_an_ace_decides_a_count_one_short() -> None:
    table = dudo_on("4 5", "Caro dudo")
    cups = {"Ana": [*sure(5, 1), frozenset({1, 4})], "Beto": [*sure(5, 3), frozenset({3, 6})], "Caro": sure(6, 6, 2)}
    settled = table.settle(DoubtfulReveal.of(cups))
    # Beto's three-or-six is in doubt too, but neither face counts: only Ana's die is asked
    assert not settled.settled and (settled.least, settled.most) == (3, 4) and settled.deciding == (("Ana", 2),)
    assert settled.loser is None


def test_an_unreadable_die_is_any_face() -> None:
    table = dudo_on("4 5", "Caro dudo")
    cups = {"Ana": [*sure(5, 1), ANY_FACE], "Beto": sure(5, 5, 3), "Caro": sure(6, 6, 2)}
    settled = table.settle(DoubtfulReveal.of(cups))
    assert settled.settled and (settled.least, settled.most) == (4, 5) and settled.loser == "Caro"


def test_a_calzo_is_settled_only_by_an_exact_count() -> None:
    table = dudo_on("4 5", "Caro calzo")
    exact = {"Ana": sure(5, 1, 2), "Beto": sure(5, 5, 3), "Caro": [*sure(6, 6), frozenset({2, 3})]}
    assert table.settle(DoubtfulReveal.of(exact)).settled
    maybe = {"Ana": sure(5, 1, 2), "Beto": sure(5, 5, 3), "Caro": [*sure(6, 6), frozenset({2, 5})]}
    settled = table.settle(DoubtfulReveal.of(maybe))
    assert not settled.settled and settled.deciding == (("Caro", 2),)


def test_a_doubted_paso_names_only_the_dice_that_decide_the_hand() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 3 5", "Beto bid 4 5", "Caro paso full", "Ana dudo")
    full = [*sure(3, 3, 3, 6), frozenset({6, 2})]
    settled = table.settle(DoubtfulReveal.of({"Caro": full}))
    assert not settled.settled and settled.deciding == (("Caro", 4),)
    held = [*sure(3, 3, 3, 6, 6)]
    settled = table.settle(DoubtfulReveal.of({"Caro": held}))
    assert settled.settled and settled.loser == "Ana"


def test_bad_candidates_are_refused_with_the_article_and_change_nothing() -> None:
    table = dudo_on("4 5", "Caro dudo")
    before = copy.deepcopy(table)
    for cups, article, words in (
        ({"Ana": [*sure(5, 1), frozenset()], "Beto": sure(5, 5, 3), "Caro": sure(6, 6, 2)}, "2", "ninguna cara"),
        ({"Ana": [*sure(5, 1), frozenset({7})], "Beto": sure(5, 5, 3), "Caro": sure(6, 6, 2)}, "2", "de 1 a 6"),
        ({"Ana": sure(5, 1), "Beto": sure(5, 5, 3), "Caro": sure(6, 6, 2)}, "11", "mostró 2"),
        ({"Ana": sure(5, 1, 2), "Beto": sure(5, 5, 3)}, "6", "faltan los dados de Caro"),
    ):
        with pytest.raises(RuleError, match=words) as caught:
            table.settle(DoubtfulReveal.of(cups))
        assert caught.value.article == article
    assert table == before


faces = st.frozensets(st.integers(1, 6), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["dudo", "calzo"]),
    bid=st.sampled_from(["3 5", "4 5", "6 5", "3 6", "2 1", "3 1"]),
    ana=st.lists(faces, min_size=3, max_size=3),
    beto=faces,
    rest=st.lists(st.integers(1, 6), min_size=5, max_size=5),
    doubtful=st.integers(0, 2),
)
def test_settle_agrees_with_every_choice_applied(
    kind: str, bid: str, ana: list[frozenset[int]], beto: frozenset[int], rest: list[int], doubtful: int
) -> None:
    """Settled exactly when every choice of faces gives one ruling; the deciding dice exactly those whose face alone
    changes the ruling for some choice of the others."""
    quantity, face = map(int, bid.split())
    assume(
        play(seat("Ana Beto Caro", dice={"Ana": 3, "Beto": 3, "Caro": 3}), "Ana bid 2 5").refusal(
            Bid("Beto", quantity, face)
        )
        is None
    )
    table = dudo_on(bid, f"Caro {kind}")
    cups = {"Ana": [*ana[:doubtful], *sure(*(min(f) for f in ana[doubtful:]))]}
    cups |= {"Beto": [beto, *sure(*rest[:2])], "Caro": sure(*rest[2:])}
    settled = table.settle(DoubtfulReveal.of(cups))
    changes, deciding = oracle(table, cups)
    assert settled.settled == (len(changes) == 1)
    assert set(settled.deciding) == (set() if settled.settled else deciding)
    if settled.settled and settled.loser is not None:
        assert changes == {(settled.loser, -settled.lost)}
    elif settled.settled:  # a right calzo: the caller gets a die back, or is at the top already
        assert len(changes) == 1 and next(iter(changes))[0] == "Caro" and next(iter(changes))[1] >= 0


@settings(max_examples=40, deadline=None)
@given(hand=st.sampled_from(["full", "escala", "quintilla"]), cup=st.lists(faces, min_size=5, max_size=5))
def test_a_paso_settles_as_every_choice_applied(hand: str, cup: list[frozenset[int]]) -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 3 5", "Beto bid 4 5", f"Caro paso {hand}", "Ana dudo")
    cup = [c if k < 2 else frozenset({min(c)}) for k, c in enumerate(cup)]  # two dice in doubt at most
    settled = table.settle(DoubtfulReveal.of({"Caro": cup}))
    changes, deciding = oracle(table, {"Caro": cup})
    assert settled.settled == (len(changes) == 1)
    assert set(settled.deciding) == (set() if settled.settled else deciding)
