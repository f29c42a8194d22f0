"""Drawing a reading on its frame: boxes and faces, sure dice in green, doubtful ones in orange, and in grey
what the finder proposed and the face classifier was sure is no die."""

from __future__ import annotations

from collections.abc import Sequence

import cv2

from vision.types import Box, Frame, FrameReading

SURE = (60, 200, 60)  # BGR
DOUBTFUL = (0, 140, 255)
NOT_A_DIE = (150, 150, 150)


def annotate(frame: Frame, reading: FrameReading) -> Frame:
    """A copy of the frame with every die's box, face and confidence drawn; doubtful dice marked "?"."""
    out = frame.copy()
    scale = max(out.shape[:2]) / 1280
    thickness = max(1, round(2 * scale))
    for box in reading.not_dice:  # thin, so a coordinator can see what was left out
        x1, y1, x2, y2 = (round(v) for v in box.to_list())
        cv2.rectangle(out, (x1, y1), (x2, y2), NOT_A_DIE, max(1, thickness // 2))
    for die in reading.dice:
        label = f"{die.face}{'?' if die.uncertain else ''} {die.confidence:.0%}"
        boxed(out, die.box, label, DOUBTFUL if die.uncertain else SURE)
    return out


def annotate_confirmed(frame: Frame, dice: Sequence[tuple[Box, int]]) -> Frame:
    """A copy of the frame with the dice as confirmed: each box with its face, no confidence and no doubt (a die
    removed is not drawn, one added by hand has no box)."""
    out = frame.copy()
    for box, face in dice:
        boxed(out, box, str(face), SURE)
    return out


def boxed(out: Frame, box: Box, label: str, colour: tuple[int, int, int]) -> None:
    """Draw a box and its label above it, in place, sized to the frame."""
    scale = max(out.shape[:2]) / 1280
    thickness = max(1, round(2 * scale))
    x1, y1, x2, y2 = (round(v) for v in (box.x1, box.y1, box.x2, box.y2))
    cv2.rectangle(out, (x1, y1), (x2, y2), colour, thickness)
    font_scale = 0.5 * scale
    (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
    top = max(0, y1 - th - base - 2)
    cv2.rectangle(out, (x1, top), (x1 + tw + 4, top + th + base + 2), colour, -1)
    cv2.putText(out, label, (x1 + 2, top + th + 1), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), thickness)
