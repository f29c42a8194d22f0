"""`python -m vision.faces.speed [--arch A ...]`: the time per die of each face classifier network on this CPU
(ONNX Runtime, 64 px crops in batches of a table's dice), to see which fits the reader's budget before training it.
The YOLOv5 backbones are built from ultralytics' yaml (layers 0-9, pooling, a linear head); the weights are random:
the time does not depend on them."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from vision.faces.classifier import BACKBONE_LAYERS, CLASSES, build_model

# output channels of the SPPF layer at each YOLOv5 width (n 0.25, s 0.50, m 0.75 of 1024)
WIDER = {"yolov5s": 512, "yolov5m": 768}
ARCHS = ("cnn", "yolov5n", *WIDER)


def network(arch: str) -> Any:
    """The classifier network of `arch`, random weights, in eval mode."""
    from torch import nn

    if arch not in WIDER:
        model = build_model(arch=arch)
    else:
        from vision.ultra import quiet_import

        quiet_import()
        from ultralytics.nn.tasks import DetectionModel

        detector = DetectionModel(f"{arch}.yaml", verbose=False)
        head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(WIDER[arch], CLASSES))
        model = nn.Sequential(nn.Sequential(*detector.model[: BACKBONE_LAYERS + 1]), head)
    return model.eval()


def time_per_die(arch: str, size: int = 64, dice: int = 25, repeat: int = 30, threads: int = 2) -> dict[str, float]:
    """Parameters (millions) and the median milliseconds a die of `repeat` batches of `dice` crops."""
    import onnxruntime as ort
    import torch

    model = network(arch)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.onnx"
        with warnings.catch_warnings():  # the TorchScript exporter is deprecated but needs no onnxscript
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(
                model,
                (torch.zeros(1, 3, size, size),),
                str(path),
                input_names=["crops"],
                output_names=["logits"],
                dynamic_axes={"crops": {0: "n"}},
                opset_version=17,
                dynamo=False,
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    batch = np.random.default_rng(0).standard_normal((dice, 3, size, size)).astype(np.float32)
    for _ in range(3):
        session.run(None, {"crops": batch})
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        session.run(None, {"crops": batch})
        times.append(time.perf_counter() - start)
    params = sum(p.numel() for p in model.parameters()) / 1e6
    return {"parameters_m": round(params, 2), "ms_per_die": round(float(np.median(times)) / dice * 1000, 3)}


def main(argv: list[str] | None = None) -> int:
    """Print each network's size and time per die."""
    p = argparse.ArgumentParser(prog="python -m vision.faces.speed", description=__doc__)
    p.add_argument("--arch", action="append", choices=ARCHS, help="red a medir (por omisión todas)")
    p.add_argument("--repeat", type=int, default=30, help="lotes medidos (la mediana)")
    p.add_argument("--dice", type=int, default=25, help="recortes por lote (los dados de una mesa)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    if args.repeat < 1 or args.dice < 1 or args.threads < 1:
        p.error("--repeat, --dice y --threads deben ser al menos 1")
    for arch in args.arch or ARCHS:
        r = time_per_die(arch, dice=args.dice, repeat=args.repeat, threads=args.threads)
        print(f"{arch:8s} {r['parameters_m']:6.2f} M parámetros · {r['ms_per_die']:.3f} ms por dado")
    return 0


if __name__ == "__main__":
    sys.exit(main())
