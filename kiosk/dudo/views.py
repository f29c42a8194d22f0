"""The Dudo blueprint: set up a table, play it by taps, read the dice when the cups are lifted, and watch it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from engines.dudo import (
    DudoConfig,
    DudoTable,
    LogError,
    Reveal,
    RuleError,
    Start,
    Subir,
    Undo,
    bid_odds,
    sorteo,
)
from engines.dudo.config import AbreTrasCalzo, AbreTrasEliminacion
from engines.jsonl import json_problem
from kiosk import photos, tables, web
from kiosk.auth import coordinator_required
from kiosk.camera import encode_jpeg
from kiosk.dice import CorrectionError, confirmed_meta
from kiosk.dudo import desk as desks
from kiosk.dudo import reading as readings
from kiosk.game_views import GameViews
from kiosk.house_options import DUDO as DUDO_OPTIONS
from kiosk.records import DudoReading, JsonDict
from kiosk.web import camera, json_body, json_seq, publish, refuse, store

if TYPE_CHECKING:
    from vision.seats import TableConfig
    from vision.still import StillCapture
    from vision.types import Frame

bp = Blueprint("dudo", __name__, url_prefix="/dudo")

OPTION_CHOICES: dict[str, list[str]] = {
    "subir": [m.value for m in Subir],
    "abre_tras_calzo": [m.value for m in AbreTrasCalzo],
    "abre_tras_eliminacion": [m.value for m in AbreTrasEliminacion],
}


class Timer(TypedDict):
    """A table's turn timer (the coordinator's, art. 11), as the store keeps it and the pages count it."""

    running: bool
    elapsed: float  # seconds counted before `since`
    since: float | None  # when it was last started (time.time), or None: stopped
    limit: int  # the turn's seconds
    sound: bool  # a sound at time up


# A table's turn timer until the coordinator first touches it.
STOPPED_TIMER: Timer = {"running": False, "elapsed": 0.0, "since": None, "limit": 60, "sound": True}


def timer_of(table_id: int) -> Timer:
    """A table's turn timer, kept in the store: stopped at 0 of 60 s, with its sound on, until it is started."""
    # The JSON edge: the timer as the store keeps it (json.loads), written by `timer` below as a Timer.
    return cast(Timer, STOPPED_TIMER | (store().timer(table_id) or {}))


# ------------------------------------------------------------------ setup


@bp.route("/new", methods=["GET", "POST"])
@coordinator_required
def new() -> ResponseReturnValue:
    """Seat a table: players clockwise, who opens (named, or by the one-die roll-off of art. 3), house options."""
    if request.method == "GET":
        return render_template(
            "dudo/new.html", defaults=DudoConfig().to_dict(), choices=OPTION_CHOICES, house=DUDO_OPTIONS, error=None
        )
    form = request.form
    players = tuple(line.strip() for line in form.get("players", "").splitlines() if line.strip())
    name = form.get("name", "").strip() or f"Mesa {len(store().tables()) + 1}"
    try:
        config = desks.config_from_form(form)
        rolls = None
        if form.get("sorteo", "").strip():
            rolls = json.loads(form["sorteo"])
            if not isinstance(rolls, list) or not all(isinstance(r, dict) for r in rolls):
                raise LogError("el sorteo debe ser una lista de tiradas {jugador: dado}")
            opener = sorteo(players, rolls)
        else:
            opener = form.get("opener", "").strip()
            if not opener:
                raise RuleError("3", "falta quién parte: nómbrelo o haga el sorteo con un dado")
        table_id = desks.create(store(), name, Start(players, opener, config=config), rolls)
    except (RuleError, LogError, json.JSONDecodeError) as error:
        if isinstance(error, RuleError):
            message = f"art. {error.article}: {error.message}"
        elif isinstance(error, json.JSONDecodeError):
            message = f"el sorteo no es JSON válido: {json_problem(error)}"
        else:
            message = str(error)
        page = render_template(
            "dudo/new.html",
            defaults=DudoConfig().to_dict(),
            choices=OPTION_CHOICES,
            house=DUDO_OPTIONS,
            error=message,
            form=form,
        )
        return page, 400
    return redirect(url_for("dudo.table", table_id=table_id))


# ------------------------------------------------------------------ pages


@bp.route("/<int:table_id>")
@coordinator_required
def table(table_id: int) -> ResponseReturnValue:
    """The coordinator's screen."""
    return VIEWS.page("table", table_id, desk=VIEWS.load_or_404(table_id))


@bp.route("/<int:table_id>/tv")
def tv(table_id: int) -> ResponseReturnValue:
    """The spectators' screen (read-only)."""
    VIEWS.load_or_404(table_id)
    return VIEWS.page("tv", table_id)


class PlayerRow(TypedDict):
    """A player as the pages list him (`players_of`)."""

    name: str
    dice: int
    eliminated: bool
    to_act: bool  # the one to act now


class ChallengeRow(TypedDict):
    """The challenge waiting for the cups to be lifted, as the pages show it (`challenge_of`)."""

    kind: str  # "dudo" | "calzo" | "paso" (engines.dudo.ChallengeKind)
    challenger: str
    target: str  # the bidder (dudo, calzo) or the passer (paso)
    article: str
    bid: dict[str, object] | None  # the bid challenged (StandingBid.to_dict) with its "text"
    hand: str | None  # a doubted paso's hand (engines.dudo.Hand)
    needed: list[str]  # whose cups must be shown


class DudoState(TypedDict):
    """A Dudo table's page JSON (`state_of`): the coordinator's with the controls, the TV's with the odds."""

    id: int
    name: str
    seq: int
    view: str  # "coordinator" | "tv"
    players: list[PlayerRow]
    in_play: int
    table_start_dice: int
    winner: str | None
    round: dict[str, object] | None  # the engine's round (RoundState.to_dict) with "aces_wild"
    bid: dict[str, object] | None  # the standing bid (StandingBid.to_dict) with its "text"
    challenge: ChallengeRow | None
    last_ruling: dict[str, object] | None
    rulings: int
    history: list[str]  # the last lines of the history list
    timer: Timer
    camera: dict[str, object]  # kiosk.camera.Health.to_dict
    can_read: bool
    now: float
    reading: DudoReading | None
    odds: NotRequired[dict[str, object] | None]  # the TV's: engines.dudo.bid_odds's to_dict
    legal: NotRequired[dict[str, object] | None]  # the coordinator's: LegalActions.to_dict
    can_undo: NotRequired[bool]  # the coordinator's


def state_of(desk: desks.Desk, view: str) -> DudoState:
    """The page's JSON for one table; the TV's adds the odds (for spectators only) and leaves out the controls."""
    tbl = desk.table
    rnd = tbl.round
    meta = desk.meta()
    out: DudoState = {
        "id": desk.table_id,
        "name": store().table(desk.table_id).name,
        "seq": desk.seq,
        "view": view,
        "players": players_of(tbl),
        "in_play": tbl.in_play,
        "table_start_dice": tbl.table_start_dice,
        "winner": tbl.winner,
        "round": None if rnd is None else rnd.to_dict() | {"aces_wild": rnd.aces_wild},
        "bid": None if rnd is None or rnd.bid is None else rnd.bid.to_dict() | {"text": rnd.bid.text()},
        "challenge": challenge_of(tbl),
        "last_ruling": last_ruling(desk, meta),
        "rulings": len(tbl.rulings),
        "history": [desks.describe(e) for e in meta][-14:],
        "timer": timer_of(desk.table_id),
        "camera": camera().health().to_dict(),
        "can_read": camera().can_read,
        "now": time.time(),
        "reading": reading_of(desk),
    }
    if view == "tv":
        out["odds"] = odds_of(tbl)
    else:
        legal = tbl.legal_actions()
        out["legal"] = None if legal is None else legal.to_dict()
        out["can_undo"] = len(tbl.history) > 1
    return out


def page_state(desk: desks.Desk, view: str) -> dict[str, object]:
    """`state_of` as a plain JSON object, as the shared views take it (kiosk.game_views)."""
    return dict(state_of(desk, view))


def players_of(tbl: DudoTable) -> list[PlayerRow]:
    """Each player's dice, clockwise, and whether he is the one to act."""
    rnd = tbl.round
    return [
        {
            "name": name,
            "dice": dice,
            "eliminated": dice == 0,
            "to_act": rnd is not None and tbl.pending is None and rnd.to_act == name and tbl.winner is None,
        }
        for name, dice in zip(tbl.players, tbl.dice, strict=True)
    ]


def challenge_of(tbl: DudoTable) -> ChallengeRow | None:
    """The dudo, calzo or doubted paso waiting for the cups to be lifted, and whose cups must be shown."""
    p = tbl.pending
    if p is None:
        return None
    return {
        "kind": p.kind.value,
        "challenger": p.challenger,
        "target": p.target,
        "article": p.article,
        "bid": None if p.bid is None else p.bid.to_dict() | {"text": p.bid.text()},
        "hand": None if p.hand is None else p.hand.value,
        "needed": readings.needed(tbl),
    }


def last_ruling(desk: desks.Desk, meta: list[JsonDict]) -> dict[str, object] | None:
    """The last ruling, with the photo and the dice of the reveal it ruled on (an undone reveal is not); `meta`:
    the desk's lines decoded."""
    if not desk.table.rulings:
        return None
    ruling = desk.table.rulings[-1].to_dict()
    standing = tables.standing(meta)
    reveal_line: JsonDict = next((e for e in reversed(standing) if e.get("event") == "reveal"), {})
    ruling["photo"] = VIEWS.photo_url(desk.table_id, reveal_line.get("photo"))
    ruling["shown_dice"] = reveal_line.get("dice")
    return ruling


def reading_of(desk: desks.Desk) -> DudoReading | None:
    """The reading awaiting confirmation, with its photo's URL and what confirming it would rule."""
    reading = current_reading(desk)
    if reading is None:
        return None
    if reading.get("photo"):
        reading = reading | {"photo_url": VIEWS.photo_url(desk.table_id, reading["photo"])}
        raw = photos.raw_name(str(reading["photo"]))
        if (Path(current_app.config["PHOTOS"]) / raw).is_file():
            reading = reading | {"photo_raw_url": VIEWS.photo_url(desk.table_id, raw)}
    return reading | {"proposal": readings.proposal(desk.table, reading)}


def odds_of(tbl: DudoTable) -> dict[str, object] | None:
    """The spectators' odds of the standing bid (none while the cups wait to be lifted)."""
    rnd = tbl.round
    if rnd is None or rnd.bid is None or tbl.pending is not None:
        return None
    return bid_odds(rnd.bid.quantity, rnd.bid.face, tbl.in_play, rnd.aces_wild).to_dict()


def current_reading(desk: desks.Desk) -> DudoReading | None:
    """The reading awaiting confirmation, if it belongs to the challenge now standing."""
    if desk.table.pending is None:
        return None
    # The JSON edge: the reading as the store keeps it (json.loads), written by kiosk.dudo.reading as a DudoReading.
    return cast("DudoReading | None", web.pending_reading(desk.table_id, desk.seq))


VIEWS = GameViews(desks.GAME, desks.load, desks.act, page_state, current_reading)
VIEWS.add_routes(
    bp,
    undo=Undo(),  # the last action or ruling
    import_log=desks.import_log,
    imported_name="Mesa importada",
    export_name=lambda table_id: f"mesa-{table_id}.jsonl",
)


# ------------------------------------------------------------------ playing


@bp.route("/<int:table_id>/action", methods=["POST"])
@coordinator_required
def action(table_id: int) -> ResponseReturnValue:
    """A player's bid, dudo, calzo or paso, in the log's own JSON; refused with the article when illegal."""
    VIEWS.load_or_404(table_id)
    data = json_body()
    seq = json_seq(data)
    event_obj = {k: v for k, v in data.items() if k != "seq"}
    if event_obj.get("event") not in ("bid", "dudo", "calzo", "paso"):
        return refuse("la acción debe ser bid, dudo, calzo o paso", 400)
    try:
        event = desks.parse_action(event_obj)
    except LogError as error:
        return refuse(error.message, 400)
    response = VIEWS.apply(table_id, event, seq, {"by": "coordinador"})
    if not isinstance(response, Response):  # refused: the page shows why, and nothing starts
        return response
    desk = desks.load(store(), table_id)
    if desk.table.pending is not None and camera().can_read and current_reading(desk) is None:
        # The cups are being lifted: watch the table at once, so the reading waits only for stillness.
        VIEWS.start_reading(desk, Cups(desk, still_before=False))
        return jsonify(VIEWS.coordinator_state(table_id))
    return response


@bp.route("/<int:table_id>/timer", methods=["POST"])
@coordinator_required
def timer(table_id: int) -> ResponseReturnValue:
    """The turn timer: start, pause, reset (and its limit in seconds), or its sound at time up on or off."""
    VIEWS.load_or_404(table_id)
    data = json_body()
    op = data.get("op")
    limit = data.get("limit")
    # Everything is checked before the clock is touched: a refused request changes nothing.
    if op not in ("start", "pause", "reset", "sound"):
        return refuse("op debe ser start, pause, reset o sound", 400)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or not 5 <= limit <= 600):
        return refuse("el límite del turno va de 5 a 600 segundos", 400)
    if op == "sound" and not isinstance(data.get("on"), bool):
        return refuse("el sonido del reloj se pide con 'on': true o false", 400)
    now = 0.0

    def change(stored: dict[str, object] | None) -> dict[str, object]:
        nonlocal now
        # The time is taken under the write lock: a tap that waited for it never counts from before the last one.
        now = time.time()
        clock: JsonDict = STOPPED_TIMER | (stored or {})
        if op == "start" and not clock["running"]:
            clock.update(running=True, since=now)
        elif op == "pause" and clock["running"]:
            clock.update(running=False, elapsed=clock["elapsed"] + max(0.0, now - clock["since"]), since=None)
        elif op == "reset":
            clock.update(running=False, elapsed=0.0, since=None)
        elif op == "sound":
            clock["sound"] = data["on"]
        if limit is not None:
            clock["limit"] = limit
        return clock

    # Read, changed and written in one transaction: a tap on another thread waits, and neither is lost.
    clock = store().update_timer(table_id, change)
    publish(table_id)
    return jsonify(clock | {"now": now})  # the server's clock: the pages count from it, not from their own


# ------------------------------------------------------------------ the cups lifted


def _challenge_or_refuse(desk: desks.Desk) -> tuple[Response, int] | None:
    if desk.table.pending is None:
        return refuse("art. 6: no hay cachos que levantar: nadie dudó ni calzó", 409, "6")
    return None


@bp.route("/<int:table_id>/read", methods=["POST"])
@coordinator_required
def read(table_id: int) -> ResponseReturnValue:
    """Ask the camera to read the lifted cups (in the background): capture when still, read, seat, check."""
    desk = VIEWS.load_or_404(table_id)
    return VIEWS.read(desk, Cups(desk), _challenge_or_refuse(desk))


@dataclass
class Cups:
    """The camera's reading of the lifted cups: the dice of each seat (the table's seats, mesa.json)."""

    desk: desks.Desk
    seats: TableConfig | None = None  # the table's seats, loaded by `capture`
    waiting: str = "esperando a que la mesa quede quieta"
    still_before: bool = True  # a table still before the tap counts (not at a dudo: the cups are still down)

    def empty(self, state: str, message: str) -> DudoReading:
        """A reading with no dice yet."""
        return readings.reading(state, message)

    def capture(self) -> StillCapture:
        """The still capture, seat by seat, once the table is still (the demo camera is cued to the ruling)."""
        from vision.seats import TableConfig, load_table_config

        path = Path(current_app.config["TABLE_CONFIG"])
        self.seats = load_table_config(path) if path.exists() else TableConfig()
        camera().cue(len(self.desk.table.rulings))
        return camera().capture_still(current_app.config.get("STILL"), self.seats, self.still_before)

    def read(self, capture: StillCapture, keep_photo: Callable[[Frame], str]) -> DudoReading:
        """Each player's dice by his seat, with the seats' problems; the photo annotated with the dice read."""
        from vision.annotate import annotate
        from vision.seats import read_table

        frame, found = capture.frame, capture.reading
        assert frame is not None and found is not None and self.seats is not None  # read after `capture`
        table = self.desk.table
        expected = readings.expected_counts(table)
        seats = self.seats
        if not seats.players:  # the players sit at seats 1..N in their clockwise order
            seats = replace(seats, players=dict(enumerate(table.players, start=1)))
        check = read_table(frame, found, seats, expected)
        photo = keep_photo(annotate(frame, found))
        # as taken too: the coordinator's screen crops each seat's dice from it, and zooms on a die, unlabelled
        web.save_photo(self.desk.table_id, Path(photos.raw_name(photo)).name, encode_jpeg(frame))
        return readings.from_check(check, capture, photo, expected)

    def carry(self, old: DudoReading, new: DudoReading) -> DudoReading:
        """The corrections of the earlier reading, kept."""
        return readings.keep_corrections(old, new)


@bp.route("/<int:table_id>/manual", methods=["POST"])
@coordinator_required
def manual(table_id: int) -> ResponseReturnValue:
    """Enter the dice by hand (no camera, or the coordinator prefers to)."""
    desk = VIEWS.load_or_404(table_id)
    return _challenge_or_refuse(desk) or VIEWS.by_hand(desk, readings.manual(desk.table))


@bp.route("/<int:table_id>/die", methods=["POST"])
@coordinator_required
def die(table_id: int) -> ResponseReturnValue:
    """Correct one die (face 1-6), confirm it (the same face), remove it (face null) or add one (no id)."""
    desk = VIEWS.load_or_404(table_id)
    data = json_body()

    def fix(reading: DudoReading) -> DudoReading:
        player, die_id, face = data.get("player"), data.get("die"), data.get("face")
        if not isinstance(player, str) or (die_id is not None and not isinstance(die_id, str)):
            raise CorrectionError("se esperaba {player, die, face}")
        return readings.correct(reading, player, die_id, face)

    return VIEWS.corrected(desk, fix, "no hay lectura que corregir")


@bp.route("/<int:table_id>/confirm", methods=["POST"])
@coordinator_required
def confirm(table_id: int) -> ResponseReturnValue:
    """The coordinator confirms the reading: the reveal is logged (with its photo and corrections) and ruled."""
    desk = VIEWS.load_or_404(table_id)
    seq = json_seq(json_body())
    reading = current_reading(desk)
    if reading is None:
        return refuse("no hay lectura que confirmar: lea los dados o éntrelos a mano", 409)
    plan = readings.proposal(desk.table, reading)
    if not plan["ok"]:
        return refuse("; ".join(plan["blockers"]), 409)
    reveal: Reveal = readings.reveal_of(desk.table, reading)
    left = readings.left_unsettled(reading, plan["left"])
    ruled = photos.confirmed_photo(table_id, reading, [d for dice in reading["players"].values() for d in dice])
    meta = confirmed_meta(reading | {"photo": ruled} if ruled else reading, {"unsettled": left} if left else None)
    answered = VIEWS.confirming(table_id, reading, lambda: VIEWS.apply(table_id, reveal, seq, meta))
    if ruled and isinstance(answered, tuple):  # refused: the ruling's photo is nobody's
        photos.discard(table_id, ruled)
    elif ruled:  # ruled: the photo as read, and as taken, are nobody's now
        photo = str(reading["photo"])
        with tables.table_lock(table_id):
            photos.discard(table_id, photo)
            photos.discard(table_id, photos.raw_name(photo))
    return answered
