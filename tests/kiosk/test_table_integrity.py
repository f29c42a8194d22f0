"""What the kiosk keeps whole: a refused request changes nothing, every change names the event it follows."""

from __future__ import annotations

import json
from typing import Any

from engines.dudo import replay_lines
from tests.bolivia.kiosk_play import new_game, set_faces
from tests.kiosk.conftest import Coordinator


def test_a_refused_timer_request_changes_nothing(coordinator: Coordinator) -> None:
    table = coordinator.new_table()
    before = coordinator.get(f"/dudo/{table}/state.json").json["timer"]
    for body in ({"op": "start", "limit": 5000}, {"op": "start", "limit": True}, {"op": "reset", "limit": 2}):
        assert coordinator.post(f"/dudo/{table}/timer", body).status_code == 400, body
        assert coordinator.get(f"/dudo/{table}/state.json").json["timer"] == before, body
    coordinator.post(f"/dudo/{table}/timer", {"op": "start", "limit": 45})
    running = coordinator.get(f"/dudo/{table}/state.json").json["timer"]
    assert coordinator.post(f"/dudo/{table}/timer", {"op": "reset", "limit": 9999}).status_code == 400
    assert coordinator.post(f"/dudo/{table}/timer", {"op": "launch", "limit": 30}).status_code == 400
    assert coordinator.get(f"/dudo/{table}/state.json").json["timer"] == running


# ------------------------------------------------------------------ the last ruling and its photo

FIRST_DICE = {"Ana": [5, 5, 1, 2, 3], "Beto": [6, 6, 6, 6, 6]}
SECOND_DICE = {"Ana": [3, 3, 3, 1, 2], "Beto": [1, 4, 4, 4]}
FIRST_REVEAL: dict[str, Any] = {"event": "reveal", "dice": FIRST_DICE, "photo": "1/0003-1.jpg"}
SECOND_REVEAL: dict[str, Any] = {"event": "reveal", "dice": SECOND_DICE, "photo": "1/0007-2.jpg"}
TWO_RULINGS: list[dict[str, Any]] = [
    {"event": "start", "players": ["Ana", "Beto"], "opener": "Ana"},
    {"event": "bid", "player": "Ana", "quantity": 2, "face": 5},
    {"event": "dudo", "player": "Beto"},
    FIRST_REVEAL,
    {"event": "bid", "player": "Beto", "quantity": 2, "face": 3},
    {"event": "dudo", "player": "Ana"},
    SECOND_REVEAL,
]


def imported(c: Coordinator, events: list[dict[str, Any]]) -> int:
    """A Dudo table imported from `events` (photos named in the reveal lines); its id."""
    response = c.form("/dudo/import", {"text": "\n".join(json.dumps(e) for e in events), "name": "Mesa"})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def rulings_shown(c: Coordinator, table: int) -> list[dict[str, Any] | None]:
    """«Último fallo» as the coordinator's screen and the TV get it."""
    return [c.get(f"/dudo/{table}/state.json{view}").json["last_ruling"] for view in ("", "?view=tv")]


def test_after_undoing_a_ruling_the_last_ruling_shows_its_own_photo(coordinator: Coordinator) -> None:
    table = imported(coordinator, TWO_RULINGS)
    first = replay_lines([json.dumps(e) for e in TWO_RULINGS[:4]]).table
    assert first is not None
    for shown in rulings_shown(coordinator, table):
        assert shown is not None and shown["photo"].endswith("/0007-2.jpg")
        assert shown["shown_dice"] == SECOND_REVEAL["dice"]
    seq = coordinator.get(f"/dudo/{table}/state.json").json["seq"]
    assert coordinator.post(f"/dudo/{table}/undo", {"seq": seq}).status_code == 200  # the second ruling
    for shown in rulings_shown(coordinator, table):
        assert shown is not None and shown["message"] == first.rulings[-1].to_dict()["message"]
        assert shown["photo"].endswith("/0003-1.jpg") and shown["shown_dice"] == FIRST_REVEAL["dice"]
    # Undo the second dudo and the bid before it, then the first ruling: no ruling is left to show.
    for _ in range(3):
        seq = coordinator.get(f"/dudo/{table}/state.json").json["seq"]
        assert coordinator.post(f"/dudo/{table}/undo", {"seq": seq}).status_code == 200
    assert rulings_shown(coordinator, table) == [None, None]


def test_a_ruling_confirmed_again_after_an_undo_shows_the_new_reveal(coordinator: Coordinator) -> None:
    again = {**SECOND_REVEAL, "photo": "1/0009-3.jpg"}
    table = imported(coordinator, [*TWO_RULINGS, {"event": "undo"}, again])
    for shown in rulings_shown(coordinator, table):
        assert shown is not None and shown["photo"].endswith("/0009-3.jpg")


# ------------------------------------------------------------------ every change names the event it follows


def raw_post(c: Coordinator, url: str, body: dict[str, Any]) -> Any:
    """POST JSON with the CSRF token and nothing added (the Coordinator's own post fills in `seq`)."""
    return c.client.post(url, json=body, headers={"X-CSRF-Token": c.token})


def refused_without_seq(c: Coordinator, url: str, body: dict[str, Any], export: str) -> None:
    """`body` without `seq`, and with `"seq": null`, is refused with 400 and the log is unchanged."""
    before = c.get(export).text
    for sent in (body, {**body, "seq": None}):
        response = raw_post(c, url, sent)
        assert response.status_code == 400, (url, sent, response.json)
        assert "falta 'seq'" in response.json["error"] and response.json["article"] is None
        assert c.get(export).text == before


def test_a_dudo_change_without_seq_is_refused(coordinator: Coordinator) -> None:
    c = coordinator
    table = c.new_table()
    export = f"/dudo/{table}/export.jsonl"
    refused_without_seq(c, f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5}, export)
    assert raw_post(c, f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 2, "face": 5, "seq": 1})
    refused_without_seq(c, f"/dudo/{table}/undo", {}, export)
    raw_post(c, f"/dudo/{table}/action", {"event": "dudo", "player": "Beto", "seq": 2})
    state = c.post(f"/dudo/{table}/manual").json
    for name, dice in state["reading"]["players"].items():
        for entry in dice:
            state = c.post(f"/dudo/{table}/die", {"player": name, "die": entry["id"], "face": 3}).json
    assert state["reading"]["proposal"]["ok"]
    refused_without_seq(c, f"/dudo/{table}/confirm", {}, export)
    assert raw_post(c, f"/dudo/{table}/confirm", {"seq": 3}).json["last_ruling"] is not None


def test_a_bolivian_change_without_seq_is_refused(coordinator: Coordinator) -> None:
    c = coordinator
    gid = new_game(c)
    export = f"/bolivia/{gid}/export.jsonl"
    assert c.post(f"/bolivia/{gid}/manual").status_code == 200
    current = set_faces(c, gid, [5, 5, 5, 3, 1])
    assert current["reading"]["proposal"]["ok"]
    refused_without_seq(c, f"/bolivia/{gid}/confirm", {}, export)
    current = raw_post(c, f"/bolivia/{gid}/confirm", {"seq": current["seq"]}).json
    refused_without_seq(c, f"/bolivia/{gid}/action", {"event": "declare", "category": "quinas"}, export)
    refused_without_seq(c, f"/bolivia/{gid}/undo", {}, export)
    assert raw_post(c, f"/bolivia/{gid}/undo", {"seq": current["seq"]}).status_code == 200
