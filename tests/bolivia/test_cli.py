"""The `cacho bolivia` contracts: score, replay and advise, with their errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kiosk.cli
from kiosk.cli import main
from kiosk.demo import demo_path

DEMO = demo_path("bolivia_partida.jsonl")


@pytest.fixture(autouse=True)
def only_bolivia(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Register only this game's commands: these tests do not depend on the other games' modules."""
    monkeypatch.setattr(kiosk.cli, "COMMAND_MODULES", ("kiosk.commands.bolivia",))
    yield


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `cacho ...` in-process: (status, stdout, stderr); argparse's own exits count as a status."""
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


# --- score -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "points", "instant_win", "mark"),
    [
        (["2", "2", "2", "5", "6", "--category", "2", "--roll", "1"], 6, False, "6"),
        (["6", "6", "1", "2", "3", "--category", "senas", "--roll", "3"], 12, False, "12"),
        (["1", "2", "3", "4", "5", "--category", "escalera", "--roll", "1"], 25, False, "5"),
        (["1", "2", "3", "4", "5", "--category", "escalera", "--roll", "2"], 20, False, "O"),
        (["3", "3", "4", "4", "4", "--category", "full", "--roll", "1"], 35, False, "5"),
        (["3", "3", "4", "4", "4", "--category", "full", "--roll", "3"], 30, False, "O"),
        (["5", "5", "5", "5", "1", "--category", "poker", "--roll", "1"], 45, False, "5"),
        (["5", "5", "5", "5", "1", "--category", "póker", "--roll", "2"], 40, False, "O"),
        (["5", "5", "5", "5", "1", "--category", "full", "--roll", "2"], 0, False, "X"),
        (["5", "5", "5", "5", "5", "--category", "grande", "--roll", "2"], 50, False, "$"),
        (["5", "5", "5", "5", "5", "--category", "grande", "--roll", "1"], 50, True, "$"),
        (["5", "5", "5", "5", "5", "--category", "grande", "--roll", "2", "--grandes", "2"], 25, False, "$"),
        (["3", "4", "5", "6", "1", "--category", "escalera", "--roll", "1"], 0, False, "X"),
        (
            ["3", "4", "5", "6", "1", "--category", "escalera", "--roll", "1", "--option", "escalera_as_alto=true"],
            25,
            False,
            "5",
        ),
    ],
)
def test_score_json(
    capsys: pytest.CaptureFixture[str], args: list[str], points: int, instant_win: bool, mark: str
) -> None:
    status, out, err = run(capsys, "bolivia", "score", *args, "--json")
    assert status == 0 and err == ""
    result = json.loads(out)
    assert (result["points"], result["instant_win"], result["mark"]) == (points, instant_win, mark)
    assert isinstance(result["points"], int)


def test_score_text_is_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bolivia", "score", "6", "6", "1", "2", "3", "--category", "6", "--roll", "1")
    assert status == 0 and out.strip() == "senas (6) con 6 6 1 2 3 en la tirada 1: 12 puntos (marca 12)"
    _, out, _ = run(capsys, "bolivia", "score", "4", "4", "4", "4", "4", "--category", "grande", "--roll", "1")
    assert "¡grande de mano! Gana la partida" in out
    _, out, _ = run(capsys, "bolivia", "score", "4", "4", "4", "4", "1", "--category", "full", "--roll", "2")
    assert "no la hizo, 0 puntos (se tacha: X)" in out


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["1", "2", "3", "4", "--category", "1", "--roll", "1"], "cinco dados"),
        (["1", "2", "3", "4", "5", "6", "--category", "1", "--roll", "1"], "cinco dados"),
        (["--category", "1", "--roll", "1"], "cinco dados"),
        (["1", "2", "3", "4", "7", "--category", "1", "--roll", "1"], "de 1 a 6"),
        (["1", "2", "3", "4", "0", "--category", "1", "--roll", "1"], "de 1 a 6"),
        (["1", "2", "3", "4", "x", "--category", "1", "--roll", "1"], "no es un dado"),
        (["1", "2", "3", "4", "5", "--category", "yahtzee", "--roll", "1"], "categoría desconocida"),
        (["1", "2", "3", "4", "5", "--category", "7", "--roll", "1"], "categoría desconocida"),
        (["1", "2", "3", "4", "5", "--category", "1", "--roll", "4"], "1, 2 o 3"),
        (["1", "2", "3", "4", "5", "--category", "1", "--roll", "0"], "1, 2 o 3"),
        (["1", "2", "3", "4", "5", "--category", "1", "--roll", "uno"], "1, 2 o 3"),
        (["1", "2", "3", "4", "5", "--category", "1", "--roll", "1", "--option", "x=1"], "opción desconocida"),
        (["1", "2", "3", "4", "5", "--category", "1", "--roll", "1", "--grandes", "-1"], "--grandes"),
        (["1", "2", "3", "4", "5", "--category", "1"], "--roll"),
    ],
)
def test_score_bad_input_exits_non_zero_with_a_message_and_no_traceback(
    capsys: pytest.CaptureFixture[str], args: list[str], text: str
) -> None:
    status, out, err = run(capsys, "bolivia", "score", *args)
    assert status != 0 and out == ""
    assert text in err and "Traceback" not in err


# --- replay -----------------------------------------------------------------------------------------------


def test_replay_the_demo_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "bolivia", "replay", str(DEMO))
    assert status == 0 and err == ""
    assert out.startswith("Cacho boliviano (clásica): Ana, Beto, Caro")
    assert "grande: $ (50)" in out
    assert "Totales: 1.º Caro 194 · 2.º Beto 126 · 3.º Ana 107" in out
    assert out.rstrip().endswith("Ganador: Caro")


def test_replay_the_demo_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bolivia", "replay", str(DEMO), "--json")
    assert status == 0
    game = json.loads(out)
    assert game["result"]["finished"] and game["result"]["winners"] == ["Caro"]
    for side in game["sides"]:
        cells = side["hatches"][0]["cells"]
        assert side["total"] == sum(c["points"] for c in cells.values())
        assert all(c is not None for c in cells.values())


def write_log(tmp_path: Path, *events: dict[str, object]) -> Path:
    """Write `events` as a JSON Lines log in `tmp_path`."""
    path = tmp_path / "partida.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def test_replay_in_progress_shows_who_plays(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_log(
        tmp_path,
        {"event": "start", "players": ["Ana", "Beto"], "variant": "classic"},
        {"event": "roll", "player": "Ana", "dice": [6, 6, 1, 2, 3]},
        {"event": "declare", "player": "Ana", "category": "senas"},
    )
    status, out, _ = run(capsys, "bolivia", "replay", str(path))
    assert status == 0
    assert "Totales hasta ahora" in out and "Le toca a Ana (tirada 1, declaró senas (6))" in out
    assert "puede: tirar, declarar, apartar dados, anotar" in out


def test_replay_ending_in_a_grande_de_mano_shows_the_game_over(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_log(
        tmp_path,
        {"event": "start", "players": ["Ana", "Beto"], "variant": "classic"},
        {"event": "roll", "player": "Ana", "dice": [6, 6, 1, 2, 3]},
        {"event": "declare", "player": "Ana", "category": "senas"},
        {"event": "score", "player": "Ana"},
        {"event": "roll", "player": "Beto", "dice": [4, 4, 4, 4, 4]},
        {"event": "declare", "player": "Beto", "category": "grande"},
        {"event": "score", "player": "Beto"},
    )
    status, out, _ = run(capsys, "bolivia", "replay", str(path))
    assert status == 0
    beto = out[out.index("\nBeto\n") :]
    assert "grande: $ (grande de mano)" in beto and "grande: $" not in out[: out.index("\nBeto\n")]
    assert "Totales hasta ahora" not in out and "Totales: 1.º Beto" in out
    assert "Gana Beto" in out and "Le toca" not in out and "puede:" not in out
    status, out, _ = run(capsys, "bolivia", "replay", str(path), "--json")
    game = json.loads(out)
    assert game["result"]["finished"] and game["result"]["winners"] == ["Beto"]
    assert game["sides"][1]["hatches"][0]["cells"]["grande"] is None


def test_replay_in_progress_hatch_and_pick_phases(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    roll = {"event": "roll", "dice": [6, 6, 1, 2, 3]}
    declare = {"event": "declare", "category": "senas"}
    path = write_log(
        tmp_path,
        {"event": "start", "players": ["Ana", "Beto"], "variant": "three_hatches"},
        {**roll, "player": "Ana"},
        {**declare, "player": "Ana"},
        {"event": "score", "player": "Ana"},
    )
    _, out, _ = run(capsys, "bolivia", "replay", str(path))
    assert "pizarra 3 (vale 3 puntos de partida)" in out
    assert "Le toca a Ana: elegir la pizarra para senas (6) (marca 12, 12 puntos)" in out
    path = write_log(
        tmp_path,
        {
            "event": "start",
            "players": ["Ana", "Beto", "Caro", "Dani"],
            "variant": "partners",
            "teams": [["Ana", "Caro"], ["Beto", "Dani"]],
        },
        *({**e, "player": p} for p in ("Ana", "Caro") for e in (roll, declare, {"event": "score"})),
    )
    _, out, _ = run(capsys, "bolivia", "replay", str(path))
    assert "Ana y Caro (equipo)" in out and "Le toca a Ana y Caro: elegir qué tirada anota" in out
    assert "Caro: senas (6), marca 12 (12 puntos)" in out and "puede: elegir la tirada" in out


def test_replay_error_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_log(
        tmp_path,
        {"event": "start", "players": ["Ana", "Beto"]},
        {"event": "roll", "player": "Beto", "dice": [6, 6, 1, 2, 3]},
    )
    status, out, _ = run(capsys, "bolivia", "replay", str(path), "--json")
    assert status == 1
    error = json.loads(out)["error"]
    assert error["line"] == 2 and error["article"] == "How to play" and "le toca a Ana" in error["message"]


def test_replay_error_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_log(tmp_path, {"event": "start", "players": ["Ana", "Beto"]}, {"event": "bid"})
    status, out, err = run(capsys, "bolivia", "replay", str(path))
    assert status == 1 and "Ana" in out
    assert "Error en la línea 2: evento desconocido" in err and "Traceback" not in err


def test_replay_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(capsys, "bolivia", "replay", str(tmp_path / "nada.jsonl"))
    assert status != 0 and out == "" and "no existe el registro" in err


# --- advise -----------------------------------------------------------------------------------------------


def test_advise_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bolivia", "advise", "6", "1", "6", "2", "3", "--roll", "1", "--json")
    assert status == 0
    result = json.loads(out)
    senas = next(c for c in result["categories"] if c["category"] == "senas")
    assert senas["expected"] == pytest.approx(17.5) and senas["keep"] == [6, 6] and senas["action"] == "roll"
    assert len(result["categories"]) == 10 and result["best"] == "senas"


def test_advise_open_categories_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "bolivia", "advise", "1", "2", "3", "4", "5", "--roll", "2", "--open", "escalera,balas,1"
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "Tirada 2: 1 2 3 4 5" and len(lines) == 3
    assert lines[1].startswith("→ escalera") and "anote ya (20 puntos)" in lines[1]
    assert "balas (1)" in lines[2] and "aparte 1 y tire 4" in lines[2]


def test_advise_set_aside_and_grande_de_mano(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys, "bolivia", "advise", "6", "1", "6", "2", "3", "--roll", "2", "--set-aside", "1", "2", "--open", "6"
    )
    assert "aparte 1 2 6 6 y tire 1" in out
    _, out, _ = run(capsys, "bolivia", "advise", "2", "2", "2", "2", "2", "--roll", "1", "--open", "grande")
    assert "gana la partida" in out


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["1", "2", "3", "--roll", "1"], "cinco dados"),
        (["1", "2", "3", "4", "5"], "--roll"),
        (["1", "2", "3", "4", "5", "--roll", "5"], "1, 2 o 3"),
        (["1", "2", "3", "4", "5", "--roll", "1", "--open", "dados"], "categoría desconocida"),
        (["1", "2", "3", "4", "5", "--roll", "1", "--open", ","], "al menos una"),
        (["1", "2", "3", "4", "5", "--roll", "2", "--set-aside", "6"], "no están en la tirada"),
        (["1", "2", "3", "4", "5", "--roll", "2", "--set-aside", "9"], "no es un dado"),
    ],
)
def test_advise_bad_input(capsys: pytest.CaptureFixture[str], args: list[str], text: str) -> None:
    status, out, err = run(capsys, "bolivia", "advise", *args)
    assert status != 0 and out == "" and text in err and "Traceback" not in err


def test_advise_bench_reports_its_measures(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bolivia", "advise", "--bench", "--json")
    assert status == 0
    bench = json.loads(out)
    assert bench["queries"] == 252 * 3 and bench["target_ms"] == 50
    assert set(bench) >= {"startup_ms", "mean_ms", "p99_ms", "max_ms", "ok"}


# --- the installed console script ---------------------------------------------------------------------------


def test_the_cacho_script_scores_and_fails_cleanly() -> None:
    cacho = Path(sys.executable).parent / "cacho"
    ok = subprocess.run(
        [str(cacho), "bolivia", "score", "4", "4", "4", "4", "4", "--category", "grande", "--roll", "1", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["instant_win"] is True
    bad = subprocess.run(
        [str(cacho), "bolivia", "score", "4", "4", "4", "4", "--category", "grande", "--roll", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode != 0 and bad.stdout == ""
    assert "cinco dados" in bad.stderr and "Traceback" not in bad.stderr


def test_advise_after_declaring_prices_a_change_as_rolling_all_five(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bolivia", "advise", "5", "5", "5", "3", "1", "--roll", "1", "--declared", "quinas"]
    status, out, _ = run(capsys, *args, "--json")
    assert status == 0
    result = json.loads(out)
    by_category = {c["category"]: c for c in result["categories"]}
    assert by_category["quinas"]["keep"] == [5, 5, 5] and by_category["poker"]["keep"] == []
    assert result["best"] == "quinas"
    status, out, _ = run(capsys, *args)
    assert "póker" in out and "cambie de categoría y tire los 5 dados" in out and "→ quinas" in out
