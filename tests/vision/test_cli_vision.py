"""The public contracts `cacho vision read | eval | finder | bench`, with the committed models."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cli import main
from vision.evaluate import read_labels, yolo_samples
from vision.pipeline import build_reader
from vision.reader import ReaderSettings
from vision.seats import find_markers, marker_regions
from vision.types import Box

FIXTURES = Path(__file__).parent / "fixtures" / "real"
CACHO = Path(sys.executable).with_name("cacho")
# The demo tables' first photos: the lean check flags a die on at least one of them (which one depends on the finder).
DEMO_PHOTOS = sorted((Path(__file__).parents[2] / "kiosk" / "demo" / "fotos").glob("*/000.jpg"))
# the demo's first table as the cups are lifted: two of its dice lean far enough for the lean check to flag them
LEANING = Path(__file__).parents[2] / "kiosk" / "demo" / "fotos" / "00" / "002.jpg"


@pytest.fixture(scope="module")
def reader():  # type: ignore[no-untyped-def]
    return build_reader()


@pytest.fixture(scope="module")
def upright_reader():  # type: ignore[no-untyped-def]
    """For the real photos: an upright phone at a slant took them, not a camera above the table."""
    return build_reader(settings=ReaderSettings(from_above=False))


def test_real_photos_never_get_a_silent_wrong_face(upright_reader) -> None:  # type: ignore[no-untyped-def]
    """On committed real val photos, every die the reader accepts (not uncertain) is a labelled die with its face."""
    accepted = 0
    for image, label in yolo_samples(FIXTURES):
        frame = cv2.imread(str(image))
        truth = read_labels(label, frame.shape[1], frame.shape[0])
        for die in upright_reader.read(frame).dice:
            if die.uncertain:
                assert die.reasons
                continue
            accepted += 1
            overlapping = [t for t in truth if t.box.iou(die.box) >= 0.5]
            assert overlapping, f"{image.name}: accepted a die that is not there at {die.box.to_list()}"
            assert overlapping[0].face == die.face, f"{image.name}: silent wrong face"
    # A reader that doubts every die would pass the loop above. With the committed models (issue 64) 2 of the
    # 5 labelled dice are accepted, both right (one die each on photos 219 and 366); the other three are read
    # with their right face but doubted (model and pips disagree, model under 0.90, pips not counted).
    assert accepted >= 2, f"only {accepted} of the fixtures' dice accepted: the reader doubts dice it read right before"


def test_a_clear_die_is_found_with_its_face(upright_reader) -> None:  # type: ignore[no-untyped-def]
    """The lone red die on a white table (val photo 103) is found where it is and read as its face."""
    image = next((FIXTURES / "images").glob("epanemu_dice_103_*"))
    frame = cv2.imread(str(image))
    [truth] = read_labels(FIXTURES / "labels" / (image.stem + ".txt"), frame.shape[1], frame.shape[0])
    found = [d for d in upright_reader.read(frame).dice if d.box.iou(truth.box) >= 0.5]
    assert found and found[0].face == truth.face


def test_a_rendered_table_is_read_without_silent_errors(reader) -> None:  # type: ignore[no-untyped-def]
    """The demo table's rendered photo (20 dice at about 30 px, exact labels): most dice found, none silently wrong."""
    folder = Path(__file__).parents[2] / "kiosk" / "demo" / "fotos" / "00"
    labels = json.loads((folder / "scene.json").read_text())
    frame = cv2.imread(str(sorted(folder.glob("*.jpg"))[-1]))
    dice = reader.read(frame).dice
    found = 0
    for truth in labels["dice"]:
        box = Box(*truth["box"])
        matched = [d for d in dice if d.box.iou(box) >= 0.5]
        if matched:
            found += 1
            assert matched[0].face == truth["face"] or matched[0].uncertain, f"silent wrong face at {truth['box']}"
    assert found >= 15, f"only {found} of {len(labels['dice'])} dice found"


def test_no_lean_check_reads_photos_not_taken_from_above(capsys: pytest.CaptureFixture[str]) -> None:
    """--no-lean-check: no die is flagged as maybe cocked, and none is flagged that the check alone flagged."""
    images = [str(p) for p in sorted((FIXTURES / "images").iterdir())] + [str(p) for p in DEMO_PHOTOS]
    images.append(str(LEANING))
    assert main(["vision", "read", *images, "--json"]) == 0
    checked = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any("corrida" in r for d in checked[-1]["dice"] for r in d.get("reasons", ()))
    assert main(["vision", "read", *images, "--json", "--no-lean-check"]) == 0
    plain = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for a, b in zip(checked, plain, strict=True):
        assert [d["face"] for d in a["dice"]] == [d["face"] for d in b["dice"]]
        assert all("corrida" not in r for d in b["dice"] for r in d.get("reasons", ()))
        assert sum(d["uncertain"] for d in b["dice"]) <= sum(d["uncertain"] for d in a["dice"])


def test_upright_photos_are_not_checked_for_lean(capsys: pytest.CaptureFixture[str]) -> None:
    """--upright (an upright camera at a slant): no lean check either, and the same dice found."""
    demo = [str(p) for p in DEMO_PHOTOS] + [str(LEANING)]
    assert main(["vision", "read", *demo, "--json"]) == 0
    above = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["vision", "read", *demo, "--json", "--upright"]) == 0
    upright = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for a, b in zip(above, upright, strict=True):
        assert [d["box"] for d in b["dice"]] == [d["box"] for d in a["dice"]]
        assert all("corrida" not in r for d in b["dice"] for r in d.get("reasons", ()))
    assert any("corrida" in r for a in above for d in a["dice"] for r in d.get("reasons", ()))


def test_nadir_from_the_seat_markers(capsys: pytest.CaptureFixture[str]) -> None:
    """--nadir markers: each photo is read from the nadir its seat markers give (the demo table's stills: within
    1 % of the width of their camera's true nadir), "tilt" says it, and the same dice are found; a photo with no
    markers is read from the centre (tilt null); --upright has no nadir."""
    from vision.synth.camera import Camera

    stills = sorted(p.with_name("004.jpg") for p in DEMO_PHOTOS)
    photo = sorted((FIXTURES / "images").iterdir())[0]
    assert main(["vision", "read", *map(str, stills), str(photo), "--json", "--nadir", "markers"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["tilt"] is None
    for still, line in zip(stills, lines, strict=False):
        scene = json.loads(still.with_name("scene.json").read_text())
        c = scene["meta"]["camera"]
        camera = Camera(scene["width"], scene["height"], c["hfov_deg"], c["height_m"], c["pitch_deg"], c["roll_deg"])
        true = camera.project(np.zeros((1, 3)))[0]
        tilt = line["tilt"]
        assert tilt["markers"] == 4 and tilt["hfov_deg"] == c["hfov_deg"]
        off = np.hypot(tilt["nadir"][0] * scene["width"] - true[0], tilt["nadir"][1] * scene["height"] - true[1])
        assert off < 0.01 * scene["width"]
    assert main(["vision", "read", *map(str, stills), "--json"]) == 0
    plain = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # the same dice, but for the boxes on a seat marker or its white border: read as the kiosk reads, those are none
    for still, p, t in zip(stills, plain, lines, strict=False):
        regions = [np.array(r, np.float32) for r in marker_regions(find_markers(cv2.imread(str(still)))[0])]

        def on_marker(box: list[float], regions: list[np.ndarray] = regions) -> bool:
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            return any(cv2.pointPolygonTest(r, centre, False) >= 0 for r in regions)

        assert [d["box"] for d in t["dice"]] == [d["box"] for d in p["dice"] if not on_marker(d["box"])]
    # the finder of 2026-11-27 boxes no marker on these stills; test_reader_core drops a box on one
    assert all(set(p) == {"image", "dice"} for p in plain)
    assert main(["vision", "read", str(photo), "--upright", "--nadir", "markers"]) == 2
    assert "--upright" in capsys.readouterr().err


def test_read_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    images = sorted((FIXTURES / "images").iterdir())
    assert main(["vision", "read", *map(str, images), "--json", "--annotate", str(tmp_path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == [str(p) for p in images]
    for line in lines:
        assert set(line) == {"image", "dice"}
        for die in line["dice"]:
            assert 1 <= die["face"] <= 6
            assert 0 <= die["confidence"] <= 1
            assert len(die["box"]) == 4 and die["box"][0] < die["box"][2] and die["box"][1] < die["box"][3]
            assert isinstance(die["uncertain"], bool)
            assert ("reasons" in die) == die["uncertain"]
    written = sorted(tmp_path.iterdir())
    assert [p.name for p in written] == sorted(p.stem + ".annotated.jpg" for p in images)
    assert cv2.imread(str(written[0])).shape == cv2.imread(str(images[0])).shape


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda p: None, "no existe"),
        (lambda p: p.write_bytes(b""), "vacía"),
        (lambda p: p.write_bytes(b"GIF89a not really"), "no es una imagen"),
        (lambda p: cv2.imwrite(str(p), np.zeros((80, 80), np.uint8)), "escala de grises"),
        (lambda p: cv2.imwrite(str(p), np.zeros((80, 80, 4), np.uint8)), "4 canales"),
        (lambda p: cv2.imwrite(str(p), np.zeros((8, 8, 3), np.uint8)), "muy chica"),
    ],
)
def test_read_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str], make, fragment: str) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "mala.png"
    make(bad)
    good = sorted((FIXTURES / "images").iterdir())[0]
    assert main(["vision", "read", str(bad), str(good), "--json"]) == 1
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["image"] == str(bad) and fragment in first["error"]
    assert second["image"] == str(good) and "dice" in second


def test_read_text_output_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    image = sorted((FIXTURES / "images").iterdir())[0]
    assert main(["vision", "read", str(image)]) == 0
    assert "dados:" in capsys.readouterr().out


def test_eval_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "eval", str(FIXTURES), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["images"] == 3 and report["labelled"] == 5
    for key in ("precision", "recall", "map50", "map50_95", "face_accuracy", "silent_errors", "images_all_right"):
        assert key in report


def test_eval_details_account_for_every_labelled_die(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--details FILE: one JSON line per image; its dice agree with the printed figures."""
    details = tmp_path / "dice.jsonl"
    assert main(["vision", "eval", str(FIXTURES), "--json", "--details", str(details)]) == 0
    report = json.loads(capsys.readouterr().out)
    lines = [json.loads(line) for line in details.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["image"] for line in lines) == sorted(str(image) for image, _ in yolo_samples(FIXTURES))
    dice = [d for line in lines for d in line["dice"]]
    found = [d["reading"] for d in dice if d["reading"] is not None]
    assert len(dice) == report["labelled"] and len(found) == report["matched"]
    assert len(found) + sum(len(line["extra"]) for line in lines) == report["predicted"]
    wrong = [d for d in dice if d["reading"] is not None and d["reading"]["face"] != d["label"]["face"]]
    assert len(wrong) == report["wrong_faces"]
    assert all(set(r) >= {"face", "confidence", "box", "uncertain"} for r in found)


def test_eval_details_in_a_missing_folder_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    details = tmp_path / "no" / "dice.jsonl"
    assert main(["vision", "eval", str(FIXTURES), "--details", str(details)]) == 2
    assert "no existe la carpeta" in capsys.readouterr().err and not details.parent.exists()


def test_eval_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "eval", str(tmp_path)]) == 2
    assert "no hay carpeta de imágenes" in capsys.readouterr().err


def test_finder_alone_per_confidence(capsys: pytest.CaptureFixture[str]) -> None:
    """`cacho vision finder`: one point per confidence, highest first; a lower confidence keeps more boxes and
    finds no fewer dice, and no reader behind the finder finds more than its ceiling."""
    assert main(["vision", "finder", str(FIXTURES), "--json", "--confidence", "0.03", "--confidence", "0.25"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["finder"].endswith("finder.pt")
    high, low = out["points"]
    assert (high["confidence"], low["confidence"]) == (0.25, 0.03)
    assert high["images"] == 3 and high["labelled"] == 5
    assert low["boxes"] >= high["boxes"] and low["covered"] >= high["covered"] >= high["matched"]
    assert high["matched"] >= 4  # the committed photos' dice are clear: the finder boxes nearly all of them
    assert main(["vision", "finder", str(FIXTURES)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert "dados etiquetados 5" in text[0] and len(text) == 5
    assert text[1].startswith("confianza ≥ 0.25:") and "techo" in text[1]


@pytest.mark.parametrize("confidence", ["0", "1.5", "-0.1"])
def test_finder_refuses_a_confidence_out_of_range(confidence: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "finder", str(FIXTURES), f"--confidence={confidence}"]) == 2
    assert "--confidence va entre 0" in capsys.readouterr().err


def test_finder_missing_weights_or_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "finder", str(FIXTURES), "--models", str(tmp_path)]) == 2
    assert "faltan los modelos entrenados" in capsys.readouterr().err
    assert main(["vision", "finder", str(tmp_path)]) == 2
    assert "no hay carpeta de imágenes" in capsys.readouterr().err


def test_missing_models_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = sorted((FIXTURES / "images").iterdir())[0]
    assert main(["vision", "read", str(image), "--models", str(tmp_path)]) == 2
    assert "faltan los modelos entrenados" in capsys.readouterr().err


def test_console_script_reads_from_outside() -> None:
    image = sorted((FIXTURES / "images").iterdir())[0]
    done = subprocess.run(
        [str(CACHO), "vision", "read", str(image), "--json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["image"] == str(image)


def test_the_bench_table_is_read_die_by_die(reader) -> None:  # type: ignore[no-untyped-def]
    """The committed rendered 4608x2592 table (25 dice, one cocked; its committed labels): every die found, every
    accepted face right, the cocked die never accepted."""
    from vision.bench import BENCH_LABELS, BENCH_TABLE
    from vision.pipeline import MODELS

    frame = cv2.imread(str(MODELS / "dice" / BENCH_TABLE))
    truth = read_labels(MODELS / "dice" / BENCH_LABELS, frame.shape[1], frame.shape[0])
    dice = reader.read(frame).dice
    assert len(truth) == 25 and sum(t.face is None for t in truth) == 1
    found = accepted = 0
    for t in truth:
        matched = [d for d in dice if d.box.iou(t.box) >= 0.5]
        if not matched:
            continue
        found += 1
        die = matched[0]
        if t.face is None:
            assert die.uncertain, "a cocked die was accepted"
        elif not die.uncertain:
            accepted += 1
            assert die.face == t.face, f"silent wrong face at {t.box}"
    assert found == 25
    # Half of its 24 flat dice (14 with the shipped models; 6 with the classifier before r6): the pip counter's
    # abstentions on dice seen off axis send the rest to the coordinator, flagged.
    assert accepted >= 12


def test_the_onnx_finder_reads_alone_the_boxes_ultralytics_reads() -> None:
    """The finder's ONNX export is read with ONNX Runtime alone (vision.onnx_yolo), its session not spin-waiting
    after a run (the pip counter needs the cores), and finds the boxes ultralytics finds in the same export."""
    import numpy as np

    from vision.finder import YoloFinder, reduce
    from vision.onnx_yolo import OnnxYolo
    from vision.pipeline import MODELS
    from vision.ultra import quiet_import

    finder = YoloFinder(MODELS / "dice" / "finder.onnx", confidence=0.03)
    assert isinstance(finder.model, OnnxYolo)
    options = finder.model.session.get_session_options()
    assert options.get_session_config_entry("session.force_spinning_stop") == "1"
    quiet_import()
    from ultralytics import YOLO

    through = YOLO(str(MODELS / "dice" / "finder.onnx"), task="detect")
    images = sorted((FIXTURES / "images").iterdir())[:3] + [Path(p) for p in DEMO_PHOTOS[:1]]
    for image in images:
        frame = cv2.imread(str(image))
        threads = cv2.getNumThreads()
        found = finder.detect(frame)
        assert cv2.getNumThreads() == threads  # OpenCV's threads back as they were after the reduced copy
        small, scale = reduce(frame, finder.long_side)
        imgsz = [int(np.ceil(side / 32) * 32) for side in small.shape[:2]]
        result = through.predict(small, imgsz=imgsz, conf=0.03, iou=finder.iou, verbose=False)[0]
        theirs = sorted(
            zip(np.asarray(result.boxes.conf.cpu()), np.asarray(result.boxes.xyxy.cpu()) / scale, strict=True),
            key=lambda x: -x[0],
        )
        assert len(found) == len(theirs) > 0, image
        for mine, (conf, box) in zip(found, theirs, strict=True):
            assert abs(mine.confidence - float(conf)) < 1e-4 and np.allclose(mine.box.to_list(), box, atol=0.15), image


def test_reading_the_dice_needs_neither_torch_nor_ultralytics() -> None:
    """The reading runtime: the committed reader reads a photo with ONNX Runtime, OpenCV and NumPy alone."""
    import subprocess
    import sys

    code = (
        "import sys, cv2\n"
        "from vision.pipeline import build_reader\n"
        f"reading = build_reader().read(cv2.imread({str(DEMO_PHOTOS[0])!r}))\n"
        "assert reading.dice, 'no die read'\n"
        "print(sorted(m for m in ('torch', 'ultralytics') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_second_chance_adds_only_flagged_dice(capsys: pytest.CaptureFixture[str]) -> None:
    """The second chance (on by default): every die read with --no-second-chance keeps its box, face and flags,
    and each die it adds is flagged."""
    images = [str(p) for p in sorted((FIXTURES / "images").iterdir())] + [str(p) for p in DEMO_PHOTOS]
    images += [str(p) for p in sorted((FIXTURES.parent / "second_chance").glob("*.jpg"))]
    assert main(["vision", "read", *images, "--json", "--no-second-chance"]) == 0
    plain = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["vision", "read", *images, "--json"]) == 0
    second = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    added = 0
    for a, b in zip(plain, second, strict=True):
        extra = [d for d in b["dice"] if d["box"] not in [e["box"] for e in a["dice"]]]
        kept = [d for d in b["dice"] if d not in extra]
        assert [(d["box"], d["face"]) for d in kept] == [(d["box"], d["face"]) for d in a["dice"]]
        assert all(d["uncertain"] for d, e in zip(kept, a["dice"], strict=True) if e["uncertain"])  # no flag cleared
        assert all(d["uncertain"] and any("detección dudosa" in r for r in d["reasons"]) for d in extra)
        added += len(extra)
    assert added > 0


def test_a_close_up_photo_is_read_not_flagged_for_its_dice_being_big(capsys: pytest.CaptureFixture[str]) -> None:
    """A die's share of the frame is the table camera's geometry: `read` applies it only to photos read as the
    table's camera sees them (--nadir markers); on any other photo a big die is a die."""
    images = [str(p) for p in sorted((FIXTURES / "images").iterdir())]
    big = "demasiado grande para un dado"
    assert main(["vision", "read", *images, "--json"]) == 0
    assert big not in capsys.readouterr().out
    assert main(["vision", "read", *images, "--json", "--nadir", "markers"]) == 0
    assert big in capsys.readouterr().out


def test_eval_applies_the_tables_geometry_to_rendered_tables_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`eval` on rendered tables (a meta/ sidecar folder) or with --nadir markers reads with the size-for-the-frame
    check; on a folder of other photos without it."""
    import vision.pipeline

    asked: list[float | None] = []
    real = vision.pipeline.build_reader

    def recording(models: Path | None, settings: ReaderSettings, processes: bool = False) -> object:
        asked.append(settings.max_die_share)
        return real(models, settings, processes)

    monkeypatch.setattr(vision.pipeline, "build_reader", recording)
    rendered = tmp_path / "rendered"
    shutil.copytree(FIXTURES, rendered)
    (rendered / "meta").mkdir()
    for folder, extra in ((FIXTURES, []), (FIXTURES, ["--nadir", "markers"]), (rendered, [])):
        assert main(["vision", "eval", str(folder), "--json", *extra]) == 0
    assert asked == [None, ReaderSettings().max_die_share, ReaderSettings().max_die_share]
