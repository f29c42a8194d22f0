"""End-to-end fixtures: the real `cacho kiosk` served on a free port, and Debian's chromium driven by Playwright.

Never a downloaded browser: Playwright launches /usr/bin/chromium (apt: chromium). CACHO_CHROMIUM overrides.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CACHO_CHROMIUM", "/usr/bin/chromium")
# The README's screenshots are refreshed only on request (CACHO_SCREENSHOTS=1): a test run leaves the tree clean.
SHOTS = (
    ROOT / "docs" / "screenshots"
    if os.environ.get("CACHO_SCREENSHOTS")
    else Path(tempfile.gettempdir()) / "cacho-screenshots"
)
SESSION_START = time.time()


def compact_png(path: Path) -> None:
    """Rewrite a screenshot with 256 colours: about half the bytes, and the checkout travels to the GPU machine."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, "PNG", optimize=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With CACHO_SCREENSHOTS=1, the screenshots taken in this run are compacted before they are committed."""
    if os.environ.get("CACHO_SCREENSHOTS"):
        for path in SHOTS.glob("*.png"):
            if path.stat().st_mtime >= SESSION_START:
                compact_png(path)


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    """A free TCP port on localhost."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """A running `cacho kiosk`: its process, address and database."""

    process: subprocess.Popen[str]
    url: str
    db: Path
    log: Path

    def stop(self, kill: bool = False) -> None:
        """Stop it (kill -9 with `kill`)."""
        if self.process.poll() is None:
            if kill:
                self.process.kill()
            else:
                self.process.terminate()
            self.process.wait(timeout=20)


def start_server(db: Path, camera: str, log: Path, wait_s: float = 60.0, **env: str) -> Server:
    """Start `cacho kiosk` and wait until it answers."""
    port = free_port()
    command = [sys.executable, "-m", "kiosk.cli", "kiosk", "--camera", camera, "--db", str(db), "--port", str(port)]
    with open(log, "a") as handle:  # the server's output, read when a test fails; the child keeps its own copy
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, text=True, env={**os.environ, **env}
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"el kiosco terminó al arrancar: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/camera/health", timeout=2):
                return Server(process, url, db, log)
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"el kiosco no respondió en {wait_s} s: {log.read_text()[-2000:]}")


@contextmanager
def serving(tmp_path: Path, camera: str) -> Iterator[Server]:
    """`cacho kiosk` on a fresh database in tmp_path (its log beside it), stopped at the end."""
    server = start_server(tmp_path / "kiosk.sqlite3", camera, tmp_path / "kiosk.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium under Playwright (headless)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"falta {CHROMIUM}: instale chromium de Debian (apt-get install chromium); test.sh lo hace")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page at the kiosk's 7-inch size (800x480)."""
    context = browser.new_context(viewport={"width": 800, "height": 480}, locale="es-CL")
    page = context.new_page()
    yield page
    # a route still answering a request when the page closes (drawn_reading) must not fail the next test's setup
    page.unroute_all(behavior="ignoreErrors")
    context.close()


def set_pin(page: Any, url: str, pin: str, screenshot: str | None = None) -> None:
    """First start: choose the coordinator's PIN on /setup (a screenshot of the filled form when named)."""
    page.goto(url + "/setup")
    page.fill('input[name="pin"]', pin)
    page.fill('input[name="pin2"]', pin)
    if screenshot is not None:
        shot(page, screenshot)
    page.click("form button.primary")
    page.wait_for_url(url + "/")


def state_of(page: Any, base: str) -> dict[str, Any]:
    """The coordinator's state.json (BASE: the table's page), fetched with the page's own session."""
    response = page.request.get(base + "/state.json")
    assert response.ok, response.text()
    return dict(response.json())


def drawn_reading(page: Any, reading: dict[str, Any]) -> None:
    """Reload the page as it draws `reading` from the camera: every state.json it fetches carries it (what the server
    makes of a reading has its own tests)."""

    def with_reading(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json=response.json() | {"reading": reading})

    page.route(re.compile(r".*/state\.json$"), with_reading)
    page.reload()


def iou(a: list[float], b: list[float]) -> float:
    """Intersection over union of two [x1, y1, x2, y2] boxes."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def shot(page: Any, name: str) -> Path:
    """Save a screenshot (docs/screenshots/NAME.png with CACHO_SCREENSHOTS=1, else in the temp folder)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def tap(page: Any, selector: str, path: str = "/action", *, must_be_ok: bool = False) -> dict[str, Any]:
    """Tap a button that posts to `path` and wait for the kiosk's answer; the answer (`must_be_ok`: asserting it
    succeeded)."""
    with page.expect_response(lambda r: r.url.endswith(path) and r.request.method == "POST") as answer:
        page.click(selector)
    if must_be_ok:
        assert answer.value.ok, answer.value.text()
    return dict(answer.value.json())
