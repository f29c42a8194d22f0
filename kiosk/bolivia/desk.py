"""A Bolivian Cacho game on the kiosk: its state is the replay of its stored log; every change is one checked line."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from engines.bolivia import (
    CATEGORIES,
    BoliviaConfig,
    BoliviaGame,
    Category,
    LogError,
    LogEvent,
    Played,
    RuleError,
    Start,
    Undo,
    Variant,
    event_to_dict,
    parse_event,
    step,
)
from engines.bolivia.errors import ART_PLAYERS
from engines.jsonl import json_problem
from kiosk import tables
from kiosk.records import JsonDict
from kiosk.sections import section
from kiosk.store import Store
from kiosk.tables import CorruptLog, table_lock

GAME = "bolivia"
VARIANT_NAMES = {"classic": "clásica", "three_hatches": "tres pizarras", "partners": "parejas", "generala": "Generala"}


@dataclass(frozen=True, slots=True)
class Desk:
    """One game as loaded: its id, the number of stored lines, the engine's game, and the lines that stand.

    `standing` holds, for each action that stands after the undos (the start first), its stored line decoded:
    the roll lines keep the photo, the boxes and the corrections of the reading they came from.
    """

    table_id: int
    seq: int
    played: Played
    lines: tuple[str, ...]
    standing: tuple[JsonDict, ...]

    @property
    def game(self) -> BoliviaGame:
        """The engine's game now."""
        return self.played.game

    def meta(self) -> list[JsonDict]:
        """Every stored line decoded, undos included (the history)."""
        return [json.loads(line) for line in self.lines]

    def current_rolls(self) -> list[JsonDict]:
        """The roll lines of the attempt under way (empty before its first roll)."""
        attempt = self.game.attempt
        if attempt is None or attempt.rolls == 0:
            return []
        rolls = [line for line in self.standing if line.get("event") == "roll"]
        return rolls[-attempt.rolls :]


def replay(lines: tuple[str, ...]) -> tuple[Played, tuple[JsonDict, ...]]:
    """Replay stored lines with the engine, keeping each standing action's line; CorruptLog when one fails."""
    played: Played | None = None
    decoded: list[JsonDict] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            event = parse_event(obj)
            played = step(played, event)
        except json.JSONDecodeError as error:
            problem = f"no es JSON válido: {json_problem(error)} (columna {error.colno})"
            raise CorruptLog(f"línea {number}: {problem}") from None
        except LogError as error:
            raise CorruptLog(f"línea {number}: {error.message}") from None
        except RuleError as error:
            raise CorruptLog(f"línea {number} ({section(error.article)}): {error.message}") from None
        decoded.append(obj)
    if played is None:
        raise CorruptLog("el registro está vacío: falta el inicio")
    return played, tuple(tables.standing(decoded))


def _load(table_id: int, lines: tuple[str, ...]) -> Desk:
    try:
        played, standing = replay(lines)
    except CorruptLog as error:
        raise CorruptLog(f"el registro guardado de la partida {table_id} no se puede reproducir ({error})") from None
    return Desk(table_id, len(lines), played, lines, standing)


TABLES = tables.Tables(GAME, "partida", _load)


def load(store: Store, table_id: int) -> Desk:
    """The game from its stored log (cached while the log is unchanged)."""
    return TABLES.load(store, table_id)


def line_of(event: LogEvent, meta: Mapping[str, object] | None = None) -> str:
    """The stored line of an event: the engine's JSON plus the time stamp and any meta keys."""
    return tables.stored_line(event_to_dict(event), meta)


def create(store: Store, name: str, start: Start) -> int:
    """Start a new game: the engine checks the start (players, teams, variant) before anything is stored."""
    BoliviaGame().apply(start)
    return store.create_table(GAME, name, [line_of(start, {"by": "coordinador"})])


def act(
    store: Store,
    table_id: int,
    event: LogEvent,
    expect_seq: int | None,
    meta: Mapping[str, object] | None = None,
) -> Desk:
    """Check the event with the engine and, only if it is legal, append it; RuleError/StaleError otherwise.

    Any change also drops the reading awaiting confirmation, in the same transaction.
    """
    with table_lock(table_id):
        desk = TABLES.current(store, table_id, expect_seq)
        if isinstance(event, Start):
            raise RuleError(ART_PLAYERS, "la partida ya empezó: un registro tiene un solo inicio")
        played = step(desk.played, event)  # raises the section's RuleError and changes nothing
        line = line_of(event, meta)
        standing = desk.standing[:-1] if isinstance(event, Undo) else (*desk.standing, json.loads(line))
        built = Desk(table_id, desk.seq + 1, played, (*desk.lines, line), standing)
        # Every change ends the reading awaiting confirmation: it was taken for the position before it.
        return TABLES.append(store, table_id, desk, line, built, clear_pending=True)


def parse_action(obj: Mapping[str, object]) -> LogEvent:
    """A typed event from a page's JSON (the log's own format); LogError when malformed."""
    return parse_event(dict(obj))


def variant_from_form(form: Mapping[str, str]) -> tuple[tuple[str, ...], Variant]:
    """The players in turn order and the variant from the setup form (one player per line; teams one a line)."""
    three = form.get("three_hatches") in ("on", "true", "1")
    generala = form.get("generala") in ("on", "true", "1")
    partners = form.get("partners") in ("on", "true", "1")
    if partners:
        teams = tuple(
            tuple(name.strip() for name in line.replace(";", ",").split(",") if name.strip())
            for line in form.get("teams", "").splitlines()
            if line.strip()
        )
        players = tuple(name for team in teams for name in team)
        return players, Variant(hatches=3 if three else 1, teams=teams, generala=generala)
    players = tuple(line.strip() for line in form.get("players", "").splitlines() if line.strip())
    return players, Variant(hatches=3 if three else 1, generala=generala)


def config_from_form(form: Mapping[str, str]) -> BoliviaConfig:
    """The house options from the setup form; a checkbox left unticked is absent, so false when the form showed it."""
    return BoliviaConfig.from_mapping(tables.house_options(form, BoliviaConfig().to_dict()))


def import_log(store: Store, name: str, text: str) -> int:
    """A new game from a JSONL log (begun on paper, or exported); the whole log must replay, else LogError."""
    return TABLES.import_log(store, name, text, _check_import)


def _check_import(lines: tuple[str, ...]) -> None:
    try:
        replay(lines)
    except CorruptLog as error:
        raise LogError(str(error)) from None


def category_label(value: object) -> str:
    """The Spanish name of a category given by its log value."""
    for category in CATEGORIES:
        if category.value == value:
            return category.label
    return str(value)


def describe(event: JsonDict) -> str:
    """One Spanish line for the history list."""
    kind = event.get("event")
    player = event.get("player", "")
    if kind == "start":
        variant = event.get("variant", "classic")
        names = [variant] if isinstance(variant, str) else list(variant)
        shown = ", ".join(VARIANT_NAMES.get(str(n), str(n)) for n in names)
        return f"Empieza la partida ({shown}): {', '.join(event.get('players', []))}"
    if kind == "roll":
        source = {"camera": "cámara", "manual": "a mano"}.get(str(event.get("source")), "")
        fixes = len(event.get("corrections") or [])
        extra = ", ".join(p for p in (source, f"{fixes} correcciones" if fixes else "") if p)
        dice = " ".join(str(d) for d in event.get("dice", []))
        return f"{player} tira: {dice}" + (f" ({extra})" if extra else "")
    if kind == "declare":
        return f"{player} declara {category_label(event.get('category'))}"
    if kind == "set_aside":
        positions = event.get("positions") or []
        return f"{player} aparta " + (", ".join(f"el {p}" for p in positions) if positions else "ninguno")
    if kind == "score":
        where = f" en {category_label(event['category'])}" if "category" in event else ""
        return f"{player} anota{where}"
    if kind == "pick":
        return f"Se anota la tirada de {player}"
    if kind == "hatch":
        return f"{player}: a la pizarra {event.get('hatch')}"
    if kind == "undo":
        return "Deshecho"
    return str(kind)


def category_of(value: object) -> Category | None:
    """A category by its log value, or None."""
    return next((c for c in CATEGORIES if c.value == value), None)
