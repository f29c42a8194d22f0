"""The reading flow the Dudo and Bolivian pages share (kiosk.game_views): the photos' names, one camera reading at a
time, and dice entered by hand one at a time with a camera reading that ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from flask import Flask

from kiosk.game_views import photo_name
from kiosk.tables import table_lock
from tests.bolivia.kiosk_play import new_game
from tests.kiosk.conftest import Coordinator, become_coordinator, fake_camera_app
from tests.kiosk.fakes import FakeCamera, FakeReader
from vision.still import StillSettings

FAST = StillSettings(still_s=0.0, poll_s=0.0, frames=1, frame_gap_s=0.0, timeout_s=2.0)


def test_a_photo_is_named_by_the_event_and_the_millisecond() -> None:
    assert photo_name(7, 1_700_000_000.1234) == "0007-1700000000123.jpg"
    assert photo_name(7, 1_700_000_000.1) != photo_name(7, 1_700_000_000.6)  # two readings in one second


def challenged_table(co: Coordinator) -> int:
    """A Dudo table whose cups wait to be lifted."""
    table = co.new_table()
    co.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5})
    co.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"})
    return table


def table_of(co: Coordinator, game: str) -> int:
    """A table of `game` where the dice may be read or entered by hand."""
    return challenged_table(co) if game == "dudo" else new_game(co)


@pytest.mark.parametrize("game", ["dudo", "bolivia"])
def test_dice_by_hand_wait_for_the_table_lock(coordinator: Coordinator, game: str) -> None:
    table = table_of(coordinator, game)
    answered = threading.Event()

    def by_hand() -> None:
        assert coordinator.post(f"/{game}/{table}/manual").status_code == 200
        answered.set()

    with table_lock(table):  # as a camera reading that ends holds it
        thread = threading.Thread(target=by_hand)
        thread.start()
        assert not answered.wait(0.5)
    thread.join(10)
    assert answered.is_set()
    reading = coordinator.get(f"/{game}/{table}/state.json").json["reading"]
    assert reading["source"] == "manual"


@pytest.fixture
def camera_app(tmp_path: Path) -> Iterator[Flask]:
    """The kiosk with a fake camera and reader."""
    frame = np.zeros((450, 800, 3), np.uint8)
    with fake_camera_app(tmp_path, FakeCamera(frame), FakeReader(), FAST) as app:
        yield app


@pytest.mark.parametrize("game", ["dudo", "bolivia"])
def test_a_second_reading_waits_for_the_first(camera_app: Flask, game: str) -> None:
    co = become_coordinator(camera_app.test_client())
    table = table_of(co, game)
    seq = co.get(f"/{game}/{table}/state.json").json["seq"]
    under_way = {"state": "reading", "source": "camera", "message": "esperando", "corrections": []}
    camera_app.extensions["cacho.store"].set_pending(table, seq, under_way)
    refused = co.post(f"/{game}/{table}/read")
    assert refused.status_code == 409 and "ya se está leyendo" in refused.json["error"]


@pytest.mark.parametrize("game", ["dudo", "bolivia"])
@pytest.mark.parametrize("face", [2.0, "2", True, 7])
def test_a_correction_takes_a_face_from_1_to_6(coordinator: Coordinator, game: str, face: object) -> None:
    table = table_of(coordinator, game)
    coordinator.post(f"/{game}/{table}/manual")
    reading = coordinator.get(f"/{game}/{table}/state.json").json["reading"]
    first = reading["players"]["Ana"][0] if game == "dudo" else reading["dice"][-1]
    refused = coordinator.post(f"/{game}/{table}/die", {"player": "Ana", "die": first["id"], "face": face})
    assert refused.status_code == 400 and "un dado va de 1 a 6" in refused.json["error"]
