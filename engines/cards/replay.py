"""Replay a card game's JSON Lines log (strings in, no file access): the final state or the first error."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from engines.cards.cacheta import game as cacheta
from engines.cards.cacho import game as cacho
from engines.cards.errors import CardRuleError, LogFormatError
from engines.cards.log import Event, parse_line
from engines.cards.pifpaf import game as pifpaf
from engines.cards.truco import game as truco
from engines.jsonl import ReplayError

GAMES = ("cacho", "pifpaf", "cacheta", "truco")
S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Replay:
    """The outcome of a replay: the game, events applied, the last good state and the first error."""

    game: str | None
    events: int
    summary: dict[str, Any] | None
    error: ReplayError | None


def replay(lines: Iterable[str]) -> Replay:
    """Replay a log whose first event is `start` with a `game`; nothing after an error is applied."""
    events: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            events.append((number, parse_line(line)))
        except LogFormatError as error:
            return _stop(events, ReplayError(number, None, error.message))
    return _stop(events, None)


def _stop(events: list[tuple[int, dict[str, Any]]], late: ReplayError | None) -> Replay:
    if not events:
        return Replay(None, 0, None, late or ReplayError(1, None, "el registro está vacío"))
    number, first = events[0]
    game = first.get("game")
    if first["event"] != "start" or game not in GAMES:
        message = f'la primera línea es {{"event": "start", "game": ...}} con un juego de: {", ".join(GAMES)}'
        return Replay(None, 0, None, ReplayError(number, None, message))
    if game == "cacho":
        result = _run(game, events, cacho.new_state, cacho.apply_event, cacho.CachoHand.summary)
    elif game == "pifpaf":
        result = _run(game, events, pifpaf.new_state, pifpaf.apply_event, pifpaf.PifPafHand.summary)
    elif game == "cacheta":
        result = _run(game, events, cacheta.new_state, cacheta.apply_event, cacheta.CachetaGame.summary)
    else:
        result = _run(game, events, truco.new_state, truco.apply_event, truco.TrucoGame.summary)
    if result.error is None and late is not None:
        return Replay(result.game, result.events, result.summary, late)
    return result


def _run(
    game: str,
    events: list[tuple[int, dict[str, Any]]],
    new_state: Callable[[Event], S],
    apply_event: Callable[[S, Event], S],
    summary: Callable[[S], dict[str, Any]],
) -> Replay:
    state: S | None = None
    applied = 0
    for number, event in events:
        try:
            if state is None:
                state = new_state(event)
            elif event["event"] == "start":
                raise LogFormatError("solo la primera línea es «start»")
            else:
                state = apply_event(state, event)
        except CardRuleError as error:
            return Replay(game, applied, None if state is None else summary(state), _error(number, error))
        except LogFormatError as error:
            return Replay(game, applied, None if state is None else summary(state), _error(number, error))
        except TypeError as error:  # a start option of the wrong kind reaching a config
            return Replay(game, applied, None, ReplayError(number, None, str(error)))
        applied += 1
    assert state is not None
    return Replay(game, applied, summary(state), None)


def _error(number: int, error: CardRuleError | LogFormatError) -> ReplayError:
    return ReplayError(number, error.article, error.message)
