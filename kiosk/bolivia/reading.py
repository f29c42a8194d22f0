"""A roll read: the five dice of the rolling area, the coordinator's corrections (they stick), the set-aside check.

A reading is a JSON object kept in the store until it is confirmed (it survives a restart):
{"state": "reading"|"ready"|"failed", "source": "camera"|"manual", "photo": str|None, "message": str,
 "dice": [die, ...], "kept": [{"position", "face", "box"}], "problems": [str], "area": {...}|None,
 "size": [w, h]|None, "capture": {...}|None, "corrections": [...]}
with each die {"id", "face" (1-6 or null: not set yet), "read" (the camera's face or null), "confidence",
"uncertain", "reasons", "box" ([x1, y1, x2, y2] or null), "corrected", "confirmed", "slot" (the position of the
set-aside die it is, or null), "kept" (that die's face, or null)}.

The rolling area is the zone inside the ArUco markers numbered 0 (DICT_4X4_50, the seats' dictionary: seats use
1-49), one at each corner of the tray; with no such markers the whole frame is read, which is right when only the
five dice are in view.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Unpack, cast

import cv2
import numpy as np

from engines.bolivia import DICE, BoliviaGame, Roll, RuleError
from kiosk import dice as entries
from kiosk.dice import (
    MATCH_IOU,
    CorrectionError,
    away_from,
    capture_problems,
    change_die,
    check_correction,
    confirmed_meta,
    iou,
    same_die,
    unsettled,
)
from kiosk.i18n import count
from kiosk.records import BoliviaReading, DieEntry, DieFields, JsonDict, KeptDie, RollProposal
from kiosk.sections import said
from kiosk.store import now

if TYPE_CHECKING:
    from vision.still import StillCapture
    from vision.types import DieReading, Frame

ROLL_MARKER = 0  # the ArUco id of the rolling area's corners
MATCH_CENTRE = 0.5  # a die that did not move: above MATCH_IOU, or with centres closer than this share of its side
DETECT_WIDTH = 2000  # markers are searched on a copy at most this wide
AREA_DIE_SHARE = 0.3  # a die wider than this share of the rolling area's short side is no die (a cup, a hand)

Point = tuple[float, float]


# ------------------------------------------------------------------ the rolling area


def rolling_area(frame: Frame) -> tuple[list[Point] | None, int]:
    """The rolling area's polygon on the frame (pixels) and how many of its markers were seen.

    Three or more markers: the convex hull of their corners; two: the rectangle they span; fewer: None.
    """
    from vision.seats import aruco_dictionary

    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    scale = 1.0
    if grey.shape[1] > DETECT_WIDTH:
        scale = grey.shape[1] / DETECT_WIDTH
        grey = cv2.resize(grey, (DETECT_WIDTH, round(grey.shape[0] / scale)), interpolation=cv2.INTER_AREA)
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return None, 0
    points: list[Point] = []
    found = 0
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        if int(marker_id) != ROLL_MARKER:
            continue
        found += 1
        points.extend(((float(x) + 0.5) * scale - 0.5, (float(y) + 0.5) * scale - 0.5) for x, y in quad.reshape(4, 2))
    if found >= 3:
        hull = cv2.convexHull(np.array(points, np.float32)).reshape(-1, 2)
        return [(float(x), float(y)) for x, y in hull], found
    if found == 2:
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return [(min(xs), min(ys)), (max(xs), min(ys)), (max(xs), max(ys)), (min(xs), max(ys))], found
    return None, found


def inside(polygon: Sequence[Point], point: Point) -> bool:
    """Whether `point` lies in the polygon (its edge included)."""
    contour = np.array(polygon, np.float32).reshape(-1, 1, 2)
    return bool(cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0)


# ------------------------------------------------------------------ dice


NOT_KEPT: DieFields = {"slot": None, "kept": None}  # a die entry's keys here: which set-aside die it is


def die(face: int | None, read: int | None = None, **extra: Unpack[DieFields]) -> DieEntry:
    """A die entry of a reading (not a set-aside die unless `slot` and `kept` say so)."""
    return entries.die(face, read, **(NOT_KEPT | extra))


def centre(box: Sequence[float]) -> Point:
    """The centre of a box [x1, y1, x2, y2]."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def same_place(a: Sequence[float], b: Sequence[float]) -> float:
    """How well two boxes match as one die that did not move (0: not at all)."""
    overlap = iou(a, b)
    if overlap >= MATCH_IOU:
        return overlap
    side = max(1.0, min(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1]))
    distance = math.dist(centre(a), centre(b))
    limit = MATCH_CENTRE * side
    return MATCH_IOU * (1 - distance / limit) + 1e-6 if distance <= limit else 0.0


def kept_dice(game: BoliviaGame, last_roll: JsonDict | None) -> list[KeptDie]:
    """The dice set aside for the next roll: position (1-based), face, and its box on the last photo (or None)."""
    attempt = game.attempt
    if attempt is None or attempt.dice is None or attempt.must_roll_all:
        return []
    boxes = (last_roll or {}).get("boxes") or [None] * DICE
    size = (last_roll or {}).get("size")
    return [
        {"position": p + 1, "face": attempt.dice[p], "box": boxes[p] if p < len(boxes) else None, "size": size}
        for p in sorted(attempt.kept)
    ]


def _base(state: str, source: str, message: str, kept: list[KeptDie]) -> BoliviaReading:
    return {
        "state": state,
        "source": source,
        "photo": None,
        "message": message,
        "dice": [],
        "kept": kept,
        "problems": [],
        "area": None,
        "size": None,
        "capture": None,
        "corrections": [],
    }


def reading(state: str, message: str, kept: list[KeptDie]) -> BoliviaReading:
    """A reading in progress or failed (no dice yet)."""
    return _base(state, "camera", message, kept)


def manual(kept: list[KeptDie]) -> BoliviaReading:
    """A roll entered by hand: the set-aside dice as they are, the others with no face yet."""
    data = _base("ready", "manual", "sin cámara: toque cada dado para poner su cara", kept)
    held = [die(k["face"], None, confirmed=True, slot=k["position"], kept=k["face"]) for k in kept]
    data["dice"] = held + [die(None) for _ in range(DICE - len(held))]
    return data


def from_capture(
    capture: StillCapture,
    kept: list[KeptDie],
    photo: str | None,
    area: list[Point] | None,
    markers: int,
) -> BoliviaReading:
    """A reading from the camera's still capture: the dice in the rolling area."""
    frame_reading = capture.reading
    assert frame_reading is not None  # read only once captured (GameViews)
    data = _base("ready", "camera", capture.message, kept)
    data["photo"] = photo
    size = [frame_reading.width, frame_reading.height]
    data["size"] = size
    data["capture"] = capture.to_dict()
    data["area"] = {
        "kind": "aruco" if area is not None else "frame",
        "markers": markers,
        "polygon": None if area is None else [[round(x, 1), round(y, 1)] for x, y in area],
    }
    bounds = _area_side(area, size)
    found = [entries.die_read(sized_to_area(read, bounds), **NOT_KEPT) for read in frame_reading.dice]
    in_area = [d for d in found if area is None or inside(area, centre(box_of(d)))]
    in_area.sort(key=lambda d: (centre(box_of(d))[0], centre(box_of(d))[1]))
    problems: list[str] = []
    if len(found) > len(in_area):
        outside = count(
            len(found) - len(in_area),
            "dado fuera de la zona de tirada: no cuenta",
            "dados fuera de la zona de tirada: no cuentan",
        )
        problems.append(outside)
    if area is None and len(in_area) != DICE:
        seen = "solo se ve un marcador de la zona de tirada" if markers == 1 else "no se ve la zona de tirada"
        problems.append(
            f"{seen} (marcadores ArUco {ROLL_MARKER}) y hay {len(in_area)} dados a la vista: se leyó toda la imagen"
        )
    problems.extend(capture_problems(capture))
    data["problems"] = problems
    data["dice"] = _claim_kept(in_area, kept, size)
    return data


def box_of(entry: DieEntry) -> list[float]:
    """The box of a die known to have one: read by the camera (kiosk.dice.die_read gives each one a box), or kept
    for having one (for mypy, which cannot tell)."""
    return cast(list[float], entry["box"])


def _area_side(area: list[Point] | None, size: Sequence[int]) -> float:
    """The short side of the rolling area's bounding box (the frame's, when the whole frame is read)."""
    if area is None:
        return float(min(size))
    xs, ys = [x for x, _ in area], [y for _, y in area]
    return min(max(xs) - min(xs), max(ys) - min(ys))


def sized_to_area(read: DieReading, side: float) -> DieReading:
    """A die judged against the rolling area, whose size is known, not against the whole image: the reader's «too
    big for a die» (a share of the frame, for a camera over the whole table) is replaced by a die over AREA_DIE_SHARE
    of the area's short side."""
    from dataclasses import replace

    from vision.reasons import Reason, ReasonCode

    if not any(getattr(r, "code", None) is ReasonCode.TOO_BIG for r in read.reasons):
        return read
    reasons = [r for r in read.reasons if getattr(r, "code", None) is not ReasonCode.TOO_BIG]
    if read.box.side > AREA_DIE_SHARE * side:
        reasons.append(Reason(ReasonCode.TOO_BIG_FOR_AREA, share=read.box.side / side))
    return replace(read, uncertain=bool(reasons), reasons=tuple(reasons))


def _pick_for(kept: KeptDie, free: Sequence[DieEntry], size: Sequence[int] | None, nearest: bool) -> DieEntry | None:
    """Which of the free dice is the set-aside die `kept`: the one where it lay, else one showing its face, else
    (with `nearest`: all five dice are there, none where it lay and none with its face) the nearest, which is the
    one that moved.

    Places are compared only on photos of the same size (`size`: this reading's).
    """
    kept_size = kept.get("size")
    same_frame = kept_size is None or size is None or list(kept_size) == list(size)
    box = kept.get("box") if same_frame else None
    if box is not None:
        scored = [(same_place(box, d["box"]), d) for d in free if d["box"] is not None]
        scored = [(s, d) for s, d in scored if s > 0]
        if scored:
            return max(scored, key=lambda pair: pair[0])[1]
    same_face = next((d for d in free if d["face"] == kept["face"]), None)
    if same_face is not None:
        return same_face
    if box is not None and nearest:
        here = centre(box)
        boxed = [d for d in free if d["box"] is not None]
        if boxed:
            return min(boxed, key=lambda d: math.dist(here, centre(box_of(d))))
    return None


def _claim_kept(entries: list[DieEntry], kept: list[KeptDie], size: Sequence[int] | None) -> list[DieEntry]:
    """Say which die of the new reading is each set-aside die (see `_pick_for`)."""
    free = list(entries)
    for k in kept:
        best = _pick_for(k, free, size, nearest=False)
        if best is None:
            continue
        free.remove(best)
        best["slot"], best["kept"] = k["position"], k["face"]
    return entries


def keep_corrections(old: BoliviaReading, new: BoliviaReading) -> BoliviaReading:
    """The new frame's reading with every earlier correction still applied: a later frame never overwrites one."""
    new["corrections"] = list(old.get("corrections", []))
    fresh: list[DieEntry] = new["dice"]
    for entry in [d for d in old.get("dice", []) if d["corrected"] or d["confirmed"]]:
        if entry.get("read") is None and entry.get("slot") is not None and not entry["corrected"]:
            continue  # a set-aside die pre-filled by hand: the camera now says where it is
        match = None if entry["box"] is None else same_die(entry["box"], fresh)
        if match is not None:
            fresh.remove(match)
            entry = {**entry, "slot": match["slot"], "kept": match["kept"]}
        fresh.append(entry)
    for correction in new["corrections"]:
        box = correction.get("box")
        if correction.get("set") is None and box is not None:
            fresh[:] = away_from(fresh, box)
    fresh.sort(key=lambda d: (d["box"] is None, centre(d["box"])[0] if d["box"] else 0.0))
    return new


def correct(
    data: BoliviaReading, die_id: str | None, face: int | None, at: Sequence[float] | None = None
) -> BoliviaReading:
    """Set a die's face (confirming it when it is the same), remove it (face None) or add one (die_id None).

    A die added with `at` (a point on the photo, frame pixels) lies there: a box the size of the others around
    it, so that it can be checked as a set-aside die in the next roll. The correction is logged with what was
    read, what was set and when.
    """
    check_correction(data, face)
    dice: list[DieEntry] = data["dice"]
    if die_id is None:
        if face is None:
            raise CorrectionError("para añadir un dado hace falta su cara")
        if len(dice) >= DICE:
            raise CorrectionError("ya hay cinco dados en la lectura: corrija uno o quite el que sobra")
        box = None if at is None else _box_at(data, at)
        added = die(face, None, corrected=True, box=box)
        dice.append(added)
        dice.sort(key=lambda d: (d["box"] is None, centre(d["box"])[0] if d["box"] else 0.0))
        data["corrections"].append({"die": added["id"], "read": None, "set": face, "ts": now(), "box": box})
        return data
    entry = next((d for d in dice if d["id"] == die_id), None)
    if entry is None:
        raise CorrectionError("ese dado no está en la lectura")
    change_die(data["corrections"], dice, entry, face)
    return data


def _box_at(data: BoliviaReading, at: Sequence[float]) -> list[float]:
    size = data.get("size")
    if (
        size is None
        or len(at) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in at)
        or not (0 <= at[0] <= size[0] and 0 <= at[1] <= size[1])
    ):
        raise CorrectionError("el punto de la foto está fuera de la imagen (o la lectura no tiene foto)")
    sides = sorted(min(d["box"][2] - d["box"][0], d["box"][3] - d["box"][1]) for d in data["dice"] if d["box"])
    side = sides[len(sides) // 2] if sides else 0.06 * size[0]
    x, y = float(at[0]), float(at[1])
    return [round(x - side / 2, 1), round(y - side / 2, 1), round(x + side / 2, 1), round(y + side / 2, 1)]


# ------------------------------------------------------------------ what confirming would do


def arrange(data: BoliviaReading) -> tuple[list[DieEntry | None], list[DieEntry]]:
    """The dice by position (None where one is missing) and the dice left over.

    A set-aside die keeps its position; a die added by hand with a missing set-aside die's face takes its place;
    the others fill the free positions from left to right.
    """
    slots: list[DieEntry | None] = [None] * DICE
    free: list[DieEntry] = []
    for entry in data.get("dice", []):
        slot = entry.get("slot")
        if isinstance(slot, int) and 1 <= slot <= DICE and slots[slot - 1] is None:
            slots[slot - 1] = entry
        else:
            free.append(entry)
    for k in data.get("kept", []):
        position = k["position"]
        if slots[position - 1] is None:
            match = _pick_for(k, free, data.get("size"), nearest=len(data.get("dice", [])) >= DICE)
            if match is not None:
                free.remove(match)
                slots[position - 1] = {**match, "slot": position, "kept": k["face"]}
    kept_positions = {k["position"] for k in data.get("kept", [])}
    for index in range(DICE):
        if slots[index] is None and index + 1 not in kept_positions and free:
            slots[index] = free.pop(0)
    return slots, free


def proposal(game: BoliviaGame, data: BoliviaReading) -> RollProposal:
    """What confirming would do: the roll (checked by the engine), or what blocks it (and which die moved)."""
    if data.get("state") != "ready":
        return {"ok": False, "blockers": [str(data.get("message", "esperando la lectura"))], "dice": None, "order": []}
    blockers: list[str] = []
    dice = data.get("dice", [])
    slots, extra = arrange(data)
    if len(dice) != DICE:
        what = "quite los que sobran" if len(dice) > DICE else "añada los que faltan (+ dado)"
        blockers.append(f"se juega con cinco dados y la lectura tiene {len(dice)}: {what}")
    unset, doubtful = unsettled(dice)
    if unset:
        blockers.append(count(unset, "dado sin cara: tóquelo", "dados sin cara: tóquelos") + " para ponerla")
    if doubtful:
        blockers.append(
            count(doubtful, "dado dudoso: tóquelo", "dados dudosos: tóquelos") + " para confirmar o corregir"
        )
    moved: list[int] = []
    for k in data.get("kept", []):
        position, face = k["position"], k["face"]
        entry = slots[position - 1]
        if entry is None:
            blockers.append(
                f"no se ve el dado {position}, apartado con {face}: devuélvalo a su lugar y lea de nuevo, "
                "o añádalo a mano"
            )
        elif entry["face"] != face:
            moved.append(position)
            shown = "no tiene cara" if entry["face"] is None else f"ahora muestra {entry['face']}"
            blockers.append(
                f"el dado {position} estaba apartado con {face} y {shown}: se movió. Devuélvalo a {face} y lea "
                "de nuevo, o tóquelo para corregir la lectura"
            )
    faces = [None if e is None else e["face"] for e in slots]
    if not blockers and game.attempt is not None:
        try:
            game.check(Roll(game.attempt.player, _rolled(faces)))
        except RuleError as error:
            blockers.append(said(error))
    order = [None if e is None else e["id"] for e in slots]
    return {
        "ok": not blockers,
        "blockers": blockers,
        "dice": faces,
        "order": order,
        "extra": [e["id"] for e in extra],
        "moved": moved,
    }


def _rolled(faces: Sequence[int | None]) -> tuple[int, ...]:
    return tuple(int(f) for f in faces if f is not None)


def rolled(plan: RollProposal) -> tuple[int, ...]:
    """The faces a confirmable proposal rolls: the ones the engine checked."""
    return _rolled(plan["dice"] or [])


def roll_meta(data: BoliviaReading) -> dict[str, object]:
    """The meta keys a confirmed roll line carries: where the dice came from, the photo, boxes and corrections."""
    slots, _ = arrange(data)
    where: dict[str, object] = {}
    if data.get("size"):
        where["size"] = data["size"]
    boxes = [None if e is None else e.get("box") for e in slots]
    if any(b is not None for b in boxes):
        where["boxes"] = boxes
    return confirmed_meta(data, where)
