"""The Dudo kiosk end to end: Debian's chromium (Playwright) taps through a real `cacho kiosk` subprocess.

The PIN is set on /setup, a table is seated with the one-die roll-off, a round is bid and doubted by taps, the
lifted cups are read by the real reader (models/) from a rendered reveal played with `replay:`, every die the
reader got wrong is corrected by taps, and the ruling on screen must be the engine's for the true dice. A
second round is entered by hand (with an undo on the way), and the spectators' TV must follow it all live.

The reader is allowed to be wrong (that is what the corrections are for): the test needs only that it runs and
that the coordinator can put every die right.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engines.dudo import Reveal, replay_lines
from tests.e2e.conftest import Server, drawn_reading, iou, serving, set_pin, shot, state_of

PLAYERS = ("Ana", "Beto", "Caro")
PIN = "4826"
READER_WAIT_MS = 120_000  # the models load in the background: 20-40 s on a small CPU
READING_WAIT_MS = 90_000
STILL_FRAMES = 1000  # frames 000-999: the reveal then the still table, 100 s at 10 fps before the replay loops
MATCH_IOU = 0.3

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


# ------------------------------------------------------------------ the table under the camera


def render_cups(folder: Path, seed: int, dice: dict[str, list[int]]) -> list[dict[str, Any]]:
    """The reveal of `dice` (seats 1..N in the players' order) as `replay:` frames; the scene's true dice."""
    from vision.synth.scene import render_reveal

    seats = {seat: dice[name] for seat, name in enumerate(PLAYERS, start=1)}
    frames = render_reveal(seed, seats, folder, frames=8)
    for index in range(len(frames), STILL_FRAMES):  # the still table held on: links, not copies
        try:
            os.link(frames[-1], folder / f"{index:03d}.jpg")
        except OSError:  # a file system without hard links
            os.symlink(frames[-1], folder / f"{index:03d}.jpg")
    return list(json.loads((folder / "scene.json").read_text())["dice"])


@pytest.fixture
def kiosk(tmp_path: Path) -> Iterator[tuple[Server, dict[str, list[int]], list[dict[str, Any]]]]:
    """The kiosk with a replay camera showing the first round's lifted cups; the true dice and the scene's labels."""
    rng = random.Random(20240611)
    truth = {name: [rng.randint(1, 6) for _ in range(5)] for name in PLAYERS}
    folder = tmp_path / "cachos"
    scene = render_cups(folder, 22, truth)  # a layout where the reader finds most dice (and gets some wrong)
    with serving(tmp_path, f"replay:{folder}") as server:
        yield server, truth, scene


# ------------------------------------------------------------------ helpers


def expected_ruling(page: Any, base: str, dice: dict[str, list[int]]) -> str:
    """The engine's ruling message for the true dice, from the exported log (not from the page)."""
    response = page.request.get(base + "/export.jsonl")
    assert response.ok, response.text()
    result = replay_lines(response.text().splitlines())
    assert result.error is None and result.table is not None, result.error
    return result.table.apply(Reveal.of(dice)).rulings[-1].message


def bid(page: Any, face: int | None = None, pick: int = 0) -> tuple[str, int, int]:
    """The player to act bids by taps: a pinta (the first allowed but aces when not given), then a quantity."""
    controls = page.locator("#controls")
    expect(controls).to_be_visible()
    player = str(re.sub(r": ¿qué dice\?$", "", controls.locator("h2").inner_text()))
    if face is None:
        allowed = controls.locator(".face[data-face]:not([disabled])").evaluate_all(
            "els => els.map(e => e.dataset.face)"
        )
        face = next(int(f) for f in allowed if f != "1")  # an opening in aces is a partida en falso (art. 5)
    controls.locator(f'.face[data-face="{face}"]').click()
    quantities = controls.locator(".qty[data-q]")
    expect(quantities.first).to_be_visible()
    values = [int(q) for q in quantities.evaluate_all("els => els.map(e => e.dataset.q)")]
    quantity = values[min(pick, len(values) - 1)]
    controls.locator(f'.qty[data-q="{quantity}"]').click()
    page.locator("#bid-go").click()
    expect(page.locator("#standing-bid")).to_contain_text(f"{player}: ")
    expect(controls).not_to_contain_text("null")
    return player, quantity, face


def pick_face(page: Any, face: int) -> None:
    """Choose a face in the open picker."""
    picker = page.locator("#picker")
    expect(picker).to_be_visible()
    picker.locator(f'.face[data-face="{face}"]').click()


def set_die(page: Any, die_id: str, face: int) -> None:
    """Tap a die of the reading and give it its face (confirms it when the face is the one read)."""
    page.locator(f'.rdie[data-id="{die_id}"]').click()
    pick_face(page, face)
    expect(page.locator(f'.rdie[data-id="{die_id}"][data-face="{face}"]:not(.doubtful)')).to_have_count(1)


def remove_die(page: Any, die_id: str) -> None:
    """Tap a die the reader made up and take it away."""
    page.locator(f'.rdie[data-id="{die_id}"]').click()
    page.locator("#picker .remove").click()
    expect(page.locator(f'.rdie[data-id="{die_id}"]')).to_have_count(0)


def add_die(page: Any, player: str, face: int) -> None:
    """Add a die the reader missed ("+ dado")."""
    dice = page.locator(f'.rplayer[data-name="{player}"] .rdie')
    before = dice.count()
    page.locator(f'.rplayer[data-name="{player}"] .add-die').click()
    pick_face(page, face)
    expect(dice).to_have_count(before + 1)


def correct_reading(
    page: Any, reading: dict[str, Any], truth: dict[str, list[int]], scene: list[dict[str, Any]]
) -> dict[str, int]:
    """Put every die right by taps: each read die takes the face of the true die under its box (or, failing a
    match, a true die not yet accounted for); dice left over are removed, dice missed are added."""
    done = {"corrected": 0, "confirmed": 0, "removed": 0, "added": 0, "kept": 0}
    for seat, player in enumerate(PLAYERS, start=1):
        read = list(reading["players"].get(player, []))
        true_dice = [d for d in scene if d["seat"] == seat]
        assert sorted(d["face"] for d in true_dice) == sorted(truth[player]), "the scene shows other dice"
        unused = list(range(len(true_dice)))
        plan: list[tuple[dict[str, Any], int | None]] = []
        for die in read:
            scored = [(iou(die["box"], true_dice[i]["box"]), i) for i in unused if die["box"] is not None]
            best = max(scored, default=(0.0, -1))
            if best[0] >= MATCH_IOU:
                unused.remove(best[1])
                plan.append((die, true_dice[best[1]]["face"]))
            else:
                plan.append((die, None))
        for die, face in plan:  # read dice on no true die: they stand for the true dice nothing matched
            if face is None and unused:
                face = true_dice[unused.pop(0)]["face"]
            if face is None:
                remove_die(page, die["id"])
                done["removed"] += 1
            elif face != die["face"]:
                set_die(page, die["id"], face)
                done["corrected"] += 1
            elif die["uncertain"]:
                set_die(page, die["id"], face)
                done["confirmed"] += 1
            else:
                done["kept"] += 1
        for index in unused:
            add_die(page, player, true_dice[index]["face"])
            done["added"] += 1
    return done


def enter_by_hand(page: Any, truth: dict[str, list[int]]) -> None:
    """Enter the dice by hand ("Entrar a mano"): tap each blank die and give it its face."""
    page.locator("#manual-btn").click()
    expect(page.locator('#reading-state[data-state="ready"]')).to_be_visible()
    first = next(iter(truth))  # a die added by mistake, then taken away ("quitar")
    add_die(page, first, 6)
    remove_die(page, str(page.locator(f'.rplayer[data-name="{first}"] .rdie').last.get_attribute("data-id")))
    for player, faces in truth.items():
        dice = page.locator(f'.rplayer[data-name="{player}"] .rdie')
        expect(dice).to_have_count(len(faces))
        ids = dice.evaluate_all("els => els.map(e => e.dataset.id)")
        for die_id, face in zip(ids, faces, strict=True):
            set_die(page, die_id, face)


def confirm_and_check(page: Any, tv: Any, expected: str) -> None:
    """The preview shows the engine's ruling; confirming puts it on both screens."""
    expect(page.locator("#ruling-preview")).to_have_text(expected)
    expect(page.locator("#confirm-btn")).to_be_enabled()
    page.locator("#confirm-btn").click()
    expect(page.locator("#last-ruling")).to_have_text(expected)
    expect(tv.locator("#last-ruling")).to_have_text(expected)
    shown = page.locator("#ruling").inner_text()
    # a die lost is signed with the minus sign, and a count of one agrees («1 cuadra», «1 as»)
    assert re.search(r" -\d", shown) is None and re.search(r"(\u2212|\+)\d", shown), shown
    assert re.search(r"\b1 (ases|tontos|trenes|cuadras|quinas|sextas)\b", shown) is None, shown


# ------------------------------------------------------------------ the test


def test_dudo_table_by_taps(
    kiosk: tuple[Server, dict[str, list[int]], list[dict[str, Any]]], page: Any, browser: Any
) -> None:
    server, truth, scene = kiosk
    page.set_default_timeout(15_000)
    expect.set_options(timeout=15_000)  # a busy 2-core machine: a tap's answer can take seconds
    errors: list[str] = []  # a script error on either screen fails the test
    page.on("pageerror", lambda error: errors.append(f"coordinador: {error}"))

    # First start: the coordinator chooses the PIN.
    page.goto(server.url + "/")
    set_pin(page, server.url, PIN, screenshot="dudo-setup")
    expect(page.locator('a[href="/dudo/new"]')).to_be_visible()

    # Calibration: the seat markers on the camera's frame.
    page.goto(server.url + "/calibrate")
    page.locator("#seats").fill("1,2,3")
    page.locator("#find-markers").click()
    # The first search comes seconds after the kiosk starts, while it loads the dice reader in the background
    # (which once killed the kiosk under it: see CameraService.start); a page that loses the kiosk says so.
    expect(page.locator("#markers-result")).to_contain_text("Marcadores vistos", timeout=30_000)
    expect(page.locator("#markers-result")).to_contain_text("marcadores)")  # the camera's tilt, from them
    shot(page, "dudo-calibrate")

    # A new table: players typed clockwise, the opener by the one-die roll-off (a tie, then a re-throw).
    page.goto(server.url + "/dudo/new")
    page.locator('input[name="name"]').fill("Mesa del club")
    page.locator("#players").fill("\n".join(PLAYERS))
    expect(page.locator("#opener option")).to_have_count(3)
    page.locator("#start-sorteo").click()
    first = page.locator("#sorteo-rolls .sorteo-round").nth(0)
    for name, face in (("Ana", 5), ("Beto", 5), ("Caro", 2)):
        first.locator(f'button[data-player="{name}"][data-face="{face}"]').click()
    expect(page.locator("#sorteo-result")).to_contain_text("Empate: relanzan Ana, Beto")
    second = page.locator("#sorteo-rolls .sorteo-round").nth(1)
    second.locator('button[data-player="Ana"][data-face="3"]').click()
    second.locator('button[data-player="Beto"][data-face="6"]').click()
    expect(page.locator("#sorteo-result")).to_have_text("Parte Beto (art. 3)")
    shot(page, "dudo-new")
    page.locator("#create").click()
    page.wait_for_url(re.compile(r".*/dudo/\d+$"))
    table_id = int(page.url.rsplit("/", 1)[1])
    base = f"{server.url}/dudo/{table_id}"
    start = json.loads(page.request.get(base + "/export.jsonl").text().splitlines()[0])
    assert start["opener"] == "Beto" and start["sorteo"] == [{"Ana": 5, "Beto": 5, "Caro": 2}, {"Ana": 3, "Beto": 6}]
    expect(page.locator("#controls h2")).to_have_text("Beto: ¿qué dice?")

    # The spectators' TV, in another browser (no PIN): it must follow the table live, without reloading.
    tv_context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="es-CL")
    tv = tv_context.new_page()
    try:
        tv.set_default_timeout(15_000)
        tv.on("pageerror", lambda error: errors.append(f"tv: {error}"))
        tv.goto(base + "/tv")
        expect(tv.locator("#players .player")).to_have_count(3)
        expect(tv.locator("#standing-bid")).to_have_text("Sin apuesta todavía")
        tv.evaluate("window.__sameTv = true")
        expect(tv.locator("body")).to_have_attribute("data-stream", "open")  # its event stream is open

        # Round 1, by taps: Beto opens, Caro raises, Ana doubts.
        bid(page, face=5, pick=1)
        expect(tv.locator("#standing-bid")).to_contain_text("Beto: ")
        expect(tv.locator("#odds-true")).to_have_text(re.compile("^\\d+\u00a0%$"))
        bid(page, face=5)
        expect(tv.locator("#standing-bid")).to_contain_text("Caro: ")
        shot(page, "dudo-table")
        assert tv.evaluate("window.__sameTv") is True, "the TV reloaded instead of updating live"
        page.locator("#dudo-btn").click()
        expect(page.locator("#challenge")).to_contain_text("¡Dudo! Ana → Caro")
        expect(tv.locator("#challenge")).to_contain_text("¡Dudo! Ana → Caro")
        expect(tv.locator("#odds")).to_be_hidden()

        # The cups are lifted: the camera reads them (once the reader has loaded). The kiosk starts a reading by
        # itself on the dudo when the reader is ready; the coordinator's tap reads the table (again) in any case.
        expect(page.locator("#read-btn")).to_be_enabled(timeout=READER_WAIT_MS)
        page.locator("#read-btn").click()
        expect(page.locator('#reading-state[data-state="reading"]')).to_be_visible()
        page.wait_for_function(
            "() => ['ready', 'failed'].includes(document.querySelector('#reading-state')?.dataset.state)",
            timeout=READING_WAIT_MS,
        )
        assert page.locator("#reading-state").get_attribute("data-state") == "ready", page.locator(
            "#reading-state"
        ).inner_text()
        photo = page.locator(".photo-frame img.photo")
        expect(photo).to_be_visible()
        page.wait_for_function("() => document.querySelector('.photo-frame img.photo').naturalWidth > 0")
        reading = state_of(page, base)["reading"]
        assert reading["source"] == "camera" and reading["photo"], reading
        # read from the camera's nadir that the seat markers give, and the coordinator is told so
        assert reading["capture"]["tilt"] is not None, reading["capture"]
        expect(page.locator("#reading-state")).to_contain_text("nadir medido con")
        assert page.request.get(server.url + reading["photo_url"]).ok
        shot(page, "dudo-reading")
        expect(tv.locator("#reading img.photo")).to_be_visible()
        fits(tv, "the cups read, with their photo")

        expected = expected_ruling(page, base, truth)
        done = correct_reading(page, reading, truth, scene)
        shown = {
            name: sorted(d["face"] for d in dice) for name, dice in state_of(page, base)["reading"]["players"].items()
        }
        assert shown == {name: sorted(faces) for name, faces in truth.items()}, done
        confirm_and_check(page, tv, expected)
        fits(tv, "the ruling with its photo")
        shot(page, "dudo-ruling")
        shot(tv, "dudo-tv")
        reveal = json.loads(page.request.get(base + "/export.jsonl").text().splitlines()[-1])
        assert reveal["event"] == "reveal" and reveal["source"] == "camera" and reveal["photo"]
        assert {k: sorted(v) for k, v in reveal["dice"].items()} == {k: sorted(v) for k, v in truth.items()}
        assert len(reveal.get("corrections", [])) == sum(
            done[k] for k in ("corrected", "confirmed", "removed", "added")
        )

        # Round 2, entered by hand, with an undo on the way.
        after = state_of(page, base)
        assert after["round"]["number"] == 2 and after["challenge"] is None
        player, _, _ = bid(page)
        page.locator("#undo").click()
        expect(page.locator("#standing-bid")).to_have_text("Sin apuesta todavía")
        expect(tv.locator("#standing-bid")).to_have_text("Sin apuesta todavía")
        assert state_of(page, base)["legal"]["player"] == player
        bid(page)
        challenger = state_of(page, base)["legal"]["player"]
        page.locator("#dudo-btn").click()
        expect(page.locator("#challenge")).to_contain_text(f"¡Dudo! {challenger}")
        rng = random.Random(7)
        truth2 = {p["name"]: [rng.randint(1, 6) for _ in range(p["dice"])] for p in after["players"] if p["dice"]}
        expected2 = expected_ruling(page, base, truth2)
        enter_by_hand(page, truth2)
        confirm_and_check(page, tv, expected2)
        lines = page.request.get(base + "/export.jsonl").text().splitlines()
        assert json.loads(lines[-1])["source"] == "manual"
        assert any(json.loads(line)["event"] == "undo" for line in lines)
        assert replay_lines(lines).error is None
        assert tv.evaluate("window.__sameTv") is True
        assert not errors, errors
    except BaseException:  # what both screens showed, beside the server's log, for the one reading the failure
        page.screenshot(path=str(server.log.with_name("fallo-coordinador.png")), full_page=True)
        tv.screenshot(path=str(server.log.with_name("fallo-tv.png")), full_page=True)
        print(f"capturas y registro del kiosco en {server.log.parent}; errores de las páginas: {errors}")
        raise
    finally:
        tv_context.close()


# ------------------------------------------------------------------ the coordinator's screen, point by point


@pytest.fixture
def bare(tmp_path: Path, page: Any) -> Iterator[Server]:
    """A kiosk with no camera (dice entered by hand) and the coordinator signed in on `page` (800x480)."""
    with serving(tmp_path, "none") as server:
        page.set_default_timeout(15_000)
        set_pin(page, server.url, PIN)
        yield server


def new_table(page: Any, server: Server, players: tuple[str, ...] = PLAYERS, opener: str | None = None) -> str:
    """Seat a table of `players` (the first opens unless named); its page's address."""
    page.goto(server.url + "/dudo/new")
    page.locator("#players").fill("\n".join(players))
    page.locator("#opener").select_option(opener or players[0])
    page.locator("#create").click()
    page.wait_for_url(re.compile(r".*/dudo/\d+$"))
    return str(page.url)


def test_a_corrected_roll_off_throw_settles_it_again(bare: Server, page: Any) -> None:
    """Issue 34, point 4: a throw corrected after the roll-off was settled settles it again, and «Empezar» saves
    the throws on screen (it waits while the roll-off is unfinished)."""
    page.goto(bare.url + "/dudo/new")
    page.locator("#players").fill("\n".join(PLAYERS))
    page.locator("#start-sorteo").click()
    first = page.locator("#sorteo-rolls .sorteo-round").nth(0)
    for name, face in (("Ana", 6), ("Beto", 3), ("Caro", 2)):
        first.locator(f'button[data-player="{name}"][data-face="{face}"]').click()
    expect(page.locator("#sorteo-result")).to_have_text("Parte Ana (art. 3)")
    first.locator('button[data-player="Beto"][data-face="6"]').click()
    expect(page.locator("#sorteo-result")).to_have_text("Empate: relanzan Ana, Beto")
    page.locator("#create").click()  # unfinished: nothing is seated
    expect(page.locator("#sorteo-result")).to_have_text("Falta terminar el sorteo: Empate: relanzan Ana, Beto")
    assert page.url.endswith("/dudo/new")
    # a correction that ends the tie takes the re-throw away; another that brings it back asks for a new one
    first.locator('button[data-player="Beto"][data-face="3"]').click()
    expect(page.locator("#sorteo-result")).to_have_text("Parte Ana (art. 3)")
    expect(page.locator("#sorteo-rolls .sorteo-round")).to_have_count(1)
    first.locator('button[data-player="Beto"][data-face="6"]').click()
    second = page.locator("#sorteo-rolls .sorteo-round").nth(1)
    expect(second.locator("button.chosen")).to_have_count(0)
    second.locator('button[data-player="Ana"][data-face="3"]').click()
    second.locator('button[data-player="Beto"][data-face="5"]').click()
    expect(page.locator("#sorteo-result")).to_have_text("Parte Beto (art. 3)")
    # a correction in the first round that keeps the same tie keeps the second round's throws
    first.locator('button[data-player="Caro"][data-face="1"]').click()
    expect(page.locator("#sorteo-result")).to_have_text("Parte Beto (art. 3)")
    page.locator("#create").click()
    page.wait_for_url(re.compile(r".*/dudo/\d+$"))
    start = json.loads(page.request.get(page.url + "/export.jsonl").text().splitlines()[0])
    assert start["opener"] == "Beto"
    assert start["sorteo"] == [{"Ana": 6, "Beto": 6, "Caro": 1}, {"Ana": 3, "Beto": 5}]
    expect(page.locator("#controls h2")).to_have_text("Beto: ¿qué dice?")


def test_a_double_tap_on_apostar_bids_once_with_no_false_alarm(bare: Server, page: Any) -> None:
    """Issue 34, point 9: the second tap of a double tap is dropped, not sent stale (a red «la mesa cambió»)."""
    url = new_table(page, bare)
    controls = page.locator("#controls")
    controls.locator('.face[data-face="5"]').click()
    controls.locator('.qty[data-q="3"]').click()
    posts: list[Any] = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.locator("#bid-go").evaluate("b => { b.click(); b.click(); }")  # the second tap before any answer
    expect(page.locator("#standing-bid")).to_have_text("Ana: tres quinas")
    # Both taps ran before the first answer came back: the page sent one change, not two.
    assert [post.url.rsplit("/", 1)[-1] for post in posts] == ["action"]
    answer = posts[0].response()
    assert answer is not None and answer.ok
    expect(page.locator("#error")).to_be_hidden()
    expect(page.locator("#bid-go")).to_be_disabled()  # a tap after the answer: Beto has chosen nothing yet
    page.locator("#bid-go").click(force=True)
    expect(page.locator("#error")).to_be_hidden()
    lines = page.request.get(url + "/export.jsonl").text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["start", "bid"]


def test_the_english_view_of_a_table_shows_no_spanish_of_its_own(bare: Server, page: Any) -> None:
    """Issue 34, point 17: the buttons, the round's mode and the question to the player are English at ?lang=en
    (names, the engine's reasons and the dice's words are the table's own)."""
    url = new_table(page, bare)
    page.goto(url + "?lang=en")
    controls = page.locator("#controls")
    controls.locator('.face[data-face="5"]').click()
    controls.locator('.qty[data-q="3"]').click()
    page.locator("#bid-go").click()
    expect(page.locator("#dudo-btn")).to_have_text("Dudo!")
    expect(controls).to_contain_text("Beto: what do you say?")
    expect(page.locator(".round")).to_contain_text("Round 1 · opens Ana · aces")
    shown = page.locator("body").inner_text()
    for spanish in ("¡Dudo!", "¿qué dice?", "ases comodín", "Paso: ", "Ronda 1", "parte Ana"):
        assert spanish not in shown, spanish


def test_the_round_line_says_obligo_and_mano_a_mano(bare: Server, page: Any) -> None:
    """Issue 63, point 4: an obligo round and a heads-up one are named on the round line, not by their aces."""
    page.goto(bare.url + "/")
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    for start, mode in (
        ({"players": list(PLAYERS), "opener": "Ana", "dice": {"Ana": 1, "Beto": 5, "Caro": 5}}, "obligo"),
        ({"players": ["Ana", "Beto"], "opener": "Ana"}, "mano a mano"),
    ):
        text = json.dumps({"event": "start", **start})
        response = page.request.post(bare.url + "/dudo/import", form={"text": text, "csrf_token": token})
        assert response.ok, response.text()
        page.goto(response.url)
        expect(page.locator(".round")).to_have_text(f"Ronda 1 · parte Ana · {mode}")


def test_the_pages_checks_percentages_and_reader_speak_spanish(bare: Server, page: Any) -> None:
    """Issue 63, point 9: a field left empty is asked for in Spanish, not in Chromium's English; a share is written
    as Spanish writes a percentage; the reader's state and an adapted reader are said in words, not as codes."""
    page.goto(bare.url + "/dudo/new")
    page.locator("#players").fill("")
    page.locator("#create").click()
    assert page.url.endswith("/dudo/new")  # nothing was sent
    said = page.locator("#players").evaluate("el => el.validationMessage")
    assert said == "Complete este campo.", said
    page.locator("#players").fill("Ana\nBeto")
    assert page.locator("#players").evaluate("el => el.validationMessage") == ""
    cacho = "window.Cacho"
    assert page.evaluate(f"{cacho}.percent(0.62)") == "62\u00a0%"
    assert page.evaluate(f"{cacho}.modelsName('stock')") == "de fábrica"
    assert page.evaluate(f"{cacho}.modelsName('20201201-220906')") == "adaptado el 1 de diciembre, 22:09"
    page.goto(bare.url + "/dudo/new?lang=en")
    page.locator("#players").fill("")
    page.locator("#create").click()
    assert page.locator("#players").evaluate("el => el.validationMessage") == "Please fill out this field."
    assert page.evaluate(f"{cacho}.percent(0.62)") == "62%"
    assert page.evaluate(f"{cacho}.modelsName('20201201-220906')") == "adapted on December 1, 22:09"


def test_a_first_visit_asks_for_the_pin_and_says_what_to_do_first(tmp_path: Path, page: Any) -> None:
    """Issue 63, point 7: at 800x480 a fresh kiosk's home asks for the coordinator's PIN in view; once it is set,
    the home says what to do first with every «Nueva mesa…» in view; signed out, «Entrar» is in view."""

    def in_view(selector: str) -> None:
        box = page.locator(selector).first.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 480, (selector, box)

    with serving(tmp_path, "none") as server:
        page.goto(server.url + "/")
        expect(page.locator("#first-steps")).to_contain_text("elija el PIN del coordinador")
        in_view("#setup-pin")
        shot(page, "home-first-visit")
        page.locator("#setup-pin").click()
        page.wait_for_url(server.url + "/setup")
        page.fill('input[name="pin"]', PIN)
        page.fill('input[name="pin2"]', PIN)
        page.click("form button.primary")
        page.wait_for_url(server.url + "/")
        expect(page.locator("#first-hint")).to_contain_text("Para empezar: elija el juego de la mesa")
        for link in page.locator("#new-tables a.button").all():
            box = link.bounding_box()
            assert box is not None and box["y"] + box["height"] <= 480, (link.inner_text(), box)
        shot(page, "home-first-steps")
        new_table(page, server)
        page.goto(server.url + "/")
        expect(page.locator("#first-hint")).to_have_count(0)  # said once; the table is there now
        page.locator("header form button.link").click()  # «Salir»
        page.goto(server.url + "/")
        expect(page.locator("#first-steps")).to_have_count(0)
        in_view("#sign-in a.button")


def test_a_kiosk_that_stops_answering_is_shown(bare: Server, page: Any) -> None:
    """Issue 34, point 9: with the server down the camera badge says so, and a tap says it was not applied."""
    new_table(page, bare)
    controls = page.locator("#controls")
    controls.locator('.face[data-face="4"]').click()
    controls.locator('.qty[data-q="2"]').click()
    bare.stop()
    expect(page.locator("#camera-badge")).to_have_text("Sin conexión con el kiosco")
    expect(page.locator("#camera-badge")).to_have_attribute("data-state", "offline")
    page.locator("#bid-go").click()
    expect(page.locator("#error")).to_have_text(
        "El kiosco no responde: revise que esté encendido y vuelva a intentarlo"
    )


def test_every_quantity_up_to_the_dice_in_play_is_offered(bare: Server, page: Any) -> None:
    """Issue 34, point 9: a table of 30 dice can bid up to 30 of a pinta (not only 8 quantities)."""
    new_table(page, bare, players=("Ana", "Beto", "Caro", "Dani", "Eva", "Fito"))
    page.locator('#controls .face[data-face="6"]').click()
    quantities = page.locator("#controls .qty[data-q]").evaluate_all("els => els.map(e => Number(e.dataset.q))")
    assert quantities == list(range(1, 31))
    in_view(page, "#controls .qty, #bid-go, #dudo-btn")  # every one on the 7-inch screen, none off the side
    page.locator('#controls .qty[data-q="1"]').click()
    expect(page.locator("#bid-go")).to_have_text("Apostar 1 sexta")  # one pinta, not «1 sextas» (issue 63)
    page.locator('#controls .qty[data-q="30"]').click()
    expect(page.locator("#bid-go")).to_have_text("Apostar 30 sextas")
    page.locator("#bid-go").click()
    expect(page.locator("#standing-bid")).to_have_text("Ana: treinta sextas")


def test_the_turn_timer_ticks_says_time_is_up_and_sounds_unless_turned_off(
    bare: Server, page: Any, browser: Any
) -> None:
    """Issue 34, point 1: the turn timer counts down on the coordinator's screen and on the TV, says «¡Tiempo!»
    at zero and sounds once, unless the coordinator turned the sound off."""
    url = new_table(page, bare)
    tv_context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="es-CL")
    tv = tv_context.new_page()
    try:
        tv.goto(url + "/tv")
        expect(tv.locator("#timer")).to_have_text("1:00")
        page.evaluate("base => window.Cacho.api(base + '/timer', {op: 'reset', limit: 5})", url)
        expect(page.locator("#timer-sound")).to_have_text("Sonido: sí")
        page.locator("#timer-start").click()
        for screen in (page, tv):
            expect(screen.locator("#timer")).to_have_text(re.compile(r"^0:0[0-3]$"), timeout=4_000)  # it ticks
        for screen in (page, tv):
            expect(screen.locator("#timer")).to_have_text(re.compile(r"^¡Tiempo! \+0:0\d$"), timeout=6_000)
            expect(screen.locator("#timer")).to_have_attribute("data-sounded", "1")
        # the sound off: time up again is said, not sounded
        page.locator("#timer-sound").click()
        expect(page.locator("#timer-sound")).to_have_text("Sonido: no")
        page.locator("#timer-reset").click()
        expect(page.locator("#timer")).to_have_text("0:05")
        page.locator("#timer-start").click()
        for screen in (page, tv):
            expect(screen.locator("#timer")).to_have_text(re.compile(r"^¡Tiempo!"), timeout=8_000)
            expect(screen.locator("#timer")).to_have_attribute("data-sounded", "1")
    finally:
        tv_context.close()


TV_SIZES = ({"width": 1280, "height": 720}, {"width": 1920, "height": 1080})


def fits(screen: Any, what: str) -> None:
    """The page shows everything with no scrolling, at each TV size (its images loaded)."""
    for size in TV_SIZES:
        screen.set_viewport_size(size)
        screen.wait_for_function("() => [...document.images].every(i => i.complete)")
        box = screen.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight,"
            " innerWidth, innerHeight]"
        )
        assert box[0] <= box[2] and box[1] <= box[3], f"{what} at {size}: the page is {box[0]}x{box[1]}"
    screen.set_viewport_size(TV_SIZES[0])


def test_the_tv_shows_what_happens_now_first_on_one_screen(bare: Server, page: Any, browser: Any) -> None:
    """Issue 34, point 3: a declared paso is shown on both screens; on the TV, a challenge comes before the last
    ruling (which waits for it), and it all fits 1280x720 and 1920x1080 with no scrolling."""
    six = ("Ana", "Beto", "Caro", "Dani", "Eva", "Fito")
    url = new_table(page, bare, players=six)
    tv_context = browser.new_context(viewport=TV_SIZES[0], locale="es-CL")
    tv = tv_context.new_page()
    try:
        tv.goto(url + "/tv")
        expect(tv.locator("#players .player")).to_have_count(6)
        fits(tv, "a table of six before the first bid")
        bid(page, face=5)
        page.locator('#controls .paso[data-hand="full"]').click()
        for screen in (page, tv):
            expect(screen.locator("#paso-declared")).to_have_text("Paso de Beto: full (art. 8)")
        fits(tv, "a declared paso with the odds")
        page.locator("#dudo-btn").click()
        expect(tv.locator("#challenge")).to_contain_text("¡Dudo del paso! Caro → Beto")
        fits(tv, "a doubted paso")
        enter_by_hand(page, {"Beto": [3, 3, 3, 6, 6]})
        page.locator("#confirm-btn").click()
        expect(tv.locator("#last-ruling")).to_contain_text("Caro")
        bid(page, face=4)
        fits(tv, "the last ruling beside the odds")
        page.locator("#dudo-btn").click()
        expect(tv.locator("#challenge")).to_contain_text("¡Dudo!")
        expect(tv.locator("#ruling")).to_be_hidden()  # the old ruling no longer sits above what happens now
        fits(tv, "a dudo after a ruling")
    finally:
        tv_context.close()


def read_die(die_id: str, face: int, confidence: float, reasons: tuple[str, ...] = ()) -> dict[str, Any]:
    """A die as the camera's reading gives it to the page (kiosk.dice)."""
    return {
        "id": die_id,
        "face": face,
        "read": face,
        "confidence": confidence,
        "uncertain": bool(reasons),
        "reasons": list(reasons),
        "box": None,
        "corrected": False,
        "confirmed": False,
    }


def test_a_die_is_corrected_by_finger_with_its_doubts_in_words(bare: Server, page: Any) -> None:
    """Issue 34, points 5 and 6: tapping a die in the list opens the face picker in view (at 800x480), naming the
    die and what was read; why a die is doubted is written on screen, not in a tooltip."""
    new_table(page, bare)
    bid(page, face=4)
    page.locator("#dudo-btn").click()
    expect(page.locator("#challenge")).to_contain_text("¡Dudo! Beto → Ana")
    doubt = "las dos lecturas no coinciden (4 o 1)"
    reading = {
        "state": "ready",
        "source": "camera",
        "photo": None,
        "message": "3 imágenes leídas",
        "players": {
            name: [
                read_die(f"{name}{i}", 2 + i % 4, 0.97, (doubt,) if (name, i) == ("Caro", 4) else ()) for i in range(5)
            ]
            for name in PLAYERS
        },
        "problems": [],
        "corrections": [],
        "proposal": {"ok": False, "blockers": ["Caro: 1 dado(s) dudoso(s) por confirmar o corregir"], "ruling": None},
    }
    reading["players"]["Caro"][4].update(face=4, read=4, confidence=0.62)

    drawn_reading(page, reading)
    why = page.locator('.rwhy[data-name="Caro"] ul.why')
    expect(why).to_have_text(f"⚃ 4 62 %: {doubt}")
    page.locator('.rdie[data-id="Caro4"]').click()
    picker = page.locator("#picker")
    expect(picker.locator(".picker-die")).to_have_text("Caro · dado 5 de 5: leído ⚃ 4 (62 %)")
    expect(picker.locator(".why")).to_have_text(doubt)
    expect(page.locator('.rdie[data-id="Caro4"]')).to_have_class(re.compile(r"\bpicking\b"))
    for button in [picker, *picker.locator("button").all()]:  # the picker and every button of it in view
        box = button.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 480, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 800, box
    picker.get_by_text("cancelar").click()
    expect(picker).to_have_count(0)


def in_view(page: Any, selector: str) -> None:
    """Every element matching `selector` is on the 800x480 screen as it stands (no scrolling)."""
    assert page.evaluate("scrollY") == 0
    boxes = page.locator(selector).evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())")
    assert boxes, selector
    for box in boxes:
        assert box["top"] >= 0 and box["bottom"] <= 480 and box["left"] >= 0 and box["right"] <= 800, (selector, box)


def test_the_bid_and_its_buttons_fit_the_seven_inch_screen(tmp_path: Path, page: Any) -> None:
    """Issue 34, point 8: at 800x480 the header is one line (with the camera's badge and a long table name), and
    the standing bid, the pintas, the quantities and every option are on screen together."""
    with serving(tmp_path, "demo") as server:
        set_pin(page, server.url, PIN)
        page.goto(server.url + "/dudo/new")
        page.locator('input[name="name"]').fill("Mesa del club de los viernes, segunda ronda")
        page.locator("#players").fill("\n".join(("Ana", "Beto", "Caro", "Dani", "Eva", "Fito")))
        page.locator("#create").click()
        page.wait_for_url(re.compile(r".*/dudo/\d+$"))
        expect(page.locator("#camera-badge")).to_contain_text("fps")
        header = page.locator("header.top").bounding_box()
        assert header is not None and header["height"] <= 48, header
        greyed = 0
        for _ in range(2):  # the opener, then the next player over a standing bid
            page.locator('#controls .face[data-face="5"]').click()
            in_view(page, "#standing-bid, #controls h2, #controls .face, #controls .qtys, #bid-go")
            in_view(page, "#dudo-btn, #calzo-btn, #controls .paso")
            if page.locator("#controls .face[disabled]").count():  # a greyed pinta says why, on screen
                greyed += 1
                in_view(page, "#pintas-why")
                expect(page.locator("#pintas-why")).to_contain_text("art. 4: ")
            page.locator("#controls .qty").first.click()
            page.locator("#bid-go").click()
            expect(page.locator("#standing-bid")).not_to_have_text("Sin apuesta todavía")
        assert greyed == 1  # over a standing bid the lower pintas take none
