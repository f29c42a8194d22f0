"""Pull the plug: a real `cacho kiosk` is killed (SIGKILL) again and again while a game is played over HTTP.

After each restart on the same database: every action answered 200 is in the log at the number it was given,
the log replays, the page's state is the replay's (nothing half-applied), the reading awaiting confirmation
keeps every correction answered 200, and the event numbers go on from where they were. Some kills land in the
middle of a request sent from another thread (its answer may be lost; whatever it did must be whole or nothing).
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import random
import re
import sqlite3
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.dudo import DudoTable, replay_lines
from tests.e2e.conftest import Server, start_server

KILLS = 30
PIN = "13579"
PLAYERS = "Ana\nBeto\nCaro"
LOST = (urllib.error.URLError, ConnectionError, http.client.HTTPException, TimeoutError)


class Lost(Exception):
    """The request got no answer (the server died under it): it may or may not have been applied."""


@dataclass
class Acked:
    """What the kiosk confirmed with a 200: events by table and number, corrections by table and reading."""

    events: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)  # (table, seq) -> expected keys
    fixes: dict[tuple[int, int], list[dict[str, Any]]] = field(default_factory=dict)  # (table, seq) -> corrections
    tables: list[int] = field(default_factory=list)


class Client:
    """The coordinator's browser over plain HTTP: a cookie jar, the CSRF token, JSON posts."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.base = ""
        self.token = ""

    def _open(self, request: urllib.request.Request) -> tuple[int, bytes, str]:
        try:
            with self.opener.open(request, timeout=15) as response:
                return response.status, response.read(), response.geturl()
        except urllib.error.HTTPError as error:
            return error.code, error.read(), request.full_url
        except LOST as error:
            raise Lost(str(error)) from error

    def get(self, path: str) -> tuple[int, bytes]:
        status, body, _ = self._open(urllib.request.Request(self.base + path))
        return status, body

    def get_json(self, path: str) -> dict[str, Any]:
        status, body = self.get(path)
        assert status == 200, (path, status, body[:300])
        return dict(json.loads(body))

    def form(self, path: str, data: dict[str, str]) -> tuple[int, str]:
        encoded = urllib.parse.urlencode({**data, "csrf_token": self.token}).encode()
        status, _, url = self._open(urllib.request.Request(self.base + path, data=encoded))
        return status, url

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": self.token},
        )
        status, data, _ = self._open(request)
        return status, dict(json.loads(data))

    def set_pin(self) -> None:
        status, html = self.get("/setup")
        assert status == 200
        found = re.search(rb'name="csrf-token" content="([^"]+)"', html)
        assert found
        self.token = found.group(1).decode()
        status, url = self.form("/setup", {"pin": PIN, "pin2": PIN})
        assert status == 200 and url.endswith("/"), (status, url)


def new_table(client: Client, acked: Acked) -> int:
    """Seat a table (retried after a restart: a table lost with its answer is simply not used)."""
    status, url = client.form("/dudo/new", {"players": PLAYERS, "opener": "Ana", "name": f"Mesa {len(acked.tables)}"})
    assert status == 200 and re.search(r"/dudo/\d+$", url), (status, url)
    table_id = int(url.rsplit("/", 1)[1])
    acked.tables.append(table_id)
    return table_id


def step(client: Client, table_id: int, acked: Acked, rng: random.Random, before_post: Any = None) -> int:
    """One tap of the coordinator, chosen from the table's state; returns the table played next."""
    base = f"/dudo/{table_id}"
    state = client.get_json(base + "/state.json")
    seq = state["seq"]
    if state["winner"] is not None:
        if before_post:
            before_post()
        return new_table(client, acked)
    reading = state["reading"]
    challenge = state["challenge"]
    path: str
    body: dict[str, Any]
    expected: dict[str, Any] | None = None
    fix: dict[str, Any] | None = None
    if state["can_undo"] and rng.random() < 0.08:
        path, body, expected = "/undo", {"seq": seq}, {"event": "undo"}
    elif challenge is not None and reading is None:
        path, body = "/manual", {}
    elif challenge is not None:
        dice = [(name, d) for name in challenge["needed"] for d in reading["players"][name]]
        unset = [(name, d) for name, d in dice if d["face"] is None]
        if unset or rng.random() < 0.15:
            name, die = rng.choice(unset or dice)
            face = rng.randint(1, 6)
            path, body = "/die", {"player": name, "die": die["id"], "face": face}
            fix = {"player": name, "die": die["id"], "set": face}
        else:
            faces = {name: sorted(d["face"] for d in reading["players"][name]) for name in challenge["needed"]}
            path, body, expected = "/confirm", {"seq": seq}, {"event": "reveal", "source": "manual"}
            expected["dice"] = faces
    else:
        legal = state["legal"]
        player = legal["player"]
        low = [b for b in legal["bids"] if b[1] != 1][:6] or legal["bids"][:3]
        if "dudo" in legal["may"] and (rng.random() < 0.35 or not low):
            path, expected = "/action", {"event": "dudo", "player": player}
        elif "calzo" in legal["may"] and rng.random() < 0.1:
            path, expected = "/action", {"event": "calzo", "player": player}
        else:
            quantity, face = rng.choice(low)
            path, expected = "/action", {"event": "bid", "player": player, "quantity": quantity, "face": face}
        body = {**expected, "seq": seq}
    if before_post:
        before_post()
    status, data = client.post(base + path, body)
    assert status == 200, (path, body, status, data)
    if expected is not None:
        assert data["seq"] == seq + 1, f"the event numbers must go on: {seq} -> {data['seq']}"
        acked.events[(table_id, data["seq"])] = expected
    if fix is not None:
        acked.fixes.setdefault((table_id, seq), []).append(fix)
    return table_id


def check(client: Client, acked: Acked) -> None:
    """After a restart: the acknowledged is there, the log replays, and the state is the replay's."""
    for table_id in acked.tables:
        base = f"/dudo/{table_id}"
        status, body = client.get(base + "/export.jsonl")
        assert status == 200
        lines = body.decode().splitlines()
        result = replay_lines(lines)
        assert result.error is None and result.table is not None, f"mesa {table_id}: {result.error}"
        table: DudoTable = result.table
        for (tid, seq), expected in acked.events.items():
            if tid != table_id:
                continue
            assert seq <= len(lines), f"mesa {table_id}: the acknowledged event {seq} is lost ({len(lines)} lines)"
            line = json.loads(lines[seq - 1])
            if expected["event"] == "reveal":
                line["dice"] = {name: sorted(faces) for name, faces in line["dice"].items()}
            assert {k: line.get(k) for k in expected} == expected, (seq, line)
        state = client.get_json(base + "/state.json")
        assert state["seq"] == len(lines)
        assert [(p["name"], p["dice"]) for p in state["players"]] == list(zip(table.players, table.dice, strict=True))
        assert state["winner"] == table.winner
        assert state["rulings"] == len(table.rulings)
        rnd = table.round
        assert state["round"] == (
            None if rnd is None else json.loads(json.dumps(rnd.to_dict())) | {"aces_wild": rnd.aces_wild}
        )
        assert state["bid"] == (
            None if rnd is None or rnd.bid is None else rnd.bid.to_dict() | {"text": rnd.bid.text()}
        )
        pending = table.pending
        if pending is None:
            assert state["challenge"] is None and state["reading"] is None
        else:
            assert state["challenge"] is not None
            assert (state["challenge"]["kind"], state["challenge"]["challenger"], state["challenge"]["target"]) == (
                pending.kind.value,
                pending.challenger,
                pending.target,
            )
        if table.rulings:
            assert state["last_ruling"]["message"] == table.rulings[-1].message
        fixes = acked.fixes.get((table_id, len(lines)), [])
        if fixes and pending is not None:  # the reading awaiting confirmation kept every acknowledged correction
            reading = state["reading"]
            assert reading is not None and reading["source"] == "manual", reading
            stored = [{k: c[k] for k in ("player", "die", "set")} for c in reading["corrections"]]
            assert all(fix in stored for fix in fixes), (fixes, stored)
            faces = {d["id"]: d["face"] for dice in reading["players"].values() for d in dice}
            for fix in fixes:  # each die shows its last correction (a lost answer's may be the last)
                assert faces[fix["die"]] == [c for c in stored if c["die"] == fix["die"]][-1]["set"]


def check_db(db: Path) -> None:
    """The database as the killed server left it: events numbered 1..N without gaps, and a stored reading only
    for a challenge standing at its event number (a reveal or an undo drops it in the same transaction)."""
    with closing(sqlite3.connect(db, timeout=10)) as conn:
        tables = [int(r[0]) for r in conn.execute("SELECT id FROM tables")]
        for table_id in tables:
            rows = conn.execute("SELECT seq, line FROM events WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
            assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), f"mesa {table_id}: gaps in the events"
            pending = conn.execute("SELECT seq FROM pending WHERE table_id = ?", (table_id,)).fetchone()
            if pending is not None:
                replayed = replay_lines([r[1] for r in rows])
                assert replayed.table is not None and replayed.error is None
                assert pending[0] == len(rows) and replayed.table.pending is not None, (table_id, pending, len(rows))


def test_kill_nine_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(8675309)
    db = tmp_path / "kiosk.sqlite3"
    log = tmp_path / "kiosk.log"
    acked = Acked()
    client = Client()
    server: Server = start_server(db, "none", log)
    started = time.monotonic()
    try:
        client.base = server.url
        client.set_pin()
        table_id = new_table(client, acked)
        mid_request = lost = readings_kept = 0
        for kill in range(KILLS):
            for _ in range(rng.randint(2, 9)):
                table_id = step(client, table_id, acked, rng)
            if kill % 3 != 2:  # most kills land in the middle of a request sent from another thread
                ready = threading.Event()
                outcome: list[BaseException | None] = []

                def tap(current: int = table_id, ready: threading.Event = ready, outcome: list[Any] = outcome) -> None:
                    try:
                        step(client, current, acked, random.Random(rng.random()), before_post=ready.set)
                        outcome.append(None)
                    except Lost as error:
                        outcome.append(error)
                    finally:
                        ready.set()

                thread = threading.Thread(target=tap, name=f"toque-{kill}")
                thread.start()
                ready.wait(10)
                time.sleep(rng.uniform(0.0, 0.03))
                server.stop(kill=True)
                thread.join(20)
                assert not thread.is_alive()
                mid_request += 1
                lost += sum(isinstance(o, Lost) for o in outcome)
                assert all(o is None or isinstance(o, Lost) for o in outcome), outcome
            else:
                server.stop(kill=True)
            check_db(db)
            server = start_server(db, "none", log)
            client.base = server.url
            check(client, acked)
            current = client.get_json(f"/dudo/{table_id}/state.json")
            if current["reading"] is not None and acked.fixes.get((table_id, current["seq"])):
                readings_kept += 1
        # the game goes on after the last restart, numbered from where it stopped
        for _ in range(5):
            table_id = step(client, table_id, acked, rng)
        check(client, acked)
    finally:
        server.stop()
    assert mid_request >= KILLS // 2 and len(acked.events) > KILLS
    assert readings_kept >= 1, "no kill fell while a reading awaited confirmation: change the seed"
    print(f"{time.monotonic() - started:.0f} s: {KILLS} kills ({mid_request} mid-request, {lost} answers lost)")
    print(f"{len(acked.events)} events acknowledged, {readings_kept} pending readings kept through a kill")
