"""The cameras behind one protocol: replay (folder, image, video), webcam and Pi camera with fakes, spec parsing."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest

from hardware.camera import BaseCamera, CameraError, downscale, open_camera, to_bgr
from hardware.picam import PiCamera
from hardware.replay import ReplayCamera
from hardware.webcam import WebCamera


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def numbered(index: int, width: int = 1280, height: int = 720) -> np.ndarray:
    """A frame whose grey level tells its number (20 levels apart: survives JPEG)."""
    return np.full((height, width, 3), 20 + 20 * index, np.uint8)


def number_of(frame: np.ndarray) -> int:
    return round((float(frame.mean()) - 20) / 20)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Five frames 000.png ... 004.png (and a stray text file that is not a frame)."""
    for index in range(5):
        cv2.imwrite(str(tmp_path / f"{index:03d}.png"), numbered(index))
    (tmp_path / "notas.txt").write_text("no es una imagen")
    return tmp_path


@pytest.fixture
def video(tmp_path: Path) -> Path:
    """A 6-frame MJPG video at 10 fps."""
    path = tmp_path / "mesa.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (320, 240))
    assert writer.isOpened()
    for index in range(6):
        writer.write(numbered(index, 320, 240))
    writer.release()
    return path


# ------------------------------------------------------------------ replay


def test_replay_folder_plays_in_name_order_as_if_live(folder: Path) -> None:
    clock = FakeClock()
    with ReplayCamera(folder, fps=10, clock=clock) as camera:
        assert number_of(camera.capture()) == 0
        clock.now = 0.25  # frames 1 went by unseen, as with a live camera
        full = camera.capture()
        assert number_of(full) == 2
        assert full.shape == (720, 1280, 3) and full.dtype == np.uint8
        preview = camera.preview()
        assert preview.shape == (360, 640, 3)  # the low-resolution frame is a downscale of the same one
        assert number_of(preview) == 2
        clock.now = 0.49
        assert number_of(camera.capture()) == 4


def test_replay_that_ends_is_a_clear_error(folder: Path) -> None:
    clock = FakeClock()
    with ReplayCamera(folder, fps=10, clock=clock) as camera:
        camera.preview()
        clock.now = 0.5
        with pytest.raises(CameraError, match="terminó"):
            camera.preview()
        with pytest.raises(CameraError, match="terminó"):
            camera.capture()


def test_replay_loop_goes_back_to_the_start(folder: Path) -> None:
    clock = FakeClock()
    with ReplayCamera(folder, fps=10, loop=True, clock=clock) as camera:
        clock.now = 0.5
        assert number_of(camera.capture()) == 0
        clock.now = 1.32
        assert number_of(camera.capture()) == 3


def test_replay_of_one_image(folder: Path) -> None:
    clock = FakeClock()
    camera = ReplayCamera(folder / "003.png", fps=2, loop=True, clock=clock)
    with camera:
        clock.now = 100.0
        assert number_of(camera.capture()) == 3


def test_replay_video_plays_skips_ends_and_loops(video: Path) -> None:
    clock = FakeClock()
    with ReplayCamera(video, clock=clock) as camera:  # the video's own rate: 10 fps
        assert number_of(camera.capture()) == 0
        clock.now = 0.31
        assert number_of(camera.preview()) == 3  # 320 px wide: the preview is the frame itself
        assert camera.preview().shape == (240, 320, 3)
        clock.now = 0.55
        assert number_of(camera.capture()) == 5
        clock.now = 0.61
        with pytest.raises(CameraError, match="terminó"):
            camera.capture()
    clock.now = 0.0
    with ReplayCamera(video, fps=20, loop=True, clock=clock) as camera:
        assert number_of(camera.capture()) == 0
        clock.now = 0.26  # frame 5
        assert number_of(camera.capture()) == 5
        clock.now = 0.36  # frame 7 -> past the end (6 frames): back to 1
        assert number_of(camera.capture()) == 1
        clock.now = 0.41
        assert number_of(camera.capture()) == 2


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda p: p / "no-hay", "no existe"),
        (lambda p: p / "vacia", "no hay imágenes"),
        (lambda p: p / "texto.avi", "no es un video"),
    ],
)
def test_replay_of_nothing_playable_is_a_clear_error(tmp_path: Path, make: Any, fragment: str) -> None:
    (tmp_path / "vacia").mkdir()
    (tmp_path / "texto.avi").write_text("esto no es un video")
    with pytest.raises(CameraError, match=fragment), ReplayCamera(make(tmp_path)):
        pass


def test_replay_of_a_corrupt_frame_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "000.png").write_bytes(b"\x89PNG roto")
    with ReplayCamera(tmp_path) as camera, pytest.raises(CameraError, match="no se pudo leer"):
        camera.capture()


def test_replay_rejects_a_bad_rate(folder: Path) -> None:
    with pytest.raises(CameraError, match="fps"):
        ReplayCamera(folder, fps=0)


# ------------------------------------------------------------------ open_camera


def test_open_camera_parses_the_spec(folder: Path) -> None:
    pi = open_camera("pi")
    assert isinstance(pi, PiCamera) and pi.index == 0 and pi.spec == "pi"
    second = open_camera("pi:1")
    assert isinstance(second, PiCamera) and second.index == 1
    web = open_camera("opencv:2")
    assert isinstance(web, WebCamera) and web.index == 2 and web.spec == "opencv:2"
    replay = open_camera(f"Replay:{folder}", fps=5, loop=True)
    assert isinstance(replay, ReplayCamera) and replay.path == folder and replay.loop and replay.fps == 5


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("", "desconocida"),
        ("usb:0", "desconocida"),
        ("opencv", "falta el número"),
        ("opencv:uno", "entero"),
        ("opencv:-1", "entero"),
        ("pi:x", "entero"),
        ("replay:", "falta la ruta"),
    ],
)
def test_open_camera_refuses_a_bad_spec(spec: str, fragment: str) -> None:
    with pytest.raises(CameraError, match=fragment):
        open_camera(spec)


def test_open_camera_with_a_missing_replay_fails_on_start(tmp_path: Path) -> None:
    camera = open_camera(f"replay:{tmp_path / 'nada'}")
    with pytest.raises(CameraError, match="no existe"):
        camera.start()


# ------------------------------------------------------------------ frames


def test_to_bgr_drops_alpha_swaps_and_converts() -> None:
    bgra = np.zeros((4, 6, 4), np.uint8)
    bgra[..., 0], bgra[..., 3] = 200, 255
    out = to_bgr(bgra, "XRGB8888")  # libcamera's XRGB8888 is B, G, R, X in memory
    assert out.shape == (4, 6, 3) and out[0, 0].tolist() == [200, 0, 0]
    assert to_bgr(bgra, "XBGR8888")[0, 0].tolist() == [0, 0, 200]  # R, G, B, X in memory: swapped
    assert to_bgr(np.full((4, 6), 9, np.uint8))[0, 0].tolist() == [9, 9, 9]
    with pytest.raises(CameraError, match="uint8"):
        to_bgr(np.zeros((4, 6, 3), np.uint16))
    with pytest.raises(CameraError, match="forma"):
        to_bgr(np.zeros((4, 6, 5), np.uint8))


def test_yuv420_with_row_padding_becomes_bgr() -> None:
    bgr = np.zeros((48, 64, 3), np.uint8)
    bgr[:, :32] = (200, 60, 20)
    bgr[:, 32:] = (20, 60, 200)
    i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)  # (72, 64)
    padded = np.zeros((72, 80), np.uint8)  # a stride of 80 bytes, as libcamera pads rows
    y, u, v = i420[:48], i420[48:60].reshape(24, 32), i420[60:].reshape(24, 32)
    padded_y = np.zeros((48, 80), np.uint8)
    padded_y[:, :64] = y
    padded_u = np.zeros((24, 40), np.uint8)
    padded_u[:, :32] = u
    padded_v = np.zeros((24, 40), np.uint8)
    padded_v[:, :32] = v
    padded[:48] = padded_y
    padded[48:60] = padded_u.reshape(12, 80)
    padded[60:] = padded_v.reshape(12, 80)
    out = to_bgr(padded, "YUV420", width=64)
    assert out.shape == (48, 64, 3)
    assert np.abs(out.astype(int) - bgr.astype(int)).max() < 12
    with pytest.raises(CameraError, match="YUV420"):
        to_bgr(np.zeros((7, 8), np.uint8), "YUV420")


def test_downscale_keeps_aspect() -> None:
    assert downscale(np.zeros((2592, 4608, 3), np.uint8)).shape == (360, 640, 3)
    small = np.zeros((100, 200, 3), np.uint8)
    assert downscale(small) is small


# ------------------------------------------------------------------ webcam


class FakeCapture:
    """A VideoCapture that opens (or not) and returns `frames` frames, then nothing (unplugged)."""

    made: ClassVar[list[FakeCapture]] = []

    def __init__(self, index: int, opened: bool = True, frames: int = 1000) -> None:
        self.index, self.opened, self.left = index, opened, frames
        self.released = False
        self.props: dict[int, float] = {}
        FakeCapture.made.append(self)

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.left <= 0:
            return False, None
        self.left -= 1
        return True, numbered(1, 1920, 1080)

    def release(self) -> None:
        self.released = True


def test_webcam_gives_full_and_preview_frames() -> None:
    camera = WebCamera(0, size=(1920, 1080), capture_factory=FakeCapture)
    with camera:
        assert camera.capture().shape == (1080, 1920, 3)
        assert camera.preview().shape == (360, 640, 3)
        device = FakeCapture.made[-1]
        assert device.props[cv2.CAP_PROP_FRAME_WIDTH] == 1920
    assert device.released


def test_webcam_missing_or_busy_is_a_clear_error() -> None:
    camera = WebCamera(3, capture_factory=lambda i: FakeCapture(i, opened=False))
    with pytest.raises(CameraError, match="no se pudo abrir la cámara 3"):
        camera.start()
    assert FakeCapture.made[-1].released
    with pytest.raises(CameraError, match="no se pudo abrir la cámara 3"):  # the caller may retry: still a clear error
        camera.start()


def test_webcam_that_vanishes_is_a_clear_error_and_can_be_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cv2, "VideoCapture", lambda i: FakeCapture(i, frames=2))
    camera = open_camera("opencv:0")
    camera.start()
    camera.preview()
    camera.capture()
    with pytest.raises(CameraError, match="dejó de enviar imágenes"):
        camera.capture()
    camera.close()
    with camera:  # plugged back in: a new device
        assert camera.capture().shape == (1080, 1920, 3)


# ------------------------------------------------------------------ Pi camera


def test_pi_camera_without_picamera2_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # what a machine that is not a Pi has
    with pytest.raises(CameraError, match="picamera2") as caught:
        open_camera("pi").start()
    assert "apt install python3-picamera2" in str(caught.value)
    assert "--system-site-packages" in str(caught.value)


def test_hardware_imports_no_picamera2_kiosk_or_engines() -> None:
    import subprocess

    code = (
        "import sys, hardware.camera, hardware.picam, hardware.webcam, hardware.replay; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('picamera2', 'kiosk', 'engines', 'vision')]; "
        "print(bad); sys.exit(bool(bad))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


class FakePicamera2:
    """A stand-in for picamera2.Picamera2 that records what it is asked."""

    cameras: ClassVar[list[dict[str, object]]] = [{"Model": "imx708"}]
    fail_open: ClassVar[Exception | None] = None
    made: ClassVar[list[FakePicamera2]] = []

    def __init__(self, index: int = 0) -> None:
        if FakePicamera2.fail_open is not None:
            raise FakePicamera2.fail_open
        self.index = index
        self.sensor_resolution = (1536, 864)
        self.configured: list[dict[str, Any]] = []
        self.started = self.stopped = self.closed = False
        self.stall = False
        FakePicamera2.made.append(self)

    @staticmethod
    def global_camera_info() -> list[dict[str, object]]:
        return FakePicamera2.cameras

    def create_still_configuration(self, **kwargs: Any) -> dict[str, Any]:
        return kwargs

    def configure(self, config: dict[str, Any]) -> None:
        self.configured.append(config)

    def start(self) -> None:
        self.started = True

    def capture_array(self, name: str, wait: bool = True) -> str:
        assert wait is False
        return name

    def wait(self, job: str, timeout: float | None = None) -> np.ndarray:
        if self.stall:
            raise TimeoutError
        width, height = self.configured[-1][job]["size"]
        if job == "main":
            return np.full((height, width, 3), (10, 20, 30), np.uint8)  # RGB888: B, G, R in memory
        bgr = np.full((height, width, 3), (10, 20, 30), np.uint8)
        yuv = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)
        return yuv

    def stop(self) -> None:
        self.stopped = True

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.cameras = [{"Model": "imx708"}]
    FakePicamera2.fail_open = None
    FakePicamera2.made = []
    return FakePicamera2


@pytest.mark.parametrize(
    ("model", "size", "hfov"),
    [
        ("imx708", None, 66.0),
        ("imx708_wide_noir", None, 102.0),
        ("imx708_wide", (1280, 720), None),
        ("ov5647", None, None),
    ],
)
def test_pi_camera_says_its_lens(
    fake_picamera2: type[FakePicamera2], model: str, size: tuple[int, int] | None, hfov: float | None
) -> None:
    """The Camera Module 3's lens, from the sensor libcamera names, at full resolution (another size may be a crop)."""
    fake_picamera2.cameras = [{"Model": model}]
    camera = PiCamera(main_size=size)
    assert camera.hfov_deg is None  # not known before it starts
    with camera:
        assert camera.hfov_deg == hfov


def test_pi_camera_keeps_one_configuration_with_two_streams(fake_picamera2: type[FakePicamera2]) -> None:
    with open_camera("pi") as camera:
        previews = [camera.preview() for _ in range(3)]
        full = camera.capture()
        device = fake_picamera2.made[-1]
        assert len(device.configured) == 1 and device.started  # no mode switch per capture
        config = device.configured[0]
        assert config["main"] == {"size": (1536, 864), "format": "RGB888"}
        assert config["lores"] == {"size": (640, 360), "format": "YUV420"}
    assert device.stopped and device.closed
    assert full.shape == (864, 1536, 3) and full[0, 0].tolist() == [10, 20, 30]
    assert all(p.shape == (360, 640, 3) for p in previews)
    assert np.abs(previews[0][5, 5].astype(int) - [10, 20, 30]).max() < 8


@pytest.mark.parametrize(
    ("cameras", "fail", "fragment"),
    [
        ([], None, "no se detectó ninguna cámara"),
        ([{"Model": "imx708"}], RuntimeError("Failed to acquire camera: Device or resource busy"), "ocupada"),
    ],
)
def test_pi_camera_missing_or_busy(
    fake_picamera2: type[FakePicamera2], cameras: list[dict[str, object]], fail: Exception | None, fragment: str
) -> None:
    fake_picamera2.cameras = cameras
    fake_picamera2.fail_open = fail
    with pytest.raises(CameraError, match=fragment):
        open_camera("pi").start()
    fake_picamera2.cameras = [{"Model": "imx708"}, {"Model": "imx708"}]
    fake_picamera2.fail_open = None
    with pytest.raises(CameraError, match="solo hay 2"):
        open_camera("pi:2").start()


def test_pi_camera_unplugged_mid_game(fake_picamera2: type[FakePicamera2]) -> None:
    with open_camera("pi") as camera:
        camera.preview()
        fake_picamera2.made[-1].stall = True
        with pytest.raises(CameraError, match="no entregó imagen"):
            camera.capture()


class Counting(BaseCamera):
    """A camera that counts openings and closings."""

    def __init__(self) -> None:
        super().__init__()
        self.opened = self.released = 0

    def _open(self) -> None:
        self.opened += 1

    def _preview(self) -> np.ndarray:
        return numbered(0, 64, 48)

    def _capture(self) -> np.ndarray:
        raise CameraError("se desconectó")

    def _release(self) -> None:
        self.released += 1


def test_camera_context_closes_on_error_and_starts_once() -> None:
    camera = Counting()
    with pytest.raises(CameraError, match="se desconectó"), camera:
        camera.start()
        camera.preview()
        camera.capture()
    assert (camera.opened, camera.released) == (1, 1)
    camera.close()
    assert camera.released == 1
    assert camera.preview().shape == (48, 64, 3)  # first use starts it again
    assert camera.opened == 2


def test_only_hardware_imports_picamera2() -> None:
    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(path.relative_to(root))
        for package in ("engines", "kiosk", "vision")
        for path in (root / package).rglob("*.py")
        if "picamera2" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
