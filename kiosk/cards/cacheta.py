"""The Cacheta blueprint (seed 003): a table by taps, round after round, dealt face down; knocks ruled by the engine.

The kiosk sees what the table sees: the flip card, the discards, the cards taken from the discard pile, and the
hand of the player who knocks out or cuts the line, entered in the card picker; the engine says whether it melds
(and why not), scores the round, and at the end of the table gives each player's VP and GP (tournament scoring).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from flask import Blueprint

from engines.cards import DOUBLE_DECK, Draw, legality, parse_card
from engines.cards.cacheta import CUT, HAND_SIZE, KNOCK, Action, CachetaGame, CachetaOptions, GoodOne
from engines.cards.cacheta import GAME as ROUND_SECTION
from engines.errors import LogError, RuleError
from kiosk.cards import common
from kiosk.cards.common import Allowed, CardFace, Events, PageHead, card_data, card_field
from kiosk.cards.desk import CardTables, Desk
from kiosk.cards.pifpaf import RANKS, MeldRow, melds_of
from kiosk.game_views import Reading
from kiosk.records import JsonDict

GAME = "cacheta"
TABLES: CardTables[CachetaGame] = CardTables(GAME)
IMPORTED = "Cacheta importada"  # an imported table's name when none is given
bp = Blueprint(GAME, __name__, url_prefix="/cacheta")

ACTIONS = ("deal", "draw", "discard", "knock", "good_one", "cut")

JS_LABELS = (
    "Ronda",
    "Vuelta",
    "Comodines",
    "Elija la carta vuelta",
    "Repartir con la vuelta",
    "puntos",
    "Le toca a",
    "Roba del mazo",
    "Roba del descarte",
    "Descarta",
    "Elija la carta que descarta",
    "Bate",
    "Corta la fila",
    "Pide la buena",
    "por la buena",
    "quemado",
    "fuera del juego",
    "Con diez cartas",
    "Toque la carta que descarta y luego las nueve que muestra",
    "Toque las diez cartas que muestra",
    "Descarte",
    "Muestra",
    "Bate con estas cartas",
    "Cancelar",
    "Mazo",
    "carta",
    "cartas",
    "Ganador de la mesa",
    "Puntos por ronda",
    "bate con",
    "Deshacer",
    "Historial",
    "Leer con la cámara",
    "Lectura",
    "Confirmar la lectura",
    "Descartar lectura",
    "Foto de la lectura",
)


# ------------------------------------------------------------------ setup

DEFAULTS: dict[str, object] = {
    "trump_natural_free": CachetaOptions().trump_natural_free,
    "king_makes_aces": CachetaOptions().king_makes_aces,
    "first_player_rotates": CachetaOptions().first_player_rotates,
}


def start_of(form: Mapping[str, str]) -> dict[str, object]:
    """The setup form's `start` event: 2 to 8 players in playing order, starting points, set rule, house options."""
    players = common.players_of(form)
    options: dict[str, object] = {}
    for flag in DEFAULTS:
        if "options_form" in form or f"opt_{flag}" in form:
            options[flag] = common.checked(form, f"opt_{flag}")
    for number in ("start_points", "set_min_suits"):
        raw = form.get(number, "").strip()
        if raw:
            if not raw.isdigit():
                raise RuleError("Cacheta", f"«{number}» es un número")
            options[number] = int(raw)
    return {"players": players, "options": options}


common.add_new_route(bp, TABLES, "Cacheta", DEFAULTS, {}, start_of, IMPORTED)


# ------------------------------------------------------------------ pages


class RoundRow(TypedDict):
    """A row of the points table (`rounds_of`)."""

    round: int
    knock: int  # who knocked
    cards: int  # with how many cards (9 or 10)
    points: list[int]  # everyone's points after it


class Knock(TypedDict):
    """The last knock: who, with how many cards, and the melds."""

    player: int
    cards: int
    melds: list[MeldRow]


class CachetaPlayer(TypedDict):
    """A seat as the pages show it."""

    seat: int
    name: str
    points: int
    alive: bool
    good_one: bool  # asked for the good one
    burned: bool
    cards: int | None  # the cards he holds, in a round in play


class CachetaLegal(TypedDict):
    """What may be done now (`legal_of`)."""

    seat: int
    may: dict[str, Allowed]
    good_one: list[int]  # who may ask for the good one


class CachetaState(PageHead):
    """A Cacheta table's page JSON (`state_of`): the spectators' and, with the controls, the coordinator's."""

    summary: Mapping[str, object]  # the engine's (the TV's without the hands)
    players: list[CachetaPlayer]
    phase: str
    round: int
    flip: CardFace | None
    trumps: list[CardFace]
    turn: int | None
    must_draw: bool
    claimable_from: int | None
    top: CardFace | None  # the discard pile's top card
    stock: int
    last_knock: Knock | None
    rounds: list[RoundRow]
    winner: int | None
    vp: object  # the engine's summary's tournament scores, at the end
    gp: object
    hand_size: int
    card_reader: bool
    reading: Reading | None
    history: list[str]


class CachetaControls(CachetaState):
    """The coordinator's page JSON: what may be done now, whether the last tap may be undone, the card picker."""

    legal: CachetaLegal
    can_undo: bool
    deck: list[CardFace]
    copies: int  # the copies of each card in the deck


def rounds_of(desk: Desk[CachetaGame]) -> list[RoundRow]:
    """The points table: after each round, who knocked, with how many cards, and everyone's points."""
    rows: list[RoundRow] = []
    for game in desk.played.states:
        if not isinstance(game, CachetaGame) or game.last_knock is None or game.phase == "play":
            continue
        if rows and rows[-1]["round"] == game.round:
            continue
        player, size, _ = game.last_knock
        rows.append({"round": game.round, "knock": player, "cards": size, "points": list(game.points)})
    return rows


def state_of(desk: Desk[CachetaGame], view: str) -> CachetaState:
    """The page's JSON for one table; the coordinator's adds what may be done now (and why not)."""
    game = desk.state
    table = game.table
    summary = game.summary()
    players: list[CachetaPlayer] = [
        {
            "seat": seat,
            "name": name,
            "points": game.points[seat],
            "alive": game.points[seat] > 0,
            "good_one": game.good_one[seat],
            "burned": game.burned[seat],
            "cards": None if table is None or game.phase != "play" or game.points[seat] <= 0 else table.held(seat),
        }
        for seat, name in enumerate(game.players)
    ]
    out: CachetaState = {
        **common.page_head(desk, view, GAME),
        "summary": common.summary_for(summary, view),
        "players": players,
        "phase": game.phase,
        "round": game.round,
        "flip": None if game.flip is None else card_data(game.flip),
        "trumps": [card_data(parse_card(c)) for c in summary.get("trumps", [])],
        "turn": game.turn if game.phase == "play" else None,
        "must_draw": game.must_draw,
        "claimable_from": game.claimable_from,
        "top": None if table is None or table.top is None else card_data(table.top),
        "stock": 0 if table is None else table.stock_count + len(table.stock_known),
        "last_knock": None,
        "rounds": rounds_of(desk),
        "winner": game.winner,
        "vp": summary.get("vp"),
        "gp": summary.get("gp"),
        "hand_size": HAND_SIZE,
        "card_reader": common.card_reader() is not None,
        "reading": common.current_reading(desk),
        "history": [describe(e, game.players) for e in desk.standing][-14:],
    }
    if game.last_knock is not None:
        player, size, melds = game.last_knock
        out["last_knock"] = {"player": player, "cards": size, "melds": melds_of(melds)}
    if view == "tv":
        return out
    controls: CachetaControls = {
        **out,
        "legal": legal_of(game),
        "can_undo": len(desk.standing) > 1,
        "deck": common.full_deck(RANKS),
        "copies": DOUBLE_DECK.copies,
    }
    return controls


def legal_of(game: CachetaGame) -> CachetaLegal:
    """What may be done now, each with the engine's section and reason when not; who may ask for the good one."""
    seat = game.turn
    candidates: list[tuple[str, Action]] = [
        ("draw_stock", Draw(seat, "stock")),
        ("draw_discard", Draw(seat, "discard")),
    ]
    may = common.legal_map(legality(game.check, candidates))
    good: list[int] = []
    if game.phase == "play":
        good = [s for s in game.alive if legality(game.check, [("good", GoodOne(s))])[0].allowed]
    return {"seat": seat, "may": may, "good_one": good}


def describe(event: JsonDict, players: tuple[str, ...]) -> str:
    """One Spanish line for the history list."""
    kind = event.get("event")
    seat = event.get("player")
    who = common.seat_name(players, seat)
    if kind == "start":
        return f"Empieza la mesa de Cacheta: {', '.join(players)}"
    if kind == "deal":
        return f"Nueva ronda: vuelta {event.get('flip')}"
    if kind == "draw":
        return f"{who} roba del " + ("descarte" if event.get("source") == "discard" else "mazo")
    if kind == "discard":
        return f"{who} descarta {event.get('card')}"
    if kind == "knock":
        return f"{who} bate" + (f" descartando {event['discard']}" if event.get("discard") else " con diez")
    if kind == "good_one":
        return f"{who} pide la buena"
    if kind == "cut":
        return f"{who} corta la fila"
    return str(kind)


# ------------------------------------------------------------------ playing


def tap_events(game: CachetaGame, data: JsonDict) -> Events:
    """The log event one tap writes; LogError when the request is malformed (the engine rules it)."""
    name = common.action_name(data, ACTIONS)
    if name == "deal":
        return [{"event": "deal", "flip": card_field(data, "flip")}]
    player = data.get("player", game.turn)
    if isinstance(player, bool) or not isinstance(player, int):
        raise LogError("falta 'player' (un número de asiento)")
    event: dict[str, object] = {"event": name, "player": player}
    if name == "draw":
        event["source"] = common.draw_source(data)
    elif name == "discard":
        event["card"] = card_field(data, "card")
    elif name in ("knock", "cut"):
        event["discard"] = None if data.get("discard") is None else card_field(data, "discard")
        event["cards"] = common.shown_cards(data, "falta 'cards': las cartas que muestra")
    return [event]


VIEWS = common.card_views(bp, TABLES, state_of, tap_events, JS_LABELS, IMPORTED, "cacheta")


# ------------------------------------------------------------------ knocking out, read by the card reader


def _read_knock(desk: Desk[CachetaGame], data: JsonDict) -> tuple[list[int], int, dict[str, object]]:
    """The cards laid face up by the player knocking out (`kind` knock) or cutting the line (`kind` cut): nine and
    the discard, or ten (`ten`)."""
    game = desk.state
    kind, player, ten = data.get("kind"), data.get("player"), data.get("ten", False)
    if (
        kind not in ("knock", "cut")
        or isinstance(player, bool)
        or not isinstance(player, int)
        or not isinstance(ten, bool)
    ):
        raise LogError("se esperaba {kind: knock o cut, player, ten}")
    if game.phase != "play" or not 0 <= player < len(game.players):
        raise RuleError(ROUND_SECTION, "no hay ronda en juego")
    if kind == "knock" and (player != game.turn or game.must_draw):
        raise RuleError(KNOCK, f"bate {game.players[game.turn]} en su turno, después de robar")
    if kind == "cut" and (game.claimable_from is None or player == game.claimable_from or not game.good_one[player]):
        raise RuleError(CUT, "corta la fila quien pidió la buena, con el descarte recién tirado por otro")
    size = HAND_SIZE + 1 if ten else HAND_SIZE
    extra: dict[str, object] = {"kind": kind, "player": player, "ten": ten, "discard": None, "needs_discard": not ten}
    return [player], size, extra


def _knock_event(desk: Desk[CachetaGame], reading: Reading) -> Events:
    """The `knock` or `cut` event of the cards read."""
    cards = [c["card"] for c in reading["seats"][0]["cards"]]
    discard = None if reading["ten"] else reading["discard"]
    return [{"event": reading["kind"], "player": reading["player"], "discard": discard, "cards": cards}]


common.add_shown_routes(bp, VIEWS, "las cartas", _read_knock, _knock_event)
