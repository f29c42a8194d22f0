"""The figures of card readings on a labelled folder: recall, accuracy, silent errors, the coordinator's load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.cards import synth
from vision.cards.evaluate import (
    CardScores,
    TruthCard,
    class_names,
    enlarged,
    evaluate_folder,
    finish,
    iou,
    readings_from_jsonl,
    score_image,
    suit_table,
)
from vision.cards.notation import CLASS_NAMES, CLASS_OF


def square(x: float, y: float, w: float, h: float) -> list[list[float]]:
    """A card's outline as four corners."""
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def label(code: str, box: tuple[float, float, float, float], size: tuple[int, int] = (1000, 800)) -> str:
    """A YOLO label line for one index box in pixels."""
    (x1, y1, x2, y2), (w, h) = box, size
    return f"{CLASS_OF[code]} {(x1 + x2) / 2 / w} {(y1 + y2) / 2 / h} {(x2 - x1) / w} {(y2 - y1) / h}"


def reading(card: str | None, box: list[float], uncertain: bool = False, face_down: bool = False) -> dict[str, Any]:
    """One reading as `cacho cards read --json` gives it."""
    return {"card": card, "face_down": face_down, "confidence": 0.9, "box": box, "uncertain": uncertain, "reasons": []}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two hand-made images: four cards (one face down, one hidden under another) and an empty table."""
    synth.write_data_yaml(tmp_path)
    for part in ("images", "labels", "meta"):
        (tmp_path / part).mkdir()
    cards = [
        {"card": "10H", "face_down": False, "polygon": square(100, 100, 200, 280), "indices": [0, 1]},
        {"card": "AS", "face_down": False, "polygon": square(400, 100, 200, 280), "indices": [2]},
        {"card": "QC", "face_down": False, "polygon": square(700, 100, 200, 280), "indices": [3]},
        {"card": "7D", "face_down": True, "polygon": square(100, 450, 200, 280), "indices": []},
        {"card": "2C", "face_down": False, "polygon": square(700, 450, 200, 280), "indices": []},
    ]
    lines = [
        label("10H", (110, 110, 140, 170)),
        label("10H", (260, 310, 290, 370)),
        label("AS", (410, 110, 440, 170)),
        label("QC", (710, 110, 740, 170)),
    ]
    for name, meta_cards, label_lines in (("one", cards, lines), ("empty", [], [])):
        (tmp_path / "images" / f"{name}.jpg").write_bytes(b"")
        (tmp_path / "labels" / f"{name}.txt").write_text("".join(f"{line}\n" for line in label_lines))
        meta = {"size": [1000, 800], "cards": meta_cards}
        (tmp_path / "meta" / f"{name}.json").write_text(json.dumps(meta))
    return tmp_path


def test_every_card_right_and_sure(folder: Path) -> None:
    readings = {
        "one.jpg": [
            reading("10H", [100, 100, 300, 380]),
            reading("AS", [400, 100, 600, 380]),
            reading("QC", [700, 100, 900, 380]),
            reading(None, [100, 450, 300, 730], face_down=True),
        ]
    }
    scores = evaluate_folder(folder, readings)
    assert (scores.images, scores.shown, scores.face_down, scores.matched) == (2, 4, 1, 4)
    assert scores.recall == 1.0 and scores.card_accuracy == 1.0 and scores.load == 0.0
    assert scores.silent_errors == 0 and scores.images_all_right == 2


def test_silent_error_flagged_error_missed_card_and_extra(folder: Path) -> None:
    readings = {
        "one.jpg": [
            reading("10D", [105, 105, 295, 375]),  # wrong and sure: silent
            reading("AH", [400, 100, 600, 380], uncertain=True),  # wrong but flagged
            reading("7D", [100, 450, 300, 730]),  # a face-down card read as a face: silent
            reading("5S", [720, 460, 760, 520], uncertain=True),  # the hidden card: an extra, flagged
        ],
        "empty.jpg": [reading("KD", [10, 10, 60, 80])],  # a card on an empty table, sure: an unflagged extra
    }
    scores = evaluate_folder(folder, readings)
    assert scores.shown == 4 and scores.matched == 3 and scores.recall == 0.75
    assert scores.right == 0 and scores.card_accuracy == 0.0
    assert scores.silent_errors == 2 and scores.wrong_flagged == 1 and scores.flagged == 1
    assert scores.extra == 2 and scores.silent_extra == 1
    assert scores.load == 1.0 and scores.silent_rate == 0.5 and scores.images_all_right == 0
    assert {e["truth"] for e in scores.errors} == {"10H", None}
    assert [(e["image"], e["reading"]["card"]) for e in scores.extras] == [("empty.jpg", "KD")]  # the flagged 5S not


def test_face_up_card_read_face_down_is_wrong(folder: Path) -> None:
    readings = {"one.jpg": [reading(None, [400, 100, 600, 380], face_down=True, uncertain=True)]}
    scores = evaluate_folder(folder, readings)
    assert scores.matched == 1 and scores.right == 0 and scores.wrong_flagged == 1 and scores.silent_errors == 0
    assert scores.load == 1.0 and scores.images_all_right == 1  # the empty table, nothing read


def test_a_reading_boxing_only_an_index_is_matched(folder: Path) -> None:
    scores = evaluate_folder(folder, {"one.jpg": [reading("QC", [708, 108, 742, 172])]})
    assert scores.matched == 1 and scores.right_sure == 1 and scores.load == 0.75


def test_labels_must_agree_with_meta_and_names(folder: Path) -> None:
    assert class_names(folder) == CLASS_NAMES
    (folder / "labels" / "one.txt").write_text(label("9H", (110, 110, 140, 170)) + "\n")
    meta = json.loads((folder / "meta" / "one.json").read_text())
    meta["cards"] = meta["cards"][:1]
    meta["cards"][0]["indices"] = [0]
    (folder / "meta" / "one.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="no es la carta"):
        evaluate_folder(folder, {})
    (folder / "meta" / "one.json").unlink()
    with pytest.raises(FileNotFoundError, match="falta el meta"):
        evaluate_folder(folder, {})


def test_class_names_as_a_list(tmp_path: Path) -> None:
    (tmp_path / "data.yaml").write_text("path: .\nnames: ['AS', '10h', 'QC']\n")
    assert class_names(tmp_path) == ("AS", "10H", "QC")
    (tmp_path / "data.yaml").write_text("names:\n  - AS\n  - KD\ntrain: images\n")
    assert class_names(tmp_path) == ("AS", "KD")
    assert iou([0, 0, 10, 10], [5, 0, 15, 10]) == pytest.approx(1 / 3)


def test_perfect_readings_of_a_rendered_table(tmp_path: Path) -> None:
    synth.generate(tmp_path, 2, 40, "cacheta", "val", (640, 480), negative=0.0)
    readings = {}
    for meta_path in (tmp_path / "meta" / "val").glob("*.json"):
        meta = json.loads(meta_path.read_text())
        readings[f"{meta_path.stem}.jpg"] = [
            reading(None if c["face_down"] else c["card"], c["visible_box"], face_down=c["face_down"])
            for c in meta["cards"]
            if c["face_down"] or c["indices"]
        ]
    scores = evaluate_folder(tmp_path, readings, split="val")
    assert scores.shown > 0 and scores.recall == 1.0 and scores.load == 0.0 and scores.images_all_right == 2


def test_readings_from_json_lines(folder: Path) -> None:
    lines = [
        {"image": "somewhere/one.jpg", "cards": [reading("AS", [400, 100, 600, 380])]},
        {"image": "broken.jpg", "error": "no es una imagen"},
    ]
    readings = readings_from_jsonl("\n".join(json.dumps(line) for line in lines) + "\n")
    assert list(readings) == ["one.jpg"]
    assert evaluate_folder(folder, readings).right_sure == 1


def test_cards_from_hand_labels_without_meta(tmp_path: Path) -> None:
    for part in ("images", "labels"):
        (tmp_path / part).mkdir()
    (tmp_path / "data.yaml").write_text("names:\n  0: 10H\n  1: BACK\n  2: AS\n")
    cv2.imwrite(str(tmp_path / "images" / "real.png"), np.zeros((640, 640, 3), np.uint8))
    lines = [
        "0 0.10 0.10 0.05 0.08",  # the two corners of one 10H
        "0 0.30 0.40 0.05 0.08",
        "0 0.90 0.90 0.05 0.08",  # a second 10H far away: a card of its own
        "1 0.60 0.20 0.20 0.30",  # a back
        "2 0.50 0.60 0.05 0.08",
    ]
    (tmp_path / "labels" / "real.txt").write_text("\n".join(lines) + "\n")
    with pytest.raises(FileNotFoundError, match="falta el meta"):
        evaluate_folder(tmp_path, {})
    readings = {
        "real.png": [
            reading("10H", [64, 64, 192, 256]),
            reading(None, [320, 32, 448, 224], face_down=True),
            reading("AS", [300, 360, 340, 410], uncertain=True),
        ]
    }
    scores = evaluate_folder(tmp_path, readings, with_meta=False)
    assert scores.shown == 4 and scores.face_down == 1 and scores.matched == 3
    assert scores.right_sure == 2 and scores.flagged == 1 and scores.load == 0.5 and scores.silent_errors == 0


def test_a_roboflow_name_with_dots_finds_its_labels(tmp_path: Path) -> None:
    """`IMG_1_jpg.rf.3f2a.jpg` is labelled by `IMG_1_jpg.rf.3f2a.txt`, not by `IMG_1_jpg.rf.txt`."""
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "IMG_1_jpg.rf.3f2a.jpg"), np.zeros((100, 100, 3), np.uint8))
    (tmp_path / "labels" / "IMG_1_jpg.rf.3f2a.txt").write_text(f"{CLASS_OF['AS']} 0.2 0.2 0.1 0.1\n")
    (tmp_path / "data.yaml").write_text("names: [" + ", ".join(CLASS_NAMES) + "]\n")
    reading = {"card": "AS", "face_down": False, "box": [15, 15, 25, 25], "uncertain": False}
    scores = evaluate_folder(tmp_path, {"IMG_1_jpg.rf.3f2a.jpg": [reading]}, with_meta=False)
    assert scores.shown == 1 and scores.right_sure == 1


def test_a_card_read_from_a_corner_the_set_left_unlabelled_matches_by_its_other_corners() -> None:

    truth = [TruthCard("KC", False, ((10.0, 10.0, 40.0, 60.0),))]  # only the upper index is labelled
    reading = {"card": "KC", "box": [300.0, 400.0, 330.0, 450.0], "uncertain": False}  # its surer, lower index
    alone, paired = CardScores(), CardScores()
    score_image(truth, [reading], alone)
    score_image(truth, [{**reading, "indices": [[300.0, 400.0, 330.0, 450.0], [11.0, 10.0, 41.0, 60.0]]}], paired)
    assert (finish(alone).right, alone.silent_extra) == (0, 1)  # a box alone: the card missed, a reading of more
    assert (finish(paired).right_sure, paired.extra) == (1, 0)


def test_a_card_seen_only_by_a_covered_corner_counts_only_when_read_wrong_and_sure(folder: Path) -> None:
    meta_path = folder / "meta" / "one.json"
    meta = json.loads(meta_path.read_text())
    hidden = meta["cards"][4]  # 2C, no index labelled: one corner 40 % in view
    hidden["covered"] = [{"box": [710, 460, 740, 520], "seen": 0.4}]
    meta["cards"][2]["covered"] = [{"box": [860, 310, 890, 370], "seen": 0.5}]  # QC's other corner, half hidden
    meta_path.write_text(json.dumps(meta))
    base = [reading("10H", [110, 110, 140, 170]), reading("AS", [410, 110, 440, 170])]
    right = evaluate_folder(folder, {"one.jpg": [*base, reading("2C", [710, 460, 740, 520])]})
    assert (right.shown, right.extra, right.silent_errors, right.matched) == (4, 0, 0, 2)
    wrong = evaluate_folder(folder, {"one.jpg": [*base, reading("3C", [710, 460, 740, 520])]})
    assert wrong.silent_errors == 1 and wrong.errors[0]["covered"] and wrong.extra == 0
    doubted = evaluate_folder(folder, {"one.jpg": [*base, reading("3C", [710, 460, 740, 520], uncertain=True)]})
    assert (doubted.silent_errors, doubted.extra, doubted.shown) == (0, 0, 4)
    # a labelled card read from its covered corner is the card read
    other = evaluate_folder(folder, {"one.jpg": [*base, reading("QC", [860, 310, 890, 370])]})
    assert (other.right_sure, other.extra) == (3, 0)


def test_cards_boxed_whole_match_the_reading_whose_corners_they_hold() -> None:
    # a fan: 9S lies over JS, so JS's box holds a corner of 9S too
    jack = TruthCard("JS", False, ((100.0, 100.0, 300.0, 380.0),), whole_only=True)
    nine = TruthCard("9S", False, ((250.0, 90.0, 450.0, 370.0),), whole_only=True)
    nine_read = {"card": "9S", "box": [255.0, 95.0, 280.0, 140.0], "uncertain": False}  # inside both boxes
    jack_read = {"card": "JS", "box": [105.0, 105.0, 130.0, 150.0], "uncertain": False}
    both = CardScores()
    score_image([jack, nine], [nine_read, jack_read], both)
    assert (finish(both).right_sure, both.silent_errors, both.extra) == (2, 0, 0)
    # the jack's corner read as the nine: the nine's own card is still matched, the jack's reading is one of more
    misread = CardScores()
    score_image([jack, nine], [nine_read, {**jack_read, "card": "9S"}], misread)
    assert (finish(misread).right_sure, misread.silent_errors, misread.silent_extra) == (1, 1, 0)
    # a reading outside every box is a reading of more
    outside = CardScores()
    score_image([jack], [{**jack_read, "box": [500.0, 500.0, 520.0, 540.0]}], outside)
    assert (finish(outside).matched, outside.silent_extra) == (0, 1)


def test_a_rendered_folder_is_also_scored_game_by_game(folder: Path) -> None:
    for name, game in (("one", "truco"), ("empty", "cacho")):
        meta = json.loads((folder / "meta" / f"{name}.json").read_text())
        (folder / "meta" / f"{name}.json").write_text(json.dumps(meta | {"game": game}))
    readings = {
        "one.jpg": [reading("10H", [100, 100, 300, 380]), reading("AS", [400, 100, 600, 380], uncertain=True)],
        "empty.jpg": [reading("KD", [10, 10, 60, 80])],
    }
    scores = evaluate_folder(folder, readings)
    assert list(scores.games) == ["cacho", "truco"]
    assert scores.games["truco"] == {
        "images": 1, "shown": 4, "recall": 0.5, "load": 0.75, "silent_errors": 0, "silent_extra": 0
    }  # fmt: skip
    assert scores.games["cacho"]["shown"] == 0 and scores.games["cacho"]["silent_extra"] == 1
    assert scores.to_dict()["games"] == scores.games
    # hand-labelled photos name no game
    (folder / "meta" / "one.json").write_text(json.dumps({"size": [1000, 800], "cards": []}))
    (folder / "meta" / "empty.json").write_text(json.dumps({"size": [1000, 800], "cards": []}))
    (folder / "labels" / "one.txt").write_text("")
    assert evaluate_folder(folder, {}).games == {}


def test_suits_read_are_counted_against_suits_shown_sure_and_flagged_apart(folder: Path) -> None:
    readings = {
        "one.jpg": [
            reading("10S", [105, 105, 295, 375]),  # a hearts card read as spades, sure
            reading("AS", [400, 100, 600, 380]),  # right, sure
            reading("QS", [700, 100, 900, 380], uncertain=True),  # a clubs card read as spades, flagged
            reading(None, [100, 450, 300, 730], face_down=True),  # face down: no suit
        ]
    }
    scores = evaluate_folder(folder, readings)
    assert scores.suits == {"sure": {"HS": 1, "SS": 1}, "flagged": {"CS": 1}}
    assert scores.sure_suit_errors == 1 and scores.to_dict()["sure_suit_errors"] == 1
    table = suit_table(scores.suits["sure"])
    assert table[0].split()[-4:] == ["S", "H", "D", "C"] and table[2].split() == ["H", "1", "0", "0", "0"]


def test_a_reading_of_a_reduced_copy_is_put_back_in_the_images_pixels() -> None:
    read = {"card": "5C", "box": [10, 20, 30, 40], "indices": [[10, 20, 15, 30]], "uncertain": False}
    assert enlarged(read, 2.0) == {**read, "box": [20, 40, 60, 80], "indices": [[20, 40, 30, 60]]}
