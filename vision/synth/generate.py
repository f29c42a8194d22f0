"""Writing data sets: tables (or finder tiles) as a YOLO folder, in parallel; `python -m vision.synth` runs `main`."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from vision.synth.compose import (
    ASSETS,
    COCKED_RATE,
    SPRITE_SETS,
    SURFACES,
    TOUCHING,
    compose_table,
    tiles,
    yolo_lines,
)
from vision.synth.dice_model import CLASS_NAMES


def parse_size(text: str) -> tuple[int, int]:
    """'4608x2592' -> (4608, 2592)."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT, got {text!r}") from exc
    if w < 320 or h < 240 or w * h > 64_000_000:
        raise argparse.ArgumentTypeError(f"size {text} out of range")
    return w, h


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m vision.synth", description="Rendered dice tables as a YOLO folder.")
    p.add_argument("--out", type=Path, required=True, help="output folder (images/, labels/, meta/, data.yaml)")
    p.add_argument("--count", type=int, required=True, help="number of tables; table i uses seed S + i")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--size", type=parse_size, default=(4608, 2592), help="frame size (default 4608x2592)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--split", choices=("train", "val"), default="train", help="file-name prefix and data.yaml")
    p.add_argument(
        "--tiles", type=int, default=0, metavar="PX", help="finder tiles: frame -> long side 1280 -> PX tiles, 1 class"
    )
    p.add_argument("--long-side", type=int, default=1280, help="with --tiles: the downscaled frame's long side")
    p.add_argument(
        "--sprites",
        choices=SPRITE_SETS,
        default="all",
        help="dice sprites to use: all, train (held-out batches left out) or val (held-out batches only)",
    )
    p.add_argument(
        "--cocked-rate",
        type=float,
        default=COCKED_RATE,
        help=f"each seat's chance of a cocked die (default {COCKED_RATE}: about one table in three)",
    )
    p.add_argument(
        "--more-cocked",
        action="store_true",
        help="also use the later cocked dice sprites (c005 on); without it a seed makes the table it made before",
    )
    p.add_argument(
        "--surface",
        choices=SURFACES,
        default="felt",
        help="felt tables (default), bare café tables (laminate, wood, granite, marble, black), half and half, "
        "or patterned cloths and printed boards (gingham, stripes, a busy print, hexagonal tiles)",
    )
    p.add_argument(
        "--touching",
        type=float,
        default=TOUCHING,
        help=f"a die's chance to be laid against another die of its seat (default {TOUCHING}; "
        "with it a seed makes the table it made before)",
    )
    p.add_argument(
        "--seated",
        action="store_true",
        help="seated tables (vision.synth.scene): 2-6 seats of 1-5 dice drawn from the seed, each seat's printed "
        "ArUco marker and lifted cup, flat dice only; meta/ has the markers and the camera (its nadir)",
    )
    p.add_argument("--assets", type=Path, default=ASSETS, help=argparse.SUPPRESS)
    return p


SEATED_QUALITY = 92  # JPEG quality of seated tables


def seated_seats(seed: int) -> dict[int, tuple[int, ...]]:
    """The seats of seated table `seed`: 2-6 seats (1, 2, ...), each with 1-5 dice of faces drawn from the seed."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 7))
    return {s: tuple(int(v) for v in rng.integers(1, 7, size=int(rng.integers(1, 6)))) for s in range(1, count + 1)}


def make_seated(seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """Compose seated table `seed` (markers, cups, no hand), write its files, return a summary."""
    from vision.synth.scene import compose_seated

    width, height = args.size
    seats = seated_seats(seed)
    scene = compose_seated(seed, seats, width, height)
    stem = f"{args.split}_{seed:08d}"
    ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, SEATED_QUALITY])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    out: Path = args.out
    labels = scene.to_dict()
    sidecar = {"image": f"{stem}.jpg", "seed": seed, "width": width, "height": height, **labels["meta"]}  # type: ignore[dict-item]
    sidecar |= {"seats": labels["seats"], "dice": labels["dice"], "markers": labels["markers"]}
    (out / "images" / f"{stem}.jpg").write_bytes(jpeg.tobytes())
    dice = [{"class": die.face - 1, "box": die.box} for die in scene.dice]
    (out / "labels" / f"{stem}.txt").write_text(yolo_lines(dice, width, height))
    (out / "meta" / f"{stem}.json").write_text(json.dumps(sidecar, indent=1))
    return {"dice": len(scene.dice), "images": 1}


def make_one(task: tuple[int, argparse.Namespace]) -> dict[str, Any]:
    """Compose table `seed`, write its files, return a summary (dice and tiles written)."""
    seed, args = task
    if args.seated:
        return make_seated(seed, args)
    width, height = args.size
    table = compose_table(
        seed,
        width,
        height,
        args.assets,
        sprites=args.sprites,
        cocked_rate=args.cocked_rate,
        more_cocked=args.more_cocked,
        surface=args.surface,
        touching=args.touching,
    )
    stem = f"{args.split}_{seed:08d}"
    ok, jpeg = cv2.imencode(".jpg", table.image, [cv2.IMWRITE_JPEG_QUALITY, table.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    out: Path = args.out
    sidecar = {
        "image": f"{stem}.jpg",
        "seed": seed,
        "width": width,
        "height": height,
        "jpeg_quality": table.jpeg_quality,
        "sprite_set": args.sprites,
        "cocked_rate": args.cocked_rate,
        "more_cocked": args.more_cocked,
        "surface_option": args.surface,
        "touching": args.touching,
        **table.meta,
        "dice": table.dice,
        "distractors": table.distractors,
    }
    if not args.tiles:
        (out / "images" / f"{stem}.jpg").write_bytes(jpeg.tobytes())
        (out / "labels" / f"{stem}.txt").write_text(yolo_lines(table.dice, width, height))
        (out / "meta" / f"{stem}.json").write_text(json.dumps(sidecar, indent=1))
        return {"dice": len(table.dice), "images": 1}
    frame = cv2.imdecode(np.frombuffer(jpeg.tobytes(), np.uint8), cv2.IMREAD_COLOR)  # what the camera gives
    if frame is None:
        raise RuntimeError("JPEG decoding failed")
    pieces = tiles(frame, table.dice, args.tiles, args.long_side)
    meta_tiles = []
    for k, (img, dice, origin) in enumerate(pieces):
        name = f"{stem}_t{k}"
        cv2.imwrite(str(out / "images" / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (out / "labels" / f"{name}.txt").write_text(yolo_lines(dice, img.shape[1], img.shape[0], one_class=True))
        meta_tiles.append({"image": f"{name}.jpg", "origin": list(origin), "dice": dice})
    sidecar["tiles"] = meta_tiles
    sidecar["tile_scale"] = args.long_side / max(width, height)
    (out / "meta" / f"{stem}.json").write_text(json.dumps(sidecar, indent=1))
    return {"dice": len(table.dice), "images": len(pieces)}


def write_data_yaml(out: Path, one_class: bool) -> None:
    """The ultralytics data file for the folder (train and val both point at it: --split tells which it is)."""
    names = {0: "die"} if one_class else dict(enumerate(CLASS_NAMES))
    lines = [f"path: {out.resolve()}", "train: images", "val: images", f"nc: {len(names)}", "names:"]
    lines += [f"  {k}: {v}" for k, v in names.items()]
    (out / "data.yaml").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Generate the folder."""
    args = build_parser().parse_args(argv)
    if args.count < 1:
        print("--count must be at least 1", file=sys.stderr)
        return 2
    if not 0.0 <= args.cocked_rate <= 1.0:
        print(f"--cocked-rate must be between 0 and 1, got {args.cocked_rate}", file=sys.stderr)
        return 2
    if not 0.0 <= args.touching <= 1.0:
        print(f"--touching must be between 0 and 1, got {args.touching}", file=sys.stderr)
        return 2
    if args.seated and args.tiles:
        print("--seated makes whole tables: no --tiles", file=sys.stderr)
        return 2
    if not (args.assets / "manifest.json").exists():
        print(f"no sprites in {args.assets}: run scripts/render-venv.sh first", file=sys.stderr)
        return 2
    for sub in ("images", "labels", "meta"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
    write_data_yaml(args.out, one_class=bool(args.tiles))
    tasks = [(args.seed + i, args) for i in range(args.count)]
    dice = images = 0
    bar = tqdm(total=args.count, unit="table", desc=f"synth {args.split}")
    if args.workers <= 1:
        results: Any = map(make_one, tasks)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(args.workers)  # workers import this module, not __main__
        results = pool.imap(make_one, tasks)
    try:
        for r in results:
            dice += r["dice"]
            images += r["images"]
            bar.update(1)
            bar.set_postfix(dice=dice, images=images)
    finally:
        bar.close()
        if pool is not None:
            pool.close()
            pool.join()
    print(f"{args.count} tables, {images} images, {dice} dice -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
