"""One table's evening replayed: each frame read with the reader of that moment, confirmed with its labels as a
coordinator would, and the reader taught the confirmed dice as the kiosk teaches it while the table plays.

The learning rule (`Learning`, the kiosk's too): once `every` new confirmed dice are in, the models in use are
adapted on every confirmed die so far (`vision.faces.adapt.adapt`, counted in crops), and the new models replace
them only when they read the held-out confirmed dice no worse than the models in use at the levels the table reads
them at (adapt writes nothing otherwise). A folder that cannot teach yet (too few dice, a face not shown, too few
held out) is tried again after the next frame. Between adaptations, each confirmed reading adds to the evidence of
the models in use and sets their levels again (vision.faces.evidence).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from vision.evaluate import TruthDie, extras_on_a_die, match, read_labels, yolo_samples
from vision.faces.crops import CHECKED
from vision.faces.evidence import Ledger, Levels, Seen, is_evidence, judged, models_levels, seen, set_levels
from vision.faces.realsets import capture_group
from vision.faces.train import calibration_photo
from vision.frames import load_image
from vision.types import Box, Detection, DieReading, Frame, FrameReading

STOCK = "de fábrica"  # the name of the models a table starts with


@dataclass(frozen=True, slots=True)
class Learning:
    """When and how a table's reader learns its confirmed dice."""

    every: int = 60  # new confirmed dice that start an adaptation (the first: adapt needs 60 dice to begin)
    # the adaptation's budget: augmented crops taught, counted in steps so it ends the same on any machine and takes
    # as long with 1,000 dice as with 100 (kiosk.learnload measures it)
    crops: int = 10_000
    holdout: float = 0.3  # the share of confirmed photos kept out to check the adapted reader
    # the levels set again at every confirmed reading on the evidence of the models in use (vision.faces.evidence);
    # False: the models' own levels until the next adaptation
    prequential: bool = True


class Reader(Protocol):
    """Reads a frame's dice."""

    def read(self, frame: Frame) -> FrameReading:
        """Every die on the frame."""
        ...


class Adapter(Protocol):
    """vision.faces.adapt.adapt, the part used."""

    def __call__(
        self,
        folder: Path,
        out: Path,
        source: Path,
        *,
        holdout: float,
        crops: int | None,
        levels: tuple[float, float | None] | None,
    ) -> Any:
        """The result, with `written` (`levels`: those the table reads `source` at); AdaptError when the folder
        cannot teach yet."""
        ...


class LabelledBoxes:
    """A finder that finds exactly the labelled dice of the frame being replayed (the face reader measured alone,
    where the stock finder cannot find a set's dice); the evening sets `boxes` before each frame is read."""

    def __init__(self) -> None:
        self.boxes: list[Box] = []

    def detect(self, frame: Frame) -> list[Detection]:
        """The labelled boxes, each found sure."""
        return [Detection(box, 1.0) for box in self.boxes]


@dataclass(frozen=True, slots=True)
class FrameScore:
    """One frame read and confirmed: its labelled dice, those missed, flagged, accepted wrong, and the models."""

    image: str
    dice: int
    missed: int
    flagged: int
    wrong: int
    models: str
    table: int | None = None  # the table of a championship replayed (None: one table's evening)

    @property
    def load(self) -> int:
        """The dice the coordinator must see to: missed, flagged or accepted wrong."""
        return self.missed + self.flagged + self.wrong

    def to_dict(self) -> dict[str, object]:
        """The `cacho vision evening --json` line."""
        return {
            "image": self.image,
            "dice": self.dice,
            "missed": self.missed,
            "flagged": self.flagged,
            "wrong": self.wrong,
            "models": self.models,
        } | ({} if self.table is None else {"table": self.table})


@dataclass(frozen=True, slots=True)
class Adaptation:
    """An adaptation tried after a frame: whether it replaced the models, its figures, or why it could not teach."""

    after: str  # the frame's image
    models: str | None  # the new models' name where written
    result: Any = None
    refused: str | None = None


def score_frame(image: str, truth: Sequence[TruthDie], dice: Sequence[DieReading], models: str) -> FrameScore:
    """A frame's reading against its labels: a die accepted with the wrong face, or accepted where no die is (less
    a right reading of a die boxed off its label), is wrong; a cocked die accepted is wrong."""
    matches, missed, extra = match(truth, dice)
    flagged = sum(m.reading.uncertain for m in matches)
    wrong = sum(not m.reading.uncertain and m.reading.face != m.truth.face for m in matches)
    wrong += sum(not r.uncertain for r in extra) - extras_on_a_die(truth, matches, extra)
    return FrameScore(image, len(truth), len(missed), flagged, wrong, models)


def checked_of(reading: FrameReading, truth: Sequence[TruthDie]) -> list[bool]:
    """Which labelled dice the coordinator checks in confirming: every one but those the reader accepted with the
    right face (a flagged die is set, a wrong one corrected, a missed one added)."""
    matches, _, _ = match(truth, reading.dice)
    left = {id(m.truth) for m in matches if not m.reading.uncertain and m.reading.face == m.truth.face}
    return [id(t) not in left for t in truth]


def confirm(image: Path, labels: Path, learned: Path, checked: Sequence[bool]) -> int:
    """Keep a confirmed frame with its labels (the faces as confirmed) and which of them were checked in the
    learned folder, as the kiosk keeps them (kiosk.learned; whole, where the kiosk keeps a crop round the dice: the
    dice taught are the same); the dice it adds."""
    for sub in ("images", "labels", CHECKED):
        (learned / sub).mkdir(parents=True, exist_ok=True)
    shutil.copy2(image, learned / "images" / image.name)
    text = labels.read_text(encoding="utf-8") if labels.exists() else ""
    flags = "".join("1\n" if c else "0\n" for c in checked)
    (learned / CHECKED / f"{image.stem}.txt").write_text(flags, encoding="utf-8")
    (learned / "labels" / f"{image.stem}.txt").write_text(text, encoding="utf-8")
    return sum(1 for line in text.splitlines() if line.strip())


def evidence_of(reading: FrameReading, truth: Sequence[TruthDie], held_out: bool) -> list[Seen]:
    """The confirmed dice of a reading that are evidence for the models that read it (vision.faces.evidence)."""
    matches, _, _ = match(truth, reading.dice)
    out = []
    for m in matches:
        face = m.truth.face
        if face is None or not is_evidence(m.reading, face, held_out):
            continue
        one = seen(m.reading, face)
        if one is not None:
            out.append(one)
    return out


class Table:
    """A table's models and the levels it reads them with, set again on their evidence as readings are confirmed."""

    def __init__(
        self,
        models: Path,
        name: str,
        ledgers: Path,
        reader: Reader,
        levels_of: Callable[[Path], Levels] | None,
    ) -> None:
        """`reader`: the models' reader; `levels_of`: a models folder's faces/ -> its own levels (None: the models'
        levels, never set again)."""
        self.models, self.name, self.on = models, name, levels_of is not None
        self.reader = reader
        self.own = levels_of(models / "faces") if levels_of is not None else Levels(0.0, None, None)
        self.ledger = Ledger(ledgers / f"{name}.jsonl", seed=models / "faces")
        self.levels = set_levels(self.ledger.read(), self.own) if self.on else self.own

    def read(self, frame: Frame) -> FrameReading:
        """The frame's dice at the table's levels."""
        reading = self.reader.read(frame)
        return judged(reading, self.levels) if self.on else reading

    def confirmed(self, reading: FrameReading, truth: Sequence[TruthDie], held_out: bool) -> None:
        """Add a confirmed reading's evidence and set the levels again."""
        if self.on and self.ledger.add(evidence_of(reading, truth, held_out)):
            self.levels = set_levels(self.ledger.read(), self.own)


def evening(
    folder: Path,
    models: Path,
    work: Path,
    reader_of: Callable[[Path], Reader],
    adapter: Adapter,
    learning: Learning | None = None,
    levels_of: Callable[[Path], Levels] = models_levels,
    tables: int = 1,
    boxes: LabelledBoxes | None = None,
    pooled_evidence: bool = False,
) -> Iterator[FrameScore | Adaptation]:
    """Replay `folder`'s frames in name order as one table's evening, from `models`; `work` holds the confirmed
    dice, the evidence of each models folder read with, and the adapted models. Yields each frame's score, and each
    adaptation tried. With `tables` over 1, a championship's: the frames dealt in turn to that many tables, which
    pool their confirmed dice and read with the reader adapted on them all (kiosk.championship.pool), each table
    keeping its own evidence of it, or with `pooled_evidence` sending it to the organizer, whose one ledger of the
    pooled reader sets the levels every table reads with (kiosk.championship.pool). `boxes`: the finder the readers
    were made with, when it is LabelledBoxes."""
    from vision.faces.adapt import AdaptError

    learning = learning or Learning()
    levels = levels_of if learning.prequential else None
    samples = sorted(yolo_samples(folder), key=lambda pair: pair[0].name)
    if not samples:
        raise FileNotFoundError(f"no hay imágenes en {folder / 'images'}")
    ledgers = [work / "pruebas"] if tables == 1 else [work / "pruebas" / f"mesa-{k}" for k in range(1, tables + 1)]

    pooled = pooled_evidence and tables > 1

    def seated(models: Path, name: str) -> list[Table]:
        reader = reader_of(models)
        if pooled:  # the organizer's ledger: every table's confirmed dice are evidence, and its levels are theirs
            return [Table(models, name, work / "pruebas" / "campeonato", reader, levels)] * tables
        return [Table(models, name, where, reader, levels) for where in ledgers]

    current, name = models, STOCK
    seats = seated(current, name)
    learned, new, made = work / "confirmados", 0, 0
    for k, (image, labels) in enumerate(samples):
        table = seats[k % tables]
        frame = load_image(image)
        height, width = frame.shape[:2]
        truth = read_labels(labels, width, height)
        if boxes is not None:
            boxes.boxes = [t.box for t in truth]
        reading = table.read(frame)
        score = score_frame(image.name, truth, reading.dice, name)
        yield score if tables == 1 else replace(score, table=k % tables + 1)
        table.confirmed(reading, truth, calibration_photo(image.name, learning.holdout, capture_group))
        new += confirm(image, labels, learned, checked_of(reading, truth))
        if new < learning.every:
            continue
        made += 1
        out = work / f"adaptado-{made}"
        try:
            # a pooled reader is judged at its own levels unless the organizer holds its evidence: it has no one table's
            used = (table.levels.threshold, table.levels.alone) if table.on and (tables == 1 or pooled) else None
            result = adapter(learned, out, current, holdout=learning.holdout, crops=learning.crops, levels=used)
        except AdaptError as error:
            yield Adaptation(image.name, None, refused=str(error))
            continue
        new = 0
        if result.written:
            current, name = out, out.name
            seats = seated(current, name)
        yield Adaptation(image.name, name if result.written else None, result)


def by_table(scores: Sequence[FrameScore], after: int = 5) -> list[dict[str, object]]:
    """Each table of a championship replayed: its dice, load and wrong over its frames after its first `after`."""
    out: list[dict[str, object]] = []
    for table in sorted({s.table for s in scores if s.table is not None}):
        later = [s for s in scores if s.table == table][after:]
        dice = sum(s.dice for s in later)
        load = sum(s.load for s in later)
        out.append(
            {
                "table": table,
                "after": after,
                "dice": dice,
                "load": round(load / dice, 4) if dice else 0.0,
                "wrong": sum(s.wrong for s in later),
            }
        )
    return out


def halves(scores: Sequence[FrameScore]) -> dict[str, dict[str, object]]:
    """The first and the second half of the evening's frames: dice, load (a share of the dice) and wrong."""

    def part(chosen: Sequence[FrameScore]) -> dict[str, object]:
        dice = sum(s.dice for s in chosen)
        load = sum(s.load for s in chosen)
        return {"dice": dice, "load": round(load / dice, 4) if dice else 0.0, "wrong": sum(s.wrong for s in chosen)}

    middle = len(scores) // 2
    return {"first_half": part(scores[:middle]), "second_half": part(scores[middle:])}


def link_part(name: str, part: str, out: Path, root: Path | None = None) -> int:
    """An evening folder of a registered real set's part (its photos and labels linked, in `out`); the photos."""
    from vision.faces import realsets

    rs = realsets.real_set(name)
    photos = realsets.photos(rs, root or realsets.DATA_ROOT, part)
    if not photos:
        raise FileNotFoundError(f"{name}: no hay fotos en la parte {part}")
    for sub in ("images", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for image in photos:
        label = realsets.label_path(image)
        for source, target in ((image, out / "images" / image.name), (label, out / "labels" / f"{image.stem}.txt")):
            target.unlink(missing_ok=True)
            target.symlink_to(source.resolve())
    return len(photos)


def main(argv: list[str] | None = None) -> int:
    """`python -m vision.evening SET --out DIR [--part val]`: a real set's part as an evening folder."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m vision.evening",
        description="Prepara la noche de una mesa con una parte de un conjunto real: enlaza sus fotos y etiquetas en "
        "una carpeta YOLO que `cacho vision evening` repite.",
    )
    parser.add_argument("set", metavar="SET", help="el conjunto real (vision.faces.realsets)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--part", default="val", help="train o val (por defecto val: fotos que ningún modelo vio)")
    args = parser.parse_args(argv)
    try:
        count = link_part(args.set, args.part, args.out)
    except (ValueError, FileNotFoundError) as error:
        parser.error(str(error))
    print(f"{count} fotos en {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
