"""Art. 8: the paso (Full < Escala < Quintilla in one's own cup) and what the next player may do after it."""

from __future__ import annotations

from typing import Any

import pytest

from engines.dudo import Bid, ChallengeKind, DudoTable, Hand, Paso, hands_in

from .helpers import assert_legal_agrees, dice, last_ruling, lost, play, refused, seat

FOUR = "Ana Beto Caro Dani"


def quinas_then_full() -> DudoTable:
    """The Reglamento's example: "cuatro quinas" stand (a normal round), Caro passes declaring Full; Dani to act."""
    table = play(seat(FOUR), "Ana bid 3 5", "Beto bid 4 5", "Caro paso full")
    assert table.round is not None and table.round.to_act == "Dani"
    return table


# ----------------------------------------------------------------- the hands


@pytest.mark.parametrize(
    ("cup", "hand"),
    [
        ([3, 3, 3, 6, 6], Hand.FULL),
        ([2, 5, 2, 5, 5], Hand.FULL),
        ([2, 3, 4, 5, 6], Hand.ESCALA),
        ([1, 2, 3, 4, 6], Hand.ESCALA),
        ([4, 4, 4, 4, 4], Hand.QUINTILLA),
        ([1, 1, 1, 1, 1], Hand.QUINTILLA),
    ],
)
def test_the_three_hands(cup: list[int], hand: Hand) -> None:
    assert hands_in(cup, aces_wild=False) == {hand}


@pytest.mark.parametrize("cup", [[4, 4, 4, 4, 2], [2, 2, 3, 3, 4], [2, 2, 3, 4, 5], [6, 6, 6, 2, 3], [3, 3, 3, 6]])
def test_poker_pairs_and_short_cups_are_no_hand(cup: list[int]) -> None:
    # "El póker de 4 + 1 no se usa"; fewer than 5 dice never hold a hand.
    assert hands_in(cup, aces_wild=False) == frozenset()


def test_hands_rank_full_escala_quintilla() -> None:
    assert Hand.FULL.rank < Hand.ESCALA.rank < Hand.QUINTILLA.rank


# ----------------------------------------------------------------- the Reglamento's example


def test_example_after_the_full_raise_the_quinas_or_doubt_the_full() -> None:
    table = quinas_then_full()
    for quantity, face in ((5, 5), (4, 6), (2, 1), (6, 5)):
        table.check(Bid("Dani", quantity, face))
    legal = table.legal_actions()
    assert legal is not None and legal.dudo.allowed
    assert not legal.calzo.allowed and legal.calzo.article == "8"
    assert not legal.paso.allowed and legal.paso.article == "8"
    assert_legal_agrees(table)


@pytest.mark.parametrize(
    ("move", "article"),
    [
        ("Dani calzo", "8"),  # no calzo of the paso nor of the bid before it
        ("Dani paso escala", "8"),  # no two pasos in a row
        ("Dani paso full", "8"),
        ("Dani bid 4 5", "4"),  # the bid before the paso must be raised
        ("Dani bid 3 6", "4"),
        ("Dani bid 4 4", "4"),
        ("Dani bid 1 1", "4"),
    ],
)
def test_example_what_the_next_player_may_not_do(move: str, article: str) -> None:
    refused(quinas_then_full(), move, article)


def test_example_dudo_doubts_the_full_not_the_quinas() -> None:
    table = play(quinas_then_full(), "Dani dudo")
    assert table.pending is not None and table.pending.kind is ChallengeKind.PASO
    assert table.pending.target == "Caro" and table.pending.hand is Hand.FULL
    legal = table.legal_actions()
    assert legal is not None and legal.reveal == ("Caro",)
    # Caro has the Full; there are no four quinas anywhere: still the doubter loses, the quinas are not doubted.
    table = play(table, {"Caro": [3, 3, 3, 6, 6]})
    ruling = last_ruling(table)
    assert ruling.kind is ChallengeKind.PASO and ruling.article == "8" and ruling.hand_held
    assert ruling.count is None and ruling.shown == (3, 3, 3, 6, 6)
    assert lost(table) == {"Dani": -1}
    assert table.round is not None and table.round.opener == "Dani"


def test_a_raise_after_the_paso_continues_the_round() -> None:
    table = play(quinas_then_full(), "Dani bid 5 5")
    rnd = table.round
    assert rnd is not None and rnd.paso is None and rnd.bid is not None and rnd.bid.player == "Dani"
    assert rnd.to_act == "Ana"
    table.check(Paso("Ana", Hand.ESCALA))  # not two in a row any more
    table = play(table, "Ana dudo")
    assert table.pending is not None and table.pending.kind is ChallengeKind.DUDO
    assert table.pending.target == "Dani"


def test_after_a_paso_and_a_raise_calzo_is_open_again() -> None:
    table = play(quinas_then_full(), "Dani bid 5 5")
    legal = table.legal_actions()
    assert legal is not None and legal.calzo.allowed


# ----------------------------------------------------------------- doubting a paso


@pytest.mark.parametrize(
    ("hand", "cup", "loser"),
    [
        ("full", [3, 3, 3, 6, 6], "Dani"),
        ("full", [3, 3, 3, 3, 6], "Caro"),  # 4 + 1 is not a Full
        ("full", [2, 3, 4, 5, 6], "Caro"),
        ("full", [1, 3, 3, 6, 6], "Caro"),  # the As is literal in the cup (option paso_ases_comodin)
        ("escala", [1, 2, 3, 4, 5], "Dani"),
        ("escala", [2, 3, 4, 6, 6], "Caro"),
        ("quintilla", [5, 5, 5, 5, 5], "Dani"),
        ("quintilla", [5, 5, 5, 5, 1], "Caro"),
        ("full", [5, 5, 5, 5, 5], "Caro"),  # declared Full, shows a Quintilla (option paso_mayor_cubre)
    ],
)
def test_the_passer_shows_his_cup(hand: str, cup: list[int], loser: str) -> None:
    table = play(seat(FOUR), "Ana bid 3 5", "Beto bid 4 5", f"Caro paso {hand}", "Dani dudo", {"Caro": cup})
    assert lost(table) == {loser: -1}
    assert last_ruling(table).hand_held is (loser == "Dani")


def test_the_paso_doubt_may_show_every_cup() -> None:
    cups = {"Ana": [2, 2, 2, 2, 2], "Beto": [4, 4, 4, 4, 4], "Caro": [3, 3, 3, 6, 6], "Dani": [2, 3, 4, 5, 6]}
    table = play(quinas_then_full(), "Dani dudo", cups)
    assert lost(table) == {"Dani": -1}


def test_the_paso_doubt_needs_the_passers_cup() -> None:
    table = play(quinas_then_full(), "Dani dudo")
    refused(table, {"Dani": [2, 3, 4, 5, 6]}, "8")
    refused(table, {"Caro": [3, 3, 3, 6]}, "11")
    refused(table, "Ana bid 5 5", "8")


@pytest.mark.parametrize("options", [{}, {"paso_ases_comodin": True, "paso_mayor_cubre": True}])
def test_a_paso_with_fewer_than_five_dice_is_a_bluff_that_always_loses(options: dict[str, Any]) -> None:
    table = play(seat(FOUR, dice={"Caro": 4}, **options), "Ana bid 3 5", "Beto bid 4 5")
    table.check(Paso("Caro", Hand.QUINTILLA))  # a bluff is allowed
    table = play(table, "Caro paso full", "Dani dudo", {"Caro": [3, 3, 3, 6]})
    assert lost(table) == {"Caro": -1}
    assert not last_ruling(table).hand_held


def test_a_doubted_paso_over_the_opening_costs_one_die() -> None:
    table = play(seat(FOUR), "Ana bid 4 5", "Beto paso escala", "Caro dudo", {"Beto": [2, 2, 3, 4, 5]})
    assert lost(table) == {"Beto": -1}
    assert not last_ruling(table).siciliana
    table = play(seat(FOUR), "Ana bid 4 5", "Beto paso escala", "Caro dudo", {"Beto": [2, 6, 3, 4, 5]})
    assert lost(table) == {"Caro": -1}


def test_after_a_paso_over_the_opening_the_next_raises_the_opening() -> None:
    table = play(seat(FOUR), "Ana bid 4 5", "Beto paso full")
    table.check(Bid("Caro", 5, 5))
    table.check(Bid("Caro", 4, 6))
    refused(table, "Caro calzo", "8")
    refused(table, "Caro bid 4 5", "4")
    table = play(table, "Caro bid 4 6")
    assert table.round is not None and not table.round.en_apertura  # a raise normalizes (art. 5)


# ----------------------------------------------------------------- when a paso is refused


def test_the_opener_may_not_pass() -> None:
    refused(seat(FOUR), "Ana paso full", "8")


def test_no_two_pasos_in_a_row() -> None:
    table = quinas_then_full()
    for hand in ("full", "escala", "quintilla"):
        refused(table, f"Dani paso {hand}", "8")


def test_no_player_passes_twice_in_one_round() -> None:
    table = play(seat(FOUR), "Ana bid 3 5", "Beto paso full", "Caro bid 4 5", "Dani bid 5 5", "Ana bid 6 5")
    assert table.round is not None and table.round.to_act == "Beto"
    error = refused(table, "Beto paso escala", "8")
    assert "Beto" in error.message
    table.check(Bid("Beto", 7, 5))
    table = play(table, "Beto dudo")
    assert table.pending is not None and table.pending.kind is ChallengeKind.DUDO


def test_a_new_round_allows_a_new_paso() -> None:
    table = play(
        seat(FOUR),
        "Ana bid 3 5",
        "Beto paso full",
        "Caro dudo",
        {"Beto": [3, 3, 3, 6, 6]},
    )
    assert dice(table)["Caro"] == 4
    table = play(table, "Caro bid 3 5", "Dani bid 4 5", "Ana bid 5 5")
    table.check(Paso("Beto", Hand.FULL))


def test_heads_up_after_a_paso_the_bidder_raises_his_own_bid_or_doubts() -> None:
    table = play(seat("Ana Beto"), "Ana bid 3 5", "Beto paso full")
    assert table.round is not None and table.round.to_act == "Ana"
    table.check(Bid("Ana", 4, 5))
    refused(table, "Ana calzo", "8")
    refused(table, "Ana paso full", "8")
    assert_legal_agrees(table)


# ----------------------------------------------------------------- a paso over an opening in aces


def aces_opening_then_paso() -> DudoTable:
    table = play(seat(FOUR), "Ana bid 2 1", "Beto paso full")
    assert table.round is not None and table.round.to_act == "Caro"
    return table


def test_after_a_paso_over_a_false_start_the_next_raises_the_aces_or_doubts_the_paso() -> None:
    table = aces_opening_then_paso()
    table.check(Bid("Caro", 3, 1))
    table.check(Bid("Caro", 5, 6))
    refused(table, "Caro calzo", "8")
    table = play(table, "Caro dudo")
    assert table.pending is not None and table.pending.kind is ChallengeKind.PASO


@pytest.mark.parametrize("move", [Bid("Caro", 3, 4), Bid("Caro", 3, 4, desestima=True), Bid("Caro", 2, 1)])
def test_after_a_paso_over_a_false_start_no_dismissal(move: Bid) -> None:
    table = aces_opening_then_paso()
    error = table.refusal(move)
    assert error is not None and error.article in {"4", "8"}
