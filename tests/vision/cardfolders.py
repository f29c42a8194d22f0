"""Tiny card folders for tests."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def index_folder(root: Path, counts: dict[str, int] | None = None) -> Path:
    """A tiny index folder: photos of light squares with a dark mark, each labelled with a card's class."""
    rng = np.random.default_rng(7)
    for split, count in (counts or {"train": 6, "val": 2}).items():
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for i in range(count):
            image = np.full((120, 160, 3), 60, np.uint8)
            rows = []
            for k in range(2):
                x, y = 20 + 70 * k, int(rng.integers(10, 60))
                image[y : y + 40, x : x + 30] = 230
                cv2.circle(image, (x + 15, y + 12 + 8 * ((i + k) % 3)), 5, (20, 20, 160), -1)
                rows.append(f"{(i + k) % 3} {(x + 15) / 160:.4f} {(y + 20) / 120:.4f} {30 / 160:.4f} {40 / 120:.4f}")
            cv2.imwrite(str(root / "images" / split / f"p{i}.jpg"), image)
            (root / "labels" / split / f"p{i}.txt").write_text("\n".join(rows) + "\n")
    return root
