"""The real dice sets under the data root (../shared/data): where each lies, its validation part, its boxes."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

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
    return capture_group(name) if rs.group == GROUP_CAPTURE else photo_id(name)


def capture_group(name: str) -> str:
    """The group of a photo of any folder: a Roboflow export's capture number where its name has one (its train_,
    valid_ and test_ copies go together), else the photo's id."""
    pid = photo_id(name)
    match = _CAPTURE.match(pid)
    return match.group(1) if match else pid


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


def label_path(image: Path) -> Path:
    """The YOLO label file of an image (images[/split]/x.jpg -> labels[/split]/x.txt)."""
    images = next(p for p in image.parents if p.name == "images")
    return images.parent / "labels" / image.relative_to(images).with_suffix(".txt")


def labelled(rs: RealSet, root: Path, part: str) -> Iterator[tuple[Frame, Box, int, str]]:
    """(frame, the die's box, face, image name) of every die with a face label in a set's part, padded as the set
    needs, each photo loaded once."""
    for image in photos(rs, root, part):
        frame = load_image(image)
        height, width = frame.shape[:2]
        for cls, box in read_yolo_labels(label_path(image), width, height):
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
        die_box=rs.die_box if rs.pad else None,
    )
    return [s for s in loaded if s.face not in rs.skip_faces]
