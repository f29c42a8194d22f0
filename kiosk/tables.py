"""What every game's tables share on the kiosk: one change at a time, the replay cache, the stored lines, import.

A table's state is the replay of its stored log; a game's desk module says how to replay it (`Tables`) and
checks each change with its engine before `Tables.append` stores the line.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from engines.errors import LogError
from kiosk import photos
from kiosk.store import StaleError, Store, now


class CorruptLog(RuntimeError):
    """The stored log does not replay (edited by hand?): the kiosk refuses to guess."""


class Loaded(Protocol):
    """A table as loaded: its stored lines and how many they are."""

    @property
    def seq(self) -> int:
        """How many lines are stored."""
        ...

    @property
    def lines(self) -> tuple[str, ...]:
        """The stored lines it is the replay of."""
        ...


D = TypeVar("D", bound=Loaded)

_locks: dict[int, threading.Lock] = {}
_locks_guard = threading.Lock()


def table_lock(table_id: int) -> threading.Lock:
    """The lock that makes one table's changes one at a time."""
    with _locks_guard:
        return _locks.setdefault(table_id, threading.Lock())


def standing(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decoded events that stand after the undos (each undo takes back the event before it), the start first."""
    kept: list[dict[str, Any]] = []
    for event in events:
        if event.get("event") == "undo":
            kept.pop()
        else:
            kept.append(event)
    return kept


def stored_line(obj: Mapping[str, object], meta: Mapping[str, object] | None = None) -> str:
    """The stored line of an event: the engine's JSON plus the time stamp and any meta keys."""
    line = dict(obj)
    line["ts"] = now()
    if meta:
        line.update(meta)
    return json.dumps(line, ensure_ascii=False)


def log_lines(text: str) -> tuple[str, ...]:
    """The non-blank lines of a JSONL text, stripped; LogError when there are none."""
    lines = tuple(line.strip() for line in text.splitlines() if line.strip())
    if not lines:
        raise LogError("el registro está vacío")
    return lines


def house_options(form: Mapping[str, str], defaults: Mapping[str, object]) -> dict[str, object]:
    """The house options a setup form sets: a checkbox left unticked is absent, so false when the form showed it."""
    values: dict[str, object] = {}
    shown = "options_form" in form
    for name, default in defaults.items():
        if isinstance(default, bool):
            if shown or f"opt_{name}" in form:
                values[name] = form.get(f"opt_{name}") in ("on", "true", "1")
        elif f"opt_{name}" in form:
            values[name] = form[f"opt_{name}"]
    return values


class Tables(Generic[D]):
    """One game's tables: loaded by replaying their stored lines (cached while the lines are unchanged)."""

    def __init__(self, game: str, noun: str, replay: Callable[[int, tuple[str, ...]], D]) -> None:
        self.game = game
        self.noun = noun  # "mesa" or "partida", in the messages
        self._replay = replay
        self._cache: dict[tuple[str, int], tuple[tuple[str, ...], D]] = {}

    def load(self, store: Store, table_id: int) -> D:
        """The table from its stored log (cached while the log is unchanged); CorruptLog when it does not replay."""
        lines = tuple(store.lines(table_id))
        key = (str(store.path), table_id)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == lines:
            return cached[1]
        loaded = self._replay(table_id, lines)
        self._cache[key] = (lines, loaded)
        return loaded

    def current(self, store: Store, table_id: int, expect_seq: int | None) -> D:
        """The table now (hold its `table_lock`); StaleError when the page showed another number of events."""
        loaded = self.load(store, table_id)
        if expect_seq is not None and expect_seq != loaded.seq:
            raise StaleError(
                f"la {self.noun} cambió (evento {loaded.seq}; la página mostraba el {expect_seq}): recargue"
            )
        return loaded

    def append(self, store: Store, table_id: int, loaded: D, line: str, after: D, clear_pending: bool) -> D:
        """Store the line of a change the engine allowed on `loaded` (hold the table's lock) and return `after`,
        the table the engine built with it (its lines: `loaded`'s and this one): cached, not replayed again."""
        if photos.missing(table_id, line):
            raise StaleError(f"la lectura de la {self.noun} cambió: recargue")
        found = store.pending(table_id) if clear_pending else None
        store.append(table_id, line, expect_seq=loaded.seq, clear_pending=clear_pending)
        self._cache[(str(store.path), table_id)] = (after.lines, after)
        if found is not None:
            photos.drop(store, table_id, found[1])  # kept when the new event names it (a confirmed reading)
        return after

    def import_log(self, store: Store, name: str, text: str, check: Callable[[tuple[str, ...]], None]) -> int:
        """A new table from a JSONL log; `check` raises LogError unless the whole log replays (nothing is made)."""
        lines = log_lines(text)
        check(lines)
        return store.create_table(self.game, name, list(lines))
