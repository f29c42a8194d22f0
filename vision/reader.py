"""Reading a frame: find the dice on a reduced copy, read each face on its full-resolution crop, twice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vision.frames import check_frame
from vision.types import Box, Detector, DieReading, FaceGuess, Frame, FrameReading


@dataclass(frozen=True, slots=True)
class FaceVerdict:
    """The face readers' joint answer for one die: the face, confidence, and why it is unsafe (if it is)."""

    face: int
    confidence: float
    reasons: tuple[str, ...]
    guesses: tuple[FaceGuess, ...]


class DieFaceReader(Protocol):
    """Reads dice faces from their full-resolution crops by two independent methods and combines them."""

    def read_dice(self, crops: Sequence[Frame]) -> list[FaceVerdict]:
        """One verdict per crop."""
        ...


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    """Thresholds of the reader; a die under any of them is uncertain, never guessed silently."""

    margin: float = 0.15  # crop margin around the finder's box, as a share of its size
    min_detection: float = 0.5  # finder confidence under which the die is doubtful
    edge_px: int = 2  # a box this close to the frame's edge is cut by it
    min_side_px: int = 12  # a die smaller than this on the full frame cannot show its pips


def crop_box(frame: Frame, box: Box, margin: float) -> Frame:
    """The box plus margin, clipped to the frame (full resolution)."""
    height, width = frame.shape[:2]
    mx, my = box.width * margin, box.height * margin
    x1, y1 = max(0, int(box.x1 - mx)), max(0, int(box.y1 - my))
    x2, y2 = min(width, int(np.ceil(box.x2 + mx))), min(height, int(np.ceil(box.y2 + my)))
    return frame[y1:y2, x1:x2]


class DiceReader:
    """Frame in, FrameReading out: every die's face, confidence, box, and `uncertain` with reasons."""

    def __init__(self, finder: Detector, faces: DieFaceReader, settings: ReaderSettings | None = None) -> None:
        self.finder = finder
        self.faces = faces
        self.settings = settings or ReaderSettings()

    def read(self, frame: Frame) -> FrameReading:
        """Read every die on the frame."""
        frame = check_frame(frame)
        height, width = frame.shape[:2]
        detections = self.finder.detect(frame)
        verdicts = self.faces.read_dice([crop_box(frame, d.box, self.settings.margin) for d in detections])
        dice = [self._read_one(frame, d.box, d.confidence, v) for d, v in zip(detections, verdicts, strict=True)]
        dice.sort(key=lambda d: (d.box.center[1], d.box.center[0]))
        return FrameReading(width=width, height=height, dice=tuple(dice))

    def _read_one(self, frame: Frame, box: Box, detection: float, verdict: FaceVerdict) -> DieReading:
        s = self.settings
        height, width = frame.shape[:2]
        reasons: list[str] = []
        if detection < s.min_detection:
            reasons.append(f"detección dudosa ({detection:.0%})")
        if box.x1 <= s.edge_px or box.y1 <= s.edge_px or box.x2 >= width - s.edge_px or box.y2 >= height - s.edge_px:
            reasons.append("cortado por el borde de la imagen")
        if min(box.width, box.height) < s.min_side_px:
            reasons.append(f"muy chico para ver los puntos ({min(box.width, box.height):.0f} px)")
        reasons.extend(verdict.reasons)
        confidence = min(verdict.confidence, detection)
        return DieReading(
            face=verdict.face,
            confidence=confidence,
            box=box,
            uncertain=bool(reasons),
            reasons=tuple(reasons),
            guesses=verdict.guesses,
        )

    def read_many(self, frames: Sequence[Frame]) -> list[FrameReading]:
        """Read several frames with the models loaded once."""
        return [self.read(frame) for frame in frames]
