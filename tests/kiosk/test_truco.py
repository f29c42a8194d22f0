"""Truco on the kiosk (seed 001): every endpoint, each tap checked by the engine, refusals, undo and replay."""

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

PLAYERS = ("Ana", "Beto", "Caro", "Davi")
HIGH = ["4C", "7H", "AS", "7D", "3S", "3H"]  # the four manilhas and two 3s: the winning pair's cards
LOW = ["4S", "4H", "4D", "5S", "5H", "5D"]  # the lowest cards: the other pair's


def new_game(co: Coordinator, **options: str) -> int:
    """Seat Ana, Beto, Caro and Davi (Ana and Caro against Beto and Davi); the game's id."""
    form = {f"p{k}": name for k, name in enumerate(PLAYERS)} | {"name": "Truco de prueba", "opt_truco_in_turn": "on"}
    response = co.form("/truco/new", form | options)
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


TRUCO = CardKiosk("truco")
state, post, ok, refused = TRUCO.state, TRUCO.post, TRUCO.ok, TRUCO.refused


def deal(co: Coordinator, gid: int, dealer: int | None = None) -> dict[str, Any]:
    """Deal a hand (the mão keeps): the state in play."""
    body: dict[str, Any] = {"action": "hand"}
    if dealer is not None:
        body["dealer"] = dealer
    after = ok(co, gid, **body)
    if after["phase"] == "deal":
        after = ok(co, gid, action="keep")
    return after


def win_hand(co: Coordinator, gid: int, team: int, raise_by: int | None = None) -> dict[str, Any]:
    """Play the hand in play so that `team` takes the first two tricks (a truco raised first, when asked)."""
    high, low = list(HIGH), list(LOW)
    now = state(co, gid)
    if raise_by is not None:
        ok(co, gid, action="truco", player=now["turn"])
        ok(co, gid, action="accept", player=(now["turn"] + 1) % 4)
    while state(co, gid)["phase"] == "play":
        now = state(co, gid)
        seat = now["turn"]
        card = (high if seat % 2 == team else low).pop(0)
        now = ok(co, gid, action="play", card=card)
    return now


def test_home_offers_truco(coordinator: Coordinator) -> None:
    home = coordinator.get("/").text
    assert "/truco/new" in home and "Nueva partida de Truco" in home
    gid = new_game(coordinator)
    home = coordinator.get("/").text
    assert f"/truco/{gid}" in home and "Truco de prueba" in home
    assert ">New Truco game</a>" in coordinator.get("/?lang=en").text


def test_setup_form_and_its_refusals(coordinator: Coordinator) -> None:
    page = coordinator.get("/truco/new")
    assert page.status_code == 200 and 'name="p3"' in page.text and "triple_tie" in page.text
    response = coordinator.form("/truco/new", {"p0": "Ana", "p1": "Beto", "p2": "Caro", "p3": ""})
    assert response.status_code == 400 and "se juega de a cuatro" in response.text
    bad = {f"p{k}": n for k, n in enumerate(PLAYERS)} | {"opt_triple_tie": "nadie"}
    response = coordinator.form("/truco/new", bad)
    assert response.status_code == 400 and "triple_tie" in response.text
    gid = new_game(coordinator, opt_triple_tie="mao")
    start = json.loads(coordinator.get(f"/truco/{gid}/export.jsonl").text.splitlines()[0])
    assert start["game"] == "truco" and start["players"] == list(PLAYERS)
    assert start["options"] == {"triple_tie": "mao", "truco_in_turn": True}


def test_pages_need_the_pin_but_the_tv_does_not(client: FlaskClient, coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    assert coordinator.get(f"/truco/{gid}").status_code == 200
    assert "truco.js" in coordinator.get(f"/truco/{gid}").text
    stranger = client.application.test_client()
    assert stranger.get(f"/truco/{gid}").status_code == 302
    assert stranger.get(f"/truco/{gid}/tv").status_code == 200
    tv = stranger.get(f"/truco/{gid}/state.json").get_json()
    assert tv["view"] == "tv" and "legal" not in tv
    assert stranger.post(f"/truco/{gid}/action", json={"action": "hand", "seq": 1}).status_code in (400, 401)
    assert stranger.get(f"/truco/{gid}/export.jsonl").status_code == 302
    assert coordinator.get("/truco/999").status_code == 404
    assert coordinator.get("/truco/999/state.json").status_code == 404


def test_posts_without_the_csrf_token_are_refused(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    response = coordinator.client.post(f"/truco/{gid}/action", json={"action": "hand", "seq": 1})
    assert response.status_code in (400, 403)
    assert state(coordinator, gid)["seq"] == 1


def test_a_hand_dealt_face_down_by_taps(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    first = state(coordinator, gid)
    assert first["phase"] == "hand" and first["dealer"] is None and first["teams"][0]["names"] == ["Ana", "Caro"]
    after = ok(coordinator, gid, action="hand", dealer=3)
    assert after["phase"] == "deal" and after["offer"] == 0 and after["mao"] == 0
    assert after["seq"] == 3  # the hand and the three cards offered to the mão: one tap, two lines
    after = ok(coordinator, gid, action="reject")
    assert after["rejections"] == 1 and after["offer"] == 0
    after = ok(coordinator, gid, action="pass")
    assert after["offer"] == 0
    after = ok(coordinator, gid, action="keep")
    assert after["phase"] == "play" and after["turn"] == 0
    assert [p["cards_left"] for p in after["players"]] == [3, 3, 3, 3]
    lines = [json.loads(x) for x in coordinator.get(f"/truco/{gid}/export.jsonl").text.splitlines()]
    assert [x["event"] for x in lines[-3:]] == ["keep", "deal", "deal"]  # the partner holds the hand passed
    assert all("cards" not in x for x in lines[1:])  # the kiosk never sees the hands
    assert len({x["tap"] for x in lines[-3:]}) == 1 and lines[-1]["by"] == "coordinador"


def test_tricks_are_awarded_by_the_engine(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    deal(coordinator, gid, dealer=3)
    for card in ("5S", "7H", "4C", "3S"):
        now = ok(coordinator, gid, action="play", card=card)
    assert now["tricks"][0]["team"] == 0 and now["tricks"][0]["winner"] == 2 and now["turn"] == 2
    assert [p["card"] for p in now["tricks"][0]["plays"]] == ["5S", "7H", "4C", "3S"]
    now = ok(coordinator, gid, action="play", card="6S", down=True)
    assert now["current"][0]["down"] is True and now["current"][0]["seat"] == 2
    for card in ("4S", "5H", "6H"):
        now = ok(coordinator, gid, action="play", card=card)
    assert now["tricks"][1]["team"] == 1  # the face-down card cannot win: 6H (Beto) takes it
    cards = {1: "KS", 2: "AS", 3: "4D", 0: "6D"}  # Beto leads the third trick; Caro's A♠ takes it
    while now["phase"] == "play":
        now = ok(coordinator, gid, action="play", card=cards[now["turn"]])
    assert now["last_hand"] == {"team": 0, "tentos": 1, "reason": "tricks"} and now["teams"][0]["score"] == 1


def test_truco_raise_accept_and_run(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    deal(coordinator, gid, dealer=3)
    tv = coordinator.get(f"/truco/{gid}/state.json?view=tv").get_json()
    assert tv["may_raise"] == [0] and tv["next_raise_name"] == "¡Truco!"  # the TV says who may raise too
    now = ok(coordinator, gid, action="truco", player=0)
    assert now["pending"] == 3 and now["pending_name"] == "¡Truco!" and now["raiser_team"] == 0
    assert now["may_raise"] == [1, 3] and now["next_raise_name"] == "¡Seis!"
    legal = now["legal"]["seats"]
    assert legal[1]["may"]["accept"]["allowed"] and not legal[2]["may"]["accept"]["allowed"]
    assert legal[2]["may"]["accept"]["article"] == "Subir la apuesta"
    now = ok(coordinator, gid, action="truco", player=3)  # six: the truco accepted by raising over it
    assert now["stake"] == 3 and now["pending"] == 6 and now["pending_name"] == "¡Seis!"
    now = ok(coordinator, gid, action="run", player=2)
    assert now["last_hand"] == {"team": 1, "tentos": 3, "reason": "run"}
    assert now["teams"][1]["score"] == 3 and now["phase"] == "hand"


def test_every_illegal_tap_is_refused_with_the_seeds_section(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    refused(coordinator, gid, "El reparto", "primero empieza la mano", action="keep")
    refused(coordinator, gid, "El reparto", "no hay asiento 7", action="hand", dealer=7)
    ok(coordinator, gid, action="hand", dealer=3)
    refused(coordinator, gid, "El reparto", "decide el mão: Ana", action="keep", player=1)
    for _ in range(3):
        ok(coordinator, gid, action="reject")
    refused(coordinator, gid, "El reparto", "más de tres manos", action="reject")
    ok(coordinator, gid, action="keep")
    refused(coordinator, gid, "Juego de la mano", "no es su turno: juega Ana", action="play", player=1, card="4C")
    refused(
        coordinator,
        gid,
        "Juego de la mano",
        "primera baza no se juega carta tapada",
        action="play",
        card="4C",
        down=True,
    )
    refused(coordinator, gid, "Truco", "no está en la baraja", action="play", card="8S")
    refused(coordinator, gid, "Subir la apuesta", "truca quien está por jugar", action="truco", player=2)
    refused(coordinator, gid, "Subir la apuesta", "no hay truco que responder", action="accept", player=1)
    ok(coordinator, gid, action="play", card="4C")
    refused(coordinator, gid, "Juego de la mano", "ya se vio en esta mano", action="play", card="4C")
    ok(coordinator, gid, action="truco", player=1)
    refused(coordinator, gid, "Subir la apuesta", "responder el truco antes de jugar", action="play", card="7H")
    refused(coordinator, gid, "Subir la apuesta", "responde la pareja contraria", action="accept", player=3)
    ok(coordinator, gid, action="accept", player=0)
    refused(coordinator, gid, "Subir la apuesta", "la pareja que hizo la última subida", action="truco", player=1)
    refused(coordinator, gid, "El reparto", "el reparto ya terminó", action="offer")
    refused(coordinator, gid, "Juego de la mano", "la mano en curso no ha terminado", action="hand")


def test_the_raise_is_never_beyond_what_wins_the_game(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    deal(coordinator, gid, dealer=3)
    win_hand(coordinator, gid, team=0, raise_by=0)
    deal(coordinator, gid)
    win_hand(coordinator, gid, team=0, raise_by=0)
    deal(coordinator, gid)
    win_hand(coordinator, gid, team=0, raise_by=0)
    now = deal(coordinator, gid)
    assert now["teams"][0]["score"] == 9 and now["turn"] == 3
    ok(coordinator, gid, action="truco", player=3)
    refused(coordinator, gid, "Subir la apuesta", "ya ganan el juego", action="truco", player=0)


def test_malformed_taps_are_400_and_change_nothing(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    seq = state(coordinator, gid)["seq"]
    for body in (
        {"action": "nope", "seq": seq},
        {"action": "hand", "dealer": "x", "seq": seq},
        {"action": "eleven", "team": 0, "seq": seq},
        {"action": "foul", "team": "x", "kind": "cut", "seq": seq},
        {"action": "hand"},
        {"action": "hand", "seq": "1"},
    ):
        response = coordinator.post(f"/truco/{gid}/action", body)
        assert response.status_code == 400, body
        assert response.get_json()["error"]
    assert (
        coordinator.client.post(
            f"/truco/{gid}/action",
            data="[]",
            headers={"X-CSRF-Token": coordinator.token},
            content_type="application/json",
        ).status_code
        == 400
    )
    deal(coordinator, gid, dealer=3)
    response = post(coordinator, gid, action="play", card="ZZ")
    assert response.status_code == 409 and response.get_json()["article"] == "Notación de cartas"
    response = post(coordinator, gid, action="play")
    assert response.status_code == 400
    assert state(coordinator, gid)["seq"] == 7


def test_a_stale_page_is_refused(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    seq = state(coordinator, gid)["seq"]
    assert post(coordinator, gid, action="hand", dealer=3, seq=seq).status_code == 200
    again = post(coordinator, gid, action="hand", dealer=3, seq=seq)
    assert again.status_code == 409 and "cambió" in again.get_json()["error"]


def test_undo_takes_back_the_whole_last_tap_and_is_logged(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    assert state(coordinator, gid)["can_undo"] is False
    response = coordinator.post(f"/truco/{gid}/undo", {"seq": 1})
    assert response.status_code == 409 and response.get_json()["article"] == "Registro"
    ok(coordinator, gid, action="hand", dealer=3)
    before = state(coordinator, gid)
    now = ok(coordinator, gid, action="keep")  # keep and three deals: four lines
    assert now["seq"] == before["seq"] + 4
    response = coordinator.post(f"/truco/{gid}/undo", {"seq": now["seq"]})
    assert response.status_code == 200
    after = response.get_json()
    assert after["seq"] == now["seq"] + 4 and after["phase"] == "deal" and after["offer"] == 0
    assert after["summary"] == before["summary"]
    lines = coordinator.get(f"/truco/{gid}/export.jsonl").text.splitlines()
    assert [json.loads(x)["event"] for x in lines[-4:]] == ["undo"] * 4
    assert coordinator.post(f"/truco/{gid}/undo", {}).status_code == 400  # without seq


def test_a_foul_gives_a_tento_never_the_twelfth(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    now = ok(coordinator, gid, action="foul", team=1, kind="disclose")
    assert now["teams"][0]["score"] == 1
    refused(coordinator, gid, "Subir la apuesta", "falta desconocida", action="foul", team=0, kind="nada")


def test_the_hand_of_eleven_and_the_iron_hand(coordinator: Coordinator) -> None:
    text = "\n".join(
        [
            '{"event": "start", "game": "truco", "players": ["Ana", "Beto", "Caro", "Davi"]}',
            *['{"event": "foul", "team": 1, "kind": "disclose"}'] * 11,
        ]
    )
    response = coordinator.form("/truco/import", {"text": text, "name": "Once"})
    assert response.status_code == 302
    gid = int(response.headers["Location"].rsplit("/", 1)[1])
    now = ok(coordinator, gid, action="hand", dealer=3)
    assert now["phase"] == "eleven" and now["kind"] == "eleven"
    assert now["seq"] == 12 + 5  # the hand and a direct deal to each seat, no offer
    refused(coordinator, gid, "La mano de once", "decide la pareja que tiene once", action="eleven", team=1, play=True)
    now = ok(coordinator, gid, action="eleven", team=0, play=True)
    assert now["stake"] == 3 and now["phase"] == "play"
    refused(coordinator, gid, "La mano de once", "no se puede trucar", action="truco", player=0)
    coordinator.post(f"/truco/{gid}/undo", {"seq": now["seq"]})
    now = ok(coordinator, gid, action="eleven", team=0, play=False)
    assert now["teams"][1]["score"] == 1 and now["last_hand"]["reason"] == "eleven_run"


def test_a_whole_game_to_twelve_replays_to_the_same_state(
    coordinator: Coordinator, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    gid = new_game(coordinator)
    deal(coordinator, gid, dealer=3)
    now = win_hand(coordinator, gid, team=1, raise_by=0)
    while now["winner"] is None:
        deal(coordinator, gid)
        now = win_hand(coordinator, gid, team=0, raise_by=0)
    assert now["winner"] == 0 and now["teams"][0]["score"] == 12 and now["phase"] == "over"
    refused(coordinator, gid, "Objeto del Truco", "el juego terminó", action="hand")
    text = coordinator.get(f"/truco/{gid}/export.jsonl").text
    result = replay(text.splitlines())
    assert result.error is None and result.summary == state(coordinator, gid)["summary"]
    log = tmp_path / "truco.jsonl"
    log.write_text(text, encoding="utf-8")
    assert cli.main(["cards", "replay", str(log), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["state"] == state(coordinator, gid)["summary"]


def test_export_and_import_round_trip(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    deal(coordinator, gid, dealer=3)
    ok(coordinator, gid, action="play", card="4C")
    exported = coordinator.get(f"/truco/{gid}/export.jsonl")
    assert exported.status_code == 200 and exported.mimetype == "application/jsonl"
    assert 'filename="truco-' in exported.headers["Content-Disposition"]
    upload = {"name": "Copia", "log": (io.BytesIO(exported.data), "truco.jsonl"), "csrf_token": coordinator.token}
    response = coordinator.client.post("/truco/import", data=upload, content_type="multipart/form-data")
    assert response.status_code == 302
    copy = int(response.headers["Location"].rsplit("/", 1)[1])
    assert state(coordinator, copy)["summary"] == state(coordinator, gid)["summary"]
    assert state(coordinator, copy)["name"] == "Copia"


def test_import_refuses_a_log_that_does_not_replay(coordinator: Coordinator) -> None:
    start = '{"event": "start", "game": "truco", "players": ["Ana", "Beto", "Caro", "Davi"]}'
    response = coordinator.form("/truco/import", {"text": start + '\n{"event": "keep", "player": 0}'})
    assert response.status_code == 400 and "línea 2 (El reparto)" in response.text
    cacho = Path("kiosk/demo/cards_cacho.jsonl").read_text(encoding="utf-8")
    response = coordinator.form("/truco/import", {"text": cacho})
    assert response.status_code == 400 and "otro juego" in response.text
    assert coordinator.form("/truco/import", {"text": ""}).status_code == 400
    demo = Path("kiosk/demo/cards_truco.jsonl").read_text(encoding="utf-8")
    assert coordinator.form("/truco/import", {"text": demo, "name": "Demo"}).status_code == 302


def test_every_change_is_published_live(app: Flask, coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    inbox = app.extensions["cacho.bus"].subscribe()
    ok(coordinator, gid, action="hand", dealer=3)
    message = inbox.get(timeout=2)
    assert message is not None and message.topic == f"table:{gid}"


def test_the_game_survives_a_restart(tmp_path: Path) -> None:
    first = make_app(tmp_path)
    co = become_coordinator(first.test_client())
    gid = new_game(co)
    deal(co, gid, dealer=3)
    ok(co, gid, action="truco", player=0)
    before = state(co, gid)
    first.extensions["cacho.camera"].close()
    again = make_app(tmp_path)
    try:
        co2 = become_coordinator(again.test_client())
        after = state(co2, gid)
        assert after["summary"] == before["summary"] and after["seq"] == before["seq"] and after["pending"] == 3
    finally:
        again.extensions["cacho.camera"].close()


def test_english_labels(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    page = coordinator.get(f"/truco/{gid}?lang=en").text
    assert '"Quiero": "Accept"' in page and '"Mano de hierro": "Iron hand"' in page


def test_the_cut_noted_with_the_deal(coordinator: Coordinator) -> None:
    gid = new_game(coordinator)
    refused(
        coordinator,
        gid,
        "El reparto",
        "de una a tres veces",
        action="hand",
        dealer=3,
        cut={"cuts": 4, "from": "top"},
    )
    assert post(coordinator, gid, action="hand", dealer=3, cut={"cuts": 1, "from": "side"}).status_code == 400
    now = ok(coordinator, gid, action="hand", dealer=3, cut={"cuts": 2, "from": "bottom"})
    lines = [json.loads(x) for x in coordinator.get(f"/truco/{gid}/export.jsonl").text.splitlines()]
    assert [x["event"] for x in lines[1:]] == ["hand", "cut", "offer"]
    assert lines[2]["player"] == 2 and lines[2]["from"] == "bottom" and now["phase"] == "deal"
    assert "Caro corta dos veces; se reparte de abajo" in now["history"]
