"""`cacho vision evening DIR`: a labelled folder replayed as one table's evening, the reader learning its dice."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from kiosk.cli import CliError


def register(commands: Any, reader_options: Any) -> None:
    """Add `cacho vision evening` to the vision subcommands."""
    from vision.evening import Learning

    default = Learning()
    evening = commands.add_parser(
        "evening",
        help="repite una carpeta YOLO etiquetada como la noche de una mesa: cada foto leída con el lector de ese "
        "momento, confirmada con sus etiquetas, y el lector adaptado a los dados confirmados como en el quiosco",
        description="Sale con 0 si la noche se repitió, sean cuales sean las cifras.",
    )
    evening.add_argument("folder", metavar="DIR", type=Path, help="carpeta YOLO: images/, labels/ (clase = cara - 1)")
    evening.add_argument("--models", type=Path, help="carpeta de modelos de la que se parte (por defecto, models/)")
    evening.add_argument(
        "--adapt-every",
        type=int,
        default=default.every,
        help=f"dados confirmados nuevos que llevan a adaptar el lector (por defecto {default.every}, como el quiosco)",
    )
    evening.add_argument(
        "--crops",
        type=int,
        default=default.crops,
        help=f"recortes que aprende cada adaptación (por defecto {default.crops}, como el quiosco)",
    )
    evening.add_argument(
        "--tables",
        type=int,
        default=1,
        help="repite un campeonato: las fotos se reparten por turno entre N mesas que aprenden juntas (por defecto 1)",
    )
    evening.add_argument(
        "--pooled-evidence",
        action="store_true",
        help="con --tables: las mesas mandan al organizador sus pruebas del lector del campeonato, y los niveles de "
        "todas salen de esas pruebas juntas (por defecto, cada mesa fija los suyos con las propias)",
    )
    evening.add_argument(
        "--labelled-boxes",
        action="store_true",
        help="el buscador encuentra exactamente los dados etiquetados: mide el lector de caras solo (para un "
        "conjunto cuyos dados el buscador no encuentra)",
    )
    evening.add_argument(
        "--fixed-levels",
        action="store_true",
        help="lee con los niveles de los modelos hasta la próxima adaptación, sin fijarlos otra vez con la evidencia "
        "de la mesa",
    )
    evening.add_argument("--keep", type=Path, help="guarda aquí los dados confirmados y los modelos adaptados")
    evening.add_argument("--json", action="store_true", help="una línea JSON por foto y una última con las mitades")
    reader_options(evening)
    evening.set_defaults(func=run_evening)


def run_evening(args: argparse.Namespace) -> int:
    """`cacho vision evening DIR [--models M] [--adapt-every N] [--crops C] [--keep DIR] [--json]`."""
    from kiosk.commands.vision import _reader
    from vision.evening import Adaptation, FrameScore, LabelledBoxes, Learning, by_table, evening, halves
    from vision.faces.adapt import adapt
    from vision.pipeline import MODELS
    from vision.reader import DiceReader

    if not 1 <= args.adapt_every <= 100_000:
        raise CliError(f"--adapt-every {args.adapt_every}: debe estar entre 1 y 100000 dados")
    if not 1 <= args.crops <= 1_000_000:
        raise CliError(f"--crops {args.crops}: debe estar entre 1 y 1000000")
    if not 1 <= args.tables <= 64:
        raise CliError(f"--tables {args.tables}: debe estar entre 1 y 64 mesas")
    if args.pooled_evidence and args.tables == 1:
        raise CliError("--pooled-evidence: hace falta un campeonato (--tables 2 o más)")
    if not (args.folder / "images").is_dir():
        raise CliError(f"{args.folder}: no es una carpeta YOLO (falta images/)")
    if args.keep is not None and args.keep.exists() and any(args.keep.iterdir()):
        raise CliError(f"--keep {args.keep}: la carpeta ya tiene archivos; elija una vacía o nueva")
    learning = Learning(args.adapt_every, args.crops, prequential=not args.fixed_levels)
    start = args.models or MODELS
    _reader(start, args)  # the models and options are checked before the evening begins

    boxes = LabelledBoxes() if args.labelled_boxes else None

    def reader_of(models: Path) -> Any:
        reader = _reader(models, args)
        return reader if boxes is None else DiceReader(boxes, reader.faces, reader.settings)

    scores: list[FrameScore] = []
    with tempfile.TemporaryDirectory(prefix="cacho-noche-") as scratch:
        work = args.keep or Path(scratch)
        try:
            for step in evening(
                args.folder,
                start,
                work,
                reader_of,
                adapt,
                learning,
                tables=args.tables,
                boxes=boxes,
                pooled_evidence=args.pooled_evidence,
            ):
                if isinstance(step, Adaptation):
                    print(_adaptation_line(step), file=sys.stderr, flush=True)
                    continue
                scores.append(step)
                print(json.dumps(step.to_dict(), ensure_ascii=False) if args.json else _frame_line(step), flush=True)
        except FileNotFoundError as error:
            raise CliError(str(error)) from None
    parts = halves(scores)
    tables = by_table(scores) if args.tables > 1 else []
    if args.json:
        print(json.dumps({**parts, "tables": tables} if tables else parts, ensure_ascii=False))
        return 0
    for key, label in (("first_half", "primera mitad"), ("second_half", "segunda mitad")):
        part = parts[key]
        print(f"{label}: {part['dice']} dados, carga {_percent(part['load'])}, {part['wrong']} equivocados sin marcar")
    for table in tables:
        print(
            f"mesa {table['table']} tras sus {table['after']} primeras fotos: {table['dice']} dados, carga "
            f"{_percent(table['load'])}, {table['wrong']} equivocados sin marcar"
        )
    return 0


def _percent(share: Any) -> str:
    """A share as Spanish writes a percentage: 12,5 %."""
    return f"{float(share) * 100:.1f} %".replace(".", ",")


def _frame_line(score: Any) -> str:
    """One frame as a coordinator reads it."""
    table = "" if score.table is None else f"mesa {score.table} · "
    return (
        f"{table}{score.image}: {score.dice} dados, {score.missed} sin ver, {score.flagged} por confirmar, "
        f"{score.wrong} equivocados sin marcar · lee con {score.models}"
    )


def _adaptation_line(step: Any) -> str:
    """What an adaptation did, after which frame."""
    if step.refused is not None:
        return f"tras {step.after}: todavía no se puede adaptar ({step.refused})"
    before, held = step.result.before, step.result.after
    done = f"lee con {step.models}" if step.models else "no lee mejor: se sigue con los modelos de antes"
    return (
        f"tras {step.after}: adaptado en {step.result.epochs} épocas; de {held.dice} dados apartados, por confirmar "
        f"antes {before.load} y ahora {held.load}, equivocados antes {before.wrong} y ahora {held.wrong}; {done}"
    )
