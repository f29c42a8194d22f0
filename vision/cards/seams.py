"""Whether two corner indices of one code are one card or two (twins of two decks side by side): a small CNN looks
at the strip of table between them, where the edge of a second card would cross it.

    python -m vision.cards.seams --synth DIR [--synth DIR ...] [--corners DIR --split train] --out models/cards

It learns from every two indices lying within a card's reach of each other: on rendered tables (a folder of
`vision.cards.synth`, whose meta says which card each label is) and on real photos labelled by corner index where
no code is on two cards (a `wholecards --corners-into` folder), so that a real deck's two upper indices, which lie
as near each other as twins in a fan, are taught as one card.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards.notation import CLASS_NAMES
from vision.faces.classifier import softmax
from vision.faces.crops import read_yolo_labels
from vision.onnx_session import export_net, load_net, logits_of
from vision.types import Box, Frame

NAME = "seam.pt"
SIDE_PX = 16  # pixels of the strip a side of the larger index takes
HEIGHT, WIDTH = 32, 128  # the strip: two index sides across, eight along (two corners lie at most six apart)
REACH = 6.0  # corners of one card lie within this many index sides of each other (the reader's PAIR_REACH)
WIDTHS = (16, 32, 64, 96)
ALONG = WIDTH // 16  # places along the strip the last layer keeps apart
HOLDOUT = 0.15  # of the photos, chosen by a hash of their name, to fit the temperature and report on


def strip(frame: Frame, a: Box, b: Box) -> Frame:
    """The strip of the frame from one corner's centre to the other's (their midpoint in the middle), turned to lie
    along it, scaled so that the larger index's side is SIDE_PX; black where the frame ends."""
    side = max(a.width, a.height, b.width, b.height, 1.0)
    (ax, ay), (bx, by) = a.center, b.center
    scale = SIDE_PX / side
    mx, my = (ax + bx) / 2, (ay + by) / 2
    reach = math.hypot(WIDTH, HEIGHT) / 2 / scale + 2  # frame pixels from the midpoint to the strip's far corner
    h, w = frame.shape[:2]
    x1, y1 = max(0, math.floor(mx - reach)), max(0, math.floor(my - reach))
    x2, y2 = min(w, math.ceil(mx + reach)), min(h, math.ceil(my + reach))
    if x2 - x1 < 2 or y2 - y1 < 2:
        return np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    region = frame[y1:y2, x1:x2]
    size = (max(1, round((x2 - x1) * scale)), max(1, round((y2 - y1) * scale)))
    region = np.asarray(
        cv2.resize(region, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR), np.uint8
    )
    sx, sy = size[0] / (x2 - x1), size[1] / (y2 - y1)
    cx, cy = (mx - x1) * sx, (my - y1) * sy
    angle = math.atan2((by - ay) * sy, (bx - ax) * sx)
    cos, sin = math.cos(angle), math.sin(angle)
    matrix = np.array([[cos, sin, WIDTH / 2 - cos * cx - sin * cy], [-sin, cos, HEIGHT / 2 + sin * cx - cos * cy]])
    out = cv2.warpAffine(region, matrix, (WIDTH, HEIGHT), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    return np.asarray(out, np.uint8)


def near(a: Box, b: Box, reach: float = REACH) -> bool:
    """Whether two corner indices lie within `reach` sides of the larger of each other."""
    side = max(a.width, a.height, b.width, b.height)
    (ax, ay), (bx, by) = a.center, b.center
    return math.hypot(ax - bx, ay - by) <= reach * side


def preprocess(strips: Sequence[Frame]) -> npt.NDArray[np.float32]:
    """Strips -> N x 3 x HEIGHT x WIDTH float32, RGB, each standardised (zero mean, unit spread)."""
    out = np.empty((len(strips), 3, HEIGHT, WIDTH), np.float32)
    for i, image in enumerate(strips):
        img = np.asarray(image[:, :, ::-1], np.float32)
        img -= img.mean()
        img /= max(float(img.std()), 8.0)
        out[i] = img.transpose(2, 0, 1)
    return out


def build_model() -> Any:
    """Four 3x3 conv layers with batch norm, pooled across the strip but not along it (where the edge crosses
    matters: between the corners, or beyond one), two logits: one card, two cards."""
    from torch import nn

    w1, w2, w3, w4 = WIDTHS

    def conv(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *conv(3, w1),
        nn.MaxPool2d(2),  # 16 x 64
        *conv(w1, w2),
        nn.MaxPool2d(2),  # 8 x 32
        *conv(w2, w3),
        nn.MaxPool2d(2),  # 4 x 16
        *conv(w3, w4),
        nn.MaxPool2d(2),  # 2 x 8
        nn.AdaptiveAvgPool2d((1, ALONG)),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(w4 * ALONG, 2),
    )


class SeamClassifier:
    """How likely two corner indices are of two different cards (the exported ONNX, or the torch weights)."""

    def __init__(self, weights: Path) -> None:
        if not weights.exists():
            raise FileNotFoundError(f"no están los pesos del separador de cartas gemelas: {weights}")
        self.weights = weights
        self.net, self.model, saved = load_net(weights, lambda _: build_model())
        self.temperature = float(saved.get("temperature", 1.0))

    def apart(self, frame: Frame, pairs: Sequence[tuple[Box, Box]]) -> list[float]:
        """The probability that each two corners are of two cards."""
        if not pairs:
            return []
        return [float(p) for p in self.probabilities([strip(frame, a, b) for a, b in pairs])]

    def probabilities(self, strips: Sequence[Frame]) -> npt.NDArray[np.float32]:
        """Each strip's probability of two cards (calibrated)."""
        logits = logits_of(self.net, self.model, preprocess(strips))
        return np.asarray(softmax(logits / self.temperature)[:, 1], np.float32)

    def export(self, path: Path) -> Path:
        """The torch weights as ONNX at `path`, with the temperature."""
        return export_net(self.model, path, (HEIGHT, WIDTH), {"temperature": self.temperature}, self.weights)


# --- learning -----------------------------------------------------------------------------------------------------

Photo = tuple[str, Path, list[tuple[Box, str, str]]]  # name, image, (box, card id, code) of each labelled index


def rendered_photos(folder: Path) -> list[Photo]:
    """The labelled indices of a `vision.cards.synth` folder, each with the card (by its place in the meta) it is on."""
    photos = []
    for meta_path in sorted((folder / "meta").rglob("*.json")):
        rel = meta_path.relative_to(folder / "meta").with_suffix("")
        image, label = folder / "images" / rel.with_suffix(".jpg"), folder / "labels" / rel.with_suffix(".txt")
        if not image.is_file() or not label.is_file():
            continue
        meta = json.loads(meta_path.read_text())
        width, height = meta["size"]
        owner = {line: n for n, card in enumerate(meta["cards"]) for line in card["indices"]}
        boxes = read_yolo_labels(label, width, height)
        indices = [(box, str(owner[i]), CLASS_NAMES[cls]) for i, (cls, box) in enumerate(boxes) if i in owner]
        photos.append((f"{folder.name}/{rel}", image, indices))
    return photos


def corner_photos(folder: Path, split: str) -> list[Photo]:
    """The labelled indices of a YOLO folder of corner indices whose photos hold no code twice (one deck): the
    code is the card."""
    photos = []
    for label in sorted((folder / "labels" / split).glob("*.txt")):
        images = sorted((folder / "images" / split).glob(label.stem + ".*"))
        read = cv2.imread(str(images[0])) if images else None
        if read is None:
            continue
        height, width = read.shape[:2]
        boxes = [(cls, box) for cls, box in read_yolo_labels(label, width, height) if cls < len(CLASS_NAMES)]
        indices = [(box, CLASS_NAMES[cls], CLASS_NAMES[cls]) for cls, box in boxes]
        photos.append((f"{folder.name}/{label.stem}", images[0], indices))
    return photos


def held_out(name: str) -> bool:
    """Whether a photo is held out (a hash of its name)."""
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < HOLDOUT


def _jitter(box: Box, rng: np.random.Generator) -> Box:
    side = max(box.width, box.height)
    cx, cy = np.array(box.center) + rng.normal(0, 0.06 * side, 2)
    w, h = box.width * rng.uniform(0.9, 1.1), box.height * rng.uniform(0.9, 1.1)
    return Box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def pairs_of(
    photos: list[Photo], copies: int, rng: np.random.Generator, alike_copies: int | None = None
) -> tuple[list[Frame], list[int], list[bool]]:
    """Strips of every two indices within reach (`copies` of each, `alike_copies` of two of one code, the boxes
    jittered as a finder's are), whether they are of two cards, and whether the two are of one code (the case the
    reader asks about)."""
    strips, apart, alike = [], [], []
    for _, image, indices in photos:
        read = cv2.imread(str(image))
        if read is None:
            continue
        frame = np.asarray(read, np.uint8)
        for i, (a, card_a, code_a) in enumerate(indices):
            for b, card_b, code_b in indices[i + 1 :]:
                if not near(a, b):
                    continue
                for _ in range((alike_copies or copies) if code_a == code_b else copies):
                    strips.append(strip(frame, _jitter(a, rng), _jitter(b, rng)))
                    apart.append(int(card_a != card_b))
                    alike.append(code_a == code_b)
    return strips, apart, alike


def _augment(image: Frame, rng: np.random.Generator) -> Frame:
    turned = image[:, ::-1] if rng.random() < 0.5 else image
    turned = turned[::-1] if rng.random() < 0.5 else turned
    out = np.asarray(turned, np.float32) * np.float32(rng.uniform(0.6, 1.3)) + np.float32(rng.uniform(-30, 30))
    out *= rng.uniform(0.85, 1.15, 3).astype(np.float32)
    if rng.random() < 0.3:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.5, 1.2))), np.float32)
    out += rng.normal(0, rng.uniform(0, 6), out.shape).astype(np.float32)
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def _batches(
    strips: list[Frame], labels: npt.NDArray[np.intp], batch: int, rng: np.random.Generator
) -> Iterator[tuple[npt.NDArray[np.float32], npt.NDArray[np.intp]]]:
    order = rng.permutation(len(strips))
    for start in range(0, len(order) - batch + 1, batch):
        chosen = order[start : start + batch]
        yield preprocess([_augment(strips[i], rng) for i in chosen]), labels[chosen]


def _logits(model: Any, strips: list[Frame]) -> npt.NDArray[np.float32]:
    import torch

    model.eval()
    with torch.inference_mode():
        out = [model(torch.from_numpy(preprocess(strips[i : i + 256]))).numpy() for i in range(0, len(strips), 256)]
    model.train()
    return np.concatenate(out) if out else np.zeros((0, 2), np.float32)


def report(probs: npt.NDArray[np.float32], apart: npt.NDArray[np.intp], alike: npt.NDArray[np.bool_]) -> dict[str, Any]:
    """Of the pairs of one code: how many of one card and of two, and how many of each a level would part."""
    one, two = alike & (apart == 0), alike & (apart == 1)
    out: dict[str, Any] = {"one_card": int(one.sum()), "two_cards": int(two.sum())}
    for level in (0.5, 0.8, 0.9, 0.95, 0.99):
        parted = probs >= level
        out[f"{level}"] = {
            "one_card_parted": int((one & parted).sum()),
            "two_cards_parted": int((two & parted).sum()),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Learn from the folders, report on the held-out photos, save `seam.pt`."""
    import torch

    from vision.cards.index_classifier import train_for
    from vision.faces.classifier import fit_temperature

    parser = argparse.ArgumentParser(prog="python -m vision.cards.seams", description=__doc__.splitlines()[0])
    parser.add_argument("--synth", type=Path, action="append", default=[], help="carpeta de vision.cards.synth")
    parser.add_argument(
        "--corners",
        type=Path,
        action="append",
        default=[],
        help="carpeta YOLO de índices de un solo mazo (cada código, una carta)",
    )
    parser.add_argument("--split", default="train", help="parte de las carpetas --corners (train)")
    parser.add_argument("--out", type=Path, required=True, help="carpeta donde se escribe seam.pt")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--copies", type=int, default=2, help="recortes de cada par, las cajas movidas un poco (2)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    missing = [str(p) for p in [*args.synth, *args.corners] if not p.is_dir()]
    if missing:
        raise SystemExit(f"no existe la carpeta {', '.join(missing)}")
    unlabelled = [str(p) for p in args.corners if not (p / "labels" / args.split).is_dir()]
    if unlabelled:
        raise SystemExit(f"falta labels/{args.split} en {', '.join(unlabelled)}")
    if args.minutes <= 0 or args.copies < 1 or args.batch < 1:
        raise SystemExit("--minutes debe ser mayor que 0, y --copies y --batch al menos 1")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    photos = [p for f in args.synth for p in rendered_photos(f)]
    photos += [p for f in args.corners for p in corner_photos(f, args.split)]
    train = [p for p in photos if not held_out(p[0])]
    val = [p for p in photos if held_out(p[0])]
    x_train, y_train, _ = pairs_of(train, args.copies, rng, 3 * args.copies)  # the pairs the reader asks about
    x_val, y_val, alike_val = pairs_of(val, 1, rng)
    if not x_train:
        raise SystemExit("no hay dos índices cerca uno del otro en las carpetas dadas")
    labels = np.asarray(y_train, np.intp)
    print(
        f"{len(x_train)} pares para aprender ({int(labels.sum())} de dos cartas), {len(x_val)} para validar", flush=True
    )
    model = build_model()
    weight = torch.tensor([0.5 / max(1e-9, 1 - labels.mean()), 0.5 / max(1e-9, labels.mean())], dtype=torch.float32)
    loss_of = torch.nn.CrossEntropyLoss(weight=weight)

    def report_epoch(entry: dict[str, Any]) -> None:
        print(json.dumps({"epoch": entry["epoch"], "loss": round(entry["loss"], 4)}), flush=True)

    history = train_for(
        model, lambda: _batches(x_train, labels, args.batch, rng), 60 * args.minutes, args.lr, loss_of, report_epoch
    )
    y_v = np.asarray(y_val, np.intp)
    logits = _logits(model, x_val)
    temperature = fit_temperature(logits, y_v) if len(y_v) else 1.0
    probs = softmax(logits / temperature)[:, 1] if len(y_v) else np.zeros(0, np.float32)
    summary = {
        "accuracy": float(((probs >= 0.5) == (y_v == 1)).mean()) if len(y_v) else float("nan"),
        "temperature": temperature,
        "epochs": len(history),
        "held_out": report(probs, y_v, np.asarray(alike_val, bool)),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    state = {k: v.half() if v.is_floating_point() else v for k, v in model.state_dict().items()}
    torch.save({"state": state, "temperature": temperature}, args.out / NAME)
    (args.out / "seam.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
