"""The card reader on ONNX Runtime: the committed ONNX are exported from the committed weights, read what the torch
weights read, and a stale ONNX (exported from other weights) is never read."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards.index_classifier import FACE_NAME, SECOND_NAME, WEIGHTS_NAME, IndexClassifier, crop
from vision.cards.reader import FINDER_NAME, MODELS, SPOTTER_NAME, CardReader, Detector
from vision.cards.seams import NAME as SEAM_NAME
from vision.cards.seams import SeamClassifier, strip
from vision.onnx_session import exported_from, file_sha256, onnx_metadata, runtime_weights
from vision.types import Box

FIXTURES = Path(__file__).parents[1] / "fixtures" / "cards"
PHOTOS = sorted(FIXTURES.glob("real-*.jpg"))
ALL = (FINDER_NAME, SPOTTER_NAME, WEIGHTS_NAME, SECOND_NAME, FACE_NAME, SEAM_NAME)


@pytest.mark.parametrize("path", sorted(MODELS.parent.rglob("*.onnx")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_onnx_files_metadata_is_read_from_its_bytes_as_a_session_reads_it(path: Path) -> None:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert onnx_metadata(path) == dict(session.get_modelmeta().custom_metadata_map)


def test_a_cut_onnx_file_is_a_clear_error(tmp_path: Path) -> None:
    cut = tmp_path / "cortado.onnx"
    cut.write_bytes((MODELS / "index_cls.onnx").read_bytes()[:1000])
    with pytest.raises(ValueError, match="protobuf cortado"):
        onnx_metadata(cut)


@pytest.mark.parametrize("name", ALL)
def test_each_committed_onnx_is_exported_from_the_committed_weights(name: str) -> None:
    """What `python -m vision.export --cards` wrote: an ONNX beside each .pt, of these very weights."""
    weights = MODELS / name
    assert exported_from(weights.with_suffix(".onnx")) == file_sha256(weights)
    assert runtime_weights(weights) == weights.with_suffix(".onnx")


def boxes_of(photo: Path) -> list[Box]:
    """The labelled index boxes of a fixture photo, in its pixels."""
    image = cv2.imread(str(photo))
    h, w = image.shape[:2]
    rows = [r.split() for r in photo.with_suffix(".txt").read_text().splitlines() if r.strip()]
    return [
        Box(
            (float(x) - float(bw) / 2) * w,
            (float(y) - float(bh) / 2) * h,
            (float(x) + float(bw) / 2) * w,
            (float(y) + float(bh) / 2) * h,
        )
        for _, x, y, bw, bh in (r[:5] for r in rows)
    ]


@pytest.mark.parametrize("name", (WEIGHTS_NAME, SECOND_NAME, FACE_NAME))
def test_the_onnx_classifiers_give_the_torch_probabilities(name: str) -> None:
    """Every labelled corner of the fixture photos, read at each number of turns: the same probabilities."""
    torch_reader, onnx_reader = IndexClassifier(MODELS / name), IndexClassifier((MODELS / name).with_suffix(".onnx"))
    assert onnx_reader.net is not None and torch_reader.net is None
    assert (onnx_reader.size, onnx_reader.arch) == (torch_reader.size, torch_reader.arch)
    crops = [crop(cv2.imread(str(p)), b) for p in PHOTOS for b in boxes_of(p)]
    assert len(crops) >= 10
    for turns in (1, 4):
        mine, theirs = onnx_reader.probabilities(crops, turns), torch_reader.probabilities(crops, turns)
        assert np.abs(mine - theirs).max() < 1e-4
        assert (mine.argmax(axis=1) == theirs.argmax(axis=1)).all()


def test_the_onnx_seam_classifier_gives_the_torch_probabilities() -> None:
    """Strips between every two labelled corners of a photo: the same probability of two cards."""
    photo = PHOTOS[0]
    frame, boxes = cv2.imread(str(photo)), boxes_of(photo)
    strips = [strip(frame, a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]]
    mine = SeamClassifier(MODELS / "seam.onnx").probabilities(strips)
    theirs = SeamClassifier(MODELS / SEAM_NAME).probabilities(strips)
    assert len(strips) >= 3 and np.abs(mine - theirs).max() < 1e-4


@pytest.mark.parametrize("name", (FINDER_NAME, SPOTTER_NAME))
def test_the_onnx_detectors_find_the_boxes_ultralytics_finds(name: str) -> None:
    """The fixture photos at the finder's tile size and at a reduced copy's odd shape: the same boxes (the
    letterbox padded to the stride, as ultralytics pads one shape); confidences within 0.005, as the detectors'
    folded weights are stored as float16 (the figures of every real set are unchanged: models/cards/README.md)."""
    torch_model, onnx_model = Detector(MODELS / name), Detector((MODELS / name).with_suffix(".onnx"))
    for photo in PHOTOS:
        image = cv2.imread(str(photo))
        small = np.asarray(cv2.resize(image, (image.shape[1] // 2 + 7, image.shape[0] // 2)), np.uint8)
        for picture, imgsz in ((image, 640), (small, 352)):
            (mine,), (theirs,) = onnx_model.predict([picture], imgsz, 0.1), torch_model.predict([picture], imgsz, 0.1)
            assert len(mine[0]) == len(theirs[0]) > 0, photo
            order_m, order_t = np.argsort(-mine[1]), np.argsort(-theirs[1])
            assert np.allclose(mine[1][order_m], theirs[1][order_t], atol=5e-3)
            assert np.allclose(mine[0][order_m], theirs[0][order_t], atol=1.0)
            assert (mine[2][order_m] == theirs[2][order_t]).all()


def test_the_reader_reads_the_same_cards_from_the_onnx_as_from_the_weights(tmp_path: Path) -> None:
    """A models folder without its ONNX (the torch path) reads every fixture photo as the committed one."""
    weights_only = tmp_path / "cards"
    weights_only.mkdir()
    for item in MODELS.iterdir():
        if item.suffix != ".onnx":
            shutil.copy(item, weights_only / item.name)
    onnx_reader, torch_reader = CardReader(), CardReader(weights_only)
    assert onnx_reader.model.onnx is not None and torch_reader.model.onnx is None
    for photo in PHOTOS:
        frame = cv2.imread(str(photo))
        mine, theirs = onnx_reader.read(frame), torch_reader.read(frame)
        assert [(c.card, c.uncertain) for c in mine.cards] == [(c.card, c.uncertain) for c in theirs.cards], photo


def test_a_stale_onnx_is_never_read(tmp_path: Path) -> None:
    """Weights changed after their ONNX was exported (retrained, adapted): the weights are read, not the ONNX."""
    shutil.copy(MODELS / SECOND_NAME, tmp_path / SECOND_NAME)
    shutil.copy((MODELS / SECOND_NAME).with_suffix(".onnx"), tmp_path / "index_cls2.onnx")
    assert runtime_weights(tmp_path / SECOND_NAME) == tmp_path / "index_cls2.onnx"
    import torch

    saved = torch.load(tmp_path / SECOND_NAME, map_location="cpu", weights_only=True)
    saved["temperature"] = float(saved.get("temperature", 1.0)) * 2
    torch.save(saved, tmp_path / SECOND_NAME)
    assert runtime_weights(tmp_path / SECOND_NAME) == tmp_path / SECOND_NAME
    fresh = IndexClassifier(tmp_path / SECOND_NAME).export(tmp_path / "index_cls2.onnx")
    assert runtime_weights(tmp_path / SECOND_NAME) == fresh
    assert IndexClassifier(fresh).temperature == pytest.approx(float(saved["temperature"]))


def test_the_weights_without_torch_say_what_to_do(tmp_path: Path) -> None:
    """Without the learning part, weights that have no ONNX of their own: a Spanish error that names the fix."""
    shutil.copy(MODELS / SEAM_NAME, tmp_path / SEAM_NAME)
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from pathlib import Path\n"
        "from vision.cards.seams import SeamClassifier\n"
        "try:\n"
        f"    SeamClassifier(Path({str(tmp_path / SEAM_NAME)!r}))\n"
        "except FileNotFoundError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "python -m vision.export --cards" in done.stdout and "parte de aprendizaje" in done.stdout


def test_the_bench_prints_the_load_and_the_first_reading_beside_the_median(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m vision.cards.bench`: one JSON line with what the kiosk's first card reading costs."""
    import json

    from vision.cards import bench

    assert bench.main(["--repeat", "1"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["cards"] > 0 and row["spotter"] is True
    assert row["load_ms"] > 0 and row["first_read_ms"] > 0 and row["read_ms"] > 0
