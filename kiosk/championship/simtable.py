"""A simulated table for the soak and the tests: the engine's random legal game, stored event by event and linked.

`python -m kiosk.championship.simtable --db RUTA --table N --code C --port P --seed S` plays the table drawn from
the seed; restarted (after a kill -9), it goes on from the events its store already has. It keeps its link open
until it is stopped (SIGTERM), so it can answer the organizer's requests to send again.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from engines.dudo import event_to_dict
from engines.dudo.actions import Event
from engines.dudo.simulate import play_table
from kiosk.championship.link import LinkConfig, TableLink
from kiosk.store import Store
from kiosk.tables import stored_line

NAMES = ("Ana", "Beto", "Caro", "Dani", "Eli", "Fede")


def players(table: int) -> list[str]:
    """The players of simulated table `table`: four to six, named by seat and table."""
    return [f"{name}{table}" for name in NAMES[: 4 + table % 3]]


def game(table: int, seed: int, names: Sequence[str] | None = None) -> list[Event]:
    """The whole game simulated table `table` plays with `seed` (the same every time), by default with its own
    players."""
    return play_table(list(names or players(table)), random.Random(seed * 1000 + table))


def main(argv: Sequence[str] | None = None) -> int:
    """Play one simulated table through its link; stop on SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m kiosk.championship.simtable", description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--table", type=int, required=True)
    parser.add_argument("--code", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pace", type=float, default=0.05, help="segundos entre dos eventos")
    parser.add_argument("--username")
    parser.add_argument("--password")
    parser.add_argument("--players", help="los jugadores en orden horario, separados por comas (los del sorteo)")
    args = parser.parse_args(argv)
    store = Store(Path(args.db))
    rows = store.tables("dudo")
    table_id = rows[-1].id if rows else store.create_table("dudo", f"Mesa {args.table}", [])
    link = TableLink(
        store,
        LinkConfig(args.host, args.port, args.code, args.table, table_id, args.username, args.password),
        poll_s=0.5,
    ).start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    names = [name.strip() for name in args.players.split(",")] if args.players else None
    events = game(args.table, args.seed, names)
    for event in events[len(store.lines(table_id)) :]:
        if stop.wait(args.pace):
            break
        store.append(table_id, stored_line(event_to_dict(event)))
        link.wake()
    print(f"mesa {args.table}: {len(store.lines(table_id))} eventos", flush=True)
    stop.wait()
    link.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
