"""Rendered tables (vision/synth/scene.py: printed markers on felt, cups, a hand, real light and sensor noise)
played through `replay:`: the still detector on a reveal, seat assignment by markers and by zones, every
mismatch the cross-check reports, and the camera failing (a replay that ends, frames that vanish, no device).

The dice are read by an oracle built from the scene's labels (their exact boxes and faces): what is tested
here is the camera, stillness and seats, not the dice finder.
"""

from __future__ import annotations

import itertools
import math
import shutil
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import CameraError, open_camera
from tests.vision.test_reader_core import FakeFaces, FakeFinder
from tests.vision.test_still import FakeTime
from vision.frames import FrameError
from vision.reader import DiceReader, ReaderSettings
from vision.seats import (
    SeatCheck,
    TableCheck,
    TableConfig,
    TiltedReader,
    calibrate,
    camera_tilt,
    find_markers,
    marker_regions,
    parse_table_config,
    read_table,
    to_table,
)
from vision.still import StillSettings, capture_still
from vision.synth.camera import Camera
from vision.synth.scene import SeatedScene, Stray, compose_seated, scene_sequence, write_sequence
from vision.types import Box, Detection, Frame, FrameReading

SEED = 0  # standard lens, side light; its hand reaches in from seat 3 (top) and hides that seat's marker
SIZE = (1152, 648)
FPS = 10.0
SEATS = {1: [3, 5, 1], 2: [6, 6], 3: [2, 4, 4, 1, 5], 4: [1]}
PLAYERS = {1: "Ana", 2: "Beto", 3: "Caro", 4: "Dani"}
EXPECTED = {"Ana": 3, "Beto": 2, "Caro": 5, "Dani": 1}
CONFIG = TableConfig(players=PLAYERS)
HAND, SETTLE, FRAMES = 4, 2, 16  # the last movement is on frame 6 (t = 0.6 s): the dice come to rest
FIRST_STILL = HAND + SETTLE


class OracleReader:
    """Reads a frame by finding which rendered frame it is and giving that frame's labels as the reading."""

    def __init__(self, frames: Sequence[SeatedScene], uncertain: Collection[int] = ()) -> None:
        self.frames = list(frames)
        self.thumbs = [self._thumb(f.image) for f in self.frames]
        self.uncertain = uncertain
        self.read_indices: list[int] = []

    @staticmethod
    def _thumb(frame: Frame) -> np.ndarray:
        return cv2.resize(frame, (96, 54), interpolation=cv2.INTER_AREA).astype(np.float32)

    def read(self, frame: Frame) -> FrameReading:
        """The labels of the rendered frame nearest this one."""
        thumb = self._thumb(frame)
        index = int(np.argmin([np.abs(thumb - t).mean() for t in self.thumbs]))
        self.read_indices.append(index)
        return self.frames[index].reading(self.uncertain)


def seat(result: TableCheck, number: int) -> SeatCheck:
    return next(s for s in result.seats if s.seat == number)


def kinds(result: TableCheck, number: int) -> list[str]:
    return [p.kind for p in seat(result, number).problems]


def faces(result: TableCheck) -> dict[int, tuple[int, ...]]:
    return {s.seat: tuple(sorted(s.faces)) for s in result.seats}


WANTED = {s: tuple(sorted(f)) for s, f in SEATS.items()}


@pytest.fixture(scope="module")
def reveal() -> list[SeatedScene]:
    """Cups lifted: the hand withdraws (4 frames), two dice roll to rest (2), then the table is still (10)."""
    return scene_sequence(SEED, SEATS, FRAMES, *SIZE, lens="standard", hand_frames=HAND, settle_frames=SETTLE)


@pytest.fixture(scope="module")
def reveal_dir(reveal: list[SeatedScene], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("revelacion")
    write_sequence(reveal, folder)
    return folder


@pytest.fixture(scope="module")
def still(reveal: list[SeatedScene]) -> SeatedScene:
    return reveal[-1]


def copy_frames(source: Path, target: Path, indices: Sequence[int]) -> Path:
    """Some frames of a sequence, renumbered 000.jpg, 001.jpg... in a new folder."""
    target.mkdir()
    for new, old in enumerate(indices):
        shutil.copy(source / f"{old:03d}.jpg", target / f"{new:03d}.jpg")
    return target


# ------------------------------------------------------------------ the still detector


def test_capture_waits_for_the_hand_to_leave_and_the_dice_to_settle(
    reveal: list[SeatedScene], reveal_dir: Path
) -> None:
    t = FakeTime()
    reader = OracleReader(reveal)
    settings = StillSettings(still_s=0.5, poll_s=0.05, frames=3, frame_gap_s=0.1, timeout_s=10)
    with open_camera(f"replay:{reveal_dir}", fps=FPS, clock=t.clock) as camera:
        capture = capture_still(camera, reader, settings, t.clock, t.sleep)
    assert capture.wait.still and not capture.timed_out
    # Still from frame 6 on (the dice at rest; had the detector missed them settling it would stop 0.2 s sooner),
    # and `still_s` of it seen, within one poll.
    assert FIRST_STILL / FPS + 0.5 <= capture.wait.waited_s <= FIRST_STILL / FPS + 0.5 + 0.06
    assert capture.wait.previews > 20
    assert len(reader.read_indices) == 3 and min(reader.read_indices) >= FIRST_STILL  # only the still table
    assert (capture.frames_read, capture.agreeing_frames, capture.disagreeing) == (3, 3, ())
    waited = f"{capture.wait.waited_s:.1f}".replace(".", ",")  # as Spanish writes it
    assert f"esperó {waited} s" in capture.message and "3 de 3 imágenes coinciden" in capture.message
    assert capture.reading is not None and capture.frame is not None and not capture.reading.uncertain
    result = read_table(capture.frame, capture.reading, CONFIG, EXPECTED)
    assert result.ok and faces(result) == WANTED
    assert result.lines()[-1] == "Resultado: se puede arbitrar"


def test_a_table_that_never_goes_still_times_out(reveal: list[SeatedScene], reveal_dir: Path, tmp_path: Path) -> None:
    restless = copy_frames(reveal_dir, tmp_path / "inquieta", range(HAND))  # the hand, over and over
    t = FakeTime()
    reader = OracleReader(reveal)
    with open_camera(f"replay:{restless}", fps=FPS, loop=True, clock=t.clock) as camera:
        capture = capture_still(camera, reader, StillSettings(still_s=0.5, timeout_s=3.0), t.clock, t.sleep)
    assert capture.timed_out and capture.reading is None and reader.read_indices == []
    assert 3.0 <= capture.wait.waited_s < 3.1
    assert capture.message == "la mesa nunca quedó quieta en 3,0 s: no se leyó nada"
    assert capture.to_dict()["still"] is False


# ------------------------------------------------------------------ seats


def test_seats_by_markers_on_the_rendered_table(still: SeatedScene) -> None:
    seating = calibrate(still.image, CONFIG)
    assert seating.mode == "markers" and [m.seat for m in seating.markers] == [1, 2, 3, 4]
    assert seating.missing == () and seating.region_source == "markers"
    result = read_table(still.image, OracleReader([still]).read(still.image), CONFIG, EXPECTED)
    assert result.ok and faces(result) == WANTED
    assert [(s.player, s.found, s.expected) for s in result.seats] == [
        ("Ana", 3, 3),
        ("Beto", 2, 2),
        ("Caro", 5, 5),
        ("Dani", 1, 1),
    ]
    assert all(d.where == "mesa" and d.table_mm is not None for s in result.seats for d in s.dice)


@pytest.mark.parametrize("seed", range(6))
def test_the_markers_homography_measures_the_table(seed: int) -> None:
    """Six seats, either lens, any light: the printed squares give the table's distances (a few % off: the
    detector's corners sit a little inside the ink), and every seat its own dice."""
    seats = {1: [1, 2, 3, 4, 5], 2: [6, 6, 6, 6, 6], 3: [2, 2], 4: [3], 5: [4, 4, 4], 6: [5, 1]}
    scene = compose_seated(seed, seats, *SIZE)
    seating = calibrate(scene.image)
    assert seating.homography is not None and [m.seat for m in seating.markers] == list(seats)
    found = dict(zip(seating.anchors, to_table(seating.homography, [m.center for m in seating.markers]), strict=True))
    true = {m.seat: m.table_mm for m in scene.markers}
    for a, b in itertools.combinations(seats, 2):
        assert math.dist(found[a], found[b]) == pytest.approx(math.dist(true[a], true[b]), rel=0.15)
    result = read_table(scene.image, scene.reading(), TableConfig(seats=tuple(seats)), None)
    assert result.ok and faces(result) == {s: tuple(sorted(f)) for s, f in seats.items()}


def test_the_markers_give_the_cameras_nadir() -> None:
    """Six seats, either lens, tilts of up to 6 degrees: the markers the seats are found by also say where the camera's
    vertical meets the frame, within 1 % of the frame's width (the frame's centre is up to 8 % off), and which lens
    it has."""
    seats = {1: [1, 2], 2: [6], 3: [2, 2], 4: [3], 5: [4, 4], 6: [5, 1]}
    off_centre = []
    for seed in range(6):
        scene = compose_seated(seed, seats, *SIZE)
        c = scene.meta["camera"]
        camera = Camera(*SIZE, c["hfov_deg"], c["height_m"], c["pitch_deg"], c["roll_deg"])
        true = camera.project(np.array([[0.0, 0.0, 0.0]]))[0]
        markers, _ = find_markers(scene.image)
        tilt = camera_tilt(markers, *SIZE)
        assert tilt is not None and tilt.markers == 6 and tilt.hfov_deg == c["hfov_deg"]
        assert math.dist((tilt.nadir[0] * SIZE[0], tilt.nadir[1] * SIZE[1]), true) < 0.01 * SIZE[0]
        assert tilt.height_mm == pytest.approx(c["height_m"] * 1000, rel=0.1)
        off_centre.append(math.dist(true, (SIZE[0] / 2, SIZE[1] / 2)))
    assert max(off_centre) > 0.08 * SIZE[0]


class NadirReader:
    """A reader that says which nadir it reads from: at_nadir gives another one, as vision.reader.DiceReader's."""

    def __init__(self, nadir: tuple[float, float] | None = None, made: list[NadirReader] | None = None) -> None:
        self.nadir = nadir
        self.made = [] if made is None else made
        self.reads = 0

    def at_nadir(self, nadir: tuple[float, float] | None) -> NadirReader:
        tilted = NadirReader(nadir, self.made)
        self.made.append(tilted)
        return tilted

    def read(self, frame: Frame) -> FrameReading:
        self.reads += 1
        return FrameReading(frame.shape[1], frame.shape[0], ())


def test_a_capture_is_read_from_the_nadir_its_markers_give(reveal_dir: Path) -> None:
    """The still's frames are read by the reader at the measured nadir, measured once; the capture says so."""
    scene = compose_seated(2, {1: [1, 2], 2: [6], 3: [2, 2], 4: [3]}, *SIZE)
    c = scene.meta["camera"]
    true = Camera(*SIZE, c["hfov_deg"], c["height_m"], c["pitch_deg"], c["roll_deg"]).project(np.zeros((1, 3)))[0]
    assert math.dist(true, (SIZE[0] / 2, SIZE[1] / 2)) > 0.05 * SIZE[0]  # a tilted camera
    plain = NadirReader()
    tilted = TiltedReader(plain)
    for _ in range(3):
        tilted.read(scene.image)
    [used] = plain.made
    assert plain.reads == 0 and used.reads == 3 and tilted.tilt is not None and used.nadir == tilted.tilt.nadir
    assert math.dist((used.nadir[0] * SIZE[0], used.nadir[1] * SIZE[1]), true) < 0.01 * SIZE[0]

    # Through the still detector, on a replayed table whose markers are seen: the capture carries the tilt.
    plain = NadirReader()
    tilted = TiltedReader(plain, hfov_deg=66.0)
    t = FakeTime()
    with open_camera(f"replay:{reveal_dir}", fps=FPS, clock=t.clock) as camera:
        capture = capture_still(camera, tilted, StillSettings(still_s=0.5, frames=2, timeout_s=10), t.clock, t.sleep)
    assert capture.reading is not None and tilted.tilt is not None and tilted.tilt.markers >= 3
    assert [r.reads for r in plain.made] == [2]
    data = replace(capture, tilt=tilted.tilt).to_dict()["tilt"]
    assert isinstance(data, dict) and data["markers"] == tilted.tilt.markers and data["hfov_deg"] == 66.0


def test_without_markers_a_capture_is_read_from_the_frames_centre() -> None:
    """No markers (or a reader with no at_nadir): the frames are read as they are, and no tilt is claimed."""
    bare = compose_seated(SEED, SEATS, *SIZE, markers=False, lens="standard")
    plain = NadirReader()
    tilted = TiltedReader(plain)
    tilted.read(bare.image)
    tilted.read(bare.image)
    assert tilted.tilt is None and plain.made == [] and plain.reads == 2
    oracle = OracleReader([bare])
    seated = compose_seated(2, {1: [1, 2], 2: [6], 3: [2, 2], 4: [3]}, *SIZE)
    fake = TiltedReader(oracle)
    fake.read(seated.image)
    assert fake.tilt is not None and oracle.read_indices == [0]  # measured, and read by the fake as it is


def test_a_frame_that_is_no_image_is_refused_before_any_marker_is_looked_for() -> None:
    """A bad frame gives the reader's clear error, and nothing is measured."""
    plain = NadirReader()
    tilted = TiltedReader(plain)
    bad_frames = [
        (np.zeros((8, 8, 3), np.uint8), r"muy chica \(8x8\)"),
        (np.zeros((64, 64), np.uint8), "escala de grises"),
        ("no es una imagen", "se esperaba un arreglo de píxeles"),
    ]
    for bad, reason in bad_frames:
        with pytest.raises(FrameError, match=reason):
            tilted.read(bad)  # type: ignore[arg-type]
    assert tilted.tilt is None and plain.made == [] and plain.reads == 0


def test_seats_by_zones_drawn_by_hand_without_markers() -> None:
    bare = compose_seated(SEED, SEATS, *SIZE, markers=False, lens="standard")
    assert find_markers(bare.image) == ([], [])
    config = parse_table_config(TableConfig(zones=bare.zones, table=bare.table, players=PLAYERS).to_dict())
    result = read_table(bare.image, bare.reading(), config, EXPECTED)
    assert result.seating.mode == "zones" and result.seating.region_source == "config"
    assert result.ok and faces(result) == WANTED


# ------------------------------------------------------------------ every mismatch


def test_too_many_and_too_few(still: SeatedScene) -> None:
    result = read_table(still.image, still.reading(), CONFIG, {**EXPECTED, "Ana": 4, "Beto": 1})
    assert kinds(result, 1) == ["too_few"] and "falta 1 dado: 3 de 4" in seat(result, 1).problems[0].message
    assert kinds(result, 2) == ["too_many"] and "sobra 1 dado: 2 de 1" in seat(result, 2).problems[0].message
    assert seat(result, 3).ok and seat(result, 4).ok and not result.ok
    assert "Asiento 1 (Ana): " in "\n".join(result.lines()) and result.lines()[-1] == "Resultado: NO se puede arbitrar"


def test_an_uncertain_die_is_not_ruled_even_when_the_count_matches(still: SeatedScene) -> None:
    doubtful = next(i for i, d in enumerate(still.dice) if d.seat == 3)
    result = read_table(still.image, still.reading(uncertain={doubtful}), CONFIG, EXPECTED)
    assert kinds(result, 3) == ["uncertain"] and seat(result, 3).matches is True and not result.ok
    assert [p.die.reasons for p in seat(result, 3).uncertain] == [("cara dudosa",)]
    assert all(seat(result, n).ok for n in (1, 2, 4))


def test_a_die_off_the_table_is_reported_not_counted() -> None:
    scene = compose_seated(SEED, SEATS, *SIZE, lens="standard", strays=[Stray(6, 0.03, 0.05)])
    for config in (CONFIG, TableConfig(zones=scene.zones, table=scene.table, players=PLAYERS)):
        result = read_table(scene.image, scene.reading(), config, EXPECTED)
        [outside] = [p for s in result.seats for p in s.dice if p.where == "fuera"]
        assert outside.die.face == 6 and outside.seat is not None
        assert kinds(result, outside.seat) == ["outside"] and seat(result, outside.seat).found == len(
            SEATS[outside.seat]
        )
        assert "fuera de la mesa" in "\n".join(result.lines()) and not result.ok


def test_a_die_cut_by_the_frames_edge_is_reported() -> None:
    scene = compose_seated(SEED, SEATS, *SIZE, lens="standard", strays=[Stray(2, 0.0, 0.52)])
    assert scene.dice[-1].cut
    result = read_table(scene.image, scene.reading(), CONFIG, {**EXPECTED, "Beto": 3})  # seat 2 sits left
    [cut] = [p for s in result.seats for p in s.dice if p.where == "borde"]
    assert cut.seat == 2 and cut.counts and cut.die.face == 2
    assert kinds(result, 2) == ["cut", "uncertain"] and seat(result, 2).matches is True
    assert "cortado por el borde de la imagen" in "\n".join(result.lines()) and not result.ok


def test_a_marker_hidden_by_a_cup() -> None:
    scene = compose_seated(SEED, SEATS, *SIZE, lens="standard", cup_on_marker={4})
    assert [m.seat for m in scene.markers if m.hidden] == [4]
    result = read_table(scene.image, scene.reading(), CONFIG, EXPECTED)
    assert result.seating.missing == (4,) and "no_marker" in kinds(result, 4)
    assert "¿tapado por un cubilete?" in seat(result, 4).problems[0].message and not result.ok


def test_a_marker_and_dice_hidden_by_a_hand(reveal: list[SeatedScene]) -> None:
    frame = reveal[0]  # the hand at full reach, over seat 3
    assert frame.hand is not None and frame.hand.seat == 3
    hidden = [m.seat for m in frame.markers if m.hidden]
    assert hidden == [3]
    result = read_table(frame.image, OracleReader(reveal).read(frame.image), CONFIG, EXPECTED)
    assert result.seating.missing == (3,)
    covered = [p for s in result.seats for p in s.dice if "tapado por una mano" in p.die.reasons]
    assert covered and len(covered) == sum(d.occluded for d in frame.dice)
    assert "no_marker" in kinds(result, 3) and not result.ok


def test_a_player_with_no_seat(still: SeatedScene) -> None:
    result = read_table(still.image, still.reading(), CONFIG, {**EXPECTED, "Eva": 2})
    assert [p.kind for p in result.problems] == ["no_player"] and "Eva no tiene asiento" in result.problems[0].message
    assert all(s.ok for s in result.seats) and not result.ok


def test_dice_with_no_seats_at_all() -> None:
    bare = compose_seated(SEED, SEATS, *SIZE, markers=False, lens="standard")
    result = read_table(bare.image, bare.reading(), None, None)
    assert result.seating.mode == "none" and [p.kind for p in result.problems] == ["no_seats"]
    assert len(result.stray) == sum(len(f) for f in SEATS.values()) and not result.ok
    assert "Dado sin asiento" in "\n".join(result.lines())


# ------------------------------------------------------------------ the camera failing


def test_a_replay_that_ends_is_a_camera_error_and_a_retry_can_go_on(
    reveal: list[SeatedScene], reveal_dir: Path, tmp_path: Path
) -> None:
    short = copy_frames(reveal_dir, tmp_path / "corta", range(FIRST_STILL + 2))  # still for 0.2 s, then over
    t = FakeTime()
    settings = StillSettings(still_s=0.5, poll_s=0.05, frames=3, frame_gap_s=0.1)
    camera = open_camera(f"replay:{short}", fps=FPS, clock=t.clock)
    with pytest.raises(CameraError, match=r"la reproducción de .*corta terminó \(8 imágenes\)"):
        capture_still(camera, OracleReader(reveal), settings, t.clock, t.sleep)
    camera.close()
    for index in range(FIRST_STILL + 2, FRAMES):  # more frames arrive; the caller opens the camera again
        shutil.copy(reveal_dir / f"{index:03d}.jpg", short / f"{index:03d}.jpg")
    t.now = 100.0
    with camera:
        capture = capture_still(camera, OracleReader(reveal), settings, t.clock, t.sleep)
    assert capture.reading is not None and capture.agreeing_frames == 3
    assert capture.wait.still and FIRST_STILL / FPS + 0.5 <= capture.wait.waited_s <= FIRST_STILL / FPS + 0.56


def test_frames_that_vanish_mid_play_are_a_camera_error(reveal_dir: Path, tmp_path: Path) -> None:
    folder = copy_frames(reveal_dir, tmp_path / "se_va", range(FRAMES))
    t = FakeTime()
    camera = open_camera(f"replay:{folder}", fps=FPS, clock=t.clock)
    camera.start()
    assert camera.capture().shape == (SIZE[1], SIZE[0], 3)
    shutil.rmtree(folder)  # the card is pulled, the share unmounted
    t.now = 0.3
    with pytest.raises(CameraError, match=r"003\.jpg de la reproducción ya no existe"):
        camera.preview()
    with pytest.raises(CameraError, match="ya no existe"):
        capture_still(camera, OracleReader([]), StillSettings(), t.clock, t.sleep)
    camera.close()
    with pytest.raises(CameraError, match="no existe"):  # and a missing path on the retry
        camera.start()
    folder.mkdir()
    with pytest.raises(CameraError, match="no hay imágenes"):
        camera.start()


def test_a_frame_cut_short_mid_play_is_a_camera_error(reveal_dir: Path, tmp_path: Path) -> None:
    folder = copy_frames(reveal_dir, tmp_path / "truncada", range(4))
    t = FakeTime()
    with open_camera(f"replay:{folder}", fps=FPS, clock=t.clock) as camera:
        camera.preview()
        (folder / "001.jpg").write_bytes(b"")  # being rewritten when it is read
        t.now = 0.1
        with pytest.raises(CameraError, match=r"no se pudo leer la imagen .*001\.jpg"):
            camera.capture()


def test_an_opencv_camera_that_does_not_exist() -> None:
    """The real VideoCapture (test_cameras fakes it): a device number with nothing behind it."""
    camera = open_camera("opencv:63")
    with pytest.raises(CameraError, match="no se pudo abrir la cámara 63: no está conectada o la usa otro programa"):
        camera.start()
    camera.close()  # never opened: closing is harmless
    with pytest.raises(CameraError, match="cámara 63"), camera:
        pass


def test_nothing_on_a_seat_marker_is_read_as_a_die() -> None:
    """A finder that takes every marker (and a box on its white border) for a die: through TiltedReader only the
    real dice are read, whatever the tilt; a reader that cannot ignore regions (a test's fake) reads as it is."""
    scene = compose_seated(2, {1: [1, 2], 2: [6], 3: [2, 2], 4: [3]}, *SIZE)
    markers, _ = find_markers(scene.image)
    assert len(markers) >= 3
    dice = [Box(*d.box) for d in scene.dice]
    fakes = []
    for m in markers:
        (cx, cy), half = m.center, m.side_px / 4
        fakes.append(Box(cx - half, cy - half, cx + half, cy + half))
        rim = cx + m.side_px * 0.6  # on the white border, just past the black square's edge
        fakes.append(Box(rim - half, cy - half, rim + half, cy + half))
    finder = FakeFinder([Detection(b, 0.9) for b in (*dice, *fakes)])
    reader = DiceReader(finder, FakeFaces(), ReaderSettings(max_die_share=None, size_spread=None))
    assert len(reader.read(scene.image).dice) == len(dice) + len(fakes)
    read = TiltedReader(reader, hfov_deg=scene.meta["camera"]["hfov_deg"]).read(scene.image)
    assert {d.box for d in read.dice} == set(dice)
    for region, marker in zip(marker_regions(markers), markers, strict=True):
        assert cv2.contourArea(np.array(region, np.float32)) == pytest.approx(1.4**2 * marker.side_px**2, rel=0.05)
