"""Seated tables for the camera tests and the kiosk demo: printed ArUco seat markers at the table's edge, each
seat's dice (the faces asked for) in front of its marker, the lifted cups beside them, a hand reaching in;
and reveal sequences (the hand leaves, a die or two settle, the table is still) to play through `replay:`.

Built on the compositor of `compose.py` (felt, light, camera model, sprites; linear light, premultiplied
alpha). One scene is a pure function of its seed and arguments: `compose_seated(seed, {1: [3, 5], 2: [6]})`.
The layout (camera, felt, markers, dice, cups) is drawn from the seed alone, so the same seed with or without
a hand, and every frame of a sequence, show the same table; only the hand, the settling dice and the sensor
noise (fresh on each frame, as a real camera's) change.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.reasons import Reason, ReasonCode
from vision.seats import MARKER_MM, MAX_SEAT, aruco_dictionary
from vision.synth.camera import LENSES, Camera
from vision.synth.compose import (
    ASSETS,
    F32,
    F64,
    LIN_TO_SRGB_U8,
    SIDE,
    SRGB_TO_LIN,
    U8,
    Placed,
    Scene,
    Sprite,
    _convex_overlap,
    _line_kernel,
    _prop_at,
    _recolour,
    _shrink,
    affine_for,
    draw,
    felt_and_table,
    illumination,
    load_manifest,
    pick_sprite,
    random_scene,
    scene_meta,
)
from vision.types import Box, DieReading, FrameReading

Point = tuple[float, float]

MAX_SEATS = 6  # round one table
MAX_DICE = 5  # a cacho player's dice
QUIET_MM = 8.0  # white paper round the printed marker (as vision.seats.SheetLayout prints it)
LABEL_MM = 16.0  # the strip under the marker with "ASIENTO N"
HAND_HEIGHT = 0.1  # metres over the felt: the hand hovers, it does not touch the dice
FRAME_MARGIN_PX = 6  # markers and seated dice stay this far inside the frame
SKINS = ((241, 194, 167), (224, 172, 138), (198, 140, 104), (161, 110, 78), (120, 80, 56), (88, 58, 42))  # sRGB
SLEEVES = ((30, 30, 34), (40, 60, 120), (150, 40, 40), (200, 200, 195), (60, 90, 60), (90, 70, 50))  # sRGB
PENUMBRA_M = {"lamp": 0.008, "flash": 0.005, "side": 0.02, "fluorescent": 0.03}  # soft edge of the hand's shadow
SEQUENCE_NAME = re.compile(r"^\d{3}\.jpg$")

# Streams drawn from the seed: the layout must not depend on the hand or the frame.
_LAYOUT, _HAND, _SETTLE, _NOISE, _CUPS, _LIGHT, _STRAYS = 0, 1, 2, 3, 4, 5, 6


# ------------------------------------------------------------------------------------------ labels


@dataclass(frozen=True)
class Stray:
    """A die with no seat: its face and where its centre lies, as fractions of the frame (may be off it)."""

    face: int
    x: float
    y: float


@dataclass(frozen=True)
class SceneDie:
    """A die on the frame: its seat (None for a stray), face, box in pixels (clipped to the frame), and whether
    a hand covers part of it or the frame's edge cuts it."""

    seat: int | None
    face: int
    box: tuple[float, float, float, float]
    occluded: bool = False
    cut: bool = False

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "seat": self.seat,
            "face": self.face,
            "box": [round(v, 2) for v in self.box],
            "occluded": self.occluded,
            "cut": self.cut,
        }


@dataclass(frozen=True)
class SceneMarker:
    """A seat's printed marker: the black square's corners (clockwise from its own top-left, frame pixels),
    whether a cup or a hand hides it, and its centre on the table (mm, the generator's own axes)."""

    seat: int
    corners: tuple[Point, Point, Point, Point]
    hidden: bool = False
    table_mm: Point = (0.0, 0.0)

    @property
    def center(self) -> Point:
        """Centre in frame pixels."""
        return (sum(p[0] for p in self.corners) / 4, sum(p[1] for p in self.corners) / 4)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "seat": self.seat,
            "corners": [[round(v, 2) for v in p] for p in self.corners],
            "hidden": self.hidden,
            "table_mm": [round(v, 1) for v in self.table_mm],
        }


@dataclass(frozen=True)
class SceneHand:
    """The hand on the frame: whose seat it reaches from, how far in (0-1), and its box (None: out of sight)."""

    seat: int | None
    reach: float
    box: tuple[float, float, float, float] | None


@dataclass
class SeatedScene:
    """A composed seated table: the BGR image and its exact labels."""

    image: U8
    seed: int
    seats: dict[int, tuple[int, ...]]  # seat -> the faces asked for
    dice: tuple[SceneDie, ...]
    markers: tuple[SceneMarker, ...]  # every seat's, drawn or not (empty without markers)
    cups: tuple[tuple[int, tuple[float, float, float, float]], ...]  # (seat, box)
    hand: SceneHand | None
    zones: dict[int, tuple[Point, ...]]  # seat -> its slice of the table, frame fractions (for TableConfig)
    table: tuple[Point, ...]  # the playing area round the markers, frame fractions (TableConfig.table)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def width(self) -> int:
        """Frame width in pixels."""
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        """Frame height in pixels."""
        return int(self.image.shape[0])

    def faces(self, seat: int) -> tuple[int, ...]:
        """The faces of a seat's dice on the frame, sorted."""
        return tuple(sorted(d.face for d in self.dice if d.seat == seat))

    def reading(self, uncertain: Collection[int] = ()) -> FrameReading:
        """What a perfect reader would say: every labelled die with its box and face; dice covered by the hand or
        cut by the frame's edge are flagged, and so are the dice whose index is in `uncertain`."""
        dice = []
        for index, die in enumerate(self.dice):
            reasons = []
            if die.cut:
                reasons.append(Reason(ReasonCode.CUT))
            if die.occluded:
                reasons.append(Reason(ReasonCode.COVERED))
            if index in uncertain:
                reasons.append(Reason(ReasonCode.DOUBTFUL_FACE))
            dice.append(DieReading(die.face, 0.6 if reasons else 0.97, Box(*die.box), bool(reasons), tuple(reasons)))
        dice.sort(key=lambda d: (d.box.center[1], d.box.center[0]))
        return FrameReading(self.width, self.height, tuple(dice))

    def to_dict(self) -> dict[str, object]:
        """The labels as JSON (no image)."""
        return {
            "seed": self.seed,
            "width": self.width,
            "height": self.height,
            "seats": {str(k): list(v) for k, v in self.seats.items()},
            "dice": [d.to_dict() for d in self.dice],
            "markers": [m.to_dict() for m in self.markers],
            "cups": [{"seat": s, "box": [round(v, 2) for v in b]} for s, b in self.cups],
            "hand": None
            if self.hand is None
            else {"seat": self.hand.seat, "reach": self.hand.reach, "box": self.hand.box},
            "zones": {str(k): [list(p) for p in v] for k, v in self.zones.items()},
            "table": [list(p) for p in self.table],
            "meta": self.meta,
        }


# ------------------------------------------------------------------------------------------ layout


@dataclass
class _Seat:
    seat: int
    angle: float  # bearing of the marker from the ring's centre, degrees (table plane)
    marker: F64  # marker centre on the table (metres)
    inward: F64  # unit vector from the marker towards the table's centre
    cluster: F64  # centre of its dice


@dataclass
class _Die:
    placed: Placed
    seat: int | None
    gamma: float
    pool: list[Sprite]


@dataclass
class _HandPlan:
    seat: int | None
    target: F64  # table point (metres) the fingertips reach at reach = 1
    toward: F64  # table point the arm comes from (the seat's marker, or the near edge)
    skin: F32  # linear BGR albedo
    sleeve: F32 | None
    sleeve_from: float  # metres behind the wrist
    size: float  # hand scale
    side: int  # +1 / -1: which side the thumb is on
    spread: float  # fingers' fan, radians
    strength: float  # shadow darkness


@dataclass
class _Layout:
    seed: int
    width: int
    height: int
    scene: Scene
    base: F32  # felt and markers, linear BGR, before light
    light: F32  # relative light over the frame
    gain: F32  # white balance x exposure (BGR)
    exposed: F32  # light x gain, per pixel and channel
    sigma: float  # lens blur
    shot: float
    read: float
    seats: list[_Seat]
    dice: list[_Die]
    cups: list[tuple[int, Placed]]
    markers: list[tuple[int, F64, Point]]  # seat, black square corners in frame pixels, centre on the table (mm)
    zones: dict[int, tuple[Point, ...]]
    table: tuple[Point, ...]
    hand: _HandPlan
    faces: dict[int, tuple[int, ...]]
    meta: dict[str, Any]
    _static: dict[frozenset[int], F32] = field(default_factory=dict)

    def static(self, moving: frozenset[int]) -> F32:
        """The felt, markers, cups and every die but the moving ones (linear, before light), cached."""
        if moving not in self._static:
            if len(self._static) > 3:
                self._static.clear()
            img = self.base.copy()
            things = [pl for _, pl in self.cups] + [d.placed for i, d in enumerate(self.dice) if i not in moving]
            for pl in sorted(things, key=lambda p: -p.order):
                draw(img, pl, ASSETS)
            self._static[moving] = img
        return self._static[moving]


def _check_seats(seats: Mapping[int, Sequence[int]]) -> dict[int, tuple[int, ...]]:
    if len(seats) > MAX_SEATS:
        raise ValueError(f"como mucho {MAX_SEATS} asientos en la mesa (se pidieron {len(seats)})")
    out: dict[int, tuple[int, ...]] = {}
    for seat, faces in seats.items():
        if not isinstance(seat, int) or not 1 <= seat <= MAX_SEAT:
            raise ValueError(f"los asientos van de 1 a {MAX_SEAT} (se pidió {seat!r})")
        faces = tuple(int(f) for f in faces)
        if len(faces) > MAX_DICE:
            raise ValueError(f"el asiento {seat} tiene {len(faces)} dados: como mucho {MAX_DICE}")
        if any(not 1 <= f <= 6 for f in faces):
            raise ValueError(f"caras del asiento {seat} fuera de 1-6: {faces}")
        out[seat] = faces
    return out


def _rng(seed: int, stream: int, *more: int) -> np.random.Generator:
    return np.random.default_rng([seed, stream, *more])


def _project(cam: Camera, xy: F64, z: float = 0.0) -> F64:
    pts = np.atleast_2d(np.asarray(xy, dtype=float))
    projected: F64 = cam.project(np.column_stack([pts[:, :2], np.full(len(pts), z)]))
    return projected


def _inside_frame(pts: F64, w: int, h: int, margin: float) -> bool:
    return bool(
        pts[:, 0].min() >= margin
        and pts[:, 1].min() >= margin
        and pts[:, 0].max() <= w - margin
        and pts[:, 1].max() <= h - margin
    )


def _card_geometry(marker_mm: float) -> tuple[float, float, float]:
    """Card width, and its reach above (towards the centre) and below (towards the player) the marker's centre (m)."""
    half = marker_mm / 2000
    return (marker_mm + 2 * QUIET_MM) / 1000, half + QUIET_MM / 1000, half + (QUIET_MM + LABEL_MM) / 1000


def _marker_frame(seat: _Seat) -> tuple[F64, F64]:
    """The marker's right and up on the table: up points to the table's centre, so its player reads it."""
    up = seat.inward
    right = np.array([up[1], -up[0]])
    return right, up


def _card_world(seat: _Seat, marker_mm: float) -> F64:
    width, above, below = _card_geometry(marker_mm)
    right, up = _marker_frame(seat)
    c = seat.marker
    return np.array(
        [
            c - right * width / 2 + up * above,
            c + right * width / 2 + up * above,
            c + right * width / 2 - up * below,
            c - right * width / 2 - up * below,
        ]
    )


def _square_world(seat: _Seat, marker_mm: float) -> F64:
    half = marker_mm / 2000
    right, up = _marker_frame(seat)
    c = seat.marker
    return np.array([c - right * half + up * half, c + right * half + up * half, c + right * half - up * half,
                     c - right * half - up * half])  # fmt: skip


def _view_rect(cam: Camera, w: int, h: int) -> tuple[F64, F64]:
    """The largest axis-aligned table rectangle (metres) seen whole: (low corner, high corner)."""
    corners = cam.unproject_to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float))
    # Image top is the far side (+y), image left is -x.
    lo = np.array([max(corners[0, 0], corners[3, 0]), max(corners[2, 1], corners[3, 1])])
    hi = np.array([min(corners[1, 0], corners[2, 0]), min(corners[0, 1], corners[1, 1])])
    return lo, hi


@dataclass
class _Table:
    """What laying things on a seated table needs: its scene (the camera), the frame's size, where the felt is, and
    the ring the seat markers lie on."""

    scene: Scene
    width: int
    height: int
    felt_mask: npt.NDArray[np.bool_]
    centre: F64  # the felt's centre on the table (metres)
    ring: F64  # the markers' ring's half axes (metres), inside the felt
    marker_mm: float

    @property
    def cam(self) -> Camera:
        """The camera."""
        return self.scene.cam


@dataclass
class _Sprites:
    """The sprites a seated table uses: flat dice by (style, face), and cups."""

    dice: dict[tuple[str, int], list[Sprite]]
    cups: list[Sprite]

    @property
    def styles(self) -> list[str]:
        """The dice's styles, sorted."""
        return sorted({k[0] for k in self.dice})


def _sprites(sprites: Sequence[Sprite]) -> _Sprites:
    out = _Sprites({}, [])
    for s in sprites:
        if s.kind == "die" and not s.cocked:
            out.dice.setdefault((s.style, s.face), []).append(s)
        elif s.kind == "cup":
            out.cups.append(s)
    return out


def _table(rng: np.random.Generator, width: int, height: int, lens: str | None, marker_mm: float) -> tuple[_Table, F32]:
    """The camera, the felt (it covers the seats: the markers lie on it; now and then the rails show at the frame's
    edge) and the markers' ring, drawn from `rng`; and the felt's image (linear BGR, before light)."""
    scene = random_scene(rng, width, height)
    if lens is not None:
        if lens not in LENSES:
            raise ValueError(f"lente desconocida {lens!r}: {', '.join(LENSES)}")
        scene.cam = replace(scene.cam, hfov_deg=LENSES[lens])
    view_lo, view_hi = _view_rect(scene.cam, width, height)
    half_view = (view_hi - view_lo) / 2
    scene.table_centre = (float((view_lo[0] + view_hi[0]) / 2), float((view_lo[1] + view_hi[1]) / 2))
    scene.table_half = (
        float(half_view[0] * rng.uniform(0.97, 1.25)),
        float(half_view[1] * rng.uniform(0.97, 1.25)),
    )
    base, felt_mask = felt_and_table(rng, scene)
    felt_half = np.minimum(np.array(scene.table_half), half_view)
    width_m, _, below = _card_geometry(marker_mm)
    ring = np.maximum(felt_half - max(below, width_m / 2) - 0.02, 0.05)  # inside the felt
    return _Table(scene, width, height, felt_mask, np.array(scene.table_centre), ring, marker_mm), base


def _seat_plans(rng: np.random.Generator, table: _Table, seats: Iterable[int]) -> list[_Seat]:
    """Seats clockwise from the bottom (the camera's near side), as the players sit round the table, each marker
    on the ring, pulled in until its card is on the frame and the felt."""
    order = sorted(seats)
    centre, ring, cam = table.centre, table.ring, table.cam
    start = -90.0 + rng.uniform(-8, 8)
    plans: list[_Seat] = []
    for k, seat in enumerate(order):
        angle = start - 360.0 * k / max(1, len(order)) + rng.uniform(-6, 6)
        a = math.radians(angle)
        direction = np.array([math.cos(a), math.sin(a)])
        inward = -ring * direction / float(np.linalg.norm(ring * direction))  # the card faces the centre
        plan = _Seat(seat, angle, centre, inward, centre)
        for shrink in np.linspace(1.0, 0.5, 11):
            plan.marker = centre + ring * direction * shrink
            card = _project(cam, _card_world(plan, table.marker_mm))
            if _inside_frame(card, table.width, table.height, FRAME_MARGIN_PX) and all(
                table.felt_mask[int(y), int(x)] for x, y in card
            ):
                break
        plans.append(plan)
    return plans


def _fits(table: _Table, pl: Placed, tops: list[F64], hulls: list[F64], obstacles: list[F64]) -> bool:
    """Whether a die placed so lies inside the frame, on the felt, its top face clear of the other dice's, its
    outline clear of `obstacles` and overlapping no other die's but at the edge (touching)."""
    width, height = table.width, table.height
    hull = pl.hull
    if not _inside_frame(hull, width, height, FRAME_MARGIN_PX):
        return False
    q = pl.map([pl.sprite.centre])[0]
    if not table.felt_mask[int(np.clip(q[1], 0, height - 1)), int(np.clip(q[0], 0, width - 1))]:
        return False
    top = _shrink(pl.map(pl.sprite.top_face), 0.97)
    return not any(_convex_overlap(top, t) for t in tops) and not any(
        _convex_overlap(hull, o) for o in obstacles
    ) and not any(_convex_overlap(_shrink(hull, 0.92), o) for o in hulls)  # fmt: skip


def _seated_dice(
    rng: np.random.Generator,
    table: _Table,
    plans: list[_Seat],
    faces: dict[int, tuple[int, ...]],
    sprites: _Sprites,
    card_polys: list[F64],
) -> tuple[list[_Die], list[F64]]:
    """A cluster of dice in front of each marker (its `cluster` set here), touching now and then, never overlapping,
    clear of the cards; (dice, their outlines)."""
    cam, scene, styles = table.cam, table.scene, sprites.styles
    _, above, _ = _card_geometry(table.marker_mm)
    dice: list[_Die] = []
    tops: list[F64] = []
    hulls: list[F64] = []
    for plan in plans:
        seat_faces = faces[plan.seat]
        style = styles[int(rng.integers(len(styles)))]
        recolour = (float(rng.uniform(-7, 7)), float(rng.uniform(0.85, 1.15)), float(rng.uniform(0.88, 1.1)))
        cluster_r = 0.01 + 0.009 * len(seat_faces)
        plan.cluster = plan.marker + plan.inward * (above + 0.02 + cluster_r)
        first = len(dice)
        for face in seat_faces:
            pool = sprites.dice[(style, face)]
            for attempt in range(80):
                spread = 0.012 + 0.0006 * attempt
                if len(dice) > first and rng.random() < 0.45:  # touching: beside one of this seat's dice
                    other = dice[int(rng.integers(first, len(dice)))].placed.world
                    ang = rng.uniform(0, 2 * math.pi)
                    xy = other[:2] + SIDE * rng.uniform(1.05, 1.3) * np.array([math.cos(ang), math.sin(ang)])
                else:
                    xy = plan.cluster + rng.normal(0, spread, 2)
                p = np.array([xy[0], xy[1], SIDE / 2])
                s, gamma = pick_sprite(rng, pool, scene, p)
                pl = Placed(
                    s, affine_for(cam, s, p, gamma), order=0.0, seat=plan.seat, recolour=_recolour(style, recolour)
                )
                if _fits(table, pl, tops, hulls, card_polys):
                    pl.world = p
                    dice.append(_Die(pl, plan.seat, gamma, pool))
                    tops.append(_shrink(pl.map(s.top_face), 0.97))
                    hulls.append(pl.hull)
                    break
            else:
                raise ValueError(
                    f"no caben los dados del asiento {plan.seat} en la mesa ({table.width}x{table.height})"
                )
    return dice, hulls


def _stray_dice(rng: np.random.Generator, table: _Table, strays: Sequence[Stray], sprites: _Sprites) -> list[_Die]:
    """Dice with no seat where the caller says, with no checks (off the felt, cut by the frame: that is their
    point)."""
    cam, styles = table.cam, sprites.styles
    out = []
    for stray in strays:
        if not 1 <= stray.face <= 6:
            raise ValueError(f"cara de dado fuera de 1-6: {stray.face}")
        xy = cam.unproject_to_table(np.array([[stray.x * table.width, stray.y * table.height]]))[0]
        p = np.array([xy[0], xy[1], SIDE / 2])
        style = styles[int(rng.integers(len(styles)))]
        pool = sprites.dice[(style, stray.face)]
        s, gamma = pick_sprite(rng, pool, table.scene, p)
        pl = Placed(s, affine_for(cam, s, p, gamma), order=0.0, seat=-1)
        pl.world = p
        out.append(_Die(pl, None, gamma, pool))
    return out


def _cup_spots(rng: np.random.Generator, plan: _Seat, dice: int) -> list[F64]:
    """Where a seat's cup may stand beside its cluster of `dice` dice, best first: across from the marker, then
    turned toward it, a little further out each round."""
    tangent = np.array([-plan.inward[1], plan.inward[0]])
    side = 1 if rng.random() < 0.5 else -1
    cluster_r = 0.01 + 0.009 * dice
    spots = []
    for extra in (0.0, 0.015, 0.03):
        for turn_deg in (90, 70, 110, 50, 130, 30, 150):
            for sgn in (side, -side):
                a = math.radians(turn_deg * sgn)
                direction = plan.inward * math.cos(a) + tangent * math.sin(a)
                spots.append(plan.cluster + direction * (cluster_r + 0.06 + extra))
    return spots


def _seat_cups(
    rng: np.random.Generator,
    table: _Table,
    plans: list[_Seat],
    faces: dict[int, tuple[int, ...]],
    cup_sprites: list[Sprite],
    cup_on_marker: Collection[int],
    obstacles: list[F64],
) -> list[tuple[int, Placed]]:
    """Each seat's cup, lifted and set down beside its cluster clear of the dice and cards (`obstacles`), or on its
    marker for the seats in `cup_on_marker`; (seat, cup)."""
    cups: list[tuple[int, Placed]] = []
    cup_hulls: list[F64] = []
    for plan in plans:
        style = str(rng.choice(sorted({s.style for s in cup_sprites})))
        variant = str(rng.choice(["down", "side", "up"], p=[0.45, 0.35, 0.2]))
        choices = [s for s in cup_sprites if s.style == style and s.file.endswith(f"_{variant}.png")]
        sprite = choices[0] if choices else cup_sprites[0]
        turn = float(rng.uniform(0, 360))
        if plan.seat in cup_on_marker:  # set down on its own marker: standing, so it hides the square
            standing = [s for s in cup_sprites if s.style == style and not s.file.endswith("_side.png")]
            sprite = standing[0] if standing else sprite
            candidates = [plan.marker]
        else:
            candidates = _cup_spots(rng, plan, len(faces[plan.seat]))
        for xy in candidates:
            pl = _prop_at(table.cam, sprite, np.array([xy[0], xy[1], 0.0]), turn)
            hull = pl.hull
            if plan.seat not in cup_on_marker and (
                not _inside_frame(hull, table.width, table.height, 0)
                or any(_convex_overlap(hull, o) for o in obstacles + cup_hulls)
            ):
                continue
            pl.seat = plan.seat
            cups.append((plan.seat, pl))
            cup_hulls.append(hull)
            break
    return cups


@dataclass
class _Exposure:
    """The light over a still table and how the camera takes it: gain (white balance x exposure, BGR), lens blur
    and sensor noise; `static`: the whole still table before light, which it was metered on."""

    light: F32
    static: F32
    gain: F32
    sigma: float
    shot: float
    read: float


def _exposure(rng: np.random.Generator, table: _Table, base: F32, things: list[Placed]) -> _Exposure:
    """Light, exposure (locked on the table without a hand, as a kiosk camera's), optics and sensor, from `rng`."""
    light = illumination(rng, table.scene)
    static = base.copy()  # the frames start from it
    for pl in sorted(things, key=lambda p: -p.order):
        draw(static, pl, ASSETS)
    median = float(np.median((static[::16, ::16] * light[::16, ::16, None]).mean(axis=2)))
    exposure = float(np.clip(rng.uniform(0.12, 0.2) / max(median, 1e-4), 0.7, 1.8))
    gain = (np.array(table.scene.tint, dtype=np.float32)[::-1] * exposure).astype(np.float32)
    res = table.width / 4608
    sigma = float(max(0.3, rng.uniform(0.5, 1.0) * res))
    shot, read = float(rng.uniform(0.0002, 0.0008)), float(rng.uniform(0.0003, 0.001))
    return _Exposure(light, static, gain, sigma, shot, read)


def _draw_order(cam: Camera, things: list[Placed]) -> None:
    """Draw order as compose_table's: further from the nadir first; cups stand over the dice near them."""
    nadir = cam.project(np.array([[0.0, 0.0, 0.0]]))[0]
    for pl in things:
        c = pl.map([pl.sprite.centre])[0]
        pl.order = float(np.hypot(*(c - nadir)))


def _marker_cards(cam: Camera, plans: list[_Seat], marker_mm: float, felt: F32 | None) -> list[tuple[int, F64, Point]]:
    """Each seat's marker: (seat, its black square's corners in frame pixels, its centre on the table in mm); the
    printed cards are drawn flat into `felt` when it is given."""
    out: list[tuple[int, F64, Point]] = []
    for plan in plans:
        mm = (round(float(plan.marker[0]) * 1000, 2), round(float(plan.marker[1]) * 1000, 2))
        out.append((plan.seat, _project(cam, _square_world(plan, marker_mm)), mm))
        if felt is not None:
            _draw_card(felt, cam, plan, marker_mm)
    return out


def _layout(
    seed: int,
    faces: dict[int, tuple[int, ...]],
    width: int,
    height: int,
    markers: bool,
    cups: bool,
    marker_mm: float,
    strays: Sequence[Stray],
    cup_on_marker: Collection[int],
    hand_seat: int | None,
    lens: str | None,
) -> _Layout:
    """Everything of a seated table but the hand's moves and the sensor noise, from its seed alone."""
    rng = _rng(seed, _LAYOUT)
    sprites = _sprites(load_manifest(ASSETS))
    table, base = _table(rng, width, height, lens, marker_mm)
    cam = table.cam
    seat_plans = _seat_plans(rng, table, faces)
    # The cards' places are kept clear even without markers: the same seed gives the same dice either way.
    card_polys = [_project(cam, _card_world(p, marker_mm)) for p in seat_plans]
    dice, hulls = _seated_dice(rng, table, seat_plans, faces, sprites, card_polys)
    strayed = _stray_dice(_rng(seed, _STRAYS), table, strays, sprites)
    dice += strayed
    hulls += [d.placed.hull for d in strayed]
    rng = _rng(seed, _CUPS)
    cup_list: list[tuple[int, Placed]] = []
    if cups and sprites.cups:
        cup_list = _seat_cups(rng, table, seat_plans, faces, sprites.cups, cup_on_marker, hulls + card_polys)

    things = [d.placed for d in dice] + [c for _, c in cup_list]
    _draw_order(cam, things)
    marker_corners = _marker_cards(cam, seat_plans, marker_mm, base if markers else None)
    shot = _exposure(_rng(seed, _LIGHT), table, base, things)
    _, _, below = _card_geometry(marker_mm)
    meta = {
        **scene_meta(table.scene),
        "marker_mm": marker_mm,
        "markers": markers,
        "blur_sigma_px": round(shot.sigma, 3),
        "seats_without_cup": [p.seat for p in seat_plans if cups and p.seat not in {s for s, _ in cup_list}],
    }
    return _Layout(
        seed=seed,
        width=width,
        height=height,
        scene=table.scene,
        base=base,
        light=shot.light,
        gain=shot.gain,
        exposed=np.ascontiguousarray(shot.light[:, :, None] * shot.gain[None, None, :], dtype=np.float32),
        sigma=shot.sigma,
        shot=shot.shot,
        read=shot.read,
        seats=seat_plans,
        dice=dice,
        cups=cup_list,
        markers=marker_corners if markers else [],
        zones=_zones(cam, table.centre, seat_plans, width, height),
        table=_play_area(cam, table.centre, table.ring + below + 0.05, width, height),
        hand=_hand_plan(seed, table.scene, seat_plans, table.centre, hand_seat),
        faces=faces,
        meta=meta,
        _static={frozenset(): shot.static},
    )


def _draw_card(img: F32, cam: Camera, plan: _Seat, marker_mm: float) -> None:
    """A printed marker card (white paper, the marker, "ASIENTO N" under it) lying flat, in perspective."""
    world = _card_world(plan, marker_mm)
    corners = _project(cam, world)
    side_px = float(np.linalg.norm(corners[1] - corners[0])) * marker_mm / (marker_mm + 2 * QUIET_MM)
    cells = 6  # DICT_4X4: 4 bits and a black border each side
    marker_px = cells * max(2, math.ceil(side_px * 2 / cells))  # twice the size on the frame: warped down
    k = marker_px / marker_mm  # card pixels per millimetre
    quiet, label = round(QUIET_MM * k), round(LABEL_MM * k)
    card = np.full((marker_px + 2 * quiet + label, marker_px + 2 * quiet), 255, np.uint8)
    card[quiet : quiet + marker_px, quiet : quiet + marker_px] = cv2.aruco.generateImageMarker(
        aruco_dictionary(), plan.seat, marker_px
    )
    text = f"ASIENTO {plan.seat}"
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 2)
    scale = min((card.shape[1] - quiet) / tw, label * 0.5 / th)
    if scale > 0.15:  # under that the camera could not see it anyway
        thick = max(1, round(scale * 2))
        origin = (quiet // 2, quiet + marker_px + round(label * 0.75))
        cv2.putText(card, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, 40, thick, cv2.LINE_AA)
    ch, cw = card.shape
    paper = np.array([0.74, 0.77, 0.78], dtype=np.float32)  # BGR linear: a slightly warm white
    ink = 0.025
    grey = card.astype(np.float32) / 255.0
    rgb = (ink + (1.0 - ink) * grey)[:, :, None] * paper[None, None, :]
    alpha = np.ones((ch, cw), np.float32)
    # Card pixel (u, v) spans [u, u + 1]: continuous card coords -> continuous frame coords, then OpenCV's centres.
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], dtype=np.float32)
    hom = cv2.getPerspectiveTransform(src, corners.astype(np.float32)).astype(np.float64)
    shift_in = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    x1, y1 = max(0, math.floor(corners[:, 0].min()) - 2), max(0, math.floor(corners[:, 1].min()) - 2)
    x2 = min(img.shape[1], math.ceil(corners[:, 0].max()) + 2)
    y2 = min(img.shape[0], math.ceil(corners[:, 1].max()) + 2)
    shift_out = np.array([[1, 0, -0.5 - x1], [0, 1, -0.5 - y1], [0, 0, 1]])
    m = shift_out @ hom @ shift_in
    size = (x2 - x1, y2 - y1)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    col = cv2.warpPerspective(
        np.ascontiguousarray(rgb, dtype=np.float32), m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    roi = img[y1:y2, x1:x2]
    roi *= 1.0 - a[:, :, None]
    roi += col


def _clip_to_frame(poly: F64, w: int, h: int) -> tuple[Point, ...]:
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    area, inter = cv2.intersectConvexConvex(np.ascontiguousarray(poly, dtype=np.float32), frame)
    if inter is None or area <= 0:
        return ()
    pts = inter.reshape(-1, 2)
    return tuple((round(float(x) / w, 4), round(float(y) / h, 4)) for x, y in pts)


def _zones(cam: Camera, centre: F64, plans: list[_Seat], w: int, h: int) -> dict[int, tuple[Point, ...]]:
    """Each seat's slice of the table round the centre (between the bisectors to its neighbours), frame fractions."""
    if not plans:
        return {}
    if len(plans) == 1:
        return {plans[0].seat: ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))}
    # The markers' bearings from the centre (on a flat ellipse they are not the angles the seats were spread at),
    # unwrapped to decrease from the first seat's: clockwise on the frame.
    angles: list[float] = []
    for plan in plans:
        bearing_deg = math.degrees(math.atan2(plan.marker[1] - centre[1], plan.marker[0] - centre[0]))
        while angles and bearing_deg > angles[-1]:
            bearing_deg -= 360.0
        angles.append(bearing_deg)
    out: dict[int, tuple[Point, ...]] = {}
    radius = 2.0  # metres: beyond the frame, still in front of the camera
    for i, plan in enumerate(plans):
        before = angles[i - 1] if i else angles[-1] + 360
        after = angles[i + 1] if i + 1 < len(angles) else angles[0] - 360
        hi, lo = (angles[i] + before) / 2, (angles[i] + after) / 2
        steps = np.linspace(lo, hi, max(2, int((hi - lo) / 10) + 2))
        pts = [centre] + [
            centre + radius * np.array([math.cos(math.radians(a)), math.sin(math.radians(a))]) for a in steps
        ]
        poly = _project(cam, np.array(pts))
        out[plan.seat] = _clip_to_frame(cv2.convexHull(poly.astype(np.float32)).reshape(-1, 2), w, h)
    return out


def _play_area(cam: Camera, centre: F64, axes: F64, w: int, h: int) -> tuple[Point, ...]:
    """The playing area a coordinator would draw: an ellipse round the markers, clipped to the frame."""
    t = np.linspace(0, 2 * math.pi, 32, endpoint=False)
    pts = centre + np.column_stack([np.cos(t) * axes[0], np.sin(t) * axes[1]])
    return _clip_to_frame(_project(cam, pts), w, h)


def _hand_plan(seed: int, scene: Scene, plans: list[_Seat], centre: F64, hand_seat: int | None) -> _HandPlan:
    rng = _rng(seed, _HAND)
    seated = [p for p in plans if p.seat == hand_seat] if hand_seat is not None else []
    if hand_seat is not None and not seated:
        raise ValueError(f"la mano es del asiento {hand_seat}, que no está en la mesa")
    plan = seated[0] if seated else (plans[int(rng.integers(len(plans)))] if plans else None)
    skin = np.array(SKINS[int(rng.integers(len(SKINS)))], dtype=float) * rng.uniform(0.94, 1.06, 3)
    skin_lin = SRGB_TO_LIN[np.clip(skin, 0, 255).astype(np.uint8)[::-1]].astype(np.float32)
    sleeve = None
    if rng.random() < 0.7:
        colour = np.array(SLEEVES[int(rng.integers(len(SLEEVES)))], dtype=float) * rng.uniform(0.85, 1.15, 3)
        sleeve = SRGB_TO_LIN[np.clip(colour, 0, 255).astype(np.uint8)[::-1]].astype(np.float32)
    if plan is not None:  # the palm over the seat's dice, the fingers beyond them
        target = plan.cluster + plan.inward * 0.1
        toward = plan.marker
    else:
        target = centre
        toward = centre + np.array([0.0, -1.0])
    return _HandPlan(
        seat=plan.seat if plan is not None else None,
        target=target,
        toward=toward,
        skin=skin_lin,
        sleeve=sleeve,
        sleeve_from=float(rng.uniform(0.08, 0.3)),
        size=float(rng.uniform(0.9, 1.1)),
        side=1 if rng.random() < 0.5 else -1,
        spread=float(rng.uniform(0.0, 0.12)),
        strength=float(rng.uniform(0.35, 0.55)),
    )


# -------------------------------------------------------------------------------------------- hand


@dataclass
class _HandLayers:
    """The hand over the region `roi` (x1, y1, x2, y2) of the frame: all the rest is untouched."""

    roi: tuple[int, int, int, int]
    alpha: F32
    colour: F32  # premultiplied linear BGR, before the light
    shadow: F32  # 0..1: what the shadow leaves of the light on the table
    box: tuple[float, float, float, float] | None  # the hand itself (alpha > 0.5), frame pixels

    def covered(self, poly: F64, threshold: float = 0.5) -> float:
        """The share of a polygon's pixels (frame coordinates) that the hand covers."""
        px1, py1 = math.floor(poly[:, 0].min()), math.floor(poly[:, 1].min())
        px2, py2 = math.ceil(poly[:, 0].max()) + 1, math.ceil(poly[:, 1].max()) + 1
        mask = np.zeros((py2 - py1, px2 - px1), np.uint8)
        cv2.fillConvexPoly(mask, np.round((poly - [px1 + 0.5, py1 + 0.5]) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        total = int(np.count_nonzero(mask))
        x0, y0, x1, y1 = self.roi
        bx1, by1, bx2, by2 = max(x0, px1), max(y0, py1), min(x1, px2), min(y1, py2)
        if not total or bx2 <= bx1 or by2 <= by1:
            return 0.0
        inside = mask[by1 - py1 : by2 - py1, bx1 - px1 : bx2 - px1].astype(bool)
        hits = int(np.count_nonzero(self.alpha[by1 - y0 : by2 - y0, bx1 - x0 : bx2 - x0][inside] > threshold))
        return hits / total


def _edge_distance(p: F64, d: F64, w: int, h: int) -> float:
    """How far from p (inside the frame) along d the frame's border is."""
    best = math.inf
    for axis, size in ((0, w), (1, h)):
        if abs(d[axis]) > 1e-9:
            for bound in (0.0, float(size)):
                t = (bound - p[axis]) / d[axis]
                if t > 0:
                    best = min(best, t)
    return best if math.isfinite(best) else 0.0


HAND_SCALE = 0.5  # the hand is drawn at half resolution: skin has no sharp detail and the edges are soft anyway


@dataclass
class _HandPose:
    """Where the hand lies on the frame: its fingertips, the way into the table `d` and across it `n` (the thumb's
    side; unit vectors in frame pixels), and pixels per metre at its height."""

    tip: F64
    d: F64
    n: F64
    ppm: float

    def pt(self, p: F64) -> tuple[int, int]:
        """A frame point on the half-resolution canvas, with 4 fractional bits (OpenCV's `shift`)."""
        return round(float(p[0]) * HAND_SCALE * 16), round(float(p[1]) * HAND_SCALE * 16)

    def px(self, metres: float) -> float:
        """A length at the hand's height in half-resolution pixels."""
        return metres * self.ppm * HAND_SCALE


def _hand_pose(lay: _Layout, reach: float) -> _HandPose:
    """The hand coming in from the frame's edge toward its target, `reach` of the way there (and 2 cm beyond)."""
    plan, cam = lay.hand, lay.scene.cam
    target = _project(cam, plan.target, HAND_HEIGHT)[0]
    toward = _project(cam, plan.toward, HAND_HEIGHT)[0]  # both at the hand's height: no parallax between them
    out = toward - target
    out /= max(1e-9, float(np.linalg.norm(out)))
    d = -out  # into the table
    edge = target + out * _edge_distance(target, out, lay.width, lay.height)
    ppm = cam.focal / (cam.height - HAND_HEIGHT) * plan.size
    tip = edge + d * reach * (float(np.linalg.norm(target - edge)) + 0.02 * ppm)
    return _HandPose(tip, d, np.array([-d[1], d[0]]) * plan.side, ppm)


def _draw_hand(lay: _Layout, pose: _HandPose) -> tuple[U8, U8, U8]:
    """The palm, fingers, thumb and arm (skin), the sleeve, and the creases between the fingers, as masks on the
    half-resolution canvas."""
    plan, d, n, ppm, pt, px = lay.hand, pose.d, pose.n, pose.ppm, pose.pt, pose.px
    w, h = lay.width, lay.height
    sw, sh = math.ceil(w * HAND_SCALE), math.ceil(h * HAND_SCALE)
    skin = np.zeros((sh, sw), np.uint8)
    sleeve = np.zeros((sh, sw), np.uint8)
    crease = np.zeros((sh, sw), np.uint8)
    palm = pose.tip - d * (0.078 + 0.045) * ppm
    angle = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(skin, pt(palm), (round(px(0.05) * 16), round(px(0.043) * 16)), angle, 0, 360, 255, -1, cv2.LINE_AA, 4)
    lengths, widths, offsets = (
        (0.068, 0.078, 0.074, 0.058),
        (0.018, 0.019, 0.018, 0.016),
        (-0.027, -0.009, 0.009, 0.026),
    )
    for length, width, offset in zip(lengths, widths, offsets, strict=True):
        fan = plan.spread * offset / 0.027
        direction = d * math.cos(fan) + n * math.sin(fan)
        base = palm + d * 0.035 * ppm + n * offset * ppm
        end = base + direction * (length - width / 2) * ppm
        cv2.line(skin, pt(base), pt(end), 255, max(1, round(px(width))), cv2.LINE_AA, 4)
        for side in (-1, 1):  # the gaps between fingers
            edge_n = np.array([-direction[1], direction[0]]) * side * width / 2 * ppm
            cv2.line(crease, pt(base + edge_n + d * 0.012 * ppm), pt(end + edge_n), 255, 1, cv2.LINE_AA, 4)
    thumb_dir = d * math.cos(0.8) - n * math.sin(0.8)
    thumb_base = palm - n * 0.03 * ppm - d * 0.015 * ppm
    cv2.line(
        skin, pt(thumb_base), pt(thumb_base + thumb_dir * 0.05 * ppm), 255, max(1, round(px(0.022))), cv2.LINE_AA, 4
    )
    wrist = palm - d * 0.045 * ppm
    far = wrist - d * (w + h)  # the arm runs out of the frame
    quad = np.array([wrist + n * 0.029 * ppm, wrist - n * 0.029 * ppm, far - n * 0.05 * ppm, far + n * 0.05 * ppm])
    cv2.fillConvexPoly(skin, np.array([pt(p) for p in quad], np.int32), 255, cv2.LINE_AA, 4)
    if plan.sleeve is not None:
        cuff = wrist - d * plan.sleeve_from * ppm
        quad = np.array([cuff + n * 0.05 * ppm, cuff - n * 0.05 * ppm, far - n * 0.07 * ppm, far + n * 0.07 * ppm])
        cv2.fillConvexPoly(sleeve, np.array([pt(p) for p in quad], np.int32), 255, cv2.LINE_AA, 4)
    return skin, sleeve, crease


def _shadow_offset(lay: _Layout, ppm: float) -> F64:
    """Where the hand's shadow falls on the felt, from the hand, in half-resolution pixels: away from the light."""
    q = lay.hand.target
    scene, cam = lay.scene, lay.scene.cam
    to_light = scene.lamp - np.array([q[0], q[1], 0.0]) if scene.light in ("lamp", "flash") else scene.lamp
    to_light = to_light / np.linalg.norm(to_light)
    fall = -HAND_HEIGHT * to_light[:2] / max(0.2, float(to_light[2]))
    offset: F64 = (_project(cam, q + fall, 0.0) - _project(cam, q, HAND_HEIGHT))[0] * HAND_SCALE
    return offset


def _shaded_colour(lay: _Layout, pose: _HandPose, alpha: F32, sleeve: U8, crease: U8) -> F32:
    """The hand's colour (premultiplied linear BGR): round limbs darker at their edges, the gaps between fingers
    dark lines, a grain of skin, the sleeve's own colour."""
    plan = lay.hand
    dist = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
    shade = 0.5 + 0.5 * np.sqrt(np.clip(dist / max(1.0, pose.px(0.014)), 0, 1))
    shade *= 1.0 - 0.35 * cv2.GaussianBlur(crease.astype(np.float32) / 255.0, (0, 0), 0.8) * (sleeve == 0)
    grain = _rng(lay.seed, _HAND, 1).standard_normal(alpha.shape).astype(np.float32)
    shade *= 1.0 + 0.08 * cv2.GaussianBlur(grain, (0, 0), 1.2)
    cover = sleeve.astype(np.float32)[:, :, None] / 255.0
    albedo = plan.skin[None, None, :] * (1 - cover)
    if plan.sleeve is not None:
        albedo = albedo + plan.sleeve[None, None, :] * cover
    colour: F32 = albedo * (shade * alpha * 1.1)[:, :, None]
    return colour


def _full_resolution(
    lay: _Layout, origin: tuple[int, int], size: tuple[int, int], alpha: F32, colour: F32, shadow: F32
) -> _HandLayers:
    """The half-resolution layers of the region at `origin` of `size` back at full resolution: exactly twice the
    region, cut to the frame."""
    x0, y0 = origin
    fx0, fy0 = 2 * x0, 2 * y0
    fw, fh = min(lay.width - fx0, 2 * size[0]), min(lay.height - fy0, 2 * size[1])

    def up(layer: F32) -> F32:
        out: F32 = cv2.resize(layer, (2 * size[0], 2 * size[1]), interpolation=cv2.INTER_LINEAR)[:fh, :fw]
        return out

    full_alpha = np.clip(up(alpha), 0, 1)
    ys, xs = np.nonzero(full_alpha > 0.5)
    box = None
    if len(xs):
        box = (float(xs.min() + fx0), float(ys.min() + fy0), float(xs.max() + 1 + fx0), float(ys.max() + 1 + fy0))
    return _HandLayers((fx0, fy0, fx0 + fw, fy0 + fh), full_alpha, up(colour), up(shadow), box)


def _hand_layers(lay: _Layout, reach: float, moving: bool) -> _HandLayers | None:
    """The hand and arm (reaching `reach` of the way to its target), their colour and the shadow they cast."""
    pose = _hand_pose(lay, reach)
    skin, sleeve, crease = _draw_hand(lay, pose)
    drawn = np.maximum(skin, sleeve)
    ys, xs = np.nonzero(drawn)
    if not len(xs):
        return None
    # The shadow on the felt: the hand's outline moved away from the light, softened by the light's size.
    f, ppm = HAND_SCALE, pose.ppm
    offset = _shadow_offset(lay, ppm)
    penumbra = max(1.0, PENUMBRA_M[lay.scene.light] * ppm * f)
    soft = max(0.6, 0.0015 * ppm * f)
    streak = max(3, round(0.008 * ppm * f) | 1) if moving else 0
    # Work on the region the hand, its blur and its shadow can reach (half resolution).
    pad = math.ceil(3 * soft + streak + 3 * penumbra + float(np.abs(offset).max())) + 2
    sh, sw = drawn.shape
    x0, y0 = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
    x1, y1 = min(sw, int(xs.max()) + 1 + pad), min(sh, int(ys.max()) + 1 + pad)
    sleeve, crease = sleeve[y0:y1, x0:x1], crease[y0:y1, x0:x1]
    alpha: F32 = drawn[y0:y1, x0:x1].astype(np.float32) / 255.0
    colour = _shaded_colour(lay, pose, alpha, sleeve, crease)
    alpha = cv2.GaussianBlur(alpha, (0, 0), soft)
    colour = cv2.GaussianBlur(colour, (0, 0), soft)
    if streak:  # the hand moves during the exposure: blurred along its way
        kernel = _line_kernel(streak, math.degrees(math.atan2(pose.d[1], pose.d[0])))
        kernel /= kernel.sum()
        alpha = cv2.filter2D(alpha, -1, kernel)
        colour = cv2.filter2D(colour, -1, kernel)
    size = (x1 - x0, y1 - y0)
    shifted = cv2.warpAffine(alpha, np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float64), size)
    shadow = 1.0 - lay.hand.strength * cv2.GaussianBlur(shifted, (0, 0), penumbra)
    return _full_resolution(lay, (x0, y0), size, alpha, colour, shadow)


def _overlap_share(poly: F64, other: F64) -> float:
    area, _ = cv2.intersectConvexConvex(
        np.ascontiguousarray(poly, dtype=np.float32), np.ascontiguousarray(other, dtype=np.float32)
    )
    own = abs(cv2.contourArea(poly.astype(np.float32)))
    return float(area) / own if own > 0 else 0.0


# ------------------------------------------------------------------------------------------ render


def _render(
    lay: _Layout,
    reach: float | None,
    frame: int,
    poses: Mapping[int, Placed] | None = None,
    moving_hand: bool = False,
) -> SeatedScene:
    """One frame: the static table, the dice in `poses` where they are now, the hand, light, optics, noise."""
    poses = dict(poses or {})
    w, h = lay.width, lay.height
    img: F32 = lay.static(frozenset(poses)).copy()
    for pl in sorted(poses.values(), key=lambda p: -p.order):
        draw(img, pl, ASSETS)
    hand = _hand_layers(lay, reach, moving_hand) if reach is not None and reach > 0 else None
    img *= lay.exposed
    if hand is not None:  # over the table, it casts its shadow and is lit itself
        rx0, ry0, rx1, ry1 = hand.roi
        region = img[ry0:ry1, rx0:rx1]
        region *= (hand.shadow * (1.0 - hand.alpha))[:, :, None]
        region += hand.colour * lay.exposed[ry0:ry1, rx0:rx1]
    img = np.asarray(cv2.GaussianBlur(img, (0, 0), lay.sigma), dtype=np.float32)
    noise = _rng(lay.seed, _NOISE, frame).standard_normal(img.shape, dtype=np.float32)
    img += noise * np.sqrt(np.maximum(img, 0) * lay.shot + lay.read**2)
    out = LIN_TO_SRGB_U8[np.clip(img * 4095, 0, 4095).astype(np.int32)]

    dice = []
    for index, die in enumerate(lay.dice):
        pl = poses.get(index, die.placed)
        hull = pl.hull
        x1, y1, x2, y2 = pl.box
        cut = not _inside_frame(hull, w, h, 0)
        box = (max(0.0, x1), max(0.0, y1), min(float(w), x2), min(float(h), y2))
        occluded = hand is not None and hand.covered(hull) > 0.02
        dice.append(SceneDie(die.seat, pl.sprite.face, _round_box(box), occluded, cut))
    cup_hulls = [c.hull for _, c in lay.cups]
    markers = []
    for seat, corners, table_mm in lay.markers:
        hidden = any(_overlap_share(corners, c) > 0.01 for c in cup_hulls) or (
            hand is not None and hand.covered(corners, 0.3) > 0.01
        )
        a, b, c, d = ((round(float(x), 2), round(float(y), 2)) for x, y in corners)
        markers.append(SceneMarker(seat, (a, b, c, d), hidden, table_mm))
    cups = tuple((seat, _round_box(_clip_box(c.box, w, h))) for seat, c in lay.cups)
    return SeatedScene(
        image=out,
        seed=lay.seed,
        seats=dict(lay.faces),
        dice=tuple(dice),
        markers=tuple(markers),
        cups=cups,
        hand=None if reach is None else SceneHand(lay.hand.seat, reach, None if hand is None else hand.box),
        zones=dict(lay.zones),
        table=lay.table,
        meta={**lay.meta, "frame": frame},
    )


def _clip_box(box: tuple[float, float, float, float], w: int, h: int) -> tuple[float, float, float, float]:
    return max(0.0, box[0]), max(0.0, box[1]), min(float(w), box[2]), min(float(h), box[3])


def _round_box(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    return round(box[0], 2), round(box[1], 2), round(box[2], 2), round(box[3], 2)


# --------------------------------------------------------------------------------------------- API


def compose_seated(
    seed: int,
    seats: Mapping[int, Sequence[int]],
    width: int = 2304,
    height: int = 1296,
    markers: bool = True,
    cups: bool = True,
    hand: float | None = None,
    *,
    hand_seat: int | None = None,
    strays: Sequence[Stray] = (),
    cup_on_marker: Collection[int] = (),
    marker_mm: float = MARKER_MM,
    lens: str | None = None,
    frame: int = 0,
) -> SeatedScene:
    """A seated table from its seed: `seats` maps seat number -> the faces its dice show (0-5 dice, up to 6 seats).

    `markers`: a printed ArUco card per seat at the table's edge (id = seat number). `cups`: each seat's lifted
    cup lies beside its dice (on its marker for the seats in `cup_on_marker`). `hand`: how far a hand reaches in
    from the frame's edge towards `hand_seat`'s dice (0-1; None: no hand). `strays`: dice with no seat.
    `lens`: "standard" or "wide" (None: drawn from the seed). `frame` picks the sensor noise: frames of one table
    differ only by it.
    """
    if hand is not None and not 0 <= hand <= 1:
        raise ValueError(f"hand debe estar entre 0 y 1 (se dio {hand})")
    lay = _layout(
        seed, _check_seats(seats), width, height, markers, cups, marker_mm, strays, cup_on_marker, hand_seat, lens
    )
    return _render(lay, hand, frame)


def _settle_poses(lay: _Layout, count: int, steps: int) -> list[dict[int, Placed]]:
    """Poses of `count` dice for each of `steps` frames before they come to rest (each a little nearer)."""
    rng = _rng(lay.seed, _SETTLE)
    seated = [i for i, d in enumerate(lay.dice) if d.seat is not None]
    rng.shuffle(seated)
    cam = lay.scene.cam
    others_hulls = {i: d.placed.hull for i, d in enumerate(lay.dice)}
    cup_hulls = [c.hull for _, c in lay.cups]
    chosen: dict[int, list[Placed]] = {}
    for index in seated:
        if len(chosen) >= count:
            break
        die = lay.dice[index]
        plan = next(p for p in lay.seats if p.seat == die.seat)
        outward = die.placed.world[:2] - plan.cluster
        if float(np.linalg.norm(outward)) < 1e-6:
            outward = -plan.inward
        base_angle = math.atan2(outward[1], outward[0])
        for _ in range(16):  # a short roll, outward from the cluster: about a die's side a frame
            ang = base_angle + rng.uniform(-1.2, 1.2)
            way = np.array([math.cos(ang), math.sin(ang)]) * SIDE * rng.uniform(2.0, 3.0)
            poses = []
            for step in range(steps):
                left = (steps - step) / (steps + 1 if steps else 1)
                p = die.placed.world + np.array([way[0] * left, way[1] * left, 0.0])
                others = [s for s in die.pool if s is not die.placed.sprite] or die.pool
                sprite = others[int(rng.integers(len(others)))]
                _, gamma = pick_sprite(rng, [sprite], lay.scene, p)
                pl = Placed(sprite, affine_for(cam, sprite, p, gamma), die.placed.order, die.placed.seat,
                            die.placed.recolour)  # fmt: skip
                pl.world = p
                poses.append(pl)
            if all(
                _inside_frame(pl.hull, lay.width, lay.height, FRAME_MARGIN_PX)
                and not any(_convex_overlap(_shrink(pl.hull, 0.9), o) for j, o in others_hulls.items() if j != index)
                and not any(_convex_overlap(pl.hull, c) for c in cup_hulls)
                for pl in poses
            ):
                chosen[index] = poses
                break
    return [{i: poses[step] for i, poses in chosen.items()} for step in range(steps)]


def scene_sequence(
    seed: int,
    seats: Mapping[int, Sequence[int]],
    frames: int = 12,
    width: int = 2304,
    height: int = 1296,
    markers: bool = True,
    cups: bool = True,
    *,
    hand_frames: int = 4,
    settle_frames: int = 2,
    settling: int = 2,
    hand_seat: int | None = None,
    strays: Sequence[Stray] = (),
    cup_on_marker: Collection[int] = (),
    marker_mm: float = MARKER_MM,
    lens: str | None = None,
) -> list[SeatedScene]:
    """A reveal, `frames` frames in all: a hand withdraws over `hand_frames` frames, `settling` dice shift for
    `settle_frames` frames, then the table is still (the rest: the same table, fresh sensor noise on each).

    The last movement is on frame `hand_frames + settle_frames` (the dice come to rest); from there on every
    frame is the still table of `compose_seated(seed, seats, ...)`, labels and all.
    """
    if min(frames, hand_frames, settle_frames, settling) < 0 or hand_frames + settle_frames > frames:
        raise ValueError(f"secuencia imposible: {frames} imágenes, {hand_frames} con mano, {settle_frames} asentando")
    lay = _layout(
        seed, _check_seats(seats), width, height, markers, cups, marker_mm, strays, cup_on_marker, hand_seat, lens
    )
    settle = _settle_poses(lay, settling, settle_frames) if settle_frames else []
    before = settle[0] if settle else {}
    out = []
    for index in range(frames):
        if index < hand_frames:
            reach = 1.0 - index / hand_frames
            out.append(_render(lay, reach, index, before, moving_hand=index > 0))
        elif index < hand_frames + settle_frames:
            out.append(_render(lay, None, index, settle[index - hand_frames]))
        else:
            out.append(_render(lay, None, index))
    return out


def write_sequence(frames: Iterable[SeatedScene | U8], folder: Path, quality: int = 90) -> list[Path]:
    """Write frames as `000.jpg, 001.jpg ...` (what `replay:FOLDER` plays); earlier frames named so are removed.

    For scenes, the labels of the last frame go to `scene.json` beside them (replay ignores it).
    """
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if SEQUENCE_NAME.match(old.name) and old.is_file():
            old.unlink()
    paths = []
    last: SeatedScene | None = None
    for index, item in enumerate(frames):
        image = item.image if isinstance(item, SeatedScene) else item
        if isinstance(item, SeatedScene):
            last = item
        path = folder / f"{index:03d}.jpg"
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise ValueError(f"no se pudo codificar la imagen {index} como JPEG")
        path.write_bytes(data.tobytes())
        paths.append(path)
    if last is not None:
        (folder / "scene.json").write_text(json.dumps(last.to_dict(), ensure_ascii=False, indent=1) + "\n")
    return paths


def render_reveal(
    seed: int,
    seats: Mapping[int, Sequence[int]],
    out_dir: Path,
    width: int = 2304,
    height: int = 1296,
    frames: int = 12,
) -> list[Path]:
    """Write a "cups lifted" reveal into `out_dir` (JPEG, quality 90): the hand leaves, the dice settle, then the
    table is still; returns the frames' paths, in order. Play it with `replay:OUT_DIR`."""
    hand_frames = min(4, max(0, frames - 1))
    settle_frames = min(2, max(0, frames - hand_frames - 1))
    sequence = scene_sequence(seed, seats, frames, width, height, hand_frames=hand_frames, settle_frames=settle_frames)
    return write_sequence(sequence, out_dir, quality=90)
