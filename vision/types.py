"""Typed results of reading a frame: boxes in original-frame pixels, never raw tensors."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np
import numpy.typing as npt

Frame = npt.NDArray[np.uint8]  # H x W x 3, BGR (OpenCV's order), uint8


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned box in original-frame pixels (x1, y1) top-left, (x2, y2) bottom-right."""

    x1: float
    y1: float
    x2: float
    y2: float

    @property
    def width(self) -> float:
        """Width in pixels."""
        return self.x2 - self.x1

    @property
    def height(self) -> float:
        """Height in pixels."""
        return self.y2 - self.y1

    @property
    def side(self) -> float:
        """The side of the square of the same area: a die's size, whatever its box's shape."""
        return math.sqrt(max(self.width * self.height, 0.0))

    @property
    def center(self) -> tuple[float, float]:
        """Centre (x, y)."""
        return (self.x1 + self.x2) / 2, (self.y1 + self.y2) / 2

    def contains(self, point: tuple[float, float]) -> bool:
        """Whether the point (x, y) lies in the box, edges included."""
        return self.x1 <= point[0] <= self.x2 and self.y1 <= point[1] <= self.y2

    def intersection(self, other: Box) -> float:
        """Area shared with another box."""
        ix = max(0.0, min(self.x2, other.x2) - max(self.x1, other.x1))
        iy = max(0.0, min(self.y2, other.y2) - max(self.y1, other.y1))
        return ix * iy

    def iou(self, other: Box) -> float:
        """Intersection over union with another box."""
        inter = self.intersection(other)
        union = self.width * self.height + other.width * other.height - inter
        return inter / union if union > 0 else 0.0

    def overlap_share(self, other: Box) -> float:
        """The share of this box's area that another box covers."""
        area = self.width * self.height
        return self.intersection(other) / area if area > 0 else 0.0

    def to_list(self) -> list[float]:
        """[x1, y1, x2, y2] rounded to a tenth of a pixel."""
        return [round(v, 1) for v in (self.x1, self.y1, self.x2, self.y2)]


@dataclass(frozen=True, slots=True)
class Detection:
    """A die found on the frame by the finder: where, how sure, the finder's class (0 = die) and, from a finder
    with a cocked class, how sure it is that the die is cocked (None from a one-class finder)."""

    box: Box
    confidence: float
    cls: int = 0
    cocked: float | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        out: dict[str, object] = {"box": self.box.to_list(), "confidence": round(self.confidence, 4), "class": self.cls}
        if self.cocked is not None:
            out["cocked"] = round(self.cocked, 4)
        return out


@dataclass(frozen=True, slots=True)
class FaceGuess:
    """One method's reading of a die's face (None when it cannot say), with its confidence."""

    face: int | None
    confidence: float
    method: str
    # where the method saw the face's centre, as fractions (x, y) of the crop; None when it does not say
    centre: tuple[float, float] | None = None
    # how square the face it read looks: 1 seen square-on, cos(angle) seen at a slant; None when it does not say
    squash: float | None = None
    # the classifier's probability of each face 1-6 (empty: a method that gives none)
    faces: tuple[float, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class FaceVerdict:
    """The face readers' joint answer for one die: the face, how sure, why it must go to the coordinator (when it
    must), the readings it comes from, and whether the crop surely holds no die at all."""

    face: int | None  # None where no reading names a face (vision.faces.reader.combine); DiceReader needs one
    confidence: float
    reasons: tuple[str, ...]  # none: the die is safe
    guesses: tuple[FaceGuess, ...]
    absent: bool = False  # sure there is no die in the crop at all (a coin, a cap, a pattern): drop it

    @property
    def uncertain(self) -> bool:
        """Whether the die must go to the coordinator: it has a reason to."""
        return bool(self.reasons)


@dataclass(frozen=True, slots=True)
class DieReading:
    """A die read: its face, confidence, box, and `uncertain` with the reasons when it is not safe."""

    face: int
    confidence: float
    box: Box
    uncertain: bool
    reasons: tuple[str, ...] = ()
    guesses: tuple[FaceGuess, ...] = field(default=(), compare=False)
    # the calibrated level from which a face's probability puts it among a doubtful die's candidates (None: not
    # calibrated, so a doubtful die may be any face); vision.candidates
    level: float | None = field(default=None, compare=False)

    def flagged(self, reason: str) -> DieReading:
        """The same die, uncertain for one more reason."""
        return replace(self, uncertain=True, reasons=(*self.reasons, reason))

    @property
    def candidates(self) -> tuple[int, ...]:
        """The faces the die may show: its face when sure; where only the face readers doubt it, every face the
        classifier gives at least the calibrated level (and the faces the readers name); else every face."""
        from vision.candidates import candidate_faces

        return candidate_faces(self)

    def to_dict(self) -> dict[str, object]:
        """The contract's die object: face, confidence, box, uncertain (and why)."""
        out: dict[str, object] = {
            "face": self.face,
            "confidence": round(self.confidence, 4),
            "box": self.box.to_list(),
            "uncertain": self.uncertain,
            "candidates": list(self.candidates),
        }
        if self.reasons:
            out["reasons"] = list(self.reasons)
        return out


@dataclass(frozen=True, slots=True)
class FrameReading:
    """Every die read on one frame, with the frame's size."""

    width: int
    height: int
    dice: tuple[DieReading, ...]
    not_dice: tuple[Box, ...] = ()  # what the finder proposed and the face classifier was sure is no die

    @property
    def uncertain(self) -> tuple[DieReading, ...]:
        """The dice that must go to the coordinator."""
        return tuple(d for d in self.dice if d.uncertain)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        out: dict[str, object] = {"width": self.width, "height": self.height, "dice": [d.to_dict() for d in self.dice]}
        if self.not_dice:
            out["not_dice"] = [b.to_list() for b in self.not_dice]
        return out


class Detector(Protocol):
    """Finds dice on a frame; boxes in that frame's pixels."""

    def detect(self, frame: Frame) -> list[Detection]:
        """Every die found."""
        ...


class FaceReader(Protocol):
    """Reads the face up of dice from their crops (full-resolution, BGR)."""

    def read_faces(self, crops: Sequence[Frame]) -> list[FaceGuess]:
        """One guess per crop."""
        ...
