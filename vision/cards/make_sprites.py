"""Rasterise card SVGs into the committed sprites and measure each card's corner index (needs rsvg-convert)."""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

from vision.cards.notation import CLASS_NAMES

SPRITES = Path(__file__).with_name("sprites")
HEIGHT = 360
# File names of the Kennard deck (@letele/playing-cards): suit letter then rank, "a" ace; B1/B2 the backs.
KENNARD_RANKS = {"A": "a", "J": "j", "Q": "q", "K": "k"}


def kennard_name(code: str) -> str:
    """The deck's component name for a card code (`10H` -> `H10`, `QS` -> `Sq`)."""
    rank, suit = code[:-1], code[-1]
    return suit + KENNARD_RANKS.get(rank, rank)


def rasterise(svg: Path, height: int) -> np.ndarray:
    """The SVG drawn `height` pixels tall, BGRA."""
    with tempfile.TemporaryDirectory() as scratch:
        png = Path(scratch) / "card.png"
        subprocess.run(["rsvg-convert", "-h", str(height), str(svg), "-o", str(png)], check=True)
        image = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise RuntimeError(f"rsvg-convert gave no BGRA image for {svg}")
    return image


def soften_border(image: np.ndarray) -> np.ndarray:
    """The design's black outline made a light grey edge, as a real card's edge looks from above."""
    alpha = (image[..., 3] > 0).astype(np.uint8)
    inner = cv2.erode(alpha, np.ones((7, 7), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    ring = (alpha > 0) & (inner == 0)
    out = image.copy()
    out[ring, :3] = 215
    return out


def index_box(image: np.ndarray) -> list[int]:
    """The top-left corner index (rank over suit) as [x1, y1, x2, y2]: the first inked columns inside the border."""
    alpha = (image[..., 3] > 250).astype(np.uint8)
    margin = max(3, image.shape[0] // 50) | 1
    inside = cv2.erode(alpha, np.ones((margin, margin), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    ink = (image[..., :3].min(axis=2) < 200) & inside
    height, width = ink.shape
    region = ink[: int(0.32 * height), : int(0.2 * width)]
    columns = np.flatnonzero(region.any(axis=0))
    if columns.size == 0:
        raise RuntimeError("no index found in the card's corner")
    x1 = x2 = int(columns[0])
    while x2 + 1 < region.shape[1] and region[:, x2 + 1].any():
        x2 += 1
    rows = np.flatnonzero(region[:, x1 : x2 + 1].any(axis=1))
    return [x1, int(rows[0]), x2 + 1, int(rows[-1]) + 1]


def main(argv: list[str] | None = None) -> None:
    """Write sprites/<code>.png, back_<n>.png and manifest.json from a folder of the deck's SVGs."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("svg_dir", type=Path, help="one SVG per card (sprites/extract_kennard.mjs writes them)")
    parser.add_argument("--out", type=Path, default=SPRITES)
    parser.add_argument("--height", type=int, default=HEIGHT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    faces = {}
    for code in CLASS_NAMES:
        image = soften_border(rasterise(args.svg_dir / f"{kennard_name(code)}.svg", args.height))
        cv2.imwrite(str(args.out / f"{code}.png"), image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        faces[code] = {"file": f"{code}.png", "index": index_box(image)}
    backs = []
    for number in (1, 2):
        image = soften_border(rasterise(args.svg_dir / f"B{number}.svg", args.height))
        cv2.imwrite(str(args.out / f"back_{number}.png"), image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        backs.append(f"back_{number}.png")
    height, width = image.shape[:2]
    manifest = {
        "deck": "kennard",
        "size": [width, height],
        "faces": faces,
        "backs": backs,
        "note": "index: the top-left corner index in sprite pixels; the bottom-right one is it turned half a turn",
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
