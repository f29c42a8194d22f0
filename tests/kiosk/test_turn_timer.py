"""The turn timer is kept in the store: it survives a restart of the kiosk, and concurrent taps lose nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import cast

from kiosk.store import Store
from tests.kiosk.conftest import become_coordinator, make_app


def test_a_timer_survives_re_creating_the_app_on_the_same_database(tmp_path: Path) -> None:
    first = make_app(tmp_path)
    try:
        coordinator = become_coordinator(first.test_client())
        table = coordinator.new_table()
        coordinator.post(f"/dudo/{table}/timer", {"op": "start", "limit": 45})
        coordinator.post(f"/dudo/{table}/timer", {"op": "pause"})
        coordinator.post(f"/dudo/{table}/timer", {"op": "sound", "on": False})
        before = coordinator.get(f"/dudo/{table}/state.json").json["timer"]
    finally:
        first.extensions["cacho.camera"].close()
    assert before["limit"] == 45 and before["sound"] is False and not before["running"]
    second = make_app(tmp_path)
    try:
        after = become_coordinator(second.test_client()).get(f"/dudo/{table}/state.json").json["timer"]
    finally:
        second.extensions["cacho.camera"].close()
    assert after == before


def test_a_running_timer_keeps_counting_from_when_it_was_started_across_a_restart(tmp_path: Path) -> None:
    first = make_app(tmp_path)
    try:
        coordinator = become_coordinator(first.test_client())
        table = coordinator.new_table()
        started = coordinator.post(f"/dudo/{table}/timer", {"op": "start", "limit": 30}).json
    finally:
        first.extensions["cacho.camera"].close()
    second = make_app(tmp_path)
    try:
        clock = become_coordinator(second.test_client()).get(f"/dudo/{table}/state.json").json["timer"]
    finally:
        second.extensions["cacho.camera"].close()
    assert clock["running"] and clock["since"] == started["since"] and clock["limit"] == 30


def test_an_untouched_table_shows_the_stopped_timer(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    try:
        coordinator = become_coordinator(app.test_client())
        table = coordinator.new_table()
        clock = coordinator.get(f"/dudo/{table}/state.json").json["timer"]
    finally:
        app.extensions["cacho.camera"].close()
    assert clock == {"running": False, "elapsed": 0.0, "since": None, "limit": 60, "sound": True}
    assert app.extensions["cacho.store"].timer(table) is None  # nothing is written until the coordinator taps


def test_concurrent_updates_from_threads_are_neither_lost_nor_corrupted(tmp_path: Path) -> None:
    store = Store(tmp_path / "kiosk.sqlite3")
    table = store.create_table("dudo", "Mesa 1", [])
    threads, rounds = 8, 25
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []

    def count(k: int) -> Callable[[dict[str, object] | None], dict[str, object]]:
        def change(clock: dict[str, object] | None) -> dict[str, object]:
            clock = clock or {"elapsed": 0.0, "taps": []}
            return {"elapsed": cast(float, clock["elapsed"]) + 1.0, "taps": [*cast(list[int], clock["taps"]), k]}

        return change

    def tap(k: int) -> None:
        try:
            barrier.wait()
            for _ in range(rounds):
                store.update_timer(table, count(k))
        except BaseException as error:  # the main thread reports it
            errors.append(error)

    workers = [threading.Thread(target=tap, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    clock = store.timer(table)
    assert clock is not None and clock["elapsed"] == threads * rounds
    taps = clock["taps"]
    assert isinstance(taps, list) and sorted(taps) == sorted(k for k in range(threads) for _ in range(rounds))


def test_concurrent_taps_on_the_kiosk_leave_one_whole_timer(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    try:
        table = become_coordinator(app.test_client()).new_table()
        limits = [5 + k for k in range(8)]
        barrier = threading.Barrier(len(limits))
        answers: list[int] = []

        def tap(limit: int) -> None:
            coordinator = become_coordinator(app.test_client())
            barrier.wait()
            for op in ("start", "pause", "start"):
                answers.append(coordinator.post(f"/dudo/{table}/timer", {"op": op, "limit": limit}).status_code)

        workers = [threading.Thread(target=tap, args=(limit,)) for limit in limits]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        clock = become_coordinator(app.test_client()).get(f"/dudo/{table}/state.json").json["timer"]
    finally:
        app.extensions["cacho.camera"].close()
    assert answers == [200] * 3 * len(limits)
    assert set(clock) == {"running", "elapsed", "since", "limit", "sound"}
    assert clock["limit"] in limits and clock["elapsed"] >= 0 and clock["sound"] is True
    assert clock["running"] is (clock["since"] is not None)
