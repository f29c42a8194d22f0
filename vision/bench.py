"""Timing the reader: a full-resolution table read against one plain 640x640 inference, per backend."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from vision.frames import load_image
from vision.pipeline import MODELS, PairedFaces
from vision.reader import DiceReader, ReaderSettings

BENCH_TABLE = "bench_table.jpg"  # a rendered 4608x2592 table with 25 dice (vision.synth, seed in the model card)
# Its labels (YOLO, one die a line: vision.evaluate.read_labels), written once by vision.synth.compose.yolo_lines from
# compose_table(424207, flat_dice="billboard"), the mode that rendered the table, before that mode was deleted.
BENCH_LABELS = "bench_table.txt"
BACKENDS = (("pytorch", "finder.pt"), ("onnx", "finder.onnx"), ("ncnn", "finder_ncnn_model"))


def median_ms(run: Any, repeat: int) -> float:
    """The median of `repeat` timed calls, after one warm-up call."""
    run()  # warm-up: first calls allocate and compile
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def run(models: Path | None = None, repeat: int = 5) -> dict[str, Any]:
    """Median times of a full read of the bench table and of one 640 inference, for each backend."""
    from vision.finder import YoloFinder

    root = models or MODELS
    frame = load_image(root / "dice" / BENCH_TABLE)
    faces = PairedFaces(root / "faces", processes=True)
    plain = np.zeros((640, 640, 3), np.uint8)
    rows: list[dict[str, Any]] = []
    for backend, name in BACKENDS:
        weights = root / "dice" / name
        try:
            finder = YoloFinder(weights, confidence=ReaderSettings().finder_floor)  # as the shipped reader has it
            reader = DiceReader(finder, faces)
            dice = len(reader.read(frame).dice)
            read_ms = median_ms(lambda r=reader: r.read(frame), repeat)
            # the plain inference on a model loaded as ultralytics loads it, never tuned by the reader (an ONNX
            # session that does not spin is slower alone): the fairest, fastest 640 inference to compare with
            alone = YoloFinder(weights).model
            plain_ms = median_ms(
                lambda m=alone, c=finder.confidence: m.predict(plain, imgsz=640, conf=c, verbose=False), repeat
            )
        except Exception as error:  # a backend that is not installed or not exported: say so, go on
            rows.append({"backend": backend, "error": f"{type(error).__name__}: {error}"})
            continue
        rows.append(
            {
                "backend": backend,
                "dice": dice,
                "read_ms": read_ms,
                "plain640_ms": plain_ms,
                "ratio": read_ms / plain_ms,
            }
        )
    return {"image": str(root / "dice" / BENCH_TABLE), "size": list(frame.shape[1::-1]), "backends": rows}
