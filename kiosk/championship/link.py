"""A table's link to the championship's broker: every event of its log out in order, caught up after any drop.

The table never waits for the broker: it plays on its own SQLite log, and the link sends what the broker has not
acknowledged yet (QoS 1, a persistent session, the event's sequence number in each message). The cursor of what
the broker acknowledged is kept in the table's store, so a restart sends from there: an event may go out twice,
never zero times, and the organizer keeps one of each sequence number.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from kiosk.championship import topics
from kiosk.championship.pool import SAMPLE_RETRY_S, SAMPLE_WINDOW, sample_message, sample_names
from kiosk.championship.view import TableView
from kiosk.store import Store, now

log = logging.getLogger(__name__)

SETTING = "championship"  # the kiosk's link settings (a LinkConfig as JSON) in the store's settings
WINDOW = 100  # events sent and not yet acknowledged, at most: the rest wait in the log
KEEPALIVE_S = 10  # MQTT keep-alive: silent 1.5 times this long, the link is taken for gone and its will sent
RECONNECT_MAX_S = 4  # the longest wait between two tries to reach the broker again (from 1 s, doubling)


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Where a table's log goes: the broker, the championship's code, the table's number, its credentials."""

    host: str
    port: int
    code: str
    table: int  # the table's number in the championship (from the draw)
    table_id: int  # the kiosk's table whose log is sent
    username: str | None = None
    password: str | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON form (what the kiosk stores)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LinkConfig:
        """From its JSON form; ValueError says what is wrong."""
        names = {"port": "el puerto", "table": "el número de mesa", "table_id": "la mesa de Dudo del quiosco"}
        numbers: dict[str, int] = {}
        for key, name in names.items():
            if key not in data:
                raise ValueError(f"falta {name} en la conexión al campeonato")
            try:
                numbers[key] = int(str(data[key]).strip())
            except ValueError:
                raise ValueError(f"{name} debe ser un número entero, no {data[key]!r}") from None
        if "host" not in data or "code" not in data:
            raise ValueError("falta la dirección del broker o el código del campeonato")
        host, port, table, table_id = str(data["host"]), numbers["port"], numbers["table"], numbers["table_id"]
        code = topics.check_code(str(data["code"]))
        if not host or not 1 <= port <= 65535:
            raise ValueError(f"broker {host}:{port}: se esperaba una dirección y un puerto de 1 a 65535")
        if table < 1:
            raise ValueError(f"mesa {table}: el número de mesa empieza en 1")
        user, password = data.get("username"), data.get("password")
        return cls(host, port, code, table, table_id, str(user) if user else None, str(password) if password else None)

    def cursor_key(self) -> str:
        """The store setting that keeps the last sequence number the broker acknowledged."""
        return f"{SETTING}.acked.{self.code}.{self.table}.{self.table_id}"


class TableLink:
    """Publishes one table's log to the broker from a thread of its own; `wake()` after each stored event."""

    def __init__(
        self,
        store: Store,
        config: LinkConfig,
        *,
        on_ruling: Callable[[dict[str, Any]], None] | None = None,
        poll_s: float = 1.0,
        photos: Path | None = None,
        samples: Path | None = None,
        on_model: Callable[[dict[str, Any]], None] | None = None,
        on_levels: Callable[[dict[str, Any]], None] | None = None,
        sample_retry_s: float = SAMPLE_RETRY_S,
        reader: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        """`samples`: the kiosk's labelled dice (kiosk.learned), sent to the organizer's pool, each again after
        `sample_retry_s` until the organizer says it kept it; `on_model`: called (on a thread of its own) with each
        reader the organizer publishes (kiosk.championship.pool), and `on_levels` with the levels it sets for that
        reader on every table's evidence; `reader`: what the table reads with, sent in its state (`{"models",
        "evidence"}`)."""
        self.store = store
        self.config = config
        self._photos = photos  # the kiosk's photo folder: the last ruling's photo goes out with the state
        self._photo_sent: str | None = None
        self._on_ruling = on_ruling
        self._poll_s = poll_s
        self._lock = threading.Condition()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._cursor = int(store.setting(config.cursor_key()) or 0)
        self._saved = self._cursor
        self._next = self._cursor + 1  # the next sequence number never sent by this process
        self._done: set[int] = set()  # acknowledged beyond the cursor
        self._inflight: dict[int, int | None] = {}  # message id: sequence number (None: state or link)
        self._early: set[int] = set()  # acknowledged before `publish` returned its message id
        self._resend_from: int | None = None
        self._state_due = True
        self._state = "down"
        self._since = now()
        self._problem: str | None = None
        self._view = TableView()
        self._samples = samples
        self._on_model = on_model
        self._on_levels = on_levels
        self._retry_s = sample_retry_s
        self._reader = reader
        self._kept_key = f"{config.cursor_key()}:muestras"
        self._kept: set[str] = set(json.loads(store.setting(self._kept_key) or "[]"))  # the organizer has them
        self._kept_saved = len(self._kept)
        self._out: dict[str, float] = {}  # samples sent, not yet kept by the organizer: name -> when (monotonic)
        client_id = f"cacho-{config.code}-table-{config.table}"
        self._client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False, protocol=mqtt.MQTTv311
        )
        if config.username:
            self._client.username_pw_set(config.username, config.password)
        self._client.will_set(self._topic(topics.LINK), self._link_payload("down"), qos=1, retain=True)
        self._client.reconnect_delay_set(1, RECONNECT_MAX_S)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message

    # ------------------------------------------------------------------ life

    def start(self) -> TableLink:
        """Connect in the background (retrying for ever) and start sending."""
        self._client.connect_async(self.config.host, self.config.port, keepalive=KEEPALIVE_S)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"enlace-mesa-{self.config.table}", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """An event was stored: send it now rather than at the next poll."""
        self._wake.set()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Save the cursor, say the link is down (retained) and disconnect."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout_s + 5)
        if self._client.is_connected():
            info = self._publish(self._topic(topics.LINK), self._link_payload("down"), retain=True)
            info.wait_for_publish(timeout=timeout_s)
        self._client.disconnect()
        self._client.loop_stop()
        self._save_cursor()

    # ------------------------------------------------------------------ what it says about itself

    @property
    def acked(self) -> int:
        """The last sequence number the broker acknowledged, with every one before it."""
        with self._lock:
            return self._cursor

    def wait_acked(self, seq: int, timeout_s: float) -> bool:
        """Wait until the broker acknowledged every event up to `seq`."""
        with self._lock:
            return self._lock.wait_for(lambda: self._cursor >= seq, timeout=timeout_s)

    def status(self) -> dict[str, object]:
        """The link badge: `state` ("up", "down" or "refused"), `since`, acknowledged and stored counts, `problem`."""
        with self._lock:
            return {
                "state": self._state,
                "since": self._since,
                "acked": self._cursor,
                "stored": self._view.seq,
                "problem": self._problem,
                "table": self.config.table,
                "code": self.config.code,
                "broker": f"{self.config.host}:{self.config.port}",
                "samples_kept": len(self._kept),
            }

    # ------------------------------------------------------------------ sending

    def _topic(self, kind: str) -> str:
        return topics.table_topic(self.config.code, self.config.table, kind)

    def _link_payload(self, state: str) -> bytes:
        return json.dumps({"table": self.config.table, "state": state}).encode()

    def _run(self) -> None:
        while True:
            self._wake.wait(self._poll_s)
            self._wake.clear()
            stopping = self._stopping.is_set()
            try:
                self._pump()
                self._save_cursor()
            except sqlite3.Error as error:  # the kiosk holds the database a moment: try at the next turn
                log.warning("enlace de la mesa %s: %s", self.config.table, error)
            if stopping:
                return

    def _pump(self) -> None:
        """Send what is new (and what the organizer asked for again), within the window; then the state."""
        lines = self.store.lines(self.config.table_id)
        while self._view.seq < len(lines):
            self._view.add(json.loads(lines[self._view.seq]))
            self._state_due = True
        with self._lock:
            resend, self._resend_from = self._resend_from, None
            connected = self._state == "up"
        if resend is not None:
            for seq in range(max(resend, 1), min(self._next, len(lines) + 1)):
                self._publish(self._topic(topics.EVENT), self._event_payload(seq, lines[seq - 1]), seq=seq)
        while self._next <= len(lines) and self._in_window():
            self._publish(self._topic(topics.EVENT), self._event_payload(self._next, lines[self._next - 1]), self._next)
            self._next += 1
        if connected and self._samples is not None:
            self._send_samples()
        if connected and self._state_due:
            self._state_due = False
            state = {"table": self.config.table, "ts": now(), **self._view.summary()}
            if self._reader is not None:
                state["reader"] = self._reader()
            self._publish(self._topic(topics.STATE), json.dumps(state, ensure_ascii=False).encode(), retain=True)
            self._send_photo(state.get("ruling"))

    def _send_photo(self, ruling: Mapping[str, Any] | None) -> None:
        """The last ruling's photo (retained), once per photo, when the kiosk has it."""
        name = ruling.get("photo") if ruling else None
        if not isinstance(name, str) or name == self._photo_sent or self._photos is None:
            return
        path = self._photos / str(self.config.table_id) / Path(name).name
        try:
            data = path.read_bytes()
        except OSError:
            return
        self._publish(self._topic(topics.PHOTO), data, retain=True)
        self._photo_sent = name

    def _send_samples(self) -> None:
        """The samples the organizer has not said it kept: each once in `sample_retry_s`, SAMPLE_WINDOW at a time."""
        assert self._samples is not None
        at = time.monotonic()
        with self._lock:
            kept, out = set(self._kept), dict(self._out)
        waiting = sum(1 for when in out.values() if at - when <= self._retry_s)
        for name in sample_names(self._samples):
            if waiting >= SAMPLE_WINDOW:
                return
            if name in kept or (name in out and at - out[name] <= self._retry_s):
                continue
            try:
                payload = sample_message(self._samples, name, self.config.table)
            except OSError:  # swept meanwhile
                continue
            self._publish(self._topic(topics.SAMPLE), payload)
            with self._lock:
                self._out[name] = at
            waiting += 1

    def _event_payload(self, seq: int, line: str) -> bytes:
        message = {"table": self.config.table, "seq": seq, "event": json.loads(line)}
        return json.dumps(message, ensure_ascii=False).encode()

    def _in_window(self) -> bool:
        with self._lock:
            return sum(1 for seq in self._inflight.values() if seq is not None) < WINDOW

    def _publish(
        self, topic: str, payload: bytes, seq: int | None = None, retain: bool = False
    ) -> mqtt.MQTTMessageInfo:
        """Every publish goes through here, so that each acknowledgement finds its sequence number."""
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        with self._lock:
            if info.mid in self._early:  # the broker's acknowledgement came before we could note the id
                self._early.discard(info.mid)
                if seq is not None:
                    self._acknowledged(seq)
            else:
                self._inflight[info.mid] = seq
        return info

    def _acknowledged(self, seq: int) -> None:
        """Hold the lock."""
        if seq <= self._cursor:
            return
        self._done.add(seq)
        while self._cursor + 1 in self._done:
            self._cursor += 1
            self._done.discard(self._cursor)
        self._lock.notify_all()

    def _save_cursor(self) -> None:
        with self._lock:
            cursor, kept = self._cursor, sorted(self._kept)
        if cursor != self._saved:
            self.store.set_setting(self.config.cursor_key(), str(cursor))
            self._saved = cursor
        if len(kept) != self._kept_saved:
            self.store.set_setting(self._kept_key, json.dumps(kept))
            self._kept_saved = len(kept)

    # ------------------------------------------------------------------ the client's callbacks (its own thread)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any) -> None:
        if reason.is_failure:
            with self._lock:
                if self._state != "refused":
                    self._state, self._since = "refused", now()
                self._problem = f"el broker rechazó la conexión: {reason}"
            return
        heard = [self._topic(topics.RESEND), self._topic(topics.RULINGS), self._topic(topics.SAMPLED)]
        heard += [topics.championship_topic(self.config.code, kind) for kind in topics.TO_EVERY_TABLE]
        client.subscribe([(topic, 1) for topic in heard])
        self._publish(self._topic(topics.LINK), self._link_payload("up"), retain=True)
        with self._lock:
            self._state, self._since, self._problem = "up", now(), None
            self._out.clear()  # what was sent and not kept may have gone with the broker: sent again
            self._state_due = True  # the retained state (and photo) may have been lost with the broker
            self._photo_sent = None
        self._wake.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any
    ) -> None:
        with self._lock:
            if self._state == "up":
                self._state, self._since = "down", now()

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode, properties: Any) -> None:
        with self._lock:
            if mid not in self._inflight:
                self._early.add(mid)
                return
            seq = self._inflight.pop(mid)
            if seq is not None:
                self._acknowledged(seq)
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            data = json.loads(message.payload)
        except ValueError:
            log.warning("mensaje ilegible en %s", message.topic)
            return
        if not isinstance(data, dict):
            return
        if message.topic == self._topic(topics.RESEND):
            start = data.get("from")
            if isinstance(start, int) and not isinstance(start, bool):
                with self._lock:
                    self._resend_from = start if self._resend_from is None else min(start, self._resend_from)
                self._wake.set()
        elif message.topic == self._topic(topics.SAMPLED):
            names = data.get("names")
            if isinstance(names, list):
                with self._lock:
                    for name in names:
                        if isinstance(name, str):
                            self._kept.add(name)
                            self._out.pop(name, None)
                self._wake.set()
        elif message.topic == topics.championship_topic(self.config.code, topics.MODEL):
            if self._on_model is not None:
                threading.Thread(target=self._model, args=(data,), name="enlace-modelo", daemon=True).start()
        elif message.topic == topics.championship_topic(self.config.code, topics.LEVELS):
            if self._on_levels is not None:
                try:
                    self._on_levels(data)
                except Exception:  # the link must outlive levels it could not use: the table keeps its own
                    log.exception("niveles del campeonato no usados en la mesa %s", self.config.table)
        elif message.topic == self._topic(topics.RULINGS) and self._on_ruling is not None:
            try:
                self._on_ruling(data)
            except Exception:  # the link must outlive a ruling it could not keep
                log.exception("fallo del organizador no guardado en la mesa %s", self.config.table)

    def _model(self, data: dict[str, Any]) -> None:
        assert self._on_model is not None
        try:
            self._on_model(data)
        except Exception:  # the link must outlive a model it could not use: the table reads with what it has
            log.exception("modelo del campeonato no usado en la mesa %s", self.config.table)


def fetch_retained(config: LinkConfig, kind: str, timeout_s: float = 5.0) -> dict[str, Any] | None:
    """The retained message of one of the table's topics (its seating from the draw), read once; None when the
    broker has none. ConnectionError in Spanish when the broker cannot be reached or refuses the user."""
    got: dict[str, Any] = {}
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)  # a clean session of its own
    if config.username:
        client.username_pw_set(config.username, config.password)
    topic = topics.table_topic(config.code, config.table, kind)

    def connected(c: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode, properties: Any) -> None:
        if reason.is_failure:
            got["refused"] = str(reason)
            done.set()
        else:
            c.subscribe(topic, qos=1)

    def subscribed(c: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        # The broker sends a retained message right after acknowledging the subscription: none soon, there is none.
        threading.Timer(0.3, done.set).start()

    def heard(c: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.payload:
            with contextlib.suppress(ValueError):
                got["message"] = json.loads(message.payload)
        done.set()

    client.on_connect, client.on_subscribe, client.on_message = connected, subscribed, heard
    try:
        client.connect(config.host, config.port, keepalive=10)
    except OSError as error:
        raise ConnectionError(f"no se pudo llegar al broker {config.host}:{config.port}: {error}") from None
    client.loop_start()
    try:
        if not done.wait(timeout_s):
            raise ConnectionError(f"el broker {config.host}:{config.port} no contestó en {timeout_s:.0f} s")
    finally:
        client.disconnect()
        client.loop_stop()
    if "refused" in got:
        raise ConnectionError(f"el broker rechazó al usuario {config.username or '(sin usuario)'}: {got['refused']}")
    message = got.get("message")
    return message if isinstance(message, dict) else None


def wait_for(check: Callable[[], bool], timeout_s: float, step_s: float = 0.05) -> bool:
    """Poll `check` until it is true or the time is up."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(step_s)
    return True
