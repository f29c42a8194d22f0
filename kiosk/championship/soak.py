"""The championship under fire: simulated tables through a real Mosquitto, the broker and tables killed mid-run.

`python -m kiosk.championship.soak --tables 32` starts a local broker, the organizer, and one process per
simulated table (the engine's random legal games); kills the broker (kill -9) and restarts it, kills two tables
(kill -9) and restarts them; then waits until the organizer's view equals every table's own log, event for event,
and prints what it measured: events, duplicates dropped, resend requests, the time from a table's event to the
organizer (p50, p99) and the CPU the broker and the organizer used.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from engines.dudo import event_to_dict
from kiosk.championship import simtable
from kiosk.championship.broker import Mosquitto
from kiosk.championship.link import wait_for
from kiosk.championship.organizer import Organizer
from kiosk.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _ts(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class Soak:
    """A local broker, the organizer and simulated table processes, all in one folder."""

    def __init__(self, folder: Path, tables: int, *, seed: int = 1, pace_s: float = 0.05, code: str = "soak") -> None:
        self.folder = Path(folder)
        self.count = tables
        self.seed = seed
        self.pace_s = pace_s
        self.code = code
        self.broker = Mosquitto(folder=self.folder / "broker")
        self.latencies: list[float] = []
        self._lat_lock = threading.Lock()
        self.organizer: Organizer | None = None
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.expected = {n: [event_to_dict(e) for e in simtable.game(n, seed)] for n in self.numbers}

    @property
    def numbers(self) -> range:
        """The tables' numbers, from 1."""
        return range(1, self.count + 1)

    def db(self, table: int) -> Path:
        """Where simulated table `table` keeps its log."""
        return self.folder / f"mesa{table}.sqlite3"

    def start(self) -> Soak:
        """The broker, the organizer, then every table."""
        self.broker.start()
        journal = self.folder / "eventos.sqlite3"  # as the organizer's page keeps it
        self.organizer = Organizer(
            "127.0.0.1", self.broker.port, self.code, on_event=self._heard, journal=journal
        ).start()
        for table in self.numbers:
            self.start_table(table)
        return self

    def _heard(self, table: int, seq: int, event: dict[str, Any], arrived: float) -> None:
        stamp = event.get("ts")
        if isinstance(stamp, str):
            with self._lat_lock:
                self.latencies.append(arrived - _ts(stamp))

    def start_table(self, table: int) -> None:
        """Start (or restart) one simulated table's process."""
        command = [sys.executable, "-m", "kiosk.championship.simtable", "--db", str(self.db(table))]
        command += ["--table", str(table), "--code", self.code, "--port", str(self.broker.port)]
        command += ["--seed", str(self.seed), "--pace", str(self.pace_s)]
        log = open(self.folder / f"mesa{table}.log", "ab")  # noqa: SIM115 (the child writes to it)
        try:
            self.processes[table] = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        finally:
            log.close()

    def kill_table(self, table: int) -> None:
        """kill -9 one table's process."""
        process = self.processes.pop(table)
        process.kill()
        process.wait()

    def stored(self, table: int) -> list[dict[str, Any]]:
        """One table's own log, decoded."""
        path = self.db(table)
        if not path.exists():
            return []
        store = Store(path)
        rows = store.tables("dudo")
        return [json.loads(line) for line in store.lines(rows[-1].id)] if rows else []

    def stored_counts(self) -> dict[int, int]:
        """How many events each table has stored."""
        return {n: len(self.stored(n)) for n in self.numbers}

    def received(self) -> int:
        """How many events the organizer holds, all tables."""
        assert self.organizer is not None
        return sum(len(self.organizer.events(n)) for n in self.numbers)

    def matches(self) -> bool:
        """Every table finished its game, and the organizer has its log exactly."""
        assert self.organizer is not None
        if any(len(self.organizer.events(n)) != len(self.expected[n]) for n in self.numbers):
            return False  # the cheap check first: reading every table's store is for the end
        return all(self.organizer.events(n) == self.stored(n) for n in self.numbers)

    def close(self) -> None:
        """Stop every table, the organizer and the broker."""
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
        if self.organizer is not None:
            self.organizer.stop()
        self.broker.stop()

    def __enter__(self) -> Soak:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def percentile(values: Sequence[float], share: float) -> float:
    """The value below which `share` of them lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def run(soak: Soak, *, kill_broker: bool, kill_tables: int, timeout_s: float) -> dict[str, Any]:
    """Play the soak to the end, with the kills; what it measured."""
    total = sum(len(events) for events in soak.expected.values())
    began = time.monotonic()
    cpu_organizer = time.process_time()
    soak.start()
    assert soak.organizer is not None
    broker_cpu = 0.0
    if not wait_for(lambda: soak.received() >= total * 0.2, timeout_s):
        raise RuntimeError("el organizador no recibió ni el 20 % de los eventos")
    if kill_broker:
        assert soak.broker.process is not None
        broker_cpu += _cpu_s(soak.broker.process.pid)
        soak.broker.kill()
        before = sum(soak.stored_counts().values())
        # The tables play on without the broker: wait until they stored more, then bring it back.
        wait_for(lambda: sum(soak.stored_counts().values()) >= min(total, before + 4 * soak.count), timeout_s)
        soak.broker.start()
    for table in list(soak.numbers)[:kill_tables]:
        soak.kill_table(table)
        soak.start_table(table)
    if not wait_for(soak.matches, timeout_s, step_s=0.25):
        missing = {n: (len(soak.organizer.events(n)), len(soak.expected[n])) for n in soak.numbers}
        raise RuntimeError(f"el organizador no alcanzó a las mesas (recibidos, esperados): {missing}")
    elapsed = time.monotonic() - began
    assert soak.broker.process is not None
    broker_cpu += _cpu_s(soak.broker.process.pid)
    summaries = [soak.organizer.summary(n) or {} for n in soak.numbers]
    latencies = soak.latencies
    return {
        "tables": soak.count,
        "events": total,
        "duplicates_dropped": sum(s.get("duplicates", 0) for s in summaries),
        "conflicts": sum(s.get("conflicts", 0) for s in summaries),
        "resend_requests": sum(s.get("resend_requests", 0) for s in summaries),
        "champions": sum(1 for s in summaries if s.get("winner")),
        "seconds": round(elapsed, 1),
        "latency_ms_p50": round(1000 * statistics.median(latencies), 1),
        "latency_ms_p99": round(1000 * percentile(latencies, 0.99), 1),
        "broker_cpu_s": round(broker_cpu, 2),
        "organizer_cpu_s": round(time.process_time() - cpu_organizer, 2),
        "kill_broker": kill_broker,
        "tables_killed": kill_tables,
        "load_average": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the soak and print what it measured."""
    parser = argparse.ArgumentParser(prog="python -m kiosk.championship.soak", description=__doc__)
    parser.add_argument("--tables", type=int, default=32, help="mesas simuladas (32)")
    parser.add_argument("--pace", type=float, default=0.05, help="segundos entre dos eventos de una mesa (0.05)")
    parser.add_argument("--seed", type=int, default=1, help="semilla de los juegos (1)")
    parser.add_argument("--kill-tables", type=int, default=2, help="mesas matadas con kill -9 y relanzadas (2)")
    parser.add_argument("--sin-caida", action="store_true", help="no matar el broker a mitad de la prueba")
    parser.add_argument("--timeout", type=float, default=300.0, help="segundos de espera como máximo (300)")
    parser.add_argument("--json", action="store_true", help="imprimir JSON")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.kill_tables > args.tables:
        parser.error("--tables debe ser al menos 1 y --kill-tables no más que las mesas")
    with tempfile.TemporaryDirectory(prefix="cacho-soak-") as folder:
        soak = Soak(Path(folder), args.tables, seed=args.seed, pace_s=args.pace)
        try:
            result = run(soak, kill_broker=not args.sin_caida, kill_tables=args.kill_tables, timeout_s=args.timeout)
        except RuntimeError as error:
            print(f"soak: {error}", file=sys.stderr)
            return 1
        finally:
            soak.close()
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['tables']} mesas, {result['events']} eventos en {result['seconds']} s: el organizador tiene "
            f"el registro de cada mesa, evento por evento ({result['duplicates_dropped']} repetidos descartados, "
            f"{result['conflicts']} en conflicto, {result['resend_requests']} pedidos de reenvío)\n"
            f"latencia evento → organizador: p50 {result['latency_ms_p50']} ms, p99 {result['latency_ms_p99']} ms\n"
            f"CPU: broker {result['broker_cpu_s']} s, organizador {result['organizer_cpu_s']} s "
            f"(carga de la máquina {result['load_average']} en {result['cpus']} núcleos)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
