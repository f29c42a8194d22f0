"""Art. 12: the siciliana: when the next player doubts the opening (aces not wild), the duel's loser loses 2."""

from __future__ import annotations

import pytest

from engines.dudo import Bid, ChallengeKind, DudoTable

from .helpers import dice, last_ruling, lost, play, seat

# 2 quinas and 2 ases: at the opening 2 quinas.
CUPS = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]}


def opening_doubted(quantity: int) -> DudoTable:
    return play(seat("Ana Beto Caro"), f"Ana bid {quantity} 5", "Beto dudo", CUPS)


def test_the_opener_loses_two() -> None:
    table = opening_doubted(3)
    ruling = last_ruling(table)
    assert lost(table) == {"Ana": -2} and dice(table)["Ana"] == 3
    assert ruling.siciliana and ruling.article == "12" and "12" in ruling.articles
    assert "siciliana" in ruling.message
    assert table.round is not None and table.round.opener == "Ana"


def test_the_doubter_loses_two() -> None:
    table = opening_doubted(2)
    assert lost(table) == {"Beto": -2} and last_ruling(table).siciliana


def test_siciliana_on_every_reopening() -> None:
    # 3 tontos, and the 2 ases do not count: "cuatro tontos" is false.
    table = play(opening_doubted(3), "Ana bid 4 2", "Beto dudo", {**CUPS, "Ana": [5, 5, 1]})
    assert lost(table) == {"Ana": -2} and dice(table)["Ana"] == 1


def test_siciliana_with_one_die_left_costs_that_die() -> None:
    table = seat("Ana Beto Caro", dice={"Beto": 1})
    table = play(table, "Ana bid 2 5", "Beto dudo", {**CUPS, "Beto": [4]})
    assert lost(table) == {"Beto": -1} and last_ruling(table).eliminated == ("Beto",)


def test_siciliana_on_the_opening_that_dismissed_a_false_start() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 2 1", Bid("Beto", 3, 5, desestima=True), "Caro dudo", CUPS)
    assert lost(table) == {"Beto": -2}


def test_no_siciliana_after_a_raise() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 2 5", "Beto bid 3 5", "Caro dudo", CUPS)
    assert lost(table) == {"Caro": -1} and not last_ruling(table).siciliana


def test_no_siciliana_after_a_false_start_continued() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 1 1", "Beto bid 2 1", "Caro dudo", CUPS)
    assert lost(table) == {"Caro": -1} and not last_ruling(table).siciliana


def test_no_siciliana_on_a_paso_doubt() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 3 5", "Beto paso full", "Caro dudo", {"Beto": [2, 3, 4, 5, 6]})
    ruling = last_ruling(table)
    assert ruling.kind is ChallengeKind.PASO and lost(table) == {"Beto": -1} and not ruling.siciliana


def test_no_siciliana_on_a_calzo() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 3 5", "Beto calzo", CUPS)
    assert lost(table) == {"Beto": -1} and not last_ruling(table).siciliana


def test_no_siciliana_in_the_obligo() -> None:
    table = seat("Ana Beto Caro", dice={"Ana": 1})
    table = play(table, "Ana bid 2 5", "Beto dudo", {**CUPS, "Ana": [5]})
    assert lost(table) == {"Ana": -1} and not last_ruling(table).siciliana
    table = seat("Ana Beto Caro", dice={"Ana": 1})
    table = play(table, "Ana bid 1 5", "Beto dudo", {**CUPS, "Ana": [5]})
    assert lost(table) == {"Beto": -1} and not last_ruling(table).siciliana


@pytest.mark.parametrize(("quantity", "loser"), [(3, "Beto"), (4, "Beto"), (5, "Ana")])
def test_no_siciliana_heads_up(quantity: int, loser: str) -> None:
    # Heads-up: the As is wild from the opening (2 quinas + 2 ases = 4) and every doubt costs one die.
    table = seat("Ana Beto")
    cups = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6]}
    table = play(table, f"Ana bid {quantity} 5", "Beto dudo", cups)
    assert not last_ruling(table).siciliana
    assert lost(table) == {loser: -1}


def test_no_siciliana_heads_up_among_three_seats() -> None:
    table = seat("Ana Beto Caro", dice={"Caro": 0})
    table = play(table, "Ana bid 5 5", "Beto dudo", {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6]})
    assert lost(table) == {"Ana": -1}
