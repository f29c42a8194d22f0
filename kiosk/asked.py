"""`python -m kiosk.asked`: how many dice a dudo asks the coordinator about on the demo table, reading by reading.

Runs a kiosk in this process on a temporary database with the demo camera and the committed reader. For each
reading it seats the demo players anew, the player to act bids, the next says «¡Dudo!», and the cups are read (the
demo camera's photo of the first showing: 20 dice lifted, rendered). It prints, per reading, the dice read, those
the reader doubts and those the kiosk asks about (the doubtful dice whose face could change the ruling:
kiosk.dudo.reading.proposal), and their averages. The bids are drawn with a fixed seed within 2 of the count
expected of the dice in play (a third of them where aces are wild, a sixth where not), never of aces, as a table
bids."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from kiosk.measuring import answer, demo_kiosk
from vision import words

REACH = 2  # bids within this many dice of the count expected


def _ready(client: Any, base: str, timeout_s: float = 60) -> dict[str, Any]:
    """The table's reading once it is ready (the dudo starts it)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reading = answer(client.get(base + "/state.json")).get("reading") or {}
        if reading.get("state") == "ready":
            return dict(reading)
        if reading.get("state") == "failed":
            raise SystemExit(f"la lectura falló: {reading.get('message')}")
        time.sleep(0.05)
    raise SystemExit("la lectura no llegó a tiempo")


def measure(readings: int, seed: int = 0, camera: str = "demo") -> list[dict[str, Any]]:
    """`readings` dudos, each on the demo players seated anew (the demo camera's first showing: its photo of the
    cups lifted on 20 dice): per reading the bid, the dice read, doubted, asked, and whether the ruling was settled
    with no tap."""
    from kiosk.demo.table import DEMO_PLAYERS

    rng = random.Random(seed)
    with demo_kiosk(camera) as (_, client):
        results = []
        for k in range(readings):
            opener = DEMO_PLAYERS[k % len(DEMO_PLAYERS)]
            form = {"players": "\n".join(DEMO_PLAYERS), "opener": opener, "name": f"Lectura {k + 1}"}
            made = client.post("/dudo/new", data=form)
            if made.status_code != 302:
                raise SystemExit(f"no se pudo sentar la mesa ({made.status_code})")
            base = made.headers["Location"]
            results.append(_one_dudo(client, base, answer(client.get(base + "/state.json")), rng))
        return results


def _one_dudo(client: Any, base: str, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The player to act bids near the count expected, the next says «¡Dudo!», and the cups are read."""
    round_ = state["round"]
    opener = round_["to_act"]
    dice = sum(p["dice"] for p in state["players"])
    expected = round(dice / (3 if round_["aces_wild"] else 6))
    quantity = rng.randint(max(1, expected - REACH), expected + REACH)
    bids = [tuple(b) for b in state["legal"]["bids"]]
    wanted = [b for b in bids if b[0] == quantity and b[1] != 1] or [b for b in bids if b[1] != 1] or bids
    quantity, face = rng.choice(wanted)
    bid = {"event": "bid", "player": opener, "quantity": quantity, "face": face, "seq": state["seq"]}
    after = answer(client.post(base + "/action", json=bid))
    doubter = answer(client.get(base + "/state.json"))["round"]["to_act"]
    answer(client.post(base + "/action", json={"event": "dudo", "player": doubter, "seq": after["seq"]}))
    reading = _ready(client, base)
    read = {d["id"]: (name, d) for name, dice in reading["players"].items() for d in dice}
    plan = reading["proposal"]
    asked = list(plan["deciding"])
    return {
        "bid": [quantity, face],
        "dice": len(read),
        "doubted": sum(1 for _, d in read.values() if d["uncertain"]),
        "asked": len(asked),
        "settled": bool(plan["ok"]),
    }


def main(argv: list[str] | None = None) -> int:
    """Print each reading's dice, doubted and asked, and the averages."""
    parser = argparse.ArgumentParser(
        prog="python -m kiosk.asked",
        description="Cuenta, lectura por lectura en la mesa de demostración, los dados por los que un «¡Dudo!» "
        "pregunta al coordinador (los dudosos que pueden cambiar el fallo).",
    )
    parser.add_argument("--readings", type=int, default=20, help="lecturas (20)")
    parser.add_argument("--seed", type=int, default=0, help="semilla de las apuestas (0)")
    parser.add_argument("--json", action="store_true", help="las cifras en JSON")
    args = parser.parse_args(argv)
    if args.readings < 1:
        parser.error("--readings va desde 1")
    results = measure(args.readings, args.seed)
    n = len(results)
    average = {
        "readings": n,
        "asked": sum(r["asked"] for r in results) / n,
        "doubted": sum(r["doubted"] for r in results) / n,
        "dice": sum(r["dice"] for r in results) / n,
        "settled": sum(1 for r in results if r["settled"]) / n,
    }
    if args.json:
        print(json.dumps({"results": results, "average": average}))
        return 0
    for k, r in enumerate(results, 1):
        quantity, face = r["bid"]
        said = f"{r['dice']} dados leídos, {r['doubted']} dudosos, {r['asked']} preguntados"
        print(f"{k:>2}. {quantity} de {face}: {said}")
    print(
        f"promedio de {n} lecturas: {words.number(average['asked'], 2)} dados preguntados, "
        f"{words.number(average['doubted'], 2)} dudosos, {words.number(average['dice'])} leídos; "
        f"{words.percent(average['settled'])} de los fallos sin tocar ningún dado"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
