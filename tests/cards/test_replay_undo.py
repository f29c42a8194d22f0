"""An `undo` in a card game's log takes back the last event that stands; the start is never undone."""

from __future__ import annotations

import json

import pytest

from engines.cards.replay import UNDO, replay

START = '{"event": "start", "game": "truco", "players": ["Ana", "Beto", "Caro", "Davi"]}'
UNDO_LINE = '{"event": "undo"}'


def test_undo_takes_back_the_last_event() -> None:
    lines = [START, '{"event": "hand", "dealer": 3}', '{"event": "offer"}', UNDO_LINE]
    result = replay(lines)
    assert result.error is None and result.summary is not None
    assert result.events == 4
    again = replay(lines[:2])
    assert result.summary == again.summary


def test_undos_walk_back_one_event_each() -> None:
    lines = [START, '{"event": "hand", "dealer": 3}', '{"event": "offer"}', UNDO_LINE, UNDO_LINE]
    result = replay(lines)
    assert result.error is None and result.summary is not None
    assert result.summary["phase"] == "hand" and result.summary["hand"] == 0


def test_the_start_is_never_undone() -> None:
    result = replay([START, UNDO_LINE])
    assert result.error is not None
    assert result.error.line == 2 and result.error.article == UNDO
    assert "nada que deshacer" in result.error.message


@pytest.mark.parametrize("game", ["cacho", "pifpaf", "cacheta"])
def test_every_card_game_undoes(game: str) -> None:
    from pathlib import Path

    demo = Path(__file__).resolve().parents[2] / "kiosk" / "demo" / f"cards_{game}.jsonl"
    lines = [line for line in demo.read_text().splitlines() if line.strip()]
    with_undo = [*lines[:2], UNDO_LINE, *lines[1:]]
    assert replay(with_undo).summary == replay(lines).summary
    assert json.loads(lines[0])["game"] == game
