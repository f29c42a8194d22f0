"""Write the bundled demo table log: `python -m kiosk.demo.make_dudo_demo [OUT]`.

Plays simulated tables from seed 0 up and keeps the first one that shows every ruling the demo should
show: a dudo, a siciliana, a calzo that was right, a paso held and one not held, an obligo, a heads-up
round, and a champion.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from engines.dudo import ChallengeKind, DudoTable, Event, dumps
from engines.dudo.simulate import play_table

PLAYERS = ("Ana", "Beto", "Caro", "Dani")


def shows_everything(events: list[Event]) -> bool:
    """Whether a table's log has every kind of ruling the demo should show."""
    table = DudoTable.start(events[0])  # type: ignore[arg-type]
    obligo = heads_up = False
    for event in events[1:]:
        table = table.apply(event)  # type: ignore[arg-type]
        if table.round is not None:
            obligo |= table.round.obligo
            heads_up |= table.round.heads_up
    rulings = table.rulings
    return (
        obligo
        and heads_up
        and any(r.siciliana for r in rulings)
        and any(r.kind is ChallengeKind.CALZO and r.changes[0][1] >= 0 for r in rulings)
        and any(r.kind is ChallengeKind.PASO and r.hand_held for r in rulings)
        and any(r.kind is ChallengeKind.PASO and not r.hand_held for r in rulings)
        and len(events) < 160
    )


def main() -> int:
    """Find the first seed whose table shows everything and write its log."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("mesa_dudo.jsonl")
    for seed in range(10_000):
        events = play_table(PLAYERS, random.Random(seed))
        if shows_everything(events):
            out.write_text(dumps(events), encoding="utf-8")
            print(f"semilla {seed}: {len(events)} eventos -> {out}")
            return 0
    print("ninguna semilla mostró todo", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
