"""Live updates: an in-process event bus, streamed to every open page as server-sent events (no broker)."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Message:
    """One update: a topic ("table:3", "camera") and its JSON data."""

    topic: str
    data: dict[str, object]

    def sse(self) -> str:
        """The message as a server-sent event."""
        return f"event: {self.topic}\ndata: {json.dumps(self.data, ensure_ascii=False)}\n\n"


class Bus:
    """Publish to every subscriber; a slow subscriber loses its oldest messages, never blocks the others."""

    def __init__(self, backlog: int = 100) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue[Message | None]] = []
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

    def unsubscribe(self, inbox: queue.Queue[Message | None]) -> None:
        """Stop delivering to an inbox."""
        with self._lock:
            if inbox in self._subscribers:
                self._subscribers.remove(inbox)

    @property
    def subscribers(self) -> int:
        """How many pages are listening."""
        with self._lock:
            return len(self._subscribers)

    def close(self) -> None:
        """Wake every stream so that it ends (the server is stopping)."""
        with self._lock:
            subscribers = list(self._subscribers)
        for inbox in subscribers:
            with contextlib.suppress(queue.Full):
                inbox.put_nowait(None)

    def stream(self, topics: frozenset[str] | None = None, heartbeat_s: float = 15.0) -> Iterator[str]:
        """Server-sent events for the given topics (all when None), with a comment line as heartbeat."""
        inbox = self.subscribe()
        try:
            yield "retry: 2000\n\n"
            while True:
                try:
                    message = inbox.get(timeout=heartbeat_s)
                except queue.Empty:
                    yield ": latido\n\n"
                    continue
                if message is None:
                    return
                if topics is None or message.topic in topics:
                    yield message.sse()
        finally:
            self.unsubscribe(inbox)
