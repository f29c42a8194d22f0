"""The Pif Paf blueprint (seed 001): an evening of hands by taps, dealt face down; going out checked by the engine.

The kiosk sees what the table sees: the discards, the cards taken from the discard pile, and the whole hand of the
player who goes out (or claims the discard), entered in the card picker; the engine says whether the nine cards
all form melds, and why not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for

from engines.cards.deck import DOUBLE_DECK, SUITS, Card, parse_card
from engines.cards.legal import legality
from engines.cards.melds import Meld
from engines.cards.pifpaf.evening import PifPafEvening
from engines.cards.pifpaf.game import BET_CAPS, HAND_SIZE, PLAY, Action, Call, Fold, PifPafOptions, Raise
from engines.cards.table import Draw
from engines.errors import LogError, RuleError
from kiosk.auth import coordinator_required
from kiosk.cards import common
from kiosk.cards.common import card_data
from kiosk.cards.desk import UNDO_TAP, CardTables, Desk
from kiosk.game_views import GameViews
from kiosk.web import store

GAME = "pifpaf"
NOT_AN_EVENING = (
    'el quiosco juega noches de Pif Paf: el registro empieza con "evening": true '
    "(una mano sola se repite con cacho cards replay)"
)
TABLES = CardTables(GAME, lambda state: None if isinstance(state, PifPafEvening) else NOT_AN_EVENING)
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
)


def labels() -> dict[str, str]:
    """The page's labels in its language."""
    return common.labels(JS_LABELS)


def load(store_: Any, table_id: int) -> Desk:
    """A Pif Paf hand from its stored log."""
    return TABLES.load(store_, table_id)


# ------------------------------------------------------------------ setup


def _new_page(error: str | None, form: Any = None, status: int = 200) -> Any:
    options = PifPafOptions()
    defaults = {"bet_cap": options.bet_cap, "claim_priority": options.claim_priority}
    page = render_template("pifpaf/new.html", defaults=defaults, choices=OPTION_CHOICES, error=error, form=form)
    return page, status


def _number(form: Mapping[str, str], key: str, what: str) -> int:
    raw = form.get(key, "").strip()
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_CHIPS:
        raise RuleError("Pif Paf (Cacheta)", f"{what} es un número de 1 a {MAX_CHIPS}")
    return int(raw)


@bp.route("/new", methods=["GET", "POST"])
@coordinator_required
def new() -> Any:
    """Start an evening: 3 to 8 players clockwise, the chips each starts with, the ante, and the house options."""
    if request.method == "GET":
        return _new_page(None)
    form = request.form
    players = [line.strip() for line in form.get("players", "").splitlines() if line.strip()]
    name = form.get("name", "").strip() or f"Pif Paf {len(store().tables()) + 1}"
    options: dict[str, object] = {}
    if "options_form" in form or "opt_claim_priority" in form:
        options["claim_priority"] = form.get("opt_claim_priority") in ("on", "true", "1")
    if form.get("opt_bet_cap"):
        options["bet_cap"] = form["opt_bet_cap"]
    try:
        chips = _number(form, "chips", "las fichas de cada jugador")
        ante = _number(form, "ante", "la apuesta inicial (ante)")
        start = {"players": players, "chips": [chips] * len(players), "ante": ante, "options": options, "evening": True}
        table_id = TABLES.create(store(), name, start)
    except RuleError as error:
        return _new_page(f"{error.article}: {error.message}", form, 400)
    except LogError as error:
        return _new_page(error.message, form, 400)
    return redirect(url_for("pifpaf.table", table_id=table_id))


# ------------------------------------------------------------------ pages


@bp.route("/<int:table_id>")
@coordinator_required
def table(table_id: int) -> Any:
    """The coordinator's screen."""
    VIEWS.load_or_404(table_id)
    return VIEWS.page("table", table_id, labels=labels())


@bp.route("/<int:table_id>/tv")
def tv(table_id: int) -> Any:
    """The spectators' screen (read-only)."""
    VIEWS.load_or_404(table_id)
    return VIEWS.page("tv", table_id, labels=labels())


def melds_of(melds: tuple[Meld, ...]) -> list[dict[str, Any]]:
    """The melds a player went out with, as the pages draw them."""
    return [{"kind": MELD_NAMES.get(m.kind, m.kind), "cards": [card_data(c) for c in m.cards]} for m in melds]


def state_of(desk: Desk, view: str) -> dict[str, Any]:
    """The page's JSON for one evening; the coordinator's adds what may be done now (and why not)."""
    night: PifPafEvening = desk.state
    hand = night.hand
    live = hand if hand is not None and hand.phase != "over" else None
    table = None if live is None else live.table

    def local(seat: int) -> int | None:
        return night.seats.index(seat) if live is not None and seat in night.seats else None

    players = []
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
    out: dict[str, Any] = {
        "id": desk.table_id,
        "name": store().table(desk.table_id).name,
        "seq": desk.seq,
        "view": view,
        "game": GAME,
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
    if view != "tv":
        out["legal"] = legal_of(night)
        out["can_undo"] = len(desk.standing) > 1
        out["deck"] = [card_data(Card(rank, suit)) for suit in SUITS for rank in RANKS]
        out["copies"] = DOUBLE_DECK.copies
    return out


def last_hand(night: PifPafEvening) -> dict[str, Any] | None:
    """The last hand's winner, the pot he took, and the melds he went out with."""
    if not night.results:
        return None
    last = night.results[-1]
    hand = night.hand
    melds = melds_of(hand.melds) if hand is not None and hand.phase == "over" else []
    return {"winner": last.winner, "pot": last.pot, "melds": melds}


def legal_of(night: PifPafEvening) -> dict[str, Any]:
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
    may = {
        x.action: {"allowed": x.allowed, "article": x.article, "reason": x.reason}
        for x in legality(night.check, candidates)
    }
    raises: list[int] = []
    if hand.phase == "bet":
        owed = hand.level - hand.put_in[k]
        for n in range(1, hand.cap + 1):
            limit = n if hand.options.bet_cap == "raise" else hand.level + n
            if limit <= hand.cap and owed + n <= hand.chips[k]:
                raises.append(n)
    return {"seat": seat, "may": may, "raises": raises}


def describe(event: Mapping[str, Any], players: tuple[str, ...]) -> str:
    """One Spanish line for the history list."""
    kind = event.get("event")
    seat = event.get("player")
    who = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?"
    if kind == "start":
        return f"Empieza la noche de Pif Paf: {', '.join(players)}"
    if kind == "hand":
        dealer = event.get("dealer")
        name = players[dealer] if isinstance(dealer, int) and 0 <= dealer < len(players) else "?"
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


VIEWS = GameViews(GAME, load, TABLES.act, state_of, common.current_reading)
VIEWS.add_routes(
    bp,
    undo=UNDO_TAP,
    import_log=TABLES.import_log,
    imported_name="Pif Paf importado",
    export_name=lambda table_id: f"pifpaf-{table_id}.jsonl",
)


# ------------------------------------------------------------------ playing


def _int(data: Mapping[str, Any], key: str, default: int | None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise LogError(f"falta '{key}' (un número)")
    return value


def _card(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise LogError(f"falta '{key}': una carta, p. ej. QH")
    return str(parse_card(value))


def tap_events(night: PifPafEvening, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The log event one tap writes; LogError when the request is malformed (the engine rules it)."""
    name = data.get("action")
    if name not in ACTIONS:
        raise LogError(f"acción desconocida {name!r}; las acciones son: {', '.join(ACTIONS)}")
    if name == "hand":
        return [{"event": "hand", "dealer": _int(data, "dealer", night.next_dealer())}, {"event": "deal"}]
    if name == "deal":
        return [{"event": "deal"}]
    hand = night.hand
    default = None
    if hand is not None and night.phase in ("bet", "play"):
        default = night.seat(hand.to_act[0] if hand.phase == "bet" and hand.to_act else hand.turn)
    event: dict[str, Any] = {"event": name, "player": _int(data, "player", default)}
    if name == "raise":
        event["amount"] = _int(data, "amount", None)
    elif name == "draw":
        source = data.get("source")
        if source not in ("stock", "discard"):
            raise LogError("'source' es stock (el mazo) o discard (el descarte)")
        event["source"] = source
    elif name == "discard":
        event["card"] = _card(data, "card")
    elif name in ("out", "claim"):
        event["discard"] = _card(data, "discard")
        shown = data.get("cards")
        if not isinstance(shown, list) or not all(isinstance(x, str) for x in shown):
            raise LogError(f"falta 'cards': las {HAND_SIZE} cartas que muestra")
        event["cards"] = [str(parse_card(x)) for x in shown]
    return [event]


@bp.route("/<int:table_id>/action", methods=["POST"])
@coordinator_required
def action(table_id: int) -> Any:
    """One tap: deal, fold, call, raise, draw, discard, go out or claim; refused (with the seed's section) when
    illegal, and then nothing is stored."""
    return common.tap(TABLES, VIEWS, table_id, tap_events)


# ------------------------------------------------------------------ going out, read by the card reader


def _read_out(desk: Desk, data: Mapping[str, Any]) -> tuple[list[int], int, dict[str, Any]]:
    """The nine cards laid face up by the player going out (`kind` out) or claiming the discard (`kind` claim)."""
    night: PifPafEvening = desk.state
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


def _out_event(desk: Desk, reading: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The `out` or `claim` event of the cards read."""
    cards = [c["card"] for c in reading["seats"][0]["cards"]]
    return [{"event": reading["kind"], "player": reading["player"], "discard": reading["discard"], "cards": cards}]


common.add_shown_routes(bp, VIEWS, "las cartas", _read_out, _out_event)
