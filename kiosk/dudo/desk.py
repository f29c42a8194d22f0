"""A Dudo table on the kiosk: its state is the replay of its stored log; every change is one checked line."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace

from engines.dudo import (
    Bid,
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
from kiosk import tables
from kiosk.i18n import count
from kiosk.records import JsonDict
from kiosk.store import Store
from kiosk.tables import CorruptLog, table_lock

GAME = "dudo"


@dataclass(frozen=True, slots=True)
class Desk:
    """One table as loaded: its id, the number of stored events, and the engine's table after them."""

    table_id: int
    seq: int
    table: DudoTable
    lines: tuple[str, ...]

    def meta(self) -> list[JsonDict]:
        """The stored lines decoded (with their time stamps, photos and corrections)."""
        return [json.loads(line) for line in self.lines]


def _replay(table_id: int, lines: tuple[str, ...]) -> Desk:
    result = replay_lines(lines)
    if result.error is not None or result.table is None:
        where = "" if result.error is None else f" (línea {result.error.line}: {result.error.message})"
        raise CorruptLog(f"el registro guardado de la mesa {table_id} no se puede reproducir{where}")
    return Desk(table_id, len(lines), result.table, lines)


TABLES = tables.Tables(GAME, "mesa", _replay)


def load(store: Store, table_id: int) -> Desk:
    """The table from its stored log (cached while the log is unchanged)."""
    return TABLES.load(store, table_id)


def line_of(event: LogEvent, meta: Mapping[str, object] | None = None) -> str:
    """The stored line of an event: the engine's JSON plus the time stamp and any meta keys."""
    return tables.stored_line(event_to_dict(event), meta)


def start_line(start: Start, sorteo: list[dict[str, int]] | None = None) -> str:
    """The first line of a new table (with the roll-off's throws when it was drawn)."""
    obj: dict[str, object] = event_to_dict(start)
    if sorteo is not None:
        obj["sorteo"] = sorteo
    return tables.stored_line(obj)


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
        desk = TABLES.current(store, table_id, expect_seq)
        if isinstance(event, Start):
            raise RuleError("3", "la mesa ya empezó: un registro tiene un solo inicio")
        if isinstance(event, Bid) and not event.desestima and desk.table.dismisses(event):
            # the log and the history say it: the bid dismissed the opening in aces (art. 5 c)
            event = replace(event, desestima=True)
        after = step(desk.table, event)  # raises the article's RuleError and changes nothing
        line = line_of(event, meta)
        built = Desk(table_id, desk.seq + 1, after, (*desk.lines, line))
        return TABLES.append(store, table_id, desk, line, built, clear_pending=isinstance(event, Reveal | Undo))


def parse_action(obj: Mapping[str, object]) -> LogEvent:
    """A typed event from a page's JSON (the log's own format); LogError when malformed."""
    return parse_event(dict(obj))


def config_from_form(form: Mapping[str, str]) -> DudoConfig:
    """The house options from the setup form; without the form's options (`options_form`), the defaults.

    A checkbox left unticked is absent from a form, so an option is false only when the form showed it.
    """
    return DudoConfig.from_mapping(tables.house_options(form, DudoConfig().to_dict()))


def import_log(store: Store, name: str, text: str) -> int:
    """A new table from a JSONL log (a table begun on paper); the whole log must replay, else LogError."""
    return TABLES.import_log(store, name, text, _check_import)


def _check_import(lines: tuple[str, ...]) -> None:
    result = replay_lines(lines)
    if result.error is not None:
        article = f" (art. {result.error.article})" if result.error.article else ""
        raise LogError(f"línea {result.error.line}{article}: {result.error.message}")


def describe(event: JsonDict) -> str:
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
        fixed = count(fixes, "corrección", "correcciones") if fixes else ""
        extra = f" ({source}{', ' if source and fixes else ''}{fixed})"
        return "Se levantan los cachos" + (extra if source or fixes else "")
    if kind == "undo":
        return "Deshecho"
    return str(kind)
