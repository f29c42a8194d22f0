"""What the measuring commands (kiosk.readtime, kiosk.cards.readtime, kiosk.asked) share: the kiosk run in this
process on a temporary database with the demo tables, its camera ready, the coordinator signed in."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PIN = "2468"


@contextmanager
def demo_kiosk(camera: str = "demo", wait_s: float = 180) -> Iterator[tuple[Any, Any]]:
    """(the app, the coordinator's test client) once the camera and the reader are ready; closed after."""
    from kiosk.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {"DATABASE": str(Path(folder) / "cacho.sqlite3"), "CAMERA": camera, "DEMO": True, "CSRF_DISABLED": True}
        )
        service = app.extensions["cacho.camera"]
        try:
            deadline = time.monotonic() + wait_s
            while not service.can_read:
                if time.monotonic() > deadline:
                    raise SystemExit(f"la cámara o el lector no están listos: {service.health().message}")
                time.sleep(0.1)
            client = app.test_client()
            client.post("/setup", data={"pin": PIN, "pin2": PIN})
            yield app, client
        finally:
            service.close()
            app.extensions["cacho.bus"].close()


def answer(response: Any) -> dict[str, Any]:
    """A JSON answer's object, or a Spanish exit where the kiosk refused."""
    data = response.get_json(silent=True)
    if response.status_code != 200 or not isinstance(data, dict):
        raise SystemExit(f"el kiosco respondió {response.status_code}: {data if data else response.get_data(True)}")
    return data
