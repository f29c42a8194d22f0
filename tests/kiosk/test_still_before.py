"""«Leer» on a table already still: the camera service's recent previews count, so the wait ends at the first
preview; at a dudo (the cups still down) the stillness is watched from the tap; the demo camera keeps its showing
when read again. No timing is asserted (figures: `python -m kiosk.readtime`, docs/camera.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiosk.camera import KIOSK_STILL, CameraService
from kiosk.demo.camera import PHOTOS, DemoCamera
from tests.kiosk.conftest import become_coordinator, fake_camera_app
from tests.kiosk.fakes import FakeCamera, FakeReader, wait_until, write_zones
from tests.kiosk.test_dudo_kiosk import challenged
from vision.still import StillSettings

STILL = StillSettings(still_s=0.3, poll_s=0.01, timeout_s=10.0, frames=1, frame_gap_s=0.0)


def service(camera: FakeCamera, reader: FakeReader) -> CameraService:
    """A camera service previewing fast, with the fake reader, started and ready."""
    svc = CameraService("fake", camera_factory=lambda spec: camera, reader_factory=lambda: reader, preview_fps=20)
    svc.start()
    wait_until(lambda: svc.can_read)
    return svc


def test_a_table_the_previews_saw_still_is_read_at_once() -> None:
    svc = service(FakeCamera(), FakeReader())
    try:
        wait_until(lambda: len(svc._recent) >= 2 and svc._recent[-1][0] - svc._recent[0][0] >= STILL.still_s)
        capture = svc.capture_still(STILL)
        assert capture.wait.still and capture.wait.previews == 1
    finally:
        svc.close()


def test_at_a_dudo_the_stillness_is_watched_from_the_tap() -> None:
    svc = service(FakeCamera(), FakeReader())
    try:
        wait_until(lambda: len(svc._recent) >= 2 and svc._recent[-1][0] - svc._recent[0][0] >= STILL.still_s)
        capture = svc.capture_still(STILL, still_before=False)
        assert capture.wait.still and capture.wait.previews > 1
    finally:
        svc.close()


def test_the_kiosk_stops_reading_once_two_frames_agree() -> None:
    assert (KIOSK_STILL.frames, KIOSK_STILL.agree_frames) == (3, 2)
    reader = FakeReader()
    svc = service(FakeCamera(), reader)
    try:
        before = reader.reads
        capture = svc.capture_still(StillSettings(still_s=0.0, frames=3, agree_frames=2, frame_gap_s=0.0))
        assert reader.reads - before == 2 and capture.frames_read == 2
    finally:
        svc.close()


def test_the_demo_camera_keeps_its_showing_when_read_again() -> None:
    camera = DemoCamera(PHOTOS, fps=1000.0)
    camera.start()
    try:
        camera.cue(0)
        first = camera._replay
        camera.cue(0)  # «Leer» again: the table left alone
        assert camera._replay is first
        camera.cue(1)  # the next showing plays from the hand on
        assert camera._replay is not first
    finally:
        camera.close()


def test_the_dudo_watches_from_the_tap_and_leer_counts_the_still_table(tmp_path: Path, monkeypatch: Any) -> None:
    asked: list[bool] = []
    real = CameraService.capture_still

    def spy(self: CameraService, settings: Any = None, seats: Any = None, still_before: bool = True) -> Any:
        asked.append(still_before)
        return real(self, settings, seats, still_before)

    monkeypatch.setattr(CameraService, "capture_still", spy)
    write_zones(tmp_path / "mesa.json")
    with fake_camera_app(tmp_path, FakeCamera(), FakeReader(), STILL) as app:
        c = become_coordinator(app.test_client())
        table = challenged(c)
        assert c.post(f"/dudo/{table}/read").status_code == 202
    assert asked == [False, True]  # the dudo (cups still down), then «Leer»
