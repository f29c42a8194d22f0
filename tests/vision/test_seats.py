"""Seats: markers found and the table's homography, dice given seats (markers or zones), the table's region,
the cross-check with the coordinator's count (every mismatch), the config file, and the marker sheet.

The tables are drawn with OpenCV (tests/hardware/drawn.py): exact, and free to put anything anywhere. The same
checks on rendered tables (vision/synth/scene.py: markers on textured felt under real light, cups, hands,
shadows) are in tests/hardware/test_rendered_table.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.hardware.drawn import (
    FELT,
    FOUR_SEATS,
    DrawnDiceReader,
    DrawnDie,
    DrawnTable,
    draw_hand,
    four_seat_table,
    reading_of,
)
from vision.seats import (
    LENSES,
    ConfigError,
    Marker,
    SeatCheck,
    SheetLayout,
    TableCheck,
    TableConfig,
    calibrate,
    camera_tilt,
    check_table,
    find_markers,
    load_table_config,
    marker_pages,
    parse_table_config,
    place_dice,
    read_table,
    save_table_config,
    seat_players,
    table_homography,
    to_table,
)
from vision.synth.camera import Camera
from vision.types import Box, DieReading, FrameReading

# Dice in front of each seat's marker: seat 1 (bottom) has two, the others one each.
SEATED = [
    DrawnDie((610, 640), 3),
    DrawnDie((670, 640), 5),
    DrawnDie((180, 400), 6),
    DrawnDie((640, 160), 2),
    DrawnDie((1100, 400), 4),
]
EXPECTED = {"Ana": 2, "Beto": 1, "Caro": 1, "Dani": 1}  # seats 1, 2, 3, 4 in order


def check(table: DrawnTable, expected: dict[str, int] | None = EXPECTED, uncertain: tuple[int, ...] = ()) -> TableCheck:
    return read_table(table.draw(), reading_of(table, uncertain), None, expected)


def seat(result: TableCheck, number: int) -> SeatCheck:
    return next(s for s in result.seats if s.seat == number)


def kinds(result: TableCheck, number: int) -> list[str]:
    return [p.kind for p in seat(result, number).problems]


# ------------------------------------------------------------------ markers and homography


def test_markers_are_found_and_every_die_gets_its_seat() -> None:
    table = four_seat_table(SEATED)
    frame = table.draw(noise=3.0)
    markers, repeated = find_markers(frame)
    assert [m.seat for m in markers] == [1, 2, 3, 4] and repeated == []
    for marker, (_, centre) in zip(markers, FOUR_SEATS, strict=True):
        assert math.dist(marker.center, centre) < 2 and marker.side_px == pytest.approx(70, abs=2)
    seating = calibrate(frame)
    assert seating.mode == "markers" and seating.region_source == "markers" and seating.missing == ()
    placed = place_dice(reading_of(table), seating)
    assert [(p.seat, p.where) for p in placed] == [(1, "mesa"), (1, "mesa"), (2, "mesa"), (3, "mesa"), (4, "mesa")]


def test_all_counts_match_and_the_reading_may_be_ruled() -> None:
    result = read_table(
        four_seat_table(SEATED).draw(), DrawnDiceReader().read(four_seat_table(SEATED).draw()), None, EXPECTED
    )
    assert result.ok and result.problems == () and result.stray == ()
    assert [(s.seat, s.player, s.found, s.expected, s.matches) for s in result.seats] == [
        (1, "Ana", 2, 2, True),
        (2, "Beto", 1, 1, True),
        (3, "Caro", 1, 1, True),
        (4, "Dani", 1, 1, True),
    ]
    assert seat(result, 1).faces == (3, 5)
    assert result.lines()[-1] == "Resultado: se puede arbitrar"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["ok"] is True and data["seating"]["markers"] == [1, 2, 3, 4]
    assert data["seats"][0]["dice"][0]["seat"] == 1 and data["seats"][0]["dice"][0]["where"] == "mesa"
    assert len(data["seats"][0]["dice"][0]["table_mm"]) == 2


def test_the_homography_corrects_perspective() -> None:
    """A tilted camera: the far side (bottom) shrinks. A die nearer seat 3 on the table is nearer seat 1's
    marker in the picture; the homography from the printed squares gives it to seat 3."""
    flat_table = four_seat_table([DrawnDie((640, 370), 4)])
    tilt = cv2.getPerspectiveTransform(
        np.array([[0, 0], [1280, 0], [1280, 800], [0, 800]], np.float32),
        np.array([[0, 0], [1280, 0], [1000, 560], [280, 560]], np.float32),
    )
    frame = np.asarray(cv2.warpPerspective(flat_table.draw(), tilt, (1280, 800), borderValue=FELT), np.uint8)
    markers, _ = find_markers(frame)
    assert [m.seat for m in markers] == [1, 2, 3, 4]
    # Drawn at 1 px = 1 mm with 70 mm markers: the table's distances come back in millimetres.
    homography = table_homography(markers, 70.0)
    assert homography is not None
    found = dict(zip([m.seat for m in markers], to_table(homography, [m.center for m in markers]), strict=True))
    true = dict(FOUR_SEATS)
    for a in found:
        for b in found:
            if a < b:
                assert math.dist(found[a], found[b]) == pytest.approx(math.dist(true[a], true[b]), rel=0.03)

    die_at = cv2.perspectiveTransform(np.array([[[640, 370]]], np.float64), tilt)[0, 0]
    centres = {m.seat: m.center for m in markers}
    assert math.dist(die_at, centres[1]) < math.dist(die_at, centres[3])  # the premise: nearer 1 on the picture
    box = Box(die_at[0] - 15, die_at[1] - 15, die_at[0] + 15, die_at[1] + 15)
    reading = FrameReading(1280, 800, (DieReading(4, 0.9, box, False),))
    seating = calibrate(frame, TableConfig(marker_mm=70.0))
    [placed] = place_dice(reading, seating)
    assert placed.seat == 3 and placed.where == "mesa"


def test_a_reading_at_another_resolution_is_scaled_to_the_calibration() -> None:
    table = four_seat_table(SEATED)
    smaller = np.asarray(cv2.resize(table.draw(), (960, 600), interpolation=cv2.INTER_AREA), np.uint8)
    seating = calibrate(smaller)
    assert [m.seat for m in seating.markers] == [1, 2, 3, 4]
    assert [p.seat for p in place_dice(reading_of(table), seating)] == [1, 1, 2, 3, 4]


def test_one_marker_only_gives_every_die_to_it() -> None:
    table = DrawnTable(markers=((5, (640.0, 700.0)),), dice=(DrawnDie((600, 500), 2), DrawnDie((700, 300), 6)))
    result = check(table, expected=None)
    assert result.seating.region_source == "frame"
    assert [(s.seat, s.faces) for s in result.seats] == [(5, (2, 6))]  # in the reading's order
    assert result.ok


# ------------------------------------------------------------------ mismatches


def test_too_many_and_too_few() -> None:
    moved = [*SEATED[:2], DrawnDie((200, 380), 1), *SEATED[2:]]  # Beto has 2, expects 1
    result = check(four_seat_table(moved), {"Ana": 3, "Beto": 1, "Caro": 1, "Dani": 1})
    assert not result.ok
    assert kinds(result, 1) == ["too_few"] and "falta 1 dado: 2 de 3" in seat(result, 1).problems[0].message
    assert kinds(result, 2) == ["too_many"] and "sobra 1 dado: 2 de 1" in seat(result, 2).problems[0].message
    assert seat(result, 3).ok and seat(result, 4).ok
    assert [s.seat for s in result.off] == [1, 2]
    text = "\n".join(result.lines())
    assert "Asiento 1 (Ana): 3 5 · 2 de 3 esperados · NO se puede arbitrar" in text
    assert text.endswith("Resultado: NO se puede arbitrar")


def test_an_uncertain_die_is_not_ruled_even_when_the_count_matches() -> None:
    result = check(four_seat_table(SEATED), uncertain=(2,))
    assert kinds(result, 2) == ["uncertain"] and seat(result, 2).matches is True and not result.ok
    assert seat(result, 2).uncertain[0].die.reasons == ("cara dudosa",)
    assert "dudoso en [160, 380, 200, 420]: cara dudosa (lee 6)" in "\n".join(result.lines())


def test_a_die_outside_the_table_is_reported_not_counted() -> None:
    stray = [*SEATED, DrawnDie((60, 740), 6)]  # off the felt, in a corner beyond the markers' ring
    result = check(four_seat_table(stray))
    [outside] = [p for s in result.seats for p in s.dice if p.where == "fuera"]
    assert outside.seat in (1, 2) and outside.die.face == 6
    assert "outside" in kinds(result, outside.seat) and not result.ok
    assert seat(result, outside.seat).found == (2 if outside.seat == 1 else 1)  # it does not count


def test_a_die_cut_by_the_frames_edge_is_reported() -> None:
    cut = [*SEATED[:2], DrawnDie((10, 300), 2), *SEATED[3:]]  # seat 2's die half out of the picture
    result = check(four_seat_table(cut))
    [placed] = seat(result, 2).dice
    assert placed.where == "borde" and placed.counts
    assert kinds(result, 2) == ["cut"] and seat(result, 2).matches is True
    assert "cortado por el borde de la imagen" in "\n".join(result.lines())


def test_a_hidden_marker_is_reported() -> None:
    table = four_seat_table(SEATED)
    frame = table.draw()
    draw_hand(frame, (660, 740), 80)  # a hand over seat 1's marker
    result = read_table(frame, reading_of(table), None, EXPECTED)
    assert result.seating.missing == (1,)
    assert "no_marker" in kinds(result, 1) and not result.ok


def test_a_seat_with_no_player_expects_no_dice_and_a_player_with_no_seat_is_reported() -> None:
    config = TableConfig(players={1: "Ana", 2: "Beto", 3: "Caro"})
    table = four_seat_table(SEATED)
    expected = {"Ana": 2, "Beto": 1, "Caro": 1, "Eva": 5}
    result = read_table(table.draw(), reading_of(table), config, expected)
    assert seat(result, 4).player is None and seat(result, 4).expected == 0
    assert kinds(result, 4) == ["too_many"] and "asiento sin jugador" in seat(result, 4).problems[0].message
    assert [p.kind for p in result.problems] == ["no_player"] and "Eva" in result.problems[0].message


def test_without_a_count_only_doubts_are_problems() -> None:
    result = check(four_seat_table(SEATED), expected=None)
    assert result.ok and all(s.matches is None and s.expected is None for s in result.seats)
    assert "esperados" not in "\n".join(result.lines())


def test_a_repeated_marker_is_a_table_problem() -> None:
    table = DrawnTable(markers=((*FOUR_SEATS, (2, (640.0, 400.0)))), dice=tuple(SEATED))
    result = check(table, expected=None)
    assert [p.kind for p in result.problems] == ["repeated_marker"] and not result.ok


def test_no_markers_and_no_zones_is_no_seats() -> None:
    table = DrawnTable(dice=tuple(SEATED))
    result = check(table, expected=None)
    assert result.seating.mode == "none" and [p.kind for p in result.problems] == ["no_seats"]
    assert len(result.stray) == 5 and not result.ok
    assert "Dado sin asiento" in "\n".join(result.lines())


# ------------------------------------------------------------------ zones and the felt


ZONES: dict[str, Any] = {
    "table": [[0.05, 0.05], [0.95, 0.05], [0.95, 0.95], [0.05, 0.95]],
    "seats": [
        {"seat": 1, "player": "Ana", "zone": [[0.3, 0.6], [0.7, 0.6], [0.7, 0.95], [0.3, 0.95]]},
        {"seat": 2, "player": "Beto", "zone": [[0.05, 0.3], [0.3, 0.3], [0.3, 0.7], [0.05, 0.7]]},
        {"seat": 3, "player": "Caro", "zone": [[0.3, 0.05], [0.7, 0.05], [0.7, 0.4], [0.3, 0.4]]},
    ],
}


def test_zones_drawn_by_hand_when_there_are_no_markers() -> None:
    config = parse_table_config(ZONES)
    table = DrawnTable(dice=(*SEATED[:4], DrawnDie((900, 420), 1)))  # the last one is in no zone
    result = read_table(table.draw(), reading_of(table), config, {"Ana": 2, "Beto": 1, "Caro": 1})
    assert result.seating.mode == "zones" and result.seating.region_source == "config"
    assert [(s.seat, s.faces) for s in result.seats] == [(1, (3, 5)), (2, (6,)), (3, (2,))]
    assert seat(result, 2).ok and seat(result, 3).ok
    [nowhere] = [p for s in result.seats for p in s.dice if p.where == "fuera"]
    assert nowhere.die.face == 1 and nowhere.seat == 1  # the nearest zone's, not counted
    assert kinds(result, 1) == ["outside"] and not result.ok


def test_the_felt_polygon_of_the_config_bounds_the_table() -> None:
    config = parse_table_config({"table": [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]]})
    table = four_seat_table([*SEATED, DrawnDie((1240, 600), 5)])  # on the rail, right of the felt
    result = read_table(table.draw(), reading_of(table), config, None)
    assert result.seating.mode == "markers" and result.seating.region_source == "config"
    assert [p.where for p in seat(result, 4).dice] == ["mesa", "fuera"]
    # Markers sit on the rail, outside the felt: only dice are held to the felt.
    assert result.seating.missing == ()


def test_zones_mode_ignores_markers_and_markers_mode_reports_them_missing() -> None:
    table = four_seat_table(SEATED)
    zones = parse_table_config({**ZONES, "mode": "zones"})
    assert calibrate(table.draw(), zones).mode == "zones"
    blank = DrawnTable(dice=tuple(SEATED))
    seating = calibrate(blank.draw(), TableConfig(mode="markers", seats=(1, 2)))
    assert seating.mode == "markers" and seating.missing == (1, 2)
    assert [p.kind for p in seating.problems] == ["no_seats"]


def test_seat_players() -> None:
    assert seat_players(["Ana", "Beto"]) == {1: "Ana", 2: "Beto"}
    assert seat_players(["Ana", "Beto"], TableConfig(seats=(2, 4, 6))) == {2: "Ana", 4: "Beto"}
    assert seat_players(["Ana"], TableConfig(players={3: "Beto", 5: "Ana"})) == {3: "Beto", 5: "Ana"}


def test_check_table_with_nothing() -> None:
    seating = calibrate(four_seat_table().draw())
    result = check_table([], seating, {"Ana": 0}, {1: "Ana"})
    assert result.ok and [s.found for s in result.seats] == [0, 0, 0, 0]


# ------------------------------------------------------------------ config file


def test_config_round_trip(tmp_path: Path) -> None:
    config = parse_table_config({**ZONES, "mode": "auto", "marker_mm": 40, "lens": "wide"})
    path = tmp_path / "mesa.json"
    save_table_config(path, config)
    again = load_table_config(path)
    assert again == config
    assert again.players == {1: "Ana", 2: "Beto", 3: "Caro"} and again.marker_mm == 40 and again.lens == "wide"
    assert parse_table_config({}).lens == "auto"
    assert json.loads(path.read_text())["seats"][0] == {"seat": 1, "player": "Ana", "zone": ZONES["seats"][0]["zone"]}


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "objeto JSON"),
        ({"version": 2}, "versión"),
        ({"tabla": []}, "claves desconocidas"),
        ({"mode": "magia"}, "mode"),
        ({"marker_mm": 0}, "marker_mm"),
        ({"lens": "ojo de pez"}, "lens"),
        ({"table": [[0, 0], [1, 1]]}, "al menos 3 puntos"),
        ({"table": [[0, 0], [1, 1], ["a", 1]]}, "cada punto"),
        ({"table": [[0, 0], [0.5, 0.5], [1, 1]]}, "no tiene área"),
        ({"seats": {"1": "Ana"}}, "lista"),
        ({"seats": [{"seat": 0}]}, "de 1 a 49"),
        ({"seats": [{"seat": 1}, {"seat": 1}]}, "dos veces"),
        ({"seats": [{"seat": 1, "player": ""}]}, "nombre"),
        ({"seats": [{"seat": 1, "player": "Ana"}, {"seat": 2, "player": "Ana"}]}, "dos asientos"),
        ({"seats": [{"seat": 1, "color": "rojo"}]}, "asiento n.º 1"),
        ({"mode": "zones", "seats": [{"seat": 1}]}, "ningún asiento tiene zona"),
    ],
)
def test_bad_configs_are_refused(data: object, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        parse_table_config(data)


def test_config_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no existe"):
        load_table_config(tmp_path / "nada.json")
    with pytest.raises(ConfigError, match="carpeta"):
        load_table_config(tmp_path)
    broken = tmp_path / "rota.json"
    broken.write_text("{seats: [")
    with pytest.raises(ConfigError, match="no es JSON válido"):
        load_table_config(broken)
    odd = tmp_path / "rara.json"
    odd.write_text('{"mode": "x"}')
    with pytest.raises(ConfigError, match=r"rara\.json: mode"):
        load_table_config(odd)


# ------------------------------------------------------------------ the camera's tilt


def markers_seen(camera: Camera, places: list[tuple[float, float, float]], mm: float = 50.0) -> list[Marker]:
    """Printed squares at (x, y in metres, turn in degrees) on the table, as the pinhole camera sees them."""
    half = mm / 2000
    square = np.array([(-half, half), (half, half), (half, -half), (-half, -half)])  # clockwise from above
    markers = []
    for seat, (x, y, turn) in enumerate(places, start=1):
        a = math.radians(turn)
        on_table = square @ np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]) + (x, y)
        pixels = camera.project(np.column_stack([on_table, np.zeros(4)]))
        markers.append(Marker(seat, tuple((float(u), float(v)) for u, v in pixels)))  # type: ignore[arg-type]
    return markers


RING = [(0.0, -0.32, 0.0), (0.45, 0.0, 90.0), (0.0, 0.32, 180.0), (-0.45, 0.0, 270.0), (0.3, 0.25, 140.0)]


@pytest.mark.parametrize(
    ("lens", "height", "pitch", "roll"),
    [("standard", 0.8, 3.0, -2.0), ("standard", 0.62, -5.5, 0.5), ("wide", 0.95, 1.0, 4.0), ("wide", 0.7, 0.0, 0.0)],
)
def test_the_markers_give_the_cameras_nadir_and_lens(lens: str, height: float, pitch: float, roll: float) -> None:
    """Exact corners: the fitted camera is the true one, and the lens is told apart by the markers' size."""
    camera = Camera(2304, 1296, LENSES[lens], height, pitch, roll)
    nadir = camera.project(np.array([[0.0, 0.0, 0.0]]))[0] / (2304, 1296)
    for hfov in (LENSES[lens], None):
        tilt = camera_tilt(markers_seen(camera, RING), 2304, 1296, hfov)
        assert tilt is not None and tilt.hfov_deg == LENSES[lens] and tilt.markers == 5
        assert tilt.nadir == pytest.approx(tuple(nadir), abs=1e-6)
        assert tilt.tilt_deg == pytest.approx(math.hypot(pitch, roll), abs=0.05)
        assert tilt.height_mm == pytest.approx(height * 1000, rel=1e-4)
        assert tilt.residual_px < 1e-3 and 0 < tilt.spread_px < 20
    assert tilt is not None
    data = json.loads(json.dumps(tilt.to_dict()))
    assert set(data) == {"nadir", "tilt_deg", "height_mm", "hfov_deg", "markers", "spread_px", "residual_px"}


def test_the_nadir_stands_corner_noise_and_two_markers() -> None:
    """Corners found half a pixel off: the nadir moves a few pixels, where the frame's centre is 140 px off."""
    camera = Camera(2304, 1296, 66.0, 0.8, 4.0, -3.0)
    true = camera.project(np.array([[0.0, 0.0, 0.0]]))[0]
    assert math.dist(true, (1152, 648)) > 140
    rng = np.random.default_rng(3)
    for places in (RING, RING[:2]):
        errors = []
        for _ in range(20):
            noisy = [
                Marker(m.seat, tuple((u + rng.normal(0, 0.5), v + rng.normal(0, 0.5)) for u, v in m.corners))  # type: ignore[arg-type]
                for m in markers_seen(camera, places)
            ]
            tilt = camera_tilt(noisy, 2304, 1296, 66.0)
            assert tilt is not None
            errors.append(math.dist((tilt.nadir[0] * 2304, tilt.nadir[1] * 1296), true))
        assert float(np.median(errors)) < (10 if len(places) > 2 else 30)


def test_markers_that_cannot_say_give_no_tilt() -> None:
    """No marker, squares that no camera looking down sees, or one small square: no nadir rather than a guess."""
    assert camera_tilt([], 2304, 1296) is None
    flat = Marker(1, ((100.0, 100.0), (140.0, 100.0), (180.0, 100.0), (220.0, 100.0)))  # a line, not a square
    assert camera_tilt([flat], 2304, 1296, 66.0) is None
    camera = Camera(2304, 1296, 66.0, 0.8, 2.0, 1.0)
    assert camera_tilt(markers_seen(camera, RING[:1]), 2304, 1296, 66.0) is None  # one marker: its corners' noise
    small = markers_seen(camera, [(0.05, 0.05, 30.0), (0.1, 0.08, 0.0)], mm=12.0)
    assert camera_tilt(small, 2304, 1296, 66.0, 12.0) is None  # two small ones side by side: known too roughly
    twisted = markers_seen(camera, RING)
    twisted[1] = Marker(2, (twisted[1].corners[0], twisted[1].corners[2], twisted[1].corners[1], twisted[1].corners[3]))
    assert camera_tilt(twisted, 2304, 1296, 66.0) is None  # a bow tie is no square seen from above


# ------------------------------------------------------------------ the marker sheet


def test_marker_pages_detect_back_with_their_seats_and_size() -> None:
    layout = SheetLayout()
    pages = marker_pages(list(range(1, 8)), layout)
    assert len(pages) == 2 and pages[0].shape == (3508, 2480, 3)  # A4 at 300 dpi
    assert layout.marker_px == 591 and layout.printed_mm == pytest.approx(50.0, abs=0.1)
    markers, _ = find_markers(pages[0], detect_width=2480)
    assert [m.seat for m in markers] == [1, 2, 3, 4, 5, 6]
    assert all(m.side_px == pytest.approx(591, abs=3) for m in markers)
    assert [m.seat for m in find_markers(pages[1])[0]] == [7]


def test_marker_pages_refuse_impossible_sheets() -> None:
    with pytest.raises(ValueError, match="no hay asientos"):
        marker_pages([])
    with pytest.raises(ValueError, match="de 1 a 49"):
        marker_pages([50])
    with pytest.raises(ValueError, match="no cabe"):
        marker_pages([1], SheetLayout(marker_mm=250))
