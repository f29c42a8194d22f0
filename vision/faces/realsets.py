"""The real dice sets under the data root (../shared/data): where each lies, its validation part, its boxes."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.faces.crops import (
    CONTEXT_MARGIN,
    MAX_DIE_SIDE,
    UNREADABLE,
    DieSample,
    face_of_class,
    load_samples,
    photo_id,
    read_yolo_labels,
    reader_crop,
    yolo_pairs,
)
from vision.frames import load_image
from vision.types import Box, Frame

DATA_ROOT = Path(__file__).resolve().parents[3] / "shared" / "data"  # read where it lies, never copied here
PARTS = ("train", "val")
VAL_FOLDER = "val"  # dice-real's own validation folder (train.VAL_SPLIT)
VAL_SHARE = 0.25  # of a set without its own val folder: the share of its photos (by group) kept for measuring
SPLIT_BY_FOLDER = "folder"  # images/train and images/val
SPLIT_BY_HASH = "hash"  # a stable hash of each photo's group picks VAL_SHARE of the groups
GROUP_PHOTO = "photo"  # copies of one photo go together (crops.photo_id)
GROUP_CAPTURE = "capture"  # every file of one capture number goes together, whatever its split prefix
_CAPTURE = re.compile(r"^(?:train|valid|test)_(\d+)_jpg$")


@dataclass(frozen=True, slots=True)
class RealSet:
    """A folder of real dice photos: where it lies, how its validation part is chosen, how its boxes become dice."""

    name: str
    folder: str  # relative to the data root
    split: str  # SPLIT_BY_FOLDER or SPLIT_BY_HASH
    group: str = GROUP_PHOTO  # what keeps near-copies on one side: GROUP_PHOTO or GROUP_CAPTURE
    # per face 1-6: the die's side over the labelled box's longest side (a square about the box's centre);
    # empty: the boxes enclose the die already
    pad: tuple[float, ...] = ()
    skip_faces: tuple[int, ...] = ()  # faces whose boxes say nothing of the die's size: left out
    upright: tuple[str, ...] = ()  # name prefixes of photos an upright camera took at a slant ("": every photo)
    about: str = ""

    def is_upright(self, name: str) -> bool:
        """Whether the photo was taken at a slant by an upright camera (its up is the picture's up)."""
        return name.startswith(self.upright) if self.upright else False

    def die_box(self, box: Box, face: int) -> Box:
        """The die's box from a labelled box: the box itself, or its padded square for a set that needs one."""
        if not self.pad or not 1 <= face <= 6:
            return box
        side = self.pad[face - 1] * max(box.width, box.height)
        cx, cy = box.center
        return Box(cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)


REAL_SETS = (
    RealSet(
        "dice-real",
        "dice-real",
        SPLIT_BY_FOLDER,
        upright=("epanemu_",),
        about="byler (bandeja gris, dados de colores, desde arriba) y epanemu (mesas, en ángulo; val)",
    ),
    RealSet(
        "rune55-phone-trays",
        "dice-real-extra/rune55-phone-trays",
        SPLIT_BY_HASH,
        about="fotos de móvil desde arriba: dados de colores con puntos dorados o blancos en bandejas de fieltro",
    ),
    RealSet(
        "rune55-roundcam",
        "dice-real-extra/rune55-roundcam",
        SPLIT_BY_HASH,
        group=GROUP_CAPTURE,
        about="primeros planos en gris por un campo redondo: dados blancos, negros, de cara roja y con logos",
    ),
    RealSet(
        "matteo-wood-pipboxes",
        "dice-real-extra/matteo-wood-pipboxes",
        SPLIT_BY_HASH,
        # the die's silhouette over the pip pattern's box, median of 1,206 dice measured on the photos; a 1's box
        # is the pip alone on some photos and the whole face on others (1.4-5x): its dice are left out
        pad=(3.1, 1.8, 1.8, 1.6, 1.55, 1.4),
        skip_faces=(1,),
        upright=("",),
        about="webcam algo oblicua, dados blancos de puntos negros sobre madera clara (cajas de los puntos)",
    ),
    RealSet(
        "skovy-catan-wood",
        "dice-real-extra/skovy-catan-wood",
        SPLIT_BY_HASH,
        about="webcam desde arriba, dados de Catan (rojo con puntos amarillos, amarillo con puntos rojos)",
    ),
)


def real_set(name: str) -> RealSet:
    """The registered set of that name; ValueError naming the known ones otherwise."""
    for rs in REAL_SETS:
        if rs.name == name:
            return rs
    raise ValueError(f"no conozco el conjunto real {name!r}: {', '.join(rs.name for rs in REAL_SETS)}")


def real_sets(root: Path = DATA_ROOT) -> list[RealSet]:
    """The registered sets present under `root` (those with an images/ folder); FileNotFoundError if none is."""
    if not root.is_dir():
        raise FileNotFoundError(f"no existe la carpeta de datos reales {root}")
    present = [rs for rs in REAL_SETS if (root / rs.folder / "images").is_dir()]
    if not present:
        known = ", ".join(rs.folder for rs in REAL_SETS)
        raise FileNotFoundError(f"en {root} no hay ningún conjunto de dados reales (se esperaba alguno de: {known})")
    return present


def group_of(rs: RealSet, name: str) -> str:
    """The group a photo belongs to: every near-copy of one photo has the same."""
    pid = photo_id(name)
    if rs.group == GROUP_CAPTURE:
        match = _CAPTURE.match(pid)
        if match:
            return match.group(1)
    return pid


def held_out(group: str, share: float = VAL_SHARE) -> bool:
    """Whether a group goes to validation: a stable hash of it (salted, so that train.calibration_photo, which
    hashes the bare photo id, still finds photos in the train part)."""
    return zlib.crc32(f"val:{group}".encode()) % 1000 < share * 1000


def _check_part(part: str) -> None:
    if part not in PARTS:
        raise ValueError(f"parte desconocida {part!r}: {' o '.join(PARTS)}")


def _split(rs: RealSet, part: str) -> str | None:
    """The images/ subfolder a part's photos lie in (None: images/ itself)."""
    if rs.split == SPLIT_BY_FOLDER:
        return part
    return None


def photos(rs: RealSet, root: Path, part: str) -> list[Path]:
    """The image paths of a set's part ("train" or "val"), sorted; no validation photo is ever in "train"."""
    _check_part(part)
    folder = root / rs.folder
    if rs.split == SPLIT_BY_FOLDER:
        has_val = (folder / "images" / VAL_FOLDER).is_dir()
        val = [image for image, _ in yolo_pairs(folder, VAL_FOLDER)] if has_val else []
        if part == VAL_FOLDER:
            return val
        val_ids = {photo_id(p.name) for p in val}
        return [image for image, _ in yolo_pairs(folder, "train") if photo_id(image.name) not in val_ids]
    wanted = part == VAL_FOLDER
    return [image for image, _ in yolo_pairs(folder) if held_out(group_of(rs, image.name)) == wanted]


def _label_path(image: Path) -> Path:
    """The YOLO label file of an image (images[/split]/x.jpg -> labels[/split]/x.txt)."""
    images = next(p for p in image.parents if p.name == "images")
    return images.parent / "labels" / image.relative_to(images).with_suffix(".txt")


def labelled(rs: RealSet, root: Path, part: str) -> Iterator[tuple[Frame, Box, int, str]]:
    """(frame, the die's box, face, image name) of every die with a face label in a set's part, padded as the set
    needs, each photo loaded once."""
    for image in photos(rs, root, part):
        frame = load_image(image)
        height, width = frame.shape[:2]
        for cls, box in read_yolo_labels(_label_path(image), width, height):
            face = face_of_class(cls)
            if face is None or face == UNREADABLE or face in rs.skip_faces or box.width < 4 or box.height < 4:
                continue
            yield frame, rs.die_box(box, face), face, image.name


def eval_crops(rs: RealSet, root: Path, part: str, turned: bool = False) -> Iterator[tuple[Frame, Frame, int, str]]:
    """(crop, the classifier's crop, face, image name) of every die of a set's part, as the reader cuts them: the
    classifier's crop is turned outward-up when `turned` (a classifier trained so) and the photo was taken from
    above; the pip counter reads the crop as cut."""
    for frame, box, face, image in labelled(rs, root, part):
        crop = reader_crop(frame, box)
        seen = reader_crop(frame, box, turned=True) if turned and not rs.is_upright(image) else crop
        yield crop, seen, face, image


def samples(
    rs: RealSet,
    root: Path,
    part: str,
    *,
    background_per_image: int = 0,
    not_dice: Callable[[Path], list[Box]] | None = None,
    turn: bool = False,
    seed: int = 0,
    context: float = CONTEXT_MARGIN,
    max_side: int = MAX_DIE_SIDE,
) -> list[DieSample]:
    """The set's part as training samples (crops.load_samples, with its options), each die's box padded as the
    set needs and its upright photos marked."""
    chosen = {p.name for p in photos(rs, root, part)}
    folder, split = root / rs.folder, _split(rs, part)

    def keep(path: Path) -> bool:
        return path.name in chosen

    if not rs.pad:
        loaded = load_samples(
            folder,
            split,
            keep=keep,
            upright=lambda p: rs.is_upright(p.name),
            background_per_image=background_per_image,
            not_dice=not_dice,
            turn=turn,
            seed=seed,
            context=context,
            max_side=max_side,
        )
        return [s for s in loaded if s.face not in rs.skip_faces]
    return _padded_samples(rs, folder, split, keep, background_per_image, not_dice, turn, seed, context, max_side)


def _padded_samples(
    rs: RealSet,
    folder: Path,
    split: str | None,
    keep: Callable[[Path], bool],
    background_per_image: int,
    not_dice: Callable[[Path], list[Box]] | None,
    turn: bool,
    seed: int,
    context: float,
    max_side: int,
) -> list[DieSample]:
    """Samples of a set whose boxes must be padded: cut with room for the widest padding, then each re-cut about
    its die's box; the bare-table boxes are drawn here, away from the padded dice."""
    widest = max(factor for face, factor in enumerate(rs.pad, start=1) if face not in rs.skip_faces)

    def others(path: Path) -> list[Box]:
        found = _bare_table(rs, path, background_per_image, seed) if background_per_image else []
        return found + (not_dice(path) if not_dice is not None else [])

    out = []
    for image, _ in yolo_pairs(folder, split):
        if not keep(image):
            continue
        wide = load_samples(  # one photo at a time: the wide patches are dropped as soon as re-cut
            folder,
            split,
            keep=_only(image),
            upright=lambda p: rs.is_upright(p.name),
            not_dice=others,
            turn=turn,
            seed=seed,
            context=widest * context + (widest - 1) / 2,
            max_side=1 << 20,
        )
        for sample in wide:
            if sample.face in rs.skip_faces:
                continue
            box = sample.box if sample.face == UNREADABLE else rs.die_box(sample.box, sample.face)
            patch, inner = _recut(sample.patch, box, context, max_side)
            out.append(DieSample(patch, inner, sample.face, sample.image, sample.upright, sample.cocked, sample.turn))
    return out


def _only(image: Path) -> Callable[[Path], bool]:
    """A `keep` for crops.load_samples that takes this photo alone."""
    return lambda path: path == image


def _recut(patch: Frame, box: Box, context: float, max_side: int) -> tuple[Frame, Box]:
    """The window of `patch` that keeps `context` of the box's side around it (edges mirrored), shrunk so the box
    spans at most `max_side`: what crops.load_samples gives for a die of that box."""
    side = max(box.width, box.height)
    pad = side * context
    x1, y1 = int(np.floor(box.x1 - pad)), int(np.floor(box.y1 - pad))
    x2, y2 = int(np.ceil(box.x2 + pad)), int(np.ceil(box.y2 + pad))
    height, width = patch.shape[:2]
    left, top, right, bottom = max(0, -x1), max(0, -y1), max(0, x2 - width), max(0, y2 - height)
    region = patch[max(0, y1) : min(height, y2), max(0, x1) : min(width, x2)]
    if left or top or right or bottom:
        region = np.asarray(cv2.copyMakeBorder(region, top, bottom, left, right, cv2.BORDER_REFLECT_101), np.uint8)
    inner = Box(box.x1 - x1, box.y1 - y1, box.x2 - x1, box.y2 - y1)
    scale = min(1.0, max_side / side)
    if scale < 1.0:
        size = (max(1, round(region.shape[1] * scale)), max(1, round(region.shape[0] * scale)))
        region = np.asarray(cv2.resize(region, size, interpolation=cv2.INTER_AREA), np.uint8)
        inner = Box(inner.x1 * scale, inner.y1 * scale, inner.x2 * scale, inner.y2 * scale)
    return np.ascontiguousarray(region), inner


def _bare_table(rs: RealSet, image: Path, count: int, seed: int) -> list[Box]:
    """Up to `count` die-sized boxes of a photo that touch none of its (padded) dice, the same for the same seed."""
    frame = load_image(image)
    height, width = frame.shape[:2]
    labels = read_yolo_labels(_label_path(image), width, height)
    dice = [rs.die_box(box, face_of_class(cls) or UNREADABLE) for cls, box in labels]
    if not dice:
        return []
    rng = np.random.default_rng([seed, zlib.crc32(image.name.encode())])
    sides = [max(b.width, b.height) for b in dice]
    found: list[Box] = []
    for _ in range(count * 20):
        if len(found) == count:
            break
        side = float(rng.choice(sides)) * rng.uniform(0.8, 1.3)
        if side >= min(width, height):
            continue
        x1, y1 = rng.uniform(0, width - side), rng.uniform(0, height - side)
        cand = Box(x1, y1, x1 + side, y1 + side)
        grown = Box(cand.x1 - side * 0.2, cand.y1 - side * 0.2, cand.x2 + side * 0.2, cand.y2 + side * 0.2)
        if all(grown.iou(b) == 0.0 for b in dice):
            found.append(cand)
    return found
