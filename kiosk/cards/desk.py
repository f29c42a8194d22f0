"""A card game on the kiosk: its state is the replay of its stored log; each tap stores one or more checked lines.

A tap (deal a hand, keep the cards, play one card) may be several engine events: they are checked together with
the engine and stored in one transaction, each line marked with the tap's number (`tap`, the number of its first
line), so that *Deshacer* takes back the whole tap with as many `{"event": "undo"}` lines, also in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from engines.cards import event_of
from engines.cards.replay import Played, step
from engines.errors import LogError, RuleError
from kiosk import tables
from kiosk.records import JsonDict
from kiosk.sections import section
from kiosk.store import Store
from kiosk.tables import CorruptLog, table_lock

UNDO_TAP = "undo"  # the undo route's event: take back the last tap

G = TypeVar("G", covariant=True)  # the engine's game a desk holds (engines.cards: TrucoGame, CachoEvening, ...)
T = TypeVar("T")  # the same, for a game's tables


@dataclass(frozen=True, slots=True)
class Desk(Generic[G]):
    """One card table as loaded: its id, the number of stored lines, the engine's replay, and the lines that stand."""

    table_id: int
    seq: int
    played: Played
    lines: tuple[str, ...]
    standing: tuple[JsonDict, ...]  # the decoded lines that stand after the undos, the start first

    @property
    def state(self) -> G:
        """The engine's game now."""
        game: G = self.played.state  # the engine's replay holds any card game's state
        return game

    def last_tap(self) -> int:
        """How many standing lines the last tap wrote (0 when only the start stands)."""
        if len(self.standing) <= 1:
            return 0
        tap = self.standing[-1].get("tap")
        count = 0
        for line in reversed(self.standing[1:]):
            if tap is None or line.get("tap") != tap:
                break
            count += 1
        return max(count, 1)


def replay(lines: Sequence[str]) -> tuple[Played, tuple[JsonDict, ...]]:
    """Replay stored lines with the card engines, keeping each standing line decoded; CorruptLog when one fails."""
    played: Played | None = None
    decoded: list[JsonDict] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            played = step(played, event_of(obj))
        except json.JSONDecodeError as error:
            raise CorruptLog(f"línea {number}: no es JSON válido: {error.msg} (columna {error.colno})") from None
        except LogError as error:
            raise CorruptLog(f"línea {number}: {error.message}") from None
        except RuleError as error:
            raise CorruptLog(f"línea {number} ({section(error.article)}): {error.message}") from None
        decoded.append(obj)
    if played is None:
        raise CorruptLog("el registro está vacío: falta el inicio")
    return played, tuple(tables.standing(decoded))


class CardTables(Generic[T]):
    """One card game's tables on the kiosk (`game`: the log's and the store's name, e.g. "truco"), each game a `T`."""

    def __init__(self, game: str, refuses: Callable[[object], str | None] | None = None) -> None:
        self.game = game
        self.refuses = refuses  # why an imported log's game cannot be played here (None: it can)
        self.tables: tables.Tables[Desk[T]] = tables.Tables(game, "partida", self._load)

    def _load(self, table_id: int, lines: tuple[str, ...]) -> Desk[T]:
        try:
            played, standing = replay(lines)
        except CorruptLog as error:
            raise CorruptLog(
                f"el registro guardado de la partida {table_id} no se puede reproducir ({error})"
            ) from None
        return Desk(table_id, len(lines), played, lines, standing)

    def load(self, store: Store, table_id: int) -> Desk[T]:
        """The table from its stored log (cached while the log is unchanged)."""
        return self.tables.load(store, table_id)

    def create(self, store: Store, name: str, start: Mapping[str, object]) -> int:
        """A new table from its `start` event: the engine checks it before anything is stored."""
        event = {"event": "start", "game": self.game, **start}
        try:
            step(None, event)
        except TypeError as error:
            raise LogError(str(error)) from None
        return store.create_table(self.game, name, [tables.stored_line(event, {"by": "coordinador"})])

    def act(
        self,
        store: Store,
        table_id: int,
        events: Sequence[Mapping[str, object]] | str,
        expect_seq: int | None,
        meta: Mapping[str, object] | None = None,
    ) -> Desk[T]:
        """Check a tap's events with the engine and, only if every one is legal, store them all; `UNDO_TAP` takes
        back the last tap. RuleError/LogError/StaleError otherwise, and nothing is stored."""
        with table_lock(table_id):
            desk = self.tables.current(store, table_id, expect_seq)
            if events == UNDO_TAP:
                events = [{"event": "undo"}] * max(desk.last_tap(), 1)
            played = desk.played
            tap = desk.seq + 1
            lines: list[str] = []
            for obj in events:
                if not isinstance(obj, Mapping):
                    raise LogError("cada evento es un objeto JSON")
                if obj.get("event") == "start":
                    raise RuleError("Registro", "la partida ya empezó: un registro tiene un solo inicio")
                played = step(played, event_of(dict(obj)))  # the section's RuleError; nothing is stored
                lines.append(tables.stored_line(obj, {**(meta or {}), "tap": tap}))
            if not lines:
                raise LogError("no hay nada que anotar")
            store.append_lines(table_id, lines, desk.seq, clear_pending=True)
            return self.load(store, table_id)

    def import_log(self, store: Store, name: str, text: str) -> int:
        """A new table from a JSONL log of this game; the whole log must replay, else LogError."""
        return self.tables.import_log(store, name, text, self._check_import)

    def _check_import(self, lines: tuple[str, ...]) -> None:
        try:
            played, _ = replay(lines)
        except CorruptLog as error:
            raise LogError(str(error)) from None
        if played.game != self.game:
            raise LogError(f"el registro es de otro juego («{played.game}»), no de «{self.game}»")
        why = None if self.refuses is None else self.refuses(played.state)
        if why is not None:
            raise LogError(why)
