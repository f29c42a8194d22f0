"""`python -m kiosk.cards.readtime`: how long a card reading takes at the table, from «Leer las cartas» to the state
the page draws, on the demo Truco table.

Runs a kiosk in this process on a temporary database with the demo camera (it lays rendered cards at the camera's
size where a reading expects them) and the committed card reader, deals a hand, then taps «Leer» again and again:
the first tap loads the reader, the others are a table in play. Each tap is timed by stage: the demo camera's
drawing (which a real camera does not do) apart from the reader's work and the rest.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from kiosk.measuring import answer, demo_kiosk
from kiosk.records import JsonDict

P = ParamSpec("P")
R = TypeVar("R")

# dibujo: the demo camera rendering the cards (a real camera has none of it); lector: the card reader on the frame;
# foto: the rest of the tap (the photo annotated and stored, the reading kept); estado: the state the page fetches;
# mesa: what a real table waits, the tap without the demo's drawing.
STAGES = ("dibujo", "lector", "foto", "estado", "total", "mesa")


def measure(reads: int, camera: str = "demo") -> tuple[float, str, list[dict[str, float]]]:
    """Deal a hand on the demo Truco table and tap «Leer» `reads` + 1 times: the first tap's seconds without the
    demo's drawing (the reader loaded), the frame's size, and each later tap's stages in seconds."""
    with demo_kiosk(camera) as (app, client):
        service = app.extensions["cacho.camera"]
        spent = {"dibujo": 0.0, "lector": 0.0}

        def timed(stage: str, call: Callable[P, R]) -> Callable[P, R]:
            def run(*args: P.args, **kwargs: P.kwargs) -> R:
                started = time.monotonic()
                try:
                    return call(*args, **kwargs)
                finally:
                    spent[stage] += time.monotonic() - started

            return run

        service.lay_cards = timed("dibujo", service.lay_cards)
        reader = app.config["CARD_READER"]
        reader.read_cards = timed("lector", reader.read_cards)
        tables = app.extensions["cacho.store"].tables("truco")
        if not tables:
            raise SystemExit("no hay mesa de Truco de demostración")
        base = f"/truco/{tables[0].id}"

        def tap(**body: object) -> JsonDict:
            body["seq"] = answer(client.get(base + "/state.json"))["seq"]
            return answer(client.post(base + "/action", json=body))

        dealer = answer(client.get(base + "/state.json")).get("next_dealer")
        if tap(action="hand", dealer=0 if dealer is None else dealer)["phase"] == "deal":
            tap(action="keep")
        started = time.monotonic()
        answer(client.post(base + "/read", json={}))
        first = time.monotonic() - started - spent["dibujo"]
        frame = service.full_frame()
        size = f"{frame.shape[1]}x{frame.shape[0]}"
        results = []
        for _ in range(reads):
            spent.update(dibujo=0.0, lector=0.0)
            started = time.monotonic()
            answer(client.post(base + "/read", json={}))
            answered = time.monotonic()
            reading = answer(client.get(base + "/state.json")).get("reading") or {}
            if not reading.get("seats"):
                raise SystemExit("la lectura no trajo cartas")
            drawn = time.monotonic()
            total = drawn - started
            results.append(
                {
                    "dibujo": spent["dibujo"],
                    "lector": spent["lector"],
                    "foto": answered - started - spent["dibujo"] - spent["lector"],
                    "estado": drawn - answered,
                    "total": total,
                    "mesa": total - spent["dibujo"],
                }
            )
        return first, size, results


def main(argv: list[str] | None = None) -> int:
    """Print the first tap's time, each later tap's stages and their medians."""
    parser = argparse.ArgumentParser(
        prog="python -m kiosk.cards.readtime",
        description="Mide cuánto tarda una lectura de cartas en la mesa de Truco de demostración, desde «Leer» hasta "
        "el estado que la página dibuja (la primera carga el lector).",
    )
    parser.add_argument("--reads", type=int, default=5, help="lecturas medidas después de la primera (5)")
    parser.add_argument("--json", action="store_true", help="las cifras en JSON")
    args = parser.parse_args(argv)
    if args.reads < 1:
        parser.error("--reads va desde 1")
    first, size, results = measure(args.reads)
    medians = {k: statistics.median(r[k] for r in results) for k in STAGES}
    if args.json:
        print(json.dumps({"frame": size, "first_s": first, "reads": results, "median": medians}))
        return 0
    print(f"imagen de {size}; primera lectura sin el dibujo (carga el lector): {first:.3f}s")
    print("  ".join(f"{k:>10}" for k in STAGES))
    for r in results:
        print("  ".join(f"{r[k]:>9.3f}s" for k in STAGES))
    print("  ".join(f"{medians[k]:>9.3f}s" for k in STAGES) + "  (mediana)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
