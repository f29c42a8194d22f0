"""The card reader's rules without its model: tiles, merging, pairing corners, when a card is sure; the data folder."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.cards import dataset
from vision.cards.notation import CLASS_NAMES, CLASS_OF, RANKS
from vision.cards.reader import (
    OVERLAP,
    TILE,
    WINDOW,
    WINDOW_REACH,
    CardReader,
    CardReading,
    CardSettings,
    IndexHit,
    cards_of,
    join_backs,
    judge,
    merge,
    pair_corners,
    split_heaps,
    tiles,
    windows,
)
from vision.types import Box, Frame


def hit(name: str, confidence: float, x: float, y: float, side: float = 50) -> IndexHit:
    return IndexHit(name, confidence, Box(x, y, x + side * 0.6, y + side))


@pytest.mark.parametrize("size", [(640, 480), (1280, 960), (4608, 2592), (641, 641)])
def test_tiles_cover_the_frame_and_overlap_by_more_than_an_index(size: tuple[int, int]) -> None:
    width, height = size
    corners = tiles(width, height)
    xs = sorted({x for x, _ in corners})
    ys = sorted({y for _, y in corners})
    assert xs[0] == 0 and ys[0] == 0
    assert xs[-1] + TILE >= width and ys[-1] + TILE >= height
    for a, b in itertools.pairwise(xs):
        assert a + TILE - b >= OVERLAP
    for a, b in itertools.pairwise(ys):
        assert a + TILE - b >= OVERLAP


def test_merge_keeps_the_surest_and_remembers_a_close_rival() -> None:
    kept = merge([hit("7H", 0.9, 100, 100), hit("2H", 0.5, 101, 101), hit("7H", 0.8, 400, 100)])
    assert [(h.name, h.rival) for h in kept] == [("7H", "2H"), ("7H", None)]
    faint = merge([hit("7H", 0.9, 100, 100), hit("2H", 0.2, 101, 101)])
    assert [(h.name, h.rival) for h in faint] == [("7H", None)]


def test_two_corners_of_one_code_make_one_card_and_twins_apart_stay_two() -> None:
    near = [hit("QS", 0.9, 100, 100), hit("QS", 0.8, 250, 300)]
    assert [len(g) for g in pair_corners(near)] == [2]
    far = [hit("QS", 0.9, 100, 100), hit("QS", 0.8, 1500, 100)]
    assert [len(g) for g in pair_corners(far)] == [1, 1]
    # corners of one code near each other are one card (a card shows up to four); one far off is a twin
    three = [hit("5D", 0.9, 100, 100), hit("5D", 0.9, 130, 110), hit("5D", 0.9, 300, 100), hit("5D", 0.9, 1000, 100)]
    groups = pair_corners(three)
    assert sorted(len(g) for g in groups) == [1, 3]
    assert any(g[0].box.x1 == 1000 for g in groups if len(g) == 1)


def test_a_card_is_sure_only_when_two_corners_agree() -> None:
    settings = CardSettings(pair=0.5, alone=None)
    pair = judge([hit("10H", 0.9, 0, 0), hit("10H", 0.7, 200, 300)], settings)
    assert pair.card == "10H" and not pair.uncertain and pair.corners == 2
    assert pair.box.to_list() == [0, 0, 30, 50]  # the surer corner
    alone = judge([hit("10H", 0.99, 0, 0)], settings)
    assert alone.uncertain and "una sola esquina" in alone.reasons[0]
    both = IndexHit("10H", 0.99, Box(0, 0, 30, 50), second="10H", second_probs=spread("10H", 0.97, "10D"))
    assert not judge([both], CardSettings(alone=0.95)).uncertain  # one corner, named so by both classifiers
    assert not judge([both], CardSettings()).uncertain  # the default accepts it from 0.95
    unsure = IndexHit("10H", 0.94, Box(0, 0, 30, 50), second="10H", second_probs=both.second_probs)
    assert judge([unsure], CardSettings()).uncertain
    assert judge([hit("10H", 0.99, 0, 0)], CardSettings(alone=0.95)).uncertain  # no second classifier: one reading
    other = judge([IndexHit("10H", 0.99, Box(0, 0, 30, 50), second="10D")], CardSettings())
    assert other.uncertain and other.reasons[0] == "la segunda lectura dice 10D"
    weak = judge([hit("10H", 0.9, 0, 0), hit("10H", 0.3, 200, 300)], settings)
    assert weak.uncertain and "poco seguras" in weak.reasons[0]
    rival = judge([IndexHit("10H", 0.9, Box(0, 0, 30, 50), "10D"), hit("10H", 0.9, 200, 300)], settings)
    assert rival.uncertain and "10D" in rival.reasons[0]


def test_a_card_whose_indices_are_too_small_for_its_suit_goes_to_the_coordinator() -> None:
    """Two sure corners that agree, but 19 px long: the suit glyph is a few pixels (2S read 2C, sure, at 13-17 px)."""
    settings = CardSettings(pair=0.5, alone=None)
    small = judge([hit("2S", 0.99, 0, 0, side=19), hit("2S", 0.99, 100, 150, side=19)], settings)
    assert small.uncertain and small.reasons == ("índice demasiado pequeño para leer el palo (19 px)",)
    one_large = judge([hit("2S", 0.99, 0, 0, side=19), hit("2S", 0.99, 100, 150, side=20)], settings)
    assert not one_large.uncertain
    unchecked = judge(
        [hit("2S", 0.99, 0, 0, side=12), hit("2S", 0.99, 100, 150, side=12)],
        CardSettings(pair=0.5, alone=None, suit_floor=None),
    )
    assert not unchecked.uncertain
    back = judge([IndexHit("BACK", 0.9, Box(0, 0, 12, 12))], settings)
    assert not back.uncertain and back.face_down


def test_a_card_is_sure_only_when_the_suit_reader_tells_its_suit_from_the_other_of_its_colour() -> None:
    """Clubs against spades, over all the corners: each corner 0.85 against 0.15 is 0.97 together, under 0.99."""

    def suited(name: str, x: float, y: float, probs: tuple[float, ...]) -> IndexHit:
        return replace(hit(name, 0.99, x, y), suit_probs=probs)

    settings = CardSettings(pair=0.5, alone=None, suit=0.99)
    leaning = (0.15, 0.0, 0.0, 0.85)  # S H D C
    doubted = judge([suited("7C", 0, 0, leaning), suited("7C", 100, 150, leaning)], settings)
    assert doubted.uncertain
    assert doubted.reasons == ("el lector de palos no distingue tréboles de picas (0,97)",)
    sure = (0.05, 0.0, 0.0, 0.95)
    assert not judge([suited("7C", 0, 0, sure), suited("7C", 100, 150, sure)], settings).uncertain
    # hearts are weighed against diamonds only: a club's share says nothing of them
    red = (0.0, 0.5, 0.0, 0.5)
    assert not judge([suited("7H", 0, 0, red), suited("7H", 100, 150, red)], settings).uncertain
    spade = judge([suited("7S", 0, 0, leaning), suited("7S", 100, 150, leaning)], settings)
    assert spade.reasons == ("el lector de palos no distingue picas de tréboles (0,03)",)
    # without a suit reader's probabilities (models without one), or with the check off, nothing is asked
    assert not judge([hit("7C", 0.99, 0, 0), hit("7C", 0.99, 100, 150)], settings).uncertain
    off = replace(settings, suit=None)
    assert not judge([suited("7C", 0, 0, leaning), suited("7C", 100, 150, leaning)], off).uncertain


def test_two_corners_that_agree_are_still_doubted_when_the_second_classifier_names_another_card() -> None:
    settings = CardSettings(pair=0.5)

    def named(second: str, x: float, y: float) -> IndexHit:
        return IndexHit("QH", 0.95, Box(x, y, x + 30, y + 50), second=second)

    doubted = judge([named("3C", 0, 0), named("3C", 200, 300)], settings)
    assert doubted.uncertain and doubted.reasons == ("la segunda lectura dice 3C",)
    assert not judge([named("QH", 0, 0), named("QH", 200, 300)], settings).uncertain
    one = judge([named("QH", 0, 0), named("10D", 200, 300)], settings)  # every corner, not one
    assert one.uncertain and one.reasons == ("la segunda lectura dice 10D",)
    assert not judge([hit("QH", 0.95, 0, 0), hit("QH", 0.95, 200, 300)], settings).uncertain  # no second model


def test_two_sure_corners_are_enough_whatever_a_third_of_the_same_name_scores() -> None:
    settings = CardSettings(pair=0.9)
    three = [hit("7S", 0.95, 0, 0), hit("7S", 0.92, 200, 300), hit("7S", 0.4, 200, 0)]
    card = judge(three, settings)
    assert not card.uncertain and card.confidence == 0.92 and card.corners == 3
    assert judge([hit("7S", 0.95, 0, 0), hit("7S", 0.6, 200, 300), hit("7S", 0.4, 200, 0)], settings).uncertain
    # a faint corner the second classifier names otherwise doubts nothing; a sure one does
    named = [IndexHit("7S", 0.95, Box(0, 0, 30, 50), second="7S"), IndexHit("7S", 0.92, Box(9, 9, 40, 60), second="7S")]
    assert not judge([*named, IndexHit("7S", 0.4, Box(200, 0, 230, 50), second="4S", rival="1S")], settings).uncertain
    dissent = judge([*named, IndexHit("7S", 0.91, Box(200, 0, 230, 50), second="4S")], settings)
    assert dissent.uncertain and dissent.reasons == ("la segunda lectura dice 4S",)
    # with fewer than two sure corners every corner still counts
    weak = [IndexHit("7S", 0.95, Box(0, 0, 30, 50), second="7S"), IndexHit("7S", 0.5, Box(9, 9, 40, 60), second="4S")]
    assert "la segunda lectura dice 4S" in judge(weak, settings).reasons


def test_a_corner_the_second_classifier_names_as_the_sure_card_beside_it_leaves_the_group() -> None:
    def named(first: str, second: str, x: float, y: float, confidence: float = 0.98) -> IndexHit:
        return IndexHit(first, confidence, Box(x, y, x + 30, y + 50), second=second)

    four = [named("4S", "4S", 0, 0), named("4S", "4S", 200, 300), named("4S", "4S", 0, 300)]
    stray = named("4S", "AS", 120, 150)  # an ace's corner in the fan, taken for a four by the first classifier
    ace = [named("AS", "AS", 260, 150), named("AS", "AS", 400, 400)]
    cards = {c.card: c for c in cards_of([*four, stray, *ace], CardSettings())}
    assert not cards["4S"].uncertain and cards["4S"].corners == 3 and not cards["AS"].uncertain
    # no ace read sure beside it: the dissent still doubts the four
    alone = {c.card: c for c in cards_of([*four, stray], CardSettings())}
    assert alone["4S"].uncertain and alone["4S"].reasons == ("la segunda lectura dice AS",)
    unsure_ace = [named("AS", "AS", 260, 150, 0.6), named("AS", "AS", 400, 400, 0.6)]
    assert {c.card: c for c in cards_of([*four, stray, *unsure_ace], CardSettings())}["4S"].uncertain
    # the stray leaves only where two sure corners named alike by both classifiers remain
    two = [named("4S", "4S", 0, 0), stray]
    assert {c.card: c for c in cards_of([*two, *ace], CardSettings())}["4S"].uncertain
    # without a second classifier nothing leaves
    plain = [hit("4S", 0.98, 0, 0), hit("4S", 0.98, 200, 300), hit("4S", 0.98, 120, 150), hit("AS", 0.98, 260, 150)]
    assert {c.card: c for c in cards_of(plain, CardSettings())}["4S"].corners == 3


def test_a_back_is_a_card_face_down_never_a_code() -> None:
    back = judge([hit("BACK", 0.9, 0, 0, 300)], CardSettings())
    assert back.card is None and back.face_down and not back.uncertain
    assert back.to_dict()["card"] is None and back.to_dict()["face_down"] is True
    assert judge([hit("BACK", 0.3, 0, 0, 300)], CardSettings()).uncertain


def test_parts_of_a_back_cut_by_tiles_are_joined() -> None:
    parts = [hit("BACK", 0.9, 0, 0, 300), hit("BACK", 0.7, 150, 0, 300), hit("BACK", 0.8, 1000, 0, 300)]
    joined = join_backs([*parts, hit("AS", 0.9, 500, 500)])
    backs = [h for h in joined if h.name == "BACK"]
    assert len(backs) == 2 and len(joined) == 3
    assert max(b.box.x2 for b in backs if b.box.x1 == 0) == 150 + 180


def test_a_joined_back_holding_two_backs_seen_whole_is_a_heap_of_them() -> None:
    heap = join_backs([hit("BACK", 0.9, 0, 0, 300), hit("BACK", 0.8, 150, 0, 300), hit("BACK", 0.8, 1000, 0, 300)])
    seen = [hit("BACK", 0.9, 0, 0, 300), hit("BACK", 0.7, 150, 0, 300), hit("BACK", 0.6, 1000, 0, 300)]
    split = split_heaps([*heap, hit("AS", 0.9, 500, 500)], seen)
    backs = sorted((h.box.x1, h.confidence) for h in split if h.name == "BACK")
    # the heap is the two backs seen in it; the lone back keeps the finder's box (one seen back is no heap)
    assert backs == [(0, 0.9), (150, 0.7), (1000, 0.8)]
    assert [h.name for h in split if h.name != "BACK"] == ["AS"]
    assert split_heaps(heap, []) == heap


def test_real_photos_split_by_runs_of_neighbours() -> None:
    names = [f"IMG_{i:04d}.jpg" for i in range(80)]
    split = dataset.real_split(reversed(names))
    val = [n for n in names if split[n] == "val"]
    assert len(val) == 16  # one run of eight in five
    assert val[:8] == names[32:40]  # a run stays together


def test_the_folder_maps_real_classes_and_adds_backs_to_rendered_tables(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "images" / "phone").mkdir(parents=True)
    (real / "labels" / "phone").mkdir(parents=True)
    (real / "class_map.txt").write_text(
        "# id\tsource\tcanonical\n0\t10C\t10C\n1\tBACK\tNONCARD\n2\tRED JOKER\tNONCARD\n"
    )
    for i in range(40):
        (real / "images" / "phone" / f"p{i:02d}.jpg").write_bytes(b"x")
        (real / "labels" / "phone" / f"p{i:02d}.txt").write_text(
            "0 0.5 0.5 0.1 0.1\n1 0.2 0.2 0.3 0.3\n2 0.8 0.8 0.1 0.1\n"
        )
    synth = tmp_path / "synth"
    for part in ("images", "labels", "meta"):
        (synth / part).mkdir(parents=True)
    (synth / "images" / "truco-1.jpg").write_bytes(b"x")
    (synth / "labels" / "truco-1.txt").write_text("0 0.5 0.5 0.05 0.05\n")
    meta = {
        "size": [640, 480],
        "cards": [
            {"card": "7S", "face_down": True, "visible_share": 0.9, "visible_box": [64, 48, 192, 240]},
            {"card": "AS", "face_down": False, "visible_share": 1.0, "visible_box": [300, 300, 400, 450]},
        ],
    }
    (synth / "meta" / "truco-1.json").write_text(json.dumps(meta))
    out = tmp_path / "out"
    assert dataset.add_real(real, out) == {"train": 32, "val": 8, "fixes": 0}
    assert dataset.add_synth(synth, out) == 1
    dataset.write_yaml(out)
    lines = (out / "labels" / "train" / "real-phone-p00.txt").read_text().splitlines()
    assert [line.split()[0] for line in lines] == [str(dataset.NAMES.index("10C")), str(dataset.BACK_CLASS)]
    rendered = (out / "labels" / "train" / "synth-synth-truco-1.txt").read_text().splitlines()
    assert rendered[0] == "0 0.5 0.5 0.05 0.05"
    assert rendered[1].split() == [str(dataset.BACK_CLASS), "0.200000", "0.300000", "0.200000", "0.400000"]
    assert (out / "images" / "val" / "real-phone-p39.jpg").is_symlink()
    assert "52: BACK" in (out / "data.yaml").read_text()


def test_the_folder_takes_the_corrections_of_indices_the_real_set_labels_wrong(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from vision.relabel import read_relabels

    real = tmp_path / "real"
    (real / "images" / "phone").mkdir(parents=True)
    (real / "labels" / "phone").mkdir(parents=True)
    (real / "class_map.txt").write_text("# id\tsource\tcanonical\n0\t10C\t10C\n")
    cv2.imwrite(str(real / "images" / "phone" / "p00.jpg"), np.zeros((100, 200, 3), np.uint8))
    (real / "labels" / "phone" / "p00.txt").write_text("0 0.25 0.5 0.1 0.2\n0 0.75 0.5 0.1 0.2\n")
    fixes = tmp_path / "fixes.txt"
    fixes.write_text("# the right index is a jack of hearts\np00.jpg 150 50 jh\n")
    counts = dataset.add_real(real, tmp_path / "out", read_relabels(fixes, dataset.card_class, "carta"))
    assert counts["fixes"] == 1
    lines = (tmp_path / "out" / "labels" / "train" / "real-phone-p00.txt").read_text().splitlines()
    assert [line.split()[0] for line in lines] == [str(dataset.NAMES.index("10C")), str(dataset.NAMES.index("JH"))]
    fixes.write_text("p00.jpg 150 50 ZZ\n")
    with pytest.raises(ValueError, match=r"fixes\.txt:1: se esperaba «foto x y carta»"):
        read_relabels(fixes, dataset.card_class, "carta")
    fresh = tmp_path / "fresh"
    with pytest.raises(SystemExit, match=r"fixes\.txt:1"):
        dataset.main(["--out", str(fresh), "--real", str(real), "--fixes", str(fixes)])
    assert not fresh.exists()  # refused before anything is written


def test_windows_hold_each_spot_whole_and_skip_spots_near_a_window_taken() -> None:
    spots = [hit("index", 0.9, 1000, 800, 18), hit("index", 0.5, 1010, 805, 18), hit("index", 0.7, 4580, 2570, 18)]
    taken = windows(spots, 4608, 2592)
    assert len(taken) == 2  # the second spot lies near the middle of the first one's window
    for spot in (spots[0], spots[2]):
        assert any(
            x <= spot.box.x1 and spot.box.x2 <= x + s and y <= spot.box.y1 and spot.box.y2 <= y + s for x, y, s in taken
        )
    assert all(0 <= x <= 4608 - s and 0 <= y <= 2592 - s and s == WINDOW for x, y, s in taken)
    assert windows([], 4608, 2592) == []


def test_windows_grow_for_large_indices_and_stay_inside_a_small_frame() -> None:
    ((x, y, side),) = windows([hit("index", 0.9, 300, 300, 200)], 3000, 2000)
    assert side >= WINDOW_REACH * 200 and x <= 300 and x + side >= 300 + 200
    ((x, y, side),) = windows([hit("index", 0.9, 10, 10, 200)], 400, 300)
    assert side == 300 and x >= 0 and y >= 0


def test_calibrate_refuses_spotter_levels_that_are_not_numbers(tmp_path: Path) -> None:
    from vision.cards import calibrate

    with pytest.raises(SystemExit, match="--spot: se esperaban números"):
        calibrate.main([str(tmp_path), "--spot", "0.05,mucho"])
    with pytest.raises(SystemExit, match="no hay imágenes"):
        calibrate.main([str(tmp_path), "--spot", "0.05"])
    with pytest.raises(SystemExit, match="--joint: cada nivel debe estar entre 0 y 1"):
        calibrate.main([str(tmp_path), "--joint", "none,1.5"])


def test_calibrate_rejudges_a_reading_with_or_without_the_joint_level() -> None:
    from vision.cards import calibrate

    def corner(x: float, other: str) -> IndexHit:
        return IndexHit("5S", 0.85, Box(x, 0, x + 30, 50), second="5S", probs=spread("5S", 0.85, other))

    reading = CardReading((), (640, 480), (corner(0, "5C"), corner(200, "6S")))
    base = CardSettings()
    strict = calibrate.rejudge(reading, replace(base, joint=None))
    joined = calibrate.rejudge(reading, base)
    assert strict[0]["uncertain"] and not joined[0]["uncertain"] and joined[0]["card"] == "5S"


def test_a_lone_corner_boxed_much_smaller_than_the_frames_indices_is_doubted() -> None:
    # the finder boxed the rank of a half-hidden index and not its suit: the suit read is a guess
    others = [hit(code, 0.99, 400 + 200 * k, 100) for k, code in enumerate(["2S", "2S", "3S", "3S"])]
    sure = spread("AD", 0.99, "AH")
    part = IndexHit("AD", 0.99, Box(100, 600, 112, 620), second="AD", second_probs=sure)  # 20 px against 50
    whole = IndexHit("AD", 0.99, Box(100, 600, 130, 648), second="AD", second_probs=sure)
    settings = CardSettings(alone=0.95)
    doubted = {c.card: c for c in cards_of([*others, part], settings)}["AD"]
    assert doubted.uncertain and any("más pequeña" in r for r in doubted.reasons)
    assert not {c.card: c for c in cards_of([*others, whole], settings)}["AD"].uncertain


def spread(card: str, share: float, other: str) -> tuple[float, ...]:
    """A first classifier's probabilities: `share` on `card`, the rest on `other`."""
    probs = [0.0] * len(CLASS_NAMES)
    probs[CLASS_OF[card]], probs[CLASS_OF[other]] = share, 1 - share
    return tuple(probs)


def test_corners_unsure_each_are_sure_together_unless_they_doubt_the_same_other_card() -> None:
    def corner(x: float, other: str, share: float = 0.85) -> IndexHit:
        return IndexHit("5S", share, Box(x, 0, x + 30, 50), second="5S", probs=spread("5S", share, other))

    settings = CardSettings()
    assert settings.joint == 0.995 and settings.pair == 0.9
    apart = judge([corner(0, "5C"), corner(200, "6S")], settings)  # each 0.85, but no other card fits both
    assert not apart.uncertain and apart.confidence > 0.995
    alike = judge([corner(0, "5C"), corner(200, "5C")], settings)  # both lean to 5C: 0.72 against 0.02
    assert alike.uncertain and alike.reasons == ("esquinas poco seguras (0,97)",)
    # a corner the second classifier names otherwise still doubts the card
    dissent = IndexHit("5S", 0.85, Box(200, 0, 230, 50), second="5C", probs=spread("5S", 0.85, "6S"))
    assert judge([corner(0, "5C"), dissent], settings).uncertain
    # without the joint level (or without the probabilities), each corner must reach `pair`
    assert judge([corner(0, "5C"), corner(200, "6S")], replace(settings, joint=None)).uncertain
    assert judge([hit("5S", 0.85, 0, 0), hit("5S", 0.85, 200, 0)], settings).uncertain


def test_under_the_floor_a_card_is_accepted_only_where_the_suit_and_rank_readers_name_it() -> None:
    """Indices of 15 px, under `suit_floor` (20) and over `least_index` (12): the readers taught small decide."""
    suit, rank = (0.001, 0.0, 0.0, 0.999), tuple(0.999 if r == "5" else 0.001 / 12 for r in RANKS)

    def small(side: float, **probs: tuple[float, ...]) -> list[IndexHit]:
        return [replace(hit("5C", 0.99, x, y, side=side), **probs) for x, y in ((0, 0), (100, 150))]

    settings = CardSettings(pair=0.5, alone=None)
    assert (settings.suit_floor, settings.rank, settings.least_index) == (20, 0.99, 12)
    assert not judge(small(15, suit_probs=suit, rank_probs=rank), settings).uncertain
    # the rank reader leaning to 7: 0.85 against 0.15 a corner is 0.97 together
    seven = tuple(0.85 if r == "5" else 0.15 if r == "7" else 0.0 for r in RANKS)
    doubted = judge(small(15, suit_probs=suit, rank_probs=seven), settings)
    assert doubted.reasons == ("índice pequeño (15 px) y el lector de rangos duda (0,97)",)
    assert judge(small(15, suit_probs=suit, rank_probs=seven), replace(settings, rank=0.95)).reasons == ()
    too_small = "índice demasiado pequeño para leer el palo (15 px)"
    assert judge(small(15, suit_probs=suit), settings).reasons == (too_small,)  # no rank reader
    assert judge(small(15, rank_probs=rank), settings).reasons == (too_small,)  # no suit reader
    assert judge(small(15, suit_probs=suit, rank_probs=rank), replace(settings, rank=None)).reasons == (too_small,)
    tiny = judge(small(11, suit_probs=suit, rank_probs=rank), settings)
    assert tiny.reasons == ("índice demasiado pequeño para leer el palo (11 px)",)
    assert not judge(small(11, suit_probs=suit, rank_probs=rank), replace(settings, least_index=None)).uncertain


class TurnedClassifier:
    """A first classifier sure of 5S only when it reads each crop turned four ways; it records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    def probabilities(self, crops: list[Frame], turns: int = 1) -> np.ndarray:
        self.asked.append((len(crops), turns))
        share = 0.999 if turns == 4 else 0.85
        return np.array([spread("5S", share, "5C") for _ in crops], dtype=np.float32)


class SecondClassifier:
    """A second classifier naming the crops, in order, by `names`, sure; it counts how often it was asked."""

    def __init__(self, names: list[str]) -> None:
        self.names, self.asked = names, 0

    def probabilities(self, crops: list[Frame], turns: int = 1) -> np.ndarray:
        self.asked += 1
        return np.array([spread(name, 0.99, "AS") for name in self.names], dtype=np.float32)


def reader_of(found: list[IndexHit], seconds: list[str], settings: CardSettings) -> CardReader:
    """A reader whose finder finds `found` and whose classifiers are the fakes above."""
    reader = CardReader.__new__(CardReader)
    reader.classifier, reader.second = TurnedClassifier(), SecondClassifier(seconds)  # type: ignore[assignment]
    reader.seams, reader.settings, reader.faces, reader.suits, reader.ranks = None, settings, None, None, None
    reader._spotted = reader._tiled = lambda frame: found  # type: ignore[method-assign]
    reader.spotter = None
    return reader


def test_a_card_in_doubt_is_read_again_turned_and_only_its_corners() -> None:
    frame = np.zeros((400, 1600, 3), dtype=np.uint8)
    corners = [IndexHit("index", 0.9, Box(x, 10, x + 30, 60)) for x in (10, 200)]
    reader = reader_of(corners, ["5S", "5S"], CardSettings())
    assert CardSettings().again == 4
    (card,) = reader.read(frame).cards
    assert (card.card, card.uncertain) == ("5S", False)  # 0.85 each leaning to 5C: doubted, then sure turned
    assert reader.classifier.asked == [(2, 1), (2, 4)]  # type: ignore[attr-defined]
    assert reader.second.asked == 1  # type: ignore[union-attr]
    # without looking again the card stays with the coordinator
    (card,) = reader_of(corners, ["5S", "5S"], replace(CardSettings(), again=None)).read(frame).cards
    assert card.uncertain and card.reasons[0].startswith("esquinas poco seguras")


class SuitReader:
    """A suit reader leaning to clubs over spades, 0.85 to 0.15 a corner; it keeps the crops it was shown."""

    def __init__(self) -> None:
        self.crops: list[Frame] = []

    def probabilities(self, crops: list[Frame], turns: int = 1) -> np.ndarray:
        self.crops += crops
        return np.array([(0.15, 0.0, 0.0, 0.85) for _ in crops], dtype=np.float32)


def test_the_suit_reader_reads_each_corner_in_grey_and_its_doubt_reaches_the_card() -> None:
    frame = np.zeros((400, 1600, 3), dtype=np.uint8)
    frame[..., 2] = 200  # a red frame: in grey its three channels are alike
    corners = [IndexHit("index", 0.9, Box(x, 10, x + 30, 60)) for x in (10, 200)]
    reader = reader_of(corners, ["5S", "5S"], CardSettings())
    reader.suits = SuitReader()  # type: ignore[assignment]
    (card,) = reader.read(frame).cards
    assert card.card == "5S" and card.uncertain
    assert "el lector de palos no distingue picas de tréboles (0,03)" in card.reasons
    shown = reader.suits.crops  # type: ignore[attr-defined]
    assert len(shown) == 2 and all((c[..., 0] == c[..., 2]).all() for c in shown)


def test_looking_again_never_overrules_the_second_classifier() -> None:
    frame = np.zeros((400, 1600, 3), dtype=np.uint8)
    corners = [IndexHit("index", 0.9, Box(x, 10, x + 30, 60)) for x in (10, 200)]
    reader = reader_of(corners, ["5C", "5C"], CardSettings())  # the second names 5C, sure
    (card,) = reader.read(frame).cards
    assert card.uncertain and "la segunda lectura dice 5C" in card.reasons
    assert reader.second.asked == 1  # type: ignore[union-attr]  # its reading turned is not asked for


def test_the_second_classifier_judges_a_card_on_all_its_corners_too() -> None:
    def corner(x: float, second: str, share: float) -> IndexHit:
        theirs = spread(second, share, "5S" if second != "5S" else "5C")
        return IndexHit(
            "5S", 0.99, Box(x, 0, x + 30, 50), second=second, probs=spread("5S", 0.99, "5C"), second_probs=theirs
        )

    assert CardSettings().agree is None  # corner by corner: at 0.95 a dark deck's 10D went through as 7D
    settings = replace(CardSettings(), agree=0.95)
    # one corner leans to 5C (0.6 against 0.4), the other is sure of 5S: all together, 5S
    card = judge([corner(0, "5C", 0.6), corner(200, "5S", 0.99)], settings)
    assert not card.uncertain
    # corner by corner (agree none) the first corner's dissent doubts it
    strict = judge([corner(0, "5C", 0.6), corner(200, "5S", 0.99)], replace(settings, agree=None))
    assert strict.uncertain and strict.reasons == ("la segunda lectura dice 5C",)
    # all together it names another card, or names this one but not sure enough
    other = judge([corner(0, "5C", 0.99), corner(200, "5S", 0.6)], settings)
    assert other.reasons == ("la segunda lectura dice 5C",)
    unsure = judge([corner(0, "5C", 0.55), corner(200, "5S", 0.8)], settings)
    assert unsure.uncertain and unsure.reasons[0].startswith("la segunda lectura duda (0,")
    # a card seen by one corner is still named by the second on that corner
    assert judge([corner(0, "5C", 0.99)], settings).reasons[0] == "la segunda lectura dice 5C"


def test_calibrate_combines_the_levels_given_and_keeps_the_others_as_the_settings_have_them() -> None:
    from vision.cards import calibrate

    base = CardSettings()
    assert calibrate.levels_of(base, None, None, None) is None
    (only,) = calibrate.levels_of(base, [0.5], None, None) or []
    assert only == (0.9, 0.95, 0.5, 0.995, None)  # parting levels alone leave joint and agree as they are
    assert calibrate.levels_of(base, None, [None, 0.99], [0.9]) == [
        (0.9, 0.95, 0.95, None, 0.9),
        (0.9, 0.95, 0.95, 0.99, 0.9),
    ]
    with pytest.raises(SystemExit, match="--agree: cada nivel debe estar entre 0 y 1"):
        calibrate._levels("--agree", "0.9,2")


def test_the_seam_model_is_asked_once_for_two_corners_however_often_the_card_is_judged() -> None:
    from vision.cards.reader import remembered

    asked: list[int] = []

    def apart(pairs: list[tuple[IndexHit, IndexHit]]) -> list[bool]:
        asked.append(len(pairs))
        return [a.box.x1 > 100 or b.box.x1 > 100 for a, b in pairs]

    a, b, c = (hit("5S", 0.9, x, 0) for x in (0, 60, 200))
    ask = remembered(apart)
    assert ask is not None and remembered(None) is None
    assert ask([(a, b), (b, c)]) == [False, True]
    assert ask([(a, b), (a, c)]) == [False, True]  # only (a, c) is new
    assert asked == [2, 1]


def test_a_cards_face_between_its_ends_overrules_a_second_classifiers_dissent_on_a_corner() -> None:
    def corner(x: float, second: str = "5S") -> IndexHit:
        return IndexHit("5S", 0.99, Box(x, 0, x + 30, 50), second=second, probs=spread("5S", 0.99, "5C"))

    asked: list[Box] = []

    def naming(card: str, share: float) -> Callable[[Box], tuple[float, ...]]:
        def read(box: Box) -> tuple[float, ...]:
            asked.append(box)
            return spread(card, share, "5C" if card != "5C" else "6C")

        return read

    settings = CardSettings()
    assert settings.face == 0.5
    ends = [corner(0), corner(200, "5C")]  # 230 px apart against indices of 50: the face lies between
    assert judge(ends, settings).reasons == ("la segunda lectura dice 5C",)  # models without a face reader
    card = judge(ends, settings, face_reader=naming("5S", 0.6))
    assert not card.uncertain and card.card == "5S" and asked == [Box(0, 0, 230, 50)]
    assert judge(ends, settings, face_reader=naming("5C", 0.9)).reasons == ("la segunda lectura dice 5C",)
    assert judge(ends, settings, face_reader=naming("5S", 0.45)).uncertain  # under the level
    assert judge(ends, replace(settings, face=None), face_reader=naming("5S", 0.99)).uncertain
    # two corners side by side (a fan): no face between them, the face reader is not asked
    asked.clear()
    assert judge([corner(0), corner(60, "5C")], settings, face_reader=naming("5S", 0.99)).uncertain
    assert judge([corner(0, "5C")], settings, face_reader=naming("5S", 0.99)).uncertain  # one corner
    assert asked == []
    # the face is a second reading, not a first: corners unsure together stay doubted
    weak = [IndexHit("5S", 0.6, Box(x, 0, x + 30, 50), second="5S", probs=spread("5S", 0.6, "5C")) for x in (0, 200)]
    assert judge(weak, settings, face_reader=naming("5S", 0.99)).reasons[0].startswith("esquinas poco seguras")


class FaceReader:
    """A face reader naming every crop 5S, sure; it counts the crops it was asked."""

    def __init__(self) -> None:
        self.asked = 0

    def probabilities(self, crops: list[Frame], turns: int = 1) -> np.ndarray:
        self.asked += len(crops)
        return np.array([spread("5S", 0.9, "5C") for _ in crops], dtype=np.float32)


def test_the_reader_reads_a_cards_face_once_and_calibrate_judges_again_from_that_reading() -> None:
    from vision.cards import calibrate

    frame = np.zeros((400, 1600, 3), dtype=np.uint8)
    corners = [IndexHit("index", 0.9, Box(x, 10, x + 30, 60)) for x in (10, 200)]
    reader = reader_of(corners, ["5S", "5C"], CardSettings())  # 0.85 each, sure read again turned
    (card,) = reader.read(frame).cards
    assert card.uncertain  # no face reader: the second's dissent stands
    reader.faces = FaceReader()  # type: ignore[assignment]
    reading = reader.read(frame)
    assert reading.cards[0].card == "5S" and not reading.cards[0].uncertain
    assert reader.faces.asked == 1 and list(reading.face_reads) == [Box(10, 10, 230, 60)]  # type: ignore[union-attr]
    assert not calibrate.rejudge(reading, reader.settings)[0]["uncertain"]
    assert calibrate.rejudge(reading, replace(reader.settings, face=None))[0]["uncertain"]


def test_a_lone_corner_the_second_names_unsure_is_doubted_where_lone_second_is_set() -> None:
    def lone(theirs: float) -> IndexHit:
        return IndexHit("JH", 0.98, Box(0, 0, 30, 50), second="JH", second_probs=spread("JH", theirs, "JD"))

    assert not judge([lone(0.55)], CardSettings(lone_second=None)).uncertain  # none: naming it is enough
    doubted = judge([lone(0.55)], CardSettings())
    assert doubted.uncertain and doubted.reasons == ("una sola esquina, la segunda lectura poco segura (0,55)",)
    assert not judge([lone(0.95)], CardSettings(lone_second=0.9)).uncertain
    bare = IndexHit("JH", 0.98, Box(0, 0, 30, 50), second="JH")  # a second classifier that gave no probabilities
    assert judge([bare], CardSettings(lone_second=0.9)).uncertain
    two = [lone(0.55), IndexHit("JH", 0.98, Box(0, 300, 30, 350), second="JH", second_probs=spread("JH", 0.55, "JD"))]
    assert not judge(two, CardSettings(lone_second=0.9, joint=None)).uncertain  # two corners: not asked
