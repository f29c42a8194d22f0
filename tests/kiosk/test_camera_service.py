"""The camera service's threads beside the reader loading in the background."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import cv2
import pytest

from kiosk.camera import CameraService
from tests.kiosk.fakes import FakeCamera, FakeReader


@pytest.fixture
def opencv_threads() -> Iterator[None]:
    """OpenCV's threads on (as before ultralytics is imported), put back as they were after the test."""
    before = cv2.getNumThreads()
    cv2.setNumThreads(4)
    yield
    cv2.setNumThreads(before)


def test_opencv_threads_are_off_before_the_reader_loads(opencv_threads: None) -> None:
    """The reader's import of ultralytics turns OpenCV's threads off; doing so while the preview or a calibration
    runs an OpenCV loop in another thread killed the kiosk (SIGFPE), so the service turns them off first."""
    seen: list[int] = []
    loaded = threading.Event()

    def reader() -> FakeReader:
        seen.append(cv2.getNumThreads())
        cv2.setNumThreads(0)  # what `import ultralytics` does
        loaded.set()
        return FakeReader()

    service = CameraService("fake", camera_factory=lambda spec: FakeCamera(), reader_factory=reader)
    service.start()
    try:
        assert loaded.wait(10)
        assert seen == [1], "OpenCV's threads were still on when the reader began to load"
    finally:
        service.close()
