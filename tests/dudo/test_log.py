"""The table log (JSON Lines): reading, writing, replaying, and the first bad line."""

from __future__ import annotations

import json

import pytest

from engines.dudo import (
    Bid,
    Calzo,
    Dudo,
    DudoConfig,
    DudoTable,
    Hand,
    LogError,
    Paso,
    Reveal,
    RuleError,
    Start,
    Subir,
    dumps,
    event_to_dict,
    parse_event,
    replay_lines,
)

from .helpers import refusal

ISSUE_EXAMPLE = [
    '{"event":"start","players":["Ana","Beto","Caro"],"opener":"Ana"}',
    '{"event":"bid","player":"Ana","quantity":4,"face":5}',
    '{"event":"paso","player":"Beto","hand":"full"}',
    '{"event":"dudo","player":"Caro"}',
    '{"event":"reveal","dice":{"Beto":[3,3,3,6,6]}}',
]


def test_issue_example_replays() -> None:
    result = replay_lines(ISSUE_EXAMPLE)
    assert result.error is None and result.table is not None
    ruling = result.table.rulings[0]
    assert ruling.kind.value == "paso" and ruling.hand_held is True
    assert ruling.changes == (("Caro", -1),)  # the Full was there: the doubter loses (art. 8)
    assert result.table.round is not None and result.table.round.opener == "Caro"


@pytest.mark.parametrize(
    "event",
    [
        Start(("Ana", "Beto"), "Beto"),
        Start(("Ana", "Beto", "Caro"), "Ana", dice=(3, 0, 5), table_start_dice=15),
        Start(("Ana", "Beto"), "Ana", config=DudoConfig(subir=Subir.LIBRE, calzo_restringido=False)),
        Bid("Ana", 4, 5),
        Bid("Ana", 2, 3, desestima=True),
        Dudo("Beto"),
        Calzo("Beto"),
        Paso("Caro", Hand.QUINTILLA),
        Reveal.of({"Ana": [1, 2, 3], "Beto": [6]}),
    ],
)
def test_event_round_trip(event: object) -> None:
    as_json = json.loads(json.dumps(event_to_dict(event)))  # type: ignore[arg-type]
    assert parse_event(as_json) == event


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("[1, 2]", "objeto JSON"),
        ('{"event": "apuesta"}', "evento desconocido"),
        ('{"event": "bid", "player": "Ana", "quantity": 4}', "le falta face"),
        ('{"event": "bid", "player": "Ana", "quantity": "4", "face": 5}', "número entero"),
        ('{"event": "bid", "player": "Ana", "quantity": true, "face": 5}', "número entero"),
        ('{"event": "bid", "player": "Ana", "quantity": 4, "face": 5, "cara": 2}', "no lleva cara"),
        ('{"event": "paso", "player": "Ana", "hand": "poker"}', "full, escala o quintilla"),
        ('{"event": "reveal", "dice": {"Ana": [1, "2"]}}', "lista de números"),
        ('{"event": "reveal", "dice": [1, 2]}', "objeto"),
        ('{"event": "start", "players": "Ana Beto", "opener": "Ana"}', "lista de nombres"),
        ('{"event": "start", "players": ["Ana", "Beto"]}', "opener"),
        ('{"event": "start", "players": ["Ana", "Beto"], "opener": "Ana", "dice": {"Ana": 5}}', "cada jugador"),
    ],
)
def test_malformed_events_are_refused(line: str, fragment: str) -> None:
    with pytest.raises(LogError, match=fragment):
        parse_event(json.loads(line))


@pytest.mark.parametrize("name", [[1], {"a": 1}])
def test_an_event_name_that_is_not_a_text_is_refused(name: object) -> None:
    with pytest.raises(LogError, match="evento desconocido"):
        parse_event({"event": name})


def test_meta_keys_are_allowed() -> None:
    event = parse_event({"event": "dudo", "player": "Ana", "ts": "2026-11-22T10:00:00", "photo": "r1.jpg"})
    assert event == Dudo("Ana")


def test_start_options_and_sorteo() -> None:
    start = parse_event(
        {
            "event": "start",
            "players": ["Ana", "Beto", "Caro"],
            "sorteo": [{"Ana": 6, "Beto": 6, "Caro": 2}, {"Ana": 3, "Beto": 5}],
            "options": {"subir": "libre", "calzo_restringido": False},
        }
    )
    assert isinstance(start, Start)
    assert start.opener == "Beto"
    assert start.config == DudoConfig(subir=Subir.LIBRE, calzo_restringido=False)
    with refusal(RuleError, "3", "el sorteo lo ganó Beto, no Ana"):
        parse_event({"event": "start", "players": ["Ana", "Beto"], "opener": "Ana", "sorteo": [{"Ana": 2, "Beto": 4}]})
    with refusal(RuleError, "11", "opción desconocida 'siciliana'"):
        parse_event({"event": "start", "players": ["Ana", "Beto"], "opener": "Ana", "options": {"siciliana": 3}})


def test_first_bad_line_stops_the_replay() -> None:
    lines = [
        *ISSUE_EXAMPLE,
        "",  # blank lines are skipped but still counted
        '{"event":"bid","player":"Caro","quantity":3,"face":5}',
        '{"event":"calzo","player":"Beto"}',  # not Beto's turn: Ana is next after Caro
        '{"event":"dudo","player":"Ana"}',
    ]
    result = replay_lines(lines)
    assert result.error is not None
    assert result.error.line == 8
    assert result.error.article == "3"
    assert "turno" in result.error.message
    assert result.table is not None
    assert result.table.history[-1] == Bid("Caro", 3, 5)  # nothing after the bad line was applied
    assert result.error.to_dict() == {
        "error": {"line": 8, "article": "3", "message": result.error.message},
    }


@pytest.mark.parametrize(
    ("lines", "line", "article"),
    [
        ([], 1, None),
        (["not json"], 1, None),
        (['{"event":"dudo","player":"Ana"}'], 1, None),
        (['{"event":"start","players":["Ana"],"opener":"Ana"}'], 1, "3"),
        ([ISSUE_EXAMPLE[0], ISSUE_EXAMPLE[0]], 2, "3"),
        ([ISSUE_EXAMPLE[0], '{"event":"bid","player":"Ana","quantity":4,"face":7}'], 2, "2"),
        ([ISSUE_EXAMPLE[0], '{"event":"reveal","dice":{}}'], 2, "6"),
    ],
)
def test_replay_errors(lines: list[str], line: int, article: str | None) -> None:
    error = replay_lines(lines).error
    assert error is not None
    assert (error.line, error.article) == (line, article)


def test_dumps_then_replay_is_the_same_table() -> None:
    table = DudoTable.start(Start(("Ana", "Beto", "Caro"), "Ana"))
    for action in (Bid("Ana", 3, 4), Bid("Beto", 3, 6), Dudo("Caro")):
        table = table.apply(action)
    table = table.apply(Reveal.of({"Ana": [6, 6, 1, 2, 3], "Beto": [4, 4, 4, 5, 5], "Caro": [1, 2, 3, 5, 5]}))
    replayed = replay_lines(dumps(table.history).splitlines())
    assert replayed.error is None
    assert replayed.table == table
    assert DudoTable.replay(table.history) == table
