"""Art. 9: the obligo (closed): a player left with one die opens obligando; aces not wild; the pinta is fixed."""

from __future__ import annotations

import pytest

from engines.dudo import Bid, DudoTable

from .helpers import Move, assert_legal_agrees, dice, last_ruling, lost, play, refused, seat


def obligo(*moves: Move, **one_die: int) -> DudoTable:
    """Ana has one die and opens obligando over Beto, Caro and Dani (`one_die` gives others one die too)."""
    table = seat("Ana Beto Caro Dani", dice={"Ana": 1, **one_die})
    return play(table, *moves)


def test_a_player_with_one_die_opens_obligando() -> None:
    table = obligo()
    rnd = table.round
    assert rnd is not None and rnd.obligo and rnd.mode == "obligo" and not rnd.aces_wild
    assert not rnd.opening_rules  # the obligo is not an art. 5 opening: no siciliana
    table = play(table, "Ana bid 2 5")
    assert table.round is not None and not table.round.aces_wild


def test_the_loser_left_with_one_die_opens_obligando_next() -> None:
    table = seat("Ana Beto Caro", dice={"Beto": 2})
    table = play(table, "Ana bid 3 5", "Beto bid 4 5", "Caro dudo", {"Ana": [2] * 5, "Beto": [5, 6], "Caro": [2] * 5})
    assert dice(table)["Beto"] == 1
    assert table.round is not None and table.round.opener == "Beto" and table.round.obligo


def test_the_others_only_raise_the_quantity_of_the_pinta() -> None:
    table = obligo("Ana bid 2 5")
    table.check(Bid("Beto", 3, 5))
    table.check(Bid("Beto", 16, 5))
    legal = table.legal_actions()
    assert legal is not None and {face for _, face in legal.bids} == {5}
    assert legal.dudo.allowed
    assert_legal_agrees(table)


@pytest.mark.parametrize(
    "move",
    [
        "Beto bid 2 6",  # a higher pinta: the pinta cannot be changed
        "Beto bid 3 6",
        "Beto bid 3 2",
        "Beto bid 1 1",  # nor turned into aces
        "Beto bid 2 1",
        "Beto bid 5 1",
        "Beto bid 2 5",  # the same quantity is no raise
        "Beto bid 1 5",
    ],
)
def test_the_others_may_not_change_the_pinta_nor_go_to_aces(move: str) -> None:
    refused(obligo("Ana bid 2 5"), move, "9")


def test_no_calzo_and_no_paso_in_the_obligo() -> None:
    table = obligo("Ana bid 2 5")
    refused(table, "Beto calzo", "9")
    refused(table, "Beto paso full", "9")
    legal = table.legal_actions()
    assert legal is not None and legal.calzo.article == "9" and legal.paso.article == "9"


def test_the_obligado_himself_keeps_his_pinta() -> None:
    table = obligo("Ana bid 2 5", "Beto bid 3 5", "Caro bid 4 5", "Dani bid 5 5")
    assert table.round is not None and table.round.to_act == "Ana"
    table.check(Bid("Ana", 6, 5))
    refused(table, "Ana bid 5 6", "9")
    refused(table, "Ana bid 3 1", "9")


def test_another_obligado_may_change_the_pinta_or_go_to_aces() -> None:
    table = obligo("Ana bid 2 5", Beto=1)
    assert table.round is not None and table.round.obligados == {"Ana", "Beto"}
    table.check(Bid("Beto", 2, 6))  # the same quantity, a higher pinta
    table.check(Bid("Beto", 1, 1))  # to aces: half rounded up
    table.check(Bid("Beto", 3, 5))
    refused(table, "Beto bid 1 6", "4")  # still a raise by art. 4
    refused(table, "Beto bid 2 4", "4")
    refused(table, "Beto calzo", "9")
    refused(table, "Beto paso full", "9")
    assert_legal_agrees(table)


def test_after_the_other_obligado_changes_it_the_rest_follow_the_new_pinta() -> None:
    table = obligo("Ana bid 2 5", "Beto bid 1 1", Beto=1)
    table.check(Bid("Caro", 2, 1))
    refused(table, "Caro bid 3 5", "9")
    refused(table, "Caro bid 1 1", "9")


def test_the_obligo_counts_each_die_as_itself() -> None:
    cups = {"Ana": [5], "Beto": [1, 1, 1, 5, 2], "Caro": [2, 3, 4, 6, 6], "Dani": [2, 3, 4, 6, 6]}
    table = obligo("Ana bid 2 5", "Beto bid 3 5", "Caro dudo", cups)
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.total == 2 and not ruling.count.aces_wild
    assert "9" in ruling.articles and "obligo" in ruling.message
    assert lost(table) == {"Beto": -1}


def test_no_siciliana_in_the_obligo_the_obligado_loses_his_last_die() -> None:
    cups = {"Ana": [5], "Beto": [2, 2, 3, 3, 4], "Caro": [2, 3, 4, 6, 6], "Dani": [2, 3, 4, 6, 6]}
    table = obligo("Ana bid 2 5", "Beto dudo", cups)
    ruling = last_ruling(table)
    assert lost(table) == {"Ana": -1} and not ruling.siciliana and ruling.article == "6"
    assert ruling.eliminated == ("Ana",)


def test_no_siciliana_in_the_obligo_the_doubter_loses_one() -> None:
    cups = {"Ana": [5], "Beto": [5, 2, 3, 3, 4], "Caro": [2, 3, 4, 6, 6], "Dani": [2, 3, 4, 6, 6]}
    table = obligo("Ana bid 2 5", "Beto dudo", cups)
    assert lost(table) == {"Beto": -1}
    assert not last_ruling(table).siciliana


def test_the_obligado_may_declare_aces_by_default() -> None:
    # Option obligo_abre_en_ases (default true): his pinta may be aces; then it is aces for everyone.
    table = obligo("Ana bid 1 1")
    assert table.round is not None and not table.round.partida_en_falso  # the obligo is no art. 5 opening
    table.check(Bid("Beto", 2, 1))
    refused(table, "Beto bid 3 5", "9")
    table.check(table.legal_player_actions()[0])
    play(table, "Beto dudo")


def test_a_bid_above_the_dice_in_play_in_the_obligo() -> None:
    table = obligo("Ana bid 16 5")
    legal = table.legal_actions()
    assert legal is not None and not legal.bid.allowed
    refused(table, "Beto bid 17 5", "4")
