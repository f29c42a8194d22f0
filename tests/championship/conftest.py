"""A real Mosquitto on a free loopback port for each test that asks for one, stopped and removed afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kiosk.championship.broker import Mosquitto


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A running broker (anonymous clients allowed), its folder under tmp_path."""
    mosquitto = Mosquitto(folder=tmp_path / "broker").start()
    try:
        yield mosquitto
    finally:
        mosquitto.close()
