"""Seats at the table: ArUco markers (or hand-drawn zones), the table's homography, whose dice are whose,
and the cross-check with the coordinator's count before anything is ruled on."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.frames import check_frame
from vision.reasons import Reason, ReasonCode, has
from vision.still import FrameReader, FrameSource, StillCapture, StillSettings, capture_still
from vision.types import DieReading, Frame, FrameReading

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50  # ids 0-49; a seat's marker id is its seat number (1-49)
ARUCO_NAME = "DICT_4X4_50"
MAX_SEAT = 49
MARKER_MM = 50.0  # printed side of a marker, border included (the black square)
# The white around a marker, as a share of its side: the printed sheet leaves 8 mm round a 50 mm square (0.16);
# a little more covers the blur of its edge. No die lies there: the finder's boxes on a marker are not dice.
MARKER_BORDER = 0.2
CONFIG_VERSION = 1

Point = tuple[float, float]
Polygon = tuple[Point, ...]
Mode = Literal["auto", "markers", "zones"]
Lens = Literal["auto", "standard", "wide"]
Where = Literal["mesa", "borde", "fuera"]  # on the table / cut by the frame's edge / outside the table


class ConfigError(ValueError):
    """A table config file that is missing, not JSON, or not in the expected shape (Spanish message)."""


# ------------------------------------------------------------------ configuration


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The table's config file: the felt's polygon, seat zones and players; points are frame fractions."""

    table: Polygon | None = None  # the felt: dice outside it do not count (None: the markers' ring, or all)
    zones: Mapping[int, Polygon] = field(default_factory=dict)  # seat -> zone, used when there are no markers
    players: Mapping[int, str] = field(default_factory=dict)  # seat -> player
    seats: tuple[int, ...] = ()  # every seat of the table (markers expected there)
    marker_mm: float = MARKER_MM
    mode: Mode = "auto"  # auto: markers when any is seen, else zones
    lens: Lens = "auto"  # the camera's lens (its field of view: the nadir's fit); auto: the camera's own, else the
    # one the markers' size tells

    def to_dict(self) -> dict[str, object]:
        """JSON form (the file's format)."""
        seats: list[dict[str, object]] = []
        for seat in sorted(set(self.seats) | set(self.zones) | set(self.players)):
            entry: dict[str, object] = {"seat": seat}
            if seat in self.players:
                entry["player"] = self.players[seat]
            if seat in self.zones:
                entry["zone"] = [list(p) for p in self.zones[seat]]
            seats.append(entry)
        out: dict[str, object] = {
            "version": CONFIG_VERSION,
            "mode": self.mode,
            "marker_mm": self.marker_mm,
            "lens": self.lens,
        }
        if self.table is not None:
            out["table"] = [list(p) for p in self.table]
        out["seats"] = seats
        return out


def _polygon(value: object, where: str) -> Polygon:
    if not isinstance(value, list) or len(value) < 3:
        raise ConfigError(f"{where}: se esperaba una lista de al menos 3 puntos [x, y]")
    points = []
    for point in value:
        if (
            not isinstance(point, list)
            or len(point) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in point)
        ):
            raise ConfigError(f"{where}: cada punto debe ser [x, y] con números (fracciones del ancho y alto)")
        points.append((float(point[0]), float(point[1])))
    if abs(cv2.contourArea(np.array(points, np.float32))) < 1e-6:
        raise ConfigError(f"{where}: el polígono no tiene área")
    return tuple(points)


def parse_table_config(data: object) -> TableConfig:
    """A TableConfig from the decoded JSON; anything out of shape -> ConfigError."""
    if not isinstance(data, dict):
        raise ConfigError("la configuración de la mesa debe ser un objeto JSON")
    version = data.get("version", CONFIG_VERSION)
    if version != CONFIG_VERSION:
        raise ConfigError(f"versión de configuración {version!r} desconocida (se espera {CONFIG_VERSION})")
    unknown = set(data) - {"version", "mode", "marker_mm", "lens", "table", "seats"}
    if unknown:
        raise ConfigError(f"claves desconocidas en la configuración: {', '.join(sorted(unknown))}")
    mode = data.get("mode", "auto")
    if mode not in ("auto", "markers", "zones"):
        raise ConfigError(f"mode debe ser auto, markers o zones (no {mode!r})")
    marker_mm = data.get("marker_mm", MARKER_MM)
    if not isinstance(marker_mm, int | float) or isinstance(marker_mm, bool) or not 5 <= marker_mm <= 500:
        raise ConfigError("marker_mm debe ser el lado impreso del marcador en mm (entre 5 y 500)")
    lens = data.get("lens", "auto")
    if lens not in ("auto", "standard", "wide"):
        raise ConfigError(f"lens debe ser auto, standard (66°) o wide (102°) (no {lens!r})")
    table = _polygon(data["table"], "table") if data.get("table") is not None else None
    entries = data.get("seats", [])
    if not isinstance(entries, list):
        raise ConfigError("seats debe ser una lista de asientos")
    zones: dict[int, Polygon] = {}
    players: dict[int, str] = {}
    seats: list[int] = []
    for index, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or set(entry) - {"seat", "player", "zone"}:
            raise ConfigError(f"asiento n.º {index}: se esperaba {{'seat': N, 'player': ..., 'zone': [...]}}")
        seat = entry.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= MAX_SEAT:
            raise ConfigError(f"asiento n.º {index}: 'seat' debe ser un número de 1 a {MAX_SEAT}")
        if seat in seats:
            raise ConfigError(f"el asiento {seat} aparece dos veces")
        seats.append(seat)
        player = entry.get("player")
        if player is not None:
            if not isinstance(player, str) or not player.strip():
                raise ConfigError(f"asiento {seat}: 'player' debe ser un nombre")
            if player.strip() in players.values():
                raise ConfigError(f"{player.strip()} tiene dos asientos")
            players[seat] = player.strip()
        if entry.get("zone") is not None:
            zones[seat] = _polygon(entry["zone"], f"zona del asiento {seat}")
    if mode == "zones" and not zones:
        raise ConfigError("mode es zones pero ningún asiento tiene zona")
    return TableConfig(
        table=table,
        zones=zones,
        players=players,
        seats=tuple(seats),
        marker_mm=float(marker_mm),
        mode=mode,
        lens=lens,
    )


def load_table_config(path: Path) -> TableConfig:
    """Read a table config JSON file; missing, unreadable or malformed -> ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no existe la configuración de mesa {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path} es una carpeta, no una configuración de mesa") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"no se pudo leer {path}: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path} no es JSON válido (línea {error.lineno}: {error.msg})") from None
    try:
        return parse_table_config(data)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def save_table_config(path: Path, config: TableConfig) -> None:
    """Write the config file (JSON, UTF-8)."""
    path.write_text(json.dumps(config.to_dict(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ markers


@dataclass(frozen=True, slots=True)
class Marker:
    """A seat's ArUco marker found on a frame: its seat and its four corners in frame pixels."""

    seat: int
    corners: tuple[Point, Point, Point, Point]  # clockwise from the marker's own top-left

    @property
    def center(self) -> Point:
        """Centre in frame pixels."""
        return (sum(p[0] for p in self.corners) / 4, sum(p[1] for p in self.corners) / 4)

    @property
    def side_px(self) -> float:
        """Mean side length in frame pixels."""
        return sum(math.dist(self.corners[i], self.corners[(i + 1) % 4]) for i in range(4)) / 4


def aruco_dictionary() -> cv2.aruco.Dictionary:
    """The seats' marker dictionary (DICT_4X4_50)."""
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)


def find_markers(frame: Frame, detect_width: int = 2000) -> tuple[list[Marker], list[int]]:
    """The seat markers on a frame (searched on a copy at most `detect_width` wide), and repeated ids."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    scale = 1.0
    if grey.shape[1] > detect_width:
        scale = grey.shape[1] / detect_width
        size = (detect_width, round(grey.shape[0] / scale))
        grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, Marker] = {}
    repeated: list[int] = []
    if ids is None:
        return [], []
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        seat = int(marker_id)
        if not 1 <= seat <= MAX_SEAT:
            continue  # id 0 is no seat
        pts = [((float(x) + 0.5) * scale - 0.5, (float(y) + 0.5) * scale - 0.5) for x, y in quad.reshape(4, 2)]
        marker = Marker(seat, (pts[0], pts[1], pts[2], pts[3]))
        if seat in found:
            repeated.append(seat)
            if marker.side_px <= found[seat].side_px:
                continue
        found[seat] = marker
    return sorted(found.values(), key=lambda m: m.seat), sorted(set(repeated))


def _square(side: float) -> npt.NDArray[np.float64]:
    half = side / 2
    return np.array([(-half, -half), (half, -half), (half, half), (-half, half)], np.float64)


def table_homography(markers: Sequence[Marker], marker_mm: float = MARKER_MM) -> npt.NDArray[np.float64] | None:
    """Frame pixels -> table millimetres, from the printed squares (all the same size, flat on the table).

    Starts from the biggest marker's square, then refits on every marker's corners against a perfect square
    at the pose the current estimate gives it: the markers spread around the table pin the perspective.
    The perspective of one small square is mostly its corners' noise (a pixel in 25), and from there the refit
    can run away; so it is also run from that square's affine fit (no perspective), and the fit that leaves
    the markers squarest is kept.
    """
    if not markers:
        return None
    target = (_square(marker_mm) + marker_mm / 2).astype(np.float64)
    corners = np.array(max(markers, key=lambda m: m.side_px).corners, np.float64)
    perspective = np.asarray(
        cv2.getPerspectiveTransform(corners.astype(np.float32), target.astype(np.float32)), np.float64
    )
    if len(markers) < 2:
        return perspective
    affine, *_ = np.linalg.lstsq(np.column_stack([corners, np.ones(4)]), target, rcond=None)
    flat = np.vstack([affine.T, [0.0, 0.0, 1.0]])
    fits = [_refit(markers, start, marker_mm) for start in (perspective, flat)]
    return min(fits, key=lambda fit: fit[1])[0]


def _refit(
    markers: Sequence[Marker], homography: npt.NDArray[np.float64], marker_mm: float, rounds: int = 5
) -> tuple[npt.NDArray[np.float64], float]:
    """Refine a homography on every marker's corners; returns it and how far the markers are from perfect
    squares (RMS, mm)."""
    ideal = _square(marker_mm)
    image = np.array([p for m in markers for p in m.corners], np.float64)
    targets: npt.NDArray[np.float64] = image
    for _ in range(rounds):
        mapped = cv2.perspectiveTransform(image.reshape(-1, 1, 2), homography).reshape(-1, 4, 2)
        squares = []
        for quad in mapped:
            centre = quad.mean(axis=0)
            offsets = quad - centre
            # The rotation that best lays the ideal square on the mapped one (2-D Procrustes).
            angle = math.atan2(
                float(np.sum(ideal[:, 0] * offsets[:, 1] - ideal[:, 1] * offsets[:, 0])),
                float(np.sum(ideal[:, 0] * offsets[:, 0] + ideal[:, 1] * offsets[:, 1])),
            )
            rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
            squares.append(ideal @ rotation.T + centre)
        targets = np.concatenate(squares)
        refit, _ = cv2.findHomography(image, targets, 0)
        if refit is None:
            break
        homography = np.asarray(refit, np.float64)
    final = cv2.perspectiveTransform(image.reshape(-1, 1, 2), homography).reshape(-1, 2)
    residual = float(np.sqrt(np.mean(np.sum((final - targets) ** 2, axis=1))))
    return homography, residual if math.isfinite(residual) else math.inf


def to_table(homography: npt.NDArray[np.float64], points: Sequence[Point]) -> list[Point]:
    """Frame pixels -> table millimetres."""
    if not points:
        return []
    mapped = cv2.perspectiveTransform(np.array(points, np.float64).reshape(-1, 1, 2), homography).reshape(-1, 2)
    return [(float(x), float(y)) for x, y in mapped]


# ------------------------------------------------------------------ the camera's tilt

LENSES: dict[str, float] = {"standard": 66.0, "wide": 102.0}  # Camera Module 3: horizontal field of view, degrees
MAX_TILT_DEG = 20.0  # a camera hung over the table leans a few degrees; more is a fit gone wrong
MAX_NADIR_SPREAD = 0.02  # the nadir's standard error, as a share of the frame's width, over which it is not used
MIN_TILT_MARKERS = 2  # one marker's perspective is mostly its corners' noise (rendered tables: 2 give 0.5-1.6 %)
USUAL_HEIGHT_MM = 800.0  # the camera hangs 60 to 100 cm over the felt
MAX_RESIDUAL_PX = 2.0  # corners further than this (RMS) from the fitted camera's view: not flat squares, or a lens
# that bends straight lines (the fit assumes none); rendered tables leave 0.4-0.5 px
CORNER_PX = 0.5  # how far a found marker corner is from the true one (px, one axis): the nadir's standard error


@dataclass(frozen=True, slots=True)
class CameraTilt:
    """How the camera hangs over the table, from the seat markers: where its vertical meets the frame (the nadir),
    and how far it leans from looking straight down."""

    nadir: Point  # fractions of the frame's width and height (ReaderSettings.nadir)
    tilt_deg: float
    height_mm: float  # the lens's height over the table
    hfov_deg: float  # the lens's field of view it was fitted with
    markers: int  # markers it was fitted on
    spread_px: float  # the nadir's standard error in pixels, from the fit (corners found to CORNER_PX)
    residual_px: float  # RMS distance of the markers' corners from the fitted camera's view of them

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "nadir": [round(self.nadir[0], 4), round(self.nadir[1], 4)],
            "tilt_deg": round(self.tilt_deg, 2),
            "height_mm": round(self.height_mm, 1),
            "hfov_deg": self.hfov_deg,
            "markers": self.markers,
            "spread_px": round(self.spread_px, 1),
            "residual_px": round(self.residual_px, 2),
        }


def focal_px(width: int, hfov_deg: float) -> float:
    """The focal length in pixels of a frame `width` wide that sees `hfov_deg` across (a full-sensor mode)."""
    return width / 2 / math.tan(math.radians(hfov_deg) / 2)


def _tilted(pitch: float, roll: float) -> npt.NDArray[np.float64]:
    """Table -> camera rotation of a camera looking down, leaning by pitch and roll (radians)."""
    down = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])
    cp, sp, cr, sr = math.cos(pitch), math.sin(pitch), math.cos(roll), math.sin(roll)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cp, -sp], [0.0, sp, cp]])
    ry = np.array([[cr, 0.0, sr], [0.0, 1.0, 0.0], [-sr, 0.0, cr]])
    rotation: npt.NDArray[np.float64] = rx @ ry @ down
    return rotation


def _corners_seen(
    params: npt.NDArray[np.float64], square: npt.NDArray[np.float64], f: float, centre: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Where a camera (pitch, roll, height) sees every marker (x, y, turn on the table): m x 4 x 2 pixels."""
    pitch, roll, height = params[:3]
    each = params[3:].reshape(-1, 3)
    cos, sin = np.cos(each[:, 2]), np.sin(each[:, 2])
    x = each[:, None, 0] + cos[:, None] * square[None, :, 0] - sin[:, None] * square[None, :, 1]
    y = each[:, None, 1] + sin[:, None] * square[None, :, 0] + cos[:, None] * square[None, :, 1]
    world = np.stack([x, y, np.full_like(x, -height)], axis=-1)  # relative to the lens
    cam = world @ _tilted(pitch, roll).T
    return np.asarray(f * cam[..., :2] / cam[..., 2:3] + centre, np.float64)


def _nadir(pitch: float, roll: float, f: float, centre: npt.NDArray[np.float64]) -> npt.NDArray[np.float64] | None:
    """Where a camera leaning by pitch and roll sees the table straight below its lens (pixels)."""
    below = _tilted(pitch, roll) @ np.array([0.0, 0.0, -1.0])
    if below[2] <= 1e-6:
        return None
    return np.asarray(f * below[:2] / below[2] + centre, np.float64)


def camera_tilt(
    markers: Sequence[Marker], width: int, height: int, hfov_deg: float | None = None, marker_mm: float = MARKER_MM
) -> CameraTilt | None:
    """The camera's tilt and nadir from the seat markers on a frame and the lens's field of view (None: the lens of
    LENSES that puts the camera nearest USUAL_HEIGHT_MM over the table); None where they cannot say: fewer than
    MIN_TILT_MARKERS markers, a fit that misses their corners by over MAX_RESIDUAL_PX or leans over MAX_TILT_DEG,
    or a nadir known worse than MAX_NADIR_SPREAD of the frame's width.

    The lens matters: fitted with the other lens's focal length, the nadir is as far off as the frame's centre.
    The markers' size tells the two apart: a camera 60-100 cm up seen through the wrong lens would be 32-53 cm
    (the wide one taken for the standard) or 114-190 cm (the other way) over the table.

    The markers lie where the players put them: only their size and shape are known. A camera leaning over the
    table sees the far markers smaller and every marker a little foreshortened; a pinhole (the lens's focal length,
    the centre of the frame) with a pitch, a roll and a height, each marker with its place and turn on the table,
    is fitted to every corner (Levenberg-Marquardt). The nadir is where that camera sees the point of the table
    straight below it: the sides of a flat die point away from it.
    """
    if len(markers) < MIN_TILT_MARKERS:
        return None
    if hfov_deg is None:
        fits = [fit for lens in LENSES.values() if (fit := camera_tilt(markers, width, height, lens, marker_mm))]
        return min(fits, key=lambda fit: abs(math.log(fit.height_mm / USUAL_HEIGHT_MM)), default=None)
    f = focal_px(width, hfov_deg)
    centre = np.array([width / 2, height / 2])
    seen = np.array([m.corners for m in markers], np.float64)  # m x 4 x 2
    half = marker_mm / 2
    square = np.array([(-half, half), (half, half), (half, -half), (-half, -half)])  # clockwise seen from above

    def misfit(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return (_corners_seen(p, square, f, centre) - seen).ravel()

    steps = np.array([1e-6, 1e-6, 1e-3] + [1e-3, 1e-3, 1e-6] * len(markers))
    fitted = _least_squares(misfit, _straight_down(seen, f, centre, marker_mm), steps)
    if fitted is None:
        return None
    params, error, jacobian = fitted
    pitch, roll, lens_height = (float(v) for v in params[:3])
    nadir = _nadir(pitch, roll, f, centre)
    if nadir is None:
        return None
    spread = _nadir_spread(pitch, roll, f, centre, nadir, jacobian)
    if spread is None:
        return None
    rotation = _tilted(pitch, roll)
    tilt = math.degrees(math.acos(min(1.0, abs(float(rotation[2, 2])))))
    residual = float(np.sqrt(np.mean(error**2) * 2))
    if (
        not math.isfinite(spread)
        or spread > MAX_NADIR_SPREAD * width
        or tilt > MAX_TILT_DEG
        or residual > MAX_RESIDUAL_PX
    ):
        return None
    where = (float(nadir[0]) / width, float(nadir[1]) / height)
    return CameraTilt(where, tilt, lens_height, hfov_deg, len(markers), spread, residual)


def _straight_down(
    seen: npt.NDArray[np.float64], f: float, centre: npt.NDArray[np.float64], marker_mm: float
) -> npt.NDArray[np.float64]:
    """The fit's start: a camera looking straight down from the height the markers' size tells, each marker where
    its centre is seen, turned as its top edge."""
    sides = np.linalg.norm(seen - np.roll(seen, -1, axis=1), axis=2).mean(axis=1)
    lens_height = f * marker_mm / float(np.median(sides))
    start = [0.0, 0.0, lens_height]
    for quad in seen:
        u, v = quad.mean(axis=0) - centre
        du, dv = quad[1] - quad[0]
        start += [u * lens_height / f, -v * lens_height / f, math.atan2(-dv, du)]
    return np.array(start)


Misfit = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]


def _least_squares(
    misfit: Misfit, params: npt.NDArray[np.float64], steps: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """Levenberg-Marquardt from `params` (up to 50 steps; a finite-difference Jacobian with these `steps`), keeping
    the height (params[2]) above the table: (params, misfit, the last Jacobian), or None where it cannot solve."""
    damping = 1e-3
    error = misfit(params)
    jacobian = np.zeros((error.size, params.size))
    for _ in range(50):
        for i, step in enumerate(steps):
            moved = params.copy()
            moved[i] += step
            jacobian[:, i] = (misfit(moved) - error) / step
        normal = jacobian.T @ jacobian
        gradient = jacobian.T @ error
        while damping < 1e9:
            try:
                change = np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), -gradient)
            except np.linalg.LinAlgError:
                return None
            trial = params + change
            trial_error = misfit(trial)
            if np.all(np.isfinite(trial_error)) and trial[2] > 0 and trial_error @ trial_error < error @ error:
                params, error, damping = trial, trial_error, max(damping / 10, 1e-9)
                break
            damping *= 10
        else:
            break
        if np.max(np.abs(change[:2])) < 1e-9:
            break
    return params, error, jacobian


def _nadir_spread(
    pitch: float,
    roll: float,
    f: float,
    centre: npt.NDArray[np.float64],
    nadir: npt.NDArray[np.float64],
    jacobian: npt.NDArray[np.float64],
) -> float | None:
    """The nadir's standard error in pixels: the fit's covariance of pitch and roll (corners found to CORNER_PX),
    carried to the nadir's pixels; None where it cannot be told."""
    try:
        covariance = np.linalg.inv(jacobian.T @ jacobian)[:2, :2] * CORNER_PX**2
    except np.linalg.LinAlgError:
        return None
    carry = np.zeros((2, 2))
    for i, (dp, dr) in enumerate(((1e-6, 0.0), (0.0, 1e-6))):
        shifted = _nadir(pitch + dp, roll + dr, f, centre)
        if shifted is None:
            return None
        carry[:, i] = (shifted - nadir) / 1e-6
    return math.sqrt(max(0.0, float(np.trace(carry @ covariance @ carry.T))))


def marker_regions(markers: Sequence[Marker], border: float = MARKER_BORDER) -> list[Polygon]:
    """Each marker's square widened by its white border (`border` of its side on every side), frame pixels."""
    regions = []
    for marker in markers:
        cx, cy = marker.center
        grow = 1.0 + 2.0 * border
        regions.append(tuple((cx + (x - cx) * grow, cy + (y - cy) * grow) for x, y in marker.corners))
    return regions


class TiltedReader:
    """Reads a still's frames with the camera's nadir measured from the seat markers (camera_tilt) on the first of
    them: a capture's frames share one camera. Nothing inside a marker or its white border is read as a die. Where
    the markers cannot say, or the reader has no `at_nadir` (a test's fake), it reads as it is (the frame's
    centre). One per capture: `tilt` is what it measured."""

    def __init__(
        self, reader: FrameReader, hfov_deg: float | None = None, marker_mm: float = MARKER_MM, detect_width: int = 2000
    ) -> None:
        self.reader = reader
        self.hfov_deg = hfov_deg
        self.marker_mm = marker_mm
        self.detect_width = detect_width
        self.tilt: CameraTilt | None = None
        self._tilted: FrameReader | None = None

    def read(self, frame: Frame) -> FrameReading:
        """Every die on the frame, read from the camera's nadir."""
        if self._tilted is None:
            frame = check_frame(frame)
            height, width = frame.shape[:2]
            markers, _ = find_markers(frame, self.detect_width)
            self.tilt = camera_tilt(markers, width, height, self.hfov_deg, self.marker_mm)
            tilted = self.reader
            ignoring = getattr(tilted, "ignoring", None)
            if markers and callable(ignoring):
                tilted = ignoring(marker_regions(markers))
            at_nadir = getattr(tilted, "at_nadir", None)
            if self.tilt is not None and callable(at_nadir):
                tilted = at_nadir(self.tilt.nadir)
            self._tilted = tilted
        return self._tilted.read(frame)


def fit_hfov(config: TableConfig, camera_hfov: float | None = None) -> float | None:
    """The lens the camera's tilt is fitted with: the config's, else the one the camera says it has, else None (the
    one the markers' size tells, camera_tilt)."""
    return camera_hfov if config.lens == "auto" else LENSES[config.lens]


def tilted_reader(reader: FrameReader, config: TableConfig, camera_hfov: float | None = None) -> TiltedReader | None:
    """The reader of one capture at this table: from the nadir its seat markers give, fitted with `fit_hfov`'s lens;
    None in zones mode, where markers are not looked for."""
    if config.mode == "zones":
        return None
    return TiltedReader(reader, fit_hfov(config, camera_hfov), config.marker_mm)


def capture_at_nadir(
    source: FrameSource,
    reader: FrameReader,
    settings: StillSettings,
    config: TableConfig,
    camera_hfov: float | None = None,
    recent: Sequence[tuple[float, Frame]] = (),
) -> StillCapture:
    """vision.still.capture_still with `tilted_reader`'s reader for this table; the capture says the tilt measured."""
    tilted = tilted_reader(reader, config, camera_hfov)
    capture = capture_still(source, tilted or reader, settings, recent=recent)
    return capture if tilted is None else replace(capture, tilt=tilted.tilt)


# ------------------------------------------------------------------ calibration and placement


@dataclass(frozen=True, slots=True)
class SeatSettings:
    """Tolerances of seat assignment."""

    edge_px: int = 2  # a box this close to the frame's edge is cut by it
    ring_margin: float = 2.0  # without a felt polygon: the markers' ring widened by this many marker sides
    detect_width: int = 2000  # markers are searched on a copy this wide (they are big; it is faster)


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a seat (or the table) cannot be ruled on: a code for the kiosk and a Spanish message."""

    kind: str  # too_many | too_few | uncertain | outside | cut | no_marker | no_player | no_seats | repeated_marker
    message: str

    def to_dict(self) -> dict[str, str]:
        """JSON form."""
        return {"kind": self.kind, "message": self.message}


@dataclass(frozen=True, slots=True)
class Seating:
    """How dice are given seats on this frame: by markers (with the homography) or by zones."""

    mode: Literal["markers", "zones", "none"]
    width: int
    height: int
    markers: tuple[Marker, ...] = ()
    homography: npt.NDArray[np.float64] | None = field(default=None, compare=False)
    anchors: Mapping[int, Point] = field(default_factory=dict)  # seat -> marker centre, table mm
    zones: Mapping[int, Polygon] = field(default_factory=dict)  # seat -> zone, frame pixels
    region: Polygon | None = None  # the table's region, frame pixels (None: the whole frame)
    ring: Polygon | None = None  # or the markers' ring, table mm (widened by ring_margin_mm)
    ring_margin_mm: float = 0.0
    region_source: Literal["config", "markers", "frame"] = "frame"
    seats: tuple[int, ...] = ()  # every seat known: config, markers found, zones
    missing: tuple[int, ...] = ()  # seats whose marker should be there and is not seen
    problems: tuple[Problem, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "mode": self.mode,
            "markers": [m.seat for m in self.markers],
            "missing_markers": list(self.missing),
            "region": self.region_source,
        }


def _scaled(polygon: Polygon, width: int, height: int) -> Polygon:
    return tuple((x * width, y * height) for x, y in polygon)


def _hull(points: Sequence[Point]) -> Polygon:
    hull = cv2.convexHull(np.array(points, np.float32)).reshape(-1, 2)
    return tuple((float(x), float(y)) for x, y in hull)


def calibrate(
    frame: Frame,
    config: TableConfig | None = None,
    seats_in_play: Sequence[int] = (),
    settings: SeatSettings | None = None,
    markers: Sequence[Marker] | None = None,
) -> Seating:
    """Find the seats on a frame: markers (and the homography), else the config's zones.

    `seats_in_play` are seats that must be seen (those with a player); `markers` skips the search.
    """
    s = settings or SeatSettings()
    config = config or TableConfig()
    height, width = frame.shape[:2]
    repeated: list[int] = []
    if markers is None:
        markers, repeated = find_markers(frame, s.detect_width) if config.mode != "zones" else ([], [])
    problems = [
        Problem("repeated_marker", f"el marcador del asiento {seat} aparece más de una vez en la imagen")
        for seat in repeated
    ]
    region = _scaled(config.table, width, height) if config.table is not None else None
    region_source: Literal["config", "markers", "frame"] = "config" if region is not None else "frame"
    wanted = sorted(set(config.seats) | set(config.players) | set(seats_in_play))
    use_markers = config.mode == "markers" or (config.mode == "auto" and bool(markers))
    if use_markers:
        return _by_markers(markers, config, s, (width, height), region, wanted, problems)
    if config.zones:
        zones = {seat: _scaled(zone, width, height) for seat, zone in config.zones.items()}
        return Seating(
            mode="zones",
            width=width,
            height=height,
            zones=zones,
            region=region,
            region_source=region_source,
            seats=tuple(sorted(set(zones) | set(wanted))),
            problems=tuple(problems),
        )
    problems.append(
        Problem("no_seats", "no se ve ningún marcador de asiento y la configuración no tiene zonas dibujadas")
    )
    return Seating(
        mode="none",
        width=width,
        height=height,
        region=region,
        region_source=region_source,
        seats=tuple(wanted),
        problems=tuple(problems),
    )


def _by_markers(
    markers: Sequence[Marker],
    config: TableConfig,
    s: SeatSettings,
    size: tuple[int, int],
    region: Polygon | None,
    wanted: list[int],
    problems: list[Problem],
) -> Seating:
    """The seating by the markers found: each seat's marker centre on the table (through the homography), the
    table's region (the config's, else the markers' ring when three or more are seen), the seats whose marker is
    not seen."""
    width, height = size
    region_source: Literal["config", "markers", "frame"] = "config" if region is not None else "frame"
    homography = table_homography(markers, config.marker_mm)
    anchors: dict[int, Point] = {}
    if homography is not None:
        centres = to_table(homography, [m.center for m in markers])
        anchors = {m.seat: c for m, c in zip(markers, centres, strict=True)}
    ring = None
    if region is None and len(markers) >= 3:
        ring, region_source = _hull(list(anchors.values())), "markers"
    found = {m.seat for m in markers}
    missing = tuple(seat for seat in wanted if seat not in found)
    if not markers:
        problems.append(Problem("no_seats", "no se ve ningún marcador de asiento en la imagen"))
    return Seating(
        mode="markers",
        width=width,
        height=height,
        markers=tuple(markers),
        homography=homography,
        anchors=anchors,
        region=region,
        ring=ring,
        ring_margin_mm=s.ring_margin * config.marker_mm,
        region_source=region_source,
        seats=tuple(sorted(found | set(wanted))),
        missing=missing,
        problems=tuple(problems),
    )


@dataclass(frozen=True, slots=True)
class PlacedDie:
    """A die with its seat (the nearest, even when it does not count) and where it lies."""

    die: DieReading
    seat: int | None
    where: Where
    table_mm: Point | None = None  # its centre in table millimetres (markers only)

    @property
    def counts(self) -> bool:
        """It is on the table (cut or not), so it counts for its seat."""
        return self.where != "fuera"

    def to_dict(self) -> dict[str, object]:
        """The die's JSON with its seat and where it lies."""
        out = self.die.to_dict()
        out["seat"] = self.seat
        out["where"] = self.where
        if self.table_mm is not None:
            out["table_mm"] = [round(v, 1) for v in self.table_mm]
        return out


def is_cut(die: DieReading, width: int, height: int, edge_px: int) -> bool:
    """The die's box touches the frame's edge: part of it may be out of the picture."""
    box = die.box
    return box.x1 <= edge_px or box.y1 <= edge_px or box.x2 >= width - edge_px or box.y2 >= height - edge_px


def _inside(polygon: Polygon, point: Point, margin: float = 0.0) -> bool:
    contour = np.array(polygon, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True) >= -margin


def _distance_outside(polygon: Polygon, point: Point) -> float:
    contour = np.array(polygon, np.float32).reshape(-1, 1, 2)
    return max(0.0, -cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True))


def place_dice(reading: FrameReading, seating: Seating, settings: SeatSettings | None = None) -> list[PlacedDie]:
    """Give every die its seat and say where it lies: on the table, cut by the frame's edge, or outside."""
    s = settings or SeatSettings()
    # The reading may come from another resolution than the calibration frame: scale to its pixels.
    sx, sy = seating.width / reading.width, seating.height / reading.height
    placed = []
    for die in reading.dice:
        cx, cy = die.box.center
        centre = (cx * sx, cy * sy)
        seat: int | None = None
        table_mm: Point | None = None
        outside = seating.region is not None and not _inside(seating.region, centre)
        if seating.mode == "markers" and seating.homography is not None and seating.anchors:
            mm = to_table(seating.homography, [centre])[0]
            seat = min(seating.anchors, key=lambda k: math.dist(seating.anchors[k], mm))
            if seating.ring is not None and not _inside(seating.ring, mm, seating.ring_margin_mm):
                outside = True
            table_mm = mm
        elif seating.mode == "zones" and seating.zones:
            inside = [k for k, zone in seating.zones.items() if _inside(zone, centre)]
            if inside:
                seat = inside[0]
            else:  # on no seat's zone: the nearest zone's, and it does not count
                seat = min(seating.zones, key=lambda k: _distance_outside(seating.zones[k], centre))
                outside = True
        where: Where = (
            "fuera" if outside else "borde" if is_cut(die, reading.width, reading.height, s.edge_px) else "mesa"
        )
        placed.append(PlacedDie(die=die, seat=seat, where=where, table_mm=table_mm))
    return placed


# ------------------------------------------------------------------ the cross-check


def _dice(n: int) -> str:
    return f"{n} dado" if n == 1 else f"{n} dados"


@dataclass(frozen=True, slots=True)
class SeatCheck:
    """One seat's dice against the coordinator's count; `problems` empty means it can be ruled on."""

    seat: int
    player: str | None
    expected: int | None  # None: no count was given
    dice: tuple[PlacedDie, ...]  # every die given this seat, outside ones included
    problems: tuple[Problem, ...]

    @property
    def counted(self) -> tuple[PlacedDie, ...]:
        """The dice that count: on the table (cut ones included: they are there)."""
        return tuple(d for d in self.dice if d.counts)

    @property
    def found(self) -> int:
        """How many dice count for the seat."""
        return len(self.counted)

    @property
    def faces(self) -> tuple[int, ...]:
        """The faces of the dice that count, in reading order."""
        return tuple(d.die.face for d in self.counted)

    @property
    def uncertain(self) -> tuple[PlacedDie, ...]:
        """The dice that need the coordinator."""
        return tuple(d for d in self.dice if d.die.uncertain or d.where != "mesa")

    @property
    def matches(self) -> bool | None:
        """The count is the expected one (None when no count was given)."""
        return None if self.expected is None else self.found == self.expected

    @property
    def ok(self) -> bool:
        """It can be ruled on."""
        return not self.problems

    @property
    def label(self) -> str:
        """ "asiento 2 (Beto)"."""
        return f"asiento {self.seat}" + (f" ({self.player})" if self.player else "")

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "seat": self.seat,
            "player": self.player,
            "expected": self.expected,
            "found": self.found,
            "faces": list(self.faces),
            "matches": self.matches,
            "ok": self.ok,
            "dice": [d.to_dict() for d in self.dice],
            "problems": [p.to_dict() for p in self.problems],
        }


@dataclass(frozen=True, slots=True)
class TableCheck:
    """The reading per seat, and whether it may be ruled on: only when every seat and the table are ok."""

    seating: Seating
    seats: tuple[SeatCheck, ...]
    stray: tuple[PlacedDie, ...]  # dice with no seat at all (no markers, no zones)
    problems: tuple[Problem, ...]  # the table's own (no seats seen, players without a seat...)

    @property
    def ok(self) -> bool:
        """Nothing is off: the reading may be ruled on."""
        return not self.problems and not self.stray and all(seat.ok for seat in self.seats)

    @property
    def off(self) -> tuple[SeatCheck, ...]:
        """The seats that are off."""
        return tuple(seat for seat in self.seats if not seat.ok)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "ok": self.ok,
            "seating": self.seating.to_dict(),
            "seats": [seat.to_dict() for seat in self.seats],
            "stray": [d.to_dict() for d in self.stray],
            "problems": [p.to_dict() for p in self.problems],
        }

    def lines(self) -> list[str]:
        """A readable Spanish account, one seat a line (and one per doubtful die)."""
        out = []
        for seat in self.seats:
            faces = (
                " ".join(str(d.die.face) + ("?" if d.die.uncertain or d.where != "mesa" else "") for d in seat.counted)
                or "ninguno"
            )
            line = f"Asiento {seat.seat}" + (f" ({seat.player})" if seat.player else "") + f": {faces}"
            if seat.expected is not None:
                line += f" · {seat.found} de {seat.expected} esperados"
                line += " · coincide" if seat.ok else " · NO se puede arbitrar"
            elif not seat.ok:
                line += " · NO se puede arbitrar"
            out.append(line)
            for problem in seat.problems:
                out.append(f"  - {problem.message}")
            for placed in seat.uncertain:
                box = ", ".join(f"{v:.0f}" for v in placed.die.box.to_list())
                why = list(placed.die.reasons)
                if placed.where == "fuera":
                    why.insert(0, Reason(ReasonCode.OUTSIDE))
                elif placed.where == "borde" and not has(why, ReasonCode.CUT):
                    why.insert(0, Reason(ReasonCode.CUT))
                out.append(f"  dudoso en [{box}]: {'; '.join(why)} (lee {placed.die.face})")
        for placed in self.stray:
            box = ", ".join(f"{v:.0f}" for v in placed.die.box.to_list())
            out.append(f"Dado sin asiento en [{box}] (lee {placed.die.face})")
        for problem in self.problems:
            out.append(f"Mesa: {problem.message}")
        out.append("Resultado: " + ("se puede arbitrar" if self.ok else "NO se puede arbitrar"))
        return out


def seat_players(names: Sequence[str], config: TableConfig | None = None) -> dict[int, str]:
    """Seat -> player: the config's, else the players in order on the config's seats (or 1, 2, 3...)."""
    config = config or TableConfig()
    if config.players:
        return dict(config.players)
    seats = sorted(config.seats) or list(range(1, len(names) + 1))
    return dict(zip(seats, names, strict=False))


def check_table(
    placed: Sequence[PlacedDie],
    seating: Seating,
    expected: Mapping[str, int] | None = None,
    players: Mapping[int, str] | None = None,
) -> TableCheck:
    """Cross-check the dice per seat with the coordinator's count (player -> dice).

    A seat is off when its count differs (too many, too few), when any of its dice is uncertain, cut by the
    frame's edge or outside the table, or when its marker is not seen. With a count, a seat with no player
    in it expects no dice.
    """
    players = dict(players or {})
    problems = list(seating.problems)
    if expected is not None:
        seated = set(players.values())
        for name in expected:
            if name not in seated:
                problems.append(Problem("no_player", f"{name} no tiene asiento asignado"))
    by_seat: dict[int, list[PlacedDie]] = {}
    stray = []
    for die in placed:
        if die.seat is None:
            stray.append(die)
        else:
            by_seat.setdefault(die.seat, []).append(die)
    seat_numbers = sorted(set(seating.seats) | set(by_seat) | set(players))
    checks = []
    for seat in seat_numbers:
        dice = tuple(by_seat.get(seat, ()))
        player = players.get(seat)
        want = None if expected is None else (expected.get(player, 0) if player is not None else 0)
        checks.append(_check_seat(seat, player, want, dice, seat in seating.missing))
    return TableCheck(seating=seating, seats=tuple(checks), stray=tuple(stray), problems=tuple(problems))


def _check_seat(
    seat: int, player: str | None, want: int | None, dice: tuple[PlacedDie, ...], missing: bool
) -> SeatCheck:
    problems: list[Problem] = []
    if missing:
        problems.append(Problem("no_marker", f"no se ve el marcador del asiento {seat} (¿tapado por un cubilete?)"))
    counted = [d for d in dice if d.counts]
    if want is not None and len(counted) > want:
        extra = len(counted) - want
        who = "" if player else " (asiento sin jugador)"
        problems.append(
            Problem("too_many", f"sobra{'n' if extra > 1 else ''} {_dice(extra)}: {len(counted)} de {want}{who}")
        )
    if want is not None and len(counted) < want:
        problems.append(
            Problem(
                "too_few",
                f"falta{'n' if want - len(counted) > 1 else ''} {_dice(want - len(counted))}: {len(counted)} de {want}",
            )
        )
    outside = sum(1 for d in dice if d.where == "fuera")
    if outside:
        problems.append(
            Problem("outside", f"{_dice(outside)} fuera de la mesa (no cuenta{'n' if outside > 1 else ''})")
        )
    cut = sum(1 for d in dice if d.where == "borde")
    if cut:
        problems.append(Problem("cut", f"{_dice(cut)} cortado{'s' if cut > 1 else ''} por el borde de la imagen"))
    doubtful = sum(1 for d in counted if d.die.uncertain)
    if doubtful:
        problems.append(
            Problem("uncertain", f"{_dice(doubtful)} dudoso{'s' if doubtful > 1 else ''}: confirmar a mano")
        )
    return SeatCheck(seat=seat, player=player, expected=want, dice=dice, problems=tuple(problems))


def read_table(
    frame: Frame,
    reading: FrameReading,
    config: TableConfig | None = None,
    expected: Mapping[str, int] | None = None,
    settings: SeatSettings | None = None,
) -> TableCheck:
    """Calibrate on the frame, place the reading's dice, and cross-check with the expected counts."""
    config = config or TableConfig()
    players = seat_players(list(expected or {}), config)
    seating = calibrate(frame, config, seats_in_play=sorted(players), settings=settings)
    return check_table(place_dice(reading, seating, settings), seating, expected, players)


# ------------------------------------------------------------------ the printable sheet

A4_MM = (210.0, 297.0)


@dataclass(frozen=True, slots=True)
class SheetLayout:
    """How a page of markers is laid out, in millimetres."""

    marker_mm: float = MARKER_MM
    dpi: int = 300
    quiet_mm: float = 8.0  # white around each marker: the detector needs a light border
    label_mm: float = 16.0  # under the marker: the seat number and the size
    margin_mm: float = 8.0  # page margin (printers cannot print to the edge)
    header_mm: float = 12.0

    def px(self, mm: float) -> int:
        """Millimetres -> pixels at the sheet's resolution."""
        return round(mm * self.dpi / 25.4)

    @property
    def marker_px(self) -> int:
        """The marker's side in pixels."""
        return self.px(self.marker_mm)

    @property
    def printed_mm(self) -> float:
        """The marker's side as it will print (pixels back to mm)."""
        return self.marker_px * 25.4 / self.dpi

    @property
    def cell_mm(self) -> tuple[float, float]:
        """Width and height of one cut-out."""
        return self.marker_mm + 2 * self.quiet_mm, self.marker_mm + 2 * self.quiet_mm + self.label_mm

    @property
    def grid(self) -> tuple[int, int]:
        """Columns and rows of cut-outs on a page."""
        cell_w, cell_h = self.cell_mm
        columns = int((A4_MM[0] - 2 * self.margin_mm) // cell_w)
        rows = int((A4_MM[1] - 2 * self.margin_mm - self.header_mm) // cell_h)
        return columns, rows


def _dashed_rect(page: Frame, x1: int, y1: int, x2: int, y2: int, dash: int, thickness: int) -> None:
    grey = (150, 150, 150)
    for a, b in (((x1, y1), (x2, y1)), ((x2, y1), (x2, y2)), ((x2, y2), (x1, y2)), ((x1, y2), (x1, y1))):
        length = max(abs(b[0] - a[0]), abs(b[1] - a[1]))
        for start in range(0, length, 2 * dash):
            end = min(length, start + dash)
            p = (a[0] + (b[0] - a[0]) * start // length, a[1] + (b[1] - a[1]) * start // length)
            q = (a[0] + (b[0] - a[0]) * end // length, a[1] + (b[1] - a[1]) * end // length)
            cv2.line(page, p, q, grey, thickness)


def _page_header(page: Frame, lay: SheetLayout) -> None:
    header = f"Cacho Companion - marcadores de asiento ArUco {ARUCO_NAME}. Imprimir al 100 %, sin escalar."
    scale = lay.dpi / 300
    cv2.putText(
        page,
        header,
        (lay.px(lay.margin_mm), lay.px(lay.margin_mm + 6)),
        cv2.FONT_HERSHEY_SIMPLEX,
        1.1 * scale,
        (0, 0, 0),
        max(1, round(2 * scale)),
        cv2.LINE_AA,
    )


def _cut_out(page: Frame, lay: SheetLayout, seat: int, x: int, y: int, dictionary: cv2.aruco.Dictionary) -> None:
    """A seat's cut-out with its top-left corner at (x, y): dashed cut lines, the marker in its quiet zone, the
    seat's number and the marker's printed size under it."""
    cell_w, cell_h = (lay.px(v) for v in lay.cell_mm)
    _dashed_rect(page, x, y, x + cell_w, y + cell_h, lay.px(3), max(1, lay.px(0.25)))
    marker = cv2.aruco.generateImageMarker(dictionary, seat, lay.marker_px)
    mx, my = x + (cell_w - lay.marker_px) // 2, y + lay.px(lay.quiet_mm)
    page[my : my + lay.marker_px, mx : mx + lay.marker_px] = marker[:, :, None]
    text_y = my + lay.marker_px + lay.px(lay.quiet_mm)  # the label stays out of the quiet zone
    scale = lay.dpi / 300
    lines = (  # text, baseline below the quiet zone (mm), size, grey, stroke
        (f"ASIENTO {seat}", 6, 2.0, 0, 5),
        (f"id {seat} - cuadro negro de {lay.printed_mm:.1f} mm de lado", 13, 1.0, 60, 2),
    )
    for text, below_mm, size, grey, stroke in lines:
        origin = (x + lay.px(4), text_y + lay.px(below_mm))
        colour = (grey, grey, grey)
        cv2.putText(
            page,
            text,
            origin,
            cv2.FONT_HERSHEY_SIMPLEX,
            size * scale,
            colour,
            max(1, round(stroke * scale)),
            cv2.LINE_AA,
        )


def marker_pages(seats: Sequence[int], layout: SheetLayout | None = None) -> list[Frame]:
    """A4 pages (BGR, white) with one marker per seat, cut lines, the seat number and the printed size."""
    lay = layout or SheetLayout()
    if not seats:
        raise ValueError("no hay asientos para imprimir")
    if any(not 1 <= seat <= MAX_SEAT for seat in seats):
        raise ValueError(f"los asientos van de 1 a {MAX_SEAT} (ids del diccionario {ARUCO_NAME})")
    columns, rows = lay.grid
    if columns < 1 or rows < 1:
        raise ValueError(f"un marcador de {lay.marker_mm:g} mm no cabe en una hoja A4")
    per_page = columns * rows
    width, height = lay.px(A4_MM[0]), lay.px(A4_MM[1])
    cell_w, cell_h = (lay.px(v) for v in lay.cell_mm)
    # Centre the grid horizontally; the header sits above it.
    left = (width - columns * cell_w) // 2
    top = lay.px(lay.margin_mm + lay.header_mm)
    dictionary = aruco_dictionary()
    pages = []
    for first in range(0, len(seats), per_page):
        page = np.full((height, width, 3), 255, np.uint8)
        _page_header(page, lay)
        for slot, seat in enumerate(seats[first : first + per_page]):
            _cut_out(page, lay, seat, left + (slot % columns) * cell_w, top + (slot // columns) * cell_h, dictionary)
        pages.append(page)
    return pages
