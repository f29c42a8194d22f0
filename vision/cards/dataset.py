"""The card reader's training folder: rendered tables and real photos in one YOLO layout, real validation held out.

    python -m vision.cards.dataset --out data/cards/index [--synth DIR ...] [--real DIR] [--fixes FILE]

Classes are the 52 card codes in `notation.CLASS_NAMES` order, then `BACK` (a card face down). A real photo is in
validation when its run of consecutive shots is (`real_split`), so near-identical neighbours never straddle it.
`--fixes` (by default models/cards/relabelled_indices.txt) corrects indices the real set labels wrong.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from vision import labels as yolo
from vision.cards.evaluate import BACK
from vision.cards.notation import CLASS_NAMES, CLASS_OF
from vision.relabel import Relabel, by_image, read_relabels, relabelled_photo

NAMES = (*CLASS_NAMES, BACK)
BACK_CLASS = len(CLASS_NAMES)
FINDER_NAMES = ("index", BACK)  # the card finder's classes: any corner index, a card's back
RUN = 8  # consecutive photos (by file name) that share a split
VAL_EVERY = 5  # one run in five is validation: about 20 % of the photos
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
FIXES = Path(__file__).resolve().parents[2] / "models" / "cards" / "relabelled_indices.txt"


def real_split(names: Iterable[str], every: int = VAL_EVERY) -> dict[str, str]:
    """Each real photo's split, "train" or "val", by runs of RUN photos in name order, one run in `every` val."""
    ordered = sorted(names)
    return {name: "val" if (i // RUN) % every == every - 1 else "train" for i, name in enumerate(ordered)}


def real_names(real: Path) -> dict[int, int | None]:
    """A hand-labelled folder's class ids mapped to ours, from its class_map.txt (None: a joker or other non-card)."""
    mapping: dict[int, int | None] = {}
    for line in (real / "class_map.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        class_id, source, canonical = line.split("\t")
        if source.strip().upper() == BACK:
            mapping[int(class_id)] = BACK_CLASS
        else:
            mapping[int(class_id)] = CLASS_OF.get(canonical.strip())
    return mapping


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() or target.is_symlink():
        target.unlink()
    os.symlink(source.resolve(), target)


def card_class(text: str) -> int | None:
    """A card's code (e.g. 10H) as its class, or None."""
    return CLASS_OF.get(text.upper())


def add_real(real: Path, out: Path, fixes: Sequence[Relabel] = ()) -> dict[str, int]:
    """Link the real photos into out/images/{train,val} with labels in our classes, the `fixes` applied (a box the
    set labels wrong); photos per split, and the fixes applied."""
    mapping = real_names(real)
    fixes_of = by_image(fixes)
    counts = {"train": 0, "val": 0, "fixes": 0}
    for group in sorted(p for p in (real / "images").iterdir() if p.is_dir()):
        photos = [p for p in sorted(group.iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES]
        # the handheld webcam frames (one card held up) are never the product's scene: training only
        splits = real_split(p.name for p in photos) if group.name == "phone" else {p.name: "train" for p in photos}
        for photo in photos:
            split = splits[photo.name]
            lines = []
            label = real / "labels" / group.name / (photo.stem + ".txt")
            for row in label.read_text().splitlines() if label.exists() else []:
                parts = row.split()
                ours = mapping.get(int(parts[0])) if parts else None
                if ours is not None:
                    lines.append(" ".join([str(ours), *parts[1:5]]))
            text = "".join(f"{x}\n" for x in lines)
            if photo.name in fixes_of:
                text, applied = relabelled_photo(photo, text, fixes_of[photo.name])
                counts["fixes"] += applied
            name = f"real-{group.name}-{photo.stem}"
            _link(photo, out / "images" / split / (name + photo.suffix.lower()))
            (out / "labels" / split).mkdir(parents=True, exist_ok=True)
            (out / "labels" / split / (name + ".txt")).write_text(text)
            counts[split] += 1
    return counts


def synth_rows(synth: Path, meta_path: Path) -> tuple[Path, list[str]]:
    """A rendered table's image and its label rows, plus a BACK box round each card seen face down."""
    meta = json.loads(meta_path.read_text())
    relative = meta_path.relative_to(synth / "meta").with_suffix("")
    labels = synth / "labels" / relative.with_suffix(".txt")
    width, height = meta["size"]
    lines = labels.read_text().splitlines() if labels.exists() else []
    for card in meta["cards"]:
        box = card.get("visible_box")
        if card["face_down"] and box and card.get("visible_share", 0) >= 0.5:
            lines.append(yolo.line(BACK_CLASS, box, width, height))
    return synth / "images" / relative.with_suffix(".jpg"), lines


def add_synth(synth: Path, out: Path, split: str = "train") -> int:
    """Link rendered tables into out/images/SPLIT, their labels plus a BACK box round each card seen face down."""
    count = 0
    for meta_path in sorted(synth.rglob("meta/**/*.json")):
        image, lines = synth_rows(synth, meta_path)
        name = f"synth-{synth.name}-{image.stem}"
        _link(image, out / "images" / split / (name + ".jpg"))
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split / (name + ".txt")).write_text("".join(f"{x}\n" for x in lines))
        count += 1
    return count


def finder_folder(source: Path, out: Path) -> dict[str, int]:
    """The same images with the finder's two classes (index, BACK) in their labels; images per split."""
    counts = {}
    for split_dir in sorted(p for p in (source / "labels").iterdir() if p.is_dir()):
        target = out / "labels" / split_dir.name
        target.mkdir(parents=True, exist_ok=True)
        for label in split_dir.glob("*.txt"):
            rows = [row.split() for row in label.read_text().splitlines() if row.strip()]
            lines = [" ".join(["1" if int(r[0]) == BACK_CLASS else "0", *r[1:5]]) for r in rows]
            (target / label.name).write_text("".join(f"{x}\n" for x in lines))
        images = source / "images" / split_dir.name
        for image in images.iterdir():
            _link(image.resolve() if image.is_symlink() else image, out / "images" / split_dir.name / image.name)
        counts[split_dir.name] = sum(1 for _ in images.iterdir())
    write_yaml(out, FINDER_NAMES)
    return counts


def write_yaml(out: Path, names_in_order: tuple[str, ...] = NAMES) -> Path:
    """data.yaml for ultralytics: train and val parts and the class names (by default the 53 of the cards)."""
    names = "\n".join(f"  {i}: {name}" for i, name in enumerate(names_in_order))
    path = out / "data.yaml"
    path.write_text(f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    return path


def main(argv: list[str] | None = None) -> int:
    """Build the folder and say what is in it."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.dataset", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--synth", type=Path, action="append", default=[], help="carpeta de vision.cards.synth")
    parser.add_argument("--real", type=Path, default=None, help="carpeta real etiquetada por esquinas")
    parser.add_argument("--finder", type=Path, default=None, help="escribe además esta carpeta con dos clases")
    parser.add_argument("--fixes", type=Path, default=FIXES, help="índices mal etiquetados en las fotos reales")
    args = parser.parse_args(argv)
    for folder in [*args.synth, *([args.real] if args.real else [])]:
        if not folder.is_dir():
            raise SystemExit(f"no existe la carpeta {folder}")
    try:  # a bad fixes file is refused before anything is written
        fixes = read_relabels(args.fixes, card_class, "carta") if args.real and args.fixes.is_file() else []
    except ValueError as error:
        raise SystemExit(str(error)) from None
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {"synth": {}, "real": {}}
    for synth in args.synth:
        report["synth"] = {**report["synth"], synth.name: add_synth(synth, args.out)}  # type: ignore[dict-item]
    if args.real:
        try:
            report["real"] = add_real(args.real, args.out, fixes)
        except ValueError as error:
            raise SystemExit(str(error)) from None
    write_yaml(args.out)
    if args.finder:
        report["finder"] = finder_folder(args.out, args.finder)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
