"""What the kiosk keeps whole: a refused request changes nothing, every change names the event it follows."""

from __future__ import annotations

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
