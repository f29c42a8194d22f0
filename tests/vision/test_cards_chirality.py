"""Telling a mirrored photo from one as taken by how much surer its indices read one way than the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from vision.cards import chirality
from vision.cards.index_classifier import IndexClassifier
from vision.cards.notation import CLASS_NAMES


class LeftHeavy(torch.nn.Module):
    """A stand-in classifier: the brighter a crop's left half than its right, the surer it names 7D."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        lean = x[..., :half].mean(dim=(1, 2, 3)) - x[..., half:].mean(dim=(1, 2, 3))
        logits = torch.zeros(x.shape[0], len(CLASS_NAMES))
        logits[:, CLASS_NAMES.index("7D")] = 4 * lean
        return logits


class Fake:
    """The classifier's own probabilities over the stand-in network."""

    probabilities = IndexClassifier.probabilities
    logits = IndexClassifier.logits

    def __init__(self) -> None:
        self.net = None
        self.model: Any = LeftHeavy()
        self.temperature = 1.0
        self.size = 48


def _crop(left: int, right: int) -> np.ndarray:
    crop = np.full((48, 48, 3), right, np.uint8)
    crop[:, :24] = left
    return crop


def test_indices_surer_as_they_are_say_the_photo_is_as_taken() -> None:
    taken = [_crop(230, 30)] * 4
    fake: Any = Fake()
    assert chirality.score([fake], taken, ["7D"] * 4) > chirality.MARGIN
    mirrored = [np.ascontiguousarray(c[:, ::-1]) for c in taken]
    assert chirality.score([fake], mirrored, ["7D"] * 4) < -chirality.MARGIN
    assert chirality.score([fake], [taken[0]], ["7D"]) <= chirality.CAP  # one index never decides alone
    assert chirality.score([fake], [], []) == 0.0
    assert [chirality.verdict(v) for v in (9.0, -9.0, 1.0)] == ["same", "mirrored", "undecided"]


def test_the_list_names_every_photo_with_its_verdict(tmp_path: Path) -> None:
    out = tmp_path / "mirrored.txt"
    found = [("IMG_1", 12.5, 9), ("IMG_2", -20.0, 11), ("IMG_3", 0.4, 2)]
    counts = chirality.write(out, found, chirality.MARGIN, "python -m vision.cards.chirality --out x")
    assert counts == {"same": 1, "mirrored": 1, "undecided": 1}
    rows = [line.split() for line in out.read_text().splitlines() if not line.startswith("#")]
    assert rows == [
        ["IMG_1", "same", "12.5", "9"],
        ["IMG_2", "mirrored", "-20.0", "11"],
        ["IMG_3", "undecided", "0.4", "2"],
    ]


def test_bad_arguments_are_refused_in_spanish(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"falta class_map\.txt"):
        chirality.main(["--classifiers", "x.pt", "--out", str(tmp_path / "o.txt"), "--real", str(tmp_path)])
    (tmp_path / "class_map.txt").write_text("0\tace of spades\tAS\n")
    with pytest.raises(SystemExit, match="no están los pesos"):
        chirality.main(
            ["--classifiers", str(tmp_path / "x.pt"), "--out", str(tmp_path / "o.txt"), "--real", str(tmp_path)]
        )
    (tmp_path / "x.pt").write_text("no son pesos")
    with pytest.raises(SystemExit, match="no son pesos de un clasificador de índices"):
        chirality.main(
            ["--classifiers", str(tmp_path / "x.pt"), "--out", str(tmp_path / "o.txt"), "--real", str(tmp_path)]
        )
    with pytest.raises(SystemExit, match="--margin"):
        chirality.main(["--classifiers", "x.pt", "--out", "o", "--real", str(tmp_path), "--margin", "-1"])
    assert not (tmp_path / "o.txt").exists()
