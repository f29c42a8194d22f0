"""The face classifier: a die's crop -> no die, face 1-6 or cocked die, run with onnxruntime (a small CNN, or
YOLOv5n's backbone started from the COCO-pretrained detector)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.types import FaceGuess, Frame

if TYPE_CHECKING:
    import torch

INPUT_SIZE = 48
CLASSES = 8  # index 0 = no die at all, 1-6 = the face, 7 = a cocked die (a die with no face up)
NO_DIE = 0
COCKED = 7
CLASS_NAMES = ("sin dado", "1", "2", "3", "4", "5", "6", "dado montado")
# Models before the cocked class (7 outputs) had one "no readable face" class 0 for both: they read the same
# way, but cannot tell a cocked die from no die, so they never drop a detection.
DEFAULT_THRESHOLD = 0.9
MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "faces"
ONNX_NAME = "face_cnn.onnx"
TORCH_NAME = "face_cnn.pt"
METHOD = "cnn"
WIDTHS = (16, 32, 64, 96)
BACKBONE_ARCH = "yolov5n"  # YOLOv5n's backbone, to start from the COCO-pretrained detector's weights
ARCHS = ("cnn", BACKBONE_ARCH)
BACKBONE_LAYERS = 9  # its last layer (SPPF): 0-9 are the backbone
BACKBONE_CHANNELS = 256  # what its SPPF gives at YOLOv5n's width
# The COCO-pretrained YOLOv5n (AGPL-3.0) the backbones start from (dice, cards, the GPU pack): read where it lies in
# ../shared beside the checkout, never copied into it
PRETRAINED = Path(__file__).resolve().parents[3] / "shared" / "pretrained" / "yolov5n-coco.state.pt"

Batch = npt.NDArray[np.float32]


def preprocess(crops: Sequence[Frame], size: int = INPUT_SIZE) -> Batch:
    """Crops -> N x 3 x size x size float32, RGB, each crop standardised (zero mean, unit spread)."""
    out = np.empty((len(crops), 3, size, size), np.float32)
    for i, crop in enumerate(crops):
        interp = cv2.INTER_AREA if min(crop.shape[:2]) > size else cv2.INTER_LINEAR
        img = cv2.resize(crop, (size, size), interpolation=interp)[:, :, ::-1].astype(np.float32)
        img -= img.mean()
        img /= max(float(img.std()), 8.0)  # a flat crop is not stretched into noise
        out[i] = img.transpose(2, 0, 1)
    return out


def fit_temperature(logits: npt.NDArray[np.float32], labels: npt.NDArray[np.intp]) -> float:
    """The temperature that makes softmax(logits / T) most likely for the labels (temperature scaling): the
    classifier's probabilities then say how often it is right, which a level of "sure" needs."""
    candidates = np.exp(np.linspace(np.log(0.05), np.log(20.0), 400))
    rows = np.arange(len(labels))

    def loss(t: float) -> float:
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[rows, labels]))

    return float(min(candidates, key=loss))


def softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Row-wise softmax."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: npt.NDArray[np.float32] = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def build_model(widths: tuple[int, ...] = WIDTHS, classes: int = CLASSES, arch: str = "cnn") -> torch.nn.Module:
    """The network (needs torch) of `arch`: "cnn", the small CNN of `widths`; "yolov5n", YOLOv5n's backbone."""
    if arch == BACKBONE_ARCH:
        return build_backbone_model(classes)
    if arch != "cnn":
        raise ValueError(f"arquitectura desconocida {arch!r}: {', '.join(ARCHS)}")
    return _build_cnn(widths, classes)


def build_backbone_model(classes: int = CLASSES) -> torch.nn.Module:
    """YOLOv5n's backbone (layers 0-9, as ultralytics builds it from yolov5n.yaml), global pooling, a linear head."""
    from torch import nn

    from vision.ultra import quiet_import

    quiet_import()
    from ultralytics.nn.tasks import DetectionModel

    detector = DetectionModel("yolov5n.yaml", verbose=False)
    backbone = nn.Sequential(*detector.model[: BACKBONE_LAYERS + 1])
    head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(BACKBONE_CHANNELS, classes))
    return nn.Sequential(backbone, head)


def detector_layers(state: Mapping[str, Any], last: int) -> dict[str, Any]:
    """The tensors of a YOLO detector's state dict (keys `model.<layer>.…`) from layer 0 to `last`."""
    kept = {}
    for key, tensor in state.items():
        parts = str(key).split(".")
        if len(parts) > 2 and parts[0] == "model" and parts[1].isdigit() and int(parts[1]) <= last:
            kept[str(key)] = tensor
    return kept


def load_pretrained_backbone(model: torch.nn.Module, path: Path) -> int:
    """Load a YOLOv5n detector's state dict (keys `model.<layer>.…`) into the backbone of `build_backbone_model`;
    the number of tensors loaded. ValueError when the file holds no such backbone."""
    import torch

    state = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise ValueError(f"{path} no es un diccionario de pesos de torch")
    wanted = {
        "0." + key.removeprefix("model."): tensor.float() if tensor.is_floating_point() else tensor
        for key, tensor in detector_layers(state, BACKBONE_LAYERS).items()
    }
    expected = {k for k in model.state_dict() if k.startswith("0.")}
    if not wanted or set(wanted) != expected:
        raise ValueError(f"{path} no trae la columna de YOLOv5n (capas 0-{BACKBONE_LAYERS}) que este modelo espera")
    model.load_state_dict(wanted, strict=False)
    return len(wanted)


def _build_cnn(widths: tuple[int, ...], classes: int) -> torch.nn.Module:
    """Six 3x3 conv layers with batch norm, global pooling, `classes` logits."""
    from torch import nn

    w1, w2, w3, w4 = widths

    def conv(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *conv(3, w1),
        nn.MaxPool2d(2),  # 24x24
        *conv(w1, w2),
        nn.MaxPool2d(2),  # 12x12
        *conv(w2, w3),
        *conv(w3, w3),
        nn.MaxPool2d(2),  # 6x6
        *conv(w3, w4),
        *conv(w4, w4),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(w4, classes),
    )


def no_face_probability(probs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Per row (or for one row): the probability that no face is up to read, no die and cocked die together."""
    out: npt.NDArray[np.float32] = probs[..., NO_DIE] + (probs[..., COCKED] if probs.shape[-1] > COCKED else 0.0)
    return out


def likeliest_face(probs: npt.NDArray[np.float32]) -> npt.NDArray[np.intp]:
    """Per row (or for one row): the face 1-6 with the highest probability, whatever the other classes say."""
    out: npt.NDArray[np.intp] = np.argmax(probs[..., 1:7], axis=-1) + 1
    return out


def guess_from_probabilities(probs: npt.NDArray[np.float32]) -> FaceGuess:
    """The classifier's guess from one row of probabilities: None when "no readable face" beats every face."""
    best = int(likeliest_face(probs))
    none = float(no_face_probability(probs))
    faces = tuple(float(p) for p in probs[1:7])
    if none > float(probs[best]):
        return FaceGuess(None, none, METHOD, faces=faces)
    return FaceGuess(best, float(probs[best]), METHOD, faces=faces)


class FaceClassifier:
    """Reads faces with the trained CNN: ONNX via onnxruntime, or the torch weights when there is no ONNX."""

    def __init__(self, model_dir: Path = MODEL_DIR) -> None:
        """Load `face_cnn.onnx` (or `face_cnn.pt`) and its metadata (input size, threshold) from `model_dir`."""
        self.model_dir = model_dir
        self._session: Any = None
        self._torch_model: Any = None
        onnx_path, torch_path = model_dir / ONNX_NAME, model_dir / TORCH_NAME
        meta: dict[str, Any]
        if onnx_path.exists():
            import onnxruntime as ort

            options = ort.SessionOptions()
            # every core for the batch (the same probabilities as on one: checked on 1517 crops), and no
            # spin-waiting once it is done: the pip counter comes next (models/dice, Speed)
            options.intra_op_num_threads = os.cpu_count() or 1
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.force_spinning_stop", "1")
            self._session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
            custom = self._session.get_modelmeta().custom_metadata_map
            meta = json.loads(custom.get("cacho", "{}"))
            self.backend = "onnxruntime"
        elif torch_path.exists():
            import torch

            saved = torch.load(torch_path, map_location="cpu", weights_only=True)
            meta = dict(saved["meta"])
            classes = len(meta.get("classes", CLASS_NAMES))
            model = build_model(tuple(meta.get("widths", WIDTHS)), classes, str(meta.get("arch", "cnn")))
            model.load_state_dict(saved["state_dict"])
            model.eval()
            self._torch_model = model
            self.backend = "torch"
        else:
            raise FileNotFoundError(f"no hay modelo de caras en {model_dir} (falta {ONNX_NAME} o {TORCH_NAME})")
        self.input_size = int(meta.get("input_size", INPUT_SIZE))
        self.threshold = float(meta.get("threshold", DEFAULT_THRESHOLD))
        # a model adapted to one table's dice: trusted alone from this level where the pips are not counted
        alone = meta.get("alone_threshold")
        self.alone_threshold = float(alone) if alone is not None else None
        # the logits are divided by it before the softmax: fitted on the calibration crops (1: as trained)
        self.temperature = float(meta.get("temperature", 1.0))
        # Calibrated, and only for a model with the cocked class (None: never): p(no die) at or above which a
        # detection is dropped (no calibration die was), and p(cocked) at or above which a die is flagged.
        eight = len(meta.get("classes", ())) > COCKED
        absent, leaning = meta.get("absent_threshold"), meta.get("cocked_threshold")
        self.absent_threshold = float(absent) if eight and absent is not None else None
        self.cocked_threshold = float(leaning) if eight and leaning is not None else None
        # trained on crops turned so the way out from the frame's centre points up (crops.outward_turn)
        self.turned = bool(meta.get("turned", False))
        self.meta = meta
        from vision.candidates import load_level

        # a doubtful die's candidate faces: those it gives at least this probability (None: every face)
        self.candidate_level = load_level(model_dir)

    def logits(self, batch: Batch) -> npt.NDArray[np.float32]:
        """Raw outputs for a preprocessed batch."""
        if self._session is not None:
            name = self._session.get_inputs()[0].name
            return np.asarray(self._session.run(None, {name: batch})[0], np.float32)
        import torch

        with torch.no_grad():
            return np.asarray(self._torch_model(torch.from_numpy(batch)).numpy(), np.float32)

    def probabilities(self, crops: Sequence[Frame], batch_size: int = 64) -> npt.NDArray[np.float32]:
        """N x classes probabilities: column 0 = no die, column k = face k, column 7 = cocked die."""
        if not crops:
            return np.zeros((0, len(self.meta.get("classes", CLASS_NAMES))), np.float32)
        parts = []
        for start in range(0, len(crops), batch_size):
            batch = preprocess(crops[start : start + batch_size], self.input_size)
            parts.append(softmax(self.logits(batch) / self.temperature))
        return np.concatenate(parts)

    def read_faces(self, crops: Sequence[Frame]) -> list[FaceGuess]:
        """One guess per crop: the most probable face and its probability (None when no face is readable)."""
        return [guess_from_probabilities(row) for row in self.probabilities(crops)]
