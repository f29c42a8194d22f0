"""JSON Lines game logs, shared by every engine: decode a line, check an event's keys and fields, replay a log,
report its first bad line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from engines.errors import LogError, RuleError

State = TypeVar("State")
Event = TypeVar("Event")

# Each event's (required keys, optional keys), by its name.
EventFields = Mapping[str, tuple[frozenset[str], frozenset[str]]]

INVALID_JSON = "no es JSON válido: {msg} (columna {colno})"  # a line that is not JSON, by the decoder's words


@dataclass(frozen=True, slots=True)
class ReplayError:
    """The first event that could not be applied: its 1-based line, the article (None if malformed), why."""

    line: int
    article: str | None
    message: str

    def to_dict(self) -> dict[str, object]:
        """The contract's error object: {"error": {"line", "article", "message"}}."""
        return {"error": {"line": self.line, "article": self.article, "message": self.message}}


def dump_lines(objects: Iterable[Mapping[str, object]]) -> str:
    """JSON Lines text: one object per line, accents kept as written."""
    return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in objects)


# The decoder's words (json.JSONDecodeError.msg), in Spanish; another one is given as the decoder wrote it.
JSON_PROBLEMS = {
    "Expecting ',' delimiter": "falta una coma",
    "Expecting ':' delimiter": "faltan los dos puntos",
    "Expecting value": "falta un valor",
    "Expecting property name enclosed in double quotes": "falta un nombre de campo entre comillas dobles",
    "Unterminated string starting at": "una cadena sin cerrar",
    "Extra data": "sobra texto después del objeto",
    "Invalid control character at": "un carácter de control dentro de una cadena",
    "Invalid \\escape": "un escape \\ no válido",
    "Illegal trailing comma before end of object": "una coma de más antes del fin del objeto",
    "Illegal trailing comma before end of array": "una coma de más antes del fin de la lista",
}


def json_problem(error: json.JSONDecodeError) -> str:
    """What is wrong with the JSON, in Spanish."""
    return JSON_PROBLEMS.get(error.msg, error.msg)


def decode_json_line(raw: str, invalid: str = INVALID_JSON) -> object:
    """Decode one JSON Lines line; LogError says where the JSON is broken (`invalid` with the decoder's words)."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise LogError(invalid.format(msg=json_problem(error), colno=error.colno)) from None


def checked_event(obj: object, fields: EventFields, meta_keys: frozenset[str]) -> tuple[str, dict[str, object]]:
    """The event's name and the decoded object, once it is an object naming one of `fields`' events with that
    event's required keys and no key but its own, `meta_keys` and "event"; LogError says what is wrong."""
    if not isinstance(obj, dict):
        raise LogError("cada línea debe ser un objeto JSON")
    kind = obj.get("event")
    if not isinstance(kind, str) or kind not in fields:
        raise LogError(f"evento desconocido {kind!r}; los eventos son: {', '.join(fields)}")
    required, optional = fields[kind]
    missing = sorted(required - obj.keys())
    if missing:
        raise LogError(f"al evento {kind!r} le falta {', '.join(missing)}")
    unknown = sorted(obj.keys() - required - optional - meta_keys - {"event"})
    if unknown:
        raise LogError(f"el evento {kind!r} no lleva {', '.join(unknown)}")
    return kind, obj


def int_field(obj: Mapping[str, object], key: str) -> int:
    """The event's `key`, an integer (not a boolean); LogError otherwise."""
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise LogError(f"{key!r} debe ser un número entero, no {value!r}")
    return value


def str_field(obj: Mapping[str, object], key: str) -> str:
    """The event's `key`, a text; LogError otherwise."""
    value = obj[key]
    if not isinstance(value, str):
        raise LogError(f"{key!r} debe ser un texto, no {value!r}")
    return value


def replay_jsonl(
    lines: Iterable[str],
    parse: Callable[[object], Event],
    step: Callable[[State | None, Event], State],
    *,
    invalid: str = INVALID_JSON,
) -> tuple[State | None, ReplayError | None]:
    """Apply a log's events in order with `step` (None before the first); stop at the first bad line.

    Blank lines are skipped but counted. Nothing after the first malformed or refused line is applied. A line that
    is not JSON is reported by `invalid` (see `decode_json_line`).
    """
    state: State | None = None
    number = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            state = step(state, parse(decode_json_line(raw, invalid)))
        except LogError as error:
            return state, ReplayError(number, None, error.message)
        except RuleError as error:
            return state, ReplayError(number, error.article, error.message)
    if state is None:
        return None, ReplayError(max(number, 1), None, "el registro está vacío: falta el inicio")
    return state, None
