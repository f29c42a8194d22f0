"""The coordinator's undo in the log (art. 11), and the spectators' binomial odds."""

from __future__ import annotations

import json
from math import comb

import pytest

from engines.dudo import Bid, RuleError, Undo, bid_odds, event_to_dict, parse_event, replay_lines, undo
from engines.dudo.odds import at_least, exactly, face_chance

START = '{"event":"start","players":["Ana","Beto","Caro"],"opener":"Ana"}'


def test_undo_parses_and_writes_back() -> None:
    assert parse_event({"event": "undo", "ts": "2026-11-22T10:00:00Z", "by": "coordinador"}) == Undo()
    assert event_to_dict(Undo()) == {"event": "undo"}


def test_undo_takes_back_the_last_bid_and_the_log_keeps_both_lines() -> None:
    lines = [START, '{"event":"bid","player":"Ana","quantity":2,"face":5}', '{"event":"undo"}']
    result = replay_lines(lines)
    assert result.error is None and result.table is not None
    assert result.table.round is not None and result.table.round.bid is None
    assert result.table.round.to_act == "Ana"
    # Ana bids again, differently: the history holds only what stands.
    again = replay_lines([*lines, '{"event":"bid","player":"Ana","quantity":3,"face":4}'])
    assert again.table is not None
    assert again.table.history[1:] == (Bid("Ana", 3, 4),)


def test_undo_of_a_ruling_gives_the_die_back() -> None:
    lines = [
        START,
        '{"event":"bid","player":"Ana","quantity":9,"face":5}',
        '{"event":"dudo","player":"Beto"}',
        '{"event":"reveal","dice":{"Ana":[1,2,3,4,6],"Beto":[2,2,2,2,2],"Caro":[3,3,3,3,3]}}',
    ]
    ruled = replay_lines(lines).table
    assert ruled is not None and ruled.dice_of("Ana") < 5
    undone = replay_lines([*lines, '{"event":"undo"}']).table
    assert undone is not None and undone.dice_of("Ana") == 5 and undone.pending is not None
    twice = replay_lines([*lines, '{"event":"undo"}', '{"event":"undo"}']).table
    assert twice is not None and twice.pending is None and twice.round is not None
    assert twice.round.bid is not None and twice.round.bid.quantity == 9


def test_nothing_to_undo_at_the_start() -> None:
    result = replay_lines([START, '{"event":"undo"}'])
    assert result.error is not None and result.error.line == 2 and result.error.article == "11"
    assert result.table is not None and len(result.table.history) == 1
    with pytest.raises(RuleError, match="nada que deshacer"):
        undo(result.table)


def test_undo_takes_no_arguments() -> None:
    result = replay_lines([START, json.dumps({"event": "undo", "steps": 2})])
    assert result.error is not None and "no lleva steps" in result.error.message


def test_face_chance() -> None:
    assert face_chance(1, True) == pytest.approx(1 / 6)
    assert face_chance(5, True) == pytest.approx(1 / 3)
    assert face_chance(5, False) == pytest.approx(1 / 6)


def test_binomial_against_direct_sums() -> None:
    n, p = 20, 1 / 3
    for q in range(0, 22):
        want = sum(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(max(q, 0), n + 1))
        assert at_least(q, n, p) == pytest.approx(want)
    assert sum(exactly(k, n, p) for k in range(n + 1)) == pytest.approx(1.0)
    assert exactly(-1, n, p) == 0 and exactly(21, n, p) == 0


def test_bid_odds_known_values() -> None:
    # One die, "un as": 1/6 both ways.
    odds = bid_odds(1, 1, 1, aces_wild=True)
    assert odds.true == pytest.approx(1 / 6) and odds.exact == pytest.approx(1 / 6)
    # Ten dice, four quinas with aces wild: P(Bin(10, 1/3) >= 4).
    odds = bid_odds(4, 5, 10, aces_wild=True)
    assert odds.true == pytest.approx(0.4407, abs=1e-4)
    assert odds.to_dict()["true"] == pytest.approx(0.4407, abs=1e-4)
    assert bid_odds(11, 5, 10, aces_wild=True).true == 0.0
