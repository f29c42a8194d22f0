"""The table's link and the organizer, through a real Mosquitto: nothing lost, nothing counted twice."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from engines.dudo import event_to_dict
from engines.dudo.simulate import play_table
from kiosk.championship.broker import Mosquitto, free_port
from kiosk.championship.link import LinkConfig, TableLink, wait_for
from kiosk.championship.organizer import Organizer
from kiosk.championship.view import TableView
from kiosk.store import Store
from kiosk.tables import stored_line

CODE = "prueba"


def lines_of(seed: int, players: tuple[str, ...] = ("Ana", "Beto", "Caro")) -> list[str]:
    """A whole simulated game as stored lines."""
    return [stored_line(event_to_dict(e)) for e in play_table(players, random.Random(seed))]


def decoded(store: Store, table_id: int) -> list[dict[str, object]]:
    """A table's stored log, decoded."""
    return [json.loads(line) for line in store.lines(table_id)]


@pytest.fixture
def table(tmp_path: Path) -> tuple[Store, int]:
    """A kiosk's store with one empty Dudo table."""
    store = Store(tmp_path / "mesa.sqlite3")
    return store, store.create_table("dudo", "Mesa 1", [])


@pytest.fixture
def organizer(broker: Mosquitto) -> Iterator[Organizer]:
    """The organizer, subscribed to every table of the championship."""
    organizer = Organizer("127.0.0.1", broker.port, CODE, resend_after_s=0.3).start()
    yield organizer
    organizer.stop()


def link_for(store: Store, table_id: int, port: int, number: int = 1) -> TableLink:
    """A started link for the table, polling often."""
    return TableLink(store, LinkConfig("127.0.0.1", port, CODE, number, table_id), poll_s=0.1).start()


def test_every_event_reaches_the_organizer_in_order(
    table: tuple[Store, int], broker: Mosquitto, organizer: Organizer
) -> None:
    store, table_id = table
    link = link_for(store, table_id, broker.port)
    try:
        for line in lines_of(1):
            store.append(table_id, line)
            link.wake()
        total = len(store.lines(table_id))
        assert link.wait_acked(total, 10)
        assert wait_for(lambda: len(organizer.events(1)) == total, 10)
        assert organizer.events(1) == decoded(store, table_id)
        summary = organizer.summary(1)
        assert summary is not None and summary["winner"] is not None and summary["link"] == "up"
        assert summary["duplicates"] == 0 and summary["conflicts"] == 0
        assert wait_for(lambda: store.setting(link.config.cursor_key()) == str(total), 5)  # the cursor is on disk
    finally:
        link.stop()
    assert wait_for(lambda: (organizer.summary(1) or {}).get("link") == "down", 5)


def test_table_plays_on_without_the_broker_and_catches_up(tmp_path: Path, table: tuple[Store, int]) -> None:
    store, table_id = table
    port = free_port()
    game = lines_of(2)
    link = link_for(store, table_id, port)
    broker = Mosquitto(port=port, folder=tmp_path / "broker")
    organizer = Organizer("127.0.0.1", port, CODE, resend_after_s=0.3).start()
    try:
        for line in game[:20]:
            store.append(table_id, line)  # no broker yet: the table keeps playing on its own log
            link.wake()
        assert link.status()["state"] == "down" and link.acked == 0
        broker.start()
        for line in game[20:]:
            store.append(table_id, line)
            link.wake()
        assert link.wait_acked(len(game), 15)
        assert link.status()["state"] == "up"
        assert wait_for(lambda: organizer.events(1) == decoded(store, table_id), 15)
    finally:
        link.stop()
        organizer.stop()
        broker.close()


def test_restarted_link_sends_from_its_cursor(
    table: tuple[Store, int], broker: Mosquitto, organizer: Organizer
) -> None:
    store, table_id = table
    game = lines_of(3)
    for line in game[:10]:
        store.append(table_id, line)
    first = link_for(store, table_id, broker.port)
    assert first.wait_acked(10, 10)
    first.stop()
    second = link_for(store, table_id, broker.port)
    try:
        assert second.acked == 10  # from the store: nothing goes out twice after a clean stop
        for line in game[10:]:
            store.append(table_id, line)
            second.wake()
        assert wait_for(lambda: organizer.events(1) == decoded(store, table_id), 10)
        assert (organizer.summary(1) or {})["duplicates"] == 0
    finally:
        second.stop()


def test_a_late_organizer_rebuilds_every_table_from_the_events(tmp_path: Path, broker: Mosquitto) -> None:
    stores = {n: Store(tmp_path / f"mesa{n}.sqlite3") for n in (1, 2)}
    links = []
    for n, store in stores.items():
        table_id = store.create_table("dudo", f"Mesa {n}", lines_of(10 + n))
        links.append(link_for(store, table_id, broker.port, number=n))
    try:
        for link in links:
            assert link.wait_acked(len(link.store.lines(link.config.table_id)), 10)
        # An organizer with no session (a new laptop): the tables' retained states announce what they have,
        # and it asks each table for everything again.
        late = Organizer("127.0.0.1", broker.port, CODE, client_id="otro-organizador", resend_after_s=0.3).start()
        try:
            for link in links:
                store, table_id, n = link.store, link.config.table_id, link.config.table
                assert wait_for(lambda: late.events(n) == decoded(store, table_id), 15)  # noqa: B023
        finally:
            late.stop()
    finally:
        for link in links:
            link.stop()


def test_view_follows_the_game_to_its_champion() -> None:
    view = TableView()
    for line in lines_of(4, ("Ana", "Beto", "Caro", "Dani")):
        view.add(json.loads(line))
    summary = view.summary()
    assert summary["error"] is None and summary["winner"] is not None
    assert len(summary["eliminated"]) == 3 and summary["winner"] not in summary["eliminated"]
    assert sum(player["dice"] for player in summary["players"]) > 0


def test_view_stops_at_an_illegal_event() -> None:
    view = TableView()
    view.add({"event": "start", "players": ["Ana", "Beto"], "opener": "Ana"})
    view.add({"event": "dudo", "player": "Ana"})
    assert view.summary()["error"] is not None and view.seq == 2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"host": "h", "port": 1883, "code": "Con Espacio", "table": 1, "table_id": 1}, "código de campeonato"),
        ({"host": "h", "port": 0, "code": "abc", "table": 1, "table_id": 1}, "puerto"),
        ({"host": "h", "port": 1883, "code": "abc", "table": 0, "table_id": 1}, "número de mesa"),
        ({"port": 1883, "code": "abc", "table": 1, "table_id": 1}, "falta"),
        ({"host": "h", "port": 1883, "code": "abc", "table": 1}, "falta la mesa de Dudo del quiosco"),
        ({"host": "h", "port": 1883, "code": "abc", "table": 1, "table_id": ""}, "debe ser un número entero"),
        ({"host": "h", "port": "x", "code": "abc", "table": 1, "table_id": 1}, "el puerto debe ser un número"),
    ],
)
def test_link_config_refuses_what_is_wrong(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LinkConfig.from_dict(data)


def test_events_the_broker_lost_are_asked_for_again(table: tuple[Store, int], broker: Mosquitto) -> None:
    store, table_id = table
    organizer = Organizer("127.0.0.1", broker.port, CODE, resend_after_s=0.3).start()
    assert wait_for(lambda: organizer.connected, 10)
    organizer.stop()  # away: the broker queues the table's events in the organizer's persistent session
    link = link_for(store, table_id, broker.port)
    try:
        for line in lines_of(5):
            store.append(table_id, line)
            link.wake()
        total = len(store.lines(table_id))
        assert link.wait_acked(total, 10)
        broker.kill()  # before its autosave: the queued events and the retained state are gone
        broker.start()
        back = Organizer("127.0.0.1", broker.port, CODE, resend_after_s=0.3).start()
        try:
            assert wait_for(lambda: back.events(1) == decoded(store, table_id), 15)
            assert (back.summary(1) or {})["resend_requests"] >= 1
        finally:
            back.stop()
    finally:
        link.stop()


def test_the_last_rulings_photo_goes_out_with_the_state(
    tmp_path: Path, table: tuple[Store, int], broker: Mosquitto, organizer: Organizer
) -> None:
    store, table_id = table
    photos = tmp_path / "fotos"
    (photos / str(table_id)).mkdir(parents=True)
    (photos / str(table_id) / "fallo.jpg").write_bytes(b"\xff\xd8 la foto anotada")
    lines = lines_of(6)
    first_reveal = next(i for i, line in enumerate(lines) if json.loads(line)["event"] == "reveal")
    lines[first_reveal] = json.dumps({**json.loads(lines[first_reveal]), "photo": f"{table_id}/fallo.jpg"})
    config = LinkConfig("127.0.0.1", broker.port, CODE, 1, table_id)
    link = TableLink(store, config, poll_s=0.1, photos=photos).start()
    try:
        for line in lines[: first_reveal + 1]:
            store.append(table_id, line)
            link.wake()
        assert wait_for(lambda: organizer.photo(1) == b"\xff\xd8 la foto anotada", 10)
        assert wait_for(lambda: len(organizer.events(1)) == first_reveal + 1, 10)
        summary = organizer.summary(1) or {}
        assert summary["has_photo"] and summary["ruling"]["photo"] == f"{table_id}/fallo.jpg"
    finally:
        link.stop()


def test_a_restarted_organizer_has_its_journal_while_the_tables_are_away(
    tmp_path: Path, table: tuple[Store, int], broker: Mosquitto
) -> None:
    store, table_id = table
    journal = tmp_path / "eventos.sqlite3"
    first = Organizer("127.0.0.1", broker.port, CODE, journal=journal).start()
    link = link_for(store, table_id, broker.port)
    try:
        for line in lines_of(7):
            store.append(table_id, line)
            link.wake()
        assert wait_for(lambda: first.events(1) == decoded(store, table_id), 10)
    finally:
        link.stop()  # the table goes away
        first.stop()
    again = Organizer("127.0.0.1", broker.port, CODE, client_id="portatil-nuevo", journal=journal).start()
    try:
        assert again.events(1) == decoded(store, table_id)  # at once, from its journal
        assert (again.summary(1) or {})["winner"] is not None
    finally:
        again.stop()
