"""The durable store (SQLite WAL, synchronous commits) and the live bus behind the SSE stream."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from kiosk.bus import Bus
from kiosk.store import NotFound, StaleError, Store, write_durably


def test_store_is_wal_with_full_sync(tmp_path: Path) -> None:
    store = Store(tmp_path / "k.sqlite3")
    store.create_table("dudo", "Mesa 1", ['{"event":"start"}'])
    db = sqlite3.connect(tmp_path / "k.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_append_refuses_a_stale_page_and_writes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "k.sqlite3")
    table = store.create_table("dudo", "Mesa 1", ["a"])
    assert store.append(table, "b", expect_seq=1) == 2
    with pytest.raises(StaleError, match="cambió"):
        store.append(table, "c", expect_seq=1)
    assert store.lines(table) == ["a", "b"]


def test_pending_reading_is_cleared_with_the_reveal_in_one_transaction(tmp_path: Path) -> None:
    store = Store(tmp_path / "k.sqlite3")
    table = store.create_table("dudo", "Mesa 1", ["a"])
    store.set_pending(table, 1, {"state": "ready", "players": {"Ana": []}})
    assert store.pending(table) == (1, {"state": "ready", "players": {"Ana": []}})
    store.append(table, "reveal", expect_seq=1, clear_pending=True)
    assert store.pending(table) is None
    store.set_pending(table, 2, {"x": 1})
    with pytest.raises(StaleError, match=r"evento 2, la página mostraba el 1"):
        store.append(table, "late", expect_seq=1, clear_pending=True)
    assert store.pending(table) == (2, {"x": 1})  # the refused append dropped nothing


def test_tables_settings_audit(tmp_path: Path) -> None:
    store = Store(tmp_path / "k.sqlite3")
    first = store.create_table("dudo", "Mesa 1", ["a", "b"])
    second = store.create_table("bolivia", "Partida", ["c"])
    assert [row.id for row in store.tables()] == [second, first]
    assert [row.id for row in store.tables("dudo")] == [first]
    assert store.table(first).events == 2
    with pytest.raises(NotFound, match="no hay mesa 99"):
        store.table(99)
    assert store.setting("pin_hash") is None
    assert store.setting_once("k", "v1") == "v1"
    assert store.setting_once("k", "v2") == "v1"
    store.audit(first, "correction", {"read": 3, "set": 4})
    assert store.audit_trail(first)[0]["set"] == 4


def test_appends_from_many_threads_keep_one_order(tmp_path: Path) -> None:
    store = Store(tmp_path / "k.sqlite3")
    table = store.create_table("dudo", "Mesa 1", ["start"])

    def write(n: int) -> None:
        for i in range(10):
            store.append(table, f"{n}-{i}")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = store.lines(table)
    assert len(lines) == 41 and len(set(lines)) == 41


def test_write_durably(tmp_path: Path) -> None:
    path = tmp_path / "fotos" / "1" / "a.jpg"
    write_durably(path, b"data")
    assert path.read_bytes() == b"data"
    assert not list(path.parent.glob("*.tmp"))


def test_bus_delivers_by_topic_and_drops_the_oldest_for_a_slow_reader() -> None:
    bus = Bus(backlog=3)
    stream = bus.stream(frozenset({"table:1"}), heartbeat_s=0.05)
    assert next(stream).startswith("retry:")
    bus.publish("table:2", {"n": 0})
    bus.publish("table:1", {"n": 1})
    assert next(stream) == 'event: table:1\ndata: {"n": 1}\n\n'
    assert next(stream) == ": latido\n\n"
    for n in range(10):
        bus.publish("table:1", {"n": n})
    got = [next(stream) for _ in range(3)]
    assert got[-1].endswith('{"n": 9}\n\n') and '"n": 7' in got[0]
    assert bus.subscribers == 1
    bus.close()
    assert list(stream) == []
    assert bus.subscribers == 0
