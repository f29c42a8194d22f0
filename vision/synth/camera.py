"""The Pi camera above the table: a pinhole at 60-100 cm, standard (66 deg) or wide (102 deg) lens, small tilt."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

LENSES: dict[str, float] = {"standard": 66.0, "wide": 102.0}  # Camera Module 3 horizontal fields of view

F64 = npt.NDArray[Any]  # float64


@dataclass(frozen=True)
class Camera:
    """A pinhole camera at `height` metres over the table plane z = 0, looking down, tilted by pitch and roll."""

    width: int
    height_px: int
    hfov_deg: float
    height: float  # metres above the felt
    pitch_deg: float = 0.0
    roll_deg: float = 0.0

    @property
    def focal(self) -> float:
        """Focal length in pixels."""
        return self.width / 2 / math.tan(math.radians(self.hfov_deg) / 2)

    @property
    def position(self) -> F64:
        """Camera centre in world metres (x right, y away from the viewer, z up)."""
        return np.array([0.0, 0.0, self.height])

    @property
    def rotation(self) -> F64:
        """World -> camera rotation (rows: camera x right, y down, z forward)."""
        base = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])
        p, r = math.radians(self.pitch_deg), math.radians(self.roll_deg)
        rx = np.array([[1, 0, 0], [0, math.cos(p), -math.sin(p)], [0, math.sin(p), math.cos(p)]])
        ry = np.array([[math.cos(r), 0, math.sin(r)], [0, 1, 0], [-math.sin(r), 0, math.cos(r)]])
        rot: F64 = rx @ ry @ base
        return rot

    def project(self, points: F64) -> F64:
        """World points (N x 3) -> image pixels (N x 2, continuous, origin at the top-left corner)."""
        pc = (np.atleast_2d(points) - self.position) @ self.rotation.T
        f = self.focal
        return np.stack([f * pc[:, 0] / pc[:, 2] + self.width / 2, f * pc[:, 1] / pc[:, 2] + self.height_px / 2], 1)

    def ray(self, point: F64) -> F64:
        """Unit vector from the camera to a world point."""
        d = np.asarray(point, dtype=float) - self.position
        unit: F64 = d / np.linalg.norm(d)
        return unit

    def table_homography(self) -> F64:
        """3 x 3 homography from table-plane metres (x, y, 1) to image pixels."""
        k = np.array([[self.focal, 0, self.width / 2], [0, self.focal, self.height_px / 2], [0, 0, 1]])
        rot = self.rotation
        t = -rot @ self.position
        hom: F64 = k @ np.column_stack([rot[:, 0], rot[:, 1], t])
        return hom

    def unproject_to_table(self, pixels: F64) -> F64:
        """Image pixels (N x 2) -> table-plane points (N x 2 metres)."""
        hinv = np.linalg.inv(self.table_homography())
        p = np.column_stack([pixels, np.ones(len(pixels))]) @ hinv.T
        return p[:, :2] / p[:, 2:3]
