"""Rendered card tables: same seed same files, labels that agree with the meta, each game's layout, twins."""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import synth
from vision.cards.evaluate import class_names
from vision.cards.notation import CLASS_NAMES, GAME_DECKS, deck, parse_card

SMALL = (640, 480)


def digest(folder: Path) -> dict[str, str]:
    """Hash of every file under a folder, by relative path."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def inside(point: tuple[float, float], polygon: list[list[float]], tolerance: float = 2.0) -> bool:
    """Whether a point lies in a convex polygon, give or take `tolerance` pixels."""
    contour = np.array(polygon, np.float32)
    return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True) >= -tolerance


def test_notation_and_decks() -> None:
    assert len(CLASS_NAMES) == 52 and len(set(CLASS_NAMES)) == 52
    assert parse_card(" 10h ") == "10H"
    with pytest.raises(ValueError, match="carta inválida"):
        parse_card("11X")
    assert len(deck("cacho")) == 24 and len(deck("truco")) == 40 and len(deck("pifpaf")) == 104
    assert all(card in CLASS_NAMES for game in GAME_DECKS for card in deck(game))


def test_sprites_and_manifest() -> None:
    faces, backs = synth.card_art()
    assert set(faces) == set(CLASS_NAMES) and len(backs) == 2
    for art in faces.values():
        x1, y1, x2, y2 = art.index
        h, w = art.pixels.shape[:2]
        assert art.pixels.shape[2] == 4 and 0 < x1 < x2 < 0.2 * w and 0 < y1 < y2 < 0.3 * h


def test_same_seed_same_files(tmp_path: Path) -> None:
    synth.generate(tmp_path / "a", 2, 7, "cacho", "val", SMALL)
    synth.generate(tmp_path / "b", 2, 7, "cacho", "val", SMALL)
    synth.generate(tmp_path / "c", 1, 8, "cacho", "val", SMALL)
    a, b = digest(tmp_path / "a"), digest(tmp_path / "b")
    assert a == b and len(a) == 7
    assert digest(tmp_path / "c")["images/val/cacho-8.jpg"] == a["images/val/cacho-8.jpg"]


@pytest.mark.parametrize("game", ["truco", "cacho", "pifpaf", "cacheta"])
def test_labels_agree_with_meta(tmp_path: Path, game: str) -> None:
    synth.generate(tmp_path, 3, 100, game, None, SMALL, negative=0.0)
    names = class_names(tmp_path)
    assert names == CLASS_NAMES
    ranks, _ = GAME_DECKS[game]
    labelled = covered = 0
    for meta_path in sorted((tmp_path / "meta").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        lines = (tmp_path / "labels" / f"{meta_path.stem}.txt").read_text().split()
        rows = [lines[i : i + 5] for i in range(0, len(lines), 5)]
        owners = Counter(i for card in meta["cards"] for i in card["indices"])
        assert sorted(owners) == list(range(len(rows))) and set(owners.values()) <= {1}
        w, h = meta["size"]
        for card in meta["cards"]:
            if card["face_down"]:
                assert card["indices"] == []
                continue
            assert card["card"][:-1] in ranks and len(card["indices"]) + len(card["covered"]) <= 2
            assert len(card["indices_seen"]) == len(card["indices"])
            assert all(synth.MIN_VISIBLE <= seen <= 1 for seen in card["indices_seen"])
            for part in card["covered"]:  # an index partly in view, never labelled
                x1, y1, x2, y2 = part["box"]
                assert 0 < part["seen"] < synth.MIN_VISIBLE and 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
                covered += 1
            for i in card["indices"]:
                cls, cx, cy, bw, bh = rows[i]
                assert names[int(cls)] == card["card"]
                x, y, bw_px, bh_px = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
                assert 15 < max(bw_px, bh_px) < 120
                for corner in ((x - bw_px / 2, y - bh_px / 2), (x + bw_px / 2, y + bh_px / 2), (x, y)):
                    assert inside(corner, card["polygon"], tolerance=max(bw_px, bh_px) * 0.5)
                assert inside((x, y), card["polygon"])
                labelled += 1
    assert labelled > 0
    if game in ("pifpaf", "cacheta"):  # fans and melds leave indices half under the next card
        assert covered > 0


def test_truco_and_cacho_lay_out_their_hands() -> None:
    rng = np.random.default_rng(3)
    per_seat: Counter[int] = Counter()
    down = 0
    for _ in range(30):
        cards = synth.layout(rng, "truco")
        seats = Counter(c.seat for c in cards)
        assert max(seats.values()) <= 3 and len(seats) in (2, 4, 6)
        down += sum(c.face_down for c in cards)
        cards = synth.layout(rng, "cacho")
        per_seat.update(Counter(c.seat for c in cards).values())
        assert all(c.code and c.code[:-1] in "A23456" for c in cards)
    assert set(per_seat) == {3} and down > 0


def test_two_decks_make_twins() -> None:
    rng = np.random.default_rng(11)
    twins = 0
    for _ in range(20):
        cards = synth.layout(rng, "pifpaf")
        codes = Counter(c.code for c in cards if c.code)
        assert max(codes.values()) <= 2
        twins += sum(n == 2 for n in codes.values())
        for code, n in codes.items():
            if n == 2:
                assert sorted(c.deck for c in cards if c.code == code) == [0, 1]
        seats = Counter(c.seat for c in cards if c.seat >= 0)
        assert all(9 <= n <= 10 for n in seats.values())
        assert sum(c.code is None and c.face_down for c in cards) == 1
    assert twins > 0


def test_command_line_describes_its_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    synth.main(["--out", str(tmp_path), "--count", "2", "--seed", "3", "--game", "truco", "--size", "640x480"])
    facts = synth.describe(tmp_path)
    assert facts["images"] == 2 and facts["indices"] > 0 and 30 < facts["index_px_median"] < 100
    assert "2 imágenes en" in capsys.readouterr().out


def test_empty_tables_and_bad_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rendered = synth.render(5, "truco", SMALL, negative=1.0)
    assert rendered.labels == [] and rendered.meta["cards"] == [] and rendered.meta["negative"]
    assert rendered.image.shape == (480, 640, 3)
    base = ["--out", str(tmp_path), "--seed", "1", "--game", "truco"]
    refused = [
        (["--count", "1", "--size", "9x9"], "tamaño fuera de rango «9x9»"),
        (["--count", "1", "--size", "big"], "tamaño inválido «big»"),
        (["--count", "1", "--negatives", "2"], "--negatives debe estar entre 0 y 1"),
        (["--count", "0"], "--count debe ser al menos 1"),
    ]
    for bad, reason in refused:
        with pytest.raises(SystemExit) as stop:
            synth.main([*base, *bad])
        assert stop.value.code == 2 and reason in capsys.readouterr().err, bad


def test_a_table_laid_seat_by_seat_puts_each_seats_cards_in_its_direction() -> None:
    laid = [[("7H", False), ("7S", False)], [("AS", False)], [("3C", True)], [("KD", False), ("2D", False)]]
    cards = synth.layout(np.random.default_rng(5), "truco", laid)
    assert [(c.code, c.seat, c.face_down) for c in cards] == [
        ("7H", 0, False),
        ("7S", 0, False),
        ("AS", 1, False),
        ("3C", 2, True),
        ("KD", 3, False),
        ("2D", 3, False),
    ]
    centre = np.array(synth.STILL) / 2
    for card in cards:
        x, y = card.transform[:2, 2] - centre
        toward = synth.seat_angle(card.seat, 4)
        off = abs((math.atan2(y, x) - toward + math.pi) % (2 * math.pi) - math.pi)
        assert off < math.pi / 4, (card.code, card.seat)
    assert not any(c.code is None for c in synth.layout(np.random.default_rng(5), "pifpaf", laid[:2]))
