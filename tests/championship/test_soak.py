"""Simulated tables through a real Mosquitto; the broker and two tables killed (kill -9) and restarted mid-run."""

from __future__ import annotations

from pathlib import Path

from kiosk.championship.soak import Soak, run


def test_organizer_equals_every_table_log_after_kills(tmp_path: Path) -> None:
    soak = Soak(tmp_path, 5, seed=7, pace_s=0.01)
    try:
        result = run(soak, kill_broker=True, kill_tables=2, timeout_s=90)
        assert soak.organizer is not None
        for table in soak.numbers:
            events = soak.organizer.events(table)
            assert events == soak.stored(table)  # event for event: nothing lost, nothing doubled
            assert [{k: v for k, v in e.items() if k != "ts"} for e in events] == soak.expected[table]
    finally:
        soak.close()
    assert result["events"] == sum(len(events) for events in soak.expected.values())
    assert result["champions"] == 5 and result["conflicts"] == 0
