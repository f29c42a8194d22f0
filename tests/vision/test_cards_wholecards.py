"""A real set boxed by whole cards, made a folder `cacho cards eval` scores, and its corners labelled for training."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import wholecards
from vision.cards.evaluate import evaluate_folder
from vision.cards.notation import CLASS_OF
from vision.cards.reader import IndexHit, _hits
from vision.types import Box

HEADER = "source_stem\tfile\trelation_to_first_version\tchirality\n"


@pytest.fixture
def real(tmp_path: Path) -> Path:
    """A whole-card set: 20 photos, each with a mirrored copy, two cards each (10C and AS in the set's classes)."""
    root = tmp_path / "whole-card"
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    (root / "class_map.txt").write_text(
        "# class_id\tsource_name\tcanonical\n0\t10 of clubs\t10C\n1\tace of spades\tAS\n"
    )
    rows = []
    for i in range(20):
        for kind in ("ref", "hflip"):
            name = f"IMG_{i:03d}_jpg.rf.{kind}"
            cv2.imwrite(str(root / "images" / "train" / f"{name}.jpg"), np.full((64, 64, 3), 200, np.uint8))
            (root / "labels" / "train" / f"{name}.txt").write_text("0 0.25 0.5 0.3 0.6\n1 0.75 0.5 0.3 0.6\n")
            rows.append(f"IMG_{i:03d}\t{name}.jpg\t{kind}\t-\n")
    (root / wholecards.GROUPS).write_text(HEADER + "".join(rows))
    return root


def test_only_first_versions_split_by_runs(real: Path, tmp_path: Path) -> None:
    out = tmp_path / "whole"
    counts = wholecards.build(real, out)
    # runs of 8: train, val, train
    assert counts == {
        "train": 12,
        "val": 8,
        "train_cards": 24,
        "val_cards": 16,
        "mirrored": 0,
        "left_out": 0,
        "relabelled": 0,
    }
    assert not list(out.rglob("*hflip*"))
    meta = json.loads(next((out / "meta" / "val").glob("*.json")).read_text())
    assert [c["card"] for c in meta["cards"]] == ["10C", "AS"]
    assert meta["cards"][0]["corners_unlabelled"] and meta["size"] == [64, 64]


def test_eval_matches_readings_by_the_corners_a_box_holds(real: Path, tmp_path: Path) -> None:
    out = tmp_path / "whole"
    wholecards.build(real, out)
    right = {"card": "10C", "face_down": False, "box": [8.0, 14.0, 14.0, 22.0], "uncertain": False}
    wrong = {"card": "2S", "face_down": False, "box": [42.0, 14.0, 48.0, 22.0], "uncertain": False}
    readings = {p.name: [right, wrong] for p in (out / "images" / "val").iterdir()}
    scores = evaluate_folder(out, readings, "val")
    assert (scores.shown, scores.right_sure, scores.silent_errors, scores.extra) == (16, 8, 8, 0)


def test_a_corner_takes_the_code_of_the_one_card_that_can_hold_it() -> None:
    cards = [("JS", (100.0, 100.0, 300.0, 380.0)), ("9S", (250.0, 90.0, 450.0, 370.0))]
    lone = IndexHit("7D", 0.9, Box(105, 105, 130, 150), second="7D")  # the jack's own corner, misread
    assert wholecards.corner_code(lone, cards) == "JS"
    shared = IndexHit("9S", 0.9, Box(255, 95, 280, 140), second="6S")  # near both boxes' edges
    assert wholecards.corner_code(shared, cards) == "9S"
    unsure = IndexHit("4H", 0.9, Box(255, 95, 280, 140), second="4H")  # neither code: no label
    assert wholecards.corner_code(unsure, cards) is None
    middle = IndexHit("JS", 0.9, Box(180, 220, 205, 265))  # a pip in the card's middle is no corner
    assert wholecards.corner_code(middle, cards) is None


def test_bad_folders_are_refused_in_spanish(real: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    with pytest.raises(SystemExit, match=r"falta class_map\.txt"):
        wholecards.main(["--out", str(out), "--real", str(tmp_path)])
    with pytest.raises(SystemExit, match=r"falta data\.yaml"):
        wholecards.main(["--out", str(out), "--real", str(real), "--corners-into", str(tmp_path / "nada")])
    with pytest.raises(SystemExit, match="--val-every"):
        wholecards.main(["--out", str(out), "--real", str(real), "--val-every", "0"])
    assert not out.exists()


def test_a_mirrored_photo_is_turned_back_and_an_undecided_one_left_out(real: Path, tmp_path: Path) -> None:
    photo = real / "images" / "train" / "IMG_001_jpg.rf.ref.jpg"
    pixels = np.full((64, 64, 3), 200, np.uint8)
    pixels[:, :16] = 20  # a dark band on the left: on the right once turned back
    cv2.imwrite(str(photo), pixels)
    listed = tmp_path / "mirrored.txt"
    listed.write_text(
        "# photo verdict score indices\nIMG_001 mirrored -12.0 9\nIMG_002 undecided 1.0 3\nIMG_003 same 9 9\n"
    )
    out = tmp_path / "whole"
    wholecards.build(real, out)  # an earlier build, before the list: its IMG_002 goes
    counts = wholecards.build(real, out, chirality=listed)
    assert (counts["mirrored"], counts["left_out"], counts["train"] + counts["val"]) == (1, 1, 19)
    assert not list(out.rglob("*IMG_002*"))
    plain = tmp_path / "plain"
    wholecards.build(real, plain)
    for split in ("train", "val"):  # leaving a photo out moves no other to the other side
        kept = {p.name for p in (plain / "images" / split).iterdir()} - {"real-whole-IMG_002_jpg.rf.ref.jpg"}
        assert {p.name for p in (out / "images" / split).iterdir()} == kept
    turned = next(out.rglob("images/*/real-whole-IMG_001_jpg.rf.ref.jpg"))
    assert not turned.is_symlink()
    read = cv2.imread(str(turned))
    assert read is not None
    assert read[:, 56:].mean() < 60 and read[:, :40].mean() > 150
    label = next(out.rglob("labels/*/real-whole-IMG_001_jpg.rf.ref.txt")).read_text().split()
    assert label[:2] == ["48", "0.750000"]  # 10C, its centre moved from x 0.25 to 0.75
    meta = json.loads(next(out.rglob("meta/*/real-whole-IMG_001_jpg.rf.ref.json")).read_text())
    assert meta["cards"][0]["visible_box"][0] == pytest.approx(38.4)
    assert next(out.rglob("images/*/real-whole-IMG_003_jpg.rf.ref.jpg")).is_symlink()


def test_a_bad_photo_or_list_writes_nothing(real: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    (real / "labels" / "train" / "IMG_019_jpg.rf.ref.txt").unlink()  # the last photo's label
    with pytest.raises(SystemExit, match="falta la foto o la etiqueta de IMG_019"):
        wholecards.main(["--out", str(out), "--real", str(real)])
    assert not out.exists()
    bad = tmp_path / "bad.txt"
    bad.write_text("IMG_001 flipped\n")
    with pytest.raises(SystemExit, match="línea 1: se espera"):
        wholecards.main(["--out", str(out), "--real", str(real), "--mirrored", str(bad)])
    with pytest.raises(SystemExit, match="no existe la lista de fotos espejadas"):
        wholecards.main(["--out", str(out), "--real", str(real), "--mirrored", str(tmp_path / "none.txt")])
    assert not out.exists()


def test_a_card_the_set_labels_wrong_is_relabelled_by_a_point_in_the_photo_as_the_set_gives_it(
    real: Path, tmp_path: Path
) -> None:
    fixes = tmp_path / "fixes.txt"
    # the ace (right half) of a photo as given, and of one turned back (its ace then on the left)
    fixes.write_text("# photo x y card\nIMG_004_jpg.rf.ref.jpg 48 32 AC\nIMG_001_jpg.rf.ref.jpg 48 30 2H  # mirrored\n")
    listed = tmp_path / "mirrored.txt"
    listed.write_text("IMG_001 mirrored -12.0 9\n")
    out = tmp_path / "whole"
    assert wholecards.build(real, out, chirality=listed, fixes=fixes)["relabelled"] == 2
    cards = {}
    for name in ("IMG_004", "IMG_001"):
        meta = json.loads(next(out.rglob(f"meta/*/real-whole-{name}_jpg.rf.ref.json")).read_text())
        cards[name] = [(c["card"], round(c["visible_box"][0], 1)) for c in meta["cards"]]
    assert cards == {"IMG_004": [("10C", 6.4), ("AC", 38.4)], "IMG_001": [("10C", 38.4), ("2H", 6.4)]}
    label = next(out.rglob("labels/*/real-whole-IMG_004_jpg.rf.ref.txt")).read_text().splitlines()
    assert label[1].split()[0] == "39"  # AC: the 52 codes go suit by suit (spades, hearts, diamonds, clubs)


def test_a_correction_that_lands_on_no_card_or_a_missing_list_writes_nothing(real: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    fixes = tmp_path / "fixes.txt"
    fixes.write_text("IMG_004_jpg.rf.ref.jpg 32 2 AC\n")  # between the two cards' boxes
    with pytest.raises(SystemExit, match=r"una corrección de IMG_004_jpg\.rf\.ref\.jpg no cae en ninguna carta"):
        wholecards.main(["--out", str(out), "--real", str(real), "--fixes", str(fixes)])
    fixes.write_text("IMG_004_jpg.rf.ref.jpg 48 32 ZZ\n")
    with pytest.raises(SystemExit, match="se esperaba «foto x y carta»"):
        wholecards.main(["--out", str(out), "--real", str(real), "--fixes", str(fixes)])
    with pytest.raises(SystemExit, match="no existe la lista de cartas mal etiquetadas"):
        wholecards.main(["--out", str(out), "--real", str(real), "--fixes", str(tmp_path / "none.txt")])
    assert not out.exists()


class _Model:
    """A detector that answers the same boxes (x1, y1, x2, y2, confidence, class) above the floor it is asked for."""

    def __init__(self, rows: list[tuple[float, float, float, float, float, int]]) -> None:
        self.rows = rows
        self.floors: list[float] = []

    def predict(self, images: list[np.ndarray], imgsz: int, conf: float) -> list[tuple[np.ndarray, ...]]:
        self.floors.append(conf)
        data = np.asarray([r for r in self.rows if r[4] >= conf], np.float64).reshape(-1, 6)
        return [(data[:, :4], data[:, 4], data[:, 5].astype(np.intp)) for _ in images]


class _Reader:
    """A card reader that finds one index and names every index it is given 10C (the second: 10C too)."""

    def __init__(self, found: list[IndexHit], model: _Model, spotter: _Model | None) -> None:
        self.found, self.model, self.spotter = found, model, spotter
        self.settings = type("Settings", (), {"turns": 1})()

    def detect(self, frame: np.ndarray) -> list[IndexHit]:
        return list(self.found)

    def _tiled(self, frame: np.ndarray, floor: float) -> list[IndexHit]:
        (result,) = self.model.predict([frame], 640, floor)
        return _hits(result, 0, 0)

    def named(self, frame: np.ndarray, hits: list[IndexHit], turns: int) -> list[IndexHit]:
        return [IndexHit("10C", 0.6, h.box, second="10C") for h in hits]


def test_faint_corners_are_the_finders_and_the_spotters_boxes_away_from_found_indices() -> None:
    found = [IndexHit("10C", 0.9, Box(10, 10, 30, 40))]
    finder = _Model([(11, 11, 31, 41, 0.1, 0), (100, 10, 115, 30, 0.08, 0), (200, 200, 260, 290, 0.5, 1)])
    spot = _Model([(101, 11, 116, 31, 0.3, 0), (300, 10, 315, 30, 0.06, 0), (400, 10, 415, 30, 0.01, 0)])
    reader = _Reader(found, finder, spot)
    faint = wholecards.faint_corners(reader, np.zeros((640, 640, 3), np.uint8), found, 0.05)  # type: ignore[arg-type]
    # the found index's own box and a back are not faint corners; the finder's and the spotter's box of one index are
    # one; a box under the floor is none
    assert sorted((h.box.x1, h.name) for h in faint) == [(101, "10C"), (300, "10C")]
    assert finder.floors == [0.05] and spot.floors == [0.05]


def test_with_faint_a_faint_index_is_labelled_only_where_a_classifier_names_the_card_that_holds_it(
    real: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = tmp_path / "whole"
    wholecards.build(real, whole)
    into = tmp_path / "into"
    into.mkdir()
    (into / "data.yaml").write_text("names: []\n")
    # the two cards of each 64x64 photo: 10C over x 6-25, AS over x 38-57 (rows 12-51)
    found = [IndexHit("10C", 0.9, Box(7, 13, 11, 19), second="10C")]
    faint = [
        IndexHit("10C", 0.4, Box(20, 45, 24, 50), second="4C"),  # the ten's other corner, named so: kept
        IndexHit("7D", 0.4, Box(52, 45, 56, 50), second="7H"),  # on the ace, named neither: no label
    ]
    monkeypatch.setattr("vision.cards.reader.CardReader", lambda models: _Reader(found, _Model([]), None))
    monkeypatch.setattr(wholecards, "faint_corners", lambda reader, frame, hits, floor: list(faint))
    counts = wholecards.add_corners(whole, into, faint=0.05)
    photos = counts["photos"]
    assert photos > 0 and counts["faint"] == photos and counts["labelled"] == 2 * photos
    rows = next((into / "labels" / "train").glob("*.txt")).read_text().splitlines()
    assert [int(r.split()[0]) for r in rows] == [CLASS_OF["10C"]] * 2  # the found corner and the faint one


def test_faint_needs_corners_into_and_a_share(real: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    with pytest.raises(SystemExit, match="--faint solo sirve con --corners-into"):
        wholecards.main(["--out", str(out), "--real", str(real), "--faint", "0.1"])
    with pytest.raises(SystemExit, match="--faint debe estar entre 0 y 1"):
        wholecards.main(["--out", str(out), "--real", str(real), "--corners-into", str(tmp_path), "--faint", "1.5"])
    assert not out.exists()
