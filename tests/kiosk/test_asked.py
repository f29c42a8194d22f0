"""`python -m kiosk.asked`: the dice a dudo asks about on the demo table (figures printed, never asserted:
docs/experiments/2026-12-02-dice-asked-on-the-demo-table.md has them)."""

from __future__ import annotations

import json

import pytest

from kiosk import asked


def test_each_dudo_counts_the_dice_read_doubted_and_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert asked.main(["--readings", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["results"]) == 2
    for r in out["results"]:
        assert r["dice"] == 20  # the demo camera's first showing: the four cups of five dice lifted
        assert 0 <= r["asked"] <= r["doubted"] <= r["dice"]  # only doubtful dice are asked about
        assert r["settled"] == (r["asked"] == 0)  # a ruling is ready with no tap exactly when none is asked
        quantity, face = r["bid"]
        assert 1 <= quantity <= 20 and 2 <= face <= 6  # an opening, never of aces (art. 5)
    average = out["average"]
    assert average["readings"] == 2 and average["asked"] == sum(r["asked"] for r in out["results"]) / 2


def test_a_bad_count_is_refused_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        asked.main(["--readings", "0"])
    assert stopped.value.code == 2 and "--readings va desde 1" in capsys.readouterr().err
