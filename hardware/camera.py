"""The camera protocol, its error, frame conversions, and `open_camera("pi" | "opencv:N" | "replay:PATH")`."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Protocol, Self

import cv2
import numpy as np
import numpy.typing as npt

Frame = npt.NDArray[np.uint8]  # H x W x 3, BGR (OpenCV's order), uint8; the same as vision.types.Frame
Clock = Callable[[], float]

PREVIEW_WIDTH = 640  # the low-resolution stream: enough to see hands and cups move


class CameraError(RuntimeError):
    """A camera that is missing, busy, unplugged, or has nothing more to show; the caller may retry."""


class Camera(Protocol):
    """A camera at the table: a low-resolution frame for preview and motion, a full one for reading."""

    spec: str
    hfov_deg: float | None  # the full frames' horizontal field of view, once started, where the camera knows it

    def start(self) -> None:
        """Open the device and start streaming (idempotent); CameraError when it cannot."""
        ...

    def preview(self) -> Frame:
        """The latest low-resolution frame (BGR)."""
        ...

    def capture(self) -> Frame:
        """A full-resolution frame (BGR) for the dice reader."""
        ...

    def close(self) -> None:
        """Release the device (idempotent)."""
        ...

    def __enter__(self) -> Self:
        """Start the camera."""
        ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Close the camera."""
        ...


class BaseCamera(ABC):
    """What every camera shares: starting on first use, the context manager, and the lens's field of view where the
    camera knows it."""

    spec = "?"

    def __init__(self) -> None:
        self._started = False
        # the full frames' horizontal field of view, once started, where the camera knows it; None: unknown
        self.hfov_deg: float | None = None

    def start(self) -> None:
        """Open the device and start streaming (idempotent); CameraError when it cannot."""
        if not self._started:
            self._open()
            self._started = True

    def preview(self) -> Frame:
        """The latest low-resolution frame (BGR)."""
        self.start()
        return self._preview()

    def capture(self) -> Frame:
        """A full-resolution frame (BGR) for the dice reader."""
        self.start()
        return self._capture()

    def close(self) -> None:
        """Release the device (idempotent)."""
        if self._started:
            self._started = False
            self._release()

    def __enter__(self) -> Self:
        """Start the camera."""
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Close the camera."""
        self.close()

    @abstractmethod
    def _open(self) -> None:
        """Open the device (CameraError when it cannot)."""

    @abstractmethod
    def _preview(self) -> Frame:
        """The latest low-resolution frame."""

    @abstractmethod
    def _capture(self) -> Frame:
        """A full-resolution frame."""

    @abstractmethod
    def _release(self) -> None:
        """Release the device."""


def to_bgr(array: npt.NDArray[np.uint8], fmt: str = "BGR", width: int | None = None) -> Frame:
    """A camera buffer as H x W x 3 BGR: alpha dropped, YUV420 (I420) converted, grey expanded.

    `fmt` names the buffer's layout in memory: libcamera's "RGB888"/"XRGB8888" are B, G, R(, X) bytes,
    "BGR888"/"XBGR8888" are R, G, B(, X). `width` crops the row padding (stride) of a YUV420 buffer.
    """
    if array.dtype != np.uint8:
        raise CameraError(f"la cámara entregó píxeles {array.dtype}; se esperaba uint8")
    name = fmt.upper()
    if name in ("YUV420", "I420"):
        if array.ndim != 2 or array.shape[0] % 3:
            raise CameraError(f"buffer YUV420 con forma inesperada {array.shape}")
        bgr = cv2.cvtColor(array, cv2.COLOR_YUV2BGR_I420)
    elif array.ndim == 2 or (array.ndim == 3 and array.shape[2] == 1):
        bgr = cv2.cvtColor(array.reshape(array.shape[:2]), cv2.COLOR_GRAY2BGR)
    elif array.ndim == 3 and array.shape[2] in (3, 4):
        bgr = array[:, :, :3]  # drop the alpha / padding byte before inference
        if name in ("BGR888", "XBGR8888", "ABGR8888", "RGB"):  # R first in memory: swap to OpenCV's order
            bgr = bgr[:, :, ::-1]
    else:
        raise CameraError(f"la cámara entregó una imagen con forma inesperada {array.shape}")
    if width is not None and bgr.shape[1] > width:
        bgr = bgr[:, :width]
    return np.ascontiguousarray(bgr)


def downscale(frame: Frame, width: int = PREVIEW_WIDTH) -> Frame:
    """The frame shrunk to `width` pixels wide (aspect kept); a narrower frame is returned as it is."""
    height, current = frame.shape[:2]
    if current <= width:
        return frame
    size = (width, max(1, round(height * width / current)))
    return np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)


SPEC_HELP = "pi, pi:N, opencv:N o replay:RUTA"


def open_camera(
    spec: str,
    *,
    fps: float | None = None,
    loop: bool = False,
    clock: Clock = time.monotonic,
) -> Camera:
    """The camera named by `spec` (not started yet); a malformed spec or a missing replay -> CameraError.

    `fps` and `loop` apply to `replay:` (played as if live); `clock` lets tests drive its time.
    """
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "pi":
        from hardware.picam import PiCamera

        return PiCamera(_index(rest or "0", spec))
    if kind == "opencv":
        from hardware.webcam import WebCamera

        if not rest:
            raise CameraError(f"falta el número de la cámara en «{spec}» (p. ej. opencv:0)")
        return WebCamera(_index(rest, spec))
    if kind == "replay":
        from hardware.replay import ReplayCamera

        if not rest:
            raise CameraError(f"falta la ruta en «{spec}» (p. ej. replay:fotos/)")
        return ReplayCamera(Path(rest), fps=fps, loop=loop, clock=clock)
    raise CameraError(f"cámara desconocida «{spec}»: se esperaba {SPEC_HELP}")


def _index(text: str, spec: str) -> int:
    if not text.isdigit():
        raise CameraError(f"«{spec}»: el número de cámara debe ser un entero 0, 1, 2...")
    return int(text)
