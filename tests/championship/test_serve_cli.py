"""`cacho campeonato serve` refuses what is wrong before it starts anything (exit 2, the reason in Spanish)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.championship import credentials
from kiosk.cli import main


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--codigo", "Mal Código"], "código de campeonato"),
        (["--codigo", "verano", "--broker", "nada:abc"], "se esperaba DIRECCIÓN:PUERTO"),
        (["--codigo", "verano", "--port", "0"], "el puerto va de 1 a 65535"),
        (["--codigo", "otro"], "son del campeonato 'verano', no de 'otro'"),
    ],
)
def test_serve_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    credentials.write_broker_files(tmp_path, "verano", 2)
    assert main(["campeonato", "serve", *args, "--dir", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "organizador.sqlite3").exists()  # nothing started, nothing written
