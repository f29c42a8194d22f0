"""Issue 63: the `cacho` commands say in Spanish what is wrong with a path, never with a traceback or in English."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cli import main


@pytest.mark.parametrize("group", ["vision", "cards"])
def test_annotate_on_an_existing_file_is_refused_and_changes_nothing(
    group: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "foto.png"
    cv2.imwrite(str(image), np.full((120, 160, 3), 90, np.uint8))
    taken = tmp_path / "anotadas.jpg"
    taken.write_bytes(b"ya estaba")
    assert main([group, "read", str(image), "--annotate", str(taken)]) == 2
    captured = capsys.readouterr()
    assert f"--annotate {taken}: es un archivo, no una carpeta" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert taken.read_bytes() == b"ya estaba"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["anotadas.jpg", "foto.png"]
