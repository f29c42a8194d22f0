"""Art. 7: "calzo": exactly the quantity -> a die back (never above 5), otherwise one lost; house rule A."""

from __future__ import annotations

import pytest

from engines.dudo import Calzo, ChallengeKind, DudoTable

from .helpers import assert_legal_agrees, dice, last_ruling, lost, play, refused, seat

# Four quinas counting the aces: 2 quinas + 2 ases.
FOUR = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]}


def calzado(quantity: int, caro: int = 5) -> DudoTable:
    """A normal round: Beto bids `quantity` quinas and Caro (with `caro` dice) calls calzo."""
    table = seat("Ana Beto Caro", dice={"Caro": caro})
    return play(table, "Ana bid 1 5", f"Beto bid {quantity} 5", "Caro calzo")


def four_for(table: DudoTable) -> dict[str, list[int]]:
    return {name: FOUR[name][: table.dice_of(name)] for name in table.active}


def test_a_right_calzo_gets_a_die_back() -> None:
    table = calzado(4, caro=3)
    assert table.pending is not None and table.pending.kind is ChallengeKind.CALZO
    table = play(table, four_for(table))
    ruling = last_ruling(table)
    assert ruling.article == "7" and ruling.kind is ChallengeKind.CALZO
    assert lost(table) == {"Caro": 1}
    assert dice(table) == {"Ana": 5, "Beto": 5, "Caro": 4}
    assert "recupera" in ruling.message


def test_a_right_calzo_never_goes_above_five() -> None:
    table = play(calzado(4), FOUR)
    assert lost(table) == {"Caro": 0}
    assert dice(table)["Caro"] == 5
    assert "tope" in last_ruling(table).message


@pytest.mark.parametrize("quantity", [3, 5])
def test_a_wrong_calzo_loses_a_die(quantity: int) -> None:
    table = play(calzado(quantity), FOUR)
    assert lost(table) == {"Caro": -1}
    assert table.round is not None and table.round.opener == "Caro"


def test_a_calzo_of_the_opening_counts_aces_as_aces() -> None:
    # Art. 5: at the opening only the literal pinta counts (2 quinas, not 4).
    table = play(seat("Ana Beto Caro"), "Ana bid 4 5", "Beto calzo", FOUR)
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.total == 2 and not ruling.count.aces_wild
    assert lost(table) == {"Beto": -1}  # a calzo is never a siciliana
    assert not ruling.siciliana


def test_nothing_to_calzar_before_the_opening() -> None:
    refused(seat("Ana Beto Caro"), "Ana calzo", "7")


def test_the_calzo_waits_for_every_cup() -> None:
    table = calzado(4)
    refused(table, {"Ana": FOUR["Ana"]}, "7")
    refused(table, "Ana bid 5 5", "7")


# ----------------------------------------------------------------- house rule A


def resumed(in_play: int, start: int) -> DudoTable:
    """Ana, Beto, Caro resumed with `in_play` dice; the table started with `start`; a normal round, Caro to act."""
    ana = min(5, in_play - 2)
    beto = min(5, in_play - ana - 1)
    counts = {"Ana": ana, "Beto": beto, "Caro": in_play - ana - beto}
    assert 1 <= counts["Caro"] <= 5
    table = seat("Ana Beto Caro", dice=counts, table_start_dice=start)
    return play(table, "Ana bid 1 3", "Beto bid 1 4")


def test_calzo_allowed_at_8_of_15() -> None:
    table = resumed(8, 15)
    count = table.coordinator_count()
    assert count.in_play == 8 and count.table_start_dice == 15 and count.calzo.allowed
    legal = table.legal_actions()
    assert legal is not None and legal.calzo.allowed
    assert_legal_agrees(table)
    play(table, "Caro calzo")


def test_calzo_refused_at_7_of_15() -> None:
    table = resumed(7, 15)
    error = refused(table, "Caro calzo", "7")
    assert "7" in error.message and "15" in error.message
    count = table.coordinator_count()
    assert not count.calzo.allowed and count.calzo.article == "7" and count.calzo.reason == error.message
    legal = table.legal_actions()
    assert legal is not None and not legal.calzo.allowed and legal.calzo.article == "7"
    assert legal.dudo.allowed  # below the threshold one may only doubt
    assert_legal_agrees(table)


@pytest.mark.parametrize(
    ("in_play", "start", "allowed_"), [(5, 10, False), (6, 10, True), (10, 20, False), (11, 20, True), (4, 15, False)]
)
def test_calzo_threshold_is_more_than_half(in_play: int, start: int, allowed_: bool) -> None:
    table = resumed(in_play, start)
    assert table.coordinator_count().calzo.allowed is allowed_
    if not allowed_:
        refused(table, "Caro calzo", "7")
    else:
        table.check(Calzo("Caro"))


def test_calzo_threshold_follows_the_dice_lost() -> None:
    # 3 players x 5 = 15; losing to 8 keeps calzo, to 7 ends it.
    table = seat("Ana Beto Caro", dice={"Ana": 3, "Beto": 3, "Caro": 3})
    assert table.coordinator_count().calzo.allowed
    table = play(
        table,
        "Ana bid 1 2",
        "Beto bid 1 3",
        "Caro dudo",
        {"Ana": [2, 2, 2], "Beto": [4, 4, 4], "Caro": [5, 5, 5]},
    )
    assert table.in_play == 8 and table.coordinator_count().calzo.allowed
    table = play(
        table, "Beto bid 1 2", "Caro bid 1 3", "Ana dudo", {"Ana": [2, 2, 2], "Beto": [4, 4], "Caro": [5, 5, 5]}
    )
    assert table.in_play == 7 and not table.coordinator_count().calzo.allowed


def test_calzo_after_a_right_calzo_the_calzador_opens() -> None:
    table = play(calzado(4, caro=3), {"Ana": FOUR["Ana"], "Beto": FOUR["Beto"], "Caro": [2, 2, 3]})
    assert last_ruling(table).next_opener == "Caro"
    assert table.round is not None and table.round.opener == "Caro"
