"""Live updates: an in-process event bus, streamed to every open page as server-sent events (no broker)."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Message:
    """One update: a topic ("table:3", "camera") and its JSON data."""

    topic: str
    data: dict[str, object]

    def sse(self) -> str:
        """The message as a server-sent event."""
        return f"event: {self.topic}\ndata: {json.dumps(self.data, ensure_ascii=False)}\n\n"


class StreamsFull(Exception):
    """As many pages as the kiosk serves live are open already."""


class Bus:
    """Publish to every subscriber; a slow subscriber loses its oldest messages, never blocks the others."""

    def __init__(self, backlog: int = 100) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue[Message | None]] = []
        # The inboxes of open pages (by id), which `max_streams` caps, with their "the page was closed" check.
        self._streams: dict[int, tuple[queue.Queue[Message | None], Callable[[], bool] | None]] = {}
        self._backlog = backlog

    def publish(self, topic: str, data: dict[str, object]) -> None:
        """Send a message to every subscriber."""
        message = Message(topic, data)
        with self._lock:
            subscribers = list(self._subscribers)
        for inbox in subscribers:
            while True:
                try:
                    inbox.put_nowait(message)
                    break
                except queue.Full:
                    with contextlib.suppress(queue.Empty):
                        inbox.get_nowait()

    def subscribe(self) -> queue.Queue[Message | None]:
        """A new inbox that receives every message from now on."""
        inbox: queue.Queue[Message | None] = queue.Queue(maxsize=self._backlog)
        with self._lock:
            self._subscribers.append(inbox)
        return inbox

    def open_stream(self, max_streams: int, gone: Callable[[], bool] | None = None) -> queue.Queue[Message | None]:
        """A page's inbox; StreamsFull when `max_streams` pages are open already (closed ones not counted)."""
        inbox: queue.Queue[Message | None] = queue.Queue(maxsize=self._backlog)
        with self._lock:
            if len(self._streams) >= max_streams:
                # Pages closed since their streams last looked give their places now, and their streams end.
                for key, (old, closed) in list(self._streams.items()):
                    if closed is not None and closed():
                        del self._streams[key]
                        if old in self._subscribers:
                            self._subscribers.remove(old)
                        with contextlib.suppress(queue.Full):
                            old.put_nowait(None)
            if len(self._streams) >= max_streams:
                raise StreamsFull(max_streams)
            self._streams[id(inbox)] = (inbox, gone)
            self._subscribers.append(inbox)
        return inbox

    def unsubscribe(self, inbox: queue.Queue[Message | None]) -> None:
        """Stop delivering to an inbox (a page's stream frees its place); twice is harmless."""
        with self._lock:
            if inbox in self._subscribers:
                self._subscribers.remove(inbox)
            self._streams.pop(id(inbox), None)

    @property
    def subscribers(self) -> int:
        """How many inboxes are listening (pages and the kiosk's own)."""
        with self._lock:
            return len(self._subscribers)

    @property
    def streams(self) -> int:
        """How many pages are listening."""
        with self._lock:
            return len(self._streams)

    def close(self) -> None:
        """Wake every stream so that it ends (the server is stopping)."""
        with self._lock:
            subscribers = list(self._subscribers)
        for inbox in subscribers:
            with contextlib.suppress(queue.Full):
                inbox.put_nowait(None)

    def stream(
        self,
        topics: frozenset[str] | None = None,
        heartbeat_s: float = 15.0,
        inbox: queue.Queue[Message | None] | None = None,
        gone: Callable[[], bool] | None = None,
        check_s: float = 0.5,
    ) -> Iterator[str]:
        """Server-sent events for `topics` (all when None) into `inbox` (a new one when None), with heartbeats."""
        # `gone` (the server's "the page was closed"), checked every `check_s`, frees a closed page's stream at once
        # rather than at its next write.
        if inbox is None:
            inbox = self.subscribe()
        wait_s = heartbeat_s if gone is None else min(heartbeat_s, check_s)
        try:
            yield "retry: 2000\n\n"
            quiet_since = time.monotonic()
            while gone is None or not gone():
                try:
                    message = inbox.get(timeout=wait_s)
                except queue.Empty:
                    if time.monotonic() - quiet_since >= heartbeat_s:
                        quiet_since = time.monotonic()
                        yield ": latido\n\n"
                    continue
                if message is None:
                    return
                if topics is None or message.topic in topics:
                    quiet_since = time.monotonic()
                    yield message.sse()
        finally:
            self.unsubscribe(inbox)
