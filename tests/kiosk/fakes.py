"""A fake camera and a fake dice reader, so that no kiosk test needs a Pi or the models."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hardware.camera import BaseCamera, CameraError, Frame
from vision.types import Box, DieReading, FrameReading

WIDTH, HEIGHT = 900, 300


class FakeCamera(BaseCamera):
    """A still table (`frame`, a felt by default); `fail` makes the next frames raise CameraError (unplugged)."""

    spec = "fake"

    def __init__(self, frame: Frame | None = None) -> None:
        super().__init__()
        self.fail = False
        self.frame = np.full((HEIGHT, WIDTH, 3), (40, 90, 30), np.uint8) if frame is None else frame

    def _open(self) -> None:
        if self.fail:
            raise CameraError("la cámara no responde")

    def _preview(self) -> Frame:
        if self.fail:
            raise CameraError("la cámara se desconectó")
        return self.frame

    def _capture(self) -> Frame:
        return self._preview().copy()

    def _release(self) -> None:
        pass


def die_at(seat: int, index: int, face: int, uncertain: bool = False, confidence: float = 0.97) -> DieReading:
    """A die read in seat `seat`'s third of the frame (seats 1-3, left to right)."""
    x = (seat - 1) * WIDTH / 3 + 30 + index * 45
    box = Box(x, 100, x + 36, 136)
    reasons = ("las dos lecturas no coinciden",) if uncertain else ()
    return DieReading(face, confidence, box, uncertain, reasons)


class FakeReader:
    """Reads whatever dice it is told to, whatever the frame."""

    def __init__(self) -> None:
        self.dice: list[DieReading] = []
        self.reads = 0

    def show(self, seats: dict[int, Sequence[int]], uncertain: Sequence[tuple[int, int]] = ()) -> None:
        """The dice on the table: seat -> faces; `uncertain` = (seat, index) pairs read as doubtful."""
        self.dice = [
            die_at(seat, i, face, (seat, i) in uncertain)
            for seat, faces in seats.items()
            for i, face in enumerate(faces)
        ]

    def read(self, frame: Frame) -> FrameReading:
        self.reads += 1
        return FrameReading(frame.shape[1], frame.shape[0], tuple(self.dice))


def write_zones(path: Path, seats: int = 3) -> None:
    """A table config whose seat zones are the frame's vertical thirds."""
    zones = [
        {"seat": s, "zone": [[(s - 1) / seats, 0], [s / seats, 0], [s / seats, 1], [(s - 1) / seats, 1]]}
        for s in range(1, seats + 1)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "mode": "zones", "seats": zones}))


def wait_until(check: Any, timeout: float = 10.0) -> None:
    """Poll until `check()` is true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError("timed out waiting")
