"""The Pif Paf blueprint (seed 001): an evening of hands by taps, dealt face down; going out checked by the engine.

The kiosk sees what the table sees: the discards, the cards taken from the discard pile, and the whole hand of the
player who goes out (or claims the discard), entered in the card picker; the engine says whether the nine cards
all form melds, and why not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from flask import Blueprint

from engines.cards import DOUBLE_DECK, Draw, Meld, legality
from engines.cards.pifpaf import BET_CAPS, HAND_SIZE, PLAY, Action, Call, Fold, PifPafEvening, PifPafOptions, Raise
from engines.errors import LogError, RuleError
from kiosk.cards import common
from kiosk.cards.common import Allowed, CardFace, Events, PageHead, card_data, card_field, int_field
from kiosk.cards.desk import CardTables, Desk
from kiosk.game_views import Reading
from kiosk.records import JsonDict

GAME = "pifpaf"
NOT_AN_EVENING = (
    'el quiosco juega noches de Pif Paf: el registro empieza con "evening": true '
    "(una mano sola se repite con cacho cards replay)"
)
TABLES: CardTables[PifPafEvening] = CardTables(
    GAME, lambda state: None if isinstance(state, PifPafEvening) else NOT_AN_EVENING
)
IMPORTED = "Pif Paf importado"  # an imported table's name when none is given
bp = Blueprint(GAME, __name__, url_prefix="/pifpaf")

OPTION_CHOICES: dict[str, list[str]] = {"bet_cap": list(BET_CAPS)}
ACTIONS = ("hand", "deal", "fold", "call", "raise", "draw", "discard", "out", "claim")
RANKS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
MAX_CHIPS = 10_000
MELD_NAMES = {"sequence": "escalera", "group": "grupo"}

JS_LABELS = (
    "Repartir",
    "Apuestas",
    "Pozo",
    "Apuesta",
    "Tope",
    "fichas",
    "Le toca a",
    "Se retira",
    "Iguala",
    "Sube",
    "Roba del mazo",
    "Roba del descarte",
    "Descarta",
    "Elija la carta que descarta",
    "Sale",
    "Reclama el descarte",
    "Toque la carta que descarta y luego las nueve que muestra",
    "Descarte",
    "Muestra",
    "Sale con estas cartas",
    "Cancelar",
    "Mazo",
    "carta",
    "cartas",
    "Gana",
    "se lleva",
    "retirado",
    "Deshacer",
    "Historial",
    "¿Quién reparte la primera mano?",
    "Nueva mano: reparte",
    "no juega esta mano",
    "Mano",
    "Reparte",
    "Leer con la cámara",
    "Lectura",
    "Confirmar la lectura",
    "Descartar lectura",
    "Foto de la lectura",
)


# ------------------------------------------------------------------ setup


def _number(form: Mapping[str, str], key: str, what: str) -> int:
    raw = form.get(key, "").strip()
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_CHIPS:
        raise RuleError("Pif Paf (Cacheta)", f"{what} es un número de 1 a {MAX_CHIPS}")
    return int(raw)


def start_of(form: Mapping[str, str]) -> dict[str, object]:
    """The setup form's `start` event: 3 to 8 players clockwise, the chips each starts with, ante, house options."""
    players = common.players_of(form)
    options: dict[str, object] = {}
    if "options_form" in form or "opt_claim_priority" in form:
        options["claim_priority"] = common.checked(form, "opt_claim_priority")
    if form.get("opt_bet_cap"):
        options["bet_cap"] = form["opt_bet_cap"]
    chips = _number(form, "chips", "las fichas de cada jugador")
    ante = _number(form, "ante", "la apuesta inicial (ante)")
    return {"players": players, "chips": [chips] * len(players), "ante": ante, "options": options, "evening": True}


DEFAULTS = {"bet_cap": PifPafOptions().bet_cap, "claim_priority": PifPafOptions().claim_priority}
common.add_new_route(bp, TABLES, "Pif Paf", DEFAULTS, OPTION_CHOICES, start_of, IMPORTED)


# ------------------------------------------------------------------ pages


class MeldRow(TypedDict):
    """A meld as the pages draw it (`melds_of`)."""

    kind: str  # its Spanish name
    cards: list[CardFace]


class PifPafPlayer(TypedDict):
    """A seat as the pages show it."""

    seat: int
    name: str
    chips: int
    in_hand: bool
    folded: bool
    cards: int | None  # the cards he holds, in a hand in play


class PifPafHandEnd(TypedDict):
    """How the last hand ended (`last_hand`)."""

    winner: int
    pot: int
    melds: list[MeldRow]  # those he went out with, while that hand is the last


class PifPafLegal(TypedDict):
    """What the player to act may do (`legal_of`): nobody, nothing, outside a hand."""

    seat: int | None
    may: dict[str, Allowed]
    raises: list[int]


class PifPafState(PageHead):
    """A Pif Paf evening's page JSON (`state_of`): the spectators' and, with the controls, the coordinator's."""

    summary: Mapping[str, object]  # the engine's (the TV's without the hands)
    players: list[PifPafPlayer]
    phase: str
    hand: int
    dealer: int | None
    next_dealer: int | None
    pot: int
    bet: int
    cap: int
    to_act: int | None
    turn: int | None
    must_draw: bool
    claimable_from: int | None
    top: CardFace | None  # the discard pile's top card
    stock: int
    last_hand: PifPafHandEnd | None
    hand_size: int
    card_reader: bool
    reading: Reading | None
    history: list[str]


class PifPafControls(PifPafState):
    """The coordinator's page JSON: what may be done now, whether the last tap may be undone, the card picker."""

    legal: PifPafLegal
    can_undo: bool
    deck: list[CardFace]
    copies: int  # the copies of each card in the deck


def melds_of(melds: tuple[Meld, ...]) -> list[MeldRow]:
    """The melds a player went out with, as the pages draw them."""
    return [{"kind": MELD_NAMES.get(m.kind, m.kind), "cards": [card_data(c) for c in m.cards]} for m in melds]


def state_of(desk: Desk[PifPafEvening], view: str) -> PifPafState:
    """The page's JSON for one evening; the coordinator's adds what may be done now (and why not)."""
    night = desk.state
    hand = night.hand
    live = hand if hand is not None and hand.phase != "over" else None
    table = None if live is None else live.table

    def local(seat: int) -> int | None:
        return night.seats.index(seat) if live is not None and seat in night.seats else None

    players: list[PifPafPlayer] = []
    for seat, name in enumerate(night.players):
        k = local(seat)
        players.append(
            {
                "seat": seat,
                "name": name,
                "chips": night.chips[seat],
                "in_hand": k is not None,
                "folded": k is not None and live is not None and live.folded[k],
                "cards": None if k is None or table is None else table.held(k),
            }
        )
    out: PifPafState = {
        **common.page_head(desk, view, GAME),
        "summary": common.summary_for(night.summary(), view),
        "players": players,
        "phase": night.phase,
        "hand": night.hand_no,
        "dealer": night.dealer,
        "next_dealer": night.next_dealer(),
        "pot": 0 if live is None else live.pot,
        "bet": 0 if live is None else live.level,
        "cap": live.cap if live is not None else night.ante * len(night.players),
        "to_act": night.seat(live.to_act[0]) if live is not None and live.phase == "bet" and live.to_act else None,
        "turn": night.seat(live.turn) if live is not None and live.phase == "play" else None,
        "must_draw": live is not None and live.must_draw,
        "claimable_from": None if live is None or live.claimable_from is None else night.seat(live.claimable_from),
        "top": None if table is None or table.top is None else card_data(table.top),
        "stock": 0 if table is None else table.stock_count + len(table.stock_known),
        "last_hand": last_hand(night),
        "hand_size": HAND_SIZE,
        "card_reader": common.card_reader() is not None,
        "reading": common.current_reading(desk),
        "history": [describe(e, night.players) for e in desk.standing][-14:],
    }
    if view == "tv":
        return out
    controls: PifPafControls = {
        **out,
        "legal": legal_of(night),
        "can_undo": len(desk.standing) > 1,
        "deck": common.full_deck(RANKS),
        "copies": DOUBLE_DECK.copies,
    }
    return controls


def last_hand(night: PifPafEvening) -> PifPafHandEnd | None:
    """The last hand's winner, the pot he took, and the melds he went out with."""
    if not night.results:
        return None
    last = night.results[-1]
    hand = night.hand
    melds = melds_of(hand.melds) if hand is not None and hand.phase == "over" else []
    return {"winner": last.winner, "pot": last.pot, "melds": melds}


def legal_of(night: PifPafEvening) -> PifPafLegal:
    """What the player to act may do now (table seats), each with the engine's section and reason when not."""
    hand = night.hand
    if hand is None or night.phase not in ("bet", "play"):
        return {"seat": None, "may": {}, "raises": []}
    k = hand.to_act[0] if hand.phase == "bet" and hand.to_act else hand.turn
    seat = night.seat(k)
    candidates: list[tuple[str, Action]] = [
        ("fold", Fold(seat)),
        ("call", Call(seat)),
        ("raise", Raise(seat, 1)),
        ("draw_stock", Draw(seat, "stock")),
        ("draw_discard", Draw(seat, "discard")),
    ]
    may = common.legal_map(legality(night.check, candidates))
    raises: list[int] = []
    if hand.phase == "bet":
        owed = hand.level - hand.put_in[k]
        for n in range(1, hand.cap + 1):
            limit = n if hand.options.bet_cap == "raise" else hand.level + n
            if limit <= hand.cap and owed + n <= hand.chips[k]:
                raises.append(n)
    return {"seat": seat, "may": may, "raises": raises}


def describe(event: JsonDict, players: tuple[str, ...]) -> str:
    """One Spanish line for the history list."""
    kind = event.get("event")
    seat = event.get("player")
    who = common.seat_name(players, seat)
    if kind == "start":
        return f"Empieza la noche de Pif Paf: {', '.join(players)}"
    if kind == "hand":
        dealer = event.get("dealer")
        name = common.seat_name(players, dealer)
        return f"Nueva mano: reparte {name}"
    if kind == "deal":
        return "Nueve cartas a cada uno"
    if kind == "fold":
        return f"{who} se retira"
    if kind == "call":
        return f"{who} iguala"
    if kind == "raise":
        return f"{who} sube {event.get('amount')}"
    if kind == "draw":
        return f"{who} roba del " + ("descarte" if event.get("source") == "discard" else "mazo")
    if kind == "discard":
        return f"{who} descarta {event.get('card')}"
    if kind == "out":
        return f"{who} sale descartando {event.get('discard')}"
    if kind == "claim":
        return f"{who} reclama el descarte y sale"
    return str(kind)


# ------------------------------------------------------------------ playing


def tap_events(night: PifPafEvening, data: JsonDict) -> Events:
    """The log event one tap writes; LogError when the request is malformed (the engine rules it)."""
    name = common.action_name(data, ACTIONS)
    if name == "hand":
        return [{"event": "hand", "dealer": int_field(data, "dealer", night.next_dealer())}, {"event": "deal"}]
    if name == "deal":
        return [{"event": "deal"}]
    hand = night.hand
    default = None
    if hand is not None and night.phase in ("bet", "play"):
        default = night.seat(hand.to_act[0] if hand.phase == "bet" and hand.to_act else hand.turn)
    event: dict[str, object] = {"event": name, "player": int_field(data, "player", default)}
    if name == "raise":
        event["amount"] = int_field(data, "amount", None)
    elif name == "draw":
        event["source"] = common.draw_source(data)
    elif name == "discard":
        event["card"] = card_field(data, "card")
    elif name in ("out", "claim"):
        event["discard"] = card_field(data, "discard")
        event["cards"] = common.shown_cards(data, f"falta 'cards': las {HAND_SIZE} cartas que muestra")
    return [event]


VIEWS = common.card_views(bp, TABLES, state_of, tap_events, JS_LABELS, IMPORTED, "pifpaf")


# ------------------------------------------------------------------ going out, read by the card reader


def _read_out(desk: Desk[PifPafEvening], data: JsonDict) -> tuple[list[int], int, dict[str, object]]:
    """The nine cards laid face up by the player going out (`kind` out) or claiming the discard (`kind` claim)."""
    night = desk.state
    hand = night.hand
    kind, player = data.get("kind"), data.get("player")
    if kind not in ("out", "claim") or isinstance(player, bool) or not isinstance(player, int):
        raise LogError("se esperaba {kind: out o claim, player}")
    if hand is None or night.phase != "play" or player not in night.seats:
        raise RuleError(PLAY, "no hay juego en curso para salir")
    if kind == "out" and (player != night.seat(hand.turn) or hand.must_draw):
        raise RuleError(PLAY, f"sale {night.players[night.seat(hand.turn)]} en su turno, después de robar")
    if kind == "claim" and (hand.claimable_from is None or player == night.seat(hand.claimable_from)):
        raise RuleError(PLAY, "no hay descarte recién tirado que pueda reclamar")
    return [player], HAND_SIZE, {"kind": kind, "player": player, "discard": None, "needs_discard": True}


def _out_event(desk: Desk[PifPafEvening], reading: Reading) -> Events:
    """The `out` or `claim` event of the cards read."""
    cards = [c["card"] for c in reading["seats"][0]["cards"]]
    return [{"event": reading["kind"], "player": reading["player"], "discard": reading["discard"], "cards": cards}]


common.add_shown_routes(bp, VIEWS, "las cartas", _read_out, _out_event)
