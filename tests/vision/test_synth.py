"""The training-data synthesis: die model, committed sprites and manifest, composed tables, labels, tiles, CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.synth import generate as cli
from vision.synth.camera import Camera
from vision.synth.compose import (
    ASSETS,
    BARE_TABLES,
    CLOTH_TABLES,
    Placed,
    Table,
    compose_table,
    draw,
    extra_cocked,
    held_out,
    load_manifest,
    sprite_pixels,
    sprite_set,
    tiles,
    yolo_lines,
)
from vision.synth.dice_model import (
    COCKED_CLASS,
    FACE_NORMALS,
    PIP_LAYOUT,
    PIP_OFFSET,
    apply,
    die_pixels,
    face_up,
    label_class,
    opposite,
    pip_centres,
    rotation_face_up,
)

SMALL = (960, 540)  # composed tables in the tests: the same geometry as 4608 x 2592, scaled down


# --------------------------------------------------------------------------------------- die model


def test_opposite_faces_sum_to_seven() -> None:
    for face, normal in FACE_NORMALS.items():
        other = next(f for f, n in FACE_NORMALS.items() if n == tuple(-c for c in normal))
        assert face + other == 7
        assert opposite(face) == other


def test_pip_layout_counts_and_symmetry() -> None:
    for face, pips in PIP_LAYOUT.items():
        assert len(pips) == face
        assert len(set(pips)) == face
        # Every die face layout is symmetric under a half turn.
        assert {(-a, -b) for a, b in pips} == set(pips)
    # Odd faces have the centre pip, even faces never do.
    assert all(((0, 0) in pips) == (face % 2 == 1) for face, pips in PIP_LAYOUT.items())


def test_pips_lie_on_their_face_inside_the_flat() -> None:
    for face in range(1, 7):
        normal = FACE_NORMALS[face]
        for p in pip_centres(face, side=1.0):
            assert sum(p[k] * normal[k] for k in range(3)) == pytest.approx(0.5)
            assert max(abs(p[k]) for k in range(3) if normal[k] == 0) <= PIP_OFFSET + 1e-9


def test_rotation_brings_the_face_up() -> None:
    for face in range(1, 7):
        m = rotation_face_up(face)
        n = tuple(float(c) for c in FACE_NORMALS[face])
        assert apply(m, n) == pytest.approx((0.0, 0.0, 1.0))  # type: ignore[arg-type]
        assert face_up(m) == face
        assert np.linalg.det(np.array(m)) == pytest.approx(1.0)  # a rotation, never a mirror


def test_right_handed_die() -> None:
    # 1, 2, 3 turn counter-clockwise around their shared corner, seen from outside.
    a, b, c = (np.array(FACE_NORMALS[f], dtype=float) for f in (1, 2, 3))
    assert float(np.dot(a, np.cross(b, c))) > 0


def test_label_class() -> None:
    assert [label_class(f, False) for f in range(1, 7)] == [0, 1, 2, 3, 4, 5]
    assert {label_class(f, True) for f in range(1, 7)} == {COCKED_CLASS}
    with pytest.raises(ValueError, match="face must be 1-6, got 7"):
        label_class(7, False)


def test_die_size_from_the_geometry() -> None:
    # 70 cm above the felt, standard lens (66 deg), full still: 4608 px over 2 * 0.7 * tan(33 deg) = 0.909 m.
    assert die_pixels(4608, 66.0, 70.0) == pytest.approx(81.1, abs=0.2)
    assert die_pixels(4608, 66.0, 100.0) == pytest.approx(56.8, abs=0.2)
    assert die_pixels(4608, 102.0, 100.0) == pytest.approx(29.9, abs=0.2)
    cam = Camera(4608, 2592, 66.0, 0.7)
    centre = cam.project(np.array([[0.0, 0.0, 0.0]]))[0]
    edge = cam.project(np.array([[0.016, 0.0, 0.0]]))[0]
    assert edge[0] - centre[0] == pytest.approx(die_pixels(4608, 66.0, 70.0), rel=1e-6)
    assert centre == pytest.approx((2304, 1296))


# ------------------------------------------------------------------------------- sprites, manifest


def test_manifest_agrees_with_the_sprite_files() -> None:
    manifest = json.loads((ASSETS / "manifest.json").read_text())
    files = {e["file"] for e in manifest["sprites"]}
    assert files == {p.name for p in ASSETS.glob("*.png")}
    total = sum(p.stat().st_size for p in ASSETS.iterdir())
    assert total < 20_000_000  # 924 sprites: 16.8 MB
    seen: set[tuple[str, int, bool]] = set()
    for e in manifest["sprites"]:
        img = cv2.imread(str(ASSETS / e["file"]), cv2.IMREAD_UNCHANGED)
        assert img is not None and img.ndim == 3 and img.shape[2] == 4, e["file"]
        assert [img.shape[1], img.shape[0]] == e["size"]
        hull = np.array(e["hull"])
        assert e["box"] == pytest.approx(
            [hull[:, 0].min(), hull[:, 1].min(), hull[:, 0].max(), hull[:, 1].max()], abs=0.02
        )
        x1, y1, x2, y2 = e["box"]
        assert 0 <= x1 < x2 <= e["size"][0] and 0 <= y1 < y2 <= e["size"][1]
        if e["kind"] == "die":
            assert e["face_up"] == e["face"]
            seen.add((e["style"], e["face"], e["cocked"]))
            cx, cy = e["centre"]
            assert img[int(cy), int(cx), 3] == 255  # the die is opaque at its centre
            assert e["cocked"] == (e["tilt"] >= 15)
    styles = {s for s, _, _ in seen}
    assert len(styles) >= 8
    for style in styles:
        for face in range(1, 7):
            assert (style, face, False) in seen
            assert (style, face, True) in seen


def test_sprite_outline_matches_its_pixels() -> None:
    """The manifest's box is the die as drawn: its opaque, coloured pixels fill the box to the pixel."""
    sprites = [s for s in load_manifest() if s.kind == "die"][::37]
    for s in sprites:
        img = cv2.imread(str(ASSETS / s.file), cv2.IMREAD_UNCHANGED)
        die = (img[:, :, 3] > 200) & (img[:, :, :3].max(axis=2) > 0)  # shadows are black
        ys, xs = np.nonzero(die)
        hull = np.array(s.hull)
        assert xs.min() >= hull[:, 0].min() - 1.5 and xs.max() + 1 <= hull[:, 0].max() + 1.5, s.file
        assert ys.min() >= hull[:, 1].min() - 1.5 and ys.max() + 1 <= hull[:, 1].max() + 1.5, s.file
        assert xs.min() <= hull[:, 0].min() + 2.5 and xs.max() + 1 >= hull[:, 0].max() - 2.5, s.file
        assert ys.min() <= hull[:, 1].min() + 2.5 and ys.max() + 1 >= hull[:, 1].max() - 2.5, s.file
        top = np.array(s.top_face)
        assert (
            cv2.pointPolygonTest(hull.astype(np.float32), (float(top[:, 0].mean()), float(top[:, 1].mean())), False) > 0
        )


def test_drawn_die_stays_inside_its_label_box() -> None:
    sprite = next(s for s in load_manifest() if s.kind == "die" and s.view_tilt > 20)
    ang = math.radians(33.0)
    scale = 0.8
    affine = np.array(
        [[scale * math.cos(ang), -scale * math.sin(ang), 150.0], [scale * math.sin(ang), scale * math.cos(ang), 40.0]]
    )
    pl = Placed(sprite, affine, order=0.0)
    img = np.zeros((300, 400, 3), dtype=np.float32)
    draw(img, pl)
    ys, xs = np.nonzero(img.max(axis=2) > 1e-4)
    x1, y1, x2, y2 = pl.box
    # Bilinear sampling spreads an edge pixel by up to one source pixel (0.8 px here) plus half a pixel.
    assert xs.min() >= x1 - 2 and xs.max() + 1 <= x2 + 2
    assert ys.min() >= y1 - 2 and ys.max() + 1 <= y2 + 2
    assert xs.min() <= x1 + 2 and xs.max() + 1 >= x2 - 2


# --------------------------------------------------------------------------------------- composing


@pytest.fixture(scope="module")
def tables() -> list:  # type: ignore[type-arg]
    return [compose_table(seed, *SMALL) for seed in range(40, 52)]


def test_same_seed_same_table(tables: list) -> None:  # type: ignore[type-arg]
    again = compose_table(40, *SMALL)
    assert np.array_equal(again.image, tables[0].image)
    assert again.dice == tables[0].dice
    assert compose_table(41, *SMALL).dice != again.dice or not again.dice


def test_labels_inside_the_image_and_classes(tables: list) -> None:  # type: ignore[type-arg]
    w, h = SMALL
    n = 0
    for t in tables:
        assert t.image.shape == (h, w, 3)
        for d in t.dice:
            x1, y1, x2, y2 = d["box"]
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            hull = np.array(d["hull"])
            assert d["box"] == pytest.approx(
                [hull[:, 0].min(), hull[:, 1].min(), hull[:, 0].max(), hull[:, 1].max()], abs=0.02
            )
            assert d["class"] == (COCKED_CLASS if d["cocked"] else d["face"] - 1)
            assert 1 <= d["face"] <= 6
            n += 1
        lines = yolo_lines(t.dice, w, h).splitlines()
        assert len(lines) == len(t.dice)
        for line, d in zip(lines, t.dice, strict=True):
            cls, cx, cy, bw, bh = line.split()
            assert int(cls) == d["class"]
            assert all(0 <= float(v) <= 1 for v in (cx, cy, bw, bh))
    assert n > 50


def test_dice_size_follows_the_camera(tables: list) -> None:  # type: ignore[type-arg]
    for t in tables:
        expected = t.meta["camera"]["die_px_at_centre"]
        for d in t.dice:
            if d["cocked"]:
                continue
            top = np.array(d["top_face"])
            side = float(np.mean(np.linalg.norm(top - np.roll(top, 1, axis=0), axis=1)))
            # A flat die's top face: the size at the centre, foreshortened across the line of sight off axis.
            assert 0.6 * expected < side < 1.15 * expected


def test_a_cocked_die_is_labelled_cocked() -> None:
    for seed in range(300):
        t = compose_table(seed, *SMALL)
        cocked = [d for d in t.dice if d["cocked"]]
        if cocked:
            break
    else:
        pytest.fail("no cocked die in 300 tables")
    sprites = {s.file: s for s in load_manifest()}
    for d in cocked:
        assert d["class"] == COCKED_CLASS
        assert sprites[d["sprite"]].cocked
    assert " ".join(yolo_lines(cocked, *SMALL).split()[::5]) == " ".join(["6"] * len(cocked))


def test_held_out_sprites_split_the_dice_and_keep_every_style() -> None:
    sprites = load_manifest()
    train, val = sprite_set(sprites, "train", more_cocked=True), sprite_set(sprites, "val", more_cocked=True)
    dice = {s.file for s in sprites if s.kind == "die"}
    train_dice = {s.file for s in train if s.kind == "die"}
    val_dice = {s.file for s in val if s.kind == "die"}
    assert train_dice | val_dice == dice and not train_dice & val_dice
    assert 0.1 < len(val_dice) / len(dice) < 0.25
    assert all(held_out(s) for s in val if s.kind == "die")
    # props are in both; every style, and some cocked dice, are in both
    props = {s.file for s in sprites if s.kind != "die"}
    assert props <= {s.file for s in train} and props <= {s.file for s in val}
    for subset in (train, val):
        assert {s.style for s in subset if s.kind == "die"} == {s.style for s in sprites if s.kind == "die"}
        assert any(s.cocked for s in subset)
    assert sprite_set(sprites, "all", more_cocked=True) == sprites
    with pytest.raises(ValueError, match="sprite set"):
        sprite_set(sprites, "test")


def test_later_cocked_rounds_are_used_only_when_asked() -> None:
    """Sprites rendered later (cocked batches c005 on) leave every earlier seed's table as it was."""
    sprites = load_manifest()
    later = {s.file for s in sprites if extra_cocked(s)}
    assert later and all(s.cocked for s in sprites if s.file in later)
    first = {s.file for s in sprite_set(sprites, "all")}
    assert not first & later and first | later == {s.file for s in sprites}
    assert any(s.file in later for s in sprite_set(sprites, "val", more_cocked=True))  # some are held out
    plain = [d["sprite"] for seed in range(8) for d in compose_table(seed, *SMALL, cocked_rate=1.0).dice]
    more = [
        d["sprite"] for seed in range(8) for d in compose_table(seed, *SMALL, cocked_rate=1.0, more_cocked=True).dice
    ]
    assert not any(name in later for name in plain)
    assert any(name in later for name in more)


def test_a_table_of_held_out_sprites_uses_only_them() -> None:
    names = set()
    for seed in range(60, 66):
        t = compose_table(seed, *SMALL, sprites="val")
        names |= {d["sprite"] for d in t.dice}
    by_file = {s.file: s for s in load_manifest()}
    assert names and all(held_out(by_file[n]) for n in names)
    # the default is unchanged: every sprite, so earlier seeds give the same tables
    assert compose_table(40, *SMALL).dice == compose_table(40, *SMALL, sprites="all").dice


def test_bare_tables_keep_the_dice_and_change_only_the_surface() -> None:
    """A bare café table: the same dice as the felt table of its seed, on another surface, named in the meta."""
    kinds = set()
    for seed in range(40, 46):
        felt, bare = compose_table(seed, *SMALL), compose_table(seed, *SMALL, surface="bare")
        assert felt.meta["surface"] == "felt" and bare.meta["surface"] in BARE_TABLES
        assert [d["box"] for d in bare.dice] == [d["box"] for d in felt.dice]
        assert not np.array_equal(bare.image, felt.image)
        kinds.add(bare.meta["surface"])
        assert np.array_equal(compose_table(seed, *SMALL, surface="bare").image, bare.image)  # still a seed's table
    assert len(kinds) >= 3
    mixed = {compose_table(seed, *SMALL, surface="mixed").meta["surface"] == "felt" for seed in range(40, 52)}
    assert mixed == {True, False}
    with pytest.raises(ValueError, match="surface"):
        compose_table(40, *SMALL, surface="glass")


def test_cloth_tables_keep_the_dice_and_draw_each_pattern() -> None:
    """A patterned cloth or board: the felt table's dice on a busy surface, every pattern drawn, one per seed."""
    kinds: dict[str, tuple[int, Table]] = {}
    for seed in range(40, 60):
        cloth = compose_table(seed, *SMALL, surface="cloth")
        assert cloth.meta["surface"] in CLOTH_TABLES
        kinds.setdefault(cloth.meta["surface"], (seed, cloth))
    assert set(kinds) == set(CLOTH_TABLES)
    for seed, cloth in kinds.values():
        felt = compose_table(seed, *SMALL)
        assert [d["box"] for d in cloth.dice] == [d["box"] for d in felt.dice]
        assert np.array_equal(compose_table(seed, *SMALL, surface="cloth").image, cloth.image)
        assert _texture(cloth.image) > 2 * _texture(felt.image)  # a pattern: colour changing within a few mm


def _texture(image: npt.NDArray[np.uint8]) -> float:
    """How much the colour changes within 15 px windows (CIELAB standard deviation, upper quartile of pixels)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    mean = cv2.blur(lab, (15, 15))
    std = np.sqrt(np.maximum(cv2.blur(lab * lab, (15, 15)) - mean * mean, 0)).max(axis=2)
    return float(np.percentile(std, 75))


def test_a_light_table_shows_no_square_round_a_die() -> None:
    """A sprite's baked shadow is cut at its edge; on a bare table it fades out, and the die is untouched."""
    sprite = next(s for s in load_manifest() if s.kind == "die" and not s.cocked)
    _, plain = sprite_pixels(sprite)
    _, feathered = sprite_pixels(sprite, feather=True)
    edge = np.concatenate([feathered[0], feathered[-1], feathered[:, 0], feathered[:, -1]])
    assert np.concatenate([plain[0], plain[-1], plain[:, 0], plain[:, -1]]).max() > 0.05
    assert edge.max() < 0.01
    cx, cy = (int(v) for v in np.array(sprite.hull).mean(axis=0))
    assert feathered[cy, cx] == plain[cy, cx]


def test_cli_bare_surface(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--out", str(tmp_path), "--count", "1", "--seed", "44", "--size", "960x540", "--workers", "1"]
    assert cli.main([*args, "--surface", "bare"]) == 0
    meta = json.loads(next((tmp_path / "meta").glob("*.json")).read_text())
    assert meta["surface"] in BARE_TABLES and meta["surface_option"] == "bare"
    assert cli.main([*args, "--surface", "cloth", "--out", str(tmp_path / "cloth")]) == 0
    assert json.loads(next((tmp_path / "cloth" / "meta").glob("*.json")).read_text())["surface"] in CLOTH_TABLES
    with pytest.raises(SystemExit) as stop:
        cli.main([*args, "--surface", "glass"])
    error = capsys.readouterr().err.strip().splitlines()[-1]  # argparse's words may be in Spanish (kiosk.cli)
    assert stop.value.code == 2 and "--surface" in error and "'glass'" in error


def _top_face_aspect(die: dict[str, object]) -> float:
    """Shortest over longest side of a die's top face as the image shows it (1 for a square seen square-on)."""
    corners = np.array(die["top_face"], dtype=float)
    sides = np.linalg.svd(np.column_stack([corners[1] - corners[0], corners[3] - corners[0]]), compute_uv=False)
    return float(sides[1] / sides[0])


def test_a_flat_die_shows_a_square_top_face() -> None:
    """Looking down, the camera sees a lying die's top face square (the camera's own tilt of a few degrees
    aside), wherever the die lies."""
    exact = [compose_table(seed) for seed in range(40, 46)]
    flat = [_top_face_aspect(d) for t in exact for d in t.dice if not d["cocked"]]
    assert len(flat) > 30 and min(flat) > 0.95 and float(np.median(flat)) > 0.98
    assert {t.meta["flat_dice"] for t in exact} == {"exact"}


# ------------------------------------------------------------------------------------------ tiles


def test_tiles_clip_boxes_and_drop_mostly_hidden_dice() -> None:
    image = np.zeros((2592, 4608, 3), dtype=np.uint8)
    f = 1280 / 4608
    dice = [
        {"box": [100 / f, 100 / f, 120 / f, 120 / f], "class": 2},  # inside the first tile only
        {"box": [630 / f, 300 / f, 650 / f, 320 / f], "class": 3},  # half and half across x = 640
        {"box": [635 / f, 400 / f, 655 / f, 420 / f], "class": 4},  # 25 % left of x = 640, 75 % right
    ]
    pieces = tiles(image, dice, tile=640, long_side=1280)
    assert [p[2] for p in pieces] == [(0, 0), (640, 0), (0, 80), (640, 80)]
    assert all(p[0].shape == (640, 640, 3) for p in pieces)
    first = pieces[0][1]
    assert [d["class"] for d in first] == [2]
    assert first[0]["box"] == pytest.approx([100, 100, 120, 120], abs=0.02)
    second = pieces[1][1]
    assert [d["class"] for d in second] == [4]  # the 50 % die is dropped from both tiles
    assert second[0]["box"] == pytest.approx([0, 400, 15, 420], abs=0.02)
    third = pieces[2][1]
    assert third[0]["box"] == pytest.approx([100, 20, 120, 40], abs=0.02)
    assert yolo_lines(second, 640, 640, one_class=True).startswith("0 ")


# -------------------------------------------------------------------------------------------- CLI


def test_cli_is_deterministic_and_writes_a_yolo_folder(tmp_path: Path) -> None:
    args = ["--count", "2", "--seed", "70", "--size", "960x540", "--workers", "1", "--split", "val"]
    assert cli.main(["--out", str(tmp_path / "a"), *args]) == 0
    assert cli.main(["--out", str(tmp_path / "b"), *args]) == 0
    for sub in ("labels", "meta", "images"):
        a = sorted((tmp_path / "a" / sub).iterdir())
        b = sorted((tmp_path / "b" / sub).iterdir())
        assert (
            [p.name for p in a]
            == [p.name for p in b]
            == [
                f"val_0000007{i}.{ext}"
                for i in (0, 1)
                for ext in [{"labels": "txt", "meta": "json", "images": "jpg"}[sub]]
            ]
        )
        for pa, pb in zip(a, b, strict=True):
            assert pa.read_bytes() == pb.read_bytes()
    yaml = (tmp_path / "a" / "data.yaml").read_text()
    assert "nc: 7" in yaml and "6: cocked" in yaml


def test_cli_seated_tables_carry_markers_and_their_camera(tmp_path: Path) -> None:
    """--seated: seated tables as a YOLO folder, the seats drawn from the seed, the labels those of the scene."""
    from vision.synth.scene import compose_seated

    args = ["--out", str(tmp_path), "--count", "1", "--seed", "31", "--size", "1152x648", "--workers", "1", "--seated"]
    assert cli.main(args) == 0
    seats = cli.seated_seats(31)
    assert 2 <= len(seats) <= 6 and all(1 <= len(faces) <= 5 for faces in seats.values())
    scene = compose_seated(31, seats, 1152, 648)
    lines = (tmp_path / "labels" / "train_00000031.txt").read_text().splitlines()
    assert sorted(int(line.split()[0]) + 1 for line in lines) == sorted(d.face for d in scene.dice)
    meta = json.loads((tmp_path / "meta" / "train_00000031.json").read_text())
    assert meta["camera"] == scene.meta["camera"] and [m["seat"] for m in meta["markers"]] == sorted(seats)
    image = cv2.imread(str(tmp_path / "images" / "train_00000031.jpg"))
    assert image is not None and image.shape == (648, 1152, 3)
    assert cli.main([*args, "--tiles", "640"]) == 2


def test_cli_tiles(tmp_path: Path) -> None:
    assert (
        cli.main(
            [
                "--out",
                str(tmp_path),
                "--count",
                "1",
                "--seed",
                "44",
                "--size",
                "1920x1080",
                "--tiles",
                "640",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    images = sorted((tmp_path / "images").glob("*.jpg"))
    assert len(images) == 4
    assert cv2.imread(str(images[0])).shape == (640, 640, 3)
    for label in (tmp_path / "labels").glob("*.txt"):
        for line in label.read_text().splitlines():
            assert line.split()[0] == "0"
    assert "nc: 1" in (tmp_path / "data.yaml").read_text()


def test_cocked_rate_sets_how_often_a_seat_has_a_cocked_die() -> None:
    """With rate 0 no table has a cocked die; with rate 1 most seats with dice get one."""
    never = sum(d["cocked"] for seed in range(12) for d in compose_table(seed, *SMALL, cocked_rate=0.0).dice)
    often = sum(d["cocked"] for seed in range(12) for d in compose_table(seed, *SMALL, cocked_rate=1.0).dice)
    assert never == 0 and often >= 12


def _touching_share(touching: float) -> float:
    """The share of dice whose nearest die of the same seat lies within 1.5 die widths, centre to centre."""
    near = total = 0
    for seed in range(12):
        dice = compose_table(seed, *SMALL, cocked_rate=0.0, touching=touching).dice
        for d in dice:
            x1, y1, x2, y2 = d["box"]
            mates = [e["box"] for e in dice if e is not d and e["seat"] == d["seat"]]
            if not mates:
                continue
            total += 1
            gap = min(math.hypot((m[0] + m[2] - x1 - x2) / 2, (m[1] + m[3] - y1 - y2) / 2) for m in mates)
            near += gap < 1.5 * max(x2 - x1, y2 - y1)
    return near / total


def test_touching_sets_how_often_a_die_lies_against_another() -> None:
    """Dice laid against their seat's dice when `touching` is 1; scattered round the seat when it is 0."""
    assert _touching_share(1.0) > 0.9
    assert _touching_share(0.0) < _touching_share(1.0) - 0.3
    with pytest.raises(ValueError, match="touching"):
        compose_table(0, *SMALL, touching=1.5)


def test_cli_refuses_a_cocked_rate_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--out", "/tmp/x", "--count", "1", "--cocked-rate", "1.5"]) == 2
    assert "--cocked-rate" in capsys.readouterr().err
    assert cli.main(["--out", "/tmp/x", "--count", "1", "--touching", "-0.1"]) == 2
    assert "--touching" in capsys.readouterr().err


def test_cli_refuses_bad_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["--out", "/tmp/x", "--count", "1", "--size", "big"])
    assert stop.value.code == 2 and "size must be WIDTHxHEIGHT, got 'big'" in capsys.readouterr().err
