"""Weights made small for the trip to the GPU machine: 8 bits a number, a scale and offset per output channel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

QUANT_MIN_NUMEL = 256  # smaller tensors (batch norm, biases) travel as float16


def quantize(state: dict[str, torch.Tensor]) -> dict[str, Any]:
    """A state dict in 8 bits a weight (per output channel, min-max), small and integer tensors as they are."""
    out: dict[str, Any] = {}
    for key, tensor in state.items():
        t = tensor.detach().cpu()
        if not t.is_floating_point():
            out[key] = t
        elif t.numel() < QUANT_MIN_NUMEL or t.dim() < 2:
            out[key] = t.half()
        else:
            flat = t.float().reshape(t.shape[0], -1)
            low = flat.min(dim=1, keepdim=True).values
            step = ((flat.max(dim=1, keepdim=True).values - low) / 255).clamp_min(1e-12)
            q = ((flat - low) / step).round().clamp(0, 255).to(torch.uint8)
            out[key] = {"q": q, "low": low.half(), "step": step.float(), "shape": list(t.shape)}
    return out


def dequantize(packed: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The float32 state dict back from `quantize`."""
    out: dict[str, torch.Tensor] = {}
    for key, value in packed.items():
        if isinstance(value, dict):
            flat = value["q"].float() * value["step"] + value["low"].float()
            out[key] = flat.reshape(value["shape"])
        else:
            out[key] = value.float() if value.is_floating_point() else value
    return out


def save_quantized(state: dict[str, torch.Tensor], path: Path) -> int:
    """Write `state` quantized to `path`; its size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(quantize(state), path)
    return path.stat().st_size


def load_quantized(path: Path) -> dict[str, torch.Tensor]:
    """A state dict written by `save_quantized`, in float32."""
    return dequantize(torch.load(path, map_location="cpu", weights_only=True))


def yolo_checkpoint(state: dict[str, Any], names: list[str], out: Path) -> int:
    """Save an ultralytics checkpoint of YOLOv5n with these class names, to train from, holding every tensor of
    `state` whose name and shape fit (the rest starts afresh); how many it holds."""
    import time

    from vision.ultra import quiet_import

    quiet_import()
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel("yolov5n.yaml", nc=len(names), verbose=False)
    own = model.state_dict()
    fits = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
    model.load_state_dict(fits, strict=False)
    model.names = dict(enumerate(names))
    torch.save({"model": model, "train_args": {}, "date": time.strftime("%Y-%m-%d")}, out)
    return len(fits)
