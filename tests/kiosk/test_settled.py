"""`python -m kiosk.settled`: the dudo rulings a reading settles with no tap, and those it would settle wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk import settled

DEMO = Path(__file__).resolve().parents[2] / "kiosk" / "demo" / "fotos"


def sure(*faces: int) -> list[frozenset[int]]:
    return [frozenset({f}) for f in faces]


def test_every_pinta_and_bid_near_the_count_is_a_ruling_settled_or_not() -> None:
    truth = [5, 5, 1, 3]  # the true count of each pinta 1-6, the ace wild for 2-6: (1, 1, 2, 1, 3, 1)
    total, done, wrong = settled.rulings(truth, sure(5, 5, 1, 3))
    assert total == sum(len(range(max(1, t - 2), t + 3)) for t in (1, 1, 2, 1, 3, 1)) and done == total and not wrong
    total, done, wrong = settled.rulings(truth, [*sure(5, 5, 1), frozenset(range(1, 7))])
    assert 0 < done < total and not wrong
    # a die accepted for sure and wrong settles rulings wrong: what the command is there to catch
    assert settled.rulings(truth, sure(5, 5, 1, 5))[2] > 0


def test_the_command_reads_a_labelled_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    folder = tmp_path / "mesa"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    scene = json.loads((DEMO / "00" / "scene.json").read_text())
    (folder / "images" / "a.jpg").write_bytes((DEMO / "00" / "004.jpg").read_bytes())
    w, h = scene["width"], scene["height"]
    lines = [
        f"{d['face'] - 1} {(d['box'][0] + d['box'][2]) / 2 / w} {(d['box'][1] + d['box'][3]) / 2 / h} "
        f"{(d['box'][2] - d['box'][0]) / w} {(d['box'][3] - d['box'][1]) / h}"
        for d in scene["dice"]
    ]
    (folder / "labels" / "a.txt").write_text("\n".join(lines) + "\n")
    assert settled.main([str(folder), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["photos"] == 1 and figures["dice"] == len(lines) and figures["rulings"] > 0
    assert 0 <= figures["settled"] <= figures["rulings"] and figures["wrong"] == 0
    with pytest.raises(SystemExit):
        settled.main([str(tmp_path)])
    assert "falta images/" in capsys.readouterr().err
