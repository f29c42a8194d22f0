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


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run `cacho ARGV...`: exit 2 and the error line, checked to carry none of the system's English."""
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("cacho: ") and "Traceback" not in err and "Errno" not in err, err
    for english in ("No such file", "Not a directory", "File exists", "unable to open", "file is not a database"):
        assert english not in err, err
    return err


def test_a_missing_input_file_is_named_in_spanish(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players = tmp_path / "jugadores.txt"
    err = refused(capsys, "campeonato", "sorteo", str(players), "--semilla", "1", "--hasta", "4")
    assert f"no se pudo leer {players}: no existe" in err


def test_a_path_through_a_file_is_named_in_spanish(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "nota.txt").write_text("hola", encoding="utf-8")
    log = tmp_path / "nota.txt" / "mesa.jsonl"
    err = refused(capsys, "dudo", "replay", str(log))
    assert f"no se pudo leer {log}: una parte de la ruta es un archivo, no una carpeta" in err


def test_an_annotate_folder_that_cannot_be_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "foto.png"
    cv2.imwrite(str(image), np.full((120, 160, 3), 90, np.uint8))
    (tmp_path / "nota.txt").write_text("hola", encoding="utf-8")
    folder = tmp_path / "nota.txt" / "anotadas"
    err = refused(capsys, "vision", "read", str(image), "--annotate", str(folder))
    assert f"--annotate {folder}: no se pudo crear la carpeta: una parte de la ruta es un archivo" in err


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.mkdir(), "es una carpeta, no un archivo de base de datos"),
        (lambda p: p.write_bytes(b"no soy SQLite " * 100), "el archivo no es una base de datos SQLite"),
    ],
)
def test_a_database_that_cannot_be_opened_says_why_in_spanish(
    make: object, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cacho.sqlite3"
    make(db)  # type: ignore[operator]
    err = refused(capsys, "kiosk", "--camera", "none", "--db", str(db))
    assert f"no se pudo abrir la base de datos {db}: {reason}" in err


def test_a_data_folder_where_a_file_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """$XDG_DATA_HOME/cacho is a file: the kiosk's database folder cannot be made there."""
    (tmp_path / "cacho").write_text("hola", encoding="utf-8")
    monkeypatch.delenv("CACHO_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    err = refused(capsys, "kiosk", "--camera", "none")
    db = tmp_path / "cacho" / "cacho.sqlite3"
    assert f"no se pudo abrir la base de datos {db}: {tmp_path / 'cacho'}: es un archivo, no una carpeta" in err
