"""The face readers: pip counter on drawn dice, the committed CNN on real crops, the combine rule, crops."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.faces import evaluate
from vision.faces.classifier import ONNX_NAME, TORCH_NAME, FaceClassifier, preprocess
from vision.faces.crops import (
    CROP_MARGIN,
    UNREADABLE,
    Augment,
    DieSample,
    augment,
    crop_die,
    eval_crops,
    load_samples,
    photo_id,
    read_yolo_labels,
    rendered_distractors,
)
from vision.faces.pips import (
    LAYOUTS,
    MIN_TOP_SQUASH,
    WORK,
    Peaks,
    PipCounter,
    TopShare,
    TopShares,
    disc_dilate,
    disc_erode,
    median,
    percentile,
)
from vision.faces.reader import FaceReaderPair, combine
from vision.faces.train import choose_threshold, class_weights, pooled_real_threshold, strictest_threshold
from vision.types import Box, FaceGuess, FaceVerdict, Frame

FIXTURES = Path(__file__).parent / "fixtures" / "faces"
MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "faces"

# (die body, pips, table) in BGR: dark pips on light dice, light pips on dark, red and green dice
SCHEMES = {
    "blanco": ((235, 235, 235), (20, 20, 20), (60, 110, 40)),
    "marfil": ((190, 225, 240), (40, 30, 30), (40, 40, 120)),
    "rojo": ((40, 40, 200), (240, 240, 240), (60, 110, 40)),
    "negro": ((25, 25, 25), (235, 235, 235), (70, 120, 50)),
    "verde": ((60, 160, 40), (240, 240, 240), (150, 150, 150)),
    "azul_rojo": ((170, 90, 30), (40, 40, 220), (200, 200, 200)),
}


def draw_die(face: int, scheme: str, side: int = 60, angle: float = 0.0, seed: int = 0) -> Frame:
    """A die seen from above on a felt-coloured table, cropped with the readers' margin, turned by `angle`."""
    body, pip, table = SCHEMES[scheme]
    rng = np.random.default_rng(seed)
    size = round(side * (1 + 2 * CROP_MARGIN))
    canvas = 3 * size
    img = np.full((canvas, canvas, 3), table, np.uint8)
    c = canvas / 2
    half = side / 2
    corner = int(side * 0.12)
    x1, y1, x2, y2 = int(c - half), int(c - half), int(c + half), int(c + half)
    cv2.rectangle(img, (x1 + corner, y1), (x2 - corner, y2), body, -1)
    cv2.rectangle(img, (x1, y1 + corner), (x2, y2 - corner), body, -1)
    for cx, cy in ((x1 + corner, y1 + corner), (x2 - corner, y1 + corner), (x1 + corner, y2 - corner)):
        cv2.circle(img, (cx, cy), corner, body, -1)
    cv2.circle(img, (x2 - corner, y2 - corner), corner, body, -1)
    step = side * 0.26
    radius = max(2, round(side * (0.12 if face == 1 else 0.085)))
    for gx, gy in LAYOUTS[face]:
        cv2.circle(img, (round(c + gx * step), round(c + gy * step)), radius, pip, -1, cv2.LINE_AA)
    turn = cv2.getRotationMatrix2D((c, c), angle, 1.0)
    img = cv2.warpAffine(img, turn, (canvas, canvas), borderValue=table)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    noisy = img.astype(np.float32) + rng.normal(0, 3, img.shape)
    img = np.clip(noisy, 0, 255).astype(np.uint8)
    box = Box(c - half, c - half, c + half, c + half)
    # the finder's box is axis-aligned around the turned die
    grow = half * (abs(math.cos(math.radians(angle))) + abs(math.sin(math.radians(angle)))) - half
    box = Box(box.x1 - grow, box.y1 - grow, box.x2 + grow, box.y2 + grow)
    return crop_die(img, box)


def draw_off_axis_die(face: int, scheme: str, side_pips: int, side: int = 80) -> tuple[Frame, TopShare]:
    """A die far off the axis of a camera looking down: its top face, and below it (toward the frame's centre)
    half a side of the side face with that face's pips squashed, a little darker; cropped round the whole
    die with the readers' margin. Returns the crop and the top face's box as shares of it."""
    body, pip, table = SCHEMES[scheme]
    canvas = 4 * side
    img = np.full((canvas, canvas, 3), table, np.uint8)
    c, half, strip = canvas / 2, side / 2, side / 2
    x1, y1, x2, y2 = int(c - half), int(c - half), int(c + half), int(c + half)
    cv2.rectangle(img, (x1, y2), (x2, int(y2 + strip)), tuple(int(v * 0.85) for v in body), -1)
    cv2.rectangle(img, (x1, y1), (x2, y2), body, -1)
    step, radius = side * 0.26, max(2, round(side * 0.085))
    for gx, gy in LAYOUTS[face]:
        cv2.circle(img, (round(c + gx * step), round(c + gy * step)), radius, pip, -1, cv2.LINE_AA)
    for gx, gy in LAYOUTS[side_pips]:
        centre = (round(c + gx * step), round(y2 + strip / 2 + gy * step / 2))
        cv2.ellipse(img, centre, (radius, max(1, radius // 2)), 0, 0, 360, pip, -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    box = Box(x1, y1, x2, y2 + strip)
    crop = crop_die(img, box)
    ox, oy = math.floor(box.x1 - box.width * CROP_MARGIN), math.floor(box.y1 - box.height * CROP_MARGIN)
    height, width = crop.shape[:2]
    return crop, ((x1 - ox) / width, (y1 - oy) / height, (x2 - ox) / width, (y2 - oy) / height)


# --- the pip counter, on drawn dice of every face and colour scheme -----------------------------------


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
@pytest.mark.parametrize("face", range(1, 7))
def test_pip_counter_reads_drawn_dice(face: int, scheme: str) -> None:
    counter = PipCounter()
    for side, angle in ((48, 0.0), (90, 30.0), (70, 60.0)):
        guess = counter.read(draw_die(face, scheme, side, angle, seed=face))
        assert (guess.face, guess.method) == (face, "pips"), (side, angle)
        assert 0.0 < guess.confidence <= 1.0
        assert guess.centre is not None  # a drawn die's face is centred in its crop
        assert abs(guess.centre[0] - 0.5) < 0.05 and abs(guess.centre[1] - 0.5) < 0.05, guess.centre


@pytest.mark.parametrize("face", range(1, 7))
def test_pip_counter_says_how_squashed_the_face_looks(face: int) -> None:
    """Square-on a face looks square, whatever the crop's shape; squashed to 3/4 (a face at 41 degrees) it
    looks so: the pips' shapes, and for 4-6 their rectangle, say it (pips.face_squash)."""
    counter = PipCounter()
    die = draw_die(face, "blanco", 80, 20.0, seed=face)
    height, width = die.shape[:2]
    squashed = cv2.resize(die, (width, round(height * 0.75)), interpolation=cv2.INTER_AREA)
    wider_crop = cv2.copyMakeBorder(die, 0, 0, 20, 20, cv2.BORDER_REPLICATE)  # stretched back to square inside
    square_on, slanted, padded = counter.read(die), counter.read(squashed), counter.read(wider_crop)
    assert square_on.face == slanted.face == padded.face == face
    assert square_on.squash is not None and square_on.squash > 0.95
    assert padded.squash is not None and padded.squash > 0.93
    assert slanted.squash is not None and 0.6 < slanted.squash < 0.8


def test_pip_counter_reads_the_top_face_alone_where_a_side_shows() -> None:
    """A side's pips spoil the whole die's layout; told where the top face is, the counter reads it alone."""
    counter = PipCounter()
    unread = 0
    for scheme in sorted(SCHEMES):
        for face in range(1, 7):
            for side_pips in (3, 5):
                crop, top = draw_off_axis_die(face, scheme, side_pips)
                whole, alone = counter.read(crop), counter.read(crop, top)
                assert alone.face == face, (scheme, face, side_pips, whole.face)
                assert whole.face in (face, None)
                unread += whole.face is None
                if whole.face is None:  # its centre is in shares of the whole crop: on the top face, up
                    assert alone.centre is not None and alone.centre[1] < 0.45
    assert unread >= 20  # of 60: the whole die alone gives no count


def test_pip_counter_trusts_a_top_face_counted_alone_only_where_it_looks_square() -> None:
    """A cocked die seen face-on shows a top face squashed by about the cosine of its tilt (0.925 at 22 degrees):
    counted alone, a top face that looks more squashed than MIN_TOP_SQUASH gives no count
    (docs/experiments/2026-11-23-top-face-counted-alone.md)."""
    strict, loose = PipCounter(), PipCounter(min_top_squash=0.9)
    assert MIN_TOP_SQUASH == strict.min_top_squash == 0.97
    for scheme in ("blanco", "negro", "rojo"):
        for face in (4, 5):  # faces the whole drawn die gives no count for, in every scheme
            crop, top = draw_off_axis_die(face, scheme, 5)
            height, width = crop.shape[:2]
            tilted = cv2.resize(crop, (width, round(height * 0.95)), interpolation=cv2.INTER_AREA)  # shares unchanged
            assert strict.read(crop).face is None and strict.read(tilted).face is None
            square, slanted = strict.read(crop, top), loose.read(tilted, top)
            assert square.face == face and square.squash is not None and square.squash >= 0.97, (scheme, face)
            assert slanted.face == face and slanted.squash is not None and slanted.squash < 0.97, (scheme, face)
            assert strict.read(tilted, top).face is None


def test_pip_counter_abstains_without_pips() -> None:
    counter = PipCounter()
    felt = np.full((80, 80, 3), (60, 110, 40), np.uint8)
    blank = draw_die(1, "blanco", 60)
    cv2.circle(blank, (blank.shape[1] // 2, blank.shape[0] // 2), 12, (235, 235, 235), -1)
    for crop in (felt, blank):
        guess = counter.read(crop)
        assert guess.face is None
        assert guess.confidence == 0.0


def test_pip_counter_abstains_on_seven_spots() -> None:
    crop = draw_die(6, "blanco", 80)
    c = crop.shape[0] // 2
    cv2.circle(crop, (c, c), 6, (20, 20, 20), -1)  # a seventh pip in the middle: no die face looks like that
    assert PipCounter().read(crop).face is None


@pytest.mark.parametrize("k", [3, 5, 27, 29, 41])
def test_disc_morphology_is_opencvs_ellipse_bit_for_bit(k: int) -> None:
    """The counter's fast dilation and erosion give exactly what cv2 gives with the ellipse kernel, on grey and
    3-channel images, edges included (so the counts are those the slower morphology gave)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    rng = np.random.default_rng(k)
    die = cv2.resize(draw_die(5, "rojo", 90), (128, 128))
    for img in (rng.integers(0, 256, (128, 128), np.uint8), rng.integers(0, 256, (61, 97, 3), np.uint8), die):
        np.testing.assert_array_equal(disc_dilate(img, k), cv2.dilate(img, kernel))
        np.testing.assert_array_equal(disc_erode(img, k), cv2.erode(img, kernel))


def test_percentile_is_numpys_to_the_last_bit() -> None:
    """The counter's percentile gives the float np.percentile gives (linear), for any length and precision."""
    import vision.faces.pips as pips_module

    rng = np.random.default_rng(7)
    for trial in range(600):
        n = int(rng.integers(1, 3000))
        values = rng.integers(0, 256, n) if trial % 2 else rng.normal(0, 100, n)
        for dtype in (np.float32, np.float64):
            for q in (0.0, 50.0, 99.5, 100.0, float(rng.uniform(0, 100))):
                x = values.astype(dtype)
                assert percentile(x, q) == float(np.percentile(x, q)), (n, dtype, q)
    for n in range(1, 8):  # and the median of a few pips' sizes, as np.median gives it
        sizes = [float(v) for v in rng.uniform(0, 20, n)]
        assert pips_module._median(sizes) == float(np.median(sizes))


def test_median_is_numpys_to_the_last_bit() -> None:
    """The counter's median of a map's pixels gives the float np.median gives, odd and even counts alike."""
    rng = np.random.default_rng(11)
    for trial in range(400):
        n = int(rng.integers(1, 3000))
        values = rng.integers(0, 256, n) / 2 if trial % 2 else rng.normal(0, 100, n)
        for dtype in (np.float32, np.float64):
            x = values.astype(dtype)
            assert median(x) == float(np.median(x)), (n, dtype)


def test_peaks_are_the_strongest_response_in_a_window_clipped_to_the_crop() -> None:
    """Peaks.at looks the response up dilated once per window; it gives what the window's own maximum gives,
    at the crop's edges too, and 0 off the crop."""
    rng = np.random.default_rng(5)
    response = rng.uniform(0, 80, (WORK, WORK)).astype(np.float32)
    peaks = Peaks(response)
    for _ in range(3000):
        x, y = rng.uniform(-3, WORK + 3, 2)
        radius = float(rng.uniform(0, 7))
        r, xi, yi = max(1, round(radius)), round(x), round(y)
        inside = 0 <= xi < WORK and 0 <= yi < WORK
        window = response[max(0, yi - r) : yi + r + 1, max(0, xi - r) : xi + r + 1]
        assert peaks.at(x, y, radius) == (float(window.max()) if inside else 0.0), (x, y, radius)


# --- the combine rule ----------------------------------------------------------------------------------


def cnn(face: int | None, confidence: float = 0.99) -> FaceGuess:
    return FaceGuess(face, confidence, "cnn")


def test_pip_counter_on_processes_reads_as_one_at_a_time() -> None:
    crops = [draw_die(f, c, 50, 15.0 * f, seed=f) for f in range(1, 7) for c in ("blanco", "rojo")]
    serial = [PipCounter(workers=1).read(crop) for crop in crops]
    assert PipCounter(workers=2, processes=True).read_faces(crops) == serial  # on a worker process and this one
    assert PipCounter(workers=3).read_faces(crops) == serial  # on threads (the default)
    off_axis = [draw_off_axis_die(f, "negro", 5) for f in range(1, 7)] * 2
    alone = [PipCounter(workers=1).read(crop, top) for crop, top in off_axis]
    crops, tops = [crop for crop, _ in off_axis], [top for _, top in off_axis]
    assert PipCounter(workers=2, processes=True).read_faces(crops, tops) == alone
    assert PipCounter(workers=3).read_faces(crops, tops) == alone
    assert [g.face for g in alone] == list(range(1, 7)) * 2
    assert [g.face for g in serial] == [face for face in range(1, 7) for _ in range(2)]


OWNER_SCRIPT = """
import os, sys, time
import numpy as np
from vision.faces import pips
if __name__ == "__main__":
    pips.PipCounter(workers=2, processes=True).read_faces([np.full((60, 60, 3), 200, np.uint8)] * 8)
    print(*pips._PROCESS_POOLS[1]._processes, flush=True)
    time.sleep(120)
"""


def test_counting_processes_leave_when_their_owner_is_killed(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "owner.py"
    script.write_text(OWNER_SCRIPT)
    root = Path(__file__).resolve().parents[2]
    owner = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(root)}
    )
    assert owner.stdout is not None
    with owner.stdout:
        workers = [int(pid) for pid in owner.stdout.readline().split()]
        owner.send_signal(signal.SIGKILL)  # the kiosk killed outright: no clean-up runs in it
        owner.wait()
    assert workers
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in workers):
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers), "a counting process outlived its owner"


def test_pip_counter_goes_on_with_threads_when_processes_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.faces.pips as pips_module

    def broken(workers: int) -> None:
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(pips_module, "_process_pool", broken)
    crops = [draw_die(face, "blanco", 50, seed=face) for face in range(1, 7)]
    counter = PipCounter(workers=2, processes=True)
    assert [g.face for g in counter.read_faces(crops)] == list(range(1, 7))
    assert counter.processes is False  # it stays on threads from then on


def pips(face: int | None, confidence: float = 0.9) -> FaceGuess:
    return FaceGuess(face, confidence, "pips")


def test_combine_accepts_when_both_agree_and_the_model_is_sure() -> None:
    verdict = combine(cnn(5), pips(5), threshold=0.9)
    assert verdict == FaceVerdict(5, 0.99, (), (cnn(5), pips(5)))


def test_combine_flags_disagreement_with_both_faces_in_the_reason() -> None:
    verdict = combine(cnn(5), pips(6), threshold=0.9)
    assert verdict.uncertain
    assert verdict.face == 5  # the classifier's face, flagged
    assert verdict.reasons == ("los dos lectores no coinciden (modelo 5, puntos 6)",)


def test_combine_flags_a_doubtful_model_even_when_the_pips_agree() -> None:
    verdict = combine(cnn(3, 0.6), pips(3), threshold=0.9)
    assert verdict.uncertain and verdict.face == 3
    assert verdict.reasons == ("el modelo duda (0,60 < 0,90)",)


def test_combine_flags_when_the_pips_cannot_be_counted() -> None:
    verdict = combine(cnn(2), pips(None, 0.0), threshold=0.9)
    assert verdict.uncertain and verdict.face == 2
    assert verdict.reasons == ("no se pudieron contar los puntos",)


def test_combine_when_the_model_sees_no_face() -> None:
    verdict = combine(cnn(None, 0.8), pips(4), threshold=0.9)
    assert verdict.uncertain and verdict.face == 4 and verdict.confidence == 0.0
    assert verdict.reasons == ("el modelo no ve una cara legible",)
    nothing = combine(cnn(None, 0.8), pips(None, 0.0), threshold=0.9)
    assert nothing.uncertain and nothing.face is None and len(nothing.reasons) == 2


class FixedReader:
    """A stand-in reader that always answers the same."""

    def __init__(self, guess: FaceGuess) -> None:
        self.guess = guess

    def read_faces(self, crops: Sequence[Frame], tops: TopShares | None = None) -> list[FaceGuess]:
        return [self.guess for _ in crops]


def test_pair_reads_each_crop_twice_and_hides_unsafe_faces() -> None:
    crop = draw_die(3, "rojo", 60)
    pair = FaceReaderPair(FixedReader(cnn(3)), FixedReader(pips(3)), threshold=0.9)
    assert pair.read(crop) == (cnn(3), pips(3))
    assert pair.read_faces([crop]) == [FaceGuess(3, 0.99, "cnn+pips")]
    split = FaceReaderPair(FixedReader(cnn(3)), FixedReader(pips(4)), threshold=0.9)
    assert split.read_faces([crop, crop]) == [FaceGuess(None, 0.99, "cnn+pips")] * 2
    assert split.verdicts([crop])[0].uncertain


class ListReader:
    """A stand-in reader answering from a list, one guess per crop, that keeps how many crops it was given."""

    def __init__(self, guesses: list[FaceGuess]) -> None:
        self.guesses = guesses
        self.given: list[int] = []

    def read_faces(self, crops: Sequence[Frame], tops: TopShares | None = None) -> list[FaceGuess]:
        self.given.append(len(crops))
        return self.guesses[: len(crops)]


def test_pair_counts_pips_only_where_the_model_is_sure_when_asked() -> None:
    """A pip count cannot make a die the model doubts safe: with count_doubtful=False it is not taken."""
    crops = [draw_die(f, "rojo", 60) for f in (3, 5, 2)]
    model = ListReader([cnn(3), cnn(5, 0.6), cnn(None, 0.9)])
    counter = ListReader([pips(3)])
    pair = FaceReaderPair(model, counter, threshold=0.9, count_doubtful=False)
    sure, doubtful, unreadable = pair.verdicts(crops)
    assert counter.given == [1]  # only the first crop was counted
    assert not sure.uncertain and sure.face == 3
    assert doubtful.uncertain and doubtful.face == 5 and doubtful.reasons == ("el modelo duda (0,60 < 0,90)",)
    assert unreadable.uncertain and unreadable.reasons == ("el modelo no ve una cara legible",)
    every = ListReader([pips(3), pips(4), pips(2)])
    FaceReaderPair(ListReader([cnn(3), cnn(5, 0.6), cnn(None, 0.9)]), every, threshold=0.9).verdicts(crops)
    assert every.given == [3]  # the default counts every crop


class TopsReader(ListReader):
    """A stand-in pip reader that also keeps the top-face boxes it was given."""

    def __init__(self, guesses: list[FaceGuess]) -> None:
        super().__init__(guesses)
        self.tops: list[TopShares | None] = []

    def read_faces(self, crops: Sequence[Frame], tops: TopShares | None = None) -> list[FaceGuess]:
        self.tops.append(tops)
        return super().read_faces(crops)


def test_pair_gives_the_pip_reader_the_top_faces_of_the_crops_it_counts() -> None:
    crops = [draw_die(f, "rojo", 60) for f in (3, 5, 2)]
    boxes: list[TopShare | None] = [(0.1, 0.1, 0.9, 0.8), None, (0.2, 0.0, 1.0, 0.9)]
    every = TopsReader([pips(3), pips(5), pips(2)])
    FaceReaderPair(ListReader([cnn(3), cnn(5, 0.6), cnn(None, 0.9)]), every, threshold=0.9).verdicts(crops, None, boxes)
    sure = TopsReader([pips(3)])
    pair = FaceReaderPair(ListReader([cnn(3), cnn(5, 0.6), cnn(None, 0.9)]), sure, threshold=0.9, count_doubtful=False)
    pair.verdicts(crops, None, boxes)
    plain = TopsReader([pips(3), pips(5), pips(2)])
    FaceReaderPair(ListReader([cnn(3), cnn(5), cnn(2)]), plain, threshold=0.9).verdicts(crops)
    assert every.tops == [boxes]
    assert sure.tops == [[boxes[0]]]  # only the crop it counts, with its own box
    assert plain.tops == [None]


# --- the committed CNN, on real validation crops ---------------------------------------------------------


def fixture_crops() -> list[tuple[Frame, int]]:
    out = []
    for path in sorted(FIXTURES.glob("face*_*.png")):
        crop = cv2.imread(str(path), cv2.IMREAD_COLOR)
        assert crop is not None, path
        out.append((crop, int(path.name[4])))
    return out


def test_fixtures_cover_every_face() -> None:
    assert {face for _, face in fixture_crops()} == set(range(1, 7))


def test_committed_model_reads_real_crops() -> None:
    classifier = FaceClassifier(MODEL_DIR)
    assert classifier.backend == "onnxruntime"
    assert 0.5 <= classifier.threshold < 1.0
    crops, faces = zip(*fixture_crops(), strict=True)
    guesses = classifier.read_faces(list(crops))
    assert [g.face for g in guesses] == list(faces)
    assert all(g.method == "cnn" for g in guesses)
    # the threshold is strict (no wrong calibration die over it): most, not all, right answers clear it
    assert sum(g.confidence >= classifier.threshold for g in guesses) >= 8


def test_committed_pair_accepts_the_real_crops() -> None:
    crops, faces = zip(*fixture_crops(), strict=True)
    verdicts = FaceReaderPair().verdicts(list(crops))
    assert [v.face for v in verdicts] == list(faces)
    assert sum(not v.uncertain for v in verdicts) >= 8
    assert all(v.reasons for v in verdicts if v.uncertain)


def test_model_sees_no_face_on_bare_felt() -> None:
    felt = np.full((70, 70, 3), (60, 110, 40), np.uint8)
    probs = FaceClassifier(MODEL_DIR).probabilities([felt])
    assert probs.shape == (1, 8)  # no die, six faces, cocked
    assert float(probs[0, 1:7].max()) < 0.5 and float(probs[0, 0]) > 0.9


def test_torch_weights_are_the_fallback(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    (tmp_path / TORCH_NAME).write_bytes((MODEL_DIR / TORCH_NAME).read_bytes())
    fallback = FaceClassifier(tmp_path)
    assert fallback.backend == "torch"
    crops = [crop for crop, _ in fixture_crops()]
    onnx = FaceClassifier(MODEL_DIR).probabilities(crops)
    np.testing.assert_allclose(fallback.probabilities(crops), onnx, atol=1e-4)


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no hay modelo de caras"):
        FaceClassifier(tmp_path)


def test_committed_weights_are_small() -> None:
    assert (MODEL_DIR / ONNX_NAME).stat().st_size < 1_000_000
    assert (MODEL_DIR / TORCH_NAME).stat().st_size < 1_000_000


def test_preprocess_shapes_and_standardises() -> None:
    batch = preprocess([draw_die(4, "negro", 30), draw_die(2, "blanco", 150)])
    assert batch.shape == (2, 3, 48, 48) and batch.dtype == np.float32
    assert abs(float(batch[0].mean())) < 1e-3


# --- crops from a YOLO folder ----------------------------------------------------------------------------


def tiny_yolo(root: Path) -> Path:
    """A YOLO folder with one 200x120 photo holding two dice (faces 2 and 5) and a cocked one."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    img = np.full((120, 200, 3), (60, 110, 40), np.uint8)
    img[20:60, 20:60] = draw_die(2, "blanco", 40)[6:46, 6:46]
    img[50:100, 120:170] = draw_die(5, "rojo", 50)[7:57, 7:57]
    cv2.imwrite(str(root / "images" / "train" / "mesa_jpg.rf.0a1b.png"), img)
    lines = [
        "1 0.2 0.3333 0.2 0.3333",  # 40x40 at (20, 20)
        "4 0.725 0.625 0.25 0.4167",  # 50x50 at (120, 50)
        "6 0.9 0.1 0.05 0.08",  # a cocked die
        "",
    ]
    (root / "labels" / "train" / "mesa_jpg.rf.0a1b.txt").write_text("\n".join(lines))
    return root


def test_labels_are_read_in_pixels(tmp_path: Path) -> None:
    root = tiny_yolo(tmp_path)
    labels = read_yolo_labels(root / "labels" / "train" / "mesa_jpg.rf.0a1b.txt", 200, 120)
    assert [cls for cls, _ in labels] == [1, 4, 6]
    assert labels[0][1].to_list() == pytest.approx([20.0, 20.0, 60.0, 60.0], abs=0.1)
    assert read_yolo_labels(tmp_path / "missing.txt", 200, 120) == []


def test_crops_have_the_margin_and_clip_at_the_edge() -> None:
    frame = np.zeros((100, 100, 3), np.uint8)
    assert crop_die(frame, Box(20, 20, 60, 60)).shape == (52, 52, 3)  # 40 px + 15 % a side
    assert crop_die(frame, Box(0, 80, 20, 100)).shape == (23, 23, 3)  # 3 px cut off at left and bottom
    with pytest.raises(ValueError, match="fuera de la imagen"):
        crop_die(frame, Box(150, 150, 190, 190))


def test_samples_and_eval_crops_from_a_yolo_folder(tmp_path: Path) -> None:
    root = tiny_yolo(tmp_path)
    samples = load_samples(root, "train", background_per_image=1)
    faces = [s.face for s in samples]
    assert faces[:3] == [2, 5, UNREADABLE]  # the cocked die is a "no readable face" example
    assert UNREADABLE in faces[3:]  # and a patch of bare table
    die = samples[0]
    assert die.box.width == pytest.approx(40, abs=0.5)
    assert all(abs(side - 52) <= 1 for side in die.crop().shape[:2])
    crops = list(eval_crops(root, "train"))
    assert [(face, name) for _, face, name in crops] == [(2, "mesa_jpg.rf.0a1b.png"), (5, "mesa_jpg.rf.0a1b.png")]
    assert PipCounter().read(crops[0][0]).face == 2
    assert load_samples(root, "train", keep=lambda p: False) == []


def test_rendered_coins_and_caps_are_samples_with_no_face(tmp_path: Path) -> None:
    root = tiny_yolo(tmp_path)
    (root / "meta").mkdir()
    distractors = [
        {"kind": "coin", "box": [70.0, 10.0, 100.0, 40.0]},
        {"kind": "card", "box": [0.0, 70.0, 60.0, 119.0]},  # cards are not die-sized: left out
    ]
    (root / "meta" / "mesa_jpg.rf.0a1b.json").write_text(json.dumps({"distractors": distractors}))
    image = root / "images" / "train" / "mesa_jpg.rf.0a1b.png"
    assert [b.to_list() for b in rendered_distractors(image)] == [[70.0, 10.0, 100.0, 40.0]]
    assert rendered_distractors(tmp_path / "images" / "x.jpg") == []  # no sidecar: none
    samples = load_samples(root, "train", not_dice=rendered_distractors)
    assert [s.face for s in samples] == [2, 5, UNREADABLE, UNREADABLE]
    assert samples[-1].box.width == pytest.approx(30, abs=0.5)


def test_augmented_crops_vary_but_keep_their_size_and_type(tmp_path: Path) -> None:
    samples = load_samples(tiny_yolo(tmp_path), "train")
    rng = np.random.default_rng(0)
    crops = [augment(samples[1], rng) for _ in range(20)]
    assert all(c.dtype == np.uint8 and c.ndim == 3 and 40 <= c.shape[0] <= 90 for c in crops)
    assert len({c.tobytes() for c in crops}) == 20
    plain = augment(samples[1], np.random.default_rng(1), Augment(scale=(1.0, 1.0), aspect=0.0, shift=0.0))
    assert plain.shape[:2] == (65, 65)


def test_cocked_dice_get_their_own_share_of_training_crops() -> None:
    patch = np.zeros((8, 8, 3), np.uint8)
    box = Box(0, 0, 8, 8)
    samples = [DieSample(patch, box, face, "x") for face in range(1, 7) for _ in range(10)]
    samples += [DieSample(patch, box, UNREADABLE, "x", cocked=True) for _ in range(5)]
    samples += [DieSample(patch, box, UNREADABLE, "x") for _ in range(20)]
    cocked = np.array([s.cocked for s in samples])
    blank = np.array([s.face == UNREADABLE and not s.cocked for s in samples])
    weights = class_weights(samples, 0.12, 0.04)
    assert weights.sum() == pytest.approx(1.0)
    assert weights[cocked].sum() == pytest.approx(0.04) and weights[blank].sum() == pytest.approx(0.08)
    assert weights[:10].sum() == pytest.approx(0.88 / 6)
    plain = class_weights(samples, 0.12)  # without a cocked share: every "no face" crop alike
    assert plain[cocked].sum() == pytest.approx(0.12 * 5 / 25)


def row(face: int, confidence: float) -> list[float]:
    """Classifier probabilities: `confidence` on `face`, the rest on "no readable face"."""
    probs = [0.0] * 7
    probs[face] = confidence
    probs[0] = 1 - confidence
    return probs


def test_threshold_holds_on_each_source_alone() -> None:
    # 100 easy rendered crops, all right and sure; 100 real crops, two wrong at 0.92 confidence
    real = [row(3, 0.92)] * 2 + [row(2, 0.99)] * 98
    rendered = [row(4, 0.91)] * 100
    probs = np.array(real + rendered)
    labels = np.array([2] * 100 + [4] * 100)
    sources = ["real"] * 100 + ["synth"] * 100
    alone, _ = choose_threshold(probs, labels, 0.01)
    assert alone == 0.5  # together: 2 wrong of 200 accepted is within 1 %
    strict, curves = strictest_threshold(probs, labels, sources, 0.01)
    assert strict == 0.93 and set(curves) == {"real", "synth"}  # the real crops alone need 0.93


def test_pair_threshold_counts_what_the_pip_count_catches_and_cocked_dice_accepted() -> None:
    """Calibrating the pair: a model error the pip count contradicts is caught; a cocked die (no readable face)
    that both readers take for a face is an error the model-alone curve never saw."""
    probs = np.array([row(3, 0.92)] * 2 + [row(2, 0.99)] * 98)
    labels = np.array([2] * 100)
    caught = np.array([2, 2] + [2] * 98)  # the pip count says 2 where the model wrongly says 3
    assert choose_threshold(probs, labels, 0.0)[0] == 0.93
    assert choose_threshold(probs, labels, 0.0, caught)[0] == 0.5
    cocked = np.vstack([probs, [row(4, 0.955)]])
    cocked_labels = np.append(labels, 0)  # class 0: no readable face
    fooled = np.append(caught, 4)  # the pip count reads the tilted top face too
    assert choose_threshold(cocked, cocked_labels, 0.0)[0] == 0.93  # the model alone never counts it
    assert choose_threshold(cocked, cocked_labels, 0.0, fooled)[0] == 0.96


def test_the_level_is_chosen_on_every_real_calibration_crop_together() -> None:
    """One rule for "sure": the pair's level on the real crops of every set pooled; rendered crops (a cocked die
    both readers take for a face) do not set it, and without real crops the strictest source does."""
    real = [row(3, 0.92)] * 2 + [row(2, 0.99)] * 98  # the pip count catches both errors
    more_real = [row(5, 0.95)] * 100
    cocked = [row(4, 0.97)]
    probs = np.array(real + more_real + cocked)
    labels = np.array([2] * 100 + [5] * 100 + [0])
    pips = np.array([2] * 100 + [5] * 100 + [4])
    sources = ["real"] * 100 + ["real:trays"] * 100 + ["synth:cocked"]
    level, curve = pooled_real_threshold(probs, labels, sources, 0.001, pips)
    assert level == 0.5 and curve[0]["accepted"] == 0.99  # all but the two the pip count contradicts
    assert strictest_threshold(probs, labels, sources, 0.001, pips)[0] == 0.98  # the cocked die sets it
    only_rendered = ["synth:a"] * 200 + ["synth:cocked"]
    assert pooled_real_threshold(probs, labels, only_rendered, 0.001, pips) == (0.98, [])


def test_recalibrate_without_a_trained_model_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.faces.train import main as train_main

    with pytest.raises(SystemExit) as stop:
        train_main(["--real", str(tmp_path), "--out", str(tmp_path / "vacío"), "--recalibrate"])
    assert stop.value.code == 2
    assert "no hay modelo entrenado" in capsys.readouterr().err
    assert not (tmp_path / "vacío").exists()  # nothing written


@pytest.mark.parametrize("option", ["--max-error", "--max-drop", "--cocked-budget"])
def test_calibration_shares_out_of_range_are_refused(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.faces.train import main as train_main

    with pytest.raises(SystemExit) as stop:
        train_main(["--real", str(tmp_path), "--out", str(tmp_path / "modelo"), option, "1.5"])
    assert stop.value.code == 2 and f"{option} 1.5" in capsys.readouterr().err
    assert not (tmp_path / "modelo").exists()


def test_photo_id_groups_roboflow_copies() -> None:
    assert photo_id("epanemu_dice_101_jpg.rf.9e69503db4a1230f.jpg") == "epanemu_dice_101_jpg"
    assert photo_id("byler_IMG_20191208_111228.jpg") == "byler_IMG_20191208_111228"


def test_training_end_to_end_calibrates_the_pair_and_recalibrates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m vision.faces.train` on a tiny folder of drawn dice: a model, its ONNX, and the pair's threshold
    (with the model's own curves beside it); --recalibrate keeps the training's figures."""
    from vision.faces.negatives import load_negatives
    from vision.faces.train import THRESHOLDS, load_real
    from vision.faces.train import main as train_main

    real = tmp_path / "real"
    (real / "images" / "train").mkdir(parents=True)
    (real / "labels" / "train").mkdir(parents=True)
    for k in range(10):
        img = np.full((120, 200, 3), (60, 110, 40), np.uint8)
        a, b = 1 + k % 6, 1 + (k + 3) % 6
        img[20:60, 20:60] = draw_die(a, "blanco", 40, seed=k)[6:46, 6:46]
        img[50:100, 120:170] = draw_die(b, "rojo", 50, seed=k)[7:57, 7:57]
        cv2.imwrite(str(real / "images" / "train" / f"mesa{k}_jpg.rf.{k:04d}.png"), img)
        labels = f"{a - 1} 0.2 0.3333 0.2 0.3333\n{b - 1} 0.725 0.625 0.25 0.4167\n"
        (real / "labels" / "train" / f"mesa{k}_jpg.rf.{k:04d}.txt").write_text(labels)
    out = tmp_path / "modelo"
    mined = tmp_path / "negativos.json"  # a patch of felt the finder took for a die, on every photo
    images = {f"mesa{k}_jpg.rf.{k:04d}.png": [[75.0, 70.0, 105.0, 100.0]] for k in range(10)}
    mined.write_text(json.dumps({"folder": str(real), "split": "train", "images": images}))
    args = ["--real", str(real), "--out", str(out), "--epochs", "1", "--per-epoch", "64", "--batch", "32"]
    args += ["--negatives", str(mined)]
    assert train_main([*args, "--calib-share", "0.3"]) == 0
    figures = json.loads((out / "metrics.json").read_text())["train"]
    plain = sum(map(len, load_real(real, 0.3, 0)))
    with_mined = sum(map(len, load_real(real, 0.3, 0, load_negatives([mined]))))
    assert with_mined == plain + 10 == figures["samples"]["real_fit"] + figures["samples"]["real_calibration"]
    other = tmp_path / "otro-buscador.json"  # the same folder mined by another finder: its boxes add up
    other_boxes = {name: [[0.0, 0.0, 30.0, 30.0]] for name in images}  # another patch, in the same photos
    other.write_text(json.dumps({"folder": str(real), "split": "train", "images": other_boxes}))
    assert train_main([*args, "--negatives", str(other), "--calib-share", "0.3", "--out", str(tmp_path / "dos")]) == 0
    both = json.loads((tmp_path / "dos" / "metrics.json").read_text())["train"]["samples"]
    assert both["real_fit"] + both["real_calibration"] == plain + 20
    assert figures["threshold"] in (*THRESHOLDS, 0.99)
    assert FaceClassifier(out).meta["classes"][7] == "dado montado"
    assert FaceClassifier(out).absent_threshold == figures["absent_threshold"]
    assert set(figures["absent_curves"]) == {"real"}
    assert figures["threshold_rule"].startswith("pair")
    assert set(figures["threshold_curves"]) == {"real", "real (pooled)"}
    assert set(figures["model_alone_curves"]) == {"real"}
    assert FaceClassifier(out).threshold == figures["threshold"]
    assert train_main([*args, "--calib-share", "0.3", "--recalibrate"]) == 0
    again = json.loads((out / "metrics.json").read_text())["train"]
    assert again["history"] == figures["history"] and "recalibrated" in again
    assert not FaceClassifier(out).turned
    turned = tmp_path / "girado"  # trained on dice turned outward-up, and recalibrated so
    assert train_main([*args[:3], str(turned), *args[4:], "--calib-share", "0.3", "--turn"]) == 0
    assert FaceClassifier(turned).turned
    import vision.faces.train as training

    asked: list[bool] = []
    original = training.load_real

    def recording(*given: Any) -> Any:
        asked.append(given[4])  # whether the real dice are loaded turned
        return original(*given)

    monkeypatch.setattr(training, "load_real", recording)
    assert train_main([*args[:3], str(turned), *args[4:], "--calib-share", "0.3", "--recalibrate"]) == 0
    assert FaceClassifier(turned).turned
    assert asked == [True]  # recalibrated without --turn, its calibration dice are still turned as it reads them
    # a negatives file mined on a folder this training does not use would be ignored: refused instead
    elsewhere = tmp_path / "otros.json"
    elsewhere.write_text(json.dumps({"folder": str(tmp_path / "otra"), "images": images}))
    with pytest.raises(SystemExit) as stop:
        train_main([*args[:3], str(tmp_path / "nada"), *args[4:], "--negatives", str(elsewhere)])
    assert stop.value.code == 2 and "no es --real ni --synth" in capsys.readouterr().err
    assert not (tmp_path / "nada").exists()


def one_die_photos(real: Path, count: int = 8) -> Path:
    """A YOLO folder of `count` train photos of felt, one drawn white die each (faces 1-6 in turn)."""
    (real / "images" / "train").mkdir(parents=True)
    (real / "labels" / "train").mkdir(parents=True)
    for k in range(count):
        img = np.full((100, 100, 3), (60, 110, 40), np.uint8)
        img[30:70, 30:70] = draw_die(1 + k % 6, "blanco", 40, seed=k)[0:40, 0:40]
        cv2.imwrite(str(real / "images" / "train" / f"mesa{k}.png"), img)
        (real / "labels" / "train" / f"mesa{k}.txt").write_text(f"{k % 6} 0.5 0.5 0.4 0.4\n")
    return real


def test_a_cut_training_resumes_to_the_same_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A training cut after an epoch and run again with --resume ends with the very weights and history of one
    never cut; --resume with other options, or with nothing to resume, is refused and changes nothing."""
    import torch

    import vision.faces.train as training

    real = one_die_photos(tmp_path / "real")

    def args(out: Path) -> list[str]:
        return ["--real", str(real), "--out", str(out), "--epochs", "3", "--per-epoch", "32", "--batch", "16"]

    whole, cut = tmp_path / "entero", tmp_path / "cortado"
    assert training.main(args(whole)) == 0
    assert not (whole / training.CHECKPOINT_NAME).exists()  # a finished training leaves nothing to resume

    class Cut(Exception):
        pass

    saving = training.save_checkpoint

    def cut_after_two(state: dict[str, Any], path: Path) -> None:
        saving(state, path)
        if state["epoch"] == 2:
            raise Cut  # the power goes off once the second epoch is saved

    monkeypatch.setattr(training, "save_checkpoint", cut_after_two)
    with pytest.raises(Cut):
        training.main(args(cut))
    monkeypatch.setattr(training, "save_checkpoint", saving)
    assert (cut / training.CHECKPOINT_NAME).is_file() and not (cut / training.TORCH_NAME).exists()

    with pytest.raises(SystemExit) as stop:  # other options would not continue the same training
        training.main([*args(cut), "--lr", "0.01", "--resume"])
    assert stop.value.code == 2 and "otras opciones (lr)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # nor would another thread count, to the last digit
        training.main([*args(cut), "--threads", "2", "--resume"])
    assert stop.value.code == 2 and "otras opciones (threads)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        training.main([*args(tmp_path / "nada"), "--resume"])
    assert stop.value.code == 2 and "no hay entrenamiento cortado" in capsys.readouterr().err
    assert not (tmp_path / "nada").exists()

    assert training.main([*args(cut), "--resume", "--threads", "1"]) == 0
    assert "seguimos desde la época 2/3" in capsys.readouterr().out
    assert not (cut / training.CHECKPOINT_NAME).exists()
    one = torch.load(whole / training.TORCH_NAME, weights_only=True)
    other = torch.load(cut / training.TORCH_NAME, weights_only=True)
    assert one["meta"] == other["meta"]
    assert all(torch.equal(one["state_dict"][k], other["state_dict"][k]) for k in one["state_dict"])
    first = json.loads((whole / "metrics.json").read_text())["train"]
    second = json.loads((cut / "metrics.json").read_text())["train"]
    assert second["history"] == first["history"] and len(first["history"]) == 3
    assert "--resume" not in second["command"]  # the command that reproduces it is the plain one


def test_the_backbone_classifier_starts_from_a_yolov5n_detectors_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--arch yolov5n: YOLOv5n's backbone (as ultralytics builds it) with a linear head, started from a detector's
    state dict (keys model.0-9.…; the head's layers are left out), trained, exported and read like the CNN; a
    --pretrained that is not such a file, or with the CNN, is refused and writes nothing; 'none' starts at random."""
    import torch

    from vision.faces.classifier import build_backbone_model, load_pretrained_backbone
    from vision.faces.train import main as train_main

    model = build_backbone_model()
    backbone = {k[2:]: v for k, v in model.state_dict().items() if k.startswith("0.")}  # "1.…" is the head
    detector = {f"model.{k}": v.half() if v.is_floating_point() else v for k, v in backbone.items()}
    detector["model.24.m.0.weight"] = torch.zeros(255, 64, 1, 1)  # the detector's head: not ours
    weights = tmp_path / "yolov5n.state.pt"
    torch.save(detector, weights)
    fresh = build_backbone_model()
    assert load_pretrained_backbone(fresh, weights) == sum(1 for k in fresh.state_dict() if k.startswith("0."))
    some = next(k for k in fresh.state_dict() if k.endswith("conv.weight"))
    assert torch.equal(fresh.state_dict()[some], model.state_dict()[some].half().float())

    real = one_die_photos(tmp_path / "real")
    args = ["--real", str(real), "--epochs", "1", "--per-epoch", "32", "--batch", "16", "--input-size", "64"]
    out = tmp_path / "columna"
    assert train_main([*args, "--out", str(out), "--arch", "yolov5n", "--pretrained", str(weights)]) == 0
    assert "desde los pesos preentrenados" in capsys.readouterr().out
    figures = json.loads((out / "metrics.json").read_text())["train"]
    assert figures["arch"] == "yolov5n" and figures["pretrained"] == weights.name
    classifier = FaceClassifier(out)
    assert classifier.meta["arch"] == "yolov5n" and classifier.input_size == 64
    assert classifier.temperature == figures["temperature"] > 0  # fitted on the calibration crops
    crop = cv2.resize(draw_die(3, "blanco", 60, seed=1), (60, 60))
    assert classifier.probabilities([crop]).shape == (1, 8)
    (out / "face_cnn.onnx").unlink()  # the torch weights alone are read with the same network
    assert FaceClassifier(out).probabilities([crop]).shape == (1, 8)

    assert train_main([*args, "--out", str(tmp_path / "azar"), "--arch", "yolov5n", "--pretrained", "none"]) == 0
    assert "se empieza al azar" in capsys.readouterr().out
    assert json.loads((tmp_path / "azar" / "metrics.json").read_text())["train"]["pretrained"] is None
    assert train_main([*args, "--out", str(tmp_path / "sin-t"), "--no-temperature"]) == 0
    assert FaceClassifier(tmp_path / "sin-t").temperature == 1.0
    not_weights = tmp_path / "otro.pt"
    torch.save({"model.0.conv.weight": torch.zeros(3)}, not_weights)
    for extra, message in (
        (["--arch", "yolov5n", "--pretrained", str(not_weights)], "no trae la columna de YOLOv5n"),
        (["--arch", "yolov5n", "--pretrained", str(tmp_path / "no.pt")], "no existe"),
        (["--pretrained", str(weights)], "--pretrained es para --arch yolov5n"),
    ):
        with pytest.raises(SystemExit) as stop:
            train_main([*args, "--out", str(tmp_path / "nada"), *extra])
        assert stop.value.code == 2 and message in capsys.readouterr().err
        assert not (tmp_path / "nada").exists()


def test_evaluate_measures_a_yolo_folder_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tiny_yolo(tmp_path)
    assert evaluate.main(["--real", str(root), "--split", "train", "--no-write", "--model-dir", str(MODEL_DIR)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"2 dados en 1 fotos ({root} (train))"
    assert lines[1].startswith("ojo: el modelo se entrenó con estas fotos")  # a train split
    assert [line.split(":")[0] for line in lines[2:]] == ["modelo", "puntos", "combinado", "errores del modelo"]
    with pytest.raises(SystemExit) as exit_:
        evaluate.main(["--split", "train"])  # a folder or --real-sets is needed
    assert exit_.value.code == 2


def test_the_other_real_sets_add_their_train_parts_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--real-sets ROOT: every registered set under ROOT but --real's adds its train part (split by photo into fit
    and calibration, each set a calibration source of its own); no val photo is loaded; a root with no set is
    refused and writes nothing."""
    from tests.vision.test_realsets import fake_root
    from vision.faces import realsets
    from vision.faces.train import main as train_main

    root = fake_root(tmp_path)
    out = tmp_path / "modelo"
    args = ["--real", str(root / "dice-real"), "--epochs", "1", "--per-epoch", "32", "--batch", "16"]
    with pytest.raises(SystemExit) as stop:  # a share that leaves nothing to calibrate on is refused
        train_main([*args, "--out", str(out), "--real-sets", str(root), "--calib-share", "0.0"])
    assert stop.value.code == 2 and "ninguna foto queda para calibrar" in capsys.readouterr().err
    assert train_main([*args, "--out", str(out), "--real-sets", str(root), "--calib-share", "0.6"]) == 0
    figures = json.loads((out / "metrics.json").read_text())["train"]
    present = [rs for rs in realsets.real_sets(root) if rs.name != "dice-real"]
    assert [rs.name for rs in present] == ["rune55-roundcam", "matteo-wood-pipboxes"]
    for rs in present:
        train = realsets.samples(rs, root, "train", background_per_image=1)
        counted = figures["samples"][f"real:{rs.name}"] + figures["samples"][f"real_calibration:{rs.name}"]
        assert counted == len(train) > 0
        val = {p.name for p in realsets.photos(rs, root, "val")}
        assert val and not val & {s.image for s in train}
    assert "dice-real" not in {k.split(":", 1)[-1] for k in figures["samples"] if k.startswith("real:")}
    with pytest.raises(SystemExit) as stop:
        train_main([*args, "--out", str(tmp_path / "nada"), "--real-sets", str(tmp_path / "vacía")])
    assert stop.value.code == 2 and "--real-sets" in capsys.readouterr().err
    assert not (tmp_path / "nada").exists()


def test_the_calibration_part_keeps_a_captures_copies_together() -> None:
    """A set whose augmented copies share a capture number across file prefixes is split for calibration by that
    capture (realsets.group_of), never by photo id alone."""
    from functools import partial

    from vision.faces import realsets
    from vision.faces.crops import DieSample
    from vision.faces.train import split_by_photo

    roundcam = realsets.real_set("rune55-roundcam")
    crop = np.zeros((8, 8, 3), np.uint8)
    names = [f"{p}_{n:05d}_jpg.rf.{k}.jpg" for n in range(40) for k, p in enumerate(("test", "test", "valid"))]
    made = [DieSample(crop, Box(0, 0, 8, 8), 3, name, False) for name in names]
    fit, calib = split_by_photo(made, 0.3, partial(realsets.group_of, roundcam))
    assert fit and calib and len(fit) + len(calib) == len(made)
    held = {realsets.group_of(roundcam, s.image) for s in calib}
    assert not held & {realsets.group_of(roundcam, s.image) for s in fit}
    by_photo = {s.image for s in split_by_photo(made, 0.3)[1]}  # photo ids alone split some captures
    captures = {realsets.group_of(roundcam, n) for n in names}
    assert any(0 < sum(n in by_photo for n in names if realsets.group_of(roundcam, n) == c) < 3 for c in captures)


def test_temperature_scaling_finds_the_temperature_the_labels_were_drawn_at() -> None:
    """fit_temperature: labels drawn from softmax(z / 2.5) give back about 2.5; sure, right logits a temperature
    under 1 (the probabilities sharpened), and the classifier divides its logits by its model's temperature."""
    from vision.faces.classifier import fit_temperature

    rng = np.random.default_rng(0)
    logits = rng.normal(0, 4, (4000, 8)).astype(np.float32)
    z = logits / 2.5
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(8, p=row) for row in p])
    assert fit_temperature(logits, labels) == pytest.approx(2.5, rel=0.1)
    right = np.full((200, 8), -1.0, np.float32)
    right[:, 3] = 1.0
    assert fit_temperature(right, np.full(200, 3)) < 1.0


def test_augmentation_workers_give_the_same_model_whatever_their_number(tmp_path: Path) -> None:
    """With --aug-workers each batch is drawn from its own seed: one process or two make the very same weights."""
    import torch

    from vision.faces.train import main as train_main

    real = one_die_photos(tmp_path / "real", 12)
    common = ["--real", str(real), "--epochs", "2", "--per-epoch", "64", "--batch", "16", "--calib-share", "0.3"]
    states = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        assert train_main([*common, "--out", str(out), "--aug-workers", workers]) == 0
        states.append(torch.load(out / "face_cnn.pt", map_location="cpu", weights_only=True)["state_dict"])
    assert states[0].keys() == states[1].keys()
    assert all(torch.equal(states[0][k], states[1][k]) for k in states[0])


def test_minutes_stop_the_training_and_still_write_a_calibrated_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No epoch is begun that would end after --minutes (less a fifth of them to calibrate): the model is written."""
    from vision.faces.train import main as train_main

    real = one_die_photos(tmp_path / "real", 12)
    out = tmp_path / "modelo"
    args = ["--real", str(real), "--out", str(out), "--epochs", "500", "--per-epoch", "32", "--batch", "16"]
    assert train_main([*args, "--calib-share", "0.3", "--minutes", "0.05"]) == 0
    assert "tiempo cumplido: se para tras la época" in capsys.readouterr().out
    figures = json.loads((out / "metrics.json").read_text())["train"]
    assert 1 <= len(figures["history"]) < 500 and FaceClassifier(out).threshold == figures["threshold"]


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--aug-workers", "-1", "no puede ser negativo"),
        ("--minutes", "0", "debe ser positivo"),
        ("--device", "tpu", "no tiene esa GPU"),
    ],
)
def test_bad_training_resources_are_refused(
    option: str, value: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.faces.train import main as train_main

    with pytest.raises(SystemExit) as stop:
        train_main(["--real", str(tmp_path), "--out", str(tmp_path / "modelo"), option, value])
    assert stop.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "modelo").exists()


def test_speed_times_each_network_and_refuses_bad_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m vision.faces.speed`: a line a network with its size and time; a count under 1 is refused."""
    from vision.faces import speed

    assert speed.main(["--arch", "cnn", "--arch", "yolov5s", "--repeat", "1", "--dice", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["cnn", "yolov5s"] and all("ms por dado" in line for line in lines)
    with pytest.raises(SystemExit) as stop:
        speed.main(["--repeat", "0"])
    assert stop.value.code == 2 and "al menos 1" in capsys.readouterr().err
