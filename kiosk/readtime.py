"""`python -m kiosk.readtime`: how long from «Leer» to the reading on screen, stage by stage, on a still table.

Runs a kiosk in this process on a temporary database with the given camera and the committed reader, seats the demo
Dudo table, calls a dudo, then taps «Leer» again and again on the table left still, and prints each stage: the wait
for stillness, the captures, the reads, the seats and the photo, and the state the page fetches to draw it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from kiosk.measuring import demo_kiosk

STAGES = ("quietud", "captura", "lectura", "asientos_foto", "estado", "total")


def _json(response: Any) -> dict[str, Any]:
    """A JSON answer's object."""
    data = response.get_json()
    if not isinstance(data, dict):
        raise SystemExit(f"respuesta inesperada del kiosco ({response.status_code})")
    return data


def _wait_ready(client: Any, table: int, photo: str | None, timeout_s: float) -> dict[str, Any]:
    """Poll until the table's reading is ready with a photo other than `photo`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reading = _json(client.get(f"/dudo/{table}/state.json")).get("reading") or {}
        if reading.get("state") in ("ready", "failed") and reading.get("photo") != photo:
            return dict(reading)
        time.sleep(0.05)
    raise SystemExit("la lectura no llegó a tiempo")


def measure(camera: str, reads: int, pause_s: float = 1.5) -> list[dict[str, float]]:
    """Tap «Leer» `reads` times on the demo table left still; each tap's stages in seconds."""
    from kiosk.demo.table import DEMO_PLAYERS

    with demo_kiosk(camera) as (app, client):
        bus = app.extensions["cacho.bus"]
        table = 1
        seq = _json(client.get(f"/dudo/{table}/state.json"))["seq"]
        opener, doubter = DEMO_PLAYERS[2], DEMO_PLAYERS[3]
        bid = {"event": "bid", "player": opener, "quantity": 4, "face": 6, "seq": seq}
        seq = _json(client.post(f"/dudo/{table}/action", json=bid))["seq"]
        client.post(f"/dudo/{table}/action", json={"event": "dudo", "player": doubter, "seq": seq})
        reading = _wait_ready(client, table, None, 60)
        results = []
        for _ in range(reads):
            time.sleep(pause_s)  # the table left alone: the previews see it still
            inbox = bus.subscribe()
            started = time.monotonic()
            client.post(f"/dudo/{table}/read", json={})
            ready_at = None
            while ready_at is None:
                message = inbox.get(timeout=60)
                if message is None or message.topic != f"table:{table}":
                    continue
                fetched = time.monotonic()
                state = _json(client.get(f"/dudo/{table}/state.json"))
                new = state.get("reading") or {}
                if new.get("state") in ("ready", "failed") and new.get("photo") != reading.get("photo"):
                    ready_at, drawn_at, reading = fetched, time.monotonic(), new
            bus.unsubscribe(inbox)
            capture = reading.get("capture") or {}
            still, grab = capture.get("waited_s", 0.0), capture.get("capture_s", 0.0)
            read = capture.get("read_s", 0.0)
            results.append(
                {
                    "quietud": still,
                    "captura": grab,
                    "lectura": read,
                    "asientos_foto": max(0.0, ready_at - started - still - grab - read),
                    "estado": drawn_at - ready_at,
                    "total": drawn_at - started,
                    "imagenes": capture.get("frames_read", 0),
                }
            )
        return results


def main(argv: list[str] | None = None) -> int:
    """Print the stages of each «Leer» and their medians."""
    parser = argparse.ArgumentParser(
        prog="python -m kiosk.readtime",
        description="Mide cuánto tarda la lectura desde «Leer» hasta la pantalla, por etapas (quietud, captura, "
        "lectura, asientos y foto, estado que la página dibuja), con la mesa ya quieta.",
    )
    parser.add_argument("--camera", default="demo", help="demo o replay:RUTA (demo)")
    parser.add_argument("--reads", type=int, default=5, help="lecturas medidas (5)")
    parser.add_argument("--json", action="store_true", help="las cifras en JSON")
    args = parser.parse_args(argv)
    if args.camera != "demo" and not args.camera.startswith("replay:"):
        parser.error("--camera: se esperaba demo o replay:RUTA")
    if args.reads < 1:
        parser.error("--reads va desde 1")
    results = measure(args.camera, args.reads)
    medians = {k: statistics.median(r[k] for r in results) for k in STAGES}
    if args.json:
        print(json.dumps({"reads": results, "median": medians}))
        return 0
    print("  ".join(f"{k:>13}" for k in (*STAGES, "imagenes")))
    for r in results:
        print("  ".join(f"{r[k]:>12.3f}s" for k in STAGES) + f"  {r['imagenes']:>13}")
    print("  ".join(f"{medians[k]:>12.3f}s" for k in STAGES) + "  (mediana)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
