"""Card readings measured against a rendered (or hand-labelled) YOLO folder with a meta/ JSON per image.

A reading is one physical card: `{"card": "10H" | None, "face_down": bool, "confidence": float, "box": [x1, y1,
x2, y2], "uncertain": bool, "reasons": [...]}`, as `cacho cards read --json` gives it. Nothing here reads a photo.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2

from vision.cards.notation import CLASS_NAMES, SUITS, parse_card
from vision.types import Box

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
BACK = "BACK"  # the class of a card's back in a folder labelled by hand: a card face down
MATCH_IOU = 0.3  # a reading's box against a card's seen part, its indices or its whole outline


@dataclass(frozen=True)
class TruthCard:
    """A card that can be read in the image: face up with a labelled index, or face down; `optional`: seen only by
    a corner partly covered (the meta's `covered`), so reading it is not required, but reading it wrong and sure is a
    silent error."""

    card: str | None
    face_down: bool
    boxes: tuple[tuple[float, float, float, float], ...]
    optional: bool = False
    # a set that boxes whole cards, not their indices: a reading matches the card whose box holds its corners
    whole_only: bool = False


@dataclass
class CardScores:
    """The figures of `cacho cards eval` (load and silent errors over the cards shown)."""

    images: int = 0
    shown: int = 0
    face_down: int = 0
    readings: int = 0
    matched: int = 0
    right: int = 0
    right_sure: int = 0
    flagged: int = 0
    wrong_flagged: int = 0
    silent_errors: int = 0
    extra: int = 0
    silent_extra: int = 0
    images_all_right: int = 0
    recall: float = 0.0
    card_accuracy: float = 0.0
    load: float = 0.0
    silent_rate: float = 0.0
    images_all_right_share: float = 0.0
    errors: list[dict[str, Any]] = field(default_factory=list)
    # the unflagged extra readings, one by one: a sure card where the labels have none (a right reading of a card
    # they leave out, or a card that is not there)
    extras: list[dict[str, Any]] = field(default_factory=list)
    # a rendered folder's figures game by game (its metas name each table's game): each game's scene has the target
    games: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the suit read against the suit shown, of every card face up read as a card: {"sure" | "flagged": {"CS": n}},
    # "CS" a clubs card read as spades (a wrong suit accepted sure is a silent wrong ruling: a flush, a trick)
    suits: dict[str, dict[str, int]] = field(default_factory=lambda: {"sure": {}, "flagged": {}})

    @property
    def sure_suit_errors(self) -> int:
        """Cards accepted sure with the wrong suit."""
        return sum(n for pair, n in self.suits["sure"].items() if pair[0] != pair[1])

    def to_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready dict."""
        return {**asdict(self), "sure_suit_errors": self.sure_suit_errors}


def _name(text: str) -> str:
    name = text.strip(" '\"")
    return BACK if name.upper() == BACK else parse_card(name)


def class_names(folder: Path) -> tuple[str, ...]:
    """The class names of a YOLO folder's data.yaml (`names:` as a list or a mapping): card codes or BACK."""
    text = (folder / "data.yaml").read_text()
    names: dict[int, str] = {}
    inside = False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if line.startswith("names:"):
            rest = line[len("names:") :].strip()
            if rest.startswith("["):
                return tuple(_name(n) for n in rest.strip("[]").split(",") if n.strip())
            inside = True
            continue
        if inside:
            if not line.startswith((" ", "\t")):
                break
            item = line.strip()
            if item.startswith("- "):
                names[len(names)] = _name(item[2:])
            elif ":" in item:
                key, value = item.split(":", 1)
                names[int(key)] = _name(value)
    return tuple(names[i] for i in sorted(names))


def truth_cards(meta: Mapping[str, Any], labels: Sequence[str], names: Sequence[str]) -> list[TruthCard]:
    """The cards shown in one image: each meta card with a labelled index (its class checked) or face down."""
    width, height = meta["size"]
    boxes = []
    for line in labels:
        cls, cx, cy, w, h = line.split()
        x, y, bw, bh = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        boxes.append((names[int(cls)], (x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2)))
    shown = []
    for card in meta["cards"]:
        outline = card["polygon"]
        whole = (
            min(p[0] for p in outline),
            min(p[1] for p in outline),
            max(p[0] for p in outline),
            max(p[1] for p in outline),
        )
        seen = tuple(card["visible_box"]) if card.get("visible_box") else whole
        if card.get("corners_unlabelled"):
            shown.append(TruthCard(parse_card(card["card"]), bool(card["face_down"]), (whole,), whole_only=True))
            continue
        if card["face_down"]:
            shown.append(TruthCard(None, True, (seen, whole)))
            continue
        mine = [boxes[i] for i in card["indices"]]
        for name, _ in mine:
            if name != card["card"]:
                raise ValueError(f"la etiqueta {name} no es la carta {card['card']} de su meta")
        covered = tuple(tuple(corner["box"]) for corner in card.get("covered", ()))
        if mine or covered:
            truth_boxes = (seen, whole, *(box for _, box in mine), *covered)
            shown.append(TruthCard(card["card"], False, truth_boxes, optional=not mine))
    return shown


def truth_from_labels(labels: Sequence[str], names: Sequence[str], size: Sequence[int]) -> list[TruthCard]:
    """The cards of a hand-labelled image with no meta: corners paired by class and nearness, BACK face down."""
    # Two corners of one class within six index sides of each other are one card; a corner left alone is a card.
    width, height = size
    boxes = []
    for line in labels:
        cls, cx, cy, w, h = line.split()
        x, y, bw, bh = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        boxes.append((names[int(cls)], (x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2)))
    pairs = []
    for i, (name_i, a) in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            name_j, b = boxes[j]
            if name_i == name_j != BACK:
                gap = math.dist(((a[0] + a[2]) / 2, (a[1] + a[3]) / 2), ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2))
                reach = 6 * max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
                if gap <= reach:
                    pairs.append((gap, i, j))
    partner: dict[int, int] = {}
    for _, i, j in sorted(pairs):
        if i not in partner and j not in partner:
            partner[i], partner[j] = j, i
    shown = []
    for i, (name, box) in enumerate(boxes):
        if partner.get(i, len(boxes)) < i:
            continue
        group = [box] + ([boxes[partner[i]][1]] if i in partner else [])
        whole = (
            min(b[0] for b in group),
            min(b[1] for b in group),
            max(b[2] for b in group),
            max(b[3] for b in group),
        )
        shown.append(TruthCard(None if name == BACK else name, name == BACK, (whole, *group)))
    return shown


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes [x1, y1, x2, y2]."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def match_score(truth: TruthCard, reading: Mapping[str, Any]) -> float:
    """How well a reading lies on a card: its best corner's IoU with one of the card's boxes or, for a card boxed
    whole, the share of its corners inside the box, more where it names that card, less a little for their distance
    from the box's nearest corner (in a fan one card's box holds another's corners too: a wrong name given there is
    matched elsewhere or leaves the card it belongs to unmatched, a reading of more or a card missed)."""
    mine = reading.get("indices") or [reading["box"]]
    if not truth.whole_only:
        return max(iou(index, box) for box in truth.boxes for index in mine)
    outline = truth.boxes[0]
    held = sum(Box(*index).overlap_share(Box(*outline)) >= 0.5 for index in mine) / len(mine)
    if not held:
        return 0.0
    diagonal = math.hypot(outline[2] - outline[0], outline[3] - outline[1])
    gaps = [
        min(math.dist(((i[0] + i[2]) / 2, (i[1] + i[3]) / 2), (x, y)) for x in outline[::2] for y in outline[1::2])
        for i in mine
    ]
    same = reading.get("card") is not None and reading["card"] == truth.card
    return 0.5 * held + 0.3 * same + 0.2 * (1 - min(1.0, sum(gaps) / len(gaps) / diagonal))


def _is_right(truth: TruthCard, reading: Mapping[str, Any]) -> bool:
    if truth.face_down:
        return bool(reading.get("face_down")) and reading.get("card") is None
    return (
        not reading.get("face_down") and reading.get("card") is not None and parse_card(reading["card"]) == truth.card
    )


def matches(truths: Sequence[TruthCard], readings: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """Each card's reading (their places), each reading matched to at most one card, best overlap first."""
    pairs = sorted(
        ((match_score(truth, reading), t, r) for t, truth in enumerate(truths) for r, reading in enumerate(readings)),
        reverse=True,
    )
    match: dict[int, int] = {}
    taken: set[int] = set()
    for overlap, t, r in pairs:
        if overlap < MATCH_IOU:
            break
        if t not in match and r not in taken:
            match[t] = r
            taken.add(r)
    return match


def score_image(
    truths: Sequence[TruthCard], readings: Sequence[Mapping[str, Any]], scores: CardScores, image: str = ""
) -> None:
    """Add one image's readings to `scores`: each reading matched to at most one card, best overlap first (a
    reading's boxes are its corner indices where it gives them: a set that labels one corner of a card matches the
    card read from another). An optional card counts only when it is read wrong and sure."""
    match = matches(truths, readings)
    taken = set(match.values())
    all_right = True
    scores.images += 1
    scores.shown += sum(not t.optional for t in truths)
    scores.face_down += sum(t.face_down for t in truths)
    scores.readings += len(readings)
    for t, truth in enumerate(truths):
        if truth.optional:
            if t in match and not readings[match[t]].get("uncertain") and not _is_right(truth, readings[match[t]]):
                all_right = False
                scores.silent_errors += 1
                scores.errors.append(
                    {"image": image, "truth": truth.card, "covered": True, "reading": dict(readings[match[t]])}
                )
            continue
        if t not in match:
            all_right = False
            continue
        reading = readings[match[t]]
        scores.matched += 1
        sure = not reading.get("uncertain")
        scores.flagged += not sure
        _count_suits(truth, reading, scores.suits["sure" if sure else "flagged"])
        if _is_right(truth, reading):
            scores.right += 1
            scores.right_sure += sure
            all_right = all_right and sure
            continue
        all_right = False
        if sure:
            scores.silent_errors += 1
            scores.errors.append(
                {"image": image, "truth": truth.card, "face_down": truth.face_down, "reading": dict(reading)}
            )
        else:
            scores.wrong_flagged += 1
    for r, reading in enumerate(readings):
        if r in taken:
            continue
        scores.extra += 1
        if not reading.get("uncertain"):
            scores.silent_extra += 1
            scores.extras.append({"image": image, "reading": dict(reading)})
            all_right = False
    scores.images_all_right += all_right


def enlarged(reading: Mapping[str, Any], factor: float) -> dict[str, Any]:
    """A reading of a reduced copy of the image, its boxes back in the image's pixels (`factor`: 1 / the reduction)."""

    def grown(box: Sequence[float]) -> list[float]:
        return [v * factor for v in box]

    return {**reading, "box": grown(reading["box"]), "indices": [grown(b) for b in reading.get("indices", ())]}


def _count_suits(truth: TruthCard, reading: Mapping[str, Any], table: dict[str, int]) -> None:
    """One more in `table` for the suit shown and the suit read (a card face up read as a card, face up)."""
    if truth.face_down or truth.card is None or reading.get("face_down") or not reading.get("card"):
        return
    pair = truth.card[-1] + parse_card(reading["card"])[-1]
    table[pair] = table.get(pair, 0) + 1


def suit_table(suits: Mapping[str, int]) -> list[str]:
    """The suit confusion table as lines: a row per suit shown, a column per suit read."""
    head = "mostrado \\ leído " + " ".join(f"{s:>6}" for s in SUITS)
    rows = [f"{shown:>17} " + " ".join(f"{suits.get(shown + read, 0):>6}" for read in SUITS) for shown in SUITS]
    return [head, *rows]


def finish(scores: CardScores) -> CardScores:
    """Fill in the shares once every image is scored."""
    scores.recall = scores.matched / scores.shown if scores.shown else 1.0
    scores.card_accuracy = scores.right / scores.matched if scores.matched else 0.0
    scores.load = (scores.shown - scores.right_sure) / scores.shown if scores.shown else 0.0
    scores.silent_rate = scores.silent_errors / scores.shown if scores.shown else 0.0
    scores.images_all_right_share = scores.images_all_right / scores.images if scores.images else 0.0
    return scores


def images_of(folder: Path, split: str | None = None) -> list[Path]:
    """The images of a YOLO folder (or of its split), sorted."""
    root = folder / "images" / split if split else folder / "images"
    return sorted(p for p in root.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) if root.is_dir() else []


def readings_from_jsonl(text: str) -> dict[str, list[dict[str, Any]]]:
    """Readings by image file name from `cacho cards read --json` lines (`{"image", "cards"}`; error lines skipped)."""
    readings: dict[str, list[dict[str, Any]]] = {}
    for line in text.splitlines():
        if line.strip():
            entry = json.loads(line)
            if "cards" in entry:
                readings[Path(entry["image"]).name] = list(entry["cards"])
    return readings


def _image_size(image: Path) -> tuple[int, int]:
    pixels = cv2.imread(str(image), cv2.IMREAD_UNCHANGED)
    if pixels is None:
        raise ValueError(f"no se puede leer la imagen {image}")
    return int(pixels.shape[1]), int(pixels.shape[0])


def evaluate_folder(
    folder: Path,
    readings: Mapping[str, Sequence[Mapping[str, Any]]],
    split: str | None = None,
    with_meta: bool = True,
) -> CardScores:
    """Score readings (by image file name) on a YOLO folder with labels/ and meta/; a missing reading reads nothing."""
    # with_meta False: an image with no meta has its cards made from its labels (truth_from_labels).
    images = images_of(folder, split)
    if not images:
        raise FileNotFoundError(f"no hay imágenes en {folder / 'images' / (split or '')}")
    scores = CardScores()
    games: dict[str, CardScores] = {}
    for image in images:
        truths = truths_of(folder, image, split, with_meta)
        score_image(truths, readings.get(image.name, ()), scores, image.name)
        game = game_of(folder, image, split)
        if game is not None:
            score_image(truths, readings.get(image.name, ()), games.setdefault(game, CardScores()), image.name)
    scores.games = {game: summary(finish(games[game])) for game in sorted(games)}
    return finish(scores)


def _meta_path(folder: Path, image: Path, split: str | None = None) -> Path:
    """Where an image's meta lies: its stem as it is (Roboflow's names hold dots, which with_suffix would cut)."""
    rel = Path(split, image.stem) if split else Path(image.stem)
    return folder / "meta" / f"{rel}.json"


def game_of(folder: Path, image: Path, split: str | None = None) -> str | None:
    """The game of a rendered table, from its meta (None: no meta, or one that names no game)."""
    path = _meta_path(folder, image, split)
    game = json.loads(path.read_text()).get("game") if path.exists() else None
    return str(game) if game else None


def summary(scores: CardScores) -> dict[str, Any]:
    """The headline figures of a part of a folder."""
    keys = ("images", "shown", "recall", "load", "silent_errors", "silent_extra")
    return {key: getattr(scores, key) for key in keys}


def truths_of(folder: Path, image: Path, split: str | None = None, with_meta: bool = True) -> list[TruthCard]:
    """The cards an image of a YOLO folder shows, from its meta, or (`with_meta` False, no meta) from its labels."""
    names = class_names(folder) if (folder / "data.yaml").exists() else CLASS_NAMES
    meta_path = _meta_path(folder, image, split)
    rel = Path(split, image.stem) if split else Path(image.stem)
    label_path = folder / "labels" / f"{rel}.txt"
    labels = [line for line in label_path.read_text().split("\n") if line.strip()] if label_path.exists() else []
    if meta_path.exists():
        return truth_cards(json.loads(meta_path.read_text()), labels, names)
    if with_meta:
        raise FileNotFoundError(f"falta el meta de {image.name}: {meta_path}")
    return truth_from_labels(labels, names, _image_size(image))
