"""`python -m vision.gpu pack OUT`: everything one GPU run needs beside the checkout, within what the device carries."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import zlib
from importlib import metadata
from pathlib import Path
from typing import Any

import cv2

from vision.faces import realsets
from vision.faces.classifier import PRETRAINED  # AGPL-3.0: never committed (also the pack's --pretrained default)
from vision.faces.crops import photo_id
from vision.gpu.aside import STORE

REPO = Path(__file__).resolve().parents[2]
# The device tool's limit on all that travels (the checkout plus carried paths) is 64 MB, not MiB: on 2026-11-27
# 63.5 MiB so counted was refused and 59.5 and 60.0 MiB travelled
CARRY_LIMIT = 64_000_000
PACK_CAP = 60 * 1024 * 1024  # never more than this, even with a small checkout
MARGIN = 512 * 1024  # for files that appear in the checkout between packing and the run
MANIFEST = "manifest.json"
CANDIDATES = REPO / "models" / "candidates"  # the last loan's weights, committed: the next loan starts from them
FINDER_CANDIDATE = "finder.q8.pt"
FACES_CANDIDATE = "faces.q8.pt"
START_WEIGHTS = "yolov5n-coco-0-23.q8.pt"  # layers 0-23 of the COCO detector (its 80-class head is never used)
WHEEL_CACHE = Path.home() / ".cache" / "cacho-gpu" / "wheels"
# ultralytics imports with what the GPU machine has; polars (40 MB, read only for results.csv) is patched around in
# vision.gpu.train, thop (FLOPs) and ultralytics_platform (the hub) are optional
WHEELS = ("ultralytics",)
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
# Real photos: the finder trains at 640 (the reader's scale: tiles of a frame reduced to 1280), dice-real is 640
# already; quality 80 keeps the pips of a 20 px die (blocks show under 75) at about 30 KB a photo
MAX_SIDE = 640
JPEG_QUALITY = 80
# the first card classifier's crops and start (`--cards`): taught further on the machine, apart from the dice
CARD_CROPS = "index-crops.npz"
CARD_WEIGHTS = "index_cls.pt"


def carried(size: int) -> int:
    """What one file of `size` bytes counts towards the device's limit: a 512-byte header and its data in 512-byte
    blocks, as an archive holds it (a pack counted by bare sizes, 63.5 MiB with its 3,500 files, was refused)."""
    return 512 + -(-size // 512) * 512


def travelling_bytes(repo: Path = REPO, leaving: tuple[str, ...] = ()) -> int:
    """What a device call sends besides carried paths: tracked files and untracked ones not ignored, less those
    under `leaving` (paths relative to `repo`)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    total = 0
    for name in listed:
        text = os.fsdecode(name)
        path = repo / text
        if any(text == p or text.startswith(p + "/") for p in leaving):
            continue
        if name and path.is_file() and not path.is_symlink():
            total += carried(path.stat().st_size)
    return total


def default_budget(repo: Path = REPO, leaving: tuple[str, ...] = ()) -> int:
    """The room left for the pack: 64 MB less the checkout and a margin, at most 60 MiB."""
    return max(0, min(PACK_CAP, CARRY_LIMIT - travelling_bytes(repo, leaving) - MARGIN))


def fetch_wheels(cache: Path, dest: Path) -> list[Path]:
    """Copy ultralytics' wheel (this venv's version) from `cache` to `dest`, downloading what `cache` lacks."""
    cache.mkdir(parents=True, exist_ok=True)
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for name in WHEELS:
        version = metadata.version(name)
        pattern = f"{name.replace('-', '_')}-{version}-*.whl"
        found = sorted(cache.glob(pattern))
        if not found:
            command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
            command += ["--python-version", "3.12", "--implementation", "cp", "-d", str(cache)]
            for platform in PLATFORMS:
                command += ["--platform", platform]
            done = subprocess.run([*command, f"{name}=={version}"], capture_output=True, text=True, timeout=300)
            found = sorted(cache.glob(pattern))
            if done.returncode != 0 or not found:
                raise SystemExit(
                    f"no pude descargar {name}=={version} con pip (¿sin red?): deje el wheel en {cache} "
                    f"o use --no-wheels.\n{done.stderr.strip()[-600:]}"
                )
        shutil.copy2(found[-1], dest / found[-1].name)
        out.append(dest / found[-1].name)
    return out


def pack_start_weights(source: Path, dest: Path) -> int:
    """The COCO detector's layers 0-23 (backbone and neck), 8 bits a weight, into `dest`; its size."""
    import torch

    from vision.faces.classifier import detector_layers
    from vision.gpu.weights import save_quantized

    state = torch.load(source, map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise SystemExit(f"{source} no es un diccionario de pesos de torch")
    kept = detector_layers(state, 23)
    if not kept:
        raise SystemExit(f"{source} no trae capas model.0-23 de YOLOv5n")
    return save_quantized(kept, dest)


def _spread(name: str) -> int:
    """A stable order that spreads a set's photos (and near-copies) over the list."""
    return zlib.crc32(name.encode())


def val_names(rs: realsets.RealSet, root: Path) -> set[str]:
    """The file names and photo ids of a set's val part."""
    val = realsets.photos(rs, root, "val")
    return {p.name for p in val} | {photo_id(p.name) for p in val}


def encode(image: Path) -> bytes:
    """The photo shrunk to MAX_SIDE at most and encoded as JPEG at JPEG_QUALITY."""
    frame = cv2.imread(str(image), cv2.IMREAD_COLOR)
    if frame is None:
        raise SystemExit(f"no puedo leer la foto {image}")
    scale = MAX_SIDE / max(frame.shape[:2])
    if scale < 1:
        size = (round(frame.shape[1] * scale), round(frame.shape[0] * scale))
        frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise SystemExit(f"no puedo codificar la foto {image}")
    return bytes(data.tobytes())


def pack_photos(root: Path, dest: Path, room: int) -> dict[str, Any]:
    """Real TRAIN photos of every set under `root`, one set after another, into `dest` until `room` bytes; no val."""
    queues = {}
    refused: dict[str, list[str]] = {}
    for rs in realsets.real_sets(root):
        val = val_names(rs, root)
        train = sorted(realsets.photos(rs, root, "train"), key=lambda p: _spread(p.name))
        for image in train:
            if image.name in val or photo_id(image.name) in val:
                raise AssertionError(f"{image} es de validación y estaba en la parte de entrenamiento")
        queues[rs.name] = (rs, train)
        refused[rs.name] = sorted(val)
    counts = {name: 0 for name in queues}
    used = 0
    position = 0
    full: set[str] = set()
    while len(full) < len(queues):
        for name, (rs, train) in queues.items():
            if name in full:
                continue
            if position >= len(train):
                full.add(name)
                continue
            image = train[position]
            data = encode(image)
            label = realsets.label_path(image)
            text = label.read_text() if label.exists() else ""
            size = carried(len(data)) + carried(len(text.encode()))
            if used + size > room:
                full.add(name)
                continue
            sub = "train" if rs.split == realsets.SPLIT_BY_FOLDER else None
            images = dest / rs.folder / "images" / (sub or "")
            labels = dest / rs.folder / "labels" / (sub or "")
            images.mkdir(parents=True, exist_ok=True)
            labels.mkdir(parents=True, exist_ok=True)
            (images / f"{image.stem}.jpg").write_bytes(data)
            (labels / f"{image.stem}.txt").write_text(text)
            used += size
            counts[name] += 1
        position += 1
    return {
        "bytes": used,
        "sets": {
            name: {
                "folder": rs.folder,
                "packed": counts[name],
                "train_photos": len(train),
                "val_refused": refused[name] if rs.split == realsets.SPLIT_BY_FOLDER else [],
            }
            for name, (rs, train) in queues.items()
        },
        "max_side": MAX_SIDE,
        "jpeg_quality": JPEG_QUALITY,
    }


def card_start(repo: Path = REPO) -> Path:
    """The shipped first card classifier, where it is: in models/cards/, or set aside by `vision.gpu aside`."""
    for root in (repo, repo / STORE):
        path = root / "models" / "cards" / CARD_WEIGHTS
        if path.is_file():
            return path
    raise SystemExit(f"no encuentro el clasificador de índices {CARD_WEIGHTS} en models/cards ni en {STORE}")


def has_card_indices(folder: Path) -> bool:
    """Whether a folder's labels/train holds a card's index (a class below the 52 cards' count)."""
    from vision.cards.notation import CLASS_NAMES

    labels = folder / "labels" / "train"
    rows = (line.split() for path in labels.glob("*.txt") for line in path.read_text().splitlines())
    return labels.is_dir() and any(row and int(row[0]) < len(CLASS_NAMES) for row in rows)


def pack_cards(folder: Path, dest: Path, start: Path) -> dict[str, Any]:
    """The card index crops of `folder` (train and val) and the classifier to start from, into `dest`."""
    from vision.cards.index_classifier import pack_crops

    counts = pack_crops(folder, dest / CARD_CROPS)
    shutil.copy2(start, dest / CARD_WEIGHTS)
    return {"from": str(folder), "crops": counts, "start": str(start)}


def card_command(pack: str, minutes: float) -> str:
    """The device `run` command line that teaches the first card classifier further from the pack."""
    return (
        f"export PYTHONUNBUFFERED=1; python3 -m vision.cards.index_classifier --crops {pack}/cards/{CARD_CROPS} "
        f"--init {pack}/cards/{CARD_WEIGHTS} --device cuda --workers 12 --threads 4 --batch 256 --lr 5e-4 "
        f"--covered 0.3 --invert 0.2 --minutes {minutes:g} --out $OUT"
    )


def folder_bytes(folder: Path) -> int:
    """What every file under `folder` counts towards the device's limit."""
    return sum(carried(p.stat().st_size) for p in folder.rglob("*") if p.is_file())


def git_commit(repo: Path = REPO) -> str:
    """The checkout's commit ('' outside git)."""
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True)
    return done.stdout.strip()


def device_command(pack: str, minutes: float) -> str:
    """The device `run` command line for this pack."""
    return (
        f"python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target .gpu-site "
        f"{pack}/wheels/*.whl && export PYTHONPATH=$PWD/.gpu-site PYTHONUNBUFFERED=1 || exit; "
        f"python3 -m vision.gpu train {pack} --minutes {minutes:g} --out $OUT"
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m vision.gpu pack", description=__doc__)
    p.add_argument("out", type=Path, help="carpeta del paquete (ignorada por git, p. ej. gpu-pack)")
    p.add_argument("--data-root", type=Path, default=realsets.DATA_ROOT, help="datos reales (../shared/data)")
    p.add_argument("--pretrained", type=Path, default=PRETRAINED, help="pesos COCO de YOLOv5n (AGPL-3.0)")
    p.add_argument("--candidates", type=Path, default=CANDIDATES, help="pesos candidatos de la última corrida")
    p.add_argument("--wheel-cache", type=Path, default=WHEEL_CACHE, help="carpeta de wheels ya descargados")
    p.add_argument("--no-wheels", action="store_true", help="sin wheels (ensayo en esta CPU)")
    p.add_argument(
        "--budget-mib", type=float, default=None, help="tamaño máximo (por omisión: 64 MB menos el checkout)"
    )
    p.add_argument("--minutes", type=float, default=9.0, help="minutos de entrenamiento del comando de la máquina")
    p.add_argument(
        "--cards", type=Path, default=None, help="carpeta de índices de cartas (data/cards/index-w): sus recortes"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Write the pack."""
    args = build_parser().parse_args(argv)
    if args.cards is not None and not has_card_indices(args.cards):
        raise SystemExit(f"{args.cards} no es una carpeta de índices de cartas: nada que aprender en labels/train")
    card_weights = card_start() if args.cards is not None else None
    budget = int(args.budget_mib * 1024 * 1024) if args.budget_mib is not None else default_budget()
    if args.out.exists():
        if not (args.out / MANIFEST).exists() and any(args.out.iterdir()):
            raise SystemExit(f"{args.out} existe y no es un paquete: no lo borro")
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    wheels = [] if args.no_wheels else fetch_wheels(args.wheel_cache, args.out / "wheels")
    resumed = all((args.candidates / name).is_file() for name in (FINDER_CANDIDATE, FACES_CANDIDATE))
    start = None
    if not resumed:
        if not args.pretrained.is_file():
            raise SystemExit(
                f"no encuentro los pesos preentrenados {args.pretrained} (ni candidatos en {args.candidates})"
            )
        start = args.out / "weights" / START_WEIGHTS
        pack_start_weights(args.pretrained, start)
    cards = pack_cards(args.cards, args.out / "cards", card_weights) if card_weights is not None else None
    fixed = folder_bytes(args.out) + 32 * 1024  # the manifest's room (14 KB on 2026-11-27)
    if fixed > budget:
        shutil.rmtree(args.out)
        raise SystemExit(
            f"los wheels, los pesos y las cartas ({fixed / 2**20:.2f} MiB) no caben en {budget / 2**20:.2f} MiB: "
            "achique el checkout o dé --budget-mib"
        )
    photos = pack_photos(args.data_root, args.out / "real", budget - fixed)
    manifest: dict[str, Any] = {
        "made": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "budget_bytes": budget,
        "wheels": {w.name: w.stat().st_size for w in wheels},
        "start_weights": (
            {"file": f"weights/{START_WEIGHTS}", "from": str(args.pretrained), "licence": "AGPL-3.0"} if start else None
        ),
        "candidates": str(args.candidates.relative_to(REPO))
        if resumed and args.candidates.is_relative_to(REPO)
        else None,
        "real": photos,
        "command": device_command(args.out.as_posix(), args.minutes),
    }
    if cards is not None:
        manifest["cards"] = cards | {"command": card_command(args.out.as_posix(), args.minutes)}
    total = folder_bytes(args.out) + carried(len(json.dumps(manifest, indent=1, ensure_ascii=False).encode()) + 32)
    manifest["bytes"] = total
    (args.out / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    packed = sum(s["packed"] for s in photos["sets"].values())
    print(
        f"paquete {args.out}: {total / 2**20:.2f} MiB de {budget / 2**20:.2f} MiB; "
        f"{len(wheels)} wheels, {'candidatos' if resumed else 'pesos COCO'}, {packed} fotos reales de train"
    )
    print(f"en la máquina: {manifest['command']}")
    if cards is not None:
        print(f"o, para las cartas ({cards['crops']['train']} recortes): {manifest['cards']['command']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
