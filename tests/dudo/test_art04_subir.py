"""Art. 4: a bid is quantity + pinta over every die on the table; the raises, and the house conversion with aces."""

from __future__ import annotations

from typing import Any

import pytest

from engines.dudo import Bid, DudoTable

from .helpers import assert_legal_agrees, play, refused, seat


def normal_round(quantity: int, face: int, **options: Any) -> DudoTable:
    """Four players (20 dice): Ana opens, Beto raises to `quantity face` (the round is normal); Caro to act."""
    if face == 1:
        opening = (1, 2)
    elif quantity >= 2:
        opening = (quantity - 1, face)
    else:
        opening = (1, face - 1)
    table = seat("Ana Beto Caro Dani", **options)
    return play(table, f"Ana bid {opening[0]} {opening[1]}", f"Beto bid {quantity} {face}")


def test_the_next_player_may_raise_doubt_calzar_or_pass() -> None:
    table = normal_round(4, 5)
    legal = table.legal_actions()
    assert legal is not None and legal.player == "Caro"
    assert table.round is not None and table.round.aces_wild
    assert legal.bid.allowed and legal.dudo.allowed and legal.calzo.allowed and legal.paso.allowed
    assert_legal_agrees(table)


@pytest.mark.parametrize("quantity", [5, 6, 12, 20])
def test_more_of_the_same_pinta(quantity: int) -> None:
    normal_round(4, 5).check(Bid("Caro", quantity, 5))


def test_same_quantity_every_higher_pinta() -> None:
    table = normal_round(4, 2)
    for face in (3, 4, 5, 6):
        table.check(Bid("Caro", 4, face))


def test_example_cuatro_quinas_to_dos_ases() -> None:
    table = normal_round(4, 5)
    table.check(Bid("Caro", 2, 1))
    table.check(Bid("Caro", 3, 1))
    refused(table, "Caro bid 1 1", "4")


@pytest.mark.parametrize(("quantity", "least"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (7, 4), (8, 4), (9, 5)])
def test_to_aces_half_rounded_up(quantity: int, least: int) -> None:
    table = normal_round(quantity, 4)
    table.check(Bid("Caro", least, 1))
    if least > 1:
        refused(table, f"Caro bid {least - 1} 1", "4")


def test_example_dos_ases_to_cinco_of_any_pinta() -> None:
    table = normal_round(2, 1)
    for face in (2, 3, 4, 5, 6):
        table.check(Bid("Caro", 5, face))
        refused(table, f"Caro bid 4 {face}", "4")
    table.check(Bid("Caro", 6, 2))


@pytest.mark.parametrize(("aces", "least"), [(1, 3), (3, 7), (4, 9)])
def test_from_aces_double_plus_one(aces: int, least: int) -> None:
    table = normal_round(aces, 1)
    table.check(Bid("Caro", least, 6))
    table.check(Bid("Caro", least, 2))
    refused(table, f"Caro bid {least - 1} 6", "4")


def test_aces_to_aces_must_increase() -> None:
    table = normal_round(2, 1)
    table.check(Bid("Caro", 3, 1))
    refused(table, "Caro bid 2 1", "4")
    refused(table, "Caro bid 1 1", "4")


def test_aces_rank_highest_when_bidding() -> None:
    # "cuatro sextas" -> "cuatro ases" is a raise (ases are above sextas); "dos ases" -> "dos sextas" is not.
    normal_round(4, 6).check(Bid("Caro", 4, 1))
    refused(normal_round(2, 1), "Caro bid 2 6", "4")


@pytest.mark.parametrize(
    "move",
    [
        "Caro bid 4 5",  # the same bid
        "Caro bid 3 5",  # less of the same pinta
        "Caro bid 4 4",  # the same quantity of a lower pinta
        "Caro bid 4 2",
        "Caro bid 3 6",  # less of a higher pinta
        "Caro bid 0 5",  # nothing
        "Caro bid -1 6",
    ],
)
def test_what_is_not_a_raise(move: str) -> None:
    refused(normal_round(4, 5), move, "4")


@pytest.mark.parametrize("move", ["Caro bid 5 2", "Caro bid 5 4", "Caro bid 5 6", "Caro bid 6 3"])
def test_reglamento_refuses_more_quantity_of_another_pinta(move: str) -> None:
    # Default subir="reglamento": art. 4 lists more of the SAME pinta, or the same quantity of a higher one.
    refused(normal_round(4, 5), move, "4")


def test_subir_libre_allows_more_quantity_of_any_pinta() -> None:
    table = normal_round(4, 5, subir="libre")
    for face in (2, 3, 4, 6):
        table.check(Bid("Caro", 5, face))
    refused(table, "Caro bid 4 4", "4")  # still not a raise: the same quantity of a lower pinta
    refused(table, "Caro bid 4 5", "4")
    assert_legal_agrees(table)


def test_a_bid_above_the_dice_in_play_is_refused() -> None:
    table = normal_round(19, 5)  # 20 dice on the table
    table.check(Bid("Caro", 20, 5))
    table.check(Bid("Caro", 10, 1))
    refused(table, "Caro bid 21 5", "4")
    refused(table, "Caro bid 21 1", "4")


def test_the_opening_may_not_exceed_the_dice_in_play() -> None:
    table = seat("Ana Beto Caro")
    table.check(Bid("Ana", 15, 6))
    refused(table, "Ana bid 16 6", "4")
    refused(table, "Ana bid 16 1", "4")
    assert_legal_agrees(table)


def test_from_many_aces_only_aces_are_left() -> None:
    table = normal_round(10, 1)  # "diez ases": 21 of a pinta is beyond the 20 dice
    legal = table.legal_actions()
    assert legal is not None
    assert {face for _, face in legal.bids} == {1}
    refused(table, "Caro bid 20 6", "4")
    refused(table, "Caro bid 21 6", "4")
    assert_legal_agrees(table)


def test_no_raise_left_at_all() -> None:
    table = normal_round(20, 1)
    legal = table.legal_actions()
    assert legal is not None and not legal.bid.allowed and legal.bid.article == "4"
    assert legal.dudo.allowed
    assert_legal_agrees(table)


def test_legal_bids_after_cuatro_quinas() -> None:
    table = normal_round(4, 5)
    legal = table.legal_actions()
    assert legal is not None
    bids = set(legal.bids)
    assert {(5, 5), (4, 6), (2, 1), (3, 1), (20, 5), (10, 1)} <= bids
    assert not {(5, 2), (4, 4), (1, 1), (4, 5), (21, 5), (5, 6), (20, 6)} & bids
    assert_legal_agrees(table)


def test_a_pinta_no_bid_may_be_in_is_refused_with_its_article() -> None:
    """Over «tres cuadras» no quantity of tontos or trenes raises it (art. 4): the pinta is refused, with why."""
    table = normal_round(3, 4)
    legal = table.legal_actions()
    assert legal is not None and legal.player == "Caro"
    refused_pintas = dict(legal.pintas_refused)
    assert sorted(refused_pintas) == sorted(set(range(1, 7)) - {f for _, f in legal.bids})
    assert {2, 3} <= set(refused_pintas) and 5 not in refused_pintas
    assert refused_pintas[2].article == "4" and "no sube «tres cuadras»" in str(refused_pintas[2].reason)
    for face, option in refused_pintas.items():  # no quantity of it is a bid, refused by the same article
        for quantity in range(1, 21):
            refused(table, f"Caro bid {quantity} {face}", str(option.article))
    assert legal.to_dict()["pintas_not"]["3"]["article"] == "4"
