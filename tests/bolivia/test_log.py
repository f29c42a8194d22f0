"""The game log: JSON Lines events, parsing, writing, and replaying to the first bad line."""

from __future__ import annotations

import json

import pytest

from engines.bolivia import (
    ART_EQUIPMENT,
    ART_HOW_TO_PLAY,
    BoliviaConfig,
    Category,
    Declare,
    Empate,
    Hatch,
    LogError,
    Pick,
    Roll,
    Score,
    SetAside,
    Start,
    Variant,
    dumps,
    event_to_dict,
    parse_event,
    replay_lines,
)
from kiosk.demo import demo_path

DEMO = "bolivia_partida.jsonl"


def lines(*events: dict[str, object]) -> list[str]:
    """JSON Lines text of `events`."""
    return [json.dumps(e, ensure_ascii=False) for e in events]


START = {"event": "start", "players": ["Ana", "Beto"], "variant": "classic"}


@pytest.mark.parametrize(
    ("obj", "action"),
    [
        (START, Start(("Ana", "Beto"))),
        ({"event": "roll", "player": "Ana", "dice": [6, 6, 1, 2, 3]}, Roll("Ana", (6, 6, 1, 2, 3))),
        ({"event": "declare", "player": "Ana", "category": "senas"}, Declare("Ana", Category.SENAS)),
        ({"event": "declare", "player": "Ana", "category": 6}, Declare("Ana", Category.SENAS)),
        ({"event": "declare", "player": "Ana", "category": "póker"}, Declare("Ana", Category.POKER)),
        ({"event": "set_aside", "player": "Ana", "positions": [1, 2]}, SetAside("Ana", (1, 2))),
        ({"event": "score", "player": "Ana"}, Score("Ana")),
        ({"event": "score", "player": "Ana", "category": "full"}, Score("Ana", Category.FULL)),
        ({"event": "pick", "player": "Beto"}, Pick("Beto")),
        ({"event": "hatch", "player": "Ana", "hatch": 2}, Hatch("Ana", 2)),
        ({"event": "roll", "player": "Ana", "dice": [1, 2, 3, 4, 5], "ts": "20:01", "photo": "a.jpg"}, None),
    ],
)
def test_each_event_parses_to_its_action(obj: dict[str, object], action: object) -> None:
    parsed = parse_event(obj)
    if action is not None:
        assert parsed == action
    assert parse_event(event_to_dict(parsed)) == parsed


TEAMS = (("Ana", "Beto"), ("Caro", "Dani"))
TEAMS_JSON = [["Ana", "Beto"], ["Caro", "Dani"]]


@pytest.mark.parametrize(
    ("obj", "variant"),
    [
        ({"variant": "three_hatches"}, Variant(hatches=3)),
        ({"variant": "generala"}, Variant(generala=True)),
        ({"variant": "partners", "teams": TEAMS_JSON}, Variant(teams=TEAMS)),
        ({"variant": ["partners", "three_hatches"], "teams": TEAMS_JSON}, Variant(3, TEAMS)),
        ({}, Variant()),
    ],
)
def test_start_variants(obj: dict[str, object], variant: Variant) -> None:
    start = parse_event({"event": "start", "players": ["Ana", "Beto", "Caro", "Dani"], **obj})
    assert isinstance(start, Start) and start.variant == variant
    assert parse_event(event_to_dict(start)) == start


def test_start_options() -> None:
    start = parse_event({**START, "options": {"escalera_as_alto": True, "empate": "desempate"}})
    assert isinstance(start, Start)
    assert start.config == BoliviaConfig(escalera_as_alto=True, empate=Empate.DESEMPATE)
    assert event_to_dict(start)["options"] == {"escalera_as_alto": True, "empate": "desempate"}


@pytest.mark.parametrize(
    ("obj", "text"),
    [
        ([1, 2], "objeto JSON"),
        ({"event": "bid"}, "evento desconocido"),
        ({"player": "Ana"}, "evento desconocido"),
        ({"event": "roll", "player": "Ana"}, "le falta dice"),
        ({"event": "roll", "player": "Ana", "dice": [1, 2, 3, 4, 5], "cup": 1}, "no lleva cup"),
        ({"event": "roll", "player": "Ana", "dice": "12345"}, "lista de números"),
        ({"event": "roll", "player": "Ana", "dice": [1, 2, 3, 4, True]}, "lista de números"),
        ({"event": "roll", "player": 3, "dice": [1, 2, 3, 4, 5]}, "texto"),
        ({"event": "declare", "player": "Ana", "category": "yahtzee"}, "categoría desconocida"),
        ({"event": "declare", "player": "Ana", "category": 7}, "categoría desconocida"),
        ({"event": "hatch", "player": "Ana", "hatch": "2"}, "número entero"),
        ({"event": "start", "players": "Ana"}, "lista de nombres"),
        ({**START, "variant": "yahtzee"}, "variante desconocida"),
        ({**START, "variant": ["classic", "generala"]}, "no se combina"),
        ({**START, "variant": []}, "'variant'"),
        ({**START, "variant": "partners"}, "necesita 'teams'"),
        ({**START, "teams": [["Ana"], ["Beto"]]}, "solo va con la variante"),
        ({**START, "options": {"dobles": True}}, "opción desconocida"),
        ({**START, "options": {"escalera_as_alto": "si"}}, "true o false"),
        ({**START, "options": {"empate": "moneda"}}, "compartido o desempate"),
        ({**START, "options": []}, "'options'"),
    ],
)
def test_malformed_events(obj: object, text: str) -> None:
    with pytest.raises(LogError) as error:
        parse_event(obj)
    assert text in error.value.message
    assert error.value.article is None  # a malformed line, not a rule the game refuses


def test_the_demo_game_replays_to_the_end() -> None:
    text = demo_path(DEMO).read_text(encoding="utf-8")
    result = replay_lines(text.splitlines())
    assert result.error is None and result.game is not None
    game = result.game
    assert game.over and game.instant_win is None and game.turns_played == 30
    assert game.result().winners == ("Caro",)
    # Writing the parsed events back gives a log that replays to the same game.
    events = [parse_event(json.loads(line)) for line in text.splitlines() if line.strip()]
    again = replay_lines(dumps(events).splitlines())
    assert again.game == game


def test_replay_stops_at_the_first_illegal_event_with_its_line_and_section() -> None:
    log = [
        *lines(START, {"event": "roll", "player": "Ana", "dice": [6, 6, 1, 2, 3]}),
        "",
        *lines(
            {"event": "declare", "player": "Ana", "category": "senas"},
            {"event": "set_aside", "player": "Ana", "positions": [1, 2]},
            {"event": "roll", "player": "Ana", "dice": [6, 5, 6, 6, 6]},
            {"event": "score", "player": "Ana"},
        ),
    ]
    result = replay_lines(log)
    assert result.error is not None
    assert (result.error.line, result.error.article) == (6, ART_HOW_TO_PLAY)
    assert "el dado 2 estaba apartado con 6" in result.error.message
    assert result.error.to_dict() == {"error": {"line": 6, "article": ART_HOW_TO_PLAY, "message": result.error.message}}
    # Nothing from the bad line on was applied: the game is as after line 5.
    assert result.game is not None and result.game.attempt is not None
    assert result.game.attempt.rolls == 1 and result.game.attempt.kept == frozenset({0, 1})


def test_replay_reports_a_rule_error_with_the_equipment_section() -> None:
    result = replay_lines(lines(START, {"event": "roll", "player": "Ana", "dice": [6, 6, 1, 2]}))
    assert result.error is not None and (result.error.line, result.error.article) == (2, ART_EQUIPMENT)


@pytest.mark.parametrize(
    ("log", "line", "text"),
    [
        ([], 1, "vacío"),
        (["", "  "], 2, "vacío"),
        (['{"event": "roll", "player": "Ana", "dice": [1,2,3,4,5]}'], 1, "primera línea"),
        ([json.dumps(START), "{not json"], 2, "no es JSON válido"),
        ([json.dumps(START), json.dumps({"event": "dudo", "player": "Ana"})], 2, "evento desconocido"),
    ],
)
def test_replay_reports_malformed_lines_without_a_section(log: list[str], line: int, text: str) -> None:
    result = replay_lines(log)
    assert result.error is not None
    assert (result.error.line, result.error.article) == (line, None)
    assert text in result.error.message


def test_a_second_start_is_refused() -> None:
    result = replay_lines(lines(START, START))
    assert result.error is not None and result.error.line == 2 and result.error.article is not None
