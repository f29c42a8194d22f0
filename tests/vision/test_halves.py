"""Splitting a labelled dice folder in halves to teach on one and measure on the other (vision.faces.halves)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.faces.halves import PARTS, main, read_fixes, split
from vision.faces.realsets import capture_group


def folder_of(tmp_path: Path, captures: int) -> Path:
    """A YOLO folder: two Roboflow copies (train_, valid_) of each capture, one die each, face 2."""
    root = tmp_path / "set"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for n in range(captures):
        for prefix in ("train", "valid"):
            name = f"{prefix}_{n:05d}_jpg.rf.{n:04x}{prefix}"
            cv2.imwrite(str(root / "images" / f"{name}.jpg"), np.zeros((100, 200, 3), np.uint8))
            (root / "labels" / f"{name}.txt").write_text("1 0.25 0.5 0.1 0.2\n0 0.75 0.5 0.1 0.2\n")
    return root


def test_every_copy_of_a_capture_lands_in_one_half_and_the_fixes_are_applied(tmp_path: Path) -> None:
    source = folder_of(tmp_path, 40)
    fix = tmp_path / "fixes.txt"
    fix.write_text("# comment\nvalid_00003_jpg.rf.0003valid.jpg 52 48 5  # the left die shows 5\n")
    done = split(source, tmp_path / "halves", read_fixes(fix))
    assert done["applied"] == 1 and sum(done["photos"].values()) == 80  # type: ignore[attr-defined]
    sides = {part: {p.name for p in (tmp_path / "halves" / "images" / part).iterdir()} for part in PARTS}
    assert sides["teach"] and sides["test"] and not sides["teach"] & sides["test"]
    for part, names in sides.items():
        other = sides[PARTS[1 - PARTS.index(part)]]
        assert not {capture_group(n) for n in names} & {capture_group(n) for n in other}
    part = next(p for p in PARTS if "valid_00003_jpg.rf.0003valid.jpg" in sides[p])
    fixed = (tmp_path / "halves" / "labels" / part / "valid_00003_jpg.rf.0003valid.txt").read_text().splitlines()
    assert fixed == ["4 0.25 0.5 0.1 0.2", "0 0.75 0.5 0.1 0.2"]  # only the die under the point, to face 5


def test_a_fix_line_that_is_not_photo_x_y_face_is_refused_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fix = tmp_path / "fixes.txt"
    fix.write_text("a.jpg 1 2 3\nb.jpg 1 2 9\n")
    with pytest.raises(ValueError, match=r"fixes\.txt:2"):
        read_fixes(fix)
    assert main([str(folder_of(tmp_path, 2)), "--out", str(tmp_path / "h"), "--fixes", str(fix)]) == 2
    assert "fixes.txt:2" in capsys.readouterr().err and not (tmp_path / "h").exists()
    assert main([str(tmp_path / "nothing"), "--out", str(tmp_path / "h")]) == 2
    assert "no es una carpeta YOLO" in capsys.readouterr().err
    source = folder_of(tmp_path / "b", 2)
    (source / "images" / "valid_00001_jpg.rf.0001valid.jpg").write_bytes(b"no image")
    fix.write_text("valid_00001_jpg.rf.0001valid.jpg 52 48 5\n")
    assert main([str(source), "--out", str(tmp_path / "h"), "--fixes", str(fix)]) == 2
    assert "valid_00001" in capsys.readouterr().err and not (tmp_path / "h").exists()  # nothing written
