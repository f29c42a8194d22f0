"""A Dudo table on the kiosk: its state is the replay of its stored log; every change is one checked line."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.dudo import (
    DudoConfig,
    DudoTable,
    LogError,
    LogEvent,
    Reveal,
    RuleError,
    Start,
    Undo,
    event_to_dict,
    parse_event,
    replay_lines,
    step,
)
from kiosk.store import StaleError, Store, now

GAME = "dudo"


class CorruptLog(RuntimeError):
    """The stored log does not replay (edited by hand?): the kiosk refuses to guess."""


@dataclass(frozen=True, slots=True)
class Desk:
    """One table as loaded: its id, the number of stored events, and the engine's table after them."""

    table_id: int
    seq: int
    table: DudoTable
    lines: tuple[str, ...]

    def meta(self) -> list[dict[str, Any]]:
        """The stored lines decoded (with their time stamps, photos and corrections)."""
        return [json.loads(line) for line in self.lines]


_locks: dict[int, threading.Lock] = {}
_locks_guard = threading.Lock()
_cache: dict[tuple[str, int], Desk] = {}


def table_lock(table_id: int) -> threading.Lock:
    """The lock that makes one table's changes one at a time."""
    with _locks_guard:
        return _locks.setdefault(table_id, threading.Lock())


def load(store: Store, table_id: int) -> Desk:
    """The table from its stored log (cached by the log's length and last line)."""
    lines = tuple(store.lines(table_id))
    key = (str(store.path), table_id)
    cached = _cache.get(key)
    if cached is not None and cached.lines == lines:
        return cached
    result = replay_lines(lines)
    if result.error is not None or result.table is None:
        where = "" if result.error is None else f" (línea {result.error.line}: {result.error.message})"
        raise CorruptLog(f"el registro guardado de la mesa {table_id} no se puede reproducir{where}")
    desk = Desk(table_id, len(lines), result.table, lines)
    _cache[key] = desk
    return desk


def line_of(event: LogEvent, meta: Mapping[str, object] | None = None) -> str:
    """The stored line of an event: the engine's JSON plus the time stamp and any meta keys."""
    obj: dict[str, object] = event_to_dict(event)
    obj["ts"] = now()
    if meta:
        obj.update(meta)
    return json.dumps(obj, ensure_ascii=False)


def start_line(start: Start, sorteo: list[dict[str, int]] | None = None) -> str:
    """The first line of a new table (with the roll-off's throws when it was drawn)."""
    obj = event_to_dict(start)
    if sorteo is not None:
        obj["sorteo"] = sorteo
    obj["ts"] = now()
    return json.dumps(obj, ensure_ascii=False)


def create(store: Store, name: str, start: Start, sorteo: list[dict[str, int]] | None = None) -> int:
    """Seat a new table: the engine checks the start (art. 1, 3) before anything is stored."""
    DudoTable.start(start)
    return store.create_table(GAME, name, [start_line(start, sorteo)])


def act(
    store: Store,
    table_id: int,
    event: LogEvent,
    expect_seq: int | None,
    meta: Mapping[str, object] | None = None,
) -> Desk:
    """Check the event with the engine and, only if it is legal, append it; RuleError/StaleError otherwise."""
    with table_lock(table_id):
        desk = load(store, table_id)
        if expect_seq is not None and expect_seq != desk.seq:
            raise StaleError(f"la mesa cambió (evento {desk.seq}; la página mostraba el {expect_seq}): recargue")
        if isinstance(event, Start):
            raise RuleError("3", "la mesa ya empezó: un registro tiene un solo inicio")
        step(desk.table, event)  # raises the article's RuleError and changes nothing
        clears = isinstance(event, Reveal | Undo)
        store.append(table_id, line_of(event, meta), expect_seq=desk.seq, clear_pending=clears)
        return load(store, table_id)


def parse_action(obj: Mapping[str, object]) -> LogEvent:
    """A typed event from a page's JSON (the log's own format); LogError when malformed."""
    return parse_event(dict(obj))


def config_from_form(form: Mapping[str, str]) -> DudoConfig:
    """The house options from the setup form; without the form's options (`options_form`), the defaults.

    A checkbox left unticked is absent from a form, so an option is false only when the form showed it.
    """
    values: dict[str, object] = {}
    shown = "options_form" in form
    for name, default in DudoConfig().to_dict().items():
        if isinstance(default, bool):
            if shown or f"opt_{name}" in form:
                values[name] = form.get(f"opt_{name}") in ("on", "true", "1")
        elif f"opt_{name}" in form:
            values[name] = form[f"opt_{name}"]
    return DudoConfig.from_mapping(values)


def import_log(store: Store, name: str, text: str) -> int:
    """A new table from a JSONL log (a table begun on paper); the whole log must replay, else LogError."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise LogError("el registro está vacío")
    result = replay_lines(lines)
    if result.error is not None:
        article = f" (art. {result.error.article})" if result.error.article else ""
        raise LogError(f"línea {result.error.line}{article}: {result.error.message}")
    return store.create_table(GAME, name, lines)


def describe(event: Mapping[str, Any]) -> str:
    """One Spanish line for the history list."""
    kind = event.get("event")
    if kind == "start":
        return f"Empieza la mesa: {', '.join(event.get('players', []))}"
    if kind == "bid":
        from engines.dudo import bid_text

        text = f"{event['player']}: {bid_text(int(event['quantity']), int(event['face']))}"
        return text + (" (desestima)" if event.get("desestima") else "")
    if kind == "paso":
        return f"{event['player']}: paso ({event['hand']})"
    if kind in ("dudo", "calzo"):
        return f"{event['player']}: ¡{kind}!"
    if kind == "reveal":
        source = {"camera": "cámara", "manual": "a mano"}.get(str(event.get("source")), "")
        fixes = len(event.get("corrections") or [])
        extra = f" ({source}{', ' if source and fixes else ''}{f'{fixes} correcciones' if fixes else ''})"
        return "Se levantan los cachos" + (extra if source or fixes else "")
    if kind == "undo":
        return "Deshecho"
    return str(kind)
