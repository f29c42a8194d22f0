"""Dice turned outward-up for the face classifier: seen from above, the side facing the centre shows below."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from vision.faces.crops import Augment, DieSample, augment, outward_turn, turned_crop
from vision.faces.pips import TopShares
from vision.reader import DiceReader, ReaderSettings
from vision.types import Box, Detection, FaceVerdict, Frame

MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "faces"


@pytest.mark.parametrize(
    ("centre", "turn"),
    [((300, 100), 0.0), ((500, 200), 90.0), ((300, 350), 180.0), ((100, 200), -90.0), ((500, 400), 135.0)],
)
def test_outward_turn_points_the_way_out_up(centre: tuple[float, float], turn: float) -> None:
    x, y = centre
    assert outward_turn(Box(x - 10, y - 10, x + 10, y + 10), 600, 400) == pytest.approx(turn)


def marked_frame(die: Box, mark: tuple[int, int]) -> Frame:
    """A grey die on black with a white mark `mark` (dx, dy) pixels from its centre."""
    frame = np.zeros((400, 600, 3), np.uint8)
    frame[int(die.y1) : int(die.y2), int(die.x1) : int(die.x2)] = 100
    cx, cy = (int(v) for v in die.center)
    frame[cy + mark[1] - 3 : cy + mark[1] + 3, cx + mark[0] - 3 : cx + mark[0] + 3] = 255
    return frame


def brightest(crop: Frame) -> tuple[float, float]:
    """Where the white mark is, as a share of the crop (x, y)."""
    ys, xs = np.nonzero(crop[:, :, 0] == crop[:, :, 0].max())
    return float(xs.mean()) / crop.shape[1], float(ys.mean()) / crop.shape[0]


@pytest.mark.parametrize("centre", [(500, 200), (100, 350), (300, 380), (120, 40)])
def test_a_turned_crop_has_the_outer_side_up(centre: tuple[int, int]) -> None:
    x, y = centre
    die = Box(x - 15, y - 15, x + 15, y + 15)
    out = np.array([x - 300, y - 200], float)
    mark = tuple(int(v) for v in 10 * out / np.hypot(*out))  # on the die's outer side
    crop = turned_crop(marked_frame(die, mark), die, outward_turn(die, 600, 400))
    mx, my = brightest(crop)
    assert my < 0.35 and abs(mx - 0.5) < 0.1  # the centre is at 0.5


def test_training_turns_about_the_outward_turn_within_its_jitter() -> None:
    die = Box(485, 185, 515, 215)  # right of the centre: the way out is +x
    frame = marked_frame(die, (10, 0))
    patch, inner = frame[150:250, 450:550].copy(), Box(35, 35, 65, 65)
    sample = DieSample(patch, inner, 3, "x", turn=outward_turn(die, 600, 400))
    rng = np.random.default_rng(0)
    plain = Augment(p_lowres=0, p_blur=0, p_motion=0, p_noise=0, p_jpeg=0, p_invert=0, p_gray=0)
    for _ in range(10):
        crop = augment(sample, rng, plain, turned=True)
        assert brightest(crop)[1] < 0.3  # up, give or take the jitter and the box's jitter
    spread = [brightest(augment(sample, rng, plain))[1] for _ in range(40)]
    assert max(spread) > 0.6  # not turned: any way round


class Recorder:
    """Face readers that record whether they were given turned crops."""

    def __init__(self, wants_turned: bool) -> None:
        self.wants_turned = wants_turned
        self.turned: list[Sequence[Frame] | None] = []

    def read_dice(
        self, crops: Sequence[Frame], turned: Sequence[Frame] | None = None, tops: TopShares | None = None
    ) -> list[FaceVerdict]:
        self.turned.append(turned)
        return [FaceVerdict(2, 0.97, (), ()) for _ in crops]


class OneDie:
    def detect(self, frame: Frame) -> list[Detection]:
        return [Detection(Box(485, 185, 515, 215), 0.9)]


def test_the_reader_cuts_turned_crops_only_for_a_classifier_that_wants_them_from_above() -> None:
    frame = marked_frame(Box(485, 185, 515, 215), (10, 0))
    wants = Recorder(True)
    DiceReader(OneDie(), wants).read(frame)
    (turned,) = wants.turned
    assert turned is not None and brightest(turned[0])[1] < 0.35
    DiceReader(OneDie(), wants, ReaderSettings(from_above=False)).read(frame)
    assert wants.turned[-1] is None  # an upright camera's photo: the top face is already up
    plain = Recorder(False)
    DiceReader(OneDie(), plain).read(frame)
    assert plain.turned == [None]


def test_face_evaluation_gives_a_turned_classifier_turned_crops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m vision.faces.evaluate --from-above`: the committed (turned) classifier reads turned crops;
    the figures print and, with --no-write, nothing is written."""
    from tests.vision.test_faces import tiny_yolo
    from vision.faces.classifier import FaceClassifier
    from vision.faces.crops import eval_crops
    from vision.faces.evaluate import main, measure

    folder = tiny_yolo(tmp_path / "mesa")
    assert FaceClassifier().turned
    assert main(["--real", str(folder), "--split", "train", "--no-write", "--from-above"]) == 0
    assert "2 dados en 1 fotos" in capsys.readouterr().out
    plain = [c for c, _, _ in eval_crops(folder, "train")]
    turned = [c for c, _, _ in eval_crops(folder, "train", turned=True)]
    assert any(a.shape != b.shape or (a != b).any() for a, b in zip(plain, turned, strict=True))
    seen: list[list[Frame]] = []
    original = FaceClassifier.probabilities

    def recording(self: FaceClassifier, crops: list[Frame], batch_size: int = 64) -> np.ndarray:
        seen.append(list(crops))
        return original(self, crops, batch_size)

    monkeypatch.setattr(FaceClassifier, "probabilities", recording)
    assert measure(plain, [2, 5], ["x", "x"], MODEL_DIR, turned)["dice"] == 2
    assert measure(plain, [2, 5], ["x", "x"], MODEL_DIR)["dice"] == 2
    assert all(a is b for a, b in zip(seen[0], turned, strict=True))  # the turned crops, as given
    assert all(a is b for a, b in zip(seen[1], plain, strict=True))
