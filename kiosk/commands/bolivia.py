"""`cacho bolivia ...`: score a roll, replay a game log with its pizarras, and the coaching helper."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

from engines.bolivia import (
    CATEGORIES,
    DICE,
    Advice,
    BoliviaConfig,
    BoliviaGame,
    Category,
    LogError,
    Pizarra,
    ReplayResult,
    RuleError,
    ScoreResult,
    advise,
    category_from,
    replay_lines,
    score,
    warm_up,
)
from kiosk.cli import CliError
from kiosk.commands.common import finish_replay, read_log_lines

_ACTION_NAMES = {
    "roll": "tirar",
    "declare": "declarar",
    "set_aside": "apartar dados",
    "score": "anotar",
    "pick": "elegir la tirada",
    "hatch": "elegir la pizarra",
}
_CATEGORY_HELP = "1-6, balas, tontos, trenes, cuadras, quinas, senas, escalera, full, poker o grande"
BENCH_TARGET_MS = 50.0


def register(subparsers: Any) -> None:
    """Add `cacho bolivia score|replay|advise`."""
    bolivia = subparsers.add_parser("bolivia", help="Cacho boliviano (y Generala): puntaje, pizarra y consejos")
    commands = bolivia.add_subparsers(dest="bolivia_command", metavar="ACCIÓN", required=True)

    score_cmd = commands.add_parser(
        "score",
        help="puntaje y marca de una tirada en una categoría",
        description="Puntos y marca de la pizarra de cinco dados en una categoría. La tirada N es la "
        "tirada en que salieron los dados (1 = la primera).",
    )
    score_cmd.add_argument("dice", nargs="*", metavar="D", help="los cinco dados, de 1 a 6")
    score_cmd.add_argument("--category", required=True, metavar="C", help=_CATEGORY_HELP)
    score_cmd.add_argument("--roll", required=True, metavar="N", help="tirada 1, 2 o 3")
    _common_options(score_cmd)
    score_cmd.set_defaults(func=run_score)

    replay = commands.add_parser(
        "replay",
        help="reproduce el registro de una partida (JSON Lines) y muestra pizarras, totales y ganador",
        description="Aplica los eventos en orden. Sale con 0 si todos valen, con 1 en el primer evento "
        "ilegal o mal escrito (y no aplica nada después).",
    )
    replay.add_argument("file", metavar="FILE", type=Path, help="registro de la partida, un evento JSON por línea")
    replay.add_argument("--json", action="store_true", help="un objeto JSON en vez del resumen en castellano")
    replay.set_defaults(func=run_replay)

    advise_cmd = commands.add_parser(
        "advise",
        help="valor esperado de cada categoría abierta con el mejor juego, y qué dados apartar",
        description="Cálculo exacto (programación dinámica sobre las 252 combinaciones de cinco dados) del "
        "puntaje final esperado en cada categoría abierta si se juega lo mejor posible el resto del turno.",
    )
    advise_cmd.add_argument("dice", nargs="*", metavar="D", help="los cinco dados de la tirada, de 1 a 6")
    advise_cmd.add_argument("--roll", metavar="N", help="tirada 1, 2 o 3 (la que acaba de hacer)")
    advise_cmd.add_argument("--open", metavar="CATS", help="categorías abiertas separadas por comas (todas si falta)")
    advise_cmd.add_argument(
        "--set-aside", nargs="+", default=[], metavar="D", help="dados ya apartados antes de esta tirada"
    )
    advise_cmd.add_argument(
        "--declared",
        metavar="C",
        help="categoría ya declarada en este turno: las demás solo se alcanzan tirando otra vez los cinco dados",
    )
    advise_cmd.add_argument(
        "--bench", action="store_true", help="mide el arranque y el tiempo de cada consulta (objetivo < 50 ms)"
    )
    _common_options(advise_cmd)
    advise_cmd.set_defaults(func=run_advise)


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--grandes", default="0", metavar="K", help="grandes ya anotadas que cuentan para las dos de 50 (0 si falta)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NOMBRE=VALOR",
        help="opción de la mesa (docs/rulings.md), p. ej. escalera_as_alto=true",
    )
    parser.add_argument("--json", action="store_true", help="un objeto JSON en vez del texto en castellano")


# --- argument parsing --------------------------------------------------------------------------------


def parse_dice(words: Sequence[str]) -> tuple[int, ...]:
    """Five dice from the command line; anything else is a CliError."""
    if len(words) != DICE:
        raise CliError(f"hacen falta cinco dados, no {len(words)}: por ejemplo 6 6 2 3 6")
    dice = []
    for word in words:
        try:
            pip = int(word)
        except ValueError:
            raise CliError(f"{word!r} no es un dado: los dados van de 1 a 6") from None
        if not 1 <= pip <= 6:
            raise CliError(f"un dado muestra de 1 a 6, no {pip}")
        dice.append(pip)
    return tuple(dice)


def parse_roll(word: str | None) -> int:
    """The roll number 1-3."""
    if word is None:
        raise CliError("falta --roll N: la tirada en que salieron los dados (1, 2 o 3)")
    if word.strip() not in ("1", "2", "3"):
        raise CliError(f"la tirada es 1, 2 o 3, no {word!r}")
    return int(word)


def parse_category(word: str) -> Category:
    """A category by number or name."""
    category = category_from(word)
    if category is None:
        raise CliError(f"categoría desconocida {word!r}: use {_CATEGORY_HELP}")
    return category


def parse_config(words: Sequence[str]) -> BoliviaConfig:
    """The table's options from repeated `--option NOMBRE=VALOR`."""
    options: dict[str, object] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep:
            raise CliError(f"--option va como NOMBRE=VALOR, no {word!r}")
        options[name.strip()] = {"true": True, "false": False}.get(value.strip().lower(), value.strip())
    try:
        return BoliviaConfig.from_mapping(options)
    except LogError as error:
        raise CliError(error.message) from None


def parse_grandes(word: str) -> int:
    """How many grandes were already written."""
    if not word.isdigit():
        raise CliError(f"--grandes es un número de 0 en adelante, no {word!r}")
    return int(word)


# --- score ---------------------------------------------------------------------------------------------


def run_score(args: argparse.Namespace) -> int:
    """`cacho bolivia score D D D D D --category C --roll N [--json]`."""
    dice = parse_dice(args.dice)
    category = parse_category(args.category)
    roll = parse_roll(args.roll)
    config = parse_config(args.option)
    try:
        result = score(dice, category, roll, config, parse_grandes(args.grandes))
    except RuleError as error:
        raise CliError(error.message) from None
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(describe_score(result))
    return 0


def describe_score(result: ScoreResult) -> str:
    """One Spanish line: the category, the dice, the points and the mark."""
    dice = " ".join(map(str, result.dice))
    head = f"{result.category.label} con {dice} en la tirada {result.roll}"
    if result.instant_win:
        return f"{head}: ¡grande de mano! Gana la partida (marca {result.mark})"
    if not result.made:
        return f"{head}: no la hizo, 0 puntos (se tacha: X)"
    return f"{head}: {result.points} puntos (marca {result.mark})"


# --- replay --------------------------------------------------------------------------------------------


def load(path: Path) -> ReplayResult:
    """Replay a log file; a missing or unreadable file is a CliError."""
    return replay_lines(read_log_lines(path))


def run_replay(args: argparse.Namespace) -> int:
    """`cacho bolivia replay FILE [--json]`."""
    result = load(args.file)
    return finish_replay(result.game, result.error, args.json, BoliviaGame.to_dict, summary)


def render_pizarra(pizarra: Pizarra, de_mano: bool = False) -> list[str]:
    """The cross hatch as text: 1-3 on the left, escalera/full/póker in the middle, 4-6 right, grande below."""

    def cell(category: Category) -> str:
        written = pizarra.cell(category)
        return "·" if written is None else written.mark

    rows = zip(CATEGORIES[0:3], CATEGORIES[6:9], CATEGORIES[3:6], strict=True)
    lines = [f"    {a.value:<7}{cell(a):>3} │ {b.label:<8}{cell(b):>2} │ {c.value:<7}{cell(c):>3}" for a, b, c in rows]
    grande = pizarra.cell(Category.GRANDE)
    shown = "·" if grande is None else grande.mark if not grande.made else f"{grande.mark} ({grande.points})"
    if grande is None and de_mano:
        # A grande de mano ends the game before it is written: it is drawn as its $ (How to play: scores).
        shown = "$ (grande de mano)"
    lines.append(f"    grande: {shown}")
    lines.append(f"    total: {pizarra.total}")
    return lines


def summary(game: BoliviaGame) -> str:
    """A readable Spanish account of the game: each pizarra, the totals and the winner or who plays."""
    names = {"classic": "clásica", "three_hatches": "tres pizarras", "partners": "parejas", "generala": "Generala"}
    title = "Generala" if game.variant.generala else "Cacho boliviano"
    lines = [f"{title} ({', '.join(names[n] for n in game.variant.names)}): {', '.join(game.players)}"]
    result = game.result()
    won = None if result.instant_win is None else result.instant_win.side
    for side in game.sides:
        lines.append(side.name if len(side.members) == 1 else f"{side.name} (equipo)")
        for number, pizarra in enumerate(side.hatches, start=1):
            if len(side.hatches) > 1:
                points = "punto" if number == 1 else "puntos"
                lines.append(f"  pizarra {number} (vale {number} {points} de partida)")
            lines.extend(render_pizarra(pizarra, de_mano=side.name == won and number == 1))
    three = game.variant.hatches > 1
    ranking = []
    for standing in result.standings:
        detail = f"{standing.total}"
        if three:
            hatches = " + ".join(map(str, standing.hatch_totals))
            detail = f"{hatches} = {standing.total} puntos, {standing.game_points} de partida"
        ranking.append(f"{standing.place}.º {standing.side} {detail}")
    heading = "Totales: " if result.finished else "Totales hasta ahora: "
    lines.append(heading + " · ".join(ranking))
    if result.instant_win is not None:
        win = result.instant_win
        dice = " ".join(map(str, win.dice))
        lines.append(f"¡Grande de mano de {win.player} ({dice})! Gana {win.side}.")
        return "\n".join(lines)
    if result.finished:
        if result.playoff:
            lines.append(f"Empate en el primer puesto entre {' y '.join(result.playoff)}: hay que desempatar.")
        elif len(result.winners) == 1:
            lines.append(f"Ganador: {result.winners[0]}")
        else:
            lines.append(f"Empate: ganan {' y '.join(result.winners)}")
        for loser, owes in result.settlement:
            lines.append(f"  Generala por apuestas: {loser} paga {owes} a {' y '.join(result.winners)}")
        return "\n".join(lines)
    legal = game.legal_actions()
    attempt = game.attempt
    if attempt is not None:
        state = f"tirada {attempt.rolls}" if attempt.rolls else "aún no tira"
        if attempt.declared is not None:
            state += f", declaró {attempt.declared.label}"
        lines.append(f"Le toca a {attempt.player} ({state})")
    elif game.pending is not None:
        pending = game.pending
        lines.append(
            f"Le toca a {game.side.name}: elegir la pizarra para {pending.category.label} "
            f"(marca {pending.mark}, {pending.points} puntos)"
        )
    else:
        lines.append(f"Le toca a {game.side.name}: elegir qué tirada anota")
        for member, candidate in zip(game.side.members, game.candidates, strict=True):
            lines.append(
                f"    {member}: {candidate.category.label}, marca {candidate.mark} ({candidate.points} puntos)"
            )
    may = sorted({_ACTION_NAMES[o.action] for o in legal.allowed()}, key=list(_ACTION_NAMES.values()).index)
    lines.append(f"  puede: {', '.join(may)}")
    return "\n".join(lines)


# --- advise --------------------------------------------------------------------------------------------


def run_advise(args: argparse.Namespace) -> int:
    """`cacho bolivia advise D D D D D --roll N [--open CATS] [--json]`, or `--bench`."""
    config = parse_config(args.option)
    if args.bench:
        return run_bench(config, args.json)
    dice = parse_dice(args.dice)
    roll = parse_roll(args.roll)
    categories = CATEGORIES
    if args.open is not None:
        categories = tuple(dict.fromkeys(parse_category(w) for w in args.open.split(",") if w.strip()))
        if not categories:
            raise CliError("--open necesita al menos una categoría")
    set_aside = parse_dice_list(args.set_aside)
    declared = None if args.declared is None else parse_category(args.declared)
    if declared is not None and declared not in categories:
        raise CliError(f"la categoría declarada {declared.label} no está entre las abiertas (--open)")
    try:
        advice = advise(dice, roll, categories, set_aside, config, parse_grandes(args.grandes), declared=declared)
    except RuleError as error:
        raise CliError(error.message) from None
    best = _best(advice)
    if declared is not None:
        # Once declared, the declared category is what the turn plays for (How to play).
        best = next(a for a in advice if a.category is declared)
    if args.json:
        out = {
            "dice": list(dice),
            "roll": roll,
            "categories": [a.to_dict() for a in advice],
            "best": None if best is None else best.category.value,
        }
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"Tirada {roll}: {' '.join(map(str, dice))}")
    for item in advice:
        mark = "→ " if item is best else "  "
        print(f"{mark}{describe_advice(item, declared)}")
    return 0


def parse_dice_list(words: Sequence[str]) -> tuple[int, ...]:
    """A few dice (0 to 4)."""
    pips = []
    for word in words:
        if word not in ("1", "2", "3", "4", "5", "6"):
            raise CliError(f"{word!r} no es un dado: los dados van de 1 a 6")
        pips.append(int(word))
    return tuple(pips)


def _best(advice: Sequence[Advice]) -> Advice | None:
    wins = [a for a in advice if a.instant_win]
    if wins:
        return wins[0]
    return max(advice, key=lambda a: a.expected or 0.0, default=None)


def describe_advice(item: Advice, declared: Category | None = None) -> str:
    """One Spanish line for one category."""
    name = f"{item.category.label:<13}"
    if item.instant_win:
        return f"{name} ¡grande de mano: gana la partida!"
    assert item.expected is not None
    if declared is not None and item.category is not declared:
        return f"{name} esperado {item.expected:6.2f}  cambie de categoría y tire los 5 dados"
    if item.keep is None:
        return f"{name} esperado {item.expected:6.2f}  anote ya ({item.score_now} puntos)"
    kept = " ".join(map(str, item.keep)) if item.keep else "ninguno"
    return f"{name} esperado {item.expected:6.2f}  aparte {kept} y tire {DICE - len(item.keep)}"


def run_bench(config: BoliviaConfig, as_json: bool) -> int:
    """Time the start-up (building the tables) and a query for every roll of five dice on each roll."""
    started = time.perf_counter()
    warm_up(config)
    startup_ms = (time.perf_counter() - started) * 1000
    timings = []
    for dice in combinations_with_replacement(range(1, 7), DICE):
        for roll in (1, 2, 3):
            begin = time.perf_counter()
            advise(dice, roll, CATEGORIES, (), config)
            timings.append((time.perf_counter() - begin) * 1000)
    timings.sort()
    mean = sum(timings) / len(timings)
    p99 = timings[int(len(timings) * 0.99) - 1]
    worst = timings[-1]
    ok = worst < BENCH_TARGET_MS
    if as_json:
        out = {
            "queries": len(timings),
            "startup_ms": round(startup_ms, 3),
            "mean_ms": round(mean, 4),
            "p99_ms": round(p99, 4),
            "max_ms": round(worst, 4),
            "target_ms": BENCH_TARGET_MS,
            "ok": ok,
        }
        print(json.dumps(out))
        return 0
    print(f"arranque (tablas de las 10 categorías): {startup_ms:.1f} ms")
    print(f"{len(timings)} consultas (252 tiradas × 3, todas las categorías abiertas):")
    print(f"  media {mean:.3f} ms · p99 {p99:.3f} ms · máx {worst:.3f} ms")
    print(f"objetivo < {BENCH_TARGET_MS:.0f} ms por consulta: {'cumple' if ok else 'NO cumple'}")
    return 0
