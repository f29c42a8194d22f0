"""ONNX Runtime sessions as the reading runtime opens them, and a classifier exported with its metadata."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

META_KEY = "cacho"  # the custom metadata entry that holds a classifier's settings (temperature, input size)
SOURCE_KEY = "cacho_source_sha256"  # the sha256 of the .pt an ONNX was exported from


def open_session(path: Path) -> Any:
    """An ONNX Runtime session on the CPU: every core within a run, and no spin-waiting once it is done (the pip
    counter or the next classifier comes next: models/dice, Speed)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.force_spinning_stop", "1")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def session_meta(session: Any) -> dict[str, Any]:
    """The settings stored in an exported classifier (empty when it has none)."""
    found = json.loads(session.get_modelmeta().custom_metadata_map.get(META_KEY, "{}"))
    return dict(found) if isinstance(found, dict) else {}


def file_sha256(path: Path) -> str:
    """A file's sha256, hex."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def exported_from(path: Path) -> str | None:
    """The sha256 of the .pt weights an ONNX was exported from (None: not recorded)."""
    return onnx_metadata(path).get(SOURCE_KEY) or None


def onnx_metadata(path: Path) -> dict[str, str]:
    """An ONNX file's metadata entries, read from its bytes without opening a session (a session builds the whole
    graph: a tenth of a second or more, for a file the reader then opens again). ValueError where it is no ONNX."""
    data = Path(path).read_bytes()
    found: dict[str, str] = {}
    for field, value in _fields(data):
        if field == 14 and isinstance(value, bytes):  # ModelProto.metadata_props: StringStringEntryProto
            entry = {f: v for f, v in _fields(value) if isinstance(v, bytes)}
            found[entry.get(1, b"").decode("utf-8")] = entry.get(2, b"").decode("utf-8")
    return found


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """The top-level fields of a protobuf message: (number, value), a length-delimited value as its bytes."""

    def varint(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            if at >= len(data):
                raise ValueError("protobuf cortado")
            byte = data[at]
            value |= (byte & 0x7F) << shift
            at, shift = at + 1, shift + 7
            if not byte & 0x80:
                return value, at

    out: list[tuple[int, int | bytes]] = []
    at = 0
    while at < len(data):
        key, at = varint(at)
        field, kind = key >> 3, key & 7
        if kind == 0:
            number, at = varint(at)
            out.append((field, number))
        elif kind == 2:
            size, at = varint(at)
            if at + size > len(data):
                raise ValueError("protobuf cortado")
            out.append((field, data[at : at + size]))
            at += size
        elif kind in (1, 5):
            at += 8 if kind == 1 else 4
        else:
            raise ValueError(f"protobuf con un tipo de campo desconocido ({kind})")
    return out


def runtime_weights(weights: Path) -> Path:
    """What the reader loads for torch weights: the ONNX beside them, exported from these very weights (the reading
    runtime needs no torch); the weights themselves where there is none, or where it was exported from others."""
    onnx = Path(weights).with_suffix(".onnx")
    if not onnx.exists():
        return Path(weights)
    if not Path(weights).exists() or exported_from(onnx) == file_sha256(weights):
        return onnx
    return Path(weights)


def record_source(path: Path, source: Path, meta: dict[str, Any] | None = None) -> None:
    """Store in an ONNX the sha256 of the .pt it was exported from (and `meta` as its settings)."""
    import onnx

    proto = onnx.load(str(path))
    entries = {e.key: e for e in proto.metadata_props}
    wanted = {SOURCE_KEY: file_sha256(source)} | ({} if meta is None else {META_KEY: json.dumps(meta)})
    for key, value in wanted.items():
        entry = entries.get(key) or proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(path))


def need_torch(weights: Path) -> None:
    """A clear error where torch weights are to be read without the learning part."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise FileNotFoundError(
            f"{weights}: no hay un ONNX exportado de estos pesos y leerlos necesita torch (la parte de aprendizaje); "
            "expórtelos con python -m vision.export --cards, o instale la parte de aprendizaje (scripts/venv.sh learn)"
        )


class OnnxNet:
    """A classifier exported to ONNX: a float32 batch in, its logits out."""

    def __init__(self, path: Path) -> None:
        self.session = open_session(path)
        self.meta = session_meta(self.session)
        self.input = self.session.get_inputs()[0].name

    def __call__(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The logits of a preprocessed batch (N x 3 x H x W)."""
        return np.asarray(self.session.run(None, {self.input: batch})[0], np.float32)


def load_net(weights: Path, build: Callable[[dict[str, Any]], Any]) -> tuple[OnnxNet | None, Any, dict[str, Any]]:
    """A classifier from its exported ONNX, or from torch weights into the network `build` makes of their saved
    settings: (the ONNX, or None; the torch model, or None; the saved settings)."""
    if weights.suffix == ".onnx":
        net = OnnxNet(weights)
        return net, None, net.meta
    need_torch(weights)
    import torch

    saved = dict(torch.load(weights, map_location="cpu", weights_only=True))
    model = build(saved)
    model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
    model.eval()
    return None, model, saved


def logits_of(net: OnnxNet | None, model: Any, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The raw outputs of a preprocessed batch, from the ONNX or the torch model `load_net` gave."""
    if net is not None:
        return net(batch)
    import torch

    with torch.inference_mode():
        return np.asarray(model(torch.from_numpy(batch)).numpy(), np.float32)


def export_net(model: Any, path: Path, shape: tuple[int, int], meta: dict[str, Any], source: Path) -> Path:
    """A torch classifier (read from the weights `source`) to ONNX (opset 17, batch free, float16 storage), `meta`
    and the weights' sha256 stored with it; written whole or not at all."""
    import warnings

    if model is None:
        raise ValueError(f"{source}: ya es un ONNX; se exporta desde los pesos .pt")

    import torch

    from vision.export import store_half

    partial = path.with_name(path.name + ".partial")
    model = model.float().eval()
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated but needs no onnxscript
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            (torch.zeros(1, 3, *shape),),
            str(partial),
            input_names=["crops"],
            output_names=["logits"],
            dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
            opset_version=17,
            dynamo=False,
            # batch norm kept apart from its convolution: the weights stay the saved float16 values, stored so
            # exactly (folded, they are not, and float16 storage moved probabilities by up to 0.003)
            do_constant_folding=False,
        )
    store_half(partial)
    record_source(partial, source, meta)
    os.replace(partial, path)
    return path
