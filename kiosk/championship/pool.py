"""The championship learns its dice together: every table's confirmed dice pooled at the organizer, one reader
adapted on them all, and that reader sent back to every table.

Over the championship's broker (docs/championship.md, Los dados que aprende el campeonato):
- table → organizer, `cacho/CODE/table/N/sample` (QoS 1): one confirmed sample of the table's labelled dice
  (kiosk.learned) `{"table", "name", "label" (its YOLO lines), "image" (its JPEG, base64)}`, with "checked" (a 0
  or 1 a label line: did the coordinator check it) and "evidence" (its dice as evidence, kiosk.teach) where kept;
- organizer → table, `cacho/CODE/table/N/sampled` (QoS 1): `{"names": [...]}`, the samples it has kept. A table
  sends a sample again at each connection and after SAMPLE_RETRY_S until the organizer says it has it, so a
  broker or table restart loses none; the organizer keeps one of each name;
- organizer → every table, `cacho/CODE/model` (retained): `{"name", "sha256", "faces" (base64 of a tar.gz of the
  adapted models' faces/), "dice", "held_out", "wrong"}`. A table checks the hash, writes the stock models with
  those faces/ as modelos-adaptados/NAME and reads with them from its next reading; one that lost the link keeps
  reading with what it has.

The organizer adapts as a table does (vision.evening.Learning, vision.faces.adapt: held-out photos by their
name's hash, a new reader kept only where it reads them no worse), on the pooled dice of every table.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import io
import json
import logging
import re
import shutil
import tarfile
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from kiosk import learnpart
from kiosk.learned import EVIDENCE
from kiosk.store import write_durably
from vision.faces.crops import CHECKED
from vision.faces.evidence import NAME as EVIDENCE_NAME
from vision.faces.evidence import Ledger, Levels, Seen, models_levels, set_levels

log = logging.getLogger(__name__)

SAMPLE_WINDOW = 8  # samples sent and not yet kept by the organizer, at most
SAMPLE_RETRY_S = 30.0  # a sample the organizer has not said it kept goes out again after this long
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")
MAX_IMAGE = 4 * 1024 * 1024  # bytes of one sample's JPEG


class PoolError(ValueError):
    """A sample or a model that cannot be kept (said in Spanish)."""


def _decoded(text: str, damaged: str) -> bytes:
    """The bytes of a base64 field, or PoolError(`damaged`)."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise PoolError(damaged) from None


# ------------------------------------------------------------------ the table's side


def sample_names(folder: Path) -> list[str]:
    """The labelled samples of a kiosk's learned folder (each with its label and image), oldest name first."""
    labels = folder / "labels"
    if not labels.is_dir():
        return []
    return sorted(p.stem for p in labels.glob("*.txt") if (folder / "images" / f"{p.stem}.jpg").is_file())


def sample_message(folder: Path, name: str, table: int) -> bytes:
    """One sample as the table sends it, with which of its labels the coordinator checked and its dice's evidence
    where the kiosk kept them (kiosk.learned, kiosk.teach); OSError when it is gone."""
    label = (folder / "labels" / f"{name}.txt").read_text(encoding="utf-8")
    image = (folder / "images" / f"{name}.jpg").read_bytes()
    data: dict[str, Any] = {"table": table, "name": name, "label": label}
    data["image"] = base64.b64encode(image).decode("ascii")
    with contextlib.suppress(OSError, ValueError):
        data["checked"] = (folder / CHECKED / f"{name}.txt").read_text(encoding="utf-8")
    with contextlib.suppress(OSError, ValueError):
        data["evidence"] = json.loads((folder / EVIDENCE / f"{name}.json").read_text(encoding="utf-8"))
    return json.dumps(data).encode()


def evidence_dice(data: Any, where: str) -> tuple[str, list[Seen]]:
    """A sample's `evidence` field: (the models it is evidence for, its dice); PoolError(`where` ...) otherwise."""
    if not isinstance(data, dict) or not isinstance(data.get("models"), str) or not NAME_RE.match(data["models"]):
        raise PoolError(f"{where}: pruebas sin un modelo válido")
    dice = data.get("dice")
    if not isinstance(dice, list) or not dice:
        raise PoolError(f"{where}: pruebas sin dados")
    try:
        found = [Seen.from_dict(one) for one in dice]
    except (KeyError, TypeError, ValueError):
        raise PoolError(f"{where}: pruebas ilegibles") from None
    if any(not 1 <= s.face <= 6 or len(s.faces) != 6 for s in found):
        raise PoolError(f"{where}: pruebas con una cara fuera de 1 a 6")
    return str(data["models"]), found


def install_model(data: Mapping[str, Any], stock: Path, root: Path) -> Path:
    """The pooled model of a `model` message written as `root`/NAME (the stock models with its faces/); the folder.
    PoolError where its name or its hash is wrong (nothing is written then)."""
    from vision.staging import write_copy

    name, digest, packed = data.get("name"), data.get("sha256"), data.get("faces")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise PoolError(f"nombre de modelo inválido: {name!r}")
    if not isinstance(packed, str) or not isinstance(digest, str):
        raise PoolError(f"el modelo {name} llegó sin sus caras o sin su huella")
    archive = _decoded(packed, f"el modelo {name} llegó dañado (base64)")
    if hashlib.sha256(archive).hexdigest() != digest:
        raise PoolError(f"el modelo {name} no coincide con su huella sha256: no se usa")
    out = root / name
    if out.is_dir():
        return out

    def change(staging: Path) -> None:
        faces = staging / "faces"
        shutil.rmtree(faces, ignore_errors=True)
        faces.mkdir()
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            tar.extractall(faces, filter="data")
        (staging / "ADAPTED.json").write_text(
            json.dumps({"from": "campeonato", "name": name, "sha256": digest}, ensure_ascii=False) + "\n"
        )

    root.mkdir(parents=True, exist_ok=True)
    write_copy(stock, out, change)
    return out


# ------------------------------------------------------------------ the organizer's side


class Pool:
    """The organizer's pooled samples: a YOLO folder, each sample named after its table."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._dice: int | None = None  # counted once, then kept up as samples come
        self._evidence: dict[str, list[Seen]] | None = None  # by models: read once, then kept up as samples come

    def keep(self, data: Mapping[str, Any]) -> tuple[int, str]:
        """Keep a sample message (once: a name kept before is not written again); (table, its name as sent)."""
        table, name, label, image = data.get("table"), data.get("name"), data.get("label"), data.get("image")
        if not isinstance(table, int) or isinstance(table, bool) or table < 1:
            raise PoolError(f"muestra sin número de mesa válido: {table!r}")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise PoolError(f"muestra de la mesa {table} con un nombre inválido: {name!r}")
        if not isinstance(label, str) or not isinstance(image, str):
            raise PoolError(f"muestra {name} de la mesa {table} sin etiquetas o sin imagen")
        jpeg = _decoded(image, f"muestra {name} de la mesa {table}: imagen dañada (base64)")
        if not jpeg.startswith(b"\xff\xd8") or len(jpeg) > MAX_IMAGE:
            raise PoolError(f"muestra {name} de la mesa {table}: no es una foto JPEG de menos de 4 MB")
        checked = data.get("checked")
        lines = sum(1 for line in label.splitlines() if line.strip())
        if checked is not None and (
            not isinstance(checked, str) or len(checked.split()) != lines or set(checked.split()) - {"0", "1"}
        ):
            raise PoolError(f"muestra {name} de la mesa {table}: las marcas de comprobado no son un 0 o 1 por dado")
        evidence = data.get("evidence")
        if evidence is not None:
            models, dice = evidence_dice(evidence, f"muestra {name} de la mesa {table}")
            evidence = {"models": models, "dice": [s.to_dict() for s in dice]}
        stem = f"mesa{table}-{name}"
        image_path = self.folder / "images" / f"{stem}.jpg"
        with self._lock:
            if not image_path.is_file():
                if evidence is not None:  # before the sample: a sample kept has its evidence kept, once
                    write_durably(self.folder / EVIDENCE / f"{stem}.json", json.dumps(evidence).encode())
                if checked is not None:  # a label without its flags would be taken as checked throughout
                    write_durably(self.folder / CHECKED / f"{stem}.txt", checked.encode("utf-8"))
                write_durably(self.folder / "labels" / f"{stem}.txt", label.encode("utf-8"))
                write_durably(image_path, jpeg)
                if evidence is not None and self._evidence is not None:  # as a restart reads it back
                    kept = [Seen.from_dict(one) for one in evidence["dice"]]
                    self._evidence.setdefault(evidence["models"], []).extend(kept)
                if self._dice is not None:
                    self._dice += lines
        return table, name

    def dice(self) -> int:
        """The labelled dice pooled."""
        with self._lock:
            if self._dice is None:
                labels = self.folder / "labels"
                texts = (p.read_text(encoding="utf-8") for p in labels.glob("*.txt")) if labels.is_dir() else ()
                self._dice = sum(sum(1 for line in text.splitlines() if line.strip()) for text in texts)
            return self._dice

    def evidence(self, models: str) -> list[Seen]:
        """Every table's evidence for the models named `models` (read from the pool once, then kept up as samples
        come: each sample kept asks for it)."""
        with self._lock:
            if self._evidence is None:
                self._evidence = {}
                folder = self.folder / EVIDENCE
                for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
                    if not (self.folder / "images" / f"{path.stem}.jpg").is_file():
                        continue  # a sample cut short before its image
                    with contextlib.suppress(OSError, ValueError, PoolError):
                        name, dice = evidence_dice(json.loads(path.read_text(encoding="utf-8")), path.stem)
                        self._evidence.setdefault(name, []).extend(dice)
            return list(self._evidence.get(models, ()))

    def tables(self) -> dict[int, int]:
        """The samples pooled from each table."""
        counts: dict[int, int] = {}
        for p in (self.folder / "labels").glob("mesa*-*.txt") if (self.folder / "labels").is_dir() else ():
            number = p.name[4 : p.name.index("-")]
            if number.isdigit():
                counts[int(number)] = counts.get(int(number), 0) + 1
        return dict(sorted(counts.items()))


def pack_faces(models: Path) -> bytes:
    """A models folder's faces/ as a tar.gz."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted((models / "faces").iterdir()):
            if path.is_file():
                tar.add(path, arcname=path.name)
    return buffer.getvalue()


def model_message(models: Path, result: Any) -> bytes:
    """The `model` message of an adapted models folder, with what its adaptation showed on the pooled dice."""
    archive = pack_faces(models)
    after = getattr(result, "after", None)
    data = {
        "name": models.name,
        "sha256": hashlib.sha256(archive).hexdigest(),
        "faces": base64.b64encode(archive).decode("ascii"),
        "dice": int(getattr(result, "fit_dice", 0)),
        "held_out": int(getattr(after, "dice", 0)),
        "wrong": int(getattr(after, "wrong", 0)),
    }
    return json.dumps(data).encode()


Adapter = Callable[..., Any]  # vision.faces.adapt.adapt: (folder, out, source, *, holdout, crops, ...) -> result


class Learner:
    """Adapts the championship's reader on the pooled dice, one adaptation at a time, and publishes each one
    kept; it starts from the last one kept (or the stock models)."""

    def __init__(
        self,
        pool: Pool,
        stock: Path,
        out: Path,
        publish: Callable[[bytes], None],
        adapter: Adapter | None = None,
        every: int = 60,
        crops: int = 10_000,
        holdout: float = 0.3,
        modules: tuple[str, ...] = learnpart.MODULES,
        publish_levels: Callable[[bytes], None] | None = None,
    ) -> None:
        """`publish`: sends a kept reader to every table (`model`); `publish_levels`: the levels the tables' pooled
        evidence sets for it (`levels`)."""
        self.pool, self.stock, self.out, self.publish = pool, stock, out, publish
        self.publish_levels = publish_levels
        self.adapter = adapter
        self.modules = modules  # what the real adaptation imports (kiosk.learnpart)
        self.every, self.crops, self.holdout = every, crops, holdout
        self._lock = threading.Lock()
        self._running = False
        self._learned_at = 0
        self.current: Path | None = self._latest()
        self._shared: Levels | None = None  # the levels published last
        self._levels_lock = threading.Lock()
        self.last: dict[str, Any] = {"state": "idle", "message": "todavía no aprendió con los dados del campeonato"}

    def _latest(self) -> Path | None:
        """The last models folder kept (by name: they are named by date and time)."""
        kept = sorted(p for p in self.out.glob("*") if p.is_dir() and not p.name.startswith("."))
        return kept[-1] if kept else None

    def offer(self, wait: bool = False) -> bool:
        """Start an adaptation if enough new pooled dice are in and none is running; whether one started (`wait`:
        run it here, to its end)."""
        dice = self.pool.dice()
        if self.adapter is None and learnpart.missing(self.modules):  # the pooled dice wait, kept
            self.last = {"state": "refused", "message": learnpart.MESSAGE}
            return False
        with self._lock:
            if self._running or dice - self._learned_at < self.every:
                return False
            self._running = True
        if wait:
            self._adapt(dice)
        else:
            threading.Thread(target=self._adapt, args=(dice,), name="campeonato-aprender", daemon=True).start()
        return True

    def sampled(self) -> None:
        """A table's sample was kept: the levels its evidence moves are published, and an adaptation starts in the
        background where enough new pooled dice are in."""
        self.share_levels()
        self.offer()

    def republish(self) -> None:
        """Publish the last model kept again, and its levels (the organizer restarted; the broker may have lost
        them)."""
        if self.current is not None:
            self.publish(model_message(self.current, None))
            self.share_levels(force=True)

    def levels(self) -> Levels | None:
        """The levels every table's evidence of the reader in use sets (vision.faces.evidence: started from its
        held-out dice, as each table's own ledger is); None while no pooled reader is in use."""
        if self.current is None:
            return None
        faces = self.current / "faces"
        seed = faces / EVIDENCE_NAME
        held = Ledger(seed).read() if seed.is_file() else []
        return set_levels(held + self.pool.evidence(self.current.name), models_levels(faces))

    def share_levels(self, force: bool = False) -> Levels | None:
        """Publish the levels of the reader in use where its pooled evidence grew (or `force`); the levels."""
        with self._levels_lock:  # a sample's thread and an adaptation's
            current = self.current
            if self.publish_levels is None or current is None:
                return None
            try:
                levels = self.levels()
            except Exception as error:  # unreadable models or evidence: the tables keep their own levels
                log.warning("no se pudieron fijar los niveles del lector del campeonato: %s", error)
                return None
            if levels is None or (not force and levels == self._shared):
                return levels
            self._shared = levels
            self.publish_levels(json.dumps({"models": current.name, **levels.to_dict()}).encode())
            return levels

    def _adapt(self, dice: int) -> None:
        from vision.faces.adapt import AdaptError, adapt

        adapter = self.adapter or adapt
        source = self.current or self.stock
        out = self.out / datetime.now().strftime("%Y%m%d-%H%M%S-%f")  # in the order they are made
        started = time.monotonic()
        # compared at the levels the tables read the reader in use at, where the organizer has set them
        shared = self._shared if self.current is not None else None
        try:
            if shared is None:
                result = adapter(self.pool.folder, out, source, holdout=self.holdout, crops=self.crops)
            else:
                levels = (shared.threshold, shared.alone)
                result = adapter(self.pool.folder, out, source, holdout=self.holdout, crops=self.crops, levels=levels)
        except AdaptError as error:
            self.last = {"state": "refused", "message": f"todavía no se puede adaptar: {error}"}
            with self._lock:
                self._running = False
            return
        except Exception as error:  # the tables go on with what they have
            log.exception("no se pudo adaptar el lector del campeonato")
            self.last = {"state": "failed", "message": f"no se pudo adaptar: {error}"}
            with self._lock:
                self._running, self._learned_at = False, dice
            return
        if result.written and out.is_dir():
            self.current = out
            self.publish(model_message(out, result))
            self.share_levels(force=True)
            after = result.after
            self.last = {
                "state": "done",
                "models": out.name,
                "message": f"aprendió {result.fit_dice} dados del campeonato · {after.wrong} errores en "
                f"{after.dice} apartados",
                "seconds": round(time.monotonic() - started, 1),
            }
        else:
            self.last = {"state": "refused", "message": "el lector adaptado no lee mejor los dados apartados"}
        with self._lock:
            self._running, self._learned_at = False, dice
