"""The seated-table generator (vision/synth/scene.py): determinism, labels, faces, markers the detector finds,
cups and hands that hide markers and dice, reveal sequences, and the files `replay:` plays."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import downscale
from hardware.replay import ReplayCamera
from vision.seats import find_markers
from vision.still import StillSettings, changed_share, motion_image
from vision.synth.scene import (
    SeatedScene,
    Stray,
    compose_seated,
    render_reveal,
    scene_sequence,
    write_sequence,
)

SIZE = (1152, 648)  # half the kiosk's 2304 x 1296: the same geometry, a quarter of the pixels
SEATS = {1: [3, 5, 1], 2: [6, 6], 3: [2, 4, 4, 1, 5], 4: [1]}
FULL = {1: [1, 2, 3, 4, 5], 2: [6, 6, 6, 6, 6], 3: [2, 2], 4: [3], 5: [4, 4, 4], 6: []}


@pytest.fixture(scope="module")
def tables() -> list[SeatedScene]:
    """Tables of four and six seats over several seeds (both lenses, every light)."""
    return [compose_seated(seed, SEATS if seed % 2 else FULL, *SIZE) for seed in range(8)]


def test_same_seed_same_scene(tables: list[SeatedScene]) -> None:
    again = compose_seated(0, FULL, *SIZE)
    assert np.array_equal(again.image, tables[0].image)
    assert again.dice == tables[0].dice and again.markers == tables[0].markers and again.cups == tables[0].cups
    other = compose_seated(2, FULL, *SIZE)
    assert other.dice != again.dice and not np.array_equal(other.image, again.image)


def test_the_layout_does_not_depend_on_the_hand_the_markers_or_the_frame() -> None:
    still = compose_seated(3, SEATS, *SIZE)
    with_hand = compose_seated(3, SEATS, *SIZE, hand=0.9)
    bare = compose_seated(3, SEATS, *SIZE, markers=False)
    later = compose_seated(3, SEATS, *SIZE, frame=7)
    assert [d.box for d in with_hand.dice] == [d.box for d in still.dice] == [d.box for d in bare.dice]
    assert [m.corners for m in with_hand.markers] == [m.corners for m in still.markers]
    assert bare.markers == () and bare.zones == still.zones
    assert later.dice == still.dice and not np.array_equal(later.image, still.image)  # fresh sensor noise only
    assert np.abs(later.image.astype(int) - still.image.astype(int)).mean() < 8
    assert changed_share(motion(later.image), motion(still.image), StillSettings().pixel_threshold) == 0.0
    assert np.array_equal(compose_seated(3, SEATS, *SIZE, hand=0.0).image, still.image)  # reach 0: out of sight


def test_labels_inside_the_frame_with_the_faces_asked_for(tables: list[SeatedScene]) -> None:
    w, h = SIZE
    for scene in tables:
        assert scene.image.shape == (h, w, 3) and scene.image.dtype == np.uint8
        wanted = SEATS if scene.seed % 2 else FULL
        assert {seat: scene.faces(seat) for seat in wanted} == {s: tuple(sorted(f)) for s, f in wanted.items()}
        assert len(scene.dice) == sum(len(f) for f in wanted.values())
        die_px = scene.meta["camera"]["die_px_at_centre"]  # the camera model's die size on this frame
        for die in scene.dice:
            x1, y1, x2, y2 = die.box
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            assert not die.cut and not die.occluded
            assert 0.7 * die_px < max(x2 - x1, y2 - y1) < 2.5 * die_px
        for seat, box in scene.cups:
            assert seat in wanted and 0 <= box[0] < box[2] <= w and 0 <= box[1] < box[3] <= h
        assert [m.seat for m in scene.markers] == sorted(wanted)


def test_dice_sit_in_front_of_their_marker_inside_their_zone(tables: list[SeatedScene]) -> None:
    w, h = SIZE
    for scene in tables:
        centres = {m.seat: m.center for m in scene.markers}
        table = (np.array(scene.table) * [w, h]).astype(np.float32)
        for die in scene.dice:
            centre = ((die.box[0] + die.box[2]) / 2, (die.box[1] + die.box[3]) / 2)
            assert die.seat is not None
            nearest = min(centres, key=lambda seat: math.dist(centres[seat], centre))
            assert nearest == die.seat
            zone = (np.array(scene.zones[die.seat]) * [w, h]).astype(np.float32)
            assert cv2.pointPolygonTest(zone.reshape(-1, 1, 2), centre, False) >= 0
            assert cv2.pointPolygonTest(table.reshape(-1, 1, 2), centre, False) > 0


def test_markers_are_found_where_the_labels_say(tables: list[SeatedScene]) -> None:
    for scene in tables:
        found, repeated = find_markers(scene.image)
        assert [m.seat for m in found] == [m.seat for m in scene.markers] and repeated == []
        for marker, label in zip(found, scene.markers, strict=True):
            # The detector's corners are pixel centres (half a pixel off the labels'), a little inside the ink, and
            # whole pixels on a small marker: the centre is exact, the corners within a few pixels.
            assert math.dist(marker.center, label.center) < 1.5
            worst = max(math.dist(a, b) for a, b in zip(marker.corners, label.corners, strict=True))
            assert worst < max(2.5, 0.16 * marker.side_px)


def test_a_cup_set_on_a_marker_hides_it() -> None:
    scene = compose_seated(5, SEATS, *SIZE, cup_on_marker={2})
    assert [(m.seat, m.hidden) for m in scene.markers] == [(1, False), (2, True), (3, False), (4, False)]
    assert [m.seat for m in find_markers(scene.image)[0]] == [1, 3, 4]
    assert [d.box for d in scene.dice] == [d.box for d in compose_seated(5, SEATS, *SIZE).dice]


def test_a_hand_covers_its_seats_dice_and_marker() -> None:
    scene = compose_seated(0, SEATS, *SIZE, hand=1.0, hand_seat=1, lens="standard")
    assert scene.hand is not None and scene.hand.seat == 1 and scene.hand.box is not None
    x1, y1, x2, y2 = scene.hand.box
    assert y2 == SIZE[1]  # it comes in from the bottom edge, where seat 1 sits
    occluded = [d for d in scene.dice if d.occluded]
    assert occluded and {d.seat for d in occluded} == {1}
    hidden = [m.seat for m in scene.markers if m.hidden]
    assert hidden == [1]
    assert [m.seat for m in find_markers(scene.image)[0]] == [2, 3, 4]
    # Where the hand is, the frame is not the hand-less table's.
    bare = compose_seated(0, SEATS, *SIZE, lens="standard")
    region = (slice(int(y1), int(y2)), slice(int(x1), int(x2)))
    assert np.abs(scene.image[region].astype(int) - bare.image[region].astype(int)).mean() > 10
    reading = scene.reading()
    assert sum(d.uncertain for d in reading.dice) == len(occluded)
    assert all("tapado por una mano" in d.reasons for d in reading.dice if d.uncertain)


def test_strays_can_be_cut_by_the_frame_or_lie_off_the_table() -> None:
    scene = compose_seated(1, SEATS, *SIZE, strays=[Stray(2, 0.0, 0.5), Stray(6, 0.04, 0.06)])
    cut, corner = scene.dice[-2:]
    assert (cut.seat, cut.face, cut.cut, cut.box[0]) == (None, 2, True, 0.0)
    assert (corner.seat, corner.face, corner.cut) == (None, 6, False)
    w, h = SIZE
    table = (np.array(scene.table) * [w, h]).astype(np.float32).reshape(-1, 1, 2)
    centre = ((corner.box[0] + corner.box[2]) / 2, (corner.box[1] + corner.box[3]) / 2)
    assert cv2.pointPolygonTest(table, centre, False) < 0
    reasons = {d.face: d.reasons for d in scene.reading().dice if d.uncertain}
    assert reasons == {2: ("cortado por el borde de la imagen",)}


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"seats": {k: [1] for k in range(1, 8)}}, "como mucho 6 asientos"),
        ({"seats": {1: [1] * 6}}, "como mucho 5"),
        ({"seats": {1: [7]}}, "fuera de 1-6"),
        ({"seats": {0: [1]}}, "de 1 a 49"),
        ({"seats": {1: [1]}, "hand": 1.5}, "entre 0 y 1"),
        ({"seats": {1: [1]}, "hand": 0.5, "hand_seat": 3}, "asiento 3"),
        ({"seats": {1: [1]}, "lens": "fisheye"}, "lente"),
        ({"seats": {1: [1]}, "strays": [Stray(0, 0.5, 0.5)]}, "fuera de 1-6"),
    ],
)
def test_impossible_tables_are_refused(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        compose_seated(1, width=320, height=180, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------ sequences


def motion(image: np.ndarray) -> np.ndarray:
    """The frame as the still detector sees it: through JPEG, the preview's downscale, grey, blurred."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return motion_image(downscale(cv2.imdecode(data, cv2.IMREAD_COLOR)), StillSettings().motion_width)


@pytest.fixture(scope="module")
def reveal() -> list[SeatedScene]:
    return scene_sequence(0, SEATS, 10, *SIZE, lens="standard", hand_frames=4, settle_frames=2)


def test_a_reveal_moves_until_the_dice_settle_then_is_still(reveal: list[SeatedScene]) -> None:
    settings = StillSettings()
    assert [f.hand is not None for f in reveal] == [True] * 4 + [False] * 6
    assert [f.hand.reach for f in reveal[:4] if f.hand] == [1.0, 0.75, 0.5, 0.25]
    assert any(d.occluded for d in reveal[0].dice) and not any(d.occluded for d in reveal[4].dice)
    final = motion(reveal[-1].image)
    for frame in reveal[:6]:  # the hand, then the settling dice: movement by the detector's own test
        assert changed_share(motion(frame.image), final, settings.pixel_threshold) > settings.changed_fraction
    moved = [i for i, (a, b) in enumerate(zip(reveal[5].dice, reveal[-1].dice, strict=True)) if a.box != b.box]
    assert 1 <= len(moved) <= 2
    assert all(reveal[5].dice[i].face == reveal[-1].dice[i].face for i in moved)
    for frame in reveal[6:]:  # still: the same table and labels, fresh noise on each frame
        assert frame.dice == reveal[-1].dice
        assert changed_share(motion(frame.image), final, settings.pixel_threshold) == 0.0
    assert not np.array_equal(reveal[6].image, reveal[7].image)
    again = compose_seated(0, SEATS, *SIZE, lens="standard", frame=9)
    assert np.array_equal(again.image, reveal[-1].image) and again.dice == reveal[-1].dice


def test_written_sequences_play_through_replay(reveal: list[SeatedScene], tmp_path: Path) -> None:
    (tmp_path / "099.jpg").write_bytes(b"un cuadro viejo")  # a stale frame of an earlier sequence
    (tmp_path / "notas.txt").write_text("no se toca")
    paths = write_sequence(reveal, tmp_path)
    assert [p.name for p in paths] == [f"{i:03d}.jpg" for i in range(10)]
    assert not (tmp_path / "099.jpg").exists() and (tmp_path / "notas.txt").exists()
    labels = json.loads((tmp_path / "scene.json").read_text())
    assert labels["seats"] == {str(k): v for k, v in SEATS.items()} and len(labels["dice"]) == 11
    now = [0.0]
    with ReplayCamera(tmp_path, fps=10, clock=lambda: now[0]) as camera:
        now[0] = 0.95
        frame = camera.capture()
        assert frame.shape == (SIZE[1], SIZE[0], 3)
        assert np.abs(frame.astype(int) - reveal[9].image.astype(int)).mean() < 4


def test_render_reveal_for_the_kiosk(tmp_path: Path) -> None:
    paths = render_reveal(11, {1: [2, 2, 5], 2: [6], 3: [1, 3]}, tmp_path / "demo", frames=5)
    assert [p.name for p in paths] == ["000.jpg", "001.jpg", "002.jpg", "003.jpg", "004.jpg"]
    for path in paths:
        image = cv2.imread(str(path))
        assert image is not None and image.shape == (1296, 2304, 3)
        assert path.stat().st_size < 600_000
