"""`cacho table read`: wait until the table is still, read the dice, give them seats, check the counts."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiosk.cli import CliError

if TYPE_CHECKING:
    from vision.still import FrameReader


def default_reader(models: Path | None) -> FrameReader:
    """The committed dice reader; missing models -> CliError saying so."""
    from vision.pipeline import ModelsMissing, build_reader

    try:
        return build_reader(models, processes=True)
    except ModelsMissing as error:
        where = "todavía no están en models/ (entrenarlos, o indicar otra carpeta con --models)"
        if models is not None:
            where = f"no están en {models}"
        raise CliError(f"no se puede leer la mesa: {error}. Los modelos {where}") from None


# The tests replace this with a fake reader; the kiosk may too.
reader_factory: Callable[[Path | None], FrameReader] = default_reader


def register(subparsers: Any) -> None:
    """Add `cacho table read`."""
    table = subparsers.add_parser("table", help="leer la mesa con la cámara: dados por asiento")
    commands = table.add_subparsers(dest="table_command", metavar="ACCIÓN", required=True)
    read = commands.add_parser(
        "read",
        help="espera a que la mesa quede quieta, lee los dados y los cuenta por asiento",
        description=(
            "Salida: 0 si la lectura se puede arbitrar, 1 si algún asiento no coincide o hay dados dudosos "
            "(o la mesa nunca quedó quieta), 2 ante un error (cámara, modelos, configuración)."
        ),
    )
    read.add_argument("--camera", required=True, metavar="CÁMARA", help="pi, pi:N, opencv:N o replay:RUTA")
    read.add_argument("--seats", metavar="CONFIG", type=Path, help="configuración de la mesa (JSON)")
    read.add_argument("--expect", metavar="CUENTA", help='dados por jugador, p. ej. "Ana=5,Beto=3"')
    read.add_argument("--json", action="store_true", help="el resultado en JSON (una línea)")
    read.add_argument("--models", type=Path, help="carpeta de modelos (por defecto, models/ del proyecto)")
    read.add_argument("--loop", action="store_true", help="replay: volver al principio al terminar")
    read.add_argument("--fps", type=float, help="replay: imágenes por segundo (por defecto, las del video o 10)")
    read.add_argument("--still", type=float, default=0.8, metavar="S", help="segundos sin movimiento (0.8)")
    read.add_argument("--timeout", type=float, default=15.0, metavar="S", help="espera máxima en segundos (15)")
    read.add_argument("--frames", type=int, default=3, metavar="N", help="imágenes leídas y votadas (3)")
    read.set_defaults(func=run_read)


def parse_expect(text: str) -> dict[str, int]:
    """ "Ana=5,Beto=3" -> {"Ana": 5, "Beto": 3}; anything else -> CliError."""
    expected: dict[str, int] = {}
    for item in text.split(","):
        name, sep, count = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CliError(f'--expect: «{item.strip()}» no es JUGADOR=DADOS (p. ej. "Ana=5,Beto=3")')
        if name in expected:
            raise CliError(f"--expect: {name} aparece dos veces")
        try:
            dice = int(count.strip())
        except ValueError:
            raise CliError(f"--expect: los dados de {name} deben ser un número entero (no «{count.strip()}»)") from None
        if not 0 <= dice <= 30:
            raise CliError(f"--expect: {name} no puede tener {dice} dados (de 0 a 30)")
        expected[name] = dice
    return expected


def run_read(args: argparse.Namespace) -> int:
    """`cacho table read --camera ... [--seats CONFIG] [--expect ...] [--json]`."""
    from hardware.camera import CameraError, open_camera
    from vision.frames import FrameError
    from vision.seats import ConfigError, TableConfig, capture_at_nadir, load_table_config, read_table
    from vision.still import StillSettings

    expected = parse_expect(args.expect) if args.expect is not None else None
    try:
        config = load_table_config(args.seats) if args.seats is not None else None
    except ConfigError as error:
        raise CliError(str(error)) from None
    try:
        settings = StillSettings(still_s=args.still, timeout_s=args.timeout, frames=args.frames)
    except ValueError as error:
        raise CliError(f"{error} (--still, --timeout, --frames)") from None
    reader = reader_factory(args.models)
    seats = config or TableConfig()
    try:
        with open_camera(args.camera, fps=args.fps, loop=args.loop) as camera:
            capture = capture_at_nadir(camera, reader, settings, seats, camera.hfov_deg)
    except CameraError as error:
        raise CliError(f"cámara {args.camera}: {error}") from None
    except FrameError as error:
        raise CliError(f"cámara {args.camera}: imagen inservible: {error}") from None

    if capture.reading is None or capture.frame is None:
        problem = {"kind": "never_still", "message": capture.message}
        if args.json:
            out = {"camera": args.camera, "capture": capture.to_dict(), "ok": False, "seats": [], "stray": []}
            print(json.dumps(out | {"problems": [problem]}, ensure_ascii=False))
        else:
            print(f"Cámara {args.camera}: {capture.message}")
            print("Resultado: NO se puede arbitrar (mostrar de nuevo la mesa)")
        return 1

    check = read_table(capture.frame, capture.reading, config, expected)
    if args.json:
        out = {"camera": args.camera, "capture": capture.to_dict()} | check.to_dict()
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"Cámara {args.camera}: {capture.message}")
        print(describe_tilt(capture.tilt, seats.mode))
        print(describe_seating(check.seating))
        print("\n".join(check.lines()))
    return 0 if check.ok else 1


def describe_tilt(tilt: Any, mode: str) -> str:
    """One Spanish line on the camera's nadir the dice were read from."""
    if tilt is None:
        why = "modo zonas" if mode == "zones" else "los marcadores no alcanzan para medirlo"
        return f"Nadir de la cámara: el centro de la imagen ({why})"
    x, y = tilt.nadir
    return (
        f"Nadir de la cámara: ({x:.3f}, {y:.3f}) de la imagen, medido con {tilt.markers} marcadores "
        f"(inclinada {tilt.tilt_deg:.1f}°, a {tilt.height_mm / 10:.0f} cm, lente de {tilt.hfov_deg:.0f}°)"
    )


def describe_seating(seating: Any) -> str:
    """One Spanish line on how the seats were found."""
    region = {
        "config": "la mesa es el polígono de la configuración",
        "markers": "la mesa es el anillo de los marcadores",
        "frame": "la mesa es toda la imagen",
    }[seating.region_source]
    if seating.mode == "markers":
        seen = ", ".join(str(m.seat) for m in seating.markers) or "ninguno"
        text = f"Asientos por marcadores ArUco (vistos: {seen})"
        if seating.missing:
            text += f"; faltan: {', '.join(map(str, seating.missing))}"
    elif seating.mode == "zones":
        text = f"Asientos por zonas dibujadas ({', '.join(map(str, sorted(seating.zones)))})"
    else:
        text = "Sin asientos: no se ven marcadores ni hay zonas"
    return f"{text}; {region}."
