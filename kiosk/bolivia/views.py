"""The Bolivian Cacho blueprint: set up a game, read each roll, declare, set aside, score, and watch the pizarras."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from engines.bolivia import (
    ART_CROSS_HATCH,
    CATEGORIES,
    MAX_ROLLS,
    AlcanceGrandes,
    BoliviaConfig,
    BoliviaGame,
    Category,
    Empate,
    GrandeDeMano,
    GrandeTardia,
    LogError,
    Roll,
    RuleError,
    Score,
    Start,
    Undo,
    advise,
)
from engines.bolivia.state import Option
from kiosk import web
from kiosk.auth import coordinator_required
from kiosk.bolivia import desk as desks
from kiosk.bolivia import reading as readings
from kiosk.camera import shrink
from kiosk.game_views import GameViews
from kiosk.house_options import BOLIVIA as BOLIVIA_OPTIONS
from kiosk.i18n import t
from kiosk.records import BoliviaReading, JsonDict, KeptDie
from kiosk.sections import said, spanish
from kiosk.tables import table_lock
from kiosk.web import camera, json_body, json_seq, refuse, rule_refusal, store

if TYPE_CHECKING:
    from vision.still import StillCapture
    from vision.types import Frame

bp = Blueprint("bolivia", __name__, url_prefix="/bolivia")

OPTION_CHOICES: dict[str, list[str]] = {
    "alcance_grandes": [m.value for m in AlcanceGrandes],
    "grande_tardia": [m.value for m in GrandeTardia],
    "grande_de_mano": [m.value for m in GrandeDeMano],
    "empate": [m.value for m in Empate],
}
PHOTO_WIDTH = 1280  # the annotated photo kept of each roll
ACTIONS = ("declare", "set_aside", "score", "pick", "hatch")

# The labels bolivia.js draws, translated on the server (Spanish is the key, as everywhere).
JS_LABELS = (
    "leído",
    "Le toca a",
    "Tirada",
    "de",
    "Leer la tirada",
    "Leer de nuevo",
    "Entrar a mano",
    "Confirmar tirada",
    "Descartar lectura",
    "Declarar",
    "Cambiar de categoría",
    "Al cambiar de categoría se vuelven a tirar los cinco dados",
    "Tocar cada dado",
    "Apartar",
    "Anotar",
    "¿A qué voy?",
    "Ocultar consejo",
    "Elegir la tirada del equipo",
    "Elegir la pizarra",
    "Pizarra",
    "vale",
    "Total",
    "Va ganando",
    "Ganador",
    "Ganadores",
    "Empate: hay que desempatar",
    "¡Grande de mano!",
    "Grande de mano",
    "Gana",
    "Esperando la lectura…",
    "Toque los dados para apartarlos",
    "apartado",
    "cancelar",
    "quitar",
    "+ dado",
    "¿Qué cara muestra?",
    "esperado",
    "aparte",
    "y tire",
    "anote ya",
    "ninguno",
    "Sin cámara",
    "Fin de la partida",
    "Paga",
    "puntos",
    "declaró",
    "Aún no tira",
    "Consejo",
    "Última anotación",
    "ya apartado: no vuelve al cacho",
)


def labels() -> dict[str, str]:
    """The page's labels in its language."""
    return {key: t(key) for key in JS_LABELS}


# ------------------------------------------------------------------ setup


def _new_page(error: str | None, form: Mapping[str, str] | None = None, status: int = 200) -> tuple[str, int]:
    page = render_template(
        "bolivia/new.html",
        defaults=BoliviaConfig().to_dict(),
        choices=OPTION_CHOICES,
        house=BOLIVIA_OPTIONS,
        error=error,
        form=form,
    )
    return page, status


@bp.route("/new", methods=["GET", "POST"])
@coordinator_required
def new() -> ResponseReturnValue:
    """Start a game: players in turn order (2-6) or teams for the partners variant, the variant, house options."""
    if request.method == "GET":
        return _new_page(None)
    form = request.form
    name = form.get("name", "").strip() or f"Partida {len(store().tables()) + 1}"
    try:
        players, variant = desks.variant_from_form(form)
        config = desks.config_from_form(form)
        table_id = desks.create(store(), name, Start(players, variant, config))
    except RuleError as error:
        return _new_page(said(error), form, 400)
    except LogError as error:
        return _new_page(error.message, form, 400)
    return redirect(url_for("bolivia.table", table_id=table_id))


# ------------------------------------------------------------------ pages


@bp.route("/<int:table_id>")
@coordinator_required
def table(table_id: int) -> ResponseReturnValue:
    """The coordinator's screen."""
    VIEWS.load_or_404(table_id)
    return VIEWS.page("table", table_id, labels=labels())


@bp.route("/<int:table_id>/tv")
def tv(table_id: int) -> ResponseReturnValue:
    """The spectators' screen (read-only): the pizarras, the dice, and the coaching helper."""
    VIEWS.load_or_404(table_id)
    return VIEWS.page("tv", table_id, labels=labels())


class CategoryRow(TypedDict):
    """A category as the pages name it."""

    value: str  # its log value
    label: str  # its Spanish name
    face: int | None  # the face it counts (1-6), or None


class RollShown(TypedDict):
    """The last roll of the attempt under way, as its stored line has it (`state_of`)."""

    dice: object  # the faces rolled
    number: int  # the attempt's rolls so far
    source: object  # "camera" | "manual"
    photo_url: str | None
    boxes: object  # each die's box on the photo (or null)
    size: object  # [width, height] of the photo, or null


class BoliviaState(TypedDict):
    """A Bolivian game's page JSON (`state_of`): the coordinator's with the controls, the TV's with the advice."""

    id: int
    name: str
    seq: int
    view: str  # "coordinator" | "tv"
    game: dict[str, object]  # the engine's game (BoliviaGame.to_dict)
    phase: str
    categories: list[CategoryRow]
    attempt: dict[str, object] | None  # the engine's attempt (Attempt.to_dict) with "locked" and "declared_label"
    roll: RollShown | None
    last_score: dict[str, object] | None
    history: list[str]  # the last lines of the history list
    camera: dict[str, object]  # kiosk.camera.Health.to_dict
    can_read: bool
    reading: BoliviaReading | None
    advice: NotRequired[dict[str, object] | None]  # the TV's (`advice_of`)
    legal: NotRequired[dict[str, object] | None]  # the coordinator's (`legal_of`)
    can_undo: NotRequired[bool]  # the coordinator's


def state_of(desk: desks.Desk, view: str) -> BoliviaState:
    """The page's JSON for one game; the TV's adds the advice and leaves out the controls."""
    game = desk.game
    attempt = game.attempt
    rolls = desk.current_rolls()
    last_roll = rolls[-1] if rolls else None
    out: BoliviaState = {
        "id": desk.table_id,
        "name": store().table(desk.table_id).name,
        "seq": desk.seq,
        "view": view,
        "game": game.to_dict(),
        "phase": game.phase,
        "categories": [{"value": c.value, "label": c.label, "face": c.face} for c in CATEGORIES],
        "attempt": None,
        "roll": None,
        "last_score": last_score(desk),
        "history": [desks.describe(e) for e in desk.meta()][-14:],
        "camera": camera().health().to_dict(),
        "can_read": camera().can_read,
        "reading": None,
    }
    if attempt is not None:
        out["attempt"] = attempt.to_dict() | {
            "locked": sorted(p + 1 for p in attempt.locked),
            "declared_label": None if attempt.declared is None else attempt.declared.label,
        }
    if last_roll is not None:
        out["roll"] = {
            "dice": last_roll.get("dice"),
            "number": len(rolls),
            "source": last_roll.get("source"),
            "photo_url": VIEWS.photo_url(desk.table_id, last_roll.get("photo")),
            "boxes": last_roll.get("boxes"),
            "size": last_roll.get("size"),
        }
    data = current_reading(desk)
    if data is not None:
        reading = data | {"photo_url": VIEWS.photo_url(desk.table_id, data.get("photo"))}
        out["reading"] = reading | {"proposal": readings.proposal(game, data)}
    if view == "tv":
        out["advice"] = advice_of(game)
    else:
        out["legal"] = legal_of(game)
        out["can_undo"] = len(desk.played.actions) > 1
    return out


def page_state(desk: desks.Desk, view: str) -> dict[str, object]:
    """`state_of` as a plain JSON object, as the shared views take it (kiosk.game_views)."""
    return dict(state_of(desk, view))


def last_score(desk: desks.Desk) -> dict[str, object] | None:
    """The score the last action wrote (or chose), with who made it."""
    result = desk.game.last
    if result is None or desk.game.pending is not None:
        return None  # with three pizarras a score is written once its pizarra is chosen, not before
    # Whose roll it was: the player who scored, or the partner whose roll the team picked (a hatch comes after).
    line: JsonDict = next((x for x in reversed(desk.standing) if x.get("event") in ("score", "pick")), {})
    return result.to_dict() | {"label": result.category.label, "player": line.get("player")}


def legal_of(game: BoliviaGame) -> dict[str, object] | None:
    """What the coordinator may do now, from the engine's own legal actions; scores previewed by the engine."""
    legal = game.legal_actions()
    if legal.player is None:
        return None
    by_action: dict[str, list[Option]] = {}
    for option in legal.options:
        by_action.setdefault(option.action, []).append(option)
    roll = by_action["roll"][0]
    set_aside = by_action["set_aside"][0]
    scores = []
    for option in by_action.get("score", []):
        if not option.allowed:
            continue
        category = desks.category_of(option.detail) if option.detail is not None else None
        result = game.apply(Score(legal.player, category)).last
        assert result is not None
        scores.append(result.to_dict() | {"label": result.category.label})
    pending = game.pending
    candidates = [
        c.to_dict() | {"label": c.category.label, "member": m}
        for m, c in zip(game.side.members, game.candidates, strict=False)
    ]
    return {
        "player": legal.player,
        "side": legal.side,
        "roll": spanish(roll.to_dict()),
        "set_aside": spanish(set_aside.to_dict()),
        "declare": [o.detail for o in by_action.get("declare", []) if o.allowed],
        "score": scores,
        "pick": [spanish(o.to_dict()) for o in by_action.get("pick", [])],
        "candidates": candidates,
        "hatch": [spanish(o.to_dict()) for o in by_action.get("hatch", [])],
        "pending": None if pending is None else pending.to_dict() | {"label": pending.category.label},
    }


def advice_of(game: BoliviaGame) -> dict[str, object] | None:
    """The coaching helper for the dice on the table: each open category's expected final score and what to keep."""
    attempt = game.attempt
    if attempt is None or attempt.dice is None:
        return None
    side = game.side
    open_categories = [c for c in CATEGORIES if side.open_in_some_hatch(c)]
    locked = () if attempt.must_roll_all else tuple(attempt.dice[p] for p in sorted(attempt.locked))
    try:
        declared = None if game.variant.generala else attempt.declared
        advice = advise(
            attempt.dice,
            attempt.rolls,
            open_categories,
            locked,
            game.config,
            game.grandes_before(),
            declared=declared,
            must_roll_all=attempt.must_roll_all,
        )
    except RuleError:
        return None
    # The best first (a grande de mano above all); once declared, the declared category leads the list.
    advice = tuple(sorted(advice, key=lambda a: (not a.instant_win, -(a.expected or 0.0))))
    best: Category | None = advice[0].category if advice else None
    if attempt.declared is not None and not game.variant.generala:
        advice = tuple(sorted(advice, key=lambda a: a.category is not attempt.declared))
        best = attempt.declared
    return {
        "player": attempt.player,
        "dice": list(attempt.dice),
        "roll": attempt.rolls,
        "declared": None if attempt.declared is None else attempt.declared.value,
        "best": None if best is None else best.value,
        "items": [
            a.to_dict() | {"label": a.category.label, "expected": None if a.expected is None else round(a.expected, 2)}
            for a in advice
        ],
    }


def current_reading(desk: desks.Desk) -> BoliviaReading | None:
    """The reading awaiting confirmation, if it was taken for the game as it stands."""
    # The JSON edge: the reading as the store keeps it (json.loads), written by kiosk.bolivia.reading.
    return cast("BoliviaReading | None", web.pending_reading(desk.table_id, desk.seq))


@bp.route("/<int:table_id>/advice.json")
def advice(table_id: int) -> ResponseReturnValue:
    """¿A qué voy?: the coaching helper for the dice on the table (null before the first roll)."""
    desk = VIEWS.load_or_404(table_id)
    return jsonify(advice=advice_of(desk.game))


VIEWS = GameViews(desks.GAME, desks.load, desks.act, page_state, current_reading)
VIEWS.add_routes(
    bp,
    undo=Undo(),  # the last action
    import_log=desks.import_log,
    imported_name="Partida importada",
    export_name=lambda table_id: f"cacho-boliviano-{table_id}.jsonl",
)


# ------------------------------------------------------------------ playing


@bp.route("/<int:table_id>/action", methods=["POST"])
@coordinator_required
def action(table_id: int) -> ResponseReturnValue:
    """Declare, set aside, score, pick (partners) or choose the hatch, in the log's own JSON; refused when illegal.

    Without `player`, the player on turn. Rolls come only from a confirmed reading (/read or /manual, /confirm).
    """
    desk = VIEWS.load_or_404(table_id)
    data = json_body()
    seq = json_seq(data)
    event_obj = {k: v for k, v in data.items() if k != "seq"}
    if event_obj.get("event") not in ACTIONS:
        return refuse(
            "la acción debe ser declare, set_aside, score, pick o hatch (las tiradas se leen: /read o /manual)", 400
        )
    if "player" not in event_obj:
        player = desk.game.legal_actions().player
        if player is None:
            return rule_refusal(RuleError(ART_CROSS_HATCH, "la partida terminó"))
        event_obj["player"] = player
    try:
        event = desks.parse_action(event_obj)
    except LogError as error:
        return refuse(error.message, 400)
    return VIEWS.apply(table_id, event, seq, {"by": "coordinador"})


# ------------------------------------------------------------------ the roll read


def _roll_or_refuse(desk: desks.Desk) -> tuple[Response, int] | None:
    game = desk.game
    player = game.legal_actions().player
    if player is None:
        return rule_refusal(RuleError(ART_CROSS_HATCH, "la partida terminó"))
    dice = game.attempt.dice if game.attempt is not None and game.attempt.dice is not None else (1,) * 5
    try:
        game.check(Roll(player, dice))
    except RuleError as error:
        return rule_refusal(error)
    return None


def _kept(desk: desks.Desk) -> list[KeptDie]:
    rolls = desk.current_rolls()
    return readings.kept_dice(desk.game, rolls[-1] if rolls else None)


@bp.route("/<int:table_id>/read", methods=["POST"])
@coordinator_required
def read(table_id: int) -> ResponseReturnValue:
    """Ask the camera to read the roll (in the background): wait until the dice are still, read the rolling area."""
    desk = VIEWS.load_or_404(table_id)
    rolls = sum(1 for line in desk.standing if line.get("event") == "roll")
    return VIEWS.read(desk, RollingArea(_kept(desk), rolls), _roll_or_refuse(desk))


@dataclass(frozen=True)
class RollingArea:
    """The camera's reading of a roll: the dice in the rolling area, and which of them are the set-aside dice."""

    kept: list[KeptDie]  # the dice set aside before this roll (readings.kept_dice)
    rolls: int = 0  # the rolls of the game so far: the demo camera shows the demo game's next one
    waiting: str = "esperando a que los dados queden quietos"

    def empty(self, state: str, message: str) -> BoliviaReading:
        """A reading with no dice yet (the set-aside dice as they were)."""
        return readings.reading(state, message, self.kept)

    def capture(self) -> StillCapture:
        """The still capture of the whole frame, once the dice are still (the demo camera cued to a Bolivian roll)."""
        camera().cue_roll(self.rolls)
        return camera().capture_still(current_app.config.get("STILL"))

    def read(self, capture: StillCapture, keep_photo: Callable[[Frame], str]) -> BoliviaReading:
        """The dice in the rolling area; the photo annotated with the dice read and the area's outline."""
        import cv2
        import numpy as np

        from vision.annotate import annotate

        frame, found = capture.frame, capture.reading
        assert frame is not None and found is not None  # read only once captured (GameViews)
        area, markers = readings.rolling_area(frame)
        drawn = annotate(frame, found)
        if area is not None:
            thick = max(2, round(3 * max(drawn.shape[:2]) / 1280))
            cv2.polylines(drawn, [np.array(area, np.int32)], True, (255, 255, 0), thick)
        photo = keep_photo(shrink(drawn, PHOTO_WIDTH))
        return readings.from_capture(capture, self.kept, photo, area, markers)

    def carry(self, old: BoliviaReading, new: BoliviaReading) -> BoliviaReading:
        """The corrections of an earlier camera reading, kept (a roll entered by hand is read afresh)."""
        return readings.keep_corrections(old, new) if old.get("source") == "camera" else new


@bp.route("/<int:table_id>/manual", methods=["POST"])
@coordinator_required
def manual(table_id: int) -> ResponseReturnValue:
    """Enter the roll by hand (no camera, or the coordinator prefers to): the set-aside dice stay as they are."""
    desk = VIEWS.load_or_404(table_id)
    return _roll_or_refuse(desk) or VIEWS.by_hand(desk, readings.manual(_kept(desk)))


@bp.route("/<int:table_id>/cancel", methods=["POST"])
@coordinator_required
def cancel(table_id: int) -> ResponseReturnValue:
    """Drop the reading awaiting confirmation (nothing is logged)."""
    VIEWS.load_or_404(table_id)
    with table_lock(table_id):
        web.discard_pending(table_id)
    return VIEWS.redrawn(table_id)


@bp.route("/<int:table_id>/die", methods=["POST"])
@coordinator_required
def die(table_id: int) -> ResponseReturnValue:
    """Correct one die (face 1-6), confirm it (the same face), remove it (face null) or add one (no id; `at`: where
    it lies on the photo, frame pixels)."""
    desk = VIEWS.load_or_404(table_id)
    data = json_body()
    die_id, face, at = data.get("die"), data.get("face"), data.get("at")
    if (die_id is not None and not isinstance(die_id, str)) or (at is not None and not isinstance(at, list)):
        return refuse("se esperaba {die, face} (y at: [x, y] para un dado añadido sobre la foto)", 400)
    corrected = VIEWS.corrected(
        desk,
        lambda reading: readings.correct(reading, die_id, face, at),
        "no hay lectura que corregir: lea la tirada o entre los dados a mano",
    )
    return corrected


@bp.route("/<int:table_id>/confirm", methods=["POST"])
@coordinator_required
def confirm(table_id: int) -> ResponseReturnValue:
    """The coordinator confirms the reading: the roll is logged (with its photo, boxes and corrections)."""
    desk = VIEWS.load_or_404(table_id)
    seq = json_seq(json_body())
    reading = current_reading(desk)
    if reading is None:
        return refuse("no hay lectura que confirmar: lea la tirada o entre los dados a mano", 409)
    plan = readings.proposal(desk.game, reading)
    if not plan["ok"]:
        return refuse("; ".join(plan["blockers"]), 409)
    attempt = desk.game.attempt
    assert attempt is not None
    roll = Roll(attempt.player, readings.rolled(plan))
    answered = VIEWS.confirming(
        table_id,
        reading,
        lambda: web.answer(
            table_id,
            lambda: score_if_only_choice(desks.act(store(), table_id, roll, seq, readings.roll_meta(reading))),
            page_state,
        ),
    )
    return answered


def score_if_only_choice(desk: desks.Desk) -> desks.Desk:
    """After the third roll of a declared category, scoring is all that is left: the kiosk writes it at once."""
    game = desk.game
    attempt = game.attempt
    if attempt is None or attempt.rolls < MAX_ROLLS or game.variant.generala:
        return desk
    allowed = [o.action for o in game.legal_actions().allowed()]
    if allowed != ["score"]:
        return desk
    meta = {"by": "kiosco", "note": "tercera tirada: se anota sola"}
    return desks.act(store(), desk.table_id, Score(attempt.player), desk.seq, meta)
