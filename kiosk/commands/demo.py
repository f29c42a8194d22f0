"""`cacho demo`: the main job on a machine with no camera: play the bundled demo table."""

from __future__ import annotations

import argparse
from typing import Any

from engines.dudo import DudoTable
from kiosk.commands.common import finish_replay
from kiosk.commands.dudo import load, summary
from kiosk.demo import demo_path

DEMO_LOG = "mesa_dudo.jsonl"


def register(subparsers: Any) -> None:
    """Add `cacho demo`."""
    demo = subparsers.add_parser("demo", help="reproduce la mesa de demostración incluida")
    demo.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    """Replay the bundled example table to its champion."""
    path = demo_path(DEMO_LOG)
    print(f"Mesa de demostración: {path}\n")
    result = load(path)
    return finish_replay(result.table, result.error, False, DudoTable.to_dict, summary, "art. ")
