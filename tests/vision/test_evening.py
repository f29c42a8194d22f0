"""An evening replayed: frames read with the reader of the moment, confirmed, and the reader adapted as it goes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kiosk.cli import main
from tests.vision.test_adapt import dice_folder
from vision import evening as ev
from vision.evaluate import TruthDie
from vision.faces.adapt import AdaptError
from vision.faces.crops import CHECKED
from vision.faces.evidence import Levels
from vision.types import Box, DieReading, FrameReading


def die(face: int, box: Box, uncertain: bool = False) -> DieReading:
    return DieReading(face, 0.9, box, uncertain, ("dudoso",) if uncertain else ())


A, B, C = Box(0, 0, 10, 10), Box(20, 0, 30, 10), Box(40, 0, 50, 10)


def test_a_frame_is_scored_against_its_labels() -> None:
    truth = [TruthDie(A, 3), TruthDie(B, 5), TruthDie(C, None)]  # C is cocked
    dice = [die(3, A), die(6, B), die(2, C), die(4, Box(60, 0, 70, 10))]
    score = ev.score_frame("f.jpg", truth, dice, "de fábrica")
    # B read 6 sure, the cocked C accepted, and a die accepted where there is none: three silent errors
    assert (score.dice, score.missed, score.flagged, score.wrong, score.load) == (3, 0, 0, 3, 3)
    flagged = ev.score_frame("f.jpg", truth, [die(3, A, True)], "x")
    assert (flagged.missed, flagged.flagged, flagged.wrong) == (2, 1, 0)
    assert set(flagged.to_dict()) == {"image", "dice", "missed", "flagged", "wrong", "models"}


def test_the_dice_the_coordinator_checks_are_all_but_those_read_sure_and_right() -> None:
    truth = [TruthDie(A, 3), TruthDie(B, 5), TruthDie(C, 2), TruthDie(Box(60, 0, 70, 10), 4)]
    reading = FrameReading(100, 10, (die(3, A), die(6, B), die(2, C, True)))  # the last die is missed
    assert ev.checked_of(reading, truth) == [False, True, True, True]


def OWN_LEVELS(faces: Path) -> Levels:
    return Levels(0.9, None, None)


@dataclass
class Result:
    written: bool


class Reader:
    """Every die flagged by the stock models, every die sure and right once adapted."""

    def __init__(self, models: Path) -> None:
        self.adapted = models.name.startswith("adaptado")

    def read(self, frame: Any) -> FrameReading:
        return FrameReading(200, 120, (die(1, Box(20, 20, 60, 60), not self.adapted),))


def test_the_reader_changes_only_between_frames_once_enough_dice_are_confirmed(tmp_path: Path) -> None:
    folder = dice_folder(tmp_path / "noche", 10, faces=(1,))  # two dice a photo; the reader finds one
    calls: list[tuple[Path, Path, Path]] = []

    def adapter(folder: Path, out: Path, source: Path, *, holdout: float, crops: int | None, levels: Any) -> Result:
        calls.append((folder, out, source))
        if len(calls) == 1:
            raise AdaptError("solo hay 6 dados etiquetados")
        out.mkdir()
        return Result(True)

    steps = list(
        ev.evening(folder, tmp_path / "stock", tmp_path / "work", Reader, adapter, ev.Learning(6, 1), OWN_LEVELS)
    )
    frames = [s for s in steps if isinstance(s, ev.FrameScore)]
    tried = [s for s in steps if isinstance(s, ev.Adaptation)]
    assert [f.image for f in frames] == [f"tirada{k:03d}.png" for k in range(10)]
    assert [t.after for t in tried] == ["tirada002.png", "tirada003.png", "tirada006.png", "tirada009.png"]
    assert tried[0].refused and tried[1].models == "adaptado-2"
    assert [f.models for f in frames[:4]] == ["de fábrica"] * 4 and frames[4].models == "adaptado-2"
    assert calls[1][2] == tmp_path / "stock" and calls[2][2] == tmp_path / "work" / "adaptado-2"  # from the one in use
    assert len(list((tmp_path / "work" / "confirmados" / "labels").iterdir())) == 10
    # each die was checked: one flagged and one missed a photo until adapted, then one missed beside one sure
    marks = tmp_path / "work" / "confirmados" / CHECKED
    assert (marks / "tirada000.txt").read_text() == "1\n1\n" and (marks / "tirada009.txt").read_text() == "0\n1\n"
    parts = ev.halves(frames)
    # one die flagged and one missed a photo, until the fifth is read adapted (one sure and right)
    assert parts["first_half"] == {"dice": 10, "load": 0.9, "wrong": 0}
    assert parts["second_half"] == {"dice": 10, "load": 0.5, "wrong": 0}  # one missed a photo


def test_the_command_replays_a_drawn_evening_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = dice_folder(tmp_path / "noche", 50, schemes=("azul_rojo", "azul_rojo"))  # 100 dice
    assert main(["vision", "evening", str(folder), "--adapt-every", "60", "--crops", "64", "--json"]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert len(lines) == 51 and set(lines[-1]) == {"first_half", "second_half"}
    assert all(set(line) == {"image", "dice", "missed", "flagged", "wrong", "models"} for line in lines[:-1])
    assert lines[0]["models"] == "de fábrica" and sum(line["dice"] for line in lines[:-1]) == 100
    # 60 dice after the 30th photo, too few of them held out: tried again after each photo until enough are
    assert "tras tirada029.png: todavía no se puede adaptar (las fotos apartadas" in captured.err
    assert "adaptado en 1 épocas; de " in captured.err and " dados apartados, por confirmar antes " in captured.err
    assert lines[-1]["first_half"]["dice"] == 50 and 0 <= lines[-1]["second_half"]["load"] <= 1


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--adapt-every", "0"], "--adapt-every 0"),
        (["--crops", "0"], "--crops 0"),
        (["--pooled-evidence"], "--pooled-evidence: hace falta un campeonato"),
        ([], "falta images/"),
    ],
)
def test_bad_options_are_refused_in_spanish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    folder = dice_folder(tmp_path / "noche", 2) if extra else tmp_path
    assert main(["vision", "evening", str(folder), *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_real_sets_part_is_linked_as_an_evening_folder(tmp_path: Path) -> None:
    from vision.faces import realsets

    trays = tmp_path / "data" / "dice-real-extra" / "rune55-phone-trays"
    dice_folder(trays, 30)
    val = realsets.photos(realsets.real_set("rune55-phone-trays"), tmp_path / "data", "val")
    assert 0 < ev.link_part("rune55-phone-trays", "val", tmp_path / "noche", tmp_path / "data") == len(val)
    linked = sorted(p.name for p in (tmp_path / "noche" / "images").iterdir())
    assert linked == sorted(p.name for p in val)
    assert (tmp_path / "noche" / "labels" / f"{val[0].stem}.txt").read_text().count("\n") == 2
    with pytest.raises(ValueError, match="no conozco el conjunto real"):
        ev.link_part("nada", "val", tmp_path / "otra", tmp_path / "data")


def test_a_championship_replayed_deals_the_frames_to_tables_that_learn_together(tmp_path: Path) -> None:
    folder = dice_folder(tmp_path / "campeonato", 12, faces=(1,))
    adapted: list[Path] = []

    def adapter(folder: Path, out: Path, source: Path, *, holdout: float, crops: int | None, levels: Any) -> Result:
        assert levels is None  # the pooled reader is compared at its own levels
        adapted.append(source)
        out.mkdir()
        return Result(True)

    learning = ev.Learning(8, 1)
    steps = list(
        ev.evening(folder, tmp_path / "stock", tmp_path / "w", Reader, adapter, learning, OWN_LEVELS, tables=3)
    )
    frames = [s for s in steps if isinstance(s, ev.FrameScore)]
    assert [f.table for f in frames] == [1, 2, 3] * 4
    assert frames[3].models == "de fábrica" and frames[4].models == "adaptado-1"  # 8 dice after four frames, shared
    assert {p.name for p in (tmp_path / "w" / "pruebas").iterdir()} == {"mesa-1", "mesa-2", "mesa-3"}
    tables = ev.by_table(frames, after=1)
    assert [t["table"] for t in tables] == [1, 2, 3] and all(t["dice"] == 6 for t in tables)
    # table 1's fourth frame was read before the adaptation it completed (both dice to see), its others after (one)
    assert [t["load"] for t in tables] == [0.6667, 0.5, 0.5] and all(t["wrong"] == 0 for t in tables)
    assert frames[0].to_dict()["table"] == 1


def test_with_labelled_boxes_no_labelled_die_is_missed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = dice_folder(tmp_path / "noche", 3)
    finder = ev.LabelledBoxes()
    finder.boxes = [A, B]
    assert [(d.box, d.confidence) for d in finder.detect(np.zeros((5, 5, 3), np.uint8))] == [(A, 1.0), (B, 1.0)]
    assert main(["vision", "evening", str(folder), "--labelled-boxes", "--adapt-every", "100000", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["missed"] for line in lines[:-1]] == [0, 0, 0] and sum(line["dice"] for line in lines[:-1]) == 6
