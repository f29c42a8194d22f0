"""Pif Paf on the kiosk (seed 001): an evening by taps dealt face down; betting, turns, going out by the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.cards.replay import replay
from kiosk import cli
from tests.kiosk.cards_helpers import CardKiosk
from tests.kiosk.conftest import Coordinator

OUT = ["AS", "2S", "3S", "4H", "4D", "4C", "7C", "8C", "9C"]


def new_hand(co: Coordinator, players: str = "Ana\nBeto\nCaro", **extra: str) -> int:
    form = {"players": players, "chips": "10", "ante": "1", "name": "Pif Paf de prueba", **extra}
    response = co.form("/pifpaf/new", form)
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


PIFPAF = CardKiosk("pifpaf")
state, post, ok, refused = PIFPAF.state, PIFPAF.post, PIFPAF.ok, PIFPAF.refused


def playing(co: Coordinator) -> int:
    """Ana, Beto and Caro: Caro deals (Ana is on her left and plays first) and everyone calls."""
    gid = new_hand(co)
    ok(co, gid, action="hand", dealer=2)
    for _ in range(3):
        ok(co, gid, action="call")
    return gid


def test_setup_pages_and_refusals(coordinator: Coordinator) -> None:
    assert "/pifpaf/new" in coordinator.get("/cards/").text
    assert coordinator.get("/pifpaf/new").status_code == 200
    response = coordinator.form("/pifpaf/new", {"players": "Ana\nBeto", "chips": "10", "ante": "1"})
    assert response.status_code == 400 and "de 3 a 8" in response.text
    response = coordinator.form("/pifpaf/new", {"players": "Ana\nBeto\nCaro", "chips": "10", "ante": "0"})
    assert response.status_code == 400 and "ante" in response.text
    gid = new_hand(coordinator)
    assert "pifpaf.js" in coordinator.get(f"/pifpaf/{gid}").text
    assert coordinator.client.application.test_client().get(f"/pifpaf/{gid}/tv").status_code == 200
    now = state(coordinator, gid)
    assert now["phase"] == "hand" and now["next_dealer"] is None and [p["chips"] for p in now["players"]] == [10] * 3
    now = ok(coordinator, gid, action="hand", dealer=2)
    assert now["pot"] == 3 and [p["chips"] for p in now["players"]] == [9, 9, 9]


def test_betting_capped_at_ante_times_players(coordinator: Coordinator) -> None:
    gid = new_hand(coordinator)
    refused(coordinator, gid, "Pif Paf (Cacheta)", "primero empieza la mano", action="call", player=0)
    now = ok(coordinator, gid, action="hand", dealer=2)
    assert now["phase"] == "bet" and now["legal"]["raises"] == [1, 2, 3] and now["to_act"] == 0
    refused(coordinator, gid, "Game play", "más allá de ante × jugadores = 3", action="raise", amount=4)
    ok(coordinator, gid, action="raise", amount=2)
    ok(coordinator, gid, action="fold")
    now = ok(coordinator, gid, action="call")
    assert now["phase"] == "play" and now["pot"] == 7 and now["turn"] == 0


def test_turns_and_going_out_checked_by_the_engine(coordinator: Coordinator) -> None:
    gid = playing(coordinator)
    refused(coordinator, gid, "Play of the hand", "primero roba", action="discard", card="KS")
    refused(coordinator, gid, "Play of the hand", "no es su turno", action="draw", player=1, source="stock")
    ok(coordinator, gid, action="draw", source="stock")
    now = ok(coordinator, gid, action="discard", card="KS")
    assert now["top"]["card"] == "KS" and now["turn"] == 1 and now["claimable_from"] == 0
    ok(coordinator, gid, action="draw", source="discard")
    assert state(coordinator, gid)["players"][1]["cards"] == 10
    bad = [*OUT[:-1], "10H"]
    refused(coordinator, gid, "Play of the hand", "KS", action="out", discard="QH", cards=OUT)
    refused(coordinator, gid, "Play of the hand", "no forman todas juegos", action="out", discard="KS", cards=bad)
    now = ok(coordinator, gid, action="out", discard="KS", cards=OUT)
    assert now["last_hand"]["winner"] == 1 and now["last_hand"]["pot"] == 3 and now["phase"] == "hand"
    assert [p["chips"] for p in now["players"]] == [9, 12, 9]
    melds = now["last_hand"]["melds"]
    assert [m["kind"] for m in melds] and all(len(m["cards"]) == 3 for m in melds)
    assert now["next_dealer"] == 1  # the winner deals the next hand; the chips go on
    refused(coordinator, gid, "Pif Paf (Cacheta)", "reparte Beto", action="hand", dealer=0)
    now = ok(coordinator, gid, action="hand")
    assert now["dealer"] == 1 and now["to_act"] == 2 and [p["chips"] for p in now["players"]] == [8, 11, 8]


def test_a_claim_out_of_turn(coordinator: Coordinator) -> None:
    gid = playing(coordinator)
    ok(coordinator, gid, action="draw", source="stock")
    ok(coordinator, gid, action="discard", card="5S")
    shown = ["3S", "4S", "5S", "6H", "6D", "6C", "JC", "QC", "KC"]
    now = ok(coordinator, gid, action="claim", player=2, discard="2H", cards=shown)
    assert now["last_hand"]["winner"] == 2


def test_malformed_taps_undo_and_replay(
    coordinator: Coordinator, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    gid = playing(coordinator)
    seq = state(coordinator, gid)["seq"]
    for body in (
        {"action": "nope", "seq": seq},
        {"action": "draw", "source": "table", "seq": seq},
        {"action": "discard", "seq": seq},
        {"action": "out", "discard": "QH", "seq": seq},
    ):
        assert coordinator.post(f"/pifpaf/{gid}/action", body).status_code == 400, body
    ok(coordinator, gid, action="draw", source="stock")
    now = ok(coordinator, gid, action="discard", card="9D")
    after = coordinator.post(f"/pifpaf/{gid}/undo", {"seq": now["seq"]}).get_json()
    assert after["turn"] == 0 and after["top"] is None
    ok(coordinator, gid, action="discard", card="9H")
    text = coordinator.get(f"/pifpaf/{gid}/export.jsonl").text
    assert all("cards" not in json.loads(line) for line in text.splitlines()[1:] if '"draw"' in line)
    result = replay(text.splitlines())
    assert result.error is None and result.summary == state(coordinator, gid)["summary"]
    log = tmp_path / "pifpaf.jsonl"
    log.write_text(text, encoding="utf-8")
    assert cli.main(["cards", "replay", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == state(coordinator, gid)["summary"]
    copy = coordinator.form("/pifpaf/import", {"text": text, "name": "Copia"})
    assert copy.status_code == 302
