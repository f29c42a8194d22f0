"""The organizer's page: registration, the public draw, later rounds, standings, rulings and disqualification."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from engines.dudo import event_to_dict
from engines.dudo.simulate import play_table
from kiosk.app import create_app
from kiosk.championship.draw import draw
from kiosk.championship.view import TableView
from tests.kiosk.conftest import Coordinator, become_coordinator

NAMES = [f"Jugador{n:02d}" for n in range(1, 13)]


class FakeFeeds:
    """The tables' views as the organizer would have them, set by the test; the rulings sent."""

    def __init__(self) -> None:
        self.views: dict[int, dict[str, Any]] = {}
        self.sent: list[tuple[int, dict[str, Any]]] = []
        self.seatings: dict[int, dict[str, Any] | None] = {}

    def summary(self, table: int) -> dict[str, Any] | None:
        return self.views.get(table)

    def publish_ruling(self, table: int, ruling: dict[str, Any]) -> None:
        self.sent.append((table, ruling))

    def publish_seating(self, table: int, seating: dict[str, Any] | None) -> None:
        self.seatings[table] = seating

    def photo(self, table: int) -> bytes | None:
        return b"\xff\xd8foto" if table == 1 else None

    def play(self, table: int, players: list[str], seed: int) -> dict[str, Any]:
        """The table plays a whole simulated game: its view as the organizer rebuilds it."""
        view = TableView()
        for event in play_table(players, random.Random(seed)):
            view.add(event_to_dict(event))
        self.views[table] = {**view.summary(), "link": "up", "link_since": None, "received": view.seq}
        return self.views[table]


@pytest.fixture
def feeds() -> FakeFeeds:
    return FakeFeeds()


@pytest.fixture
def app(tmp_path: Path, feeds: FakeFeeds) -> Iterator[Flask]:
    application = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "organizador.sqlite3"),
            "CAMERA": None,
            "CHAMPIONSHIP": {"code": "prueba", "feeds": feeds, "registry": str(tmp_path / "campeonato.sqlite3")},
        }
    )
    yield application
    application.extensions["cacho.camera"].close()


@pytest.fixture
def organizer(app: Flask) -> Coordinator:
    return become_coordinator(app.test_client())


def state(organizer: Coordinator) -> dict[str, Any]:
    response = organizer.get("/campeonato/estado.json")
    assert response.status_code == 200
    return response.get_json()  # type: ignore[no-any-return]


def register(organizer: Coordinator, names: list[str]) -> None:
    response = organizer.form("/campeonato/jugadores", {"players": "\n".join(f"{n}, Club {n[-1]}" for n in names)})
    assert response.status_code == 302


def flashed(organizer: Coordinator) -> str:
    return organizer.get("/campeonato/").text


def test_registration_and_the_public_draw(organizer: Coordinator, feeds: FakeFeeds) -> None:
    register(organizer, NAMES)
    assert [p["name"] for p in state(organizer)["players"]] == NAMES
    organizer.form("/campeonato/jugadores", {"players": "Nuevo, X\nJugador01, Y"})
    assert "Jugador01 ya está inscrito: no se inscribió a nadie" in flashed(organizer)
    assert len(state(organizer)["players"]) == 12  # all or none

    organizer.form("/campeonato/sorteo", {"seed": "4821", "size": "4"})
    page = flashed(organizer)
    assert "Sorteo de la ronda 1 con la semilla 4821: 3 mesas" in page and 'data-seed="1">4821<' in page
    tables = [t["drawn"] for t in state(organizer)["rounds"][0]["tables"]]
    assert tables == draw(NAMES, "4821", 4)  # anyone re-running the seed gets these tables
    organizer.form("/campeonato/sorteo", {"seed": "4821", "size": "4"})
    assert [t["drawn"] for t in state(organizer)["rounds"][0]["tables"]] == tables  # re-runnable
    assert {n: s and s["players"] for n, s in feeds.seatings.items()} == {1: tables[0], 2: tables[1], 3: tables[2]}
    organizer.form("/campeonato/sorteo", {"seed": "4821", "size": "6"})  # two tables now: the third is cleared
    assert feeds.seatings[3] is None and feeds.seatings[1] == {
        "table": 1,
        "round": 1,
        "seed": "4821",
        "players": draw(NAMES, "4821", 6)[0],
    }
    organizer.form("/campeonato/jugadores", {"players": "Tarde, Club"})
    assert "el sorteo ya se hizo: la inscripción está cerrada" in flashed(organizer)
    sheets = organizer.get("/campeonato/hojas/1").text
    assert all(name in sheets for name in NAMES) and "4821" in sheets


def test_a_draw_being_played_is_not_redrawn(organizer: Coordinator, feeds: FakeFeeds) -> None:
    register(organizer, NAMES)
    organizer.form("/campeonato/sorteo", {"seed": "1", "size": "4"})
    first = state(organizer)["rounds"][0]["tables"][0]
    feeds.play(first["table"], first["drawn"], 1)
    organizer.form("/campeonato/sorteo", {"seed": "2", "size": "4"})
    assert "ya están jugando: el sorteo no se repite" in flashed(organizer)
    assert state(organizer)["rounds"][0]["seed"] == "1"


def test_rounds_to_the_final_table_and_standings(organizer: Coordinator, feeds: FakeFeeds) -> None:
    register(organizer, NAMES)
    organizer.form("/campeonato/sorteo", {"seed": "77", "size": "4"})
    tables = state(organizer)["rounds"][0]["tables"]
    feeds.play(tables[0]["table"], tables[0]["drawn"], 1)
    organizer.form("/campeonato/ronda", {"seed": "78", "size": "4"})
    assert "faltan campeones de mesa (art. 10): mesa 2, 3" in flashed(organizer)
    champions = [feeds.play(t["table"], t["drawn"], n)["winner"] for n, t in enumerate(tables, start=1)]
    organizer.form("/campeonato/ronda", {"seed": "78", "size": "4"})
    rounds = state(organizer)["rounds"]
    assert len(rounds) == 2 and len(rounds[1]["tables"]) == 1
    final = rounds[1]["tables"][0]
    assert final["table"] == 4 and sorted(final["drawn"]) == sorted(champions)
    feeds.play(4, final["drawn"], 9)
    done = state(organizer)
    champion = done["champion"]
    assert champion == feeds.views[4]["winner"]
    standings = done["standings"]
    assert standings[0]["name"] == champion and standings[0]["rank"] == 1 and standings[0]["round"] == 2
    assert [s["rank"] for s in standings[:3]] == [1, 2, 3]
    assert {s["name"] for s in standings[:3]} == set(champions)
    assert all(s["round"] == 1 for s in standings[3:])
    organizer.form("/campeonato/ronda", {"seed": "79", "size": "4"})
    assert "la ronda anterior ya fue la mesa final" in flashed(organizer)
    result = organizer.get("/campeonato/resultado").text
    assert champion in result
    final_placings = done["rounds"][1]["tables"][0]["placings"]
    assert [p["place"] for p in final_placings] == [1, 2, 3] and final_placings[0]["name"] == champion
    assert f"1. {champion}" in result


def test_rulings_are_logged_sent_and_exported(organizer: Coordinator, feeds: FakeFeeds) -> None:
    register(organizer, NAMES[:4])
    organizer.form("/campeonato/sorteo", {"seed": "5", "size": "4"})
    text = "El paso con 4 dados vale"
    organizer.form("/campeonato/fallo", {"table": "1", "article": "8", "text": text, "by": "Rosa"})
    ruling = state(organizer)["rulings"][0]
    assert ruling["text"] == "El paso con 4 dados vale" and ruling["article"] == "8" and ruling["by"] == "Rosa"
    assert ruling["ts"] and feeds.sent == [(1, ruling)]
    organizer.form("/campeonato/fallo", {"table": "9", "text": "x", "by": "Rosa"})
    assert "no hay mesa 9 en el sorteo" in flashed(organizer)
    organizer.form("/campeonato/fallo", {"table": "1", "text": " ", "by": "Rosa"})
    assert "falta el texto del fallo" in flashed(organizer)
    assert len(state(organizer)["rulings"]) == 1
    annex = organizer.get("/campeonato/fallos.md").text
    assert "| art. 8 | El paso con 4 dados vale | Rosa |" in annex


def test_disqualification_puts_the_player_out_of_the_championship(organizer: Coordinator, feeds: FakeFeeds) -> None:
    register(organizer, NAMES)
    organizer.form("/campeonato/sorteo", {"seed": "3", "size": "4"})
    cheat = NAMES[5]
    organizer.form("/campeonato/descalificar", {"player": cheat, "reason": "dados cargados", "by": "Rosa"})
    done = state(organizer)
    last = done["standings"][-1]
    assert last["name"] == cheat and last["out"] == f"{cheat} queda descalificado del campeonato: dados cargados"
    ruling = done["rulings"][0]
    assert ruling["kind"] == "disqualification" and ruling["article"] == "11"
    assert feeds.sent and feeds.sent[0][0] == ruling["table"]  # his table's kiosk is told
    organizer.form("/campeonato/descalificar", {"player": cheat, "reason": "otra vez", "by": "Rosa"})
    assert "ya fue descalificado" in flashed(organizer)
    organizer.form("/campeonato/descalificar", {"player": NAMES[0], "reason": "", "by": "Rosa"})
    assert "falta el motivo" in flashed(organizer)
    assert len(state(organizer)["rulings"]) == 1


def test_the_page_needs_the_pin_and_the_live_state_does_not(app: Flask) -> None:
    client = app.test_client()
    become_coordinator(app.test_client())  # the PIN is set, this browser has not entered it
    assert client.get("/campeonato/").status_code == 302
    assert client.post("/campeonato/jugadores", data={"players": "A"}).status_code == 400  # no CSRF token
    assert client.get("/campeonato/estado.json").status_code == 200
    assert client.get("/campeonato/tv").status_code == 200


def test_the_last_rulings_photo_is_served(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/campeonato/foto/1.jpg").data == b"\xff\xd8foto"
    assert client.get("/campeonato/foto/2.jpg").status_code == 404


def test_a_table_kiosk_has_no_organizer_page(tmp_path: Path) -> None:
    kiosk = create_app({"TESTING": True, "DATABASE": str(tmp_path / "k.sqlite3"), "CAMERA": None})
    try:
        assert kiosk.test_client().get("/campeonato/estado.json").status_code == 404
    finally:
        kiosk.extensions["cacho.camera"].close()
