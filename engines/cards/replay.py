"""Replay a card game's JSON Lines log (strings in, no file access): the final state or the first error."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engines.cards.cacheta import game as cacheta
from engines.cards.cacho import evening
from engines.cards.cacho import game as cacho
from engines.cards.errors import CardRuleError, LogFormatError
from engines.cards.log import INVALID_JSON, Event, event_of
from engines.cards.pifpaf import evening as pifpaf_evening
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
    "cacho": Rules(
        lambda event: evening.new_state(event) if event.get("evening") is True else cacho.new_state(event),
        lambda state, event: (evening if isinstance(state, evening.CachoEvening) else cacho).apply_event(state, event),
        lambda state: state.summary(),
    ),
    "pifpaf": Rules(
        lambda event: pifpaf_evening.new_state(event) if event.get("evening") is True else pifpaf.new_state(event),
        lambda state, event: (
            pifpaf_evening if isinstance(state, pifpaf_evening.PifPafEvening) else pifpaf
        ).apply_event(state, event),
        lambda state: state.summary(),
    ),
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


UNDO = "Registro"  # an undo is the coordinator's, not a rule of the seeds


@dataclass(frozen=True, slots=True)
class Played:
    """A game being replayed: which one, the state after each event that stands (the start's first), and how many
    lines made it (the start and the undos included)."""

    game: str
    states: tuple[Any, ...]
    events: int

    @property
    def state(self) -> Any:
        """The game now."""
        return self.states[-1]


def _game_of(event: Event) -> str:
    """The game a log's first event starts; LogFormatError unless it is a `start` of a known game."""
    game = event.get("game")
    if event["event"] != "start" or game not in GAMES:
        games = ", ".join(GAMES)
        raise LogFormatError(f'la primera línea es {{"event": "start", "game": ...}} con un juego de: {games}')
    return str(game)


def step(played: Played | None, event: Event) -> Played:
    """Apply one logged event (None before the start); an `undo` takes back the last event that stands."""
    try:
        if played is None:
            game = _game_of(event)
            return Played(game, (RULES[game].new_state(event),), 1)
        if event["event"] == "start":
            raise LogFormatError("solo la primera línea es «start»")
        if event["event"] == "undo":
            if len(played.states) <= 1:
                raise CardRuleError(UNDO, "no hay nada que deshacer: el juego recién empieza")
            return Played(played.game, played.states[:-1], played.events + 1)
        state = RULES[played.game].apply_event(played.state, event)
    except TypeError as error:  # a start option of the wrong kind reaching a config
        raise LogFormatError(str(error)) from None
    return Played(played.game, (*played.states, state), played.events + 1)


def replay(lines: Iterable[str]) -> Replay:
    """Replay a log whose first event is `start` with a `game`; nothing after an error is applied."""
    lines = list(lines)
    if not any(line.strip() for line in lines):
        return Replay(None, 0, None, ReplayError(1, None, "el registro está vacío"))
    game: str | None = None  # the game the first event names, once it names one (even if it cannot start)

    def named(played: Played | None, event: Event) -> Played:
        nonlocal game
        if played is None:
            game = _game_of(event)
        return step(played, event)

    played, error = replay_jsonl(lines, event_of, named, invalid=INVALID_JSON)
    if played is None:
        return Replay(game, 0, None, error)
    return Replay(played.game, played.events, RULES[played.game].summary(played.state), error)
