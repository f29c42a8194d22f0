"""The organizer's side of the link: every table's events from the broker, kept once each by sequence number.

Each table's view is rebuilt from its events in order. An event that comes twice is counted and dropped; a gap
(an event lost with a broker that died before delivering it) is asked for again on the table's `resend` topic.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from kiosk.championship import topics
from kiosk.championship.pool import Pool, PoolError
from kiosk.championship.view import TableView
from kiosk.store import now

log = logging.getLogger(__name__)

# (table, sequence number, event, time.time() when it arrived): what the load benchmark measures
EventHook = Callable[[int, int, dict[str, Any], float], None]


@dataclass
class Feed:
    """What the organizer has of one table: its events in order, those beyond a gap, and the link's state."""

    table: int
    events: list[dict[str, Any]] = field(default_factory=list)
    ahead: dict[int, dict[str, Any]] = field(default_factory=dict)
    view: TableView = field(default_factory=TableView)
    announced: int = 0  # the highest sequence number the table says it has
    duplicates: int = 0
    conflicts: int = 0  # the same number with another event: a table that lost its log?
    link: str = "unknown"
    link_since: str | None = None
    photo: bytes | None = None  # the last ruling's photo (JPEG)
    reader: dict[str, Any] | None = None  # what the table reads with, as its state last said
    behind_since: float | None = None
    requested: float = 0.0
    requests: int = 0

    def summary(self) -> dict[str, Any]:
        """The table as the organizer's page shows it."""
        return {
            "table": self.table,
            **self.view.summary(),
            "received": len(self.events),
            "announced": self.announced,
            "duplicates": self.duplicates,
            "conflicts": self.conflicts,
            "resend_requests": self.requests,
            "has_photo": self.photo is not None,
            "link": self.link,
            "link_since": self.link_since,
            "reader": self.reader,
        }


class Organizer:
    """Subscribes to every table of a championship (persistent session) and keeps each table's events."""

    def __init__(
        self,
        host: str,
        port: int,
        code: str,
        *,
        username: str | None = None,
        password: str | None = None,
        client_id: str | None = None,
        on_event: EventHook | None = None,
        on_change: Callable[[int], None] | None = None,
        resend_after_s: float = 1.0,
        journal: Path | None = None,
        pool: Pool | None = None,
        on_sample: Callable[[int], None] | None = None,
    ) -> None:
        """`pool`: where the tables' confirmed dice are pooled (kiosk.championship.pool), each kept once and
        answered on its table's `sampled`; `on_sample(table)` after each one kept (the learner's cue)."""
        self.host, self.port, self.code = host, port, topics.check_code(code)
        self.pool, self._on_sample = pool, on_sample
        self._journal = Journal(journal, self.code) if journal is not None else None
        self._on_event = on_event
        self._on_change = on_change
        self._resend_after = resend_after_s
        self._lock = threading.Lock()
        self._feeds: dict[int, Feed] = {}
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected = False
        self.unreadable = 0
        self._owned: dict[str, bytes] = {}  # the retained messages it publishes, again at every connection
        self._client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"cacho-{code}-organizer",
            clean_session=False,
            protocol=mqtt.MQTTv311,
        )
        if username:
            self._client.username_pw_set(username, password)
        self._client.reconnect_delay_set(1, 4)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def start(self) -> Organizer:
        """Take back what the journal kept, connect in the background (retrying for ever) and watch for gaps."""
        if self._journal is not None:
            with self._lock:
                for table, events in self._journal.load().items():
                    feed = self._feeds.setdefault(table, Feed(table))
                    for event in events:
                        feed.events.append(event)
                        feed.view.add(event)
                    feed.announced = len(feed.events)
        self._client.connect_async(self.host, self.port, keepalive=10)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._watch, name="organizador-huecos", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Disconnect (the broker keeps the session: what comes meanwhile waits there)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._client.disconnect()
        self._client.loop_stop()
        if self._journal is not None:
            self._journal.close()

    # ------------------------------------------------------------------ what the pages read

    def tables(self) -> list[int]:
        """The numbers of the tables heard from, in order."""
        with self._lock:
            return sorted(self._feeds)

    def events(self, table: int) -> list[dict[str, Any]]:
        """One table's events received in order, from the first (a copy)."""
        with self._lock:
            feed = self._feeds.get(table)
            return [] if feed is None else list(feed.events)

    def summary(self, table: int) -> dict[str, Any] | None:
        """One table's view, or None when nothing came from it."""
        with self._lock:
            feed = self._feeds.get(table)
            return None if feed is None else feed.summary()

    def photo(self, table: int) -> bytes | None:
        """The last ruling's photo a table sent (JPEG), or None."""
        with self._lock:
            feed = self._feeds.get(table)
            return None if feed is None else feed.photo

    def publish_seating(self, table: int, seating: dict[str, Any] | None) -> None:
        """Publish (retained) the players the draw sat at a table; None clears it (a table no longer drawn)."""
        topic = topics.table_topic(self.code, table, topics.SEATING)
        payload = b"" if seating is None else json.dumps(seating, ensure_ascii=False).encode()
        with self._lock:
            if seating is None:
                self._owned.pop(topic, None)
            else:
                self._owned[topic] = payload
        self._client.publish(topic, payload, qos=1, retain=True)

    def publish_model(self, payload: bytes) -> None:
        """Publish (retained) the reader adapted on the pooled dice to every table (kiosk.championship.pool)."""
        topic = topics.championship_topic(self.code, topics.MODEL)
        with self._lock:
            self._owned[topic] = payload
        self._client.publish(topic, payload, qos=1, retain=True)

    def publish_levels(self, payload: bytes) -> None:
        """Publish (retained) the levels every table's evidence sets for the pooled reader (kiosk.championship.pool)."""
        topic = topics.championship_topic(self.code, topics.LEVELS)
        with self._lock:
            self._owned[topic] = payload
        self._client.publish(topic, payload, qos=1, retain=True)

    def publish_ruling(self, table: int, ruling: dict[str, Any]) -> None:
        """Send an organizer's ruling to a table's kiosk (QoS 1: its session keeps it while it is away)."""
        payload = json.dumps(ruling, ensure_ascii=False).encode()
        self._client.publish(topics.table_topic(self.code, table, topics.RULINGS), payload, qos=1)

    # ------------------------------------------------------------------ the client's callbacks (its own thread)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any) -> None:
        if reason.is_failure:
            log.warning("el broker rechazó al organizador: %s", reason)
            return
        self.connected = True
        kinds: tuple[str, ...] = (topics.EVENT, topics.STATE, topics.LINK, topics.PHOTO)
        if self.pool is not None:
            kinds += (topics.SAMPLE,)
        client.subscribe([(topics.every_table(self.code, kind), 1) for kind in kinds])
        with self._lock:
            owned = list(self._owned.items())
        for topic, payload in owned:  # a broker that died unsaved lost them
            client.publish(topic, payload, qos=1, retain=True)

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any
    ) -> None:
        self.connected = False

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        arrived = time.time()
        parsed = topics.parse_table_topic(self.code, message.topic)
        if parsed is not None and parsed[1] == topics.PHOTO:
            with self._lock:
                self._feeds.setdefault(parsed[0], Feed(parsed[0])).photo = bytes(message.payload) or None
            if self._on_change is not None:
                self._on_change(parsed[0])
            return
        try:
            data = json.loads(message.payload)
        except ValueError:
            data = None
        if parsed is None or not isinstance(data, dict):
            self.unreadable += 1
            return
        table, kind = parsed
        if kind == topics.SAMPLE:
            self._sample(table, data)
            return
        fresh: list[tuple[int, dict[str, Any]]] = []
        with self._lock:
            feed = self._feeds.setdefault(table, Feed(table))
            if kind == topics.EVENT:
                fresh = self._event(feed, data)
            elif kind == topics.STATE and isinstance(data.get("seq"), int):
                feed.announced = max(feed.announced, data["seq"])
                if isinstance(data.get("reader"), dict):
                    feed.reader = data["reader"]
            elif kind == topics.LINK and data.get("state") != feed.link:
                feed.link, feed.link_since = str(data.get("state")), now()
            self._note_gap(feed)
        if self._journal is not None and fresh:
            try:
                self._journal.keep(table, fresh)
            except sqlite3.Error as error:  # the view goes on; a restart asks the tables again for what is missing
                log.warning("no se guardaron eventos de la mesa %s: %s", table, error)
        if self._on_event is not None:
            for seq, event in fresh:
                self._on_event(table, seq, event, arrived)
        if self._on_change is not None:
            self._on_change(table)

    def _sample(self, table: int, data: dict[str, Any]) -> None:
        """Keep a table's sample in the pool and tell the table it is kept."""
        if self.pool is None:
            return
        try:
            if data.get("table") != table:
                raise PoolError(f"una muestra en el tema de la mesa {table} dice ser de la mesa {data.get('table')!r}")
            _, name = self.pool.keep(data)
        except (PoolError, OSError) as error:
            self.unreadable += 1
            log.warning("muestra no guardada: %s", error)
            return
        answer = json.dumps({"names": [name]}).encode()
        self._client.publish(topics.table_topic(self.code, table, topics.SAMPLED), answer, qos=1)
        if self._on_sample is not None:
            self._on_sample(table)

    def _event(self, feed: Feed, data: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
        """Keep one event (hold the lock); the events that joined the table's run, in order."""
        seq, event = data.get("seq"), data.get("event")
        if not isinstance(seq, int) or seq < 1 or not isinstance(event, dict):
            self.unreadable += 1
            return []
        feed.announced = max(feed.announced, seq)
        if seq <= len(feed.events) or seq in feed.ahead:
            kept = feed.events[seq - 1] if seq <= len(feed.events) else feed.ahead[seq]
            if kept == event:
                feed.duplicates += 1
            else:
                feed.conflicts += 1
            return []
        feed.ahead[seq] = event
        fresh = []
        while len(feed.events) + 1 in feed.ahead:
            next_seq = len(feed.events) + 1
            joined = feed.ahead.pop(next_seq)
            feed.events.append(joined)
            feed.view.add(joined)
            fresh.append((next_seq, joined))
        return fresh

    def _note_gap(self, feed: Feed) -> None:
        """Hold the lock."""
        if feed.announced > len(feed.events):
            if feed.behind_since is None:
                feed.behind_since = time.monotonic()
        else:
            feed.behind_since = None

    def _watch(self) -> None:
        """Ask a table again for what is missing once it stayed missing a while (lost with a broker that died)."""
        while not self._stopping.wait(self._resend_after / 4):
            clock = time.monotonic()
            asks: list[tuple[int, int]] = []
            with self._lock:
                for feed in self._feeds.values():
                    if (
                        feed.behind_since is not None
                        and clock - feed.behind_since >= self._resend_after
                        and clock - feed.requested >= self._resend_after
                    ):
                        feed.requested = clock
                        feed.requests += 1
                        asks.append((feed.table, len(feed.events) + 1))
            if not self.connected:
                continue
            for table, start in asks:
                payload = json.dumps({"table": table, "from": start}).encode()
                self._client.publish(topics.table_topic(self.code, table, topics.RESEND), payload, qos=1)


class Journal:
    """The events the organizer received, kept in SQLite so that a restarted organizer has them at once."""

    def __init__(self, path: Path, code: str) -> None:
        self.path = Path(path)
        self.code = code
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL: a power cut may lose the last events kept here, never the tables' own logs: asked for again.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS received (code TEXT NOT NULL, table_no INTEGER NOT NULL, seq INTEGER NOT NULL,"
            " event TEXT NOT NULL, PRIMARY KEY (code, table_no, seq))"
        )

    def load(self) -> dict[int, list[dict[str, Any]]]:
        """Each table's events kept, in order from the first (stopping at a gap)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT table_no, seq, event FROM received WHERE code = ? ORDER BY table_no, seq", (self.code,)
            ).fetchall()
        tables: dict[int, list[dict[str, Any]]] = {}
        for table_no, seq, event in rows:
            events = tables.setdefault(int(table_no), [])
            if seq == len(events) + 1:
                events.append(json.loads(event))
        return tables

    def keep(self, table: int, events: list[tuple[int, dict[str, Any]]]) -> None:
        """Keep events that joined a table's run."""
        rows = [(self.code, table, seq, json.dumps(event, ensure_ascii=False)) for seq, event in events]
        with self._lock:
            self._db.executemany("INSERT OR IGNORE INTO received VALUES (?, ?, ?, ?)", rows)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
