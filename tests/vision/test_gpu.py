"""The GPU run rehearsed on this CPU: pack a tiny fake data root, train a few batches, resume, refuse val photos."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.cardfolders import index_folder
from vision.cards import index_classifier as ic
from vision.faces import realsets
from vision.gpu import aside as gpu_aside
from vision.gpu import pack as gpu_pack
from vision.gpu import train as gpu_train
from vision.gpu.weights import dequantize, quantize

torch = pytest.importorskip("torch")
pytest.importorskip("ultralytics")


def _photo(path: Path, label: Path, seed: int) -> None:
    """A photo of three light squares with dark dots on grey, and their YOLO labels (faces 1-3)."""
    rng = np.random.default_rng(seed)
    img = np.full((160, 200, 3), 90, np.uint8)
    lines = []
    for k in range(3):
        x, y = 20 + 60 * k, int(rng.integers(20, 100))
        img[y : y + 40, x : x + 40] = 235
        for d in range(k + 1):
            cv2.circle(img, (x + 10 + 10 * d, y + 20), 4, (20, 20, 20), -1)
        lines.append(f"{k} {(x + 20) / 200:.4f} {(y + 20) / 160:.4f} {40 / 200:.4f} {40 / 160:.4f}")
    path.parent.mkdir(parents=True, exist_ok=True)
    label.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)
    label.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dice-real (train and val folders) and a hash-split set with both parts."""
    root = tmp_path_factory.mktemp("data")
    real = root / "dice-real"
    for i in range(6):
        _photo(real / "images" / "train" / f"byler_{i}.jpg", real / "labels" / "train" / f"byler_{i}.txt", i)
    for i in range(2):
        _photo(real / "images" / "val" / f"epanemu_{i}.jpg", real / "labels" / "val" / f"epanemu_{i}.txt", 50 + i)
    trays = root / "dice-real-extra" / "rune55-phone-trays"
    for i in range(24):
        _photo(trays / "images" / f"tray_{i}.jpg", trays / "labels" / f"tray_{i}.txt", 100 + i)
    assert realsets.photos(realsets.real_set("rune55-phone-trays"), root, "val")
    return root


def _pack(pack: Path, data_root: Path, coco: Path, candidates: Path, budget: str = "4") -> int:
    """`python -m vision.gpu pack` of the fake data root, without wheels or candidates."""
    args = ["--data-root", str(data_root), "--pretrained", str(coco), "--candidates", str(candidates)]
    return gpu_pack.main([str(pack), *args, "--no-wheels", "--budget-mib", budget])


@pytest.fixture(scope="module")
def coco(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in for the COCO YOLOv5n state dict: same names, random weights, float16."""
    from ultralytics.nn.tasks import DetectionModel

    path = tmp_path_factory.mktemp("pretrained") / "yolov5n.state.pt"
    state = DetectionModel("yolov5n.yaml", nc=80, verbose=False).state_dict()
    torch.save({k: v.half() if v.is_floating_point() else v for k, v in state.items()}, path)
    return path


def test_quantized_weights_stay_close() -> None:
    """8 bits per channel: every weight within half a step, shapes and integer tensors kept."""
    state = {"w": torch.randn(16, 8, 3, 3), "b": torch.randn(16), "n": torch.tensor(7)}
    back = dequantize(quantize(state))
    step = (state["w"].reshape(16, -1).amax(1) - state["w"].reshape(16, -1).amin(1)) / 255
    assert back["w"].shape == state["w"].shape
    assert ((back["w"] - state["w"]).abs().reshape(16, -1).amax(1) <= step * 0.51 + 1e-3).all()
    assert torch.allclose(back["b"], state["b"], atol=1e-2) and int(back["n"]) == 7


def test_pack_never_holds_a_val_photo(data_root: Path, coco: Path, tmp_path: Path) -> None:
    """Every packed photo is in its set's train part; the budget is kept; the manifest says what is there."""
    out = tmp_path / "pack"
    assert _pack(out, data_root, coco, tmp_path / "none") == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["bytes"] <= 4 * 2**20 and manifest["start_weights"]["licence"] == "AGPL-3.0"
    assert "vision.gpu train" in manifest["command"]
    packed = list((out / "real").rglob("*.jpg"))
    assert len(packed) == sum(s["packed"] for s in manifest["real"]["sets"].values()) > 0
    val = {p.name for rs in realsets.real_sets(data_root) for p in realsets.photos(rs, data_root, "val")}
    assert val and not val & {p.name for p in packed}
    assert not (out / "real" / "dice-real" / "images" / "val").exists()
    gpu_train.check_pack(out)
    # a smaller budget takes fewer photos, still from every set in turn
    smaller = str((manifest["bytes"] - 30_000) / 2**20)
    assert _pack(out, data_root, coco, tmp_path / "none", smaller) == 0
    assert len(list((out / "real").rglob("*.jpg"))) < len(packed)


def test_pack_with_cards_holds_their_crops_a_start_and_the_command(data_root: Path, coco: Path, tmp_path: Path) -> None:
    """`--cards`: the index crops and the shipped first classifier packed first, the dice photos in the room left."""
    out = tmp_path / "pack"
    folder = index_folder(tmp_path / "index")
    assert _pack(out, data_root, coco, tmp_path / "none", "8") == 0
    photos = len(list((out / "real").rglob("*.jpg")))
    args = ["--data-root", str(data_root), "--pretrained", str(coco), "--candidates", str(tmp_path / "none")]
    assert gpu_pack.main([str(out), *args, "--no-wheels", "--budget-mib", "8", "--cards", str(folder)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["cards"]["crops"] == {"train": 12, "val": 4} and manifest["bytes"] <= 8 * 2**20
    command = manifest["cards"]["command"]
    assert "vision.cards.index_classifier" in command and "--device cuda" in command and "$OUT" in command
    assert f"{out.as_posix()}/cards/index-crops.npz" in command
    crops, labels = ic.packed_crops(out / "cards" / "index-crops.npz", "train")
    assert len(crops) == 12 and labels == ic.crops_of(folder, "train")[1]
    assert ic.IndexClassifier(out / "cards" / "index_cls.pt").arch == ic.IndexClassifier(gpu_pack.card_start()).arch
    assert len(list((out / "real").rglob("*.jpg"))) <= photos
    with pytest.raises(SystemExit, match="no es una carpeta de índices de cartas"):
        gpu_pack.main([str(out), *args, "--no-wheels", "--budget-mib", "8", "--cards", str(tmp_path / "nada")])
    assert json.loads((out / "manifest.json").read_text()) == manifest  # the pack there is left as it was
    backs = index_folder(tmp_path / "backs", {"train": 1})
    (backs / "labels" / "train" / "p0.txt").write_text("52 0.5 0.5 0.2 0.3\n")  # a card face down, no index
    with pytest.raises(SystemExit, match="nada que aprender"):
        gpu_pack.main([str(out), *args, "--no-wheels", "--budget-mib", "8", "--cards", str(backs)])
    assert json.loads((out / "manifest.json").read_text()) == manifest


def test_train_refuses_a_val_photo(data_root: Path, coco: Path, tmp_path: Path) -> None:
    """A val photo slipped into a pack stops the run before anything is trained."""
    out = tmp_path / "pack"
    _pack(out, data_root, coco, tmp_path / "none")
    shutil.copy(
        data_root / "dice-real" / "images" / "val" / "epanemu_0.jpg", out / "real" / "dice-real" / "images" / "train"
    )
    with pytest.raises(SystemExit, match="validación"):
        gpu_train.check_pack(out)
    held = next(p for p in realsets.photos(realsets.real_set("rune55-phone-trays"), data_root, "val"))
    shutil.copy(held, out / "real" / "dice-real-extra" / "rune55-phone-trays" / "images")
    (out / "real" / "dice-real" / "images" / "train" / "epanemu_0.jpg").unlink()
    with pytest.raises(SystemExit, match="validación"):
        gpu_train.check_pack(out)


def test_pack_without_network_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pip failing (no registry) gives a Spanish message naming the cache."""

    class Failed:
        returncode = 1
        stderr = "network unreachable"

    monkeypatch.setattr("vision.gpu.pack.subprocess.run", lambda *a, **k: Failed())
    with pytest.raises(SystemExit, match="no pude descargar"):
        gpu_pack.fetch_wheels(tmp_path / "cache", tmp_path / "wheels")
    (tmp_path / "cache" / "ultralytics-0-py3-none-any.whl").write_bytes(b"x")
    monkeypatch.setattr("vision.gpu.pack.metadata.version", lambda name: "0")
    assert [p.name for p in gpu_pack.fetch_wheels(tmp_path / "cache", tmp_path / "wheels")] == [
        "ultralytics-0-py3-none-any.whl"
    ]


def test_train_rehearsal_writes_out_and_resumes(
    data_root: Path, coco: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tiny CPU run, its budget counted in epochs, writes what $OUT must hold; a second starts from the first's
    candidates."""
    for missing in ("polars", "thop", "ultralytics_platform"):  # not carried to the GPU machine
        monkeypatch.setitem(sys.modules, missing, None)
    pack = tmp_path / "pack"
    _pack(pack, data_root, coco, tmp_path / "none")
    candidates = tmp_path / "candidates"
    common = [str(pack), "--device", "cpu", "--imgsz", "64", "--batch", "4", "--workers", "0", "--tables", "2"]
    common += ["--val-tables", "1", "--table-size", "640x360", "--compose-workers", "1", "--faces-epochs", "1"]
    common += ["--finder-epochs", "1", "--faces-per-epoch", "32", "--faces-batch", "16", "--faces-threads", "1"]
    common += ["--faces-workers", "1", "--faces-input", "32", "--reserve", "8"]
    common += ["--candidates", str(candidates), "--scratch", str(tmp_path / "scratch")]
    # the minutes are only a cap here, far beyond what the epochs take: the run ends by its steps, on any machine
    out = tmp_path / "out1"
    assert gpu_train.main([*common, "--minutes", "60", "--out", str(out)]) == 0
    names = {p.name for p in out.iterdir()}
    assert {"log.txt", "run.json", "finder.pt", "finder.q8.pt", "faces.q8.pt", "metrics.json"} <= names
    assert len(names) <= 8
    assert all(p.is_file() and p.stat().st_size < 16 * 2**20 for p in out.iterdir())
    run = json.loads((out / "run.json").read_text())
    assert not run["resumed"] and run["finder"]["epochs"] == 1
    assert run["faces"]["finished"] and len(run["faces"]["history"]) == 1 and run["faces"]["returncode"] == 0
    candidates.mkdir()
    for name in ("finder.q8.pt", "faces.q8.pt"):
        shutil.copy(out / name, candidates / name)
    out2 = tmp_path / "out2"
    assert gpu_train.main([*common, "--minutes", "60", "--out", str(out2), "--no-faces"]) == 0
    log = (out2 / "log.txt").read_text()
    assert "desde finder.q8.pt" in log and json.loads((out2 / "run.json").read_text())["resumed"]


class _Running:
    """A face classifier's process still running when the time is up: it stops only when told to."""

    def __init__(self) -> None:
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and timeout is not None:
            raise subprocess.TimeoutExpired("vision.faces.train", timeout)
        return self.returncode or 0

    def terminate(self) -> None:
        self.returncode = -15


@pytest.mark.parametrize("left", ["model", "checkpoint", "nothing"])
def test_a_face_classifier_cut_at_the_time_limit_is_collected_without_a_crash(tmp_path: Path, left: str) -> None:
    """Stopped at the limit after writing its model but not its metrics, after a checkpoint, or before anything:
    the run keeps what there is, says it was cut, and never fails for a file the cut left unwritten."""
    from vision.faces.classifier import TORCH_NAME

    scratch, out = tmp_path / "scratch", tmp_path / "out"
    (scratch / "faces").mkdir(parents=True)
    out.mkdir()
    state = {"0.0.conv.weight": torch.ones(4, 3, 3, 3), "1.linear.weight": torch.ones(7, 4)}
    if left == "model":
        torch.save({"state_dict": state}, scratch / "faces" / TORCH_NAME)
    elif left == "checkpoint":
        history = json.dumps([{"epoch": 1, "loss": 1.0}])
        torch.save({"model": state, "epoch": 1, "history": history}, scratch / "faces" / "checkpoint.pt")
    (scratch / "faces.log").write_text("época 1/10\n")
    handle = (scratch / "faces.log").open("rb")
    lines: list[str] = []
    found = gpu_train.finish_faces((_Running(), handle), 0.0, scratch, out, lines.append)
    assert handle.closed and found["returncode"] == -15
    assert lines == ["caras: cortado al llegar al límite de tiempo (queda su último punto de control)"]
    assert "época 1/10" in (out / "log.txt").read_text()
    if left == "nothing":
        assert found == {"returncode": -15} and not (out / "faces.q8.pt").exists()
        return
    assert not found["finished"] and (out / "faces.q8.pt").is_file()
    assert dequantize(torch.load(out / "faces.q8.pt", weights_only=True)).keys() == {"model.0.conv.weight"}
    assert not (out / "metrics.json").exists()


def test_train_rehearsal_with_a_cocked_class(
    data_root: Path, coco: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--cocked-class: cocked dice labelled 1 in the tiles, every real die 0, a two-class finder written under its
    own name, started from the one-class candidate and then from its own."""
    for missing in ("polars", "thop", "ultralytics_platform"):
        monkeypatch.setitem(sys.modules, missing, None)
    pack = tmp_path / "pack"
    _pack(pack, data_root, coco, tmp_path / "none")
    scratch = tmp_path / "scratch"
    common = [str(pack), "--device", "cpu", "--imgsz", "64", "--batch", "4", "--workers", "0", "--tables", "3"]
    common += ["--val-tables", "1", "--table-size", "960x540", "--compose-workers", "1", "--no-faces"]
    common += [
        "--cocked-class",
        "--cocked-rate",
        "1",
        "--reserve",
        "8",
        "--scratch",
        str(scratch),
        "--finder-epochs",
        "1",
    ]
    candidates = tmp_path / "candidates"
    out = tmp_path / "out1"
    for rate in ("0", "1.5"):  # a rate that is no probability stops the run before anything is written
        with pytest.raises(SystemExit) as stop:
            gpu_train.main([*common, "--cocked-rate", rate, "--out", str(out)])
        assert stop.value.code == 2 and not out.exists() and not scratch.exists()
    assert gpu_train.main([*common, "--candidates", str(candidates), "--minutes", "60", "--out", str(out)]) == 0
    labels = (scratch / "tiles" / "labels").glob("*.txt")
    tiles = [line.split()[0] for f in labels for line in f.read_text().splitlines()]
    assert set(tiles) == {"0", "1"}
    real = [line.split()[0] for f in (scratch / "real-flat").rglob("*.txt") for line in f.read_text().splitlines()]
    assert real and set(real) == {"0"}
    assert {"finder-cocked.pt", "finder-cocked.q8.pt"} <= {p.name for p in out.iterdir()}
    assert not (out / "finder.pt").exists()
    run = json.loads((out / "run.json").read_text())
    assert run["finder"]["names"] == ["die", "cocked"] and not run["resumed"]
    from ultralytics import YOLO

    assert YOLO(str(out / "finder-cocked.pt")).names == {0: "die", 1: "cocked"}
    from vision.gpu import cocked

    report = cocked.measure(out / "finder-cocked.pt", scratch / "val-tables")
    assert report["tables"] == 1 and report["cocked"] >= 1 and report["flat"] >= 1
    assert set(report["flagged"]) == {str(t) for t in cocked.THRESHOLDS}
    with pytest.raises(SystemExit, match="no tiene clase de dado montado"):
        cocked.measure(gpu_pack.REPO / "models" / "dice" / "finder.pt", scratch / "val-tables")
    with pytest.raises(SystemExit, match="no tiene meta"):
        cocked.main(["--finder", str(out / "finder-cocked.pt"), str(tmp_path)])
    candidates.mkdir()
    shutil.copy(out / "finder-cocked.q8.pt", candidates / "finder-cocked.q8.pt")
    out2 = tmp_path / "out2"
    assert gpu_train.main([*common, "--candidates", str(candidates), "--minutes", "60", "--out", str(out2)]) == 0
    assert "desde finder-cocked.q8.pt" in (out2 / "log.txt").read_text()


def test_the_checkout_leaves_the_pack_room_for_real_photos() -> None:
    """Everything tracked but what `aside` moves travels to the GPU machine with the pack: 30 MiB must stay free
    for it (the wheel 1.4, the start weights 2-4, about 600 real photos); a large file committed takes them."""
    room = gpu_pack.default_budget(leaving=gpu_aside.ASIDE) / 2**20
    assert room >= 30, f"the checkout leaves the GPU pack {room:.1f} MiB of 64: commit less (docs/gpu.md)"


def _repo(tmp_path: Path) -> Path:
    """A git repository with one file to set aside, one to keep and one that is not set aside."""
    repo = tmp_path / "repo"
    (repo / "models" / "cards").mkdir(parents=True)
    (repo / "models" / "cards" / "finder.pt").write_bytes(b"x" * 5000)
    (repo / "docs").mkdir()
    (repo / "docs" / "gpu.md").write_text("doc\n")
    (repo / ".gitignore").write_text(f"/{gpu_aside.STORE}/\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"]):
        subprocess.run(["git", *command], cwd=repo, check=True)
    return repo


def test_aside_leaves_only_what_travels_and_restore_puts_it_back(tmp_path: Path) -> None:
    """The set-aside file neither travels nor stays in the index; restore leaves the checkout as committed."""
    repo = _repo(tmp_path)
    before = gpu_pack.travelling_bytes(repo)
    assert gpu_aside.aside(repo, ("models/cards", "kiosk/demo/fotos")) == ["models/cards"]
    assert not (repo / "models" / "cards").exists()
    assert "models/cards" not in subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout
    assert gpu_pack.travelling_bytes(repo) == before - gpu_pack.carried(5000)
    with pytest.raises(gpu_aside.AsideError, match="restore primero"):
        gpu_aside.aside(repo, ("models/cards",))
    assert gpu_aside.restore(repo) == ["models/cards"]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    assert status == "" and (repo / "models" / "cards" / "finder.pt").stat().st_size == 5000
    with pytest.raises(gpu_aside.AsideError, match="no hay nada apartado"):
        gpu_aside.restore(repo)


def test_aside_refuses_a_store_that_would_travel(tmp_path: Path) -> None:
    """Without the store ignored the files would travel anyway: nothing is moved."""
    repo = _repo(tmp_path)
    (repo / ".gitignore").write_text("")
    with pytest.raises(gpu_aside.AsideError, match="no está ignorada"):
        gpu_aside.aside(repo, ("models/cards",))
    assert (repo / "models" / "cards" / "finder.pt").is_file()


def test_aside_refuses_uncommitted_changes(tmp_path: Path) -> None:
    """A changed file is never moved out of the way, and nothing else is either."""
    repo = _repo(tmp_path)
    (repo / "models" / "cards" / "finder.pt").write_bytes(b"y")
    with pytest.raises(gpu_aside.AsideError, match="cambios sin confirmar"):
        gpu_aside.aside(repo, ("models/cards",))
    assert (repo / "models" / "cards" / "finder.pt").read_bytes() == b"y" and not (repo / gpu_aside.STORE).exists()


def test_a_pack_counts_what_it_carries_as_the_device_does(data_root: Path, coco: Path, tmp_path: Path) -> None:
    """The pack's files, counted with their archive headers and blocks, stay within its budget."""
    pack = tmp_path / "pack"
    _pack(pack, data_root, coco, tmp_path / "none")
    assert gpu_pack.folder_bytes(pack) <= 4 * 2**20
    assert json.loads((pack / "manifest.json").read_text())["bytes"] >= gpu_pack.folder_bytes(pack) - 1024


def test_valsets_link_every_val_photo_and_no_train_photo(data_root: Path, tmp_path: Path) -> None:
    """Each set's val part, and only it, as a YOLO folder that `cacho vision eval` reads."""
    from vision.evaluate import yolo_samples
    from vision.gpu import valsets

    out = tmp_path / "val"
    counts = valsets.write(data_root, out)
    trays = realsets.real_set("rune55-phone-trays")
    assert counts == {"dice-real": 2, "rune55-phone-trays": len(realsets.photos(trays, data_root, "val"))}
    samples = list(yolo_samples(out / "dice-real"))
    assert sorted(p.name for p, _ in samples) == ["epanemu_0.jpg", "epanemu_1.jpg"]
    assert all(label.read_text().count("\n") == 3 for _, label in samples)
    assert valsets.write(data_root, out) == counts  # written again over its own links


def test_valsets_correct_the_dice_a_set_labels_wrong(data_root: Path, tmp_path: Path) -> None:
    """A fix names a photo and a point on a die: its label says the face it shows; the set's own file is unchanged."""
    from vision.gpu import valsets
    from vision.relabel import Relabel

    source = data_root / "dice-real" / "labels" / "val" / "epanemu_0.txt"
    first = source.read_text().splitlines()[0].split()
    x, y = float(first[1]) * 200, float(first[2]) * 160
    valsets.write(data_root, tmp_path / "val", [Relabel("epanemu_0.jpg", x, y, 5)])
    written = (tmp_path / "val" / "dice-real" / "labels" / "epanemu_0.txt").read_text().splitlines()
    assert written[0].split()[0] == "5" and first[0] == "0"
    assert source.read_text().splitlines()[0].split()[0] == "0"


def test_valsets_refuses_a_bad_fixes_file(data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fixes file that is not `photo x y face` stops the command with a Spanish message, nothing written."""
    from vision.gpu import valsets

    bad = tmp_path / "bad.txt"
    bad.write_text("epanemu_0.jpg diez 3 4\n")
    assert valsets.main([str(tmp_path / "v2"), "--data-root", str(data_root), "--fixes", str(bad)]) == 1
    assert "no puedo leer las correcciones" in capsys.readouterr().err and not (tmp_path / "v2").exists()


def test_judge_reads_each_set_with_both_finders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped finder judged against itself on a few real photos: the same figures, adoptable; the folder it
    builds holds the finder and the shipped face readers."""
    from vision.gpu import judge

    finder = gpu_pack.REPO / "models" / "dice" / "finder.pt"
    photos = Path(__file__).parent / "fixtures" / "real"
    work = tmp_path / "work"
    args = ["--finder", str(finder), "--val", str(tmp_path / "none"), "--rendered", str(photos), "--work", str(work)]
    assert judge.main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["adoptable"] and out["sets"][0]["base"] == out["sets"][0]["candidate"]
    assert (work / "models" / "dice" / "finder.pt").resolve() == finder.resolve()
    assert (work / "models" / "faces" / "face_cnn.onnx").is_file()


def test_judge_links_the_face_readers_it_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--faces alone: the shipped finder beside the given face readers; neither given: nothing to judge. (Reading
    with `cacho vision eval` is the test above's; here the reading is a stand-in.)"""
    from vision.gpu import judge

    read: list[Path] = []

    def fake_evaluate(folder: Path, models: Path) -> dict[str, object]:
        read.append(models)
        return {"labelled": 4, "recall": 1.0, "load": 0.25, "unsafe": 0, "silent_errors": 0}

    monkeypatch.setattr(judge, "evaluate", fake_evaluate)
    faces = gpu_pack.REPO / "models" / "faces"
    photos = Path(__file__).parent / "fixtures" / "real"
    work = tmp_path / "work"
    args = ["--faces", str(faces), "--val", str(tmp_path / "none"), "--rendered", str(photos), "--work", str(work)]
    assert judge.main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["adoptable"]
    assert len(read) == 2 and work / "models" in read
    assert (work / "models" / "faces").resolve() == faces.resolve()
    assert (work / "models" / "dice" / "finder.pt").resolve() == (gpu_pack.REPO / "models" / "dice" / "finder.pt")
    with pytest.raises(SystemExit) as stop:
        judge.main(["--val", str(tmp_path / "none"), "--rendered", str(photos)])
    assert stop.value.code == 2 and "nada que juzgar" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        judge.main(["--faces", str(tmp_path), "--rendered", str(photos)])
    assert stop.value.code == 2 and "no tiene face_cnn.onnx" in capsys.readouterr().err


def test_judge_names_the_sets_a_candidate_reads_worse() -> None:
    from vision.gpu.judge import verdict

    same = {"labelled": 10, "recall": 0.9, "load": 0.5, "unsafe": 0, "silent_errors": 0}
    rows = [
        {"set": "a", "base": same, "candidate": same},
        {"set": "b", "base": same, "candidate": {**same, "recall": 0.95, "unsafe": 1}},
        {"set": "c", "base": same, "candidate": {**same, "recall": 0.8, "load": 0.6}},
    ]
    assert verdict(rows) == ["b: inseguras", "c: recall, carga"]


def test_judge_refuses_a_missing_finder_or_nothing_to_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vision.gpu import judge

    with pytest.raises(SystemExit) as stop:
        judge.main(["--finder", str(tmp_path / "no.pt")])
    assert stop.value.code == 2 and "no existe" in capsys.readouterr().err
    (tmp_path / "f.pt").write_bytes(b"x")
    with pytest.raises(SystemExit) as stop:
        judge.main(["--finder", str(tmp_path / "f.pt"), "--val", str(tmp_path / "none"), "--work", str(tmp_path / "w")])
    assert stop.value.code == 2 and "nada que leer" in capsys.readouterr().err and not (tmp_path / "w").exists()


def test_valsets_refuses_a_fix_on_a_photo_it_cannot_read(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fix for a val photo that is no image stops the command with a Spanish message before anything is written."""
    from vision.gpu import valsets

    root = tmp_path / "data"
    shutil.copytree(data_root, root)
    (root / "dice-real" / "images" / "val" / "epanemu_0.jpg").write_bytes(b"no es una foto")
    fixes = tmp_path / "fixes.txt"
    fixes.write_text("epanemu_0.jpg 40 40 3\n")
    out = tmp_path / "val"
    assert valsets.main([str(out), "--data-root", str(root), "--fixes", str(fixes)]) == 1
    assert "no puedo corregir las etiquetas" in capsys.readouterr().err and not out.exists()
