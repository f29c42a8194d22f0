"""Installing a second face classifier with its level: `python -m vision.faces.second`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.vision.test_adapt import dice_folder
from tests.vision.test_faces import row
from vision.faces.classifier import FaceClassifier
from vision.faces.second import Read, Source, choose_level, main

MODELS = Path(__file__).resolve().parents[2] / "models"


def read(labels: list[int], first: list[list[float]], second: list[list[float]], pips: list[int]) -> Read:
    source = Source("prueba")
    source.labels = labels
    return Read(source, np.array(first), np.array(second), np.array(pips), 0.9)


def test_the_level_is_the_lowest_at_which_no_source_shows_an_error() -> None:
    # three dice the pips could not count: two right, one read 4 where it is a 2, which the second
    # confirms at 0.97 only
    sure = read(
        [3, 3, 2], [row(3, 0.99), row(3, 0.99), row(4, 0.99)], [row(3, 0.99), row(3, 0.96), row(4, 0.97)], [0, 0, 0]
    )
    assert sure.at(0.95) == (3, 1, 3)
    assert sure.at(0.975) == (1, 0, 1)
    assert choose_level([sure], 0.001) == 0.975
    counted = read([5], [row(5, 0.99)], [row(2, 0.999)], [5])  # agreed by the pips: the second has no say
    assert counted.at(0.8) == (1, 0, 0)
    never = read([2], [row(4, 0.99)], [row(4, 0.9999)], [0])
    assert choose_level([sure, never], 0.001) is None


def test_bad_input_is_a_clear_error_and_installs_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--from", str(tmp_path), "--models", str(MODELS)]) == 2
    assert "falta" in capsys.readouterr().err
    assert main(["--from", str(MODELS / "faces"), "--models", str(tmp_path)]) == 2
    assert "no es una carpeta de modelos" in capsys.readouterr().err
    assert main(["--from", str(MODELS / "faces"), "--models", str(MODELS), "--level", "1.5"]) == 2
    assert "--level 1.5" in capsys.readouterr().err
    assert not (tmp_path / "faces2").exists()


def install_second(tmp_path: Path, models: Path, level: str = "0.995") -> None:
    """The shipped classifier installed as its own second (a stand-in made differently enough for the tests),
    its level chosen on a drawn real set."""
    data = tmp_path / "data"
    drawn = dice_folder(tmp_path / "dibujados", 12)
    for kind in ("images", "labels"):
        (data / "dice-real" / kind).mkdir(parents=True)
        shutil.move(drawn / kind, data / "dice-real" / kind / "train")
    if not (models / "faces").exists():
        shutil.copytree(MODELS / "faces", models / "faces")
    args = ["--from", str(MODELS / "faces"), "--models", str(models), "--real-sets", str(data), "--calib-share", "1"]
    assert main([*args, "--level", level]) == 0


def test_install_writes_the_second_beside_the_first_with_its_level_and_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = tmp_path / "modelos"
    install_second(tmp_path, models)
    assert "instalado con 0.995" in capsys.readouterr().out
    installed = FaceClassifier(models / "faces2")
    assert installed.confirm_threshold == 0.995 and installed.turned
    second = json.loads((models / "faces2" / "metrics.json").read_text())["second"]
    assert second["level"] == 0.995 and second["table"][0]["real:dice-real"][0] >= 0
    assert not (models / "faces2" / "face_cnn.pt").exists()  # the reader reads the ONNX export alone
