"""The championship learns together, through a real Mosquitto: every table's confirmed dice pooled once at the
organizer, none lost to a restart, and the reader adapted on them back at every table, checked by its hash."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest

from kiosk.championship import pool
from kiosk.championship.broker import Mosquitto, free_port
from kiosk.championship.link import LinkConfig, TableLink, wait_for
from kiosk.championship.organizer import Organizer
from kiosk.store import Store
from vision.faces.crops import CHECKED

CODE = "prueba"


def samples(folder: Path, names: list[str], dice: int = 3) -> None:
    """A kiosk's labelled dice: one small photo per name with `dice` dice."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    for name in names:
        cv2.imwrite(str(folder / "images" / f"{name}.jpg"), np.full((24, 24, 3), 90, np.uint8))
        (folder / "labels" / f"{name}.txt").write_text("2 0.5 0.5 0.2 0.2\n" * dice)


def models(folder: Path, faces: bytes = b"stock") -> Path:
    """A models folder: dice/ and faces/ with one file each."""
    (folder / "dice").mkdir(parents=True)
    (folder / "faces").mkdir()
    (folder / "dice" / "finder.onnx").write_bytes(b"finder")
    (folder / "faces" / "face_cnn.onnx").write_bytes(faces)
    return folder


def test_each_tables_samples_reach_the_pool_once_even_across_a_table_restart(tmp_path: Path, broker: Mosquitto) -> None:
    kept_at: list[int] = []
    the_pool = pool.Pool(tmp_path / "organizador" / "muestras")
    organizer = Organizer("127.0.0.1", broker.port, CODE, pool=the_pool, on_sample=kept_at.append).start()
    store = Store(tmp_path / "mesa.sqlite3")
    table_id = store.create_table("dudo", "Mesa 2", [])
    learned = tmp_path / "dados-aprendidos"
    samples(learned, [f"lectura-{k:02d}" for k in range(12)])  # more than one window
    config = LinkConfig("127.0.0.1", broker.port, CODE, 2, table_id)
    link = TableLink(store, config, poll_s=0.05, samples=learned).start()
    try:
        assert wait_for(lambda: link.status()["samples_kept"] == 12, 15)
        assert the_pool.tables() == {2: 12} and the_pool.dice() == 36 and kept_at == [2] * 12
        link.stop()
        samples(learned, ["lectura-12"])
        link = TableLink(store, config, poll_s=0.05, samples=learned).start()  # from what the store kept
        assert wait_for(lambda: link.status()["samples_kept"] == 13, 15)
        assert the_pool.tables() == {2: 13} and len(kept_at) == 13  # the twelve were not sent again
        image = (the_pool.folder / "images" / "mesa2-lectura-12.jpg").read_bytes()
        assert image == (learned / "images" / "lectura-12.jpg").read_bytes()
    finally:
        link.stop()
        organizer.stop()


def test_samples_the_broker_lost_go_out_again(tmp_path: Path) -> None:
    port = free_port()
    broker = Mosquitto(port=port, folder=tmp_path / "broker")
    store = Store(tmp_path / "mesa.sqlite3")
    table_id = store.create_table("dudo", "Mesa 1", [])
    learned = tmp_path / "dados-aprendidos"
    samples(learned, ["a", "b"])
    config = LinkConfig("127.0.0.1", port, CODE, 1, table_id)
    link = TableLink(store, config, poll_s=0.05, samples=learned, sample_retry_s=0.5).start()
    the_pool = pool.Pool(tmp_path / "muestras")
    organizer = Organizer("127.0.0.1", port, CODE, pool=the_pool)
    try:
        broker.start()
        assert wait_for(lambda: link.status()["state"] == "up", 10)
        organizer.start()  # late: the samples sent before it subscribed went nowhere, and were not kept
        assert wait_for(lambda: link.status()["samples_kept"] == 2, 15)
        assert the_pool.tables() == {1: 2}
    finally:
        link.stop()
        organizer.stop()
        broker.close()


def heard_by_a_late_table(
    tmp_path: Path, broker: Mosquitto, publish: Callable[[Organizer], None], table: int, levels: bool = False
) -> list[dict[str, Any]]:
    """What a table that links after the organizer published (`publish`) hears of the championship's reader (its
    levels where `levels`): a retained message reaches it."""
    organizer = Organizer("127.0.0.1", broker.port, CODE).start()
    publish(organizer)
    heard: list[dict[str, Any]] = []
    store = Store(tmp_path / "mesa.sqlite3")
    table_id = store.create_table("dudo", f"Mesa {table}", [])
    config = LinkConfig("127.0.0.1", broker.port, CODE, table, table_id)
    if levels:
        link = TableLink(store, config, poll_s=0.05, on_levels=heard.append).start()
    else:
        link = TableLink(store, config, poll_s=0.05, on_model=heard.append).start()
    try:
        assert wait_for(lambda: len(heard) == 1, 10)  # retained: a table that joins late gets it
    finally:
        link.stop()
        organizer.stop()
    return heard


def test_the_pooled_reader_reaches_every_table_and_a_wrong_hash_is_refused(tmp_path: Path, broker: Mosquitto) -> None:
    adapted = models(tmp_path / "organizador" / "modelos" / "20261202-0700", faces=b"pooled")
    (adapted / "faces" / "evidence.jsonl").write_text('{"face": 1}\n')
    message = pool.model_message(adapted, SimpleNamespace(fit_dice=400, after=SimpleNamespace(dice=120, wrong=0)))
    heard = heard_by_a_late_table(tmp_path, broker, lambda o: o.publish_model(message), 3)
    data = heard[0]
    assert (data["name"], data["dice"], data["held_out"], data["wrong"]) == ("20261202-0700", 400, 120, 0)
    stock = models(tmp_path / "models")
    root = tmp_path / "mesa" / "modelos-adaptados"
    folder = pool.install_model(data, stock, root)
    assert folder == root / "20261202-0700"
    assert (folder / "faces" / "face_cnn.onnx").read_bytes() == b"pooled"
    assert (folder / "faces" / "evidence.jsonl").is_file() and (
        folder / "dice" / "finder.onnx"
    ).read_bytes() == b"finder"
    forged = dict(data, name="otro", faces=base64.b64encode(b"not the archive").decode())
    with pytest.raises(pool.PoolError, match="no coincide con su huella sha256"):
        pool.install_model(forged, stock, root)
    assert not (root / "otro").exists()
    with pytest.raises(pool.PoolError, match="nombre de modelo inválido"):
        pool.install_model(dict(data, name="../fuera"), stock, root)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"table": 0}, "sin número de mesa válido"),
        ({"name": "../x"}, "con un nombre inválido"),
        ({"image": "no es base64!"}, "imagen dañada"),
        ({"image": base64.b64encode(b"GIF89a").decode()}, "no es una foto JPEG"),
        ({"label": None}, "sin etiquetas o sin imagen"),
        ({"checked": "1\n0\n"}, "las marcas de comprobado no son un 0 o 1 por dado"),  # three dice, two marks
        ({"checked": "1\n2\n0\n"}, "las marcas de comprobado no son un 0 o 1 por dado"),
    ],
)
def test_a_sample_that_cannot_be_kept_is_refused_and_changes_nothing(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    samples(tmp_path / "mesa", ["s"])
    good = json.loads(pool.sample_message(tmp_path / "mesa", "s", 4))
    the_pool = pool.Pool(tmp_path / "muestras")
    with pytest.raises(pool.PoolError, match=message):
        the_pool.keep(good | change)
    assert the_pool.dice() == 0
    assert the_pool.keep(good) == (4, "s") and the_pool.keep(good) == (4, "s") and the_pool.tables() == {4: 1}
    assert not (tmp_path / "muestras" / CHECKED).exists()  # a sample with no marks: labelled by hand


def test_which_dice_the_coordinator_checked_travels_with_the_sample(tmp_path: Path) -> None:
    samples(tmp_path / "mesa", ["s"])
    (tmp_path / "mesa" / CHECKED).mkdir()
    (tmp_path / "mesa" / CHECKED / "s.txt").write_text("1\n0\n0\n")
    sent = json.loads(pool.sample_message(tmp_path / "mesa", "s", 4))
    assert sent["checked"] == "1\n0\n0\n"
    pool.Pool(tmp_path / "muestras").keep(sent)
    assert (tmp_path / "muestras" / CHECKED / "mesa4-s.txt").read_text() == "1\n0\n0\n"


class Adapter:
    """Writes a models folder with faces/ of its own each time it is called (a fake vision.faces.adapt.adapt)."""

    def __init__(self) -> None:
        self.sources: list[Path] = []

    def __call__(self, folder: Path, out: Path, source: Path, *, holdout: float, crops: int) -> Any:
        self.sources.append(source)
        models(out, faces=f"vez {len(self.sources)}".encode())
        return SimpleNamespace(written=True, fit_dice=60, after=SimpleNamespace(dice=20, wrong=0))


def test_the_learner_adapts_on_enough_new_pooled_dice_from_its_last_reader(tmp_path: Path) -> None:
    published: list[bytes] = []
    the_pool = pool.Pool(tmp_path / "muestras")
    adapter = Adapter()
    learner = pool.Learner(the_pool, tmp_path / "stock", tmp_path / "modelos", published.append, adapter, every=30)
    samples(tmp_path / "mesa", [f"s{k}" for k in range(20)])
    for k in range(9):
        the_pool.keep(json.loads(pool.sample_message(tmp_path / "mesa", f"s{k}", 1)))
    assert not learner.offer(wait=True) and published == []  # 27 dice
    the_pool.keep(json.loads(pool.sample_message(tmp_path / "mesa", "s9", 2)))
    assert learner.offer(wait=True) and len(published) == 1
    first = learner.current
    assert learner.last["state"] == "done" and "aprendió 60 dados del campeonato" in learner.last["message"]
    assert not learner.offer(wait=True)  # nothing new since
    for k in range(10, 20):
        the_pool.keep(json.loads(pool.sample_message(tmp_path / "mesa", f"s{k}", 3)))
    assert learner.offer(wait=True) and len(published) == 2
    assert adapter.sources == [tmp_path / "stock", first]  # from the last reader kept
    assert learner.current is not None and json.loads(published[1])["name"] == learner.current.name


def test_without_the_learning_part_the_organizer_keeps_the_pooled_dice_and_says_what_is_missing(tmp_path: Path) -> None:
    the_pool = pool.Pool(tmp_path / "muestras")
    learner = pool.Learner(
        the_pool, tmp_path / "stock", tmp_path / "modelos", [].append, every=1, modules=("cacho_modulo_que_no_existe",)
    )
    samples(tmp_path / "mesa", ["s0"])
    the_pool.keep(json.loads(pool.sample_message(tmp_path / "mesa", "s0", 1)))
    assert not learner.offer(wait=True)
    assert learner.last["state"] == "refused" and "falta la parte de aprendizaje" in learner.last["message"]
    assert the_pool.dice() == 3 and not (tmp_path / "modelos").exists()


def test_a_table_kiosks_dice_teach_the_organizer_whose_reader_the_table_then_reads_with(
    tmp_path: Path, broker: Mosquitto
) -> None:
    from kiosk import teach
    from kiosk.app import create_app
    from kiosk.championship.views import stop_link
    from tests.kiosk.conftest import become_coordinator

    stock = models(tmp_path / "stock")
    adapter = Adapter()
    organizer_app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "org" / "organizador.sqlite3"),
            "CAMERA": None,
            "STOCK_MODELS": str(stock),
            "POOL_ADAPTER": adapter,
            "LEARN_EVERY": 6,
            "CHAMPIONSHIP": {
                "code": CODE,
                "host": "127.0.0.1",
                "port": broker.port,
                "registry": str(tmp_path / "org" / "campeonato.sqlite3"),
            },
        }
    )
    kiosk = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "mesa" / "m.sqlite3"), "CAMERA": None, "STOCK_MODELS": str(stock)}
    )
    coordinator = become_coordinator(kiosk.test_client())
    try:
        table_id = coordinator.new_table("Ana\nBeto\nCaro", "Ana")
        samples(Path(kiosk.config["LEARNED"]), ["r1", "r2"])  # 6 dice confirmed at the table
        form = {"broker": f"127.0.0.1:{broker.port}", "code": CODE, "table": "5", "table_id": str(table_id)}
        assert coordinator.form("/campeonato/mesa/unirse", form).status_code == 302
        store = kiosk.extensions["cacho.store"]
        assert wait_for(lambda: bool(store.setting(teach.SETTING)), 15)
        name = store.setting(teach.SETTING)
        folder = Path(kiosk.config["ADAPTED_MODELS"]) / name
        assert (folder / "faces" / "face_cnn.onnx").read_bytes() == b"vez 1" and adapter.sources == [stock]
        learning = organizer_app.test_client().get("/campeonato/estado.json").get_json()["learning"]
        assert learning["state"] == "done" and learning["models"] == name
        assert learning["dice"] == 6 and learning["tables"] == {"5": 2}
    finally:
        stop_link(kiosk)
        kiosk.extensions["cacho.camera"].close()
        organizer_app.extensions["cacho.championship"].feeds.stop()
        organizer_app.extensions["cacho.camera"].close()
