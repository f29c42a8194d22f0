"""Loading and checking frames: a corrupt, empty, grey, 4-channel, tiny or huge image is a clear error."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.types import Frame

MIN_SIDE = 32  # smaller than one die at the closest camera height
MAX_PIXELS = 64_000_000  # a 12 MP Camera Module 3 still is 4608 x 2592; allow far more, not absurd


class FrameError(ValueError):
    """A frame or image file that cannot be read as a colour photo of the table."""


def check_frame(frame: object, name: str = "la imagen") -> Frame:
    """Return `frame` if it is an H x W x 3 uint8 BGR image of a sensible size, else raise FrameError."""
    if not isinstance(frame, np.ndarray):
        raise FrameError(f"{name} no es una imagen (se esperaba un arreglo de píxeles)")
    if frame.size == 0:
        raise FrameError(f"{name} está vacía")
    if frame.dtype != np.uint8:
        raise FrameError(f"{name} tiene píxeles {frame.dtype}; se esperaba uint8 (8 bits por canal)")
    if frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 1):
        raise FrameError(f"{name} está en escala de grises: hace falta una foto en color (BGR)")
    if frame.ndim != 3 or frame.shape[2] != 3:
        channels = frame.shape[2] if frame.ndim == 3 else frame.ndim
        if frame.ndim == 3 and channels == 4:
            raise FrameError(f"{name} tiene 4 canales (con transparencia): hay que quitar el canal alfa")
        raise FrameError(f"{name} tiene una forma {frame.shape} que no es alto x ancho x 3")
    height, width = frame.shape[:2]
    if min(height, width) < MIN_SIDE:
        raise FrameError(f"{name} es muy chica ({width}x{height}); mínimo {MIN_SIDE} px por lado")
    if height * width > MAX_PIXELS:
        raise FrameError(f"{name} es demasiado grande ({width}x{height}); máximo {MAX_PIXELS // 1_000_000} MP")
    return frame


def load_image(path: Path) -> Frame:
    """Read an image file as BGR; missing, unreadable, empty, grey, 4-channel, tiny or huge -> FrameError."""
    if not path.exists():
        raise FrameError(f"no existe la imagen {path}")
    if path.is_dir():
        raise FrameError(f"{path} es una carpeta, no una imagen")
    if path.stat().st_size == 0:
        raise FrameError(f"{path} está vacía (0 bytes)")
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if image is None:
        raise FrameError(f"{path} no es una imagen que se pueda leer (¿archivo dañado o de otro tipo?)")
    if image.dtype == np.uint16:
        raise FrameError(f"{path} tiene 16 bits por canal; hace falta una foto de 8 bits")
    return check_frame(image, str(path))
