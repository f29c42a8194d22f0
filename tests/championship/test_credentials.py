"""The broker's security with a real Mosquitto: a table publishes only its own topics, spectators only read."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from kiosk.championship import credentials
from kiosk.championship.broker import Mosquitto
from kiosk.championship.link import LinkConfig, TableLink, wait_for
from kiosk.championship.organizer import Organizer
from kiosk.cli import main
from kiosk.store import Store

CODE = "prueba"


class Client:
    """A plain MQTT client that records what it hears under `cacho/prueba/#`."""

    def __init__(self, port: int, username: str | None = None, password: str | None = None) -> None:
        self.heard: list[tuple[str, dict[str, object]]] = []
        self.subscribed = threading.Event()
        self.refused = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"prueba-{uuid.uuid4().hex[:8]}")
        if username:
            self.client.username_pw_set(username, password)
        self.client.on_connect = self._connected
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        self.client.on_message = lambda c, u, m: self.heard.append((m.topic, json.loads(m.payload)))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _connected(self, client: mqtt.Client, userdata: object, flags: object, reason: object, props: object) -> None:
        if getattr(reason, "is_failure", False):
            self.refused.set()
            return
        client.subscribe(f"cacho/{CODE}/#", qos=1)

    def publish(self, topic: str, data: dict[str, object]) -> None:
        """Publish with QoS 1 and wait for the broker's acknowledgement (sent after it applied its ACL)."""
        self.client.publish(topic, json.dumps(data), qos=1).wait_for_publish(timeout=5)

    def topics(self) -> list[str]:
        """The topics heard, in order."""
        return [topic for topic, _ in self.heard]

    def close(self) -> None:
        """Disconnect."""
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[tuple[Mosquitto, credentials.Credentials]]:
    """A broker with our password file and ACL for three tables."""
    folder = tmp_path / "credenciales"
    written = credentials.write_broker_files(folder, CODE, 3)
    broker = Mosquitto(
        folder=tmp_path / "broker",
        password_file=folder / credentials.PASSWORD_FILE,
        acl_file=folder / credentials.ACL_FILE,
    ).start()
    try:
        yield broker, written
    finally:
        broker.close()


def test_a_table_with_its_password_reaches_the_organizer(
    tmp_path: Path, secured: tuple[Mosquitto, credentials.Credentials]
) -> None:
    broker, written = secured
    store = Store(tmp_path / "mesa.sqlite3")
    table_id = store.create_table("dudo", "Mesa 1", ['{"event": "start", "players": ["Ana", "Beto"], "opener": "Ana"}'])
    organizer = Organizer(
        "127.0.0.1", broker.port, CODE, username="organizador", password=written.passwords["organizador"]
    ).start()
    user = credentials.table_user(1)
    link = TableLink(
        store, LinkConfig("127.0.0.1", broker.port, CODE, 1, table_id, user, written.passwords[user]), poll_s=0.1
    ).start()
    try:
        assert link.wait_acked(1, 10)
        assert wait_for(lambda: len(organizer.events(1)) == 1, 10)
    finally:
        link.stop()
        organizer.stop()


def test_a_wrong_password_cannot_publish(tmp_path: Path, secured: tuple[Mosquitto, credentials.Credentials]) -> None:
    broker, written = secured
    store = Store(tmp_path / "mesa.sqlite3")
    table_id = store.create_table("dudo", "Mesa 1", ['{"event": "start", "players": ["Ana", "Beto"], "opener": "Ana"}'])
    watcher = Client(broker.port, "organizador", written.passwords["organizador"])
    link = TableLink(store, LinkConfig("127.0.0.1", broker.port, CODE, 1, table_id, "mesa-1", "adivinada"), poll_s=0.1)
    link.start()
    try:
        assert wait_for(lambda: link.status()["state"] == "refused", 10)
        assert "rechazó" in str(link.status()["problem"])
        assert link.acked == 0
        impostor = Client(broker.port, "mesa-1", "adivinada")
        assert impostor.refused.wait(5)
        impostor.close()
        assert watcher.subscribed.wait(5)
        assert not any(topic.startswith(f"cacho/{CODE}/table/1/") for topic in watcher.topics())
    finally:
        link.stop()
        watcher.close()


def test_a_table_publishes_only_its_own_topics(secured: tuple[Mosquitto, credentials.Credentials]) -> None:
    broker, written = secured
    watcher = Client(broker.port, "organizador", written.passwords["organizador"])
    table = Client(broker.port, "mesa-1", written.passwords["mesa-1"])
    try:
        assert watcher.subscribed.wait(5)
        table.publish(f"cacho/{CODE}/table/2/event", {"seq": 1, "event": {"event": "undo"}})  # another table's
        table.publish(f"cacho/{CODE}/table/1/rulings", {"text": "falso"})  # the organizer's
        table.publish(f"cacho/{CODE}/table/1/event", {"seq": 1, "event": {"event": "undo"}})  # its own
        assert wait_for(lambda: f"cacho/{CODE}/table/1/event" in watcher.topics(), 5)
        assert watcher.topics() == [f"cacho/{CODE}/table/1/event"]
    finally:
        table.close()
        watcher.close()


def test_spectators_read_but_cannot_publish(secured: tuple[Mosquitto, credentials.Credentials]) -> None:
    broker, written = secured
    organizer = Client(broker.port, "organizador", written.passwords["organizador"])
    spectator = Client(broker.port)
    try:
        assert organizer.subscribed.wait(5) and spectator.subscribed.wait(5)
        spectator.publish(f"cacho/{CODE}/table/1/event", {"seq": 1, "event": {"event": "undo"}})
        organizer.publish(f"cacho/{CODE}/table/1/rulings", {"text": "visto"})
        assert wait_for(lambda: len(spectator.heard) == 1 and len(organizer.heard) == 1, 5)
        assert spectator.topics() == organizer.topics() == [f"cacho/{CODE}/table/1/rulings"]
    finally:
        spectator.close()
        organizer.close()


@pytest.mark.skipif(shutil.which("mosquitto_passwd") is None, reason="sin mosquitto_passwd")
def test_hash_is_what_mosquitto_passwd_writes(tmp_path: Path) -> None:
    path = tmp_path / "pw"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(path), "mesa-1", "secreto"], check=True)
    stored = path.read_text().strip().split(":", 1)[1]
    salt = base64.b64decode(stored.split("$")[3])
    assert credentials.hash_password("secreto", salt) == stored


def test_command_keeps_given_passwords_and_refuses_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "c"
    assert main(["campeonato", "credenciales", "--codigo", CODE, "--mesas", "2", "--dir", str(folder), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["passwords"]
    assert sorted(first) == ["mesa-1", "mesa-2", "organizador"]
    assert main(["campeonato", "credenciales", "--codigo", CODE, "--mesas", "3", "--dir", str(folder), "--json"]) == 0
    second = json.loads(capsys.readouterr().out)["passwords"]
    assert {user: second[user] for user in first} == first and "mesa-3" in second
    assert (folder / "passwd").stat().st_mode & 0o077 == 0
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    for args, message in [
        (["--codigo", "Con Espacio", "--mesas", "2"], "código de campeonato"),
        (["--codigo", "otro", "--mesas", "2"], "es del campeonato 'prueba'"),
        (["--codigo", CODE, "--mesas", "0"], "de 1 a 500 mesas"),
    ]:
        assert main(["campeonato", "credenciales", *args, "--dir", str(folder)]) == 2
        assert message in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # a refusal changes nothing
    renew = ["campeonato", "credenciales", "--codigo", CODE, "--mesas", "3", "--dir", str(folder), "--renovar"]
    assert main(renew) == 0
    assert "mesa-3" in capsys.readouterr().out
    assert credentials.read_credentials(folder).passwords["mesa-1"] != first["mesa-1"]


def test_the_config_names_where_the_broker_reads_the_files(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    args = ["campeonato", "credenciales", "--codigo", CODE, "--mesas", "2", "--dir", str(folder)]
    assert main([*args, "--carpeta-broker", "/etc/mosquitto/campeonato", "--puerto", "1884"]) == 0
    config = (folder / "mosquitto.conf").read_text()
    assert "password_file /etc/mosquitto/campeonato/passwd" in config and "listener 1884" in config
    assert "acl_file /etc/mosquitto/campeonato/acl" in config
