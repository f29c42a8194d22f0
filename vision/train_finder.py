"""Train the dice finder: a one-class YOLO "die" detector, from scratch, in resumable chunks.

    python -m vision.train_finder --data DIR [--data DIR ...] --epochs N --name RUN [--init WEIGHTS]

Each DIR is a YOLO folder (images/, labels/; any class counts as "die": `single_cls`). The real photos'
val split must never be given here. The run goes to runs/finder/RUN; `--resume` continues a run that
was stopped; `--init` starts from earlier weights (a curriculum: real photos first, then rendered tiles).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import yaml

RUNS = Path("runs/finder")


def write_data_yaml(folders: list[Path], out: Path) -> Path:
    """A data.yaml that trains on every folder's images/ (or images/train) as one class, "die"."""
    train = []
    for folder in folders:
        images = folder / "images"
        if (images / "train").is_dir():
            images = images / "train"
        if not images.is_dir():
            raise SystemExit(f"{folder} has no images/ folder")
        if "val" in images.parts[-1:]:
            raise SystemExit(f"refusing to train on a val split: {images}")
        train.append(str(images.resolve()))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump({"train": train, "val": train[0], "names": {0: "die"}}), encoding="utf-8")
    return out


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append", default=[], help="YOLO folder to train on")
    parser.add_argument("--name", required=True, help="run name under runs/finder/")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--init", type=Path, help="start from these weights instead of from scratch")
    parser.add_argument("--resume", action="store_true", help="continue runs/finder/NAME/weights/last.pt")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="cpu, or 0 for the GPU machine")
    parser.add_argument(
        "--degrees", type=float, default=180.0, help="random rotation; it loosens boxes (their corners turn out)"
    )
    parser.add_argument("--lr0", type=float, default=0.01, help="initial learning rate (lower to fine-tune)")
    parser.add_argument("--close-mosaic", type=int, default=0, help="last epochs without mosaic (whole images)")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up epochs")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Train (or resume) a finder run."""
    parser = build_parser()
    args = parser.parse_args(argv)

    from vision.ultra import quiet_import

    quiet_import()
    from ultralytics import YOLO

    run = RUNS / args.name
    if args.resume:
        model = YOLO(str(run / "weights" / "last.pt"))
        model.train(resume=True)
        return 0
    if not args.data:
        parser.error("--data is required unless --resume")
    data = write_data_yaml(args.data, run.with_suffix(".data.yaml"))
    model = YOLO(str(args.init) if args.init else "yolov8n.yaml")
    model.train(
        data=str(data),
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=args.batch,
        single_cls=True,
        device=args.device,
        workers=args.workers,
        project=str(RUNS.resolve()),
        name=args.name,
        exist_ok=True,
        seed=args.seed,
        deterministic=True,
        # Ultralytics discards a loaded model's weights when pretrained=False: pass the init weights here.
        pretrained=str(args.init) if args.init else False,
        val=False,  # real val stays out of training decisions; evaluate with `cacho vision eval`
        plots=False,  # plotting fetches a font from the internet
        amp=False,
        # Dice lie at any angle; but a turned box is replaced by the box around its turned corners, up to
        # 1.4 times too big: fine-tune with --degrees 0 on rendered tiles, whose dice already lie at any angle.
        degrees=args.degrees,
        lr0=args.lr0,
        warmup_epochs=args.warmup,
        save_period=1,  # weights/epochN.pt after each epoch: an epoch is chosen on rendered held-out tables
        flipud=0.5,
        fliplr=0.5,
        mosaic=1.0,
        scale=0.5,
        close_mosaic=args.close_mosaic,
        verbose=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
