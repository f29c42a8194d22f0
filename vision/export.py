"""Export the finder for other runtimes: `python -m vision.export [WEIGHTS]` writes ONNX and NCNN beside it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from vision.finder import DEFAULT_WEIGHTS


def export(weights: Path = DEFAULT_WEIGHTS) -> tuple[Path, Path]:
    """finder.onnx (dynamic input size) and finder_ncnn_model/ next to the .pt weights."""
    from ultralytics import YOLO

    onnx = Path(YOLO(str(weights)).export(format="onnx", dynamic=True, simplify=True, imgsz=640, verbose=False))
    ncnn = Path(YOLO(str(weights)).export(format="ncnn", imgsz=640, verbose=False))
    target = weights.with_name(weights.stem + "_ncnn_model")
    if ncnn.resolve() != target.resolve():
        shutil.rmtree(target, ignore_errors=True)
        shutil.move(str(ncnn), target)
    # pnnx leaves a sample inference script beside the model: not part of the model, and not our code
    (target / "model_ncnn.py").unlink(missing_ok=True)
    return onnx, target


if __name__ == "__main__":
    paths = export(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_WEIGHTS)
    print("\n".join(str(p) for p in paths))
