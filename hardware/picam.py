"""The Raspberry Pi camera through picamera2: one configuration, a full-resolution and a low-resolution stream."""

from __future__ import annotations

import importlib
from typing import Any

from hardware.camera import PREVIEW_WIDTH, BaseCamera, CameraError, Frame, to_bgr

MAIN_FORMAT = "RGB888"  # libcamera's RGB888 is B, G, R in memory: what OpenCV wants, no swap
LORES_FORMAT = "YUV420"  # the only low-resolution format every Pi supports (a Pi 4's lores must be YUV)
# The Camera Module 3's sensor as libcamera names it -> its lens's horizontal field of view (degrees).
SENSOR_HFOV = {"imx708": 66.0, "imx708_noir": 66.0, "imx708_wide": 102.0, "imx708_wide_noir": 102.0}
INSTALL_HINT = (
    "en la Raspberry Pi: sudo apt install python3-picamera2, y la venv creada con "
    "python3 -m venv --system-site-packages .venv"
)


class PiCamera(BaseCamera):
    """A Pi camera module: started once with both streams and kept running (no mode switch per capture)."""

    def __init__(
        self,
        index: int = 0,
        *,
        main_size: tuple[int, int] | None = None,
        preview_width: int = PREVIEW_WIDTH,
        timeout_s: float = 5.0,
    ) -> None:
        super().__init__()
        self.index = index
        self.spec = f"pi:{index}" if index else "pi"
        self.main_size = main_size  # None: the sensor's full resolution (4608 x 2592 on a Camera Module 3)
        self.preview_width = preview_width
        self.timeout_s = timeout_s
        self._camera: Any = None
        self._lores_width = preview_width

    def _open(self) -> None:
        try:
            module: Any = importlib.import_module("picamera2")
        except ImportError as error:
            raise CameraError(f"no está instalado picamera2 (¿no es una Raspberry Pi?); {INSTALL_HINT}") from error
        picamera2 = module.Picamera2
        try:
            cameras = picamera2.global_camera_info()
        except Exception as error:  # libcamera itself failing: report, never crash the kiosk
            raise CameraError(f"libcamera no pudo listar las cámaras: {error}") from error
        if self.index >= len(cameras):
            found = "no se detectó ninguna cámara" if not cameras else f"solo hay {len(cameras)} cámara(s)"
            raise CameraError(
                f"no está la cámara de la Pi {self.index}: {found}; revisa el cable plano y que esté bien insertado"
            )
        try:
            camera = picamera2(self.index)
        except (RuntimeError, OSError) as error:
            raise CameraError(
                f"la cámara de la Pi {self.index} está ocupada o no responde ({error}); "
                "cierra otro programa que la use (rpicam-hello, otra instancia de cacho) y reintenta"
            ) from error
        try:
            main = self.main_size or tuple(camera.sensor_resolution)
            lores = _lores_size(main, self.preview_width)
            config = camera.create_still_configuration(
                main={"size": main, "format": MAIN_FORMAT},
                lores={"size": lores, "format": LORES_FORMAT},
                buffer_count=2,
                display=None,
            )
            camera.configure(config)
            camera.start()
        except Exception as error:
            camera.close()
            raise CameraError(f"no se pudo configurar la cámara de la Pi: {error}") from error
        self._camera = camera
        self._lores_width = lores[0]
        # At the sensor's full resolution the frames see the lens's whole width; another size may be a crop of it.
        info = cameras[self.index]
        model = str(info.get("Model", "")) if isinstance(info, dict) else ""
        self.hfov_deg = SENSOR_HFOV.get(model) if self.main_size is None else None

    def _grab(self, stream: str) -> Any:
        camera = self._camera
        try:
            job = camera.capture_array(stream, wait=False)
            return camera.wait(job, timeout=self.timeout_s)
        except TimeoutError as error:
            raise CameraError(
                f"la cámara de la Pi no entregó imagen en {self.timeout_s:.0f} s (¿se desconectó?)"
            ) from error
        except Exception as error:
            raise CameraError(f"la cámara de la Pi falló al capturar: {error}") from error

    def _preview(self) -> Frame:
        return to_bgr(self._grab("lores"), LORES_FORMAT, width=self._lores_width)

    def _capture(self) -> Frame:
        return to_bgr(self._grab("main"), MAIN_FORMAT)

    def _release(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.stop()
            finally:
                camera.close()


def _lores_size(main: tuple[int, ...], width: int) -> tuple[int, int]:
    """The low-resolution stream's size: `width` wide (at most the main's), the main's aspect, even sides."""
    main_w, main_h = int(main[0]), int(main[1])
    lores_w = min(width, main_w) // 2 * 2
    lores_h = max(2, round(main_h * lores_w / main_w) // 2 * 2)
    return lores_w, lores_h
