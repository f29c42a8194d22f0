"""Render die and distractor sprites with Blender (bpy, Cycles on one CPU core) for the compositor.

Run it through `scripts/render-venv.sh` (bpy pins its own numpy and Python 3.11, so it has its own venv).
Every sprite is an RGBA PNG on a transparent background with the die's shadow (from a shadow-catcher plane)
in the alpha; `manifest.json` tells, per sprite, its face, style, cocked flag, light, yaw, tilt, view angle,
scale and the die's exact outline (convex hull of the projected mesh), box and top-face polygon in pixels.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import struct
import sys
import tempfile
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import bpy  # type: ignore[import-not-found]
import numpy as np
import numpy.typing as npt
from mathutils import Matrix, Vector  # type: ignore[import-not-found]

from vision.synth.dice_model import DIE_MM, FACE_NORMALS, PIP_LAYOUT, PIP_OFFSET, face_axes, rotation_face_up

SIDE = DIE_MM / 1000  # metres: Blender's lights fall off physically in scene units
PX_PER_M = 4800.0  # die sprites: a 16 mm die spans 77 px (the camera sees 30-95 px, mostly 45-80)
PROP_PX_PER_M = 2600.0  # cups, coins, caps, cards
BEVEL = 0.11 * SIDE
PIP_RADIUS = 0.095 * SIDE  # radius of a pip's rim on the face
PIP_DEPTH = 0.035 * SIDE
ONE_PIP_SCALE = 1.35  # the single pip of face 1 is larger on most dice

LIGHTS = ("lamp", "fluorescent", "flash", "side")


def srgb(*c: float) -> tuple[float, float, float, float]:
    """An sRGB colour (0-1) as Blender's linear RGBA."""
    lin = [((x + 0.055) / 1.055) ** 2.4 if x > 0.04045 else x / 12.92 for x in c]
    return (lin[0], lin[1], lin[2], 1.0)


@dataclass(frozen=True)
class Style:
    """A die's look: body and pip colours, surface and whether light passes through it."""

    name: str
    body: tuple[float, float, float]
    pips: tuple[float, float, float]
    one_pip: tuple[float, float, float] | None = None
    roughness: float = 0.35
    translucent: bool = False


STYLES: tuple[Style, ...] = (
    Style("white_black", (0.90, 0.90, 0.88), (0.04, 0.04, 0.05)),
    Style("white_red1", (0.92, 0.91, 0.89), (0.04, 0.04, 0.05), one_pip=(0.75, 0.05, 0.06)),
    Style("red_white", (0.70, 0.06, 0.07), (0.93, 0.93, 0.92)),
    Style("black_white", (0.06, 0.06, 0.07), (0.92, 0.92, 0.90), roughness=0.3),
    Style("ivory_black", (0.88, 0.80, 0.62), (0.06, 0.05, 0.04), roughness=0.4),
    Style("green_white", (0.05, 0.45, 0.18), (0.93, 0.93, 0.92)),
    Style("blue_white", (0.06, 0.20, 0.62), (0.93, 0.93, 0.92)),
    Style("yellow_black", (0.92, 0.75, 0.10), (0.05, 0.05, 0.05)),
    Style("clear_red", (0.85, 0.10, 0.12), (0.95, 0.95, 0.95), roughness=0.05, translucent=True),
    Style("clear_green", (0.15, 0.75, 0.30), (0.95, 0.95, 0.95), roughness=0.05, translucent=True),
)
# Designs no shipped model was taught (the stock sprites are STYLES): a table's dice unlike any in training, to
# replay an evening of learning them (cacho vision evening); rendered apart, never into vision/synth/assets.
UNSEEN_STYLES: tuple[Style, ...] = (
    Style("clear_blue_gold", (0.10, 0.30, 0.85), (0.85, 0.65, 0.15), roughness=0.05, translucent=True),
    Style("pink_green", (0.92, 0.45, 0.62), (0.05, 0.40, 0.15), one_pip=(0.70, 0.05, 0.10)),
)
STYLE_SETS = {"stock": STYLES, "unseen": UNSEEN_STYLES}


@dataclass
class Job:
    """One sprite to render."""

    name: str
    kind: str  # "die" or a prop kind
    style: str
    face: int = 0
    cocked: bool = False
    light: str = "lamp"
    light_azimuth: float = 0.0  # degrees, world, direction from the die towards the light (0 = +x, ccw)
    light_elevation: float = 60.0
    yaw: float = 0.0
    tilt: float = 0.0  # small rest tilt (soft felt), or the cocked angle
    tilt_azimuth: float = 0.0
    view_tilt: float = 0.0  # camera's angle off the vertical, seen from -y (the camera sits "below" the die)
    extra: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------- scene


def reset_scene(samples: int) -> Any:
    """An empty Cycles scene on one CPU thread with a transparent film and the standard view transform."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.render.threads_mode = "FIXED"
    sc.render.threads = 1
    sc.cycles.samples = samples
    sc.cycles.use_adaptive_sampling = True
    sc.cycles.adaptive_threshold = 0.02
    sc.cycles.use_denoising = True
    sc.cycles.denoiser = "OPENIMAGEDENOISE"
    sc.cycles.max_bounces = 8
    sc.cycles.diffuse_bounces = 2
    sc.cycles.glossy_bounces = 2
    sc.cycles.transmission_bounces = 8
    sc.cycles.transparent_max_bounces = 4
    sc.cycles.caustics_reflective = False
    sc.cycles.caustics_refractive = False
    sc.cycles.seed = 0
    sc.render.film_transparent = True
    sc.render.use_persistent_data = True
    sc.view_settings.view_transform = "Standard"
    sc.view_settings.look = "None"
    sc.view_settings.exposure = 0.0
    sc.render.image_settings.file_format = "PNG"
    sc.render.image_settings.color_mode = "RGBA"
    sc.render.image_settings.color_depth = "8"
    sc.render.image_settings.compression = 90
    sc.render.resolution_percentage = 100
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    bg.inputs["Strength"].default_value = 0.5
    sc.world = world
    # The table: a shadow catcher (invisible itself; the die's shadow lands in the alpha).
    bpy.ops.mesh.primitive_plane_add(size=2.0, location=(0, 0, 0))
    plane = bpy.context.object
    plane.name = "table"
    plane.is_shadow_catcher = True
    felt = bpy.data.materials.new("felt")
    felt.use_nodes = True
    felt.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = srgb(0.5, 0.52, 0.5)
    felt.node_tree.nodes["Principled BSDF"].inputs["Roughness"].default_value = 1.0
    plane.data.materials.append(felt)
    cam_data = bpy.data.cameras.new("cam")
    cam_data.type = "ORTHO"
    cam_data.clip_start = 0.01
    cam_data.clip_end = 5.0
    cam = bpy.data.objects.new("cam", cam_data)
    sc.collection.objects.link(cam)
    sc.camera = cam
    return sc


def principled(name: str, color: tuple[float, float, float], roughness: float, **inputs: float) -> Any:
    """A Principled BSDF material with an sRGB base colour."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = srgb(*color)
    bsdf.inputs["Roughness"].default_value = roughness
    for key, value in inputs.items():
        bsdf.inputs[key].default_value = value
    return mat


def style_materials(style: Style) -> tuple[Any, Any, Any]:
    """(body, pips, one-pip) materials of a style."""
    if style.translucent:
        body = principled(
            f"{style.name}_body", style.body, style.roughness, **{"Transmission Weight": 0.75, "IOR": 1.5}
        )
    else:
        body = principled(
            f"{style.name}_body",
            style.body,
            style.roughness,
            **{"Subsurface Weight": 0.1, "Subsurface Scale": 0.0006, "Coat Weight": 0.15, "Coat Roughness": 0.2},
        )
    pips = principled(f"{style.name}_pips", style.pips, 0.6)
    one = principled(f"{style.name}_one", style.one_pip, 0.5) if style.one_pip else pips
    return body, pips, one


def build_die() -> Any:
    """A bevelled cube with spherical dimples for the pips; material slots: 0 body, 1 pips, 2 the single pip."""
    bpy.ops.mesh.primitive_cube_add(size=SIDE, location=(0, 0, 0))
    die = bpy.context.object
    die.name = "die"
    bev = die.modifiers.new("bevel", "BEVEL")
    bev.width = BEVEL
    bev.segments = 6
    bev.limit_method = "NONE"
    bpy.ops.object.modifier_apply(modifier="bevel")
    # Pip cutters: a sphere per pip, centred above the face so that the cap cut has the pip's rim and depth.
    centres: list[tuple[Vector, float, int]] = []
    for face in range(1, 7):
        n, u, v = face_axes(face)
        rim = PIP_RADIUS * (ONE_PIP_SCALE if face == 1 else 1.0)
        depth = PIP_DEPTH * (1.2 if face == 1 else 1.0)
        radius = (rim**2 + depth**2) / (2 * depth)
        for a, b in PIP_LAYOUT[face]:
            c = Vector(n) * (SIDE / 2 + radius - depth) + (Vector(u) * a + Vector(v) * b) * PIP_OFFSET * SIDE
            centres.append((c, radius, face))
    cutters = []
    for c, radius, _ in centres:
        bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=4, radius=radius, location=c)
        cutters.append(bpy.context.object)
    bpy.ops.object.select_all(action="DESELECT")
    for obj in cutters:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = cutters[0]
    bpy.ops.object.join()
    cutter = bpy.context.object
    bpy.context.view_layer.objects.active = die
    boolean = die.modifiers.new("pips", "BOOLEAN")
    boolean.operation = "DIFFERENCE"
    boolean.object = cutter
    boolean.solver = "EXACT"
    bpy.ops.object.modifier_apply(modifier="pips")
    bpy.data.objects.remove(cutter, do_unlink=True)
    # Materials by position: a polygon inside a cutter sphere is a pip; flat faces stay flat-shaded.
    mesh = die.data
    for _ in range(3):
        mesh.materials.append(None)
    for poly in mesh.polygons:
        p = poly.center
        corners = [mesh.vertices[i].co for i in poly.vertices]
        slot = 0
        for c, radius, face in centres:
            if all((q - c).length < radius * 1.001 for q in corners):
                slot = 2 if face == 1 else 1
                break
        poly.material_index = slot
        on_face = max(abs(p.x), abs(p.y), abs(p.z)) > SIDE / 2 - 1e-6 and max(map(abs, poly.normal)) > 0.9999
        poly.use_smooth = not (slot == 0 and on_face)
    return die


def rot_z(deg: float) -> Matrix:
    """Rotation about the vertical."""
    return Matrix.Rotation(math.radians(deg), 3, "Z")


def tilt_matrix(deg: float, azimuth: float) -> Matrix:
    """Rotation that tips the up vector by `deg` towards the horizontal direction `azimuth`."""
    axis = Vector((-math.sin(math.radians(azimuth)), math.cos(math.radians(azimuth)), 0.0))
    return Matrix.Rotation(math.radians(deg), 3, axis)


def pose_die(die: Any, job: Job) -> Matrix:
    """Turn the die so that job.face is up, tilt it, yaw it, and rest its lowest point on the table."""
    face_up = Matrix(rotation_face_up(job.face))
    m = rot_z(job.yaw) @ face_up
    m = tilt_matrix(job.tilt, job.tilt_azimuth) @ m
    die.matrix_world = m.to_4x4()
    bpy.context.view_layer.update()
    verts = world_vertices(die)
    lift = -float(verts[:, 2].min())
    die.matrix_world = Matrix.Translation((0.0, 0.0, lift)) @ m.to_4x4()
    bpy.context.view_layer.update()
    return die.matrix_world.copy()


def world_vertices(obj: Any) -> npt.NDArray[Any]:
    """The object's (evaluated) mesh vertices in world coordinates, N x 3."""
    mesh = obj.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
    mesh.vertices.foreach_get("co", co)
    mw = np.array(obj.matrix_world)
    out: npt.NDArray[Any] = co.reshape(-1, 3) @ mw[:3, :3].T + mw[:3, 3]
    return out


# ----------------------------------------------------------------------------------------- lights


def set_light(job: Job, cam_dir: Vector, target: Vector) -> list[Any]:
    """Create the job's light(s); return them so they can be removed afterwards."""
    az, el = math.radians(job.light_azimuth), math.radians(job.light_elevation)
    to_light = Vector((math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)))
    made = []
    if job.light == "flash":
        data = bpy.data.lights.new("flash", "POINT")
        data.energy = job.extra.get("energy", 20.0)
        data.shadow_soft_size = 0.004
        obj = bpy.data.objects.new("flash", data)
        # The phone's flash sits a couple of centimetres from its lens, 70 cm away along the view ray.
        offset = Vector((job.extra.get("flash_dx", 0.02), job.extra.get("flash_dy", 0.0), 0.0))
        obj.location = target - cam_dir * 0.7 + offset
        made.append(obj)
    else:
        data = bpy.data.lights.new(job.light, "SUN")
        data.energy = job.extra.get("energy", 3.2)
        data.angle = math.radians({"lamp": 4.0, "fluorescent": 12.0, "side": 2.0}[job.light])
        obj = bpy.data.objects.new(job.light, data)
        obj.rotation_euler = to_light.to_track_quat("Z", "Y").to_euler()
        made.append(obj)
    for obj in made:
        bpy.context.scene.collection.objects.link(obj)
    return made


# ----------------------------------------------------------------------------------------- camera


def camera_axes(view_tilt: float) -> tuple[Vector, Vector, Vector]:
    """(view direction, image right, image up) of a camera tilted `view_tilt` degrees off vertical from -y."""
    t = math.radians(view_tilt)
    d = Vector((0.0, math.sin(t), -math.cos(t)))
    right = Vector((1.0, 0.0, 0.0))
    up = Vector((0.0, math.cos(t), math.sin(t)))
    return d, right, up


def frame_camera(
    sc: Any, points: npt.NDArray[Any], view_tilt: float, px_per_m: float, margin_px: int
) -> dict[str, Any]:
    """Aim the ortho camera so that `points` (N x 3, world) fit with a margin, return the mapping."""
    d, right, up = camera_axes(view_tilt)
    r, u = np.array(right), np.array(up)
    xs, ys = points @ r, points @ u
    cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
    width_px = int(math.ceil(((xs.max() - xs.min()) * px_per_m + 2 * margin_px) / 8) * 8)
    height_px = int(math.ceil(((ys.max() - ys.min()) * px_per_m + 2 * margin_px) / 8) * 8)
    side_px = max(width_px, height_px)  # square sprites keep Blender's ortho_scale simple
    target = Vector(r * cx + u * cy)
    cam = sc.camera
    cam.data.ortho_scale = side_px / px_per_m
    cam.matrix_world = Matrix.Translation(target - d * 1.0) @ Matrix.Rotation(math.radians(view_tilt), 4, "X")
    sc.render.resolution_x = side_px
    sc.render.resolution_y = side_px
    return {"w": side_px, "h": side_px, "cx": cx, "cy": cy, "right": r, "up": u, "px_per_m": px_per_m, "target": target}


def to_pixels(mapping: dict[str, Any], points: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """World points (N x 3) -> sprite pixel coordinates (N x 2, continuous, origin at the top-left corner)."""
    w, h, k = mapping["w"], mapping["h"], mapping["px_per_m"]
    x = (points @ mapping["right"] - mapping["cx"]) * k + w / 2
    y = h / 2 - (points @ mapping["up"] - mapping["cy"]) * k
    return np.stack([x, y], axis=1)


def convex_hull(points: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Convex hull (Andrew's monotone chain), counter-clockwise, of N x 2 points."""
    pts = sorted(set(map(tuple, np.round(points, 3).tolist())))
    if len(pts) < 3:
        return np.array(pts)

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def shadow_points(points: npt.NDArray[Any], job: Job) -> npt.NDArray[Any]:
    """Where the object's points cast their shadow on the table (for framing); flash shadows stay close."""
    if job.light == "flash":
        near: npt.NDArray[Any] = points * np.array([1.15, 1.15, 0.0])
        return near
    az, el = math.radians(job.light_azimuth), math.radians(job.light_elevation)
    away = -np.array([math.cos(az), math.sin(az), 0.0]) / math.tan(el)
    spread = 1.0 + {"lamp": 0.15, "fluorescent": 0.6, "side": 0.1}[job.light]
    return np.concatenate([points + points[:, 2:3] * away * spread, points * np.array([1, 1, 0])])


# ------------------------------------------------------------------------------------------ props


def build_cup(variant: str, material: Any) -> Any:
    """A dice cup (cacho): an open cylinder with a thick wall, rim and bottom; variant up/down/side."""
    radius, height, wall = 0.041, 0.095, 0.004
    bpy.ops.mesh.primitive_cylinder_add(vertices=64, radius=radius, depth=height, location=(0, 0, height / 2))
    outer = bpy.context.object
    bpy.ops.mesh.primitive_cylinder_add(
        vertices=64, radius=radius - wall, depth=height, location=(0, 0, height / 2 + wall)
    )
    inner = bpy.context.object
    bpy.context.view_layer.objects.active = outer
    mod = outer.modifiers.new("hollow", "BOOLEAN")
    mod.operation = "DIFFERENCE"
    mod.object = inner
    mod.solver = "EXACT"
    bpy.ops.object.modifier_apply(modifier="hollow")
    bpy.data.objects.remove(inner, do_unlink=True)
    bev = outer.modifiers.new("bevel", "BEVEL")
    bev.width = 0.0015
    bev.segments = 3
    bpy.ops.object.modifier_apply(modifier="bevel")
    outer.data.materials.append(material)
    for poly in outer.data.polygons:
        poly.use_smooth = True
    if variant == "down":
        outer.matrix_world = Matrix.Translation((0, 0, height)) @ Matrix.Rotation(math.pi, 4, "X")
    elif variant == "side":
        outer.matrix_world = Matrix.Translation((0, 0, radius)) @ Matrix.Rotation(math.pi / 2, 4, "X")
    return outer


def leather(name: str, color: tuple[float, float, float], plastic: bool) -> Any:
    """Leather (bumpy, matte) or plastic (smooth, glossy) for cups."""
    mat = principled(name, color, 0.25 if plastic else 0.7)
    if not plastic:
        nodes, links = mat.node_tree.nodes, mat.node_tree.links
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = 900.0
        noise.inputs["Detail"].default_value = 6.0
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.25
        links.new(noise.outputs["Fac"], bump.inputs["Height"])
        links.new(bump.outputs["Normal"], nodes["Principled BSDF"].inputs["Normal"])
    return mat


def build_coin(gold: bool) -> Any:
    """A coin: a short metal cylinder with a raised rim."""
    bpy.ops.mesh.primitive_cylinder_add(vertices=64, radius=0.0115, depth=0.002, location=(0, 0, 0.001))
    coin = bpy.context.object
    bev = coin.modifiers.new("bevel", "BEVEL")
    bev.width = 0.0005
    bev.segments = 2
    bpy.ops.object.modifier_apply(modifier="bevel")
    color = (0.85, 0.65, 0.3) if gold else (0.8, 0.8, 0.8)
    mat = principled("coin", color, 0.3, Metallic=1.0)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 400.0
    bump = nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.4
    links.new(noise.outputs["Fac"], bump.inputs["Height"])
    links.new(bump.outputs["Normal"], nodes["Principled BSDF"].inputs["Normal"])
    coin.data.materials.append(mat)
    for poly in coin.data.polygons:
        poly.use_smooth = True
    return coin


def build_cap(color: tuple[float, float, float]) -> Any:
    """A crown bottle cap: a painted metal disc with a crimped skirt."""
    bpy.ops.mesh.primitive_cylinder_add(vertices=84, radius=0.0135, depth=0.006, location=(0, 0, 0.003))
    cap = bpy.context.object
    mesh = cap.data
    for v in mesh.vertices:  # crimp: 21 flutes on the skirt
        ang = math.atan2(v.co.y, v.co.x)
        r = math.hypot(v.co.x, v.co.y)
        if r > 0.01:
            k = 1.0 + 0.06 * max(0.0, math.cos(21 * ang)) * (0.5 - v.co.z / 0.006)
            v.co.x, v.co.y = v.co.x * k, v.co.y * k
    bev = cap.modifiers.new("bevel", "BEVEL")
    bev.width = 0.0012
    bev.segments = 3
    bpy.ops.object.modifier_apply(modifier="bevel")
    cap.data.materials.append(principled("cap", color, 0.25, Metallic=0.6))
    for poly in cap.data.polygons:
        poly.use_smooth = True
    return cap


def card_texture(red: bool, rng: random.Random) -> Any:
    """A playing card face: white, rounded border, a rank bar and suit marks (drawn with numpy)."""
    w, h = 252, 352
    img = np.ones((h, w, 4), dtype=np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ink = np.array([0.75, 0.04, 0.05, 1.0] if red else [0.03, 0.03, 0.03, 1.0], dtype=np.float32)

    def stamp(mask: npt.NDArray[Any]) -> None:
        img[mask] = ink

    for cx, cy, s in [(24, 70, 11), (w - 24, h - 70, 11), (w / 2, h / 2, 34)]:
        cx += rng.uniform(-1, 1)
        if red:  # diamond
            stamp(np.abs(xx - cx) / s + np.abs(yy - cy) / (1.3 * s) < 1)
        else:  # spade-like: a disc and a stem
            stamp(
                ((xx - cx) ** 2 + (yy - cy + 0.2 * s) ** 2 < (0.8 * s) ** 2)
                | ((np.abs(xx - cx) < 0.15 * s) & (yy > cy) & (yy < cy + 1.3 * s))
            )
    for cx, cy in [(24, 32), (w - 24, h - 32)]:  # the rank: a bold letter-like block
        stamp((np.abs(xx - cx) < 8) & (np.abs(yy - cy) < 14) & ~((np.abs(xx - cx) < 3) & (yy - cy > -6)))
    image = bpy.data.images.new("card", w, h, alpha=True)
    image.pixels.foreach_set(img[::-1].ravel())
    return image


def build_card(red: bool, rng: random.Random) -> Any:
    """A playing card (63 x 88 mm) lying flat, face up."""
    bpy.ops.mesh.primitive_plane_add(size=1.0, location=(0, 0, 0.0004))
    card = bpy.context.object
    card.scale = (0.063, 0.088, 1.0)
    mat = bpy.data.materials.new("card")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = card_texture(red, rng)
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = 0.35
    links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    card.data.materials.append(mat)
    bev = card.modifiers.new("round", "BEVEL")
    bev.affect = "VERTICES"
    bev.width = 0.07
    bev.segments = 6
    return card


# ------------------------------------------------------------------------------------------ jobs

VIEW_TILTS = (0.0, 12.0, 24.0, 36.0, 48.0)  # the camera sees dice up to ~37 deg off axis (standard lens), ~55 (wide)


@dataclass
class Batch:
    """One render: dice of several styles and faces laid out in a grid, sharing the light and the view."""

    name: str
    light: str
    light_azimuth: float
    light_elevation: float
    view_tilt: float
    extra: dict[str, Any]
    dice: list[Job]


def die_batches(
    rng: random.Random,
    styles_per_batch: int = 3,
    cocked_rounds: int = 1,
    seed: int = 7,
    styles: tuple[Style, ...] = STYLES,
) -> list[Batch]:
    """Flat dice for every view tilt and light (with the light at several bearings to the view), and cocked dice.

    Each batch holds the six faces of a few styles; styles rotate through the batches so that every style
    and face is seen under every light and at every view tilt across the set. Each round of cocked dice
    shows every style and face once more; rounds after the first draw from their own generator, so that
    adding rounds leaves every earlier sprite (and the props drawn after) as it was.
    """
    configs: list[tuple[float, str, float]] = []
    for tilt in VIEW_TILTS:
        if tilt == 0:
            configs += [(tilt, light, rng.uniform(0, 360)) for light in ("lamp", "fluorescent", "flash", "side")]
        else:
            # World bearing of the light; the camera looks from -y (bearing 270), so 90 is behind the die.
            configs += [(tilt, "lamp", b + rng.uniform(-25, 25)) for b in (0, 120, 240)]
            configs += [(tilt, "side", b + rng.uniform(-25, 25)) for b in (60, 180, 300)]
            configs += [(tilt, "fluorescent", b + rng.uniform(-30, 30)) for b in (45, 225)]
            configs += [(tilt, "flash", 0.0)]
    batches: list[Batch] = []
    order = list(styles)
    per_batch = min(styles_per_batch, len(order))
    for k, (tilt, light, az) in enumerate(configs):
        chosen = [order[(k * per_batch + j) % len(order)] for j in range(per_batch)]
        t = tilt + rng.uniform(-4, 4) if tilt else rng.uniform(0, 4)
        batches.append(_batch(f"b{len(batches):03d}", light, az, t, chosen, rng, cocked=False))
    per_round = max(1, len(styles) // 2)
    for r in range(cocked_rounds):  # cocked: every style and face once a round, at random lights and views
        draw = rng if r == 0 else random.Random(seed * 1000 + r)
        for k in range(per_round):
            i = r * per_round + k
            light = ("lamp", "fluorescent", "flash", "side", "lamp")[(k + r) % 5]
            chosen = list(styles[2 * k : 2 * k + 2])
            az = draw.uniform(0, 360)
            batches.append(_batch(f"c{i:03d}", light, az, draw.uniform(0, 30), chosen, draw, cocked=True))
    return batches


def _batch(
    name: str, light: str, az: float, tilt: float, styles: list[Style], rng: random.Random, cocked: bool
) -> Batch:
    dice = []
    for style in styles:
        for face in range(1, 7):
            dice.append(
                Job(
                    name=f"die_{style.name}_f{face}_{name}",
                    kind="die",
                    style=style.name,
                    face=face,
                    cocked=cocked,
                    light=light,
                    yaw=rng.uniform(0, 360),
                    tilt=rng.uniform(15, 40) if cocked else rng.uniform(0, 3.5),
                    tilt_azimuth=rng.uniform(0, 360),
                    view_tilt=tilt,
                )
            )
    elevation = light_elevation(light, rng)
    batch = Batch(name, light, az, elevation, tilt, light_extra(light, rng), dice)
    for job in dice:
        job.light_azimuth, job.light_elevation, job.extra = az, elevation, batch.extra
    return batch


def light_elevation(light: str, rng: random.Random) -> float:
    """A plausible elevation in degrees for each light."""
    return {
        "lamp": rng.uniform(48, 80),
        "fluorescent": rng.uniform(55, 80),
        "flash": 85.0,
        "side": rng.uniform(26, 38),
    }[light]


def light_extra(light: str, rng: random.Random) -> dict[str, float]:
    """Per-light settings: strength, and the flash's offset from the lens."""
    if light == "flash":
        return {
            "energy": rng.uniform(12, 18),
            "flash_dx": rng.uniform(-0.03, 0.03),
            "flash_dy": rng.uniform(-0.03, 0.03),
        }
    return {"energy": rng.uniform(1.7, 2.3) if light != "side" else rng.uniform(2.4, 3.0)}


def _flat_prop(rng: random.Random, name: str, kind: str, style: str, **extra: Any) -> Job:
    """A coin, cap or card lying flat under a random light (drawn in the order the assets were made with)."""
    light = rng.choice(LIGHTS)
    return Job(
        name,
        kind,
        style,
        light=light,
        light_azimuth=rng.uniform(0, 360),
        light_elevation=light_elevation(light, rng),
        yaw=rng.uniform(0, 360),
        extra={**light_extra(light, rng), **extra},
    )


def prop_jobs(rng: random.Random) -> list[Job]:
    """Distractors: cups (three poses, four finishes), coins, bottle caps, playing cards."""
    jobs: list[Job] = []
    finishes = [
        ("leather_brown", (0.35, 0.2, 0.1), False),
        ("leather_black", (0.08, 0.07, 0.06), False),
        ("plastic_red", (0.7, 0.08, 0.06), True),
        ("plastic_blue", (0.1, 0.2, 0.6), True),
    ]
    for finish, color, plastic in finishes:
        for variant in ("up", "down", "side"):
            light = rng.choice(["lamp", "fluorescent", "side"])
            jobs.append(
                Job(
                    name=f"cup_{finish}_{variant}",
                    kind="cup",
                    style=finish,
                    light=light,
                    light_azimuth=rng.uniform(0, 360),
                    light_elevation=light_elevation(light, rng) + (15 if light == "side" else 0),
                    yaw=rng.uniform(0, 360),
                    view_tilt=rng.uniform(0, 25),
                    extra={**light_extra(light, rng), "variant": variant, "color": color, "plastic": plastic},
                )
            )
    jobs += [_flat_prop(rng, f"coin_{i}", "coin", "gold" if i % 2 else "silver") for i in range(4)]
    caps = [(0.75, 0.08, 0.06), (0.1, 0.2, 0.6), (0.8, 0.65, 0.2), (0.1, 0.1, 0.1)]
    jobs += [_flat_prop(rng, f"cap_{i}", "cap", "cap", color=color) for i, color in enumerate(caps)]
    jobs += [_flat_prop(rng, f"card_{i}", "card", "red" if i % 2 else "black", red=i % 2 == 1) for i in range(4)]
    return jobs


# ------------------------------------------------------------------------------------------ render


def write_png(path: Path, rgba: npt.NDArray[Any]) -> None:
    """Write an H x W x 4 uint8 array as a PNG (per-row adaptive filter, zlib level 9), no imaging library."""
    h, w, _ = rgba.shape
    x = rgba.reshape(h, w * 4).astype(np.int16)
    left = np.zeros_like(x)
    left[:, 4:] = x[:, :-4]
    up = np.zeros_like(x)
    up[1:] = x[:-1]
    up_left = np.zeros_like(x)
    up_left[1:, 4:] = x[:-1, :-4]
    p = left + up - up_left
    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - up_left)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, up_left))
    candidates = np.stack([x, x - left, x - up, x - (left + up) // 2, x - paeth]) % 256  # PNG filters 0-4
    signed = np.where(candidates > 127, 256 - candidates, candidates).sum(axis=2)
    best = signed.argmin(axis=0)
    rows = candidates[best, np.arange(h)].astype(np.uint8)
    data = np.concatenate([best.astype(np.uint8)[:, None], rows], axis=1)

    def chunk(tag: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload)) + tag + payload + struct.pack(">I", zlib.crc32(tag + payload) & 0xFFFFFFFF)
        )

    head = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    body = zlib.compress(data.tobytes(), 9)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", body) + chunk(b"IEND", b""))


def hull_coverage(shape: tuple[int, int], points: npt.NDArray[Any], ss: int = 4) -> npt.NDArray[Any]:
    """Fraction of each pixel inside the convex hull of `points` (pixel coordinates), by supersampling."""
    h, w = shape
    hull = convex_hull(points)
    ys, xs = np.mgrid[0 : h * ss, 0 : w * ss]
    px, py = (xs + 0.5) / ss, (ys + 0.5) / ss
    inside = np.ones((h * ss, w * ss), dtype=bool)
    for (x0, y0), (x1, y1) in zip(hull, np.roll(hull, -1, axis=0), strict=True):
        inside &= (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0) >= 0
    cov: npt.NDArray[Any] = inside.reshape(h, ss, w, ss).mean(axis=(1, 3))
    return cov


def blur(a: npt.NDArray[Any], sigma: float) -> npt.NDArray[Any]:
    """Separable Gaussian blur of a 2-D float array (edges clamped)."""
    r = int(3 * sigma) + 1
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    k /= k.sum()
    p = np.pad(a, r, mode="edge")
    p = np.apply_along_axis(lambda v: np.convolve(v, k, mode="valid"), 0, p)
    return np.apply_along_axis(lambda v: np.convolve(v, k, mode="valid"), 1, p)


def clean_alpha(crop: npt.NDArray[Any], die_points: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Keep the die as rendered; outside its silhouette keep only a smoothed, black shadow (no noise floor)."""
    cov = hull_coverage(crop.shape[:2], die_points)
    alpha = crop[:, :, 3].astype(np.float64)
    shadow = np.clip((blur(alpha, 1.2) - 8.0) * 255.0 / 247.0, 0, 255)
    out = crop.copy()
    outside = cov <= 0
    out[:, :, 3] = np.where(outside, np.round(shadow), alpha).astype(np.uint8)
    out[:, :, :3][outside] = 0
    return out


def quantize(rgba: npt.NDArray[Any], coarse: bool = False) -> npt.NDArray[Any]:
    """Drop the lowest bit of colour (two with `coarse`) and of alpha, two of a shadow's alpha: invisible
    once the camera's noise is added, and it keeps the committed sprites under 15 MB. Zero stays zero,
    opaque stays opaque, and no kept pixel becomes fully transparent."""
    q = rgba.copy()
    rgb, a = rgba[:, :, :3], rgba[:, :, 3]
    step = 4 if coarse else 2
    q[:, :, :3] = np.where(rgb == 0, 0, (rgb // step) * step + step // 2)
    shadow = (rgb.max(axis=2) == 0) & (a > 0) & (a < 255)
    soft = (a > 0) & (a < 255) & ~shadow
    qa = q[:, :, 3]
    qa[soft] = np.maximum(2, (a[soft] // 2) * 2)
    qa[shadow] = np.maximum(2, (a[shadow] // 4) * 4)
    return q


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """The manifest as compact JSON, one sprite a line."""
    head = {k: v for k, v in manifest.items() if k != "sprites"}
    lines = [json.dumps(e, separators=(",", ":")) for e in manifest["sprites"]]
    text = json.dumps(head, separators=(",", ":"))[:-1] + ',"sprites":[\n' + ",\n".join(lines) + "\n]}\n"
    path.write_text(text)


def read_png_rgba(path: Path) -> npt.NDArray[Any]:
    """An RGBA PNG as an H x W x 4 uint8 array (top row first), read through Blender."""
    image = bpy.data.images.load(str(path))
    image.colorspace_settings.name = "Non-Color"  # the stored bytes, no transform
    image.alpha_mode = "STRAIGHT"
    w, h = image.size
    buf = np.empty(w * h * 4, dtype=np.float32)
    image.pixels.foreach_get(buf)
    bpy.data.images.remove(image)
    out: npt.NDArray[Any] = np.round(buf.reshape(h, w, 4)[::-1] * 255).astype(np.uint8)
    return out


def locate(sprite: npt.NDArray[Any], hull_px: npt.NDArray[Any], cell_shape: tuple[int, int]) -> tuple[int, int]:
    """Where a trimmed sprite sits in its cell: the shift that puts every coloured pixel inside the die's
    silhouette (outside it `clean_alpha` left only black shadow) and the fewest see-through pixels inside."""
    cov = hull_coverage(cell_shape, hull_px)
    h, w = sprite.shape[:2]
    coloured = sprite[:, :, :3].max(axis=2) > 0
    opaque = sprite[:, :, 3] > 200
    best, best_score = (0, 0), math.inf
    for ty in range(cell_shape[0] - h + 1):
        for tx in range(cell_shape[1] - w + 1):
            c = cov[ty : ty + h, tx : tx + w]
            score = 1000 * int((coloured & (c <= 0)).sum()) + int(((c >= 1) & ~opaque).sum())
            if score < best_score:
                best, best_score = (tx, ty), score
    return best


def read_render(path: Path) -> npt.NDArray[Any]:
    """The PNG Blender just wrote, as an H x W x 4 uint8 array (top row first)."""
    image = bpy.data.images.load(str(path))
    w, h = image.size
    buf = np.empty(w * h * 4, dtype=np.float32)
    image.pixels.foreach_get(buf)
    bpy.data.images.remove(image)
    return np.round(buf.reshape(h, w, 4)[::-1] * 255).astype(np.uint8)


GRID_MARGIN = 8 / PX_PER_M  # metres round each cell of a batch's grid


@dataclass(frozen=True)
class Cell:
    """A grid cell's extent round its die's centre in the image plane (metres): the largest die + shadow."""

    x1: float
    y1: float
    x2: float
    y2: float


def render_batch(
    sc: Any,
    mesh: Any,
    batch: Batch,
    out: Path,
    tmp: Path,
    cache: dict[str, tuple[Any, Any, Any]],
    reuse: bool = False,
) -> list[dict[str, Any]]:
    """Render a batch of dice in one frame, cut it into one sprite per die, return their manifest entries.

    With `reuse`, a batch whose sprites are all in `out` already is not rendered again: each sprite's
    place in its cell is found from its pixels (see `locate`) and its manifest entry re-derived.
    """
    d, right, up = camera_axes(batch.view_tilt)
    r, u = np.array(right), np.array(up)
    placed = [add_die(sc, mesh, job, cache, r, u) for job in batch.dice]
    objs = [obj for obj, _ in placed]
    cell = union_cell([rect for _, rect in placed])
    lay_out_grid(objs, cell, batch.view_tilt)
    mapping, target = aim_at_grid(sc, objs, cell, batch.view_tilt, d, r, u)
    existing = reuse and all((out / f"{job.name}.png").exists() for job in batch.dice)
    frame = None if existing else render_frame(sc, batch.name, batch.dice[0], d, target, tmp)
    entries = []
    for obj, job in zip(objs, batch.dice, strict=True):
        entries.append(die_sprite(obj, job, mapping, cell, frame, out))
        bpy.data.objects.remove(obj, do_unlink=True)
    return entries


def add_die(
    sc: Any, mesh: Any, job: Job, cache: dict[str, tuple[Any, Any, Any]], r: npt.NDArray[Any], u: npt.NDArray[Any]
) -> tuple[Any, tuple[float, float, float, float]]:
    """Add a posed die in its style's materials; with it, its extent (and its shadow's) round its centre."""
    obj = bpy.data.objects.new(job.name, mesh)
    sc.collection.objects.link(obj)
    style = next(s for s in (*STYLES, *UNSEEN_STYLES) if s.name == job.style)
    if style.name not in cache:
        cache[style.name] = style_materials(style)
    for slot, mat in zip(obj.material_slots, cache[style.name], strict=True):
        slot.link = "OBJECT"
        slot.material = mat
    mw = pose_die(obj, job)
    verts = world_vertices(obj)
    pts = np.concatenate([verts, shadow_points(verts[::7], job)])
    xs, ys = pts @ r, pts @ u
    c = np.array(mw)[:3, 3]
    return obj, (xs.min() - c @ r, ys.min() - c @ u, xs.max() - c @ r, ys.max() - c @ u)


def union_cell(rects: list[tuple[float, float, float, float]]) -> Cell:
    """The cell that holds every die's extent."""
    union = np.array(rects)
    return Cell(union[:, 0].min(), union[:, 1].min(), union[:, 2].max(), union[:, 3].max())


def lay_out_grid(objs: list[Any], cell: Cell, view_tilt: float) -> None:
    """Move the dice into a grid, six faces a row and one style a row, a cell plus margins apart."""
    pitch_x, pitch_y = cell.x2 - cell.x1 + 2 * GRID_MARGIN, cell.y2 - cell.y1 + 2 * GRID_MARGIN
    cos_t = math.cos(math.radians(view_tilt))
    for i, obj in enumerate(objs):
        col, row = i % 6, i // 6
        # Image-plane offset (col * pitch_x, -row * pitch_y) as a move on the table: x as is, y stretched.
        obj.matrix_world = Matrix.Translation((col * pitch_x, -row * pitch_y / cos_t, 0.0)) @ obj.matrix_world
    bpy.context.view_layer.update()


def aim_at_grid(
    sc: Any, objs: list[Any], cell: Cell, view_tilt: float, d: Vector, r: npt.NDArray[Any], u: npt.NDArray[Any]
) -> tuple[dict[str, Any], Vector]:
    """Aim the ortho camera at the whole grid; return the world-to-pixel mapping and the point aimed at."""
    centres = np.array([np.array(obj.matrix_world)[:3, 3] for obj in objs])
    lo = np.array([(centres @ r).min() + cell.x1 - GRID_MARGIN, (centres @ u).min() + cell.y1 - GRID_MARGIN])
    hi = np.array([(centres @ r).max() + cell.x2 + GRID_MARGIN, (centres @ u).max() + cell.y2 + GRID_MARGIN])
    width_px = int(math.ceil((hi[0] - lo[0]) * PX_PER_M / 8) * 8)
    height_px = int(math.ceil((hi[1] - lo[1]) * PX_PER_M / 8) * 8)
    cx, cy = (lo + hi) / 2
    target = Vector(r * cx + u * cy)
    cam = sc.camera
    cam.data.ortho_scale = max(width_px, height_px) / PX_PER_M
    cam.matrix_world = Matrix.Translation(target - d * 1.0) @ Matrix.Rotation(math.radians(view_tilt), 4, "X")
    sc.render.resolution_x, sc.render.resolution_y = width_px, height_px
    mapping = {"w": width_px, "h": height_px, "cx": cx, "cy": cy, "right": r, "up": u, "px_per_m": PX_PER_M}
    return mapping, target


def render_frame(sc: Any, name: str, job: Job, d: Vector, target: Vector, tmp: Path) -> npt.NDArray[Any]:
    """Light the scene as `job` says, render it into `tmp` and return the frame's pixels."""
    lights = set_light(job, d, target)
    frame_path = tmp / f"{name}.png"
    sc.render.filepath = str(frame_path)
    bpy.ops.render.render(write_still=True)
    frame = read_render(frame_path)
    for obj in lights:
        bpy.data.objects.remove(obj, do_unlink=True)
    return frame


def cell_pixels(mapping: dict[str, Any], obj: Any, cell: Cell) -> tuple[int, int, int, int]:
    """A die's cell in the frame, in whole pixels with a 6-pixel margin, clipped to the frame."""
    centre = to_pixels(mapping, np.array(obj.matrix_world)[None, :3, 3])[0]
    cx1 = math.floor(centre[0] + cell.x1 * PX_PER_M - 6)
    cx2 = math.ceil(centre[0] + cell.x2 * PX_PER_M + 6)
    cy1 = math.floor(centre[1] - cell.y2 * PX_PER_M - 6)
    cy2 = math.ceil(centre[1] - cell.y1 * PX_PER_M + 6)
    return max(cx1, 0), max(cy1, 0), min(cx2, mapping["w"]), min(cy2, mapping["h"])


def trim(crop: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], int, int]:
    """A sprite without its empty borders (keeps the files small), and where it starts in the crop."""
    ys, xs = np.nonzero(crop[:, :, 3] > 1)
    tx1, ty1 = int(xs.min()), int(ys.min())
    tx2, ty2 = int(xs.max()) + 1, int(ys.max()) + 1
    return crop[ty1:ty2, tx1:tx2], tx1, ty1


def die_sprite(
    obj: Any, job: Job, mapping: dict[str, Any], cell: Cell, frame: npt.NDArray[Any] | None, out: Path
) -> dict[str, Any]:
    """A die's manifest entry, its sprite cut from `frame` and written (or, with no frame, read back and located)."""
    cx1, cy1, cx2, cy2 = cell_pixels(mapping, obj, cell)
    hull_px = to_pixels(mapping, world_vertices(obj)) - [cx1, cy1]
    path = out / f"{job.name}.png"
    if frame is None:
        crop = read_png_rgba(path)
        tx1, ty1 = locate(crop, hull_px, (cy2 - cy1, cx2 - cx1))
    else:
        crop, tx1, ty1 = trim(clean_alpha(frame[cy1:cy2, cx1:cx2], hull_px))
        write_png(path, quantize(np.ascontiguousarray(crop)))
    return die_entry(job, mapping, obj, (cx1 + tx1, cy1 + ty1), crop.shape, path.name)


def die_entry(
    job: Job, mapping: dict[str, Any], obj: Any, origin: tuple[int, int], shape: tuple[int, ...], file: str
) -> dict[str, Any]:
    """The manifest entry of a die sprite: exact outline, box, top face and centre in sprite pixels."""
    mw = np.array(obj.matrix_world)
    shift = np.array(origin, dtype=float)
    verts = world_vertices(obj)
    hull = convex_hull(to_pixels(mapping, verts) - shift)
    rot = mw[:3, :3]
    ups = {f: float((rot @ np.array(n, dtype=float))[2]) for f, n in FACE_NORMALS.items()}
    top = max(ups, key=lambda f: ups[f])
    n, u, v = (np.array(x) for x in face_axes(top))
    corners = np.array([SIDE / 2 * (n + a * u + b * v) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    top_poly = to_pixels(mapping, corners @ rot.T + mw[:3, 3]) - shift
    centre = to_pixels(mapping, mw[None, :3, 3])[0] - shift
    support = None
    if job.cocked:
        # The raised side rests on something (another die, a cup): opposite to where the top face tips.
        support = image_angle(mapping, job.tilt_azimuth + 180)
    entry = asdict(job)
    entry.update(
        file=file,
        size=[int(shape[1]), int(shape[0])],
        px_per_m=PX_PER_M,
        die_mm=DIE_MM,
        face_up=top,
        centre=np.round(centre, 2).tolist(),
        hull=np.round(hull, 2).tolist(),
        box=np.round([hull[:, 0].min(), hull[:, 1].min(), hull[:, 0].max(), hull[:, 1].max()], 2).tolist(),
        top_face=np.round(top_poly, 2).tolist(),
        support_angle=None if support is None else round(support, 2),
        light_azimuth_image=round(image_angle(mapping, job.light_azimuth), 2),
    )
    return entry


def image_angle(mapping: dict[str, Any], world_azimuth: float) -> float:
    """A horizontal world direction as an angle in sprite pixel coordinates (degrees, x right, y down)."""
    a = math.radians(world_azimuth)
    pts = to_pixels(mapping, np.array([[0.0, 0.0, 0.0], [math.cos(a), math.sin(a), 0.0]]))
    return math.degrees(math.atan2(pts[1, 1] - pts[0, 1], pts[1, 0] - pts[0, 0]))


def render_prop(sc: Any, job: Job, out: Path, rng: random.Random, reuse: bool = False) -> dict[str, Any]:
    """Build, render and remove one distractor; return its manifest entry."""
    if job.kind == "cup":
        obj = build_cup(job.extra["variant"], leather(job.style, tuple(job.extra["color"]), job.extra["plastic"]))
    elif job.kind == "coin":
        obj = build_coin(job.style == "gold")
    elif job.kind == "cap":
        obj = build_cap(tuple(job.extra["color"]))
    else:
        obj = build_card(job.extra["red"], rng)
    bpy.context.view_layer.update()  # (a card's scale reaches matrix_world only now)
    obj.matrix_world = rot_z(job.yaw).to_4x4() @ obj.matrix_world
    bpy.context.view_layer.update()
    dg = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(dg)
    mesh = evaluated.to_mesh()
    co = np.array([tuple(v.co) for v in mesh.vertices])
    mw = np.array(obj.matrix_world)
    verts = co @ mw[:3, :3].T + mw[:3, 3]
    evaluated.to_mesh_clear()
    d, _, _ = camera_axes(job.view_tilt)
    mapping = frame_camera(sc, np.concatenate([verts, shadow_points(verts[::5], job)]), job.view_tilt, PROP_PX_PER_M, 6)
    path = out / f"{job.name}.png"
    if not (reuse and path.exists()):
        lights = set_light(job, d, mapping["target"])
        sc.render.filepath = str(path)
        bpy.ops.render.render(write_still=True)
        write_png(path, quantize(read_render(path), coarse=True))
        for light in lights:
            bpy.data.objects.remove(light, do_unlink=True)
    bpy.data.objects.remove(obj, do_unlink=True)
    hull = convex_hull(to_pixels(mapping, verts))
    entry = asdict(job)
    entry.update(
        file=path.name,
        size=[mapping["w"], mapping["h"]],
        px_per_m=PROP_PX_PER_M,
        hull=np.round(hull, 2).tolist(),
        box=np.round([hull[:, 0].min(), hull[:, 1].min(), hull[:, 0].max(), hull[:, 1].max()], 2).tolist(),
        light_azimuth_image=round(image_angle(mapping, job.light_azimuth), 2),
    )
    return entry


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("vision/synth/assets"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--limit", type=int, default=0, help="render only the first N batches and props (a quick look)")
    parser.add_argument("--only", default="", help="render only jobs whose name contains this")
    parser.add_argument("--no-props", action="store_true")
    parser.add_argument("--cocked-rounds", type=int, default=1, help="batches of cocked dice: every style, N times")
    parser.add_argument("--reuse", action="store_true", help="keep sprites already in --out, render the rest")
    parser.add_argument(
        "--styles", choices=tuple(STYLE_SETS), default="stock", help="dice designs: the stock set or unseen ones"
    )
    parser.add_argument(
        "--props-from", type=Path, help="take the distractors (cups, coins...) from this sprites folder, not rendered"
    )
    args = parser.parse_args(argv)
    if args.cocked_rounds < 0:
        parser.error(f"--cocked-rounds {args.cocked_rounds}: debe ser 0 o más")
    return args


def select_jobs(args: argparse.Namespace) -> tuple[list[Batch], list[Job]]:
    """The die batches and props to render, drawn from the seed and narrowed by --only and --limit."""
    rng = random.Random(args.seed)
    batches = die_batches(rng, cocked_rounds=args.cocked_rounds, seed=args.seed, styles=STYLE_SETS[args.styles])
    props = [] if args.no_props or args.props_from else prop_jobs(rng)
    if args.only:
        batches = [b for b in batches if any(args.only in j.name for j in b.dice)]
        props = [j for j in props if args.only in j.name]
    if args.limit:
        batches, props = batches[: args.limit], props[: args.limit]
    return batches, props


def die_mesh() -> Any:
    """The die's mesh, built once and shared by every die of every batch."""
    die = build_die()
    mesh = die.data
    bpy.data.objects.remove(die, do_unlink=True)
    return mesh


def render_dice(sc: Any, mesh: Any, batches: list[Batch], out: Path, reuse: bool, start: float) -> list[dict[str, Any]]:
    """Render every batch of dice; return the sprites' manifest entries."""
    cache: dict[str, tuple[Any, Any, Any]] = {}
    entries: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, batch in enumerate(batches):
            entries += render_batch(sc, mesh, batch, out, Path(tmp), cache, reuse)
            print(
                f"[batch {i + 1}/{len(batches)}] {len(entries)} sprites  {time.time() - start:.0f} s", file=sys.stderr
            )
    return entries


def render_props(sc: Any, props: list[Job], args: argparse.Namespace, start: float) -> list[dict[str, Any]]:
    """Render every distractor; one that fails is reported and skipped."""
    entries = []
    for i, job in enumerate(props):
        try:
            entries.append(render_prop(sc, job, args.out, random.Random(args.seed * 1000 + i), args.reuse))
        except Exception as exc:  # a distractor that fails must not cost the dice
            print(f"prop {job.name} failed: {exc!r}", file=sys.stderr)
            continue
        print(f"[prop {i + 1}/{len(props)}] {job.name}  {time.time() - start:.0f} s", file=sys.stderr)
    return entries


def copied_props(source: Path, out: Path) -> list[dict[str, Any]]:
    """The distractors of another sprites folder, copied into `out`; their manifest entries."""
    import shutil

    props = [e for e in json.loads((source / "manifest.json").read_text())["sprites"] if e["kind"] != "die"]
    for entry in props:
        shutil.copy2(source / entry["file"], out / entry["file"])
    return props


def main(argv: list[str] | None = None) -> int:
    """Render every sprite into --out and write manifest.json."""
    args = parse_args(argv)
    batches, props = select_jobs(args)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.reuse:
        for old in args.out.glob("*.png"):
            old.unlink()
    sc = reset_scene(args.samples)
    mesh = die_mesh()
    start = time.time()
    entries = render_dice(sc, mesh, batches, args.out, args.reuse, start)
    entries += render_props(sc, props, args, start)
    if args.props_from:
        entries += copied_props(args.props_from, args.out)
    manifest = {
        "generator": "vision/synth/render_sprites.py",
        "blender": bpy.app.version_string,
        "seed": args.seed,
        "samples": args.samples,
        "render_seconds": round(time.time() - start, 1),
        "coordinates": "pixels, origin at the sprite's top-left corner, x right, y down",
        "sprites": entries,
    }
    write_manifest(args.out / "manifest.json", manifest)
    print(f"{len(entries)} sprites in {time.time() - start:.0f} s -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
