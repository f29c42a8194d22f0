"""The contract `cacho dudo count IMAGE... --pinta N [--literal] [--dice D] [--models M] --json`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engines.dudo import ANY_FACE
from kiosk.cli import main
from kiosk.commands.dudo_count import tally

DEMO = Path(__file__).parents[2] / "kiosk" / "demo" / "fotos" / "00" / "000.jpg"


def sure(*faces: int) -> list[frozenset[int]]:
    return [frozenset({f}) for f in faces]


def test_the_count_runs_over_every_candidate_and_names_the_dice_that_could_change_it() -> None:
    dice = [*sure(5, 1, 3), frozenset({5, 6}), frozenset({3, 4})]
    assert tally(dice, 5, True, None) == {"min": 2, "max": 3, "decisive": [3]}
    assert tally(dice, 5, False, None) == {"min": 1, "max": 2, "decisive": [3]}  # literal: the as is no quina
    assert tally(dice, 1, True, None) == {"min": 1, "max": 1, "decisive": []}


def test_dice_in_play_not_found_are_any_face_and_too_many_found_leave_the_count_open() -> None:
    dice = sure(5, 5, 2)
    assert tally(dice, 5, True, 5) == {"min": 2, "max": 4, "decisive": []}
    assert tally([*dice, ANY_FACE], 5, True, 5)["max"] == 4
    # four found where three are in play: one of them is no die, any could be it
    assert tally([*dice, frozenset({6})], 5, True, 3) == {"min": 1, "max": 2, "decisive": [0, 1, 2, 3]}


def test_a_photo_is_counted_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dudo", "count", str(DEMO), "--pinta", "5", "--dice", "20", "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert set(line) == {"image", "count", "decisive", "dice"} and line["image"] == str(DEMO)
    dice = line["dice"]
    assert dice and all(set(d) == {"face", "candidates", "box", "uncertain"} for d in dice)
    assert all(d["candidates"] == [d["face"]] for d in dice if not d["uncertain"])
    sure_count = sum(d["face"] in (1, 5) for d in dice if not d["uncertain"])
    assert line["count"]["min"] >= sure_count and line["count"]["min"] <= line["count"]["max"] <= 20
    assert all(0 <= k < len(dice) and dice[k]["uncertain"] for k in line["decisive"])


def test_text_output_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dudo", "count", str(DEMO), "--pinta", "1"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(
        r".+000\.jpg: \d+ dados, (entre \d+ y \d+ ases|\d+ as(es)?); (ningún dado que mirar|mirar .+)\n", out
    )
    assert main(["dudo", "count", str(DEMO), "--pinta", "7"]) == 2
    assert "--pinta 7: una pinta va de 1 (ases) a 6" in capsys.readouterr().err
    assert main(["dudo", "count", str(DEMO), "--pinta", "5", "--dice", "0"]) == 2
    assert "--dice 0" in capsys.readouterr().err
    broken = tmp_path / "rota.jpg"
    broken.write_bytes(b"no es una foto")
    assert main(["dudo", "count", str(broken), str(DEMO), "--pinta", "5", "--json"]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert "error" in lines[0] and lines[1]["image"] == str(DEMO)
