"""The camera's card reader behind the kiosk's protocol: each card given the seat it lies in front of."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from flask import Flask

from kiosk.cards.camera import CameraCardReader, seat_of, seen
from kiosk.cards.demo import demo_cards, knock_out
from kiosk.cards.reader import doubtful, hands_reading, reading
from kiosk.demo.camera import PHOTOS
from tests.kiosk.conftest import become_coordinator, make_app
from tests.kiosk.fakes import wait_until
from tests.kiosk.test_demo_table import LabelReader
from tests.kiosk.test_truco import deal, state
from vision.cards.notation import deck
from vision.cards.reader import CardRead, CardReading
from vision.cards.synth import render
from vision.seats import TableConfig, save_table_config
from vision.types import Box

SIZE = (4608, 2592)
NAMES = ["Ana", "Beto", "Caro", "Dani"]


def card(code: str | None, x: float, y: float, uncertain: bool = False, face_down: bool = False) -> CardRead:
    reasons = ("una sola esquina a la vista: falta la segunda lectura",) if uncertain else ()
    return CardRead(code, face_down, 0.95, Box(x - 20, y - 30, x + 20, y + 30), uncertain, reasons, 2)


@pytest.mark.parametrize(
    ("x", "y", "players", "seat"),
    [
        (2304, 2200, 4, 0),  # below the centre: seat 0
        (700, 1296, 4, 1),  # then clockwise as the photo shows them: left
        (2304, 400, 4, 2),
        (3900, 1296, 4, 3),
        (2304, 2200, 2, 0),
        (2304, 400, 2, 1),
        (900, 700, 3, 1),  # three seats: 0 below, 1 upper left, 2 upper right
        (3700, 700, 3, 2),
        (2400, 1350, 4, None),  # the middle: the stock, the discard pile
    ],
)
def test_a_card_goes_to_the_seat_it_lies_in_front_of(x: float, y: float, players: int, seat: int | None) -> None:
    assert seat_of(card("7H", x, y), SIZE, players) == seat


def test_a_doubted_or_face_down_card_comes_doubtful_with_its_reasons() -> None:
    sure, unsure, down = (
        seen(card("7H", 0, 0), 1),
        seen(card("7H", 0, 0, True), 1),
        seen(card(None, 0, 0, False, True), 2),
    )
    assert not doubtful(sure) and doubtful(unsure) and doubtful(down)
    assert unsure.reasons == ("una sola esquina a la vista: falta la segunda lectura",) and down.down
    entries = reading([sure, down], [1, 2])["seats"]
    assert [(e["card"], e["doubtful"]) for e in entries] == [("7H", False), (None, True)]
    hand = hands_reading([unsure], [1], 3)["seats"][0]["cards"][0]
    assert hand["doubtful"] and hand["reasons"] == list(unsure.reasons)


class FakeVision:
    """Reads the cards it is given, whatever the frame."""

    def __init__(self, cards: list[CardRead]) -> None:
        self.cards = cards

    def read(self, frame: object) -> CardReading:
        return CardReading(tuple(self.cards), SIZE)


def test_only_the_seats_asked_for_and_nothing_without_a_frame() -> None:
    reader = CameraCardReader()
    reader._reader = FakeVision([card("7H", 2304, 2200), card("AS", 700, 1296), card("2C", 2400, 1350)])  # type: ignore[assignment]
    assert reader.read_cards(None, [0, 1], NAMES) == []
    assert [(s.seat, s.card) for s in reader.read_cards(np.zeros((2592, 4608, 3), np.uint8), [1, 2, 3], NAMES)] == [
        (1, "AS")
    ]


def test_an_earlier_trick_left_in_front_of_a_seat_is_not_this_tricks_card() -> None:
    seen_cards = [seen(card("4C", 0, 0), 1), seen(card("5S", 0, 0), 1)]
    entry = reading(seen_cards, [1], {1: {"4C"}})["seats"][0]
    assert entry["card"] == "5S"
    assert reading(seen_cards, [1], {0: {"4C"}})["seats"][0]["card"] == "4C"  # another seat's card stays: refused


def test_a_rendered_trick_is_read_seat_by_seat(tmp_path: Path) -> None:
    """A Truco trick rendered at the camera's scale, one card in front of each seat, read by the committed models."""
    laid = [[("7H", False)], [("AS", False)], [("3C", False)], [("KD", False)]]
    still = render(5, "truco", size=SIZE, negative=0.0, laid=laid).image
    cards = CameraCardReader().read_cards(still, [0, 1, 2, 3], NAMES)
    entries = reading(cards, [0, 1, 2, 3])["seats"]
    assert all(e["card"] == laid[e["seat"]][0][0] for e in entries if not e["doubtful"])  # never a sure wrong card
    assert sum(e["card"] == laid[e["seat"]][0][0] and not e["doubtful"] for e in entries) >= 3


@pytest.fixture
def demo_app(tmp_path: Path) -> Iterator[Flask]:
    """The kiosk on the demo table with the demo camera (the dice read from the demo photo's labels), ready to read."""
    labels = LabelReader(PHOTOS / "00")
    app = make_app(tmp_path, CAMERA="demo", DEMO=True, READER_FACTORY=lambda: labels, READ_SYNC=True)
    try:
        assert isinstance(app.config["CARD_READER"], CameraCardReader)
        wait_until(lambda: app.extensions["cacho.camera"].can_read, timeout=20)
        yield app
    finally:
        app.extensions["cacho.camera"].close()


def test_the_demo_camera_shows_the_trick_a_demo_truco_reads(demo_app: Flask, tmp_path: Path) -> None:
    """On the demo table the demo camera renders the cards a reading expects; the reader reads them seat by seat."""
    app = demo_app
    co = become_coordinator(app.test_client())
    gid = app.extensions["cacho.store"].tables("truco")[0].id
    before = deal(co, gid, dealer=3)
    assert co.post(f"/truco/{gid}/read", {}).status_code == 200
    entries = state(co, gid)["reading"]["seats"]
    laid = demo_cards("truco", 4, [0, 1, 2, 3], 1, (), gid * 100_003 + before["seq"])
    assert [e["seat"] for e in entries] == [0, 1, 2, 3]
    assert all(e["card"] == laid[e["seat"]][0][0] for e in entries if not e["doubtful"])
    assert sum(not e["doubtful"] for e in entries) >= 2
    photo = co.get(state(co, gid)["reading"]["photo_url"])
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    (tmp_path / "truco-reading.jpg").write_bytes(photo.data)
    photo.close()
    for e in entries:  # the coordinator confirms each doubtful card as laid
        if e["doubtful"]:
            body = {"seat": e["seat"], "card": laid[e["seat"]][0][0], "down": False}
            assert co.post(f"/truco/{gid}/card", body).status_code == 200
    after = co.post(f"/truco/{gid}/confirm", {"seq": state(co, gid)["seq"]})
    assert after.status_code == 200, after.get_json()
    lines = [json.loads(line) for line in app.extensions["cacho.store"].lines(gid)]
    played = [line for line in lines if line["event"] == "play"]
    assert len(played) == 4 and all(line["photo"].startswith(f"{gid}/") for line in played)


def test_more_sure_cards_in_front_of_a_seat_than_it_shows_are_all_in_doubt() -> None:
    two = [seen(card("4C", 0, 0), 1), seen(card("5S", 0, 0), 1), seen(card("6S", 0, 0), 2)]
    entries = reading(two, [1, 2])["seats"]
    assert entries[0]["doubtful"] and "2 cartas delante" in entries[0]["reasons"][-1]
    assert not entries[1]["doubtful"]
    four = [seen(card(code, 0, 0), 0) for code in ("AS", "2S", "3S", "4S")]
    cards = hands_reading(four, [0], 3)["seats"][0]["cards"]
    assert len(cards) == 3 and all(c["doubtful"] and "más de 3 cartas" in c["reasons"][-1] for c in cards)
    assert not any(c["doubtful"] for c in hands_reading(four[:3], [0], 3)["seats"][0]["cards"])


def test_knock_outs_for_the_demo_are_melds_the_engines_accept() -> None:
    from engines.cards.deck import parse_cards
    from engines.cards.melds import PIFPAF_RULES, cacheta_rules, split

    for seed in range(30):
        pool = Counter(deck("pifpaf"))
        nine = knock_out(np.random.default_rng(seed), pool, 9)
        assert len(nine) == 9 and split(parse_cards(nine), PIFPAF_RULES) is not None
        ten = knock_out(np.random.default_rng(seed), pool, 10)
        assert len(ten) == 10 and split(parse_cards(ten), cacheta_rules(None)) is not None
        assert all(n <= 2 for n in (Counter(nine) + Counter(ten)).values())


def test_a_pif_paf_going_out_read_from_the_demo_camera(demo_app: Flask) -> None:
    """The demo camera lays the nine cards of a going out in front of the player; the reading, its doubtful cards
    confirmed as laid and the discard tapped, is ruled by the engine: the player wins the hand."""
    app = demo_app
    co = become_coordinator(app.test_client())
    gid = app.extensions["cacho.store"].tables("pifpaf")[0].id
    base = f"/pifpaf/{gid}"

    def seq() -> int:
        return int(co.get(base + "/state.json").get_json()["seq"])

    assert co.post(base + "/action", {"action": "hand", "dealer": 2, "seq": seq()}).status_code == 200
    for _ in range(3):
        assert co.post(base + "/action", {"action": "call", "seq": seq()}).status_code == 200
    assert co.post(base + "/action", {"action": "draw", "source": "stock", "seq": seq()}).status_code == 200
    at = seq()
    assert co.post(base + "/read", {"kind": "out", "player": 0}).status_code == 200
    laid = [code for code, _ in demo_cards("pifpaf", 3, [0], 9, (), gid * 100_003 + at)[0]]
    cards = co.get(base + "/state.json").get_json()["reading"]["seats"][0]["cards"]
    assert all(c["card"] in laid for c in cards if not c["doubtful"])  # never a sure card that is not there
    assert sum(not c["doubtful"] for c in cards) >= 6
    left = Counter(laid)
    left.subtract(c["card"] for c in cards if not c["doubtful"])
    unread = list((+left).elements())  # the laid cards the reader did not read sure
    for k, c in enumerate(cards):
        if c["doubtful"]:
            assert co.post(base + "/card", {"seat": 0, "index": k, "card": unread.pop()}).status_code == 200
    for k in range(len(cards), 9):
        assert co.post(base + "/card", {"seat": 0, "index": k, "card": unread.pop()}).status_code == 200
    discard = next(code for code in deck("pifpaf") if code not in laid)
    assert co.post(base + "/card", {"discard": discard}).status_code == 200
    now = co.post(base + "/confirm", {"seq": at}).get_json()
    assert now["last_hand"]["winner"] == 0, now


def marked_frame(places: dict[int, tuple[int, int]]) -> np.ndarray:
    """A grey table with each seat's ArUco marker (240 px, on a white border) centred at its place."""
    import cv2

    from vision.seats import aruco_dictionary

    frame = np.full((2592, 4608, 3), 90, np.uint8)
    for seat, (x, y) in places.items():
        marker = cv2.aruco.generateImageMarker(aruco_dictionary(), seat, 240)
        frame[y - 160 : y + 160, x - 160 : x + 160] = 255
        frame[y - 120 : y + 120, x - 120 : x + 120] = marker[..., None]
    return frame


CORNERS = {1: (400, 300), 2: (4200, 300), 3: (4200, 2290), 4: (400, 2290)}


def test_with_every_players_marker_in_view_a_card_is_its_nearest_markers_player(tmp_path: Path) -> None:
    frame = marked_frame(CORNERS)
    reader = CameraCardReader(table_config=tmp_path / "mesa.json")  # no config yet: the players in marker order
    vision = FakeVision([card("7H", 3700, 2000), card("AS", 900, 600), card("2C", 2304, 1296)])
    reader._reader = vision  # type: ignore[assignment]
    assert sorted((s.seat, s.card) for s in reader.read_cards(frame, [0, 1, 2, 3], NAMES)) == [(0, "AS"), (2, "7H")]
    save_table_config(tmp_path / "mesa.json", TableConfig(players={4: "Ana", 1: "Beto", 2: "Caro", 3: "Dani"}))
    assert sorted((s.seat, s.card) for s in reader.read_cards(frame, [0, 1, 2, 3], NAMES)) == [(1, "AS"), (3, "7H")]
    # a player's marker out of view: the seats go by direction from the photo's centre
    no_dani = marked_frame({k: v for k, v in CORNERS.items() if k != 3})
    vision.cards = [card("7H", 2304, 2200)]
    assert [(s.seat, s.card) for s in reader.read_cards(no_dani, [0, 1, 2, 3], NAMES)] == [(0, "7H")]


def test_the_camera_reader_reads_with_a_models_folder_given_and_names_it(tmp_path: Path) -> None:
    assert CameraCardReader().models_name == "stock"
    adapted = CameraCardReader(tmp_path / "mesa-club")
    assert adapted.models_name == "mesa-club"
    with pytest.raises(FileNotFoundError, match=r"mesa-club/cards/finder\.pt"):
        adapted._loaded()


def test_the_app_reads_cards_with_the_models_folder_it_is_given(tmp_path: Path) -> None:
    app = make_app(tmp_path, CAMERA="demo", DEMO=True, CARD_MODELS=str(tmp_path / "mesa-club"))
    try:
        assert app.config["CARD_READER"].models_name == "mesa-club"
    finally:
        app.extensions["cacho.camera"].close()
    stock = make_app(tmp_path / "stock", CAMERA="demo", DEMO=True)
    try:
        assert stock.config["CARD_READER"].models_name == "stock"
    finally:
        stock.extensions["cacho.camera"].close()
