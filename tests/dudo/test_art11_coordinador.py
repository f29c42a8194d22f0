"""Art. 11: the coordinator's count (dice per player, in play, whether calzo is allowed and why) and the reveal."""

from __future__ import annotations

import pytest

from engines.dudo import DudoTable, Reveal, RuleError, Start

from .helpers import play, refusal, refused, seat

CUPS = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]}


def doubted() -> DudoTable:
    return play(seat("Ana Beto Caro"), "Ana bid 1 5", "Beto bid 4 5", "Caro dudo")


def test_the_count_at_the_start() -> None:
    count = seat("Ana Beto Caro").coordinator_count()
    assert count.dice == (("Ana", 5), ("Beto", 5), ("Caro", 5))
    assert count.in_play == 15 and count.table_start_dice == 15 and count.calzo.allowed
    assert count.to_dict() == {
        "dice": {"Ana": 5, "Beto": 5, "Caro": 5},
        "in_play": 15,
        "table_start_dice": 15,
        "calzo": {"allowed": True},
    }


def test_the_count_follows_every_ruling() -> None:
    table = play(doubted(), CUPS)
    count = table.coordinator_count()
    assert dict(count.dice) == {"Ana": 5, "Beto": 5, "Caro": 4} and count.in_play == 14
    assert table.in_play == 14 and table.dice_of("Caro") == 4


def test_the_count_of_a_resumed_table_and_calzo_refused_with_its_reason() -> None:
    table = seat("Ana Beto Caro", dice={"Ana": 3, "Beto": 2, "Caro": 2}, table_start_dice=15)
    count = table.coordinator_count()
    assert count.in_play == 7 and count.table_start_dice == 15
    assert not count.calzo.allowed and count.calzo.article == "7"
    assert count.calzo.reason is not None and "7" in count.calzo.reason and "15" in count.calzo.reason
    assert count.to_dict()["calzo"] == {"allowed": False, "article": "7", "reason": count.calzo.reason}


def test_the_table_cannot_have_started_with_fewer_dice_than_it_has() -> None:
    with refusal(RuleError, "11", "la mesa no pudo partir con 9 dados si hay 10 en juego"):
        DudoTable.start(Start(("Ana", "Beto"), "Ana", dice=(5, 5), table_start_dice=9))


@pytest.mark.parametrize("dice", [(5, 6), (5, -1)])
def test_a_player_has_zero_to_five_dice(dice: tuple[int, int]) -> None:
    with refusal(RuleError, "1", f"Beto tiene {dice[1]} dados: cada jugador tiene entre 0 y 5"):
        DudoTable.start(Start(("Ana", "Beto"), "Ana", dice=dice))


def test_every_player_s_dice_are_given() -> None:
    with refusal(RuleError, "1", "hace falta la cantidad de dados de cada jugador"):
        DudoTable.start(Start(("Ana", "Beto", "Caro"), "Ana", dice=(5, 5)))


# ----------------------------------------------------------------- the reveal is checked against the count


@pytest.mark.parametrize(
    "shown",
    [
        {"Ana": [5, 5, 1, 2], "Beto": CUPS["Beto"], "Caro": CUPS["Caro"]},  # one die short
        {"Ana": [5, 5, 1, 2, 3, 4], "Beto": CUPS["Beto"], "Caro": CUPS["Caro"]},  # one too many
        {"Ana": CUPS["Ana"], "Beto": CUPS["Beto"], "Caro": []},
        {**CUPS, "Dani": [1, 2, 3, 4, 5]},  # not seated
    ],
)
def test_a_wrong_reveal_is_refused(shown: dict[str, list[int]]) -> None:
    refused(doubted(), shown, "11")


def test_the_reveal_follows_the_count_after_a_loss() -> None:
    table = play(doubted(), CUPS, "Caro bid 1 5", "Ana bid 4 5", "Beto dudo")
    refused(table, CUPS, "11")  # Caro has 4 dice now
    play(table, {**CUPS, "Caro": [2, 2, 3, 3]})


def test_a_player_shown_twice_is_refused() -> None:
    reveal = Reveal((("Ana", (5, 5, 1, 2, 3)), ("Ana", (5, 5, 1, 2, 3)), ("Beto", (1, 2, 3, 4, 6))))
    refused(doubted(), reveal, "11")


def test_the_history_replays_to_the_same_table() -> None:
    table = play(doubted(), CUPS, "Caro bid 1 5", "Ana bid 4 5", "Beto dudo", {**CUPS, "Caro": [2, 2, 3, 3]})
    assert DudoTable.replay(table.history) == table
    assert len(table.history) == 1 + 4 + 4
