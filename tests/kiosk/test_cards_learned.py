"""Confirmed card readings become labelled corner indices (kiosk.cards.learned): the cards confirmed as read keep
their corners, corrected ones do not; taken back when refused, forgotten when dropped, swept after a crash; the
samples are what `cacho cards adapt` reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask import Flask

from kiosk import learned as dice_learned
from kiosk.cards import learned
from kiosk.cards import reader as readers
from kiosk.cards.reader import SeenCard
from tests.kiosk.conftest import Coordinator, become_coordinator, make_app
from tests.kiosk.fakes import FakeCamera, FakeReader, wait_until
from tests.kiosk.test_cards_reader import FakeCardReader
from tests.kiosk.test_truco import deal, new_game, ok, state
from vision.cards.index_classifier import photo_crops
from vision.cards.notation import CLASS_NAMES, CLASS_OF

WIDTH, HEIGHT = 1200, 800
Corner = tuple[float, float, float, float]


def corners(x: float, y: float) -> tuple[Corner, Corner]:
    """A card's two corner indices (30 px tall) about (x, y): upper left and lower right."""
    return (x - 60, y - 80, x - 40, y - 50), (x + 40, y + 50, x + 60, y + 80)


def frame() -> np.ndarray:
    """Green felt with a white mark in each card's upper corner, so that the crops can be told apart."""
    image = np.full((HEIGHT, WIDTH, 3), (40, 90, 30), np.uint8)
    for k, (x, y) in enumerate(PLACES):
        x1, y1, x2, y2 = (int(v) for v in corners(x, y)[0])
        image[y1:y2, x1:x2] = (255, 255, 255) if k % 2 else (0, 0, 255)
    return image


PLACES = [(600, 650), (250, 400), (600, 150), (950, 400)]  # in front of seats 0-3 (bottom, then clockwise)


def seen(seat: int, card: str | None, **more: object) -> SeenCard:
    """A card read in front of `seat`, with its two corners."""
    return SeenCard(seat, card, indices=corners(*PLACES[seat]), **more)  # type: ignore[arg-type]


@pytest.fixture
def reader() -> FakeCardReader:
    return FakeCardReader()


@pytest.fixture
def app(tmp_path: Path, reader: FakeCardReader) -> Iterator[Flask]:
    application = make_app(
        tmp_path,
        CAMERA="fake",
        CAMERA_FACTORY=lambda spec: FakeCamera(frame()),
        READER_FACTORY=FakeReader,
        READ_SYNC=True,
        CARD_READER=reader,
    )
    wait_until(lambda: application.extensions["cacho.camera"].can_read)
    yield application
    application.extensions["cacho.camera"].close()


@pytest.fixture
def co(app: Flask) -> Coordinator:
    return become_coordinator(app.test_client())


def root_of(app: Flask) -> Path:
    return Path(app.config["CARD_LEARNED"])


def labels(root: Path) -> list[list[str]]:
    """Every sample's label lines, split, sample by sample in name order."""
    return [[line.split() for line in p.read_text().splitlines()] for p in sorted((root / "labels").glob("*.txt"))]


def kept(root: Path) -> list[str]:
    where = root / dice_learned.PENDING
    return sorted(p.name for p in where.iterdir()) if where.is_dir() else []


def test_a_hand_keeps_the_corners_of_the_cards_confirmed_as_read() -> None:
    hands = readers.hands_reading(
        [seen(0, "4S"), seen(0, "2S", confidence=0.5), seen(1, "AD"), seen(1, "6C", down=True)], [0, 1], 2
    )
    hands = readers.correct_hand(hands, 0, 1, "2S")  # a doubtful card confirmed: the same card
    hands = readers.correct_hand(hands, 1, 1, "5D")  # read 6C face down; the coordinator says otherwise
    classes = [cls for cls, _ in learned.labelled(hands)]
    assert classes == [CLASS_OF["4S"]] * 2 + [CLASS_OF["2S"]] * 2 + [CLASS_OF["AD"]] * 2
    trick = readers.reading([seen(1, "7H"), seen(2, "4C"), seen(3, "AS", down=True)], [1, 2, 3])
    trick = readers.correct(trick, 2, "4D", False)  # read 4C, corrected: its corners may be another card's
    trick = readers.correct(trick, 2, "4C", False)  # and back: now as read
    assert [CLASS_NAMES[cls] for cls, _ in learned.labelled(trick)] == ["7H", "7H", "4C", "4C"]
    assert learned.labelled(readers.reading([SeenCard(1, "7H")], [1])) == []  # a reader that gives no corners


def test_a_confirmed_trick_is_written_as_corners_adapt_reads(co: Coordinator, reader: FakeCardReader) -> None:
    gid = new_game(co)
    deal(co, gid, dealer=3)
    reader.cards = [seen(0, "5S"), seen(1, "7H"), seen(2, "4C", confidence=0.5), seen(3, "3S")]
    assert co.post(f"/truco/{gid}/read", {}).status_code == 200
    root = root_of(co.client.application)
    assert len(kept(root)) == 1
    assert co.post(f"/truco/{gid}/card", {"seat": 2, "card": "4C", "down": False}).status_code == 200
    assert co.post(f"/truco/{gid}/card", {"seat": 3, "card": "3C", "down": False}).status_code == 200
    assert co.post(f"/truco/{gid}/confirm", {"seq": state(co, gid)["seq"]}).status_code == 200
    assert kept(root) == []
    (written,) = labels(root)
    assert [CLASS_NAMES[int(line[0])] for line in written] == ["5S", "5S", "7H", "7H", "4C", "4C"]  # not 3S/3C
    crops = photo_crops(root, "")
    assert [CLASS_NAMES[label] for _, _, label in crops] == ["5S", "5S", "7H", "7H", "4C", "4C"]
    marks = [crop[crop.shape[0] // 2, crop.shape[1] // 2].astype(int) for _, crop, _ in crops[::2]]
    assert ["white" if mark.min() > 200 else "red" if mark[2] > 200 > 40 > mark[1] else "?" for mark in marks] == [
        "red",
        "white",
        "red",
    ]  # each upper corner's own crop (a JPEG: near the colours drawn)
    painted = cv2.imread(str(next((root / "images").glob("*.jpg"))))
    assert painted is not None and abs(int(painted[0, 0, 1]) - 90) < 8  # far from every corner: the felt


def test_a_refused_or_dropped_reading_keeps_no_sample(co: Coordinator, reader: FakeCardReader) -> None:
    gid = new_game(co)
    deal(co, gid, dealer=3)
    ok(co, gid, action="play", card="4C")
    reader.cards = [seen(1, "4C"), seen(2, "5S"), seen(3, "6S")]
    co.post(f"/truco/{gid}/read", {})
    root = root_of(co.client.application)
    response = co.post(f"/truco/{gid}/confirm", {"seq": state(co, gid)["seq"]})
    assert response.status_code == 409  # the engine refuses a second 4C
    assert labels(root) == [] and len(kept(root)) == 1
    reader.cards = [seen(1, "7H"), seen(2, "5S"), seen(3, "6S")]
    co.post(f"/truco/{gid}/read", {})  # read again: the first frame goes
    assert len(kept(root)) == 1 and state(co, gid)["reading"]["learn"]["frame"] == kept(root)[0]
    assert co.post(f"/truco/{gid}/cancel", {}).status_code == 200
    assert kept(root) == [] and labels(root) == []


def test_the_showdown_keeps_its_hands_and_a_crash_leaves_nothing_half_done(
    tmp_path: Path, co: Coordinator, reader: FakeCardReader
) -> None:
    from tests.kiosk.test_cacho_espanol import new_game as new_cacho
    from tests.kiosk.test_cacho_espanol import to_showdown

    gid = new_cacho(co)
    to_showdown(co, gid)
    reader.cards = [seen(0, "4S"), seen(1, "AD")]
    assert co.post(f"/cacho/{gid}/read", {}).status_code == 200
    root = root_of(co.client.application)
    waiting = kept(root)
    (root / dice_learned.PENDING / "1-nadie.jpg").write_bytes(b"x")  # a frame no reading names
    (root / "labels").mkdir(parents=True)
    (root / "labels" / "suelta.txt").write_text("0 0.5 0.5 0.1 0.1\n")  # a label whose image was never written
    again = make_app(tmp_path, CAMERA=None)  # the kiosk starts again after a crash
    again.extensions["cacho.camera"].close()
    assert kept(root) == waiting and labels(root) == []
    for seat, hand in ((0, ["4S", "2S", "6D"]), (1, ["AD", "4D", "5D"])):
        for index, card in enumerate(hand):
            assert co.post(f"/cacho/{gid}/card", {"seat": seat, "index": index, "card": card}).status_code == 200
    assert co.post(f"/cacho/{gid}/confirm", {"seq": state_seq(co, gid)}).status_code == 200
    assert [[CLASS_NAMES[int(line[0])] for line in sample] for sample in labels(root)] == [["4S", "4S", "AD", "AD"]]


def state_seq(co: Coordinator, gid: int) -> int:
    return int(co.get(f"/cacho/{gid}/state.json").get_json()["seq"])
