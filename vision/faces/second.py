"""Install a second face classifier beside a models folder's first one, with the level from which it confirms.

python -m vision.faces.second --from runs/faces/y3 [--models models] [--real-sets ../shared/data]
    [--synth data/synth/faces-train ...] [--max-error 0.001] [--level L]

A die the first classifier is sure of but whose pips could not be counted is accepted when the second names the
same face at its level or over (vision.faces.reader.combine). The level is chosen on the calibration photos that
neither classifier trained on (the train parts' photos vision.faces.train sets aside, and the rendered folders'):
the lowest at which, on every source, the dice accepted are wrong at most `--max-error` of the time (under 1,000
dice accepted: never). `--level` sets it by hand; the table of levels is printed either way.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from functools import partial
from pathlib import Path

import numpy as np

from vision.faces.classifier import (
    ONNX_NAME,
    SECOND_DIR,
    TORCH_NAME,
    FaceClassifier,
    likeliest_face,
    no_face_probability,
)
from vision.faces.crops import photo_id, read_yolo_labels, reader_crop, yolo_pairs
from vision.faces.reader import placed_faces
from vision.faces.realsets import DATA_ROOT, group_of, labelled, real_sets
from vision.faces.train import METRICS_NAME, calibration_photo, update_metrics
from vision.frames import load_image
from vision.pipeline import MODELS

COCKED_LABEL = 7  # a rendered cocked die: accepted as any face, it is a silent error
LEVELS = (*(round(0.80 + 0.005 * i, 3) for i in range(40)), 0.999)


class Source:
    """One calibration source's crops (as cut, as the classifiers see them) and true labels."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.crops: list[np.ndarray] = []
        self.seen: list[np.ndarray] = []
        self.labels: list[int] = []


def real_sources(root: Path, share: float) -> list[Source]:
    """The calibration photos of every real set's train part (the share vision.faces.train sets aside)."""
    out = []
    for rs in real_sets(root):
        group = photo_id if rs.name == "dice-real" else partial(group_of, rs)  # as train.py splits each
        source = Source(f"real:{rs.name}")
        for frame, box, face, image in labelled(rs, root, "train"):
            if calibration_photo(image, share, group):
                crop = reader_crop(frame, box)
                source.crops.append(crop)
                source.seen.append(crop if rs.is_upright(image) else reader_crop(frame, box, turned=True))
                source.labels.append(face)
        out.append(source)
    return out


def rendered_source(folder: Path, share: float) -> Source:
    """The calibration photos of a rendered folder: its dice, a cocked one labelled COCKED_LABEL."""
    source = Source(f"synth:{folder}")
    for image_path, label_path in yolo_pairs(folder, "train" if (folder / "images" / "train").is_dir() else None):
        if not calibration_photo(image_path.name, share):
            continue
        frame = load_image(image_path)
        height, width = frame.shape[:2]
        for cls, box in read_yolo_labels(label_path, width, height):
            if cls > 6 or box.width < 4 or box.height < 4:
                continue
            source.crops.append(reader_crop(frame, box))
            source.seen.append(reader_crop(frame, box, turned=True))
            source.labels.append(COCKED_LABEL if cls == 6 else cls + 1)
    return source


def sure_faces(probs: np.ndarray, level: float) -> np.ndarray:
    """The face a classifier names at `level` or over on each crop, 0 where it names none so."""
    pred = likeliest_face(probs)
    conf = probs[np.arange(len(probs)), pred]
    return np.where((conf >= level) & (conf >= no_face_probability(probs)), pred, 0)


class Read:
    """One source read by both classifiers and the pip counter (`placed`: the first's face where its pips are
    found on the die, 0 elsewhere: the second confirms only there)."""

    def __init__(
        self,
        source: Source,
        first: np.ndarray,
        second: np.ndarray,
        pips: np.ndarray,
        threshold: float,
        placed: np.ndarray | None = None,
    ):
        self.name, self.labels = source.name, np.array(source.labels)
        self.first = sure_faces(first, threshold)
        self.second, self.pips = second, pips
        self.placed = self.first if placed is None else placed

    def at(self, level: float) -> tuple[int, int, int]:
        """(dice accepted, of them wrong, of them accepted only because the second confirmed) at `level`."""
        paired = (self.first > 0) & (self.pips == self.first)
        confirmed = (sure_faces(self.second, level) == self.first) & (self.placed == self.first)
        lifted = (self.first > 0) & (self.pips == 0) & confirmed
        accepted = paired | lifted
        return int(accepted.sum()), int((accepted & (self.first != self.labels)).sum()), int(lifted.sum())


def allowed(accepted: int, max_error: float) -> int:
    """The errors a source may show among `accepted` dice."""
    return int(np.floor(max_error * accepted))


def choose_level(reads: list[Read], max_error: float) -> float | None:
    """The lowest level at which no source shows more errors than allowed; None if none holds."""
    for level in LEVELS:
        if all(w <= allowed(a, max_error) for a, w, _ in (r.at(level) for r in reads)):
            return level
    return None


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, required=True, help="carpeta con face_cnn.onnx del segundo")
    parser.add_argument("--models", type=Path, default=MODELS, help="carpeta de modelos donde se instala (faces2/)")
    parser.add_argument("--real-sets", type=Path, default=DATA_ROOT, help="carpeta de datos reales (../shared/data)")
    parser.add_argument("--synth", type=Path, action="append", default=[], help="carpeta renderizada de calibración")
    parser.add_argument("--calib-share", type=float, default=0.15, help="fotos de train apartadas (como al entrenar)")
    parser.add_argument("--max-error", type=float, default=0.001, help="error tolerado entre los dados aceptados")
    parser.add_argument("--level", type=float, default=None, help="el nivel, puesto a mano (se imprime la tabla igual)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Read the calibration crops with both classifiers, choose the level, install the second with it."""
    import onnx

    from vision.faces.pips import PipCounter

    args = build_parser().parse_args(argv)
    weights = args.source / ONNX_NAME
    if not weights.is_file():
        print(f"error: falta {weights}, el segundo clasificador exportado", file=sys.stderr)
        return 2
    if not (args.models / "faces").is_dir():
        print(f"error: {args.models} no es una carpeta de modelos (falta faces/)", file=sys.stderr)
        return 2
    if args.level is not None and not 0.5 <= args.level < 1:
        print(f"error: --level {args.level}: debe estar entre 0.5 y 1", file=sys.stderr)
        return 2
    first, second = FaceClassifier(args.models / "faces"), FaceClassifier(args.source)
    rendered = [rendered_source(folder, args.calib_share) for folder in args.synth]
    sources = real_sources(args.real_sets, args.calib_share) + rendered
    counter = PipCounter(processes=True)
    reads = []
    for s in (s for s in sources if s.labels):
        pips = np.array([g.face or 0 for g in counter.read_faces(s.crops)])
        probs = first.probabilities(s.seen)
        faces = sure_faces(probs, first.threshold)
        unconfirmed = [int(f) if p == 0 else 0 for f, p in zip(faces, pips, strict=True)]
        placed = np.array(placed_faces(counter, s.crops, unconfirmed))
        reads.append(Read(s, probs, second.probabilities(s.seen), pips, first.threshold, placed))
    table = []
    print("nivel  " + "  ".join(f"{r.name} (aceptados/mal/por el segundo)" for r in reads))
    for step in LEVELS:
        row = [r.at(step) for r in reads]
        table.append({"level": step, **{r.name: list(v) for r, v in zip(reads, row, strict=True)}})
        print(f"{step:.3f}  " + "  ".join(f"{a}/{w}/{x}" for a, w, x in row))
    chosen = choose_level(reads, args.max_error)
    level = args.level if args.level is not None else chosen
    if level is None:
        print("ningún nivel cumple en todas las fuentes: no se instala", file=sys.stderr)
        return 1
    out = args.models / SECOND_DIR
    out.mkdir(parents=True, exist_ok=True)
    # the reader needs the ONNX export alone; the torch weights stay where they were trained
    (out / TORCH_NAME).unlink(missing_ok=True)
    proto = onnx.load(str(weights))
    for entry in proto.metadata_props:
        if entry.key == "cacho":
            entry.value = json.dumps({**json.loads(entry.value), "confirm_threshold": level})
    onnx.save(proto, str(out / ONNX_NAME))
    if (args.source / METRICS_NAME).is_file() and args.source.resolve() != out.resolve():
        shutil.copyfile(args.source / METRICS_NAME, out / METRICS_NAME)
    command = "python -m vision.faces.second " + " ".join(argv if argv is not None else sys.argv[1:])
    update_metrics(
        out / METRICS_NAME,
        "second",
        {"command": command, "rule_level": chosen, "level": level, "max_error": args.max_error, "table": table},
    )
    print(f"nivel por la regla: {chosen}; instalado con {level} en {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
