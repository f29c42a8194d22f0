"""Live pages on the real server (waitress): a cap on streams that keeps threads for the controls, a clear 503 past
it, a closed page's stream freed at once, and a small run of `kiosk.loadtest` (figures come from the command)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from kiosk import loadtest
from kiosk.bus import Bus, StreamsFull
from kiosk.server import make_server
from tests.kiosk.conftest import PIN, make_app
from tests.kiosk.fakes import wait_until


def serve(app: Flask, streams: int, threads: int) -> Iterator[str]:
    """Serve `app` with the kiosk's waitress settings on a free port; its URL."""
    from waitress import wasyncore

    server = make_server(app, "127.0.0.1", 0, streams=streams, threads=threads)
    runner = threading.Thread(target=server.run, daemon=True)
    runner.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        app.extensions["cacho.bus"].close()
        server.task_dispatcher.shutdown(timeout=5)
        wasyncore.close_all(server._map)
        runner.join(timeout=10)
        app.extensions["cacho.camera"].close()


@pytest.fixture
def small_kiosk(tmp_path: Path) -> Iterator[tuple[Flask, str]]:
    """A kiosk for 4 live pages and 2 threads for the rest, heartbeats far apart."""
    app = make_app(tmp_path, SSE_HEARTBEAT_S=60.0)
    for url in serve(app, streams=4, threads=2):
        yield app, url


def open_stream(url: str) -> tuple[socket.socket, bytes]:
    """A page's stream opened by hand; the socket and what came before the first event."""
    port = int(url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET /events?topics=camera HTTP/1.1\r\nHost: kiosk\r\n\r\n")
    head = b""
    while not (b"retry:" in head or (b" 200 " not in head[:13] and head.partition(b"\r\n\r\n")[2].endswith(b"\n"))):
        data = sock.recv(4096)  # up to the stream's first line, or the whole refusal
        if not data:
            break
        head += data
    return sock, head


def test_every_stream_gets_every_change_and_the_extra_ones_are_refused(small_kiosk: tuple[Flask, Any]) -> None:
    app, url = small_kiosk
    result = loadtest.run(url, PIN, streams=6, changes=6, pause_s=0.0)
    assert (result.opened, result.refused, result.failed, result.missed) == (4, 2, [], 0)
    assert len(result.change_ms) == len(result.reload_ms) == 6
    wait_until(lambda: app.extensions["cacho.bus"].streams == 0)


def test_the_controls_answer_while_every_stream_is_open(small_kiosk: tuple[Flask, Any]) -> None:
    app, url = small_kiosk
    pages = [open_stream(url)[0] for _ in range(4)]
    wait_until(lambda: app.extensions["cacho.bus"].streams == 4)
    extra, head = open_stream(url)
    assert head.startswith(b"HTTP/1.1 503") and b"Retry-After: 15" in head
    assert "ya sirve 4 páginas en vivo" in head.decode()
    coordinator = loadtest.Coordinator(url, timeout_s=10)
    coordinator.sign_in(PIN)
    assert coordinator.request("GET", "/")[0] == 200
    coordinator.close()
    for sock in [*pages, extra]:
        sock.close()


def test_a_closed_page_frees_its_stream_before_any_heartbeat(small_kiosk: tuple[Flask, Any]) -> None:
    app, url = small_kiosk
    sock, head = open_stream(url)
    assert head.startswith(b"HTTP/1.1 200")
    wait_until(lambda: app.extensions["cacho.bus"].streams == 1)
    sock.close()
    wait_until(lambda: app.extensions["cacho.bus"].streams == 0, timeout=10)  # the heartbeat is 60 s away


def test_past_the_cap_the_refusal_is_spanish_and_english(tmp_path: Path) -> None:
    app = make_app(tmp_path, SSE_MAX_STREAMS=0)
    client = app.test_client()
    response = client.get("/events")
    assert response.status_code == 503 and response.headers["Retry-After"] == "15"
    assert response.get_data(as_text=True).startswith("El kiosco ya sirve 0 páginas en vivo")
    english = client.get("/events?lang=en").get_data(as_text=True)
    assert english.startswith("The kiosk already serves 0 live pages")
    app.extensions["cacho.camera"].close()


def test_the_bus_caps_pages_but_not_its_own_subscribers() -> None:
    bus = Bus()
    first = bus.open_stream(1)
    with pytest.raises(StreamsFull) as full:
        bus.open_stream(1)
    assert full.value.args == (1,) and bus.streams == 1  # full at the limit asked for
    bus.subscribe()  # the kiosk's own listeners (a championship link) are not pages
    assert (bus.streams, bus.subscribers) == (1, 2)
    bus.unsubscribe(first)
    bus.unsubscribe(first)
    assert bus.streams == 0
    bus.open_stream(1)


def test_a_stream_ends_when_its_page_is_gone() -> None:
    bus = Bus()
    closed = threading.Event()
    stream = bus.stream(inbox=bus.open_stream(5), heartbeat_s=60, gone=closed.is_set, check_s=0.01)
    assert next(stream).startswith("retry:")
    bus.publish("camera", {"n": 1})
    assert next(stream).startswith("event: camera")
    closed.set()
    assert list(stream) == []
    assert bus.streams == 0


def test_a_full_kiosk_gives_a_closed_pages_place_to_a_new_one() -> None:
    bus = Bus()
    closed = threading.Event()
    old = bus.open_stream(1, closed.is_set)
    with pytest.raises(StreamsFull) as full:
        bus.open_stream(1)
    assert full.value.args == (1,) and bus.streams == 1
    closed.set()  # before its stream looked again
    bus.open_stream(1)
    assert old.get_nowait() is None  # its stream ends
    assert bus.streams == 1
