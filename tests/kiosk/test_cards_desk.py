"""What the card games share on the kiosk: a tap stored all or none, undo of a whole tap, imports, demo, texts, TV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from engines.errors import LogError, RuleError
from kiosk.cards.desk import UNDO_TAP, CardTables
from kiosk.store import StaleError, Store
from tests.kiosk.conftest import Coordinator

PLAYERS = {"players": ["Ana", "Beto", "Caro", "Davi"]}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "cards.sqlite3")


def test_append_lines_is_all_or_none(store: Store) -> None:
    table = store.create_table("truco", "t", ['{"event": "start"}'])
    assert store.append_lines(table, ['{"a": 1}', '{"b": 2}'], expect_seq=1) == 3
    with pytest.raises(StaleError, match=r"evento 3, la página mostraba el 1"):
        store.append_lines(table, ['{"c": 3}'], expect_seq=1)
    assert store.lines(table) == ['{"event": "start"}', '{"a": 1}', '{"b": 2}']


def test_a_tap_is_checked_whole_before_any_line_is_stored(store: Store) -> None:
    truco = CardTables("truco")
    table = truco.create(store, "t", PLAYERS)
    with pytest.raises(RuleError, match="decide el mão: Ana") as wrong_player:
        truco.act(store, table, [{"event": "hand", "dealer": 3}, {"event": "keep", "player": 2}], 1)
    assert wrong_player.value.article == "El reparto"
    assert len(store.lines(table)) == 1
    desk = truco.act(store, table, [{"event": "hand", "dealer": 3}, {"event": "offer"}], 1)
    assert desk.seq == 3 and desk.last_tap() == 2
    assert {json.loads(line)["tap"] for line in desk.lines[1:]} == {2}
    with pytest.raises(LogError, match="no hay nada que anotar"):
        truco.act(store, table, [], 3)
    with pytest.raises(RuleError) as refused:
        truco.act(store, table, [{"event": "start", "game": "truco"}], 3)
    assert refused.value.article == "Registro"


def test_undo_takes_back_the_last_tap_or_one_imported_line(store: Store) -> None:
    truco = CardTables("truco")
    lines = [
        json.dumps({"event": "start", "game": "truco", **PLAYERS}),
        '{"event": "hand", "dealer": 3}',
        '{"event": "offer"}',
    ]
    table = truco.import_log(store, "t", "\n".join(lines))
    desk = truco.act(store, table, UNDO_TAP, 3)
    assert desk.seq == 4 and len(desk.standing) == 2  # an imported line has no tap: one at a time
    desk = truco.act(store, table, [{"event": "offer"}, {"event": "keep", "player": 0}], 4)
    desk = truco.act(store, table, UNDO_TAP, desk.seq)
    assert [line["event"] for line in desk.standing] == ["start", "hand"]
    with pytest.raises(LogError, match='línea 1: falta "chips"'):  # a cacho start names the chips
        truco.import_log(store, "x", lines[0].replace("truco", "cacho"))


def test_the_card_games_page(coordinator: Coordinator) -> None:
    response = coordinator.form("/truco/new", {"p0": "Ana", "p1": "Beto", "p2": "Caro", "p3": "Davi", "name": "Mesa T"})
    assert response.status_code == 302
    page = coordinator.get("/cards/")
    assert page.status_code == 200 and "Mesa T" in page.text and "/truco/new" in page.text and "/cacho/new" in page.text
    assert "/pifpaf/new" in page.text and "/cacheta/new" in page.text
    assert coordinator.get("/cards").status_code in (200, 308)
    assert "/cards/" in coordinator.get("/").text


@pytest.mark.parametrize("game", ["truco", "cacho", "pifpaf", "cacheta"])
def test_the_demo_logs_import_or_say_why_not(coordinator: Coordinator, game: str) -> None:
    text = Path(f"kiosk/demo/cards_{game}.jsonl").read_text(encoding="utf-8")
    response = coordinator.form(f"/{game}/import", {"text": text, "name": "Demo"})
    if game in ("cacho", "pifpaf"):  # one hand, not an evening
        assert response.status_code == 400 and "evening" in response.text
        return
    assert response.status_code == 302
    table = response.headers["Location"].rsplit("/", 1)[1]
    assert coordinator.get(f"/{game}/{table}/state.json").status_code == 200
    assert coordinator.get(f"/{game}/{table}").status_code == 200
    assert coordinator.get(f"/{game}/{table}/tv").status_code == 200


def test_the_demo_seats_a_table_per_card_game_once(tmp_path: Path) -> None:
    from kiosk.cards.demo import seat_card_demos
    from tests.kiosk.conftest import become_coordinator, make_app

    app = make_app(tmp_path, DEMO=True)
    try:
        games = {row.game for row in app.extensions["cacho.store"].tables()}
        assert {"truco", "cacho", "pifpaf", "cacheta"} <= games
        assert seat_card_demos(app.extensions["cacho.store"]) == []
        co = become_coordinator(app.test_client())
        for row in app.extensions["cacho.store"].tables():
            assert co.get(f"/{row.game}/{row.id}/state.json").status_code == 200
    finally:
        app.extensions["cacho.camera"].close()


def test_every_card_page_text_has_its_english() -> None:
    import re

    from kiosk import i18n
    from kiosk.cards import cacheta, cacho, pifpaf, truco

    keys = [key for module in (truco, cacho, pifpaf, cacheta) for key in module.JS_LABELS]
    for folder in ("truco", "cacho", "pifpaf", "cacheta", "cards"):
        for page in Path("kiosk/templates", folder).glob("*.html"):
            keys += re.findall(r"_\('([^']*)'\)", page.read_text(encoding="utf-8"))
    assert [key for key in keys if key not in i18n.EN] == []


def test_the_tv_never_gets_the_hands_of_a_log_dealt_face_up(client: FlaskClient, coordinator: Coordinator) -> None:
    text = Path("kiosk/demo/cards_truco.jsonl").read_text(encoding="utf-8").splitlines()
    upto = next(i for i, line in enumerate(text) if '"play"' in line)  # the first hand dealt face up, in play
    response = coordinator.form("/truco/import", {"text": "\n".join(text[:upto]), "name": "A la vista"})
    table = response.headers["Location"].rsplit("/", 1)[1]
    assert "hands" in coordinator.get(f"/truco/{table}/state.json").get_json()["summary"]
    stranger = client.application.test_client()
    assert "hands" not in stranger.get(f"/truco/{table}/state.json").get_json()["summary"]
