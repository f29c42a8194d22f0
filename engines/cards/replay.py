"""Replay a card game's JSON Lines log (strings in, no file access): the final state or the first error."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engines.cards.cacheta import game as cacheta
from engines.cards.cacho import game as cacho
from engines.cards.errors import LogFormatError
from engines.cards.log import INVALID_JSON, Event, event_of
from engines.cards.pifpaf import game as pifpaf
from engines.cards.truco import game as truco
from engines.jsonl import ReplayError, replay_jsonl

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Rules(Generic[S]):
    """How one card game starts from its `start` event, applies a logged event, and sums up a state."""

    new_state: Callable[[Event], S]
    apply_event: Callable[[S, Event], S]
    summary: Callable[[S], dict[str, Any]]


RULES: dict[str, Rules[Any]] = {
    "cacho": Rules(cacho.new_state, cacho.apply_event, cacho.CachoHand.summary),
    "pifpaf": Rules(pifpaf.new_state, pifpaf.apply_event, pifpaf.PifPafHand.summary),
    "cacheta": Rules(cacheta.new_state, cacheta.apply_event, cacheta.CachetaGame.summary),
    "truco": Rules(truco.new_state, truco.apply_event, truco.TrucoGame.summary),
}
GAMES = tuple(RULES)


@dataclass(frozen=True, slots=True)
class Replay:
    """The outcome of a replay: the game, events applied, the last good state and the first error."""

    game: str | None
    events: int
    summary: dict[str, Any] | None
    error: ReplayError | None


@dataclass(frozen=True, slots=True)
class _Played:
    """A game being replayed: which one, its state, and how many events made it (the start included)."""

    game: str
    state: Any
    events: int


def _game_of(event: Event) -> str:
    """The game a log's first event starts; LogFormatError unless it is a `start` of a known game."""
    game = event.get("game")
    if event["event"] != "start" or game not in GAMES:
        games = ", ".join(GAMES)
        raise LogFormatError(f'la primera línea es {{"event": "start", "game": ...}} con un juego de: {games}')
    return str(game)


def replay(lines: Iterable[str]) -> Replay:
    """Replay a log whose first event is `start` with a `game`; nothing after an error is applied."""
    lines = list(lines)
    if not any(line.strip() for line in lines):
        return Replay(None, 0, None, ReplayError(1, None, "el registro está vacío"))
    game: str | None = None  # the game the first event names, once it names one (even if it cannot start)

    def step(played: _Played | None, event: Event) -> _Played:
        nonlocal game
        try:
            if played is None:
                game = _game_of(event)
                return _Played(game, RULES[game].new_state(event), 1)
            if event["event"] == "start":
                raise LogFormatError("solo la primera línea es «start»")
            state = RULES[played.game].apply_event(played.state, event)
        except TypeError as error:  # a start option of the wrong kind reaching a config
            raise LogFormatError(str(error)) from None
        return _Played(played.game, state, played.events + 1)

    played, error = replay_jsonl(lines, event_of, step, invalid=INVALID_JSON)
    if played is None:
        return Replay(game, 0, None, error)
    return Replay(played.game, played.events, RULES[played.game].summary(played.state), error)
