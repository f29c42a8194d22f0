"""`cacho kiosk`: serve the coordinator's kiosk (waitress) with the camera, or the bundled demo table."""

from __future__ import annotations

import argparse
import os
import sqlite3
from pathlib import Path
from typing import Any

from kiosk.cli import CliError
from kiosk.commands.common import sqlite_reason
from kiosk.server import STREAMS, THREADS

CAMERA_HELP = "auto, pi, pi:N, opencv:N, replay:RUTA, demo o none (auto: la del Pi si está, si no la demo)"


def default_db() -> Path:
    """Where the kiosk keeps its tables: $CACHO_DB, else $XDG_DATA_HOME/cacho/cacho.sqlite3."""
    if os.environ.get("CACHO_DB"):
        return Path(os.environ["CACHO_DB"])
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "cacho" / "cacho.sqlite3"


def register(subparsers: Any) -> None:
    """Add `cacho kiosk`."""
    kiosk = subparsers.add_parser(
        "kiosk",
        help="la pantalla del coordinador (servidor web en la mesa)",
        description="Sirve el kiosco. Escucha solo en localhost salvo que se dé --host.",
    )
    kiosk.add_argument("--camera", default="auto", metavar="CÁMARA", help=CAMERA_HELP)
    kiosk.add_argument("--db", type=Path, default=None, metavar="RUTA", help="base de datos SQLite de las mesas")
    kiosk.add_argument("--host", default="127.0.0.1", help="dirección donde escuchar (127.0.0.1)")
    kiosk.add_argument("--port", type=int, default=8080, help="puerto (8080)")
    kiosk.add_argument(
        "--streams",
        type=int,
        default=STREAMS,
        help=f"páginas en vivo a la vez (TV, teléfonos); las de más reciben 503 y reintentan ({STREAMS})",
    )
    kiosk.add_argument(
        "--threads",
        type=int,
        default=THREADS,
        help=f"hilos para los controles, aparte de los de las páginas ({THREADS})",
    )
    kiosk.add_argument(
        "--card-models",
        type=Path,
        metavar="DIR",
        help="carpeta de modelos con que la cámara lee las cartas (de cacho cards adapt; por defecto, models/)",
    )
    kiosk.set_defaults(func=run_kiosk)


def choose_camera(spec: str) -> str | None:
    """The camera spec to use: `auto` is the Pi's when one answers, else the demo; `none` is no camera."""
    if spec == "none":
        return None
    if spec != "auto":
        return spec
    from hardware.camera import CameraError, open_camera

    try:
        with open_camera("pi") as camera:
            camera.preview()
    except CameraError as error:
        print(f"Sin cámara del Pi ({error}): se usa la mesa de demostración.")
        return "demo"
    return "pi"


def check_camera(spec: str) -> None:
    """A malformed --camera (an unknown kind, `opencv:x`, `replay:` with no path) is a CliError; nothing is opened."""
    if spec in ("auto", "demo", "none"):
        return
    if ":" not in spec and spec != "pi":
        raise CliError(f"--camera {spec}: se esperaba {CAMERA_HELP}")
    from hardware.camera import CameraError, open_camera

    try:
        open_camera(spec)  # only named: a camera is opened when it is first started
    except CameraError as error:
        raise CliError(f"--camera: {error}") from None


def run_kiosk(args: argparse.Namespace) -> int:
    """Serve until stopped (Ctrl+C, or the service manager)."""
    from kiosk.app import create_app
    from kiosk.server import make_server

    if not 1 <= args.port <= 65535:
        raise CliError(f"--port {args.port}: el puerto va de 1 a 65535")
    if not 1 <= args.streams <= 2000:
        raise CliError(f"--streams {args.streams}: van de 1 a 2000 páginas en vivo")
    if not 1 <= args.threads <= 256:
        raise CliError(f"--threads {args.threads}: van de 1 a 256 hilos")
    check_camera(args.camera)
    if args.card_models is not None and not (args.card_models / "cards" / "finder.pt").is_file():
        raise CliError(f"--card-models {args.card_models}: no es una carpeta de modelos con el lector de cartas")
    camera = choose_camera(args.camera)
    db = args.db or default_db()
    config = {"DATABASE": str(db), "CAMERA": camera, "DEMO": camera == "demo"}
    try:
        app = create_app(config | ({"CARD_MODELS": str(args.card_models)} if args.card_models else {}))
    except (OSError, sqlite3.Error) as error:
        raise CliError(f"no se pudo abrir la base de datos {db}: {sqlite_reason(error, db)}") from None
    address = f"http://{'localhost' if args.host in ('127.0.0.1', '0.0.0.0') else args.host}:{args.port}/"
    print(f"Cacho Companion: kiosco en {address} (cámara: {camera or 'ninguna'}; mesas en {db})", flush=True)
    if args.host == "127.0.0.1":
        print("Solo se puede abrir desde esta máquina (use --host 0.0.0.0 para la red local).", flush=True)
    make_server(app, args.host, args.port, args.streams, args.threads).run()
    return 0
