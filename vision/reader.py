"""Reading a frame: find the dice on a reduced copy, read each face on its full-resolution crop, twice."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

from vision.faces.crops import outward_turn, turned_crop
from vision.faces.pips import TopShare, TopShares
from vision.frames import check_frame
from vision.reasons import Reason, ReasonCode
from vision.types import Box, Detection, Detector, DieReading, FaceVerdict, Frame, FrameReading


class DieFaceReader(Protocol):
    """Reads dice faces from their full-resolution crops by two independent methods and combines them."""

    def read_dice(
        self,
        crops: Sequence[Frame],
        turned: Sequence[Frame] | None = None,
        tops: TopShares | None = None,
    ) -> list[FaceVerdict]:
        """One verdict per crop, each naming a face; `turned`: the same crops turned outward-up, and `tops`: where
        each die's top face is in its crop (frames taken from above)."""
        ...


SECOND_CHANCE = 0.03  # the floor of the second chance (docs/experiments/2026-11-23-second-chance-and-board-pieces.md)


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    """Thresholds of the reader; a die under any of them is uncertain, never guessed silently."""

    margin: float = 0.15  # crop margin around the finder's box, as a share of its size
    # A camera looking straight down (the kiosk's): the face classifier gets each die turned so the way out
    # from the frame's centre points up, and the lean check applies. False for photos an upright camera takes
    # at a slant, where the top face is already up in the picture.
    from_above: bool = True
    min_detection: float = 0.5  # finder confidence under which the die is doubtful
    found: float = 0.25  # finder confidence from which a box is read as a die
    # A second chance: a box the finder is less sure of, down to this confidence, is kept only where the face
    # classifier names a face with at least `second_chance_face` (it is a die, and which) and the box overlaps no
    # die kept before it by more than `second_chance_overlap` of either box; such a die is always flagged.
    # None: only boxes of `found` and over. Chosen in docs/experiments/2026-11-23-second-chance-and-board-pieces.md.
    second_chance: float | None = SECOND_CHANCE
    second_chance_face: float = 0.90
    second_chance_overlap: float = 0.30
    edge_px: int = 2  # a box this close to the frame's edge is cut by it
    min_side_px: int = 12  # a die smaller than this on the full frame cannot show its pips
    # The lean check (a camera looking straight down): a flat die's top face sits on its box's centre or a
    # little away from the frame's centre (the sides facing the centre show); a cocked die's top face is
    # pushed sideways or inwards. The largest offsets of the counted pips' centre from the box's centre, in die
    # sides, that a die may show and not be flagged; they depend on how tightly the finder boxes dice. None turns
    # the check off (photos not from above). Chosen for today's finder in
    # docs/experiments/2026-11-27-finder-trained-on-a-gpu-loan.md.
    lean_sideways: float | None = 0.055
    lean_inward: float | None = 0.03
    # Where the camera's vertical meets the frame (the point straight below the lens), as fractions of the frame's
    # width and height: the lean check measures from it. A flat die's sides sweep toward it; a camera tilted a few
    # degrees puts it hundreds of pixels off the frame's centre (the default, None). The kiosk and `cacho table
    # read` measure it from the seat markers on each capture (vision.seats.TiltedReader, through at_nadir;
    # docs/experiments/2026-11-24-camera-nadir-from-seat-markers.md).
    nadir: tuple[float, float] | None = None
    # The dice of one game are all one size: a "die" this many times bigger or smaller than the median of
    # the frame's dice (three or more read) is something else (a playing card's ace read as a 1). Above the
    # 2.1x that labelled real photos mix (models/dice).
    size_spread: float | None = 2.5
    # From above (60-100 cm, Camera Module 3) a die's box side is at most 3.2 % of the frame's long side: a box
    # this share of it or more is no die, even alone on the table (models/dice).
    max_die_share: float | None = 0.06
    # The tilt check: a camera looking straight down sees a lying die's top face square, and a cocked die's
    # slanted. A die whose counted pips look squashed under this (pips.face_squash: about the cosine of the
    # face's slant) is flagged. None turns it off (photos not from above). Chosen in
    # docs/experiments/2026-11-22-faithful-flat-dice-and-the-tilt-check.md.
    tilt_squash: float | None = 0.88
    # Where the pip counter finds no face on the whole die (its sides' pips spoil the top face's layout), count
    # the top face alone: the die's box less its sides, which a camera looking down sees swept toward the frame's
    # centre by about this share of the die's distance from it (side / (height - side): 0.016-0.027 for a 16 mm
    # die 60-100 cm below). Trusted only where the top face looks square (pips.MIN_TOP_SQUASH): a cocked die seen
    # face-on is otherwise read. None: off. Chosen in docs/experiments/2026-11-23-top-face-counted-alone.md.
    top_sweep: float | None = 0.015
    top_overlap: float = 0.15  # the top face is not read alone where another box covers more of the die's box
    # A finder with a cocked class (`python -m vision.gpu train --cocked-class`) sees the die's neighbours and the
    # cup: a die it calls cocked with this confidence or more is flagged. None: off; a one-class finder gives no
    # such confidence. Chosen in docs/experiments/2026-11-27-a-finder-with-a-cocked-class.md (the class fires
    # strongly or not at all, so the level matters little).
    finder_cocked: float | None = 0.2
    # Where nothing is a die: polygons in frame pixels (the seat markers with their white border, which the finder
    # can take for dice). A box whose centre lies in one is never read.
    no_dice: tuple[tuple[tuple[float, float], ...], ...] = ()

    def __post_init__(self) -> None:
        """Refuse a nadir that would turn the lean check off without a word (not two finite numbers)."""
        if self.nadir is not None and (len(self.nadir) != 2 or not all(math.isfinite(v) for v in self.nadir)):
            raise ValueError(f"nadir: dos fracciones finitas (x, y) del ancho y el alto, no {self.nadir!r}")

    @property
    def finder_floor(self) -> float:
        """The least finder confidence the reader looks at (the finder's own threshold should be no higher)."""
        return self.found if self.second_chance is None else min(self.second_chance, self.found)


Bounds = tuple[int, int, int, int]  # (x1, y1, x2, y2) of a crop, in frame pixels


def crop_bounds(frame: Frame, box: Box, margin: float) -> Bounds:
    """(x1, y1, x2, y2) of the box plus margin, clipped to the frame."""
    height, width = frame.shape[:2]
    mx, my = box.width * margin, box.height * margin
    x1, y1 = max(0, int(box.x1 - mx)), max(0, int(box.y1 - my))
    x2, y2 = min(width, int(np.ceil(box.x2 + mx))), min(height, int(np.ceil(box.y2 + my)))
    return x1, y1, x2, y2


def nadir_px(width: int, height: int, nadir: tuple[float, float] | None) -> tuple[float, float]:
    """The nadir (fractions of the frame; None: its centre, a camera looking straight down) in frame pixels."""
    fx, fy = (0.5, 0.5) if nadir is None else nadir
    return width * fx, height * fy


def top_face_share(
    box: Box, bounds: Bounds, width: int, height: int, sweep: float, nadir: tuple[float, float] | None = None
) -> TopShare:
    """The top face's box in the crop `bounds`, as shares of it: the die's box cut on the side toward the nadir
    (fractions of the frame; None: its centre) by the sweep of its sides (`sweep` times the die's distance from the
    nadir), seen from above."""
    x1, y1, x2, y2 = box.x1, box.y1, box.x2, box.y2
    cx, cy = box.center
    nx, ny = nadir_px(width, height, nadir)
    vx, vy = sweep * (cx - nx), sweep * (cy - ny)
    if vx > 0:
        x1 = min(x2 - 1, x1 + vx)
    else:
        x2 = max(x1 + 1, x2 + vx)
    if vy > 0:
        y1 = min(y2 - 1, y1 + vy)
    else:
        y2 = max(y1 + 1, y2 + vy)
    bx1, by1, bx2, by2 = bounds
    w, h = bx2 - bx1, by2 - by1
    return ((x1 - bx1) / w, (y1 - by1) / h, (x2 - bx1) / w, (y2 - by1) / h)


def crop_box(frame: Frame, box: Box, margin: float) -> Frame:
    """The box plus margin, clipped to the frame (full resolution)."""
    x1, y1, x2, y2 = crop_bounds(frame, box, margin)
    return frame[y1:y2, x1:x2]


def lean_offsets(
    box: Box,
    bounds: Bounds,
    centre: tuple[float, float],
    width: int,
    height: int,
    nadir: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """(outward, sideways) offset of a face's centre (fractions of the crop `bounds`) from the box's centre,
    in die sides: outward along the line from the nadir (fractions of the frame; None: the frame's centre),
    sideways across it (always >= 0)."""
    x1, y1, x2, y2 = bounds
    face = np.array([x1 + centre[0] * (x2 - x1), y1 + centre[1] * (y2 - y1)])
    middle = np.array(box.center)
    offset = (face - middle) / max(box.side, 1e-3)
    radial = middle - np.array(nadir_px(width, height, nadir))
    length = float(np.hypot(*radial))
    if length < 1e-6:  # at the frame's centre no side shows: any offset is sideways
        return 0.0, float(np.hypot(*offset))
    unit = radial / length
    return float(offset @ unit), abs(float(offset[0] * unit[1] - offset[1] * unit[0]))


class DiceReader:
    """Frame in, FrameReading out: every die's face, confidence, box, and `uncertain` with reasons."""

    def __init__(self, finder: Detector, faces: DieFaceReader, settings: ReaderSettings | None = None) -> None:
        self.finder = finder
        self.faces = faces
        self.settings = settings or ReaderSettings()

    def at_nadir(self, nadir: tuple[float, float] | None) -> DiceReader:
        """The same models reading with the lean check and the top face measured from this nadir (fractions of the
        frame; None: its centre): for the installation's camera, measured from its seat markers."""
        return DiceReader(self.finder, self.faces, replace(self.settings, nadir=nadir))

    def ignoring(self, regions: Sequence[Sequence[tuple[float, float]]]) -> DiceReader:
        """The same reader, finding no die whose box centre lies in one of these polygons (frame pixels)."""
        polygons = tuple(tuple((float(x), float(y)) for x, y in polygon) for polygon in regions)
        return DiceReader(self.finder, self.faces, replace(self.settings, no_dice=polygons))

    def read(self, frame: Frame) -> FrameReading:
        """Read every die on the frame."""
        frame = check_frame(frame)
        height, width = frame.shape[:2]
        floor = self.settings.finder_floor
        detections = [
            d for d in self.finder.detect(frame) if d.confidence >= floor and not self._in_no_dice_region(d.box)
        ]
        detections.sort(key=lambda d: -d.confidence)
        sure = sum(d.confidence >= self.settings.found for d in detections)  # the rest only get a second chance
        bounds = [crop_bounds(frame, d.box, self.settings.margin) for d in detections]
        turned = None
        if self.settings.from_above and getattr(self.faces, "wants_turned", False):
            turned = [
                turned_crop(frame, d.box, outward_turn(d.box, width, height), self.settings.margin) for d in detections
            ]
        tops: list[TopShare | None] | None = None
        if self.settings.from_above and self.settings.top_sweep is not None:
            sweep = self.settings.top_sweep
            # not for a die leaning on a neighbour: its top face can look square too
            tops = [
                None
                if any(d.box.overlap_share(o.box) > self.settings.top_overlap for o in detections[:sure] if o is not d)
                else top_face_share(d.box, b, width, height, sweep, self.settings.nadir)
                for d, b in zip(detections, bounds, strict=True)
            ]
        verdicts = self.faces.read_dice([frame[y1:y2, x1:x2] for x1, y1, x2, y2 in bounds], turned, tops)
        found = list(zip(detections, verdicts, bounds, strict=True))
        dice = [self._read_one(frame, d, v, b) for d, v, b in found[:sure] if not v.absent]
        dice = self._odd_sizes(dice, self._second_chances(frame, found[sure:], dice))
        dice.sort(key=lambda d: (d.box.center[1], d.box.center[0]))
        not_dice = tuple(d.box for d, v, _ in found[:sure] if v.absent)
        return FrameReading(width=width, height=height, dice=tuple(dice), not_dice=not_dice)

    def _in_no_dice_region(self, box: Box) -> bool:
        x, y = box.center
        return any(
            cv2.pointPolygonTest(np.array(polygon, np.float32).reshape(-1, 1, 2), (x, y), False) >= 0
            for polygon in self.settings.no_dice
        )

    def _read_one(self, frame: Frame, found: Detection, verdict: FaceVerdict, bounds: Bounds) -> DieReading:
        s = self.settings
        box, detection = found.box, found.confidence
        if verdict.face is None:
            raise ValueError("el lector de caras no nombró una cara: DiceReader necesita una para cada dado")
        height, width = frame.shape[:2]
        reasons: list[str] = []
        if detection < s.min_detection:
            reasons.append(Reason(ReasonCode.DOUBTFUL_DETECTION, confidence=detection))
        if box.x1 <= s.edge_px or box.y1 <= s.edge_px or box.x2 >= width - s.edge_px or box.y2 >= height - s.edge_px:
            reasons.append(Reason(ReasonCode.CUT))
        if min(box.width, box.height) < s.min_side_px:
            reasons.append(Reason(ReasonCode.TOO_SMALL, side=min(box.width, box.height)))
        if s.from_above and s.max_die_share is not None and box.side > s.max_die_share * max(width, height):
            reasons.append(Reason(ReasonCode.TOO_BIG, share=box.side / max(width, height)))
        reasons.extend(verdict.reasons)
        if s.finder_cocked is not None and found.cocked is not None and found.cocked >= s.finder_cocked:
            reasons.append(Reason(ReasonCode.FINDER_COCKED, p=found.cocked, threshold=s.finder_cocked))
        lean = self._lean_reason(box, bounds, verdict, width, height)
        if lean:
            reasons.append(lean)
        tilt = self._tilt_reason(verdict)
        if tilt:
            reasons.append(tilt)
        confidence = min(verdict.confidence, detection)
        return DieReading(
            face=verdict.face,
            confidence=confidence,
            box=box,
            uncertain=bool(reasons),
            reasons=tuple(reasons),
            guesses=verdict.guesses,
            level=getattr(self.faces, "candidate_level", None),
        )

    def _second_chances(
        self, frame: Frame, found: Sequence[tuple[Detection, FaceVerdict, Bounds]], kept: list[DieReading]
    ) -> list[DieReading]:
        """The boxes under the `found` confidence (most confident first) that the classifier is sure hold a die
        and that overlap no die kept before them; each flagged (see ReaderSettings.second_chance)."""
        s = self.settings
        boxes = [d.box for d in kept]
        out: list[DieReading] = []
        for detection, verdict, bounds in found:
            # a verdict's confidence is the classifier's for the face it names (0 when it names none)
            if verdict.absent or verdict.confidence < s.second_chance_face:
                continue
            box = detection.box
            if any(max(box.overlap_share(b), b.overlap_share(box)) > s.second_chance_overlap for b in boxes):
                continue
            die = self._read_one(frame, detection, verdict, bounds)
            if not die.uncertain:
                die = die.flagged(Reason(ReasonCode.DOUBTFUL_DETECTION, confidence=detection.confidence))
            out.append(die)
            boxes.append(box)
        return out

    def _odd_sizes(self, dice: list[DieReading], second: Sequence[DieReading] = ()) -> list[DieReading]:
        """The dice and their second chances, those far bigger or smaller than the median of `dice` flagged (see
        ReaderSettings): second chances never move the median the others are measured by."""
        spread = self.settings.size_spread
        if spread is None or len(dice) < 3:
            return [*dice, *second]
        median = float(np.median([d.box.side for d in dice]))
        out = []
        for die in [*dice, *second]:
            ratio = die.box.side / median if median > 0 else 1.0
            if ratio > spread or ratio < 1 / spread:
                die = die.flagged(Reason(ReasonCode.ODD_SIZE, ratio=ratio))
            out.append(die)
        return out

    def _lean_reason(self, box: Box, bounds: Bounds, verdict: FaceVerdict, width: int, height: int) -> Reason | None:
        """Why the face read looks tilted (a cocked die), or None: see ReaderSettings.lean_*."""
        s = self.settings
        seen = [g.centre for g in verdict.guesses if g.centre is not None and g.face == verdict.face]
        if not seen or not s.from_above or (s.lean_sideways is None and s.lean_inward is None):
            return None
        outward, sideways = lean_offsets(box, bounds, seen[0], width, height, s.nadir)
        if (s.lean_sideways is not None and sideways > s.lean_sideways) or (
            s.lean_inward is not None and outward < -s.lean_inward
        ):
            return Reason(ReasonCode.OFF_CENTRE, sideways=sideways, outward=outward)
        return None

    def _tilt_reason(self, verdict: FaceVerdict) -> Reason | None:
        """Why the face read looks seen at a slant (a cocked die), or None: see ReaderSettings.tilt_squash."""
        if not self.settings.from_above:
            return None
        counted = [g for g in verdict.guesses if g.squash is not None and g.face == verdict.face]
        if not counted:
            return None
        squash = counted[0].squash
        limit = self.settings.tilt_squash
        if limit is not None and squash is not None and squash < limit:
            return Reason(ReasonCode.TILTED, squash=squash, limit=limit)
        return None
