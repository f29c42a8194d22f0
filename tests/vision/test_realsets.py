"""The registry of real dice sets: which are present, their split by photo, padding, the per-set evaluation."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_faces import MODEL_DIR, draw_die
from vision.faces import evaluate
from vision.faces.classifier import ONNX_NAME
from vision.faces.crops import UNREADABLE, photo_id
from vision.faces.realsets import (
    DATA_ROOT,
    PARTS,
    REAL_SETS,
    VAL_FOLDER,
    VAL_SHARE,
    RealSet,
    eval_crops,
    group_of,
    held_out,
    labelled,
    photos,
    real_set,
    real_sets,
    samples,
)
from vision.faces.train import UPRIGHT_PREFIXES, VAL_SPLIT, calibration_photo
from vision.types import Box

ROUNDCAM = real_set("rune55-roundcam")
MATTEO = real_set("matteo-wood-pipboxes")


def photo(path: Path, dice: list[tuple[int, Box]], boxes: list[tuple[int, Box]] | None = None) -> None:
    """A 200x150 photo of light wood with these dice drawn (face, die box), and its YOLO labels (`boxes`, or the
    dice's own boxes)."""
    img = np.full((150, 200, 3), (170, 190, 200), np.uint8)
    for face, box in dice:
        side = round(box.width)
        die = draw_die(face, "blanco", side)  # the die with the readers' margin about it
        x, y = round(box.x1 - (die.shape[1] - side) / 2), round(box.y1 - (die.shape[0] - side) / 2)
        img[y : y + die.shape[0], x : x + die.shape[1]] = die
    images = next(p for p in path.parents if p.name == "images")
    labels = images.parent / "labels" / path.parent.relative_to(images)
    path.parent.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)
    lines = [
        f"{face - 1} {b.center[0] / 200:.6f} {b.center[1] / 150:.6f} {b.width / 200:.6f} {b.height / 150:.6f}"
        for face, b in (boxes if boxes is not None else dice)
    ]
    (labels / (path.stem + ".txt")).write_text("\n".join(lines) + "\n")


def names(make: Callable[[int], str], rs: RealSet, val: bool, count: int) -> list[str]:
    """The first `count` file names `make(i)` gives whose photo the set's hash puts in val (or in train)."""
    out = []
    for i in range(1000):
        if held_out(group_of(rs, make(i))) == val:
            out.append(make(i))
        if len(out) == count:
            return out
    raise AssertionError("no names found")


def fake_root(tmp_path: Path) -> Path:
    """A data root with dice-real (train/val), a matteo folder (boxes round the pips) and a roundcam folder."""
    root = tmp_path / "data"
    real = root / "dice-real" / "images"
    photo(real / "train" / "mesa_jpg.rf.aaa.jpg", [(2, Box(30, 30, 70, 70)), (5, Box(110, 60, 160, 110))])
    photo(real / "train" / "epanemu_x_jpg.rf.bbb.jpg", [(3, Box(60, 40, 110, 90))])
    photo(real / "train" / "otra_jpg.rf.ccc.jpg", [(4, Box(60, 40, 110, 90))])  # a copy of a val photo
    photo(real / "val" / "otra_jpg.rf.ddd.jpg", [(4, Box(70, 50, 120, 100))])
    photo(real / "val" / "epanemu_y.jpg", [(6, Box(40, 40, 90, 90))])
    matteo = root / MATTEO.folder / "images"
    for i, name in enumerate(names(lambda i: f"train_dice_{i}.jpg", MATTEO, True, 2)):
        # a 2 and a 1, each labelled by its pips' box (the 2's: 0.6 of the die; the 1's: its pip alone)
        dice = [(2, Box(20 + i, 30, 80 + i, 90)), (1, Box(120, 40, 170, 90))]
        photo(matteo / name, dice, [(2, Box(38 + i, 48, 62 + i, 72)), (1, Box(140, 60, 150, 70))])
    for name in names(lambda i: f"train_six_{i}.jpg", MATTEO, False, 2):
        photo(matteo / name, [(6, Box(70, 40, 130, 100))], [(6, Box(82, 52, 118, 88))])
    roundcam = root / ROUNDCAM.folder / "images"
    for number in (*names(lambda i: f"test_{i:05d}_jpg", ROUNDCAM, True, 1), "test_00000_jpg"):
        digits = number.split("_")[1]
        # two augmented copies under test_, one under valid_: one capture
        for name in (f"test_{digits}_jpg.rf.1a.jpg", f"test_{digits}_jpg.rf.2b.jpg", f"valid_{digits}_jpg.rf.3c.jpg"):
            photo(roundcam / name, [(3, Box(60, 40, 120, 100))])
    return root


def test_constants_agree_with_the_trainer() -> None:
    assert VAL_FOLDER == VAL_SPLIT and VAL_FOLDER in PARTS
    assert real_set("dice-real").upright == UPRIGHT_PREFIXES


def test_only_the_sets_present_are_listed(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    assert [rs.name for rs in real_sets(root)] == ["dice-real", "rune55-roundcam", "matteo-wood-pipboxes"]
    assert {rs.name for rs in REAL_SETS} >= {"rune55-phone-trays", "skovy-catan-wood"}


def test_a_missing_or_empty_root_is_refused_in_spanish(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no existe la carpeta de datos reales"):
        real_sets(tmp_path / "nada")
    with pytest.raises(FileNotFoundError, match="no hay ningún conjunto de dados reales"):
        real_sets(tmp_path)
    with pytest.raises(ValueError, match="no conozco el conjunto real"):
        real_set("dados-de-marte")
    with pytest.raises(ValueError, match="parte desconocida"):
        photos(MATTEO, tmp_path, "test")


def test_dice_real_keeps_its_val_folder_and_drops_copies_of_val_photos_from_train(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    rs = real_set("dice-real")
    assert [p.name for p in photos(rs, root, "val")] == ["epanemu_y.jpg", "otra_jpg.rf.ddd.jpg"]
    assert [p.name for p in photos(rs, root, "train")] == ["epanemu_x_jpg.rf.bbb.jpg", "mesa_jpg.rf.aaa.jpg"]
    upright = {s.image: s.upright for s in samples(rs, root, "train")}
    assert upright == {"epanemu_x_jpg.rf.bbb.jpg": True, "mesa_jpg.rf.aaa.jpg": False}


def test_augmented_copies_of_one_capture_stay_on_one_side(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    assert group_of(ROUNDCAM, "valid_00007_jpg.rf.3c.jpg") == group_of(ROUNDCAM, "test_00007_jpg.rf.1a.jpg") == "00007"
    assert group_of(MATTEO, "valid_00007_jpg.rf.3c.jpg") == "valid_00007_jpg"  # elsewhere: the photo
    val = {p.name.split("_")[1] for p in photos(ROUNDCAM, root, "val")}
    train = {p.name.split("_")[1] for p in photos(ROUNDCAM, root, "train")}
    assert len(val) == len(train) == 1 and not val & train
    assert len(photos(ROUNDCAM, root, "val")) == len(photos(ROUNDCAM, root, "train")) == 3


def test_the_hash_split_is_stable_holds_a_quarter_and_leaves_the_calibration_part_photos() -> None:
    groups = [f"foto_{i}" for i in range(4000)]
    val = [g for g in groups if held_out(g)]
    assert abs(len(val) / len(groups) - VAL_SHARE) < 0.03
    assert val == [g for g in groups if held_out(g)]
    train = [g for g in groups if not held_out(g)]
    assert abs(sum(calibration_photo(g, 0.1) for g in train) / len(train) - 0.1) < 0.03


def check_disjoint(rs: RealSet, root: Path) -> None:
    """No photo id, and no group, in both parts of a set."""
    parts = {part: photos(rs, root, part) for part in PARTS}
    ids = {part: {photo_id(p.name) for p in found} for part, found in parts.items()}
    groups = {part: {group_of(rs, p.name) for p in found} for part, found in parts.items()}
    assert not ids["train"] & ids["val"], rs.name
    assert not groups["train"] & groups["val"], rs.name


def test_train_and_val_are_disjoint_by_photo_on_the_fake_root(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    for rs in real_sets(root):
        check_disjoint(rs, root)
        assert photos(rs, root, "train") and photos(rs, root, "val")


@pytest.mark.skipif(not DATA_ROOT.is_dir(), reason="sin ../shared/data")
@pytest.mark.parametrize("rs", REAL_SETS, ids=[rs.name for rs in REAL_SETS])
def test_train_and_val_are_disjoint_by_photo_on_the_real_sets(rs: RealSet) -> None:
    if not (DATA_ROOT / rs.folder / "images").is_dir():
        pytest.skip(f"sin {rs.folder}")
    check_disjoint(rs, DATA_ROOT)
    train, val = (len(photos(rs, DATA_ROOT, part)) for part in PARTS)
    assert train and val


def test_pip_boxes_are_padded_to_the_die_and_ones_left_out(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    dice = list(labelled(MATTEO, root, "val"))
    assert [face for _, _, face, _ in dice] == [2, 2]  # the 1s (a pip's box says nothing of its die) left out
    box = dice[0][1]
    assert box.width == pytest.approx(24 * 1.8, abs=0.5) and box.height == pytest.approx(24 * 1.8, abs=0.5)
    assert box.center == pytest.approx((50, 60), abs=1.5)
    assert MATTEO.die_box(Box(0, 0, 10, 30), 6).to_list() == pytest.approx([-16, -6, 26, 36])  # a square
    assert real_set("dice-real").die_box(Box(0, 0, 10, 30), 6) == Box(0, 0, 10, 30)
    crops = list(eval_crops(MATTEO, root, "val", turned=True))
    assert all(crop is seen for crop, seen, _, _ in crops)  # upright photos: never turned
    assert all(abs(crop.shape[0] - 43.2 * 1.3) <= 2 for crop, _, _, _ in crops)


def test_padded_samples_are_cut_as_if_the_boxes_held_the_die(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    found = samples(MATTEO, root, "train", background_per_image=2, seed=3)
    dice = [s for s in found if s.face != UNREADABLE]
    assert [s.face for s in dice] == [6, 6]
    die = dice[0]
    assert die.box.width == pytest.approx(36 * 1.4, abs=0.5) and die.upright
    assert all(abs(side - 36 * 1.4 * 2.2) <= 2 for side in die.patch.shape[:2])  # CONTEXT_MARGIN a side
    assert all(abs(side - 36 * 1.4 * 1.3) <= 2 for side in die.crop().shape[:2])  # as eval_crops cuts it
    bare = [s for s in found if s.face == UNREADABLE]
    assert 2 <= len(bare) <= 4
    assert [s.face for s in samples(MATTEO, root, "train", background_per_image=2, seed=3)] == [s.face for s in found]
    small = samples(MATTEO, root, "train", max_side=30)
    assert all(max(s.box.width, s.box.height) <= 30.5 for s in small)


def run_evaluate(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of `python -m vision.faces.evaluate`."""
    try:
        code = evaluate.main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_evaluate_prints_one_row_a_set_and_the_same_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = fake_root(tmp_path)
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(MODEL_DIR / ONNX_NAME, models / ONNX_NAME)
    code, out, _ = run_evaluate(["--real-sets", str(root), "--model-dir", str(models), "--json"], capsys)
    assert code == 0
    figures = json.loads(out)
    assert figures["part"] == "val" and figures["threshold"] == pytest.approx(0.9, abs=0.1)
    assert list(figures["sets"]) == ["dice-real", "rune55-roundcam", "matteo-wood-pipboxes"]
    for row in [*figures["sets"].values(), figures["all"]]:
        assert set(row) == {"photos", "dice", "classifier", "pips", "combined"}
        assert set(row["classifier"]) == {"accuracy", "sure_share", "sure_accuracy"}
        assert set(row["pips"]) == {"answered_share", "answered_accuracy"}
        assert set(row["combined"]) == {"accepted_share", "silent_errors", "silent_error_share"}
    assert [row["dice"] for row in figures["sets"].values()] == [2, 3, 2]
    assert figures["all"]["dice"] == 7 and figures["all"]["photos"] == 2 + 3 + 2
    assert list(models.iterdir()) == [models / ONNX_NAME]  # nothing written beside the model
    code, out, _ = run_evaluate(["--real-sets", str(root), "--model-dir", str(models), "--part", "train"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("parte train") and "ojo" in lines[1] and lines[2].startswith("conjunto")
    assert [line.split()[0] for line in lines[3:7]] == ["dice-real", "rune55-roundcam", "matteo-wood-pipboxes", "todos"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--real-sets", "{tmp}/nada"], "no existe la carpeta de datos reales"),
        (["--real-sets", "{root}", "--part", "test"], "parte desconocida"),
        (["--real-sets", "{root}", "--prefix", "byler_"], "--prefix va con --real"),
        (["--real-sets", "{root}", "--split", "train"], "--split va con --real"),
        (["--real-sets", "{root}", "--model-dir", "{tmp}/nada"], "no hay modelo de caras"),
        (["--real", "{root}/dice-real", "--json"], "--part y --json van con --real-sets"),
    ],
)
def test_evaluate_refuses_bad_input_with_exit_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    root = fake_root(tmp_path)
    failures = tmp_path / "fallos"
    args = [a.format(tmp=tmp_path, root=root) for a in argv] + ["--failures", str(failures)]
    code, out, err = run_evaluate(args, capsys)
    assert code == 2 and message in err and out == ""
    assert not failures.exists()
