"""The QR code on each table's sheet: printed by the organizer, read by the table's kiosk camera to join."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask import Flask

from kiosk.app import create_app
from kiosk.championship.broker import Mosquitto
from kiosk.championship.link import wait_for
from kiosk.championship.organizer import Organizer
from kiosk.championship.qr import join_text, qr_png, read_join
from kiosk.championship.views import stop_link
from tests.kiosk.conftest import become_coordinator
from tests.kiosk.fakes import FakeCamera, FakeReader


def on_felt(png: bytes) -> np.ndarray:
    """A camera frame: the sheet's QR code lying on the table's felt."""
    code = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    frame = np.full((720, 1280, 3), (40, 90, 30), np.uint8)
    frame[120 : 120 + code.shape[0], 400 : 400 + code.shape[1]] = code
    return frame


def test_the_code_reads_back() -> None:
    text = join_text("192.168.1.10:1883", "verano", 3, "mesa-3", "secreto")
    assert read_join(on_felt(qr_png(text))) == json.loads(text)
    for port in range(41000, 41040):  # codes the classic OpenCV detector misses too often
        text = join_text(f"127.0.0.1:{port}", "verano", 5, None, None)
        assert read_join(on_felt(qr_png(text))) == json.loads(text), port
    assert read_join(np.full((480, 640, 3), 90, np.uint8)) is None
    other = cv2.QRCodeEncoder.create().encode("https://example.org")
    with pytest.raises(ValueError, match="no es el de una hoja de mesa"):
        read_join(on_felt(cv2.imencode(".png", cv2.resize(other, None, fx=6, fy=6))[1].tobytes()))


@pytest.fixture
def organizer_app(tmp_path: Path) -> Iterator[Flask]:
    class Feeds:
        def summary(self, table: int) -> None:
            return None

        def publish_ruling(self, table: int, ruling: object) -> None: ...

        def publish_seating(self, table: int, seating: object) -> None: ...

        def photo(self, table: int) -> None:
            return None

    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "o.sqlite3"),
            "CAMERA": None,
            "CHAMPIONSHIP": {
                "code": "verano",
                "feeds": Feeds(),
                "registry": str(tmp_path / "c.sqlite3"),
                "table_broker": "192.168.1.10:1883",
                "table_passwords": {"mesa-1": "clave1"},
            },
        }
    )
    yield app
    app.extensions["cacho.camera"].close()


def test_the_sheet_carries_each_tables_code(organizer_app: Flask) -> None:
    assert organizer_app.test_client().get("/campeonato/qr/1.png").status_code == 302  # the organizer's PIN
    organizer = become_coordinator(organizer_app.test_client())
    organizer.form("/campeonato/jugadores", {"players": "Ana\nBeto\nCaro\nDani"})
    organizer.form("/campeonato/sorteo", {"seed": "1", "size": "4"})
    assert "/campeonato/qr/1.png" in organizer.get("/campeonato/hojas/1").text
    png = organizer.get("/campeonato/qr/1.png").data
    data = read_join(on_felt(png))
    assert data == {
        "qr": "campeonato-cacho",
        "broker": "192.168.1.10:1883",
        "code": "verano",
        "table": 1,
        "username": "mesa-1",
        "password": "clave1",
    }


def test_the_kiosk_scans_the_code_and_seats_the_drawn_players(tmp_path: Path, broker: Mosquitto) -> None:
    text = join_text(f"127.0.0.1:{broker.port}", "verano", 5, None, None)
    camera = FakeCamera(on_felt(qr_png(text)))
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "k.sqlite3"),
            "CAMERA": "fake",
            "CAMERA_FACTORY": lambda spec: camera,
            "READER_FACTORY": FakeReader,
        }
    )
    organizer = Organizer("127.0.0.1", broker.port, "verano").start()
    try:
        assert wait_for(lambda: app.extensions["cacho.camera"].connected and organizer.connected, 10)
        organizer.publish_seating(5, {"table": 5, "round": 1, "seed": "9", "players": ["Ana", "Beto"]})
        coordinator = become_coordinator(app.test_client())
        page = coordinator.form("/campeonato/mesa/qr", {}).text
        assert 'value="verano"' in page and "Sentar la mesa y unirse" in page and "Beto" in page
        camera.frame = np.full((720, 1280, 3), (40, 90, 30), np.uint8)
        coordinator.form("/campeonato/mesa/qr", {})
        assert "la cámara no ve ningún código QR" in coordinator.get("/campeonato/mesa").text
    finally:
        organizer.stop()
        stop_link(app)
        app.extensions["cacho.camera"].close()


def test_without_a_camera_the_kiosk_says_so(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "k.sqlite3"), "CAMERA": None})
    try:
        coordinator = become_coordinator(app.test_client())
        coordinator.form("/campeonato/mesa/qr", {})
        assert "no hay cámara para leer el código QR" in coordinator.get("/campeonato/mesa").text
    finally:
        app.extensions["cacho.camera"].close()
