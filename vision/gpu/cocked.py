"""`python -m vision.gpu cocked --finder PT DIR ...`: how well a finder with a cocked class tells the cocked dice of
rendered tables (their meta/ says which) from the flat ones, at the reader's scale; a table, or --json."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.finder import reduce

THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.5)
FOUND = 0.25  # the reader's confidence for a die found (YoloFinder's default)
MATCH_IOU = 0.5


def iou(a: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Intersection over union of box `a` with each row of `boxes` (x1, y1, x2, y2)."""
    if len(boxes) == 0:
        return np.zeros(0)
    x1, y1 = np.maximum(a[0], boxes[:, 0]), np.maximum(a[1], boxes[:, 1])
    x2, y2 = np.minimum(a[2], boxes[:, 2]), np.minimum(a[3], boxes[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (a[2] - a[0]) * (a[3] - a[1]) + (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return np.asarray(inter / np.maximum(area - inter, 1e-9))


def scores(
    model: Any, image: np.ndarray, truth: list[dict[str, Any]], long_side: int
) -> list[tuple[bool, float, float]]:
    """Per true die: (cocked, the best confidence of any box on it, the best confidence of a cocked box on it)."""
    small, scale = reduce(image, long_side)
    imgsz = [int(np.ceil(side / 32) * 32) for side in small.shape[:2]]
    result = model.predict(small, imgsz=imgsz, conf=0.01, iou=0.5, verbose=False)[0]
    boxes = np.asarray(result.boxes.xyxy.cpu()) / scale
    conf = np.asarray(result.boxes.conf.cpu())
    cls = np.asarray(result.boxes.cls.cpu()).astype(int)
    out = []
    for die in truth:
        near = iou(np.asarray(die["box"], dtype=float), boxes) >= MATCH_IOU
        any_box = float(conf[near].max()) if near.any() else 0.0
        cocked = near & (cls == 1)
        out.append((bool(die.get("cocked")), any_box, float(conf[cocked].max()) if cocked.any() else 0.0))
    return out


def measure(finder: Path, folder: Path, long_side: int = 1280) -> dict[str, Any]:
    """The separation on one folder of rendered tables (images/ and meta/)."""
    from ultralytics import YOLO

    model = YOLO(str(finder), task="detect")
    if len(model.names) < 2:
        raise SystemExit(f"{finder} no tiene clase de dado montado (clases: {model.names})")
    rows: list[tuple[bool, float, float]] = []
    for meta_path in sorted((folder / "meta").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(folder / "images" / meta["image"]), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"no puedo leer {folder / 'images' / meta['image']}")
        rows.extend(scores(model, image, meta["dice"], long_side))
    cocked = [r for r in rows if r[0]]
    flat = [r for r in rows if not r[0]]

    def share(group: list[tuple[bool, float, float]], t: float) -> float:
        return round(sum(r[2] >= t for r in group) / max(1, len(group)), 4)

    return {
        "set": folder.name,
        "tables": len(list((folder / "meta").glob("*.json"))),
        "cocked": len(cocked),
        "flat": len(flat),
        "found_cocked": share([(c, a, a) for c, a, _ in cocked], FOUND),
        "found_flat": share([(c, a, a) for c, a, _ in flat], FOUND),
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
