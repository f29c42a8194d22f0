"""The public contracts `cacho cards read | eval`, with the committed card model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cli import CliError, main
from vision.cards import wholecards
from vision.cards.notation import CLASS_NAMES
from vision.cards.synth import generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cards"
KEYS = {"card", "face_down", "confidence", "box", "uncertain", "reasons", "corners", "indices"}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few rendered tables of each game, at the camera's scale, with their meta."""
    out = tmp_path_factory.mktemp("rendered")
    for i, game in enumerate(("truco", "cacho", "pifpaf", "cacheta")):
        generate(out, 2, 9100 + 10 * i, game, split="val", size=(1280, 960), negative=0.0)
    return out


def read_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    status = main(["cards", "read", *argv, "--json"])
    return status, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_read_gives_one_line_per_image_in_the_contract(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    images = sorted(str(p) for p in (rendered / "images" / "val").iterdir())
    status, lines = read_json(capsys, *images)
    assert status == 0 and [line["image"] for line in lines] == images
    cards = [card for line in lines for card in line["cards"]]  # type: ignore[attr-defined]
    assert cards, "nothing read on eight rendered tables"
    for card in cards:
        assert set(card) == KEYS
        assert (card["card"] is None) == card["face_down"]
        x1, y1, x2, y2 = card["box"]
        assert 0 <= x1 < x2 <= 1280 and 0 <= y1 < y2 <= 960
        assert card["uncertain"] == bool(card["reasons"])


def test_json_lines_stay_json_on_a_machine_where_ultralytics_never_ran(rendered: Path, tmp_path: Path) -> None:
    # ultralytics greets on its first run (no settings file); the reader reads the ONNX and never imports it
    image = str(sorted((rendered / "images" / "val").iterdir())[0])
    env = {**os.environ, "YOLO_CONFIG_DIR": str(tmp_path / "nunca")}
    done = subprocess.run(
        [sys.executable, "-m", "kiosk.cli", "cards", "read", image, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert [json.loads(line)["image"] for line in done.stdout.splitlines()] == [image]
    assert not (tmp_path / "nunca").exists(), "ultralytics ran: the card reader should read its ONNX alone"


def test_bad_images_get_a_clear_error_and_the_others_are_read(
    rendered: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = str(sorted((rendered / "images" / "val").iterdir())[0])
    (tmp_path / "empty.jpg").write_bytes(b"")
    (tmp_path / "text.jpg").write_text("no soy una foto")
    cv2.imwrite(str(tmp_path / "tiny.png"), np.zeros((8, 8, 3), np.uint8))
    bad = [str(tmp_path / n) for n in ("missing.jpg", "empty.jpg", "text.jpg", "tiny.png")]
    status, lines = read_json(capsys, bad[0], good, *bad[1:])
    assert status == 1
    assert [("error" in line) for line in lines] == [True, False, True, True, True]
    assert "no existe" in str(lines[0]["error"]) and "vacía" in str(lines[2]["error"])
    assert "no es una imagen" in str(lines[3]["error"]) and "muy chica" in str(lines[4]["error"])


def test_read_in_words_and_annotated(rendered: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = sorted((rendered / "images" / "val").iterdir())[0]
    assert main(["cards", "read", str(image), "--annotate", str(tmp_path / "ann")]) == 0
    assert capsys.readouterr().out.startswith(f"{image}: ")
    drawn = cv2.imread(str(tmp_path / "ann" / f"{image.stem}.annotated.jpg"))
    assert drawn is not None and drawn.shape == (960, 1280, 3)


def test_options_out_of_range_and_a_missing_model_are_refused(
    rendered: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = str(sorted((rendered / "images" / "val").iterdir())[0])
    assert main(["cards", "read", image, "--pair", "1.5"]) == 2
    assert "--pair debe estar entre 0 y 1" in capsys.readouterr().err
    assert main(["cards", "read", image, "--apart", "-0.1"]) == 2
    assert "--apart debe estar entre 0 y 1" in capsys.readouterr().err
    assert main(["cards", "read", image, "--joint", "2"]) == 2
    assert "--joint debe estar entre 0 y 1" in capsys.readouterr().err
    assert main(["cards", "read", image, "--joint", "casi"]) == 2
    assert "--joint debe ser un número entre 0 y 1 o none, no casi" in capsys.readouterr().err
    assert main(["cards", "read", image, "--turns", "3"]) == 2
    assert "--turns debe ser 1, 2 o 4, no 3" in capsys.readouterr().err
    assert main(["cards", "read", image, "--again", "1"]) == 2
    assert "--again debe ser 2, 4 o none, no 1" in capsys.readouterr().err
    assert main(["cards", "read", image, "--agree", "casi"]) == 2
    assert "--agree debe ser un número entre 0 y 1 o none, no casi" in capsys.readouterr().err
    assert main(["cards", "read", image, "--face", "1.5"]) == 2
    assert "--face debe estar entre 0 y 1, no 1.5" in capsys.readouterr().err
    assert main(["cards", "read", image, "--lone-second", "mucho"]) == 2
    assert "--lone-second debe ser un número entre 0 y 1 o none, no mucho" in capsys.readouterr().err
    assert main(["cards", "read", image, "--models", str(tmp_path)]) == 2
    assert "no están los pesos del lector de cartas" in capsys.readouterr().err


def test_eval_scores_a_rendered_folder_and_refuses_a_bad_one(
    rendered: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cards", "eval", str(rendered), "--split", "val", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["images"] == 8 and scores["shown"] > 0
    assert 0 <= scores["load"] <= 1 and scores["silent_errors"] == len(scores["errors"])
    assert main(["cards", "eval", str(tmp_path)]) == 2
    assert "falta images/" in capsys.readouterr().err
    assert main(["cards", "eval", str(rendered), "--split", "val", "--scale", "2"]) == 2
    assert "--scale 2: debe estar entre 0.1 y 1" in capsys.readouterr().err


def test_eval_reads_a_reduced_copy_and_prints_the_suits_table(
    rendered: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--scale reads each image reduced (smaller indices); the boxes are put back, so the cards still match."""
    assert main(["cards", "eval", str(rendered), "--split", "val", "--scale", "0.8"]) == 0
    out = capsys.readouterr().out
    assert "palos aceptados seguros y equivocados:" in out and "mostrado \\ leído" in out
    assert main(["cards", "eval", str(rendered), "--split", "val", "--scale", "0.8", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["recall"] >= 0.8 and sum(scores["suits"]["sure"].values()) > 0


def test_rendered_tables_are_read_with_no_silent_error(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On eight rendered tables, every card the reader is sure of is right, and most cards are found and named right
    (the model card's figures on 200 tables: recall 0.956, 99.6 % named right, no silent error)."""
    assert main(["cards", "eval", str(rendered), "--split", "val", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["silent_errors"] == 0, scores["errors"]
    assert scores["recall"] >= 0.85 and scores["card_accuracy"] >= 0.95


def test_a_real_photo_is_read_card_by_card(capsys: pytest.CaptureFixture[str]) -> None:
    """A real photo of four cards (tests/fixtures/cards/SOURCES.md): each read right and sure, from both corners."""
    image = FIXTURES / "real-phone-194251.jpg"
    status, lines = read_json(capsys, str(image))
    assert status == 0
    cards = lines[0]["cards"]
    assert sorted(c["card"] for c in cards) == ["2C", "8D", "AH", "JS"]  # type: ignore[index]
    assert not any(c["uncertain"] for c in cards) and all(c["corners"] == 2 for c in cards)  # type: ignore[index]


def real_fans(tmp_path: Path) -> Path:
    """The two real photos of five cards fanned, as a whole-card folder (vision.cards.wholecards), all validation."""
    real = tmp_path / "whole-card"
    real.mkdir()
    (real / "class_map.txt").write_text("".join(f"{i}\t{name}\t{name}\n" for i, name in enumerate(CLASS_NAMES)))
    for stem in ("real-whole-165352", "real-whole-172515"):
        for kind, suffix in (("images", ".jpg"), ("labels", ".txt")):
            (real / kind / "train").mkdir(parents=True, exist_ok=True)
            shutil.copy(FIXTURES / f"{stem}{suffix}", real / kind / "train" / f"{stem}{suffix}")
    wholecards.build(real, tmp_path / "whole", val_every=1)
    return tmp_path / "whole"


def test_real_fans_of_five_cards_are_read_and_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two real photos of five cards fanned over each other (tests/fixtures/cards/SOURCES.md), as a whole-card folder
    (vision.cards.wholecards): every card found and named right, none accepted wrong, at most one left unsure."""
    assert main(["cards", "eval", str(real_fans(tmp_path)), "--split", "val", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert (scores["shown"], scores["matched"], scores["right"]) == (10, 10, 10)
    assert scores["silent_errors"] == scores["silent_extra"] == 0 and scores["right_sure"] >= 9


def test_a_whole_still_is_spotted_reduced_and_read_at_full_resolution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole 4608x2592 still goes through the spotter: no silent error, most cards found (the model card: recall
    0.968, 6.4 % left to the coordinator on 80 stills)."""
    generate(tmp_path, 1, 7050, "pifpaf", split="val", size=(4608, 2592), negative=0.0)
    assert main(["cards", "eval", str(tmp_path), "--split", "val", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["shown"] >= 15 and scores["silent_errors"] == 0, scores["errors"]
    assert scores["recall"] >= 0.85 and scores["load"] <= 0.3


def test_cards_face_down_in_a_heap_are_read_one_by_one_on_a_whole_still(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Cacho showdown with a player's three cards face down, overlapping: three cards face down, not one."""
    generate(tmp_path, 1, 7116, "cacho", split="val", size=(4608, 2592), negative=0.0)
    meta = json.loads(next((tmp_path / "meta" / "val").glob("*.json")).read_text())
    assert sum(card["face_down"] for card in meta["cards"]) == 3
    image = next((tmp_path / "images" / "val").glob("*.jpg"))
    status, lines = read_json(capsys, str(image))
    assert status == 0
    down = [card for card in lines[0]["cards"] if card["face_down"]]  # type: ignore[union-attr]
    assert len(down) == 3 and not any(card["uncertain"] for card in down)


def test_cards_face_down_in_a_heap_are_read_one_by_one_on_a_piece_of_a_still(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same on a 1280x960 piece of a still, read over tiles: the backs the tiles join are split by the spotter's
    (three face down were one card before, models/cards)."""
    generate(tmp_path, 1, 1013, "cacho", split="val", size=(1280, 960))
    meta = json.loads(next((tmp_path / "meta" / "val").glob("*.json")).read_text())
    assert sum(card["face_down"] for card in meta["cards"]) == 3
    image = next((tmp_path / "images" / "val").glob("*.jpg"))
    status, lines = read_json(capsys, str(image))
    assert status == 0
    down = [card for card in lines[0]["cards"] if card["face_down"]]  # type: ignore[union-attr]
    assert len(down) == 3 and not any(card["uncertain"] for card in down)


def test_the_levels_given_reach_the_reader() -> None:
    import argparse

    from kiosk.commands.cards import _card_reader

    levels = {"models": None, "pair": None, "alone": None, "back": None, "apart": None, "joint": None, "agree": None}
    levels |= {"face": None, "lone_second": None, "suit_floor": None, "suit": None, "rank": None}
    levels |= {"least_index": None}
    args = argparse.Namespace(**(levels | {"apart": 0.5, "turns": None, "again": None}))
    reader = _card_reader(args)
    assert reader.settings.apart == 0.5 and reader.settings.pair == 0.9
    assert (reader.settings.turns, reader.settings.joint, reader.settings.again) == (1, 0.995, 4)
    given = argparse.Namespace(**(levels | {"joint": "0.9", "turns": 4, "again": "none"}))
    assert (_card_reader(given).settings.turns, _card_reader(given).settings.joint) == (4, 0.9)
    assert _card_reader(given).settings.again is None
    given = argparse.Namespace(**(levels | {"joint": "none", "turns": None, "again": "2"}))
    assert (_card_reader(given).settings.joint, _card_reader(given).settings.again) == (None, 2)
    assert _card_reader(given).settings.agree is None  # corner by corner unless a level is given
    given = argparse.Namespace(**(levels | {"agree": "0.95", "turns": None, "again": None}))
    assert _card_reader(given).settings.agree == 0.95
    given = argparse.Namespace(**(levels | {"agree": "none", "turns": None, "again": None}))
    assert _card_reader(given).settings.agree is None
    assert reader.settings.face == 0.5
    given = argparse.Namespace(**(levels | {"face": "none", "turns": None, "again": None}))
    assert _card_reader(given).settings.face is None
    assert reader.settings.lone_second == 0.9
    given = argparse.Namespace(**(levels | {"lone_second": "none", "turns": None, "again": None}))
    assert _card_reader(given).settings.lone_second is None
    assert reader.settings.suit_floor == 20
    given = argparse.Namespace(**(levels | {"suit_floor": "none", "turns": None, "again": None}))
    assert _card_reader(given).settings.suit_floor is None
    given = argparse.Namespace(**(levels | {"suit_floor": "12", "turns": None, "again": None}))
    assert _card_reader(given).settings.suit_floor == 12
    for bad, said in (("ancho", "no ancho"), ("-3", "no -3")):
        with pytest.raises(CliError, match=f"--suit-floor .*{said}"):
            _card_reader(argparse.Namespace(**(levels | {"suit_floor": bad, "turns": None, "again": None})))
    assert reader.settings.suit == 0.99
    given = argparse.Namespace(**(levels | {"suit": "none", "turns": None, "again": None}))
    assert _card_reader(given).settings.suit is None
    with pytest.raises(CliError, match="--suit debe estar entre 0 y 1, no 2"):
        _card_reader(argparse.Namespace(**(levels | {"suit": "2", "turns": None, "again": None})))
    assert (reader.settings.rank, reader.settings.least_index) == (0.99, 12)
    given = argparse.Namespace(**(levels | {"rank": "none", "least_index": "none", "turns": None, "again": None}))
    assert (_card_reader(given).settings.rank, _card_reader(given).settings.least_index) == (None, None)
    with pytest.raises(CliError, match="--least-index debe ser un número de píxeles o none, no ancho"):
        _card_reader(argparse.Namespace(**(levels | {"least_index": "ancho", "turns": None, "again": None})))
    assert reader.seams is not None  # the shipped models part twins
