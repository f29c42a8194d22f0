"""The second reading of a card: a classifier of one corner index crop (rank and suit), 52 classes.

    python -m vision.cards.index_classifier --data data/cards/index --out models/cards --minutes 20

YOLOv5n's backbone from the COCO-pretrained weights, global pooling and a linear head (as the dice faces' classifier),
trained on the index boxes of the training folder, turned at every angle (a card lies any way round on the table).
`--arch cnn --name index_cls2.pt` trains instead a small CNN from scratch (a second, differently made reading);
`--suits --name suit_cls.pt --gray 1 --small 8,64` one that names only the suit (4 classes), taught on indices seen
as small as a webcam sees them (the reader's suit check); `--ranks --name rank_cls.pt` the rank alone (13 classes).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards.notation import CLASS_NAMES, RANKS, SUITS
from vision.faces.classifier import (
    BACKBONE_ARCH,
    PRETRAINED,
    build_model,
    load_pretrained_backbone,
    preprocess,
    softmax,
)
from vision.onnx_session import export_net, load_net, logits_of
from vision.types import Box, Frame

SIZE = 48  # the crop's side: an index is 40-60 px tall at the camera's scale
MARGIN = 0.15  # of the box's longer side, on every side
WEIGHTS_NAME = "index_cls.pt"
SECOND_NAME = "index_cls2.pt"  # a second classifier, made differently, where the models folder has one
FACE_NAME = "face_cls.pt"  # a classifier of a card's whole face (its pips or picture), where the folder has one
SUIT_NAME = "suit_cls.pt"  # a classifier of the suit alone, taught on small indices, where the folder has one
RANK_NAME = "rank_cls.pt"  # a classifier of the rank alone, taught so too, where the folder has one
CLASSIFIERS = (WEIGHTS_NAME, SECOND_NAME, FACE_NAME, SUIT_NAME, RANK_NAME)  # every classifier a models folder may hold
CNN_WIDTHS = (24, 48, 96, 128)  # small enough to ship beside the first (0.7 MB)
TURNS = (1, 2, 4)  # the views a crop may be read in: as it is, and turned by halves or quarters
PACK_QUALITY = 90  # JPEG quality of packed crops: the 8,669 training crops of 2026-11-29 in 23 MiB


def crop(frame: Frame, box: Box, margin: float = MARGIN) -> Frame:
    """A square crop round the box (its longer side plus a margin), padded with the edge where the frame ends."""
    side = max(box.width, box.height) * (1 + 2 * margin)
    cx, cy = box.center
    x1, y1 = round(cx - side / 2), round(cy - side / 2)
    x2, y2 = x1 + max(2, round(side)), y1 + max(2, round(side))
    h, w = frame.shape[:2]
    pad = max(0, -x1, -y1, x2 - w, y2 - h)
    if pad:
        frame = np.asarray(cv2.copyMakeBorder(frame, pad, pad, pad, pad, cv2.BORDER_REPLICATE), np.uint8)
        x1, y1, x2, y2 = x1 + pad, y1 + pad, x2 + pad, y2 + pad
    return np.ascontiguousarray(frame[y1:y2, x1:x2])


def crops_of(folder: Path, split: str, size: int = SIZE) -> tuple[list[Frame], list[int]]:
    """Every card index box of a YOLO folder's split (classes 0-51), cropped from its image (kept at twice the
    classifier's side `size`, for the augmentations), and its class."""
    found = photo_crops(folder, split, size)
    return [c for _, c, _ in found], [label for _, _, label in found]


def photo_crops(folder: Path, split: str, size: int = SIZE) -> list[tuple[str, Frame, int]]:
    """`crops_of`, each crop with the stem of the photo it was cut from."""
    out = []
    for label in sorted((folder / "labels" / split).glob("*.txt")):
        rows = [r.split() for r in label.read_text().splitlines() if r.strip()]
        rows = [r for r in rows if int(r[0]) < len(CLASS_NAMES)]
        if not rows:
            continue
        images = list((folder / "images" / split).glob(label.stem + ".*"))
        read = cv2.imread(str(images[0])) if images else None
        if read is None:
            continue
        frame = np.asarray(read, np.uint8)
        h, w = frame.shape[:2]
        for r in rows:
            cx, cy, bw, bh = (float(v) for v in r[1:5])
            box = Box((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
            if min(box.width, box.height) >= 6:
                small = cv2.resize(crop(frame, box), (size * 2, size * 2), interpolation=cv2.INTER_AREA)
                out.append((label.stem, np.asarray(small, np.uint8), int(r[0])))
    return out


def pack_crops(folder: Path, out: Path, size: int = SIZE, quality: int = PACK_QUALITY) -> dict[str, int]:
    """The train and val crops of a YOLO folder (as `crops_of` keeps them) as JPEGs in one .npz, for a machine that
    does not have the folder; the number of each split's crops."""
    arrays: dict[str, Any] = {"size": np.int32(size)}
    counts = {}
    for split in ("train", "val"):
        crops, labels = crops_of(folder, split, size)
        encoded = [cv2.imencode(".jpg", c, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes() for c in crops]
        arrays[f"{split}_jpeg"] = np.frombuffer(b"".join(encoded), np.uint8)
        arrays[f"{split}_ends"] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        arrays[f"{split}_labels"] = np.asarray(labels, np.int16)
        counts[split] = len(crops)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as handle:
        np.savez(handle, **arrays)
    return counts


def packed_crops(path: Path, split: str) -> tuple[list[Frame], list[int]]:
    """A split's crops and classes from a `pack_crops` file."""
    with np.load(path, allow_pickle=False) as packed:
        data, ends, labels = packed[f"{split}_jpeg"], packed[f"{split}_ends"], packed[f"{split}_labels"]
    starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
    crops = [np.asarray(cv2.imdecode(data[a:b], cv2.IMREAD_COLOR), np.uint8) for a, b in zip(starts, ends, strict=True)]
    return crops, [int(v) for v in labels]


def augment(image: Frame, rng: np.random.Generator) -> Frame:
    """Turned any way, a little shifted and scaled, light and colour changed, sometimes blurred."""
    size = image.shape[0]
    angle = float(rng.uniform(0, 360))
    scale = float(rng.uniform(0.85, 1.15))
    matrix = np.asarray(cv2.getRotationMatrix2D((size / 2, size / 2), angle, scale), np.float64)
    matrix[:, 2] += rng.normal(0, size * 0.04, 2)
    out = cv2.warpAffine(image, matrix, (size, size), borderMode=cv2.BORDER_REFLECT)
    out = np.asarray(out, np.float32) * np.float32(rng.uniform(0.6, 1.3)) + np.float32(rng.uniform(-30, 30))
    out *= rng.uniform(0.85, 1.15, 3)
    if rng.random() < 0.3:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.5, 1.5))), np.float32)
    out += rng.normal(0, rng.uniform(0, 8), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


class IndexClassifier:
    """Names the card of an index crop, with its probability: the exported ONNX (the reading runtime) or the torch
    weights (to learn, and where no ONNX is written beside them)."""

    def __init__(self, weights: Path) -> None:
        if not weights.exists():
            raise FileNotFoundError(f"no están los pesos del clasificador de índices: {weights}")
        self.weights = weights

        def build(saved: dict[str, Any]) -> Any:
            widths = tuple(saved.get("widths", CNN_WIDTHS))
            return build_model(widths, len(saved.get("classes", CLASS_NAMES)), str(saved.get("arch", BACKBONE_ARCH)))

        self.net, self.model, saved = load_net(weights, build)
        self.classes = tuple(
            str(c) for c in saved.get("classes", CLASS_NAMES)
        )  # the 52 codes, the 4 suits or the 13 ranks
        self.arch = str(saved.get("arch", BACKBONE_ARCH))
        self.temperature = float(saved.get("temperature", 1.0))
        self.size = int(saved.get("size", SIZE))

    def logits(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The raw outputs of a preprocessed batch."""
        return logits_of(self.net, self.model, batch)

    def probabilities(self, crops: Sequence[Frame], turns: int = 1) -> npt.NDArray[np.float32]:
        """Each crop's probability of every class (N x 52 cards, 4 suits or 13 ranks; calibrated); with `turns`
        2 or 4, of the logits averaged over the crop turned by a half or a quarter turn each time."""
        if turns not in TURNS:
            raise ValueError(f"turns debe ser 1, 2 o 4, no {turns}")
        if not crops:
            return np.zeros((0, len(self.classes)), np.float32)
        # a card lies any way round and the classifier was taught every angle: a right-angle turn loses no pixel
        views = [np.ascontiguousarray(np.rot90(c, k)) for k in range(0, 4, 4 // turns) for c in crops]
        logits = self.logits(preprocess(views, self.size))
        return softmax(logits.reshape(turns, len(crops), -1).mean(axis=0) / self.temperature)

    def export(self, path: Path) -> Path:
        """The torch weights as ONNX at `path`, with the temperature, the crop's side and the architecture."""
        meta = {"temperature": self.temperature, "size": self.size, "arch": self.arch, "classes": list(self.classes)}
        return export_net(self.model, path, (self.size, self.size), meta, self.weights)


def occlude(image: Frame, rng: np.random.Generator) -> tuple[Frame, float]:
    """The crop partly covered (a chip's disc or a card's straight edge, of a flat colour), and the share covered."""
    size = image.shape[0]
    mask = np.zeros((size, size), np.uint8)
    if rng.random() < 0.5:
        centre = (int(rng.integers(0, size)), int(rng.integers(0, size)))
        cv2.circle(mask, centre, int(rng.uniform(0.25, 0.6) * size), 1, -1)
    else:
        angle = float(rng.uniform(0, 2 * np.pi))
        normal = np.array([np.cos(angle), np.sin(angle)])
        ys, xs = np.mgrid[0:size, 0:size]
        offset = float(rng.uniform(-0.25, 0.25) * size)
        mask = (((xs - size / 2) * normal[0] + (ys - size / 2) * normal[1]) > offset).astype(np.uint8)
    out = image.copy()
    out[mask > 0] = rng.integers(0, 256, 3).astype(np.uint8)
    return out, float(mask.mean())


def reduced(image: Frame, rng: np.random.Generator, sides: tuple[float, float]) -> Frame:
    """The crop as a camera sees an index `sides` px tall (drawn between the two, evenly in log): reduced to that
    scale and brought back to its side, so that a suit glyph of a few pixels is learned as the blur it is."""
    size = image.shape[0]
    index = float(np.exp(rng.uniform(np.log(sides[0]), np.log(sides[1]))))
    small = max(4, round(index * (1 + 2 * MARGIN)))  # the crop holds the index and its margins
    if small >= size:
        return image
    shrunk = cv2.resize(image, (small, small), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.resize(shrunk, (size, size), interpolation=cv2.INTER_LINEAR), np.uint8)


def grayed(image: Frame) -> Frame:
    """The crop in shades of grey, still three channels."""
    return np.ascontiguousarray(np.repeat(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)[..., None], 3, axis=2))


def inverted(image: Frame) -> Frame:
    """The crop with its lightness turned over and its colours kept: a pale index on a dark card (Lab's L inverted)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return np.asarray(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), np.uint8)


def _batches(
    crops: list[Frame],
    labels: npt.NDArray[np.intp],
    batch: int,
    rng: np.random.Generator,
    covered: float = 0.0,
    size: int = SIZE,
    gray: float = 0.0,
    invert: float = 0.0,
    small: tuple[float, float] | None = None,
    classes: int = len(CLASS_NAMES),
) -> Any:
    """Augmented batches; a `covered` share of the crops partly covered, their target spread over every card by
    the share covered (soft targets), so that a partly covered index is read less sure; a `gray` share in shades of
    grey, so that a suit is told by its shape where no colour tells it; an `invert` share with its lightness turned
    over, as a dark deck prints its indices; with `small`, each seen as an index of that many pixels (`reduced`)."""
    order = rng.permutation(len(crops))
    for start in range(0, len(order) - batch + 1, batch):
        yield _augmented(crops, labels, order[start : start + batch], rng, covered, size, gray, invert, small, classes)


def _augmented(
    crops: list[Frame],
    labels: npt.NDArray[np.intp],
    chosen: Sequence[int] | npt.NDArray[np.intp],
    rng: np.random.Generator,
    covered: float,
    size: int,
    gray: float,
    invert: float,
    small: tuple[float, float] | None = None,
    classes: int = len(CLASS_NAMES),
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """One batch of the `chosen` crops, augmented as `_batches` says, and its soft targets over `classes`."""
    images, targets = [], np.zeros((len(chosen), classes), np.float32)
    for row, i in enumerate(chosen):
        image, hidden = augment(crops[i], rng), 0.0
        if small is not None:
            image = reduced(image, rng, small)
        if covered and rng.random() < covered:  # none covered: the same augmentations as before --covered
            image, hidden = occlude(image, rng)
        if gray and rng.random() < gray:  # none grey: the same random draws as before --gray
            image = grayed(image)
        if invert and rng.random() < invert:  # none inverted: the same random draws as before --invert
            image = inverted(image)
        images.append(image)
        doubt = min(1.0, 1.5 * hidden)  # half the index hidden: hardly any of the card left to read
        targets[row] = doubt / classes
        targets[row, labels[i]] += 1.0 - doubt
    return preprocess(images, size), targets


# what a forked augmenting process reads: the crops, their labels and the options (set before the pool is made)
_SHARED: dict[str, Any] = {}


def _pooled_batch(task: tuple[list[int], int]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """One batch made in an augmenting process, from its own seed."""
    chosen, seed = task
    o = _SHARED["options"]
    small, classes = _part_options(o)
    rng = np.random.default_rng(seed)
    return _augmented(
        _SHARED["crops"], _SHARED["labels"], chosen, rng, o.covered, o.size, o.gray, o.invert, small, classes
    )


def _part_options(options: Any) -> tuple[tuple[float, float] | None, int]:
    """The `small` sides and the number of classes of a trainer's options (callers that name neither: None, 52)."""
    return getattr(options, "small", None), getattr(options, "classes", len(CLASS_NAMES))


def _pooled_batches(pool: Any, count: int, batch: int, rng: np.random.Generator) -> Any:
    """An epoch's batches made by the pool's processes, each from its own seed, in order."""
    order = rng.permutation(count)
    steps = count // batch
    seeds = rng.integers(0, 2**63 - 1, steps)
    tasks = [(order[k * batch : (k + 1) * batch].tolist(), int(seeds[k])) for k in range(steps)]
    yield from pool.imap(_pooled_batch, tasks)


def evaluate(
    model: Any, crops: list[Frame], labels: npt.NDArray[np.intp], size: int = SIZE, device: str = "cpu"
) -> tuple[float, npt.NDArray[np.float32]]:
    """Top-1 accuracy on upright crops, and the logits (the model on `device`)."""
    import torch

    model.eval()
    with torch.inference_mode():
        logits = np.concatenate(
            [
                model(torch.from_numpy(preprocess(crops[i : i + 256], size)).to(device)).cpu().numpy()
                for i in range(0, len(crops), 256)
            ]
        )
    model.train()
    return float((logits.argmax(1) == labels).mean()), logits


def fit(
    model: Any,
    crops: list[Frame],
    labels: npt.NDArray[np.intp],
    seconds: float,
    lr: float,
    rng: np.random.Generator,
    options: Any,
    report: Callable[[dict[str, Any]], None] = lambda entry: None,
) -> list[dict[str, Any]]:
    """Train `model` on the crops for `seconds`, the learning rate on a cosine from `lr` to zero at the end;
    `options` gives batch, covered, size, gray, invert, device (where the model learns) and workers (processes
    making the augmented batches, 0: this one). Each epoch's entry (epoch, loss) is reported, and all are returned."""
    import multiprocessing

    import torch

    loss = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    small, classes = _part_options(options)
    if not options.workers:
        return train_for(
            model,
            lambda: _batches(
                crops,
                labels,
                options.batch,
                rng,
                options.covered,
                options.size,
                options.gray,
                options.invert,
                small,
                classes,
            ),
            seconds,
            lr,
            loss,
            report,
            options.device,
        )
    _SHARED.update(crops=crops, labels=labels, options=options)
    with multiprocessing.get_context("fork").Pool(options.workers) as pool:
        return train_for(
            model,
            lambda: _pooled_batches(pool, len(crops), options.batch, rng),
            seconds,
            lr,
            loss,
            report,
            options.device,
        )


def train_for(
    model: Any,
    epoch: Callable[[], Iterable[tuple[npt.NDArray[np.float32], npt.NDArray[Any]]]],
    seconds: float,
    lr: float,
    loss_of: Any,
    report: Callable[[dict[str, Any]], None] = lambda entry: None,
    device: str = "cpu",
) -> list[dict[str, Any]]:
    """Train `model` on `epoch()`'s batches, epoch after epoch, for `seconds`, AdamW with the learning rate on a
    cosine from `lr` to zero at the end, on `device` (the model is left there). Each epoch's entry (epoch, loss) is
    reported, and all are returned."""
    import torch

    model.to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    start = time.monotonic()
    deadline = start + seconds
    count, history = 0, []
    model.train()
    while time.monotonic() < deadline:
        loss = None
        for x, y in epoch():
            share = min(1.0, (time.monotonic() - start) / (deadline - start))
            for group in optimiser.param_groups:
                group["lr"] = lr * 0.5 * (1 + np.cos(np.pi * share))  # cosine to zero at the deadline
            optimiser.zero_grad()
            loss = loss_of(model(torch.from_numpy(x).to(device)), torch.from_numpy(y).to(device))
            loss.backward()
            optimiser.step()
            if time.monotonic() >= deadline:
                break
        if loss is None:  # fewer examples than one batch
            break
        count += 1
        history.append({"epoch": count, "loss": float(loss.detach())})
        report(history[-1])
    model.eval()
    return history


def save(
    model: Any, path: Path, temperature: float, size: int, arch: str, classes: Sequence[str] = CLASS_NAMES
) -> None:
    """The weights in half precision, with the temperature, the crop's side, the architecture and the classes."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.half() if v.is_floating_point() else v for k, v in model.state_dict().items()}
    saved = {
        "state": state,
        "temperature": temperature,
        "size": size,
        "arch": arch,
        "widths": list(CNN_WIDTHS),
        "classes": list(classes),
    }
    torch.save(saved, path)


def _sides(text: str) -> tuple[float, float]:
    """MIN,MAX pixels of an index (argparse type); a Spanish error otherwise."""
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"se esperaba MIN,MAX en píxeles (8,40), no «{text}»") from None
    if not 4 <= low <= high:
        raise argparse.ArgumentTypeError(f"MIN,MAX: MIN al menos 4 y no mayor que MAX, no «{text}»")
    return low, high


def main(argv: list[str] | None = None) -> int:
    """Train, report the accuracy on the folder's real validation crops, save."""
    import torch

    from vision.faces.classifier import fit_temperature

    description = __doc__.splitlines()[0]
    parser = argparse.ArgumentParser(prog="python -m vision.cards.index_classifier", description=description)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", type=Path, help="carpeta de vision.cards.dataset (train y val)")
    source.add_argument("--crops", type=Path, help="recortes empaquetados (vision.gpu pack --cards)")
    parser.add_argument("--out", type=Path, required=True, help="carpeta donde se escribe index_cls.pt")
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--pretrained", type=Path, default=PRETRAINED)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--arch", choices=(BACKBONE_ARCH, "cnn"), default=BACKBONE_ARCH)
    parser.add_argument("--name", default=WEIGHTS_NAME, help="nombre del archivo de pesos")
    parser.add_argument("--init", type=Path, help="seguir desde estos pesos (un clasificador de índices ya hecho)")
    parser.add_argument("--covered", type=float, default=0.0, help="parte de los índices tapados en parte (0)")
    parser.add_argument("--size", type=int, default=SIZE, help=f"lado del recorte que lee, en píxeles ({SIZE})")
    parser.add_argument("--gray", type=float, default=0.0, help="parte de los índices vistos en gris (0)")
    parser.add_argument("--invert", type=float, default=0.0, help="parte de los índices con la luz invertida (0)")
    parser.add_argument("--device", default="cpu", help="donde se entrena: cpu, o cuda en una GPU")
    parser.add_argument("--workers", type=int, default=0, help="procesos que preparan los lotes (0: este)")
    part = parser.add_mutually_exclusive_group()
    part.add_argument("--suits", action="store_true", help="nombrar solo el palo (4 clases), no la carta")
    part.add_argument("--ranks", action="store_true", help="nombrar solo el rango (13 clases), no la carta")
    parser.add_argument(
        "--small", type=_sides, help="cada índice visto como si midiera entre MIN y MAX píxeles (MIN,MAX)"
    )
    args = parser.parse_args(argv)
    if args.workers < 0:
        raise SystemExit(f"--workers no puede ser negativo: {args.workers}")
    if args.device != "cpu" and not (args.device.startswith("cuda") and torch.cuda.is_available()):
        raise SystemExit(f"--device {args.device}: esta máquina no tiene esa GPU (use cpu)")
    if args.crops is not None and not args.crops.is_file():
        raise SystemExit(f"no existe el archivo de recortes {args.crops}")
    if not 0 <= args.covered <= 1:
        raise SystemExit(f"--covered debe estar entre 0 y 1, no {args.covered}")
    if not 0 <= args.gray <= 1:
        raise SystemExit(f"--gray debe estar entre 0 y 1, no {args.gray}")
    if not 0 <= args.invert <= 1:
        raise SystemExit(f"--invert debe estar entre 0 y 1, no {args.invert}")
    if not 24 <= args.size <= 160:
        raise SystemExit(f"--size debe estar entre 24 y 160 píxeles, no {args.size}")
    if args.init is not None and not args.init.is_file():
        raise SystemExit(f"no existe el clasificador de partida {args.init}")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    if args.crops is not None:
        try:
            train_crops, train_labels = packed_crops(args.crops, "train")
            val_crops, val_labels = packed_crops(args.crops, "val")
        except (OSError, ValueError, KeyError) as error:
            raise SystemExit(f"{args.crops} no es un archivo de recortes de vision.gpu pack --cards: {error}") from None
    else:
        train_crops, train_labels = crops_of(args.data, "train", args.size)
        val_crops, val_labels = crops_of(args.data, "val", args.size)
    if not train_crops:
        raise SystemExit(f"no hay índices de cartas para aprender en {args.crops or args.data}")
    y_train, y_val = np.asarray(train_labels), np.asarray(val_labels)
    classes = SUITS if args.suits else RANKS if args.ranks else CLASS_NAMES
    # the codes run suit by suit, a rank each (vision.cards.notation)
    if args.suits:
        y_train, y_val = y_train // len(RANKS), y_val // len(RANKS)
    elif args.ranks:
        y_train, y_val = y_train % len(RANKS), y_val % len(RANKS)
    args.classes = len(classes)
    print(f"{len(train_crops)} índices para aprender, {len(val_crops)} para validar", flush=True)
    model = build_model(CNN_WIDTHS, len(classes), args.arch)
    if args.init is not None:
        saved = torch.load(args.init, map_location="cpu", weights_only=True)
        if str(saved.get("arch", BACKBONE_ARCH)) != args.arch:
            raise SystemExit(f"{args.init} es de la arquitectura {saved.get('arch')}, no {args.arch}")
        model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
        print(f"partida: {args.init}", flush=True)
    elif args.arch != BACKBONE_ARCH:
        print("red pequeña desde cero", flush=True)
    elif args.pretrained.is_file():
        print(f"partida: {load_pretrained_backbone(model, args.pretrained)} tensores de {args.pretrained}", flush=True)
    else:
        print(f"sin pesos preentrenados ({args.pretrained}): se empieza al azar", flush=True)

    def report(entry: dict[str, Any]) -> None:
        entry["val_accuracy"] = evaluate(model, val_crops, y_val, args.size, args.device)[0] if val_crops else math.nan
        print(json.dumps(entry), flush=True)

    history = fit(model, train_crops, y_train, 60 * args.minutes, args.lr, rng, args, report)
    model.to("cpu")
    accuracy, logits = evaluate(model, val_crops, y_val, args.size) if val_crops else (math.nan, None)
    temperature = fit_temperature(logits, y_val) if logits is not None else 1.0
    save(model, args.out / args.name, temperature, args.size, args.arch, classes)
    (args.out / f"{Path(args.name).stem}.json").write_text(
        json.dumps({"val_accuracy": accuracy, "temperature": temperature, "history": history}, indent=1) + "\n"
    )
    print(f"validación: {accuracy:.3f} ({len(val_crops)} índices); T = {temperature:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
