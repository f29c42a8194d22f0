"""The Spanish Cacho blueprint (seed 000): an evening at one table, the three betting rounds by tap, the showdown.

The cards are dealt face down and the kiosk never sees them until the hands are shown: then each remaining
player's three cards are entered in the card picker and the engine rules the showdown (category and points).
The chips are carried from hand to hand (`engines.cards.cacho.evening`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
from kiosk.cards.common import card_data, card_reader, current_reading
from kiosk.cards.desk import CardTables, Desk

GAME = "cacho"
NOT_AN_EVENING = (
    'el quiosco juega noches de Cacho: el registro empieza con "evening": true '
    "(una mano sola se repite con cacho cards replay)"
)
TABLES = CardTables(GAME, lambda state: None if isinstance(state, CachoEvening) else NOT_AN_EVENING)
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


def start_of(form: Mapping[str, str]) -> dict[str, Any]:
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


def state_of(desk: Desk, view: str) -> dict[str, Any]:
    """The page's JSON for one evening; the coordinator's adds what the player to act may do (and why not)."""
    night: CachoEvening = desk.state
    summary = night.summary()
    hand = night.hand if night.phase != "hand" else None
    in_hand = set(summary.get("in_hand", []))
    players = [
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
    out: dict[str, Any] = common.page_head(desk, view, GAME) | {
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
    if view != "tv":
        out["legal"] = legal_of(night)
        out["can_undo"] = len(desk.standing) > 1
        out["deck"] = common.full_deck(sorted(CACHO_DECK.ranks))
    return out


def last_hand(night: CachoEvening) -> dict[str, Any] | None:
    """The last hand's winner and pot, and its showdown with each hand's category and points (Spanish labels)."""
    if not night.results:
        return None
    last = night.results[-1]
    out: dict[str, Any] = {"winner": last.winner, "pot": last.pot, "showdown": None}
    if last.showdown is not None:
        out["showdown"] = {
            "decided_by": DECIDED_BY[last.showdown["decided_by"]],
            "hands": [
                h | {"label": CATEGORY_LABELS[h["category"]], "shown": [card_data(parse_card(c)) for c in h["cards"]]}
                for h in last.showdown["hands"]
            ],
        }
    return out


def legal_of(night: CachoEvening) -> dict[str, Any]:
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


def describe(event: Mapping[str, Any], players: tuple[str, ...]) -> str:
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


def tap_events(night: CachoEvening, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The log events one tap writes (the next card dealt face down when a betting round ends); LogError when the
    request is malformed. The engine checks them all before any is stored."""
    name = common.action_name(data, ACTIONS)
    events: list[dict[str, Any]]
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


def _read_hands(desk: Desk, data: Mapping[str, Any]) -> tuple[list[int], int, dict[str, Any]]:
    """The seats whose hands are read at the showdown: every player still in, three cards each."""
    night: CachoEvening = desk.state
    if night.phase != "show" or night.hand is None:
        raise RuleError("Winning", "las manos se muestran al terminar las apuestas")
    return [night.seat(i) for i in night.hand.in_hand], SHOWN_CARDS, {}


def _show_event(desk: Desk, reading: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The `show` event of the hands read, by table seat (null for a player no longer in)."""
    hands: list[list[str] | None] = [None] * len(desk.state.players)
    for entry in reading["seats"]:
        hands[entry["seat"]] = [c["card"] for c in entry["cards"]]
    return [{"event": "show", "hands": hands}]


common.add_shown_routes(bp, VIEWS, "las manos", _read_hands, _show_event)
