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
    sys.exit(main())
