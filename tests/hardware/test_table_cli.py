"""`cacho table read` and `cacho markers`: the contracts, with a replay camera and a reader of drawn dice.

The replayed tables are drawn with OpenCV; rendered tables from vision/synth (cups lifted, hands leaving,
real dice) should be played through `replay:` here once the generator makes them.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

import kiosk.commands.table as table_command
from kiosk.cli import main
from tests.hardware.drawn import DrawnDiceReader, DrawnDie, draw_hand, four_seat_table
from vision.seats import find_markers
from vision.types import Frame

SEATED = [
    DrawnDie((610, 640), 3),
    DrawnDie((670, 640), 5),
    DrawnDie((180, 400), 6),
    DrawnDie((640, 160), 2),
    DrawnDie((1100, 400), 4),
]
FAST = ["--loop", "--still", "0.1", "--frames", "2"]
EXPECT = "Ana=2,Beto=1,Caro=1,Dani=1"


@pytest.fixture
def still_table(tmp_path: Path) -> Path:
    """A replay folder with one frame of a still table (played in a loop)."""
    folder = tmp_path / "quieta"
    folder.mkdir()
    cv2.imwrite(str(folder / "000.png"), four_seat_table(SEATED).draw(noise=2.0))
    return folder


@pytest.fixture
def restless_table(tmp_path: Path) -> Path:
    """A replay folder where a hand keeps moving."""
    folder = tmp_path / "inquieta"
    folder.mkdir()
    for index in range(4):
        frame = four_seat_table(SEATED).draw()
        draw_hand(frame, (300 + 200 * index, 400), 80)
        cv2.imwrite(str(folder / f"{index:03d}.png"), frame)
    return folder


@pytest.fixture
def fake_reader(monkeypatch: pytest.MonkeyPatch) -> DrawnDiceReader:
    reader = DrawnDiceReader()
    monkeypatch.setattr(table_command, "reader_factory", lambda models: reader)
    return reader


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# ------------------------------------------------------------------ table read


def test_read_json_when_everything_matches(
    still_table: Path, fake_reader: DrawnDiceReader, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "table", "read", "--camera", f"replay:{still_table}", "--expect", EXPECT, "--json", *FAST
    )
    assert status == 0, err
    [line] = out.splitlines()
    data = json.loads(line)
    assert data["camera"] == f"replay:{still_table}" and data["ok"] is True
    assert data["capture"]["still"] is True and data["capture"]["frames_read"] == 2
    assert data["capture"]["agreeing_frames"] == 2 and data["capture"]["disagreeing_dice"] == []
    tilt = data["capture"]["tilt"]  # drawn straight from above: the markers put the nadir at the frame's centre
    assert tilt["markers"] == 4 and tilt["nadir"] == pytest.approx([0.5, 0.5], abs=0.002) and tilt["tilt_deg"] < 0.2
    assert data["seating"] == {"mode": "markers", "markers": [1, 2, 3, 4], "missing_markers": [], "region": "markers"}
    seats = {s["player"]: s for s in data["seats"]}
    assert sorted(seats["Ana"]["faces"]) == [3, 5] and seats["Ana"]["matches"] is True
    assert seats["Beto"]["faces"] == [6] and seats["Caro"]["faces"] == [2] and seats["Dani"]["faces"] == [4]
    die = seats["Beto"]["dice"][0]
    assert set(die) >= {"face", "confidence", "box", "uncertain", "seat", "where"}
    assert data["problems"] == [] and data["stray"] == []
    assert fake_reader.frames_read == 2


def test_read_text(still_table: Path, fake_reader: DrawnDiceReader, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "table", "read", "--camera", f"replay:{still_table}", "--expect", EXPECT, *FAST)
    assert status == 0
    assert re.search(
        r"esperó \d+,\d s a que la mesa quedara quieta; 2 de 2 imágenes coinciden", out
    )  # Spanish decimals
    assert "Nadir de la cámara: (0.500, 0.500) de la imagen, medido con 4 marcadores (inclinada 0.0°" in out
    assert "Asientos por marcadores ArUco (vistos: 1, 2, 3, 4); la mesa es el anillo de los marcadores." in out
    assert "Asiento 1 (Ana): 3 5 · 2 de 2 esperados · coincide" in out
    assert "Asiento 2 (Beto): 6 · 1 de 1 esperados · coincide" in out
    assert out.rstrip().endswith("Resultado: se puede arbitrar")


def test_read_with_a_count_that_does_not_match(
    still_table: Path, fake_reader: DrawnDiceReader, capsys: pytest.CaptureFixture[str]
) -> None:
    expect = "Ana=3,Beto=1,Caro=1,Dani=1"
    status, out, _ = run(
        capsys, "table", "read", "--camera", f"replay:{still_table}", "--expect", expect, "--json", *FAST
    )
    assert status == 1
    data = json.loads(out)
    assert data["ok"] is False
    [ana] = [s for s in data["seats"] if s["player"] == "Ana"]
    assert ana["matches"] is False and [p["kind"] for p in ana["problems"]] == ["too_few"]
    status, out, _ = run(capsys, "table", "read", "--camera", f"replay:{still_table}", "--expect", expect, *FAST)
    assert status == 1 and "falta 1 dado: 2 de 3" in out and "NO se puede arbitrar" in out


def test_read_without_a_count(
    still_table: Path, fake_reader: DrawnDiceReader, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "table", "read", "--camera", f"replay:{still_table}", "--json", *FAST)
    assert status == 0
    data = json.loads(out)
    assert [s["seat"] for s in data["seats"]] == [1, 2, 3, 4]
    assert all(s["player"] is None and s["expected"] is None and s["matches"] is None for s in data["seats"])


def test_read_with_a_seats_config(
    still_table: Path, fake_reader: DrawnDiceReader, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mesa.json"
    seats = [{"seat": 1, "player": "Dani"}, {"seat": 2, "player": "Caro"}, {"seat": 3, "player": "Beto"}]
    config.write_text(json.dumps({"table": [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]], "seats": seats}))
    status, out, _ = run(
        capsys, "table", "read", "--camera", f"replay:{still_table}", "--seats", str(config),
        "--expect", "Dani=2,Caro=1,Beto=1", "--json", *FAST,
    )  # fmt: skip
    data = json.loads(out)
    assert data["seating"]["region"] == "config"
    by_seat = {s["seat"]: s for s in data["seats"]}
    assert by_seat[1]["player"] == "Dani" and by_seat[1]["matches"] is True
    # Seat 4 has no player in the config: its die is one too many.
    assert by_seat[4]["player"] is None and by_seat[4]["expected"] == 0
    assert [p["kind"] for p in by_seat[4]["problems"]] == ["too_many"]
    assert status == 1


def test_read_in_zones_mode_reads_from_the_frames_centre(
    still_table: Path, fake_reader: DrawnDiceReader, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "zonas.json"
    zone = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    config.write_text(json.dumps({"mode": "zones", "seats": [{"seat": 1, "zone": zone}]}))
    argv = ["table", "read", "--camera", f"replay:{still_table}", "--seats", str(config), *FAST]
    status, out, _ = run(capsys, *argv)
    assert status == 0 and "Nadir de la cámara: el centro de la imagen (modo zonas)" in out
    _, out, _ = run(capsys, *argv, "--json")
    assert json.loads(out)["capture"]["tilt"] is None


def test_read_when_the_table_never_goes_still(
    restless_table: Path, fake_reader: DrawnDiceReader, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["table", "read", "--camera", f"replay:{restless_table}", "--loop", "--fps", "20", "--timeout", "0.3"]
    status, out, _ = run(capsys, *argv, "--json")
    assert status == 1 and fake_reader.frames_read == 0
    data = json.loads(out)
    assert data["ok"] is False and data["capture"]["still"] is False
    assert data["problems"][0]["kind"] == "never_still" and "nunca quedó quieta" in data["problems"][0]["message"]
    status, out, _ = run(capsys, *argv)
    assert status == 1 and "nunca quedó quieta" in out


def test_read_when_the_replay_ends(
    restless_table: Path, fake_reader: DrawnDiceReader, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "table", "read", "--camera", f"replay:{restless_table}", "--fps", "50")
    assert status == 2 and out == ""
    assert err.startswith("cacho: cámara replay:") and "terminó" in err and "Traceback" not in err


def test_read_with_models_missing_says_so(
    still_table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "modelos"
    empty.mkdir()
    status, _, err = run(capsys, "table", "read", "--camera", f"replay:{still_table}", "--models", str(empty))
    assert status == 2
    assert "faltan los modelos entrenados" in err and f"Los modelos no están en {empty}" in err


def test_read_with_the_project_models_missing_says_so(
    still_table: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import vision.pipeline

    monkeypatch.setattr(vision.pipeline, "MODELS", tmp_path / "models")
    status, _, err = run(capsys, "table", "read", "--camera", f"replay:{still_table}")
    assert status == 2 and "todavía no están en models/" in err and "--models" in err


def test_read_with_the_pi_camera_off_a_pi(
    fake_reader: DrawnDiceReader, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "picamera2", None)
    status, _, err = run(capsys, "table", "read", "--camera", "pi")
    assert status == 2 and "cacho: cámara pi: no está instalado picamera2" in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--camera", "webcam"], "cámara desconocida"),
        (["--camera", "replay:/no/existe"], "no existe"),
        (["--expect", "Ana"], "no es JUGADOR=DADOS"),
        (["--expect", "Ana=cinco"], "número entero"),
        (["--expect", "Ana=5,Ana=3"], "dos veces"),
        (["--expect", "Ana=31"], "de 0 a 30"),
        (["--expect", "=5"], "no es JUGADOR=DADOS"),
        (["--frames", "0"], "--frames"),
        (["--seats", "/no/existe.json"], "no existe la configuración"),
    ],
)
def test_read_refuses_bad_input(
    argv: list[str], fragment: str, fake_reader: DrawnDiceReader, still_table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = ["table", "read", "--camera", f"replay:{still_table}", *FAST, *argv]
    status, out, err = run(capsys, *full)
    assert status == 2 and out == "" and fragment in err and "Traceback" not in err


# ------------------------------------------------------------------ markers


def read_sheet(path: Path) -> Frame:
    """A printed sheet (grey PNG) as a BGR frame."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    assert image is not None
    return np.asarray(image, np.uint8)


def png_chunks(data: bytes) -> dict[bytes, bytes]:
    chunks, offset = {}, 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        chunks[kind] = data[offset + 8 : offset + 8 + length]
        offset += 12 + length
    return chunks


def test_markers_png_prints_at_300_dpi_and_detects_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "marcadores.png"
    status, out, _ = run(capsys, "markers", "--seats", "4", str(out_path))
    assert status == 0 and str(out_path) in out and "50.0 mm" in out
    data = out_path.read_bytes()
    assert struct.unpack(">IIB", png_chunks(data)[b"pHYs"]) == (11811, 11811, 1)  # 300 dpi in pixels a metre
    sheet = read_sheet(out_path)
    assert sheet.shape[:2] == (3508, 2480)
    markers, _ = find_markers(sheet)
    assert [m.seat for m in markers] == [1, 2, 3, 4]


def test_markers_on_several_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "markers", "--seats", "8", "--size", "60", str(tmp_path / "hoja.png"))
    assert status == 0 and "en 2 hoja(s)" in out
    pages = sorted(tmp_path.glob("hoja-*.png"))
    assert [p.name for p in pages] == ["hoja-1.png", "hoja-2.png"]
    seen = [m.seat for page in pages for m in find_markers(read_sheet(page))[0]]
    assert sorted(seen) == list(range(1, 9))


def test_markers_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "marcadores.pdf"
    status, _, _ = run(capsys, "markers", "--seats", "7", str(out_path))
    assert status == 0
    data = out_path.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert data.count(b"/Type /Page ") == 2 and b"/Count 2" in data
    assert b"/MediaBox [0 0 595.20 841.92]" in data  # A4 in points
    # The first page's image, inflated, is the sheet: its markers detect back.
    header = re.search(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", data)
    assert header is not None
    width, height, length = (int(v) for v in header.groups())
    pixels = zlib.decompress(data[header.end() : header.end() + length])
    page = np.frombuffer(pixels, np.uint8).reshape(height, width)
    markers, _ = find_markers(np.asarray(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR), np.uint8))
    assert [m.seat for m in markers] == [1, 2, 3, 4, 5, 6]
    # The xref offsets point at the objects.
    start = int(data.rsplit(b"startxref\n", 1)[1].split()[0])
    assert data[start:].startswith(b"xref")
    offsets = [int(line[:10]) for line in data[start:].split(b"\n")[3:] if line.endswith(b" n ")]
    assert all(data[o:].startswith(b"%d 0 obj" % (i + 1)) for i, o in enumerate(offsets))


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--seats", "0"], "entre 1 y 49"),
        (["--seats", "50"], "entre 1 y 49"),
        (["--seats", "2", "--size", "500"], "--size"),
        (["--seats", "2", "--dpi", "10"], "--dpi"),
    ],
)
def test_markers_refuse_bad_input(
    argv: list[str], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "markers", *argv, str(tmp_path / "m.png"))
    assert status == 2 and fragment in err


def test_markers_refuse_a_bad_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "markers", "--seats", "2", str(tmp_path / "m.jpg"))
    assert status == 2 and ".pdf o .png" in err
    status, _, err = run(capsys, "markers", "--seats", "2", str(tmp_path / "no" / "m.png"))
    assert status == 2 and "no existe la carpeta" in err
