"""The kiosk's camera: one background thread keeps the preview fresh and the health badge true."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from hardware.camera import Camera, CameraError, Frame, open_camera
from vision.faces.evidence import JudgedReader, Levels
from vision.still import StillSettings

if TYPE_CHECKING:
    from vision.seats import TableConfig
    from vision.still import FrameReader, StillCapture

CameraFactory = Callable[[str], Camera]
ReaderFactory = Callable[[], "FrameReader"]
ModelsReaderFactory = Callable[[Path], "FrameReader"]
STOCK = "stock"  # the models a reading names when the committed reader read it
KIOSK_STILL = StillSettings(agree_frames=2)  # two frames that agree die for die are enough; a third only if not
RECENT_S = 2.0  # the previews kept this long tell a table already still at a tap (vision.still.wait_until_still)


def default_camera_factory(spec: str) -> Camera:
    """Open the camera named by the spec; a replay loops, as a live table never ends."""
    if spec == "demo":
        from kiosk.demo.camera import DemoCamera

        return DemoCamera()
    return open_camera(spec, loop=spec.startswith("replay:"))


def default_reader_factory() -> FrameReader:
    """The committed dice reader (models/)."""
    from vision.pipeline import build_reader

    return build_reader(processes=True)  # the kiosk starts from `cacho kiosk`: a guarded entry point


def models_reader_factory(models: Path) -> FrameReader:
    """The dice reader of another models folder (one adapted to the table's dice)."""
    from vision.pipeline import build_reader

    return build_reader(models, processes=True)


@dataclass(frozen=True, slots=True)
class Health:
    """The camera badge: connected or not, preview frames per second, age of the last frame, and why not."""

    spec: str
    state: str  # none | starting | ok | error
    fps: float
    age_s: float | None
    message: str
    reader: str  # loading | ready | error | none
    models: str = STOCK  # the models folder the reader reads with: STOCK, or an adapted folder's name

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "spec": self.spec,
            "state": self.state,
            "fps": round(self.fps, 1),
            "age_s": None if self.age_s is None else round(self.age_s, 1),
            "message": self.message,
            "reader": self.reader,
            "models": self.models,
        }


class _Locked:
    """The camera seen by the still detector, one call at a time with the preview thread."""

    def __init__(self, service: CameraService, camera: Camera) -> None:
        self._service = service
        self._camera = camera

    def preview(self) -> Frame:
        with self._service._lock:
            frame = self._camera.preview()
        self._service._seen(frame)
        return frame

    def capture(self) -> Frame:
        with self._service._lock:
            return self._camera.capture()


class CameraService:
    """Owns the camera (reopening it after a failure) and the dice reader (loaded in the background)."""

    def __init__(
        self,
        spec: str | None,
        camera_factory: CameraFactory = default_camera_factory,
        reader_factory: ReaderFactory | None = default_reader_factory,
        on_change: Callable[[dict[str, object]], None] | None = None,
        preview_fps: float = 4.0,
        retry_s: float = 3.0,
        models: Path | None = None,
        models_factory: ModelsReaderFactory = models_reader_factory,
    ) -> None:
        self.spec = spec
        self._camera_factory = camera_factory
        self._reader_factory = reader_factory
        self._models_factory = models_factory
        self._wanted: Path | None = models  # the models folder to read with (None: the committed one)
        self._models = STOCK  # the name of the models the loaded reader reads with
        self.last_models = STOCK  # the models of the last still capture
        self._on_change = on_change
        self._period = 1.0 / preview_fps
        self._retry_s = retry_s
        self._lock = threading.RLock()
        self._camera: Camera | None = None
        self._state = "none" if spec is None else "starting"
        self._message = "sin cámara: los dados se entran a mano" if spec is None else "abriendo la cámara"
        self._last: Frame | None = None
        self._last_at: float | None = None
        self._times: list[float] = []
        self._recent: deque[tuple[float, Frame]] = deque()  # (monotonic time, preview) of the last RECENT_S
        self._reader: FrameReader | None = None
        self._levels: dict[str, Levels] = {}  # the levels the table reads each models folder at, by its name
        self._reader_state = "none" if reader_factory is None else "loading"
        self._reader_error = ""
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Start the preview thread and load the reader in the background."""
        if self._reader_factory is not None:
            # OpenCV's threads off before any thread of ours runs an OpenCV loop: the reader's import of ultralytics
            # turns them off, and turning them off under a loop running in another thread kills the process
            # (SIGFPE: a calibration or the preview at start-up, while the reader loaded). The finder turns them
            # on and back only around its reduced copy (vision.finder), which OpenCV survives.
            cv2.setNumThreads(0)
        if self.spec is not None:
            thread = threading.Thread(target=self._run, name="camara", daemon=True)
            thread.start()
            self._threads.append(thread)
        if self._reader_factory is not None:
            thread = threading.Thread(target=self._load_reader, name="lector", daemon=True)
            thread.start()
            self._threads.append(thread)

    def close(self) -> None:
        """Stop the thread and release the camera."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        with self._lock:
            if self._camera is not None:
                self._camera.close()
                self._camera = None

    def _load_reader(self) -> None:
        assert self._reader_factory is not None
        wanted = self._wanted
        try:
            reader = self._reader_factory() if wanted is None else self._models_factory(wanted)
        except Exception as error:
            with self._lock:
                if wanted == self._wanted:
                    self._reader, self._reader_state, self._reader_error = None, "error", str(error)
        else:
            with self._lock:
                if wanted == self._wanted:  # a later choice of models loads its own reader
                    self._reader, self._reader_state = reader, "ready"
                    self._models = STOCK if wanted is None else wanted.name
        self._changed()

    def use_models(self, models: Path | None) -> None:
        """Read with another models folder (None: the committed one): its reader loads in the background, the
        one in use reads until it is ready."""
        if self._reader_factory is None:
            return
        with self._lock:
            self._wanted = models
            self._reader_state, self._reader_error = "loading", ""
        self._changed()
        thread = threading.Thread(target=self._load_reader, name="lector", daemon=True)
        thread.start()
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]

    def use_levels(self, models: str, levels: Levels) -> None:
        """Read the models named `models` at these levels from the next capture on (vision.faces.evidence)."""
        with self._lock:
            self._levels[models] = levels

    def levels(self, models: str) -> Levels | None:
        """The levels the table reads the models named `models` at (None: their own)."""
        with self._lock:
            return self._levels.get(models)

    @property
    def models(self) -> str:
        """The name of the models the reader in use reads with (STOCK: the committed ones)."""
        return self._models

    @property
    def wanted_models(self) -> Path | None:
        """The models folder chosen (None: the committed one), loaded or loading."""
        return self._wanted

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._camera is None and not self._open():
                self._stop.wait(self._retry_s)
                continue
            try:
                with self._lock:
                    camera = self._camera
                    frame = camera.preview() if camera is not None else None
                if frame is not None:
                    self._seen(frame)
            except CameraError as error:
                self._fail(str(error))
            self._stop.wait(self._period)

    def _open(self) -> bool:
        assert self.spec is not None
        try:
            camera = self._camera_factory(self.spec)
            camera.start()
        except CameraError as error:
            self._fail(str(error))
            return False
        with self._lock:
            self._camera = camera
        self._state, self._message = "ok", "cámara conectada"
        self._changed()
        return True

    def _fail(self, message: str) -> None:
        with self._lock:
            camera, self._camera = self._camera, None
        if camera is not None:
            with contextlib.suppress(CameraError):
                camera.close()
        was = (self._state, self._message)
        self._state, self._message = "error", message
        if was != (self._state, self._message):
            self._changed()

    def _seen(self, frame: Frame) -> None:
        now = time.monotonic()
        self._last, self._last_at = frame, now
        self._times = [t for t in self._times if now - t < 5.0] + [now]
        with self._lock:
            self._recent.append((now, frame))
            while self._recent and now - self._recent[0][0] > RECENT_S:
                self._recent.popleft()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self.health().to_dict())

    # ------------------------------------------------------------------ what pages see

    def health(self) -> Health:
        """The badge's figures now."""
        now = time.monotonic()
        times = [t for t in self._times if now - t < 5.0]
        fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else 0.0
        age = None if self._last_at is None else now - self._last_at
        message = self._message
        if self._reader_state == "error":
            message += f"; lector de dados no disponible: {self._reader_error}"
        return Health(self.spec or "ninguna", self._state, fps, age, message, self._reader_state, self._models)

    @property
    def connected(self) -> bool:
        """The camera gives frames now."""
        return self._state == "ok"

    @property
    def can_read(self) -> bool:
        """The camera and the reader are both ready: a ruling may be read."""
        return self.connected and self._reader is not None  # while other models load, the reader in use reads

    def preview_jpeg(self, width: int = 800) -> bytes | None:
        """The latest preview frame as JPEG, or None."""
        frame = self._last
        if frame is None:
            return None
        return encode_jpeg(shrink(frame, width), 80)

    def latest(self) -> Frame | None:
        """The latest preview frame."""
        return self._last

    @property
    def camera_hfov(self) -> float | None:
        """The open camera's horizontal field of view, where it knows it (hardware.camera.Camera.hfov_deg)."""
        camera = self._camera
        return None if camera is None else camera.hfov_deg

    def full_frame(self) -> Frame:
        """One full-resolution frame now (calibration); CameraError when there is no camera."""
        with self._lock:
            if self._camera is None:
                raise CameraError(self._message)
            return self._camera.capture()

    def cue(self, number: int) -> None:
        """Tell a demo camera which showing of the cups comes next (a real camera ignores it)."""
        with self._lock:
            cue = getattr(self._camera, "cue", None)
            if callable(cue):
                cue(number)

    def lay_cards(self, game: str, laid: Sequence[Sequence[tuple[str, bool]]], seed: int) -> None:
        """Tell a demo camera which cards lie in front of each seat (a real camera ignores it)."""
        with self._lock:
            lay = getattr(self._camera, "lay_cards", None)
            if callable(lay):
                lay(game, laid, seed)

    def cue_roll(self, number: int) -> None:
        """Tell a demo camera which roll of the Bolivian demo game comes next (a real camera ignores it)."""
        with self._lock:
            cue = getattr(self._camera, "cue_roll", None)
            if callable(cue):
                cue(number)

    def capture_still(
        self, settings: StillSettings | None = None, seats: TableConfig | None = None, still_before: bool = True
    ) -> StillCapture:
        """Wait until the table is still and read it (vision.still); CameraError when it cannot.

        With the table's config (`seats`), the frames are read from the camera's nadir that its seat markers give
        (vision.seats.capture_at_nadir). With `still_before`, a table the previews saw still before the call counts
        as still at once; without it (the cups about to be lifted), the stillness is watched from now."""
        from vision.seats import capture_at_nadir
        from vision.still import capture_still

        with self._lock:
            camera, reader = self._camera, self._reader
            self.last_models = self._models  # the models that read this capture (a reading records them)
            levels = self._levels.get(self._models)
            if reader is not None and levels is not None:
                reader = JudgedReader(reader, levels)
            recent = tuple(self._recent) if still_before else ()
        if camera is None:
            raise CameraError(f"no hay cámara: {self._message}")
        if reader is None:
            why = "todavía se está cargando" if self._reader_state == "loading" else self._reader_error
            raise CameraError(f"el lector de dados no está listo ({why})")
        source, still = _Locked(self, camera), settings or KIOSK_STILL
        try:
            if seats is None:
                return capture_still(source, reader, still, recent=recent)
            return capture_at_nadir(source, reader, still, seats, camera.hfov_deg, recent)
        except CameraError as error:
            self._fail(str(error))
            raise


def shrink(frame: Frame, width: int) -> Frame:
    """The frame at most `width` wide."""
    height, current = frame.shape[:2]
    if current <= width:
        return frame
    return np.asarray(cv2.resize(frame, (width, round(height * width / current)), interpolation=cv2.INTER_AREA))


def encode_jpeg(frame: Frame | Any, quality: int = 88) -> bytes:
    """JPEG bytes of a BGR frame."""
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("no se pudo codificar la imagen como JPEG")
    return bytes(data.tobytes())
