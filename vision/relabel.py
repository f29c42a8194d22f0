"""Corrections to a photo set's labels, found by eye: a photo, a point on the object in pixels, what it really is.

Each line of a corrections file is `photo x y value` (`#` starts a comment). The value is a die's face or a card's
code, as the caller parses it into a class id. A correction changes the class of the labelled box about its point
(the one whose centre is nearest) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from vision.frames import load_image


@dataclass(frozen=True, slots=True)
class Relabel:
    """A box a photo set labels wrong: the photo's file name, a point on the object in pixels, its true class."""

    image: str
    x: float
    y: float
    cls: int


def read_relabels(path: Path, class_of: Callable[[str], int | None], what: str) -> list[Relabel]:
    """The corrections of a file; ValueError naming the line that is not `photo x y value` (`what` says what the
    value is, for the message)."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].split()
        if not text:
            continue
        try:
            name, x, y, value = text[0], float(text[1]), float(text[2]), text[3]
        except (IndexError, ValueError):
            raise ValueError(f"{path}:{number}: se esperaba «foto x y {what}», no {line.strip()!r}") from None
        cls = class_of(value)
        if cls is None or len(text) != 4:
            raise ValueError(f"{path}:{number}: se esperaba «foto x y {what}», no {line.strip()!r}")
        out.append(Relabel(name, x, y, cls))
    return out


def relabelled(text: str, width: int, height: int, fixes: Sequence[Relabel]) -> tuple[str, int]:
    """YOLO label lines with the corrections applied (each to the labelled box about its point whose centre is
    nearest); the number applied."""
    lines = [line.split() for line in text.splitlines() if line.split()]
    applied = 0
    for fix in fixes:
        inside = []
        for i, parts in enumerate(lines):
            cx, cy, w, h = (float(v) for v in parts[1:5])
            if abs(fix.x / width - cx) <= w / 2 and abs(fix.y / height - cy) <= h / 2:
                inside.append((abs(fix.x / width - cx) + abs(fix.y / height - cy), i))
        if inside:
            lines[min(inside)[1]][0] = str(fix.cls)
            applied += 1
    return "".join(" ".join(parts) + "\n" for parts in lines), applied


def relabelled_photo(image: Path, text: str, fixes: Sequence[Relabel]) -> tuple[str, int]:
    """`relabelled` for the label lines of the photo `image` (read for its size: FrameError, a ValueError, when it
    cannot be)."""
    height, width = load_image(image).shape[:2]
    return relabelled(text, width, height, fixes)


def by_image(fixes: Sequence[Relabel]) -> dict[str, list[Relabel]]:
    """The corrections of each photo."""
    out: dict[str, list[Relabel]] = {}
    for fix in fixes:
        out.setdefault(fix.image, []).append(fix)
    return out
