"""Art. 6: "dudo": the cups are lifted and the pinta counted; at least the quantity -> the doubter loses a die."""

from __future__ import annotations

import pytest

from engines.dudo import ChallengeKind, DudoTable, Reveal

from .helpers import dice, last_ruling, lost, play, refused, seat


def doubted(quantity: int, face: int = 5) -> DudoTable:
    """A normal round (Beto raised Ana's opening): Beto bids `quantity face`, Caro doubts."""
    opening = f"Ana bid 1 {face}" if face != 1 else "Ana bid 1 2"
    return play(seat("Ana Beto Caro"), opening, f"Beto bid {quantity} {face}", "Caro dudo")


# Four quinas counting the aces: 2 quinas + 2 ases.
FOUR = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]}


@pytest.mark.parametrize(("quantity", "loser"), [(3, "Caro"), (4, "Caro"), (5, "Beto"), (9, "Beto")])
def test_at_least_the_quantity_the_doubter_loses_fewer_the_bidder(quantity: int, loser: str) -> None:
    table = play(doubted(quantity), FOUR)
    ruling = last_ruling(table)
    assert ruling.kind is ChallengeKind.DUDO and ruling.article == "6"
    assert ruling.challenger == "Caro" and ruling.target == "Beto"
    assert ruling.count is not None and ruling.count.total == 4
    assert lost(table) == {loser: -1}
    assert dice(table)[loser] == 4
    assert sum(dice(table).values()) == 14
    assert ruling.next_opener == loser


def test_a_doubt_of_aces_counts_the_aces() -> None:
    table = play(doubted(2, 1), FOUR)
    assert lost(table) == {"Caro": -1}
    table = play(doubted(3, 1), FOUR)
    assert lost(table) == {"Beto": -1}


def test_the_doubt_waits_for_the_cups() -> None:
    table = doubted(4)
    assert table.pending is not None and table.pending.kind is ChallengeKind.DUDO
    legal = table.legal_actions()
    assert legal is not None and legal.player is None and set(legal.reveal) == {"Ana", "Beto", "Caro"}
    assert dice(table) == {"Ana": 5, "Beto": 5, "Caro": 5}
    refused(table, "Ana bid 5 5", "6")
    refused(table, "Ana dudo", "6")
    refused(table, "Caro calzo", "6")


def test_the_doubt_needs_every_cup() -> None:
    table = doubted(4)
    refused(table, {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6]}, "6")
    refused(table, Reveal(()), "6")


def test_nothing_to_doubt_before_the_opening() -> None:
    refused(seat("Ana Beto Caro"), "Ana dudo", "6")


def test_no_cups_to_lift_without_a_doubt() -> None:
    table = seat("Ana Beto Caro")
    refused(table, FOUR, "6")
    refused(play(table, "Ana bid 3 5"), FOUR, "6")


def test_the_doubt_is_of_the_last_bid_not_the_opening() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 3 5", "Beto bid 4 5", "Caro bid 5 5", "Ana dudo", FOUR)
    assert last_ruling(table).target == "Caro"
    assert lost(table) == {"Caro": -1}


def test_ruling_says_what_was_counted() -> None:
    table = play(doubted(5), FOUR)
    ruling = last_ruling(table)
    assert "2 quinas + 2 ases (comodín) = 4" in ruling.message
    assert "Pierde Beto" in ruling.message
    assert ruling.to_dict()["count"] == {"face": 5, "naturals": 2, "aces": 2, "total": 4, "aces_wild": True}
