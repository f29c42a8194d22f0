"""`cacho cards adapt`: the two index classifiers fine-tuned on a table's deck, judged on held-out photos, written
whole only when they read those corners no worse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from kiosk.cli import main
from vision.cards import adapt as cards_adapt
from vision.cards.index_classifier import CNN_WIDTHS, SECOND_NAME, WEIGHTS_NAME, IndexClassifier, save
from vision.cards.notation import CLASS_NAMES
from vision.faces.classifier import build_model


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A models folder whose card reader has two untrained small classifiers (the finder is not read)."""
    root = tmp_path / "models"
    cards = root / "cards"
    cards.mkdir(parents=True)
    (cards / "finder.pt").write_bytes(b"finder")
    for seed, name in ((1, WEIGHTS_NAME), (2, SECOND_NAME)):
        import torch

        torch.manual_seed(seed)
        save(build_model(CNN_WIDTHS, len(CLASS_NAMES), "cnn"), cards / name, 1.0, 48, "cnn")
    return root


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    """A YOLO folder of 40 photos, four corner indices each: a seven of hearts (a bar) and a two of spades (a ring)."""
    root = tmp_path / "deck"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rng = np.random.default_rng(0)
    for n in range(40):
        image = np.full((200, 200, 3), 235, np.uint8)
        rows = []
        for k, (x, y) in enumerate(((20, 20), (120, 20), (20, 120), (120, 120))):
            code = "7H" if k % 2 else "2S"
            if code == "7H":
                cv2.rectangle(image, (x + 20, y + 5), (x + 30, y + 55), (40, 40, 200), -1)
            else:
                cv2.circle(image, (x + 25, y + 30), 18, (30, 30, 30), 5)
            rows.append(f"{CLASS_NAMES.index(code)} {(x + 25) / 200} {(y + 30) / 200} {50 / 200} {60 / 200}")
        image = np.clip(image + rng.normal(0, 6, image.shape), 0, 255).astype(np.uint8)
        cv2.imwrite(str(root / "images" / f"IMG_{n:03d}.jpg"), image)
        (root / "labels" / f"IMG_{n:03d}.txt").write_text("\n".join(rows) + "\n")
    return root


def _skip_training(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cards_adapt, "fit", lambda *args, **kwargs: [])
    monkeypatch.setattr(cards_adapt, "fit_temperature", lambda logits, labels: 1.0)


def test_a_pair_that_reads_no_worse_is_written_whole(
    source: Path, deck: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _skip_training(monkeypatch)  # the classifiers as they were: no worse, so written
    out = tmp_path / "adapted"
    result = cards_adapt.adapt(deck, out, source, minutes=0.05, command="cacho cards adapt deck")
    assert result.written and result.before == result.after
    assert result.learnt + result.held_out == 160 and result.held_out >= cards_adapt.MIN_HELD_OUT
    assert result.cards == 2
    assert (out / "cards" / "finder.pt").read_bytes() == b"finder"  # the rest of the folder copied as it was
    for name in (WEIGHTS_NAME, SECOND_NAME):
        assert IndexClassifier(out / "cards" / name).size == 48
    report = json.loads((out / "cards" / "ADAPTED.json").read_text())
    assert report["from"] == str(source) and report["command"] == "cacho cards adapt deck"
    assert report["held_out"] == result.held_out and report["written"]


def test_a_pair_that_reads_the_held_out_corners_worse_is_not_written(
    source: Path, deck: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch

    def wrong(model: Any, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
        with torch.no_grad():  # every corner read as the king of clubs, sure
            last.bias.fill_(-50.0)
            last.bias[CLASS_NAMES.index("KC")] = 50.0
        return []

    monkeypatch.setattr(cards_adapt, "fit", wrong)
    monkeypatch.setattr(cards_adapt, "fit_temperature", lambda logits, labels: 1.0)
    out = tmp_path / "adapted"
    assert main(["cards", "adapt", str(deck), "--out", str(out), "--from", str(source), "--minutes", "0.05"]) == 2
    err = capsys.readouterr().err
    assert "leen peor las esquinas apartadas" in err and "no se escribe" in err
    assert not out.exists()


def test_the_corners_learnt_and_held_out_never_share_a_photo(deck: Path) -> None:
    from vision.cards.index_classifier import photo_crops

    found = photo_crops(deck, "", 48)
    held = {stem for stem, _, _ in found if cards_adapt.held_out_photo(stem, 0.3)}
    assert 0 < len(held) < 40
    fit_crops, _, held_crops, _ = cards_adapt.split_crops(found, 0.3)
    assert len(held_crops) == 4 * len(held) and len(fit_crops) == 4 * (40 - len(held))


def test_bad_folders_and_options_are_refused_in_spanish(
    source: Path, deck: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    cases = [
        (["--holdout", "0.9"], "--holdout 0.9: debe estar entre 0.05 y 0.8"),
        (["--minutes", "0"], "--minutes 0.0: debe estar entre 0 y 120"),
        (["--from", str(tmp_path)], "no es una carpeta de modelos con el lector de cartas"),
        (["--from", str(source), "--split", "val"], "no es una carpeta YOLO"),
    ]
    for extra, message in cases:
        assert main(["cards", "adapt", str(deck), "--out", str(out), *extra]) == 2
        assert message in capsys.readouterr().err
    assert main(["cards", "adapt", str(tmp_path / "nada"), "--out", str(out)]) == 2
    assert "no existe la carpeta" in capsys.readouterr().err
    assert main(["cards", "adapt", str(deck), "--out", str(source), "--from", str(source)]) == 2
    assert "es la carpeta de la que se parte" in capsys.readouterr().err
    for label in list((deck / "labels").glob("*.txt"))[5:]:
        label.unlink()
    assert main(["cards", "adapt", str(deck), "--out", str(out), "--from", str(source)]) == 2
    assert "20 esquinas etiquetadas; hacen falta al menos 60" in capsys.readouterr().err
    assert not out.exists()


def test_a_short_real_fine_tune_runs_and_writes_only_what_reads_no_worse(
    source: Path, deck: Path, tmp_path: Path
) -> None:
    lines: list[str] = []
    out = tmp_path / "adapted"
    result = cards_adapt.adapt(deck, out, source, minutes=0.15, progress=lines.append)
    assert any("primera lectura: época 1" in line for line in lines)
    assert any("segunda lectura: época 1" in line for line in lines)
    assert result.written == (result.after.wrong <= result.before.wrong and result.after.load <= result.before.load)
    assert (out / "cards" / WEIGHTS_NAME).is_file() == result.written
