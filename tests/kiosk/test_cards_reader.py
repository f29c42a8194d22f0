"""The card games' cards read by a card reader behind its protocol (a fake here): shown, corrected by tap, confirmed."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from kiosk.cards.reader import SeenCard
from tests.kiosk.conftest import Coordinator, become_coordinator, make_app
from tests.kiosk.test_truco import deal, new_game, ok, state


class FakeCardReader:
    """Reads whatever cards it is told to, whatever the frame."""

    def __init__(self) -> None:
        self.cards: list[SeenCard] = []
        self.asked: list[list[int]] = []

    def read_cards(self, frame: Any, seats: Sequence[int], players: Sequence[str]) -> list[SeenCard]:
        self.asked.append(list(seats))
        return list(self.cards)


@pytest.fixture
def reader() -> FakeCardReader:
    return FakeCardReader()


@pytest.fixture
def reading_app(tmp_path: Path, reader: FakeCardReader) -> Iterator[Flask]:
    application = make_app(tmp_path, CARD_READER=reader)
    yield application
    application.extensions["cacho.camera"].close()


@pytest.fixture
def co(reading_app: Flask) -> Coordinator:
    return become_coordinator(reading_app.test_client())


def test_without_a_reader_the_cards_are_tapped(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    deal(coordinator, gid, dealer=3)
    assert state(coordinator, gid)["card_reader"] is False
    response = coordinator.post(f"/truco/{gid}/read", {})
    assert response.status_code == 409 and "toque las cartas" in response.get_json()["error"]


def test_a_trick_read_corrected_and_confirmed(co: Coordinator, reader: FakeCardReader) -> None:
    gid = new_game(co)
    deal(co, gid, dealer=3)
    ok(co, gid, action="play", card="5S")  # Ana tapped; the reader reads the three others
    reader.cards = [SeenCard(1, "7H", confidence=0.97), SeenCard(2, "4C", confidence=0.55), SeenCard(0, "AS")]
    response = co.post(f"/truco/{gid}/read", {})
    assert response.status_code == 200
    assert reader.asked == [[1, 2, 3]]
    reading = state(co, gid)["reading"]
    assert [(e["seat"], e["card"], e["doubtful"]) for e in reading["seats"]] == [
        (1, "7H", False),
        (2, "4C", True),
        (3, None, True),
    ]
    seq = state(co, gid)["seq"]
    response = co.post(f"/truco/{gid}/confirm", {"seq": seq})
    assert response.status_code == 409
    assert "la carta de Caro es dudosa" in response.get_json()["error"]
    assert "falta la carta de Davi" in response.get_json()["error"]
    assert co.post(f"/truco/{gid}/card", {"seat": 2, "card": "4C", "down": False}).status_code == 200
    assert co.post(f"/truco/{gid}/card", {"seat": 3, "card": "3S", "down": False}).status_code == 200
    assert co.post(f"/truco/{gid}/card", {"seat": 0, "card": "3S", "down": False}).status_code == 400
    assert co.post(f"/truco/{gid}/card", {"seat": 3}).status_code == 400
    audit = co.client.application.extensions["cacho.store"].audit_trail(gid)
    assert audit[-1]["kind"] == "correction" and audit[-1]["set"] == "3S" and audit[-1]["read"] is None
    now = co.post(f"/truco/{gid}/confirm", {"seq": seq}).get_json()
    assert now["seq"] == seq + 3 and now["reading"] is None
    assert now["tricks"][0]["winner"] == 2
    lines = co.get(f"/truco/{gid}/export.jsonl").text.splitlines()
    assert all('"source": "camera"' in line for line in lines[-3:])
    co.post(f"/truco/{gid}/undo", {"seq": now["seq"]})
    assert len(state(co, gid)["current"]) == 1  # the three cards read were one tap


def test_a_card_the_engine_refuses_keeps_the_reading(co: Coordinator, reader: FakeCardReader) -> None:
    gid = new_game(co)
    deal(co, gid, dealer=3)
    ok(co, gid, action="play", card="4C")
    reader.cards = [SeenCard(1, "4C"), SeenCard(2, "5S"), SeenCard(3, "6S")]
    co.post(f"/truco/{gid}/read", {})
    seq = state(co, gid)["seq"]
    response = co.post(f"/truco/{gid}/confirm", {"seq": seq})
    assert response.status_code == 409 and response.get_json()["article"] == "Juego de la mano"
    assert state(co, gid)["seq"] == seq and state(co, gid)["reading"] is not None
    assert co.post(f"/truco/{gid}/cancel", {}).status_code == 200
    assert state(co, gid)["reading"] is None
    assert co.post(f"/truco/{gid}/confirm", {"seq": seq}).status_code == 409


def test_no_reading_while_a_truco_waits(co: Coordinator, reader: FakeCardReader) -> None:
    gid = new_game(co)
    assert co.post(f"/truco/{gid}/read", {}).get_json()["article"] == "Juego de la mano"
    deal(co, gid, dealer=3)
    ok(co, gid, action="truco", player=0)
    response = co.post(f"/truco/{gid}/read", {})
    assert response.status_code == 409 and response.get_json()["article"] == "Subir la apuesta"
    assert co.post(f"/truco/{gid}/card", {"seat": 0, "card": "4C", "down": False}).status_code == 409


def test_the_cacho_showdown_read_corrected_and_confirmed(co: Coordinator, reader: FakeCardReader) -> None:
    from tests.kiosk.test_cacho_espanol import new_game as new_cacho
    from tests.kiosk.test_cacho_espanol import to_showdown

    gid = new_cacho(co)
    assert co.post(f"/cacho/{gid}/read", {}).get_json()["article"] == "Quién gana"
    to_showdown(co, gid)
    reader.cards = [
        SeenCard(0, "4S"),
        SeenCard(0, "2S"),
        SeenCard(0, "6D", confidence=0.5),
        SeenCard(1, "AD"),
        SeenCard(1, "4D"),
    ]
    assert co.post(f"/cacho/{gid}/read", {}).status_code == 200
    assert reader.asked[-1] == [0, 1]
    shown = co.get(f"/cacho/{gid}/state.json").get_json()
    reading = shown["reading"]
    assert [len(e["cards"]) for e in reading["seats"]] == [3, 2] and reading["seats"][0]["cards"][2]["doubtful"]
    refused = co.post(f"/cacho/{gid}/confirm", {"seq": shown["seq"]}).get_json()["error"]
    assert "la mano de Ana tiene cartas dudosas" in refused and "a la mano de Beto le faltan cartas" in refused
    assert co.post(f"/cacho/{gid}/card", {"seat": 0, "index": 2, "card": "6D"}).status_code == 200
    assert co.post(f"/cacho/{gid}/card", {"seat": 1, "index": 2, "card": "5D"}).status_code == 200
    assert co.post(f"/cacho/{gid}/card", {"seat": 1, "index": 4, "card": "5D"}).status_code == 400
    assert co.post(f"/cacho/{gid}/card", {"seat": 2, "index": 0, "card": "5D"}).status_code == 400
    now = co.post(f"/cacho/{gid}/confirm", {"seq": shown["seq"]}).get_json()
    assert now["last_hand"]["winner"] == 1 and now["reading"] is None
    line = json.loads(co.get(f"/cacho/{gid}/export.jsonl").text.splitlines()[-1])
    assert line["event"] == "show" and line["source"] == "camera" and len(line["corrections"]) == 2


NINE = ["AS", "2S", "3S", "4H", "4D", "4C", "7C", "8C", "9C"]


def test_a_pif_paf_going_out_read(co: Coordinator, reader: FakeCardReader) -> None:
    from tests.kiosk.test_pifpaf_kiosk import playing

    gid = playing(co)
    base = f"/pifpaf/{gid}"
    response = co.post(base + "/read", {"kind": "out", "player": 0})
    assert response.status_code == 409 and response.get_json()["article"] == "Juego de la mano"  # not drawn yet
    assert co.post(base + "/read", {"kind": "sale", "player": 0}).status_code == 400
    co.post(base + "/action", {"action": "draw", "source": "stock", "seq": state_seq(co, base)})
    reader.cards = [SeenCard(0, card, confidence=0.5 if card == "9C" else 0.99) for card in NINE]
    assert co.post(base + "/read", {"kind": "out", "player": 0}).status_code == 200
    seq = state_seq(co, base)
    blocked = co.post(base + "/confirm", {"seq": seq}).get_json()["error"]
    assert "falta la carta que descarta" in blocked and "dudosas" in blocked
    assert co.post(base + "/card", {"discard": "QH"}).status_code == 200
    assert co.post(base + "/card", {"seat": 0, "index": 8, "card": "9C"}).status_code == 200
    now = co.post(base + "/confirm", {"seq": seq}).get_json()
    assert now["last_hand"]["winner"] == 0 and now["reading"] is None
    line = json.loads(co.get(base + "/export.jsonl").text.splitlines()[-1])
    assert line["event"] == "out" and line["discard"] == "QH" and line["source"] == "camera"


def test_a_cacheta_knock_with_ten_read_and_one_that_does_not_meld(co: Coordinator, reader: FakeCardReader) -> None:
    from tests.kiosk.test_cacheta_kiosk import new_table

    gid = new_table(co)
    base = f"/cacheta/{gid}"
    co.post(base + "/action", {"action": "deal", "flip": "2H", "seq": state_seq(co, base)})
    co.post(base + "/action", {"action": "draw", "source": "stock", "seq": state_seq(co, base)})
    assert (
        co.post(base + "/read", {"kind": "cut", "player": 1}).get_json()["article"] == "Cortar la fila (cut the line)"
    )
    reader.cards = [SeenCard(0, card) for card in [*NINE[:-1], "10H", "10C"]]
    assert co.post(base + "/read", {"kind": "knock", "player": 0, "ten": True}).status_code == 200
    seq = state_seq(co, base)
    refused = co.post(base + "/confirm", {"seq": seq}).get_json()
    assert refused["article"] == "Batir (knock out)" and state_seq(co, base) == seq
    assert co.post(base + "/card", {"seat": 0, "index": 8, "card": "9C"}).status_code == 200
    now = co.post(base + "/confirm", {"seq": seq}).get_json()
    assert [p["points"] for p in now["players"]] == [2, 0] and now["winner"] == 0


def state_seq(co: Coordinator, base: str) -> int:
    return int(co.get(base + "/state.json").get_json()["seq"])


class AdaptedCardReader(FakeCardReader):
    """A reader that says which models folder it reads with, as the camera's does."""

    models_name = "mesa-club"


def test_a_camera_reading_names_the_models_folder_that_read_it_on_its_lines(tmp_path: Path) -> None:
    reader = AdaptedCardReader()
    app = make_app(tmp_path, CARD_READER=reader)
    try:
        co = become_coordinator(app.test_client())
        gid = new_game(co)
        deal(co, gid, dealer=3)
        reader.cards = [SeenCard(0, "5S"), SeenCard(1, "7H"), SeenCard(2, "4C"), SeenCard(3, "3S")]
        assert co.post(f"/truco/{gid}/read", {}).status_code == 200
        assert state(co, gid)["reading"]["models"] == "mesa-club"
        assert co.post(f"/truco/{gid}/confirm", {"seq": state(co, gid)["seq"]}).status_code == 200
        lines = [json.loads(line) for line in co.get(f"/truco/{gid}/export.jsonl").text.splitlines()[-4:]]
        assert [line["models"] for line in lines] == ["mesa-club"] * 4
    finally:
        app.extensions["cacho.camera"].close()
