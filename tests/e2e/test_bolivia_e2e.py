"""Bolivian Cacho end to end: Debian's chromium (Playwright) plays the short demo game on a real `cacho kiosk`.

The rolling area's photos (kiosk/demo/bolivia_fotos/, rendered by vision.synth) are put on a live table one by one
and read through `replay:` by the real reader (models/). Every die the reader gets wrong is put right by taps (the
true faces and places are in fotos.json), then the game goes on by taps: Ana declares póker, sets her 1s aside and
scores 40 (O); Beto declares by mistake, undoes, declares quinas, sets his 5s aside, and the kiosk names the kept
die that was knocked over; Ana rolls five 6s on her first roll: grande de mano, the game is over. The pizarras on
the coordinator's screen and on the TV must be the engine's for the true dice.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engines.bolivia import Category, replay_lines
from kiosk.bolivia import demo
from tests.e2e.conftest import SHOTS, Server, iou, serving, set_pin, shot, state_of

PIN = "5173"
READER_WAIT_MS = 120_000  # the models load in the background
READING_WAIT_MS = 60_000
MATCH_IOU = 0.5  # a sloppy box (over two dice) is removed, and both dice are added where they lie

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


@pytest.fixture
def kiosk(tmp_path: Path) -> Iterator[tuple[Server, Path, list[dict[str, Any]]]]:
    """The kiosk reading a live table (a replay folder whose photo the test changes); the demo photos."""
    photos = demo.photos()
    table = tmp_path / "mesa"
    demo.show(Path(photos[0]["path"]), table)
    with serving(tmp_path, f"replay:{table}") as server:
        yield server, table, photos


def post_die(page: Any, click: Any) -> None:
    """Do `click` (a tap in the picker) and wait for the kiosk's answer to the correction."""
    with page.expect_response(lambda r: r.url.endswith("/die") and r.request.method == "POST") as answer:
        click()
    assert answer.value.ok, answer.value.text()


def read_roll(page: Any, base: str, table: Path, photo: dict[str, Any]) -> dict[str, Any]:
    """Put the photo on the table, tap «Leer la tirada» once the camera has a frame taken after it, wait for the
    reading; the reading. (On a loaded machine the camera can be a frame behind: read at once, it read the roll
    before.)"""
    shown = time.monotonic()
    demo.show(Path(photo["path"]), table)
    health = base.split("/bolivia")[0] + "/camera/health"
    deadline = shown + 30
    while time.monotonic() < deadline:
        age = page.request.get(health).json().get("age_s")
        if age is not None and age + 0.1 < time.monotonic() - shown:
            break
        time.sleep(0.05)
    page.click("#read-btn")
    page.wait_for_selector('#reading-state[data-state="ready"]', timeout=READING_WAIT_MS)
    reading = state_of(page, base)["reading"]
    assert reading is not None and reading["state"] == "ready" and reading["source"] == "camera"
    assert reading["photo_url"]
    return dict(reading)


def correct_reading(page: Any, base: str, photo: dict[str, Any]) -> dict[str, int]:
    """Tap every die the reader got wrong to its true face, remove what is not a die, add what it missed."""
    done = {"corrected": 0, "confirmed": 0, "removed": 0, "added": 0}
    reading = state_of(page, base)["reading"]
    truth: list[dict[str, Any]] = list(photo["dice"])
    unmatched = list(truth)
    for die in reading["dice"]:
        match = None
        if die["box"] is not None:
            scored = [(iou(die["box"], t["box"]), t) for t in unmatched]
            scored = [(s, t) for s, t in scored if s >= MATCH_IOU]
            match = max(scored, key=lambda pair: pair[0])[1] if scored else None
        chip = page.locator(f'#reading-dice .rdie[data-id="{die["id"]}"]')
        if match is None:
            chip.click()
            post_die(page, lambda: page.click("#remove-die"))
            expect(chip).to_have_count(0)
            done["removed"] += 1
            continue
        unmatched.remove(match)
        if die["face"] != match["face"] or (die["uncertain"] and not (die["corrected"] or die["confirmed"])):
            chip.click()
            post_die(page, lambda face=match["face"]: page.click(f'#picker .face[data-face="{face}"]'))
            expect(chip).to_have_attribute("data-face", str(match["face"]))
            expect(chip).not_to_have_class(re.compile(r"\bdoubtful\b"))
            done["corrected" if die["face"] != match["face"] else "confirmed"] += 1
    photo_img = page.locator("#reading-photo img")
    size = reading["size"]
    for missing in unmatched:
        box = missing["box"]
        shown = visible_box(page, photo_img)
        x = (box[0] + box[2]) / 2 / size[0] * shown["width"]
        y = (box[1] + box[3]) / 2 / size[1] * shown["height"]
        on_top = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.tagName", [shown["x"] + x, shown["y"] + y])
        if on_top == "IMG":  # the spot is free: tap the photo where the die lies
            photo_img.click(position={"x": x, "y": y})
        else:  # another die's box covers it: the "+ dado" button adds it without a place
            page.click("#add-die")
        page.wait_for_selector("#picker")
        post_die(page, lambda face=missing["face"]: page.click(f'#picker .face[data-face="{face}"]'))
        done["added"] += 1
    expect(page.locator("#reading-dice .rdie[data-id]")).to_have_count(5)
    return done


def visible_box(page: Any, locator: Any) -> dict[str, float]:
    """The element's box on the screen (the page redraws on every live update: try again until it stands)."""
    for _ in range(50):
        locator.wait_for(state="visible")
        box = locator.bounding_box()
        if box is not None and box["width"] > 0:
            return dict(box)
        page.wait_for_timeout(100)
    raise AssertionError("la foto de la lectura no se ve")


def roll(page: Any, base: str, table: Path, photo: dict[str, Any]) -> dict[str, int]:
    """Put the photo on the table, read it, and put every die right by taps; the taps by kind."""
    read_roll(page, base, table, photo)
    return correct_reading(page, base, photo)


def faces_by_position(page: Any, base: str) -> list[int | None]:
    """The faces the reading would log, by position."""
    return list(state_of(page, base)["reading"]["proposal"]["dice"])


def confirm(page: Any, base: str) -> dict[str, Any]:
    """Tap «Confirmar tirada» and wait until the roll is on the screen; the state."""
    seq = state_of(page, base)["seq"]
    page.click("#confirm-btn")
    page.wait_for_function(f"document.getElementById('bolivia').dataset.seq > {seq}")
    page.wait_for_selector("#roll-dice")
    return state_of(page, base)


def tap_and_wait(page: Any, selector: str) -> None:
    """Tap a button that logs an action, and wait until the page shows the new event."""
    seq = page.locator("#bolivia").get_attribute("data-seq")
    page.click(selector)
    page.wait_for_function(f"document.getElementById('bolivia').dataset.seq > {seq}")


def set_aside(page: Any, face: int) -> list[int]:
    """Tap every die of the roll showing `face` (to set them aside); their positions."""
    positions = []
    for die in page.locator(f'#roll-dice .bdie[data-face="{face}"]').all():
        die.click()
        positions.append(int(die.get_attribute("data-pos") or 0))
    for position in positions:
        expect(page.locator(f'#roll-dice .bdie[data-pos="{position}"]')).to_have_class(re.compile(r"\bkept\b"))
    return positions


def cell(page: Any, side: str, category: str) -> Any:
    """A cell of a side's pizarra on the screen."""
    return page.locator(f'#pizarras .side[data-side="{side}"] [data-cat="{category}"]')


def test_the_demo_game_is_played_with_the_camera(
    kiosk: tuple[Server, Path, list[dict[str, Any]]], page: Any, browser: Any
) -> None:
    server, table, photos = kiosk
    url = server.url
    set_pin(page, url, PIN)
    page.click('a[href="/bolivia/new"]')
    page.fill('textarea[name="players"]', "Ana\nBeto")
    page.fill('input[name="name"]', "Demo")
    shot(page, "bolivia-new")
    page.click("#create")
    page.wait_for_url(re.compile(r"/bolivia/\d+$"))
    base = page.url
    gid = int(base.rsplit("/", 1)[1])
    page.wait_for_function(
        "fetch(location.pathname + '/state.json').then(r => r.json()).then(s => s.can_read)",
        timeout=READER_WAIT_MS,
        polling=500,
    )
    page.reload()
    expect(page.locator("#turn-line")).to_contain_text("Le toca a Ana")

    # Ana, roll 1: 1 1 1 2 3. She asks the helper, declares póker and sets the three 1s aside.
    first = roll(page, base, table, photos[0])
    assert sorted(f for f in faces_by_position(page, base) if f) == sorted(photos[0]["faces"])
    expect(page.locator("#confirm-btn")).to_be_enabled()
    shot(page, "bolivia-reading")
    current = confirm(page, base)
    assert sorted(current["roll"]["dice"]) == [1, 1, 1, 2, 3]
    page.click("#advice-btn")
    expect(page.locator("#advice-list li").first).to_be_visible()
    assert page.locator("#advice-list li").count() == 6
    tap_and_wait(page, '#declare [data-cat="poker"]')
    expect(page.locator("#turn-line")).to_contain_text("declaró póker")
    shot(page, "bolivia-advice")
    kept = set_aside(page, 1)
    assert len(kept) == 3

    # Ana, roll 2 (the set-aside is logged as the read starts): 1 1 1 1 4, póker after a re-roll.
    roll(page, base, table, photos[1])
    reading = state_of(page, base)["reading"]
    assert reading["proposal"]["ok"], reading["proposal"]
    assert [reading["proposal"]["dice"][p - 1] for p in kept] == [1, 1, 1]
    confirm(page, base)
    expect(page.locator("#score .score")).to_have_text("Anotar póker: O (40)")
    tap_and_wait(page, "#score .score")
    expect(cell(page, "Ana", "poker")).to_have_attribute("data-mark", "O")
    expect(page.locator('#pizarras .side[data-side="Ana"] .total')).to_have_text("40")

    # Beto, roll 1: declares full by mistake, undoes it, declares quinas and sets his 5s aside.
    expect(page.locator("#turn-line")).to_contain_text("Le toca a Beto")
    roll(page, base, table, photos[2])
    confirm(page, base)
    tap_and_wait(page, '#declare [data-cat="full"]')
    expect(page.locator("#turn-line")).to_contain_text("declaró full")
    tap_and_wait(page, "#undo")
    expect(page.locator("#turn-line")).not_to_contain_text("declaró")
    tap_and_wait(page, '#declare [data-cat="quinas"]')
    kept = set_aside(page, 5)
    assert len(kept) == 3

    # Beto, roll 2: a kept 5 was knocked to a 6. The kiosk names it; the coordinator puts it back to 5.
    roll(page, base, table, photos[3])
    plan = state_of(page, base)["reading"]["proposal"]
    assert len(plan["moved"]) == 1 and plan["moved"][0] in kept and not plan["ok"]
    moved = plan["moved"][0]
    blockers = page.locator("#blockers")
    expect(blockers).to_contain_text(f"el dado {moved} estaba apartado con 5 y ahora muestra 6: se movió")
    expect(page.locator("#confirm-btn")).to_be_disabled()
    shot(page, "bolivia-moved-die")
    page.locator(f'#reading-dice .rdie[data-pos="{moved}"]').click()
    post_die(page, lambda: page.click('#picker .face[data-face="5"]'))
    expect(page.locator("#confirm-btn")).to_be_enabled()
    current = confirm(page, base)
    assert sorted(current["roll"]["dice"]) == [4, 5, 5, 5, 5]
    tap_and_wait(page, "#score .score")
    expect(cell(page, "Beto", "quinas")).to_have_attribute("data-mark", "20")
    shot(page, "bolivia-pizarra")

    # The spectators' TV (another browser, without the PIN: its own window) follows live, with the helper on it.
    spectators = browser.new_context(viewport={"width": 1280, "height": 720}, locale="es-CL")
    tv = spectators.new_page()
    tv.goto(f"{url}/bolivia/{gid}/tv")
    expect(tv.locator('#pizarras .side[data-side="Beto"] .total')).to_have_text("20")

    # Ana, roll 1 of her second turn: five 6s. Grande de mano: the game is over.
    roll(page, base, table, photos[4])
    confirm(page, base)
    expect(tv.locator("#advice-list li").first).to_contain_text("grande")
    expect(tv.locator("#roll-dice .bdie")).to_have_count(5)
    shot(tv, "bolivia-tv")
    tap_and_wait(page, '#declare [data-cat="grande"]')
    tap_and_wait(page, "#score .score")
    expect(page.locator("#grande-de-mano")).to_contain_text("¡Grande de mano!")
    expect(page.locator("#grande-de-mano")).to_contain_text("Gana Ana")
    expect(page.locator("#winner")).to_contain_text("Ana")
    page.evaluate("window.scrollTo(0, 0)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "bolivia-grande-de-mano.png"))  # the screen as it is: the overlay is fixed
    expect(tv.locator("#grande-de-mano")).to_be_visible()
    expect(tv.locator('#pizarras .side[data-side="Ana"] [data-cat="grande"]')).to_have_attribute("data-mark", "$")
    spectators.close()

    # The exported log replays to the same game: Ana's grande de mano, the corrections and photos kept.
    exported = page.request.get(base + "/export.jsonl")
    assert exported.ok
    result = replay_lines(exported.text().splitlines())
    assert result.error is None and result.game is not None
    game = result.game
    assert game.over and game.instant_win is not None and game.instant_win.player == "Ana"
    assert game.sides[0].hatches[0].cell(Category.POKER).points == 40  # type: ignore[union-attr]
    assert game.sides[1].hatches[0].cell(Category.QUINAS).points == 20  # type: ignore[union-attr]
    lines = [line for line in exported.text().splitlines() if '"event": "roll"' in line]
    assert len(lines) == 5 and all('"source": "camera"' in line and '"photo"' in line for line in lines)
    # Every tap on the first roll (corrected, confirmed, removed, added) is a correction logged on its line.
    assert len(json.loads(lines[0]).get("corrections", [])) == sum(first.values())
