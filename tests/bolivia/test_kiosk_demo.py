"""The demo game's photos (kiosk/demo/bolivia_fotos/): small, labelled, and the set-aside dice stay put."""

from __future__ import annotations

from pathlib import Path

from kiosk.bolivia import demo

LIMIT = 1_500_000  # bytes: the committed photos stay small


def test_the_photos_are_there_small_and_labelled() -> None:
    photos = demo.photos()
    assert [p["file"] for p in photos] == [f"{name}.jpg" for name, _, _ in demo.DEMO_ROLLS]
    total = sum(path.stat().st_size for path in demo.PHOTOS.iterdir())
    assert total <= LIMIT
    for photo, (_, seed, faces) in zip(photos, demo.DEMO_ROLLS, strict=True):
        assert photo["seed"] == seed and photo["faces"] == list(faces)
        assert sorted(d["face"] for d in photo["dice"]) == sorted(faces)
        width, height = demo.CROP
        for die in photo["dice"]:
            x1, y1, x2, y2 = die["box"]
            assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height


def test_the_dice_set_aside_lie_where_they_were() -> None:
    photos = {p["file"]: p for p in demo.photos()}
    for first, second in (("01-ana-1.jpg", "02-ana-2.jpg"), ("03-beto-1.jpg", "04-beto-2.jpg")):
        before, after = photos[first]["dice"], photos[second]["dice"]
        for a, b in zip(before, after, strict=True):
            assert max(abs(x - y) for x, y in zip(a["box"], b["box"], strict=True)) < 4


def test_rendering_is_deterministic() -> None:
    _, dice = demo.render(*demo.DEMO_ROLLS[0][1:])
    assert dice == demo.photos()[0]["dice"]


def test_the_live_table_swaps_both_frames(tmp_path: Path) -> None:
    photos = demo.photos()
    table = tmp_path / "mesa"
    demo.show(Path(photos[0]["path"]), table)
    demo.show(Path(photos[1]["path"]), table)
    assert sorted(p.name for p in table.iterdir()) == ["000.jpg", "001.jpg"]
    expected = Path(photos[1]["path"]).read_bytes()
    assert (table / "000.jpg").read_bytes() == expected == (table / "001.jpg").read_bytes()
    assert demo.main(["nada"]) == 2
