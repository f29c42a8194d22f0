"""The demo game's photos of the rolling area, rendered with vision.synth, and a live table that shows them.

    python -m kiosk.bolivia.demo make [OUT]     # renders kiosk/demo/bolivia_fotos/ (photos + fotos.json)
    python -m kiosk.bolivia.demo mesa FOLDER    # shows the rolls one by one in FOLDER (Enter: the next roll)
    cacho kiosk --camera replay:FOLDER          # the kiosk reads them as if live

A replay of a folder loops over its frames; the live table keeps two identical frames there (000.jpg, 001.jpg)
and swaps both when the next roll lands, so the camera sees a still table, then a change, then a still table.
`fotos.json` gives each photo's dice (face and box in photo pixels): what the end-to-end test corrects the
reader's misreadings to.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from kiosk.records import JsonDict

if TYPE_CHECKING:
    from vision.types import Frame

PHOTOS = Path(__file__).resolve().parent.parent / "demo" / "bolivia_fotos"
RENDER = (3072, 1728)  # the table rendered at this size...
CROP = (640, 360)  # ...and the rolling area cut out of it, as a camera over the tray would see it
QUALITY = 85

# The demo game (Ana and Beto, classic): each roll's photo, the table's seed and the dice in the scene's order.
# A seed keeps the table and where each die lies: a die set aside shows the same in the next photo.
DEMO_ROLLS: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("01-ana-1", 23, (1, 1, 1, 3, 2)),  # Ana declares póker and sets the three 1s aside
    ("02-ana-2", 23, (1, 1, 1, 1, 4)),  # póker after a re-roll: 40, "O"
    ("03-beto-1", 48, (5, 2, 5, 1, 5)),  # Beto declares quinas and sets the three 5s aside
    ("04-beto-2", 48, (5, 5, 6, 4, 5)),  # a kept 5 was knocked to 6: the kiosk names it; fixed, four 5s: 20
    ("05-ana-3", 36, (6, 6, 6, 6, 6)),  # grande de mano: Ana wins
)


class DemoDie(TypedDict):
    """A die of a demo photo, as fotos.json gives it."""

    face: int
    box: list[float]  # [x1, y1, x2, y2] in photo pixels


def render(seed: int, faces: tuple[int, ...]) -> tuple[Frame, list[DemoDie]]:
    """The rolling area's photo (BGR) and its dice [{"face", "box"}] in photo pixels, left to right."""
    import numpy as np

    from vision.synth.scene import compose_seated

    width, height = RENDER
    scene = compose_seated(seed, {1: list(faces)}, width=width, height=height, markers=False, cups=False)
    boxes = np.array([d.box for d in scene.dice], dtype=float)
    cx, cy = boxes[:, [0, 2]].mean(), boxes[:, [1, 3]].mean()
    w, h = CROP
    x0 = int(np.clip(round(cx - w / 2), 0, width - w))
    y0 = int(np.clip(round(cy - h / 2), 0, height - h))
    crop = np.ascontiguousarray(scene.image[y0 : y0 + h, x0 : x0 + w])
    dice: list[DemoDie] = []
    for d in scene.dice:
        x1, y1, x2, y2 = d.box
        box = [round(x1 - x0, 1), round(y1 - y0, 1), round(x2 - x0, 1), round(y2 - y0, 1)]
        dice.append({"face": d.face, "box": box})
    dice.sort(key=lambda d: float(d["box"][0] + d["box"][2]) / 2)
    return crop, dice


def make(out: Path = PHOTOS) -> Path:
    """Render every photo of the demo game into `out`, with fotos.json."""
    import cv2

    out.mkdir(parents=True, exist_ok=True)
    index: JsonDict = {"crop": list(CROP), "photos": []}
    for name, seed, faces in DEMO_ROLLS:
        image, dice = render(seed, faces)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
        if not ok:
            raise ValueError(f"no se pudo codificar {name}")
        (out / f"{name}.jpg").write_bytes(data.tobytes())
        index["photos"].append({"file": f"{name}.jpg", "seed": seed, "faces": list(faces), "dice": dice})
    (out / "fotos.json").write_text(json.dumps(index, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return out


def photos(folder: Path = PHOTOS) -> list[JsonDict]:
    """The demo photos with their dice, in the game's order (fotos.json)."""
    index = json.loads((folder / "fotos.json").read_text(encoding="utf-8"))
    return [dict(p, path=str(folder / p["file"])) for p in index["photos"]]


def show(photo: Path, table: Path) -> None:
    """Put `photo` on the live table: both frames of the replay folder are replaced, each atomically."""
    table.mkdir(parents=True, exist_ok=True)
    for name in ("000.jpg", "001.jpg"):
        tmp = table / f".{name}.tmp"
        shutil.copyfile(photo, tmp)
        os.replace(tmp, table / name)


def main(argv: list[str] | None = None) -> int:
    """`make [OUT]` or `mesa FOLDER`."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["make"]:
        print(make(Path(args[1]) if len(args) > 1 else PHOTOS))
        return 0
    if args[:1] == ["mesa"] and len(args) == 2:
        table = Path(args[1])
        for photo in photos():
            show(Path(photo["path"]), table)
            print(f"En la mesa: {photo['file']} ({' '.join(map(str, photo['faces']))})", flush=True)
            input("Enter: la siguiente tirada… ")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
