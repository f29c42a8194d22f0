"""Capture when still: frame differencing on a drawn sequence (a hand leaves, the dice settle), the timeout,
and the vote across frames.

The sequences are drawn with OpenCV (tests/hardware/drawn.py); a rendered reveal (vision/synth/scene.py, with
cups, a hand and its shadow, dice rolling to rest) goes through the same detector in
tests/hardware/test_rendered_table.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.replay import ReplayCamera
from tests.hardware.drawn import DrawnDiceReader, DrawnDie, add_noise, draw_hand, four_seat_table
from vision.still import StillSettings, StillWait, capture_still, changed_share, motion_image, vote, wait_until_still
from vision.types import Box, DieReading, Frame, FrameReading

FPS = 10.0
DICE = [DrawnDie((600, 640), 3), DrawnDie((660, 650), 5), DrawnDie((180, 400), 6), DrawnDie((640, 160), 2)]


class FakeTime:
    """The clock and the sleep of the still detector, and the replay camera's clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def hand_leaves_dice_settle(folder: Path, moving: int = 10, still: int = 15) -> Path:
    """`moving` frames of a hand sweeping across and out while one die still rolls, then `still` frames.

    Drawn at 1280 x 800 and stored at half that (with fresh sensor noise on each) to keep the tests fast.
    """
    folder.mkdir(exist_ok=True)
    for index in range(moving + still):
        dice = list(DICE)
        if index < moving:  # the last die rolls to its place
            dice[1] = DrawnDie((660 + 6 * (moving - index), 650 - 3 * (moving - index)), 1 + index % 6)
        frame = four_seat_table(dice).draw()
        if index < moving:
            draw_hand(frame, (300 + 110 * index, 500 - 30 * index), 70)
        small = np.asarray(cv2.resize(frame, (640, 400), interpolation=cv2.INTER_AREA), np.uint8)
        cv2.imwrite(str(folder / f"{index:03d}.bmp"), add_noise(small, 3.0, seed=index))
    return folder


@pytest.fixture(scope="module")
def settling(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand leaves, the dice settle: the last change is at frame 10 (t = 1.0 s at 10 fps)."""
    return hand_leaves_dice_settle(tmp_path_factory.mktemp("settling"), moving=10, still=15)


@pytest.fixture(scope="module")
def restless(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hand that never leaves (played in a loop)."""
    return hand_leaves_dice_settle(tmp_path_factory.mktemp("restless"), moving=10, still=0)


def test_noise_is_not_movement_but_a_hand_is() -> None:
    clean = four_seat_table(DICE).draw()
    width, threshold = StillSettings().motion_width, StillSettings().pixel_threshold
    a = motion_image(add_noise(clean, 3.0, seed=1), width)
    b = motion_image(add_noise(clean, 3.0, seed=2), width)
    assert changed_share(a, b, threshold) == 0.0
    with_hand = add_noise(clean, 3.0, seed=3)
    draw_hand(with_hand, (500, 400), 70)
    assert changed_share(a, motion_image(with_hand, width), threshold) > 0.02
    assert changed_share(a, motion_image(with_hand[:, :600], width), threshold) == 1.0  # a different size: moved


def test_waits_until_the_hand_has_left_and_the_dice_settled(settling: Path) -> None:
    t = FakeTime()
    settings = StillSettings(still_s=0.5, poll_s=0.05, timeout_s=10)
    with ReplayCamera(settling, fps=FPS, clock=t.clock) as camera:
        waited = wait_until_still(camera, settings, t.clock, t.sleep)
    assert waited.still
    assert 1.5 <= waited.waited_s <= 1.5 + 0.11
    assert waited.previews > 20


def test_capture_still_reads_several_frames_and_they_agree(settling: Path) -> None:
    t = FakeTime()
    reader = DrawnDiceReader(min_side=10, max_side=40)  # half-size frames: dice of 20 px
    settings = StillSettings(still_s=0.5, poll_s=0.05, frames=3, frame_gap_s=0.1)
    with ReplayCamera(settling, fps=FPS, clock=t.clock) as camera:
        capture = capture_still(camera, reader, settings, t.clock, t.sleep)
    assert reader.frames_read == 3
    assert capture.reading is not None and capture.frame is not None
    assert sorted(d.face for d in capture.reading.dice) == [2, 3, 5, 6]
    assert not capture.reading.uncertain
    assert (capture.frames_read, capture.agreeing_frames, capture.disagreeing) == (3, 3, ())
    assert "3 de 3 imágenes coinciden" in capture.message
    assert capture.to_dict()["still"] is True


def test_a_table_that_never_goes_still_times_out(restless: Path) -> None:
    t = FakeTime()
    reader = DrawnDiceReader()
    settings = StillSettings(still_s=0.5, timeout_s=3.0)
    with ReplayCamera(restless, fps=FPS, loop=True, clock=t.clock) as camera:
        capture = capture_still(camera, reader, settings, t.clock, t.sleep)
    assert capture.timed_out and capture.reading is None and reader.frames_read == 0
    assert 3.0 <= capture.wait.waited_s < 3.1
    assert "nunca quedó quieta" in capture.message
    assert capture.to_dict()["still"] is False


def test_a_slow_hand_creeping_in_is_movement() -> None:
    """Each frame differs little from the one before, but the sum of them does: compared with the spell's start."""
    clean = four_seat_table(DICE).draw()
    frames = []
    for step in range(40):
        frame = clean.copy()
        draw_hand(frame, (1300 - 8 * step, 300), 70)  # 8 px a frame at 640 px: under 2 px in the motion image
        frames.append(frame)

    class Creeping:
        def __init__(self) -> None:
            self.index = 0

        def preview(self) -> Frame:
            frame = frames[min(self.index, len(frames) - 1)]
            self.index += 1
            return frame

        def capture(self) -> Frame:
            raise AssertionError("not still yet")

    t = FakeTime()
    waited = wait_until_still(Creeping(), StillSettings(still_s=1.0, poll_s=0.1, timeout_s=3.0), t.clock, t.sleep)
    assert not waited.still


@pytest.mark.parametrize("field", ["frames", "timeout_s", "changed_fraction", "pixel_threshold"])
def test_settings_out_of_range_are_refused(field: str) -> None:
    bad = {"frames": 0, "timeout_s": 0.0, "changed_fraction": 1.5, "pixel_threshold": 0}
    with pytest.raises(ValueError, match=field):
        StillSettings(**{field: bad[field]})  # type: ignore[arg-type]


# ------------------------------------------------------------------ the vote


def die(face: int, x: float, y: float, uncertain: bool = False, reasons: Sequence[str] = ()) -> DieReading:
    return DieReading(face, 0.6 if uncertain else 0.95, Box(x, y, x + 40, y + 40), uncertain, tuple(reasons))


def frame_reading(*dice: DieReading) -> FrameReading:
    return FrameReading(1280, 800, tuple(dice))


WAITED = StillWait(still=True, waited_s=1.2, previews=30)


def test_vote_with_a_die_that_disagrees() -> None:
    readings = [
        frame_reading(die(3, 100, 100), die(5, 300, 100)),
        frame_reading(die(6, 302, 101), die(3, 101, 99)),  # other order, a pixel of jitter, a 6 for the 5
        frame_reading(die(3, 99, 100), die(5, 301, 100)),
    ]
    capture = vote(readings, StillSettings(), WAITED)
    assert capture.reading is not None
    by_x = sorted(capture.reading.dice, key=lambda d: d.box.x1)
    assert [d.face for d in by_x] == [3, 5]  # the majority
    assert not by_x[0].uncertain
    assert by_x[1].uncertain and "no coinciden en la cara (5, 6, 5)" in by_x[1].reasons[0]
    assert capture.agreeing_frames == 2 and capture.frames_read == 3
    assert [v.die.box.x1 for v in capture.disagreeing] == [pytest.approx(301)]
    assert capture.disagreeing[0].faces == (5, 6, 5) and not capture.disagreeing[0].agreed
    assert "2 de 3 imágenes coinciden; 1 dado no coincide" in capture.message
    assert len(capture.to_dict()["disagreeing_dice"]) == 1  # type: ignore[arg-type]


def test_vote_with_a_die_seen_on_some_frames_only() -> None:
    readings = [
        frame_reading(die(3, 100, 100), die(4, 500, 500)),
        frame_reading(die(3, 100, 100)),
        frame_reading(die(3, 100, 100), die(4, 501, 500)),
    ]
    capture = vote(readings, StillSettings(), WAITED)
    assert capture.reading is not None
    flickering = next(d for d in capture.reading.dice if d.face == 4)
    assert flickering.uncertain and "visto en 2 de 3 imágenes" in flickering.reasons
    assert capture.agreeing_frames == 2


def test_vote_keeps_any_frame_doubt_and_ties_go_to_confidence() -> None:
    readings = [
        frame_reading(die(2, 100, 100, uncertain=True, reasons=["borroso"])),
        frame_reading(die(2, 100, 100)),
        frame_reading(die(2, 100, 100)),
    ]
    doubtful = vote(readings, StillSettings(), WAITED).reading
    assert doubtful is not None and doubtful.dice[0].uncertain and "borroso" in doubtful.dice[0].reasons
    tie = [frame_reading(die(2, 100, 100, uncertain=True)), frame_reading(die(5, 100, 100))]
    voted = vote(tie, StillSettings(), WAITED).reading
    assert voted is not None and voted.dice[0].face == 5 and voted.dice[0].uncertain


def test_vote_matches_by_centre_when_boxes_shrink() -> None:
    small = DieReading(4, 0.9, Box(110, 110, 125, 125), False)  # IoU with the big box under the threshold
    readings = [frame_reading(die(4, 100, 100)), frame_reading(small)]
    capture = vote(readings, StillSettings(), WAITED)
    assert capture.reading is not None and len(capture.reading.dice) == 1
    assert not capture.reading.dice[0].uncertain


def test_vote_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="no hay lecturas"):
        vote([], StillSettings(), WAITED)


def test_single_frame_vote_is_that_frame() -> None:
    capture = vote([frame_reading(die(1, 10, 10))], StillSettings(frames=1), WAITED)
    assert capture.reading is not None and capture.reading.dice[0].face == 1
    assert capture.agreeing_frames == 1 and not capture.disagreeing


def test_empty_table_votes_to_no_dice() -> None:
    capture = vote([frame_reading(), frame_reading()], StillSettings(), WAITED)
    assert capture.reading is not None and capture.reading.dice == () and capture.agreeing_frames == 2
    assert np.isclose(capture.wait.waited_s, 1.2)


# ------------------------------------------------------------------ a table already still, and reads that agree


class Frames:
    """A camera showing given frames one after another (the last one stays); it counts the previews."""

    def __init__(self, frames: Sequence[Frame]) -> None:
        self.frames = list(frames)
        self.previews = 0

    def preview(self) -> Frame:
        frame = self.frames[min(self.previews, len(self.frames) - 1)]
        self.previews += 1
        return frame

    def capture(self) -> Frame:
        return self.frames[-1]


class Readings:
    """A reader giving these readings one frame after another."""

    def __init__(self, *readings: FrameReading) -> None:
        self.readings = list(readings)
        self.frames_read = 0

    def read(self, frame: Frame) -> FrameReading:
        self.frames_read += 1
        return self.readings[min(self.frames_read, len(self.readings)) - 1]


def test_a_table_still_before_the_wait_is_still_at_the_first_preview() -> None:
    t = FakeTime()
    t.now = 10.0
    table = four_seat_table(DICE).draw()
    recent = [(9.0, add_noise(table, 3.0, seed=1)), (9.5, add_noise(table, 3.0, seed=2))]
    waited = wait_until_still(Frames([table]), StillSettings(still_s=0.8), t.clock, t.sleep, recent)
    assert (waited.still, waited.previews, waited.waited_s) == (True, 1, 0.0)


def test_the_spell_goes_back_only_as_far_as_the_recent_frames_agree() -> None:
    t = FakeTime()
    t.now = 10.0
    table = four_seat_table(DICE).draw()
    with_hand = table.copy()
    draw_hand(with_hand, (500, 400), 70)
    recent = [(9.0, table), (9.5, with_hand), (9.75, table)]  # the hand was there half a second ago
    settings = StillSettings(still_s=0.75, poll_s=0.25)
    waited = wait_until_still(Frames([table]), settings, t.clock, t.sleep, recent)
    assert waited.still and waited.previews == 3
    assert waited.waited_s == 0.5  # still since 9.75: 0.75 s of agreeing frames, not a fixed count


def test_without_recent_frames_the_stillness_is_watched_from_now() -> None:
    t = FakeTime()
    table = four_seat_table(DICE).draw()
    waited = wait_until_still(Frames([table]), StillSettings(still_s=0.75, poll_s=0.25), t.clock, t.sleep)
    assert waited.still and waited.waited_s == 0.75


def test_reading_stops_once_two_frames_agree_and_goes_on_when_they_do_not() -> None:
    table = four_seat_table(DICE).draw()
    settings = StillSettings(still_s=0.0, frames=3, agree_frames=2, frame_gap_s=0.1)
    same = frame_reading(die(3, 100, 100), die(5, 300, 100))
    reader = Readings(same, same, same)
    t = FakeTime()
    capture = capture_still(Frames([table]), reader, settings, t.clock, t.sleep)
    assert reader.frames_read == 2 and (capture.frames_read, capture.agreeing_frames) == (2, 2)
    other = frame_reading(die(3, 100, 100), die(6, 300, 100))
    reader = Readings(same, other, same)
    capture = capture_still(Frames([table]), reader, settings, t.clock, t.sleep)
    assert reader.frames_read == 3 and capture.disagreeing and "2 de 3 imágenes coinciden" in capture.message
    reader = Readings(same, same, same)
    capture = capture_still(Frames([table]), reader, StillSettings(still_s=0.0, frames=3), t.clock, t.sleep)
    assert reader.frames_read == 3  # agree_frames=0: every frame is read, as before


def test_the_gap_between_captures_counts_the_read() -> None:
    class SlowReader(Readings):
        def read(self, frame: Frame) -> FrameReading:
            t.sleep(0.3)
            return super().read(frame)

    t = FakeTime()
    same = frame_reading(die(3, 100, 100))
    settings = StillSettings(still_s=0.0, frames=2, frame_gap_s=0.1)
    capture = capture_still(Frames([four_seat_table(DICE).draw()]), SlowReader(same, same), settings, t.clock, t.sleep)
    assert t.now == pytest.approx(0.6)  # two reads of 0.3 s, no pause on top
    assert capture.read_s == pytest.approx(0.6) and capture.to_dict()["read_s"] == 0.6


@pytest.mark.parametrize("agree", [1, 4])
def test_agree_frames_is_two_up_to_frames(agree: int) -> None:
    with pytest.raises(ValueError, match="agree_frames"):
        StillSettings(frames=3, agree_frames=agree)
