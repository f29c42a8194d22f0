"""The `cacho` command line: one sub-command group per game, registered from `kiosk.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module exposes `register(subparsers)`, adding its sub-command(s) with `set_defaults(func=...)`;
# `func(args)` returns the exit status. Add a game by adding its module here.
COMMAND_MODULES = (
    "kiosk.commands.dudo",
    "kiosk.commands.bolivia",
    "kiosk.commands.cards",
    "kiosk.commands.vision",
    "kiosk.commands.table",
    "kiosk.commands.markers",
    "kiosk.commands.demo",
    "kiosk.commands.kiosk",
    "kiosk.commands.campeonato",
)


# argparse's own words (usage, errors, help), in Spanish: argparse looks each one up through its module's gettext.
ARGPARSE_ES = {
    "usage: ": "uso: ",
    "%(prog)s: error: %(message)s\n": "%(prog)s: error: %(message)s\n",
    "options": "opciones",
    "positional arguments": "argumentos",
    "show this help message and exit": "muestra esta ayuda y termina",
    "the following arguments are required: %s": "faltan estos argumentos: %s",
    "unrecognized arguments: %s": "argumentos desconocidos: %s",
    "argument %(argument_name)s: %(message)s": "argumento %(argument_name)s: %(message)s",
    "invalid choice: %(value)r (choose from %(choices)s)": "opción no válida: %(value)r (se elige entre %(choices)s)",
    "invalid %(type)s value: %(value)r": "valor no válido (%(type)s): %(value)r",
    "expected one argument": "se esperaba un valor",
    "expected at least one argument": "se esperaba al menos un valor",
    "expected at most one argument": "se esperaba a lo más un valor",
    "ambiguous option: %(option)s could match %(matches)s": "opción ambigua: %(option)s puede ser %(matches)s",
    "not allowed with argument %s": "no se admite junto con el argumento %s",
    "one of the arguments %s is required": "falta uno de los argumentos %s",
    "ignored explicit argument %r": "se ignoró el valor %r",
    "unknown parser %(parser_name)r (choices: %(choices)s)": (
        "comando desconocido %(parser_name)r (comandos: %(choices)s)"
    ),
}


def _spanish(message: str) -> str:
    return ARGPARSE_ES.get(message, message)


def _spanish_plural(singular: str, plural: str, n: int) -> str:
    if singular == "expected %s argument":
        return "se esperaba %s valor" if n == 1 else "se esperaban %s valores"
    return singular if n == 1 else plural


argparse._ = _spanish  # type: ignore[attr-defined]
argparse.ngettext = _spanish_plural  # type: ignore[attr-defined]


class CliError(Exception):
    """A user-facing error: printed on stderr without a traceback, exit status `status`."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def build_parser() -> argparse.ArgumentParser:
    """Build the parser with every registered sub-command."""
    parser = argparse.ArgumentParser(
        prog="cacho",
        description="Cacho Companion: árbitro de mesa para Cacho (Dudo), Cacho boliviano y juegos de cartas.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMANDO", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `cacho` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except CliError as error:
        print(f"cacho: {error}", file=sys.stderr)
        return error.status
    except BrokenPipeError:  # `cacho ... | head`
        return 0
    return status


if __name__ == "__main__":
    # run as `python -m kiosk.cli`: the commands raise kiosk.cli's CliError, not this __main__ module's
    from kiosk.cli import main as cacho

    sys.exit(cacho())
