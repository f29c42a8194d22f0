"""A table's kiosk joins a championship: its events reach the organizer, the organizer's rulings reach it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from kiosk.app import create_app
from kiosk.championship.broker import Mosquitto
from kiosk.championship.link import SETTING, wait_for
from kiosk.championship.organizer import Organizer
from kiosk.championship.views import stop_link
from tests.kiosk.conftest import Coordinator, become_coordinator


@pytest.fixture
def kiosk(tmp_path: Path) -> Iterator[Flask]:
    application = create_app({"TESTING": True, "DATABASE": str(tmp_path / "mesa.sqlite3"), "CAMERA": None})
    yield application
    stop_link(application)
    application.extensions["cacho.camera"].close()


@pytest.fixture
def coordinator(kiosk: Flask) -> Coordinator:
    return become_coordinator(kiosk.test_client())


def test_join_play_and_receive_the_organizers_rulings(
    tmp_path: Path, kiosk: Flask, coordinator: Coordinator, broker: Mosquitto
) -> None:
    table_id = coordinator.new_table("Ana\nBeto\nCaro", "Ana")
    organizer = Organizer("127.0.0.1", broker.port, "verano").start()
    try:
        form = {"broker": f"127.0.0.1:{broker.port}", "code": "verano", "table": "3", "table_id": str(table_id)}
        response = coordinator.form("/campeonato/mesa/unirse", form)
        assert response.status_code == 302
        assert wait_for(lambda: coordinator.get("/campeonato/mesa/enlace.json").get_json()["state"] == "up", 10)
        assert coordinator.post(f"/dudo/{table_id}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5})
        assert wait_for(lambda: len(organizer.events(3)) == 2, 10)  # the start and the bid, from the kiosk's log
        assert organizer.events(3)[1]["event"] == "bid"
        ruling = {"id": 1, "table": 3, "kind": "ruling", "text": "Vale el calzo", "article": "7", "by": "Rosa"}
        organizer.publish_ruling(3, ruling)
        organizer.publish_ruling(3, ruling)  # QoS 1 may bring it twice: kept once

        def received() -> list[dict[str, object]]:
            return coordinator.get("/campeonato/mesa/enlace.json").get_json()["rulings"]  # type: ignore[no-any-return]

        assert wait_for(lambda: len(received()) == 1, 10)
        assert received()[0]["text"] == "Vale el calzo"
        page = coordinator.get("/campeonato/mesa").text
        assert "Vale el calzo" in page and "conectado" in page
        since = kiosk.extensions["cacho.link"].status()["since"]  # drawn in the browser's time: «desde las 22:06»
        assert f'<time id="link-since" datetime="{since}" data-since="{since}">' in page
        assert kiosk.test_client().get("/campeonato/mesa/enlace.json").get_json()["rulings"] == []  # not for spectators
    finally:
        organizer.stop()
    coordinator.form("/campeonato/mesa/dejar", {})
    assert coordinator.get("/campeonato/mesa/enlace.json").get_json()["state"] == "off"


def test_a_wrong_join_changes_nothing(kiosk: Flask, coordinator: Coordinator) -> None:
    table_id = coordinator.new_table()
    form = {"broker": "127.0.0.1:1883", "code": "Con Espacio", "table": "1", "table_id": str(table_id)}
    coordinator.form("/campeonato/mesa/unirse", form)
    page = coordinator.get("/campeonato/mesa").text
    assert "No se unió al campeonato: código de campeonato" in page
    assert kiosk.extensions["cacho.store"].setting(SETTING) is None
    coordinator.form("/campeonato/mesa/unirse", {**form, "code": "bien", "table_id": "99"})
    assert "No se unió al campeonato" in coordinator.get("/campeonato/mesa").text
    assert "cacho.link" not in kiosk.extensions


def test_a_kiosk_restarted_rejoins_its_championship(tmp_path: Path, broker: Mosquitto) -> None:
    config = {"host": "127.0.0.1", "port": broker.port, "code": "verano", "table": 2, "table_id": 1}
    first = create_app({"TESTING": True, "DATABASE": str(tmp_path / "m.sqlite3"), "CAMERA": None})
    first.extensions["cacho.store"].set_setting(SETTING, json.dumps(config))
    first.extensions["cacho.camera"].close()
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "m.sqlite3"), "CAMERA": None})
    try:
        assert "cacho.link" in again.extensions
        assert wait_for(lambda: again.extensions["cacho.link"].status()["state"] == "up", 10)
    finally:
        stop_link(again)
        again.extensions["cacho.camera"].close()


def test_a_disqualification_reaches_the_table_and_its_engine_goes_on_without_the_player(
    kiosk: Flask, coordinator: Coordinator, broker: Mosquitto
) -> None:
    table_id = coordinator.new_table("Ana\nBeto\nCaro", "Ana")
    organizer = Organizer("127.0.0.1", broker.port, "verano").start()
    try:
        form = {"broker": f"127.0.0.1:{broker.port}", "code": "verano", "table": "1", "table_id": str(table_id)}
        coordinator.form("/campeonato/mesa/unirse", form)
        assert wait_for(lambda: coordinator.get("/campeonato/mesa/enlace.json").get_json()["state"] == "up", 10)
        out = {"id": 7, "table": 1, "kind": "disqualification", "player": "Beto", "article": "11", "by": "Rosa"}
        organizer.publish_ruling(1, {**out, "text": "Beto queda descalificado del campeonato: dados cargados"})
        organizer.publish_ruling(1, {**out, "id": 8, "player": "Zoe", "text": "Zoe queda descalificada"})

        def rulings() -> list[dict[str, object]]:
            return coordinator.get("/campeonato/mesa/enlace.json").get_json()["rulings"]  # type: ignore[no-any-return]

        assert wait_for(lambda: len(rulings()) == 2, 10)
        applied = {r["player"]: r["applied"] for r in rulings()}
        assert applied["Beto"] == "Beto salió de la mesa con sus dados"
        assert str(applied["Zoe"]).startswith("no se aplicó en la mesa: art. 11")
        assert wait_for(lambda: (organizer.summary(1) or {}).get("disqualified") == ["Beto"], 10)
        summary = organizer.summary(1) or {}
        assert {p["name"]: p["dice"] for p in summary["players"]}["Beto"] == 0
        assert organizer.events(1)[-1] == {**organizer.events(1)[-1], "event": "descalificacion", "player": "Beto"}
    finally:
        organizer.stop()


def test_seat_the_drawn_players_and_join(kiosk: Flask, coordinator: Coordinator, broker: Mosquitto) -> None:
    organizer = Organizer("127.0.0.1", broker.port, "verano").start()
    try:
        assert wait_for(lambda: organizer.connected, 10)
        form = {"broker": f"127.0.0.1:{broker.port}", "code": "verano", "table": "2"}
        coordinator.form("/campeonato/mesa/sorteo", form)
        assert "el organizador no ha sorteado la mesa 2" in coordinator.get("/campeonato/mesa").text
        organizer.publish_seating(2, {"table": 2, "round": 1, "seed": "4821", "players": ["Ana", "Beto", "Caro"]})
        page = coordinator.form("/campeonato/mesa/sorteo", form).text
        assert "Sentar la mesa y unirse" in page and "4821" in page
        players = {"player": ["Ana", "Beto", "Caro"]}
        refused = coordinator.client.post(
            "/campeonato/mesa/sentar", data={**form, **players, "opener": "Zoe", "csrf_token": coordinator.token}
        )
        assert refused.status_code == 302
        assert "No se unió al campeonato: art. 3" in coordinator.get("/campeonato/mesa").text
        assert kiosk.extensions["cacho.store"].tables("dudo") == []  # nothing was seated
        seated = coordinator.client.post(
            "/campeonato/mesa/sentar", data={**form, **players, "opener": "Beto", "csrf_token": coordinator.token}
        )
        assert seated.status_code == 302
        [row] = kiosk.extensions["cacho.store"].tables("dudo")
        assert seated.headers["Location"] == f"/dudo/{row.id}"  # straight to the new table, to play
        assert "Mesa 2 unida al campeonato verano" in coordinator.get(f"/dudo/{row.id}").text
        assert (
            f'id="linked-table" class="button big primary" href="/dudo/{row.id}"'
            in coordinator.get("/campeonato/mesa").text
        )  # and the championship's page leads there too
        assert wait_for(lambda: len(organizer.events(2)) == 1, 10)
        start = organizer.events(2)[0]
        assert start["players"] == ["Ana", "Beto", "Caro"] and start["opener"] == "Beto"
        assert kiosk.extensions["cacho.link"].config.table_id == row.id
    finally:
        organizer.stop()


def test_seating_from_an_unreachable_broker_says_so(coordinator: Coordinator) -> None:
    from kiosk.championship.broker import free_port

    form = {"broker": f"127.0.0.1:{free_port()}", "code": "verano", "table": "2"}
    coordinator.form("/campeonato/mesa/sorteo", form)
    assert "no se pudo llegar al broker" in coordinator.get("/campeonato/mesa").text
