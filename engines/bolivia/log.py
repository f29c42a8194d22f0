"""The game log: JSON Lines, one event per line; reading it into actions, writing it, and replaying it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engines.jsonl import ReplayError as ReplayError
from engines.jsonl import checked_event, dump_lines, int_field, replay_jsonl, str_field

from .actions import Action, Declare, Hatch, LogEvent, Pick, Roll, Score, SetAside, Start, Undo, Variant
from .config import BoliviaConfig
from .errors import ART_HOW_TO_PLAY, ART_PLAYERS, LogError, RuleError
from .scoring import Category, category_from
from .state import BoliviaGame

# Keys any event may carry without changing the game: when, who typed it, the photo read, a note, where the
# dice came from, the coordinator's corrections of the camera's reading, and where each die lay on the photo.
META_KEYS = frozenset({"ts", "by", "photo", "note", "source", "corrections", "boxes", "size", "models"})

VARIANTS = ("classic", "three_hatches", "partners", "generala")

_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # event: (required keys, optional keys)
    "start": (frozenset({"players"}), frozenset({"variant", "teams", "options"})),
    "roll": (frozenset({"player", "dice"}), frozenset()),
    "declare": (frozenset({"player", "category"}), frozenset()),
    "set_aside": (frozenset({"player", "positions"}), frozenset()),
    "score": (frozenset({"player"}), frozenset({"category"})),
    "pick": (frozenset({"player"}), frozenset()),
    "hatch": (frozenset({"player", "hatch"}), frozenset()),
    "undo": (frozenset(), frozenset()),
}


def _ints(obj: Mapping[str, object], key: str) -> tuple[int, ...]:
    value = obj[key]
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise LogError(f"{key!r} debe ser una lista de números enteros, no {value!r}")
    return tuple(value)


def _category(obj: Mapping[str, object], key: str) -> Category:
    value = obj[key]
    found = None
    if isinstance(value, str):
        found = category_from(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        found = category_from(str(value))
    if found is None:
        names = ", ".join(c.value for c in Category)
        raise LogError(f"categoría desconocida {value!r}; las categorías son 1-6, {names}")
    return found


def parse_event(obj: object) -> LogEvent:
    """Turn one decoded JSON object into a typed action (or an undo); LogError says what is malformed."""
    kind, obj = checked_event(obj, _FIELDS, META_KEYS)
    if kind == "start":
        return _parse_start(obj)
    if kind == "undo":
        return Undo()
    player = str_field(obj, "player")
    if kind == "roll":
        return Roll(player, _ints(obj, "dice"))
    if kind == "declare":
        return Declare(player, _category(obj, "category"))
    if kind == "set_aside":
        return SetAside(player, _ints(obj, "positions"))
    if kind == "score":
        return Score(player, _category(obj, "category") if "category" in obj else None)
    if kind == "pick":
        return Pick(player)
    return Hatch(player, int_field(obj, "hatch"))


def _parse_start(obj: Mapping[str, object]) -> Start:
    players = obj["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise LogError("'players' debe ser la lista de nombres en orden de turno")
    raw = obj.get("variant", "classic")
    chosen = [raw] if isinstance(raw, str) else raw
    if not isinstance(chosen, list) or not chosen or not all(isinstance(v, str) for v in chosen):
        raise LogError(f"'variant' es un nombre o una lista de nombres, no {raw!r}")
    for name in chosen:
        if name not in VARIANTS:
            raise LogError(f"variante desconocida {name!r}; las variantes son: {', '.join(VARIANTS)}")
    if "classic" in chosen and len(chosen) > 1:
        raise LogError("'classic' no se combina con otras variantes")
    teams: tuple[tuple[str, ...], ...] = ()
    if "partners" in chosen:
        value = obj.get("teams")
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(t, list) and all(isinstance(m, str) for m in t) for t in value)
        ):
            raise LogError(
                "la variante 'partners' necesita 'teams': una lista de equipos, cada uno una lista de nombres"
            )
        teams = tuple(tuple(str(m) for m in t) for t in value)
    elif "teams" in obj:
        raise LogError("'teams' solo va con la variante 'partners'")
    variant = Variant(hatches=3 if "three_hatches" in chosen else 1, teams=teams, generala="generala" in chosen)
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise LogError(f"'options' debe ser un objeto {{opción: valor}}, no {options!r}")
    return Start(tuple(str(p) for p in players), variant, BoliviaConfig.from_mapping(options))


def event_to_dict(event: LogEvent) -> dict[str, object]:
    """The JSON object of one event (the inverse of `parse_event`)."""
    if isinstance(event, Start):
        names = event.variant.names
        out: dict[str, object] = {
            "event": "start",
            "players": list(event.players),
            "variant": names[0] if len(names) == 1 else list(names),
        }
        if event.variant.teams:
            out["teams"] = [list(team) for team in event.variant.teams]
        changed = event.config.changed()
        if changed:
            out["options"] = changed
        return out
    if isinstance(event, Roll):
        return {"event": "roll", "player": event.player, "dice": list(event.dice)}
    if isinstance(event, Declare):
        return {"event": "declare", "player": event.player, "category": event.category.value}
    if isinstance(event, SetAside):
        return {"event": "set_aside", "player": event.player, "positions": list(event.positions)}
    if isinstance(event, Score):
        out = {"event": "score", "player": event.player}
        if event.category is not None:
            out["category"] = event.category.value
        return out
    if isinstance(event, Pick):
        return {"event": "pick", "player": event.player}
    if isinstance(event, Undo):
        return {"event": "undo"}
    return {"event": "hatch", "player": event.player, "hatch": event.hatch}


def dumps(events: Iterable[LogEvent]) -> str:
    """The log text: one JSON object per line."""
    return dump_lines(event_to_dict(e) for e in events)


@dataclass(frozen=True, slots=True)
class Played:
    """The game and the actions that stand (an undo takes the last one back): what replaying a log gives."""

    game: BoliviaGame
    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The game after the last good event, and the error that stopped the replay, if any."""

    game: BoliviaGame | None
    error: ReplayError | None
    actions: tuple[Action, ...] = ()  # the actions that stand after the undos, the start first


def undo(played: Played) -> Played:
    """The game as it was before its last action; the start itself cannot be undone."""
    if len(played.actions) <= 1:
        raise RuleError(ART_HOW_TO_PLAY, "no hay nada que deshacer: la partida recién empieza")
    actions = played.actions[:-1]
    game = BoliviaGame()
    for action in actions:
        game = game.apply(action)
    return Played(game, actions)


def step(played: Played | None, event: LogEvent) -> Played:
    """Apply one log event (None before the start); an undo takes back the last action."""
    if played is None:
        if not isinstance(event, Start):
            raise LogError("la primera línea debe ser el inicio de la partida (event: start)")
        return Played(BoliviaGame().apply(event), (event,))
    if isinstance(event, Undo):
        return undo(played)
    if isinstance(event, Start):
        raise RuleError(ART_PLAYERS, "la partida ya empezó: un registro tiene un solo inicio")
    return Played(played.game.apply(event), (*played.actions, event))


def replay_lines(lines: Iterable[str]) -> ReplayResult:
    """Apply a log's lines in order; stop at the first malformed or illegal one, applying nothing after it."""
    played, error = replay_jsonl(lines, parse_event, step)
    if played is None:
        return ReplayResult(None, error)
    return ReplayResult(played.game, error, played.actions)
