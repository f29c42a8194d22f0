"""A championship proves its reader on every table's evidence: each confirmed sample carries its dice's evidence,
the organizer keeps it once, sets the levels of the pooled reader on all of it, and every table reads at them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from kiosk import teach
from kiosk.championship import pool
from kiosk.championship.broker import Mosquitto
from kiosk.learned import EVIDENCE
from tests.championship.test_pool import heard_by_a_late_table, samples
from tests.kiosk.conftest import make_app
from vision.faces.adapt import MIN_ALONE_SUPPORT
from vision.faces.evidence import Levels, Seen

STOCK_FACES = Path(__file__).resolve().parents[2] / "models" / "faces"
SURE_TWO = Seen(2, 2, 0.97, 0, (0.006, 0.97, 0.006, 0.006, 0.006, 0.006))  # a 2 whose pips were not counted


def evidence(folder: Path, name: str, models: str, dice: int) -> None:
    """The evidence a kiosk keeps beside a sample (kiosk.teach.write_sample_evidence)."""
    (folder / EVIDENCE).mkdir(parents=True, exist_ok=True)
    data = {"models": models, "dice": [SURE_TWO.to_dict()] * dice}
    (folder / EVIDENCE / f"{name}.json").write_text(json.dumps(data))


class FailingAdapter:
    """An adapter that must not be called: these pools never reach the dice an adaptation waits for."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no adaptation expected")


def pooled_reader(out: Path, name: str) -> Path:
    """A reader the organizer kept: the stock face classifier under `name`."""
    shutil.copytree(STOCK_FACES, out / name / "faces")
    return out / name


def test_each_samples_evidence_is_kept_once_and_sets_the_pooled_readers_levels(tmp_path: Path) -> None:
    name = "20261202-070000-000001"
    out = tmp_path / "modelos"
    pooled_reader(out, name)
    published: list[bytes] = []
    the_pool = pool.Pool(tmp_path / "muestras")
    learner = pool.Learner(
        the_pool,
        tmp_path / "stock",
        out,
        lambda m: None,
        FailingAdapter(),
        every=10**9,
        publish_levels=published.append,
    )
    assert learner.current == out / name
    per_sample = 10
    tables = 4
    for table in range(1, tables + 1):
        mesa = tmp_path / f"mesa{table}"
        names = [f"s{k}" for k in range(MIN_ALONE_SUPPORT // per_sample // tables + 1)]
        samples(mesa, names)
        for sample in names:
            evidence(mesa, sample, name, per_sample)
            message = json.loads(pool.sample_message(mesa, sample, table))
            assert message["evidence"]["models"] == name
            the_pool.keep(message)
            the_pool.keep(message)  # sent again (the organizer's answer was lost): kept once
            learner.sampled()  # as the organizer does after each sample kept
        shared = Levels.from_dict(json.loads(published[-1]))
        # each table alone holds a quarter of the dice; pooled, the gate opens once they pass it together
        assert shared.dice == table * len(names) * per_sample
        assert (shared.alone is not None) == (shared.dice >= MIN_ALONE_SUPPORT), shared
    assert json.loads(published[-1])["models"] == name
    count = len(published)
    learner.share_levels()
    assert len(published) == count  # nothing new: nothing published again
    assert the_pool.evidence("otro") == []
    again = pool.Pool(tmp_path / "muestras")  # the organizer restarted: the same evidence, read back from the pool
    assert again.evidence(name) == the_pool.evidence(name) and len(again.evidence(name)) == shared.dice


def test_a_samples_damaged_evidence_is_refused_and_nothing_is_kept(tmp_path: Path) -> None:
    samples(tmp_path / "mesa", ["s0"])
    message = json.loads(pool.sample_message(tmp_path / "mesa", "s0", 1))
    the_pool = pool.Pool(tmp_path / "muestras")
    for bad, said in (
        ({"models": "../x", "dice": [SURE_TWO.to_dict()]}, "pruebas sin un modelo válido"),
        ({"models": "m", "dice": []}, "pruebas sin dados"),
        ({"models": "m", "dice": [{"face": 2}]}, "pruebas ilegibles"),
        ({"models": "m", "dice": [dict(SURE_TWO.to_dict(), face=7)]}, "una cara fuera de 1 a 6"),
    ):
        with pytest.raises(pool.PoolError, match=said):
            the_pool.keep(dict(message, evidence=bad))
    assert not (tmp_path / "muestras").exists()
    the_pool.keep(message)  # a sample with no evidence (read before any pooled reader) is kept as before
    assert the_pool.dice() == 3 and the_pool.evidence("m") == []


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(tmp_path)


def test_a_table_reads_at_the_organizers_levels_where_they_rest_on_more_dice(app: Flask, tmp_path: Path) -> None:
    name = "20261202-070000-000001"
    pooled_reader(teach.adapted_root(app.config), name)
    fewer = {"models": name, "threshold": 0.99, "alone": None, "candidate": None, "dice": 20}
    more = {"models": name, "threshold": 0.9, "alone": 0.95, "candidate": None, "dice": 400}
    with app.app_context():
        teach.ledger(app.config, name).add([SURE_TWO] * 50)  # the table's own evidence of that reader
        own = teach.table_levels(app.config, name)
        assert own is not None and own.dice == 50
        assert (
            teach.use_pooled_levels(app.config, fewer) == own
        )  # the table's own rest on more dice  # the table's own rest on as many
        assert teach.use_pooled_levels(app.config, more) == Levels(0.9, 0.95, None, 400)
        assert teach.table_levels(app.config, name) == Levels(0.9, 0.95, None, 400)  # kept across a restart
        with pytest.raises(ValueError, match="sin nombre válido"):
            teach.use_pooled_levels(app.config, dict(more, models="../fuera"))
        with pytest.raises(ValueError, match="ilegibles"):
            teach.use_pooled_levels(app.config, dict(more, alone=3))


def test_the_levels_reach_every_table_over_the_broker(tmp_path: Path, broker: Mosquitto) -> None:
    payload = json.dumps({"models": "m", "threshold": 0.9, "alone": 0.95, "candidate": None, "dice": 400}).encode()
    heard = heard_by_a_late_table(tmp_path, broker, lambda o: o.publish_levels(payload), 2, levels=True)
    assert heard == [json.loads(payload)]
