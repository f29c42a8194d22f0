"""The Dudo kiosk through the Flask test client: every endpoint, and every refusal changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engines.dudo import replay_lines
from tests.kiosk.conftest import Coordinator, become_coordinator, csrf_of, fake_camera_app
from tests.kiosk.fakes import FakeCamera, FakeReader, wait_until, write_zones
from vision.still import StillSettings


def lines_of(c: Coordinator, table: int) -> list[dict[str, Any]]:
    """The exported log, decoded."""
    text = c.get(f"/dudo/{table}/export.jsonl").text
    return [json.loads(line) for line in text.splitlines()]


# ------------------------------------------------------------------ PIN, CSRF, read-only


def test_first_start_asks_for_the_pin(client: FlaskClient) -> None:
    response = client.get("/dudo/new")
    assert response.status_code == 302 and response.headers["Location"].endswith("/setup")
    token = csrf_of(client.get("/setup").text)
    bad = client.post("/setup", data={"pin": "12", "pin2": "12", "csrf_token": token})
    assert bad.status_code == 400 and "4 a 8 cifras" in bad.text
    differ = client.post("/setup", data={"pin": "1234", "pin2": "1235", "csrf_token": token})
    assert differ.status_code == 400 and "no coinciden" in differ.text
    assert client.post("/setup", data={"pin": "1234", "pin2": "1234", "csrf_token": token}).status_code == 302
    assert client.get("/dudo/new").status_code == 200


def test_pin_is_stored_hashed(app: Flask, coordinator: Coordinator) -> None:
    stored = app.extensions["cacho.store"].setting("pin_hash")
    assert stored is not None and "2468" not in stored and stored.startswith(("scrypt:", "pbkdf2:"))


def test_setup_cannot_replace_the_pin(app: Flask, coordinator: Coordinator) -> None:
    other = app.test_client()
    token = csrf_of(other.get("/login").text)
    response = other.post("/setup", data={"pin": "9999", "pin2": "9999", "csrf_token": token})
    assert response.status_code == 302 and response.headers["Location"].endswith("/login")
    assert other.get("/dudo/new").status_code == 302  # still not the coordinator


def test_wrong_pin_is_refused_and_locks_after_five(app: Flask, coordinator: Coordinator) -> None:
    other = app.test_client()
    token = csrf_of(other.get("/login").text)
    for _ in range(5):
        response = other.post("/login", data={"pin": "0000", "csrf_token": token})
        assert response.status_code == 403 and "PIN incorrecto" in response.text
    locked = other.post("/login", data={"pin": "2468", "csrf_token": token})
    assert locked.status_code == 429 and "Demasiados intentos" in locked.text
    assert other.get("/dudo/new").status_code == 302
    assert [r["kind"] for r in app.extensions["cacho.store"].audit_trail()].count("wrong_pin") == 5


def test_a_locked_out_guesser_does_not_lock_out_the_coordinator(app: Flask, coordinator: Coordinator) -> None:
    phone = app.test_client()
    phone.environ_base["REMOTE_ADDR"] = "192.168.4.23"  # a spectator's phone on the table's network
    token = csrf_of(phone.get("/login").text)
    for _ in range(6):
        phone.post("/login", data={"pin": "0000", "csrf_token": token})
    assert phone.post("/login", data={"pin": "2468", "csrf_token": token}).status_code == 429
    tablet = app.test_client()  # the coordinator in another browser, from another address
    tablet.environ_base["REMOTE_ADDR"] = "192.168.4.10"
    token = csrf_of(tablet.get("/login").text)
    signed_in = tablet.post("/login", data={"pin": "2468", "csrf_token": token})
    assert signed_in.status_code == 302 and tablet.get("/dudo/new").status_code == 200
    # a coordinator already signed in is never locked out, even from the guesser's own address
    coordinator.client.environ_base["REMOTE_ADDR"] = "192.168.4.23"
    again = coordinator.form("/login", {"pin": "2468"})
    assert again.status_code == 302 and coordinator.get("/dudo/new").status_code == 200
    assert phone.get("/dudo/new").status_code == 302


def test_right_pin_logs_in_and_redirects_only_locally(app: Flask, coordinator: Coordinator) -> None:
    other = app.test_client()
    token = csrf_of(other.get("/login").text)
    response = other.post("/login", data={"pin": "2468", "csrf_token": token, "next": "https://evil.example/"})
    assert response.status_code == 302 and response.headers["Location"] == "/"


def test_posts_without_or_with_a_wrong_csrf_token_are_refused(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    body = {"event": "bid", "player": "Ana", "quantity": 2, "face": 5}
    missing = coordinator.client.post(f"/dudo/{table}/action", json=body)
    wrong = coordinator.client.post(f"/dudo/{table}/action", json=body, headers={"X-CSRF-Token": "x" * 40})
    assert missing.status_code == wrong.status_code == 400
    assert "CSRF" in missing.json["error"]
    form = coordinator.client.post("/dudo/new", data={"players": "A\nB", "opener": "A"})
    assert form.status_code == 400 and "CSRF" in form.text
    assert len(lines_of(coordinator, table)) == 1


def test_spectators_read_but_cannot_act(app: Flask, coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    viewer = app.test_client()
    token = csrf_of(viewer.get(f"/dudo/{table}/tv").text)
    assert viewer.get(f"/dudo/{table}/tv").status_code == 200
    state = viewer.get(f"/dudo/{table}/state.json").json
    assert state["view"] == "tv" and "legal" not in state  # no controls for a spectator
    refused = viewer.post(
        f"/dudo/{table}/action",
        json={"event": "bid", "player": "Ana", "quantity": 2, "face": 5},
        headers={"X-CSRF-Token": token, "Accept": "application/json"},
    )
    assert refused.status_code == 401
    assert viewer.get(f"/dudo/{table}").status_code == 302
    assert viewer.get(f"/dudo/{table}/export.jsonl").status_code == 302
    assert len(lines_of(coordinator, table)) == 1


# ------------------------------------------------------------------ setting up


def test_new_table_with_the_roll_off(coordinator: Coordinator) -> None:
    sorteo = json.dumps([{"Ana": 5, "Beto": 5, "Caro": 2}, {"Ana": 3, "Beto": 6}])
    table = coordinator.new_table(sorteo=sorteo, opener="")
    log = lines_of(coordinator, table)
    assert log[0]["sorteo"] == json.loads(sorteo)
    state = coordinator.get(f"/dudo/{table}/state.json").json
    assert state["round"]["opener"] == "Beto" and state["round"]["to_act"] == "Beto"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"players": "Ana", "opener": "Ana"}, "al menos 2 jugadores"),
        ({"players": "Ana\nAna", "opener": "Ana"}, "nombre repetido"),
        ({"players": "Ana\nBeto", "opener": "Zoe"}, "no está sentado"),
        ({"players": "Ana\nBeto", "opener": ""}, "falta quién parte"),
        ({"players": "Ana\nBeto", "sorteo": '[{"Ana": 4, "Beto": 4}]'}, "sigue empatado"),
        ({"players": "Ana\nBeto", "sorteo": "[1"}, "el sorteo no es JSON válido: falta una coma"),
        ({"players": "Ana\nBeto", "opener": "Ana", "options_form": "1", "opt_subir": "siempre"}, "subir"),
    ],
)
def test_a_wrong_setup_is_refused_with_the_reason(coordinator: Coordinator, data: dict[str, str], message: str) -> None:
    response = coordinator.form("/dudo/new", data)
    assert response.status_code == 400 and message in response.text
    assert "Todavía no hay mesas" in coordinator.get("/").text  # no table was created


def test_house_options_from_the_form(coordinator: Coordinator) -> None:
    table = coordinator.new_table(options_form="1", opt_subir="libre", opt_calzo_restringido="on")
    options = lines_of(coordinator, table)[0]["options"]
    # Options shown and left unticked are false; only what differs from the defaults is written.
    assert options["subir"] == "libre" and "calzo_restringido" not in options
    assert options["obligo_abre_en_ases"] is False


# ------------------------------------------------------------------ playing by taps


def test_bids_dudo_manual_reading_confirm_and_undo(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    c = coordinator
    state = c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5, "seq": 1}).json
    assert state["bid"]["text"] == "dos quinas" and state["round"]["to_act"] == "Beto"
    assert [2, 5] not in state["legal"]["bids"] and [3, 5] in state["legal"]["bids"]
    state = c.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto", "seq": 2}).json
    assert state["challenge"]["kind"] == "dudo" and state["challenge"]["needed"] == ["Ana", "Beto", "Caro"]
    assert state["legal"]["player"] is None
    refused = c.post(f"/dudo/{table}/confirm", {"seq": 3})
    assert refused.status_code == 409 and "no hay lectura" in refused.json["error"]
    state = c.post(f"/dudo/{table}/manual", {}).json
    assert state["reading"]["source"] == "manual" and not state["reading"]["proposal"]["ok"]
    faces = {"Ana": [5, 5, 1, 2, 3], "Beto": [6, 6, 6, 6, 6], "Caro": [2, 2, 3, 4, 4]}
    for name, dice in state["reading"]["players"].items():
        for entry, face in zip(dice, faces[name], strict=True):
            state = c.post(f"/dudo/{table}/die", {"player": name, "die": entry["id"], "face": face}).json
    proposal = state["reading"]["proposal"]
    assert proposal["ok"] and proposal["ruling"]["count"]["total"] == 2  # aces not wild in the opening
    state = c.post(f"/dudo/{table}/confirm", {"seq": 3}).json
    assert state["last_ruling"]["message"] == proposal["ruling"]["message"]
    assert state["challenge"] is None and state["reading"] is None
    log = lines_of(c, table)
    assert log[-1]["event"] == "reveal" and log[-1]["source"] == "manual" and len(log[-1]["corrections"]) == 15
    assert {"player", "die", "read", "set", "ts"} <= set(log[-1]["corrections"][0])
    # Undo, step by step: the ruling, then the dudo; the log records both undos.
    state = c.post(f"/dudo/{table}/undo", {"seq": 4}).json
    assert state["challenge"] is not None and [p["dice"] for p in state["players"]] == [5, 5, 5]
    state = c.post(f"/dudo/{table}/undo", {"seq": 5}).json
    assert state["challenge"] is None and state["bid"]["text"] == "dos quinas"
    log = lines_of(c, table)
    assert [e["event"] for e in log] == ["start", "bid", "dudo", "reveal", "undo", "undo"]
    replayed = replay_lines([json.dumps(e) for e in log])
    assert replayed.error is None and replayed.table is not None and replayed.table.pending is None


@pytest.mark.parametrize(
    ("body", "status", "text"),
    [
        ({"event": "bid", "player": "Beto", "quantity": 2, "face": 5}, 409, "art. 3"),
        ({"event": "bid", "player": "Ana", "quantity": 0, "face": 5}, 409, "art."),
        ({"event": "bid", "player": "Ana", "quantity": 2, "face": 7}, 409, "art. 2"),
        ({"event": "bid", "player": "Ana", "quantity": "dos", "face": 5}, 400, "número entero"),
        ({"event": "calzo", "player": "Ana"}, 409, "art."),
        ({"event": "paso", "player": "Ana", "hand": "escala"}, 409, "art. 8"),
        ({"event": "paso", "player": "Ana", "hand": "trío"}, 400, "full, escala o quintilla"),
        ({"event": "reveal", "dice": {}}, 400, "bid, dudo, calzo o paso"),
        ({"event": "start", "players": ["A", "B"], "opener": "A"}, 400, "bid, dudo, calzo o paso"),
        ({"event": "bid", "player": "Ana", "quantity": 2, "face": 5, "seq": 7}, 409, "cambió"),
        ({"event": "bid", "player": "Ana", "quantity": 2, "face": 5, "seq": "1"}, 400, "seq"),
    ],
)
def test_illegal_actions_are_refused_and_change_nothing(
    coordinator: Coordinator, body: dict[str, Any], status: int, text: str
) -> None:
    table = coordinator.new_table()
    response = coordinator.post(f"/dudo/{table}/action", body)
    assert response.status_code == status, response.json
    assert text in response.json["error"]
    assert len(lines_of(coordinator, table)) == 1


def test_malformed_bodies_and_unknown_tables(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    response = coordinator.client.post(
        f"/dudo/{table}/action", data="nope", headers={"X-CSRF-Token": coordinator.token}
    )
    assert response.status_code == 400 and "objeto JSON" in response.json["error"]
    assert coordinator.get("/dudo/999/state.json").status_code == 404
    assert coordinator.post("/dudo/999/action", {"event": "dudo", "player": "A"}).status_code == 404
    assert coordinator.get(f"/dudo/{table}/photo/..%2Fkiosk.sqlite3").status_code == 404


def test_undo_at_the_start_is_refused(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    response = coordinator.post(f"/dudo/{table}/undo", {"seq": 1})
    assert response.status_code == 409 and "nada que deshacer" in response.json["error"]
    assert len(lines_of(coordinator, table)) == 1


def test_reading_refusals(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    assert coordinator.post(f"/dudo/{table}/manual").status_code == 409  # nobody doubted
    assert coordinator.post(f"/dudo/{table}/read").status_code == 409
    coordinator.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5})
    coordinator.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"})
    no_camera = coordinator.post(f"/dudo/{table}/read")
    assert no_camera.status_code == 409 and "Sin cámara" in no_camera.json["error"]
    assert coordinator.post(f"/dudo/{table}/die", {"player": "Ana", "die": "x", "face": 3}).status_code == 409
    state = coordinator.post(f"/dudo/{table}/manual").json
    ana = state["reading"]["players"]["Ana"][0]["id"]
    for body, text in [
        ({"player": "Ana", "die": ana, "face": 7}, "de 1 a 6"),
        ({"player": "Zoe", "die": ana, "face": 3}, "no muestra dados"),
        ({"player": "Ana", "die": "nope", "face": 3}, "no tiene ese dado"),
        ({"player": "Ana", "die": None, "face": None}, "hace falta su cara"),
        ({"player": 3, "die": ana, "face": 3}, "player, die, face"),
    ]:
        response = coordinator.post(f"/dudo/{table}/die", body)
        assert response.status_code == 400 and text in response.json["error"], body
    # A wrong count blocks the confirmation with the article.
    coordinator.post(f"/dudo/{table}/die", {"player": "Ana", "die": None, "face": 4})
    state = coordinator.get(f"/dudo/{table}/state.json").json
    assert any("sin cara" in b for b in state["reading"]["proposal"]["blockers"])
    refused = coordinator.post(f"/dudo/{table}/confirm", {"seq": 3})
    assert refused.status_code == 409 and len(lines_of(coordinator, table)) == 3


def test_timer(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    clock = coordinator.post(f"/dudo/{table}/timer", {"op": "start", "limit": 45}).json
    assert clock["running"] and clock["limit"] == 45
    clock = coordinator.post(f"/dudo/{table}/timer", {"op": "pause"}).json
    assert not clock["running"] and clock["elapsed"] >= 0
    assert coordinator.post(f"/dudo/{table}/timer", {"op": "reset"}).json["elapsed"] == 0
    assert coordinator.post(f"/dudo/{table}/timer", {"op": "launch"}).status_code == 400
    assert coordinator.post(f"/dudo/{table}/timer", {"op": "start", "limit": 9999}).status_code == 400
    assert coordinator.get(f"/dudo/{table}/state.json").json["timer"]["limit"] == 45


def test_the_timer_answers_with_the_kiosks_clock_and_its_sound_can_be_turned_off(coordinator: Coordinator) -> None:
    """Issue 34, point 1: the pages count the turn down on the kiosk's clock (`now` in every answer), and the
    sound at time up is on until the coordinator turns it off (for every screen of the table)."""
    table = coordinator.new_table()
    assert coordinator.get(f"/dudo/{table}/state.json").json["timer"]["sound"] is True
    clock = coordinator.post(f"/dudo/{table}/timer", {"op": "start", "limit": 5}).json
    assert clock["now"] >= clock["since"] > 0
    off = coordinator.post(f"/dudo/{table}/timer", {"op": "sound", "on": False}).json
    assert off["sound"] is False and off["running"] and off["limit"] == 5
    assert coordinator.client.get(f"/dudo/{table}/state.json?view=tv").json["timer"]["sound"] is False
    refused = coordinator.post(f"/dudo/{table}/timer", {"op": "sound", "on": "sí"})
    assert refused.status_code == 400 and "'on': true o false" in refused.json["error"]
    assert coordinator.get(f"/dudo/{table}/state.json").json["timer"]["sound"] is False


def test_tv_odds_follow_the_round(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    assert coordinator.get(f"/dudo/{table}/state.json?view=tv").json["odds"] is None
    coordinator.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 3, "face": 4})
    odds = coordinator.get(f"/dudo/{table}/state.json?view=tv").json["odds"]
    # The opening: aces are not wild (art. 5), so each die is a cuadra with chance 1/6.
    assert odds["aces_wild"] is False and odds["dice"] == 15 and odds["true"] == pytest.approx(0.4678, abs=1e-3)
    assert "odds" not in coordinator.get(f"/dudo/{table}/state.json").json


def test_export_and_import(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    coordinator.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5})
    exported = coordinator.get(f"/dudo/{table}/export.jsonl")
    assert exported.headers["Content-Disposition"].startswith("attachment")
    from io import BytesIO

    response = coordinator.client.post(
        "/dudo/import",
        data={"csrf_token": coordinator.token, "name": "Copia", "log": (BytesIO(exported.data), "mesa.jsonl")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    copy = int(response.headers["Location"].rsplit("/", 1)[1])
    assert coordinator.get(f"/dudo/{copy}/state.json").json["bid"]["text"] == "dos quinas"
    bad = exported.data + b'{"event": "bid", "player": "Beto", "quantity": 1, "face": 5}\n'
    refused = coordinator.client.post(
        "/dudo/import",
        data={"csrf_token": coordinator.token, "log": (BytesIO(bad), "mesa.jsonl")},
        content_type="multipart/form-data",
    )
    assert refused.status_code == 400 and "línea 3 (art. 4)" in refused.text
    paper = coordinator.form("/dudo/import", {"text": "not json"})
    assert paper.status_code == 400 and "JSON" in paper.text
    assert len([t for t in coordinator.get("/").text.split("<li>")[1:]]) == 2


def test_pages_render_in_both_languages(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    for url in ["/", f"/dudo/{table}", f"/dudo/{table}/tv", "/dudo/new", "/calibrate"]:
        assert coordinator.get(url).status_code == 200, url
    english = coordinator.get("/?lang=en")
    assert "New Dudo table" in english.text
    assert "lang=en" in english.headers["Set-Cookie"]
    assert "New Dudo table" in coordinator.get("/").text  # the cookie keeps it


def test_event_stream_announces_changes(app: Flask, coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    response = app.test_client().get(f"/events?topics=table:{table}")
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    assert next(chunks).startswith(b"retry:")
    coordinator.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5})
    got = next(chunks)
    while got.startswith(b":"):
        got = next(chunks)
    assert got.startswith(f"event: table:{table}".encode())
    response.close()


# ------------------------------------------------------------------ the camera's reading


@pytest.fixture
def camera_app(tmp_path: Path) -> Iterator[tuple[Flask, FakeCamera, FakeReader]]:
    """The kiosk with a fake camera over three seat zones and a fake reader."""
    camera, reader = FakeCamera(), FakeReader()
    write_zones(tmp_path / "mesa.json")
    still = StillSettings(still_s=0.0, timeout_s=3.0, poll_s=0.0, frames=2, frame_gap_s=0.0)
    with fake_camera_app(tmp_path, camera, reader, still) as app:
        yield app, camera, reader


def test_a_camera_reading_is_read_from_the_nadir_the_seat_markers_give(tmp_path: Path) -> None:
    """Seat markers on the frame (no zones): the dice are read from the camera's nadir they give, and the reading
    says it; in zones mode (the other tests) markers are not looked for."""
    from vision.synth.scene import compose_seated

    scene = compose_seated(2, {1: [1, 2], 2: [6], 3: [2, 2]}, 1152, 648)
    camera, reader = FakeCamera(scene.image), FakeReader()
    still = StillSettings(still_s=0.0, timeout_s=3.0, poll_s=0.0, frames=2, frame_gap_s=0.0)
    with fake_camera_app(tmp_path, camera, reader, still) as app:
        c = become_coordinator(app.test_client())
        table = challenged(c)
        assert c.post(f"/dudo/{table}/read").status_code == 202
        reading = c.get(f"/dudo/{table}/state.json").json["reading"]
    assert reading["state"] == "ready" and reader.reads >= 2  # the dudo itself asks for a reading, too
    tilt = reading["capture"]["tilt"]
    assert tilt["markers"] == 3 and tilt["hfov_deg"] in (66.0, 102.0) and 0 <= tilt["nadir"][0] <= 1
    tilted = f"{tilt['tilt_deg']:.1f}".replace(".", ",")  # as Spanish writes it
    assert f"cámara inclinada {tilted}° (nadir medido con 3 marcadores)" in reading["message"]


def test_the_marker_search_says_how_the_camera_hangs(tmp_path: Path) -> None:
    """Calibration: the markers found, and the camera's tilt, height and lens they give (the nadir readings use)."""
    from vision.synth.scene import compose_seated

    scene = compose_seated(4, {1: [1], 2: [6], 3: [2], 4: [3]}, 1152, 648)
    still = StillSettings(still_s=0.0, timeout_s=3.0, poll_s=0.0, frames=2, frame_gap_s=0.0)
    with fake_camera_app(tmp_path, FakeCamera(scene.image), FakeReader(), still) as app:
        c = become_coordinator(app.test_client())
        found = c.post("/calibrate/markers", {"seats": [1, 2, 3, 4]}).json
        write_zones(tmp_path / "mesa.json")
        zones = c.post("/calibrate/markers", {"seats": []}).json
    assert found["markers"] == [1, 2, 3, 4] and found["missing"] == []
    camera = scene.meta["camera"]
    assert found["tilt"]["hfov_deg"] == camera["hfov_deg"] and found["tilt"]["markers"] == 4
    assert found["tilt"]["height_mm"] == pytest.approx(camera["height_m"] * 1000, rel=0.1)
    assert zones["tilt"] is None  # zones mode: markers are not what the seats go by


def challenged(c: Coordinator, quantity: int = 3) -> int:
    """A table where Ana bids `quantity` cuatros and Beto doubts it: the cups are lifted."""
    table = c.new_table()
    c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": quantity, "face": 4})
    c.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"})
    return table


def test_camera_reading_with_a_doubtful_die_needs_the_coordinator(
    camera_app: tuple[Flask, FakeCamera, FakeReader],
) -> None:
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    # an opening, aces not wild (art. 5): three cuatros sure, and Caro's doubtful die decides «cuatro cuatros»
    table = challenged(c, quantity=4)
    reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]}, uncertain=[(3, 4)])
    response = c.post(f"/dudo/{table}/read")
    assert response.status_code == 202
    state = c.get(f"/dudo/{table}/state.json").json
    reading = state["reading"]
    assert reading["state"] == "ready" and reading["photo_url"].endswith(".jpg")
    assert [d["face"] for d in reading["players"]["Ana"]] == [4, 4, 1, 2, 3]
    doubtful = [d for d in reading["players"]["Caro"] if d["uncertain"]]
    assert len(doubtful) == 1 and doubtful[0]["reasons"]
    assert not reading["proposal"]["ok"] and reading["proposal"]["deciding"] == [doubtful[0]["id"]]
    assert reading["proposal"]["blockers"] == ["Caro: 1 dado dudoso que decide el fallo, por confirmar o corregir"]
    assert c.post(f"/dudo/{table}/confirm", {"seq": 3}).status_code == 409
    photo = c.get(reading["photo_url"])
    assert photo.mimetype == "image/jpeg" and photo.data[:2] == b"\xff\xd8"
    photo.close()
    # The coordinator confirms the doubtful die as read (same face): now it can be ruled.
    state = c.post(f"/dudo/{table}/die", {"player": "Caro", "die": doubtful[0]["id"], "face": 4}).json
    plan = state["reading"]["proposal"]
    assert plan["ok"] and plan["ruling"]["count"]["total"] == 4 and plan["left"] == []
    state = c.post(f"/dudo/{table}/confirm", {"seq": 3}).json
    reveal = lines_of(c, table)[-1]
    assert reveal["source"] == "camera" and reveal["photo"].endswith(".jpg")
    assert reveal["corrections"][0]["read"] == 4 and reveal["corrections"][0]["set"] == 4
    assert state["last_ruling"]["photo"].endswith(".jpg")


def test_a_correction_sticks_when_the_dice_are_read_again(camera_app: tuple[Flask, FakeCamera, FakeReader]) -> None:
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]})
    state = c.post(f"/dudo/{table}/read").json
    state = c.get(f"/dudo/{table}/state.json").json
    first = state["reading"]["players"]["Ana"][0]
    c.post(f"/dudo/{table}/die", {"player": "Ana", "die": first["id"], "face": 6})
    reader.show({1: [5, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]})  # a later frame reads it as 5
    c.post(f"/dudo/{table}/read")
    state = c.get(f"/dudo/{table}/state.json").json
    faces = sorted(d["face"] for d in state["reading"]["players"]["Ana"])
    assert faces == [1, 2, 3, 4, 6] and len(state["reading"]["players"]["Ana"]) == 5
    audit = app.extensions["cacho.store"].audit_trail(table)
    assert audit[-1]["kind"] == "correction" and audit[-1]["read"] == 4 and audit[-1]["set"] == 6


def test_a_wrong_count_per_seat_is_not_ruled(camera_app: tuple[Flask, FakeCamera, FakeReader]) -> None:
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show({1: [4, 4, 1, 2], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]})  # one of Ana's dice not seen
    c.post(f"/dudo/{table}/read")
    reading = c.get(f"/dudo/{table}/state.json").json["reading"]
    assert reading["proposal"]["blockers"] == ["Ana: falta 1 dado: 4 de 5"]
    # The coordinator adds the hidden die by hand.
    state = c.post(f"/dudo/{table}/die", {"player": "Ana", "die": None, "face": 6}).json
    assert state["reading"]["proposal"]["ok"]


def test_the_problems_follow_the_corrections_and_are_said_once(
    camera_app: tuple[Flask, FakeCamera, FakeReader],
) -> None:
    """Issue 34, point 7: a seat's count and its doubtful dice are told as they stand after each correction, once
    (not in the photo's notes and again in what blocks the ruling)."""
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show({1: [4, 4, 1, 2, 3, 6], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]}, uncertain=[(2, 0), (2, 1), (2, 2)])
    c.post(f"/dudo/{table}/read")
    reading = c.get(f"/dudo/{table}/state.json").json["reading"]
    assert reading["problems"] == []
    assert reading["proposal"]["blockers"] == [
        "Ana: sobra 1 dado: 6 de 5",
        "Beto: 3 dados dudosos por confirmar o corregir",
    ]
    extra = reading["players"]["Ana"][-1]["id"]
    state = c.post(f"/dudo/{table}/die", {"player": "Ana", "die": extra, "face": None}).json
    # «tres cuatros» stand on Ana's and Caro's sure dice: Beto's three doubtful dice cannot change the ruling
    plan = state["reading"]["proposal"]
    beto = [d["id"] for d in state["reading"]["players"]["Beto"] if d["uncertain"]]
    assert plan["ok"] and plan["blockers"] == [] and plan["deciding"] == [] and plan["left"] == beto
    for entry in [d for d in state["reading"]["players"]["Beto"] if d["uncertain"]]:
        state = c.post(f"/dudo/{table}/die", {"player": "Beto", "die": entry["id"], "face": entry["face"]}).json
    assert state["reading"]["problems"] == [] and state["reading"]["proposal"]["blockers"] == []
    assert state["reading"]["proposal"]["ok"]


def test_a_doubted_paso_reads_only_the_passers_cup(camera_app: tuple[Flask, FakeCamera, FakeReader]) -> None:
    """Issue 34, point 7: in a doubted paso only the passer shows (art. 8); the other seats' dice in view are
    neither listed nor counted against them."""
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    table = c.new_table()
    c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 3, "face": 5})
    c.post(f"/dudo/{table}/action", {"event": "paso", "player": "Beto", "hand": "full"})
    c.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Caro"})
    reader.show({1: [4, 4, 1, 2, 3], 2: [3, 3, 3, 6, 6], 3: [2, 2, 3, 4, 4]})  # every cup up, one had to be
    c.post(f"/dudo/{table}/read")
    reading = c.get(f"/dudo/{table}/state.json").json["reading"]
    assert list(reading["players"]) == ["Beto"]
    assert reading["problems"] == [] and reading["proposal"]["ok"], reading["proposal"]


def test_a_camera_that_vanishes_reports_and_the_kiosk_goes_on(camera_app: tuple[Flask, FakeCamera, FakeReader]) -> None:
    app, camera, reader = camera_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show({1: [4, 4, 1, 2, 3]})
    camera.fail = True
    response = c.post(f"/dudo/{table}/read")
    state = c.get(f"/dudo/{table}/state.json").json
    if response.status_code == 202:
        assert state["reading"]["state"] == "failed" and "no se pudo leer" in state["reading"]["message"]
    else:
        assert response.status_code == 409
    wait_until(lambda: c.get("/camera/health").json["state"] == "error")
    assert c.post(f"/dudo/{table}/manual").status_code == 200  # by hand, the game goes on


def test_a_challenge_starts_watching_the_table_at_once(camera_app: tuple[Flask, FakeCamera, FakeReader]) -> None:
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]})
    table = challenged(c)  # the dudo alone; nobody tapped "read"
    reading = c.get(f"/dudo/{table}/state.json").json["reading"]
    assert reading["state"] == "ready" and reading["source"] == "camera"
    assert [d["face"] for d in reading["players"]["Beto"]] == [6, 6, 6, 5, 5]
    assert reading["proposal"]["ok"]
    before = reader.reads
    c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Caro", "quantity": 9, "face": 6})  # refused
    assert reader.reads == before


def test_a_late_camera_reading_never_overwrites_dice_entered_by_hand(app: Flask, coordinator: Coordinator) -> None:
    from kiosk.dudo.views import VIEWS

    table = coordinator.new_table()
    coordinator.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5})
    state = coordinator.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"}).json
    coordinator.post(f"/dudo/{table}/manual")
    late = {"state": "ready", "source": "camera", "players": {}, "corrections": []}
    with app.app_context():
        VIEWS.keep_reading(table, state["seq"], late)
    reading = coordinator.get(f"/dudo/{table}/state.json").json["reading"]
    assert reading["source"] == "manual" and len(reading["players"]["Ana"]) == 5


def test_a_refused_action_is_answered_as_refused_even_while_the_cups_wait(
    camera_app: tuple[Flask, FakeCamera, FakeReader],
) -> None:
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    app.extensions["cacho.store"].clear_pending(table)  # e.g. the reader was still loading at the dudo
    before = reader.reads
    refused = c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Caro", "quantity": 9, "face": 6})
    assert refused.status_code == 409 and "art." in refused.json["error"]
    assert reader.reads == before and c.get(f"/dudo/{table}/state.json").json["reading"] is None


def test_only_the_dice_that_decide_the_ruling_are_asked_and_the_log_names_those_left(
    camera_app: tuple[Flask, FakeCamera, FakeReader],
) -> None:
    """Art. 6 over every face a doubtful die may show: «tres cuatros» stand on the sure dice, so the doubtful ones
    are left as read; one tap confirms, and the log names the dice left unsettled, with the faces they may show."""
    app, _camera, reader = camera_app
    c = become_coordinator(app.test_client())
    table = challenged(c)
    reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]}, uncertain=[(2, 0), (3, 0)])
    c.post(f"/dudo/{table}/read")
    plan = c.get(f"/dudo/{table}/state.json").json["reading"]["proposal"]
    assert plan["ok"] and plan["deciding"] == [] and len(plan["left"]) == 2
    assert c.post(f"/dudo/{table}/confirm", {"seq": 3}).status_code == 200
    reveal = lines_of(c, table)[-1]
    assert [(u["player"], u["read"], u["candidates"]) for u in reveal["unsettled"]] == [
        ("Beto", 6, [1, 2, 3, 4, 5, 6]),
        ("Caro", 2, [1, 2, 3, 4, 5, 6]),
    ]
    assert replay_lines(c.get(f"/dudo/{table}/export.jsonl").text.splitlines()).error is None


def test_a_bid_that_dismisses_an_opening_in_aces_is_logged_and_shown_as_a_dismissal(
    coordinator: Coordinator,
) -> None:
    """«una cuadra» after «dos ases»: the log stores `desestima`, and the history says so (art. 5 c); a raise in aces
    continues them and says nothing of it."""
    c = coordinator
    table = c.new_table()
    c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 1, "seq": 1})
    state = c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Beto", "quantity": 1, "face": 4, "seq": 2}).json
    assert state["history"][-1] == "Beto: una cuadra (desestima)"
    from kiosk.dudo import desk as desks
    from kiosk.web import store

    with c.client.application.app_context():
        stored = desks.load(store(), table).meta()
    assert stored[-1]["desestima"] is True
    state = c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Caro", "quantity": 2, "face": 4, "seq": 3}).json
    assert state["history"][-1] == "Caro: dos cuadras"
