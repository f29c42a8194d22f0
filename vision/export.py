"""Export for the reading runtime: `python -m vision.export [WEIGHTS]` writes the dice finder's ONNX and NCNN beside
it; `python -m vision.export --cards [FOLDER]` writes an ONNX beside each of the card reader's models."""

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


def export(weights: Path = DEFAULT_WEIGHTS, ncnn: bool = True) -> tuple[Path, ...]:
    """finder.onnx (dynamic input size) and, with `ncnn`, finder_ncnn_model/ next to the .pt weights, weights
    stored as float16."""
    from vision.onnx_session import record_source
    from vision.ultra import quiet_import

    quiet_import()
    from ultralytics import YOLO

    onnx = Path(YOLO(str(weights)).export(format="onnx", dynamic=True, simplify=True, imgsz=640, verbose=False))
    store_half(onnx)
    record_source(onnx, weights)
    if not ncnn:
        return (onnx,)
    # float16 storage halves the NCNN weights; the Pi's NCNN computes in float16 whatever the file holds
    ncnn_dir = Path(YOLO(str(weights)).export(format="ncnn", imgsz=640, half=True, verbose=False))
    target = weights.with_name(weights.stem + "_ncnn_model")
    if ncnn_dir.resolve() != target.resolve():
        shutil.rmtree(target, ignore_errors=True)
        shutil.move(str(ncnn_dir), target)
    # pnnx leaves a sample inference script beside the model: not part of the model, and not our code
    (target / "model_ncnn.py").unlink(missing_ok=True)
    return onnx, target


def export_cards(folder: Path) -> list[Path]:
    """An ONNX beside each of a card models folder's .pt (detectors and classifiers): the reader then needs
    neither torch nor ultralytics."""
    from vision.cards.index_classifier import CLASSIFIERS, IndexClassifier
    from vision.cards.reader import FINDER_NAME, SPOTTER_NAME
    from vision.cards.seams import NAME as SEAM_NAME
    from vision.cards.seams import SeamClassifier

    written: list[Path] = []
    for name in (FINDER_NAME, SPOTTER_NAME):
        if (folder / name).exists():
            written += export(folder / name, ncnn=False)
    for name in CLASSIFIERS:
        if (folder / name).exists():
            written.append(IndexClassifier(folder / name).export((folder / name).with_suffix(".onnx")))
    if (folder / SEAM_NAME).exists():
        written.append(SeamClassifier(folder / SEAM_NAME).export((folder / SEAM_NAME).with_suffix(".onnx")))
    return written


def main(argv: list[str] | None = None) -> int:
    """Export the dice finder, or with --cards a card models folder."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--cards"]:
        from vision.cards.reader import MODELS

        paths: tuple[Path, ...] | list[Path] = export_cards(Path(args[1]) if len(args) > 1 else MODELS)
    else:
        paths = export(Path(args[0]) if args else DEFAULT_WEIGHTS)
    print("\n".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
