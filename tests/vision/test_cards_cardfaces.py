"""The face reader's folder: real whole cards split by runs, rendered cards that show their face, bad folders."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import cardfaces
from vision.cards.dataset import RUN
from vision.cards.notation import CLASS_OF


def _whole(root: Path, photos: int) -> Path:
    for i in range(photos):
        image = root / "images" / "train" / f"real-whole-{i:03d}.jpg"
        image.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(image), np.zeros((64, 64, 3), np.uint8))
        label = root / "labels" / "train" / f"real-whole-{i:03d}.txt"
        label.parent.mkdir(parents=True, exist_ok=True)
        label.write_text(f"{CLASS_OF['7H']} 0.5 0.5 0.4 0.6\n52 0.2 0.2 0.1 0.1\n")  # a card and a back
    return root


def _synth(root: Path) -> Path:
    cards = [
        {"card": "QS", "face_down": False, "visible_share": 0.95, "polygon": [[10, 10], [60, 10], [60, 80], [10, 80]]},
        {"card": "AH", "face_down": True, "visible_share": 1.0, "polygon": [[70, 10], [120, 10], [120, 80], [70, 80]]},
        {"card": "2C", "face_down": False, "visible_share": 0.5, "polygon": [[10, 90], [60, 90], [60, 150], [10, 150]]},
        {"card": "3D", "face_down": False, "visible_share": 0.9, "polygon": [[-5, 90], [40, 90], [40, 150], [-5, 150]]},
    ]
    (root / "meta").mkdir(parents=True)
    (root / "images").mkdir()
    (root / "meta" / "t-1.json").write_text(json.dumps({"size": [200, 200], "cards": cards}))
    cv2.imwrite(str(root / "images" / "t-1.jpg"), np.zeros((200, 200, 3), np.uint8))
    return root


def test_the_folder_holds_real_cards_by_runs_and_rendered_faces_in_view(tmp_path: Path) -> None:
    whole = _whole(tmp_path / "whole", RUN * cardfaces.VAL_EVERY)
    synth = _synth(tmp_path / "synth")
    out = tmp_path / "faces"
    assert cardfaces.main(["--out", str(out), "--whole", str(whole), "--synth", str(synth)]) == 0
    val = sorted(p.stem for p in (out / "labels" / "val").glob("*.txt"))
    assert len(val) == RUN  # one run in four, the last
    assert val[0] == f"real-whole-{RUN * (cardfaces.VAL_EVERY - 1):03d}"
    real = (out / "labels" / "train" / "real-whole-000.txt").read_text().splitlines()
    assert real == [f"{CLASS_OF['7H']} 0.5 0.5 0.4 0.6"]  # the back is not a face
    # only the queen: the ace is face down, the two mostly hidden, the three cut by the window's edge
    rendered = (out / "labels" / "train" / "synth-synth-t-1.txt").read_text().splitlines()
    assert rendered == [f"{CLASS_OF['QS']} 0.175000 0.225000 0.250000 0.350000"]
    assert (out / "images" / "train" / "synth-synth-t-1.jpg").exists()
    assert "val: images/val" in (out / "data.yaml").read_text()


def test_bad_folders_are_refused_in_spanish_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "faces"
    with pytest.raises(SystemExit, match="no existe la carpeta"):
        cardfaces.main(["--out", str(out), "--whole", str(tmp_path / "nada")])
    with pytest.raises(SystemExit, match="no tiene images/train"):
        cardfaces.main(["--out", str(out), "--whole", str(tmp_path)])
    whole = _whole(tmp_path / "whole", 2)
    with pytest.raises(SystemExit, match=r"no es una carpeta de vision\.cards\.synth"):
        cardfaces.main(["--out", str(out), "--whole", str(whole), "--synth", str(tmp_path / "whole" / "labels")])
    assert not out.exists()
    with pytest.raises(SystemExit, match="--out no puede ser"):
        cardfaces.main(["--out", str(whole), "--whole", str(whole)])
    assert (whole / "images" / "train" / "real-whole-000.jpg").exists()
