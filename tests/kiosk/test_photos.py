"""The photos of readings: those the log names are kept (across a restart), those of discarded readings are not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from kiosk.photos import raw_name
from tests.bolivia.kiosk_play import new_game
from tests.kiosk.conftest import become_coordinator, fake_camera_app, make_app
from tests.kiosk.fakes import FakeCamera, FakeReader, write_zones
from tests.kiosk.test_bolivia_camera import blank, row
from tests.kiosk.test_dudo_kiosk import challenged
from vision.still import StillSettings

FAST = StillSettings(still_s=0.0, timeout_s=3.0, poll_s=0.0, frames=2, frame_gap_s=0.0)
SHOWN = {1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]}


def photos_of(app: Flask, table: int) -> set[str]:
    """The photo files kept for a table ("ID/NAME")."""
    folder = Path(app.config["PHOTOS"]) / str(table)
    return {f"{table}/{p.name}" for p in folder.iterdir()} if folder.is_dir() else set()


def named_by_log(app: Flask, table: int) -> set[str]:
    """The photos the table's stored events name."""
    lines = [json.loads(line) for line in app.extensions["cacho.store"].lines(table)]
    return {line["photo"] for line in lines if line.get("photo")}


@pytest.fixture
def dudo_app(tmp_path: Path) -> Iterator[tuple[Flask, FakeReader]]:
    """The kiosk with a fake camera over three seat zones and a fake reader."""
    reader = FakeReader()
    write_zones(tmp_path / "mesa.json")
    with fake_camera_app(tmp_path, FakeCamera(), reader, FAST) as app:
        yield app, reader


def test_re_reads_keep_only_the_ruled_photo_and_a_restart_keeps_what_the_log_names(
    tmp_path: Path, dudo_app: tuple[Flask, FakeReader]
) -> None:
    app, reader = dudo_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show(SHOWN)
    for _ in range(5):
        assert c.post(f"/dudo/{table}/read").status_code == 202
    reading = app.extensions["cacho.store"].pending(table)[1]
    # the four replaced reads left nothing behind; the photo goes with the photo as taken (the seats' crops)
    kept = {reading["photo"], raw_name(reading["photo"])}
    assert photos_of(app, table) == kept
    raw = c.get(f"/dudo/{table}/state.json").json["reading"]["photo_raw_url"]
    served = c.get(raw)
    served.close()
    assert raw.endswith(Path(raw_name(reading["photo"])).name) and served.status_code == 200
    assert c.post(f"/dudo/{table}/confirm", {"seq": 3}).status_code == 200
    # the ruling names the photo as taken with the dice as confirmed; the photo as read and as taken go
    ruled = named_by_log(app, table)
    assert ruled == {reading["photo"].replace(".jpg", "-fallo.jpg")} and photos_of(app, table) == ruled
    kept = ruled
    # the next round: a reading entered by hand in place of a camera one, then one undone by the undo
    c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Beto", "quantity": 2, "face": 3, "seq": 4})
    c.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Caro", "seq": 5})
    c.post(f"/dudo/{table}/read")
    c.post(f"/dudo/{table}/manual")
    assert photos_of(app, table) == kept
    c.post(f"/dudo/{table}/read")
    assert len(photos_of(app, table)) == 3  # the ruling's, and the new reading's as read and as taken
    c.post(f"/dudo/{table}/undo", {"seq": 6})
    assert photos_of(app, table) == kept
    # a crash between a read and its confirmation leaves an orphan: swept at start-up, the log's photos kept
    orphan = Path(app.config["PHOTOS"]) / str(table) / "0006-1.jpg"
    orphan.write_bytes(b"\xff\xd8")
    (orphan.parent / "0006-1-crudo.jpg").write_bytes(b"\xff\xd8")
    (orphan.parent / "0006-2.jpg.tmp").write_bytes(b"\xff")
    restarted = make_app(tmp_path)
    try:
        assert photos_of(restarted, table) == kept
    finally:
        restarted.extensions["cacho.camera"].close()


def test_a_reading_whose_photo_was_dropped_is_not_confirmed(dudo_app: tuple[Flask, FakeReader]) -> None:
    app, reader = dudo_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show(SHOWN)
    c.post(f"/dudo/{table}/read")
    for path in (Path(app.config["PHOTOS"]) / str(table)).iterdir():
        path.unlink()  # as a replacing reading does while a confirmation of the old one is on its way
    refused = c.post(f"/dudo/{table}/confirm", {"seq": 3})
    assert refused.status_code == 409 and "recargue" in refused.json["error"]
    assert len(app.extensions["cacho.store"].lines(table)) == 3


def test_a_bolivian_roll_keeps_its_photo_and_a_dropped_reading_does_not(tmp_path: Path) -> None:
    reader = FakeReader()
    with fake_camera_app(tmp_path, FakeCamera(blank()), reader, FAST) as app:
        co = become_coordinator(app.test_client())
        gid = new_game(co)
        reader.dice = row([6, 1, 6, 6, 2])
        co.post(f"/bolivia/{gid}/read")
        co.post(f"/bolivia/{gid}/read")
        co.post(f"/bolivia/{gid}/cancel")
        assert photos_of(app, gid) == set()
        co.post(f"/bolivia/{gid}/read")
        assert co.post(f"/bolivia/{gid}/confirm").status_code == 200
        rolled = named_by_log(app, gid)
        assert len(rolled) == 1 and photos_of(app, gid) == rolled
        seq = co.get(f"/bolivia/{gid}/state.json").json["seq"]
        declared = co.post(f"/bolivia/{gid}/action", {"event": "declare", "category": "poker", "seq": seq})
        assert declared.status_code == 200
        assert co.post(f"/bolivia/{gid}/read").status_code == 202  # a reading no one confirms...
        assert len(photos_of(app, gid)) == 2
        seq = co.get(f"/bolivia/{gid}/state.json").json["seq"]
        undone = co.post(f"/bolivia/{gid}/undo", {"seq": seq})  # ...dropped by the next event
        assert undone.status_code == 200 and photos_of(app, gid) == rolled
