"""The Truco blueprint (seed 001): set up a game of two pairs, deal, raise, answer and play each card by taps.

The hands are dealt face down and the kiosk never sees them: each card is entered when it is played (the card
picker, or a card reader behind `kiosk.cards.reader`), and the engine checks it against the cards already seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from engines.cards import Card, Legality, legality, parse_card
from engines.cards.truco import (
    FOUL_KINDS,
    GAME_POINTS,
    LADDER,
    PLAY,
    STAKES,
    TRIPLE_TIES,
    Action,
    HandKind,
    Phase,
    PlayCard,
    Truco,
    TrucoGame,
    TrucoOptions,
    parse_action,
    team_of,
)
from engines.errors import LogError, RuleError
from kiosk import web
from kiosk.auth import coordinator_required
from kiosk.cards import common
from kiosk.cards import reader as readers
from kiosk.cards.common import Allowed, Events, PageHead, card_data, card_reader, current_reading, int_field
from kiosk.cards.desk import CardTables, Desk
from kiosk.game_views import Reading
from kiosk.records import JsonDict
from kiosk.sections import section
from kiosk.tables import table_lock
from kiosk.web import camera, json_body, json_seq, refuse

GAME = "truco"
TABLES: CardTables[TrucoGame] = CardTables(GAME)
IMPORTED = "Truco importado"  # an imported table's name when none is given
bp = Blueprint(GAME, __name__, url_prefix="/truco")

OPTION_CHOICES: dict[str, list[str]] = {"triple_tie": list(TRIPLE_TIES)}
RANKS = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13)  # the picker's order: A to 7, then J, Q, K
RAISES = {3: "¡Truco!", 6: "¡Seis!", 9: "¡Nueve!", 12: "¡Doce!"}
FOUL_NAMES = {
    "shuffle": "barajar mal",
    "cut": "cortar mal",
    "deal": "repartir mal",
    "reject": "rechazar de más",
    "disclose": "mostrar o decir sus cartas",
    "overraise": "subir de más",
}
ACTIONS = ("hand", "offer", "keep", "pass", "reject", "deal", "eleven", "truco", "accept", "run", "play", "foul")

# The labels truco.js draws, translated on the server (Spanish is the key, as everywhere).
JS_LABELS = (
    "Pareja",
    "tentos",
    "Mano",
    "Reparte",
    "mão",
    "Vale",
    "Mano de once",
    "Mano de hierro",
    "Le toca a",
    "Repartir",
    "Nueva mano: reparte",
    "¿Quién reparte la primera mano?",
    "Repartir al mão",
    "Se queda",
    "Pasa a su compañero",
    "Rechaza",
    "Repartir a los demás",
    "Juegan por tres",
    "Corren (un tento a los otros)",
    "Quiero",
    "No quiero",
    "Jugar",
    "Tapada",
    "tapada",
    "Baza",
    "empate",
    "Gana la mano",
    "Nadie suma",
    "Ganador",
    "Falta",
    "Anotar falta",
    "Elija una carta",
    "responde",
    "propone",
    "cartas sin ver",
    "corrió",
    "por las bazas",
    "carta",
    "cartas",
    "Fin del juego",
    "Deshacer",
    "Historial",
    "Deciden",
    "Truco",
    "Puede subir",
    "Corte",
    "Corte: sin anotar",
    "de arriba",
    "de abajo",
    "Leer la baza",
    "Lectura",
    "Confirmar la baza",
    "Descartar lectura",
    "Foto de la lectura",
    "Poner",
)


# ------------------------------------------------------------------ setup


def start_of(form: Mapping[str, str]) -> dict[str, object]:
    """The `start` event of the setup form: four players in playing order (partners across) and the house options."""
    players = [form.get(f"p{k}", "").strip() for k in range(4)]
    options: dict[str, object] = {"truco_in_turn": common.checked(form, "opt_truco_in_turn")}
    if form.get("opt_triple_tie"):
        options["triple_tie"] = form["opt_triple_tie"]
    if not all(players):
        raise RuleError("Truco", "faltan jugadores: se juega de a cuatro, en dos parejas")
    return {"players": players, "options": options}


DEFAULTS = {"triple_tie": TrucoOptions().triple_tie, "truco_in_turn": TrucoOptions().truco_in_turn}
common.add_new_route(bp, TABLES, "Truco", DEFAULTS, OPTION_CHOICES, start_of, IMPORTED)


# ------------------------------------------------------------------ pages


def raise_name(stake: int) -> str:
    """The call that proposes this stake («¡Truco!» for three, then six, nine and twelve)."""
    return RAISES.get(stake, str(stake))


def next_raise(game: TrucoGame) -> int | None:
    """The stake a raise would propose now, or None at the top of the ladder."""
    at = game.pending if game.pending is not None else game.stake
    index = LADDER.index(at) if at in LADDER else len(LADDER) - 1
    return LADDER[index + 1] if index + 1 < len(LADDER) else None


class TrucoPlayer(TypedDict):
    """A seat as the pages show it."""

    seat: int
    name: str
    team: int
    cards_left: int | None  # in play: the cards the seat still holds
    hidden: int  # cards held that the table has not seen


class TrucoTeam(TypedDict):
    """A pair of partners and its score."""

    team: int
    names: list[str]
    score: int


class TrickRow(TypedDict):
    """A trick taken: by which team and seat, and its cards (each a card_data with its "seat")."""

    team: int | None
    winner: int | None
    plays: list[dict[str, object]]


class HandEnd(TypedDict):
    """How the last hand ended."""

    team: int | None
    tentos: int
    reason: str


class FoulRow(TypedDict):
    """A foul the coordinator may call, by its log kind."""

    kind: str
    label: str


class SeatMay(TypedDict):
    """What a seat may answer or raise now."""

    seat: int
    may: dict[str, Allowed]


class TrucoLegal(TypedDict):
    """What may be done now (`legal_of`): each seat's raises and answers, each card's play."""

    seats: list[SeatMay]
    cards: list[dict[str, object]]  # card_data with "allowed", "reason", "down_allowed", "down_reason"


class TrucoState(PageHead):
    """A Truco table's page JSON (`state_of`): the spectators' and, with the controls, the coordinator's."""

    summary: Mapping[str, object]  # the engine's summary (the TV's without the hands)
    points: int  # the game's points
    players: list[TrucoPlayer]
    teams: list[TrucoTeam]
    phase: str
    kind: str
    hand: int
    dealer: int | None
    mao: int | None
    next_dealer: int | None
    turn: int | None
    stake: int
    pending: int | None
    pending_name: str | None
    raiser_team: int | None
    next_raise: int | None
    next_raise_name: str | None
    may_raise: list[int]
    tricks: list[TrickRow]
    current: list[dict[str, object]]  # the trick under way: card_data with its "seat"
    offer: int | None
    rejections: int
    deal_queue: list[int]
    last_hand: HandEnd | None
    winner: int | None
    history: list[str]
    camera: dict[str, object]  # kiosk.camera.Health.to_dict
    card_reader: bool
    reading: Reading | None


class TrucoControls(TrucoState):
    """The coordinator's page JSON: what may be done now, whether the last tap may be undone, the fouls."""

    legal: TrucoLegal
    can_undo: bool
    fouls: list[FoulRow]


def state_of(desk: Desk[TrucoGame], view: str) -> TrucoState:
    """The page's JSON for one game; the coordinator's adds what each seat may do (and why not)."""
    game = desk.state
    players: list[TrucoPlayer] = [
        {
            "seat": seat,
            "name": name,
            "team": team_of(seat),
            "cards_left": game.cards_left(seat) if game.phase in (Phase.PLAY, Phase.ELEVEN) else None,
            "hidden": game.hidden[seat],
        }
        for seat, name in enumerate(game.players)
    ]
    teams: list[TrucoTeam] = [
        {"team": team, "names": [game.players[s] for s in (team, team + 2)], "score": game.scores[team]}
        for team in (0, 1)
    ]
    tricks: list[TrickRow] = [
        {
            "team": trick.team,
            "winner": trick.winner,
            "plays": [card_data(p.card, p.down) | {"seat": p.seat} for p in trick.plays],
        }
        for trick in game.tricks
    ]
    following = next_raise(game)
    out: TrucoState = {
        **common.page_head(desk, view, GAME),
        "summary": common.summary_for(game.summary(), view),
        "points": GAME_POINTS,
        "players": players,
        "teams": teams,
        "phase": game.phase,
        "kind": game.kind,
        "hand": game.hand_no,
        "dealer": game.dealer,
        "mao": game.mao if game.dealer is not None else None,
        "next_dealer": None if game.dealer is None else (game.dealer + 1) % 4,
        "turn": game.turn if game.phase == Phase.PLAY else None,
        "stake": game.stake,
        "pending": game.pending,
        "pending_name": None if game.pending is None else raise_name(game.pending),
        "raiser_team": game.raiser_team,
        "next_raise": following,
        "next_raise_name": None if following is None else raise_name(following),
        "may_raise": may_raise(game),
        "tricks": tricks,
        "current": [card_data(p.card, p.down) | {"seat": p.seat} for p in game.current],
        "offer": None if game.offer is None else len(game.offer),
        "rejections": game.rejections,
        "deal_queue": list(game.deal_queue),
        "last_hand": None,
        "winner": game.winner,
        "history": [describe(e, game.players, st) for e, st in zip(desk.standing, desk.played.states, strict=True)][
            -14:
        ],
        "camera": camera().health().to_dict(),
        "card_reader": card_reader() is not None,
        "reading": current_reading(desk),
    }
    if game.last_result is not None:
        r = game.last_result
        out["last_hand"] = {"team": r.team, "tentos": r.tentos, "reason": r.reason}
    if view == "tv":
        return out
    controls: TrucoControls = {
        **out,
        "legal": legal_of(game),
        "can_undo": len(desk.standing) > 1,
        "fouls": [{"kind": k, "label": FOUL_NAMES[k]} for k in FOUL_KINDS],
    }
    return controls


def may_raise(game: TrucoGame) -> list[int]:
    """The seats that may raise now (the engine's own check), for every screen, the TV's included."""
    if game.phase != Phase.PLAY:
        return []
    return [seat for seat in range(4) if legality(game.check, [("truco", Truco(seat))])[0].allowed]


def legal_of(game: TrucoGame) -> TrucoLegal:
    """What may be done now, each with the engine's section and reason when not: raises, answers and cards."""
    seats: list[SeatMay] = []
    if game.phase == Phase.PLAY:
        for seat in range(4):
            seats.append(
                {
                    "seat": seat,
                    "may": common.legal_map(
                        x for x in game.legal_actions(seat) if x.action in ("truco", "accept", "run")
                    ),
                }
            )
    cards: list[dict[str, object]] = []
    if game.phase == Phase.PLAY:
        player = game.turn
        for rank in RANKS:
            for suit in ("S", "H", "D", "C"):
                card = Card(rank, suit)
                up, down = legality(
                    game.check, [("up", PlayCard(player, card)), ("down", PlayCard(player, card, True))]
                )
                cards.append(
                    card_data(card)
                    | {
                        "allowed": up.allowed,
                        "reason": _why(up),
                        "down_allowed": down.allowed,
                        "down_reason": _why(down),
                    }
                )
    return {"seats": seats, "cards": cards}


def _why(x: Legality) -> str | None:
    return None if x.allowed else f"{section(x.article)}: {x.reason}"


def describe(event: JsonDict, players: tuple[str, ...], after: TrucoGame | None = None) -> str:
    """One Spanish line for the history list (`after`: the game after the event, to name a raise)."""
    kind = event.get("event")

    def who(key: str = "player") -> str:
        seat = event.get(key)
        return common.seat_name(players, seat)

    if kind == "start":
        return f"Empieza el Truco: {players[0]} y {players[2]} contra {players[1]} y {players[3]}"
    if kind == "hand":
        return f"Nueva mano: reparte {who('dealer')}"
    if kind == "offer":
        return "Tres cartas al mão"
    if kind == "cut":
        side = "de arriba" if event.get("from") == "top" else "de abajo"
        cuts = event.get("cuts")
        times = {1: "una vez", 2: "dos veces", 3: "tres veces"}.get(cuts if isinstance(cuts, int) else 0, str(cuts))
        return f"{who()} corta {times}; se reparte {side}"
    if kind == "keep":
        return f"{who()} se queda con sus cartas"
    if kind == "pass":
        return f"{who()} pasa sus cartas a su compañero"
    if kind == "reject":
        return f"{who()} rechaza sus cartas"
    if kind == "deal":
        return f"Tres cartas a {who('seat')}"
    if kind == "eleven":
        return f"Mano de once: la pareja {int(event.get('team', 0)) + 1} " + (
            "juega por tres" if event.get("play") else "corre"
        )
    if kind == "truco":
        pending = None if after is None else after.pending
        return f"{who()}: {raise_name(pending)}" if pending is not None else f"{who()} sube la apuesta"
    if kind == "accept":
        return f"{who()}: quiero"
    if kind == "run":
        return f"{who()}: no quiero (corre)"
    if kind == "play":
        card = str(event.get("card", "?"))
        return f"{who()} juega {card}" + (" tapada" if event.get("down") else "")
    if kind == "foul":
        return f"Falta de la pareja {int(event.get('team', 0)) + 1}: {FOUL_NAMES.get(str(event.get('kind')), '')}"
    return str(kind)


# ------------------------------------------------------------------ playing


def tap_events(game: TrucoGame, data: JsonDict) -> Events:
    """The log events one tap writes (the deal's steps the kiosk does not see are written face down); LogError
    when the request is malformed. The engine checks them all before any is stored."""
    events = _events(game, data)
    for event in events:
        parse_action(event)  # malformed (a foul's kind, a team that is not a number): 400 before the engine rules
    return events


def _events(game: TrucoGame, data: JsonDict) -> Events:
    name = common.action_name(data, ACTIONS)
    if name == "hand":
        dealer = data.get("dealer", None if game.dealer is None else (game.dealer + 1) % 4)
        if isinstance(dealer, bool) or not isinstance(dealer, int):
            raise LogError("falta 'dealer': el asiento que reparte (0 a 3)")
        events: Events = [{"event": "hand", "dealer": dealer}]
        cut = data.get("cut")
        if cut is not None:
            # The player to the dealer's left cuts before the deal (seed 001, Dealing procedure).
            if not isinstance(cut, dict) or cut.get("from") not in ("top", "bottom"):
                raise LogError("'cut' es {cuts: 1 a 3, from: top o bottom}")
            cuts = int_field(cut, "cuts", None)
            events.append({"event": "cut", "player": (dealer + 3) % 4, "cuts": cuts, "from": cut["from"]})
        after = game
        for event in events:
            after = after.apply(_parsed(event))
        return events + _deal_rest(after)
    if name == "offer":
        return [{"event": "offer"}]
    if name in ("keep", "pass", "reject"):
        event = {"event": name, "player": int_field(data, "player", game.mao)}
        after = game.apply(_parsed(event))
        return [event, *_deal_rest(after)]
    if name == "deal":
        return _deal_rest(game) or [{"event": "deal", "seat": int_field(data, "seat", None)}]
    if name == "eleven":
        play = data.get("play")
        if not isinstance(play, bool):
            raise LogError("falta 'play': true (juegan por tres) o false (corren)")
        return [{"event": "eleven", "team": int_field(data, "team", None), "play": play}]
    if name in ("truco", "accept", "run"):
        return [{"event": name, "player": int_field(data, "player", game.turn)}]
    if name == "foul":
        return [{"event": "foul", "team": int_field(data, "team", None), "kind": str(data.get("kind", ""))}]
    card = data.get("card")
    if not isinstance(card, str):
        raise LogError("falta 'card': la carta jugada, p. ej. 4C")
    down = data.get("down", False)
    if not isinstance(down, bool):
        raise LogError("'down' es true (tapada) o false")
    parsed = parse_card(card)
    event = {"event": "play", "player": int_field(data, "player", game.turn), "card": str(parsed)}
    if down:
        event["down"] = True
    return [event]


def _deal_rest(game: TrucoGame) -> Events:
    """What the dealer does next without a decision: three cards to the mão, or to each seat still waiting."""
    if game.phase != Phase.DEAL:
        return []
    if game.deal_queue:
        return [{"event": "deal", "seat": seat} for seat in game.deal_queue]
    if game.offer is None and game.hands[game.mao] is None and game.kind == HandKind.NORMAL:
        return [{"event": "offer"}]
    return []


def _parsed(event: Mapping[str, object]) -> Action:
    return parse_action(event)


VIEWS = common.card_views(bp, TABLES, state_of, tap_events, JS_LABELS, IMPORTED, "truco")


@bp.route("/<int:table_id>/legal.json")
@coordinator_required
def legal(table_id: int) -> ResponseReturnValue:
    """What may be done now (the same as the state's `legal`)."""
    return jsonify(legal_of(VIEWS.load_or_404(table_id).state))


# ------------------------------------------------------------------ the card reader


def seats_to_read(game: TrucoGame) -> list[int]:
    """The seats still to play in the trick under way, in turn order."""
    return [(game.turn + k) % 4 for k in range(4 - len(game.current))]


@bp.route("/<int:table_id>/read", methods=["POST"])
@coordinator_required
def read(table_id: int) -> ResponseReturnValue:
    """Read the cards played in front of the seats still to play in this trick; kept until confirmed."""
    desk = VIEWS.load_or_404(table_id)
    game = desk.state
    reader = card_reader()
    if reader is None:
        return refuse(common.NO_READER, 409)
    if game.phase != Phase.PLAY:
        return web.rule_refusal(RuleError(PLAY, "no hay baza en juego que leer"))
    if game.pending is not None:
        return web.rule_refusal(RuleError(STAKES, "hay que responder el truco antes de jugar"))
    seats = seats_to_read(game)
    played: dict[int, set[str]] = {}
    for play in (play for trick in game.tricks for play in trick.plays):
        played.setdefault(play.seat, set()).add(str(play.card))
    common.lay_for_demo("truco", desk, seats, 1, {str(p.card) for p in game.current} | set().union(*played.values()))
    seen, photo, frame = common.read_seen(desk, reader, seats)
    data = readers.reading(seen, seats, played) | {"photo": photo} | common.models_of(reader)
    common.keep_frame(desk, data, seen, frame)
    with table_lock(table_id):
        web.replace_pending(table_id, desk.seq, data)
    return VIEWS.redrawn(table_id)


@bp.route("/<int:table_id>/card", methods=["POST"])
@coordinator_required
def card(table_id: int) -> ResponseReturnValue:
    """Correct (or confirm) the card read in front of one seat: `{seat, card, down}`; kept and audited."""
    desk = VIEWS.load_or_404(table_id)
    data = json_body()
    corrected = VIEWS.corrected(
        desk,
        lambda reading: readers.correct(reading, data.get("seat"), data.get("card"), data.get("down", False)),
        "no hay lectura que corregir: lea la baza o toque las cartas",
    )
    return corrected


@bp.route("/<int:table_id>/confirm", methods=["POST"])
@coordinator_required
def confirm(table_id: int) -> ResponseReturnValue:
    """Play the cards read, in turn order, once none is missing or doubtful; the engine rules each one."""
    desk = VIEWS.load_or_404(table_id)
    seq = json_seq(json_body())
    reading = current_reading(desk)
    if reading is None:
        return refuse("no hay lectura que confirmar: lea la baza o toque las cartas", 409)
    blocked = readers.blockers(reading, desk.state.players)
    if blocked:
        return refuse("; ".join(blocked), 409)
    events: Events = []
    for entry in reading["seats"]:
        event: dict[str, object] = {"event": "play", "player": entry["seat"], "card": entry["card"]}
        if entry["down"]:
            event["down"] = True
        events.append(event)
    return common.confirming(reading, lambda: VIEWS.apply(table_id, events, seq, common.reading_meta(reading)))


@bp.route("/<int:table_id>/cancel", methods=["POST"])
@coordinator_required
def cancel(table_id: int) -> ResponseReturnValue:
    """Drop the reading awaiting confirmation (nothing is logged)."""
    return common.cancel_reading(VIEWS, table_id)
