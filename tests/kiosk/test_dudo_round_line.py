"""Issue 63: the Dudo page's round line (dudo.js) reads what the state JSON sends: obligo and heads-up say so."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.kiosk.conftest import Coordinator

DUDO_JS = Path(__file__).parents[2] / "kiosk" / "static" / "dudo.js"


def round_of(coordinator: Coordinator, start: dict[str, Any]) -> dict[str, Any]:
    """The state JSON's `round` of a table imported from its start line alone."""
    response = coordinator.form("/dudo/import", {"name": "Mesa", "text": json.dumps({"event": "start", **start})})
    assert response.status_code == 302, response.text
    table = int(response.headers["Location"].rsplit("/", 1)[1])
    round_ = coordinator.get(f"/dudo/{table}/state.json").json["round"]
    assert isinstance(round_, dict)
    return round_


def round_line_code() -> str:
    """The part of dudo.js that writes the round line, from `const r = s.round`."""
    match = re.search(r"const r = s\.round;(.*?)\n    \}", DUDO_JS.read_text(encoding="utf-8"), re.S)
    assert match is not None
    return match.group(1)


def test_the_round_line_reads_fields_an_obligo_and_a_heads_up_round_have(coordinator: Coordinator) -> None:
    three = ["Ana", "Beto", "Caro"]
    obligo = round_of(coordinator, {"players": three, "opener": "Ana", "dice": {"Ana": 1, "Beto": 5, "Caro": 5}})
    heads_up = round_of(coordinator, {"players": ["Ana", "Beto"], "opener": "Ana"})
    opening = round_of(coordinator, {"players": three, "opener": "Ana"})
    assert (obligo["mode"], heads_up["mode"], opening["mode"]) == ("obligo", "mano a mano", "apertura")
    code = round_line_code()
    read = set(re.findall(r"\br\.(\w+)", code))
    for round_ in (obligo, heads_up, opening):
        assert read <= set(round_), sorted(read - set(round_))
    # the modes the line names are the ones the state sends: an obligo round says «obligo», a heads-up one «mano a mano»
    named = set(re.findall(r'r\.mode === "([^"]+)"', code))
    assert named == {obligo["mode"], heads_up["mode"]}
