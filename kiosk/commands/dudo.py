"""`cacho dudo ...`: replay a Dudo table log and print the count, the rulings and who acts next."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engines.dudo import DudoTable, ReplayResult, replay_lines
from kiosk.commands.common import finish_replay, read_log_lines

_ACTION_NAMES = {"bid": "apostar", "dudo": "dudar", "calzo": "calzar", "paso": "pasar"}


def register(subparsers: Any) -> None:
    """Add `cacho dudo replay` and `cacho dudo count`."""
    dudo = subparsers.add_parser("dudo", help="Dudo: el campeonato de cachos")
    commands = dudo.add_subparsers(dest="dudo_command", metavar="ACCIÓN", required=True)
    replay = commands.add_parser(
        "replay",
        help="reproduce el registro de una mesa (JSON Lines) y muestra la cuenta y los fallos",
        description="Aplica los eventos en orden. Sale con 0 si todos valen, con 1 en el primer evento "
        "ilegal o mal escrito (y no aplica nada después).",
    )
    replay.add_argument("file", metavar="FILE", type=Path, help="registro de la mesa, un evento JSON por línea")
    replay.add_argument("--json", action="store_true", help="un objeto JSON en vez del resumen en castellano")
    replay.set_defaults(func=run_replay)
    from kiosk.commands import dudo_count

    dudo_count.register(commands)


def load(path: Path) -> ReplayResult:
    """Replay a log file; a missing or unreadable file is a CliError."""
    return replay_lines(read_log_lines(path))


def run_replay(args: argparse.Namespace) -> int:
    """`cacho dudo replay FILE [--json]`."""
    result = load(args.file)
    return finish_replay(result.table, result.error, args.json, DudoTable.to_dict, summary, "art. ")


def summary(table: DudoTable) -> str:
    """A readable Spanish account of the table: rulings, the coordinator's count and who acts next."""
    lines = [f"Mesa de Dudo: {', '.join(table.players)} (en sentido horario)"]
    for ruling in table.rulings:
        lines.append(f"  Tirada {ruling.round}: {ruling.message}")
    if not table.rulings:
        lines.append("  Todavía no se levantan los cachos.")
    count = table.coordinator_count()
    dice = " · ".join(f"{name} {n}" if n else f"{name} fuera del juego" for name, n in count.dice)
    lines.append(f"Dados: {dice}  —  en juego {count.in_play} de {count.table_start_dice}")
    if table.winner is not None:  # the table is over: no calzo to speak of
        lines.append(f"Campeón de la mesa: {table.winner} (art. 10)")
        return "\n".join(lines)
    if count.calzo.allowed:
        lines.append("Calzo: permitido")
    else:
        lines.append(f"Calzo: no (art. {count.calzo.article}: {count.calzo.reason})")
    legal = table.legal_actions()
    assert legal is not None and table.round is not None
    if legal.player is None:
        lines.append(f"Falta levantar los cachos de: {', '.join(legal.reveal)}")
        return "\n".join(lines)
    rnd = table.round
    if rnd.bid is not None:
        lines.append(f"Apuesta en pie: «{rnd.bid.text()}» de {rnd.bid.player} ({rnd.mode})")
        if rnd.paso is not None:
            lines.append(f"{rnd.paso.player} pasó declarando {rnd.paso.hand.label}")
    else:
        lines.append(f"Tirada {rnd.number}: abre {rnd.opener} ({rnd.mode})")
    options = {"bid": legal.bid, "dudo": legal.dudo, "calzo": legal.calzo, "paso": legal.paso}
    may = [_ACTION_NAMES[name] for name, option in options.items() if option.allowed]
    lines.append(f"Le toca a {legal.player}: puede {', '.join(may)}")
    for name, option in options.items():
        if not option.allowed:
            lines.append(f"  no puede {_ACTION_NAMES[name]}: art. {option.article}, {option.reason}")
    return "\n".join(lines)
