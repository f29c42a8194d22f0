"""`cacho dudo count IMAGE... --pinta N`: how many dice show a pinta on photos, over every face a doubtful die may
show, and which dice could change the count."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engines.dudo import ANY_FACE, Candidates, count_bounds
from engines.dudo.doubt import counts
from kiosk.cli import CliError
from kiosk.commands.common import loaded_frames
from kiosk.commands.vision import _reader


def register(commands: Any) -> None:
    """Add `cacho dudo count` to the dudo subcommands."""
    count = commands.add_parser(
        "count",
        help="cuenta una pinta en fotos de dados: de cuántos a cuántos, sobre cada cara que un dado dudoso puede "
        "mostrar, y qué dados podrían cambiar la cuenta",
        description="Sale con 0 si leyó cada foto, con 1 si alguna no se pudo leer, con 2 por opciones malas.",
    )
    count.add_argument("images", metavar="IMAGE", nargs="+", type=Path)
    count.add_argument("--pinta", type=int, required=True, help="la pinta que se cuenta, 1 (ases) a 6")
    count.add_argument(
        "--literal", action="store_true", help="los ases no son comodín (la apertura, el obligo): solo la pinta"
    )
    count.add_argument(
        "--dice",
        type=int,
        help="los dados en juego: un dado que el lector no encontró cuenta como cualquier cara, y más dados "
        "encontrados que estos dejan la cuenta sin cerrar",
    )
    count.add_argument("--models", type=Path, help="carpeta de modelos (por defecto, models/ del proyecto)")
    count.add_argument("--json", action="store_true", help="un objeto JSON por foto")
    count.set_defaults(func=run_count, upright=False, nadir="centre", no_lean_check=False, second_chance=True)


def tally(candidates: list[Candidates], pinta: int, aces_wild: bool, in_play: int | None) -> dict[str, Any]:
    """The count from least to most and the dice (places in `candidates`) that could change it. With `in_play`, the
    dice not found are any face, and each die found beyond it may be no die at all: the count is then between what
    the dice found give less those extra ones and `in_play`, and every die could change it."""
    found = len(candidates)
    missing = max(0, in_play - found) if in_play is not None else 0
    least, most = count_bounds([*candidates, *[ANY_FACE] * missing], pinta, aces_wild)
    decisive = [k for k, c in enumerate(candidates) if counts(c, pinta, aces_wild) == (True, False)]
    if in_play is not None and found > in_play:
        extra = found - in_play
        least, most = max(0, least - extra), min(most, in_play)
        decisive = list(range(found))
    return {"min": least, "max": most, "decisive": decisive}


def run_count(args: argparse.Namespace) -> int:
    """`cacho dudo count IMAGE... --pinta N [--literal] [--dice D] [--models M] [--json]`."""
    if not 1 <= args.pinta <= 6:
        raise CliError(f"--pinta {args.pinta}: una pinta va de 1 (ases) a 6")
    if args.dice is not None and not 1 <= args.dice <= 200:
        raise CliError(f"--dice {args.dice}: los dados en juego van de 1 a 200")
    reader = _reader(args.models, args)
    failed: list[Path] = []
    for path, frame in loaded_frames(args.images, args.json, failed):
        reading = reader.read(frame)
        candidates = [frozenset(die.candidates) for die in reading.dice]
        found = tally(candidates, args.pinta, not args.literal, args.dice)
        dice = [
            {"face": d.face, "candidates": list(d.candidates), "box": d.box.to_list(), "uncertain": d.uncertain}
            for d in reading.dice
        ]
        line: dict[str, Any] = {"image": str(path), "count": {"min": found["min"], "max": found["max"]}}
        line |= {"decisive": found["decisive"], "dice": dice}
        if args.json:
            print(json.dumps(line, ensure_ascii=False))
        else:
            print(describe(line, args.pinta))
    return 1 if failed else 0


def describe(line: dict[str, Any], pinta: int) -> str:
    """One photo's count as a coordinator reads it."""
    from engines.dudo import face_name

    low, high = line["count"]["min"], line["count"]["max"]
    told = f"{low} {face_name(pinta, low)}" if low == high else f"entre {low} y {high} {face_name(pinta, high)}"
    decisive = [str(k + 1) for k in line["decisive"]]
    if not decisive:
        ask = "ningún dado que mirar"
    elif len(decisive) == 1:
        ask = f"mirar el dado {decisive[0]}"
    else:
        ask = f"mirar los dados {', '.join(decisive[:-1])} y {decisive[-1]}"
    return f"{line['image']}: {len(line['dice'])} dados, {told}; {ask}"
