"""`python -m vision.gpu aside` before a loan, `restore` after: the tracked files a GPU run never reads leave the
checkout (and git's index) for the call, so that the pack can carry more real photos."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STORE = ".gpu-aside"  # ignored by git: nothing in it travels
# What `vision.gpu train` never opens: the shipped dice exports (the run trains its own finder), the card reader,
# the bench and sample photos, the screenshots and the demo table's photos. Set aside on 2026-11-27, a loan ran.
ASIDE = (
    "models/dice/finder.pt",
    "models/dice/finder.onnx",
    "models/dice/finder_ncnn_model",
    "models/dice/bench_table.jpg",
    "models/dice/samples",
    "models/cards",
    "models/faces/face_cnn.onnx",
    "docs/screenshots",
    "kiosk/demo/fotos",
)


class AsideError(Exception):
    """Why the files cannot be set aside or put back; nothing was moved."""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def aside(repo: Path = REPO, paths: tuple[str, ...] = ASIDE) -> list[str]:
    """Move `paths` into the store and out of git's index; the paths moved."""
    store = repo / STORE
    if store.exists() and any(store.iterdir()):
        raise AsideError(f"ya hay archivos apartados en {store}: python -m vision.gpu restore primero")
    ignored = subprocess.run(["git", "check-ignore", "-q", f"{STORE}/x"], cwd=repo, check=False).returncode == 0
    if not ignored:
        raise AsideError(f"la carpeta {STORE} no está ignorada por git: lo apartado viajaría igual")
    changed = _git(repo, "status", "--porcelain", "--", *paths).strip()
    if changed:
        raise AsideError(f"hay cambios sin confirmar en lo que se aparta: confírmelos antes\n{changed}")
    present = [p for p in paths if (repo / p).exists()]
    for path in present:
        target = store / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(repo / path), str(target))
    if present:
        _git(repo, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *present)
    return present


def restore(repo: Path = REPO) -> list[str]:
    """Put every set-aside path back and into git's index as committed; the paths restored."""
    store = repo / STORE
    if not store.is_dir():
        raise AsideError(f"no hay nada apartado en {store}")
    moved = [p for p in ASIDE if (store / p).exists()]
    clash = [p for p in moved if (repo / p).exists()]
    if clash:
        raise AsideError(f"ya existen en el checkout, no los piso: {', '.join(clash)}")
    for path in moved:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(store / path), str(repo / path))
    if moved:
        _git(repo, "reset", "-q", "--", *moved)
    shutil.rmtree(store)
    return moved


def main(argv: list[str] | None = None) -> int:
    """`aside` or `restore`."""
    p = argparse.ArgumentParser(prog="python -m vision.gpu", description=__doc__)
    p.add_argument("action", choices=("aside", "restore"))
    args = p.parse_args(argv)
    try:
        done = aside() if args.action == "aside" else restore()
    except AsideError as error:
        print(error, file=sys.stderr)
        return 1
    verb = "apartados" if args.action == "aside" else "devueltos"
    print(f"{len(done)} caminos {verb}: {', '.join(done) or 'ninguno'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
