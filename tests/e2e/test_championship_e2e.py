"""A championship in the browser: 12 players (registration, the public draw, three tables, the final, standings),
and a table's kiosk joining from the draw.

The organizer's page is the real `cacho campeonato serve --broker-local` (its own Mosquitto); the tables are
simulated table processes linked to the broker, playing the players the draw sat at them. The joining kiosk is the
real `cacho kiosk`, against a local Mosquitto and an organizer listening in the test.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from kiosk.championship.broker import Mosquitto
from kiosk.championship.link import wait_for
from kiosk.championship.organizer import Organizer as Listener
from tests.e2e.conftest import ROOT, SHOTS, free_port, serving, set_pin

PIN = "1357"
PLAYERS = [f"Jugador{n:02d}, Club {'ABC'[n % 3]}" for n in range(1, 13)]


class Organizer:
    """`cacho campeonato serve` with its own broker, and the simulated tables started against it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.broker_port = free_port()
        page_port = free_port()
        self.url = f"http://127.0.0.1:{page_port}"
        self.log = folder / "serve.log"
        command = [sys.executable, "-m", "kiosk.cli", "campeonato", "serve", "--codigo", "e2e", "--broker-local"]
        command += ["--broker", f"127.0.0.1:{self.broker_port}", "--dir", str(folder), "--port", str(page_port)]
        with open(self.log, "a") as handle:
            self.process = subprocess.Popen(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
        self.tables: list[subprocess.Popen[bytes]] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"el organizador terminó al arrancar: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/campeonato/estado.json", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        self.close()
        raise RuntimeError(f"el organizador no respondió: {self.log.read_text()[-2000:]}")

    def play(self, table: int, players: list[str]) -> None:
        """A simulated table plays the drawn players through its link."""
        command = [sys.executable, "-m", "kiosk.championship.simtable", "--db", str(self.folder / f"mesa{table}.db")]
        command += ["--table", str(table), "--code", "e2e", "--port", str(self.broker_port), "--pace", "0.002"]
        command += ["--players", ",".join(players)]
        with open(self.folder / f"mesa{table}.log", "a") as handle:
            self.tables.append(subprocess.Popen(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT))

    def close(self) -> None:
        """Stop the tables, then the organizer (which stops its broker)."""
        for process in [*self.tables, self.process]:
            if process.poll() is None:
                process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def organizer(tmp_path: Path) -> Iterator[Organizer]:
    running = Organizer(tmp_path)
    try:
        yield running
    finally:
        running.close()


def part_shot(page: Any, selector: str, name: str) -> None:
    """A screenshot of one part of the page (docs/screenshots/NAME.png with CACHO_SCREENSHOTS=1)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(selector).screenshot(path=str(SHOTS / f"{name}.png"))


def drawn(page: Any, url: str) -> list[dict[str, Any]]:
    """The last round's tables, from the page's own session."""
    response = page.request.get(url + "/campeonato/estado.json")
    assert response.ok
    return list(response.json()["rounds"][-1]["tables"])


def test_a_championship_of_twelve(browser: Any, organizer: Organizer) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-CL")
    page = context.new_page()
    try:
        url = organizer.url
        set_pin(page, url, PIN)
        page.goto(url + "/campeonato/")
        page.fill('textarea[name="players"]', "\n".join(PLAYERS))
        page.click("text=Inscribir")
        page.wait_for_selector("text=Inscritos: 12")  # the page after the form, not the one before it
        assert page.locator(".players-list li").count() == 12

        page.fill('#draw-card input[name="seed"]', "2026")
        page.fill('#draw-card input[name="size"]', "4")
        page.click("text=Sortear la ronda 1")
        page.wait_for_selector("text=Sorteo de la ronda 1 con la semilla 2026: 3 mesas")
        page.wait_for_function("document.querySelectorAll('.champ-table').length === 3")
        first = drawn(page, url)
        assert [len(t["drawn"]) for t in first] == [4, 4, 4]
        for table in first:
            organizer.play(table["table"], table["drawn"])
        page.wait_for_function("document.querySelectorAll('.champ-table p.champion').length === 3", timeout=90_000)
        part_shot(page, "#live", "championship-live")

        page.click("text=Sortear la ronda siguiente")
        page.wait_for_selector("text=Sorteo de la ronda 2")
        final = drawn(page, url)
        assert len(final) == 1 and final[0]["table"] == 4 and len(final[0]["drawn"]) == 3
        organizer.play(4, final[0]["drawn"])
        page.wait_for_selector("#champion", timeout=90_000)
        champion = page.locator("#champion").inner_text().strip()
        assert champion in final[0]["drawn"]
        rows = page.locator("#standings tbody tr")
        assert rows.count() == 12
        assert champion in rows.nth(0).inner_text()
        part_shot(page, "#standings", "championship-standings")

        page.goto(url + "/campeonato/resultado")
        assert champion in page.locator("#champion").inner_text()
    finally:
        context.close()


MONTHS = [
    *("enero", "febrero", "marzo", "abril", "mayo", "junio"),
    *("julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"),
]


def since_in_santiago(stamp: str) -> str:
    """What the page says of a UTC stamp in Santiago: «desde las 22:06» today, else «desde el 1 de diciembre, 22:06»."""
    santiago = ZoneInfo("America/Santiago")
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(santiago)
    if when.date() == datetime.now(santiago).date():
        return f"desde las {when:%H:%M}"
    return f"desde el {when.day} de {MONTHS[when.month - 1]}, {when:%H:%M}"


def test_a_table_kiosk_joins_from_the_draw(browser: Any, tmp_path: Path) -> None:
    with Mosquitto(folder=tmp_path / "broker") as broker, serving(tmp_path, "none") as kiosk:
        organizer = Listener("127.0.0.1", broker.port, "e2e").start()
        context = browser.new_context(
            viewport={"width": 800, "height": 480}, locale="es-CL", timezone_id="America/Santiago"
        )
        page = context.new_page()
        try:
            assert wait_for(lambda: organizer.connected, 10)
            organizer.publish_seating(7, {"table": 7, "round": 1, "seed": "31", "players": ["Ana", "Beto", "Caro"]})
            set_pin(page, kiosk.url, PIN)
            page.goto(kiosk.url + "/campeonato/mesa")
            page.fill('input[name="broker"]', f"127.0.0.1:{broker.port}")
            page.fill('input[name="code"]', "e2e")
            page.fill('input[name="table"]', "7")
            page.click("text=Traer los jugadores del sorteo")
            page.wait_for_selector("#seating")
            page.select_option('#seating select[name="opener"]', "Beto")
            page.click("text=Sentar la mesa y unirse")
            page.wait_for_selector("text=Mesa 7 unida al campeonato e2e")
            seated = urllib.parse.urlsplit(page.url).path
            assert re.fullmatch(r"/dudo/\d+", seated), page.url  # seated: on the new table's page, to play
            assert page.locator('#dudo[data-view="coordinator"]').count() == 1  # the table's coordinator screen
            assert wait_for(lambda: len(organizer.events(7)) == 1, 10)
            # The link's time as people read it, in the browser's time zone (Santiago), not the stored UTC stamp.
            page.goto(kiosk.url + "/campeonato/mesa")
            page.wait_for_function("!document.getElementById('link-since').textContent.includes('T')")
            assert page.locator("#linked-table").get_attribute("href") == seated  # and this page leads there
            assert page.locator("#link-since").inner_text() == since_in_santiago(
                str(page.locator("#link-since").get_attribute("datetime"))
            )
            assert organizer.events(7)[0]["players"] == ["Ana", "Beto", "Caro"]
            ruling = {"id": 1, "table": 7, "kind": "ruling", "text": "Vale el paso", "article": "8", "by": "Rosa"}
            organizer.publish_ruling(7, ruling)
            page.wait_for_function(
                "document.getElementById('link-badge').textContent.includes('Fallos del organizador: 1')",
                timeout=20_000,
            )
            assert "conectado" in page.locator("#link-badge").inner_text()
            page.reload()
            assert "Vale el paso" in page.locator("#received-rulings").inner_text()
        finally:
            context.close()
            organizer.stop()
