"""Pull the plug while rolls are confirmed: a kiosk reading a fake camera is killed (SIGKILL) again and again in the
middle of a confirmation, and the labelled dice it keeps (kiosk.learned) must match its log exactly.

After each restart on the same data folder: every roll read by the camera that the log holds has its sample, whole
(its image decodes, its label has the five dice), no sample is left of a confirmation the log does not hold, no half
file remains, and the only kept frame is the one the reading awaiting confirmation names.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import closing
from pathlib import Path
from typing import Any

import cv2

from kiosk import learned
from tests.e2e.conftest import ROOT, free_port
from tests.e2e.test_crash_recovery import Client, Lost

KILLS = 10

SERVER = """
import sys
import numpy as np
from waitress import serve
from kiosk.app import create_app
from tests.kiosk.fakes import FakeCamera, FakeReader
from vision.still import StillSettings
from vision.types import Box, DieReading

reader = FakeReader()
faces = zip((6, 1, 6, 6, 2), range(100, 700, 120))
reader.dice = [DieReading(f, 0.95, Box(x, 200, x + 40, 240), False) for f, x in faces]
felt = np.full((450, 800, 3), (40, 110, 40), np.uint8)
still = StillSettings(still_s=0.0, poll_s=0.0, frames=1, frame_gap_s=0.0, timeout_s=2.0)
app = create_app({"DATABASE": sys.argv[1], "CAMERA": "fake", "CAMERA_FACTORY": lambda spec: FakeCamera(felt),
                  "READER_FACTORY": lambda: reader, "READ_SYNC": True, "STILL": still})
serve(app, host="127.0.0.1", port=int(sys.argv[2]), threads=8)
"""


def start(db: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    """The kiosk in a child process, once its reader is ready."""
    port = free_port()
    with open(log, "a") as handle:
        process = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(db), str(port)],
            cwd=ROOT,
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-2000:]
        try:
            with urllib.request.urlopen(url + "/camera/health", timeout=2) as answer:
                if json.loads(answer.read())["reader"] == "ready":
                    return process, url
        except OSError:
            pass
        time.sleep(0.2)
    process.kill()
    raise AssertionError(f"el kiosco no respondió: {log.read_text()[-2000:]}")


def check(db: Path, root: Path) -> int:
    """The samples match the camera rolls of the log, whole; no half file; the kept frames are the pending ones.
    How many samples there are."""
    rolls, waiting = set(), set()
    with closing(sqlite3.connect(db)) as conn:
        for table_id, line in conn.execute("SELECT table_id, line FROM events"):
            event = json.loads(line)
            if event["event"] == "roll" and event.get("source") == "camera":
                rolls.add(f"{table_id}-{Path(event['photo']).stem}")
        for (data,) in conn.execute("SELECT data FROM pending"):
            name = learned.frame_name(json.loads(data))
            if name is not None:
                waiting.add(name)
    images = {p.stem for p in (root / "images").iterdir()} if (root / "images").is_dir() else set()
    labels = {p.stem for p in (root / "labels").iterdir()} if (root / "labels").is_dir() else set()
    assert images == labels
    assert {name.rsplit("-", 1)[0] for name in images} == rolls
    assert len(images) == len(rolls)  # one sample per confirmation
    for name in images:
        assert cv2.imread(str(root / "images" / f"{name}.jpg")) is not None
        assert len((root / "labels" / f"{name}.txt").read_text().split("\n")[:-1]) == 5
    kept = {p.name for p in (root / learned.PENDING).iterdir()} if (root / learned.PENDING).is_dir() else set()
    assert kept <= waiting
    return len(images)


def test_a_kill_9_during_a_confirmation_never_leaves_a_sample_without_its_roll_or_a_roll_without_it(
    tmp_path: Path,
) -> None:
    db, log, root = tmp_path / "kiosk.sqlite3", tmp_path / "kiosk.log", tmp_path / learned.FOLDER
    rng = random.Random(38)
    process, url = start(db, log)
    client = Client()
    client.base = url
    client.set_pin()
    status, where = client.form("/bolivia/new", {"players": "Ana\nBeto"})
    assert status == 200, where
    base = "/bolivia/" + where.rsplit("/", 1)[1]
    acked = 0
    for kill in range(KILLS):
        for _ in range(3):  # a few whole confirmations, each undone so that the next roll is a first one again
            seq = client.get_json(base + "/state.json")["seq"]
            assert client.post(base + "/read", {})[0] == 202
            status, _ = client.post(base + "/confirm", {"seq": seq})
            assert status == 200
            acked += 1
            client.post(base + "/undo", {"seq": seq + 1})
        seq = client.get_json(base + "/state.json")["seq"]
        assert client.post(base + "/read", {})[0] == 202
        outcome: list[Any] = []

        def confirm(seq: int = seq, outcome: list[Any] = outcome) -> None:
            try:
                outcome.append(client.post(base + "/confirm", {"seq": seq})[0])
            except Lost:
                outcome.append("lost")

        thread = threading.Thread(target=confirm, name=f"confirmar-{kill}")
        thread.start()
        time.sleep(rng.uniform(0.0, 0.03))
        process.kill()
        process.wait(timeout=20)
        thread.join(timeout=20)
        process, url = start(db, log)
        client.base = url
        assert check(db, root) >= acked
        state = client.get_json(base + "/state.json")
        if state["seq"] > seq:  # the confirmation reached the log: undo it, as the others
            client.post(base + "/undo", {"seq": state["seq"]})
    process.kill()
    process.wait(timeout=20)
