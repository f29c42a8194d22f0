"""«Enseñar los dados»: the dice counted per face, read and confirmed here, the reader adapted in the background
(a fake adapter at the seam; one test runs the real one), the models in use on the badge and in the log."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask

from engines.dudo import replay_lines
from kiosk import learned, teach
from kiosk.camera import STOCK, CameraService
from tests.kiosk.conftest import Coordinator, become_coordinator, make_app
from tests.kiosk.fakes import FakeCamera, FakeReader, wait_until, write_zones
from vision.evening import Learning
from vision.faces.adapt import AdaptError
from vision.faces.realsets import capture_group
from vision.faces.train import calibration_photo
from vision.still import StillSettings

STILL = StillSettings(still_s=0.0, timeout_s=3.0, poll_s=0.0, frames=1, frame_gap_s=0.0)
MODELS = Path(__file__).resolve().parents[2] / "models"


@dataclass
class FakeAdapter:
    """Adapts nothing: writes a models folder (unless told not to, or to refuse) and says what it gained."""

    written: bool = True
    error: str | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)

    def __call__(
        self,
        folder: Path,
        out: Path,
        source: Path,
        *,
        minutes: float,
        epochs: int | None,
        command: str,
        progress: Callable[[float], None],
        crops: int | None = None,
        levels: tuple[float, float | None] | None = None,
    ) -> Any:
        self.calls.append(
            {"folder": folder, "out": out, "source": source, "minutes": minutes, "epochs": epochs, "command": command}
            | {"crops": crops, "levels": levels}
        )
        progress(0.5)
        if self.error is not None:
            raise AdaptError(self.error)
        if self.written:
            (out / "faces").mkdir(parents=True)
            (out / "ADAPTED.json").write_text("{}")
        held = SimpleNamespace
        return SimpleNamespace(
            written=self.written,
            fit_dice=1240,
            before=held(dice=40, load=12, wrong=2),
            after=held(dice=40, load=1 if self.written else 15, wrong=0),
        )


@dataclass
class Rig:
    """The kiosk with a fake camera, reader, adapter and models reader."""

    app: Flask
    reader: FakeReader
    adapter: FakeAdapter
    loaded: list[Path]
    co: Coordinator

    @property
    def root(self) -> Path:
        """The labelled folder."""
        return Path(self.app.config["LEARNED"])

    @property
    def camera(self) -> CameraService:
        """The camera service."""
        return self.app.extensions["cacho.camera"]  # type: ignore[no-any-return]


def start(tmp_path: Path, adapter: FakeAdapter | None = None, **config: Any) -> Rig:
    """The kiosk (reads and adaptations run synchronously), once the reader is ready; the coordinator's browser."""
    reader, loaded = FakeReader(), []

    def models_reader(models: Path) -> FakeReader:
        loaded.append(models)
        return reader

    adapter = adapter or FakeAdapter()
    app = make_app(
        tmp_path,
        CAMERA="fake",
        CAMERA_FACTORY=lambda spec: FakeCamera(),
        READER_FACTORY=lambda: reader,
        MODELS_READER_FACTORY=models_reader,
        ADAPTER=adapter,
        READ_SYNC=True,
        STILL=STILL,
        **config,
    )
    wait_until(lambda: app.extensions["cacho.camera"].can_read)
    return Rig(app, reader, adapter, loaded, become_coordinator(app.test_client()))


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """The kiosk with fakes."""
    made = start(tmp_path)
    yield made
    made.camera.close()


def fill(root: Path, per_face: dict[int, int]) -> None:
    """Labelled dice already collected: one small photo per face with that many dice."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    for face, n in per_face.items():
        cv2.imwrite(str(root / "images" / f"lleno-{face}.jpg"), np.zeros((20, 20, 3), np.uint8))
        (root / "labels" / f"lleno-{face}.txt").write_text(f"{face - 1} 0.5 0.5 0.1 0.1\n" * n)


def state(rig: Rig) -> dict[str, Any]:
    """The page's state."""
    response = rig.co.get("/ensenar/state.json")
    assert response.status_code == 200, response.text
    return dict(response.get_json())


def wait_models(rig: Rig, name: str) -> None:
    """Until the reader in use reads with `name`."""
    wait_until(lambda: rig.camera.models == name and rig.camera.health().reader == "ready")


def test_the_page_counts_the_dice_per_face_and_says_what_is_missing(rig: Rig) -> None:
    page = rig.co.get("/ensenar")
    assert page.status_code == 200 and "Enseñar los dados" in page.text
    assert "Teach the dice" in rig.co.get("/ensenar?lang=en").text
    assert "/ensenar" in rig.co.get("/?lang=es").text  # reachable from the home page (setup)
    fill(rig.root, {1: 30, 2: 30, 3: 30, 4: 30, 5: 5, 6: 50})
    now = state(rig)
    assert now["counts"] == {"1": 30, "2": 30, "3": 30, "4": 30, "5": 5, "6": 50} and now["total"] == 175
    assert now["missing"] == teach.TARGET_DICE - 175 and now["short_faces"] == [5] and not now["ready"]
    refused = rig.co.post("/ensenar/adapt")
    assert refused.status_code == 409
    assert refused.get_json()["error"] == "faltan 25 dados; faltan dados con la cara 5 (al menos 20 de cada una)"
    assert rig.adapter.calls == [] and state(rig)["job"]["state"] == "idle"


def test_a_reading_on_the_page_is_corrected_and_confirmed_into_the_labelled_dice(rig: Rig) -> None:
    rig.reader.show({1: [4, 4, 1], 2: [6, 2]}, uncertain=[(2, 1)])
    assert rig.co.post("/ensenar/read").status_code == 202
    reading = state(rig)["reading"]
    assert [d["face"] for d in reading["dice"]] == [4, 4, 1, 6, 2] and reading["photo_url"]
    assert reading["blockers"] == ["1 dado dudoso: tóquelo para confirmar o corregir"]
    assert rig.co.get(reading["photo_url"]).data[:2] == b"\xff\xd8"
    assert rig.co.post("/ensenar/confirm").status_code == 409  # a doubtful die first
    assert rig.co.post("/ensenar/die", {"die": reading["dice"][4]["id"], "face": 9}).status_code == 400
    rig.co.post("/ensenar/die", {"die": reading["dice"][4]["id"], "face": 3})  # the doubtful 2 is a 3
    rig.co.post("/ensenar/die", {"die": reading["dice"][0]["id"], "face": 5})  # the first 4 is a 5
    after = rig.co.post("/ensenar/confirm").get_json()
    assert after["reading"] is None
    assert after["counts"] == {"1": 1, "2": 0, "3": 1, "4": 1, "5": 1, "6": 1}
    assert not list((rig.root / learned.PENDING).iterdir())
    rig.co.post("/ensenar/read")
    assert rig.co.post("/ensenar/cancel").status_code == 200  # discarded: nothing kept
    assert state(rig)["total"] == 5 and not list((rig.root / learned.PENDING).iterdir())


def test_the_reader_is_adapted_in_the_background_and_read_with_at_once(rig: Rig) -> None:
    fill(rig.root, dict.fromkeys(range(1, 7), 35))
    assert state(rig)["ready"] and state(rig)["models"]["active"] == STOCK
    assert rig.co.post("/ensenar/adapt").status_code == 202
    job = state(rig)["job"]
    assert job["state"] == "done"
    assert job["message"] == "antes: 12 de 40 por confirmar, 2 de ellos equivocados; ahora: 1 de 40, ninguno equivocado"
    [call] = rig.adapter.calls
    assert call["folder"] == rig.root and call["source"] == Path(rig.app.config["STOCK_MODELS"])
    assert call["out"].parent == Path(rig.app.config["DATABASE"]).parent / "modelos-adaptados"
    wait_models(rig, call["out"].name)
    assert rig.loaded == [call["out"]]
    health = rig.co.get("/camera/health").get_json()
    assert health["models"] == call["out"].name
    assert state(rig)["models"]["adapted"] == [call["out"].name]
    # A restart reads with the adapted models; one tap goes back to the stock reader, and that is kept too.
    again = start(Path(rig.app.config["DATA_DIR"]))
    wait_models(again, call["out"].name)
    assert again.co.post("/ensenar/models", {"name": None}).status_code == 200
    wait_models(again, STOCK)
    again.camera.close()
    third = start(Path(rig.app.config["DATA_DIR"]))
    assert third.camera.models == STOCK and third.camera.wanted_models is None
    assert third.co.post("/ensenar/models", {"name": "../x"}).status_code == 404
    assert third.co.post("/ensenar/models", {"name": call["out"].name}).status_code == 200
    wait_models(third, call["out"].name)
    third.camera.close()


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (0, "ninguno equivocado"),
        (1, "1 de ellos equivocado"),
        (3, "3 de ellos equivocados"),
        (1240, "1.240 de ellos equivocados"),
    ],
)
def test_the_held_out_dice_read_wrong_are_said_in_words(wrong: int, says: str) -> None:
    assert teach._wrong(wrong) == says


def test_an_adaptation_that_reads_worse_or_cannot_teach_changes_nothing(tmp_path: Path) -> None:
    for adapter, says in (
        (FakeAdapter(written=False), "el lector adaptado no lee mejor los dados apartados (antes: 12 de 40"),
        (FakeAdapter(error="ningún dado muestra la cara 5"), "no se escribió nada: ningún dado muestra la cara 5"),
    ):
        made = start(tmp_path / str(len(says)), adapter)
        fill(made.root, dict.fromkeys(range(1, 7), 35))
        made.co.post("/ensenar/adapt")
        job = state(made)["job"]
        assert job["state"] == "refused" and job["message"].startswith(says)
        assert (
            made.camera.models == STOCK
            and made.loaded == []
            and made.app.extensions["cacho.store"].setting(teach.SETTING) in (None, "")
        )
        made.camera.close()


def test_one_adaptation_at_a_time_and_only_for_the_coordinator(rig: Rig) -> None:
    fill(rig.root, dict.fromkeys(range(1, 7), 35))
    teach_state = rig.app.extensions["cacho.teach"]
    teach_state.job = {"state": "running", "progress": 0.3, "message": "enseñando al lector…"}
    refused = rig.co.post("/ensenar/adapt")
    assert refused.status_code == 409 and "ya se está enseñando" in refused.get_json()["error"]
    stranger = rig.app.test_client()
    assert stranger.get("/ensenar/state.json", headers={"Accept": "application/json"}).status_code == 401
    assert stranger.post("/ensenar/models", json={"name": None}).status_code in (400, 401)


def test_the_models_that_read_a_ruling_are_in_its_log_line_and_the_log_replays(tmp_path: Path) -> None:
    write_zones(tmp_path / "mesa.json")
    made = start(tmp_path)
    made.camera.use_models(None)
    c = made.co
    table = c.new_table()
    c.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 3, "face": 4})
    c.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"})
    made.reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]})
    c.post(f"/dudo/{table}/read")
    assert c.post(f"/dudo/{table}/confirm").status_code == 200
    lines = made.app.extensions["cacho.store"].lines(table)
    assert json.loads(lines[-1])["models"] == STOCK
    replay_lines(lines)  # the engine ignores it, as the other meta keys
    exported = c.get(f"/dudo/{table}/export.jsonl").get_data(as_text=True)
    imported = c.form("/dudo/import", {"text": exported, "name": "otra"})
    assert imported.status_code == 302
    made.camera.close()


def test_the_camera_reads_with_the_old_models_until_the_new_ones_are_loaded() -> None:
    gate, reader = threading.Event(), FakeReader()

    def slow(models: Path) -> FakeReader:
        gate.wait(5)
        if models.name == "roto":
            raise RuntimeError("faltan los modelos entrenados")
        return reader

    service = CameraService("fake", lambda spec: FakeCamera(), lambda: reader, models_factory=slow)
    service.start()
    wait_until(lambda: service.can_read)
    service.use_models(Path("adaptados/20261126-1805"))
    assert service.can_read and service.models == STOCK and service.health().reader == "loading"
    gate.set()
    wait_until(lambda: service.models == "20261126-1805")
    assert service.health().to_dict()["models"] == "20261126-1805"
    service.use_models(Path("adaptados/roto"))
    wait_until(lambda: service.health().reader == "error")
    assert not service.can_read and "faltan los modelos" in service.health().message
    service.use_models(None)
    wait_until(lambda: service.models == STOCK and service.can_read)
    service.close()


def test_the_real_adaptation_on_a_tiny_drawn_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.vision.test_adapt import dice_folder

    stock = tmp_path / "stock"
    (stock / "dice").mkdir(parents=True)
    (stock / "dice" / "finder.pt").write_bytes(b"finder")
    (stock / "faces").mkdir()
    for name in ("face_cnn.pt", "face_cnn.onnx"):
        shutil.copy(MODELS / "faces" / name, stock / "faces" / name)
    monkeypatch.setattr(teach, "TARGET_DICE", 100)
    monkeypatch.setattr(teach, "MIN_PER_FACE", 10)
    made = start(tmp_path / "kiosk", FakeAdapter(), STOCK_MODELS=str(stock), TEACH_EPOCHS=1)
    made.app.config["ADAPTER"] = None  # vision.faces.adapt.adapt itself
    # blue dice with red pips: the stock classifier is never sure of them, so every held-out die starts flagged and
    # an adapted model cannot read them worse
    dice_folder(made.root, 60, schemes=("azul_rojo", "azul_rojo"))
    assert made.co.post("/ensenar/adapt").status_code == 202
    job = state(made)["job"]
    assert job["state"] == "done", job
    before, after = job["result"]["before"], job["result"]["after"]
    assert before["dice"] == after["dice"] > 0 and before["load"] == before["dice"] and after["wrong"] == 0
    assert job["message"] == (
        f"antes: {before['load']} de {before['dice']} por confirmar, {teach._wrong(before['wrong'])}; "
        f"ahora: {after['load']} de {after['dice']}, ninguno equivocado"
    )
    assert (Path(made.app.config["ADAPTED_MODELS"]) / job["models"] / "ADAPTED.json").is_file()
    wait_models(made, job["models"])
    made.camera.close()


def test_what_an_adaptation_cut_short_left_is_removed_at_start(tmp_path: Path) -> None:
    staging = tmp_path / "modelos-adaptados" / ".adapt-1234"
    (staging / "faces").mkdir(parents=True)
    (tmp_path / "modelos-adaptados" / "20261126-1805").mkdir()
    made = start(tmp_path)
    assert not staging.exists() and state(made)["models"]["adapted"] == ["20261126-1805"]
    made.camera.close()


def test_a_reading_awaiting_confirmation_survives_a_restart_with_its_corrections(tmp_path: Path) -> None:
    first = start(tmp_path)
    first.reader.show({1: [4, 4, 1]}, uncertain=[(1, 2)])
    first.co.post("/ensenar/read")
    reading = state(first)["reading"]
    first.co.post("/ensenar/die", {"die": reading["dice"][2]["id"], "face": 2})  # the doubtful 1 is a 2
    first.camera.close()  # the kiosk stops (a kill -9 keeps as much: each change is stored before it is answered)
    again = start(tmp_path)
    kept = state(again)["reading"]
    assert [d["face"] for d in kept["dice"]] == [4, 4, 2] and kept["blockers"] == []
    assert again.co.get(kept["photo_url"]).data[:2] == b"\xff\xd8"
    assert again.co.post("/ensenar/confirm").status_code == 200
    assert state(again)["counts"] == {"1": 0, "2": 1, "3": 0, "4": 2, "5": 0, "6": 0}
    assert not list((again.root / learned.PENDING).iterdir())  # the frame and its annotated photo are gone
    again.camera.close()
    third = start(tmp_path)
    assert state(third)["reading"] is None and state(third)["total"] == 3
    third.camera.close()


def test_a_stored_reading_whose_frame_is_gone_is_dropped_at_start(tmp_path: Path) -> None:
    first = start(tmp_path)
    first.reader.show({1: [3, 5]})
    first.co.post("/ensenar/read")
    first.camera.close()
    for path in (first.root / learned.PENDING).iterdir():
        path.unlink()
    again = start(tmp_path)
    assert state(again)["reading"] is None
    again.camera.close()


def test_the_reader_learns_while_the_table_plays_once_enough_dice_are_confirmed(tmp_path: Path) -> None:
    """Every LEARN_EVERY new confirmed dice, one adaptation starts by itself (LEARN_CROPS), from the models in use;
    its result says what was learned and on what evidence; dice that cannot teach yet are tried again next time."""
    made = start(tmp_path, LEARN_EVERY=30, LEARN_CROPS=3000)
    with made.app.app_context():
        fill(made.root, {f: 4 for f in range(1, 7)})  # 24 dice: not yet
        assert not teach.learn_when_due() and made.adapter.calls == []
        fill(made.root, {f: 5 for f in range(1, 7)})  # 30 dice
        assert teach.learn_when_due()
    [call] = made.adapter.calls
    assert call["crops"] == 3000 and call["epochs"] is None
    assert call["command"] == "kiosco: aprendiendo mientras se juega"
    job = state(made)["job"]
    assert job["state"] == "done" and job["auto"]
    assert job["message"].startswith("aprendió 1.240 dados de esta mesa · 0 errores en 40 apartados (antes: 12")
    wait_models(made, job["models"])
    with made.app.app_context():
        assert not teach.learn_when_due()  # nothing new since
        made.adapter.error = "ningún dado muestra la cara 6"
        fill(made.root, {f: 10 for f in range(1, 7)})  # 60 dice: 30 new
        assert teach.learn_when_due()
        assert state(made)["job"]["state"] == "refused"
        made.adapter.error = None
        assert teach.learn_when_due()  # refused: tried again at the next confirmation, not 30 dice later
    assert [c["source"].name for c in made.adapter.calls[1:]] == [job["models"]] * 2  # from the models in use
    made.camera.close()


def test_a_confirmed_reading_in_play_starts_the_learning(tmp_path: Path) -> None:
    """The hook is the confirmation itself (GameViews.confirming), in every game."""
    made = start(tmp_path, LEARN_EVERY=10)
    write_zones(tmp_path / "mesa.json")
    made.app.config["TABLE_CONFIG"] = str(tmp_path / "mesa.json")
    table = made.co.new_table()
    made.co.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 3, "face": 4})
    made.co.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"})
    made.reader.show({1: [4, 4, 1, 2, 3], 2: [6, 6, 6, 5, 5], 3: [2, 2, 3, 4, 4]})
    assert made.co.post(f"/dudo/{table}/read").status_code in (200, 202)
    assert made.co.post(f"/dudo/{table}/confirm", {"seq": 3}).status_code == 200
    assert len(made.adapter.calls) == 1 and "aprendiendo" in made.adapter.calls[0]["command"]
    made.camera.close()


def guessed(seat: int, index: int, face: int, pips: int | None) -> Any:
    """A die as the stock rule reads it, with its two guesses: flagged where its pips were not counted."""
    from dataclasses import replace as with_

    from tests.kiosk.fakes import die_at
    from vision.faces.reader import combine
    from vision.types import FaceGuess

    faces = tuple(0.97 if f == face else 0.006 for f in range(1, 7))
    model, counted = FaceGuess(face, 0.97, "cnn", faces=faces), FaceGuess(pips, 0.9 if pips else 0.0, "pips")
    verdict = combine(model, counted, 0.9)
    return with_(
        die_at(seat, index, face), uncertain=verdict.uncertain, reasons=verdict.reasons, guesses=(model, counted)
    )


def test_the_dice_the_coordinator_checked_are_the_models_evidence_and_set_their_levels(tmp_path: Path) -> None:
    """A confirmed reading adds the dice the coordinator set, confirmed or corrected to the ledger of the models
    that read it (not the dice it accepted and left as read), and the camera reads at the levels they set."""
    made = start(tmp_path)
    write_zones(tmp_path / "mesa.json")
    made.app.config["TABLE_CONFIG"] = str(tmp_path / "mesa.json")
    table = made.co.new_table()
    made.co.post(f"/dudo/{table}/action", {"event": "bid", "player": "Ana", "quantity": 3, "face": 4})
    made.co.post(f"/dudo/{table}/action", {"event": "dudo", "player": "Beto"})
    made.reader.dice = [
        guessed(1, 0, 4, None),
        guessed(1, 1, 4, 4),
        *(guessed(s, i, 2, 2) for s in (2, 3) for i in range(5)),
    ]
    made.reader.dice += [guessed(1, i, 3, 3) for i in range(2, 5)]
    assert made.co.post(f"/dudo/{table}/read").status_code in (200, 202)
    reading = made.co.get(f"/dudo/{table}/state.json").json["reading"]
    first = reading["players"]["Ana"][0]
    assert first["uncertain"] and first["seen"]["pips"] == 0 and first["seen"]["face_only"]
    made.co.post(f"/dudo/{table}/die", {"player": "Ana", "die": first["id"], "face": 4})  # confirmed as read
    assert made.co.post(f"/dudo/{table}/confirm", {"seq": 3}).status_code == 200
    ledger = tmp_path / "pruebas" / f"{STOCK}.jsonl"
    lines = [(s["face"], s["model"], s["pips"]) for s in map(json.loads, ledger.read_text().splitlines())]
    [sample] = (made.root / "labels").glob("*.txt")
    if calibration_photo(sample.stem, Learning().holdout, capture_group):  # never taught: the agreed dice count too
        assert sorted(lines) == sorted([(4, 4, 0), (4, 4, 4), *[(2, 2, 2)] * 10, *[(3, 3, 3)] * 3])
    else:
        assert lines == [(4, 4, 0)]  # the one die checked
    # the same dice kept beside the sample, for the models that read them: what a linked table sends its organizer
    kept = json.loads((made.root / "pruebas" / f"{sample.stem}.json").read_text())
    assert kept["models"] == STOCK and sorted((s["face"], s["model"], s["pips"]) for s in kept["dice"]) == sorted(lines)
    levels = made.camera.levels(STOCK)
    assert levels is not None and levels.dice == len(lines) and levels.alone is None  # too few to prove a level
    assert state(made)["models"]["evidence"] == {"dice": len(lines), "alone": None, "needed": 100}
    made.camera.close()
    again = start(tmp_path)  # the evidence outlives a restart
    assert again.camera.levels(STOCK) == levels
    again.camera.close()
