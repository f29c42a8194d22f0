"""Evaluating the reader on a YOLO folder: detection, face accuracy, and the errors that slip through."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

import numpy as np

from vision.faces.classifier import METHOD as CLASSIFIER
from vision.faces.pips import METHOD as PIP_COUNT
from vision.types import Box, Detection, DieReading

CURVE_LEVELS = (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)  # the classifier's probability, for the curve
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
COCKED_CLASS = 6  # rendered data labels a cocked die as class 6: it has no face up
MATCH_IOU = 0.5  # a box finds a labelled die from this IoU with its label on


@dataclass(frozen=True, slots=True)
class TruthDie:
    """A labelled die: its box in pixels and face (None for a cocked die)."""

    box: Box
    face: int | None


@dataclass(frozen=True, slots=True)
class Sample:
    """One labelled image of a YOLO folder."""

    image: Path
    truth: tuple[TruthDie, ...]


def read_labels(path: Path, width: int, height: int) -> tuple[TruthDie, ...]:
    """YOLO labels (class cx cy w h, normalised) as pixel boxes; class = face - 1, class 6 = cocked."""
    dice = []
    if not path.exists():
        return ()
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if not parts:
            continue
        cls, cx, cy, w, h = int(parts[0]), *map(float, parts[1:5])
        box = Box((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)
        dice.append(TruthDie(box, None if cls == COCKED_CLASS else cls + 1))
    return tuple(dice)


def yolo_samples(folder: Path, split: str | None = None) -> Iterator[tuple[Path, Path]]:
    """(image, label) paths of a YOLO folder: images/[split/]x.jpg with labels/[split/]x.txt."""
    images = folder / "images"
    if split:
        images = images / split
    if not images.is_dir():
        raise FileNotFoundError(f"no hay carpeta de imágenes en {images}")
    for image in sorted(images.rglob("*")):
        if image.suffix.lower() in IMAGE_SUFFIXES:
            relative = image.relative_to(folder / "images").with_suffix(".txt")
            yield image, folder / "labels" / relative


class Boxed(Protocol):
    """Anything placed on a frame with a confidence: a die read, or a box the finder found."""

    @property
    def box(self) -> Box:
        """Where, in frame pixels."""
        ...

    @property
    def confidence(self) -> float:
        """How sure."""
        ...


R = TypeVar("R", bound=Boxed)


@dataclass(frozen=True, slots=True)
class Match(Generic[R]):
    """A predicted die matched to a labelled one."""

    truth: TruthDie
    reading: R


def match(
    truth: Sequence[TruthDie], readings: Sequence[R], iou: float = MATCH_IOU
) -> tuple[list[Match[R]], list[TruthDie], list[R]]:
    """Greedy one-to-one matching by confidence at the IoU threshold: (matches, missed, extra)."""
    free = list(truth)
    matches: list[Match[R]] = []
    extra: list[R] = []
    for reading in sorted(readings, key=lambda r: -r.confidence):
        best, best_iou = None, iou
        for candidate in free:
            overlap = reading.box.iou(candidate.box)
            if overlap >= best_iou:
                best, best_iou = candidate, overlap
        if best is None:
            extra.append(reading)
        else:
            free.remove(best)
            matches.append(Match(best, reading))
    return matches, free, extra


def extras_on_a_die(
    truth: Sequence[TruthDie], matches: Sequence[Match[DieReading]], extra: Sequence[DieReading]
) -> int:
    """How many unflagged extras read a labelled die right with a box off its label (IoU under 0.5): each lies on
    the die (its centre in the die's box; of several, the one it overlaps most), names its face, and is the only
    unflagged reading on it. A second unflagged reading on one die counts the die twice and is not one of them."""
    accepted_on = {id(m.truth) for m in matches if not m.reading.uncertain}
    count = 0
    for reading in sorted(extra, key=lambda r: -r.confidence):
        if reading.uncertain:
            continue
        hosts = [t for t in truth if t.box.contains(reading.box.center)]
        if not hosts:
            continue
        host = max(hosts, key=lambda t: reading.box.iou(t.box))
        first = id(host) not in accepted_on
        accepted_on.add(id(host))
        count += first and host.face is not None and reading.face == host.face
    return count


def image_account(image: str, truth: Sequence[TruthDie], readings: Sequence[DieReading]) -> dict[str, object]:
    """One image's dice, die by die: each labelled die with the reading matched to it (None: missed), and
    the readings that match no labelled die (the line `cacho vision eval --details` writes)."""
    matches, _, extra = match(truth, readings)
    found = {id(m.truth): m.reading for m in matches}
    dice = []
    for die in truth:
        reading = found.get(id(die))
        dice.append(
            {
                "label": {"face": die.face, "box": [round(v, 1) for v in die.box.to_list()]},
                "reading": None if reading is None else reading.to_dict(),
            }
        )
    return {"image": image, "dice": dice, "extra": [r.to_dict() for r in extra]}


def average_precision(scores: Sequence[tuple[float, bool]], positives: int) -> float:
    """COCO-style AP (101-point interpolation) from (confidence, is_true_positive) pairs."""
    if positives == 0:
        return float("nan")
    if not scores:
        return 0.0
    ordered = sorted(scores, key=lambda s: -s[0])
    tp = np.cumsum([hit for _, hit in ordered])
    fp = np.cumsum([not hit for _, hit in ordered])
    recall = tp / positives
    precision = tp / np.maximum(tp + fp, 1)
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    return float(np.mean([envelope[i] if i < len(envelope) else 0.0 for i in idx]))


def face_map(pairs: Iterable[tuple[Sequence[TruthDie], Sequence[DieReading]]], iou: float) -> float:
    """mAP over the six faces at one IoU threshold (a detection counts only with the right face)."""
    per_face: dict[int, list[tuple[float, bool]]] = {f: [] for f in range(1, 7)}
    positives = dict.fromkeys(range(1, 7), 0)
    for truth, readings in pairs:
        for face in range(1, 7):
            labelled = [t for t in truth if t.face == face]
            positives[face] += len(labelled)
            predicted = [r for r in readings if r.face == face]
            matches, _, extra = match(labelled, predicted, iou)
            per_face[face] += [(m.reading.confidence, True) for m in matches]
            per_face[face] += [(r.confidence, False) for r in extra]
    aps = [average_precision(per_face[f], positives[f]) for f in range(1, 7) if positives[f]]
    return float(np.mean(aps)) if aps else float("nan")


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One point of the risk-coverage curve: the dice a rule "both readings agree and the classifier is at least
    `level` sure" would accept, and how many of those are not a labelled die read right."""

    level: float
    labelled: int
    accepted: int
    wrong: int  # a wrong face, a cocked die, or no die at all

    @property
    def coverage(self) -> float:
        """Dice accepted over dice labelled."""
        return self.accepted / self.labelled if self.labelled else float("nan")

    @property
    def risk(self) -> float:
        """Dice wrong among those accepted (0 when none is)."""
        return self.wrong / self.accepted if self.accepted else 0.0

    def to_dict(self) -> dict[str, object]:
        """JSON form, with the two shares."""
        return {
            "level": self.level,
            "accepted": self.accepted,
            "wrong": self.wrong,
            "coverage": self.coverage,
            "risk": self.risk,
        }


def agreed_probability(reading: DieReading) -> float:
    """The classifier's probability for the face read when the pip count names the same face; 0 otherwise."""
    model = [g for g in reading.guesses if g.method == CLASSIFIER and g.face == reading.face]
    pips = [g for g in reading.guesses if g.method == PIP_COUNT and g.face == reading.face]
    return model[0].confidence if model and pips else 0.0


def risk_coverage(
    pairs: Iterable[tuple[Sequence[TruthDie], Sequence[DieReading]]], levels: Sequence[float] = CURVE_LEVELS
) -> tuple[CurvePoint, ...]:
    """The risk-coverage curve of the rule "both readings agree, the classifier at least this sure", whatever the
    reader's other checks said: one point per level."""
    scored: list[tuple[float, bool]] = []  # (agreed probability, read right)
    labelled = 0
    for truth, readings in pairs:
        matches, _, extra = match(truth, readings)
        labelled += len(truth)
        scored += [(agreed_probability(m.reading), m.truth.face == m.reading.face) for m in matches]
        scored += [(agreed_probability(r), False) for r in extra]
    points = []
    for level in levels:
        taken = [right for p, right in scored if p > 0 and p >= level]
        points.append(CurvePoint(level, labelled, len(taken), sum(not right for right in taken)))
    return tuple(points)


@dataclass(frozen=True, slots=True)
class Report:
    """The figures `cacho vision eval` prints."""

    images: int
    labelled: int
    predicted: int
    matched: int
    precision: float
    recall: float
    map50: float
    map50_95: float
    face_accuracy: float  # of the matched dice with a face up (a cocked die has none to read)
    uncertain_share: float
    wrong_faces: int  # dice with a face up read as another face
    caught: int  # wrong faces flagged uncertain
    cocked: int  # matched cocked dice
    cocked_flagged: int  # cocked dice flagged uncertain: the right reading of a die with no face up
    silent_errors: int  # wrong faces and cocked dice not flagged
    silent_extra: int  # dice that are not there, not flagged
    silent_extra_on_die: int  # of those, a labelled die's face read right with a box off its label (extras_on_a_die)
    images_all_right: float  # every die found with its face, nothing extra
    images_all_right_unflagged: float  # the same, and nothing for the coordinator to check
    flagged: int  # dice read and flagged uncertain (extras included): each one the coordinator looks at
    curve: tuple[CurvePoint, ...] = ()  # risk_coverage: what a calibrated "sure" level would accept

    @property
    def load(self) -> float:
        """The coordinator's load: dice missed, flagged or silently wrong, over dice labelled."""
        missed = self.labelled - self.matched
        return (missed + self.flagged + self.silent_errors) / self.labelled if self.labelled else float("nan")

    @property
    def unsafe(self) -> int:
        """Readings that would rule wrongly unflagged: silent errors, plus extras less those reading a die right."""
        return self.silent_errors + self.silent_extra - self.silent_extra_on_die

    def to_dict(self) -> dict[str, object]:
        """JSON form, with the load and the unsafe readings."""
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "curve"}
        curve = [point.to_dict() for point in self.curve]
        return {**fields, "load": self.load, "unsafe": self.unsafe, "risk_coverage": curve}

    def lines(self) -> list[str]:
        """Readable lines."""
        return [
            f"imágenes {self.images} · dados etiquetados {self.labelled} · leídos {self.predicted}",
            f"detección: precisión {self.precision:.3f} · recall {self.recall:.3f}",
            f"mAP50 {self.map50:.3f} · mAP50-95 {self.map50_95:.3f}",
            f"cara correcta (dados encontrados con una cara arriba): {self.face_accuracy:.3%}",
            f"marcados dudosos: {self.uncertain_share:.1%} de los leídos",
            f"caras equivocadas {self.wrong_faces}: atrapadas por la duda {self.caught}",
            f"dados montados {self.cocked}: marcados dudosos {self.cocked_flagged}",
            f"errores silenciosos (cara equivocada o dado montado sin marcar): {self.silent_errors}",
            f"dados de más sin marcar: {self.silent_extra} (de ellos, {self.silent_extra_on_die} leen bien la cara de "
            "un dado etiquetado con una caja que no coincide con la suya)",
            f"imágenes con todos los dados bien: {self.images_all_right:.1%} "
            f"(y sin nada que revisar: {self.images_all_right_unflagged:.1%})",
            f"carga del coordinador (dados no encontrados, marcados o equivocados, sobre los etiquetados): "
            f"{self.load:.1%} · lecturas inseguras: {self.unsafe}",
            *self._curve_lines(),
        ]

    def _curve_lines(self) -> list[str]:
        """The risk-coverage curve, one line per level, after the reader's own point."""
        if not self.curve:
            return []
        accepted = self.predicted - self.flagged
        own = self.unsafe / accepted if accepted else 0.0
        lines = [
            "riesgo y cobertura (aceptados sobre etiquetados · equivocados entre los aceptados): el lector, "
            f"{accepted / self.labelled if self.labelled else float('nan'):.1%} · {own:.2%}; si se aceptara "
            "todo dado en que las dos lecturas coinciden y el clasificador está seguro al menos en:"
        ]
        lines += [f"  {p.level:g}: {p.coverage:.1%} · {p.risk:.2%} ({p.wrong} de {p.accepted})" for p in self.curve]
        return lines


def evaluate(pairs: Sequence[tuple[Sequence[TruthDie], Sequence[DieReading]]]) -> Report:
    """Score readings against labels, image by image. A cocked die (no face up) is read right when it is
    flagged uncertain, whatever face the reading names; unflagged it is a silent error."""
    labelled = predicted = matched = wrong = caught = silent = silent_extra = on_die = uncertain = 0
    right_faces = all_right = all_right_unflagged = cocked = cocked_flagged = 0
    for truth, readings in pairs:
        matches, missed, extra = match(truth, readings)
        labelled += len(truth)
        predicted += len(readings)
        matched += len(matches)
        uncertain += sum(r.uncertain for r in readings)
        silent_extra += sum(not r.uncertain for r in extra)
        on_die += extras_on_a_die(truth, matches, extra)
        image_ok = not missed and not extra
        for m in matches:
            if m.truth.face is None:
                cocked += 1
                cocked_flagged += m.reading.uncertain
                if not m.reading.uncertain:
                    image_ok = False
                    silent += 1
            elif m.reading.face == m.truth.face:
                right_faces += 1
            else:
                image_ok = False
                wrong += 1
                if m.reading.uncertain:
                    caught += 1
                else:
                    silent += 1
        all_right += image_ok
        all_right_unflagged += image_ok and not any(r.uncertain for r in readings)
    images = len(pairs)
    thresholds = np.arange(0.5, 0.96, 0.05)
    return Report(
        images=images,
        labelled=labelled,
        predicted=predicted,
        matched=matched,
        precision=matched / predicted if predicted else float("nan"),
        recall=matched / labelled if labelled else float("nan"),
        map50=face_map(pairs, 0.5),
        map50_95=float(np.mean([face_map(pairs, float(t)) for t in thresholds])),
        face_accuracy=right_faces / (matched - cocked) if matched > cocked else float("nan"),
        uncertain_share=uncertain / predicted if predicted else 0.0,
        wrong_faces=wrong,
        caught=caught,
        cocked=cocked,
        cocked_flagged=cocked_flagged,
        silent_errors=silent,
        silent_extra=silent_extra,
        silent_extra_on_die=on_die,
        images_all_right=all_right / images if images else float("nan"),
        images_all_right_unflagged=all_right_unflagged / images if images else float("nan"),
        flagged=uncertain,
        curve=risk_coverage(pairs),
    )


@dataclass(frozen=True, slots=True)
class FinderPoint:
    """The finder alone at one confidence: its boxes, the labelled dice they match one to one (IoU 0.5, as `eval`
    matches), and the dice some box covers at IoU 0.5, the most that any reader behind this finder could find."""

    confidence: float
    images: int
    labelled: int
    boxes: int
    matched: int
    covered: int

    @property
    def recall(self) -> float:
        """Labelled dice matched one to one."""
        return self.matched / self.labelled if self.labelled else float("nan")

    @property
    def precision(self) -> float:
        """Boxes that match a labelled die."""
        return self.matched / self.boxes if self.boxes else float("nan")

    @property
    def ceiling(self) -> float:
        """Labelled dice that some box covers at IoU 0.5."""
        return self.covered / self.labelled if self.labelled else float("nan")

    def to_dict(self) -> dict[str, object]:
        """JSON form, with the three shares."""
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return {**fields, "recall": self.recall, "precision": self.precision, "ceiling": self.ceiling}

    def line(self) -> str:
        """One readable line."""
        return (
            f"confianza ≥ {self.confidence:g}: {self.boxes} cajas "
            f"({self.boxes / max(self.images, 1):.1f} por imagen) · "
            f"recall {self.recall:.3f} · precisión {self.precision:.3f} · "
            f"techo (dados con alguna caja de IoU ≥ 0.5) {self.ceiling:.3f}"
        )


def finder_points(
    pairs: Sequence[tuple[Sequence[TruthDie], Sequence[Detection]]], confidences: Sequence[float]
) -> list[FinderPoint]:
    """The finder alone at each confidence, from its boxes at the lowest of them (the same NMS for every point)."""
    points = []
    for confidence in confidences:
        boxes = matched = covered = labelled = 0
        for truth, detections in pairs:
            kept = [d for d in detections if d.confidence >= confidence]
            labelled += len(truth)
            boxes += len(kept)
            matched += len(match(truth, kept)[0])
            covered += sum(any(d.box.iou(t.box) >= MATCH_IOU for d in kept) for t in truth)
        points.append(FinderPoint(confidence, len(pairs), labelled, boxes, matched, covered))
    return points
