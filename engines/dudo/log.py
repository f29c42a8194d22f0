"""The table log: JSON Lines, one event per line; reading it into actions, writing it, and replaying it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields

from engines.jsonl import ReplayError as ReplayError
from engines.jsonl import checked_event, dump_lines, int_field, replay_jsonl, str_field

from .actions import Bid, Calzo, Descalificacion, Dudo, LogEvent, Paso, Reveal, Start, Undo
from .config import DudoConfig
from .errors import LogError, RuleError
from .pintas import Hand
from .rolloff import sorteo
from .state import DudoTable

# Keys any event may carry without changing the game: when, who typed it, the ruling's photo, a note,
# where the dice came from, and the coordinator's corrections of the camera's reading.
META_KEYS = frozenset({"ts", "by", "photo", "note", "source", "corrections", "models", "unsettled"})

_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # event: (required keys, optional keys)
    "start": (frozenset({"players"}), frozenset({"opener", "sorteo", "dice", "table_start_dice", "options"})),
    "bid": (frozenset({"player", "quantity", "face"}), frozenset({"desestima"})),
    "dudo": (frozenset({"player"}), frozenset()),
    "calzo": (frozenset({"player"}), frozenset()),
    "paso": (frozenset({"player", "hand"}), frozenset()),
    "reveal": (frozenset({"dice"}), frozenset()),
    "undo": (frozenset(), frozenset()),
    "descalificacion": (frozenset({"player"}), frozenset()),
}


def _mapping(value: object, key: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise LogError(f"{key!r} debe ser un objeto {{jugador: ...}}, no {value!r}")
    return value


def parse_event(obj: object) -> LogEvent:
    """Turn one decoded JSON object into a typed event; LogError says what is malformed."""
    kind, obj = checked_event(obj, _FIELDS, META_KEYS)
    if kind == "start":
        return _parse_start(obj)
    if kind == "undo":
        return Undo()
    if kind == "reveal":
        dice: dict[str, tuple[int, ...]] = {}
        for name, faces in _mapping(obj["dice"], "dice").items():
            if not isinstance(faces, list) or any(isinstance(f, bool) or not isinstance(f, int) for f in faces):
                raise LogError(f"los dados de {name} deben ser una lista de números, no {faces!r}")
            dice[name] = tuple(faces)
        return Reveal.of(dice)
    player = str_field(obj, "player")
    if kind == "descalificacion":
        return Descalificacion(player)
    if kind == "bid":
        desestima = obj.get("desestima", False)
        if not isinstance(desestima, bool):
            raise LogError(f"'desestima' debe ser true o false, no {desestima!r}")
        return Bid(player, int_field(obj, "quantity"), int_field(obj, "face"), desestima)
    if kind == "paso":
        hand = obj["hand"]
        if hand not in [h.value for h in Hand]:
            raise LogError(f"el paso declara full, escala o quintilla, no {hand!r}")
        return Paso(player, Hand(hand))
    return Dudo(player) if kind == "dudo" else Calzo(player)


def _parse_start(obj: Mapping[str, object]) -> Start:
    players = obj["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise LogError("'players' debe ser la lista de nombres en orden horario")
    names = tuple(str(p) for p in players)
    opener = str_field(obj, "opener") if "opener" in obj else None
    if "sorteo" in obj:
        rolls = obj["sorteo"]
        if not isinstance(rolls, list) or not all(isinstance(r, dict) for r in rolls):
            raise LogError("'sorteo' debe ser una lista de tiradas {jugador: dado}")
        drawn = sorteo(names, rolls)
        if opener is not None and opener != drawn:
            raise RuleError("3", f"el sorteo lo ganó {drawn}, no {opener}")
        opener = drawn
    if opener is None:
        raise LogError("el inicio necesita 'opener' (quien parte) o 'sorteo' (las tiradas del sorteo)")
    dice = None
    if "dice" in obj:
        counts = _mapping(obj["dice"], "dice")
        if sorted(counts) != sorted(names):
            raise LogError("'dice' debe dar los dados de cada jugador sentado, y de nadie más")
        dice = tuple(int_field(counts, name) for name in names)
    table_start = int_field(obj, "table_start_dice") if "table_start_dice" in obj else None
    config = DudoConfig.from_mapping(_mapping(obj["options"], "options")) if "options" in obj else DudoConfig()
    return Start(names, opener, dice, table_start, config)


def event_to_dict(event: LogEvent) -> dict[str, object]:
    """The JSON object of one event (the inverse of `parse_event`)."""
    if isinstance(event, Start):
        out: dict[str, object] = {"event": "start", "players": list(event.players), "opener": event.opener}
        if event.dice is not None:
            out["dice"] = dict(zip(event.players, event.dice, strict=True))
        if event.table_start_dice is not None:
            out["table_start_dice"] = event.table_start_dice
        default = DudoConfig()
        changed = {f.name: getattr(event.config, f.name) for f in fields(DudoConfig)}
        changed = {k: v for k, v in changed.items() if v != getattr(default, k)}
        if changed:
            out["options"] = changed
        return out
    if isinstance(event, Bid):
        out = {"event": "bid", "player": event.player, "quantity": event.quantity, "face": event.face}
        if event.desestima:
            out["desestima"] = True
        return out
    if isinstance(event, Paso):
        return {"event": "paso", "player": event.player, "hand": event.hand.value}
    if isinstance(event, Dudo):
        return {"event": "dudo", "player": event.player}
    if isinstance(event, Calzo):
        return {"event": "calzo", "player": event.player}
    if isinstance(event, Undo):
        return {"event": "undo"}
    if isinstance(event, Descalificacion):
        return {"event": "descalificacion", "player": event.player}
    return {"event": "reveal", "dice": {name: list(faces) for name, faces in event.dice}}


def dumps(events: Iterable[LogEvent]) -> str:
    """The log text: one JSON object per line."""
    return dump_lines(event_to_dict(e) for e in events)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The table after the last good event, and the error that stopped the replay, if any."""

    table: DudoTable | None
    error: ReplayError | None


def undo(table: DudoTable) -> DudoTable:
    """The table as it was before its last action or ruling; the start itself cannot be undone."""
    if len(table.history) <= 1:
        raise RuleError("11", "no hay nada que deshacer: la mesa recién empieza")
    return DudoTable.replay(table.history[:-1])


def step(table: DudoTable | None, event: LogEvent) -> DudoTable:
    """Apply one log event (None before the start); an undo takes back the last action (art. 11)."""
    if table is None:
        if not isinstance(event, Start):
            raise LogError("la primera línea debe ser el inicio de la mesa (event: start)")
        return DudoTable.start(event)
    if isinstance(event, Start):
        raise RuleError("3", "la mesa ya empezó: un registro tiene un solo inicio")
    if isinstance(event, Undo):
        return undo(table)
    return table.apply(event)


def replay_lines(lines: Iterable[str]) -> ReplayResult:
    """Apply a log's lines in order; stop at the first malformed or illegal one, applying nothing after it."""
    table, error = replay_jsonl(lines, parse_event, step)
    return ReplayResult(table, error)
