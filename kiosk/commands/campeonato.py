"""`cacho campeonato`: the organizer's side of a championship (the broker's credentials, the organizer's page)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kiosk.cli import CliError


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
    cred.add_argument("--renovar", action="store_true", help="contraseñas nuevas para todos")
    cred.add_argument("--json", action="store_true", help="usuarios y contraseñas en JSON")
    cred.set_defaults(func=run_credentials)


def run_credentials(args: argparse.Namespace) -> int:
    """Write the broker's files and print each user's password."""
    from kiosk.championship import credentials, topics

    try:
        topics.check_code(args.codigo)
        folder = args.dir or default_folder(args.codigo)
        if not 1 <= args.puerto <= 65535:
            raise ValueError(f"--puerto {args.puerto}: el puerto va de 1 a 65535")
        written = credentials.write_broker_files(folder, args.codigo, args.mesas, renew=args.renovar, port=args.puerto)
    except ValueError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"no se pudo escribir en {folder}: {error}") from None
    if args.json:
        print(json.dumps({"code": written.code, "folder": str(Path(folder).resolve()), "passwords": written.passwords}))
        return 0
    print(f"Campeonato {written.code}: {written.tables} mesas; archivos del broker en {Path(folder).resolve()}")
    print("Usuario        Contraseña")
    for user in written.users():
        print(f"{user:<14} {written.passwords[user]}")
    print("Cada mesa usa su usuario al unirse al campeonato; sin contraseña solo se lee.")
    return 0
