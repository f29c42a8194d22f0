"""Helpers for the Bolivian Cacho kiosk tests (tests/kiosk/test_bolivia*.py): start a game, enter a roll by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.kiosk.conftest import Coordinator


def new_game(co: Coordinator, players: str = "Ana\nBeto", **extra: Any) -> int:
    """Start a Bolivian Cacho game by the setup form; its id."""
    response = co.form("/bolivia/new", {"players": players, **extra})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 1)[1])


def state(co: Coordinator, gid: int) -> dict[str, Any]:
    """The coordinator's state.json."""
    response = co.get(f"/bolivia/{gid}/state.json")
    assert response.status_code == 200
    return dict(response.get_json())


def set_faces(co: Coordinator, gid: int, faces: Sequence[int]) -> dict[str, Any]:
    """Tap every die of the reading awaiting confirmation to the face of its position; the state after."""
    current = state(co, gid)
    reading = current["reading"]
    assert reading is not None and reading["state"] == "ready"
    order = reading["proposal"]["order"]
    by_id = {d["id"]: d for d in reading["dice"]}
    for position, die_id in enumerate(order):
        if die_id is None:
            continue
        if by_id[die_id]["face"] != faces[position] or by_id[die_id]["uncertain"]:
            response = co.post(f"/bolivia/{gid}/die", {"die": die_id, "face": faces[position]})
            assert response.status_code == 200, response.text
    return state(co, gid)


def roll_by_hand(co: Coordinator, gid: int, faces: Sequence[int]) -> dict[str, Any]:
    """Enter a roll by hand and confirm it; the state after."""
    response = co.post(f"/bolivia/{gid}/manual")
    assert response.status_code == 200, response.text
    current = set_faces(co, gid, faces)
    assert current["reading"]["proposal"]["ok"], current["reading"]["proposal"]
    response = co.post(f"/bolivia/{gid}/confirm", {"seq": current["seq"]})
    assert response.status_code == 200, response.text
    return dict(response.get_json())


def act(co: Coordinator, gid: int, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    """POST an action; check the status; the JSON answer."""
    response = co.post(f"/bolivia/{gid}/action", body)
    assert response.status_code == status, response.text
    return dict(response.get_json())


def cell(current: dict[str, Any], side: int, category: str, hatch: int = 0) -> Any:
    """A pizarra cell of the state: {points, mark} or None."""
    return current["game"]["sides"][side]["hatches"][hatch]["cells"][category]


def turn(co: Coordinator, gid: int, category: str, *rolls: Sequence[int], aside: Sequence[Sequence[int]] = ()) -> Any:
    """The player on turn rolls (by hand), declares, sets aside before each later roll, and scores."""
    roll_by_hand(co, gid, rolls[0])
    act(co, gid, {"event": "declare", "category": category})
    current: dict[str, Any] = {}
    for index, faces in enumerate(rolls[1:]):
        if index < len(aside):
            act(co, gid, {"event": "set_aside", "positions": list(aside[index])})
        current = roll_by_hand(co, gid, faces)
    if len(rolls) == 3:
        return current  # the third roll of a declared category is scored by the kiosk itself
    return act(co, gid, {"event": "score"})
