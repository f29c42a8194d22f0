"""`python -m vision.gpu cocked --finder PT DIR ...`: how well a finder with a cocked class tells the cocked dice of
rendered tables (their meta/ says which) from the flat ones, read as the reader's finder reads; a table, or --json."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.finder import YoloFinder
from vision.types import Box

THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.5)
FOUND = 0.25  # the reader's confidence for a die found (YoloFinder's default)
MATCH_IOU = 0.5


def scores(finder: YoloFinder, image: np.ndarray, truth: list[dict[str, Any]]) -> list[tuple[bool, float, float]]:
    """Per true die: (cocked, the best confidence of a box on it, the best cocked confidence of a box on it)."""
    found = finder.detect(image)
    out = []
    for die in truth:
        near = [d for d in found if d.box.iou(Box(*die["box"])) >= MATCH_IOU]
        best = max((d.confidence for d in near), default=0.0)
        out.append((bool(die.get("cocked")), best, max((d.cocked or 0.0 for d in near), default=0.0)))
    return out


def measure(weights: Path, folder: Path, long_side: int = 1280) -> dict[str, Any]:
    """The separation on one folder of rendered tables (images/ and meta/), read as the reader's finder reads."""
    finder = YoloFinder(weights, long_side=long_side, confidence=0.01)
    if len(finder.model.names) < 2:
        raise SystemExit(f"{weights} no tiene clase de dado montado (clases: {finder.model.names})")
    rows: list[tuple[bool, float, float]] = []
    metas = sorted((folder / "meta").glob("*.json"))
    for meta_path in metas:
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(folder / "images" / meta["image"]), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"no puedo leer {folder / 'images' / meta['image']}")
        rows.extend(scores(finder, image, meta["dice"]))
    cocked = [r for r in rows if r[0]]
    flat = [r for r in rows if not r[0]]

    def share(group: list[tuple[bool, float, float]], t: float, column: int = 2) -> float:
        return round(sum(r[column] >= t for r in group) / max(1, len(group)), 4)

    return {
        "set": folder.name,
        "tables": len(metas),
        "cocked": len(cocked),
        "flat": len(flat),
        "found_cocked": share(cocked, FOUND, 1),
        "found_flat": share(flat, FOUND, 1),
        "flagged": {str(t): {"cocked": share(cocked, t), "flat": share(flat, t)} for t in THRESHOLDS},
    }


def main(argv: list[str] | None = None) -> int:
    """Print, per folder, the share of cocked and of flat dice that the finder's cocked class flags."""
    p = argparse.ArgumentParser(prog="python -m vision.gpu cocked", description=__doc__)
    p.add_argument("folders", type=Path, nargs="+", help="mesas renderizadas (images/ y meta/)")
    p.add_argument("--finder", type=Path, required=True, help="pesos .pt de un buscador con clase de dado montado")
    p.add_argument("--long-side", type=int, default=1280)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not args.finder.is_file():
        raise SystemExit(f"no existe {args.finder}")
    for folder in args.folders:
        if not (folder / "meta").is_dir():
            raise SystemExit(f"{folder} no tiene meta/: hace falta una carpeta de python -m vision.synth")
    reports = [measure(args.finder, folder, args.long_side) for folder in args.folders]
    if args.json:
        print(json.dumps(reports, ensure_ascii=False))
        return 0
    for r in reports:
        print(f"{r['set']}: {r['tables']} mesas, {r['cocked']} dados montados, {r['flat']} planos")
        print(f"  encontrados (conf ≥ {FOUND}): montados {r['found_cocked']:.3f}, planos {r['found_flat']:.3f}")
        for t, f in r["flagged"].items():
            print(f"  clase montado ≥ {t}: marca {f['cocked']:.3f} de los montados y {f['flat']:.3f} de los planos")
    return 0


if __name__ == "__main__":
    sys.exit(main())
