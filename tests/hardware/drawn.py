"""Tables drawn with OpenCV for the tests: felt, printed ArUco markers, flat dice, a hand; and a reader of them.

Exact and cheap, for the unit tests; the rendered tables of `vision/synth/scene.py` (markers, cups and hands
under real light) are played through `replay:` in tests/hardware/test_rendered_table.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.seats import aruco_dictionary
from vision.types import Box, DieReading, Frame, FrameReading

FELT = (40, 105, 30)  # BGR: billiard green
SKIN = (120, 160, 215)
PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}


def felt(width: int, height: int, noise: float = 0.0, seed: int = 0) -> Frame:
    """A plain felt table, with sensor noise of `noise` grey levels (sigma)."""
    frame = np.empty((height, width, 3), np.uint8)
    frame[:] = FELT
    return add_noise(frame, noise, seed)


def add_noise(frame: Frame, sigma: float, seed: int = 0) -> Frame:
    """The frame with Gaussian sensor noise of `sigma` grey levels."""
    if not sigma:
        return frame
    grain = np.random.default_rng(seed).normal(0, sigma, frame.shape).astype(np.float32)
    return np.asarray(np.clip(frame + grain, 0, 255), dtype=np.uint8)


def paste_marker(frame: Frame, seat: int, center: tuple[float, float], side: int) -> None:
    """A printed marker (with its white cut-out around) lying flat, axis-aligned, at `center`."""
    quiet = max(4, side // 5)
    card = np.full((side + 2 * quiet, side + 2 * quiet), 255, np.uint8)
    card[quiet : quiet + side, quiet : quiet + side] = cv2.aruco.generateImageMarker(aruco_dictionary(), seat, side)
    x = round(center[0] - card.shape[1] / 2)
    y = round(center[1] - card.shape[0] / 2)
    frame[y : y + card.shape[0], x : x + card.shape[1]] = card[:, :, None]


def draw_die(frame: Frame, center: tuple[float, float], side: int, face: int) -> Box:
    """A die seen from above (ivory square, black pips); returns its box."""
    x1, y1 = round(center[0] - side / 2), round(center[1] - side / 2)
    x1c, y1c = max(0, x1), max(0, y1)
    x2c, y2c = min(frame.shape[1], x1 + side), min(frame.shape[0], y1 + side)
    frame[y1c:y2c, x1c:x2c] = (225, 235, 240)
    for px, py in PIPS[face]:
        cv2.circle(frame, (round(x1 + px * side), round(y1 + py * side)), max(2, side // 10), (20, 20, 20), -1)
    return Box(float(x1c), float(y1c), float(x2c), float(y2c))


def draw_hand(frame: Frame, center: tuple[float, float], size: int) -> None:
    """A hand (a skin-coloured blob with an arm) reaching over the table."""
    cx, cy = round(center[0]), round(center[1])
    cv2.ellipse(frame, (cx, cy), (size, round(size * 0.7)), 20, 0, 360, SKIN, -1)
    cv2.line(frame, (cx, cy), (cx + 3 * size, frame.shape[0] + size), SKIN, size)


@dataclass(frozen=True)
class DrawnDie:
    """A die to draw: where, its side in pixels, its face."""

    center: tuple[float, float]
    face: int
    side: int = 40


@dataclass(frozen=True)
class DrawnTable:
    """A table to draw: size, markers (seat -> centre), dice."""

    width: int = 1280
    height: int = 800
    markers: tuple[tuple[int, tuple[float, float]], ...] = ()
    dice: tuple[DrawnDie, ...] = ()
    marker_side: int = 70

    def draw(self, noise: float = 0.0, seed: int = 0) -> Frame:
        """The frame."""
        frame = felt(self.width, self.height, noise, seed)
        for seat, center in self.markers:
            paste_marker(frame, seat, center, self.marker_side)
        for die in self.dice:
            draw_die(frame, die.center, die.side, die.face)
        return frame


# Four seats around a 1280 x 800 table: 1 bottom, 2 left, 3 top, 4 right; dice in front of each marker.
FOUR_SEATS = ((1, (640.0, 730.0)), (2, (80.0, 400.0)), (3, (640.0, 70.0)), (4, (1200.0, 400.0)))


def four_seat_table(dice: Sequence[DrawnDie] = ()) -> DrawnTable:
    """The four-seat table with the given dice."""
    return DrawnTable(markers=FOUR_SEATS, dice=tuple(dice))


def reading_of(table: DrawnTable, uncertain: Sequence[int] = ()) -> FrameReading:
    """The reading a perfect reader would give of a drawn table (dice `uncertain` by index flagged)."""
    dice = []
    for index, die in enumerate(table.dice):
        half = die.side / 2
        box = Box(
            max(0.0, die.center[0] - half),
            max(0.0, die.center[1] - half),
            min(float(table.width), die.center[0] + half),
            min(float(table.height), die.center[1] + half),
        )
        doubt = index in uncertain
        dice.append(DieReading(die.face, 0.6 if doubt else 0.97, box, doubt, ("cara dudosa",) if doubt else ()))
    return FrameReading(table.width, table.height, tuple(dice))


class DrawnDiceReader:
    """Reads the drawn dice from the pixels: ivory squares of a die's size, pips counted as dark blobs."""

    def __init__(self, min_side: int = 15, max_side: int = 80) -> None:
        self.min_side = min_side
        self.max_side = max_side
        self.frames_read = 0

    def read(self, frame: Frame) -> FrameReading:
        """Every drawn die on the frame."""
        self.frames_read += 1
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        ivory = cv2.inRange(hsv, (0, 0, 200), (40, 60, 250))  # the dice, not the markers' pure white
        contours, _ = cv2.findContours(ivory, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        dice = []
        for contour in contours:
            x, y, w, h = cv2.boundingRect(contour)
            if not (self.min_side <= w <= self.max_side and self.min_side <= h <= self.max_side):
                continue
            crop = cv2.cvtColor(frame[y : y + h, x : x + w], cv2.COLOR_BGR2GRAY)
            count, _ = cv2.connectedComponents((crop < 80).astype(np.uint8))
            pips = count - 1
            box = Box(float(x), float(y), float(x + w), float(y + h))
            if 1 <= pips <= 6:
                dice.append(DieReading(pips, 0.95, box, False))
            else:
                dice.append(DieReading(1, 0.2, box, True, (f"{pips} puntos: no es una cara",)))
        dice.sort(key=lambda d: (d.box.center[1], d.box.center[0]))
        return FrameReading(frame.shape[1], frame.shape[0], tuple(dice))
