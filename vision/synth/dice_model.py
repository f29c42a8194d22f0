"""The die model shared by the renderer, the compositor and the tests: pip layouts, faces, orientations.

Pure Python (no numpy, no bpy) so that the tests and both virtual environments can import it.
Die-local axes: +z is up when face 1 is up; faces sit on the six axis directions.
"""

from __future__ import annotations

import math

DIE_MM = 16.0  # the usual cacho die
PIP_OFFSET = 0.26  # pip centre offset from the face centre, as a fraction of the side (corner and edge pips)

# Face value -> outward normal in die-local coordinates. Opposite faces sum to 7 (1-6, 2-5, 3-4), and
# 1, 2, 3 turn counter-clockwise around their shared corner (a right-handed die, the Western standard).
FACE_NORMALS: dict[int, tuple[int, int, int]] = {
    1: (0, 0, 1),
    6: (0, 0, -1),
    2: (0, -1, 0),
    5: (0, 1, 0),
    3: (1, 0, 0),
    4: (-1, 0, 0),
}

# Pip centres on a face in units of PIP_OFFSET * side, in the face's own (u, v) axes.
PIP_LAYOUT: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}

# Finder / reader classes in the YOLO labels: class = face - 1 for a die lying flat, COCKED for a die
# resting tilted against something (its face cannot be read safely).
COCKED_CLASS = 6
CLASS_NAMES: tuple[str, ...] = ("one", "two", "three", "four", "five", "six", "cocked")

Vec3 = tuple[float, float, float]
Mat3 = tuple[Vec3, Vec3, Vec3]


def opposite(face: int) -> int:
    """The face on the other side of the die."""
    return 7 - face


def label_class(face: int, cocked: bool) -> int:
    """The YOLO class of a die: face - 1, or COCKED_CLASS when it is cocked."""
    if not 1 <= face <= 6:
        raise ValueError(f"face must be 1-6, got {face}")
    return COCKED_CLASS if cocked else face - 1


def face_axes(face: int) -> tuple[Vec3, Vec3, Vec3]:
    """(normal, u, v) of a face in die-local coordinates: u and v span the face, u x v = normal."""
    n = FACE_NORMALS[face]
    # Pick u as the first axis not parallel to n, then v = n x u (so u x v = n).
    u: Vec3 = (1.0, 0.0, 0.0) if n[0] == 0 else (0.0, 1.0, 0.0)
    v = _cross((float(n[0]), float(n[1]), float(n[2])), u)
    return (float(n[0]), float(n[1]), float(n[2])), u, v


def pip_centres(face: int, side: float = 1.0) -> list[Vec3]:
    """Pip centres of a face on the die's surface (die centred at the origin), in die-local coordinates."""
    n, u, v = face_axes(face)
    half, off = side / 2, PIP_OFFSET * side
    return [
        tuple(half * n[k] + off * (a * u[k] + b * v[k]) for k in range(3))  # type: ignore[misc]
        for a, b in PIP_LAYOUT[face]
    ]


def rotation_face_up(face: int) -> Mat3:
    """The rotation matrix (rows) that turns the die so that `face` points up (+z)."""
    c, s = 0.0, 1.0  # cos and sin of 90 degrees
    rx_neg: Mat3 = ((1, 0, 0), (0, c, s), (0, -s, c))  # -90 deg about x: -y -> +z
    rx_pos: Mat3 = ((1, 0, 0), (0, c, -s), (0, s, c))  # +90 deg about x: +y -> +z
    ry_neg: Mat3 = ((c, 0, -s), (0, 1, 0), (s, 0, c))  # -90 deg about y: +x -> +z
    ry_pos: Mat3 = ((c, 0, s), (0, 1, 0), (-s, 0, c))  # +90 deg about y: -x -> +z
    table: dict[int, Mat3] = {
        1: ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
        6: ((1, 0, 0), (0, -1, 0), (0, 0, -1)),
        2: rx_neg,
        5: rx_pos,
        3: ry_neg,
        4: ry_pos,
    }
    return table[face]


def apply(m: Mat3, p: Vec3) -> Vec3:
    """Matrix (rows) times vector."""
    return (
        m[0][0] * p[0] + m[0][1] * p[1] + m[0][2] * p[2],
        m[1][0] * p[0] + m[1][1] * p[1] + m[1][2] * p[2],
        m[2][0] * p[0] + m[2][1] * p[1] + m[2][2] * p[2],
    )


def face_up(m: Mat3) -> int:
    """The face whose normal points most nearly up (+z) once the die is turned by `m`."""
    return max(FACE_NORMALS, key=lambda f: apply(m, tuple(float(x) for x in FACE_NORMALS[f]))[2])  # type: ignore[arg-type]


def die_pixels(image_width: int, hfov_deg: float, height_cm: float, die_mm: float = DIE_MM) -> float:
    """Side of a die in pixels at the image centre for a pinhole camera `height_cm` above the table."""
    metres_across = 2 * height_cm / 100 * math.tan(math.radians(hfov_deg) / 2)
    return image_width / metres_across * die_mm / 1000


def _cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
