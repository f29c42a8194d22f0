"""`cacho kiosk`: bad arguments and an unusable database are clear errors, before anything is served."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.cli import main


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--port", "70000"], "el puerto va de 1 a 65535"),
        (["--camera", "foo"], "--camera foo: se esperaba"),
        (["--camera", "opencv:x"], "--camera: «opencv:x»: el número de cámara debe ser un entero"),
        (["--camera", "opencv:"], "--camera: falta el número de la cámara en «opencv:»"),
        (["--camera", "pi:uno"], "--camera: «pi:uno»: el número de cámara debe ser un entero"),
        (["--camera", "replay:"], "--camera: falta la ruta en «replay:»"),
        (["--camera", "webcam:0"], "--camera: cámara desconocida «webcam:0»"),
        (["--card-models", "/nada"], "--card-models /nada: no es una carpeta de modelos con el lector de cartas"),
    ],
)
def test_bad_arguments(
    args: list[str], fragment: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("el kiosco empezó con un argumento malo")

    monkeypatch.setattr("kiosk.app.create_app", never)
    monkeypatch.setattr("kiosk.server.make_server", never)
    assert main(["kiosk", "--db", str(tmp_path / "k.sqlite3"), *args]) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "k.sqlite3").exists()


def test_a_database_that_cannot_be_opened(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "una-carpeta"
    folder.mkdir()
    assert main(["kiosk", "--camera", "none", "--db", str(folder)]) == 2
    assert f"no se pudo abrir la base de datos {folder}" in capsys.readouterr().err
