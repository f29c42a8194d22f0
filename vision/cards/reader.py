"""The card reader: a YOLO finder of corner indices and card backs, then a classifier that names the card of each
index crop.

A whole still is first looked at reduced threefold by the spotter (`spotter.pt`), and each index it spots is found
again by the finder at full resolution in a small window round it; without a spotter, or on a picture no larger
than the spotter's copy, the finder runs over 640 px tiles of the frame at full resolution.

A card is read from its corner indices. Its corners are readings of different pixels: a card whose corners are
named the same and, all together, make it sure enough (`joint`; and, where the models have a second classifier, that
one names it on every corner that counts, or, with `agree`, makes it so sure on all of them), is accepted; a card
with one corner in view (a fan, an overlap) is accepted only when both classifiers name it, the first sure
(`alone`); the rest goes to the coordinator, flagged with its reasons. A corner the second classifier names as the
card beside it is taken for that card's, misnamed, and leaves the card (`strays`). The corners of a card of two or
more in doubt are read once more by the first classifier, turned by every quarter (`again`), and the card judged
again. Where the models have a face reader (`face_cls.pt`) and a card's corners lie at two ends of it, the face between
them (its pips or picture, not its indices) is a reading made of other pixels: where it names the card (`face`), a
second classifier's dissent on a corner no longer doubts it.
A back is a card face down, never a guess.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards.dataset import BACK_CLASS, FINDER_NAMES, NAMES
from vision.cards.index_classifier import (
    FACE_NAME,
    RANK_NAME,
    SECOND_NAME,
    SUIT_NAME,
    WEIGHTS_NAME,
    IndexClassifier,
    crop,
    grayed,
)
from vision.cards.notation import CLASS_NAMES, CLASS_OF, RANKS, SUITS
from vision.cards.seams import NAME as SEAM_NAME
from vision.cards.seams import REACH, SeamClassifier, near
from vision.onnx_session import need_torch, runtime_weights
from vision.onnx_yolo import OnnxYolo
from vision.reasons import CardReasonCode, Reason
from vision.types import Box, Frame

MODELS = Path(__file__).resolve().parents[2] / "models" / "cards"
FINDER_NAME = "finder.pt"
SPOTTER_NAME = "spotter.pt"
SPOT_SIZE = 1536  # the long side of the copy the spotter looks at (a 4608 px still reduced threefold)
STILL_SIDE = 4608  # the long side of the camera's still: a smaller frame is a piece of one, at its scale
WINDOW = 96  # the full-resolution window round a spot: half again an index's long side at the camera's scale (40-60 px)
WINDOW_REACH = 1.8  # ... or this many of the spots' median long side, where the indices are larger
TILE = 640
OVERLAP = 128  # more than an index's long side at the camera's scale (40-60 px), so each is whole in some tile
EDGE = 3  # a box this close to a tile's inner edge is cut by it: the neighbouring tile sees it whole
PAIR_REACH = REACH  # corners of one card lie within this many index sides of each other (as vision.cards.evaluate)
PART_OF_INDEX = 0.75  # a box under this share of its neighbours' median side holds part of an index
NEIGHBOURS = 4  # the indices nearest a lone corner that say how large an index is there (a photo's far side is smaller)
RIVAL_SHARE = 0.3  # a different code read at the same place with this share of the winner's confidence
Apart = Callable[[list[tuple["IndexHit", "IndexHit"]]], list[bool]]  # which corners of one code are of two cards
Faces = Callable[[Box], tuple[float, ...]]  # the face reader's probability of every code for the card in a box
FACE_SPREAD = 3.0  # corners this many index sides apart lie at two ends of a card: the box round them holds its face
TWIN = {"S": "C", "C": "S", "H": "D", "D": "H"}  # the other suit of the same colour: what colour cannot tell apart
SUIT_WORDS = {"S": "picas", "H": "corazones", "D": "diamantes", "C": "tréboles"}


@dataclass(frozen=True, slots=True)
class IndexHit:
    """One corner index (or a card back) the detector found: its class name, confidence and box in frame pixels."""

    name: str
    confidence: float
    box: Box
    rival: str | None = None  # another code the detector saw in the same place, nearly as sure
    second: str | None = None  # the code the second classifier names there (None: the models have no second)
    probs: tuple[float, ...] = field(default=(), repr=False, compare=False)  # the first classifier's, every code
    second_probs: tuple[float, ...] = field(default=(), repr=False, compare=False)  # the second classifier's
    suit_probs: tuple[float, ...] = field(default=(), repr=False, compare=False)  # the suit reader's, S H D C
    rank_probs: tuple[float, ...] = field(default=(), repr=False, compare=False)  # the rank reader's, A 2-10 J Q K


@dataclass(frozen=True, slots=True)
class CardRead:
    """One physical card: its code (None when face down), how sure, where, and why it goes to the coordinator."""

    card: str | None
    face_down: bool
    confidence: float
    box: Box
    uncertain: bool
    reasons: tuple[str, ...] = ()
    corners: int = 0
    indices: tuple[Box, ...] = ()  # the boxes of the corner indices it was read from (its back's, face down)

    def to_dict(self) -> dict[str, Any]:
        """The `cacho cards read --json` entry."""
        return {
            "card": self.card,
            "face_down": self.face_down,
            "confidence": round(self.confidence, 4),
            "box": [round(v, 1) for v in self.box.to_list()],
            "uncertain": self.uncertain,
            "reasons": list(self.reasons),
            "corners": self.corners,
            "indices": [[round(v, 1) for v in b.to_list()] for b in self.indices],
        }


@dataclass(frozen=True, slots=True)
class CardReading:
    """Every card read in one frame."""

    cards: tuple[CardRead, ...]
    size: tuple[int, int]
    hits: tuple[IndexHit, ...] = field(default=(), repr=False)
    face_reads: dict[Box, tuple[float, ...]] = field(default_factory=dict, repr=False, compare=False)  # by box

    @property
    def uncertain(self) -> tuple[CardRead, ...]:
        """The cards the coordinator must look at."""
        return tuple(c for c in self.cards if c.uncertain)

    def to_dict(self) -> dict[str, Any]:
        """The cards as JSON-ready dictionaries."""
        return {"size": list(self.size), "cards": [c.to_dict() for c in self.cards]}


@dataclass(frozen=True)
class CardSettings:
    """Thresholds of the reader; `alone`: a card seen by one corner is accepted when both classifiers name it and the
    first is this sure (None: never)."""

    floor: float = 0.25  # the finder's own floor: below it a box is not reported at all
    spot: float = 0.05  # the spotter's floor: a spot is only where to look again, the finder decides
    pair: float = 0.9  # each of two agreeing corners at least this sure (set by vision.cards.calibrate)
    alone: float | None = 0.95  # 0.9 was chosen on rendered stills; raised after a silent error (models/cards)
    back: float = 0.6  # a card back at least this sure is a card face down
    apart: float | None = 0.95  # two corners of one code are two cards where the seam model is this sure (None: never)
    turns: int = 1  # each index crop read as it is (1), or its logits averaged over 2 or 4 right-angle turns (slower)
    joint: float | None = 0.995  # two or more corners: the card's probability over all of them (None: `pair` each)
    # two or more corners: the second classifier's probability of the card over all of them (None: it must name the
    # card on every corner that counts; at 0.95 a dark deck's 10D went through as 7D on real photos, models/cards)
    agree: float | None = None
    again: int | None = 4  # a doubted card of two or more corners: they are read again at this many turns (None: never)
    # a card's face between two of its ends, named the card at this level, overrules a second classifier's dissent on
    # a corner (None: never; models without a face reader never)
    face: float | None = 0.5
    # one corner: the second classifier names the card at this level too, as two corners must each be sure at `pair`
    # (None: naming it is enough; then a joker's lettering and a club pip went through as cards, models/cards)
    lone_second: float | None = 0.9
    # a face-up card whose largest corner index is shorter than this (pixels of the frame read): its suit glyph is a
    # few pixels, where both classifiers agreed on the wrong suit, sure; it is sure only where the suit and rank
    # readers name it (`rank`; None: never flagged for it; the bound and its measure in models/cards/README.md)
    suit_floor: float | None = 20.0
    # a face-up card's suit against the other of its colour (clubs or spades, hearts or diamonds), by the suit reader
    # over all its corners: accepted from this share (None: not asked; models without a suit reader never ask)
    suit: float | None = 0.99
    # under `suit_floor`, a card whose suit the suit reader told is accepted where the rank reader (taught on small
    # indices too) names its rank, over all its corners, at this level (None: never; models without one never)
    rank: float | None = 0.99
    # and never under this many pixels (None: no such floor)
    least_index: float | None = 12.0


def tiles(width: int, height: int, tile: int = TILE, overlap: int = OVERLAP) -> list[tuple[int, int]]:
    """Top-left corners of tiles covering the frame at full resolution, evenly spread, overlapping by `overlap`."""

    def starts(size: int) -> list[int]:
        if size <= tile:
            return [0]
        count = math.ceil((size - tile) / (tile - overlap)) + 1
        return [round(i * (size - tile) / (count - 1)) for i in range(count)]

    return [(x, y) for y in starts(height) for x in starts(width)]


def merge(hits: list[IndexHit], iou: float = 0.5) -> list[IndexHit]:
    """One hit per place, the surest; a different code seen there nearly as sure is kept as its rival."""
    kept: list[IndexHit] = []
    for hit in sorted(hits, key=lambda h: -h.confidence):
        for i, other in enumerate(kept):
            if hit.box.iou(other.box) >= iou:
                if hit.name != other.name and other.rival is None and hit.confidence >= RIVAL_SHARE * other.confidence:
                    kept[i] = IndexHit(other.name, other.confidence, other.box, hit.name)
                break
        else:
            kept.append(hit)
    return kept


def join_backs(hits: list[IndexHit]) -> list[IndexHit]:
    """Card backs that overlap joined into one: a back cut by tiles (cards face down in a heap then count as one,
    which is why the spotter's backs, seen whole, are not joined)."""
    backs = [h for h in hits if h.name == NAMES[BACK_CLASS]]
    joined: list[IndexHit] = []
    for hit in sorted(backs, key=lambda h: -h.confidence):
        for i, other in enumerate(joined):
            if hit.box.iou(other.box) > 0:
                joined[i] = IndexHit(other.name, other.confidence, union([hit.box, other.box]))
                break
        else:
            joined.append(hit)
    return [h for h in hits if h.name != NAMES[BACK_CLASS]] + joined


def split_heaps(hits: list[IndexHit], seen: list[IndexHit]) -> list[IndexHit]:
    """A joined back holding the centres of two or more backs `seen` whole is those backs: cards face down in a heap."""
    kept: list[IndexHit] = []
    for hit in hits:
        inside = [b for b in seen if hit.box.contains(b.box.center)] if hit.name == NAMES[BACK_CLASS] else []
        kept.extend(inside if len(inside) >= 2 else [hit])
    return kept


def union(boxes: list[Box]) -> Box:
    """The smallest box holding all the boxes."""
    return Box(min(b.x1 for b in boxes), min(b.y1 for b in boxes), max(b.x2 for b in boxes), max(b.y2 for b in boxes))


def pair_corners(hits: list[IndexHit], apart: Apart | None = None) -> list[list[IndexHit]]:
    """Corners grouped into cards: corners of one code each within PAIR_REACH index sides of another are one card
    (a card shows up to four), unless `apart` says two such corners are of two cards (twins of two decks side by
    side); any other corner a card alone; each back is a card face down."""
    faces = [h for h in hits if h.name != NAMES[BACK_CLASS]]
    parent = list(range(len(faces)))
    close = close_pairs(faces)
    parted = apart([(faces[i], faces[j]) for i, j in close]) if apart is not None and close else [False] * len(close)

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for (i, j), two in zip(close, parted, strict=True):
        if not two:
            parent[root(j)] = root(i)
    groups: dict[int, list[IndexHit]] = {}
    for i, hit in enumerate(faces):
        groups.setdefault(root(i), []).append(hit)
    return list(groups.values()) + [[h] for h in hits if h.name == NAMES[BACK_CLASS]]


def close_pairs(faces: list[IndexHit]) -> list[tuple[int, int]]:
    """The places (i < j) of every two corners of one code near enough to be corners of one card."""
    return [
        (i, j)
        for i, a in enumerate(faces)
        for j in range(i + 1, len(faces))
        if a.name == faces[j].name and _near(a, faces[j])
    ]


def judge(
    group: list[IndexHit], settings: CardSettings, typical: float | None = None, face_reader: Faces | None = None
) -> CardRead:
    """One card from its corners (or its back), with the reasons it is not sure; `typical`: the median side of the
    indices nearest a lone corner (one boxed much smaller is part of an index); `face_reader`: see cards_of."""
    # the surest corner's box: two corners along one edge would make a thin band that boxes no card
    box = max(group, key=lambda h: h.confidence).box
    # two corners named alike, each sure, are the two readings: a third, fainter corner of the same name (half
    # hidden in a fan, or the card's picture taken for an index) adds no doubt
    ranked = sorted((h.confidence for h in group), reverse=True)
    confidence = ranked[1] if len(ranked) >= 2 else ranked[0]
    if group[0].name == NAMES[BACK_CLASS]:
        sure = confidence >= settings.back
        doubts = () if sure else (Reason(CardReasonCode.BACK_DOUBTFUL),)
        return CardRead(None, True, confidence, box, not sure, doubts, 0, tuple(h.box for h in group))
    reasons: list[str] = []
    # a second classifier, made differently, must name the card: judged on all its corners, as the first judges it
    # (`agree`), or on every corner that counts, where once two corners are each sure, a corner the first classifier
    # itself doubts is no evidence either way
    sure_corners = [h for h in group if h.confidence >= settings.pair]
    voters = sure_corners if len(sure_corners) >= 2 else group
    agree = settings.agree if settings.joint is not None and len(group) >= 2 else None
    if agree is not None and all(h.probs and h.second_probs for h in group):
        share = card_probs([h.second_probs for h in group])
        second = CLASS_NAMES[int(share.argmax())]
        others = [second] if second != group[0].name else []
        agreed = float(share[CLASS_OF[group[0].name]])
        if not others and agreed < agree:
            reasons.append(Reason(CardReasonCode.SECOND_DOUBTS, share=agreed))
    else:
        others = sorted({h.second for h in voters if h.second is not None and h.second != group[0].name})
        if others and face_names(group, settings, face_reader):
            others = []  # the card's face, other pixels than its indices, is the second reading
    if others:
        reasons.append(Reason(CardReasonCode.SECOND_SAYS, names=", ".join(others)))
    rivals = sorted({h.rival for h in voters if h.rival})
    if rivals:
        reasons.append(Reason(CardReasonCode.RIVAL, names=", ".join(rivals)))
    if len(group) >= 2:
        if settings.joint is not None and all(h.probs for h in group):
            confidence = joint(group)
            if confidence < settings.joint:
                reasons.append(Reason(CardReasonCode.CORNERS_DOUBTFUL, confidence=confidence))
        elif confidence < settings.pair:
            reasons.append(Reason(CardReasonCode.CORNERS_DOUBTFUL, confidence=confidence))
    elif settings.alone is None or group[0].second is None:  # one corner: the second classifier is its second reading
        reasons.append(Reason(CardReasonCode.LONE_CORNER))
    elif confidence < settings.alone:
        reasons.append(Reason(CardReasonCode.LONE_CORNER_DOUBTFUL, confidence=confidence))
    elif settings.lone_second is not None and (theirs := _second_share(group[0])) < settings.lone_second:
        reasons.append(Reason(CardReasonCode.LONE_CORNER_SECOND_DOUBTS, share=theirs))
    elif typical and max(group[0].box.width, group[0].box.height) < PART_OF_INDEX * typical:
        # the box holds the rank and not the suit below it (seen half under a chip): the suit read is a guess
        reasons.append(Reason(CardReasonCode.LONE_CORNER_SMALL))
    longest = max(max(h.box.width, h.box.height) for h in group)
    suited = settings.suit is not None and all(h.suit_probs for h in group)
    if settings.suit_floor is not None and longest < settings.suit_floor:
        # the index classifiers misread suits and ranks there, sure (2S read 2C, 5C read 7C): the readers taught on
        # small indices must name both
        named = settings.rank is not None and all(h.rank_probs for h in group)
        if not (suited and named) or (settings.least_index is not None and longest < settings.least_index):
            reasons.append(Reason(CardReasonCode.INDEX_TOO_SMALL, side=longest))
        elif settings.rank is not None and (told := rank_share(group)) < settings.rank:
            reasons.append(Reason(CardReasonCode.RANK_DOUBTFUL, side=longest, share=told))
    if suited and settings.suit is not None:
        suit = group[0].name[-1]
        told = twin_share(group, suit)
        if told < settings.suit:
            words = {"suit": SUIT_WORDS[suit], "twin": SUIT_WORDS[TWIN[suit]]}
            reasons.append(Reason(CardReasonCode.SUIT_DOUBTFUL, share=told, **words))
    indices = tuple(h.box for h in group)
    return CardRead(group[0].name, False, confidence, box, bool(reasons), tuple(reasons), len(group), indices)


def face_box(group: list[IndexHit]) -> Box | None:
    """The box round a card's corners where some lie at two ends of it, so that its face lies between (else None)."""
    if len(group) < 2:
        return None
    box = union([h.box for h in group])
    side = max(max(h.box.width, h.box.height) for h in group)
    return box if max(box.width, box.height) >= FACE_SPREAD * side else None


def face_names(group: list[IndexHit], settings: CardSettings, face_reader: Faces | None) -> bool:
    """Whether the face reader names the group's card at the settings' `face` level, over the face between its
    corners."""
    where = face_box(group)
    if face_reader is None or settings.face is None or where is None:
        return False
    probs = face_reader(where)
    return (
        bool(probs)
        and int(np.argmax(probs)) == CLASS_OF[group[0].name]
        and probs[CLASS_OF[group[0].name]] >= settings.face
    )


def twin_share(group: list[IndexHit], suit: str) -> float:
    """The suit reader's probability of `suit` against the other of its colour, over all the group's corners."""
    probs = card_probs([h.suit_probs for h in group])
    mine, theirs = probs[SUITS.index(suit)], probs[SUITS.index(TWIN[suit])]
    return float(mine / (mine + theirs)) if mine + theirs > 0 else 0.0


def rank_share(group: list[IndexHit]) -> float:
    """The rank reader's probability of the group's rank, over all its corners."""
    return float(card_probs([h.rank_probs for h in group])[RANKS.index(group[0].name[:-1])])


def joint(group: list[IndexHit]) -> float:
    """The probability of the group's card given all its corners, by the first classifier."""
    return float(card_probs([h.probs for h in group])[CLASS_OF[group[0].name]])


def card_probs(rows: list[tuple[float, ...]]) -> npt.NDArray[np.float64]:
    """Every code's probability given all the corners of one card: each corner is a view of the same card, so their
    probabilities multiply (every code equally likely before)."""
    logs = np.sum([np.log(np.clip(np.asarray(row), 1e-12, None)) for row in rows], axis=0)
    logs -= logs.max()
    share = np.exp(logs)
    return np.asarray(share / share.sum(), np.float64)


def _second_share(hit: IndexHit) -> float:
    """The second classifier's probability of the corner's code (0: it gave none)."""
    return float(hit.second_probs[CLASS_OF[hit.name]]) if hit.second_probs else 0.0


def _near(a: IndexHit, b: IndexHit) -> bool:
    """Whether two corners lie close enough to be corners of one card."""
    return near(a.box, b.box, PAIR_REACH)


def _typical(corner: IndexHit, faces: list[IndexHit]) -> float | None:
    """The median side of the NEIGHBOURS indices nearest a corner (None: it is alone on the frame)."""
    centre = corner.box.center
    others = sorted((math.dist(h.box.center, centre), max(h.box.width, h.box.height)) for h in faces if h is not corner)
    return statistics.median(side for _, side in others[:NEIGHBOURS]) if others else None


def strays(group: list[IndexHit], groups: list[list[IndexHit]], settings: CardSettings) -> list[IndexHit]:
    """The corners of `group` that the second classifier names as a card beside it, one with a corner both
    classifiers name so, sure: most likely that card's corner, which the first classifier misnamed."""
    name = group[0].name
    beside = [h for g in groups if g[0].name != name for h in g if h.second == h.name and h.confidence >= settings.pair]
    return [
        h for h in group if h.second not in (None, name) and any(o.name == h.second and _near(h, o) for o in beside)
    ]


def cards_of(
    hits: list[IndexHit], settings: CardSettings, apart: Apart | None = None, face_reader: Faces | None = None
) -> tuple[CardRead, ...]:
    """The cards the named corners and backs make (`apart`: see pair_corners), judged at `settings`, top to bottom;
    `face_reader`: the face reader's probabilities for a card in a box (None: the models have none)."""
    groups = pair_corners(hits, apart)
    faces = [h for h in hits if h.name != NAMES[BACK_CLASS]]
    cards = []
    for group in groups:
        if group[0].name != NAMES[BACK_CLASS]:
            left = strays(group, groups, settings)
            rest = [h for h in group if h not in left]
            # a stray leaves its card only where two sure corners that both classifiers name alike remain, so a
            # card is never accepted on less than a pair would be
            if left and sum(h.confidence >= settings.pair and h.second == h.name for h in rest) >= 2:
                group = rest
        cards.append(judge(group, settings, _typical(group[0], faces) if len(group) == 1 else None, face_reader))
    return tuple(sorted(cards, key=lambda c: (c.box.y1, c.box.x1)))


Found = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.intp]]  # xyxy, confidences, classes


def _hits(found: Found, x0: float, y0: float, scale: float = 1.0) -> list[IndexHit]:
    """A detector's boxes as hits in frame pixels: scaled by `scale`, then moved by (x0, y0)."""
    hits = []
    for xyxy, conf, cls in zip(*found, strict=True):
        x1, y1, x2, y2 = (float(v) * scale for v in xyxy)
        hits.append(IndexHit(FINDER_NAMES[int(cls)], float(conf), Box(x1 + x0, y1 + y0, x2 + x0, y2 + y0)))
    return hits


class Detector:
    """A YOLO detect model of the card reader: the exported ONNX read with ONNX Runtime alone (the reading
    runtime), or the .pt weights with ultralytics; both letterbox a picture the same way."""

    def __init__(self, weights: Path) -> None:
        self.weights = weights
        self.onnx: OnnxYolo | None = None
        self.model: Any = None
        if weights.suffix == ".onnx":
            self.onnx = OnnxYolo(weights)
        else:
            need_torch(weights)
            from vision.ultra import quiet_import

            quiet_import()
            from ultralytics import YOLO

            self.model = YOLO(str(weights), task="detect")

    def predict(self, images: list[Frame], imgsz: int, conf: float) -> list[Found]:
        """The boxes of each picture read at `imgsz` (its long side scaled to it, padded to the stride)."""
        if self.onnx is None:
            found: list[Found] = []
            for result in self.model.predict(images, imgsz=imgsz, conf=conf, iou=0.5, verbose=False):
                boxes: Any = result.boxes  # ultralytics' Boxes never leave this method
                found.append(
                    (
                        np.asarray(boxes.xyxy.cpu(), np.float64),
                        np.asarray(boxes.conf.cpu(), np.float64),
                        np.asarray(boxes.cls.cpu()).astype(np.intp),
                    )
                )
            return found
        out = []
        stride = self.onnx.stride
        for image in images:
            height, width = image.shape[:2]
            gain = imgsz / max(height, width)
            # ultralytics pads a batch of one shape only up to the stride, not to a square
            shape = (
                math.ceil(round(height * gain) / stride) * stride,
                math.ceil(round(width * gain) / stride) * stride,
            )
            out.append(self.onnx.predict(image, shape, conf, 0.5))
        return out


def _cut(box: Box, x0: int, y0: int, shape: tuple[int, int], frame: tuple[int, int]) -> bool:
    """Whether a box found in a piece of the frame (at x0, y0, of `shape`) touches an inner edge of the piece."""
    (th, tw), (height, width) = shape, frame
    return (
        (box.x1 - x0 < EDGE and x0 > 0)
        or (box.y1 - y0 < EDGE and y0 > 0)
        or (box.x2 - x0 > tw - EDGE and x0 + tw < width)
        or (box.y2 - y0 > th - EDGE and y0 + th < height)
    )


def windows(spots: list[IndexHit], width: int, height: int) -> list[tuple[int, int, int]]:
    """Square full-resolution windows (x, y, side) round the spots, surest first; a spot near the middle of a window
    already taken needs none of its own. All of one side: WINDOW, or WINDOW_REACH spots' long sides if larger."""
    if not spots:
        return []
    sides = sorted(max(h.box.width, h.box.height) for h in spots)
    side = max(WINDOW, math.ceil(WINDOW_REACH * sides[len(sides) // 2] / 32) * 32)
    side = min(side, width, height)
    taken: list[tuple[int, int, int]] = []
    for spot in sorted(spots, key=lambda h: -h.confidence):
        cx, cy = spot.box.center
        if any(abs(cx - (x + side / 2)) < side / 4 and abs(cy - (y + side / 2)) < side / 4 for x, y, _ in taken):
            continue
        x = round(min(max(cx - side / 2, 0), width - side))
        y = round(min(max(cy - side / 2, 0), height - side))
        taken.append((x, y, side))
    return taken


class CardReader:
    """Reads every card in a frame from its corner indices; the models (models/cards/) are loaded once."""

    def __init__(self, models: Path = MODELS, settings: CardSettings | None = None) -> None:
        weights = Path(models) / FINDER_NAME
        if not weights.exists() and not weights.with_suffix(".onnx").exists():
            raise FileNotFoundError(f"no están los pesos del lector de cartas: {weights}")
        self.model = Detector(runtime_weights(weights))
        self.classifier = IndexClassifier(runtime_weights(Path(models) / WEIGHTS_NAME))
        second = runtime_weights(Path(models) / SECOND_NAME)
        self.second = IndexClassifier(second) if second.exists() else None
        spotter = runtime_weights(Path(models) / SPOTTER_NAME)
        self.spotter = Detector(spotter) if spotter.exists() else None
        seam = runtime_weights(Path(models) / SEAM_NAME)
        self.seams = SeamClassifier(seam) if seam.exists() else None
        face = runtime_weights(Path(models) / FACE_NAME)
        self.faces = IndexClassifier(face) if face.exists() else None
        suits = runtime_weights(Path(models) / SUIT_NAME)
        self.suits = IndexClassifier(suits) if suits.exists() else None
        ranks = runtime_weights(Path(models) / RANK_NAME)
        self.ranks = IndexClassifier(ranks) if ranks.exists() else None
        self.weights = weights
        self.settings = settings or CardSettings()

    def detect(self, frame: Frame) -> list[IndexHit]:
        """Every index and back on the frame, found at full resolution and named by the classifiers."""
        height, width = frame.shape[:2]
        spotted = self.spotter is not None and max(height, width) > SPOT_SIZE
        found = self._spotted(frame) if spotted else self._tiled(frame)
        if not spotted and self.spotter is not None and any(h.name == NAMES[BACK_CLASS] for h in found):
            # over tiles, two or three backs in a heap were joined into one card; the spotter sees each back whole
            # at the still's reduction
            found = split_heaps(found, self._backs(self._spots(frame, SPOT_SIZE / STILL_SIDE)))
        indices = [h for h in found if h.name != NAMES[BACK_CLASS]]
        backs = [h for h in found if h.name == NAMES[BACK_CLASS]]
        return self.named(frame, indices, self.settings.turns) + backs

    def named(self, frame: Frame, indices: list[IndexHit], turns: int, second: bool = True) -> list[IndexHit]:
        """The indices named by the classifiers, each crop read at `turns` (see IndexClassifier.probabilities);
        without `second`, each keeps what the second classifier and the suit and rank readers said of it."""
        index_crops = [crop(frame, h.box) for h in indices]
        probs = self.classifier.probabilities(index_crops, turns)
        if not second:
            kept = [(h.second, h.second_probs) for h in indices]
        elif self.second is not None:
            rows = self.second.probabilities(index_crops, turns)
            kept = [(CLASS_NAMES[int(row.argmax())], tuple(map(float, row))) for row in rows]
        else:
            kept = [(None, ())] * len(indices)
        # the suit and rank readers were taught in grey: colour never tells a suit from the other of its colour
        grey = [grayed(c) for c in index_crops] if second and (self.suits or self.ranks) else []
        suits = self._apart(self.suits, grey, turns) if second else None
        ranks = self._apart(self.ranks, grey, turns) if second else None
        return [
            IndexHit(
                CLASS_NAMES[int(row.argmax())],
                float(row.max()),
                h.box,
                second=other,
                probs=tuple(map(float, row)),
                second_probs=other_probs,
                suit_probs=h.suit_probs if suits is None else suits[i],
                rank_probs=h.rank_probs if ranks is None else ranks[i],
            )
            for i, (h, row, (other, other_probs)) in enumerate(zip(indices, probs, kept, strict=True))
        ]

    @staticmethod
    def _apart(reader: IndexClassifier | None, grey: list[Frame], turns: int) -> list[tuple[float, ...]] | None:
        """What the suit or rank reader says of each grey crop (None: the models have no such reader)."""
        if reader is None:
            return None
        return [tuple(map(float, row)) for row in reader.probabilities(grey, turns)]

    def _tiled(self, frame: Frame, floor: float | None = None) -> list[IndexHit]:
        """The finder over 640 px tiles at full resolution, a box cut by a tile's inner edge left to its neighbour;
        boxes from `floor` (by default the settings' floor)."""
        height, width = frame.shape[:2]
        corners = tiles(width, height)
        crops = [np.ascontiguousarray(frame[y : y + TILE, x : x + TILE]) for x, y in corners]
        conf = self.settings.floor if floor is None else floor
        results = self.model.predict(crops, TILE, conf)
        hits: list[IndexHit] = []
        for (x0, y0), piece, result in zip(corners, crops, results, strict=True):
            for hit in _hits(result, x0, y0):
                # a back is larger than the overlap: its parts are joined
                if hit.name == NAMES[BACK_CLASS] or not _cut(hit.box, x0, y0, piece.shape[:2], (height, width)):
                    hits.append(hit)
        return join_backs(merge(hits))

    def _spots(self, frame: Frame, scale: float) -> list[IndexHit]:
        """What the spotter sees on a copy of the frame reduced by `scale`, from its floor, in frame pixels."""
        assert self.spotter is not None
        height, width = frame.shape[:2]
        small = np.asarray(
            cv2.resize(frame, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA), np.uint8
        )
        imgsz = math.ceil(max(small.shape[:2]) / 32) * 32
        return _hits(self.spotter.predict([small], imgsz, self.settings.spot)[0], 0, 0, 1 / scale)

    def _backs(self, spots: list[IndexHit]) -> list[IndexHit]:
        """The spotter's backs from the finder's floor."""
        return [h for h in spots if h.name == NAMES[BACK_CLASS] and h.confidence >= self.settings.floor]

    def _spotted(self, frame: Frame) -> list[IndexHit]:
        """The spotter on a copy reduced to SPOT_SIZE, then the finder in a full-resolution window round each index
        it spots; the backs are taken from the spotter (a back is large enough to see reduced)."""
        height, width = frame.shape[:2]
        spots = self._spots(frame, SPOT_SIZE / max(height, width))
        backs = self._backs(spots)
        corners = windows([h for h in spots if h.name != NAMES[BACK_CLASS]], width, height)
        hits: list[IndexHit] = []
        if corners:
            side = corners[0][2]
            crops = [np.ascontiguousarray(frame[y : y + side, x : x + side]) for x, y, side in corners]
            found = self.model.predict(crops, side, self.settings.floor)
            for (x0, y0, _), piece, here in zip(corners, crops, found, strict=True):
                for hit in _hits(here, x0, y0):
                    if hit.name != NAMES[BACK_CLASS] and not _cut(hit.box, x0, y0, piece.shape[:2], (height, width)):
                        hits.append(hit)
        # each back is seen whole on the reduced copy and the spotter keeps one box a back: backs that overlap there
        # are cards face down in a heap, each a card (joined, a player's three face down were read as one)
        return merge(hits) + backs

    def read(self, frame: Frame) -> CardReading:
        """The cards of one frame; the corners of a card in doubt are read again, turned (`again`)."""
        hits = self.detect(frame)
        height, width = frame.shape[:2]
        apart = remembered(self.apart(frame))
        read: dict[Box, tuple[float, ...]] = {}
        face_reader = self.face_reader(frame, read)
        cards = cards_of(hits, self.settings, apart, face_reader)
        again = self.settings.again
        if again is not None and again > self.settings.turns:
            # a lone corner is not looked at again: turned, the text along an ace's edge came to read KC, sure
            doubted = {box for card in cards if card.uncertain and card.corners >= 2 for box in card.indices}
            looked = [h for h in hits if h.name != NAMES[BACK_CLASS] and h.box in doubted]
            if looked:
                # only the first classifier looks again: a second reading that said otherwise still says so (read
                # turned too, both classifiers came to name a glare-washed six's corner JH alike, sure)
                renamed = dict(zip(map(id, looked), self.named(frame, looked, again, second=False), strict=True))
                hits = [renamed.get(id(h), h) for h in hits]
                cards = cards_of(hits, self.settings, apart, face_reader)
        return CardReading(cards, (width, height), tuple(hits), read)

    def face_reader(self, frame: Frame, read: dict[Box, tuple[float, ...]]) -> Faces | None:
        """The face reader on this frame, each box read once (kept in `read`); None: the models have none."""
        faces = self.faces
        if faces is None:
            return None

        def probabilities(box: Box) -> tuple[float, ...]:
            if box not in read:
                # the face reader was taught every angle: read as the corners are, a quarter turn each time
                read[box] = tuple(map(float, faces.probabilities([crop(frame, box)], 4)[0]))
            return read[box]

        return probabilities

    def apart(self, frame: Frame) -> Apart | None:
        """Which corners of one code, near each other, the seam model takes for two cards on this frame (None:
        the models have no seam model, or the settings never part corners)."""
        seams, level = self.seams, self.settings.apart
        if seams is None or level is None:
            return None
        return lambda pairs: [p >= level for p in seams.apart(frame, [(a.box, b.box) for a, b in pairs])]


def remembered(apart: Apart | None) -> Apart | None:
    """`apart` asked once for each two corners: a card judged again is asked about the same corners."""
    if apart is None:
        return None
    known: dict[tuple[Box, Box], bool] = {}

    def ask(pairs: list[tuple[IndexHit, IndexHit]]) -> list[bool]:
        new = [(a, b) for a, b in pairs if (a.box, b.box) not in known]
        if new:
            known.update(zip(((a.box, b.box) for a, b in new), apart(new), strict=True))
        return [known[(a.box, b.box)] for a, b in pairs]

    return ask


def annotate(frame: Frame, reading: CardReading) -> Frame:
    """A copy of the frame with every card's box and code drawn: sure in green, for the coordinator in orange."""
    from vision.annotate import DOUBTFUL, SURE, boxed

    out = frame.copy()
    for card in reading.cards:
        label = f"{'dorso' if card.face_down else card.card}{'?' if card.uncertain else ''} {card.confidence:.0%}"
        boxed(out, card.box, label, DOUBTFUL if card.uncertain else SURE)
    return out
