"""Export the finder for other runtimes: `python -m vision.export [WEIGHTS]` writes ONNX and NCNN beside it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from vision.finder import DEFAULT_WEIGHTS


def store_half(onnx_path: Path) -> None:
    """Rewrite an ONNX model's float weights as float16, each cast back to float32 where it is used."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(onnx_path))
    graph = model.graph
    casts = []
    for tensor in list(graph.initializer):
        if tensor.data_type != TensorProto.FLOAT or int(np.prod(tensor.dims)) < 16:
            continue  # small constants (shapes, scales) stay as they are
        half = numpy_helper.from_array(numpy_helper.to_array(tensor).astype(np.float16), tensor.name + "_fp16")
        graph.initializer.remove(tensor)
        graph.initializer.append(half)
        casts.append(helper.make_node("Cast", [half.name], [tensor.name], to=TensorProto.FLOAT))
    # ONNX Runtime folds these casts when it loads the model: it runs in float32 as before, half the bytes on disk
    for node in reversed(casts):
        graph.node.insert(0, node)
    onnx.checker.check_model(model)
    onnx.save(model, str(onnx_path))


def export(weights: Path = DEFAULT_WEIGHTS) -> tuple[Path, Path]:
    """finder.onnx (dynamic input size) and finder_ncnn_model/ next to the .pt weights, weights stored as float16."""
    from vision.ultra import quiet_import

    quiet_import()
    from ultralytics import YOLO

    onnx = Path(YOLO(str(weights)).export(format="onnx", dynamic=True, simplify=True, imgsz=640, verbose=False))
    store_half(onnx)
    # float16 storage halves the NCNN weights; the Pi's NCNN computes in float16 whatever the file holds
    ncnn = Path(YOLO(str(weights)).export(format="ncnn", imgsz=640, half=True, verbose=False))
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
