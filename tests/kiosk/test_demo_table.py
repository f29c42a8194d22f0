"""The bundled demo: the demo table, its rendered photos, and the demo camera playing them to the kiosk."""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np

from kiosk.demo.camera import PHOTOS, DemoCamera
from kiosk.demo.make_photos import SHOWINGS
from kiosk.demo.table import DEMO_OPENER, DEMO_PLAYERS, seat_demo
from kiosk.store import Store
from tests.kiosk.conftest import become_coordinator, make_app
from tests.kiosk.fakes import wait_until
from vision.evaluate import MATCH_IOU
from vision.pipeline import build_reader
from vision.seats import TiltedReader
from vision.still import StillSettings
from vision.types import Box, DieReading, Frame, FrameReading


def test_the_photos_show_the_dice_of_each_showing() -> None:
    folders = sorted(p for p in PHOTOS.iterdir() if p.is_dir())
    assert len(folders) == len(SHOWINGS)
    for folder, (seed, seats) in zip(folders, SHOWINGS, strict=True):
        labels = json.loads((folder / "scene.json").read_text())
        assert labels["seed"] == seed
        assert {int(k): tuple(v) for k, v in labels["seats"].items()} == seats
        assert len(list(folder.glob("*.jpg"))) == 5
        assert sum(p.stat().st_size for p in folder.iterdir()) < 1_600_000


def test_the_demo_table_is_seated_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "k.sqlite3")
    table = seat_demo(store)
    assert table is not None and seat_demo(store) is None
    start = json.loads(store.lines(table)[0])
    assert start["players"] == list(DEMO_PLAYERS) and start["opener"] == DEMO_OPENER


def test_the_demo_camera_plays_a_showing_then_holds_the_still_table() -> None:
    with DemoCamera(fps=40.0) as camera:
        first = camera.capture()
        camera.cue(1)
        time.sleep(0.3)  # 5 frames at 40 fps: the showing is over; the last frame stays
        held = camera.capture()
        assert held.shape == (1080, 1920, 3) and not np.array_equal(first, held)
        assert np.array_equal(held, camera.capture())
        assert camera.preview().shape[1] < 1920
        assert camera.hfov_deg == 66.0  # the lens the showing was rendered with (scene.json), as a Pi says its own


class LabelReader:
    """Reads the demo photo's dice exactly as rendered (scene.json): the kiosk's path, minus the models."""

    def __init__(self, folder: Path) -> None:
        self.labels = json.loads((folder / "scene.json").read_text())

    def read(self, frame: Frame) -> FrameReading:
        dice = tuple(DieReading(d["face"], 0.99, Box(*d["box"]), False) for d in self.labels["dice"])
        return FrameReading(frame.shape[1], frame.shape[0], dice)


def test_a_dudo_on_the_demo_table_is_read_by_seat_markers(tmp_path: Path) -> None:
    app = make_app(
        tmp_path,
        CAMERA="demo",
        DEMO=True,
        READER_FACTORY=lambda: LabelReader(PHOTOS / "00"),
        READ_SYNC=True,
        STILL=StillSettings(still_s=0.3, timeout_s=10.0, frames=2, frame_gap_s=0.0),
    )
    try:
        wait_until(lambda: app.extensions["cacho.camera"].can_read, timeout=20)
        c = become_coordinator(app.test_client())
        table = 1
        assert c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Caro", "quantity": 4, "face": 6}).status_code
        state = c.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Dani"}).json
        reading = state["reading"]
        assert reading["state"] == "ready", reading
        seats = dict(SHOWINGS[0][1])
        for seat, name in enumerate(DEMO_PLAYERS, start=1):
            assert sorted(d["face"] for d in reading["players"][name]) == sorted(seats[seat]), name
        # read from the nadir the seat markers give, fitted with the lens the camera says (the demo's: 66 degrees)
        tilt = reading["capture"]["tilt"]
        assert tilt["hfov_deg"] == 66.0 and tilt["markers"] == 4 and 3.5 < tilt["tilt_deg"] < 6
        plan = reading["proposal"]
        assert plan["ok"], plan
        # 6s: 2 + 1 + 0 + 2 = 5 sextas, and no aces (the opening): Caro's "cuatro sextas" stands, Dani loses.
        assert plan["ruling"]["count"]["total"] == 5 and plan["ruling"]["changes"] == {"Dani": -2}
        state = c.post(f"/dudo/{table}/confirm", {}).json
        assert state["last_ruling"]["photo"].endswith(".jpg")
    finally:
        app.extensions["cacho.camera"].close()


def test_the_shipped_reader_reads_no_seat_marker_as_a_die() -> None:
    """The demo table's stills through the kiosk's reader (the shipped models, at the nadir its markers give): every
    die read is a die of the scene; the finder's boxes on the markers are not read."""
    reader = build_reader()
    for folder in sorted(p for p in PHOTOS.iterdir() if p.is_dir()):
        labels = [Box(*d["box"]) for d in json.loads((folder / "scene.json").read_text())["dice"]]
        still = cv2.imread(str(sorted(folder.glob("*.jpg"))[-1]))
        reading = TiltedReader(reader, hfov_deg=66.0).read(still)
        extras = [d.box for d in reading.dice if not any(d.box.iou(t) >= MATCH_IOU for t in labels)]
        assert not extras, (folder.name, extras)
        assert len(reading.dice) >= len(labels) - 1


class RollReader:
    """Reads the Bolivian demo roll the frame is (its labels in fotos.json), and nothing on any other frame."""

    def __init__(self) -> None:
        from kiosk.bolivia.demo import photos

        self.rolls = [(cv2.imread(p["path"]), p["dice"]) for p in photos()]

    def read(self, frame: Frame) -> FrameReading:
        for image, labels in self.rolls:
            if image.shape == frame.shape and np.array_equal(image, frame):
                dice = tuple(DieReading(d["face"], 0.99, Box(*d["box"]), False) for d in labels)
                return FrameReading(frame.shape[1], frame.shape[0], dice)
        return FrameReading(frame.shape[1], frame.shape[0], ())


def test_the_bolivian_game_on_the_demo_camera_reads_a_bolivian_roll(tmp_path: Path) -> None:
    from kiosk.bolivia.demo import photos
    from tests.bolivia.kiosk_play import new_game, state

    rolls = [[d["face"] for d in p["dice"]] for p in photos()]  # left to right
    app = make_app(
        tmp_path,
        CAMERA="demo",
        DEMO=True,
        READER_FACTORY=RollReader,
        READ_SYNC=True,
        STILL=StillSettings(still_s=0.0, timeout_s=10.0, frames=1, frame_gap_s=0.0),
    )
    try:
        wait_until(lambda: app.extensions["cacho.camera"].can_read, timeout=20)
        c = become_coordinator(app.test_client())
        gid = new_game(c)
        assert c.post(f"/bolivia/{gid}/read").status_code == 202
        reading = state(c, gid)["reading"]
        assert reading["state"] == "ready" and reading["size"] == [640, 360]  # the tray, not the Dudo table
        assert [d["face"] for d in reading["dice"]] == rolls[0] == [1, 1, 1, 2, 3]  # the demo game's first roll
        assert reading["proposal"]["blockers"] == []
        assert c.post(f"/bolivia/{gid}/confirm").status_code == 200
        c.post(f"/bolivia/{gid}/action", {"event": "declare", "player": "Ana", "category": "poker"})
        assert c.post(f"/bolivia/{gid}/read").status_code == 202
        assert [d["face"] for d in state(c, gid)["reading"]["dice"]] == rolls[1]  # the next roll
    finally:
        app.extensions["cacho.camera"].close()
