"""The public contract `cacho dudo replay FILE [--json]`, and the demo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.demo import demo_path

DEMO = demo_path("mesa_dudo.jsonl")
CACHO = Path(sys.executable).with_name("cacho")


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "mesa.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_demo_log_replays_to_a_champion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dudo", "replay", str(DEMO), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winner"] in out["players"]
    assert out["dice"][out["winner"]] > 0
    assert sum(out["dice"].values()) == out["in_play"]
    assert [p for p, n in out["dice"].items() if n > 0] == [out["winner"]]
    assert out["next"] is None
    kinds = {r["kind"] for r in out["rulings"]}
    assert kinds == {"dudo", "calzo", "paso"}
    assert any(r["siciliana"] for r in out["rulings"])
    for ruling in out["rulings"]:
        assert ruling["article"] and ruling["message"]
        assert ruling["changes"]


def test_json_in_progress_has_next(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(
        tmp_path,
        '{"event":"start","players":["Ana","Beto","Caro"],"opener":"Ana"}',
        '{"event":"bid","player":"Ana","quantity":4,"face":5}',
        '{"event":"paso","player":"Beto","hand":"full"}',
    )
    assert main(["dudo", "replay", str(log), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dice"] == {"Ana": 5, "Beto": 5, "Caro": 5}
    assert out["in_play"] == 15
    assert out["winner"] is None
    assert out["rulings"] == []
    nxt = out["next"]
    assert nxt["player"] == "Caro"
    assert sorted(nxt["may"]) == ["bid", "dudo"]
    assert nxt["may_not"]["calzo"]["article"] == "8"
    assert nxt["may_not"]["paso"]["article"] == "8"
    assert [4, 6] in nxt["bids"] and [5, 5] in nxt["bids"] and [2, 1] in nxt["bids"]
    assert [4, 5] not in nxt["bids"]


def test_json_ruling_counts_aces_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(
        tmp_path,
        '{"event":"start","players":["Ana","Beto","Caro"],"opener":"Ana"}',
        '{"event":"bid","player":"Ana","quantity":4,"face":5}',
        '{"event":"bid","player":"Beto","quantity":5,"face":5}',
        '{"event":"dudo","player":"Caro"}',
        '{"event":"reveal","dice":{"Ana":[5,5,1,2,3],"Beto":[3,3,3,6,6],"Caro":[6,2,4,4,1]}}',
    )
    assert main(["dudo", "replay", str(log), "--json"]) == 0
    ruling = json.loads(capsys.readouterr().out)["rulings"][0]
    assert ruling["count"] == {"face": 5, "naturals": 2, "aces": 2, "total": 4, "aces_wild": True}
    assert ruling["changes"] == {"Beto": -1}
    assert ruling["article"] == "6"


def test_illegal_event_exits_1_with_the_contract_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(
        tmp_path,
        '{"event":"start","players":["Ana","Beto","Caro"],"opener":"Ana"}',
        '{"event":"bid","player":"Ana","quantity":4,"face":5}',
        '{"event":"bid","player":"Beto","quantity":3,"face":6}',
        '{"event":"dudo","player":"Caro"}',
    )
    assert main(["dudo", "replay", str(log), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"error"}
    assert out["error"]["line"] == 3
    assert out["error"]["article"] == "4"
    assert "no sube" in out["error"]["message"]


def test_malformed_line_has_null_article(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(tmp_path, '{"event":"start","players":["Ana","Beto"],"opener":"Ana"}', "{not json")
    assert main(["dudo", "replay", str(log), "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert (error["line"], error["article"]) == (2, None)
    assert "JSON" in error["message"]


def test_readable_summary_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dudo", "replay", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert "Mesa de Dudo" in out
    assert "Campeón de la mesa" in out
    assert "siciliana" in out


def test_readable_error_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(
        tmp_path, '{"event":"start","players":["Ana","Beto"],"opener":"Ana"}', '{"event":"dudo","player":"Ana"}'
    )
    assert main(["dudo", "replay", str(log)]) == 1
    captured = capsys.readouterr()
    assert "Error en la línea 2" in captured.err
    assert "art. 6" in captured.err
    assert "Le toca a Ana" in captured.out


def test_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dudo", "replay", str(tmp_path / "nada.jsonl")]) == 2
    assert "no existe" in capsys.readouterr().err


def test_binary_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "foto.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\xff")
    assert main(["dudo", "replay", str(path)]) == 2
    assert "UTF-8" in capsys.readouterr().err


def test_console_script(tmp_path: Path) -> None:
    """The installed `cacho` script keeps the contract from outside the process."""
    done = subprocess.run(
        [str(CACHO), "dudo", "replay", str(DEMO), "--json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["winner"]
    log = write(tmp_path, '{"event":"start","players":["Ana","Beto"],"opener":"Zoe"}')
    done = subprocess.run(
        [str(CACHO), "dudo", "replay", str(log), "--json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["line"] == 1
    assert "Traceback" not in done.stderr


def test_demo_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("Campeón de la mesa: Ana (art. 10)")
    assert "Calzo:" not in out  # issue 63: once the table has a champion, no calzo to speak of


def test_a_table_in_play_says_whether_one_may_calzar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(tmp_path, '{"event":"start","players":["Ana","Beto","Caro"],"opener":"Ana"}')
    assert main(["dudo", "replay", str(log)]) == 0
    assert "Calzo: permitido" in capsys.readouterr().out


def test_demo_log_is_the_generator_output(tmp_path: Path) -> None:
    """The bundled log is exactly what `python -m kiosk.demo.make_dudo_demo` writes (nothing edited by hand)."""
    out = tmp_path / "demo.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "kiosk.demo.make_dudo_demo", str(out)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == DEMO.read_text(encoding="utf-8")
