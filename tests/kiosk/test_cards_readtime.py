"""`python -m kiosk.cards.readtime`: a card reading at the demo Truco table, timed by stage (figures are printed,
never asserted: docs/cards-kiosk.md has them)."""

from __future__ import annotations

import json

import pytest

from kiosk.cards import readtime


def test_it_times_each_tap_by_stage_and_sets_the_demos_drawing_apart(capsys: pytest.CaptureFixture[str]) -> None:
    assert readtime.main(["--reads", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["frame"] == "4608x2592"  # the Pi camera's still, as the demo camera gives it
    (tap,) = out["reads"]
    assert set(tap) == set(readtime.STAGES) and all(v >= 0 for v in tap.values())
    assert tap["lector"] > 0 and tap["dibujo"] > 0  # the reader read, and the demo camera drew the cards
    parts = tap["dibujo"] + tap["lector"] + tap["foto"] + tap["estado"]
    assert tap["total"] == pytest.approx(parts, abs=1e-6)
    assert tap["mesa"] == pytest.approx(tap["total"] - tap["dibujo"], abs=1e-6)
    assert out["first_s"] > 0 and out["median"] == tap


def test_a_bad_count_is_refused_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        readtime.main(["--reads", "0"])
    assert stopped.value.code == 2 and "--reads va desde 1" in capsys.readouterr().err
