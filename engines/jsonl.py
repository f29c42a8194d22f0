"""JSON Lines game logs, shared by every engine: decode a line, replay a log, report its first bad line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from engines.errors import LogError, RuleError

State = TypeVar("State")
Event = TypeVar("Event")


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


def decode_json_line(raw: str) -> object:
    """Decode one JSON Lines line; LogError says where the JSON is broken."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise LogError(f"no es JSON válido: {error.msg} (columna {error.colno})") from None


def replay_jsonl(
    lines: Iterable[str],
    parse: Callable[[object], Event],
    step: Callable[[State | None, Event], State],
) -> tuple[State | None, ReplayError | None]:
    """Apply a log's events in order with `step` (None before the first); stop at the first bad line.

    Blank lines are skipped but counted. Nothing after the first malformed or refused line is applied.
    """
    state: State | None = None
    number = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            state = step(state, parse(decode_json_line(raw)))
        except LogError as error:
            return state, ReplayError(number, None, error.message)
        except RuleError as error:
            return state, ReplayError(number, error.article, error.message)
    if state is None:
        return None, ReplayError(max(number, 1), None, "el registro está vacío: falta el inicio")
    return state, None
