"""Art. 10: five dice lost -> eliminated; the last player with dice wins the table; nothing after the end."""

from __future__ import annotations

import pytest

from engines.dudo import DudoTable, RuleError, Start

from .helpers import dice, last_ruling, play, refusal, refused, seat


def duel() -> DudoTable:
    """Ana and Beto with one die each (heads-up obligo by default); Ana's "dos quinas" is doubted and false."""
    table = seat("Ana Beto", dice={"Ana": 1, "Beto": 1})
    return play(table, "Ana bid 2 5", "Beto dudo")


def test_losing_the_last_die_eliminates() -> None:
    table = seat("Ana Beto Caro", dice={"Beto": 1}, opener="Beto")
    table = play(table, "Beto bid 2 5", "Caro dudo", {"Ana": [2] * 5, "Beto": [5], "Caro": [2] * 5})
    ruling = last_ruling(table)
    assert ruling.eliminated == ("Beto",) and "10" in ruling.articles
    assert dice(table)["Beto"] == 0 and "Beto" not in table.active
    assert table.winner is None
    assert "sale de la mesa" in ruling.message


def test_an_eliminated_player_may_not_act_nor_show_dice() -> None:
    table = seat("Ana Beto Caro", dice={"Beto": 0})
    refused(table, "Beto bid 2 5", "10")
    table = play(table, "Ana bid 2 5", "Caro dudo")
    refused(table, {"Ana": [2] * 5, "Beto": [], "Caro": [2] * 5}, "10")
    refused(table, {"Ana": [2] * 5, "Beto": [5], "Caro": [2] * 5}, "10")


def test_the_last_player_with_dice_wins() -> None:
    table = play(duel(), {"Ana": [3], "Beto": [5]})
    ruling = last_ruling(table)
    assert table.winner == "Beto" and ruling.eliminated == ("Ana",)
    assert dice(table) == {"Ana": 0, "Beto": 1}
    assert table.round is None and ruling.next_opener is None
    assert "Beto gana la mesa" in ruling.message
    assert table.legal_actions() is None
    assert table.legal_player_actions() == []


@pytest.mark.parametrize("move", ["Beto bid 1 5", "Beto dudo", "Beto calzo", "Beto paso full", "Ana bid 1 5"])
def test_nothing_after_the_end(move: str) -> None:
    table = play(duel(), {"Ana": [3], "Beto": [5]})
    refused(table, move, "10")


def test_no_reveal_after_the_end() -> None:
    table = play(duel(), {"Ana": [3], "Beto": [5]})
    refused(table, {"Beto": [5]}, "10")


def test_a_table_needs_two_players_with_dice() -> None:
    with refusal(RuleError, "10", "hacen falta al menos 2 jugadores con dados para jugar"):
        DudoTable.start(Start(("Ana", "Beto", "Caro"), "Ana", dice=(5, 0, 0)))


def test_a_whole_table_to_its_champion() -> None:
    table = seat("Ana Beto Caro", dice={"Ana": 1, "Beto": 1, "Caro": 2}, opener="Caro")
    table = play(table, "Caro bid 2 6", "Ana bid 3 6", "Beto dudo", {"Ana": [6], "Beto": [1], "Caro": [6, 4]})
    assert dice(table) == {"Ana": 1, "Beto": 0, "Caro": 2}
    assert table.round is not None and table.round.opener == "Caro"  # the next after the eliminated Beto
    assert table.round.heads_up
    table = play(table, "Caro bid 1 4", "Ana dudo", {"Ana": [2], "Caro": [4, 3]})
    assert table.winner == "Caro"
    assert [r.eliminated for r in table.rulings] == [("Beto",), ("Ana",)]
    assert DudoTable.replay(table.history) == table
