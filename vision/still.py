"""Capture when still: wait until nothing moves on the low-resolution stream, then read several frames and vote."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.reasons import Reason, ReasonCode
from vision.types import Box, DieReading, Frame, FrameReading
from vision.words import count, number

if TYPE_CHECKING:
    from vision.seats import CameraTilt


class FrameSource(Protocol):
    """What the still detector needs of a camera (hardware.camera.Camera has it)."""

    def preview(self) -> Frame:
        """The latest low-resolution frame."""
        ...

    def capture(self) -> Frame:
        """A full-resolution frame."""
        ...


class FrameReader(Protocol):
    """What the still detector needs of the dice reader (vision.reader.DiceReader has it)."""

    def read(self, frame: Frame) -> FrameReading:
        """Every die on the frame."""
        ...


@dataclass(frozen=True, slots=True)
class StillSettings:
    """When the table counts as still, and how the reading is voted."""

    pixel_threshold: int = 18  # grey levels a pixel must change by to count as moved (noise stays under)
    changed_fraction: float = 0.001  # share of moved pixels above which the table is moving (a hand: far more)
    still_s: float = 0.8  # nothing moved for this long: hands and cups are out of the way
    timeout_s: float = 15.0  # give up: the table never went still
    poll_s: float = 0.05  # pause between preview frames
    motion_width: int = 320  # frames are compared at this width (blurred): cheap, and blind to sensor noise
    frames: int = 3  # full-resolution frames read and voted, at most
    agree_frames: int = 0  # stop reading once this many frames read agree die for die (0: read all `frames`)
    frame_gap_s: float = 0.1  # time between their captures, so that each is a new exposure
    match_iou: float = 0.3  # two boxes on different frames are the same die above this IoU...
    match_center: float = 0.5  # ...or with centres closer than this share of the die's side

    def __post_init__(self) -> None:
        checks = {
            "pixel_threshold": 0 < self.pixel_threshold < 256,
            "changed_fraction": 0 <= self.changed_fraction < 1,
            "still_s": self.still_s >= 0,
            "timeout_s": self.timeout_s > 0,
            "poll_s": self.poll_s >= 0,
            "motion_width": self.motion_width >= 16,
            "frames": self.frames >= 1,
            "agree_frames": self.agree_frames == 0 or 2 <= self.agree_frames <= self.frames,
            "frame_gap_s": self.frame_gap_s >= 0,
            "match_iou": 0 < self.match_iou <= 1,
            "match_center": self.match_center >= 0,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise ValueError(f"ajustes de quietud fuera de rango: {', '.join(bad)}")


@dataclass(frozen=True, slots=True)
class StillWait:
    """How the wait for stillness ended: still (and after how long), or timed out."""

    still: bool
    waited_s: float
    previews: int  # low-resolution frames looked at


@dataclass(frozen=True, slots=True)
class VotedDie:
    """One die across the frames read: the voted reading, how many frames saw it, and their faces."""

    die: DieReading
    seen: int  # frames that saw it
    frames: int  # frames read
    faces: tuple[int, ...]  # the face each of those frames read

    @property
    def agreed(self) -> bool:
        """Every frame saw it, with the same face."""
        return self.seen == self.frames and len(set(self.faces)) <= 1


@dataclass(frozen=True, slots=True)
class StillCapture:
    """The result of capturing when still: the voted reading (None when the table never went still)."""

    wait: StillWait
    reading: FrameReading | None
    frames_read: int = 0
    agreeing_frames: int = 0  # frames whose own reading is the voted one, die for die
    disagreeing: tuple[VotedDie, ...] = field(default=())
    frame: Frame | None = field(default=None, compare=False, repr=False)  # the last full frame read
    tilt: CameraTilt | None = None  # the camera's nadir the frames were read from (vision.seats.TiltedReader)
    capture_s: float = 0.0  # time spent taking the full frames (with the gaps between them)
    read_s: float = 0.0  # time spent reading them

    @property
    def timed_out(self) -> bool:
        """The table never went still."""
        return not self.wait.still

    @property
    def message(self) -> str:
        """A Spanish line on how the capture went."""
        if self.timed_out:
            return f"la mesa nunca quedó quieta en {number(self.wait.waited_s)} s: no se leyó nada"
        text = (
            f"esperó {number(self.wait.waited_s)} s a que la mesa quedara quieta; "
            f"{self.agreeing_frames} de {self.frames_read} imágenes coinciden"
        )
        if self.disagreeing:
            text += "; " + count(len(self.disagreeing), "dado no coincide", "dados no coinciden") + " entre imágenes"
        return text

    def to_dict(self) -> dict[str, object]:
        """JSON form (without the dice: those go per seat)."""
        return {
            "still": self.wait.still,
            "waited_s": round(self.wait.waited_s, 2),
            "frames_read": self.frames_read,
            "agreeing_frames": self.agreeing_frames,
            "disagreeing_dice": [
                {"box": v.die.box.to_list(), "faces": list(v.faces), "seen": v.seen} for v in self.disagreeing
            ],
            "message": self.message,
            "tilt": None if self.tilt is None else self.tilt.to_dict(),
            "capture_s": round(self.capture_s, 3),
            "read_s": round(self.read_s, 3),
        }


def motion_image(frame: Frame, width: int) -> npt.NDArray[np.uint8]:
    """The frame as the motion test sees it: grey, shrunk to `width`, blurred."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    height = max(1, round(grey.shape[0] * width / grey.shape[1]))
    small = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(small, (5, 5), 0), dtype=np.uint8)


def changed_share(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8], threshold: int) -> float:
    """The share of pixels that differ by more than `threshold` grey levels (1.0 when the sizes differ)."""
    if a.shape != b.shape:
        return 1.0
    return float(np.count_nonzero(cv2.absdiff(a, b) > threshold)) / a.size


def wait_until_still(
    source: FrameSource,
    settings: StillSettings | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    recent: Sequence[tuple[float, Frame]] = (),
) -> StillWait:
    """Watch the preview until it has not moved for `still_s`, or until `timeout_s`; it ends as soon as the frames
    agree over `still_s`, counting the `recent` previews (time on `clock`, oldest first) seen before the wait."""
    # Each frame is compared with the first frame of the current still spell (not just the previous one), so that a
    # slow hand creeping in counts as movement too.
    s = settings or StillSettings()
    start = clock()
    reference: npt.NDArray[np.uint8] | None = None
    still_since = start
    previews = 0
    while True:
        current = motion_image(source.preview(), s.motion_width)
        now = clock()
        previews += 1
        if reference is None:
            reference, still_since = current, now
            for seen_at, frame in reversed(recent):  # the spell goes back as far as the recent frames agree with it
                if changed_share(motion_image(frame, s.motion_width), current, s.pixel_threshold) > s.changed_fraction:
                    break
                still_since = min(still_since, seen_at)
            if now - still_since >= s.still_s:
                return StillWait(still=True, waited_s=now - start, previews=previews)
        elif changed_share(reference, current, s.pixel_threshold) > s.changed_fraction:
            reference, still_since = current, now
        elif now - still_since >= s.still_s:
            return StillWait(still=True, waited_s=now - start, previews=previews)
        if now - start >= s.timeout_s:
            return StillWait(still=False, waited_s=now - start, previews=previews)
        sleep(s.poll_s)


def capture_still(
    source: FrameSource,
    reader: FrameReader,
    settings: StillSettings | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    recent: Sequence[tuple[float, Frame]] = (),
) -> StillCapture:
    """Wait until the table is still, read up to `frames` full-resolution frames (fewer once `agree_frames` agree),
    and vote per die."""
    s = settings or StillSettings()
    waited = wait_until_still(source, s, clock, sleep, recent)
    if not waited.still:
        return StillCapture(wait=waited, reading=None)
    readings = []
    frame: Frame | None = None
    captured_at = 0.0
    capture_s = read_s = 0.0
    for index in range(s.frames):
        started = clock()
        if index:
            sleep(max(0.0, s.frame_gap_s - (started - captured_at)))  # the read itself is part of the gap
        frame = source.capture()
        captured_at = clock()
        readings.append(reader.read(frame))
        read_s += clock() - captured_at
        capture_s += captured_at - started
        if s.agree_frames and len(readings) >= s.agree_frames and not vote(readings, s, waited).disagreeing:
            break
    return replace(vote(readings, s, waited), frame=frame, capture_s=capture_s, read_s=read_s)


def same_die(a: Box, b: Box, settings: StillSettings) -> float:
    """How well two boxes match as the same die (0 when they do not): IoU, or closeness of centres."""
    iou = a.iou(b)
    if iou >= settings.match_iou:
        return iou
    side = max(1.0, min(a.width, a.height, b.width, b.height))
    distance = math.dist(a.center, b.center)
    if distance <= settings.match_center * side:
        return settings.match_iou * (1 - distance / (settings.match_center * side + 1e-9)) + 1e-6
    return 0.0


def match_tracks(readings: Sequence[FrameReading], settings: StillSettings) -> list[list[DieReading | None]]:
    """Group the dice of several readings into tracks, one die per frame at most (None: not seen there)."""
    tracks: list[list[DieReading | None]] = []
    anchors: list[Box] = []  # each track's box where it was first seen (the dice do not move: still)
    for index, reading in enumerate(readings):
        pairs = sorted(
            (
                (score, t, d)
                for t, anchor in enumerate(anchors)
                for d, die in enumerate(reading.dice)
                if (score := same_die(anchor, die.box, settings)) > 0
            ),
            reverse=True,
        )
        used_tracks: set[int] = set()
        used_dice: set[int] = set()
        for _, t, d in pairs:  # greedy, best match first: dice are far apart compared to their jitter
            if t in used_tracks or d in used_dice:
                continue
            tracks[t][index] = reading.dice[d]
            used_tracks.add(t)
            used_dice.add(d)
        for d, die in enumerate(reading.dice):
            if d not in used_dice:
                track: list[DieReading | None] = [None] * len(readings)
                track[index] = die
                tracks.append(track)
                anchors.append(die.box)
    return tracks


def _vote_track(track: Sequence[DieReading | None]) -> VotedDie:
    seen = [d for d in track if d is not None]
    counts = Counter(d.face for d in seen)
    best = max(counts.values())
    # The most frequent face; a tie goes to the face read with the most confidence in all.
    face = max(
        (f for f, n in counts.items() if n == best), key=lambda f: sum(d.confidence for d in seen if d.face == f)
    )
    boxes = [d.box for d in seen]
    box = Box(*(float(np.median([getattr(b, k) for b in boxes])) for k in ("x1", "y1", "x2", "y2")))
    reasons: list[str] = []
    faces = tuple(d.face for d in seen)
    if len(seen) < len(track):
        reasons.append(Reason(ReasonCode.FEW_FRAMES, seen=len(seen), frames=len(track)))
    if len(counts) > 1:
        reasons.append(Reason(ReasonCode.FRAMES_DISAGREE, faces=", ".join(map(str, faces))))
    for die in seen:
        for reason in die.reasons:
            if reason not in reasons:
                reasons.append(reason)
    agreeing = [d for d in seen if d.face == face]
    die = DieReading(
        face=face,
        confidence=min(d.confidence for d in agreeing) * len(agreeing) / len(track),
        box=box,
        uncertain=bool(reasons) or any(d.uncertain for d in seen),
        reasons=tuple(reasons),
        guesses=agreeing[0].guesses,
    )
    return VotedDie(die=die, seen=len(seen), frames=len(track), faces=faces)


def _frame_agrees(tracks: Sequence[Sequence[DieReading | None]], voted: Sequence[VotedDie], index: int) -> bool:
    """Frame `index` saw every die, each with its voted face."""
    for track, v in zip(tracks, voted, strict=True):
        die = track[index]
        if die is None or die.face != v.die.face:
            return False
    return True


def vote(readings: Sequence[FrameReading], settings: StillSettings, waited: StillWait) -> StillCapture:
    """Vote per die across readings of the same still table; a die they disagree on becomes uncertain.

    A die counts as agreed only when every frame saw it with the same face; any frame's doubt is kept.
    """
    if not readings:
        raise ValueError("no hay lecturas para votar")
    tracks = match_tracks(readings, settings)
    voted = [_vote_track(track) for track in tracks]
    disagreeing = tuple(v for v in voted if not v.agreed)
    dice = sorted((v.die for v in voted), key=lambda d: (d.box.center[1], d.box.center[0]))
    agreeing = sum(1 for index in range(len(readings)) if _frame_agrees(tracks, voted, index))
    first = readings[0]
    reading = FrameReading(width=first.width, height=first.height, dice=tuple(dice))
    return StillCapture(
        wait=waited,
        reading=reading,
        frames_read=len(readings),
        agreeing_frames=agreeing,
        disagreeing=disagreeing,
    )
