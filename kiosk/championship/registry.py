"""The organizer's records (SQLite): the players and their clubs, each round's draw, the rulings log (art. 11)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kiosk.store import now

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    club TEXT NOT NULL,
    registered TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (number INTEGER PRIMARY KEY, seed TEXT NOT NULL, size INTEGER NOT NULL,
                                   drawn TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
    round INTEGER NOT NULL REFERENCES rounds(number),
    table_no INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    PRIMARY KEY (table_no, seat)
);
CREATE TABLE IF NOT EXISTS rulings (
    id INTEGER PRIMARY KEY,
    table_no INTEGER,
    kind TEXT NOT NULL,
    player TEXT,
    text TEXT NOT NULL,
    article TEXT NOT NULL,
    ts TEXT NOT NULL,
    by TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS options (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class RegistryError(ValueError):
    """A change the organizer's records refuse (a repeated name, a draw already played): nothing was written."""


@dataclass(frozen=True, slots=True)
class Player:
    """A registered player."""

    name: str
    club: str
    registered: str


@dataclass(frozen=True, slots=True)
class DrawnTable:
    """One table of a round: its number in the championship and its players in seat order."""

    number: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """One round's draw: its seed, the tables' size and the tables."""

    number: int
    seed: str
    size: int
    drawn: str
    tables: tuple[DrawnTable, ...]


@dataclass(frozen=True, slots=True)
class Ruling:
    """An entry of the rulings log: a ruling for a table, or a disqualification (art. 11)."""

    id: int
    table: int | None
    kind: str  # "ruling" or "disqualification"
    player: str | None
    text: str
    article: str
    ts: str
    by: str

    def to_dict(self) -> dict[str, object]:
        """JSON form (also what is sent to the table's kiosk)."""
        return {
            "id": self.id,
            "table": self.table,
            "kind": self.kind,
            "player": self.player,
            "text": self.text,
            "article": self.article,
            "ts": self.ts,
            "by": self.by,
        }


class Registry:
    """The organizer's records in one SQLite file."""

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
            db.execute("PRAGMA synchronous=FULL")
            yield db
        finally:
            db.close()

    # ------------------------------------------------------------------ players

    def add_player(self, name: str, club: str) -> Player:
        """Register a player (before the first draw); RegistryError for an empty or repeated name."""
        name, club = " ".join(name.split()), " ".join(club.split())
        if not name:
            raise RegistryError("falta el nombre del jugador")
        if len(name) > 40 or len(club) > 60:
            raise RegistryError("nombre de hasta 40 letras y club de hasta 60")
        if self.rounds():
            raise RegistryError("el sorteo ya se hizo: la inscripción está cerrada")
        try:
            with self._connect() as db:
                db.execute("INSERT INTO players (name, club, registered) VALUES (?, ?, ?)", (name, club, now()))
        except sqlite3.IntegrityError:
            raise RegistryError(f"{name} ya está inscrito") from None
        return Player(name, club, now())

    def players(self) -> list[Player]:
        """Every registered player, in registration order."""
        with self._connect() as db:
            rows = db.execute("SELECT name, club, registered FROM players ORDER BY id").fetchall()
        return [Player(str(r[0]), str(r[1]), str(r[2])) for r in rows]

    def remove_player(self, name: str) -> None:
        """Take a player off the list before the first draw."""
        if self.rounds():
            raise RegistryError("el sorteo ya se hizo: la inscripción está cerrada")
        with self._connect() as db:
            if db.execute("DELETE FROM players WHERE name = ?", (name,)).rowcount == 0:
                raise RegistryError(f"{name} no está inscrito")

    # ------------------------------------------------------------------ rounds

    def rounds(self) -> list[Round]:
        """Every round drawn, in order, with its tables."""
        with self._connect() as db:
            rounds = db.execute("SELECT number, seed, size, drawn FROM rounds ORDER BY number").fetchall()
            seats = db.execute("SELECT round, table_no, player FROM seats ORDER BY table_no, seat").fetchall()
        result = []
        for number, seed, size, drawn in rounds:
            tables: dict[int, list[str]] = {}
            for rnd, table_no, player in seats:
                if rnd == number:
                    tables.setdefault(int(table_no), []).append(str(player))
            drawn_tables = tuple(DrawnTable(n, tuple(p)) for n, p in sorted(tables.items()))
            result.append(Round(int(number), str(seed), int(size), str(drawn), drawn_tables))
        return result

    def save_round(self, number: int, seed: str, size: int, tables: Sequence[Sequence[str]]) -> Round:
        """Store round `number`'s draw (replacing that round's earlier draw); its tables numbered after the earlier
        rounds' tables."""
        earlier = [r for r in self.rounds() if r.number < number]
        if number != len(earlier) + 1:
            raise RegistryError(f"la ronda {number} no sigue a la {len(earlier)}")
        first = 1 + sum(len(r.tables) for r in earlier)
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM seats WHERE round >= ?", (number,))
                db.execute("DELETE FROM rounds WHERE number >= ?", (number,))
                db.execute("INSERT INTO rounds VALUES (?, ?, ?, ?)", (number, seed, size, now()))
                db.executemany(
                    "INSERT INTO seats (round, table_no, seat, player) VALUES (?, ?, ?, ?)",
                    [
                        (number, first + t, seat, player)
                        for t, players in enumerate(tables)
                        for seat, player in enumerate(players, start=1)
                    ],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return self.rounds()[number - 1]

    # ------------------------------------------------------------------ the rulings log

    def add_ruling(
        self, table: int | None, text: str, article: str, by: str, kind: str = "ruling", player: str | None = None
    ) -> Ruling:
        """Record a ruling (text, article, time, who); RegistryError without a text."""
        text, article, by = text.strip(), article.strip(), by.strip()
        if not text:
            raise RegistryError("falta el texto del fallo")
        if not by:
            raise RegistryError("falta quién decide (el organizador)")
        stamp = now()
        with self._connect() as db:
            cur = db.execute(
                "INSERT INTO rulings (table_no, kind, player, text, article, ts, by) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (table, kind, player, text, article or "11", stamp, by),
            )
        return Ruling(int(cur.lastrowid or 0), table, kind, player, text, article or "11", stamp, by)

    def rulings(self) -> list[Ruling]:
        """The rulings log, oldest first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, table_no, kind, player, text, article, ts, by FROM rulings ORDER BY id"
            ).fetchall()
        return [Ruling(int(r[0]), r[1], str(r[2]), r[3], str(r[4]), str(r[5]), str(r[6]), str(r[7])) for r in rows]

    def disqualified(self) -> dict[str, Ruling]:
        """The disqualified players (art. 11) and the ruling that put each out."""
        return {r.player: r for r in self.rulings() if r.kind == "disqualification" and r.player}

    # ------------------------------------------------------------------ the organizer's options

    def option(self, name: str, default: int) -> int:
        """An organizer's option (docs/rulings.md, Campeonato)."""
        with self._connect() as db:
            row = db.execute("SELECT value FROM options WHERE name = ?", (name,)).fetchone()
        return default if row is None else int(row[0])

    def set_option(self, name: str, value: int) -> None:
        """Set an organizer's option."""
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO options (name, value) VALUES (?, ?)", (name, str(value)))
