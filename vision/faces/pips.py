"""The classical pip counter: find the pips on the die's top face with OpenCV and count them.

Independent of the CNN (no learned weights): the crop is scaled so the die spans a fixed size, the die's
body colour is taken from its centre, the die is the region nearer that colour than the table's, and
pips are compact spots on it that differ from the body (darker, lighter or of another hue), of a size
and roundness a pip has on a die of that size. A count is accepted only when the spots are alike, centred,
laid out as that face is (2 and 3 on a diagonal, 4 and 5 on a square, 6 in two rows of three) and the
empty places of the face's 3x3 grid hold no spot; the three contrast maps and four thresholds must not
give a rival count. When the whole die gives no clear face (a slanted view shows side faces too), its
brightest face is tried alone. Where neither gives a count, the pips are centred on the die's colour region
inside the finder's box (a like-coloured table or neighbour in the crop's margin pulls the whole region's
centre off the die), and a count so found must be strong.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.faces.crops import CROP_MARGIN
from vision.types import FaceGuess, Frame

METHOD = "pips"
WORK = 128  # the crop is scaled to WORK x WORK pixels
SIDE = WORK / (1 + 2 * CROP_MARGIN)  # the die's side in the scaled crop
Floats = npt.NDArray[np.floating[Any]]  # float64 points, float32 maps

# Pip centres of each face on a unit grid (-1, 0, 1): what the layout check compares against.
LAYOUTS: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


@functools.cache
def _pairs(n: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The index pairs (i < j) of n points, in itertools.combinations order."""
    pairs = np.array(list(itertools.combinations(range(n), 2)), np.intp).reshape(-1, 2)
    return pairs[:, 0], pairs[:, 1]


def _distances(points: Floats) -> Floats:
    """Every pairwise distance of the points, in itertools.combinations order."""
    first, second = _pairs(len(points))
    gaps = points[first] - points[second]
    out: Floats = np.hypot(gaps[:, 0], gaps[:, 1])
    return out


def _profile(points: Floats, distances: Floats | None = None) -> Floats:
    """Sorted pairwise distances divided by the largest: a shape signature blind to rotation and scale."""
    d = _distances(points) if distances is None else distances
    out: Floats = np.sort(d) / d.max()
    return out


def percentile(values: Floats, q: float) -> float:
    """np.percentile(values, q) of a 1-D float array, the same float (linear interpolation, computed in the
    values' own precision as numpy does), for a third of the time: one partition and no array machinery."""
    n = values.size
    index = (n - 1) * (q / 100)
    lo = math.floor(index)
    hi = min(lo + 1, n - 1)
    gamma = index - lo
    ordered = np.partition(values, (lo, hi))
    a, b = ordered[lo], ordered[hi]
    step = b - a
    # numpy's lerp: from the nearer end, so that gamma 0 and 1 give the ends exactly
    return float(b - step * (1 - gamma)) if gamma >= 0.5 else float(a + step * gamma)


def median(values: Floats) -> float:
    """np.median(values) of a 1-D float array, the same float (for an even count the mean of the middle two,
    computed in the values' own precision as numpy does), for a fraction of the time: one partition."""
    middle = values.size // 2
    if values.size % 2:
        return float(np.partition(values, middle)[middle])
    return float(np.partition(values, (middle - 1, middle))[middle - 1 : middle + 1].mean())


def _median(values: Sequence[float]) -> float:
    """The median as numpy gives it (the mean of the middle two for an even count), without numpy's overhead."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


PROFILES = {n: _profile(np.array(p, float)) for n, p in LAYOUTS.items() if n > 1}
# The largest distance between pips of a face, in box sides: from tight pips in a loose box to wide ones.
SPAN_MIN, SPAN_MAX = 0.28, 0.85


@dataclass(frozen=True, slots=True)
class Blob:
    """A pip candidate: centre, area and roundness, in scaled-crop pixels."""

    x: float
    y: float
    area: float
    roundness: float  # minor/major axis of the fitted ellipse, 1 for a circle
    # second moments of the spot (xx, xy, yy), in scaled-crop pixels squared: its shape and which way it is squashed
    moments: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class PipCount:
    """What the counter saw on one binarisation: the pips kept and how well they fit the face's layout."""

    pips: tuple[Blob, ...]
    fit: float  # 0 (poor) .. 1 (exact layout)
    source: str

    @property
    def face(self) -> int:
        """The number of pips."""
        return len(self.pips)


def _scaled(crop: Frame) -> Frame:
    """The crop scaled to WORK x WORK and lightly smoothed."""
    interp = cv2.INTER_AREA if min(crop.shape[:2]) > WORK else cv2.INTER_CUBIC
    img = cv2.resize(crop, (WORK, WORK), interpolation=interp)
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 1.0), np.uint8)


@functools.cache
def _disc_steps(k: int) -> tuple[tuple[int, int], ...]:
    """OpenCV's k x k ellipse kernel as nested rectangles (half-width, half-height), widest last; their union
    is the kernel, checked here (the ellipse is symmetric about its centre for every k the counter uses)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    c = k // 2
    tallest: dict[int, int] = {}
    for dy in range(k):
        xs = np.nonzero(kernel[dy])[0]
        if xs.size:
            if int(xs.min()) + int(xs.max()) != 2 * c:
                raise ValueError(f"el núcleo elíptico de {k} px no es simétrico")
            half = c - int(xs.min())
            tallest[half] = max(tallest.get(half, 0), abs(dy - c))
    steps = tuple(
        (h, v) for h, v in sorted(tallest.items()) if not any(h2 > h and v2 >= v for h2, v2 in tallest.items())
    )
    union = np.zeros_like(kernel)
    for h, v in steps:
        union[c - v : c + v + 1, c - h : c + h + 1] = 1
    if not np.array_equal(union, kernel):
        raise ValueError(f"el núcleo elíptico de {k} px no es una unión de rectángulos centrados")
    return steps


@functools.cache
def _rect(width: int, height: int) -> npt.NDArray[np.uint8]:
    """A width x height rectangle as a structuring element: a row or column segment, or a square window."""
    return np.ones((height, width), np.uint8)


def disc_dilate(img: npt.NDArray[np.uint8], k: int) -> npt.NDArray[np.uint8]:
    """cv2.dilate with the k x k ellipse kernel, bit for bit, several times faster: the ellipse is a union of
    centred rectangles, each a row then a column segment, and a dilation by a longer segment is one by a
    shorter segment after the difference, so the rectangles share their passes (nested, Horner-like)."""
    steps = _disc_steps(k)
    grown: npt.NDArray[np.uint8] = img  # the image dilated by the current step's row segment
    out: npt.NDArray[np.uint8] | None = None
    last_h, last_v = 0, 0
    for h, v in steps:
        if h > last_h:
            grown = np.asarray(cv2.dilate(grown, _rect(2 * (h - last_h) + 1, 1)), np.uint8)
        if out is None:
            out = grown.copy()
        else:
            if last_v > v:  # the earlier rectangles are taller: grow them by the difference first
                out = np.asarray(cv2.dilate(out, _rect(1, 2 * (last_v - v) + 1)), np.uint8)
            np.maximum(out, grown, out=out)
        last_h, last_v = h, v
    assert out is not None
    return np.asarray(cv2.dilate(out, _rect(1, 2 * last_v + 1))) if last_v else out


def disc_erode(img: npt.NDArray[np.uint8], k: int) -> npt.NDArray[np.uint8]:
    """cv2.erode with the k x k ellipse kernel, bit for bit (the dilation of the complement, complemented)."""
    return np.asarray(255 - disc_dilate(255 - img, k), np.uint8)


def _face_mask(channels: Sequence[Floats], body: Floats) -> npt.NDArray[np.uint8]:
    """The top face: pixels nearer the body's colour than the table's, connected to the centre, as a hull.

    `channels`: the crop's L, a and b planes. Lab values and their medians are multiples of 1/2, so these
    squared distances are exact in float32 whatever the order of the sums."""
    lum, a, b = channels
    border = np.concatenate(
        [np.concatenate([c[:4].ravel(), c[-4:].ravel(), c[:, :4].ravel(), c[:, -4:].ravel()]) for c in channels]
    ).reshape(3, -1)
    table = np.array([median(channel) for channel in border], np.float32)

    def distance(to: Floats) -> Floats:  # squared; hue counts twice as much as lightness
        dl, da, db = lum - to[0], a - to[1], b - to[2]
        out: Floats = dl * dl + 2 * (da * da + db * db)
        return out

    near = (distance(body) < distance(table)).astype(np.uint8)
    k = max(3, int(SIDE * 0.28)) | 1
    near = disc_erode(disc_dilate(near, k), k)  # a closing: pips and gaps between them join the face
    _, labels, _, _ = cv2.connectedComponentsWithStats(near, connectivity=4)
    c0, c1 = int(WORK * 0.3), int(WORK * 0.7)
    mid = labels[c0:c1, c0:c1].ravel()
    mid = mid[mid > 0]
    mask = np.zeros((WORK, WORK), np.uint8)
    if mid.size == 0:
        return mask
    label = int(np.bincount(mid).argmax())
    # the hull of the region's outline is the hull of all its pixels, from far fewer points
    outline, _ = cv2.findContours((labels == label).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(np.concatenate(outline))
    cv2.fillConvexPoly(mask, hull, 1)
    return mask


MapSet = list[tuple[str, Floats, Floats]]


def _contrast_maps(img: Frame) -> tuple[MapSet, npt.NDArray[np.uint8], Floats]:
    """(name, spot response, difference from the body) for dark, light, coloured pips; die mask; luminance."""
    planes = cv2.split(cv2.cvtColor(img, cv2.COLOR_BGR2LAB))
    channels = [c.astype(np.float32) for c in planes]
    lum, a, b = channels
    c0, c1 = int(WORK * 0.3), int(WORK * 0.7)
    body = np.array([median(c[c0:c1, c0:c1].ravel()) for c in channels], np.float32)
    mask = _face_mask(channels, body)
    k = max(3, int(SIDE * 0.42)) | 1
    da, db = a - body[1], b - body[2]
    chroma = np.sqrt(da * da + db * db)
    # morphology on 8-bit images (several times faster than on floats), the three maps as one image's
    # channels: dark pips by a closing of L, light ones by an opening of L, coloured ones by an opening of
    # the chroma; an erosion is the dilation of the complement, so both passes are dilations.
    lum8 = planes[0]
    chroma8 = np.clip(chroma, 0, 255).astype(np.uint8)
    # first pass: L dilated, L and chroma eroded (complemented); second: L closed (complemented), both opened
    first = disc_dilate(np.asarray(cv2.merge([lum8, 255 - lum8, 255 - chroma8]), np.uint8), k)
    second = disc_dilate(255 - first, k)
    closed, opened, opened_chroma = cv2.split(second)
    darker = body[0] - lum
    maps = [
        ("oscuros", ((255 - closed) - lum8).astype(np.float32), darker),  # black-hat: closing minus L
        ("claros", (lum8 - opened).astype(np.float32), -darker),  # top-hat: L minus its opening
        ("color", (chroma8 - opened_chroma).astype(np.float32), chroma),
    ]
    return maps, mask, lum


def _bright_face(lum: Floats, inside: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_] | None:
    """The die's brighter part when its faces are shaded apart (None when they are not): the face up.

    Seen at a slant, a die shows a side or two besides its top, each lit differently; with light from
    above, the top is the brightest. Pips are wiped out (closing, then opening) before splitting.
    """
    k = max(3, int(SIDE * 0.3)) | 1
    lum8 = np.clip(lum, 0, 255).astype(np.uint8)
    # a closing (dilate, erode) then an opening (erode, dilate)
    shading = disc_dilate(disc_erode(disc_erode(disc_dilate(lum8, k), k), k), k)
    shading = shading.astype(np.float64)
    values = shading[inside]
    if values.size < 50:
        return None
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1.0:
        return None
    scaled = ((shading - lo) / (hi - lo) * 255).clip(0, 255).astype(np.uint8)
    level, _ = cv2.threshold(scaled[inside], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = (scaled > level) & inside
    dark = inside & ~bright
    if bright.sum() < (SIDE * 0.35) ** 2 or dark.sum() < (SIDE * 0.2) ** 2:
        return None
    if float(shading[bright].mean() - shading[dark].mean()) < 12.0:
        return None
    _, labels, stats, _ = cv2.connectedComponentsWithStats(bright.astype(np.uint8), connectivity=4)
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    top = labels == biggest
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    return np.asarray(cv2.dilate(top.astype(np.uint8), grow).astype(bool) & inside)


MIN_BODY_CONTRAST = 15.0  # a pip differs from the die's body colour at least this much (Lab units)


def _blobs(binary: npt.NDArray[np.uint8], mask: npt.NDArray[np.uint8], versus_body: Floats) -> list[Blob]:
    """Connected spots of a pip's size and roundness, on the die, that differ from the die's body colour."""
    out = []
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = math.pi * (SIDE * 0.035) ** 2
    max_area = math.pi * (SIDE * 0.17) ** 2
    for contour in contours:
        if len(contour) < 5:  # a speck: no ellipse fits it (and no pip is so small)
            continue
        area = float(cv2.contourArea(contour))
        if not min_area <= area <= max_area:
            continue
        perimeter = cv2.arcLength(contour, True)
        if 4 * math.pi * area / max(perimeter**2, 1e-6) < 0.5:  # not circular enough: no ellipse needed
            continue
        (x, y), (a, b), _ = cv2.fitEllipse(contour)
        roundness = min(a, b) / max(a, b, 1e-6)
        if roundness < 0.4:
            continue
        if not (0 <= int(y) < WORK and 0 <= int(x) < WORK) or not mask[int(y), int(x)]:
            continue
        if versus_body[int(y), int(x)] < MIN_BODY_CONTRAST:  # a gap between pips is no pip
            continue
        m = cv2.moments(contour)
        second = (m["mu20"] / m["m00"], m["mu11"] / m["m00"], m["mu02"] / m["m00"]) if m["m00"] > 0 else (0.0, 0.0, 0.0)
        out.append(Blob(float(x), float(y), area, roundness, second))
    return out


def _band(value: float, good: float, fade: float) -> float:
    """1 up to `good`, falling linearly to 0 at `good + fade`."""
    return max(0.0, min(1.0, 1.0 - (value - good) / fade))


def layout_fit(pips: Sequence[Blob], centre: tuple[float, float] = (WORK / 2, WORK / 2)) -> float:
    """How well spots sit as a die face of their count around `centre`: 1 exact, 0 not that face at all."""
    n = len(pips)
    if not 1 <= n <= 6:
        return 0.0
    points = np.array([(p.x, p.y) for p in pips])
    off_centre = float(np.hypot(*(points.mean(axis=0) - centre))) / SIDE
    centring = _band(off_centre, 0.15, 0.2)
    areas = np.array([p.area for p in pips])
    if n == 1:
        size = math.sqrt(areas[0] / math.pi) * 2 / SIDE
        return centring * (1.0 if size >= 0.1 else 0.5)
    likeness = _band(float(areas.max() / areas.min()), 2.2, 1.8)
    distances = _distances(points)
    profile = _profile(points, distances)
    shape = _band(float(np.abs(profile - PROFILES[n]).mean()), 0.05, 0.1)
    span = float(distances.max()) / SIDE
    spread = _band(max(SPAN_MIN - span, span - SPAN_MAX, 0.0), 0.0, 0.1)
    return centring * likeness * shape * spread


def face_squash(pips: Sequence[Blob], scale: tuple[float, float] = (1.0, 1.0)) -> float:
    """How square a face's pips look, 0-1: 1 when seen square-on; cos(angle) for a face turned by that angle
    from the view (a cocked die seen from above). `scale`: crop pixels per scaled-crop pixel in x and y (the
    crop is stretched to WORK x WORK). The lesser of two measures: the pips' shapes pooled (round pips look
    alike squashed one way) and, for 4-6 pips, the smallest rectangle round their centres (a square)."""
    sx, sy = scale
    pooled = np.zeros((2, 2))
    for pip in pips:
        xx, xy, yy = pip.moments
        shape = np.array([[sx * sx * xx, sx * sy * xy], [sx * sy * xy, sy * sy * yy]])
        if np.trace(shape) > 0:
            pooled += shape / np.trace(shape)
    small, large = np.linalg.eigvalsh(pooled)
    squash = math.sqrt(max(float(small), 0.0) / float(large)) if large > 0 else 1.0
    if len(pips) >= 4:
        centres = np.array([(p.x * sx, p.y * sy) for p in pips], np.float32)
        _, (a, b), _ = cv2.minAreaRect(centres)
        squash = min(squash, min(a, b) / max(a, b, 1e-6))
    return squash


def _rot(d: Floats) -> Floats:
    """`d` turned a quarter turn."""
    return np.array([-d[1], d[0]])


def _grid_axes(points: Floats, n: int) -> tuple[Floats, Floats, Floats]:
    """Centre and the two half-steps (u, v) of the face's 3x3 pip grid implied by `n` pips."""
    centre = points.mean(axis=0)
    if n == 6:
        # the two pips nearest the centre are the middle row: they span the columns
        near = np.argsort(np.hypot(*(points - centre).T))[:2]
        u = (points[near[0]] - points[near[1]]) / 2
        return centre, u, _rot(u)
    if n in (2, 3):
        pairs = list(itertools.combinations(range(n), 2))
        a, b = max(pairs, key=lambda ij: float(np.hypot(*(points[ij[0]] - points[ij[1]]))))
        d = (points[a] - points[b]) / 2
    else:  # 4 and 5: any corner
        far = int(np.argmax(np.hypot(*(points - centre).T)))
        d = points[far] - centre
    return centre, (d + _rot(d)) / 2, (d - _rot(d)) / 2


class Peaks:
    """A contrast map's strongest response near any point: the map dilated once for each window size asked for,
    then looked up (cv2.dilate leaves out what lies off the crop, as a window clipped to the crop does)."""

    def __init__(self, response: Floats) -> None:
        self.response = response
        self._grown: dict[int, Floats] = {}

    def at(self, x: float, y: float, radius: float) -> float:
        """The strongest response in the square of half-side `radius` (at least 1 px) round (x, y); 0 off the crop."""
        r = max(1, round(radius))
        xi, yi = round(x), round(y)
        if not (0 <= xi < WORK and 0 <= yi < WORK):
            return 0.0
        grown = self._grown.get(r)
        if grown is None:
            grown = self._grown[r] = np.asarray(cv2.dilate(self.response, _rect(2 * r + 1, 2 * r + 1)))
        return float(grown[yi, xi])


_GRID = np.array(list(itertools.product((-1, 0, 1), repeat=2)), float)  # (i, j) of the 3x3 places
# which of those places each face's layout uses
_WANTED = {n: np.array([(i, j) in set(LAYOUTS[n]) for i, j in _GRID]) for n in LAYOUTS}


def grid_fit(pips: Sequence[Blob], response: Peaks) -> float:
    """Check the face's 3x3 grid: its pips sit where the layout puts them and the empty places hold no pip."""
    n = len(pips)
    if not 1 <= n <= 6:
        return 0.0
    points = np.array([(p.x, p.y) for p in pips])
    radius = _median([math.sqrt(p.area / math.pi) for p in pips])
    on = _median([response.at(p.x, p.y, radius * 0.5) for p in pips])
    if on <= 0:
        return 0.0
    if n == 1:
        # no other spot on a ring around a lone pip, at any plausible pip spacing
        worst = 0.0
        for step in (0.2, 0.25, 0.3):
            g = max(step * SIDE, 2.2 * radius)
            for i, j in itertools.product((-1, 0, 1), repeat=2):
                if i or j:
                    worst = max(worst, response.at(pips[0].x + i * g, pips[0].y + j * g, radius * 0.5))
        return _band(worst / on, 0.35, 0.3)
    centre, u, v = _grid_axes(points, n)
    step = float(np.hypot(*u))
    if step < radius * 1.2:
        return 0.0
    wanted = _WANTED[n]
    places = centre + _GRID[:, :1] * u + _GRID[:, 1:] * v  # the 3x3 places, in _GRID's order
    taken = places[wanted]
    gaps = points[:, None, :] - taken[None, :, :]
    misplaced = float(np.hypot(gaps[..., 0], gaps[..., 1]).min(axis=1).max()) / step
    worst = max(response.at(float(x), float(y), radius * 0.5) for x, y in places[~wanted])
    placed = _band(misplaced, 0.3, 0.3)
    empty = _band(worst / on, 0.4, 0.3)
    return placed * empty


LEVELS = (96, 128, 168)  # fixed thresholds of a contrast map scaled to 0-255, beside its Otsu level
REGIONS = ("dado", "cara clara")  # the whole die first; its brighter face when the whole die gives no face
TOP_REGION = "cara de arriba"  # last, where the reader says where the top face is (seen from above)
TopShare = tuple[float, float, float, float]  # a box as shares of the crop's width and height: x1, y1, x2, y2
TopShares = Sequence[TopShare | None]  # one per crop; None where the top face is not to be counted alone


class _Prepared:
    """One crop made ready to count: contrast maps and die mask now, spots and regions when first asked."""

    def __init__(self, crop: Frame) -> None:
        self.maps, self.mask, self.lum = _contrast_maps(_scaled(crop))
        k = max(3, int(SIDE * 0.06)) | 1
        self.inside = cv2.erode(self.mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))).astype(bool)
        self.usable = bool(self.mask.sum() >= (SIDE * 0.4) ** 2)
        self._spots: list[tuple[str, int, list[Blob], Peaks]] | None = None
        self._regions: dict[tuple[str, TopShare | None], npt.NDArray[np.bool_] | None] = {}
        self._grids: dict[tuple[str, int], float] = {}  # grid_fit by region and binarisation: blind to the centre

    def spots(self) -> list[tuple[str, int, list[Blob], Peaks]]:
        """(map name, level, spots, the map's response) of every binarisation: three contrast maps, four levels."""
        if self._spots is None:
            self._spots = []
            for name, full, versus_body in self.maps:
                response = np.where(self.inside, full, 0.0)
                top = percentile(response[self.inside], 99.5)
                if top < 12.0:  # no spot stands out from the body enough to be a pip
                    continue
                peaks = Peaks(response)
                scaled = np.clip(response / top * 255, 0, 255).astype(np.uint8)
                otsu, _ = cv2.threshold(scaled[self.inside], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
                for level in sorted({int(otsu), *LEVELS}):
                    binary = ((scaled > level) & self.inside).astype(np.uint8)
                    self._spots.append((name, level, _blobs(binary, self.mask, versus_body), peaks))
        return self._spots

    def region(self, region_name: str, top: TopShare | None = None) -> npt.NDArray[np.bool_] | None:
        """The pixels of one region (REGIONS, or TOP_REGION within the box `top`); None where it has none."""
        key = (region_name, top)
        if key not in self._regions:
            if region_name == REGIONS[0]:
                region: npt.NDArray[np.bool_] | None = self.inside
            elif region_name == TOP_REGION:
                region = _top_region(self.inside, top) if top is not None else None
            else:
                region = _bright_face(self.lum, self.inside)
            self._regions[key] = region
        return self._regions[key]

    def tier(self, region_name: str, top: TopShare | None = None, boxed: bool = False) -> list[PipCount]:
        """Every binarisation's reading of one region (REGIONS, or TOP_REGION within the box `top`), best fit
        first; empty if it has none. The pips centre on the region's centroid, or with `boxed` on the centroid of
        its part inside the finder's box."""
        region = self.region(region_name, top)
        if not self.usable or region is None:
            return []
        centre = _centroid(_in_box(region) if boxed else region)
        out = []
        for index, (name, level, pips, response) in enumerate(self.spots()):
            mine = [p for p in pips if region[int(p.y), int(p.x)]]
            fit = layout_fit(mine, centre)
            if fit > 0:  # the grid check only where the layout fits
                key = (region_name, index)
                if key not in self._grids:
                    self._grids[key] = grid_fit(mine, response)
                fit *= self._grids[key]
            out.append(PipCount(tuple(mine), fit, f"{region_name}:{name}>{level}"))
        out.sort(key=lambda c: -c.fit)
        return out


_BOX = slice(round((WORK - SIDE) / 2), round((WORK + SIDE) / 2))  # the finder's box within the scaled crop


def _in_box(region: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The region's part inside the finder's box; all of it where none is."""
    inner = np.zeros_like(region)
    inner[_BOX, _BOX] = region[_BOX, _BOX]
    return inner if inner.any() else region


def _centroid(region: npt.NDArray[np.bool_]) -> tuple[float, float]:
    """The centre (x, y) of a region's pixels."""
    ys, xs = np.nonzero(region)
    return float(xs.mean()), float(ys.mean())


def _top_crop(crop: Frame, top: TopShare) -> tuple[Frame, tuple[int, int], TopShare]:
    """The top face's box (shares of `crop`) with the readers' margin, cut from the crop: (sub-crop, its origin in
    the crop, the top face's box as shares of the sub-crop)."""
    height, width = crop.shape[:2]
    x1, y1, x2, y2 = top[0] * width, top[1] * height, top[2] * width, top[3] * height
    mx, my = (x2 - x1) * CROP_MARGIN, (y2 - y1) * CROP_MARGIN
    sx1, sy1 = max(0, math.floor(x1 - mx)), max(0, math.floor(y1 - my))
    sx2, sy2 = min(width, max(sx1 + 1, math.ceil(x2 + mx))), min(height, max(sy1 + 1, math.ceil(y2 + my)))
    w, h = sx2 - sx1, sy2 - sy1
    return crop[sy1:sy2, sx1:sx2], (sx1, sy1), ((x1 - sx1) / w, (y1 - sy1) / h, (x2 - sx1) / w, (y2 - sy1) / h)


def _top_region(inside: npt.NDArray[np.bool_], top: TopShare) -> npt.NDArray[np.bool_] | None:
    """The die's mask within the top face's box (shares of the crop); None when too little of it is left."""
    x1, y1, x2, y2 = (min(WORK, max(0, round(v * WORK))) for v in top)
    region = np.zeros_like(inside)
    region[y1:y2, x1:x2] = inside[y1:y2, x1:x2]
    return region if region.sum() >= (SIDE * 0.3) ** 2 else None


log = logging.getLogger(__name__)
# On training crops (real and rendered alike) counts under 0.3 were wrong one time in three, 0.3-0.4 one in
# four, over 0.6 3 %: too weak under 0.4 to confirm the model's face, so none is given (models/faces).
MIN_CONFIDENCE = 0.4
# The top face alone is counted on the premise that the die lies flat under a camera looking down, so that
# its top face looks square: one that looks more squashed than this may be a cocked die's. On 600 rendered tables
# the cocked dice 0.90 let through measured 0.903-0.958: the lowest level letting none through, 0.96, plus a step
# of margin (docs/experiments/2026-11-23-top-face-counted-alone.md).
MIN_TOP_SQUASH = 0.97
# A die's colour region spills past the die onto a like-coloured table or neighbour, pulling its centroid off the
# pips; centring them on its part inside the finder's box rescues such dice, but also counted two cocked dice
# leaning on a die of their colour on rendered tables (0.56 and 0.43), which only the spill had kept out. So a
# rescued count must be strong: over 0.6 (docs/experiments/2026-11-26-pip-counter-on-real-dice.md).
MIN_BOXED_CONFIDENCE = 0.6
PROCESS_MIN = 6  # with fewer crops than this, a process pool costs more than it saves


def _count_chunk(
    settings: tuple[float, float, float, float], crops: list[Frame], tops: list[TopShare | None]
) -> list[FaceGuess]:
    """Count a share of the crops in a worker process (the counter is pure Python and OpenCV: no state)."""
    counter = PipCounter(*settings, workers=1)
    return [counter.read(crop, top) for crop, top in zip(crops, tops, strict=True)]


_PROCESS_POOLS: dict[int, ProcessPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _leave_with(owner: int) -> None:
    """In a worker: exit as soon as the process that started the pool is gone (even killed with SIGKILL); and
    count on one core, as the processes are the parallelism (OpenCV's own threads only got in their way)."""
    cv2.setNumThreads(1)

    def watch() -> None:
        while True:
            try:
                os.kill(owner, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # alive, owned by someone else
                pass
            time.sleep(1.0)

    threading.Thread(target=watch, name="pips-owner", daemon=True).start()


def _process_pool(workers: int) -> ProcessPoolExecutor:
    """The shared pool of `workers` counting processes, started on first use (forkserver: safe beside threads)."""
    with _POOLS_LOCK:
        pool = _PROCESS_POOLS.get(workers)
        if pool is None:
            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            context = multiprocessing.get_context(method)
            pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_leave_with, initargs=(os.getpid(),))
            _PROCESS_POOLS[workers] = pool
        return pool


def _drop_pool(workers: int) -> None:
    with _POOLS_LOCK:
        pool = _PROCESS_POOLS.pop(workers, None)
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


class PipCounter:
    """Counts pips with OpenCV; says None when the spots found do not make a clear face."""

    def __init__(
        self,
        min_fit: float = 0.35,
        min_confidence_one: float = 0.4,
        min_confidence: float = MIN_CONFIDENCE,
        min_top_squash: float = MIN_TOP_SQUASH,
        workers: int | None = None,
        processes: bool = False,
    ) -> None:
        """The least layout fit to give a count, the least confidence to call a lone pip a 1 and any face, the
        least squash of a top face counted alone, how many crops are counted at once (default: one per core),
        and whether on processes (the counter is mostly Python, which threads run one at a time) or on threads.
        Processes are for programs started from a guarded entry point (the `cacho` commands, the kiosk): a
        worker process imports the main module again."""
        # A faint second pip missed turns a 2 into a 1: the error most likely to fool both readers alike.
        self.min_fit = min_fit
        self.min_confidence_one = min_confidence_one
        self.min_confidence = min_confidence
        self.min_top_squash = min_top_squash
        self.workers = workers or os.cpu_count() or 1
        self.processes = processes
        self._pool: ThreadPoolExecutor | None = None

    def read(self, crop: Frame, top: TopShare | None = None) -> FaceGuess:
        """The face by counting pips, or None with low confidence when the evidence is poor or contradictory;
        `top`: where the top face is in the crop (a box as shares of it), when the reader knows."""
        prepared = _Prepared(crop)
        guess = self._count(prepared, crop.shape[:2])
        if guess.face is None:
            rescued = self._count(prepared, crop.shape[:2], boxed=True)
            if rescued.confidence >= MIN_BOXED_CONFIDENCE:
                guess = rescued
        if guess.face is not None or top is None:
            return guess
        # last, where they give no count, the top face alone: its box (the sides the reader cut off) with a
        # margin, as a crop of its own, so that the face fills it as a die seen square-on fills its crop
        sub, (x0, y0), sub_top = _top_crop(crop, top)
        tier = _Prepared(sub).tier(TOP_REGION, sub_top)
        if not any(c.fit >= self.min_fit for c in tier):
            return FaceGuess(None, 0.0, METHOD)
        guess = self._decide(tier, sub.shape[:2])
        if guess.centre is None or guess.squash is None or guess.squash < self.min_top_squash:
            return FaceGuess(None, 0.0, METHOD)
        height, width = crop.shape[:2]
        sub_h, sub_w = sub.shape[:2]
        centre = ((x0 + guess.centre[0] * sub_w) / width, (y0 + guess.centre[1] * sub_h) / height)
        return FaceGuess(guess.face, guess.confidence, METHOD, centre, guess.squash)

    def _count(self, prepared: _Prepared, shape: tuple[int, ...], boxed: bool = False) -> FaceGuess:
        """The whole die's count; its brighter face's only where the whole die shows no clear face (a slanted
        view). `boxed`: see `_Prepared.tier`."""
        for region in REGIONS:
            tier = prepared.tier(region, boxed=boxed)
            if any(c.fit >= self.min_fit for c in tier):
                return self._decide(tier, shape)
        return FaceGuess(None, 0.0, METHOD)

    def _decide(self, tier: list[PipCount], shape: tuple[int, ...]) -> FaceGuess:
        """The count of one region's readings (best first, one at least fitting): a face, or None when a rival
        count fits nearly as well or the confidence is too low. Centre in shares of the crop of `shape`."""
        good = [c for c in tier if c.fit >= self.min_fit]
        best = good[0]
        if any(c.face != best.face and c.fit >= best.fit * 0.8 for c in good):
            return FaceGuess(None, 0.0, METHOD)
        agree = sum(1 for c in good if c.face == best.face) / len(tier)
        confidence = round(min(1.0, best.fit * (0.5 + 0.5 * agree)), 4)
        if confidence < self.min_confidence or (best.face == 1 and confidence < self.min_confidence_one):
            return FaceGuess(None, 0.0, METHOD)
        centre = (float(np.mean([p.x for p in best.pips])) / WORK, float(np.mean([p.y for p in best.pips])) / WORK)
        height, width = shape[:2]
        scale = (width / WORK, height / WORK)
        squash = round(face_squash(best.pips, scale), 4)
        return FaceGuess(best.face, confidence, METHOD, centre, squash)

    def read_faces(self, crops: Sequence[Frame], tops: TopShares | None = None) -> list[FaceGuess]:
        """One guess per crop, counted in parallel: the same guesses as one at a time (`tops`: see `read`)."""
        boxes: list[TopShare | None] = list(tops) if tops is not None else [None] * len(crops)
        if len(boxes) != len(crops):
            raise ValueError(f"{len(crops)} recortes y {len(boxes)} caras de arriba")
        if len(crops) < 2 or self.workers < 2:
            return [self.read(crop, top) for crop, top in zip(crops, boxes, strict=True)]
        if self.processes and len(crops) >= PROCESS_MIN:
            try:
                return self._read_on_processes(crops, boxes)
            except (BrokenProcessPool, OSError) as error:  # a worker died or none could start: go on with threads
                log.warning("contador de puntos sin procesos (%s): sigo con hilos", error)
                _drop_pool(self.workers - 1)
                self.processes = False
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="pips")
        return list(self._pool.map(self.read, crops, boxes))

    def _read_on_processes(self, crops: Sequence[Frame], tops: list[TopShare | None]) -> list[FaceGuess]:
        """Deal the crops round-robin to the worker processes and to this one, which counts its share itself."""
        n = self.workers
        shares = [(list(crops[i::n]), tops[i::n]) for i in range(n)]
        pool = _process_pool(n - 1)
        settings = (self.min_fit, self.min_confidence_one, self.min_confidence, self.min_top_squash)
        futures = [pool.submit(_count_chunk, settings, *share) for share in shares[1:]]
        counted = [_count_chunk(settings, *shares[0])] + [future.result() for future in futures]
        out: list[FaceGuess] = [FaceGuess(None, 0.0, METHOD)] * len(crops)
        for i, share in enumerate(counted):
            out[i::n] = share
        return out
