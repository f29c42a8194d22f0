"""`python -m kiosk.loadtest`: many spectators' live pages on a running kiosk while the coordinator plays.

Opens N streams on `/events` (as the TV and the phones do), then, as the coordinator, seats a Dudo table and makes
changes (a bid, its undo, ...) one after another: it times each change and the state's reload, and checks that every
stream received every change.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import re
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

CSRF = re.compile(r'name="csrf-token" content="([^"]+)"')


class LoadError(Exception):
    """The kiosk could not be driven (no answer, wrong PIN, a refused change)."""


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile `p` (0-100) of `values` (0 when empty)."""
    if not values:
        return 0.0
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(p / 100 * len(ranked) + 0.5) - 1))]


class Coordinator:
    """The coordinator's browser: one kept-alive connection, the session cookie and the CSRF token."""

    def __init__(self, url: str, timeout_s: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.timeout_s = timeout_s
        self.cookie = ""
        self.token = ""
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout_s)

    def request(self, method: str, path: str, body: bytes | None = None, kind: str = "") -> tuple[int, str, str]:
        """Status, Location and body of one request (the session cookie kept)."""
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if kind:
            headers["Content-Type"] = kind
        if self.token:
            headers["X-CSRF-Token"] = self.token
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                text = response.read().decode("utf-8", errors="replace")
                break
            except (ConnectionError, http.client.HTTPException, TimeoutError) as error:
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)
                if attempt == 2:
                    raise LoadError(f"{method} {path}: el kiosco no responde ({error})") from None
        cookie = response.getheader("Set-Cookie")
        if cookie and cookie.startswith("session="):
            self.cookie = cookie.split(";", 1)[0]
        return response.status, response.getheader("Location") or "", text

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def form(self, path: str, fields: dict[str, str]) -> tuple[int, str, str]:
        """POST a form with this session's CSRF token."""
        body = urllib.parse.urlencode(fields | {"csrf_token": self.token}).encode()
        return self.request("POST", path, body, "application/x-www-form-urlencoded")

    def post(self, path: str, data: dict[str, Any]) -> dict[str, Any]:
        """POST JSON as the pages do; the answer (LoadError when refused)."""
        status, _, text = self.request("POST", path, json.dumps(data).encode(), "application/json")
        if status != 200:
            raise LoadError(f"POST {path}: {status} {text[:200]}")
        answer: dict[str, Any] = json.loads(text)
        return answer

    def sign_in(self, pin: str) -> None:
        """Enter the PIN (choose it when the kiosk has none yet)."""
        status, location, text = self.request("GET", "/login")
        setup = status in (301, 302, 303) and "/setup" in location
        if setup:
            _, _, text = self.request("GET", "/setup")
        found = CSRF.search(text)
        if found is None:
            raise LoadError("la página del PIN no trae su token CSRF: ¿es un kiosco de Cacho?")
        self.token = found.group(1)
        status, _, _ = self.form("/setup", {"pin": pin, "pin2": pin}) if setup else self.form("/login", {"pin": pin})
        if status not in (301, 302, 303):
            raise LoadError("PIN incorrecto o el kiosco no lo acepta")

    def seat_table(self) -> int:
        """A new Dudo table (Ana, Beto; Ana opens); its number."""
        fields = {"name": "Prueba de carga", "players": "Ana\nBeto", "opener": "Ana"}
        status, location, text = self.form("/dudo/new", fields)
        found = re.search(r"/dudo/(\d+)$", location)
        if status not in (301, 302, 303) or found is None:
            raise LoadError(f"no se pudo preparar la mesa: {status} {text[:200]}")
        return int(found.group(1))


@dataclass
class Streams:
    """The spectators' pages: how many opened, were refused, and each one's count of the table's events."""

    opened: int = 0
    refused: int = 0
    failed: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


async def _one_stream(host: str, port: int, path: str, topic: str, streams: Streams, index: int) -> None:
    """One page's stream: count the table's events until cancelled."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError as error:
        with streams.lock:
            streams.failed.append(str(error))
        return
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # the headers
        if status == 503:
            with streams.lock:
                streams.refused += 1
            return
        if status != 200:
            with streams.lock:
                streams.failed.append(f"estado {status}")
            return
        marker = f"event: {topic}\n".encode()
        opened = False
        while True:
            size = int((await reader.readline()).strip() or b"0", 16)  # chunked: each event is one chunk
            if size == 0:
                return
            chunk = await reader.readexactly(size + 2)
            if not opened:
                opened = True
                with streams.lock:
                    streams.opened += 1
            if marker in chunk:
                streams.counts[index] += chunk.count(marker)
    except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as error:
        with streams.lock:
            streams.failed.append(str(error) or type(error).__name__)
    finally:
        writer.close()
        with contextlib.suppress(OSError, asyncio.CancelledError):
            await writer.wait_closed()


class StreamPool:
    """N streams on one event loop in a thread of their own."""

    def __init__(self, url: str, table_id: int, n: int) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.topic = f"table:{table_id}"
        self.path = "/events?topics=" + urllib.parse.quote(f"{self.topic},camera")
        self.streams = Streams(counts=[0] * n)
        self.n = n
        self.loop = asyncio.new_event_loop()
        self.tasks: list[asyncio.Task[None]] = []
        self.thread = threading.Thread(target=self.loop.run_forever, name="loadtest-streams", daemon=True)

    def open(self, timeout_s: float) -> None:
        """Open every stream and wait until each is open, refused or failed."""
        self.thread.start()

        async def start() -> None:
            for i in range(self.n):
                self.tasks.append(
                    asyncio.ensure_future(_one_stream(self.host, self.port, self.path, self.topic, self.streams, i))
                )

        asyncio.run_coroutine_threadsafe(start(), self.loop).result()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            s = self.streams
            if s.opened + s.refused + len(s.failed) >= self.n:
                return
            time.sleep(0.02)

    def wait_for(self, expected: int, timeout_s: float) -> bool:
        """Wait until every open stream counted `expected` of the table's events."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.received(expected) == self.streams.opened:
                return True
            time.sleep(0.001)
        return False

    def received(self, expected: int) -> int:
        """How many streams counted at least `expected` events."""
        return sum(1 for c in self.streams.counts if c >= expected)

    def close(self) -> None:
        """Close every stream (the pages closed) and stop the loop."""

        async def stop() -> None:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        if self.thread.is_alive():
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(timeout=30)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()


@dataclass
class Result:
    """What a load run measured."""

    streams: int
    opened: int
    refused: int
    failed: list[str]
    changes: int
    change_ms: list[float]
    reload_ms: list[float]
    delivery_ms: list[float]
    missed: int  # streams that did not receive every change

    def summary(self) -> dict[str, Any]:
        """The figures, as --json prints them."""

        def stats(values: list[float]) -> dict[str, float]:
            return {
                "n": len(values),
                "p50_ms": round(percentile(values, 50), 1),
                "p99_ms": round(percentile(values, 99), 1),
                "max_ms": round(max(values, default=0.0), 1),
            }

        return {
            "streams": self.streams,
            "opened": self.opened,
            "refused": self.refused,
            "failed": len(self.failed),
            "changes": self.changes,
            "change": stats(self.change_ms),
            "reload": stats(self.reload_ms),
            "delivery": stats(self.delivery_ms),
            "missed": self.missed,
        }


def run(url: str, pin: str, streams: int, changes: int, pause_s: float = 0.05, wait_s: float = 10.0) -> Result:
    """Open `streams` pages, make `changes` changes as the coordinator, and measure."""
    coordinator = Coordinator(url)
    try:
        coordinator.sign_in(pin)
        table_id = coordinator.seat_table()
    except LoadError:
        coordinator.close()
        raise
    base = f"/dudo/{table_id}"
    pool = StreamPool(url, table_id, streams)
    pool.open(timeout_s=max(30.0, streams / 10))
    change_ms: list[float] = []
    reload_ms: list[float] = []
    delivery_ms: list[float] = []
    try:
        status, _, text = coordinator.request("GET", base + "/state.json")
        if status != 200:
            raise LoadError(f"GET {base}/state.json: {status}")
        seq = json.loads(text)["seq"]
        for i in range(changes):
            if i % 2 == 0:
                path, body = "/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 3, "seq": seq}
            else:
                path, body = "/undo", {"seq": seq}
            started = time.perf_counter()
            seq = coordinator.post(base + path, body)["seq"]
            answered = time.perf_counter()
            change_ms.append((answered - started) * 1000)
            if pool.wait_for(i + 1, wait_s):
                delivery_ms.append((time.perf_counter() - answered) * 1000)
            started = time.perf_counter()
            status, _, text = coordinator.request("GET", base + "/state.json")
            reload_ms.append((time.perf_counter() - started) * 1000)
            if status != 200:
                raise LoadError(f"GET {base}/state.json: {status}")
            time.sleep(pause_s)
        pool.wait_for(changes, wait_s)
        s = pool.streams
        return Result(
            streams=streams,
            opened=s.opened,
            refused=s.refused,
            failed=list(s.failed),
            changes=changes,
            change_ms=change_ms,
            reload_ms=reload_ms,
            delivery_ms=delivery_ms,
            missed=s.opened - pool.received(changes),
        )
    finally:
        pool.close()
        coordinator.close()


def main(argv: list[str] | None = None) -> int:
    """Run the load test and print its figures (exit 1 when a stream missed a change or one failed)."""
    parser = argparse.ArgumentParser(
        prog="python -m kiosk.loadtest",
        description="Abre N páginas en vivo en un kiosco en marcha y, como coordinador, prepara una mesa de Dudo y "
        "hace cambios (apuesta, deshacer...): mide cuánto tarda cada uno y revisa que cada página reciba cada cambio.",
    )
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="el kiosco (http://127.0.0.1:8080)")
    parser.add_argument("--pin", required=True, help="el PIN del coordinador (se fija si el kiosco no tiene)")
    parser.add_argument("--streams", type=int, default=200, help="páginas en vivo (200)")
    parser.add_argument("--changes", type=int, default=200, help="cambios del coordinador (200)")
    parser.add_argument("--pause", type=float, default=0.05, help="pausa entre cambios, en segundos (0.05)")
    parser.add_argument("--json", action="store_true", help="las cifras en JSON")
    args = parser.parse_args(argv)
    if args.streams < 0 or args.changes < 1:
        parser.error("--streams va desde 0 y --changes desde 1")
    try:
        result = run(args.url, args.pin, args.streams, args.changes, args.pause)
    except LoadError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2
    figures = result.summary()
    if args.json:
        print(json.dumps(figures))
    else:

        def line(name: str, key: str) -> str:
            f = figures[key]
            return f"{name} ({f['n']}): p50 {f['p50_ms']} ms, p99 {f['p99_ms']} ms, máx {f['max_ms']} ms"

        print(f"Páginas en vivo: {result.opened} abiertas de {result.streams}, {result.refused} rechazadas (503)")
        if result.failed:
            print(f"  {len(result.failed)} fallaron: {result.failed[0]}")
        print(line("Cambios del coordinador", "change"))
        print(line("Recargas del estado", "reload"))
        print(line("Entrega a todas las páginas", "delivery"))
        if result.missed:
            print(f"{result.missed} páginas no recibieron todos los cambios")
        else:
            print(f"Cada página abierta recibió los {result.changes} cambios")
    return 1 if result.missed or result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
