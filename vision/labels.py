"""YOLO label lines (`class cx cy w h`, normalised to the image), as every labelled folder of ours writes them."""

from __future__ import annotations

from collections.abc import Sequence


def row(cls: int | str, cx: float, cy: float, w: float, h: float) -> str:
    """One label line (no newline) of a box already normalised to its image."""
    return f"{cls} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}"


def line(cls: int | str, box: Sequence[float], width: float, height: float) -> str:
    """One label line (no newline) of a box `x1 y1 x2 y2` in pixels of an image of this size."""
    x1, y1, x2, y2 = box
    return row(cls, (x1 + x2) / 2 / width, (y1 + y2) / 2 / height, (x2 - x1) / width, (y2 - y1) / height)
