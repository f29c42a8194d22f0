"""Compose rendered table photos from the Blender sprites: felt, rails, light, dice per seat, exact labels.

numpy + OpenCV only. One table is a pure function of its seed: `compose_table(seed, ...)`.
Compositing runs in linear light on premultiplied alpha (no haloes); the camera model sets every die's
size, view angle and place; every label comes from the sprite's exact outline mapped by the same affine
transform that draws it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision import labels as yolo
from vision.synth.camera import LENSES, Camera
from vision.synth.dice_model import DIE_MM, label_class

ASSETS = Path(__file__).parent / "assets"
SIDE = DIE_MM / 1000
# OpenCV's stubs type every array loosely: these aliases say what a value holds, not what mypy can prove.
F32 = npt.NDArray[Any]  # float32
F64 = npt.NDArray[Any]  # float64
U8 = npt.NDArray[Any]  # uint8 (BGR images)

FELTS: dict[str, tuple[int, int, int]] = {  # sRGB
    "green": (34, 98, 58),
    "dark_green": (22, 66, 40),
    "blue": (30, 64, 112),
    "red": (120, 30, 36),
    "brown": (92, 62, 40),
    "grey": (84, 86, 88),
}
# Bare café tables (no felt): surface name -> sRGB base colour. Each is drawn with its own texture (bare_table).
BARE_TABLES: dict[str, tuple[int, int, int]] = {
    "white_laminate": (226, 226, 222),
    "cream_laminate": (228, 216, 192),
    "light_wood": (186, 146, 102),
    "dark_wood": (96, 62, 38),
    "granite": (128, 122, 116),
    "marble": (222, 220, 216),
    "black": (30, 30, 32),
}
# Patterned cloths and printed boards: a café table under a check or striped cloth, or dice rolled on a game
# board (the real photos' Catan board: busy print round small dice, where the finder missed most).
CLOTH_TABLES = ("gingham", "stripes", "print", "board")
CLOTH_COLOURS = (  # sRGB: red, mustard, blue, green, orange, purple (the print's colours), then cream and ink
    (190, 44, 42),
    (222, 180, 56),
    (46, 98, 170),
    (58, 132, 66),
    (226, 122, 40),
    (124, 62, 130),
    (236, 230, 214),
    (40, 38, 44),
)
# compose_table's `surface`: mixed = bare on half the tables; cloth = a patterned cloth or board on every table
SURFACES = ("felt", "bare", "mixed", "cloth")
LIGHT_WEIGHTS = {"lamp": 0.4, "fluorescent": 0.25, "side": 0.2, "flash": 0.15}
TINTS = {  # colour of the light (linear multipliers): warm café bulb, cold tube, neutral flash / daylight
    "lamp": (1.18, 1.0, 0.72),
    "fluorescent": (0.92, 1.03, 1.1),
    "flash": (1.0, 1.0, 1.02),
    "side": (1.08, 1.0, 0.86),
}
COLOURED = {"red_white", "green_white", "blue_white", "yellow_black", "clear_red", "clear_green"}

_LIN = ((np.arange(256) / 255.0 + 0.055) / 1.055) ** 2.4
_LIN[:11] = np.arange(11) / 255.0 / 12.92
SRGB_TO_LIN = _LIN.astype(np.float32)
_X = np.linspace(0, 1, 4096)
LIN_TO_SRGB = np.clip(np.where(_X <= 0.0031308, _X * 12.92, 1.055 * _X ** (1 / 2.4) - 0.055) * 255 + 0.5, 0, 255)
LIN_TO_SRGB_U8 = LIN_TO_SRGB.astype(np.uint8)


# ------------------------------------------------------------------------------------------- sprites


@dataclass(frozen=True)
class Sprite:
    """A sprite's manifest entry, with what the compositor needs."""

    file: str
    kind: str
    style: str
    face: int
    cocked: bool
    light: str
    view_tilt: float
    light_azimuth: float  # sprite-world bearing towards the light (the sprite camera looks from bearing 270)
    tilt_azimuth: float
    px_per_m: float
    centre: tuple[float, float]
    hull: tuple[tuple[float, float], ...]
    top_face: tuple[tuple[float, float], ...]
    size: tuple[int, int]
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@lru_cache(maxsize=4)
def load_manifest(assets: Path = ASSETS) -> tuple[Sprite, ...]:
    """All sprites listed in the manifest, in manifest order."""
    data = json.loads((assets / "manifest.json").read_text())
    out = []
    for e in data["sprites"]:
        hull = tuple((float(x), float(y)) for x, y in e["hull"])
        out.append(
            Sprite(
                file=e["file"],
                kind=e["kind"],
                style=e["style"],
                face=int(e.get("face", 0)),
                cocked=bool(e.get("cocked", False)),
                light=e["light"],
                view_tilt=float(e["view_tilt"]),
                light_azimuth=float(e["light_azimuth"]),
                tilt_azimuth=float(e.get("tilt_azimuth", 0.0)),
                px_per_m=float(e["px_per_m"]),
                centre=tuple(e.get("centre") or _hull_centre(hull)),
                hull=hull,
                top_face=tuple((float(x), float(y)) for x, y in e.get("top_face", [])),
                size=(int(e["size"][0]), int(e["size"][1])),
                extra=e.get("extra", {}),
            )
        )
    return tuple(out)


SPRITE_SETS = ("all", "train", "val")
HELD_OUT_EVERY = 6  # dice sprites of every sixth render batch (b001, b007, ..., c001: all 10 styles) are for val


COCKED_RATE = 0.12  # each seat's chance of a cocked die: about one table in three
TOUCHING = 0.45  # a seat's next die's chance to be laid against one of the seat's dice already down
# The first round of cocked batches (c000-c004). Later rounds (c005-...) came after the data sets of the
# model cards were made: a table uses them only when asked, so that every earlier seed makes the same table.
FIRST_COCKED_BATCHES = 5


def _render_batch(sprite: Sprite) -> tuple[str, int] | None:
    """A dice sprite's render batch from its file name ("b", 7 for ..._b007.png; "c" for cocked), else None."""
    batch = re.search(r"_([bc])(\d+)\.png$", sprite.file)
    return (batch.group(1), int(batch.group(2))) if sprite.kind == "die" and batch is not None else None


def extra_cocked(sprite: Sprite) -> bool:
    """Whether a dice sprite is from a later round of cocked batches (c005 on)."""
    batch = _render_batch(sprite)
    return batch is not None and batch[0] == "c" and batch[1] >= FIRST_COCKED_BATCHES


def held_out(sprite: Sprite) -> bool:
    """Whether a dice sprite belongs to the held-out set: tables made of them test dice no reader trained on."""
    batch = _render_batch(sprite)
    return batch is not None and batch[1] % HELD_OUT_EVERY == 1


def sprite_set(sprites: tuple[Sprite, ...], which: str, more_cocked: bool = False) -> tuple[Sprite, ...]:
    """The sprites a table may use: every one, the training dice only, or the held-out dice only (props always);
    the later rounds of cocked dice only with `more_cocked`."""
    if which not in SPRITE_SETS:
        raise ValueError(f"unknown sprite set {which!r}: one of {', '.join(SPRITE_SETS)}")
    pool = sprites if more_cocked else tuple(s for s in sprites if not extra_cocked(s))
    if which == "all":
        return pool
    return tuple(s for s in pool if s.kind != "die" or held_out(s) == (which == "val"))


def _hull_centre(hull: tuple[tuple[float, float], ...]) -> tuple[float, float]:
    pts = np.array(hull)
    return float(pts[:, 0].mean()), float(pts[:, 1].mean())


_SPRITE_CACHE: dict[tuple[str, str, bool], tuple[F32, F32]] = {}


def sprite_pixels(sprite: Sprite, assets: Path = ASSETS, feather: bool = False) -> tuple[F32, F32]:
    """(linear RGB premultiplied by alpha, alpha) of a sprite as float32 arrays, cached per process; `feather`
    fades the baked shadow to nothing at the sprite's edge (its cut shows as a square on a light table)."""
    key = (str(assets), sprite.file, feather)
    if key not in _SPRITE_CACHE:
        img = cv2.imread(str(assets / sprite.file), cv2.IMREAD_UNCHANGED)
        if img is None or img.ndim != 3 or img.shape[2] != 4:
            raise FileNotFoundError(f"sprite {sprite.file} missing or not RGBA")
        alpha = img[:, :, 3].astype(np.float32) / 255.0
        rgb = SRGB_TO_LIN[img[:, :, :3]]
        if feather:
            h, w = alpha.shape
            keep = np.zeros((h, w), dtype=np.uint8)
            cv2.fillConvexPoly(keep, np.round(np.array(sprite.hull)).astype(np.int32), 1)
            keep = cv2.dilate(keep, np.ones((5, 5), np.uint8)).astype(bool)  # the object itself stays whole
            ramp = max(3.0, 0.2 * min(h, w))
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            edge = np.minimum(np.minimum(xx + 0.5, w - 0.5 - xx), np.minimum(yy + 0.5, h - 0.5 - yy))
            fade = np.clip(edge / ramp, 0.0, 1.0) ** 2
            alpha = np.where(keep, alpha, alpha * fade).astype(np.float32)
        _SPRITE_CACHE[key] = (rgb * alpha[:, :, None], alpha)
        if len(_SPRITE_CACHE) > 4000:
            _SPRITE_CACHE.clear()
    return _SPRITE_CACHE[key]


# -------------------------------------------------------------------------------------------- scene


@dataclass
class Placed:
    """An object drawn on the table: its sprite, affine map (sprite px -> image px) and label data."""

    sprite: Sprite
    affine: F64  # 2 x 3
    order: float  # larger is drawn first (further from the nadir)
    seat: int = -1
    recolour: tuple[float, float, float] = (0.0, 1.0, 1.0)  # hue shift, saturation, value
    support: int = -1  # index of the die a cocked die leans on
    world: Any = None  # the die's centre on the table (metres)
    leans_on: Placed | None = None  # the cup a cocked die leans on

    def map(self, pts: Any) -> F64:
        """Sprite pixel points -> image pixel points."""
        p = np.asarray(pts, dtype=float)
        return p @ self.affine[:, :2].T + self.affine[:, 2]

    @property
    def hull(self) -> F64:
        """The object's exact outline in image pixels."""
        return self.map(self.sprite.hull)

    @property
    def box(self) -> tuple[float, float, float, float]:
        """Axis-aligned box of the outline in image pixels."""
        h = self.hull
        return float(h[:, 0].min()), float(h[:, 1].min()), float(h[:, 0].max()), float(h[:, 1].max())


def _turn_about_vertical(gamma_deg: float) -> F64:
    """Rotation matrix turning world vectors by gamma degrees about the vertical (counter-clockwise from above)."""
    g = math.radians(gamma_deg)
    return np.array([[math.cos(g), -math.sin(g), 0], [math.sin(g), math.cos(g), 0], [0, 0, 1]])


def _affine_seen_by(cam: Camera, sprite_points: F64, world_points: F64) -> F64:
    """The affine map taking three sprite points to where `cam` sees the three world points they stand for."""
    img = cam.project(world_points)
    m: F64 = cv2.getAffineTransform(sprite_points.astype(np.float32), img.astype(np.float32)).astype(np.float64)
    return m


def affine_for(cam: Camera, sprite: Sprite, centre_world: F64, gamma_deg: float) -> F64:
    """Sprite px -> image px: the sprite's view plane, turned by gamma about the vertical, seen by `cam`.

    The sprite was rendered by an orthographic camera looking from bearing 270 (from -y) and tilted
    `view_tilt` off vertical; its image axes are right = (1, 0, 0) and up = (0, cos t, sin t). Turning
    the sprite's world by gamma about the vertical and putting its die centre at `centre_world`, three
    points of its view plane are projected by the real camera: the affine map is exact at the centre and
    first-order accurate over the die (it spans ~2 % of the distance to the camera).
    """
    t = math.radians(sprite.view_tilt)
    rz = _turn_about_vertical(gamma_deg)
    right = rz @ np.array([1.0, 0.0, 0.0])
    up = rz @ np.array([0.0, math.cos(t), math.sin(t)])
    k = 1.0 / sprite.px_per_m
    step = 0.01  # metres
    world = np.array([centre_world, centre_world + right * step, centre_world + up * step])
    cx, cy = sprite.centre
    src = np.array([[cx, cy], [cx + step / k, cy], [cx, cy - step / k]], dtype=np.float64)
    return _affine_seen_by(cam, src, world)


def affine_for_top(cam: Camera, sprite: Sprite, centre_world: F64, gamma_deg: float) -> F64:
    """Sprite px -> image px for a die lying flat, exact on its top face: the face is a horizontal square, so
    the camera, looking down, sees it square however far off its axis the die lies.

    `affine_for` maps the sprite's view plane instead, so where the sprite's view tilt differs from the
    camera's angle to the die the top face came out squashed (to 0.8 at 12-20 degrees apart): a shape no
    camera looking down shows a flat die, and the one a cocked die's top face has. The sprite's top face is
    first unsquashed (its camera saw it at `view_tilt`) and then made square: a flat sprite's die rests up to
    3.5 degrees off level, which a steep sprite view magnifies.
    """
    t = math.radians(sprite.view_tilt)
    rz = _turn_about_vertical(gamma_deg)
    k = 1.0 / sprite.px_per_m
    # sprite px offsets -> metres on the level top face, in the sprite's frame (x right, y away from its camera;
    # image y points down, and the sprite's camera saw that direction squashed by cos t)
    unsquash = np.array([[k, 0.0], [0.0, -k / math.cos(t)]])
    poly = np.asarray(sprite.top_face, dtype=np.float64)
    edges = np.column_stack([poly[1] - poly[0], poly[3] - poly[0]])
    seen = unsquash @ edges
    u, sizes, vt = np.linalg.svd(seen)
    square = float(sizes.mean()) * (u @ vt)  # the nearest square to the face the sprite shows
    to_level = square @ np.linalg.inv(edges)
    centre = poly.mean(axis=0)
    offsets = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) * (0.01 / k)  # a centimetre, in sprite px
    top = np.asarray(centre_world, dtype=np.float64) + np.array([0.0, 0.0, SIDE / 2])
    world = np.array([top + rz[:, :2] @ (to_level @ d) for d in offsets])
    return _affine_seen_by(cam, centre + offsets, world)


def bearing(v: F64) -> float:
    """Horizontal bearing of a vector in degrees (0 = +x, counter-clockwise)."""
    return math.degrees(math.atan2(float(v[1]), float(v[0])))


def angdiff(a: float, b: float) -> float:
    """Smallest absolute difference of two angles in degrees."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


@dataclass
class Scene:
    """A table's random settings (all drawn from its seed)."""

    cam: Camera
    light: str
    lamp: F64  # world position of the lamp (lamp, flash) or a far direction (side, fluorescent)
    felt: tuple[int, int, int]
    tint: tuple[float, float, float]
    table_half: tuple[float, float]
    table_centre: tuple[float, float]
    rail: float


def random_scene(rng: np.random.Generator, width: int, height: int) -> Scene:
    """Draw a camera (height, lens, tilt), a light, a felt colour and a table."""
    lens = "standard" if rng.random() < 0.72 else "wide"
    cam = Camera(
        width=width,
        height_px=height,
        hfov_deg=LENSES[lens],
        height=float(rng.uniform(0.6, 1.0)),
        pitch_deg=float(np.clip(rng.normal(0, 2.5), -6, 6)),
        roll_deg=float(np.clip(rng.normal(0, 2.5), -6, 6)),
    )
    lights = list(LIGHT_WEIGHTS)
    light = str(rng.choice(lights, p=list(LIGHT_WEIGHTS.values())))
    if light == "lamp":
        az = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(0.0, 0.5)
        lamp = np.array([r * math.cos(az), r * math.sin(az), rng.uniform(0.55, 1.1)])
    elif light == "flash":
        lamp = cam.position + np.array([rng.uniform(-0.03, 0.03), rng.uniform(-0.03, 0.03), 0.0])
    else:  # a far source: a window or low lamp (side), a ceiling tube (fluorescent)
        az = rng.uniform(0, 2 * math.pi)
        el = math.radians(rng.uniform(26, 38) if light == "side" else rng.uniform(55, 80))
        lamp = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]) * 100.0
    felt_name = str(rng.choice(list(FELTS)))
    base = np.array(FELTS[felt_name], dtype=float) * rng.uniform(0.8, 1.2, 3)
    felt = tuple(int(v) for v in np.clip(base, 5, 250))
    tint = np.array(TINTS[light]) ** rng.uniform(0.3, 0.9)  # the camera's white balance corrects part of it
    visible = cam.unproject_to_table(np.array([[0, 0], [width, height]], dtype=float))
    half_view = np.abs(visible[1] - visible[0]) / 2
    # Table edges sometimes inside the view (rails seen), sometimes outside.
    half = half_view * rng.uniform(0.75, 1.6, 2)
    centre = rng.uniform(-0.25, 0.25, 2) * half_view
    return Scene(
        cam=cam,
        light=light,
        lamp=lamp,
        felt=felt,  # type: ignore[arg-type]
        tint=(float(tint[0]), float(tint[1]), float(tint[2])),
        table_half=(float(half[0]), float(half[1])),
        table_centre=(float(centre[0]), float(centre[1])),
        rail=float(rng.uniform(0.05, 0.1)),
    )


def light_bearing(scene: Scene, point: F64) -> float:
    """Bearing from a table point towards the scene's light."""
    return bearing(scene.lamp[:2] - point[:2])


def pick_sprite(
    rng: np.random.Generator,
    sprites: list[Sprite],
    scene: Scene,
    centre: F64,
) -> tuple[Sprite, float]:
    """The sprite that best fits this spot (view tilt, light and its bearing), and the turn gamma to apply."""
    ray = scene.cam.ray(centre)
    theta = math.degrees(math.acos(min(1.0, -ray[2])))
    beta = bearing(ray)  # the camera sees the die looking along this bearing
    want_light = light_bearing(scene, centre)
    family = {"lamp": "overhead", "fluorescent": "overhead", "side": "side", "flash": "flash"}
    best, best_cost, best_gamma = sprites[0], math.inf, 0.0
    for s in sprites:
        free = theta < 6 and s.view_tilt < 8
        gamma = beta - 90.0
        if free:  # seen from straight above: any turn fits the view, so turn the shadow the scene's way
            gamma = want_light - s.light_azimuth + rng.uniform(-15, 15)
        cost = abs(s.view_tilt - theta) / 8.0 + rng.uniform(0, 0.6)
        if s.light != scene.light:
            cost += 0.6 if family[s.light] == family[scene.light] else 2.0
        if scene.light != "flash" and not free:
            cost += angdiff(s.light_azimuth + gamma, want_light) / 60.0
        if cost < best_cost:
            best, best_cost, best_gamma = s, cost, gamma
    return best, best_gamma


# --------------------------------------------------------------------------------------- background


def noise_field(rng: np.random.Generator, h: int, w: int, cell: int) -> F32:
    """Smooth value noise (mean 0, std ~1) with features about `cell` pixels wide."""
    gh, gw = max(2, h // cell + 2), max(2, w // cell + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _inside_table(scene: Scene, step: int = 8) -> tuple[F32, F32, F32]:
    """How far inside the table's rounded rectangle each pixel's table point lies (metres, negative outside), and
    its table-plane x and y: computed on a coarse grid and upsampled (the warp is smooth)."""
    cam = scene.cam
    w, h = cam.width, cam.height_px
    gy, gx = np.mgrid[0 : h + step : step, 0 : w + step : step].astype(np.float64)
    world = cam.unproject_to_table(np.column_stack([gx.ravel(), gy.ravel()])).reshape((*gy.shape, 2))
    cx, cy = scene.table_centre
    hx, hy = scene.table_half
    dx = hx - np.abs(world[..., 0] - cx)
    dy = hy - np.abs(world[..., 1] - cy)
    corner = 0.12
    qx, qy = np.maximum(corner - dx, 0), np.maximum(corner - dy, 0)
    inside = np.minimum(dx, dy)
    inside = np.where((qx > 0) & (qy > 0), corner - np.hypot(qx, qy), inside)
    inside = cv2.resize(inside.astype(np.float32), (w + step, h + step), interpolation=cv2.INTER_LINEAR)
    inside = inside[:h, :w] if inside.shape[0] >= h else inside
    wx = cv2.resize(world[..., 0].astype(np.float32), (w + step, h + step))[:h, :w]
    wy = cv2.resize(world[..., 1].astype(np.float32), (w + step, h + step))[:h, :w]
    return inside, wx, wy


def _felt(rng: np.random.Generator, scene: Scene, ppm: float) -> F32:
    """Linear BGR of the felt over the whole frame: albedo variation (fibre noise at 0.3 mm and 2 mm), dye
    blotches, and wrinkles."""
    w, h = scene.cam.width, scene.cam.height_px
    felt = SRGB_TO_LIN[np.array(scene.felt, dtype=np.uint8)[::-1]]  # BGR
    hh, hw = (h + 1) // 2, (w + 1) // 2  # fibre noise drawn at half resolution (the lens blurs it anyway)
    fine: F32 = rng.standard_normal((hh, hw), dtype=np.float32)
    fine = cv2.resize(cv2.GaussianBlur(fine, (0, 0), max(0.4, 0.00015 * ppm)), (w, h), interpolation=cv2.INTER_LINEAR)
    k = max(3, int(0.002 * ppm) | 1)
    streak = cv2.filter2D(rng.standard_normal((hh, hw), dtype=np.float32), -1, _line_kernel(k, rng.uniform(0, 180)))
    streak = cv2.resize(streak, (w, h), interpolation=cv2.INTER_LINEAR)
    blotch = noise_field(rng, h, w, max(8, int(0.08 * ppm)))
    shade = 0.07 * fine
    shade += 0.05 * streak
    shade += 0.04 * blotch
    shade += 1.0
    for _ in range(int(rng.integers(0, 4))):  # wrinkles: a long soft ridge, lit on one side
        shade *= _wrinkle(rng, h, w, ppm)
    img: F32 = shade[:, :, None] * felt[None, None, :].astype(np.float32)
    return img


def _rails(rng: np.random.Generator, scene: Scene, img: F32, inside: F32, wx: F32, wy: F32, ppm: float) -> None:
    """Draw into `img` the rails (wood, a rounded profile, a dark seam against the felt) and beyond them the floor,
    where the frame shows them."""
    cx, cy = scene.table_centre
    hx, hy = scene.table_half
    rail = scene.rail
    wood = SRGB_TO_LIN[np.array(rng.choice([(40, 70, 110), (30, 50, 80), (50, 90, 140), (25, 35, 45)]), dtype=np.uint8)]
    freq = rng.uniform(300, 700)
    outside = inside < 0.012
    if not outside.any():
        return
    rows = np.nonzero(outside.any(axis=1))[0]
    cols = np.nonzero(outside.any(axis=0))[0]
    r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    ins = inside[r0:r1, c0:c1]
    sx, sy = wx[r0:r1, c0:c1], wy[r0:r1, c0:c1]
    along = np.where(np.abs(sx - cx) / hx > np.abs(sy - cy) / hy, sy, sx)
    wobble = noise_field(rng, r1 - r0, c1 - c0, max(8, int(0.05 * ppm)))
    grain = 1.0 + 0.12 * np.sin(along * freq + 3 * wobble)
    t = np.clip(-ins / rail, 0, 1)  # 0 at the felt's edge, 1 at the rail's outer edge
    profile = 0.55 + 0.6 * np.sqrt(np.maximum(np.sin(np.pi * t), 0))
    rail_mask = (ins < 0) & (ins > -rail)
    floor_mask = ins <= -rail
    seam = (1.0 - 0.6 * np.exp(-((ins / 0.004) ** 2))).astype(np.float32)  # the seam between felt and rail
    sub = img[r0:r1, c0:c1]
    for c in range(3):
        ch = sub[:, :, c]
        ch[rail_mask] = (wood[c] * grain * profile)[rail_mask]
        ch[floor_mask] = 0.02 + 0.01 * c
        ch *= seam


def felt_and_table(rng: np.random.Generator, scene: Scene) -> tuple[F32, npt.NDArray[np.bool_]]:
    """Linear RGB of the table (felt with fibres and wrinkles, wooden rails, floor) and the felt mask."""
    inside, wx, wy = _inside_table(scene)
    ppm = scene.cam.focal / scene.cam.height  # pixels per metre near the centre
    img = _felt(rng, scene, ppm)
    _rails(rng, scene, img, inside, wx, wy, ppm)
    felt_mask = inside > 0.02
    return img, felt_mask


def bare_table(rng: np.random.Generator, scene: Scene, kind: str) -> F32:
    """Linear BGR of a bare table filling the frame: laminate, wood grain, granite speckle, marble veins."""
    cam = scene.cam
    w, h = cam.width, cam.height_px
    ppm = cam.focal / cam.height
    base = SRGB_TO_LIN[np.array(BARE_TABLES[kind], dtype=np.uint8)[::-1]].astype(np.float32) * rng.uniform(0.9, 1.1, 3)
    shade = 1.0 + 0.03 * noise_field(rng, h, w, max(8, int(0.1 * ppm)))  # wear and uneven gloss
    img = shade[:, :, None] * base[None, None, :].astype(np.float32)
    if kind.endswith("wood"):  # grain: stretched noise along one direction, darker late-wood bands
        a = rng.uniform(0, 180)
        hh, hw = (h + 3) // 4, (w + 3) // 4
        k = max(3, int(0.03 * ppm / 4) | 1)
        streak = cv2.filter2D(rng.standard_normal((hh, hw), dtype=np.float32), -1, _line_kernel(k, a))
        streak = cv2.resize(streak, (w, h), interpolation=cv2.INTER_LINEAR)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        across = -xx * math.sin(math.radians(a)) + yy * math.cos(math.radians(a))
        wobble = noise_field(rng, h, w, max(8, int(0.05 * ppm)))
        bands = np.sin(across / (rng.uniform(0.003, 0.008) * ppm) + 2.0 * wobble)
        img *= (1.0 + 0.08 * streak + 0.12 * bands)[:, :, None]
    elif kind == "granite":  # crystals of 1-5 mm: dark mica, light quartz, pink or brown feldspar
        feldspar = [(1.0, 1.15, 1.6), (0.8, 1.0, 1.25)]  # BGR gains: pink or brown, one per table
        for share, tints in [(0.02, [(0.35,) * 3]), (0.015, [(1.9,) * 3]), (0.012, feldspar)]:
            cell = max(2, int(rng.uniform(0.001, 0.003) * ppm))
            field = noise_field(rng, h, w, cell)
            spots = (field > np.quantile(field[::7, ::7], 1 - share * 8)).astype(np.float32)
            spots = cv2.GaussianBlur(spots, (0, 0), max(0.5, cell / 3))
            tint = np.array(tints[0] if len(tints) == 1 else rng.choice(tints), dtype=np.float32)
            img *= 1.0 + spots[:, :, None] * (tint[None, None, :] - 1.0)
        img *= (1.0 + 0.15 * rng.standard_normal((h, w), dtype=np.float32).clip(-2, 2))[:, :, None]
    elif kind == "marble":  # soft grey veins: thin ridges of turbulent noise
        turb = noise_field(rng, h, w, max(8, int(0.3 * ppm))) + 0.3 * noise_field(rng, h, w, max(8, int(0.03 * ppm)))
        veins = np.exp(-((np.sin(turb * rng.uniform(0.8, 1.5)) / 0.06) ** 2)).astype(np.float32)
        img *= (1.0 - rng.uniform(0.15, 0.35) * veins)[:, :, None]
    return img.astype(np.float32)


def cloth_table(rng: np.random.Generator, scene: Scene, kind: str) -> F32:
    """Linear BGR of a patterned table filling the frame: gingham checks, stripes, a busy print of blots in four
    to six colours, or a board of coloured hexagonal tiles with light borders."""
    cam = scene.cam
    w, h = cam.width, cam.height_px
    ppm = cam.focal / cam.height
    palette = SRGB_TO_LIN[np.array(CLOTH_COLOURS, dtype=np.uint8)[:, ::-1]].astype(np.float32)
    palette *= rng.uniform(0.85, 1.1, (len(palette), 1)).astype(np.float32)
    cream, ink = len(CLOTH_COLOURS) - 2, len(CLOTH_COLOURS) - 1
    # The pattern is drawn on a grid four times coarser (its features are millimetres wide), then enlarged.
    step = 4
    hh, hw = (h + step - 1) // step, (w + step - 1) // step
    yy, xx = np.mgrid[0:hh, 0:hw].astype(np.float32) * step
    a = rng.uniform(0, math.pi)
    u = xx * math.cos(a) + yy * math.sin(a)
    v = -xx * math.sin(a) + yy * math.cos(a)
    colour = int(rng.integers(0, cream))  # gingham's colour; drawn for every pattern, as the samples were made
    if kind == "gingham":  # woven checks: the colour where both threads have it, half where one has it
        period = rng.uniform(0.008, 0.025) * ppm
        share = ((np.floor(u / period) % 2 == 0).astype(np.float32) + (np.floor(v / period) % 2 == 0)) / 2
        small = palette[cream] + share[:, :, None] * (palette[colour] - palette[cream])
    elif kind == "stripes":
        picks = rng.choice(len(CLOTH_COLOURS), size=int(rng.integers(2, 4)), replace=False)
        widths = rng.uniform(0.004, 0.04, len(picks)) * ppm
        index = np.searchsorted(np.cumsum(widths), np.mod(u, widths.sum()), side="right")
        small = palette[picks][np.minimum(index, len(picks) - 1)]
    elif kind == "print":  # blots of smooth noise cut into colour bands, inked where the colour changes
        picks = rng.choice(len(CLOTH_COLOURS), size=int(rng.integers(4, 7)), replace=False)
        field = noise_field(rng, hh, hw, max(4, int(rng.uniform(0.01, 0.04) * ppm / step)))
        cuts = np.quantile(field[::5, ::5], np.linspace(0, 1, len(picks) + 1)[1:-1])
        index = np.searchsorted(cuts, field)
        small = palette[picks][index]
        edge = cv2.morphologyEx(index.astype(np.uint8), cv2.MORPH_GRADIENT, np.ones((2, 2), np.uint8)) > 0
        if rng.random() < 0.6:
            small[edge] = palette[ink]
    elif kind == "board":  # pointy hexagons (axial coordinates rounded to the nearest centre), light borders
        size = rng.uniform(0.03, 0.07) * ppm
        q = (math.sqrt(3) / 3 * u - v / 3) / size
        r = 2 / 3 * v / size
        cx, cz = np.round(q), np.round(r)
        cy = np.round(-q - r)
        dx, dy, dz = np.abs(cx - q), np.abs(cy + q + r), np.abs(cz - r)
        fix_x = (dx > dy) & (dx > dz)
        fix_z = ~fix_x & (dz >= dy)
        cx = np.where(fix_x, -cy - cz, cx)
        cz = np.where(fix_z, -cx - cy, cz)
        tile = (cx.astype(np.int64) * 7919 + cz.astype(np.int64) * 104729 + int(rng.integers(0, 1 << 20))) % cream
        small = palette[tile]
        # cube offsets from the tile's centre: their largest pairwise difference is 1 on the tile's edges
        ox, oz = q - cx, r - cz
        oy = -ox - oz
        edge = np.maximum(np.maximum(np.abs(ox - oy), np.abs(oy - oz)), np.abs(oz - ox))
        small[edge > rng.uniform(0.9, 0.95)] = palette[cream]
    else:
        raise ValueError(f"cloth must be one of {', '.join(CLOTH_TABLES)}, got {kind!r}")
    img: F32 = cv2.resize(np.ascontiguousarray(small, dtype=np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    weave = 1.0 + 0.06 * rng.standard_normal((h, w), dtype=np.float32).clip(-2, 2)
    shade = 1.0 + 0.04 * noise_field(rng, h, w, max(8, int(0.1 * ppm)))  # folds and uneven light on the cloth
    img *= (weave * shade)[:, :, None]
    return img


def _line_kernel(k: int, angle: float) -> F32:
    ker = np.zeros((k, k), dtype=np.float32)
    c = k // 2
    a = math.radians(angle)
    cv2.line(
        ker,
        (int(c - c * math.cos(a)), int(c - c * math.sin(a))),
        (int(c + c * math.cos(a)), int(c + c * math.sin(a))),
        1.0,
        1,
    )
    return ker / max(1.0, float(ker.sum())) * math.sqrt(k)


def _wrinkle(rng: np.random.Generator, h: int, w: int, ppm: float) -> F32:
    yy, xx = np.mgrid[0:h:4, 0:w:4].astype(np.float32)
    a = rng.uniform(0, math.pi)
    x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
    d = (xx - x0) * math.sin(a) - (yy - y0) * math.cos(a)
    along = (xx - x0) * math.cos(a) + (yy - y0) * math.sin(a)
    width = rng.uniform(0.004, 0.012) * ppm
    length = rng.uniform(0.08, 0.3) * ppm
    env = np.exp(-((along / length) ** 2))
    ridge = -d / width * np.exp(-((d / width) ** 2)) * env * rng.uniform(0.1, 0.25)
    small = (1.0 + ridge).astype(np.float32)
    out: F32 = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


def illumination(rng: np.random.Generator, scene: Scene) -> F32:
    """Relative light over the frame: lamp hot spot or flash fall-off, side gradient, vignetting (mean ~1)."""
    cam = scene.cam
    w, h = cam.width, cam.height_px
    gw, gh = 64, max(2, int(64 * h / w))
    gy, gx = np.mgrid[0:gh, 0:gw].astype(np.float64)
    px = np.column_stack([(gx.ravel() + 0.5) * w / gw, (gy.ravel() + 0.5) * h / gh])
    world = cam.unproject_to_table(px)
    if scene.light in ("lamp", "flash"):
        d = np.column_stack(
            [scene.lamp[0] - world[:, 0], scene.lamp[1] - world[:, 1], np.full(len(world), scene.lamp[2])]
        )
        r2 = (d**2).sum(1)
        irr = d[:, 2] / np.sqrt(r2) / r2
    else:
        dirn = scene.lamp / np.linalg.norm(scene.lamp)
        irr = 1.0 + 0.25 * rng.uniform(0.3, 1.0) * (world @ dirn[:2]) / max(1e-6, np.abs(world).max())
    irr = irr / np.median(irr)
    # Vignetting: cos^4 of the off-axis angle, partly corrected by the camera.
    nx = (px[:, 0] - w / 2) / cam.focal
    ny = (px[:, 1] - h / 2) / cam.focal
    cos4 = 1.0 / (1.0 + nx**2 + ny**2) ** 2
    irr = irr * cos4 ** rng.uniform(0.2, 0.6)
    irr = irr * (1.0 + 0.06 * rng.standard_normal() * (gx.ravel() / gw - 0.5))
    small = irr.reshape(gh, gw).astype(np.float32)
    out: F32 = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return out


def soft_shadow(rng: np.random.Generator, h: int, w: int, kind: str, ppm: float) -> F32:
    """A multiplicative shadow map (1 = no shadow) of a hand and arm, or of a lifted cup."""
    scale = 4
    small: F32 = np.zeros((h // scale + 1, w // scale + 1), dtype=np.float32)
    sh, sw = small.shape
    x, y = rng.uniform(0, sw), rng.uniform(0, sh)
    if kind == "cup":
        r = 0.045 * ppm / scale * rng.uniform(0.9, 1.4)
        cv2.ellipse(
            small, (int(x), int(y)), (int(r), int(r * rng.uniform(0.7, 1.0))), rng.uniform(0, 180), 0, 360, 1.0, -1
        )
        blur = r * rng.uniform(0.3, 0.8)
    else:  # a hand with the arm reaching in from the nearest edge
        r = 0.05 * ppm / scale
        edge = np.array([[x, 0], [x, sh], [0, y], [sw, y]])[int(np.argmin([y, sh - y, x, sw - x]))]
        cv2.line(small, (int(x), int(y)), (int(edge[0]), int(edge[1])), 1.0, max(1, int(r * 1.3)))
        cv2.ellipse(small, (int(x), int(y)), (int(r * 1.1), int(r * 0.8)), rng.uniform(0, 180), 0, 360, 1.0, -1)
        blur = r * rng.uniform(0.5, 1.2)
    small = cv2.GaussianBlur(small, (0, 0), max(1.0, blur))
    strength = rng.uniform(0.25, 0.55)
    return cv2.resize(1.0 - strength * small, (w, h), interpolation=cv2.INTER_LINEAR)


# ---------------------------------------------------------------------------------------- placement


def _convex_overlap(a: F64, b: F64) -> bool:
    """Whether two convex polygons overlap (separating axis test)."""
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        normals = np.column_stack([-edges[:, 1], edges[:, 0]])
        pa, pb = a @ normals.T, b @ normals.T
        if np.any((pa.max(0) < pb.min(0)) | (pb.max(0) < pa.min(0))):
            return False
    return True


def _shrink(poly: F64, k: float) -> F64:
    c = poly.mean(0)
    out: F64 = c + (poly - c) * k
    return out


class _Laying:
    """A table being laid (place_table): where things may go, the sprites to lay, and what is down so far."""

    def __init__(
        self, rng: np.random.Generator, scene: Scene, felt_mask: npt.NDArray[np.bool_], sprites: tuple[Sprite, ...]
    ) -> None:
        self.rng, self.scene, self.felt_mask = rng, scene, felt_mask
        cam = scene.cam
        self.w, self.h = cam.width, cam.height_px
        self.dice_by_key: dict[tuple[str, int, bool], list[Sprite]] = {}
        self.props: dict[str, list[Sprite]] = {}
        for s in sprites:
            if s.kind == "die":
                self.dice_by_key.setdefault((s.style, s.face, s.cocked), []).append(s)
            else:
                self.props.setdefault(s.kind, []).append(s)
        self.styles = sorted({k[0] for k in self.dice_by_key})
        self.margin = 0.04 * self.w
        corners = [[self.margin, self.margin], [self.w - self.margin, self.h - self.margin]]
        region = cam.unproject_to_table(np.array(corners, dtype=float))
        self.lo, self.hi = region.min(0), region.max(0)
        self.placed: list[Placed] = []  # the dice
        self.tops: list[F64] = []  # their top faces, a little shrunk
        self.hulls: list[F64] = []
        self.items: list[Placed] = []  # cups and flat distractors
        self.item_hulls: list[F64] = []
        self.cups: list[tuple[F64, float, Placed]] = []  # (where on the table, radius, cup)

    def on_felt(self, p: F64) -> bool:
        """Whether a table point is on the felt, inside the frame's margin."""
        q = self.scene.cam.project(np.array([[p[0], p[1], 0.0]]))[0]
        margin, w, h = self.margin, self.w, self.h
        if not (margin <= q[0] < w - margin and margin <= q[1] < h - margin):
            return False
        return bool(self.felt_mask[int(q[1]), int(q[0])])

    def out_of_frame(self, hull: F64) -> bool:
        """Whether an outline leaves the frame."""
        return bool(
            hull[:, 0].min() < 0 or hull[:, 1].min() < 0 or hull[:, 0].max() > self.w or hull[:, 1].max() > self.h
        )

    def anywhere(self) -> F64:
        """A table point anywhere in the frame's margin (it may be off the felt)."""
        rng, lo, hi = self.rng, self.lo, self.hi
        return np.array([rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1]), 0.0])

    def lay_cups(self) -> None:
        """Cups first (the dice go around them): upright, mouth down or on their side, 0-2 of them."""
        rng = self.rng
        for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
            if "cup" not in self.props:
                break
            for _try in range(20):
                p = self.anywhere()
                if not self.on_felt(p):
                    continue
                s = self.props["cup"][int(rng.integers(len(self.props["cup"])))]
                pl = _prop_at(self.scene.cam, s, p, rng.uniform(0, 360))
                hull = pl.hull
                if self.out_of_frame(hull):
                    continue
                if any(_convex_overlap(hull, o) for o in self.item_hulls):
                    continue
                self.items.append(pl)
                self.item_hulls.append(hull)
                self.cups.append((p, 0.05, pl))
                break

    def lay_seats(self, cocked_rate: float, touching: float) -> None:
        """Up to six seats round the table, each a cluster of dice."""
        rng = self.rng
        n_seats = 0 if rng.random() < 0.06 else int(rng.integers(1, 7))
        centre = (self.lo + self.hi) / 2
        radii = (self.hi - self.lo) / 2 * rng.uniform(0.45, 0.8)
        start = rng.uniform(0, 2 * math.pi)
        for seat in range(n_seats):
            a = start + 2 * math.pi * seat / max(1, n_seats) + rng.uniform(-0.3, 0.3)
            seat_c = centre + radii * np.array([math.cos(a), math.sin(a)]) * rng.uniform(0.6, 1.0)
            self.lay_seat(seat, seat_c, cocked_rate, touching)

    def lay_seat(self, seat: int, seat_c: F64, cocked_rate: float, touching: float) -> None:
        """A seat's 1-5 dice round `seat_c` (now and then of mixed styles), and now and then a cocked one."""
        rng, styles = self.rng, self.styles
        n_dice = int(rng.choice([1, 2, 3, 4, 5], p=[0.08, 0.1, 0.14, 0.18, 0.5]))
        style = styles[int(rng.integers(len(styles)))]
        mixed = rng.random() < 0.15
        recolour = (
            float(rng.uniform(-7, 7)),
            float(rng.uniform(0.85, 1.15)),
            float(rng.uniform(0.88, 1.1)),
        )
        spread = rng.uniform(0.02, 0.045)
        seat_first = len(self.placed)
        for _ in range(n_dice):
            st = styles[int(rng.integers(len(styles)))] if mixed else style
            face = int(rng.integers(1, 7))
            self.lay_die(seat, seat_c, spread, seat_first, st, face, recolour, touching)
        # A cocked die against one of this seat's dice or a cup (about one table in three by default).
        if len(self.placed) > seat_first and rng.random() < cocked_rate:
            _place_cocked(
                rng,
                self.scene,
                self.placed,
                self.tops,
                self.item_hulls,
                self.dice_by_key,
                self.cups,
                seat,
                seat_first,
                style,
                recolour,
            )

    def lay_die(
        self,
        seat: int,
        seat_c: F64,
        spread: float,
        seat_first: int,
        style: str,
        face: int,
        recolour: tuple[float, float, float],
        touching: float,
    ) -> None:
        """A lying die of the seat (up to 30 tries): near its centre, or touching one of its dice already down; on
        the felt, clear of the cups, its top face clear of the other dice's."""
        rng, cam = self.rng, self.scene.cam
        placed = self.placed
        for _try in range(30):
            if len(placed) > seat_first and rng.random() < touching:
                # Touching: next to a die of this seat, face to face or nearly so.
                other = placed[int(rng.integers(seat_first, len(placed)))]
                base = other.world
                ang = rng.uniform(0, 2 * math.pi)
                p2 = base[:2] + SIDE * rng.uniform(1.02, 1.3) * np.array([math.cos(ang), math.sin(ang)])
            else:
                p2 = seat_c + rng.normal(0, spread, 2)
            p = np.array([p2[0], p2[1], SIDE / 2])
            if not self.on_felt(p) or any(np.hypot(*(p[:2] - c[:2])) < r + SIDE for c, r, _ in self.cups):
                continue
            pool = self.dice_by_key.get((style, face, False))
            if not pool:
                return
            s, gamma = pick_sprite(rng, pool, self.scene, p)
            pl = Placed(s, affine_for_top(cam, s, p, gamma), order=0.0, seat=seat, recolour=_recolour(style, recolour))
            top = _shrink(pl.map(s.top_face), 0.97)
            hull = pl.hull
            if self.out_of_frame(hull):
                continue
            if any(_convex_overlap(top, t) for t in self.tops) or any(
                _convex_overlap(hull, o) for o in self.item_hulls
            ):
                continue
            pl.world = p
            placed.append(pl)
            self.tops.append(top)
            self.hulls.append(hull)
            return

    def lay_props(self) -> None:
        """Coins, bottle caps, cards: flat distractors, away from the dice (a card may leave the frame)."""
        rng = self.rng
        for kind, count in (
            ("coin", rng.choice([0, 0, 1, 2, 3])),
            ("cap", rng.choice([0, 0, 0, 1])),
            ("card", rng.choice([0, 0, 0, 1])),
        ):
            for _ in range(int(count)):
                if kind not in self.props:
                    break
                for _try in range(15):
                    p = self.anywhere()
                    s = self.props[kind][int(rng.integers(len(self.props[kind])))]
                    pl = _prop_at(self.scene.cam, s, p, rng.uniform(0, 360))
                    hull = pl.hull
                    if kind != "card" and self.out_of_frame(hull):
                        continue
                    if any(_convex_overlap(hull, o) for o in self.hulls + self.item_hulls):
                        continue
                    self.items.append(pl)
                    self.item_hulls.append(hull)
                    break

    def set_draw_order(self) -> None:
        """Further from the nadir first (a nearer object can hide the side of a further one); flat things under
        everything; a cocked die just over what it leans on."""
        nadir = self.scene.cam.project(np.array([[0.0, 0.0, 0.0]]))[0]
        placed = self.placed
        for pl in placed + self.items:
            c = pl.map([pl.sprite.centre])[0]
            pl.order = float(np.hypot(*(c - nadir)))
            if pl.sprite.kind in ("coin", "card", "cap"):
                pl.order += 1e6  # flat things lie under everything
        for i, pl in enumerate(placed):
            if pl.support >= 0:
                pl.order = placed[pl.support].order - 1e-3 - i * 1e-6
            elif pl.leans_on is not None:
                pl.order = pl.leans_on.order - 1e-3 - i * 1e-6


def place_table(
    rng: np.random.Generator,
    scene: Scene,
    felt_mask: npt.NDArray[np.bool_],
    sprites: tuple[Sprite, ...],
    cocked_rate: float = COCKED_RATE,
    touching: float = TOUCHING,
) -> tuple[list[Placed], list[Placed]]:
    """Seats with clusters of dice (touching, some cocked: a seat's chance is `cocked_rate`), cups, coins, caps
    and cards; (dice, props). A lying die is laid exact on its top face (affine_for_top); `touching`: a die's
    chance to be laid against one of its seat's dice already down."""
    table = _Laying(rng, scene, felt_mask, sprites)
    table.lay_cups()
    table.lay_seats(cocked_rate, touching)
    table.lay_props()
    table.set_draw_order()
    return table.placed, table.items


def _recolour(style: str, rec: tuple[float, float, float]) -> tuple[float, float, float]:
    if style in COLOURED:
        return rec
    return (0.0, 1.0, rec[2])


def _prop_at(cam: Camera, s: Sprite, p: F64, gamma: float) -> Placed:
    centre_world = np.array([p[0], p[1], 0.02 if s.kind == "cup" else 0.001])
    return Placed(s, affine_for(cam, s, centre_world, gamma), order=0.0)


def _place_cocked(
    rng: np.random.Generator,
    scene: Scene,
    placed: list[Placed],
    tops: list[F64],
    item_hulls: list[F64],
    dice_by_key: dict[tuple[str, int, bool], list[Sprite]],
    cups: list[tuple[F64, float, Placed]],
    seat: int,
    seat_first: int,
    style: str,
    recolour: tuple[float, float, float],
) -> None:
    cam = scene.cam
    w, h = cam.width, cam.height_px
    face = int(rng.integers(1, 7))
    pool = dice_by_key.get((style, face, True)) or [s for k, v in dice_by_key.items() if k[2] for s in v]
    if not pool:
        return
    near_cup = [c for c in cups if np.hypot(*(c[0][:2] - placed[seat_first].world[:2])) < 0.12]
    support_idx = int(rng.integers(seat_first, len(placed)))
    cup: Placed | None = None
    support = placed[support_idx].world
    reach = SIDE * rng.uniform(0.95, 1.15)
    if near_cup and rng.random() < 0.5:
        support, reach, support_idx = near_cup[0][0], near_cup[0][1] + SIDE * 0.45, -1
        cup = near_cup[0][2]
    s = pool[int(rng.integers(len(pool)))]
    ray = cam.ray(np.array([support[0], support[1], SIDE / 2]))
    theta = math.degrees(math.acos(min(1.0, -ray[2])))
    gamma = bearing(ray) - 90.0 if theta >= 6 else rng.uniform(0, 360)
    lean = math.radians(s.tilt_azimuth + 180.0 + gamma)  # the direction (world) of the thing it leans on
    p = np.array([support[0] - reach * math.cos(lean), support[1] - reach * math.sin(lean), SIDE / 2])
    pl = Placed(
        s,
        affine_for(cam, s, p, gamma),
        order=0.0,
        seat=seat,
        recolour=_recolour(s.style, recolour),
        support=support_idx,
    )
    cup_hull = cup.hull if cup is not None else None
    hull = pl.hull
    if hull[:, 0].min() < 0 or hull[:, 1].min() < 0 or hull[:, 0].max() > w or hull[:, 1].max() > h:
        return
    top = _shrink(hull, 0.9)
    others = [t for i, t in enumerate(tops) if i != support_idx]
    if any(_convex_overlap(top, t) for t in others):
        return
    if any(_convex_overlap(top, o) for o in item_hulls if cup_hull is None or not np.array_equal(o, cup_hull)):
        return
    pl.world = p
    pl.leans_on = cup
    placed.append(pl)
    tops.append(top)


# ------------------------------------------------------------------------------------------ drawing


def draw(img: F32, pl: Placed, assets: Path = ASSETS, feather: bool = False) -> None:
    """Composite one placed sprite onto the linear image (premultiplied 'over'), in place (`feather`: see
    sprite_pixels)."""
    rgb, alpha = sprite_pixels(pl.sprite, assets, feather)
    m = pl.affine.copy()
    scale = math.sqrt(abs(np.linalg.det(m[:, :2])))
    if scale < 0.7:  # shrink with area averaging first; warpAffine alone would alias
        f = max(scale * 1.15, 0.05)
        rgb = cv2.resize(rgb, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        sx = pl.sprite.size[0] / rgb.shape[1]
        sy = pl.sprite.size[1] / rgb.shape[0]
        m = m @ np.array([[sx, 0, 0], [0, sy, 0], [0, 0, 1]])
    if pl.recolour != (0.0, 1.0, 1.0):
        rgb, alpha = _recoloured(rgb, alpha, pl.recolour)
    h, w = img.shape[:2]
    sh, sw = alpha.shape
    corners = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], dtype=float)
    c = corners @ m[:, :2].T + m[:, 2]
    x1, y1 = max(0, math.floor(c[:, 0].min()) - 1), max(0, math.floor(c[:, 1].min()) - 1)
    x2, y2 = min(w, math.ceil(c[:, 0].max()) + 1), min(h, math.ceil(c[:, 1].max()) + 1)
    if x2 <= x1 or y2 <= y1:
        return
    # Continuous pixel coordinates -> OpenCV's pixel-centre convention, and shift to the ROI.
    mc = m.copy()
    mc[:, 2] = m[:, 2] + m[:, :2] @ np.array([0.5, 0.5]) - 0.5 - np.array([x1, y1])
    size = (x2 - x1, y2 - y1)
    a = cv2.warpAffine(alpha, mc, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    col = cv2.warpAffine(rgb, mc, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    roi = img[y1:y2, x1:x2]
    roi *= 1.0 - a[:, :, None]
    roi += col


def _recoloured(rgb: F32, alpha: F32, rec: tuple[float, float, float]) -> tuple[F32, F32]:
    hue, sat, val = rec
    a = np.maximum(alpha, 1e-4)[:, :, None]
    straight = np.clip(rgb / a, 0, 1)
    srgb = LIN_TO_SRGB_U8[np.clip(straight * 4095, 0, 4095).astype(np.int32)]
    hsv = cv2.cvtColor(srgb, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[:, :, 0] = (hsv[:, :, 0] + hue) % 180
    hsv[:, :, 1] = np.clip(hsv[:, :, 1] * sat, 0, 255)
    hsv[:, :, 2] = np.clip(hsv[:, :, 2] * val, 0, 255)
    back = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    return SRGB_TO_LIN[back] * alpha[:, :, None], alpha


# ---------------------------------------------------------------------------------------------- API


@dataclass
class Table:
    """A composed table: the 8-bit BGR image (before JPEG) and its labels."""

    image: U8
    seed: int
    dice: list[dict[str, Any]]
    distractors: list[dict[str, Any]]
    meta: dict[str, Any]
    jpeg_quality: int


def scene_meta(scene: Scene) -> dict[str, Any]:
    """The sidecar's account of the camera, the light and the felt."""
    cam = scene.cam
    return {
        "camera": {
            "hfov_deg": cam.hfov_deg,
            "height_m": round(cam.height, 4),
            "pitch_deg": round(cam.pitch_deg, 2),
            "roll_deg": round(cam.roll_deg, 2),
            "focal_px": round(cam.focal, 2),
            "die_px_at_centre": round(cam.focal * SIDE / (cam.height - SIDE), 2),
        },
        "light": scene.light,
        "felt_bgr": list(scene.felt),
    }


def compose_table(
    seed: int,
    width: int = 4608,
    height: int = 2592,
    assets: Path = ASSETS,
    sprites: str = "all",
    cocked_rate: float = COCKED_RATE,
    more_cocked: bool = False,
    surface: str = "felt",
    touching: float = TOUCHING,
) -> Table:
    """Render one table photo from its seed and sprite set (SPRITE_SETS): image, exact dice labels, distractors;
    `cocked_rate`: each seat's chance of a cocked die; `more_cocked`: use the later rounds of cocked sprites;
    `surface` (SURFACES): felt tables, bare café tables, half and half, or patterned cloths and boards;
    `touching`: a die's chance to be laid against another of its seat."""
    if surface not in SURFACES:
        raise ValueError(f"surface must be one of {', '.join(SURFACES)}, got {surface!r}")
    if not 0.0 <= touching <= 1.0:
        raise ValueError(f"touching must be a chance from 0 to 1, got {touching}")
    rng = np.random.default_rng(seed)
    chosen = sprite_set(load_manifest(assets), sprites, more_cocked)
    scene = random_scene(rng, width, height)
    img: F32
    img, felt_mask = felt_and_table(rng, scene)
    img, not_felt = _surface(seed, surface, scene, img)
    dice, items = place_table(rng, scene, felt_mask, chosen, cocked_rate, touching)
    for pl in sorted(dice + items, key=lambda p: -p.order):
        draw(img, pl, assets, feather=not_felt is not None)  # felt tables unchanged: their seeds make the same images
    out, sigma, motion = _photograph(rng, scene, img)
    meta = {
        **scene_meta(scene),
        "surface": not_felt or "felt",
        "flat_dice": "exact",  # how lying dice are laid (the only way left): kept so a table's meta reads as before
        "blur_sigma_px": round(float(sigma), 3),
        "motion_blur": motion,
    }
    others = _distractor_labels(items, width, height)
    return Table(out, seed, _dice_labels(dice), others, meta, int(rng.integers(70, 96)))


def _surface(seed: int, surface: str, scene: Scene, felt: F32) -> tuple[F32, str | None]:
    """The table's image for `surface` (SURFACES) and the name of the table when it is not felt (None on felt).
    Bare and cloth tables are drawn from streams of their own, so a felt table's seed still makes the table it
    made before."""
    if surface == "cloth":
        cloth = np.random.default_rng([seed, 2])
        kind = str(cloth.choice(CLOTH_TABLES))
        return cloth_table(cloth, scene, kind), kind
    if surface != "felt":
        side = np.random.default_rng([seed, 1])
        if surface == "bare" or side.random() < 0.5:
            kind = str(side.choice(list(BARE_TABLES)))
            return bare_table(side, scene, kind), kind
    return felt, None


def _photograph(rng: np.random.Generator, scene: Scene, img: F32) -> tuple[U8, float, dict[str, Any] | None]:
    """The table as the camera takes it (8-bit BGR): light and shadows, auto exposure, lens blur (sometimes
    defocus), rare motion blur, shot and read noise; with the blur's sigma and the motion blur (or None)."""
    height, width = img.shape[:2]
    ppm = scene.cam.focal / scene.cam.height
    light = illumination(rng, scene)
    if rng.random() < 0.3:
        light *= soft_shadow(rng, height, width, "hand", ppm)
    if rng.random() < 0.25:
        light *= soft_shadow(rng, height, width, "cup", ppm)
    img *= light[:, :, None]
    # Auto exposure: meter the frame's median to a mid grey (the camera brightens a dark felt, within limits).
    median = float(np.median(img[::16, ::16].mean(axis=2)))
    exposure = float(np.clip(rng.uniform(0.1, 0.2) / max(median, 1e-4), 0.7, 1.8)) * rng.uniform(0.9, 1.1)
    tint = np.array(scene.tint, dtype=np.float32)[::-1] * exposure  # BGR
    img *= tint
    res = width / 4608
    sigma = rng.uniform(0.5, 1.2) * res if rng.random() > 0.1 else rng.uniform(1.5, 3.0) * res
    img = cv2.GaussianBlur(img, (0, 0), max(0.3, sigma))
    motion = None
    if rng.random() < 0.05:
        length = int(rng.integers(4, 14) * max(res, 0.5))
        ang = float(rng.uniform(0, 180))
        img = cv2.filter2D(img, -1, _line_kernel(length | 1, ang) / math.sqrt(length | 1))
        motion = {"length_px": length, "angle_deg": round(ang, 1)}
    shot, read = rng.uniform(0.0005, 0.003), rng.uniform(0.0005, 0.003)
    noise = rng.standard_normal(img.shape, dtype=np.float32)
    np.add(img, noise * np.sqrt(np.maximum(img, 0) * shot + read**2), out=img)
    out: U8 = LIN_TO_SRGB_U8[np.clip(img * 4095, 0, 4095).astype(np.int32)]
    return out, float(sigma), motion


def _dice_labels(dice: list[Placed]) -> list[dict[str, Any]]:
    """Each die's label: face, whether cocked, YOLO class, box, seat, sprite, top face and outline, what it leans on."""
    labels = []
    for i, pl in enumerate(dice):
        s = pl.sprite
        x1, y1, x2, y2 = pl.box
        labels.append(
            {
                "face": s.face,
                "cocked": s.cocked,
                "class": label_class(s.face, s.cocked),
                "box": [round(x1, 2), round(y1, 2), round(x2, 2), round(y2, 2)],
                "seat": pl.seat,
                "style": s.style,
                "sprite": s.file,
                "top_face": np.round(pl.map(s.top_face), 2).tolist(),
                "hull": np.round(pl.hull, 2).tolist(),
                "support": pl.support if pl.support >= 0 else None,
                "index": i,
            }
        )
    return labels


def _distractor_labels(items: list[Placed], width: int, height: int) -> list[dict[str, Any]]:
    """Each cup and flat distractor: its kind, sprite and box (cut to the frame)."""
    others = []
    for pl in items:
        x1, y1, x2, y2 = pl.box
        box = [
            round(max(0.0, x1), 2),
            round(max(0.0, y1), 2),
            round(min(float(width), x2), 2),
            round(min(float(height), y2), 2),
        ]
        others.append({"kind": pl.sprite.kind, "sprite": pl.sprite.file, "box": box})
    return others


def yolo_lines(dice: list[dict[str, Any]], width: int, height: int, one_class: bool = False) -> str:
    """YOLO label text: `class cx cy w h` normalised to the image, one die a line."""
    lines = []
    for d in dice:
        x1, y1, x2, y2 = d["box"]
        x1, y1 = max(0.0, x1), max(0.0, y1)
        x2, y2 = min(float(width), x2), min(float(height), y2)
        cls = 0 if one_class else d["class"]
        lines.append(yolo.line(cls, (x1, y1, x2, y2), width, height))
    return "\n".join(lines) + ("\n" if lines else "")


def tiles(
    image: U8, dice: list[dict[str, Any]], tile: int = 640, long_side: int = 1280, min_visible: float = 0.6
) -> list[tuple[U8, list[dict[str, Any]], tuple[int, int]]]:
    """Downscale the frame so its long side is `long_side`, cut it into tile x tile pieces (overlapping to
    cover the frame), clip each die's box to the tile and keep it when at least `min_visible` of it shows.

    Returns (tile image, dice with boxes in tile pixels, tile origin in the downscaled frame).
    """
    h, w = image.shape[:2]
    f = long_side / max(h, w)
    small = cv2.resize(image, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    xs = _starts(sw, tile)
    ys = _starts(sh, tile)
    out = []
    for y0 in ys:
        for x0 in xs:
            piece = small[y0 : y0 + tile, x0 : x0 + tile]
            if piece.shape[0] < tile or piece.shape[1] < tile:  # a frame smaller than a tile: pad
                pad = np.zeros((tile, tile, 3), dtype=np.uint8)
                pad[: piece.shape[0], : piece.shape[1]] = piece
                piece = pad
            kept = []
            for d in dice:
                x1, y1, x2, y2 = (v * f for v in d["box"])
                area = (x2 - x1) * (y2 - y1)
                cx1, cy1 = max(x1, x0), max(y1, y0)
                cx2, cy2 = min(x2, x0 + tile), min(y2, y0 + tile)
                if cx2 <= cx1 or cy2 <= cy1 or area <= 0:
                    continue
                if (cx2 - cx1) * (cy2 - cy1) / area < min_visible:
                    continue
                kept.append(
                    {**d, "box": [round(cx1 - x0, 2), round(cy1 - y0, 2), round(cx2 - x0, 2), round(cy2 - y0, 2)]}
                )
            out.append((np.ascontiguousarray(piece), kept, (x0, y0)))
    return out


def _starts(length: int, tile: int) -> list[int]:
    if length <= tile:
        return [0]
    n = math.ceil(length / tile)
    return [round(i * (length - tile) / (n - 1)) for i in range(n)]
