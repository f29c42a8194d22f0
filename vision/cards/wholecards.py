"""A real set labelled by whole-card boxes as a folder `cacho cards eval` scores: cards matched by their corners.

    python -m vision.cards.wholecards --out data/cards/whole [--real DIR] [--val-every N] [--mirrored FILE]
        [--corners-into DIR [--faint F]]

The real "poker-cards" photos (`../shared/data/cards-real/whole-card`) box each whole card, not its corner indices.
Only each photo's first version is taken: the set's other copies are the same photo turned over or mirrored. The
first version itself is mirrored in about a third of the photos, and a mirrored index is no card anyone holds: the
photos `--mirrored FILE` (by default models/cards/mirrored_whole.txt, from `python -m vision.cards.chirality`) names
mirrored are turned back, and those it could not tell are left out. A meta JSON per photo marks each card
`corners_unlabelled`, so a reading is matched to the card whose box holds its corner indices
(`vision.cards.evaluate`). Photos are split by runs of consecutive shots, as `vision.cards.dataset` splits the
corner-index set.

`--corners-into DIR` adds the training photos to a `vision.cards.dataset` folder labelled by corner index: the
reader's finder finds the indices, and each takes the code of the one card that can hold it (its box holds the
index and the index lies near the box's edge, where a card's corners touch it; where several can, the one either
classifier names). With `--faint F` the fainter indices too, those the reader does not report but its finder, or its
spotter over the whole photo at 640, sees from confidence F (the phone photos' small indices), where a classifier
names the card that holds them: labels to teach a finder the indices it misses. The validation photos are never
labelled so.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision import labels as yolo
from vision.cards.dataset import BACK_CLASS, NAMES, _link, card_class, real_names, real_split, write_yaml
from vision.cards.notation import CLASS_OF
from vision.frames import load_image
from vision.relabel import Relabel, by_image, read_relabels, relabelled
from vision.types import Box, Frame

if TYPE_CHECKING:
    from vision.cards.reader import CardReader, IndexHit

REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "cards-real" / "whole-card"  # read where it lies
GROUPS = "train_augmentation_groups.tsv"
VAL_EVERY = 2  # one run of RUN shots in two is validation: the set is this reader's largest real test
HELD = 0.7  # an index box this much inside a card's box is on that card, or on one lying over it
CHIRALITY = Path(__file__).resolve().parents[2] / "models" / "cards" / "mirrored_whole.txt"
FIXES = Path(__file__).resolve().parents[2] / "models" / "cards" / "relabelled_whole.txt"
VERDICTS = ("mirrored", "undecided", "same")
FAINT_APART = 0.3  # a faint box overlapping a found index this much (IoU) is that index
EDGE_REACH = 1.5  # ... and within this many index sides of the box's edge: a rotated card's corners touch its box


def first_versions(real: Path) -> list[str]:
    """The file names of each photo's first version (the set's table of copies; every image when it has none)."""
    table = real / GROUPS
    images = real / "images" / "train"
    if not table.exists():
        return sorted(p.name for p in images.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    rows = [line.split("\t") for line in table.read_text().splitlines()[1:] if line.strip()]
    return sorted(row[1] for row in rows if len(row) >= 3 and row[2] == "ref")


def photo_cards(
    real: Path, name: str, mapping: Mapping[int, int | None], mirrored: bool = False, fixes: Sequence[Relabel] = ()
) -> tuple[Frame, list[str], list[dict[str, Any]]]:
    """One photo of the set (turned back when `mirrored`), its label lines in our classes, the `fixes` applied (their
    points in the photo as the set gives it), and its cards' metas."""
    photo = real / "images" / "train" / name
    label = real / "labels" / "train" / f"{Path(name).stem}.txt"
    if not photo.exists() or not label.exists():
        raise ValueError(f"falta la foto o la etiqueta de {name} en {real}")
    pixels = cv2.imread(str(photo))
    if pixels is None:
        raise ValueError(f"no se puede leer la imagen {photo}")
    frame = np.ascontiguousarray(pixels[:, ::-1] if mirrored else pixels, np.uint8)
    height, width = frame.shape[:2]
    ours = []
    for row in label.read_text().splitlines():
        parts = row.split()
        cls = mapping.get(int(parts[0])) if parts else None
        if cls is not None:
            ours.append(" ".join([str(cls), *parts[1:5]]))
    text, applied = relabelled("".join(f"{line}\n" for line in ours), width, height, fixes)
    if applied < len(fixes):
        raise ValueError(f"una corrección de {name} no cae en ninguna carta de su etiqueta")
    lines: list[str] = []
    cards: list[dict[str, Any]] = []
    for row in text.splitlines():
        cls, (cx, cy, w, h) = int(row.split()[0]), (float(v) for v in row.split()[1:5])
        if mirrored:
            cx = 1.0 - cx
        x1, y1, x2, y2 = (cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height
        lines.append(yolo.row(cls, cx, cy, w, h))
        outline = [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]
        cards.append(
            {
                "card": NAMES[cls],
                "face_down": False,
                "polygon": outline,
                "visible_box": [x1, y1, x2, y2],
                "indices": [],
                "corners_unlabelled": True,
            }
        )
    return frame, lines, cards


def read_chirality(path: Path | None) -> dict[str, str]:
    """The photos `vision.cards.chirality` found mirrored or could not tell, by source stem ("mirrored" or
    "undecided"); an absent file (None) corrects nothing."""
    if path is None:
        return {}
    if not path.is_file():
        raise ValueError(f"no existe la lista de fotos espejadas {path}")
    verdicts = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if not parts or line.startswith("#"):
            continue
        if len(parts) < 2 or parts[1] not in VERDICTS:
            raise ValueError(f"{path}, línea {number}: se espera «FOTO {'|'.join(VERDICTS)} ...», no {line!r}")
        verdicts[parts[0]] = parts[1]
    return verdicts


def build(
    real: Path, out: Path, val_every: int = VAL_EVERY, chirality: Path | None = None, fixes: Path | None = None
) -> dict[str, int]:
    """Write the first versions into out/images/{train,val} with labels and metas in our classes, a photo found
    mirrored turned back and one that could not be told left out, the cards `fixes` names relabelled; cards per
    split. Every photo and label is read before anything is written."""
    mapping = real_names(real)
    verdicts = read_chirality(chirality)
    if fixes is not None and not fixes.is_file():
        raise ValueError(f"no existe la lista de cartas mal etiquetadas {fixes}")
    fixes_of = by_image(read_relabels(fixes, card_class, "carta")) if fixes is not None else {}
    every = first_versions(real)
    splits = real_split(every, val_every)  # before any is left out, so that no photo changes sides
    names = [name for name in every if verdicts.get(source_stem(name)) != "undecided"]
    if not names:
        raise ValueError(f"no hay fotos en {real / 'images' / 'train'}")
    mirrored = {name for name in names if verdicts.get(source_stem(name)) == "mirrored"}
    # every photo read first (a bad one stops the build before anything is written); only the labels are kept
    photos = {}
    for name in names:
        frame, lines, cards = photo_cards(real, name, mapping, name in mirrored, fixes_of.get(name, ()))
        photos[name] = (frame.shape[:2], lines, cards)
    counts = {"train": 0, "val": 0, "train_cards": 0, "val_cards": 0, "mirrored": len(mirrored), "left_out": 0}
    counts["relabelled"] = sum(len(fixes_of.get(name, ())) for name in names)
    counts["left_out"] = len(every) - len(names)
    for name in set(every) - set(names):  # left out: none of it stays from an earlier build into the same folder
        for kind, suffix in (("images", "jpg"), ("labels", "txt"), ("meta", "json")):
            (out / kind / splits[name] / f"real-whole-{Path(name).stem}.{suffix}").unlink(missing_ok=True)
    for name, ((height, width), lines, cards) in photos.items():
        split, stem = splits[name], Path(name).stem
        target = f"real-whole-{stem}"
        image = out / "images" / split / f"{target}.jpg"
        if name in mirrored:
            image.parent.mkdir(parents=True, exist_ok=True)
            image.unlink(missing_ok=True)
            cv2.imwrite(str(image), photo_cards(real, name, mapping, True)[0], [cv2.IMWRITE_JPEG_QUALITY, 97])
        else:
            _link(real / "images" / "train" / name, image)
        for kind, text in (
            ("labels", "".join(f"{x}\n" for x in lines)),
            ("meta", json.dumps({"size": [width, height], "cards": cards, "source": name})),
        ):
            path = out / kind / split / f"{target}.{'txt' if kind == 'labels' else 'json'}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        counts[split] += 1
        counts[f"{split}_cards"] += len(cards)
    write_yaml(out)
    return counts


def source_stem(name: str) -> str:
    """The photo a file of the set is a version of (`IMG_20220316_134551_jpg.rf.…` -> `IMG_20220316_134551`)."""
    return name.split("_jpg.rf.")[0] if "_jpg.rf." in name else Path(name).stem


def near_edge(index: Box, card: tuple[float, float, float, float]) -> bool:
    """Whether an index lies near a card box's edge (a card's corners touch its box whichever way it is turned)."""
    x, y = index.center
    gap = min(x - card[0], card[2] - x, y - card[1], card[3] - y)
    return gap <= EDGE_REACH * max(index.width, index.height)


def corner_code(hit: IndexHit, cards: list[tuple[str, tuple[float, float, float, float]]]) -> str | None:
    """The code of the one card that can hold this index, or None where none or several can."""
    able = [code for code, card in cards if hit.box.overlap_share(Box(*card)) >= HELD and near_edge(hit.box, card)]
    if len(set(able)) == 1:
        return able[0]
    named = [code for code in set(able) if code in (hit.name, hit.second)]
    return named[0] if len(named) == 1 else None


def faint_corners(reader: CardReader, frame: Frame, found: list[IndexHit], faint: float) -> list[IndexHit]:
    """Indices the reader does not report, seen from confidence `faint` by the finder over its tiles or by the
    spotter over the whole photo at 640, away from every index `found`; named by the classifiers."""
    from vision.cards.reader import TILE, _hits, merge

    kept = [h for h in found if h.name != NAMES[BACK_CLASS]]
    candidates = reader._tiled(frame, faint)
    if reader.spotter is not None:
        candidates += _hits(reader.spotter.predict([frame], TILE, faint)[0], 0, 0)
    candidates = [h for h in candidates if h.name != NAMES[BACK_CLASS]]
    new = [h for h in merge(candidates) if all(h.box.iou(k.box) < FAINT_APART for k in kept)]
    return reader.named(frame, new, reader.settings.turns) if new else []


def add_corners(whole: Path, into: Path, models: Path | None = None, faint: float | None = None) -> dict[str, int]:
    """Label the corner indices of `whole`'s training photos and link them into `into`'s train split; with `faint`,
    also the fainter indices (`faint_corners`) that a classifier names as the card that holds them."""
    from vision.cards.reader import MODELS, CardReader

    reader = CardReader(models or MODELS)
    counts = {"photos": 0, "indices": 0, "labelled": 0, "agree": 0, "faint": 0}
    for meta_path in sorted((whole / "meta" / "train").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        photo = whole / "images" / "train" / f"{meta_path.stem}.jpg"
        frame = load_image(photo)
        cards = [(c["card"], tuple(c["visible_box"])) for c in meta["cards"]]
        width, height = meta["size"]
        rows = []
        found = reader.detect(frame)
        extra = faint_corners(reader, frame, found, faint) if faint is not None else []
        for hit, is_faint in [(h, False) for h in found] + [(h, True) for h in extra]:
            if hit.name == NAMES[BACK_CLASS]:
                continue
            counts["indices"] += 1
            code = corner_code(hit, cards)
            if code is None:
                continue
            if is_faint:
                # a faint box is an index only where a classifier reads the card that holds it there
                if code not in (hit.name, hit.second):
                    continue
                counts["faint"] += 1
            counts["labelled"] += 1
            counts["agree"] += code == hit.name
            b = hit.box
            rows.append(yolo.line(CLASS_OF[code], (b.x1, b.y1, b.x2, b.y2), width, height))
        _link(photo, into / "images" / "train" / photo.name)
        (into / "labels" / "train").mkdir(parents=True, exist_ok=True)
        (into / "labels" / "train" / f"{meta_path.stem}.txt").write_text("".join(f"{r}\n" for r in rows))
        counts["photos"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    """Build the folder and say what is in it."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.wholecards", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--real", type=Path, default=REAL, help="carpeta real etiquetada por cartas enteras")
    parser.add_argument(
        "--corners-into", type=Path, help="añade las fotos de entrenamiento, por esquinas, a esta carpeta"
    )
    parser.add_argument("--models", type=Path, help="modelos que buscan las esquinas (por defecto, models/cards)")
    parser.add_argument(
        "--faint",
        type=float,
        help="con --corners-into, etiquetar también los índices vistos desde esta confianza que una lectura nombra",
    )
    parser.add_argument("--val-every", type=int, default=VAL_EVERY, help="una tanda de fotos de cada N es validación")
    parser.add_argument(
        "--fixes", type=Path, default=FIXES, help="cartas que el conjunto etiqueta mal («foto x y carta» por línea)"
    )
    parser.add_argument(
        "--mirrored",
        type=Path,
        default=CHIRALITY,
        help="fotos espejadas (se dan vuelta) o dudosas (se dejan fuera), de python -m vision.cards.chirality",
    )
    args = parser.parse_args(argv)
    if not (args.real / "class_map.txt").is_file():
        raise SystemExit(f"{args.real} no es una carpeta de cartas enteras: falta class_map.txt")
    if args.val_every < 1:
        raise SystemExit(f"--val-every debe ser 1 o más, no {args.val_every}")
    if args.faint is not None and not (0 < args.faint < 1):
        raise SystemExit(f"--faint debe estar entre 0 y 1, no {args.faint}")
    if args.faint is not None and not args.corners_into:
        raise SystemExit("--faint solo sirve con --corners-into")
    if args.corners_into and not (args.corners_into / "data.yaml").is_file():
        raise SystemExit(f"{args.corners_into} no es una carpeta de vision.cards.dataset: falta data.yaml")
    try:
        report: dict[str, object] = dict(build(args.real, args.out, args.val_every, args.mirrored, args.fixes))
        if args.corners_into:
            report["corners"] = add_corners(args.out, args.corners_into, args.models, args.faint)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
