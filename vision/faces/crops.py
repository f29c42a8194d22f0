"""Die crops from YOLO folders (images/ + labels/), and their augmentation for training the face reader."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.frames import load_image
from vision.types import Box, Frame

CROP_MARGIN = 0.15  # each side, as a share of the box: what the readers get around a die
CONTEXT_MARGIN = 0.6  # what a training sample keeps around its die, so rotations and box jitter stay real
MAX_DIE_SIDE = 112  # training samples are shrunk so a die spans at most this (the shipped classifier reads 48 px)
UNREADABLE = 0  # the label of a crop with no readable face (a cocked die, no die at all)
COCKED_CLASS = 6  # in the rendered sets, class 6 is a die cocked against something
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
CHECKED = "checked"  # beside images/ and labels/: which labels a person set or checked (checked_flags)

_ROBOFLOW_COPY = re.compile(r"\.rf\.[0-9a-f]+$")


def crop_die(frame: Frame, box: Box, margin: float = CROP_MARGIN) -> Frame:
    """The die's crop: its box grown by `margin` of its size on each side, clipped to the frame (a copy)."""
    height, width = frame.shape[:2]
    mx, my = box.width * margin, box.height * margin
    x1, y1 = max(0, int(np.floor(box.x1 - mx))), max(0, int(np.floor(box.y1 - my)))
    x2, y2 = min(width, int(np.ceil(box.x2 + mx))), min(height, int(np.ceil(box.y2 + my)))
    if x2 <= x1 or y2 <= y1:
        raise ValueError(f"la caja {box.to_list()} queda fuera de la imagen ({width}x{height})")
    return np.ascontiguousarray(frame[y1:y2, x1:x2])


def outward_turn(box: Box, width: int, height: int) -> float:
    """Degrees to turn a die's crop (counter-clockwise, as cv2.getRotationMatrix2D) so that the way out from the
    frame's centre points up. Seen from above, a die away from the centre shows its side facing the centre
    below its top face once turned: the same picture an upright camera at a slant takes."""
    cx, cy = box.center
    return math.degrees(math.atan2(cx - width / 2, -(cy - height / 2)))


def turned_window(image: Frame, centre: tuple[float, float], size: tuple[int, int], angle: float) -> Frame:
    """The `size` (width, height) window centred on `centre`, turned by `angle` degrees, in one affine warp
    (edges mirrored)."""
    cx, cy = centre
    out_w, out_h = size
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    matrix[0, 2] += out_w / 2 - cx
    matrix[1, 2] += out_h / 2 - cy
    out = cv2.warpAffine(image, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
    return np.ascontiguousarray(out)


def turned_crop(frame: Frame, box: Box, angle: float, margin: float = CROP_MARGIN) -> Frame:
    """The die's crop (its box grown by `margin` each side) turned by `angle` degrees about the die's centre."""
    size = (max(8, round(box.width * (1 + 2 * margin))), max(8, round(box.height * (1 + 2 * margin))))
    return turned_window(frame, box.center, size, angle)


def photo_id(name: str) -> str:
    """The photo a file comes from: Roboflow's augmented copies (`x_jpg.rf.<hash>`) share one id."""
    return _ROBOFLOW_COPY.sub("", Path(name).stem)


@dataclass(frozen=True, slots=True)
class DieSample:
    """A labelled die: a patch of its photo with context around it, the box in patch pixels, and its face."""

    patch: Frame
    box: Box
    face: int  # 1-6, or UNREADABLE
    image: str
    upright: bool = False  # from an upright slanted photo: which face is up shows in the picture's up
    cocked: bool = False  # a die cocked against something (labelled UNREADABLE): its face must not be read
    turn: float | None = None  # from above: the outward_turn of its place in the frame (None: not known)
    checked: bool = True  # its label was set or checked by a person (checked_flags), not the reader's own answer

    def crop(self, margin: float = CROP_MARGIN, turned: bool = False) -> Frame:
        """The crop a reader would get for this die (no augmentation); `turned`: turned outward-up, as a
        reader of a frame taken from above gives it to a classifier trained turned."""
        if turned and self.turn is not None:
            return turned_crop(self.patch, self.box, self.turn, margin)
        return crop_die(self.patch, self.box, margin)


def yolo_pairs(folder: Path, split: str | None = None) -> list[tuple[Path, Path]]:
    """(image, label) paths of a YOLO folder: images[/split]/x.jpg with labels[/split]/x.txt (absent = no dice)."""
    images = folder / "images"
    labels = folder / "labels"
    if split is not None:
        images, labels = images / split, labels / split
    if not images.is_dir():
        raise FileNotFoundError(f"no existe la carpeta de imágenes {images}")
    pairs = []
    for path in sorted(images.iterdir()):
        if path.suffix.lower() in IMAGE_SUFFIXES:
            pairs.append((path, labels / (path.stem + ".txt")))
    return pairs


def checked_flags(folder: Path, split: str | None, stem: str, lines: int) -> list[bool]:
    """Which of a photo's `lines` labels a person set or checked: `CHECKED`/[split/]stem.txt holds one 0 or 1 a
    label line, in order (a kiosk's samples: a die it read sure and nobody looked at is 0). No file: every label
    is checked (a folder labelled by hand); a file that does not match its labels: none is."""
    path = folder / CHECKED / (split or "") / f"{stem}.txt"
    if not path.is_file():
        return [True] * lines
    flags = path.read_text(encoding="utf-8").split()
    if len(flags) != lines or any(f not in ("0", "1") for f in flags):
        return [False] * lines
    return [f == "1" for f in flags]


def read_yolo_labels(path: Path, width: int, height: int) -> list[tuple[int, Box]]:
    """(class, box in pixels) of every line of a YOLO label file (normalised centre x, y, width, height)."""
    if not path.exists():
        return []
    out = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 5:
            raise ValueError(f"{path}:{number}: se esperaban 5 números (clase x y ancho alto)")
        cls = int(float(parts[0]))
        cx, cy, bw, bh = (float(v) for v in parts[1:5])
        box = Box((cx - bw / 2) * width, (cy - bh / 2) * height, (cx + bw / 2) * width, (cy + bh / 2) * height)
        out.append((cls, box))
    return out


def face_of_class(cls: int) -> int | None:
    """The label of a YOLO class: face = class + 1; a cocked die is UNREADABLE; other classes are skipped."""
    if 0 <= cls <= 5:
        return cls + 1
    if cls == COCKED_CLASS:
        return UNREADABLE
    return None


def _patch(frame: Frame, box: Box, context: float, max_side: int) -> tuple[Frame, Box]:
    """A context patch around `box` (mirrored past the frame's edges), shrunk so the die spans <= max_side."""
    side = max(box.width, box.height)
    pad = side * context
    x1, y1 = int(np.floor(box.x1 - pad)), int(np.floor(box.y1 - pad))
    x2, y2 = int(np.ceil(box.x2 + pad)), int(np.ceil(box.y2 + pad))
    height, width = frame.shape[:2]
    left, top = max(0, -x1), max(0, -y1)
    right, bottom = max(0, x2 - width), max(0, y2 - height)
    region = frame[max(0, y1) : min(height, y2), max(0, x1) : min(width, x2)]
    if left or top or right or bottom:
        region = np.asarray(cv2.copyMakeBorder(region, top, bottom, left, right, cv2.BORDER_REFLECT_101), np.uint8)
    inner = Box(box.x1 - x1, box.y1 - y1, box.x2 - x1, box.y2 - y1)
    scale = min(1.0, max_side / side)
    if scale < 1.0:
        size = (max(1, round(region.shape[1] * scale)), max(1, round(region.shape[0] * scale)))
        region = np.asarray(cv2.resize(region, size, interpolation=cv2.INTER_AREA), np.uint8)
        inner = Box(inner.x1 * scale, inner.y1 * scale, inner.x2 * scale, inner.y2 * scale)
    return np.ascontiguousarray(region), inner


def _background_boxes(dice: list[Box], width: int, height: int, count: int, rng: np.random.Generator) -> Iterator[Box]:
    """Up to `count` die-sized boxes that touch no die: what a finder's false alarm would hand the reader."""
    if not dice:
        return
    sides = [max(b.width, b.height) for b in dice]
    for _ in range(count * 20):
        if count <= 0:
            return
        side = float(rng.choice(sides)) * rng.uniform(0.8, 1.3)
        if side >= min(width, height):
            continue
        x1, y1 = rng.uniform(0, width - side), rng.uniform(0, height - side)
        cand = Box(x1, y1, x1 + side, y1 + side)
        grown = Box(cand.x1 - side * 0.2, cand.y1 - side * 0.2, cand.x2 + side * 0.2, cand.y2 + side * 0.2)
        if all(grown.iou(b) == 0.0 for b in dice):
            count -= 1
            yield cand


def load_samples(
    folder: Path,
    split: str | None = None,
    *,
    keep: Callable[[Path], bool] | None = None,
    upright: Callable[[Path], bool] | None = None,
    background_per_image: int = 0,
    not_dice: Callable[[Path], list[Box]] | None = None,
    turn: bool = False,
    seed: int = 0,
    context: float = CONTEXT_MARGIN,
    max_side: int = MAX_DIE_SIDE,
    die_box: Callable[[Box, int], Box] | None = None,
) -> list[DieSample]:
    """Every labelled die of a YOLO folder as a sample (plus `background_per_image` UNREADABLE empty patches,
    and the boxes `not_dice(path)` gives, such as coins and bottle caps, as UNREADABLE too).

    `upright(path)` marks photos taken at a slant with the camera upright: their dice are only turned a
    little in training, since turning them over would put a side face where the top face was. `turn`: note
    every other sample's outward_turn (its photo is taken from above). `die_box(box, face)`: the die's box where a
    set's labels box something else (its pips); the empty patches keep away from those boxes.
    """
    rng = np.random.default_rng(seed)
    samples = []
    for image_path, label_path in yolo_pairs(folder, split):
        if keep is not None and not keep(image_path):
            continue
        frame = load_image(image_path)
        height, width = frame.shape[:2]
        labels = read_yolo_labels(label_path, width, height)
        if die_box is not None:
            labels = [(cls, die_box(box, face_of_class(cls) or UNREADABLE)) for cls, box in labels]
        slanted = upright is not None and upright(image_path)
        checked = checked_flags(folder, split, image_path.stem, len(labels))
        for (cls, box), sure in zip(labels, checked, strict=True):
            face = face_of_class(cls)
            if face is None or box.width < 4 or box.height < 4:
                continue
            patch, inner = _patch(frame, box, context, max_side)
            way = outward_turn(box, width, height) if turn and not slanted else None
            samples.append(DieSample(patch, inner, face, image_path.name, slanted, cls == COCKED_CLASS, way, sure))
        boxes = [box for _, box in labels]
        others = list(_background_boxes(boxes, width, height, background_per_image, rng))
        others += not_dice(image_path) if not_dice is not None else []
        for box in others:
            patch, inner = _patch(frame, box, context, max_side)
            way = outward_turn(box, width, height) if turn and not slanted else None
            samples.append(DieSample(patch, inner, UNREADABLE, image_path.name, slanted, turn=way))
    return samples


def rendered_distractors(image_path: Path, kinds: tuple[str, ...] = ("coin", "cap")) -> list[Box]:
    """The boxes of a rendered table's die-sized distractors, from its meta/ sidecar (none if it has none)."""
    images = next((p for p in image_path.parents if p.name == "images"), image_path.parent)
    sidecar = images.parent / "meta" / (image_path.stem + ".json")
    if not sidecar.is_file():
        return []
    meta = json.loads(sidecar.read_text())
    return [Box(*item["box"]) for item in meta.get("distractors", []) if item.get("kind") in kinds]


def labelled_dice(folder: Path, split: str | None = None) -> Iterator[tuple[Frame, Box, int, str]]:
    """(frame, box, face, image name) of every die with a face label, each photo loaded once."""
    for image_path, label_path in yolo_pairs(folder, split):
        frame = load_image(image_path)
        height, width = frame.shape[:2]
        for cls, box in read_yolo_labels(label_path, width, height):
            face = face_of_class(cls)
            if face is None or face == UNREADABLE or box.width < 4 or box.height < 4:
                continue
            yield frame, box, face, image_path.name


def reader_crop(frame: Frame, box: Box, turned: bool = False) -> Frame:
    """The crop a reader gets: as cut, or turned outward-up (crops.outward_turn) for a classifier trained so."""
    if not turned:
        return crop_die(frame, box)
    return turned_crop(frame, box, outward_turn(box, frame.shape[1], frame.shape[0]))


def eval_crops(folder: Path, split: str | None = None, turned: bool = False) -> Iterator[tuple[Frame, int, str]]:
    """(full-resolution crop, face, image name) of every die with a face label: what the readers see
    (`turned`: turned outward-up, as a classifier trained turned sees a frame taken from above)."""
    for frame, box, face, image in labelled_dice(folder, split):
        yield reader_crop(frame, box, turned), face, image


@dataclass(frozen=True, slots=True)
class Augment:
    """How strongly to vary a training crop (probabilities and ranges)."""

    scale: tuple[float, float] = (0.85, 1.2)  # the box's size, as a finder's imperfect box
    aspect: float = 0.12  # +- share of width vs height
    shift: float = 0.08  # centre shift, share of the die's side
    p_lowres: float = 0.2  # the three blurs exclude one another
    p_blur: float = 0.25
    p_motion: float = 0.15
    p_noise: float = 0.3
    p_jpeg: float = 0.3
    p_invert: float = 0.1
    p_gray: float = 0.1
    upright_turn: float = 20.0  # degrees either way for dice from upright slanted photos
    outward_jitter: float = 15.0  # degrees either way about a die's outward turn, when trained turned


def augment(sample: DieSample, rng: np.random.Generator, how: Augment = Augment(), turned: bool = False) -> Frame:
    """A randomly varied crop of a sample: turned (any angle from above, or about its outward turn when
    `turned`), mirrored, box jitter, colour, blur..."""
    box = sample.box
    cx, cy = box.center
    side = max(box.width, box.height)
    scale = rng.uniform(*how.scale)
    aspect = 1.0 + rng.uniform(-how.aspect, how.aspect)
    bw, bh = box.width * scale * aspect, box.height * scale / aspect
    out_w = max(8, round(bw * (1 + 2 * CROP_MARGIN)))
    out_h = max(8, round(bh * (1 + 2 * CROP_MARGIN)))
    cx += rng.uniform(-how.shift, how.shift) * side
    cy += rng.uniform(-how.shift, how.shift) * side
    if sample.upright:
        angle = rng.uniform(-how.upright_turn, how.upright_turn)
    elif turned and sample.turn is not None:
        angle = sample.turn + rng.uniform(-how.outward_jitter, how.outward_jitter)
    else:
        angle = rng.uniform(0, 360)
    crop = turned_window(sample.patch, (cx, cy), (out_w, out_h), angle)
    if rng.random() < 0.5:  # a mirror image keeps up up
        crop = crop[:, ::-1]
    return jitter_colours(np.ascontiguousarray(crop), rng, how)


def jitter_colours(crop: Frame, rng: np.random.Generator, how: Augment = Augment()) -> Frame:
    """Colour, brightness, contrast, blur, resolution, noise and JPEG variations of a crop."""
    img = crop.astype(np.float32)
    if rng.random() < 0.5:
        img = img[:, :, rng.permutation(3)]
    if rng.random() < how.p_invert:
        img = 255.0 - img
    if rng.random() < how.p_gray:
        img[:] = img.mean(axis=2, keepdims=True)
    # per-channel gain (white balance), contrast about the mean, brightness
    img *= rng.uniform(0.8, 1.2, size=3).astype(np.float32)
    mean = img.mean()
    img = (img - mean) * rng.uniform(0.7, 1.3) + mean + rng.uniform(-35, 35)
    img = np.clip(img, 0, 255)
    if rng.random() < 0.3:
        gamma = rng.uniform(0.6, 1.6)
        img = 255.0 * (img / 255.0) ** gamma
    out = img.astype(np.uint8)
    h, w = out.shape[:2]
    blur = rng.random()
    if blur < how.p_lowres:
        f = rng.uniform(0.3, 0.7)
        small = cv2.resize(out, (max(4, round(w * f)), max(4, round(h * f))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    elif blur < how.p_lowres + how.p_blur:
        sigma = rng.uniform(0.3, 1.3) * max(h, w) / 64
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    elif blur < how.p_lowres + how.p_blur + how.p_motion:
        length = max(3, int(rng.uniform(0.04, 0.12) * max(h, w)))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, (length, length)), np.float32)
        kernel /= max(float(kernel.sum()), 1e-6)
        out = cv2.filter2D(out, -1, kernel)
    if rng.random() < how.p_noise:
        noise = rng.normal(0, rng.uniform(2, 10), size=out.shape)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < how.p_jpeg:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        if ok:
            decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
            if decoded is not None:
                out = decoded
    return np.ascontiguousarray(out)
