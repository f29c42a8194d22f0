"""`python -m vision.gpu train PACK --out DIR` on the GPU machine: compose tables, train the finder and faces."""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vision.faces import realsets
from vision.faces.classifier import BACKBONE_LAYERS, detector_layers
from vision.faces.crops import photo_id
from vision.gpu.pack import CANDIDATES, FACES_CANDIDATE, FINDER_CANDIDATE, MANIFEST, REPO, START_WEIGHTS
from vision.gpu.weights import load_quantized, save_quantized, yolo_checkpoint

LOG = "log.txt"
RUN = "run.json"
RESERVE_S = 40.0  # left at the end for the finder's last save and validation, and the copies into --out
COCKED_CANDIDATE = "finder-cocked.q8.pt"  # the finder with a cocked class: its own line of candidates
COCKED_NAMES = ["die", "cocked"]


class Log:
    """Print and keep every line in DIR/log.txt."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def __call__(self, text: str) -> None:
        """One line, stamped with the clock."""
        line = f"[{time.strftime('%H:%M:%S')}] {text}"
        print(line, flush=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


def check_pack(pack: Path) -> dict[str, Any]:
    """The pack's manifest, after refusing (SystemExit) any photo of a val part in it."""
    if not (pack / MANIFEST).is_file():
        raise SystemExit(f"{pack} no es un paquete (falta {MANIFEST}): hágalo con python -m vision.gpu pack")
    manifest: dict[str, Any] = json.loads((pack / MANIFEST).read_text())
    root = pack / "real"
    for rs in realsets.REAL_SETS:
        folder = root / rs.folder / "images"
        if not folder.is_dir():
            continue
        if (folder / realsets.VAL_FOLDER).exists():
            raise SystemExit(f"el paquete trae {folder / realsets.VAL_FOLDER}: nunca se entrena con validación")
        refused = set(manifest.get("real", {}).get("sets", {}).get(rs.name, {}).get("val_refused", []))
        for image in folder.rglob("*.jpg"):
            if rs.split == realsets.SPLIT_BY_HASH and realsets.held_out(realsets.group_of(rs, image.name)):
                raise SystemExit(f"{image} es de la parte de validación de {rs.name}: paquete rechazado")
            if image.name in refused or photo_id(image.name) in refused:
                raise SystemExit(f"{image} es de la parte de validación de {rs.name}: paquete rechazado")
    return manifest


def _compose(task: tuple[int, str, str, int, int, str, int, float]) -> int:
    """Compose one table (full frame with meta for the faces, and finder tiles); the number of tiles written.
    With a cocked rate (> 0) the table has that rate and every cocked sprite, and its tiles label a cocked die 1."""
    import cv2

    from vision.synth.compose import tiles, yolo_lines
    from vision.synth.generate import build_parser, make_one

    seed, tables, tile_dir, tile, long_side, size, split_val, cocked_rate = task
    sprites = "val" if split_val else "train"
    split = "val" if split_val else "train"
    command = ["--out", tables, "--count", "1", "--size", size, "--sprites", sprites]
    if cocked_rate > 0:
        command += ["--cocked-rate", str(cocked_rate), "--more-cocked"]
    args = build_parser().parse_args(command)
    args.split = split
    make_one((seed, args))
    stem = f"{split}_{seed:08d}"
    meta = json.loads((Path(tables) / "meta" / f"{stem}.json").read_text())
    frame = cv2.imread(str(Path(tables) / "images" / f"{stem}.jpg"), cv2.IMREAD_COLOR)
    if frame is None:
        raise RuntimeError(f"no puedo leer la mesa {stem}")
    out = Path(tile_dir)
    for k, (img, dice, _origin) in enumerate(tiles(frame, meta["dice"], tile, long_side)):
        name = f"{stem}_t{k}"
        cv2.imwrite(str(out / "images" / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        if cocked_rate > 0:
            dice = [{**d, "class": int(bool(d.get("cocked")))} for d in dice]
        (out / "labels" / f"{name}.txt").write_text(yolo_lines(dice, img.shape[1], img.shape[0], cocked_rate <= 0))
    return k + 1


def compose(
    first_seed: int, count: int, tables: Path, tile_dir: Path, args: argparse.Namespace, deadline: float, val: bool
) -> tuple[int, int]:
    """Compose up to `count` tables from `first_seed` on every core until `deadline`: (tables, tiles)."""
    cocked = args.cocked_rate if args.cocked_class else 0.0
    for folder in (tables / "images", tables / "labels", tables / "meta", tile_dir / "images", tile_dir / "labels"):
        folder.mkdir(parents=True, exist_ok=True)
    tasks = [
        (first_seed + i, str(tables), str(tile_dir), args.imgsz, 2 * args.imgsz, args.table_size, int(val), cocked)
        for i in range(count)
    ]
    done = tiles = 0
    with multiprocessing.get_context("spawn").Pool(args.compose_workers) as pool:
        for n in pool.imap_unordered(_compose, tasks):
            done += 1
            tiles += n
            if time.time() > deadline:
                pool.terminate()
                break
    return done, tiles


def finder_sets(pack: Path) -> list[Path]:
    """The packed real sets whose boxes enclose the dice (not the pip boxes of a padded set): their image folders."""
    out = []
    for rs in realsets.REAL_SETS:
        images = pack / "real" / rs.folder / "images"
        if rs.split == realsets.SPLIT_BY_FOLDER:
            images = images / "train"
        if images.is_dir() and not rs.pad:
            out.append(images)
    return out


def one_class_copies(folders: list[Path], scratch: Path) -> list[str]:
    """Links to the photos of `folders` beside labels whose every die is class 0 (a real die lies flat: the real
    sets label faces, not cocked dice); the links' paths."""
    out = []
    for k, folder in enumerate(folders):
        images_copy, labels_copy = scratch / "real-flat" / str(k) / "images", scratch / "real-flat" / str(k) / "labels"
        images_copy.mkdir(parents=True, exist_ok=True)
        labels_copy.mkdir(parents=True, exist_ok=True)
        for photo in sorted(folder.glob("*.jpg")):
            label = realsets.label_path(photo)
            lines = label.read_text().split("\n") if label.is_file() else []
            flat = ["0 " + line.split(maxsplit=1)[1] for line in lines if len(line.split()) == 5]
            (labels_copy / f"{photo.stem}.txt").write_text("".join(line + "\n" for line in flat))
            link = images_copy / photo.name
            link.symlink_to(photo.resolve())
            out.append(str(link.absolute()))
    return out


def finder_data(
    pack: Path, tiles: Path, val: Path, scratch: Path, real_share: float, names: list[str]
) -> tuple[Path, dict[str, int]]:
    """A data.yaml: every rendered tile once, the real photos repeated to about `real_share`; val: held-out tiles.
    With more than one class the real photos' labels are copied as class 0 (a die)."""
    import yaml

    rendered = sorted(str(p.resolve()) for p in (tiles / "images").glob("*.jpg"))
    if len(names) > 1:
        real = one_class_copies(finder_sets(pack), scratch)
    else:
        real = sorted(str(p.resolve()) for folder in finder_sets(pack) for p in folder.glob("*.jpg"))
    repeat = 1
    if real and rendered:
        repeat = max(1, min(50, round(real_share * len(rendered) / ((1 - real_share) * len(real)))))
    listing = scratch / "finder-train.txt"
    listing.write_text("\n".join(rendered + real * repeat) + "\n")
    data = scratch / "finder-data.yaml"
    data.write_text(
        yaml.safe_dump({"train": str(listing), "val": str((val / "images").resolve()), "names": dict(enumerate(names))})
    )
    return data, {"rendered_tiles": len(rendered), "real_photos": len(real), "real_repeat": repeat}


def _patch_ultralytics() -> None:
    """Run ultralytics without polars (results.csv read with csv) and without the AMP check's download."""
    from vision.ultra import quiet_import

    quiet_import()
    from ultralytics.engine import trainer

    def read_results_csv(self: Any) -> dict[str, list[Any]]:
        try:
            with open(self.csv, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError:
            return {}
        return {k.strip(): [r[k] for r in rows] for k in (rows[0] if rows else {})}

    trainer.BaseTrainer.read_results_csv = read_results_csv
    trainer.check_amp = lambda model: True  # the check downloads yolo26n.pt; the GPU machine is offline


def finder_start(candidates: Path, pack: Path, scratch: Path, names: list[str]) -> tuple[Path, str]:
    """An ultralytics checkpoint of YOLOv5n with `names` from the candidate, else COCO's layers 0-23; its source.
    With a cocked class the candidate is the last cocked finder, else the one-class finder (its head's class
    layer starting afresh)."""
    first = [COCKED_CANDIDATE, FINDER_CANDIDATE] if len(names) > 1 else [FINDER_CANDIDATE]
    found = [candidates / name for name in first if (candidates / name).is_file()]
    if found:
        source = found[0]
    elif (pack / "weights" / START_WEIGHTS).is_file():
        source = pack / "weights" / START_WEIGHTS
    else:
        raise SystemExit(
            f"no hay pesos de partida: ni {candidates / FINDER_CANDIDATE} ni {START_WEIGHTS} en el paquete"
        )
    path = scratch / "finder-start.pt"
    loaded = yolo_checkpoint(load_quantized(source), names, path)
    return path, f"{source.name} ({loaded} tensores)"


def faces_start(candidates: Path, pack: Path, scratch: Path) -> tuple[Path, str]:
    """The backbone the face classifier starts from (keys model.0-9, float32): the candidate's, else COCO's."""
    import torch

    source = candidates / FACES_CANDIDATE
    if not source.is_file():
        source = pack / "weights" / START_WEIGHTS
    state = detector_layers(load_quantized(source), BACKBONE_LAYERS)
    path = scratch / "faces-start.pt"
    torch.save(state, path)
    return path, source.name


def faces_candidate(model_state: dict[str, Any], out: Path) -> int:
    """The classifier's backbone (keys 0.N.… -> model.N.…) quantized to `out`; its size."""
    backbone = {"model." + k[2:]: v for k, v in model_state.items() if k.startswith("0.")}
    return save_quantized(backbone, out)


def start_faces(
    pack: Path, scratch: Path, start: Path, args: argparse.Namespace, seconds: float, log: Log
) -> tuple[subprocess.Popen[bytes], Any] | None:
    """Launch vision.faces.train (CPU threads) in the background; None when the pack has no dice-real photos."""
    real = pack / "real" / "dice-real"
    if not (real / "images" / "train").is_dir():
        log("caras: el paquete no trae fotos de dice-real: no se entrena el clasificador")
        return None
    # measured on the H200 loan of 2026-11-27: one CPU process beside the finder 250 a second; the model on the GPU
    # with 3, 6 or 12 processes making crops 3,200-4,300 a second alone (the training process is then the limit)
    rate = args.faces_rate or (2000.0 if args.faces_workers > 0 else 200.0)
    per_epoch = args.faces_per_epoch or int(rate * seconds / args.faces_epochs)
    per_epoch = max(args.faces_batch, per_epoch // args.faces_batch * args.faces_batch)
    command = [sys.executable, "-m", "vision.faces.train", "--real", str(real), "--real-sets", str(pack / "real")]
    command += ["--synth", str(scratch / "tables"), "--arch", "yolov5n", "--pretrained", str(start)]
    command += ["--out", str(scratch / "faces"), "--epochs", str(args.faces_epochs), "--per-epoch", str(per_epoch)]
    command += ["--batch", str(args.faces_batch), "--threads", str(args.faces_threads), "--turn"]
    command += ["--unreadable-share", "0.16", "--cocked-share", "0.08", "--input-size", str(args.faces_input)]
    # the model on the GPU beside the finder, the crops made by worker processes; --minutes stops it in time to
    # calibrate and write the model (at 300 crops a second on one CPU it ended 5 s too late on 2026-11-27)
    command += ["--device", "cpu" if args.device == "cpu" else "cuda", "--aug-workers", str(args.faces_workers)]
    command += ["--minutes", f"{seconds / 60:.2f}"]
    log("caras: " + " ".join(command))
    handle = (scratch / "faces.log").open("wb")
    return subprocess.Popen(command, cwd=REPO, stdout=handle, stderr=subprocess.STDOUT), handle


def train_finder(data: Path, start: Path, hours: float, args: argparse.Namespace, scratch: Path, warmup: float) -> Path:
    """Train the finder for `hours` from `start`; its run folder."""
    from ultralytics import YOLO

    _patch_ultralytics()
    model = YOLO(str(start))
    # by time, `epochs` is replaced after the first epoch by what `time` allows; --finder-epochs counts them instead
    budget = {"time": hours, "epochs": 1000} if args.finder_epochs is None else {"epochs": args.finder_epochs}
    model.train(
        data=str(data),
        **budget,
        imgsz=args.imgsz,
        batch=args.batch,
        single_cls=not args.cocked_class,
        device=args.device,
        workers=args.workers,
        project=str(scratch),
        name="finder",
        exist_ok=True,
        pretrained=str(start),
        val=False,  # only the final epoch is validated, on held-out-sprite tiles
        plots=False,  # plotting fetches a font
        amp=args.device != "cpu",
        degrees=args.degrees,
        lr0=args.lr0,
        warmup_epochs=warmup,
        flipud=0.5,
        fliplr=0.5,
        mosaic=1.0,
        close_mosaic=0,
        cache="ram" if args.device != "cpu" else False,
        seed=args.seed,
        verbose=False,
    )
    return scratch / "finder"


def last_row(results: Path) -> dict[str, str]:
    """The last line of ultralytics' results.csv ({} when absent)."""
    if not results.is_file():
        return {}
    with results.open(newline="") as f:
        rows = list(csv.DictReader(f))
    return {k.strip(): v.strip() for k, v in rows[-1].items()} if rows else {}


def _positive(text: str) -> int:
    """A whole number above 0, for argparse."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"un número entero mayor que 0, no {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m vision.gpu train", description=__doc__)
    p.add_argument("pack", type=Path, help="la carpeta que escribió python -m vision.gpu pack")
    p.add_argument("--out", type=Path, required=True, help="donde quedan pesos, métricas y registro ($OUT)")
    p.add_argument("--minutes", type=float, default=9.0, help="tiempo total del comando, composición incluida")
    p.add_argument("--candidates", type=Path, default=CANDIDATES, help="pesos candidatos de la corrida anterior")
    p.add_argument("--scratch", type=Path, default=Path("/tmp/cacho-gpu"), help="carpeta de trabajo local")
    p.add_argument("--device", default=None, help="0 para la GPU, cpu para el ensayo (por omisión: la GPU si hay)")
    p.add_argument("--imgsz", type=int, default=640, help="lado de las teselas del buscador (la escala del lector)")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--lr0", type=float, default=0.01)
    p.add_argument("--degrees", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tables", type=int, default=600, help="mesas renderizadas como máximo")
    p.add_argument("--val-tables", type=int, default=8, help="mesas de sprites apartados para la validación final")
    p.add_argument("--table-size", default="4608x2592")
    p.add_argument("--table-seed", type=int, default=3_000_000, help="la semilla de la primera mesa")
    p.add_argument("--compose-share", type=float, default=0.2, help="parte del tiempo para componer mesas")
    p.add_argument("--compose-workers", type=int, default=max(1, (os.cpu_count() or 2)))
    p.add_argument("--real-share", type=float, default=0.3, help="parte de las imágenes del buscador que son reales")
    p.add_argument(
        "--finder-epochs",
        type=_positive,
        default=None,
        help="épocas del buscador (por omisión: las que caben en --minutes)",
    )
    p.add_argument("--faces-epochs", type=int, default=10)
    p.add_argument(
        "--faces-per-epoch",
        type=_positive,
        default=None,
        help="recortes por época del clasificador (por omisión: los que --faces-rate deja hacer en su tiempo)",
    )
    p.add_argument(
        "--faces-rate",
        type=float,
        default=None,
        help="recortes por segundo que se esperan (por omisión 200 con un solo proceso, 2000 con --faces-workers)",
    )
    p.add_argument(
        "--faces-workers",
        type=int,
        default=max(0, (os.cpu_count() or 2) // 2 - 2),
        help="procesos que preparan los recortes del clasificador (0: el suyo); el modelo va a la GPU si la hay",
    )
    p.add_argument("--faces-batch", type=int, default=64)
    p.add_argument("--faces-threads", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    p.add_argument("--faces-input", type=int, default=64, help="lado de la entrada del clasificador")
    p.add_argument("--reserve", type=float, default=RESERVE_S, help="segundos que se dejan al final")
    p.add_argument("--no-faces", action="store_true", help="solo el buscador")
    p.add_argument(
        "--cocked-class",
        action="store_true",
        help=f"el buscador aprende dos clases, dado y dado montado; sus pesos salen como {COCKED_CANDIDATE}",
    )
    p.add_argument(
        "--cocked-rate",
        type=float,
        default=0.5,
        help="con --cocked-class: la probabilidad de un dado montado en cada asiento de las mesas compuestas",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one loan's training and write its results into --out."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.cocked_class and not 0 < args.cocked_rate <= 1:
        parser.error(f"--cocked-rate: una probabilidad mayor que 0 y hasta 1, no {args.cocked_rate}")
    started = time.time()
    deadline = started + args.minutes * 60
    out, scratch, pack = args.out, args.scratch, args.pack
    log = Log(out / LOG)
    manifest = check_pack(pack)
    import torch

    if args.device is None:
        args.device = "0" if torch.cuda.is_available() else "cpu"
    gpu = torch.cuda.get_device_name(0) if args.device != "cpu" else "cpu"
    log(f"paquete {pack} ({manifest.get('commit', '')[:8]}), {args.minutes} min, dispositivo {gpu}")
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    names = COCKED_NAMES if args.cocked_class else ["die"]
    candidate = COCKED_CANDIDATE if args.cocked_class else FINDER_CANDIDATE
    resumed = (args.candidates / candidate).is_file()
    val_tables, val_tiles = compose(
        900_000, args.val_tables, scratch / "val-tables", scratch / "val", args, deadline, True
    )
    tables, tiles = compose(
        args.table_seed,
        args.tables,
        scratch / "tables",
        scratch / "tiles",
        args,
        started + args.compose_share * args.minutes * 60,
        False,
    )
    log(f"mesas: {tables} de entrenamiento ({tiles} teselas), {val_tables} de validación ({val_tiles} teselas)")
    end = deadline - args.reserve
    faces = None
    if not args.no_faces:
        start, source = faces_start(args.candidates, pack, scratch)
        log(f"caras: desde {source}")
        faces = start_faces(pack, scratch, start, args, max(10.0, end - time.time() - 60), log)
    data, counts = finder_data(pack, scratch / "tiles", scratch / "val", scratch, args.real_share, names)
    start, source = finder_start(args.candidates, pack, scratch, names)
    log(f"buscador: desde {source}; {counts}")
    hours = max(1.0, end - time.time() - 20) / 3600
    run = train_finder(data, start, hours, args, scratch, 1.0 if resumed else 3.0)
    summary: dict[str, Any] = {
        "pack_commit": manifest.get("commit"),
        "device": gpu,
        "resumed": resumed,
        "tables": tables,
        "finder": {"from": source, "names": names, **counts, "last": last_row(run / "results.csv")},
    }
    last = run / "weights" / "last.pt"
    if last.is_file():
        from ultralytics.utils.torch_utils import strip_optimizer

        ckpt = torch.load(last, map_location="cpu", weights_only=False)
        summary["finder"]["epochs"] = int(float(summary["finder"]["last"].get("epoch", 0)))
        model = ckpt.get("ema") or ckpt["model"]
        save_quantized(model.float().state_dict(), out / candidate)
        strip_optimizer(str(last), str(out / candidate.replace(".q8", "")))
    log(f"buscador: {summary['finder'].get('epochs')} épocas; {summary['finder']['last']}")
    if faces is not None:
        summary["faces"] = finish_faces(faces, max(1.0, deadline - 15 - time.time()), scratch, out, log)
    summary["minutes"] = round((time.time() - started) / 60, 2)
    (out / RUN).write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    log(f"listo en {summary['minutes']} min: {sorted(p.name for p in out.iterdir())}")
    return 0


def finish_faces(
    faces: tuple[subprocess.Popen[bytes], Any], timeout: float, scratch: Path, out: Path, log: Callable[[str], None]
) -> dict[str, Any]:
    """Wait up to `timeout` seconds for the face classifier's process (then stop it), append its log to --out's and
    collect what it wrote."""
    process, handle = faces
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.terminate()
        process.wait()
        log("caras: cortado al llegar al límite de tiempo (queda su último punto de control)")
    handle.close()
    found = collect_faces(scratch / "faces", out, process.returncode)
    with (out / LOG).open("a", encoding="utf-8") as f:
        f.write((scratch / "faces.log").read_text(errors="replace")[-20000:])
    return found


def collect_faces(folder: Path, out: Path, returncode: int | None) -> dict[str, Any]:
    """Copy the face classifier's files into `out` and its backbone as the next candidate; what was there."""
    import torch

    from vision.faces.classifier import ONNX_NAME, TORCH_NAME

    found: dict[str, Any] = {"returncode": returncode}
    if (folder / TORCH_NAME).is_file():
        for name in (TORCH_NAME, ONNX_NAME, "metrics.json"):
            if (folder / name).is_file():
                shutil.copy2(folder / name, out / name)
        state = torch.load(folder / TORCH_NAME, map_location="cpu", weights_only=True)["state_dict"]
        faces_candidate(state, out / FACES_CANDIDATE)
        # the model is written before its metrics: a process stopped between the two leaves the model alone
        written = folder / "metrics.json"
        metrics = json.loads(written.read_text()).get("train", {}) if written.is_file() else {}
        found |= {
            "finished": written.is_file(),
            "threshold": metrics.get("threshold"),
            "history": metrics.get("history"),
        }
    elif (folder / "checkpoint.pt").is_file():
        ckpt = torch.load(folder / "checkpoint.pt", map_location="cpu", weights_only=True)
        faces_candidate(ckpt["model"], out / FACES_CANDIDATE)
        found |= {"finished": False, "epoch": ckpt["epoch"], "history": json.loads(ckpt["history"])}
    return found


if __name__ == "__main__":
    sys.exit(main())
