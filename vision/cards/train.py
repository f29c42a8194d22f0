"""Train a card detector (YOLOv5n, the classes of its folder's data.yaml) from the COCO-pretrained weights.

    python -m vision.cards.train --data data/cards/finder --name f1 --minutes 35 [--init WEIGHTS] [--resume]

The run lives in runs/cards/NAME/ (ultralytics' layout); `--resume` continues its last.pt where it stopped.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.faces.classifier import PRETRAINED
from vision.gpu.pack import REPO

RUNS = REPO / "runs" / "cards"


def names_of(data: Path) -> list[str]:
    """The class names of a YOLO folder's data.yaml, in class order."""
    import yaml

    names = yaml.safe_load((data / "data.yaml").read_text())["names"]
    return [str(names[i]) for i in sorted(names)] if isinstance(names, dict) else [str(n) for n in names]


def start_checkpoint(pretrained: Path | None, names: list[str], out: Path) -> tuple[Path, int]:
    """An ultralytics checkpoint of YOLOv5n with these classes, every tensor of `pretrained` (a state dict, or an
    ultralytics checkpoint) whose name and shape fit loaded; how many."""
    import torch

    from vision.gpu.weights import yolo_checkpoint

    state = {}
    if pretrained is not None:
        state = torch.load(pretrained, map_location="cpu", weights_only=False)
        if isinstance(state, dict) and ("model" in state or "ema" in state):  # an ultralytics checkpoint
            state = (state.get("ema") or state["model"]).state_dict()
    out.parent.mkdir(parents=True, exist_ok=True)
    return out, yolo_checkpoint(state, names, out)


def main(argv: list[str] | None = None) -> int:
    """Train (or resume) one run."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.train", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="carpeta de vision.cards.dataset (con data.yaml)")
    parser.add_argument("--name", required=True, help="nombre de la corrida en runs/cards/")
    parser.add_argument("--minutes", type=float, default=60.0, help="tiempo de entrenamiento (60)")
    parser.add_argument("--epochs", type=int, default=30, help="épocas a las que se ajusta el calendario (30)")
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--pretrained", type=Path, default=PRETRAINED, help="pesos COCO de YOLOv5n, o 'none'")
    parser.add_argument("--init", type=Path, help="partir de estos pesos (una corrida anterior) en vez de COCO")
    parser.add_argument("--resume", action="store_true", help="seguir runs/cards/NAME/weights/last.pt")
    args = parser.parse_args(argv)
    from vision.ultra import quiet_import

    quiet_import()
    from ultralytics import YOLO

    run = RUNS / args.name
    if args.resume:
        last = run / "weights" / "last.pt"
        if not last.is_file():
            raise SystemExit(f"no hay {last} que seguir")
        YOLO(str(last)).train(resume=True)
        return 0
    if not (args.data / "data.yaml").is_file():
        raise SystemExit(f"{args.data} no tiene data.yaml: créelo con python -m vision.cards.dataset")
    pretrained = None if str(args.pretrained) == "none" or not args.pretrained.is_file() else args.pretrained
    if args.init is not None:
        pretrained = args.init
    if pretrained is None:
        print(f"sin pesos preentrenados ({args.pretrained}): se empieza al azar", flush=True)
    start, loaded = start_checkpoint(pretrained, names_of(args.data), RUNS / f"{args.name}-start.pt")
    print(f"partida: {loaded} tensores de {pretrained}", flush=True)
    YOLO(str(start)).train(
        data=str((args.data / "data.yaml").resolve()),
        epochs=args.epochs,
        time=args.minutes / 60,
        imgsz=args.imgsz,
        batch=args.batch,
        device=args.device,
        workers=args.workers,
        project=str(RUNS),
        name=args.name,
        exist_ok=True,
        pretrained=str(start),
        plots=False,
        # a mirrored index is no card's index; the tables already turn each card, so no extra rotation
        fliplr=0.0,
        flipud=0.0,
        degrees=0.0,
        mosaic=1.0,
        close_mosaic=2,
        seed=0,
        save_period=1,
        verbose=False,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
