"""Frames tiled from photos of one die each: a folder of such photos as an evening of real dice, many a frame.

    python -m vision.mosaic FOLDER --out DIR [--side 4] [--seed 0]

FOLDER is a YOLO folder whose photos each hold one die (tomitomi-cup-gray: 128x128 grey photos into a dice cup).
Its photos, shuffled once by `seed`, are laid `side` x `side` to a frame, in that order, with their labels moved
with them; the frames are written as BGR PNG (lossless), named in playing order. The dice are real, the frames
are not: a finder that finds dice by the frame they lie in is measured here on frames no camera took.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.evaluate import yolo_samples


def tile(folder: Path, out: Path, side: int = 4, seed: int = 0) -> int:
    """Write `folder`'s photos as frames of `side` x `side` into `out` (images/, labels/); the frames written."""
    pairs = list(yolo_samples(folder))
    if not pairs:
        raise FileNotFoundError(f"no hay imágenes en {folder / 'images'}")
    random.Random(seed).shuffle(pairs)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    per = side * side
    frames = 0
    for start in range(0, len(pairs) - per + 1, per):
        chosen = pairs[start : start + per]
        images = []
        for path, _ in chosen:
            read = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
            if read is None:
                raise ValueError(f"{path}: la foto no se puede leer")
            images.append(read)
        size = max(max(im.shape[:2]) for im in images)
        canvas = np.zeros((side * size, side * size), np.uint8)
        lines = []
        for k, ((_, label), tile_image) in enumerate(zip(chosen, images, strict=True)):
            row, col = divmod(k, side)
            h, w = tile_image.shape[:2]
            canvas[row * size : row * size + h, col * size : col * size + w] = tile_image
            text = label.read_text(encoding="utf-8") if label.exists() else ""
            for line in text.splitlines():
                parts = line.split()
                if len(parts) < 5:
                    continue
                cls, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:5])
                x, y = (col * size + cx * w) / (side * size), (row * size + cy * h) / (side * size)
                lines.append(f"{cls} {x:.6f} {y:.6f} {bw * w / (side * size):.6f} {bh * h / (side * size):.6f}")
        name = f"mesa-{frames:04d}"
        cv2.imwrite(str(out / "images" / f"{name}.png"), cv2.cvtColor(canvas, cv2.COLOR_GRAY2BGR))
        (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        frames += 1
    return frames


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m vision.mosaic", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", metavar="FOLDER", type=Path, help="carpeta YOLO con un dado por foto")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--side", type=int, default=4, help="fotos por lado de cada imagen (4: 16 dados)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not 1 <= args.side <= 10:
        parser.error(f"--side {args.side}: debe estar entre 1 y 10")
    try:
        frames = tile(args.folder, args.out, args.side, args.seed)
    except (FileNotFoundError, ValueError) as error:
        parser.error(str(error))
    print(f"{frames} imágenes en {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
