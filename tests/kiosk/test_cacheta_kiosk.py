"""Cacheta on the kiosk (seed 003): rounds by taps dealt face down, knocks ruled by the engine, the points table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.cards.replay import replay
from kiosk import cli
from tests.kiosk.cards_helpers import CardKiosk
from tests.kiosk.conftest import Coordinator

NINE = ["AS", "2S", "3S", "4H", "4D", "4C", "7C", "8C", "9C"]  # no trumps with the flip 2H (3D and 3H)


def new_table(co: Coordinator, players: str = "Ana\nBeto", points: str = "2") -> int:
    form = {"players": players, "start_points": points, "set_min_suits": "3", "name": "Cacheta de prueba"}
    response = co.form("/cacheta/new", form)
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


CACHETA = CardKiosk("cacheta")
state, post, ok, refused = CACHETA.state, CACHETA.post, CACHETA.ok, CACHETA.refused


def test_setup_pages_and_refusals(coordinator: Coordinator) -> None:
    assert "/cacheta/new" in coordinator.get("/cards/").text
    assert coordinator.get("/cacheta/new").status_code == 200
    response = coordinator.form("/cacheta/new", {"players": "Ana", "start_points": "10"})
    assert response.status_code == 400 and "de 2 a 8" in response.text
    response = coordinator.form("/cacheta/new", {"players": "Ana\nBeto", "set_min_suits": "4"})
    assert response.status_code == 400 and "Set" in response.text
    gid = new_table(coordinator)
    assert "cacheta.js" in coordinator.get(f"/cacheta/{gid}").text
    assert coordinator.client.application.test_client().get(f"/cacheta/{gid}/tv").status_code == 200


def test_two_rounds_to_the_end_with_vp_and_gp(coordinator: Coordinator) -> None:
    gid = new_table(coordinator)
    refused(coordinator, gid, "The Game", "primero se reparte", action="draw", source="stock")
    now = ok(coordinator, gid, action="deal", flip="2H")
    assert now["round"] == 1 and [t["card"] for t in now["trumps"]] == ["3D", "3H"]
    assert [p["cards"] for p in now["players"]] == [9, 9]
    ok(coordinator, gid, action="draw", source="stock")
    bad = [*NINE[:-1], "10H"]
    refused(coordinator, gid, "Knock out", "no forman todas juegos", action="knock", discard="QH", cards=bad)
    now = ok(coordinator, gid, action="knock", discard="QH", cards=NINE)
    assert [p["points"] for p in now["players"]] == [2, 1] and now["phase"] == "deal"
    assert now["rounds"] == [{"round": 1, "knock": 0, "cards": 9, "points": [2, 1]}]
    assert now["last_knock"]["player"] == 0 and len(now["last_knock"]["melds"]) == 3
    now = ok(coordinator, gid, action="deal", flip="2H")
    assert now["turn"] == 1  # the first player rotates
    ok(coordinator, gid, action="draw", source="stock")
    now = ok(coordinator, gid, action="knock", discard=None, cards=[*NINE, "10C"])
    assert now["phase"] == "over" and now["winner"] == 1
    assert [row["points"] for row in now["rounds"]] == [[2, 1], [0, 1]]
    assert now["vp"] == [3, 5] and now["gp"] == [2, 3]


def test_good_one_and_a_cut_that_burns(coordinator: Coordinator) -> None:
    gid = new_table(coordinator, players="Ana\nBeto\nCaro", points="5")
    ok(coordinator, gid, action="deal", flip="2H")
    refused(coordinator, gid, "Cut the Line", "no hay descarte", action="cut", player=2, discard="8D", cards=NINE)
    now = ok(coordinator, gid, action="good_one", player=2)
    assert now["players"][2]["good_one"] and 2 not in now["legal"]["good_one"]
    ok(coordinator, gid, action="draw", source="stock")
    ok(coordinator, gid, action="discard", card="5S")
    wrong = ["3S", "4S", "5S", "6H", "6D", "6C", "JC", "QC", "10H"]
    now = ok(coordinator, gid, action="cut", player=2, discard="8D", cards=wrong)
    assert now["players"][2]["burned"] and [p["points"] for p in now["players"]] == [5, 5, 5]


def test_malformed_taps_undo_and_replay(
    coordinator: Coordinator, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    gid = new_table(coordinator)
    seq = state(coordinator, gid)["seq"]
    for body in ({"action": "nope", "seq": seq}, {"action": "deal", "seq": seq}, {"action": "knock", "seq": seq}):
        assert coordinator.post(f"/cacheta/{gid}/action", body).status_code == 400, body
    response = post(coordinator, gid, action="deal", flip="ZZ")
    assert response.status_code == 409 and response.get_json()["article"] == "Notación de cartas"
    ok(coordinator, gid, action="deal", flip="2H")
    now = ok(coordinator, gid, action="draw", source="stock")
    after = coordinator.post(f"/cacheta/{gid}/undo", {"seq": now["seq"]}).get_json()
    assert after["must_draw"] is True
    ok(coordinator, gid, action="draw", source="stock")
    ok(coordinator, gid, action="knock", discard="QH", cards=NINE)
    text = coordinator.get(f"/cacheta/{gid}/export.jsonl").text
    result = replay(text.splitlines())
    assert result.error is None and result.summary == state(coordinator, gid)["summary"]
    log = tmp_path / "cacheta.jsonl"
    log.write_text(text, encoding="utf-8")
    assert cli.main(["cards", "replay", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == state(coordinator, gid)["summary"]
    assert coordinator.form("/cacheta/import", {"text": text, "name": "Copia"}).status_code == 302
