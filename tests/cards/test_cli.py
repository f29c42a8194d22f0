"""The `cacho cards ...` command line: public contracts, refusals and replays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk import cli
from kiosk.commands.cards import describe
from kiosk.demo import demo_path


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def call_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    status, out, err = call(capsys, *argv, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_registered() -> None:
    assert "kiosk.commands.cards" in cli.COMMAND_MODULES


def test_showdown_contract(capsys: pytest.CaptureFixture[str]) -> None:
    data = call_json(capsys, "cards", "showdown", "--game", "cacho", "AD 4D 5D", "4S 2S 6D")
    assert data["winner"] == 0
    assert data["hands"] == [
        {"cards": ["AD", "4D", "5D"], "category": "cacho", "points": 30},
        {"cards": ["4S", "2S", "6D"], "category": "two_flush", "points": 26},
    ]


def test_showdown_eldest_and_three_sixes(capsys: pytest.CaptureFixture[str]) -> None:
    data = call_json(capsys, "cards", "showdown", "--game", "cacho", "2C 3C 5C", "AD 4D 5D")
    assert data["winner"] == 0 and data["decided_by"] == "eldest"
    data = call_json(capsys, "cards", "showdown", "--game", "cacho", "AD 4D 5D", "2C 3C 5C", "6S 6H 6D")
    assert data["winner"] == 2
    assert data["hands"][2] == {"cards": ["6S", "6H", "6D"], "category": "three_sixes", "points": None}


def test_showdown_text_is_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = call(capsys, "cards", "showdown", "--game", "cacho", "AD 4D 5D", "4S 2S 6D")
    assert status == 0
    assert "cacho (tres del mismo palo), 30 puntos" in out and "Gana la mano 0" in out


def test_melds_contract(capsys: pytest.CaptureFixture[str]) -> None:
    data = call_json(capsys, "cards", "melds", "--game", "pifpaf", "3S 4S 5S 6S 6H 6D 9C 10C JC")
    assert data["valid"] is True
    assert sorted(data["melds"]) == [["3S", "4S", "5S"], ["6D", "6H", "6S"], ["9C", "10C", "JC"]]  # type: ignore[type-var]
    data = call_json(capsys, "cards", "melds", "--game", "pifpaf", "QS QH QD QC")
    assert data == {"game": "pifpaf", "valid": False, "melds": [], "details": []}
    data = call_json(capsys, "cards", "melds", "--game", "cacheta", "--flip", "8C", "5H 7H 9S")
    assert data["valid"] is True and data["trumps"] == ["9C", "9S"]
    assert data["details"] == [{"kind": "sequence", "cards": ["5H", "7H", "9S"], "wild": "9S", "stands_for": "6H"}]
    data = call_json(capsys, "cards", "melds", "--game", "cacheta", "QH KH AH")
    assert data["melds"] == [["QH", "KH", "AH"]]
    data = call_json(capsys, "cards", "melds", "--game", "pifpaf", "QH", "KH", "AH")  # cards as separate words
    assert data["valid"] is False


def test_melds_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = call(capsys, "cards", "melds", "--game", "cacheta", "--flip", "8C", "5H 7H 9S")
    assert status == 0 and "Sí" in out and "9S vale por 6H" in out
    status, out, _ = call(capsys, "cards", "melds", "--game", "pifpaf", "KH AH 2H")
    assert status == 0 and out.startswith("No")


def test_trick_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert call_json(capsys, "cards", "trick", "--game", "truco", "3S", "3H", "2C", "4C") == {
        "game": "truco",
        "winner": 3,
        "team": 1,
        "leads_next": 3,
    }
    data = call_json(capsys, "cards", "trick", "--game", "truco", "3S", "2H", "3C", "4D")
    assert (data["winner"], data["team"]) == (0, 0)
    data = call_json(capsys, "cards", "trick", "--game", "truco", "3S", "3H", "KC", "4D")
    assert (data["winner"], data["team"]) == (None, None)
    # With seat 2 leading, of the two tied partners seat 2 played first.
    data = call_json(capsys, "cards", "trick", "--game", "truco", "--lead", "2", "3S", "2H", "3C", "4D")
    assert (data["winner"], data["team"]) == (2, 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["showdown", "--game", "poker", "AD 4D 5D", "2C 3C 5C"], "juego desconocido «poker»"),
        (["showdown", "--game", "truco", "AD 4D 5D", "2C 3C 5C"], "no tiene esta acción"),
        (["showdown", "--game", "cacho", "AD 4D 8D", "2C 3C 5C"], "8D no está en la baraja"),
        (["showdown", "--game", "cacho", "AD 4D 5D", "AD 3C 5C"], "repetida"),
        (["showdown", "--game", "cacho", "AD 4D", "2C 3C 5C"], "3 cartas"),
        (["showdown", "--game", "cacho", "AD 4D 5D"], "de 2 a 4"),
        (["showdown", "--game", "cacho", "AD 4D XX", "2C 3C 5C"], "carta inválida «XX»"),
        (["melds", "--game", "pifpaf", "AS AS AS"], "repetida"),
        (["melds", "--game", "pifpaf", "--flip", "8C", "AS 2S 3S"], "solo existe en Cacheta"),
        (["melds", "--game", "cacheta", "--flip", "8C", "8C 8C 8D"], "repetida"),
        (["melds", "--game", "cacheta", "--flip", "ZZ", "AS 2S 3S"], "carta inválida"),
        (["melds", "--game", "cacheta", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"], "de 1 a 10"),
        (["melds", "--game", "truco", "AS 2S 3S"], "no tiene esta acción"),
        (["trick", "--game", "truco", "3S", "3H", "2C"], "cuatro cartas"),
        (["trick", "--game", "truco", "3S", "3H", "2C", "9C"], "9C no está en la baraja de Truco"),
        (["trick", "--game", "truco", "3S", "3S", "2C", "4C"], "repetida"),
        (["trick", "--game", "truco", "--lead", "4", "3S", "3H", "2C", "4C"], "asiento de 0 a 3"),
        (["replay", "/nonexistent/log.jsonl"], "no existe el registro"),
    ],
)
def test_bad_input_exits_non_zero_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = call(capsys, "cards", *argv)
    assert status != 0
    assert message in err and "Traceback" not in err
    assert out == ""


@pytest.mark.parametrize(
    ("name", "winner"),
    [("cards_cacho.jsonl", 0), ("cards_pifpaf.jsonl", 1), ("cards_cacheta.jsonl", 1), ("cards_truco.jsonl", None)],
)
def test_demo_logs_replay(capsys: pytest.CaptureFixture[str], name: str, winner: int | None) -> None:
    data = call_json(capsys, "cards", "replay", str(demo_path(name)))
    state = data["state"]
    assert isinstance(state, dict)
    assert state["winner"] == winner
    status, out, _ = call(capsys, "cards", "replay", str(demo_path(name)))
    assert status == 0 and out


def test_demo_details(capsys: pytest.CaptureFixture[str]) -> None:
    cacho = call_json(capsys, "cards", "replay", str(demo_path("cards_cacho.jsonl")))["state"]
    assert isinstance(cacho, dict)
    assert cacho["chips"] == [28, 12, 20] and cacho["redeals"] == 1
    cacheta = call_json(capsys, "cards", "replay", str(demo_path("cards_cacheta.jsonl")))["state"]
    assert isinstance(cacheta, dict)
    assert cacheta["vp"] == [2, 5, 3] and cacheta["gp"] == [2, 4, 3]
    truco = call_json(capsys, "cards", "replay", str(demo_path("cards_truco.jsonl")))["state"]
    assert isinstance(truco, dict)
    assert truco["scores"] == [7, 0]


def write(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


START = '{"event": "start", "game": "cacho", "players": ["Ana", "Beto"], "chips": [5, 5]}'
DEAL = '{"event": "deal", "cards": ["AD", "2C"]}'


def test_replay_stops_at_the_first_illegal_event(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = write(
        tmp_path,
        [
            START,
            '{"event": "deal", "cards": ["AD", "2C"]}',
            '{"event": "bet", "player": 1}',
            '{"event": "this line is never read"}',
        ],
    )
    status, out, err = call(capsys, "cards", "replay", log, "--json")
    assert status == 1
    assert json.loads(out) == {
        "error": {"line": 3, "article": "The first round", "message": "no es su turno: le toca a Ana"}
    }
    status, out, err = call(capsys, "cards", "replay", log)
    assert status == 1 and "Error en la línea 3" in err and "Fichas: Ana 5, Beto 5" in out


@pytest.mark.parametrize(
    ("lines", "line", "article"),
    [
        ([START, "not json"], 2, None),
        ([START, '{"event": "deal", "cards": 5}'], 2, None),
        ([START, '{"event": "shuffle"}'], 2, None),
        (['{"event": "start", "game": "mus"}'], 1, None),
        (['{"event": "deal", "cards": []}'], 1, None),
        ([START, '{"event": "deal", "cards": ["AD", "9C"]}'], 2, "Background"),
        (['{"event": "start", "game": "cacho", "players": ["Ana"], "chips": [5]}'], 1, "Background"),
        (['{"event": "start", "game": "cacho", "players": ["A", "B"], "chips": [5, 5], "options": {"x": 1}}'], 1, None),
        ([START, DEAL, '{"event": "raise", "player": 0, "amount": 1}'], 3, "The first round"),
        ([START, START], 2, None),
        ([], 1, None),
    ],
)
def test_replay_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lines: list[str], line: int, article: str | None
) -> None:
    status, out, _ = call(capsys, "cards", "replay", write(tmp_path, lines), "--json")
    assert status == 1
    error = json.loads(out)["error"]
    assert error["line"] == line and error["article"] == article and error["message"]


def test_replay_other_games_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    truco = [
        '{"event": "start", "game": "truco", "players": ["A", "B", "C", "D"]}',
        '{"event": "hand", "dealer": 0}',
        '{"event": "offer", "cards": ["AS", "2S", "3S"]}',
        '{"event": "reject", "player": 1}',
        '{"event": "offer", "cards": ["4S", "5S", "6S"]}',
        '{"event": "reject", "player": 1}',
        '{"event": "offer", "cards": ["7S", "JS", "QS"]}',
        '{"event": "reject", "player": 1}',
        '{"event": "offer", "cards": ["KS", "AH", "2H"]}',
        '{"event": "reject", "player": 1}',
    ]
    status, out, _ = call(capsys, "cards", "replay", write(tmp_path, truco), "--json")
    assert status == 1
    assert json.loads(out)["error"] == {
        "line": 10,
        "article": "El reparto",
        "message": "el mão no puede rechazar más de tres manos por reparto",
    }
    cacheta = [
        '{"event": "start", "game": "cacheta", "players": ["A", "B"], "options": {"start_points": "ten"}}',
    ]
    status, out, _ = call(capsys, "cards", "replay", write(tmp_path, cacheta), "--json")
    assert status == 1 and json.loads(out)["error"]["line"] == 1


def test_console_script_subprocess() -> None:
    script = Path(sys.executable).parent / "cacho"
    done = subprocess.run(
        [str(script), "cards", "showdown", "--game", "cacho", "AD 4D 5D", "2C 3C 5C", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["winner"] == 0
    bad = subprocess.run(
        [str(script), "cards", "trick", "--game", "truco", "8S", "3H", "2C", "4C"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert bad.returncode != 0 and "8S no está en la baraja" in bad.stderr and "Traceback" not in bad.stderr


def test_the_summaries_are_words_a_player_reads(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 63: Cacheta's VP and GP per player, and Truco's pairs by their names, not Python lists or «pareja 0»."""
    status, out, _ = call(capsys, "cards", "replay", str(demo_path("cards_cacheta.jsonl")))
    assert status == 0 and "[" not in out
    assert "Puntos de victoria (VP): Ana 2, Beto 5, Caro 3\nPuntos de juego (GP): Ana 2, Beto 4, Caro 3\n" in out
    status, out, _ = call(capsys, "cards", "replay", str(demo_path("cards_truco.jsonl")))
    assert status == 0 and "Tentos (se juega a 12): Ana y Caro 7, Beto y Davi 0" in out and "pareja 0" not in out
    over = {"game": "truco", "players": ["Ana", "Beto", "Caro", "Davi"], "hand": 9, "scores": [5, 12], "winner": 1}
    assert describe(over | {"phase": "over"}).endswith("Gana la pareja de Beto y Davi.")
    status, out, _ = call(capsys, "cards", "trick", "--game", "truco", "7D", "AS", "7H", "4C")
    assert status == 0 and out == "Gana el asiento 3 (pareja de los asientos 1 y 3); sale a la próxima baza.\n"
