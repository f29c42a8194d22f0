"""`cacho campeonato`: the organizer's side of a championship (the broker's credentials, the organizer's page)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Any

from kiosk.cli import CliError
from kiosk.commands.common import os_reason


def default_folder(code: str) -> Path:
    """Where a championship's files are kept: `campeonato/<code>` beside the kiosk's database."""
    from kiosk.commands.kiosk import default_db

    return default_db().parent / "campeonato" / code


def register(subparsers: Any) -> None:
    """Add `cacho campeonato credenciales` (and the organizer's page)."""
    parser = subparsers.add_parser("campeonato", help="el campeonato: credenciales del broker, página del organizador")
    commands = parser.add_subparsers(dest="campeonato_command", metavar="ACCIÓN", required=True)
    cred = commands.add_parser(
        "credenciales",
        help="escribe el archivo de contraseñas y las ACL de Mosquitto: un usuario por mesa y el del organizador",
        description=(
            "Escribe en la carpeta del campeonato el archivo de contraseñas de Mosquitto (passwd), sus ACL (acl), "
            "una configuración que los usa (mosquitto.conf) y las contraseñas en claro (credenciales.json, legible "
            "solo por su dueño). Cada mesa publica solo en sus temas; el organizador lee y escribe todo; sin "
            "contraseña solo se lee. Volver a correrlo conserva las contraseñas ya entregadas (salvo --renovar); "
            "el broker las relee con `systemctl reload mosquitto` (o SIGHUP)."
        ),
    )
    cred.add_argument("--codigo", required=True, metavar="CÓDIGO", help="código del campeonato (p. ej. verano-2026)")
    cred.add_argument("--mesas", type=int, required=True, metavar="N", help="cuántas mesas (usuarios mesa-1 … mesa-N)")
    cred.add_argument("--dir", type=Path, metavar="CARPETA", help="dónde escribir (por defecto, junto a las mesas)")
    cred.add_argument("--puerto", type=int, default=1883, help="puerto del broker en mosquitto.conf (1883)")
    cred.add_argument(
        "--carpeta-broker",
        type=Path,
        metavar="CARPETA",
        help="dónde leerá el broker passwd y acl (la ruta que se escribe en mosquitto.conf; por defecto, --dir)",
    )
    cred.add_argument("--renovar", action="store_true", help="contraseñas nuevas para todos")
    cred.add_argument("--json", action="store_true", help="usuarios y contraseñas en JSON")
    cred.set_defaults(func=run_credentials)

    serve = commands.add_parser(
        "serve",
        help="la página del organizador: inscripción, sorteo, mesas en vivo, clasificación y fallos",
        description=(
            "Sirve la página del organizador (con PIN) y se suscribe a todas las mesas del campeonato en el broker. "
            "Usa un Mosquitto ya en marcha (--broker), o arranca uno propio con --broker-local para una prueba en "
            "una sola máquina. Con credenciales escritas por `cacho campeonato credenciales`, entra como organizador."
        ),
    )
    serve.add_argument("--codigo", required=True, metavar="CÓDIGO", help="código del campeonato")
    serve.add_argument(
        "--broker", default="127.0.0.1:1883", metavar="DIRECCIÓN:PUERTO", help="el broker MQTT (127.0.0.1:1883)"
    )
    serve.add_argument("--broker-local", action="store_true", help="arrancar un mosquitto propio en ese puerto")
    serve.add_argument(
        "--broker-mesas",
        metavar="DIRECCIÓN:PUERTO",
        help="el broker como lo alcanzan las mesas, para el código QR de cada hoja de mesa (por defecto, --broker)",
    )
    serve.add_argument("--dir", type=Path, metavar="CARPETA", help="carpeta del campeonato (credenciales, registros)")
    serve.add_argument("--host", default="127.0.0.1", help="dónde escuchar la página (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8090, help="puerto de la página (8090)")
    serve.add_argument("--threads", type=int, default=16, help="hilos del servidor web (16)")
    serve.set_defaults(func=run_serve)

    sorteo = commands.add_parser(
        "sorteo",
        help="repite el sorteo público de mesas con su semilla (art. 3)",
        description=(
            "Imprime las mesas que da la semilla para la lista de jugadores (uno por línea, «Nombre, Club», en el "
            "orden de la inscripción): el mismo sorteo que hizo la página del organizador."
        ),
    )
    sorteo.add_argument("jugadores", type=Path, metavar="JUGADORES", help="archivo con un jugador por línea")
    sorteo.add_argument("--semilla", required=True, help="la semilla que mostró la pantalla")
    sorteo.add_argument("--hasta", type=int, required=True, metavar="N", help="jugadores por mesa, como máximo")
    sorteo.add_argument("--json", action="store_true", help="las mesas en JSON")
    sorteo.set_defaults(func=run_draw)


def run_credentials(args: argparse.Namespace) -> int:
    """Write the broker's files and print each user's password."""
    from kiosk.championship import credentials, topics

    try:
        topics.check_code(args.codigo)
        folder = args.dir or default_folder(args.codigo)
        if not 1 <= args.puerto <= 65535:
            raise ValueError(f"--puerto {args.puerto}: el puerto va de 1 a 65535")
        written = credentials.write_broker_files(
            folder, args.codigo, args.mesas, renew=args.renovar, port=args.puerto, broker_dir=args.carpeta_broker
        )
    except ValueError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"no se pudo escribir en {folder}: {os_reason(error, folder)}") from None
    if args.json:
        print(json.dumps({"code": written.code, "folder": str(Path(folder).resolve()), "passwords": written.passwords}))
        return 0
    print(f"Campeonato {written.code}: {written.tables} mesas; archivos del broker en {Path(folder).resolve()}")
    print("Usuario        Contraseña")
    for user in written.users():
        print(f"{user:<14} {written.passwords[user]}")
    print("Cada mesa usa su usuario al unirse al campeonato; sin contraseña solo se lee.")
    return 0


def parse_broker(text: str) -> tuple[str, int]:
    """ "host:port" (port 1883 when absent); CliError otherwise."""
    host, _, port = text.strip().partition(":")
    try:
        number = int(port) if port else 1883
    except ValueError:
        number = 0
    if not host or not 1 <= number <= 65535:
        raise CliError(f"--broker {text}: se esperaba DIRECCIÓN:PUERTO, p. ej. 192.168.1.10:1883")
    return host, number


def run_serve(args: argparse.Namespace) -> int:
    """Serve the organizer's page until stopped."""
    from waitress import serve

    from kiosk.app import create_app
    from kiosk.championship import credentials, topics
    from kiosk.championship.broker import BrokerError, Mosquitto

    try:
        topics.check_code(args.codigo)
    except ValueError as error:
        raise CliError(str(error)) from None
    if not 1 <= args.port <= 65535:
        raise CliError(f"--port {args.port}: el puerto va de 1 a 65535")
    host, port = parse_broker(args.broker)
    folder = (args.dir or default_folder(args.codigo)).resolve()
    username = password = None
    passwords: dict[str, str] = {}
    known = (folder / credentials.SECRETS_FILE).exists()
    if known:
        try:
            written = credentials.read_credentials(folder)
        except OSError as error:
            raise CliError(f"credenciales ilegibles en {folder}: {os_reason(error)}") from None
        except (ValueError, KeyError) as error:
            raise CliError(f"credenciales ilegibles en {folder}: {error}") from None
        if written.code != args.codigo:
            raise CliError(f"las credenciales de {folder} son del campeonato {written.code!r}, no de {args.codigo!r}")
        username, password = credentials.ORGANIZER, written.passwords[credentials.ORGANIZER]
        passwords = written.passwords
    table_host, table_port = parse_broker(args.broker_mesas or args.broker)
    table_broker = f"{table_host}:{table_port}"
    if table_host in ("127.0.0.1", "localhost", "0.0.0.0"):
        warning = f"Aviso: las mesas no alcanzan {table_host}: para el código QR de las hojas de mesa, indique"
        print(f"{warning} --broker-mesas con la dirección de esta máquina en la red.", flush=True)
    broker = None
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stopped by the service manager: stop the broker too
    if args.broker_local:
        broker = Mosquitto(
            port=port,
            folder=folder / "broker",
            host="0.0.0.0" if args.host == "0.0.0.0" else host,
            password_file=folder / credentials.PASSWORD_FILE if known else None,
            acl_file=folder / credentials.ACL_FILE if known else None,
        )
        try:
            broker.start()
        except BrokerError as error:
            raise CliError(str(error)) from None
        print(f"Broker local (mosquitto) en {broker.host}:{broker.port}", flush=True)
    try:
        app = create_app(
            {
                "DATABASE": str(folder / "organizador.sqlite3"),
                "CAMERA": None,
                "CHAMPIONSHIP": {
                    "code": args.codigo,
                    "host": host,
                    "port": port,
                    "username": username,
                    "password": password,
                    "registry": str(folder / "campeonato.sqlite3"),
                    "journal": str(folder / "eventos.sqlite3"),
                    "table_broker": table_broker,
                    "table_passwords": passwords,
                },
            }
        )
        shown = "localhost" if args.host in ("127.0.0.1", "0.0.0.0") else args.host
        address = f"http://{shown}:{args.port}/campeonato/"
        print(f"Campeonato {args.codigo}: página del organizador en {address} (broker {host}:{port})", flush=True)
        serve(app, host=args.host, port=args.port, threads=args.threads, ident="cacho", channel_timeout=120)
    finally:
        if broker is not None:
            broker.stop()
    return 0


def run_draw(args: argparse.Namespace) -> int:
    """Print the tables a seed draws from a list of players."""
    from kiosk.championship.draw import DrawError, draw

    try:
        text = args.jugadores.read_text(encoding="utf-8")
    except OSError as error:
        raise CliError(f"no se pudo leer {args.jugadores}: {os_reason(error, args.jugadores)}") from None
    names = [line.partition(",")[0].strip() for line in text.splitlines() if line.strip()]
    try:
        tables = draw(names, args.semilla, args.hasta)
    except DrawError as error:
        raise CliError(str(error)) from None
    if args.json:
        print(json.dumps({"seed": args.semilla, "tables": tables}, ensure_ascii=False))
        return 0
    print(f"Sorteo con la semilla {args.semilla}: {len(tables)} mesas")
    for number, players in enumerate(tables, start=1):
        print(f"Mesa {number}: {', '.join(players)}")
    return 0
