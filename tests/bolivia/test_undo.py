"""The undo event of the log: it takes back the last action that stands, never the start."""

from __future__ import annotations

import json

import pytest

from engines.bolivia import (
    ART_HOW_TO_PLAY,
    BoliviaGame,
    Category,
    Declare,
    Played,
    Roll,
    RuleError,
    Score,
    SetAside,
    Start,
    Undo,
    dumps,
    event_to_dict,
    parse_event,
    replay_lines,
    step,
    undo,
)

START = {"event": "start", "players": ["Ana", "Beto"], "variant": "classic"}
UNDO = {"event": "undo"}


def ana(event: str, **fields: object) -> dict[str, object]:
    """Ana's event of kind `event` with its fields, as a log line's object."""
    return {"event": event, "player": "Ana", **fields}


def scored(dice: list[int], category: str) -> list[dict[str, object]]:
    """Ana's turn: she rolls `dice`, declares `category` and scores it."""
    return [ana("roll", dice=dice), ana("declare", category=category), ana("score")]


def lines(*events: dict[str, object]) -> list[str]:
    """JSON Lines text of `events`."""
    return [json.dumps(e, ensure_ascii=False) for e in events]


def test_undo_parses_and_writes_back() -> None:
    assert parse_event(UNDO) == Undo()
    assert event_to_dict(Undo()) == UNDO
    assert parse_event({"event": "undo", "ts": "2025-01-01T20:00:00Z", "by": "coordinador"}) == Undo()


def test_undo_takes_no_player() -> None:
    from engines.bolivia import LogError

    with pytest.raises(LogError, match="no lleva player"):
        parse_event({"event": "undo", "player": "Ana"})


def test_undo_takes_back_the_last_action() -> None:
    roll = ana("roll", dice=[6, 6, 1, 2, 3])
    declare = ana("declare", category="senas")
    result = replay_lines(lines(START, roll, declare, UNDO))
    assert result.error is None and result.game is not None
    attempt = result.game.attempt
    assert attempt is not None and attempt.rolls == 1 and attempt.declared is None
    assert result.actions == (Start(("Ana", "Beto")), Roll("Ana", (6, 6, 1, 2, 3)))
    # Undone twice: the roll goes too, and the game is as just started.
    again = replay_lines(lines(START, roll, declare, UNDO, UNDO))
    assert again.game == BoliviaGame().apply(Start(("Ana", "Beto")))


def test_undo_of_a_score_gives_the_cell_back_and_the_turn() -> None:
    log = lines(START, *scored([1, 1, 1, 3, 2], "poker"), UNDO)
    result = replay_lines(log)
    assert result.game is not None and result.error is None
    game = result.game
    assert game.sides[0].hatches[0].is_open(Category.POKER)
    assert game.attempt is not None and game.attempt.player == "Ana" and game.attempt.declared is Category.POKER


def test_after_an_undo_the_game_goes_on_differently() -> None:
    log = lines(
        START,
        ana("roll", dice=[1, 1, 1, 3, 2]),
        ana("declare", category="poker"),
        UNDO,
        ana("declare", category="balas"),
        ana("score"),
    )
    result = replay_lines(log)
    assert result.error is None and result.game is not None
    cell = result.game.sides[0].hatches[0].cell(Category.BALAS)
    assert cell is not None and cell.points == 3


def test_undo_a_grande_de_mano_reopens_the_game() -> None:
    log = lines(START, *scored([6, 6, 6, 6, 6], "grande"))
    won = replay_lines(log)
    assert won.game is not None and won.game.over and won.game.instant_win is not None
    back = replay_lines([*log, json.dumps(UNDO)])
    assert back.game is not None and not back.game.over and back.game.instant_win is None


def test_nothing_to_undo_at_the_start_is_refused_with_its_section() -> None:
    result = replay_lines(lines(START, UNDO))
    assert result.error is not None
    assert (result.error.line, result.error.article) == (2, ART_HOW_TO_PLAY)
    assert "nada que deshacer" in result.error.message
    with pytest.raises(RuleError, match="nada que deshacer") as refused:
        undo(Played(BoliviaGame().apply(Start(("Ana", "Beto"))), (Start(("Ana", "Beto")),)))
    assert refused.value.article == ART_HOW_TO_PLAY


def test_an_undo_first_is_malformed() -> None:
    result = replay_lines(lines(UNDO))
    assert result.error is not None and result.error.article is None and "primera línea" in result.error.message


def test_step_matches_apply_and_dumps_round_trips_undo() -> None:
    events = [
        Start(("Ana", "Beto")),
        Roll("Ana", (5, 5, 2, 3, 5)),
        Declare("Ana", Category.QUINAS),
        SetAside("Ana", (1, 2, 5)),
        Undo(),
        SetAside("Ana", (1, 2)),
        Roll("Ana", (5, 5, 5, 5, 1)),
        Score("Ana"),
    ]
    played = None
    for event in events:
        played = step(played, event)
    assert played is not None
    result = replay_lines(dumps(events).splitlines())
    assert result.game == played.game and result.actions == played.actions
    cell = played.game.sides[0].hatches[0].cell(Category.QUINAS)
    assert cell is not None and (cell.points, cell.mark) == (20, "20")


def test_meta_keys_of_the_kiosk_are_accepted() -> None:
    obj = {
        "event": "roll",
        "player": "Ana",
        "dice": [1, 2, 3, 4, 5],
        "photo": "3/0002.jpg",
        "source": "camera",
        "boxes": [[1, 2, 3, 4], None, None, None, None],
        "size": [800, 450],
        "corrections": [{"die": "a1", "read": 6, "set": 5, "ts": "t"}],
    }
    assert parse_event(obj) == Roll("Ana", (1, 2, 3, 4, 5))
