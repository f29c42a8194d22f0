"""Art. 11: «Trampa = descalificación inmediata»: the player leaves the table with his dice, the round is void."""

from __future__ import annotations

from engines.dudo import Descalificacion, DudoTable, event_to_dict, parse_event, replay_lines, undo

from .helpers import dice, play, refused, seat


def test_the_player_leaves_with_his_dice_and_the_round_starts_again() -> None:
    table = play(seat("Ana Beto Caro Dani"), "Ana bid 3 5", "Beto bid 4 5")
    after = play(table, Descalificacion("Caro"))
    assert dice(after) == {"Ana": 5, "Beto": 5, "Caro": 0, "Dani": 5}
    assert after.disqualified == ("Caro",) and after.in_play == 15
    assert after.round is not None and after.round.number == 2
    assert after.round.opener == "Ana" and after.round.to_act == "Ana" and after.round.bid is None
    assert after.round.opening_rules  # the void round was an opening (art. 5): so is its replay
    assert not after.rulings  # nobody lost a die in a duel
    refused(after, "Caro bid 1 2", "10")  # he has no dice now


def test_the_opener_put_out_hands_the_opening_to_the_next_player() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 2 3", Descalificacion("Ana"))
    assert table.round is not None and table.round.opener == "Beto" and table.round.heads_up


def test_a_challenge_waiting_for_the_cups_is_void() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 2 3", "Beto dudo")
    assert table.pending is not None
    after = play(table, Descalificacion("Beto"))
    assert after.pending is None and dice(after) == {"Ana": 5, "Beto": 0, "Caro": 5}


def test_the_last_player_with_dice_wins_the_table() -> None:
    table = play(seat("Ana Beto"), "Ana bid 2 3", Descalificacion("Beto"))
    assert table.winner == "Ana" and table.round is None  # art. 10
    refused(table, Descalificacion("Ana"), "10")


def test_refusals() -> None:
    table = seat("Ana Beto Caro", dice={"Ana": 5, "Beto": 0, "Caro": 3}, table_start_dice=15)
    refused(table, Descalificacion("Beto"), "11")  # already out of dice
    refused(table, Descalificacion("Zoe"), "11")


def test_it_is_logged_replayed_and_undone() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 2 3", Descalificacion("Caro"))
    assert event_to_dict(Descalificacion("Caro")) == {"event": "descalificacion", "player": "Caro"}
    assert parse_event({"event": "descalificacion", "player": "Caro", "note": "dados cargados"}) == Descalificacion(
        "Caro"
    )
    lines = [
        '{"event": "start", "players": ["Ana", "Beto", "Caro"], "opener": "Ana"}',
        '{"event": "bid", "player": "Ana", "quantity": 2, "face": 3}',
        '{"event": "descalificacion", "player": "Caro", "by": "organizador", "note": "dados cargados"}',
    ]
    result = replay_lines(lines)
    assert result.error is None and result.table == table
    assert DudoTable.replay(table.history) == table
    back = undo(table)
    assert dice(back) == {"Ana": 5, "Beto": 5, "Caro": 5} and back.disqualified == ()
