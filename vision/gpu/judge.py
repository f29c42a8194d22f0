"""`python -m vision.gpu judge [--finder PT] [--faces DIR] [--val DIR] [--rendered DIR ...]`: a loan's finder, face
readers or both against the shipped ones, on every real val part and every rendered set given, read by
`cacho vision eval` exactly as a user reads them; a table, and whether it may be adopted (docs/gpu.md §4)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from vision.faces import realsets

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "models"
# the product's own command, beside this interpreter: judged through its public contract, as a user reads, and
# without vision importing the kiosk
CACHO = Path(sys.executable).parent / "cacho"


def candidate_models(finder: Path, folder: Path, models: Path = MODELS, faces: Path | None = None) -> Path:
    """A models folder of links: `finder` as dice/finder.pt beside the face readers of `faces` (the shipped ones
    by default)."""
    (folder / "dice").mkdir(parents=True, exist_ok=True)
    for link, target in ((folder / "dice" / "finder.pt", finder), (folder / "faces", faces or models / "faces")):
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(target.resolve(), link)
    return folder


def upright(folder: Path) -> bool:
    """Whether every photo of a val part written by `valsets` was taken at a slant by an upright camera."""
    try:
        rs = realsets.real_set(folder.name)
    except ValueError:  # a rendered set, or one not registered
        return False
    names = [p.name for p in (folder / "images").iterdir()] if (folder / "images").is_dir() else []
    return bool(names) and all(rs.is_upright(name) for name in names)


def evaluate(folder: Path, models: Path) -> dict[str, Any]:
    """`cacho vision eval FOLDER --models MODELS --json` (with --upright where the photos need it)."""
    command = [str(CACHO), "vision", "eval", str(folder), "--models", str(models), "--json"]
    if upright(folder):
        command.append("--upright")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cacho vision eval {folder} falló: {done.stderr.strip()[-500:]}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def verdict(rows: list[dict[str, Any]]) -> list[str]:
    """The sets on which the candidate is worse (recall lower, load higher or more unsafe readings); none: adoptable."""
    worse = []
    for row in rows:
        base, cand = row["base"], row["candidate"]
        why = [
            what
            for what, bad in (
                ("recall", cand["recall"] < base["recall"]),
                ("carga", cand["load"] > base["load"] + 1e-9),
                ("inseguras", cand["unsafe"] > base["unsafe"]),
            )
            if bad
        ]
        if why:
            worse.append(f"{row['set']}: {', '.join(why)}")
    return worse


def main(argv: list[str] | None = None) -> int:
    """Print the comparison, one line a set, and the verdict."""
    p = argparse.ArgumentParser(prog="python -m vision.gpu judge", description=__doc__)
    p.add_argument(
        "--finder", type=Path, help="los pesos del buscador de la corrida (finder.pt; por omisión el de --base)"
    )
    p.add_argument(
        "--faces", type=Path, help="una carpeta de lectores de caras como models/faces (por omisión los de --base)"
    )
    p.add_argument("--base", type=Path, default=MODELS, help="la carpeta de modelos contra la que se juzga")
    p.add_argument(
        "--val", type=Path, default=Path("runs/gpu/val"), help="lo que escribió python -m vision.gpu valsets"
    )
    p.add_argument("--rendered", type=Path, action="append", default=[], help="un conjunto renderizado (repetible)")
    p.add_argument("--work", type=Path, default=Path("runs/gpu/judge"), help="donde se arma la carpeta candidata")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.finder is None and args.faces is None:
        p.error("nada que juzgar: dé --finder, --faces o ambos")
    finder = args.finder or args.base / "dice" / "finder.pt"
    if not finder.is_file():
        p.error(f"--finder: no existe {finder}")
    if args.faces is not None and not (args.faces / "face_cnn.onnx").is_file():
        p.error(f"--faces: {args.faces} no tiene face_cnn.onnx")
    if not CACHO.is_file():
        p.error(f"no encuentro el comando cacho junto a {sys.executable}: instale el proyecto (./run.sh o ./test.sh)")
    sets = sorted(d for d in args.val.iterdir() if (d / "images").is_dir()) if args.val.is_dir() else []
    missing = [d for d in args.rendered if not (d / "images").is_dir()]
    if missing:
        p.error(f"--rendered: {missing[0]} no es una carpeta YOLO (falta images/)")
    if not sets and not args.rendered:
        p.error(f"nada que leer: ni partes de validación en {args.val} (python -m vision.gpu valsets) ni --rendered")
    candidate = candidate_models(finder, args.work / "models", args.base, args.faces)
    rows = []
    for folder in [*sets, *args.rendered]:
        base, cand = evaluate(folder, args.base), evaluate(folder, candidate)
        keep = ("labelled", "recall", "load", "unsafe", "silent_errors")
        rows.append({"set": folder.name, "base": {k: base[k] for k in keep}, "candidate": {k: cand[k] for k in keep}})
        if not args.json:
            b, c = rows[-1]["base"], rows[-1]["candidate"]
            print(
                f"{folder.name}: {b['labelled']} dados · recall {b['recall']:.3f} → {c['recall']:.3f} · carga "
                f"{b['load']:.1%} → {c['load']:.1%} · inseguras {b['unsafe']} → {c['unsafe']}",
                flush=True,
            )
    worse = verdict(rows)
    if args.json:
        print(json.dumps({"sets": rows, "worse": worse, "adoptable": not worse}))
    else:
        print("se puede adoptar: en ningún conjunto lee peor" if not worse else "no se adopta: " + "; ".join(worse))
    return 0


if __name__ == "__main__":
    sys.exit(main())
