"""What the kiosk keeps whole: a refused request changes nothing, every change names the event it follows."""

from __future__ import annotations

import json
from typing import Any

from engines.dudo import replay_lines
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
