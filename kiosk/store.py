"""The kiosk's durable store: SQLite in WAL mode with synchronous commits; every game event is one row."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS pending (
    table_id INTEGER PRIMARY KEY REFERENCES tables(id),
    seq INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS timers (
    table_id INTEGER PRIMARY KEY REFERENCES tables(id),
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    table_id INTEGER,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
"""


class StaleError(RuntimeError):
    """The table changed since the page was drawn (another tap got there first): nothing was written."""


class NotFound(LookupError):
    """No such table."""


def now() -> str:
    """The time stamp written on events: UTC, ISO 8601, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class TableRow:
    """One table of the kiosk: its game, name, creation time and how many events it has."""

    id: int
    game: str
    name: str
    created: str
    events: int

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {"id": self.id, "game": self.game, "name": self.name, "created": self.created, "events": self.events}


class Store:
    """Tables, their event lines, the reading awaiting confirmation, turn timers and settings; one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit is on disk before the kiosk answers; a power cut loses nothing confirmed.
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            yield db
        finally:
            db.close()

    # ------------------------------------------------------------------ settings

    def setting(self, key: str) -> str | None:
        """A stored setting, or None."""
        with self._connect() as db:
            row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        """Store a setting."""
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    def setting_once(self, key: str, value: str) -> str:
        """Store `value` unless the key is already set; return what is stored."""
        with self._connect() as db:
            db.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)", (key, value))
            row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return str(row[0])

    # ------------------------------------------------------------------ tables and events

    def create_table(self, game: str, name: str, lines: list[str]) -> int:
        """A new table with its first event lines, in one transaction."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                cur = db.execute("INSERT INTO tables (game, name, created) VALUES (?, ?, ?)", (game, name, now()))
                table_id = int(cur.lastrowid or 0)
                db.executemany(
                    "INSERT INTO events (table_id, seq, line) VALUES (?, ?, ?)",
                    [(table_id, seq, line) for seq, line in enumerate(lines, start=1)],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return table_id

    def tables(self, game: str | None = None) -> list[TableRow]:
        """Every table, newest first."""
        query = (
            "SELECT t.id, t.game, t.name, t.created, COUNT(e.seq) FROM tables t "
            "LEFT JOIN events e ON e.table_id = t.id {} GROUP BY t.id ORDER BY t.id DESC"
        )
        with self._connect() as db:
            if game is None:
                rows = db.execute(query.format("")).fetchall()
            else:
                rows = db.execute(query.format("WHERE t.game = ?"), (game,)).fetchall()
        return [TableRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4])) for r in rows]

    def table(self, table_id: int) -> TableRow:
        """One table; NotFound if there is none."""
        with self._connect() as db:
            row = db.execute(
                "SELECT t.id, t.game, t.name, t.created, (SELECT COUNT(*) FROM events e WHERE e.table_id = t.id) "
                "FROM tables t WHERE t.id = ?",
                (table_id,),
            ).fetchone()
        if row is None:
            raise NotFound(f"no hay mesa {table_id}")
        return TableRow(int(row[0]), str(row[1]), str(row[2]), str(row[3]), int(row[4]))

    def lines(self, table_id: int) -> list[str]:
        """The table's event lines, in order."""
        with self._connect() as db:
            rows = db.execute("SELECT line FROM events WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
        return [str(r[0]) for r in rows]

    def append(self, table_id: int, line: str, expect_seq: int | None = None, clear_pending: bool = False) -> int:
        """Append one event line, committed to disk before returning its number.

        With `expect_seq`, refuse (StaleError) unless the table has exactly that many events: two taps on
        an old page never apply twice. `clear_pending` drops the reading awaiting confirmation in the
        same transaction (it has just become the reveal).
        """
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                last = int(
                    db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?", (table_id,)).fetchone()[0]
                )
                if expect_seq is not None and last != expect_seq:
                    raise StaleError(f"la mesa cambió (evento {last}, la página mostraba el {expect_seq})")
                db.execute("INSERT INTO events (table_id, seq, line) VALUES (?, ?, ?)", (table_id, last + 1, line))
                if clear_pending:
                    db.execute("DELETE FROM pending WHERE table_id = ?", (table_id,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return last + 1

    def append_lines(self, table_id: int, lines: list[str], expect_seq: int, clear_pending: bool = False) -> int:
        """Append several event lines in one transaction (all or none), as `append` does one; the last number."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                last = int(
                    db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?", (table_id,)).fetchone()[0]
                )
                if last != expect_seq:
                    raise StaleError(f"la mesa cambió (evento {last}, la página mostraba el {expect_seq})")
                db.executemany(
                    "INSERT INTO events (table_id, seq, line) VALUES (?, ?, ?)",
                    [(table_id, last + k, line) for k, line in enumerate(lines, start=1)],
                )
                if clear_pending:
                    db.execute("DELETE FROM pending WHERE table_id = ?", (table_id,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return last + len(lines)

    # ------------------------------------------------------------------ the reading awaiting confirmation

    def pending(self, table_id: int) -> tuple[int, dict[str, object]] | None:
        """The reading awaiting confirmation and the event number it belongs to, or None."""
        with self._connect() as db:
            row = db.execute("SELECT seq, data FROM pending WHERE table_id = ?", (table_id,)).fetchone()
        return None if row is None else (int(row[0]), json.loads(row[1]))

    def set_pending(self, table_id: int, seq: int, data: Mapping[str, object]) -> None:
        """Store (replace) the reading awaiting confirmation."""
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO pending (table_id, seq, data) VALUES (?, ?, ?)",
                (table_id, seq, json.dumps(data, ensure_ascii=False)),
            )

    def clear_pending(self, table_id: int) -> None:
        """Drop the reading awaiting confirmation."""
        with self._connect() as db:
            db.execute("DELETE FROM pending WHERE table_id = ?", (table_id,))

    # ------------------------------------------------------------------ the turn timers

    def timer(self, table_id: int) -> dict[str, object] | None:
        """A table's turn timer as last written, or None if it was never touched."""
        with self._connect() as db:
            row = db.execute("SELECT data FROM timers WHERE table_id = ?", (table_id,)).fetchone()
        return None if row is None else cast(dict[str, object], json.loads(row[0]))

    def update_timer(
        self, table_id: int, change: Callable[[dict[str, object] | None], dict[str, object]]
    ) -> dict[str, object]:
        """Read, change and write a table's turn timer in one transaction; what was written."""
        with self._connect() as db:
            # The write lock is held from the read on: two requests (threads or processes) change it in turn.
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT data FROM timers WHERE table_id = ?", (table_id,)).fetchone()
                data = change(None if row is None else cast(dict[str, object], json.loads(row[0])))
                db.execute(
                    "INSERT OR REPLACE INTO timers (table_id, data) VALUES (?, ?)",
                    (table_id, json.dumps(data, ensure_ascii=False)),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return data

    # ------------------------------------------------------------------ the audit trail

    def audit(self, table_id: int | None, kind: str, data: dict[str, object]) -> None:
        """Record what happened beside the game (a correction, a wrong PIN, an import)."""
        with self._connect() as db:
            db.execute(
                "INSERT INTO audit (table_id, ts, kind, data) VALUES (?, ?, ?, ?)",
                (table_id, now(), kind, json.dumps(data, ensure_ascii=False)),
            )

    def audit_trail(self, table_id: int | None = None) -> list[dict[str, object]]:
        """The audit records, oldest first (of one table, or all)."""
        with self._connect() as db:
            if table_id is None:
                rows = db.execute("SELECT table_id, ts, kind, data FROM audit ORDER BY id").fetchall()
            else:
                rows = db.execute(
                    "SELECT table_id, ts, kind, data FROM audit WHERE table_id = ? ORDER BY id", (table_id,)
                ).fetchall()
        return [{"table": r[0], "ts": r[1], "kind": r[2], **json.loads(r[3])} for r in rows]


def write_durably(path: Path, data: bytes) -> None:
    """Write a file so that it is on disk (fsync, then an atomic rename) before any event names it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
