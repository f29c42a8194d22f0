"""Truco end to end: Debian's chromium (Playwright) plays a game to twelve by taps on a real `cacho kiosk` at 800x480.

Ana and Caro play Beto and Davi. Each hand is dealt face down (the kiosk never sees the hands); the player in turn
raises «¡Truco!», an opponent accepts, and the cards are tapped in the card picker as they are played. Along the way
a card already seen is refused with the seed's section and a tap is undone. The exported log replays with
`cacho cards replay` to the state on the screen. A second test kills the kiosk (SIGKILL) mid-hand and restarts it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engines.cards.replay import replay
from tests.e2e.conftest import ROOT, Server, serving, set_pin, shot, start_server, state_of, tap
from tests.e2e.test_crash_recovery import Client

PIN = "8642"
PLAYERS = ("Ana", "Beto", "Caro", "Davi")
HIGH = ["4C", "7H", "AS", "7D", "3S", "3H"]  # the winning pair's cards, strongest first
LOW = ["4S", "4H", "4D", "5S", "5H", "5D"]

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


@pytest.fixture
def kiosk(tmp_path: Path) -> Iterator[Server]:
    """The kiosk with no camera: the cards are tapped."""
    with serving(tmp_path, "none") as server:
        yield server


def play_card(page: Any, card: str, down: bool = False) -> dict[str, Any]:
    """Pick the card in the picker and play it (face down when asked)."""
    page.click(f'.pick[data-card="{card}"]')
    return tap(page, "#play-down" if down else "#play")


def play_hand(page: Any, base: str, team: int, truco: bool) -> dict[str, Any]:
    """Play the hand in play so that `team` takes the first two tricks, the player in turn raising first."""
    now = state_of(page, base)
    high, low = list(HIGH), list(LOW)
    if truco:
        raiser = now["turn"]
        now = tap(page, f"#truco-{raiser}")
        expect(page.locator("#pending")).to_contain_text("¡Truco!")
        now = tap(page, f"#accept-{(raiser + 1) % 4}")
        assert now["stake"] == 3
    while now["phase"] == "play":
        seat = now["turn"]
        now = play_card(page, (high if seat % 2 == team else low).pop(0))
    return now


def test_truco_to_twelve_by_taps(kiosk: Server, page: Any, browser: Any, tmp_path: Path) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    url = kiosk.url
    set_pin(page, url, PIN)
    page.click('a[href="/truco/new"]')
    for k, name in enumerate(PLAYERS):
        page.fill(f"#p{k}", name)
    page.fill('input[name="name"]', "Truco del viernes")
    shot(page, "truco-new")
    page.click("#create")
    page.wait_for_url(f"{url}/truco/*")
    base = page.url
    expect(page.locator("#score-0")).to_have_text("0")
    expect(page.locator("#dealer-3")).to_be_visible()

    # The first hand: Davi deals, Ana is the mão; she rejects once, then keeps.
    tap(page, "#dealer-3")
    tap(page, "#reject")
    now = tap(page, "#keep")
    assert now["phase"] == "play" and now["turn"] == 0
    expect(page.locator("#turn")).to_contain_text("Ana")

    # A truco, accepted; then a card already seen is refused with the seed's section, and nothing changes.
    expect(page.locator("#may-raise")).to_contain_text("¡Truco!): Ana")
    tap(page, "#truco-0")
    tap(page, "#accept-1")
    play_card(page, "4C")
    seq = state_of(page, base)["seq"]
    page.click('.pick[data-card="4C"]')
    expect(page.locator("#pick-reason")).to_contain_text("Juego de la mano")
    with page.expect_response(lambda r: r.url.endswith("/action")) as answer:
        page.click("#play")
    assert answer.value.status == 409
    expect(page.locator("#error")).to_contain_text("Juego de la mano: la carta 4C ya se vio")
    assert state_of(page, base)["seq"] == seq

    # A card tapped by mistake is taken back.
    play_card(page, "KD")
    assert state_of(page, base)["current"][-1]["card"] == "KD"
    tap(page, "#undo", "/undo")
    assert state_of(page, base)["seq"] == seq + 2  # the play and its undo: both in the log
    assert [c["card"] for c in state_of(page, base)["current"]] == ["4C"]

    for seat, card in ((1, "4S"), (2, "7H"), (3, "4H")):
        assert state_of(page, base)["turn"] == seat
        play_card(page, card)
    now = state_of(page, base)
    assert now["tricks"][0]["team"] == 0
    expect(page.locator('[data-trick="1"]')).to_be_visible()
    # The second trick: Ana, who took the first, leads a manilha; Beto plays his card face down.
    assert now["turn"] == 0
    play_card(page, "AS")
    play_card(page, "4D", down=True)
    expect(page.locator(".pcard.down")).to_be_visible()
    expect(page.locator(".seat-chip").first).to_have_text("Ana: 1 carta")  # one card, not «1 cartas»
    shot(page, "truco-table")
    play_card(page, "5S")
    now = play_card(page, "5H")
    assert now["phase"] == "hand" and now["teams"][0]["score"] == 3
    expect(page.locator("#score-0")).to_have_text("3")
    assert page.locator("#scoreboard .team").first.locator("line.stick").count() == 3

    # Three more hands with a truco each: Ana and Caro reach twelve. The first of them is cut once, from the top.
    page.select_option("#cut-count", "1")
    while now["winner"] is None:
        tap(page, "#new-hand")
        now = tap(page, "#keep")
        now = play_hand(page, base, team=0, truco=True)
    assert now["winner"] == 0 and now["teams"][0]["score"] == 12
    expect(page.locator("#winner")).to_contain_text("Pareja 1")
    expect(page.locator("#score-0")).to_have_text("12")
    shot(page, "truco-winner")

    # The spectators' TV: the same score, no controls.
    tv_context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="es-CL")
    tv = tv_context.new_page()
    tv.goto(base + "/tv")
    expect(tv.locator("#score-0")).to_have_text("12")
    assert tv.locator("#picker").count() == 0 and tv.locator("#undo").count() == 0
    shot(tv, "truco-tv")
    tv_context.close()

    # The exported log replays with `cacho cards replay` to the state on the screen.
    exported = page.request.get(base + "/export.jsonl")
    assert exported.ok
    log = tmp_path / "truco.jsonl"
    log.write_text(exported.text(), encoding="utf-8")
    events = [json.loads(line)["event"] for line in exported.text().splitlines()]
    assert events.count("truco") >= 4 and "undo" in events and events.count("cut") == 1
    out = subprocess.run(
        [sys.executable, "-m", "kiosk.cli", "cards", "replay", str(log), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["state"] == state_of(page, base)["summary"]
    assert not script_errors, script_errors


def test_a_kill_mid_hand_loses_no_confirmed_tap(tmp_path: Path) -> None:
    db, log = tmp_path / "kiosk.sqlite3", tmp_path / "kiosk.log"
    server = start_server(db, "none", log)
    client = Client()
    client.base = server.url
    client.set_pin()
    status, url = client.form("/truco/new", {f"p{k}": n for k, n in enumerate(PLAYERS)})
    assert status == 200 and "/truco/" in url
    base = "/truco/" + url.rsplit("/", 1)[1]
    acked: list[int] = []

    def tap_http(body: dict[str, Any]) -> dict[str, Any]:
        seq = client.get_json(base + "/state.json")["seq"]
        status, data = client.post(base + "/action", {**body, "seq": seq})
        assert status == 200, data
        acked.append(data["seq"])
        return data

    try:
        tap_http({"action": "hand", "dealer": 3})
        tap_http({"action": "keep"})
        tap_http({"action": "truco", "player": 0})
        tap_http({"action": "accept", "player": 1})
        tap_http({"action": "play", "card": "4C"})
        before = client.get_json(base + "/state.json")
        server.stop(kill=True)
        server = start_server(db, "none", log)
        client.base = server.url
        after = client.get_json(base + "/state.json")
        assert after["seq"] == before["seq"] == acked[-1]
        assert after["summary"] == before["summary"] and after["stake"] == 3
        status, body = client.get(base + "/export.jsonl")
        assert status == 200
        result = replay(body.decode().splitlines())
        assert result.error is None and result.summary == after["summary"]
        data = tap_http({"action": "play", "card": "7H"})  # the numbers go on from where they were
        assert data["seq"] == acked[-2] + 1
    finally:
        server.stop()
