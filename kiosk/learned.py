"""The dice the coordinator confirmed, kept as labelled photos that teach the reader the table's own dice.

A camera reading keeps the frame it read (pendientes/, named after the reading's photo) until it is confirmed or
dropped. A confirmed reading becomes a YOLO sample: images/NAME.jpg and labels/NAME.txt (`face-1 cx cy w h`,
whole-die boxes, normalised), with the faces as the coordinator left them, and checked/NAME.txt: a 1 for each
label line the coordinator set, confirmed or corrected, a 0 for a die left as the reader read it (its label is the
reader's own answer, which adapt does not take as proof: vision.faces.crops.checked_flags). The dice the reader boxed
that carry no confirmed face are painted over with the felt's colour, so that no unlabelled die is taught as "no
die". The flags and the label are written before the image (a label alone is never read), all durably; a sample
written for a confirmation that never reached the log is swept at start-up.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
from flask.typing import ResponseReturnValue

from kiosk.camera import encode_jpeg
from kiosk.dice import MATCH_IOU, iou
from kiosk.records import AnyReading
from kiosk.store import Store, write_durably
from vision import labels as yolo
from vision.faces.crops import CHECKED

FOLDER = "dados-aprendidos"  # beside the database
PENDING = "pendientes"
EVIDENCE = "pruebas"  # a sample's dice as evidence for the models that read them: NAME.json (kiosk.teach)
SHOWN = "-vista"  # a kept frame's annotated copy: its name with this before the suffix
QUALITY = 92  # JPEG quality of the kept frames and samples
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")  # as vision.faces.crops reads them
BESIDE = ("labels", CHECKED, EVIDENCE)  # what a sample keeps beside its image, named as it is
MARGIN = 1.0  # die sides of the photo kept around each die of a sample
FACES = range(1, 7)
T = TypeVar("T")


def folder(data_dir: Path | str) -> Path:
    """The labelled folder in the kiosk's data folder."""
    return Path(data_dir) / FOLDER


def dice_of(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every die entry of a reading: a Dudo reading's, player by player, or a single list's."""
    players = data.get("players")
    if isinstance(players, Mapping):
        return [entry for dice in players.values() for entry in dice]
    return list(data.get("dice") or [])


def keep_frame(root: Path, owner: str, data: AnyReading, frame: Any, reading: Any) -> None:
    """Keep the frame a ready camera reading was read from (data["learn"] names it), with the boxes the reader
    found on it."""
    if keep(root, owner, data, frame):
        data["learn"]["found"] = [[round(float(v), 1) for v in d.box.to_list()] for d in getattr(reading, "dice", ())]


def keep(root: Path, owner: str, data: AnyReading, frame: Any) -> bool:
    """Keep the frame a ready camera reading was read from, named after its photo, and name it in data["learn"]
    with its size; whether it was kept."""
    photo = data.get("photo")
    if data.get("state") != "ready" or frame is None:
        return False
    stem = Path(photo).stem if isinstance(photo, str) and photo else secrets.token_hex(4)
    name = f"{owner}-{stem}.jpg"
    write_durably(root / PENDING / name, encode_jpeg(frame, QUALITY))
    data["learn"] = {"frame": name, "size": [int(frame.shape[1]), int(frame.shape[0])]}
    return True


def confirming(
    root: Path,
    write: Callable[[Path, Mapping[str, Any]], str | None],
    reading: Mapping[str, Any],
    change: Callable[[], ResponseReturnValue],
) -> ResponseReturnValue:
    """Confirm a reading by `change` (the event logged, or its refusal, a tuple): the reading written as a labelled
    sample by `write` before the event, taken back when it is refused, its kept frame forgotten once logged."""
    try:
        sample = write(root, reading)
    except OSError:
        sample = None  # a full disk costs a labelled sample, never the confirmation
    answered = change()
    if isinstance(answered, tuple):
        drop_sample(root, sample)
    else:
        forget(root, reading)
    return answered


def frame_name(data: Mapping[str, Any] | None) -> str | None:
    """The kept frame a reading names, or None."""
    learn = None if data is None else data.get("learn")
    name = learn.get("frame") if isinstance(learn, Mapping) else None
    return name if isinstance(name, str) and name and "/" not in name and not name.startswith(".") else None


def shown_path(root: Path, data: Mapping[str, Any] | None) -> Path | None:
    """Where the annotated copy of a reading's kept frame lies (a page that shows it again after a restart keeps
    it there), or None when the reading kept no frame."""
    name = frame_name(data)
    return None if name is None else root / PENDING / f"{Path(name).stem}{SHOWN}.jpg"


def forget(root: Path, data: Mapping[str, Any] | None) -> None:
    """Delete the kept frame of a reading that was replaced, discarded or confirmed, and its annotated copy."""
    name, shown = frame_name(data), shown_path(root, data)
    if name is not None and shown is not None:
        (root / PENDING / name).unlink(missing_ok=True)
        shown.unlink(missing_ok=True)


def labelled(data: Mapping[str, Any]) -> list[tuple[int, list[float], bool]]:
    """(face, box, checked) of each die of the reading with a face and a box where the frame shows it: found by
    the reader, or put by the coordinator (a die carried over from an earlier frame that no box of this one matches
    is left out: it may lie elsewhere now); checked where the coordinator set, confirmed or corrected it."""
    learn = data.get("learn") or {}
    found = learn.get("found") or []
    out = []
    for entry in dice_of(data):
        face, box = entry.get("face"), entry.get("box")
        if not isinstance(face, int) or face not in FACES or not isinstance(box, list) or len(box) != 4:
            continue
        if entry.get("read") is not None and not any(iou(box, f) >= MATCH_IOU for f in found):
            continue
        checked = bool(entry.get("corrected") or entry.get("confirmed"))
        out.append((int(face), [float(v) for v in box], checked))
    return out


def write_sample(root: Path, data: Mapping[str, Any], before: Callable[[str], None] | None = None) -> str | None:
    """Write the confirmed reading as a sample (label first, then image, both durably); its name, or None when
    the reading kept no frame or has no die with a face and a box. `before(name)` runs before the label is written
    (what goes with the sample is there before the sample is: kiosk.teach.write_sample_evidence)."""
    name = frame_name(data)
    if name is None or not (root / PENDING / name).is_file():
        return None
    frame = cv2.imread(str(root / PENDING / name), cv2.IMREAD_COLOR)
    dice = labelled(data)
    if frame is None or not dice:
        return None
    sx, sy = scale(data, frame)
    scaled = [((face, checked), [box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy]) for face, box, checked in dice]
    unknown = [
        [v * s for v, s in zip(f, (sx, sy, sx, sy), strict=True)]
        for f in data["learn"].get("found") or []
        if not any(iou([b[0] / sx, b[1] / sy, b[2] / sx, b[3] / sy], f) >= MATCH_IOU for _, b in scaled)
    ]
    felt = felt_of(frame)
    image, kept = cropped(kept_near(_painted(frame, unknown, felt), [b for _, b in scaled], felt), scaled)
    boxes = [(face - 1, box) for (face, _), box in kept]
    return write_labelled(root, name, image, boxes, before, [checked for (_, checked), _ in kept])


def scale(data: Mapping[str, Any], frame: np.ndarray) -> tuple[float, float]:
    """How much larger the kept frame is than the frame the reading's boxes are on (x, y)."""
    width, height = data["learn"]["size"]
    return frame.shape[1] / width, frame.shape[0] / height


def felt_of(frame: np.ndarray) -> np.ndarray:
    """The felt's colour: the frame's median (taken once: a full still takes a third of a second)."""
    return np.asarray(np.median(frame.reshape(-1, 3), axis=0), frame.dtype)


def write_labelled(
    root: Path,
    name: str,
    image: np.ndarray,
    boxes: Sequence[tuple[int, Sequence[float]]],
    before: Callable[[str], None] | None = None,
    checked: Sequence[bool] | None = None,
) -> str:
    """Write a sample of the kept frame `name`: which of its boxes were checked (where given), its label (`class cx
    cy w h` a box, normalised) and then its image, all durably; the sample's name (`before` is called with it
    first)."""
    h, w = image.shape[:2]
    lines = [yolo.line(cls, box, w, h) + "\n" for cls, box in boxes]
    sample = f"{Path(name).stem}-{secrets.token_hex(3)}"
    if before is not None:
        before(sample)
    if checked is not None:
        write_durably(root / CHECKED / f"{sample}.txt", "".join("1\n" if c else "0\n" for c in checked).encode())
    write_durably(root / "labels" / f"{sample}.txt", "".join(lines).encode())
    write_durably(root / "images" / f"{sample}.jpg", encode_jpeg(image, QUALITY))
    return sample


def _painted(frame: np.ndarray, boxes: Iterable[Sequence[float]], felt: np.ndarray) -> np.ndarray:
    """The frame with `boxes` (grown a little) filled with the felt's colour (the frame's median)."""
    out = frame.copy()
    colour = tuple(int(v) for v in felt)
    for x1, y1, x2, y2 in boxes:
        gx, gy = (x2 - x1) * 0.15, (y2 - y1) * 0.15
        cv2.rectangle(out, (int(x1 - gx), int(y1 - gy)), (int(x2 + gx), int(y2 + gy)), colour, thickness=-1)
    return out


def kept_near(
    frame: np.ndarray, boxes: Sequence[Sequence[float]], felt: np.ndarray, margin: float = MARGIN
) -> np.ndarray:
    """The frame with everything farther than `margin` box sides from every box filled with the felt's colour: the
    felt about each die stays to teach "no die", and the flat rest takes almost nothing as a JPEG (a Dudo reading's
    sample spans the whole table)."""
    keep = np.zeros(frame.shape[:2], np.uint8)
    for x1, y1, x2, y2 in boxes:
        side = max(x2 - x1, y2 - y1) * margin
        cv2.rectangle(keep, (int(x1 - side), int(y1 - side)), (int(x2 + side), int(y2 + side)), 1, thickness=-1)
    if keep.all():
        return frame
    out = frame.copy()
    out[keep == 0] = felt
    return out


def cropped(
    frame: np.ndarray, dice: list[tuple[T, list[float]]], margin: float = MARGIN
) -> tuple[np.ndarray, list[tuple[T, list[float]]]]:
    """The part of the frame around its centre that holds every (label, box) with `margin` box sides about it, and
    the boxes on it with their labels; centred on the frame's centre so that each die keeps its way out from the
    centre (vision.faces.crops.outward_turn)."""
    height, width = frame.shape[:2]
    cx, cy = width / 2, height / 2
    side = max(max(b[2] - b[0], b[3] - b[1]) for _, b in dice)
    half_w = min(cx, max(max(abs(b[0] - cx), abs(b[2] - cx)) for _, b in dice) + margin * side)
    half_h = min(cy, max(max(abs(b[1] - cy), abs(b[3] - cy)) for _, b in dice) + margin * side)
    x0, y0 = int(cx - half_w), int(cy - half_h)
    x1, y1 = int(np.ceil(cx + half_w)), int(np.ceil(cy + half_h))
    image = np.ascontiguousarray(frame[y0:y1, x0:x1])
    h, w = image.shape[:2]
    moved = []
    for face, (a, b, c, d) in dice:
        box = [max(0.0, a - x0), max(0.0, b - y0), min(float(w), c - x0), min(float(h), d - y0)]
        if box[2] - box[0] >= 4 and box[3] - box[1] >= 4:
            moved.append((face, box))
    return image, moved


def drop_sample(root: Path, sample: str | None) -> None:
    """Take back a sample whose confirmation was refused (image first: a label alone is never read)."""
    if sample:
        (root / "images" / f"{sample}.jpg").unlink(missing_ok=True)
        (root / "labels" / f"{sample}.txt").unlink(missing_ok=True)
        (root / CHECKED / f"{sample}.txt").unlink(missing_ok=True)
        (root / EVIDENCE / f"{sample}.json").unlink(missing_ok=True)


def counts(root: Path) -> dict[int, int]:
    """Labelled dice per face 1-6 in the folder (samples with both their image and their label)."""
    tally: Counter[int] = Counter()
    labels, images = root / "labels", root / "images"
    if labels.is_dir() and images.is_dir():
        photos = {p.stem for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
        for path in labels.glob("*.txt"):
            if path.stem not in photos:
                continue
            for line in path.read_text().splitlines():
                parts = line.split()
                if parts and parts[0].isdigit():
                    tally[int(parts[0]) + 1] += 1
    return {face: tally.get(face, 0) for face in FACES}


def sweep(root: Path, store: Store, others: Iterable[Mapping[str, Any] | None] = ()) -> None:
    """At start-up: delete half-written files, the kept frames no reading awaiting confirmation names (a table's,
    or one of `others`), and the samples of a table's reading still awaiting confirmation (the kiosk stopped before
    its event was stored)."""
    kept = {Path(name).stem for name in map(frame_name, others) if name is not None}
    waiting = set()
    for row in store.tables():
        found = store.pending(row.id)
        name = frame_name(None if found is None else found[1])
        if name is not None:
            waiting.add(Path(name).stem)
    for sub in (PENDING, "images", *BESIDE):
        where = root / sub
        if not where.is_dir():
            continue
        for path in where.iterdir():
            if path.is_file() and _stale(root, sub, path, waiting, kept):
                path.unlink(missing_ok=True)


def _stale(root: Path, sub: str, path: Path, waiting: set[str], kept: set[str]) -> bool:
    """A half-written file, a kept frame (or its annotated copy, `-vista`) no pending reading names, a sample of a
    table's reading still pending, or a label (its flags, its evidence) whose image was never written."""
    if path.suffix == ".tmp":
        return True
    if sub == PENDING:
        return path.stem.removesuffix(SHOWN) not in waiting | kept
    if path.stem.rsplit("-", 1)[0] in waiting:
        return True
    return sub in BESIDE and not any((root / "images" / f"{path.stem}{s}").is_file() for s in IMAGE_SUFFIXES)
