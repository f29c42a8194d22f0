"""Render the demo table's photos: each showing of the cups, a hand leaving and then the still table.

    python -m kiosk.demo.make_photos

Writes `kiosk/demo/fotos/NN/000.jpg ...` (and `scene.json`, the exact labels) for the demo camera
(`cacho kiosk --camera demo`). The players of the demo table sit at seats 1-4 in their clockwise order.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kiosk.demo.camera import PHOTOS
from kiosk.demo.table import DEMO_PLAYERS

# (scene seed, faces per seat): the first showing has every die; the second, after a round lost by Beto.
SHOWINGS: tuple[tuple[int, dict[int, tuple[int, ...]]], ...] = (
    (4101, {1: (1, 3, 6, 6, 5), 2: (3, 3, 6, 2, 4), 3: (4, 1, 5, 4, 3), 4: (2, 3, 1, 6, 6)}),
    (4102, {1: (5, 5, 2, 1, 4), 2: (6, 1, 3, 3), 3: (2, 4, 4, 6, 1), 4: (3, 5, 5, 2, 6)}),
)
WIDTH, HEIGHT = 1920, 1080  # the Camera Module 3's video mode, scaled: about 30 px a die
QUALITY = 85


def render(out: Path = PHOTOS) -> list[Path]:
    """Render every showing into `out`; the folders written."""
    from vision.synth.scene import scene_sequence, write_sequence

    assert len(SHOWINGS[0][1]) == len(DEMO_PLAYERS)
    folders = []
    for number, (seed, seats) in enumerate(SHOWINGS):
        frames = scene_sequence(seed, seats, frames=5, width=WIDTH, height=HEIGHT, hand_frames=4, settle_frames=0)
        folder = out / f"{number:02d}"
        write_sequence(frames, folder, quality=QUALITY)
        folders.append(folder)
    return folders


def main(argv: list[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=PHOTOS)
    args = parser.parse_args(argv)
    for folder in render(args.out):
        size = sum(p.stat().st_size for p in folder.iterdir()) // 1024
        print(f"{folder}: {len(list(folder.glob('*.jpg')))} imágenes, {size} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
