"""What every game's reading shares: its die entries, boxes matched across frames, and the coordinator's corrections.

A die entry (kiosk.records.DieEntry) is {"id", "face" (1-6 or null: not set yet), "read" (the camera's face or
null), "confidence", "uncertain", "reasons", "box" ([x1, y1, x2, y2] or null), "corrected", "confirmed"} plus what
a game adds.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Unpack

from kiosk.i18n import count
from kiosk.records import Correction, DieEntry, DieFields, Who
from kiosk.store import now
from vision.faces.evidence import fields
from vision.types import DieReading

MATCH_IOU = 0.3  # a die on a new frame is the same die as on an earlier one above this overlap


class CorrectionError(ValueError):
    """A correction that does not fit the reading (an unknown die or player, a face that is not 1-6)."""


def new_id() -> str:
    """A die's id within a reading."""
    return secrets.token_hex(4)


class BoxRead(Protocol):
    """A die's box as the camera gives it (vision.types.Box)."""

    def to_list(self) -> list[float]:
        """[x1, y1, x2, y2] in frame pixels."""
        ...


class DieRead(Protocol):
    """A die the camera read, as kiosk reads it (vision.types.DieReading)."""

    @property
    def face(self) -> int: ...
    @property
    def confidence(self) -> float: ...
    @property
    def uncertain(self) -> bool: ...
    @property
    def reasons(self) -> Sequence[str]: ...
    @property
    def box(self) -> BoxRead: ...


def die(face: int | None, read: int | None = None, **extra: Unpack[DieFields]) -> DieEntry:
    """A die entry of a reading."""
    entry: DieEntry = {
        "id": new_id(),
        "face": face,
        "read": read,
        "confidence": None,
        "uncertain": False,
        "reasons": [],
        "box": None,
        "corrected": False,
        "confirmed": False,
        **extra,  # after the defaults, so it sets them in their place
    }
    return entry


def die_read(found: DieRead, **extra: Unpack[DieFields]) -> DieEntry:
    """The entry of a die the camera read (vision.types.DieReading): its face, confidence, doubts and box."""
    entry: DieFields = {
        "confidence": round(float(found.confidence), 3),
        "uncertain": bool(found.uncertain),
        "reasons": list(found.reasons),
        "box": [round(v, 1) for v in found.box.to_list()],
        # the faces it may show (vision.candidates): one where the reader is sure
        "candidates": list(getattr(found, "candidates", ANY_FACES)),
    }
    if isinstance(found, DieReading):
        # what makes the die evidence for the models that read it once it is confirmed (vision.faces.evidence)
        kept = fields(found)
        if kept is not None:
            entry["seen"] = kept
    return die(found.face, found.face, **(entry | extra))


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes [x1, y1, x2, y2]."""
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def same_die(box: Sequence[float], dice: Sequence[DieEntry]) -> DieEntry | None:
    """The die of `dice` that overlaps `box` most, at least MATCH_IOU (the same die on a new frame), or None."""
    scored = [(iou(box, d["box"]), d) for d in dice if d["box"] is not None]
    scored = [(s, d) for s, d in scored if s >= MATCH_IOU]
    return max(scored, key=lambda pair: pair[0])[1] if scored else None


def away_from(dice: Sequence[DieEntry], box: Sequence[float]) -> list[DieEntry]:
    """The dice that are not where `box` is (a die the coordinator removed stays removed on a new frame)."""
    return [d for d in dice if d["box"] is None or iou(d["box"], box) < MATCH_IOU]


def capture_problems(capture: object) -> list[str]:
    """What the capture itself reports: dice that the frames read disagree on."""
    disagreeing = getattr(capture, "disagreeing", ())
    if not disagreeing:
        return []
    return [count(len(disagreeing), "dado no coincide", "dados no coinciden") + " entre las imágenes leídas"]


def check_correction(data: Mapping[str, object], face: object) -> None:
    """Refuse a correction unless the reading is ready and the face is 1-6 (None: the die is removed)."""
    if data.get("state") != "ready":
        raise CorrectionError("no hay lectura que corregir")
    if face is not None and (isinstance(face, bool) or not isinstance(face, int) or face not in range(1, 7)):
        raise CorrectionError(f"un dado va de 1 a 6, no {face!r}")


ANY_FACES = (1, 2, 3, 4, 5, 6)


def candidates_of(entry: DieEntry) -> frozenset[int]:
    """The faces a die of a reading may show now: its face once set by hand, confirmed, or read for sure; a
    doubtful die's candidates (any face where the reading gave none)."""
    if entry["face"] is None:
        return frozenset(ANY_FACES)
    if not entry["uncertain"] or entry["corrected"] or entry["confirmed"]:
        return frozenset({entry["face"]})
    faces = frozenset(int(f) for f in entry.get("candidates") or ANY_FACES if f in ANY_FACES)
    return (faces | {entry["face"]}) if faces else frozenset(ANY_FACES)


def unsettled(dice: Sequence[DieEntry]) -> tuple[int, int]:
    """How many dice have no face yet, and how many the camera doubted that nobody has confirmed or corrected."""
    unset = sum(1 for d in dice if d["face"] is None)
    doubtful = sum(1 for d in dice if d["uncertain"] and not (d["corrected"] or d["confirmed"]))
    return unset, doubtful


def change_die(
    corrections: list[Correction], dice: list[DieEntry], entry: DieEntry, face: int | None, **who: Unpack[Who]
) -> None:
    """Set a read die's face (confirming it when it is the same), or remove it (face None); logged in `corrections`
    (the reading's).

    The correction records `who` (the player), the die, what was read, what was set, when, and the die's box.
    """
    correction: Correction = {
        **who,
        "die": entry["id"],
        "read": entry["read"],
        "set": face,
        "ts": now(),
        "box": entry["box"],
    }
    corrections.append(correction)
    if face is None:
        dice.remove(entry)
    elif face == entry["face"] and entry["read"] is not None:
        entry["confirmed"] = True
    else:
        entry["face"] = face
        entry["corrected"] = True


def without_box(correction: Correction) -> Correction:
    """A correction as the log and the audit trail keep it (without the die's box)."""
    kept = correction.copy()
    kept.pop("box", None)
    return kept


def confirmed_meta(data: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The meta keys of the line a confirmed reading logs: by whom, the source, the photo, the models that read it,
    `extra`, corrections. `data`: any game's reading (typed, kiosk.records, or a plain JSON object)."""
    meta: dict[str, Any] = {"by": "coordinador", "source": data["source"]}
    if data.get("photo"):
        meta["photo"] = data["photo"]
    if data.get("models"):
        meta["models"] = data["models"]
    if extra:
        meta.update(extra)
    fixes = [without_box(c) for c in data.get("corrections", [])]
    if fixes:
        meta["corrections"] = fixes
    return meta
