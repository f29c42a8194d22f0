"""The index classifier's training batches: a partly covered index teaches doubt (soft targets), a whole one not;
its weights carry the side of the crop it reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision.cardfolders import index_folder
from vision.cards import index_classifier as ic
from vision.cards.notation import CLASS_NAMES, RANKS


def test_a_covered_crop_has_a_flat_colour_over_the_share_it_reports() -> None:
    rng = np.random.default_rng(4)
    image = np.full((96, 96, 3), 200, np.uint8)
    for _ in range(20):
        out, share = ic.occlude(image, rng)
        changed = (out != image).any(axis=2).mean()
        assert 0.0 <= share <= 1.0 and changed <= share + 1e-9


def test_soft_targets_spread_by_the_share_covered() -> None:
    rng = np.random.default_rng(0)
    crops = [np.full((96, 96, 3), 120 + k, np.uint8) for k in range(8)]
    labels = np.arange(8, dtype=np.intp)
    ((x, y),) = list(ic._batches(crops, labels, 8, rng, covered=0.0))
    assert x.shape == (8, 3, ic.SIZE, ic.SIZE) and y.shape == (8, len(CLASS_NAMES))
    assert np.allclose(y.sum(1), 1) and (y.max(1) == 1.0).all() and sorted(y.argmax(1)) == list(labels)
    ((x, y),) = list(ic._batches(crops, labels, 8, np.random.default_rng(1), covered=1.0))
    assert np.allclose(y.sum(1), 1) and (y.max(1) < 1.0).all()  # every one partly covered: less sure
    assert (y.max(1) >= 1 / len(CLASS_NAMES) - 1e-6).all()  # the card's own share never below the others'


def test_a_gray_share_of_the_crops_loses_its_colour_and_none_by_default() -> None:
    crops = [np.dstack([np.full((96, 96), v, np.uint8) for v in (30, 60 + 10 * k, 200)]) for k in range(8)]
    labels = np.arange(8, dtype=np.intp)
    ((x, _),) = list(ic._batches(crops, labels, 8, np.random.default_rng(2), gray=1.0))
    assert np.allclose(x[:, 0], x[:, 1]) and np.allclose(x[:, 1], x[:, 2])  # every one in shades of grey
    ((x, _),) = list(ic._batches(crops, labels, 8, np.random.default_rng(2)))
    assert all(not np.allclose(row[0], row[2]) for row in x)  # a red crop stays red
    gray = ic.grayed(crops[0])
    assert gray.shape == crops[0].shape and gray.dtype == np.uint8 and (gray[..., 0] == gray[..., 2]).all()


def test_an_inverted_crop_turns_its_lightness_over_and_keeps_its_colour() -> None:
    crop = np.zeros((96, 96, 3), np.uint8)
    crop[:48] = 255  # white paper above
    crop[48:, :, 2] = 160  # a dark red ink below (BGR)
    out = ic.inverted(crop)
    assert out.shape == crop.shape and out.dtype == np.uint8
    assert out[:48].max() < 20  # the paper dark
    red = out[60, 60].astype(int)
    assert red.sum() > crop[60, 60].sum() and red[2] > red[0] and red[2] > red[1]  # the ink lighter, still red
    crops, labels = [crop] * 8, np.arange(8, dtype=np.intp)
    ((x, _),) = list(ic._batches(crops, labels, 8, np.random.default_rng(3), invert=1.0))
    ((y, _),) = list(ic._batches(crops, labels, 8, np.random.default_rng(3)))
    assert not np.allclose(x, y)


def test_a_start_of_another_architecture_and_a_bad_share_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--covered debe estar entre 0 y 1"):
        ic.main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--covered", "2"])
    with pytest.raises(SystemExit, match="--gray debe estar entre 0 y 1"):
        ic.main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--gray", "-0.1"])
    with pytest.raises(SystemExit, match="--invert debe estar entre 0 y 1"):
        ic.main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--invert", "1.5"])
    with pytest.raises(SystemExit, match="no existe el clasificador de partida"):
        ic.main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--init", str(tmp_path / "nada.pt")])
    assert not (tmp_path / "o").exists()
    with pytest.raises(SystemExit, match="--size debe estar entre 24 y 160"):
        ic.main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--size", "8"])
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("size", [48, 64])
def test_the_classifier_reads_at_the_side_its_weights_were_trained_at(tmp_path: Path, size: int) -> None:
    import torch

    from vision.faces.classifier import build_model

    model = build_model(ic.CNN_WIDTHS, len(CLASS_NAMES), "cnn")
    weights = tmp_path / "w.pt"
    torch.save({"state": model.state_dict(), "size": size, "arch": "cnn", "widths": list(ic.CNN_WIDTHS)}, weights)
    seen: list[tuple[int, ...]] = []
    classifier = ic.IndexClassifier(weights)
    classifier.model.register_forward_pre_hook(lambda _, args: seen.append(tuple(args[0].shape)))
    probs = classifier.probabilities([np.full((40, 30, 3), 90, np.uint8)])
    assert classifier.size == size and seen == [(1, 3, size, size)]
    assert probs.shape == (1, len(CLASS_NAMES)) and np.isclose(probs.sum(), 1.0, atol=1e-5)


def test_turns_average_the_logits_of_the_crop_turned_by_quarters(tmp_path: Path) -> None:
    import torch

    from vision.faces.classifier import build_model

    model = build_model(ic.CNN_WIDTHS, len(CLASS_NAMES), "cnn")
    weights = tmp_path / "w.pt"
    torch.save({"state": model.state_dict(), "arch": "cnn", "widths": list(ic.CNN_WIDTHS), "temperature": 0.8}, weights)
    classifier = ic.IndexClassifier(weights)
    seen: list[np.ndarray] = []
    classifier.model.register_forward_hook(lambda _, args, out: seen.append((args[0].numpy(), out.numpy())))
    crop = np.random.default_rng(3).integers(0, 255, (48, 48, 3), np.uint8)
    probs = classifier.probabilities([crop], turns=4)
    ((inputs, logits),) = seen  # the four views in one batch
    assert len(inputs) == 4
    for k in range(1, 4):
        assert np.allclose(inputs[k], np.rot90(inputs[0], k, axes=(1, 2)), atol=1e-5)
    assert np.allclose(probs, ic.softmax(logits.mean(axis=0, keepdims=True) / 0.8), atol=1e-6)
    seen.clear()
    assert np.allclose(classifier.probabilities([crop]), ic.softmax(classifier_logits(classifier, crop) / 0.8))
    with pytest.raises(ValueError, match="turns debe ser 1, 2 o 4"):
        classifier.probabilities([crop], turns=3)


def classifier_logits(classifier: ic.IndexClassifier, crop: np.ndarray) -> np.ndarray:
    import torch

    with torch.inference_mode():
        return np.asarray(classifier.model(torch.from_numpy(ic.preprocess([crop], classifier.size))).numpy())


def test_packed_crops_are_the_folders_crops_as_jpegs(tmp_path: Path) -> None:
    folder = index_folder(tmp_path / "index")
    counts = ic.pack_crops(folder, tmp_path / "pack" / "crops.npz")
    assert counts == {"train": 12, "val": 4}
    for split in ("train", "val"):
        crops, labels = ic.crops_of(folder, split)
        packed, packed_labels = ic.packed_crops(tmp_path / "pack" / "crops.npz", split)
        assert packed_labels == labels and len(packed) == len(crops)
        for a, b in zip(crops, packed, strict=True):
            assert a.shape == b.shape and np.abs(a.astype(int) - b.astype(int)).mean() < 4


def test_batches_made_by_other_processes_are_the_same_whatever_their_number() -> None:
    import multiprocessing
    from types import SimpleNamespace

    crops = [np.random.default_rng(k).integers(0, 255, (96, 96, 3), np.uint8) for k in range(20)]
    labels = np.arange(20, dtype=np.intp)
    options = SimpleNamespace(covered=0.3, size=ic.SIZE, gray=0.2, invert=0.2)
    ic._SHARED.update(crops=crops, labels=labels, options=options)
    made = []
    for workers in (1, 2):
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            made.append(list(ic._pooled_batches(pool, len(crops), 8, np.random.default_rng(5))))
    assert len(made[0]) == 2  # 20 crops in batches of 8: the last four wait for the next epoch
    for (x1, y1), (x2, y2) in zip(*made, strict=True):
        assert x1.shape == (8, 3, ic.SIZE, ic.SIZE) and np.array_equal(x1, x2) and np.array_equal(y1, y2)
    assert len({int(i) for _, y in made[0] for i in y.argmax(1)}) == 16  # no crop twice in an epoch


def test_the_classifier_learns_from_packed_crops_without_ultralytics(tmp_path: Path) -> None:
    """As on a lent GPU machine (no ultralytics there): packed crops, a start, processes making the batches."""
    import subprocess
    import sys

    import torch

    from vision.faces.classifier import build_model

    ic.pack_crops(index_folder(tmp_path / "index"), tmp_path / "crops.npz")
    start = tmp_path / "start.pt"
    model = build_model(ic.CNN_WIDTHS, len(CLASS_NAMES), "cnn")
    torch.save({"state": model.state_dict(), "arch": "cnn", "widths": list(ic.CNN_WIDTHS)}, start)
    args = ["--crops", str(tmp_path / "crops.npz"), "--init", str(start), "--arch", "cnn", "--name", "c.pt"]
    args += ["--workers", "2", "--batch", "4", "--minutes", "0.05", "--out", str(tmp_path / "out")]
    code = "import sys; sys.modules['ultralytics'] = None; from vision.cards.index_classifier import main; "
    code += f"main({args!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "12 índices para aprender, 4 para validar" in done.stdout
    learnt = ic.IndexClassifier(tmp_path / "out" / "c.pt")
    assert learnt.arch == "cnn" and (tmp_path / "out" / "c.json").exists()


def test_bad_packed_crops_and_options_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = ["--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit, match="no existe el archivo de recortes"):
        ic.main(["--crops", str(tmp_path / "nada.npz"), *out])
    (tmp_path / "bad.npz").write_bytes(b"esto no es un npz")
    with pytest.raises(SystemExit, match="no es un archivo de recortes"):
        ic.main(["--crops", str(tmp_path / "bad.npz"), *out])
    with pytest.raises(SystemExit, match="--workers no puede ser negativo"):
        ic.main(["--crops", str(tmp_path / "bad.npz"), "--workers", "-1", *out])
    with pytest.raises(SystemExit, match="no tiene esa GPU"):
        ic.main(["--crops", str(tmp_path / "bad.npz"), "--device", "tpu", *out])
    with pytest.raises(SystemExit) as stop:  # one source or the other, not both
        ic.main(["--crops", str(tmp_path / "bad.npz"), "--data", str(tmp_path), *out])
    error = capsys.readouterr().err.strip().splitlines()[-1]  # argparse's words may be in Spanish (kiosk.cli)
    assert stop.value.code == 2 and "--data" in error and "--crops" in error
    assert not (tmp_path / "o").exists()


def test_a_reduced_crop_keeps_its_side_and_loses_the_detail_of_a_small_index() -> None:
    rng = np.random.default_rng(3)
    image = np.zeros((96, 96, 3), np.uint8)
    image[::2] = 255  # lines one pixel apart: gone at a 10 px index, kept at the crop's own scale
    small = ic.reduced(image, rng, (10.0, 10.0))
    assert small.shape == image.shape and small.std() < image.std() / 4
    assert np.array_equal(ic.reduced(image, rng, (100.0, 100.0)), image)


@pytest.mark.parametrize(("part", "classes"), [("--suits", ("S", "H", "D", "C")), ("--ranks", RANKS)])
def test_a_suit_or_rank_reader_learns_its_classes_and_carries_them_to_its_onnx(
    tmp_path: Path, part: str, classes: tuple[str, ...]
) -> None:
    """`--suits` and `--ranks`: the 52 codes folded into their suits (place // 13) or ranks (place % 13); the saved
    weights name the classes, and the ONNX exported from them too."""
    folder = index_folder(tmp_path / "data")
    out = tmp_path / "o"
    argv = ["--data", str(folder), "--out", str(out), "--minutes", "0.02", "--arch", "cnn", part]
    assert ic.main([*argv, "--name", "part.pt", "--gray", "1", "--small", "8,40", "--threads", "1"]) == 0
    reader = ic.IndexClassifier(out / "part.pt")
    assert reader.classes == classes
    probs = reader.probabilities([np.full((40, 30, 3), 90, np.uint8)])
    assert probs.shape == (1, len(classes))
    onnx = ic.IndexClassifier(reader.export(out / "part.onnx"))
    assert onnx.classes == reader.classes
    assert np.allclose(onnx.probabilities([np.full((40, 30, 3), 90, np.uint8)]), probs, atol=1e-3)


@pytest.mark.parametrize("bad", ["8", "ocho,40", "40,8", "2,40"])
def test_small_sides_that_are_not_min_max_pixels_are_refused(
    tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        ic.main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--suits", "--small", bad])
    assert "--small" in capsys.readouterr().err and not (tmp_path / "o").exists()
