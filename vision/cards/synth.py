"""Rendered card tables: card faces laid out as each game lays them, YOLO labels of the corner indices, meta per image.

    python -m vision.cards.synth --out DIR --count N --seed S --game truco|cacho|pifpaf|cacheta [--split val]

Image i uses seed S + i and the game and nothing else, so they always make the same image, labels and meta.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision import labels as yolo
from vision.cards.notation import CLASS_NAMES, CLASS_OF, GAME_DECKS, GAMES, RANKS, SUITS

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
SPRITES = Path(__file__).with_name("sprites")
PROPS = Path(__file__).parent.parent / "synth" / "assets"
STILL = (4608, 2592)  # the Pi camera's full still; layouts are made at its scale, then a window is cut
INDEX_PX = (40.0, 60.0)  # a corner index's height in the full still
CARD_MM = 88.0
MIN_VISIBLE = 0.6  # an index is labelled when at least this share of it is seen
SURFACES = ("felt", "wood", "cloth")


@dataclass(frozen=True)
class CardArt:
    """One card face (or back) sprite: BGRA pixels and its top-left index box in sprite pixels."""

    pixels: npt.NDArray[np.uint8]
    index: tuple[int, int, int, int]


@dataclass
class Card:
    """A physical card on the table: its code, which deck it came from, where it lies (sprite -> still homography)."""

    code: str | None  # None: a card of the stock, never seen face up
    deck: int
    seat: int
    face_down: bool
    transform: F64
    back: int = 0
    polygon: list[list[float]] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)
    visible_share: float = 0.0
    visible_box: list[float] | None = None
    indices_seen: list[float] = field(default_factory=list)  # the share of each labelled index in view
    # indices partly in view (seen, but under MIN_VISIBLE): a reader may read them, right or wrong
    covered: list[dict[str, object]] = field(default_factory=list)


def read_bgra(path: Path) -> npt.NDArray[np.uint8]:
    """A sprite with its alpha channel; FileNotFoundError if it cannot be read."""
    pixels = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if pixels is None or pixels.ndim != 3 or pixels.shape[2] != 4:
        raise FileNotFoundError(f"no se puede leer el sprite {path}")
    return np.asarray(pixels, np.uint8)


@cache
def card_art() -> tuple[dict[str, CardArt], tuple[CardArt, ...]]:
    """The committed faces by card code and the backs."""
    manifest = json.loads((SPRITES / "manifest.json").read_text())
    faces = {}
    for code, entry in manifest["faces"].items():
        faces[code] = CardArt(read_bgra(SPRITES / entry["file"]), tuple(entry["index"]))
    backs = tuple(CardArt(read_bgra(SPRITES / name), (0, 0, 0, 0)) for name in manifest["backs"])
    return faces, backs


@cache
def props() -> tuple[tuple[str, float, npt.NDArray[np.uint8]], ...]:
    """Distractor sprites of the dice tables (dice, cups, coins, caps; not their cards): kind, px per metre, BGRA."""
    manifest = json.loads((PROPS / "manifest.json").read_text())
    chosen = [s for s in manifest["sprites"] if s["kind"] in ("cup", "coin", "cap")]
    dice = [s for s in manifest["sprites"] if s["kind"] == "die" and not s["cocked"]]
    chosen += dice[:: max(1, len(dice) // 60)]
    return tuple((str(s["kind"]), float(s["px_per_m"]), read_bgra(PROPS / s["file"])) for s in chosen)


def _rotation(angle: float) -> F64:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def place(centre: F64, angle: float, scale: float, size: tuple[int, int], rng: np.random.Generator) -> F64:
    """Homography taking sprite pixels to still pixels: the card's centre at `centre`, turned by `angle`."""
    width, height = size
    affine = np.eye(3)
    affine[:2, :2] = _rotation(angle) * scale
    affine[:2, 2] = centre - affine[:2, :2] @ np.array([width / 2, height / 2])
    # A slight keystone: the table seen a few degrees off the camera's axis.
    tilt = np.eye(3)
    tilt[2, :2] = rng.normal(0.0, 2e-5, 2)
    shift = np.eye(3)
    shift[:2, 2] = [-width / 2, -height / 2]
    back = np.eye(3)
    back[:2, 2] = [width / 2, height / 2]
    return affine @ back @ tilt @ shift


def project(transform: F64, points: F64) -> F64:
    """Points (N x 2) through a homography."""
    homog = np.hstack([points, np.ones((len(points), 1))]) @ transform.T
    return homog[:, :2] / homog[:, 2:3]


def _melds(rng: np.random.Generator, pool: Counter[str], size: int) -> list[list[str]]:
    """Runs of one suit and sets of one rank, from the cards left in the pool, about `size` cards in all."""
    melds: list[list[str]] = []
    total = 0
    for _ in range(500):  # the pool always has the cards for some meld; the cap only guards a bad draw
        if total >= size:
            break
        want = min(size - total, int(rng.integers(3, 5)))
        if rng.random() < 0.5:
            suit = SUITS[int(rng.integers(4))]
            start = int(rng.integers(0, len(RANKS) - want + 1))
            meld = [f"{RANKS[start + k]}{suit}" for k in range(want)]
        else:
            rank = RANKS[int(rng.integers(len(RANKS)))]
            suits = [str(x) for x in rng.permutation(SUITS)][:want]
            if want < 4 and rng.random() < 0.25:
                suits[-1] = suits[0]  # a twin inside a set, legal with two decks where two suits suffice
            meld = [f"{rank}{x}" for x in suits]
        if all(pool[c] >= meld.count(c) for c in meld):
            for c in meld:
                pool[c] -= 1
            melds.append(meld)
            total += len(meld)
    return melds


Laid = Sequence[Sequence[tuple[str, bool]]]  # per seat, the cards it shows: (code, face down)
SEAT_START = math.pi / 2  # where a table laid out seat by seat (`laid`) puts seat 0: below the centre


def seat_angle(seat: int, seats: int) -> float:
    """The direction (radians, image axes: y down) from the table's centre to `seat` of a table laid out by
    `laid`: seat 0 below the centre, the next ones clockwise as seen on the photo."""
    return SEAT_START + 2 * math.pi * seat / seats


def layout(rng: np.random.Generator, game: str, laid: Laid | None = None) -> list[Card]:
    """Every card on the table for one image of `game`, in drawing order, at the full still's scale; `laid` lays
    those cards in front of each seat (one group each; seat 0 below the centre, `seat_angle`) instead of random ones."""
    faces, backs = card_art()
    sprite_w, sprite_h = faces["AS"].pixels.shape[1], faces["AS"].pixels.shape[0]
    index_h = faces["AS"].index[3] - faces["AS"].index[1]
    scale = float(rng.uniform(*INDEX_PX)) / index_h
    card_w = sprite_w * scale
    ranks, copies = GAME_DECKS[game]
    pool: Counter[str] = Counter({f"{r}{s}": copies for r in ranks for s in SUITS})
    seats = {"truco": (2, 4, 6), "cacho": (2, 3, 4, 5, 6), "pifpaf": (2, 3, 4), "cacheta": (2, 3, 4)}[game]
    n_seats = int(rng.choice(seats)) if laid is None else len(laid)
    width, height = STILL
    centre = np.array([width / 2, height / 2]) + rng.normal(0, 60, 2)
    radii = np.array([width * rng.uniform(0.30, 0.36), height * rng.uniform(0.28, 0.34)])
    start = rng.uniform(0, 2 * math.pi) if laid is None else SEAT_START
    back = int(rng.integers(len(backs)))
    used: Counter[str] = Counter()
    cards: list[Card] = []

    def take() -> str:
        left = sorted(c for c, n in pool.items() if n > 0)
        code = left[int(rng.integers(len(left)))]
        pool[code] -= 1
        return code

    for seat in range(n_seats):
        theta = start + 2 * math.pi * seat / n_seats
        spot = centre + radii * np.array([math.cos(theta), math.sin(theta)])
        toward_seat = spot - centre
        angle = math.atan2(toward_seat[1], toward_seat[0]) - math.pi / 2  # the card's foot toward its player
        along = np.array([math.cos(angle), math.sin(angle)])  # the player's left to right, seen from above
        folded = False
        downs: set[int] = set()
        if laid is not None:
            groups = [[code for code, _ in laid[seat]]]
            downs = {k for k, (_, down) in enumerate(laid[seat]) if down}
            step = card_w * (rng.uniform(0.75, 1.2) if game == "truco" else rng.uniform(0.3, 0.6))
        elif game == "truco":
            row = [take() for _ in range(int(rng.integers(1, 4)))]
            groups = [row]
            step = card_w * rng.uniform(0.75, 1.2)
        elif game == "cacho":
            groups = [[take() for _ in range(3)]]
            step = card_w * rng.uniform(0.3, 1.1)
            folded = rng.random() < 0.12  # a player who folded leaves the three cards face down
        else:
            groups = _melds(rng, pool, int(rng.integers(9, 11)))
            step = card_w * rng.uniform(0.24, 0.4)
        offset = -0.5 * (sum(len(g) for g in groups) - 1) * step - 0.3 * card_w * (len(groups) - 1)
        fan = rng.uniform(0, 0.12) if game != "truco" else 0.0
        for group in groups:
            for k, code in enumerate(group):
                copy = used[code]
                used[code] += 1
                position = spot + along * offset + rng.normal(0, card_w * 0.04, 2)
                turn = angle + rng.normal(0, 0.09 if game == "truco" else 0.03) + fan * (k - (len(group) - 1) / 2)
                face_down = (game == "truco" and rng.random() < 0.12) or (game == "cacho" and folded)
                if laid is not None:
                    face_down = k in downs
                transform = place(position, turn, scale, (sprite_w, sprite_h), rng)
                cards.append(Card(code, copy, seat, face_down, transform, back))
                offset += step
            offset += 0.6 * card_w
    if game in ("pifpaf", "cacheta") and laid is None:
        # The stock, face down, and the discard pile's top card beside it, in the middle of the table.
        turn = float(rng.uniform(0, 2 * math.pi))
        side = np.array([math.cos(turn), math.sin(turn)]) * card_w * rng.uniform(0.6, 0.8)
        stock = place(centre - side, turn, scale, (sprite_w, sprite_h), rng)
        cards.append(Card(None, 0, -1, True, stock, back))
        code = take()
        discard = place(centre + side, turn + rng.normal(0, 0.2), scale, (sprite_w, sprite_h), rng)
        cards.append(Card(code, used[code], -1, False, discard, back))
        used[code] += 1
    return cards


def _noise(rng: np.random.Generator, h: int, w: int, cell: int) -> F32:
    small = rng.random((h // cell + 2, w // cell + 2)).astype(np.float32)
    big = cv2.resize(small, (w + 2 * cell, h + 2 * cell), interpolation=cv2.INTER_CUBIC)
    return np.asarray(big[cell : cell + h, cell : cell + w], np.float32)


def surface(rng: np.random.Generator, kind: str, w: int, h: int) -> F32:
    """A table top: felt, wood or a patterned cloth, BGR 0-255."""
    if kind == "felt":
        colours = ((40, 110, 30), (90, 60, 20), (30, 40, 120), (35, 75, 35), (60, 60, 60))
        base = np.array(colours[int(rng.integers(len(colours)))], np.float32) * rng.uniform(0.7, 1.3)
        shade = 0.85 + 0.3 * _noise(rng, h, w, 200)
        grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8) * 0.06
        img = base[None, None, :] * (shade + grain)[..., None]
    elif kind == "wood":
        tone = np.array((40, 80, 140), np.float32) * rng.uniform(0.5, 1.3)
        base = 0.6 * tone + 0.4 * tone.mean()
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        if rng.random() < 0.5:
            xs, ys = ys, xs
        warp = _noise(rng, h, w, 300) * 40
        rings = 0.5 + 0.5 * np.sin((ys + warp + 30 * _noise(rng, h, w, 60)) * rng.uniform(0.02, 0.08))
        plank = rng.uniform(250, 600)
        seam = (np.abs(((ys + warp * 0.1) % plank) - plank / 2) > plank / 2 - 3).astype(np.float32)
        img = base[None, None, :] * (0.75 + 0.25 * rings - 0.35 * seam)[..., None]
    else:
        grey = rng.uniform(90, 220)
        first = (0.5 * grey + 0.5 * rng.uniform(40, 250, 3)).astype(np.float32)
        second = (0.5 * grey + 0.5 * rng.uniform(40, 250, 3)).astype(np.float32)
        period = rng.uniform(40, 200)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        pattern = ((xs // period + ys // period) % 2) if rng.random() < 0.5 else ((xs // period) % 2)
        weave = 0.9 + 0.1 * np.sin(xs * 1.7) * np.sin(ys * 1.7)
        mix = pattern[..., None]
        img = (first[None, None, :] * (1 - mix) + second[None, None, :] * mix) * weave[..., None]
    return np.asarray(np.clip(img, 0, 255), np.float32)


def _warp(pixels: npt.NDArray[np.uint8], transform: F64, box: tuple[int, int, int, int]) -> F32:
    x0, y0, x1, y1 = box
    move = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    return cv2.warpPerspective(pixels, move @ transform, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR).astype(np.float32)


def _bounds(points: F64, w: int, h: int, pad: int) -> tuple[int, int, int, int] | None:
    x0 = max(0, int(points[:, 0].min()) - pad)
    y0 = max(0, int(points[:, 1].min()) - pad)
    x1 = min(w, math.ceil(points[:, 0].max()) + pad)
    y1 = min(h, math.ceil(points[:, 1].max()) + pad)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _paste(
    img: F32,
    owner: npt.NDArray[np.int32],
    pixels: npt.NDArray[np.uint8],
    transform: F64,
    ident: int,
    rng: np.random.Generator,
    shadow: float,
    tint: F32 | None = None,
) -> None:
    """Draw a BGRA sprite through `transform` with a soft shadow; `owner` marks the pixels it now covers."""
    h, w = img.shape[:2]
    sh, sw = pixels.shape[:2]
    corners = project(transform, np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64))
    pad = 24
    box = _bounds(corners, w, h, pad)
    if box is None:
        return
    x0, y0, x1, y1 = box
    layer = _warp(pixels, transform, box)
    alpha = layer[..., 3:4] / 255.0
    if shadow > 0:
        dx, dy = rng.normal(0, 5, 2)
        move = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        moved = cv2.warpAffine(np.ascontiguousarray(alpha[..., 0]), move, (x1 - x0, y1 - y0))
        cast = np.asarray(cv2.GaussianBlur(moved, (0, 0), 6), np.float32)[..., None]
        img[y0:y1, x0:x1] *= 1 - shadow * cast
    colour = layer[..., :3] if tint is None else layer[..., :3] * tint[None, None, :]
    img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - alpha) + colour * alpha
    covered = alpha[..., 0] > 0.5
    owner[y0:y1, x0:x1][covered] = ident


def _chip(rng: np.random.Generator, ppm: float) -> npt.NDArray[np.uint8]:
    """A poker chip seen from above (39 mm), BGRA."""
    size = int(0.039 * ppm) | 1
    r = size // 2
    chip = np.zeros((size, size, 4), np.uint8)
    colour = tuple(int(c) for c in rng.integers(20, 230, 3))
    cv2.circle(chip, (r, r), r, (*colour, 255), -1, cv2.LINE_AA)
    for k in range(6):
        a = k * math.pi / 3
        p = (int(r + 0.82 * r * math.cos(a)), int(r + 0.82 * r * math.sin(a)))
        cv2.circle(chip, p, max(1, r // 6), (235, 235, 235, 255), -1, cv2.LINE_AA)
    cv2.circle(chip, (r, r), int(r * 0.6), (245, 245, 245, 255), max(1, r // 12), cv2.LINE_AA)
    return chip


def _hand(rng: np.random.Generator, ppm: float) -> npt.NDArray[np.uint8]:
    """A flat hand seen from above, fingers up, about 19 cm long, BGRA: a palm and five fingers."""
    length = int(0.19 * ppm)
    width = int(0.6 * length)
    hand = np.zeros((length, width, 4), np.uint8)
    tone = np.array((90, 120, 170), np.float64) * rng.uniform(0.55, 1.3)
    colour = (*(int(c) for c in np.clip(tone, 0, 255)), 255)
    palm_w, palm_h = int(0.4 * width), int(0.28 * length)
    cv2.ellipse(hand, (width // 2, int(0.7 * length)), (palm_w, palm_h), 0, 0, 360, colour, -1, cv2.LINE_AA)
    cv2.rectangle(hand, (width // 2 - palm_w + 4, int(0.7 * length)), (width // 2 + palm_w - 4, length), colour, -1)
    finger = max(3, int(0.16 * width))
    for k, (dx, top) in enumerate(((-0.3, 0.12), (-0.1, 0.02), (0.1, 0.0), (0.28, 0.08), (0.5, 0.45))):
        x = int(width / 2 + dx * width)
        y_top = int(top * length) + finger // 2
        base = (min(width - finger, x + int(0.1 * width)), int(0.75 * length)) if k == 4 else (x, int(0.6 * length))
        cv2.line(hand, (x if k < 4 else min(width - finger, x), y_top), base, colour, finger, cv2.LINE_AA)
    return hand


def _index_polygons(card: Card, art: CardArt, sprite_size: tuple[int, int]) -> list[F64]:
    """Both corner indices of a face-up card as quadrilaterals in still pixels."""
    x1, y1, x2, y2 = art.index
    pad = 2
    quad = np.array(
        [[x1 - pad, y1 - pad], [x2 + pad, y1 - pad], [x2 + pad, y2 + pad], [x1 - pad, y2 + pad]], np.float64
    )
    sw, sh = sprite_size
    turned = np.array([sw, sh]) - quad
    return [project(card.transform, quad), project(card.transform, turned)]


def _photometry(rng: np.random.Generator, img: F32) -> F32:
    """Uneven light, a colour cast, glare, blur and sensor noise."""
    h, w = img.shape[:2]
    light = 0.75 + 0.45 * _noise(rng, h, w, max(h, w) // 2)
    img = img * light[..., None] * rng.uniform(0.9, 1.1, 3).astype(np.float32)[None, None, :]
    for _ in range(int(rng.integers(0, 3))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(20, 120, 2)
        ys, xs = np.ogrid[0:h, 0:w]
        spot = np.exp(-(((xs - cx) / sx) ** 2 + ((ys - cy) / sy) ** 2) / 2).astype(np.float32)
        img = img + spot[..., None] * rng.uniform(60, 200)
    sigma = rng.choice([0.0, 0.0, 0.6, 1.0, 1.6])
    if sigma > 0:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), float(sigma)), np.float32)
    img = img + rng.normal(0, rng.uniform(1.5, 6), img.shape).astype(np.float32)
    return np.clip(img, 0, 255)


@dataclass
class Rendered:
    """One rendered image: pixels, YOLO label lines and the meta object."""

    image: npt.NDArray[np.uint8]
    labels: list[str]
    meta: dict[str, object]
    quality: int


def render(
    seed: int, game: str, size: tuple[int, int] = (1280, 960), negative: float = 0.06, laid: Laid | None = None
) -> Rendered:
    """The image of `seed`: a window of the table at the Pi camera's scale (4608x2592: the whole still); `laid`: the
    cards each seat shows (`layout`), never an empty table."""
    rng = np.random.default_rng([seed, GAMES.index(game)])  # Pif Paf and Cacheta tables differ for one seed
    faces, backs = card_art()
    w, h = size
    kind = SURFACES[int(rng.integers(len(SURFACES)))]
    img = surface(rng, kind, w, h)
    owner = np.full((h, w), -1, np.int32)
    is_negative = bool(rng.random() < negative) and laid is None
    cards = [] if is_negative else layout(rng, game, laid)
    # The window: around one seat's cards (or anywhere on an empty table).
    if cards:
        seat = cards[int(rng.integers(len(cards)))].seat
        spots = np.array([c.transform[:2, 2] for c in cards if c.seat == seat])
        focus = spots.mean(axis=0) + rng.normal(0, 120, 2)
    else:
        focus = rng.uniform((0, 0), STILL)
    x0 = int(np.clip(focus[0] - w / 2, 0, STILL[0] - w))
    y0 = int(np.clip(focus[1] - h / 2, 0, STILL[1] - h))
    window = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    sprite_w, sprite_h = faces["AS"].pixels.shape[1], faces["AS"].pixels.shape[0]
    ppm = (
        float(cards[0].transform[0, :2] @ cards[0].transform[0, :2]) ** 0.5 * sprite_h / (CARD_MM / 1000)
        if cards
        else 3100.0  # a card of 88 mm drawn 270 px long, as on the tables with cards
    )
    shown: list[Card] = []
    for card in cards:
        card.transform = window @ card.transform
        corners = project(
            card.transform, np.array([[0, 0], [sprite_w, 0], [sprite_w, sprite_h], [0, sprite_h]], np.float64)
        )
        if _bounds(corners, w, h, 0) is None:
            continue
        art = backs[card.back] if card.face_down or card.code is None else faces[card.code]
        paper = (rng.uniform(0.82, 1.0) * rng.uniform(0.95, 1.0, 3)).astype(np.float32)  # worn or cream card stock
        _paste(img, owner, art.pixels, card.transform, len(shown), rng, float(rng.uniform(0.15, 0.4)), paper)
        card.polygon = [[round(float(x), 1), round(float(y), 1)] for x, y in corners]
        shown.append(card)
    distractors = []
    for _ in range(int(rng.poisson(2.5 * w * h / (1280 * 960)))):
        centre = rng.uniform((0, 0), (w, h))
        if rng.random() < 0.35:
            pixels = _chip(rng, ppm)
            sprite_ppm, what = ppm, "chip"
        else:
            what, sprite_ppm, pixels = props()[int(rng.integers(len(props())))]
        scale = ppm / sprite_ppm
        transform = place(centre, float(rng.uniform(0, 2 * math.pi)), scale, (pixels.shape[1], pixels.shape[0]), rng)
        _paste(img, owner, pixels, transform, -2, rng, shadow=0.3 if what == "chip" else 0.0)
        distractors.append({"kind": what, "centre": [round(float(centre[0]), 1), round(float(centre[1]), 1)]})
    if rng.random() < 0.25:
        # A player's hand reaching in from the edge of the frame.
        pixels = _hand(rng, ppm)
        edge = float(rng.uniform(0, 2 * math.pi))
        reach = np.array([math.cos(edge), math.sin(edge)])
        centre = np.array([w / 2, h / 2]) + reach * np.array([w / 2, h / 2]) * rng.uniform(0.7, 1.0)
        turn = math.atan2(reach[1], reach[0]) - math.pi / 2 + rng.normal(0, 0.3)
        transform = place(centre, turn, 1.0, (pixels.shape[1], pixels.shape[0]), rng)
        _paste(img, owner, pixels, transform, -2, rng, shadow=0.45)
        distractors.append({"kind": "hand", "centre": [round(float(centre[0]), 1), round(float(centre[1]), 1)]})
    labels: list[str] = []
    for ident, card in enumerate(shown):
        mine = owner == ident
        ys, xs = np.nonzero(mine)
        card.visible_share = round(float(mine.sum()) / max(1.0, _area(np.array(card.polygon))), 3)
        card.visible_box = (
            [float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)] if xs.size else None
        )
        if card.face_down or card.code is None:
            continue
        for quad in _index_polygons(card, faces[card.code], (sprite_w, sprite_h)):
            box = _bounds(quad, w, h, 0)
            if box is None:
                continue
            bx0, by0, bx1, by1 = box
            inside = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
            cv2.fillPoly(inside, [np.round(quad - (bx0, by0)).astype(np.int32)], 1)
            seen = float((mine[by0:by1, bx0:bx1] & (inside > 0)).sum()) / max(1.0, _area(quad))
            if seen < MIN_VISIBLE:
                if seen > 0:
                    card.covered.append({"box": [float(v) for v in box], "seen": round(seen, 3)})
                continue
            card.indices.append(len(labels))
            card.indices_seen.append(round(min(seen, 1.0), 3))  # pixels counted against a polygon's area
            labels.append(yolo.line(CLASS_OF[card.code], (bx0, by0, bx1, by1), w, h))
    pixels = _photometry(rng, img).astype(np.uint8)
    quality = int(rng.integers(55, 96))
    meta: dict[str, object] = {
        "seed": seed,
        "game": game,
        "surface": kind,
        "size": [w, h],
        "window": [x0, y0],
        "still": list(STILL),
        "negative": is_negative,
        "cards": [
            {
                "card": c.code,
                "deck": c.deck,
                "seat": c.seat,
                "face_down": c.face_down,
                "polygon": c.polygon,
                "indices": c.indices,
                "indices_seen": c.indices_seen,
                "visible_share": c.visible_share,
                "visible_box": c.visible_box,
                "covered": c.covered,
            }
            for c in shown
        ],
        "distractors": distractors,
    }
    return Rendered(pixels, labels, meta, quality)


def _area(points: F64) -> float:
    x, y = points[:, 0], points[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def write_data_yaml(out: Path) -> None:
    """data.yaml: the folder and the 52 card codes as class names, in class order."""
    names = "\n".join(f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(f"path: .\ntrain: images\nval: images\nnames:\n{names}\n")


def generate(
    out: Path,
    count: int,
    seed: int,
    game: str,
    split: str | None = None,
    size: tuple[int, int] = (1280, 960),
    negative: float = 0.06,
) -> list[Path]:
    """Write `count` images with labels and meta under `out` (in `split` subfolders if given)."""
    sub = [split] if split else []
    folders = {part: out.joinpath(part, *sub) for part in ("images", "labels", "meta")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    write_data_yaml(out)
    written = []
    for i in range(count):
        rendered = render(seed + i, game, size, negative)
        name = f"{game}-{seed + i}"
        path = folders["images"] / f"{name}.jpg"
        cv2.imwrite(str(path), rendered.image, [cv2.IMWRITE_JPEG_QUALITY, rendered.quality])
        (folders["labels"] / f"{name}.txt").write_text("".join(line + "\n" for line in rendered.labels))
        (folders["meta"] / f"{name}.json").write_text(json.dumps(rendered.meta) + "\n")
        written.append(path)
    return written


def describe(out: Path, split: str | None = None) -> dict[str, float]:
    """What a rendered folder holds: images, cards in view, face down, labelled indices, twins, index heights."""
    metas = sorted((out / "meta" / split if split else out / "meta").glob("*.json"))
    cards = down = indices = twins = empty = 0
    heights: list[float] = []
    for path in metas:
        meta = json.loads(path.read_text())
        codes = Counter(c["card"] for c in meta["cards"] if c["card"] and c["indices"])
        twins += sum(n == 2 for n in codes.values())
        cards += sum(bool(c["indices"]) or c["face_down"] for c in meta["cards"])
        down += sum(c["face_down"] for c in meta["cards"])
        empty += not meta["cards"]
        labels = (out / "labels" / (split or "") / f"{path.stem}.txt").read_text().split("\n")
        for line in filter(None, labels):
            _, _, _, w, h = (float(v) for v in line.split())
            heights.append(max(w * meta["size"][0], h * meta["size"][1]))
            indices += 1
    return {
        "images": len(metas),
        "cards": cards,
        "face_down": down,
        "indices": indices,
        "twins": twins,
        "empty": empty,
        "index_px_median": float(np.median(heights)) if heights else 0.0,
    }


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    try:
        size = int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError(f"tamaño inválido «{text}»: se escribe ANCHOxALTO, p. ej. 1280x960") from None
    if not (64 <= size[0] <= STILL[0] and 64 <= size[1] <= STILL[1]):
        raise argparse.ArgumentTypeError(f"tamaño fuera de rango «{text}»: entre 64x64 y {STILL[0]}x{STILL[1]}")
    return size


def main(argv: list[str] | None = None) -> None:
    """Command line: render N images of one game's table."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.synth", description="Mesas de cartas renderizadas.")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--game", choices=GAMES, required=True)
    parser.add_argument("--split", default=None)
    parser.add_argument(
        "--size", type=_size, default=(1280, 960), help="ANCHOxALTO (1280x960; 4608x2592, la foto entera)"
    )
    parser.add_argument("--negatives", type=float, default=0.06, help="parte de mesas sin cartas (0.06)")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count debe ser al menos 1")
    if not 0 <= args.negatives <= 1:
        parser.error("--negatives debe estar entre 0 y 1")
    paths = generate(args.out, args.count, args.seed, args.game, args.split, args.size, args.negatives)
    facts = describe(args.out, args.split)
    print(
        f"{len(paths)} imágenes en {args.out}: {facts['cards']} cartas a la vista ({facts['face_down']} boca abajo), "
        f"{facts['indices']} índices etiquetados (lado mayor mediano {facts['index_px_median']:.0f} px), "
        f"{facts['twins']} pares de cartas gemelas, {facts['empty']} mesas sin cartas"
    )


if __name__ == "__main__":
    main()
