"""The dice finder: a YOLO detector run on a reduced copy of the frame: its ONNX export with ONNX Runtime alone
(vision.onnx_yolo, the reading runtime), or its weights or NCNN folder through ultralytics."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.onnx_yolo import OnnxYolo
from vision.types import Box, Detection, Frame

DEFAULT_WEIGHTS = Path(__file__).resolve().parent.parent / "models" / "dice" / "finder.pt"


# A photo smaller than the finder's size is not enlarged: the finder learnt real photos at their own
# size, and enlarging a 640 px photo 2x lost dice and found many that were not there (model card).
MAX_ENLARGE = 1.0


def reduce(frame: Frame, long_side: int, max_enlarge: float = MAX_ENLARGE) -> tuple[Frame, float]:
    """The frame scaled so its long side is `long_side`: shrunk with INTER_AREA (no aliasing), or enlarged
    at most `max_enlarge` times with INTER_CUBIC."""
    height, width = frame.shape[:2]
    scale = min(max_enlarge, long_side / max(height, width))
    if scale == 1.0:
        return frame, 1.0
    size = (round(width * scale), round(height * scale))
    if scale > 1:
        return np.ascontiguousarray(cv2.resize(frame, size, interpolation=cv2.INTER_CUBIC)), scale
    # Halving first (2x2 averages: OpenCV's fast path) then one INTER_AREA step: about half the time of one
    # INTER_AREA step from a 12 MP still, and the same box averaging.
    while frame.shape[1] >= 2 * size[0] and frame.shape[0] >= 2 * size[1]:
        half = (frame.shape[1] // 2, frame.shape[0] // 2)
        frame = np.asarray(cv2.resize(frame[: 2 * half[1], : 2 * half[0]], half, interpolation=cv2.INTER_AREA))
    return np.ascontiguousarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA)), scale


COCKED_CLASS = 1  # a finder with two classes: 0 a die, 1 a cocked die


def one_box_a_die(xyxy: np.ndarray, confidences: np.ndarray, classes: np.ndarray, iou: float) -> list[Detection]:
    """A two-class finder's boxes (suppressed class by class) as one box a die, most confident first: a box is
    kept unless a kept box overlaps it by `iou` or more, and a kept box's `cocked` is the best confidence of the
    cocked boxes on it (0 where none)."""
    boxes = [Box(*map(float, row)) for row in xyxy]
    kept: list[int] = []
    for i in np.argsort(-confidences, kind="stable"):
        if all(boxes[i].iou(boxes[k]) < iou for k in kept):
            kept.append(int(i))
    cocked = [j for j in range(len(boxes)) if classes[j] == COCKED_CLASS]
    return [
        Detection(
            boxes[k],
            float(confidences[k]),
            int(classes[k]),
            max((float(confidences[j]) for j in cocked if boxes[k].iou(boxes[j]) >= iou), default=0.0),
        )
        for k in kept
    ]


class YoloFinder:
    """Finds dice with a YOLO model (.pt, .onnx or an NCNN folder); boxes in original-frame pixels."""

    def __init__(
        self,
        weights: Path = DEFAULT_WEIGHTS,
        long_side: int = 1280,
        confidence: float = 0.25,
        iou: float = 0.5,
        max_enlarge: float = MAX_ENLARGE,
    ) -> None:
        if not Path(weights).exists():
            raise FileNotFoundError(f"no están los pesos del detector de dados: {weights}")
        self.model: Any
        if Path(weights).suffix == ".onnx":  # no torch, no ultralytics: the reading runtime
            from vision.onnx_yolo import OnnxYolo

            self.model = OnnxYolo(Path(weights))
        else:
            from vision.ultra import quiet_import

            quiet_import()
            from ultralytics import YOLO

            self.model = YOLO(str(weights), task="detect")
        self.weights = Path(weights)
        self._quiet = False  # whether an ONNX session has been told not to spin (see _stop_spinning)
        self.long_side = long_side
        self.confidence = confidence
        self.iou = iou
        self.max_enlarge = max_enlarge

    def detect(self, frame: Frame) -> list[Detection]:
        """Every die found, most confident first."""
        # ultralytics turns OpenCV's threads off when imported (for its training loaders); the reduced copy of
        # a 12 MP still takes half the time on two cores (the same pixels), and they are turned off again
        # after, as OpenCV's idle threads slowed the inference and the pip counter (models/dice)
        threads = cv2.getNumThreads()
        cv2.setNumThreads(os.cpu_count() or 1)
        try:
            small, scale = reduce(frame, self.long_side, self.max_enlarge)
        finally:
            cv2.setNumThreads(threads)
        # the reduced frame as it is, padded to the stride: a square input (NCNN's default) costs twice the time
        imgsz = [int(np.ceil(side / 32) * 32) for side in small.shape[:2]]
        if isinstance(self.model, OnnxYolo):
            xyxy, confidences, classes = self.model.predict(small, (imgsz[0], imgsz[1]), self.confidence, self.iou)
            xyxy = xyxy / scale
        else:
            result = self.model.predict(small, imgsz=imgsz, conf=self.confidence, iou=self.iou, verbose=False)[0]
            if not self._quiet:
                self._stop_spinning()
            boxes: Any = result.boxes  # ultralytics' Boxes never leave this method
            xyxy = np.asarray(boxes.xyxy.cpu()) / scale
            confidences = np.asarray(boxes.conf.cpu())
            classes = np.asarray(boxes.cls.cpu()).astype(int)
        if len(self.model.names) > 1:
            return one_box_a_die(xyxy, confidences, classes, self.iou)
        found = [Detection(Box(*map(float, xyxy[i])), float(confidences[i]), int(classes[i])) for i in range(len(xyxy))]
        return sorted(found, key=lambda d: -d.confidence)

    def _stop_spinning(self) -> None:
        """Rebuild an ONNX Runtime session so that its threads stop spin-waiting when a run ends (the same model,
        threads and providers, so the same boxes). By default they spin on the cores for a while after each run,
        and the pip counter that comes next lost about 30 ms of 60 to them on the bench table (models/dice);
        spinning only within the run keeps the run as fast as before."""
        self._quiet = True
        backend = getattr(getattr(self.model.predictor, "model", None), "backend", None)
        session = getattr(backend, "session", None)
        if self.weights.suffix != ".onnx" or backend is None or session is None:
            return
        import onnxruntime as ort

        options = session.get_session_options()
        options.add_session_config_entry("session.force_spinning_stop", "1")
        backend.session = ort.InferenceSession(str(self.weights), options, providers=session.get_providers())
