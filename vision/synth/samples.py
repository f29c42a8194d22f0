"""Sample pictures for the model card: a few composed tables (downscaled, plus full-resolution crops) and a
contact sheet of the sprites. `python -m vision.synth.samples [--out models/dice/samples]`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.synth.compose import ASSETS, U8, compose_table, load_manifest
from vision.synth.dice_model import CLASS_NAMES

DEFAULT_SEEDS = (35, 11, 23, 47, 58)
BARE_SEEDS = (2003, 2010)  # bare café tables (`--surface bare`), from the finder-bare seeds
CLOTH_SEEDS = (54, 47)  # a board of hexagonal tiles and a busy print (`--surface cloth`)


def table_samples(out: Path, seeds: tuple[int, ...], width: int = 1600, surface: str = "felt") -> list[Path]:
    """Compose each seed at 4608x2592 and write a downscaled JPEG and a full-resolution crop of a seat;
    the first seed also with its labels drawn (box and class of every die); `surface`: see compose_table."""
    written = []
    prefix = "table" if surface == "felt" else f"table_{surface}"
    for n, seed in enumerate(seeds):
        table = compose_table(seed, surface=surface)
        img = table.image
        h, w = img.shape[:2]
        f = width / w
        small = cv2.resize(img, (width, round(h * f)), interpolation=cv2.INTER_AREA)
        path = out / f"{prefix}_{seed}.jpg"
        cv2.imwrite(str(path), small, [cv2.IMWRITE_JPEG_QUALITY, 80])
        written.append(path)
        if n == 0:
            drawn = small.copy()
            for d in table.dice:
                x1, y1, x2, y2 = (round(v * f) for v in d["box"])
                colour = (0, 0, 255) if d["cocked"] else (0, 255, 255)
                cv2.rectangle(drawn, (x1, y1), (x2, y2), colour, 1)
                label = CLASS_NAMES[d["class"]]
                cv2.putText(drawn, label, (x1, y1 - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
            path = out / f"{prefix}_{seed}_labels.jpg"
            cv2.imwrite(str(path), drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
            written.append(path)
        if table.dice:
            # The crop the face reader sees: full resolution around the first seat's dice.
            boxes = np.array([d["box"] for d in table.dice if d["seat"] == table.dice[0]["seat"]])
            cx, cy = boxes[:, [0, 2]].mean(), boxes[:, [1, 3]].mean()
            x0 = int(np.clip(cx - 400, 0, w - 800))
            y0 = int(np.clip(cy - 250, 0, h - 500))
            crop = img[y0 : y0 + 500, x0 : x0 + 800]
            path = out / f"{prefix}_{seed}_crop.jpg"
            cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 85])
            written.append(path)
    return written


def contact_sheet(out: Path, cell: int = 112, assets: Path = ASSETS) -> Path:
    """One flat sprite per style and face (a row per style), then cocked dice and the distractors, on felt."""
    sprites = load_manifest(assets)
    styles = sorted({s.style for s in sprites if s.kind == "die"})
    rows: list[list[Path]] = []
    for style in styles:
        row = []
        for face in range(1, 7):
            pool = [s for s in sprites if s.kind == "die" and s.style == style and s.face == face and not s.cocked]
            if pool:
                row.append(assets / pool[(face * 7) % len(pool)].file)
        cocked = [s for s in sprites if s.kind == "die" and s.style == style and s.cocked]
        row += [assets / s.file for s in cocked[:2]]
        rows.append(row)
    props = [assets / s.file for s in sprites if s.kind != "die"]
    for i in range(0, len(props), 8):
        rows.append(props[i : i + 8])
    cols = max(len(r) for r in rows)
    sheet = np.zeros((len(rows) * cell, cols * cell, 3), dtype=np.uint8)
    sheet[:] = (52, 92, 40)  # green felt (BGR)
    for r, row in enumerate(rows):
        for c, path in enumerate(row):
            tile = _over_felt(path, cell)
            sheet[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell] = tile
    path = out / "sprites_contact.jpg"
    cv2.imwrite(str(path), sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return path


def _over_felt(path: Path, cell: int) -> U8:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(path)
    f = min(1.0, (cell - 4) / max(img.shape[:2]))
    img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    bg = np.zeros((cell, cell, 3), dtype=np.float32)
    bg[:] = (52, 92, 40)
    h, w = img.shape[:2]
    y0, x0 = (cell - h) // 2, (cell - w) // 2
    a = img[:, :, 3:4].astype(np.float32) / 255
    roi = bg[y0 : y0 + h, x0 : x0 + w]
    bg[y0 : y0 + h, x0 : x0 + w] = img[:, :, :3] * a + roi * (1 - a)
    out: U8 = bg.astype(np.uint8)
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the samples."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("models/dice/samples"))
    parser.add_argument("--seeds", type=int, nargs="*", default=list(DEFAULT_SEEDS))
    parser.add_argument("--bare-seeds", type=int, nargs="*", default=list(BARE_SEEDS), help="bare café tables")
    parser.add_argument("--cloth-seeds", type=int, nargs="*", default=list(CLOTH_SEEDS), help="cloths and boards")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    paths = table_samples(args.out, tuple(args.seeds))
    paths += table_samples(args.out, tuple(args.bare_seeds), surface="bare")
    paths += table_samples(args.out, tuple(args.cloth_seeds), surface="cloth")
    paths.append(contact_sheet(args.out))
    for p in paths:
        print(f"{p}  {p.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
