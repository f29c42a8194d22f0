"""`python -m vision.cards.confirmed`: the corners a table's coordinator would confirm, from a labelled folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.vision.test_cards_cli import real_fans
from vision.cards import confirmed
from vision.cards.evaluate import TruthCard
from vision.cards.index_classifier import photo_crops
from vision.cards.notation import CLASS_NAMES, CLASS_OF


def test_only_the_cards_read_as_labelled_keep_their_corners() -> None:
    four = TruthCard("4S", False, ((0, 0, 100, 150),), whole_only=True)
    ace = TruthCard("AD", False, ((200, 0, 300, 150),), whole_only=True)
    down = TruthCard(None, True, ((400, 0, 500, 150),))
    readings = [
        {
            "card": "4S",
            "face_down": False,
            "uncertain": True,
            "box": [5, 5, 20, 30],
            "indices": [[5, 5, 20, 30], [80, 120, 95, 145]],
        },
        {"card": "4D", "face_down": False, "uncertain": True, "box": [205, 5, 220, 30], "indices": [[205, 5, 220, 30]]},
        {
            "card": None,
            "face_down": True,
            "uncertain": True,
            "box": [400, 0, 500, 150],
            "indices": [[400, 0, 500, 150]],
        },
    ]
    corners, kept, other = confirmed.kept_corners([four, ace, down], readings)
    assert corners == [(CLASS_OF["4S"], [5.0, 5.0, 20.0, 30.0]), (CLASS_OF["4S"], [80.0, 120.0, 95.0, 145.0])]
    assert (kept, other) == (1, 1)
    corners, kept, other = confirmed.kept_corners([four, ace, down], readings, corrected=True)  # as the card shown
    assert [cls for cls, _ in corners] == [CLASS_OF["4S"], CLASS_OF["4S"], CLASS_OF["AD"]] and (kept, other) == (2, 1)
    assert confirmed.label_lines(corners[:1], 100, 200) == f"{CLASS_OF['4S']} 0.125000 0.087500 0.150000 0.125000\n"


def test_real_fans_become_a_folder_the_adapt_command_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two real photos of five cards fanned (tests/fixtures/cards/SOURCES.md), read by the shipped reader."""
    whole = real_fans(tmp_path)
    assert confirmed.main([str(whole), "--split", "val", "--out", str(tmp_path / "kept")]) == 0
    tally = json.loads(capsys.readouterr().out)
    assert tally["photos"] == tally["photos_kept"] == 2 and tally["cards"] == 10
    assert tally["cards_kept"] + tally["read_otherwise"] <= 10 and tally["cards_kept"] >= 9
    crops = photo_crops(tmp_path / "kept", "")
    assert len(crops) == tally["corners"] >= 2 * tally["cards_kept"] - 2
    labels = (whole / "labels" / "val").glob("*.txt")
    shown = {CLASS_NAMES[int(line.split()[0])] for path in labels for line in path.read_text().splitlines()}
    assert {CLASS_NAMES[label] for _, _, label in crops} <= shown  # each corner is labelled with a card shown
    with pytest.raises(SystemExit) as stop:
        confirmed.main([str(tmp_path / "nada"), "--out", str(tmp_path / "x")])
    assert stop.value.code == 2
    assert "no es una carpeta YOLO" in capsys.readouterr().err
