"""The public draw of tables (art. 3) from a seed anyone can re-run, and who advances from each table (art. 10).

The draw: Python's `random.Random(seed).shuffle` over the entrants in their listed order (registration order in
the first round); the shuffled list fills the tables one after the other, in seat order (clockwise). Tables have at
most `size` players and differ by at most one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

MIN_SIZE, MAX_SIZE = 2, 10


class DrawError(ValueError):
    """A draw that cannot be made (too few players, a size out of range): nothing is drawn."""


def table_sizes(players: int, size: int) -> list[int]:
    """How many players sit at each table: as few tables as `size` allows, as even as possible, larger first."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise DrawError(f"mesas de {size}: el tamaño va de {MIN_SIZE} a {MAX_SIZE} jugadores")
    if players < MIN_SIZE:
        raise DrawError(f"hacen falta al menos {MIN_SIZE} jugadores para sortear mesas (hay {players})")
    tables = math.ceil(players / size)
    base, extra = divmod(players, tables)
    if base < MIN_SIZE:
        raise DrawError(f"{players} jugadores en mesas de {size} dejan a uno solo en una mesa: elija mesas más grandes")
    return [base + 1 if t < extra else base for t in range(tables)]


def draw(entrants: Sequence[str], seed: str, size: int) -> list[list[str]]:
    """The tables drawn from `seed`: each a list of entrants in seat order (the same seed, the same tables)."""
    if not seed.strip():
        raise DrawError("falta la semilla del sorteo: se muestra en pantalla para que cualquiera lo repita")
    if len({name.casefold() for name in entrants}) != len(entrants):
        raise DrawError("hay nombres repetidos: cada jugador debe poder reconocerse en el sorteo")
    sizes = table_sizes(len(entrants), size)
    order = list(entrants)
    random.Random(seed).shuffle(order)
    tables, start = [], 0
    for count in sizes:
        tables.append(order[start : start + count])
        start += count
    return tables


@dataclass(frozen=True, slots=True)
class Placing:
    """Where a player finished at a table: 1 the table's champion (art. 10), then by elimination, last out first."""

    name: str
    place: int | None  # None: still playing


def placings(players: Sequence[str], eliminated: Sequence[str], winner: str | None) -> list[Placing]:
    """The table's placings: its champion first, then the eliminated from the last out; players still in unplaced."""
    out = list(dict.fromkeys(eliminated))
    result: list[Placing] = []
    if winner is not None:
        result.append(Placing(winner, 1))
    for place, name in enumerate(reversed(out), start=len(players) - len(out) + 1):
        result.append(Placing(name, place))
    placed = {p.name for p in result}
    result += [Placing(name, None) for name in players if name not in placed]
    return result


def advancing(table_placings: Sequence[Sequence[Placing]], per_table: int, out: set[str]) -> list[str]:
    """Who goes on to the next round: the best `per_table` of each finished table, skipping the disqualified
    (art. 11), table by table."""
    chosen: list[str] = []
    for table in table_placings:
        ranked = sorted((p for p in table if p.place is not None and p.name not in out), key=lambda p: p.place or 0)
        chosen += [p.name for p in ranked[:per_table]]
    return chosen
