"""A YOLO detector exported to ONNX, run with ONNX Runtime alone: the reading runtime needs neither torch nor
ultralytics (ultralytics stays the training and export path).

It does what ultralytics' predictor does for an exported detect model: the frame letterboxed to the size asked (a
multiple of the stride, scaled by the ratio that fits, centred on grey 114), RGB in [0, 1]; the output's boxes
(centre, size) and class scores; the boxes of at least `conf` kept, suppressed class by class (greedy, IoU over
`iou`), at most 300, most confident first; then moved back to the frame's pixels and clipped to it.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

MAX_DET = 300
MAX_NMS = 30_000
CLASS_OFFSET = 7680.0  # boxes of two classes never overlap once each class is moved by this much (ultralytics')


class OnnxYolo:
    """An exported YOLO detect model (.onnx), read with ONNX Runtime."""

    def __init__(self, weights: Path) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = os.cpu_count() or 1
        # no spin-waiting once a run is done: the pip counter comes next (models/dice, Speed)
        options.add_session_config_entry("session.force_spinning_stop", "1")
        self.session = ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
        meta = self.session.get_modelmeta().custom_metadata_map
        names = ast.literal_eval(meta.get("names", "{0: 'item'}"))
        self.names: dict[int, str] = {int(k): str(v) for k, v in names.items()}
        self.stride = int(meta.get("stride", 32))
        self.input = self.session.get_inputs()[0].name

    def predict(
        self, image: npt.NDArray[np.uint8], imgsz: tuple[int, int], conf: float, iou: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(boxes N x 4 x1 y1 x2 y2 in `image` pixels, confidences, classes) of a BGR image read at `imgsz`
        (height, width)."""
        batch, gain, (left, top) = letterbox(image, imgsz)
        raw = np.asarray(self.session.run(None, {self.input: batch})[0], np.float32)[0]  # (4 + classes, anchors)
        xyxy, scores, classes = suppress(raw, conf, iou)
        xyxy[:, [0, 2]] -= left
        xyxy[:, [1, 3]] -= top
        xyxy /= gain
        height, width = image.shape[:2]
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, width)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, height)
        return xyxy, scores, classes


def letterbox(image: npt.NDArray[np.uint8], imgsz: tuple[int, int]) -> tuple[Any, float, tuple[int, int]]:
    """The network's input (1 x 3 x H x W float32, RGB in [0, 1]), the scale applied and the (left, top) padding."""
    height, width = image.shape[:2]
    gain = min(imgsz[0] / height, imgsz[1] / width)
    size = (round(width * gain), round(height * gain))
    if size != (width, height):
        image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_LINEAR))
    dw, dh = (imgsz[1] - size[0]) / 2, (imgsz[0] - size[1]) / 2
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    padded = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    batch = np.ascontiguousarray(padded[..., ::-1].transpose(2, 0, 1)[None], dtype=np.float32) / 255.0
    return batch, gain, (left, top)


def suppress(raw: np.ndarray, conf: float, iou: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The output's boxes of at least `conf`, suppressed class by class: (xyxy, confidences, classes)."""
    scores = raw[4:].T
    classes = scores.argmax(axis=1)
    best = scores[np.arange(len(scores)), classes]
    keep = best > conf
    boxes, best, classes = raw[:4].T[keep], best[keep], classes[keep]
    order = np.argsort(-best, kind="stable")[:MAX_NMS]
    boxes, best, classes = boxes[order], best[order], classes[order]
    xyxy = np.empty_like(boxes)
    xyxy[:, 0], xyxy[:, 1] = boxes[:, 0] - boxes[:, 2] / 2, boxes[:, 1] - boxes[:, 3] / 2
    xyxy[:, 2], xyxy[:, 3] = boxes[:, 0] + boxes[:, 2] / 2, boxes[:, 1] + boxes[:, 3] / 2
    kept = greedy(xyxy + classes[:, None] * CLASS_OFFSET, iou)[:MAX_DET]
    return xyxy[kept].astype(np.float64), best[kept].astype(np.float64), classes[kept]


def greedy(xyxy: np.ndarray, iou: float) -> np.ndarray:
    """The indices kept by greedy suppression of boxes sorted most confident first: a box goes when a kept one
    overlaps it by more than `iou`."""
    areas = (xyxy[:, 2] - xyxy[:, 0]) * (xyxy[:, 3] - xyxy[:, 1])
    alive = np.ones(len(xyxy), bool)
    kept = []
    for i in range(len(xyxy)):
        if not alive[i]:
            continue
        kept.append(i)
        rest = np.arange(i + 1, len(xyxy))[alive[i + 1 :]]
        if not len(rest):
            continue
        w = np.clip(np.minimum(xyxy[i, 2], xyxy[rest, 2]) - np.maximum(xyxy[i, 0], xyxy[rest, 0]), 0, None)
        h = np.clip(np.minimum(xyxy[i, 3], xyxy[rest, 3]) - np.maximum(xyxy[i, 1], xyxy[rest, 1]), 0, None)
        inter = w * h
        alive[rest[inter / (areas[i] + areas[rest] - inter) > iou]] = False
    return np.array(kept, dtype=np.intp)
