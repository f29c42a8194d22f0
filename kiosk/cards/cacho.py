"""The Spanish Cacho blueprint (seed 000): an evening at one table, the three betting rounds by tap, the showdown.

The cards are dealt face down and the kiosk never sees them until the hands are shown: then each remaining
player's three cards are entered in the card picker and the engine rules the showdown (category and points).
The chips are carried from hand to hand (`engines.cards.cacho.evening`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypedDict

from flask import Blueprint

from engines.cards import CACHO_DECK, legality, parse_card
from engines.cards.cacho import (
    CATEGORY_IDS,
    CATEGORY_NAMES,
    HIGH_CARD_TIEBREAKS,
    ROUND_BETS,
    Action,
    Bet,
    CachoEvening,
    CachoOptions,
    Call,
    Pass,
    Raise,
    apply_event,
)
from engines.errors import LogError, RuleError
from kiosk.cards import common
from kiosk.cards.common import Allowed, CardFace, Events, PageHead, card_data, card_reader, current_reading
from kiosk.cards.desk import CardTables, Desk
from kiosk.game_views import Reading
from kiosk.records import JsonDict

GAME = "cacho"
NOT_AN_EVENING = (
    'el quiosco juega noches de Cacho: el registro empieza con "evening": true '
    "(una mano sola se repite con cacho cards replay)"
)
TABLES: CardTables[CachoEvening] = CardTables(
    GAME, lambda state: None if isinstance(state, CachoEvening) else NOT_AN_EVENING
)
IMPORTED = "Cacho importado"  # an imported table's name when none is given
bp = Blueprint(GAME, __name__, url_prefix="/cacho")

OPTION_CHOICES: dict[str, list[str]] = {"high_card_tiebreak": list(HIGH_CARD_TIEBREAKS)}
CATEGORY_LABELS = {CATEGORY_IDS[c]: name for c, name in CATEGORY_NAMES.items()}
DECIDED_BY = {
    "category": "por categoría",
    "points": "por puntos",
    "high_card": "por la carta más alta",
    "kickers": "por las cartas siguientes",
    "eldest": "por empate: gana el más cercano a la izquierda de quien reparte",
}
ACTIONS = ("hand", "deal", "pass", "bet", "call", "raise", "show")
MAX_CHIPS = 10_000
SHOWN_CARDS = 3  # a hand of Cacho

JS_LABELS = (
    "Mano",
    "es mano",
    "Ronda",
    "Pozo",
    "Apuesta",
    "Resto",
    "fichas",
    "Le toca a",
    "Pasa",
    "Pasa (se retira)",
    "Iguala",
    "Sube",
    "¿Quién es mano en la primera mano?",
    "Nueva mano: es mano",
    "Repartir",
    "Muestran las manos",
    "Toque un jugador y luego sus tres cartas",
    "Mostrar las manos",
    "Gana",
    "se lleva",
    "sin mostrar",
    "puntos",
    "manos ganadas",
    "retirado",
    "carta",
    "cartas",
    "Deshacer",
    "Historial",
    "ficha",
    "Leer las manos",
    "Lectura",
    "Confirmar las manos",
    "Descartar lectura",
    "Foto de la lectura",
)


# ------------------------------------------------------------------ setup


def start_of(form: Mapping[str, str]) -> dict[str, object]:
    """The `start` event of the setup form: 2 to 4 players clockwise, the chips each starts with, house options."""
    players = common.players_of(form)
    raw_chips = form.get("chips", "").strip()
    if not raw_chips.isdigit() or not 1 <= int(raw_chips) <= MAX_CHIPS:
        raise RuleError("Background", f"las fichas de cada jugador son un número de 1 a {MAX_CHIPS}")
    shown = "options_form" in form
    options: dict[str, object] = {}
    for flag in ("call_without_bet", "deal_rotates"):
        if shown or f"opt_{flag}" in form:
            options[flag] = common.checked(form, f"opt_{flag}")
    if form.get("opt_high_card_tiebreak"):
        options["high_card_tiebreak"] = form["opt_high_card_tiebreak"]
    return {"players": players, "chips": [int(raw_chips)] * len(players), "evening": True, "options": options}


DEFAULTS = {
    "high_card_tiebreak": CachoOptions().high_card_tiebreak,
    "call_without_bet": CachoOptions().call_without_bet,
    "deal_rotates": True,
}
common.add_new_route(bp, TABLES, "Cacho", DEFAULTS, OPTION_CHOICES, start_of, IMPORTED)


# ------------------------------------------------------------------ pages


class CachoPlayer(TypedDict):
    """A seat as the pages show it."""

    seat: int
    name: str
    chips: int
    in_hand: bool  # still in the hand under way
    cards: int  # the cards he holds
    put_in: int  # the chips he put in the third round
    hands_won: int


class Showdown(TypedDict):
    """The last hand's showdown: what decided it, and each hand shown with its Spanish label and its cards."""

    decided_by: str
    hands: list[dict[str, object]]  # the engine's hand with "label" and "shown" (card_data)


class CachoHandEnd(TypedDict):
    """How the last hand ended (`last_hand`)."""

    winner: int
    pot: int
    showdown: Showdown | None


class CachoLegal(TypedDict):
    """What the player to act may do (`legal_of`): None, nothing, outside a betting round."""

    player: int | None
    may: dict[str, Allowed]
    raises: list[int]  # the raises allowed in the third round
    owed: NotRequired[int | None]  # what he owes in the third round


class CachoState(PageHead):
    """A Spanish Cacho evening's page JSON (`state_of`): the spectators' and, with the controls, the coordinator's."""

    summary: dict[str, object]  # the engine's (CachoEvening.summary)
    players: list[CachoPlayer]
    phase: str
    hand: int
    eldest: int | None
    next_eldest: int | None
    round: int | None
    pot: int
    to_act: int | None
    bet: int | None
    resto: int | None
    round_bet: int | None  # the chips a bet puts in this round (first and second)
    last_hand: CachoHandEnd | None
    card_reader: bool
    reading: Reading | None
    history: list[str]


class CachoControls(CachoState):
    """The coordinator's page JSON: what may be done now, whether the last tap may be undone, the card picker."""

    legal: CachoLegal
    can_undo: bool
    deck: list[CardFace]


def state_of(desk: Desk[CachoEvening], view: str) -> CachoState:
    """The page's JSON for one evening; the coordinator's adds what the player to act may do (and why not)."""
    night = desk.state
    summary = night.summary()
    hand = night.hand if night.phase != "hand" else None
    in_hand = set(summary.get("in_hand", []))
    players: list[CachoPlayer] = [
        {
            "seat": seat,
            "name": name,
            "chips": night.chips[seat],
            "in_hand": seat in in_hand,
            "cards": summary["cards"][seat] if "cards" in summary else 0,
            "put_in": summary["put_in"][seat] if "put_in" in summary else 0,
            "hands_won": summary["hands_won"][seat],
        }
        for seat, name in enumerate(night.players)
    ]
    out: CachoState = {
        **common.page_head(desk, view, GAME),
        "summary": summary,
        "players": players,
        "phase": night.phase,
        "hand": night.hand_no,
        "eldest": night.eldest,
        "next_eldest": night.next_eldest(),
        "round": None if hand is None else hand.round,
        "pot": summary["pot"],
        "to_act": summary.get("to_act"),
        "bet": summary.get("bet"),
        "resto": summary.get("resto"),
        "round_bet": None if hand is None else ROUND_BETS.get(hand.round),
        "last_hand": last_hand(night),
        "card_reader": card_reader() is not None,
        "reading": current_reading(desk),
        "history": [describe(e, night.players) for e in desk.standing][-14:],
    }
    if view == "tv":
        return out
    controls: CachoControls = {
        **out,
        "legal": legal_of(night),
        "can_undo": len(desk.standing) > 1,
        "deck": common.full_deck(sorted(CACHO_DECK.ranks)),
    }
    return controls


def last_hand(night: CachoEvening) -> CachoHandEnd | None:
    """The last hand's winner and pot, and its showdown with each hand's category and points (Spanish labels)."""
    if not night.results:
        return None
    last = night.results[-1]
    out: CachoHandEnd = {"winner": last.winner, "pot": last.pot, "showdown": None}
    if last.showdown is not None:
        out["showdown"] = {
            "decided_by": DECIDED_BY[last.showdown["decided_by"]],
            "hands": [
                h | {"label": CATEGORY_LABELS[h["category"]], "shown": [card_data(parse_card(c)) for c in h["cards"]]}
                for h in last.showdown["hands"]
            ],
        }
    return out


def legal_of(night: CachoEvening) -> CachoLegal:
    """What the player to act may do, each with the engine's section and reason when not; the raises allowed."""
    hand = night.hand
    if night.phase != "bet" or hand is None or hand.next_player is None:
        return {"player": None, "may": {}, "raises": []}
    seat = night.seat(hand.next_player)
    candidates: list[tuple[str, Action]] = [
        ("pass", Pass(seat)),
        ("bet", Bet(seat)),
        ("call", Call(seat)),
        ("raise", Raise(seat, 1)),
    ]
    checks = legality(night.check, candidates)
    raises = [n for n in range(1, max(0, hand.resto - hand.level) + 1)] if hand.round == 3 else []
    return {
        "player": seat,
        "may": common.legal_map(checks),
        "raises": raises,
        "owed": hand.level - hand.put_in[hand.next_player] if hand.round == 3 else None,
    }


def describe(event: JsonDict, players: tuple[str, ...]) -> str:
    """One Spanish line for the history list."""
    kind = event.get("event")
    seat = event.get("player", event.get("eldest"))
    who = common.seat_name(players, seat)
    if kind == "start":
        return f"Empieza la noche de Cacho: {', '.join(players)}"
    if kind == "hand":
        return f"Nueva mano: es mano {who}"
    if kind == "deal":
        return "Una carta a cada uno"
    if kind == "pass":
        return f"{who} pasa"
    if kind == "bet":
        return f"{who} apuesta"
    if kind == "call":
        return f"{who} iguala"
    if kind == "raise":
        return f"{who} sube {event.get('amount')}"
    if kind == "show":
        return "Se muestran las manos"
    return str(kind)


# ------------------------------------------------------------------ playing


def tap_events(night: CachoEvening, data: JsonDict) -> Events:
    """The log events one tap writes (the next card dealt face down when a betting round ends); LogError when the
    request is malformed. The engine checks them all before any is stored."""
    name = common.action_name(data, ACTIONS)
    events: Events
    if name == "hand":
        eldest = data.get("eldest", night.next_eldest())
        if isinstance(eldest, bool) or not isinstance(eldest, int):
            raise LogError("falta 'eldest': el asiento que es mano (a la izquierda de quien reparte)")
        events = [{"event": "hand", "eldest": eldest}]
    elif name == "deal":
        events = [{"event": "deal"}]
    elif name == "show":
        hands = data.get("hands")
        if not isinstance(hands, dict):
            raise LogError("se esperaba 'hands': {asiento: [tres cartas]} de los que siguen")
        by_seat = [hands.get(str(s)) for s in range(len(night.players))]
        if any(h is not None and not isinstance(h, list) for h in by_seat):
            raise LogError("cada mano es una lista de cartas")
        events = [{"event": "show", "hands": by_seat}]
    else:
        hand = night.hand
        default = None if hand is None or hand.next_player is None else night.seat(hand.next_player)
        player = data.get("player", default)
        if isinstance(player, bool) or not isinstance(player, int):
            raise LogError("falta 'player' (un número de asiento)")
        events = [{"event": name, "player": player}]
        if name == "raise":
            amount = data.get("amount")
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise LogError("falta 'amount': cuántas fichas sube")
            events[0]["amount"] = amount
    after = night
    for event in events:
        after = apply_event(after, event)  # the section's RuleError; nothing is stored
    if name != "deal" and after.phase == "deal":
        events.append({"event": "deal"})  # the next round's card (or the cards again), face down
    return events


VIEWS = common.card_views(bp, TABLES, state_of, tap_events, JS_LABELS, IMPORTED, "cacho-espanol")


# ------------------------------------------------------------------ the hands shown, read by the card reader


def _read_hands(desk: Desk[CachoEvening], data: JsonDict) -> tuple[list[int], int, dict[str, object]]:
    """The seats whose hands are read at the showdown: every player still in, three cards each."""
    night = desk.state
    if night.phase != "show" or night.hand is None:
        raise RuleError("Winning", "las manos se muestran al terminar las apuestas")
    return [night.seat(i) for i in night.hand.in_hand], SHOWN_CARDS, {}


def _show_event(desk: Desk[CachoEvening], reading: Reading) -> Events:
    """The `show` event of the hands read, by table seat (null for a player no longer in)."""
    hands: list[list[str] | None] = [None] * len(desk.state.players)
    for entry in reading["seats"]:
        hands[entry["seat"]] = [c["card"] for c in entry["cards"]]
    return [{"event": "show", "hands": hands}]


common.add_shown_routes(bp, VIEWS, "las manos", _read_hands, _show_event)
