"""`cacho cards ...`: Spanish Cacho showdowns, Pif Paf/Cacheta melds, Truco tricks, log replays, reading cards."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engines.cards import (
    DOUBLE_DECK,
    PIFPAF_RULES,
    TRUCO_DECK,
    Card,
    CardRuleError,
    cacheta_rules,
    parse_card,
    parse_cards,
    split,
)
from engines.cards.cacho import CATEGORY_IDS, CATEGORY_NAMES, showdown
from engines.cards.replay import GAMES, Replay, replay
from engines.cards.truco import GAME_POINTS, Play, resolve_trick
from kiosk.cli import CliError
from kiosk.commands.common import (
    check_adapt_options,
    check_annotate,
    finish_replay,
    loaded_frames,
    make_annotate,
    read_log_lines,
)

MAX_MELD_HAND = 10  # nine dealt plus the card drawn
PHASES = {
    "deal": "falta repartir",
    "bet": "apuestas",
    "play": "juego",
    "hand": "entre manos",
    "eleven": "decisión de la mano de once",
}
GAME_NAMES = {"cacho": "Cacho español", "pifpaf": "Pif Paf", "cacheta": "Cacheta", "truco": "Truco"}


def register(subparsers: Any) -> None:
    """Add `cacho cards showdown|melds|trick|replay|read|eval|adapt`."""
    cards = subparsers.add_parser("cards", help="juegos de cartas: Cacho español, Pif Paf, Cacheta y Truco")
    commands = cards.add_subparsers(dest="cards_command", metavar="ACCIÓN", required=True)

    show = commands.add_parser(
        "showdown",
        help="Cacho español: quién gana al mostrar las manos",
        description='Manos de tres cartas como "AD 4D 5D", en orden de asiento desde el mano (el primero '
        "a la izquierda de quien reparte).",
    )
    show.add_argument("--game", required=True, help="cacho")
    show.add_argument("hands", metavar="HAND", nargs="+", help='una mano de tres cartas, p. ej. "AD 4D 5D"')
    show.add_argument("--json", action="store_true", help="salida JSON")
    show.set_defaults(func=run_showdown)

    melds = commands.add_parser(
        "melds",
        help="Pif Paf / Cacheta: si todas las cartas forman juegos válidos, y cómo",
        description="Busca (sin atajos) una partición de todas las cartas en escaleras y grupos.",
    )
    melds.add_argument("--game", required=True, help="pifpaf o cacheta")
    melds.add_argument("--flip", metavar="CARD", help="Cacheta: la carta vuelta, que define los comodines")
    melds.add_argument("cards", metavar="CARDS", nargs="+", help='las cartas, p. ej. "3S 4S 5S 6H 6D 6C"')
    melds.add_argument("--json", action="store_true", help="salida JSON")
    melds.set_defaults(func=run_melds)

    trick = commands.add_parser(
        "trick",
        help="Truco: quién gana una baza",
        description="Las cartas jugadas por los asientos 0 a 3 (parejas 0 y 2, 1 y 3).",
    )
    trick.add_argument("--game", required=True, help="truco")
    trick.add_argument("cards", metavar="CARD", nargs="+", help="C0 C1 C2 C3: la carta de cada asiento")
    trick.add_argument("--lead", type=int, default=0, help="el asiento que salió (por defecto 0)")
    trick.add_argument("--json", action="store_true", help="salida JSON")
    trick.set_defaults(func=run_trick)

    rep = commands.add_parser(
        "replay",
        help="reproduce el registro (JSON Lines) de una mano o partida de cartas",
        description="Aplica los eventos en orden. Sale con 0 si todos valen, con 1 en el primer evento "
        "ilegal o mal escrito (y no aplica nada después).",
    )
    rep.add_argument("file", metavar="FILE", type=Path, help="registro, un evento JSON por línea")
    rep.add_argument("--json", action="store_true", help="salida JSON")
    rep.set_defaults(func=run_replay)

    read = commands.add_parser(
        "read",
        help="lee las cartas a la vista en una o más fotos (el modelo se carga una vez)",
        description="Cada carta se lee por sus índices de esquina: se acepta cuando dos esquinas dicen lo mismo, "
        "seguras; una carta con una sola esquina a la vista solo si las dos lecturas la nombran y la primera está "
        "segura (--alone); si no, queda marcada para el coordinador. Dos cartas iguales juntas (dos mazos) se "
        "separan cuando el borde de una cruza entre sus esquinas.",
    )
    read.add_argument("images", metavar="IMAGE", type=Path, nargs="+")
    read.add_argument("--json", action="store_true", help="una línea JSON por imagen")
    read.add_argument("--annotate", metavar="DIR", type=Path, help="escribe cada foto con cajas y cartas")
    _reader_options(read)
    read.set_defaults(func=run_read)

    evaluate = commands.add_parser(
        "eval",
        help="mide el lector de cartas en una carpeta YOLO (images/, labels/, data.yaml; meta/ si es renderizada)",
    )
    evaluate.add_argument("folder", metavar="DIR", type=Path)
    evaluate.add_argument("--split", help="subcarpeta de images/ y labels/, p. ej. val")
    evaluate.add_argument("--json", action="store_true")
    evaluate.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="lee cada imagen reducida a esta parte de su lado (0.5: índices la mitad de grandes, como los de una "
        "webcam lejana); por defecto 1, tal cual",
    )
    _reader_options(evaluate)
    evaluate.set_defaults(func=run_eval)

    teach = commands.add_parser(
        "adapt",
        help="enseña al lector la baraja de una mesa: afina sus dos clasificadores de índices con una carpeta YOLO "
        "etiquetada y escribe una carpeta de modelos completa",
    )
    teach.add_argument(
        "folder", metavar="DIR", type=Path, help="carpeta YOLO: images/, labels/ (una caja por índice de esquina)"
    )
    teach.add_argument("--out", type=Path, required=True, help="carpeta de modelos que se escribe")
    teach.add_argument(
        "--from", dest="source", type=Path, help="carpeta de modelos de la que se parte (por defecto, models/)"
    )
    teach.add_argument("--split", default="", help="subcarpeta de images/ y labels/ (por defecto, la carpeta entera)")
    teach.add_argument(
        "--holdout", type=float, default=0.3, help="parte de las fotos apartada para comprobar (por defecto 0.3)"
    )
    teach.add_argument("--minutes", type=float, default=6.0, help="minutos de aprendizaje (por defecto 6)")
    teach.add_argument("--json", action="store_true")
    teach.set_defaults(func=run_adapt)


def _level_or_none(option: str, text: str) -> float | None:
    """A level that may be switched off (`--joint`, `--agree`, `--face`, `--lone-second`, `--suit`, `--rank`): from
    0 to 1, or none."""
    value = _number_or_none(option, text, "un número entre 0 y 1")
    if value is not None and not 0 <= value <= 1:
        raise CliError(f"{option} debe estar entre 0 y 1, no {value}")
    return value


def _pixels_or_none(option: str, text: str) -> float | None:
    """A length in pixels that may be switched off (`--suit-floor`, `--least-index`): from 0 to 1000, or none."""
    value = _number_or_none(option, text, "un número de píxeles")
    if value is not None and not 0 <= value <= 1000:
        raise CliError(f"{option} debe estar entre 0 y 1000 píxeles, no {text}")
    return value


# the reader's settings that an option may switch off with "none", each by how its text is read
SWITCHABLE: dict[str, Callable[[str, str], float | None]] = {
    "joint": _level_or_none,
    "agree": _level_or_none,
    "face": _level_or_none,
    "lone_second": _level_or_none,
    "suit_floor": _pixels_or_none,
    "suit": _level_or_none,
    "rank": _level_or_none,
    "least_index": _pixels_or_none,
}


def _number_or_none(option: str, text: str, what: str) -> float | None:
    """`text` as a number, or None for "none"; anything else a CliError saying the option wants `what`."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise CliError(f"{option} debe ser {what} o none, no {text}") from None


def _again(text: str) -> int | None:
    """The `--again` turns: 2 or 4, or none (a card in doubt is not read again)."""
    if text.strip().lower() == "none":
        return None
    if text.strip() not in ("2", "4"):
        raise CliError(f"--again debe ser 2, 4 o none, no {text}")
    return int(text)


def _reader_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--models", type=Path, help="carpeta de modelos (por defecto, models/ del proyecto)")
    parser.add_argument("--pair", type=float, help="confianza mínima de cada una de dos esquinas que coinciden")
    parser.add_argument(
        "--alone",
        type=float,
        help="aceptar una carta vista por una sola esquina, si las dos lecturas la nombran, desde esta confianza "
        "(0.95; 1: nunca)",
    )
    parser.add_argument("--back", type=float, help="confianza mínima de un dorso (carta boca abajo)")
    parser.add_argument(
        "--apart",
        type=float,
        help="dos esquinas del mismo código, una junto a otra, son dos cartas (gemelas de dos mazos) cuando el "
        "separador lo dice con esta confianza (0.95)",
    )
    parser.add_argument(
        "--joint",
        help="una carta con dos o más esquinas se acepta si su probabilidad, con todas sus esquinas juntas, llega a "
        "esta confianza (0.995; none: cada esquina debe llegar a --pair)",
    )
    parser.add_argument(
        "--agree",
        help="una carta con dos o más esquinas se acepta si la segunda lectura, con todas sus esquinas juntas, la "
        "nombra con esta confianza (none, por defecto: la segunda lectura debe nombrarla en cada esquina que cuenta)",
    )
    parser.add_argument(
        "--face",
        help="una carta con dos o más esquinas que la segunda lectura discute se acepta si la cara entre sus esquinas "
        "(pintas o figura) la nombra con esta confianza (0.5; none: nunca)",
    )
    parser.add_argument(
        "--lone-second",
        help="una carta vista por una sola esquina se acepta solo si la segunda lectura la nombra con esta confianza "
        "(0.9; none: basta con que la nombre)",
    )
    parser.add_argument(
        "--suit-floor",
        help="una carta cuyo índice más grande mide menos de estos píxeles va al coordinador: su palo es de pocos "
        "píxeles (20; none: nunca)",
    )
    parser.add_argument(
        "--suit",
        help="una carta se acepta solo si el lector de palos, con todas sus esquinas, distingue su palo del otro de su "
        "color (tréboles de picas, corazones de diamantes) con esta confianza (0.99; none: no se pregunta)",
    )
    parser.add_argument(
        "--rank",
        help="una carta de índice menor que --suit-floor se acepta si el lector de rangos, con todas sus esquinas, "
        "nombra su rango con esta confianza y el de palos distingue su palo (0.99; none: nunca)",
    )
    parser.add_argument(
        "--least-index",
        help="una carta cuyo índice más grande mide menos de estos píxeles va siempre al coordinador (12; none: "
        "sin este mínimo)",
    )
    parser.add_argument(
        "--turns",
        type=int,
        help="leer cada índice así como está (1) o también girado: media vuelta (2) o cada cuarto de vuelta (4)",
    )
    parser.add_argument(
        "--again",
        help="volver a leer las esquinas de una carta dudosa, giradas: media vuelta (2) o cada cuarto de vuelta "
        "(4, por defecto); none: no volver a leer",
    )


def _game(args: argparse.Namespace, allowed: tuple[str, ...]) -> str:
    game = str(args.game).strip().lower().replace(" ", "").replace("-", "")
    if game not in allowed:
        known = ", ".join(allowed)
        if game in GAMES:
            raise CliError(f"«{args.game}» no tiene esta acción; aquí valen: {known}")
        raise CliError(f"juego desconocido «{args.game}»; aquí valen: {known}")
    return game


def _cards(text: str | list[str]) -> tuple[Card, ...]:
    try:
        return parse_cards(" ".join(text) if isinstance(text, list) else text)
    except CardRuleError as error:
        raise CliError(error.message) from None


def _emit(data: dict[str, Any]) -> None:
    print(json.dumps(data, ensure_ascii=False))


def run_showdown(args: argparse.Namespace) -> int:
    """`cacho cards showdown --game cacho HAND... [--json]`."""
    _game(args, ("cacho",))
    hands = [_cards(hand) for hand in args.hands]
    try:
        result = showdown(hands)
    except CardRuleError as error:
        raise CliError(error.message) from None
    if args.json:
        _emit(
            {
                "game": "cacho",
                "winner": result.winner,
                "decided_by": result.decided_by,
                "hands": [
                    {
                        "cards": [str(c) for c in v.cards],
                        "category": CATEGORY_IDS[v.category],
                        "points": v.points,
                    }
                    for v in result.hands
                ],
            }
        )
        return 0
    how = {
        "category": "por categoría",
        "points": "por puntos",
        "high_card": "por la carta más alta",
        "kickers": "por las cartas siguientes",
        "eldest": "por empate: gana el más cercano a la izquierda de quien reparte",
    }[result.decided_by]
    for i, value in enumerate(result.hands):
        points = "" if value.points is None else f", {value.points} puntos"
        print(f"Mano {i}: {' '.join(map(str, value.cards))} — {CATEGORY_NAMES[value.category]}{points}")
    print(f"Gana la mano {result.winner} ({how}).")
    return 0


def run_melds(args: argparse.Namespace) -> int:
    """`cacho cards melds --game pifpaf|cacheta [--flip CARD] CARDS [--json]`."""
    game = _game(args, ("pifpaf", "cacheta"))
    cards = _cards(args.cards)
    flip: Card | None = None
    if args.flip is not None:
        if game != "cacheta":
            raise CliError("--flip (la carta vuelta) solo existe en Cacheta")
        try:
            flip = parse_card(args.flip)
        except CardRuleError as error:
            raise CliError(error.message) from None
    if not 1 <= len(cards) <= MAX_MELD_HAND:
        raise CliError(f"una mano tiene de 1 a {MAX_MELD_HAND} cartas (nueve más la robada), no {len(cards)}")
    try:
        DOUBLE_DECK.check([*cards, *([flip] if flip else [])])
    except CardRuleError as error:
        raise CliError(error.message) from None
    rules = cacheta_rules(flip) if game == "cacheta" else PIFPAF_RULES
    found = split(cards, rules)
    if args.json:
        data: dict[str, Any] = {
            "game": game,
            "valid": found is not None,
            "melds": [[str(c) for c in m.cards] for m in found or ()],
            "details": [
                {
                    "kind": m.kind,
                    "cards": [str(c) for c in m.cards],
                    "wild": None if m.wild is None else str(m.wild),
                    "stands_for": None if m.stands_for is None else str(m.stands_for),
                }
                for m in found or ()
            ],
        }
        if game == "cacheta":
            data["trumps"] = sorted(str(c) for c in rules.trumps)
        _emit(data)
        return 0
    if rules.trumps:
        print(f"Comodines: {' '.join(sorted(str(c) for c in rules.trumps))}")
    if found is None:
        print("No: estas cartas no se pueden repartir todas en juegos válidos.")
        return 0
    print("Sí: todas las cartas forman juegos válidos.")
    for m in found:
        print(f"  {m.describe()}")
    return 0


def run_trick(args: argparse.Namespace) -> int:
    """`cacho cards trick --game truco C0 C1 C2 C3 [--lead SEAT] [--json]`."""
    _game(args, ("truco",))
    cards = _cards(args.cards)
    if len(cards) != 4:
        raise CliError(f"una baza de Truco tiene cuatro cartas (asientos 0 a 3), no {len(cards)}")
    if not 0 <= args.lead <= 3:
        raise CliError("--lead es un asiento de 0 a 3")
    try:
        TRUCO_DECK.check(cards)
    except CardRuleError as error:
        raise CliError(error.message) from None
    order = [(args.lead + k) % 4 for k in range(4)]
    result = resolve_trick([Play(seat, cards[seat]) for seat in order])
    if args.json:
        _emit({"game": "truco", "winner": result.winner, "team": result.team, "leads_next": result.leads_next})
        return 0
    if result.team is None:
        print(f"Baza empatada entre parejas: no es de nadie. Sale el asiento {result.leads_next}.")
    else:
        pair = f"pareja de los asientos {result.team} y {result.team + 2}"
        print(f"Gana el asiento {result.winner} ({pair}); sale a la próxima baza.")
    return 0


def load(path: Path) -> Replay:
    """Replay a log file; a missing or unreadable file is a CliError."""
    return replay(read_log_lines(path))


def run_replay(args: argparse.Namespace) -> int:
    """`cacho cards replay FILE [--json]`."""
    result = load(args.file)
    return finish_replay(
        result.summary,
        result.error,
        args.json,
        lambda state: {"game": result.game, "events": result.events, "state": state},
        describe,
    )


def describe(state: dict[str, Any]) -> str:
    """A short Spanish account of a replayed card game."""
    game = state["game"]
    players: list[str] = state["players"]
    lines = [f"{GAME_NAMES[game]}: {', '.join(players)}"]
    winner = state.get("winner")
    if game in ("cacho", "pifpaf"):
        chips = ", ".join(f"{name} {n}" for name, n in zip(players, state["chips"], strict=True))
        lines.append(f"Fichas: {chips}  —  pozo {state['pot']}")
    elif game == "cacheta":
        points = ", ".join(f"{name} {n}" for name, n in zip(players, state["points"], strict=True))
        lines.append(f"Ronda {state['round']}. Puntos: {points}")
        if "vp" in state:  # the table is over: the tournament's points by place (VP) and by game (GP)
            for label, key in (("Puntos de victoria (VP)", "vp"), ("Puntos de juego (GP)", "gp")):
                each = ", ".join(f"{name} {n}" for name, n in zip(players, state[key], strict=True))
                lines.append(f"{label}: {each}")
    else:
        tentos = ", ".join(f"{_team(players, team)} {state['scores'][team]}" for team in (0, 1))
        lines.append(f"Mano {state['hand']}. Tentos (se juega a {GAME_POINTS}): {tentos}")
    if winner is not None:
        label = f"la pareja de {_team(players, winner)}" if game == "truco" else players[winner]
        lines.append(f"Gana {label}.")
    else:
        phase = PHASES.get(state["phase"], state["phase"])
        lines.append(f"En juego: {phase}.")
    return "\n".join(lines)


def _team(players: list[str], team: int) -> str:
    """A Truco pair by its players' names: team 0 is seats 0 and 2, team 1 seats 1 and 3."""
    return f"{players[team]} y {players[team + 2]}"


def _card_reader(args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from vision.cards.index_classifier import TURNS
    from vision.cards.reader import MODELS, CardReader, CardSettings

    models = args.models / "cards" if args.models else MODELS
    settings = CardSettings()
    switched: dict[str, Any] = {  # each a float or None, for the field of its name
        name: parse("--" + name.replace("_", "-"), getattr(args, name))
        for name, parse in SWITCHABLE.items()
        if getattr(args, name) is not None
    }
    settings = replace(settings, **switched)
    for name in ("pair", "alone", "back", "apart"):
        value = getattr(args, name)
        if value is not None:
            if not 0 <= value <= 1:
                raise CliError(f"--{name} debe estar entre 0 y 1, no {value}")
            settings = replace(settings, **{name: value})
    if args.turns is not None:
        if args.turns not in TURNS:
            raise CliError(f"--turns debe ser 1, 2 o 4, no {args.turns}")
        settings = replace(settings, turns=args.turns)
    if args.again is not None:
        settings = replace(settings, again=_again(args.again))
    try:
        return CardReader(models, settings)
    except FileNotFoundError as error:
        raise CliError(str(error)) from None


def run_read(args: argparse.Namespace) -> int:
    """`cacho cards read IMAGE... [--json] [--annotate DIR] [--models DIR]`."""
    import cv2

    from vision.cards.reader import annotate

    check_annotate(args.annotate)
    reader = _card_reader(args)
    make_annotate(args.annotate)
    failed: list[Path] = []
    for path, frame in loaded_frames(args.images, args.json, failed):
        reading = reader.read(frame)
        if args.json:
            _emit({"image": str(path), "cards": [c.to_dict() for c in reading.cards]})
        else:
            print(describe_cards(str(path), reading))
        if args.annotate is not None:
            cv2.imwrite(str(args.annotate / (path.stem + ".annotated.jpg")), annotate(frame, reading))
    return 1 if failed else 0


def describe_cards(name: str, reading: Any) -> str:
    """A readable Spanish account of one photo's cards."""
    codes = " ".join(("dorso" if c.face_down else c.card) + ("?" if c.uncertain else "") for c in reading.cards)
    lines = [f"{name}: {len(reading.cards)} cartas: {codes or 'ninguna'}"]
    for card in reading.uncertain:
        box = ", ".join(f"{v:.0f}" for v in card.box.to_list())
        lines.append(f"  dudosa en [{box}]: {'; '.join(card.reasons)}")
    return "\n".join(lines)


def run_eval(args: argparse.Namespace) -> int:
    """`cacho cards eval DIR [--split S] [--scale F] [--json] [--models DIR]`."""
    from vision.cards.evaluate import enlarged, evaluate_folder, images_of, suit_table
    from vision.frames import FrameError, load_image

    folder = args.folder
    if not (folder / "images").is_dir():
        raise CliError(f"{folder} no es una carpeta YOLO: falta images/")
    images = images_of(folder, args.split)
    if not images:
        raise CliError(f"no hay imágenes en {folder / 'images' / (args.split or '')}")
    if not 0.1 <= args.scale <= 1:
        raise CliError(f"--scale {args.scale:g}: debe estar entre 0.1 y 1 (la parte del lado con que se lee)")
    reader = _card_reader(args)
    readings = {}
    for image in images:
        try:
            frame = load_image(image)
        except FrameError as error:
            raise CliError(f"{image}: {error}") from None
        if args.scale != 1:
            import cv2
            import numpy as np

            size = (max(1, round(frame.shape[1] * args.scale)), max(1, round(frame.shape[0] * args.scale)))
            frame = np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), np.uint8)
        cards = [c.to_dict() for c in reader.read(frame).cards]
        readings[image.name] = [enlarged(c, 1 / args.scale) for c in cards] if args.scale != 1 else cards
    try:
        scores = evaluate_folder(folder, readings, args.split, with_meta=(folder / "meta").is_dir())
    except (FileNotFoundError, ValueError) as error:
        raise CliError(str(error)) from None
    if args.json:
        _emit(scores.to_dict())
        return 0
    print(f"{scores.images} imágenes, {scores.shown} cartas a la vista ({scores.face_down} boca abajo)")
    print(f"encontradas: {scores.recall:.1%}; leídas bien: {scores.card_accuracy:.1%} de las encontradas")
    print(f"carga del coordinador: {scores.load:.1%}; errores silenciosos: {scores.silent_errors}")
    print(f"lecturas de más: {scores.extra} ({scores.silent_extra} sin marcar)")
    print(f"imágenes enteras bien: {scores.images_all_right_share:.1%}")
    print(f"palos aceptados seguros y equivocados: {scores.sure_suit_errors}")
    for line in suit_table(scores.suits["sure"]):
        print("  " + line)
    for game, part in scores.games.items():
        print(
            f"  {game}: {part['shown']} cartas, carga {part['load']:.1%}, errores silenciosos {part['silent_errors']}, "
            f"lecturas de más sin marcar {part['silent_extra']}"
        )
    return 0


def run_adapt(args: argparse.Namespace) -> int:
    """`cacho cards adapt`: fine-tune the index classifiers on a table's labelled deck; before and after."""
    import sys

    from vision.cards.adapt import AdaptError, adapt
    from vision.pipeline import MODELS

    check_adapt_options(args)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        result = adapt(
            args.folder,
            args.out,
            args.source or MODELS,
            split=args.split,
            holdout=args.holdout,
            minutes=args.minutes,
            command="cacho cards adapt " + " ".join(sys.argv[3:]),
            progress=progress,
        )
    except AdaptError as error:
        raise CliError(str(error)) from None
    if args.json:
        _emit(result.to_dict())
    else:
        print(
            f"aprendió de {result.learnt} esquinas ({result.cards} cartas distintas); comprobado en "
            f"{result.held_out} esquinas apartadas ({result.seconds:.0f} s)"
        )
        for when, held in (("antes", result.before), ("ahora", result.after)):
            print(f"{when}: {held.load} de {held.corners} por confirmar ({held.wrong} equivocadas sin marcar)")
    if not result.written:
        raise CliError(
            f"los clasificadores adaptados leen peor las esquinas apartadas (antes {result.before.load} por "
            f"confirmar y {result.before.wrong} equivocadas, ahora {result.after.load} y {result.after.wrong}): "
            f"no se escribe {args.out}"
        )
    if not args.json:
        print(f"modelos en {args.out}: úselos con --models {args.out}")
    return 0
