"""Spanish Cacho on the kiosk (seed 000): an evening by taps, the three betting rounds, the showdown, refusals."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engines.cards.replay import replay
from kiosk import cli
from tests.kiosk.cards_helpers import CardKiosk
from tests.kiosk.conftest import Coordinator, become_coordinator, make_app


def new_game(co: Coordinator, players: str = "Ana\nBeto\nCaro", chips: str = "10", **extra: str) -> int:
    response = co.form("/cacho/new", {"players": players, "chips": chips, "name": "Noche de Cacho", **extra})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


CACHO = CardKiosk("cacho")
state, post, ok, refused = CACHO.state, CACHO.post, CACHO.ok, CACHO.refused


def to_showdown(co: Coordinator, gid: int) -> dict[str, Any]:
    """Ana is the eldest; Caro passes the first round; Ana raises 3 in the third and Beto calls."""
    ok(co, gid, action="hand", eldest=0)
    ok(co, gid, action="bet")
    ok(co, gid, action="bet")
    now = ok(co, gid, action="pass")
    assert now["round"] == 2 and now["phase"] == "bet"  # the second card was dealt in the same tap
    ok(co, gid, action="bet")
    now = ok(co, gid, action="bet")
    assert now["round"] == 3 and now["pot"] == 6 and now["resto"] == 7
    ok(co, gid, action="raise", amount=3)
    return ok(co, gid, action="call")


def test_home_offers_spanish_cacho(coordinator: Coordinator) -> None:
    assert "/cacho/new" in coordinator.get("/").text
    gid = new_game(coordinator)
    home = coordinator.get("/").text
    assert f"/cacho/{gid}" in home and "Cacho español" in home
    assert ">New Spanish Cacho game</a>" in coordinator.get("/?lang=en").text


def test_setup_and_its_refusals(coordinator: Coordinator) -> None:
    assert coordinator.get("/cacho/new").status_code == 200
    response = coordinator.form("/cacho/new", {"players": "Ana", "chips": "10"})
    assert response.status_code == 400 and "Background" in response.text and "de 2 a 4" in response.text
    response = coordinator.form("/cacho/new", {"players": "A\nB\nC\nD\nE", "chips": "10"})
    assert response.status_code == 400 and "de 2 a 4" in response.text
    response = coordinator.form("/cacho/new", {"players": "Ana\nBeto", "chips": "diez"})
    assert response.status_code == 400 and "fichas" in response.text
    gid = new_game(coordinator, opt_high_card_tiebreak="kickers", options_form="1")
    start = json.loads(coordinator.get(f"/cacho/{gid}/export.jsonl").text.splitlines()[0])
    assert start["evening"] is True and start["chips"] == [10, 10, 10]
    assert start["options"] == {"call_without_bet": False, "deal_rotates": False, "high_card_tiebreak": "kickers"}


def test_pages_and_the_tv(client: FlaskClient, coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    assert "cacho.js" in coordinator.get(f"/cacho/{gid}").text
    stranger = client.application.test_client()
    assert stranger.get(f"/cacho/{gid}").status_code == 302
    assert stranger.get(f"/cacho/{gid}/tv").status_code == 200
    tv = stranger.get(f"/cacho/{gid}/state.json").get_json()
    assert tv["view"] == "tv" and "legal" not in tv and "deck" not in tv
    assert coordinator.get("/cacho/999").status_code == 404


def test_a_hand_by_taps_to_the_showdown(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    now = to_showdown(coordinator, gid)
    assert now["phase"] == "show" and now["pot"] == 12
    assert [p["chips"] for p in now["players"]] == [4, 4, 10]
    assert now["summary"]["in_hand"] == [0, 1]
    refused(coordinator, gid, "Winning", "se muestran las manos", action="pass", player=0)
    refused(
        coordinator,
        gid,
        "Background",
        "repetida",
        action="show",
        hands={"0": ["AD", "4D", "5D"], "1": ["AD", "2S", "6D"]},
    )
    refused(coordinator, gid, "Winning", "solo esas", action="show", hands={"0": ["AD", "4D", "5D"]})
    now = ok(coordinator, gid, action="show", hands={"0": ["4S", "2S", "6D"], "1": ["AD", "4D", "5D"]})
    assert now["phase"] == "hand"
    assert [p["chips"] for p in now["players"]] == [4, 16, 10]
    last = now["last_hand"]
    assert last["winner"] == 1 and last["pot"] == 12
    assert last["showdown"]["decided_by"] == "por categoría"
    hands = {h["seat"]: h for h in last["showdown"]["hands"]}
    assert hands[1]["label"] == "cacho (tres del mismo palo)" and hands[1]["points"] == 30
    assert hands[0]["category"] == "two_flush" and hands[0]["points"] == 26


def test_every_illegal_tap_is_refused_with_the_seeds_section(coordinator: Coordinator) -> None:
    gid = new_game(coordinator, chips="5")
    refused(coordinator, gid, "Dealing", "primero empieza la mano", action="bet", player=0)
    ok(coordinator, gid, action="hand", eldest=1)
    refused(coordinator, gid, "The first round", "no es su turno: le toca a Beto", action="bet", player=0)
    refused(coordinator, gid, "The first round", "no hay subidas", action="raise", player=1, amount=1)
    refused(coordinator, gid, "Dealing", "la mano en curso no ha terminado", action="hand", eldest=2)
    refused(coordinator, gid, "Winning", "al terminar las apuestas", action="show", hands={"1": ["AD", "4D", "5D"]})
    for _ in range(3):
        ok(coordinator, gid, action="bet")
    for _ in range(3):
        ok(coordinator, gid, action="bet")
    now = state(coordinator, gid)
    assert now["round"] == 3 and now["resto"] == 2
    refused(coordinator, gid, "Resto - Limit on Raises", "más allá del resto: 2", action="raise", amount=3)
    refused(coordinator, gid, "The Third Round", "en la tercera ronda se pasa", action="bet")
    assert now["legal"]["raises"] == [1, 2]


def test_all_pass_the_cards_are_dealt_again(coordinator: Coordinator) -> None:
    gid = new_game(coordinator, players="Ana\nBeto")
    ok(coordinator, gid, action="hand", eldest=0)
    ok(coordinator, gid, action="pass")
    now = ok(coordinator, gid, action="pass")
    assert now["round"] == 1 and now["phase"] == "bet" and now["summary"]["in_hand"] == [0, 1]
    lines = coordinator.get(f"/cacho/{gid}/export.jsonl").text.splitlines()
    assert [json.loads(x)["event"] for x in lines[-2:]] == ["pass", "deal"]


def test_a_hand_won_without_showing_and_the_chips_carried_over(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    ok(coordinator, gid, action="hand", eldest=0)
    ok(coordinator, gid, action="bet")
    ok(coordinator, gid, action="pass")
    now = ok(coordinator, gid, action="pass")
    assert now["phase"] == "hand" and now["last_hand"] == {"winner": 0, "pot": 1, "showdown": None}
    assert [p["chips"] for p in now["players"]] == [10, 10, 10]
    assert now["next_eldest"] == 1
    refused(coordinator, gid, "Dealing", "el mano de esta mano es Beto", action="hand", eldest=0)
    now = ok(coordinator, gid, action="hand")
    assert now["eldest"] == 1 and now["to_act"] == 1 and now["players"][0]["hands_won"] == 1


def test_undo_takes_back_the_whole_tap(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    ok(coordinator, gid, action="hand", eldest=0)
    ok(coordinator, gid, action="bet")
    ok(coordinator, gid, action="bet")
    before = state(coordinator, gid)
    now = ok(coordinator, gid, action="pass")  # the pass and the second round's card
    assert now["seq"] == before["seq"] + 2
    after = coordinator.post(f"/cacho/{gid}/undo", {"seq": now["seq"]}).get_json()
    assert after["summary"] == before["summary"] and after["seq"] == now["seq"] + 2


def test_an_evening_replays_to_the_same_state(
    coordinator: Coordinator, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    gid = new_game(coordinator)
    to_showdown(coordinator, gid)
    ok(coordinator, gid, action="show", hands={"0": ["6S", "6H", "6D"], "1": ["AD", "4D", "5D"]})
    ok(coordinator, gid, action="hand")
    ok(coordinator, gid, action="bet")
    text = coordinator.get(f"/cacho/{gid}/export.jsonl").text
    result = replay(text.splitlines())
    assert result.error is None and result.summary == state(coordinator, gid)["summary"]
    log = tmp_path / "cacho.jsonl"
    log.write_text(text, encoding="utf-8")
    assert cli.main(["cards", "replay", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == state(coordinator, gid)["summary"]
    upload = {"name": "Copia", "log": (io.BytesIO(text.encode()), "cacho.jsonl"), "csrf_token": coordinator.token}
    response = coordinator.client.post("/cacho/import", data=upload, content_type="multipart/form-data")
    assert response.status_code == 302
    copy = int(response.headers["Location"].rsplit("/", 1)[1])
    assert state(coordinator, copy)["summary"] == state(coordinator, gid)["summary"]
    truco = Path("kiosk/demo/cards_truco.jsonl").read_text(encoding="utf-8")
    assert coordinator.form("/cacho/import", {"text": truco}).status_code == 400


def test_malformed_and_stale_taps(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    seq = state(coordinator, gid)["seq"]
    for body in (
        {"action": "nope", "seq": seq},
        {"action": "hand", "eldest": "x", "seq": seq},
        {"action": "show", "hands": [], "seq": seq},
        {"action": "hand"},
    ):
        assert coordinator.post(f"/cacho/{gid}/action", body).status_code == 400, body
    assert post(coordinator, gid, action="hand", eldest=0, seq=seq).status_code == 200
    stale = post(coordinator, gid, action="hand", eldest=0, seq=seq)
    assert stale.status_code == 409 and "cambió" in stale.get_json()["error"]
    ok(coordinator, gid, action="bet")
    response = post(coordinator, gid, action="raise", player=1)
    assert response.status_code == 400


def test_every_change_is_published_and_survives_a_restart(tmp_path: Path) -> None:
    first = make_app(tmp_path)
    co = become_coordinator(first.test_client())
    gid = new_game(co)
    inbox = first.extensions["cacho.bus"].subscribe()
    ok(co, gid, action="hand", eldest=0)
    message = inbox.get(timeout=2)
    assert message is not None and message.topic == f"table:{gid}"
    ok(co, gid, action="bet")
    before = state(co, gid)
    first.extensions["cacho.camera"].close()
    again: Flask = make_app(tmp_path)
    try:
        co2 = become_coordinator(again.test_client())
        assert state(co2, gid)["summary"] == before["summary"]
    finally:
        again.extensions["cacho.camera"].close()
