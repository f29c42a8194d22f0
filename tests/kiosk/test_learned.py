"""Confirmed readings become labelled dice (kiosk.learned): written with the coordinator's faces, taken back when
refused, swept after a crash, never half written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask import Flask

from kiosk import learned
from kiosk.store import Store
from tests.bolivia.kiosk_play import new_game
from tests.kiosk.conftest import Coordinator, become_coordinator, fake_camera_app
from tests.kiosk.fakes import FakeCamera, FakeReader, write_zones
from tests.kiosk.test_bolivia_camera import FAST, blank, row
from vision.faces.crops import CHECKED
from vision.still import StillSettings
from vision.types import Box, DieReading

ROOT = Path(__file__).resolve().parents[2]


def labels_of(root: Path) -> list[list[str]]:
    """Every label line of the folder, split, sample by sample in name order."""
    return [path.read_text().split("\n")[:-1] for path in sorted((root / "labels").glob("*.txt"))]


def pending(root: Path) -> list[str]:
    """The kept frames awaiting confirmation."""
    where = root / learned.PENDING
    return sorted(p.name for p in where.iterdir()) if where.is_dir() else []


@pytest.fixture
def dudo(tmp_path: Path) -> Iterator[tuple[Flask, FakeReader]]:
    """A Dudo kiosk with a fake camera over three seat zones and a fake reader."""
    reader = FakeReader()
    write_zones(tmp_path / "mesa.json")
    still = StillSettings(still_s=0.0, timeout_s=3.0, poll_s=0.0, frames=2, frame_gap_s=0.0)
    with fake_camera_app(tmp_path, FakeCamera(), reader, still) as app:
        yield app, reader


def challenged(c: Coordinator) -> int:
    """A Dudo table where Beto doubts Ana's bid: the cups are lifted."""
    table = c.new_table()
    c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 3, "face": 4})
    c.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"})
    return table


def test_a_confirmed_dudo_reading_becomes_a_sample_with_the_corrected_faces(
    dudo: tuple[Flask, FakeReader],
) -> None:
    app, reader = dudo
    root = Path(app.config["LEARNED"])
    assert root == Path(app.config["DATABASE"]).parent / "dados-aprendidos"
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]}, uncertain=[(3, 4)])
    c.post(f"/dudo/{table}/read")
    assert len(pending(root)) == 1 and not (root / "labels").exists()
    reading = c.get(f"/dudo/{table}/state.json").json["reading"]
    first = reading["players"]["Ana"][0]
    doubtful = next(d for d in reading["players"]["Caro"] if d["uncertain"])
    c.post(f"/dudo/{table}/die", {"player": "Ana", "die": first["id"], "face": 5})  # the camera read 4
    c.post(f"/dudo/{table}/die", {"player": "Caro", "die": doubtful["id"], "face": 4})
    assert c.post(f"/dudo/{table}/confirm", {"seq": 3}).status_code == 200
    assert pending(root) == []
    [lines] = labels_of(root)
    faces = sorted(int(line.split()[0]) + 1 for line in lines)
    assert faces == sorted([5, 4, 1, 2, 3, 6, 6, 6, 5, 5, 2, 2, 3, 4, 4])
    image = cv2.imread(str(next((root / "images").glob("*.jpg"))))
    h, w = image.shape[:2]
    # Ana's first die (x 30-66, y 100-136 on the 900 x 300 frame) carries the face the coordinator set.
    ana = [line.split() for line in lines if line.startswith("4 ")]
    centres = [(float(p[1]) * w, float(p[2]) * h) for p in ana]
    offset_x, offset_y = (900 - w) / 2, (300 - h) / 2  # the sample is centred on the frame's centre
    assert any(abs(x + offset_x - 48) < 2 and abs(y + offset_y - 118) < 2 for x, y in centres)
    assert learned.counts(root) == {1: 1, 2: 3, 3: 2, 4: 3, 5: 3, 6: 3}
    # the two dice the coordinator set are marked checked; the thirteen left as read are the reader's own answer
    [label] = (root / "labels").glob("*.txt")
    flags = (root / CHECKED / label.name).read_text().split()
    assert len(flags) == len(lines) and flags.count("1") == 2
    assert sorted(int(line.split()[0]) + 1 for line, f in zip(lines, flags, strict=True) if f == "1") == [4, 5]


def test_a_refused_confirmation_keeps_no_sample_and_a_new_reading_drops_the_old_frame(
    dudo: tuple[Flask, FakeReader],
) -> None:
    app, reader = dudo
    root = Path(app.config["LEARNED"])
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]})
    c.post(f"/dudo/{table}/read")
    before = pending(root)
    c.post(f"/dudo/{table}/read")
    after = pending(root)
    assert len(after) == 1 and after != before
    assert c.post(f"/dudo/{table}/confirm", {"seq": 2}).status_code == 409  # a stale page
    assert learned.counts(root) == dict.fromkeys(range(1, 7), 0) and not list((root / "images").glob("*"))
    assert pending(root) == after
    c.post(f"/dudo/{table}/manual")  # dice by hand replace the camera's reading: its frame goes
    assert pending(root) == []


def test_a_bolivian_roll_and_a_die_put_by_a_tap_are_learned(tmp_path: Path) -> None:
    reader = FakeReader()
    with fake_camera_app(tmp_path, FakeCamera(blank()), reader, FAST) as app:
        root = Path(app.config["LEARNED"])
        co = become_coordinator(app.test_client())
        gid = new_game(co)
        reader.dice = row([6, 1, 6, 6])
        co.post(f"/bolivia/{gid}/read")
        co.post(f"/bolivia/{gid}/die", {"face": 3, "at": [620, 220]})  # the camera missed the fifth die
        assert co.post(f"/bolivia/{gid}/confirm", {"seq": 1}).status_code == 200
    [lines] = labels_of(root)
    assert sorted(int(line.split()[0]) + 1 for line in lines) == [1, 3, 6, 6, 6]
    assert pending(root) == []


def test_dice_the_reader_boxed_but_nobody_confirmed_are_painted_over(tmp_path: Path) -> None:
    root = tmp_path / "dados"
    frame = blank()
    frame[200:240, 300:340] = 255  # a die read, not confirmed (a stray die, or one carried from elsewhere)
    frame[200:240, 100:140] = 250
    found = [DieReading(2, 0.9, Box(100, 200, 140, 240), False), DieReading(5, 0.9, Box(300, 200, 340, 240), False)]
    data = {"state": "ready", "photo": "1/0003-1.jpg", "dice": [{"face": 2, "read": 2, "box": [100, 200, 140, 240]}]}
    learned.keep_frame(root, "1", data, frame, type("R", (), {"dice": found})())
    sample = learned.write_sample(root, data)
    assert sample is not None and sample.startswith("1-0003-1-")
    image = cv2.imread(str(root / "images" / f"{sample}.jpg"))
    assert image.max(axis=2).max() > 200  # the confirmed die is there
    assert np.abs(image.astype(int) - (40, 110, 40)).max(axis=2).mean() < 60  # mostly felt
    [[line]] = labels_of(root)
    assert line.startswith("1 ")
    # around the frame's centre (400, 225), as far as the confirmed die and one die side more: x 60-740, y 160-290
    assert image.shape[:2] == (130, 680)
    assert image[40:80, 240:280].max() < 200  # the unconfirmed die (x 300-340, y 200-240) is felt now
    assert image[40:80, 40:80].min() > 200


def test_the_start_up_sweep_removes_what_a_crash_left(tmp_path: Path) -> None:
    store = Store(tmp_path / "k.sqlite3")
    table = store.create_table("dudo", "Mesa", ['{"event": "start", "players": ["Ana", "Beto"]}'])
    root = tmp_path / "dados"
    frame = blank()
    found = [DieReading(2, 0.9, Box(100, 200, 140, 240), False)]
    dice = [{"face": 2, "read": 2, "box": [100, 200, 140, 240]}]
    waiting = {"state": "ready", "photo": f"{table}/0001-1.jpg", "dice": dice}
    learned.keep_frame(root, str(table), waiting, frame, type("R", (), {"dice": found})())
    store.set_pending(table, 1, waiting)
    unconfirmed = learned.write_sample(root, waiting)  # the kiosk stopped before the confirmation was stored
    done = {**waiting, "photo": f"{table}/0000-1.jpg"}
    learned.keep_frame(root, str(table), done, frame, type("R", (), {"dice": found})())
    confirmed = learned.write_sample(root, done)  # stored; the kiosk stopped before dropping its frame
    (root / "images" / "x.jpg.tmp").write_bytes(b"half")
    (root / "labels" / "orphan.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    (root / CHECKED / "orphan.txt").write_text("0\n")
    learned.sweep(root, store)
    assert pending(root) == [learned.frame_name(waiting)]
    assert sorted(p.stem for p in (root / "images").iterdir()) == [confirmed]
    assert sorted(p.stem for p in (root / "labels").iterdir()) == [confirmed]
    assert sorted(p.stem for p in (root / CHECKED).iterdir()) == [confirmed]
    assert unconfirmed is not None


WRITER = """
import sys, numpy as np
from pathlib import Path
from kiosk import learned
from vision.types import Box, DieReading
root = Path(sys.argv[1])
rng = np.random.default_rng(0)
frame = rng.integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
found = [DieReading(1 + k % 6, 0.9, Box(100 + 150 * k, 300, 180 + 150 * k, 380), False) for k in range(10)]
reader = type("R", (), {"dice": found})()
n = 0
while True:
    dice = [{"face": d.face, "read": d.face, "box": list(d.box.to_list())} for d in found]
    data = {"state": "ready", "photo": f"1/{n:04d}-1.jpg", "dice": dice}
    learned.keep_frame(root, "1", data, frame, reader)
    name = learned.write_sample(root, data)
    learned.forget(root, data)
    print(name, flush=True)
    n += 1
"""


def test_kill_9_loses_no_written_sample_and_leaves_no_half_file(tmp_path: Path) -> None:
    """A writer killed (SIGKILL) again and again: every sample it reported is whole, nothing is half written."""
    root = tmp_path / "dados"
    reported: list[str] = []
    for kill in range(6):
        process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root)], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        assert process.stdout is not None
        first = process.stdout.readline().strip()  # it writes at least one, then dies at a random moment
        reported.append(first)
        time.sleep(0.05 + 0.13 * kill)
        os.kill(process.pid, signal.SIGKILL)
        rest, _ = process.communicate()
        reported += [line for line in rest.split("\n") if line]
    store = Store(tmp_path / "k.sqlite3")
    learned.sweep(root, store)
    images = {p.stem for p in (root / "images").iterdir()}
    labels = {p.stem for p in (root / "labels").iterdir()}
    assert images == labels and set(reported) <= images and len(reported) >= 6
    for name in images:
        image = cv2.imread(str(root / "images" / f"{name}.jpg"))
        assert image is not None and image.shape[0] > 0
        lines = (root / "labels" / f"{name}.txt").read_text().split("\n")[:-1]
        assert len(lines) == 10 and all(len(line.split()) == 5 for line in lines)
    assert not any(p.suffix == ".tmp" for sub in root.iterdir() for p in sub.iterdir())
    assert json.dumps(learned.counts(root))


def test_a_sample_keeps_the_felt_about_each_die_and_flattens_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "dados"
    frame = np.random.default_rng(0).integers(0, 255, (450, 800, 3), dtype=np.uint8)  # textured felt
    frame[200:240, 100:140] = 250
    found = [DieReading(2, 0.9, Box(100, 200, 140, 240), False)]
    data = {"state": "ready", "photo": "1/0004-1.jpg", "dice": [{"face": 2, "read": 2, "box": [100, 200, 140, 240]}]}
    learned.keep_frame(root, "1", data, frame, type("R", (), {"dice": found})())
    sample = learned.write_sample(root, data)
    image = cv2.imread(str(root / "images" / f"{sample}.jpg")).astype(int)
    # the sample spans x 60-740 (about the centre, out to the die and a side more); the die is at x 40-80 of it
    assert image[:, 10:30].std() > 40  # the felt within a die side of the die is the photo's
    assert image[:, 200:600].std() < 3  # far from every die: one flat colour


def test_what_goes_with_a_sample_is_written_before_it_and_taken_back_with_it(tmp_path: Path) -> None:
    """A linked table sends a sample once its label and image are there: its evidence must already be."""
    seen: list[tuple[str, bool]] = []

    def before(name: str) -> None:
        seen.append((name, (tmp_path / "labels" / f"{name}.txt").exists()))
        (tmp_path / learned.EVIDENCE).mkdir(exist_ok=True)
        (tmp_path / learned.EVIDENCE / f"{name}.json").write_text("{}")

    image = np.full((40, 40, 3), 90, np.uint8)
    boxes = [(1, [5, 5, 15, 15]), (3, [20, 20, 30, 30])]
    sample = learned.write_labelled(tmp_path, "f.jpg", image, boxes, before, [True, False])
    assert seen == [(sample, False)]  # called with the sample's name, before its label
    assert (tmp_path / "labels" / f"{sample}.txt").is_file() and (tmp_path / "images" / f"{sample}.jpg").is_file()
    assert (tmp_path / CHECKED / f"{sample}.txt").read_text() == "1\n0\n"
    learned.drop_sample(tmp_path, sample)  # its confirmation refused: all of it goes
    subs = ("labels", "images", learned.EVIDENCE, CHECKED)
    assert [p.name for sub in subs for p in (tmp_path / sub).iterdir()] == []
