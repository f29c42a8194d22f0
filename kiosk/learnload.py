"""`python -m kiosk.learnload`: how the kiosk answers its pages while the reader learns in the background.

Runs a kiosk in this process on a temporary database (the demo tables, no camera), fills its confirmed dice with the
demo photos' labelled dice (as confirmed readings leave them), starts the adaptation that play starts
(`kiosk.teach.learn_when_due`, the committed reader, LEARN_CROPS), and meanwhile asks for the home page, a table's
state and the teaching page's state, one after another; then prints how long the adaptation took and each page's
answer times.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEMO_PHOTOS = Path(__file__).resolve().parent / "demo" / "fotos"
PAGES = ("/", "/dudo/1/state.json", "/ensenar/state.json")


def fill(root: Path, copies: int) -> int:
    """The demo photos' dice as confirmed samples (YOLO labels, class = face - 1), `copies` times; the dice."""
    import cv2

    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    dice = 0
    for scene_path in sorted(DEMO_PHOTOS.glob("*/scene.json")):
        scene = json.loads(scene_path.read_text(encoding="utf-8"))
        width, height = scene["width"], scene["height"]
        lines = []
        for die in scene["dice"]:
            if die.get("occluded") or die.get("cut"):
                continue
            x1, y1, x2, y2 = die["box"]
            lines.append(
                f"{die['face'] - 1} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}"
            )
        photos = sorted(scene_path.parent.glob("*.jpg"))
        if not photos or not lines:
            continue
        frame = cv2.imread(str(photos[-1]))  # the cups lifted: every die in view
        if frame is None:
            raise SystemExit(f"no se puede leer {photos[-1]}")
        for copy in range(copies):
            name = f"{scene_path.parent.name}-{copy:03d}"
            cv2.imwrite(str(root / "images" / f"{name}.jpg"), frame)
            (root / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            dice += len(lines)
    return dice


def measure(copies: int, crops: int, gap_s: float) -> dict[str, Any]:
    """Start one adaptation in play and time the pages until it ends."""
    from kiosk import teach
    from kiosk.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "DATABASE": str(Path(folder) / "cacho.sqlite3"),
                "CAMERA": None,
                "DEMO": True,
                "CSRF_DISABLED": True,
                "LEARN_EVERY": 1,
                "LEARN_CROPS": crops,
            }
        )
        try:
            client = app.test_client()
            client.post("/setup", data={"pin": "2468", "pin2": "2468"})
            dice = fill(Path(app.config["LEARNED"]), copies)
            for page in PAGES:  # warmed: the first answer of each page compiles its template
                client.get(page)
            with app.app_context():
                if not teach.learn_when_due():
                    raise SystemExit("no empezó la adaptación")
            started = time.monotonic()
            times: dict[str, list[float]] = {page: [] for page in PAGES}
            job: dict[str, Any] = {"state": "running"}
            while job.get("state") == "running":
                for page in PAGES:
                    asked = time.monotonic()
                    response = client.get(page)
                    times[page].append((time.monotonic() - asked) * 1000)
                    if response.status_code != 200:
                        raise SystemExit(f"{page} respondió {response.status_code}")
                job = client.get("/ensenar/state.json").get_json()["job"]
                time.sleep(gap_s)
            took = time.monotonic() - started
        finally:
            app.extensions["cacho.camera"].close()
            shutil.rmtree(folder, ignore_errors=True)
    pages = {
        page: {
            "answers": len(ms),
            "p50_ms": round(statistics.median(ms), 1),
            "p99_ms": round(sorted(ms)[min(len(ms) - 1, int(0.99 * len(ms)))], 1),
            "max_ms": round(max(ms), 1),
        }
        for page, ms in times.items()
        if ms
    }
    return {"dice": dice, "crops": crops, "adaptation_s": round(took, 1), "job": job.get("state"), "pages": pages}


def main(argv: list[str] | None = None) -> int:
    """Print the adaptation's time and the pages' answer times meanwhile."""
    parser = argparse.ArgumentParser(
        prog="python -m kiosk.learnload",
        description="Mide cuánto tarda el quiosco en responder sus páginas mientras el lector aprende en segundo "
        "plano, y cuánto tarda esa adaptación.",
    )
    parser.add_argument("--copies", type=int, default=10, help="veces que se copian los dados de la demostración (10)")
    parser.add_argument("--crops", type=int, default=None, help="recortes que aprende la adaptación (los del quiosco)")
    parser.add_argument("--gap", type=float, default=0.2, help="segundos entre dos rondas de páginas (0.2)")
    parser.add_argument("--json", action="store_true", help="las cifras en JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.copies <= 100:
        parser.error("--copies va de 1 a 100")
    from vision.evening import Learning

    crops = args.crops if args.crops is not None else Learning().crops
    if not 1 <= crops <= 1_000_000:
        parser.error("--crops va de 1 a 1000000")
    figures = measure(args.copies, crops, args.gap)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
        return 0
    print(f"{figures['dice']} dados, {crops} recortes: adaptación en {figures['adaptation_s']} s ({figures['job']})")
    for page, row in figures["pages"].items():
        print(f"  {page}: {row['answers']} respuestas, mediana {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
