"""A USB webcam or a laptop camera through OpenCV's VideoCapture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2

from hardware.camera import PREVIEW_WIDTH, BaseCamera, CameraError, Frame, downscale, to_bgr

FAILED_READS = 5  # consecutive empty reads before the camera counts as gone (one can be a glitch)


class WebCamera(BaseCamera):
    """`opencv:N`: the preview is a downscale of the same frame; an unplugged camera -> CameraError."""

    def __init__(
        self,
        index: int = 0,
        *,
        size: tuple[int, int] | None = None,
        preview_width: int = PREVIEW_WIDTH,
        capture_factory: Callable[[int], Any] | None = None,
    ) -> None:
        super().__init__()
        self.index = index
        self.spec = f"opencv:{index}"
        self.size = size  # asked of the driver; it may give the nearest mode it has
        self.preview_width = preview_width
        self.capture_factory = capture_factory
        self._device: Any = None

    def _open(self) -> None:
        factory = self.capture_factory or cv2.VideoCapture
        level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # OpenCV's own noise: we say it better
        try:
            device = factory(self.index)
        finally:
            cv2.utils.logging.setLogLevel(level)
        if not device.isOpened():
            device.release()
            raise CameraError(f"no se pudo abrir la cámara {self.index}: no está conectada o la usa otro programa")
        device.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not one queued seconds ago
        if self.size is not None:
            device.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            device.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._device = device

    def _read(self) -> Frame:
        for _ in range(FAILED_READS):
            ok, image = self._device.read()
            if ok and image is not None and image.size:
                return to_bgr(image)
        raise CameraError(f"la cámara {self.index} dejó de enviar imágenes (¿se desconectó?)")

    def _preview(self) -> Frame:
        return downscale(self._read(), self.preview_width)

    def _capture(self) -> Frame:
        return self._read()

    def _release(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            device.release()
