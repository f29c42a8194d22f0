"""Flask test fixtures: an app on a temporary database, its client, and a coordinator who knows the PIN."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kiosk.app import create_app
from tests.kiosk.fakes import FakeCamera, FakeReader, wait_until
from vision.still import StillSettings

PIN = "2468"
CHANGE = re.compile(r"^(/(?:dudo|bolivia)/\d+)/(?:action|undo|confirm)$")  # the posts that must carry `seq`


def make_app(tmp_path: Path, **config: Any) -> Flask:
    """An app on a fresh database in tmp_path, no camera unless given."""
    base: dict[str, Any] = {
        "TESTING": True,
        "DATABASE": str(tmp_path / "kiosk.sqlite3"),
        "CAMERA": None,
        "SSE_HEARTBEAT_S": 0.2,
        "LEARN_EVERY": None,  # no adaptation starts by itself unless a test asks for it
    }
    base.update(config)
    return create_app(base)


@contextmanager
def fake_camera_app(tmp_path: Path, camera: FakeCamera, reader: FakeReader, still: StillSettings) -> Iterator[Flask]:
    """An app reading the fake camera with the fake reader (reads run synchronously), once the reader is ready."""
    application = make_app(
        tmp_path,
        CAMERA="fake",
        CAMERA_FACTORY=lambda spec: camera,
        READER_FACTORY=lambda: reader,
        READ_SYNC=True,
        STILL=still,
    )
    try:
        wait_until(lambda: application.extensions["cacho.camera"].can_read)
        yield application
    finally:
        application.extensions["cacho.camera"].close()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    """The kiosk on a temporary database, with no camera (dice by hand)."""
    application = make_app(tmp_path)
    yield application
    application.extensions["cacho.camera"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A browser with no PIN entered."""
    return app.test_client()


def csrf_of(html: str) -> str:
    """The CSRF token a page carries."""
    found = re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert found, "the page has no CSRF token"
    return found.group(1)


@dataclass
class Coordinator:
    """A browser where the coordinator entered the PIN: JSON posts carry the CSRF token."""

    client: FlaskClient
    token: str

    def post(self, url: str, body: dict[str, Any] | None = None) -> Any:
        """POST JSON with the token; a change to the log carries the event number on screen, as the pages send it."""
        body = dict(body or {})
        change = CHANGE.match(url)
        if change is not None and "seq" not in body:
            shown = self.client.get(f"{change.group(1)}/state.json")
            if shown.status_code == 200:
                body["seq"] = shown.get_json()["seq"]
        return self.client.post(url, json=body, headers={"X-CSRF-Token": self.token})

    def form(self, url: str, data: dict[str, Any]) -> Any:
        """POST a form with the token."""
        return self.client.post(url, data={**data, "csrf_token": self.token})

    def get(self, url: str) -> Any:
        """GET."""
        return self.client.get(url)

    def new_table(self, players: str = "Ana\nBeto\nCaro", opener: str = "Ana", **extra: Any) -> int:
        """Seat a Dudo table; its id."""
        response = self.form("/dudo/new", {"players": players, "opener": opener, **extra})
        assert response.status_code == 302, response.text
        return int(response.headers["Location"].rsplit("/", 1)[1])


def become_coordinator(client: FlaskClient, pin: str = PIN) -> Coordinator:
    """Set the PIN at first start (or enter it) and return the coordinator's browser."""
    token = csrf_of(client.get("/login", follow_redirects=True).text)
    response = client.post("/setup", data={"pin": pin, "pin2": pin, "csrf_token": token})
    if response.status_code == 302 and response.headers["Location"].endswith("/login"):
        client.post("/login", data={"pin": pin, "csrf_token": token})
    return Coordinator(client, token)


@pytest.fixture
def coordinator(client: FlaskClient) -> Coordinator:
    """The coordinator's browser (PIN set and entered)."""
    return become_coordinator(client)
