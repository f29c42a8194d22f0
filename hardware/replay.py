"""`replay:PATH`: a folder of frames (in name order), one image, or a video, played as if live."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.camera import PREVIEW_WIDTH, BaseCamera, CameraError, Clock, Frame, downscale, to_bgr

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})
DEFAULT_FPS = 10.0  # a folder of frames has no rate of its own


class ReplayCamera(BaseCamera):
    """Frames shown at `fps` from the moment it starts; the preview is a downscale of the full frame.

    The frame on show is the one due at the clock's time (frames are skipped when the caller is slow, as
    with a live camera). When the last frame's time is over: CameraError, or back to the first with `loop`.
    """

    def __init__(
        self,
        path: Path,
        *,
        fps: float | None = None,
        loop: bool = False,
        preview_width: int = PREVIEW_WIDTH,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__()
        if fps is not None and not (fps > 0 and math.isfinite(fps)):
            raise CameraError(f"fps debe ser un número positivo (se dio {fps})")
        self.path = path
        self.spec = f"replay:{path}"
        self.fps = fps
        self.loop = loop
        self.preview_width = preview_width
        self.clock = clock
        self._images: list[Path] | None = None  # a folder or one image; None for a video
        self._video: Any = None
        self._video_next = 0  # index of the frame the video will decode next
        self._count: int | None = None  # frames in all (a video's is known once it has ended)
        self._start = 0.0
        self._rate = DEFAULT_FPS
        self._cached: tuple[int, Frame] | None = None

    def _open(self) -> None:
        path = self.path
        if not path.exists():
            raise CameraError(f"no existe {path} para reproducir")
        if path.is_dir():
            images = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
            if not images:
                raise CameraError(f"no hay imágenes ({', '.join(sorted(IMAGE_SUFFIXES))}) en la carpeta {path}")
            self._images, self._count = images, len(images)
        elif path.suffix.lower() in IMAGE_SUFFIXES:
            self._images, self._count = [path], 1
        else:
            self._video = self._open_video()
            own_rate = float(self._video.get(cv2.CAP_PROP_FPS) or 0.0)
            self._rate = own_rate if 0 < own_rate < 1000 else DEFAULT_FPS
        if self.fps is not None:
            self._rate = self.fps
        self._cached = None
        self._start = self.clock()

    def _open_video(self) -> Any:
        video = cv2.VideoCapture(str(self.path))
        if not video.isOpened():
            video.release()
            raise CameraError(f"{self.path} no es un video ni una imagen que se pueda abrir")
        self._video_next = 0
        return video

    def _due(self) -> int:
        """The index of the frame due now; CameraError once a non-looping replay is over."""
        index = int((self.clock() - self._start) * self._rate + 1e-9)
        if self._count is not None and index >= self._count:
            if not self.loop:
                raise CameraError(f"la reproducción de {self.path} terminó ({self._count} imágenes)")
            index %= self._count
        return index

    def _frame(self) -> Frame:
        index = self._due()
        if self._cached is not None and self._cached[0] == index:
            return self._cached[1]
        frame = self._read_image(index) if self._images is not None else self._read_video(index)
        self._cached = (index, frame)
        return frame

    def _read_image(self, index: int) -> Frame:
        assert self._images is not None
        path = self._images[index]
        try:
            data = np.fromfile(str(path), dtype=np.uint8)
        except OSError as error:  # deleted, unmounted or unreadable since the replay started
            reason = "ya no existe" if isinstance(error, FileNotFoundError) else f"no se puede leer ({error.strerror})"
            raise CameraError(f"la imagen {path} de la reproducción {reason}") from None
        image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data.size else None  # OpenCV asserts on no bytes
        if image is None:
            raise CameraError(f"no se pudo leer la imagen {path} de la reproducción")
        return to_bgr(np.asarray(image))

    def _read_video(self, index: int) -> Frame:
        if self._video is None or index < self._video_next:  # looped back: decode from the start again
            if self._video is not None:
                self._video.release()
            self._video = self._open_video()
        while self._video_next < index:  # skip the frames that went by unseen, as a live camera would
            if not self._video.grab():
                return self._video_ended()
            self._video_next += 1
        ok, image = self._video.read()
        if not ok or image is None:
            return self._video_ended()
        self._video_next += 1
        return to_bgr(np.asarray(image))

    def _video_ended(self) -> Frame:
        """The video has no frame at the due time: now its length is known; end, or loop to the start."""
        self._count = self._video_next
        if self._count == 0:
            raise CameraError(f"el video {self.path} no tiene imágenes")
        return self._read_video(self._due())

    def last_frame(self) -> Frame:
        """The replay's last frame (a folder or an image; a video's once it has ended): what stays in view."""
        if self._images is not None:
            return self._read_image(len(self._images) - 1)
        if self._count:
            return self._read_video(self._count - 1)
        raise CameraError(f"{self.path}: todavía no se sabe cuál es la última imagen del video")

    def _preview(self) -> Frame:
        return downscale(self._frame(), self.preview_width)

    def _capture(self) -> Frame:
        return self._frame().copy()

    def _release(self) -> None:
        video, self._video = self._video, None
        if video is not None:
            video.release()
        self._cached = None
