"""«Enseñar los dados» (/ensenar): the labelled dice counted per face, readings taken here and confirmed as in
play, the reader adapted to the table's dice in the background (one adaptation at a time), and the models folder
the camera reads with (the stock one is one tap away).

The adaptation runs through an `Adapter` (vision.faces.adapt.adapt by default; the app's ADAPTER config replaces
it, as the tests do). Its models folder is written under the data folder (modelos-adaptados/NAME) and chosen at
once; the choice is kept in the store's settings, so the kiosk reads with it after a restart. The reading awaiting
confirmation is kept there too (its frame and annotated photo beside the labelled dice), so a restart loses neither
the dice read nor the coordinator's corrections.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, cast

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template

from kiosk import learned, learnpart, web
from kiosk.auth import coordinator_required
from kiosk.camera import STOCK, CameraService, encode_jpeg, shrink
from kiosk.championship.pool import NAME_RE as POOLED_NAME_RE
from kiosk.dice import CorrectionError, change_die, check_correction, die_read, unsettled
from kiosk.i18n import count
from kiosk.store import Store, write_durably
from kiosk.web import json_body, refuse
from vision.evening import Learning
from vision.faces.evidence import NAME as EVIDENCE_NAME
from vision.faces.evidence import Ledger, Levels, Seen, from_fields, models_levels, set_levels
from vision.faces.realsets import capture_group
from vision.faces.train import calibration_photo

TARGET_DICE = 200  # about this many labelled dice before adapting
MIN_PER_FACE = 20  # and at least this many of each face
MINUTES = 4.0  # the adaptation's time on the kiosk's CPU
SETTING = "modelos"  # the store's setting: the adapted models folder in use ("" or absent: the stock one)
LEARNED_AT = "aprendido-con"  # the store's setting: the confirmed dice counted when the last adaptation in play began
OWNER = "ensenar"  # the kept frames of this page's readings
POOLED = ".campeonato.json"  # beside a models folder's ledger: the levels the championship's organizer set for them
WAITING = "ensenar-lectura"  # the store's setting: the reading awaiting confirmation, as JSON ("" or absent: none)
PHOTO_WIDTH = 800

bp = Blueprint("teach", __name__, url_prefix="/ensenar")


class Adapter(Protocol):
    """What adapts a models folder to a labelled folder (vision.faces.adapt.adapt's signature, the part used)."""

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
        """The result (with `written`, and `before`/`after` with `dice`, `load` and `wrong`); AdaptError when the
        folder cannot teach. `levels`: those the table reads `source` at (vision.faces.evidence)."""
        ...


def default_adapter(
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
    """The real adaptation (vision.faces.adapt)."""
    from vision.faces.adapt import adapt

    return adapt(
        folder,
        out,
        source,
        minutes=minutes,
        epochs=epochs,
        crops=crops,
        command=command,
        progress=progress,
        levels=levels,
    )


@dataclass
class Teaching:
    """The page's state: the reading awaiting confirmation (kept in memory) and the adaptation under way or done."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    reading: dict[str, Any] | None = None
    photo: bytes | None = None
    job: dict[str, Any] = field(default_factory=lambda: {"state": "idle", "progress": 0.0, "message": ""})


def teaching() -> Teaching:
    """The app's page state."""
    return cast(Teaching, current_app.extensions["cacho.teach"])


def installer() -> learnpart.Installer:
    """The learning part's installer (kiosk.learnpart)."""
    return cast(learnpart.Installer, current_app.extensions["cacho.learnpart"])


def lacks_learning() -> bool:
    """Whether the real adaptation cannot run here: its learning part is not installed (a fake ADAPTER needs none)."""
    return current_app.config.get("ADAPTER") is None and bool(installer().missing())


def root() -> Path:
    """The labelled folder (kiosk.learned)."""
    return Path(current_app.config["LEARNED"])


def adapted_root(config: Mapping[str, Any]) -> Path:
    """Where adapted models folders are written."""
    return Path(config["ADAPTED_MODELS"])


def models_folder(config: Mapping[str, Any], name: str) -> Path:
    """The models folder of a name a reading records (STOCK: the committed one)."""
    return Path(config["STOCK_MODELS"]) if name == STOCK else adapted_root(config) / name


def ledger(config: Mapping[str, Any], name: str) -> Ledger:
    """The table's evidence for the models named `name` (started from their adaptation's held-out dice)."""
    return Ledger(Path(config["EVIDENCE"]) / f"{name}.jsonl", seed=models_folder(config, name) / "faces")


def table_levels(config: Mapping[str, Any], name: str) -> Levels | None:
    """The levels the table's evidence sets for the models named `name`, or those its championship's organizer set
    on every table's evidence of them where that is more dice (`use_pooled_levels`); None where it has neither, or
    where the models cannot be read (the kiosk then reads them at their own levels)."""
    path = Path(config["EVIDENCE"]) / f"{name}.jsonl"
    faces = models_folder(config, name) / "faces"
    pooled = _pooled_levels(Path(config["EVIDENCE"]) / f"{name}{POOLED}")
    if not path.is_file() and not (faces / EVIDENCE_NAME).is_file():
        return pooled
    try:
        own = set_levels(ledger(config, name).read(), models_levels(faces))
    except (OSError, ValueError, KeyError) as error:
        current_app.logger.warning("las pruebas de %s no se pudieron leer: %s", name, error)
        return pooled
    return pooled if pooled is not None and pooled.dice > own.dice else own


def _pooled_levels(path: Path) -> Levels | None:
    """The organizer's levels kept at `path`, or None."""
    try:
        return Levels.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def read_with(folder: Path | None) -> None:
    """Read with a models folder (None: the stock one) from the next reading on, at the levels the table's evidence
    of it sets (its adaptation's held-out dice at least)."""
    cam = web.camera()
    name = STOCK if folder is None else folder.name
    levels = table_levels(current_app.config, name)
    if levels is not None:
        cam.use_levels(name, levels)
    cam.use_models(folder)


def evidence_of(reading: Mapping[str, Any], sample: str | None) -> tuple[str | None, list[Seen]]:
    """The models that read a confirmed reading, and its dice that are evidence for them. A die counts where the
    coordinator set, confirmed or corrected it, or, on a photo held out from teaching, where both readers agreed on
    it (vision.faces.evidence.counts)."""
    name = reading.get("models")
    if not isinstance(name, str):
        return None, []
    held = sample is not None and calibration_photo(sample, Learning().holdout, capture_group)
    found = []
    for entry in learned.dice_of(reading):
        kept, face = entry.get("seen"), entry.get("face")
        if not isinstance(kept, Mapping) or not isinstance(face, int):
            continue
        checked = bool(entry.get("corrected") or entry.get("confirmed"))
        one = from_fields(dict(kept), face, checked, held)
        if one is not None:
            found.append(one)
    return name, found


def write_sample_evidence(root: Path, sample: str, reading: Mapping[str, Any]) -> None:
    """Keep beside a sample (before it is written, so a linked table sends them together) its dice that are
    evidence for the models that read them: what a championship's organizer pools (kiosk.championship.pool)."""
    name, found = evidence_of(reading, sample)
    if name is None or not found:
        return
    data = {"models": name, "dice": [s.to_dict() for s in found]}
    write_durably(root / learned.EVIDENCE / f"{sample}.json", json.dumps(data).encode())


def add_evidence(reading: Mapping[str, Any], sample: str | None) -> int:
    """A confirmed reading's dice that are evidence for the models that read it (`evidence_of`), added to the
    table's ledger, and the levels they set used from the next capture on; the dice added."""
    name, found = evidence_of(reading, sample)
    if name is None or not found:
        return 0
    config = current_app.config
    try:
        ledger(config, name).add(found)
    except OSError as error:  # a full disk costs the evidence, never the confirmation
        current_app.logger.warning("no se guardaron las pruebas de %s: %s", name, error)
        return 0
    levels = table_levels(config, name)
    if levels is not None:
        web.camera().use_levels(name, levels)
    return len(found)


def use_pooled_levels(config: Mapping[str, Any], data: Mapping[str, Any]) -> Levels | None:
    """Keep the levels a championship's organizer set for one of its readers on every table's evidence of it
    (kiosk.championship.pool); the levels the table now reads that reader at (None: it has none of its own)."""
    name = data.get("models")
    if not isinstance(name, str) or not POOLED_NAME_RE.match(name):
        raise ValueError(f"niveles del campeonato para un modelo sin nombre válido: {name!r}")
    try:
        levels = Levels.from_dict(data)
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"niveles del campeonato ilegibles para {name}") from None
    write_durably(Path(config["EVIDENCE"]) / f"{name}{POOLED}", json.dumps(levels.to_dict()).encode())
    return table_levels(config, name)


def chosen_models(config: Mapping[str, Any], store: Store) -> Path | None:
    """The adapted models folder the kiosk reads with, as chosen last (None: the stock one, also when it is gone)."""
    name = store.setting(SETTING) or ""
    folder = adapted_root(config) / name
    return folder if name and folder.is_dir() else None


def waiting(store: Store) -> dict[str, Any] | None:
    """The reading awaiting confirmation as last stored, or None."""
    text = store.setting(WAITING) or ""
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("state") == "ready" else None


def _keep(reading: dict[str, Any] | None, shown: bytes | None = None) -> None:
    """Store the reading awaiting confirmation (None: there is none), and its annotated photo when given."""
    if reading is not None and reading.get("state") != "ready":
        reading = None
    path = learned.shown_path(root(), reading)
    if shown is not None and path is not None:
        with contextlib.suppress(OSError):
            write_durably(path, shown)
    web.store().set_setting(WAITING, "" if reading is None else json.dumps(reading, ensure_ascii=False))


def install(app: Flask) -> None:
    """The page's state (with the reading that awaited confirmation when the kiosk stopped) and its blueprint; what
    an adaptation cut short left (its staging folder) is removed."""
    teach = Teaching()
    store = cast(Store, app.extensions["cacho.store"])
    kept = waiting(store)
    frame = learned.frame_name(kept)
    learned_root = Path(app.config["LEARNED"])
    if kept is not None and frame is not None and (learned_root / learned.PENDING / frame).is_file():
        shown = learned.shown_path(learned_root, kept)
        teach.reading = kept
        teach.photo = shown.read_bytes() if shown is not None and shown.is_file() else None
    elif kept is not None:
        store.set_setting(WAITING, "")
    app.extensions["cacho.teach"] = teach
    command = app.config.get("LEARN_INSTALL_COMMAND")
    modules = tuple(app.config.get("LEARN_MODULES") or learnpart.MODULES)
    app.extensions["cacho.learnpart"] = learnpart.Installer(command=command, modules=modules)
    app.register_blueprint(bp)
    with app.app_context():  # the table's evidence for the models it reads with, as the last evening left it
        chosen = chosen_models(app.config, store)
        name = STOCK if chosen is None else chosen.name
        levels = table_levels(app.config, name)
        if levels is not None:
            cast(CameraService, app.extensions["cacho.camera"]).use_levels(name, levels)
    folder = adapted_root(app.config)
    if folder.is_dir():
        for staging in folder.glob(".adapt-*"):
            shutil.rmtree(staging, ignore_errors=True)


# ------------------------------------------------------------------ what the page shows


def shortfall(counts: Mapping[int, int]) -> tuple[int, list[int]]:
    """How many dice are still missing for TARGET_DICE, and the faces with fewer than MIN_PER_FACE."""
    missing = max(0, TARGET_DICE - sum(counts.values()))
    return missing, [face for face, n in sorted(counts.items()) if n < MIN_PER_FACE]


def state() -> dict[str, Any]:
    """Everything the page draws."""
    counts = learned.counts(root())
    missing, short = shortfall(counts)
    cam = web.camera()
    wanted = cam.wanted_models
    folder = adapted_root(current_app.config)
    found = folder.iterdir() if folder.is_dir() else iter(())
    adapted = sorted((p.name for p in found if p.is_dir() and not p.name.startswith(".")), reverse=True)
    teach = teaching()
    with teach.lock:
        reading = None if teach.reading is None else dict(teach.reading)
        job = dict(teach.job)
    if reading is not None:
        unset, doubtful = unsettled(reading.get("dice", []))
        reading["blockers"] = _blockers(reading, unset, doubtful)
        reading["photo_url"] = "/ensenar/photo.jpg" if teach.photo else None
        reading.pop("learn", None)
    return {
        "counts": {str(f): n for f, n in counts.items()},
        "total": sum(counts.values()),
        "target": TARGET_DICE,
        "min_per_face": MIN_PER_FACE,
        "missing": missing,
        "short_faces": short,
        "ready": missing == 0 and not short,
        "reading": reading,
        "job": job,
        "models": {
            "active": cam.models,
            "chosen": STOCK if wanted is None else wanted.name,
            "reader": cam.health().reader,
            "adapted": adapted,
            "evidence": _evidence(cam.levels(cam.models)),
        },
        "can_read": cam.can_read,
        "learning_part": installer().snapshot() if current_app.config.get("ADAPTER") is None else None,
    }


def _evidence(levels: Levels | None) -> dict[str, Any]:
    """What the table's evidence proves of the models in use (vision.faces.evidence)."""
    from vision.faces.adapt import MIN_ALONE_SUPPORT

    if levels is None:
        return {"dice": 0, "alone": None, "needed": MIN_ALONE_SUPPORT}
    return {"dice": levels.dice, "alone": levels.alone, "needed": MIN_ALONE_SUPPORT}


def _blockers(reading: Mapping[str, Any], unset: int, doubtful: int) -> list[str]:
    if reading.get("state") != "ready":
        return [str(reading.get("message") or "")]
    out = []
    if unset:
        out.append(count(unset, "dado sin cara", "dados sin cara"))
    if doubtful:
        out.append(count(doubtful, "dado dudoso: tóquelo", "dados dudosos: tóquelos") + " para confirmar o corregir")
    if not reading.get("dice"):
        out.append("la cámara no vio dados: tírelos sobre el paño y lea de nuevo")
    return out


@bp.route("")
@coordinator_required
def page() -> str:
    """The page."""
    return render_template("teach.html")


@bp.route("/state.json")
@coordinator_required
def state_json() -> Any:
    """The page's state."""
    return jsonify(state())


@bp.route("/photo.jpg")
@coordinator_required
def photo() -> Any:
    """The annotated photo of the reading awaiting confirmation."""
    shown = teaching().photo
    if shown is None:
        return refuse("no hay foto", 404)
    return Response(shown, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


# ------------------------------------------------------------------ a reading, corrected and confirmed


@bp.route("/read", methods=["POST"])
@coordinator_required
def read() -> Any:
    """Read the dice on the felt (in the background): 202, or why the camera cannot."""
    refused = web.camera_refusal()
    if refused is not None:
        return refused
    teach = teaching()
    with teach.lock:
        if teach.reading is not None and teach.reading.get("state") == "reading":
            return refuse("ya se está leyendo: espere la lectura", 409)
        old, teach.reading = teach.reading, {"state": "reading", "message": "esperando a que los dados queden quietos"}
        _keep(None)
    learned.forget(root(), old)
    web.in_background(_read, "ensenar-lectura")
    return jsonify(state()), 202


def _read() -> None:
    from hardware.camera import CameraError
    from vision.annotate import annotate
    from vision.frames import FrameError

    cam, teach = web.camera(), teaching()
    try:
        capture = cam.capture_still(current_app.config.get("STILL"))
        if capture.reading is None or capture.frame is None:
            data: dict[str, Any] = {"state": "failed", "message": capture.message}
            shown = None
        else:
            # left to right by their boxes as the entries round them (Box.to_list rounds as die_read does)
            dice = [die_read(d) for d in sorted(capture.reading.dice, key=lambda d: d.box.to_list()[:2])]
            data = {
                "state": "ready",
                "message": capture.message,
                "photo": f"{OWNER}/{int(time.time() * 1000)}.jpg",
                "dice": dice,
                "corrections": [],
                "models": cam.last_models,
            }
            shown = encode_jpeg(shrink(annotate(capture.frame, capture.reading), PHOTO_WIDTH), 85)
            with contextlib.suppress(OSError):
                learned.keep_frame(root(), OWNER, data, capture.frame, capture.reading)
    except (CameraError, FrameError) as error:
        data, shown = {"state": "failed", "message": f"no se pudo leer: {error}"}, None
    with teach.lock:
        teach.reading, teach.photo = data, shown
        _keep(data, shown)


@bp.route("/die", methods=["POST"])
@coordinator_required
def die() -> Any:
    """Correct a die (face 1-6), confirm it (the same face) or remove it (face null)."""
    body = json_body()
    teach = teaching()
    with teach.lock:
        reading = teach.reading
        try:
            if reading is None:
                raise CorrectionError("no hay lectura que corregir: lea los dados")
            check_correction(reading, body.get("face"))
            entry = next((d for d in reading["dice"] if d["id"] == body.get("die")), None)
            if entry is None:
                raise CorrectionError("ese dado no está en la lectura")
            change_die(reading["corrections"], reading["dice"], entry, body.get("face"))
        except CorrectionError as error:
            return refuse(str(error), 400)
        _keep(reading)
    return jsonify(state())


@bp.route("/confirm", methods=["POST"])
@coordinator_required
def confirm() -> Any:
    """The dice as they stand are right: they join the labelled dice."""
    teach = teaching()
    with teach.lock:
        reading = teach.reading
        if reading is None or reading.get("state") != "ready":
            return refuse("no hay lectura que confirmar: lea los dados", 409)
        unset, doubtful = unsettled(reading["dice"])
        blockers = _blockers(reading, unset, doubtful)
        if blockers:
            return refuse("; ".join(blockers), 409)
        try:
            learned.write_sample(root(), reading)
        except OSError as error:
            return refuse(f"no se pudo guardar: {error}", 500)
        teach.reading, teach.photo = None, None
        _keep(None)
    learned.forget(root(), reading)
    return jsonify(state())


@bp.route("/cancel", methods=["POST"])
@coordinator_required
def cancel() -> Any:
    """Drop the reading awaiting confirmation (nothing is kept)."""
    teach = teaching()
    with teach.lock:
        old, teach.reading, teach.photo = teach.reading, None, None
        _keep(None)
    learned.forget(root(), old)
    return jsonify(state())


# ------------------------------------------------------------------ adapting, and the models in use


@bp.route("/adapt", methods=["POST"])
@coordinator_required
def adapt() -> Any:
    """Adapt the reader to the labelled dice in the background (202), unless too few or one is under way (409)."""
    counts = learned.counts(root())
    if lacks_learning():
        return refuse(learnpart.MESSAGE, 409)
    missing, short = shortfall(counts)
    if missing or short:
        return refuse(_short_message(missing, short), 409)
    teach = teaching()
    with teach.lock:
        if teach.job["state"] == "running":
            return refuse("ya se está enseñando al lector: espere a que termine", 409)
        teach.job = {"state": "running", "progress": 0.0, "message": "enseñando al lector…", "started": time.time()}
    web.in_background(_adapt, "ensenar-adaptar")
    return jsonify(state()), 202


def _short_message(missing: int, short: list[int]) -> str:
    parts = []
    if missing:
        parts.append(f"faltan {missing} dados")
    if short:
        parts.append(f"faltan dados con la cara {', '.join(map(str, short))} (al menos {MIN_PER_FACE} de cada una)")
    return "; ".join(parts)


def learn_when_due() -> bool:
    """Learning while the table plays: once LEARN_EVERY new confirmed dice are in since the last adaptation, adapt
    the models in use on every confirmed die in the background (LEARN_CROPS), unless one is under way; whether
    one was started. The new models replace those in use only where they read the held-out dice no worse, and the
    camera swaps them between readings (CameraService.use_models)."""
    config = current_app.config
    every = config.get("LEARN_EVERY")
    if every is None or lacks_learning():  # without the learning part the confirmed dice wait, kept
        return False
    total = sum(learned.counts(root()).values())
    store = web.store()
    last = int(store.setting(LEARNED_AT) or 0)
    if total < last:  # the folder was emptied or replaced: count from what it holds
        store.set_setting(LEARNED_AT, str(total))
        return False
    if total - last < int(every):
        return False
    teach = teaching()
    with teach.lock:
        if teach.job["state"] == "running":
            return False
        teach.job = {"state": "running", "progress": 0.0, "message": "aprendiendo los dados de la mesa…"}
        teach.job |= {"started": time.time(), "auto": True}
    store.set_setting(LEARNED_AT, str(total))
    crops = int(config.get("LEARN_CROPS") or Learning().crops)

    def work() -> None:
        _adapt(command="kiosco: aprendiendo mientras se juega", crops=crops, auto=True, counted=last)

    web.in_background(work, "aprender")
    return True


def _adapt(
    command: str = "kiosco: Enseñar los dados", crops: int | None = None, auto: bool = False, counted: int = 0
) -> None:
    from vision.faces.adapt import AdaptError

    config, teach, cam = current_app.config, teaching(), web.camera()
    adapter = cast(Adapter, config.get("ADAPTER") or default_adapter)
    source = cam.wanted_models or Path(config["STOCK_MODELS"])
    out = adapted_root(config) / datetime.now().strftime("%Y%m%d-%H%M%S")
    # the models in use are compared at the levels the table reads them at
    at = cam.levels(STOCK if cam.wanted_models is None else source.name)

    def progress(share: float) -> None:
        with teach.lock:
            teach.job["progress"] = round(float(share), 3)

    try:
        result = adapter(
            root(),
            out,
            source,
            minutes=float(config["TEACH_MINUTES"]),
            epochs=None if auto else config.get("TEACH_EPOCHS"),
            command=command,
            progress=progress,
            crops=crops,
            levels=None if at is None else (at.threshold, at.alone),
        )
    except AdaptError as error:
        job = {"state": "refused", "progress": 1.0, "message": f"no se escribió nada: {error}"}
        if auto:  # the dice cannot teach yet: tried again at the next confirmation
            web.store().set_setting(LEARNED_AT, str(counted))
    except Exception as error:  # the kiosk goes on reading with the models it had
        job = {"state": "failed", "progress": 1.0, "message": f"no se pudo enseñar al lector: {error}"}
    else:
        before, after = result.before, result.after
        gained = (
            f"antes: {before.load} de {before.dice} por confirmar, {_wrong(before.wrong)}; "
            f"ahora: {after.load} de {after.dice}, {_wrong(after.wrong)}"
        )
        if auto:
            gained = evidence(result.fit_dice, after.wrong, after.dice) + f" ({gained})"
        if result.written and out.is_dir():
            web.store().set_setting(SETTING, out.name)
            read_with(out)
            job = {"state": "done", "progress": 1.0, "message": gained, "models": out.name, "auto": auto}
        else:
            job = {
                "state": "refused",
                "progress": 1.0,
                "message": f"el lector adaptado no lee mejor los dados apartados ({gained}): no se escribió nada "
                "y se sigue leyendo con los modelos de antes",
            }
        job["result"] = {
            "before": {"dice": before.dice, "load": before.load, "wrong": before.wrong},
            "after": {"dice": after.dice, "load": after.load, "wrong": after.wrong},
        }
    with teach.lock:
        teach.job = job


def evidence(learnt: int, wrong: int, held_out: int) -> str:
    """What the reader learned and on what evidence, as a coordinator reads it at a glance."""
    errores = "1 error" if wrong == 1 else f"{_thousands(wrong)} errores"
    return f"aprendió {_thousands(learnt)} dados de esta mesa · {errores} en {_thousands(held_out)} apartados"


def _wrong(n: int) -> str:
    """How many of the dice to look at were read wrong unflagged: ninguno equivocado, 1 de ellos equivocado..."""
    return "ninguno equivocado" if n == 0 else f"{_thousands(n)} de ellos equivocado{'s' if n > 1 else ''}"


def _thousands(n: int) -> str:
    """A whole number as Spanish writes it: 1.240."""
    return f"{n:,}".replace(",", ".")


@bp.route("/aprendizaje", methods=["POST"])
@coordinator_required
def install_learning() -> Any:
    """Install the learning part in the background (202), unless it is there or under way (409)."""
    found = installer()
    if not found.missing():
        return refuse("la parte de aprendizaje ya está instalada", 409)
    if not found.start():
        return refuse("ya se está instalando la parte de aprendizaje: espere a que termine", 409)
    return jsonify(state()), 202


@bp.route("/models", methods=["POST"])
@coordinator_required
def models() -> Any:
    """Read with the stock models ({"name": null}) or an adapted folder ({"name": NAME}); the choice is kept."""
    name = json_body().get("name")
    if name is None:
        web.store().set_setting(SETTING, "")
        read_with(None)
        return jsonify(state())
    folder = adapted_root(current_app.config) / str(name)
    if not isinstance(name, str) or "/" in name or name.startswith(".") or not folder.is_dir():
        return refuse(f"no existe la carpeta de modelos adaptados {name!r}", 404)
    web.store().set_setting(SETTING, name)
    read_with(folder)
    return jsonify(state())
