"""What the card games' blueprints share: their routes, a card as the pages draw it, labels, face-up readings."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict, TypeVar, cast

import numpy as np
from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from engines.cards import SUIT_SYMBOLS, SUITS, Card, Legality, parse_card
from engines.errors import LogError, RuleError
from hardware.camera import CameraError
from kiosk import web
from kiosk.auth import coordinator_required
from kiosk.cards import learned
from kiosk.cards import reader as readers
from kiosk.cards.desk import UNDO_TAP
from kiosk.game_views import GameViews, Reading, photo_name
from kiosk.house_options import CARDS as HOUSE
from kiosk.i18n import t
from kiosk.records import JsonDict
from kiosk.sections import said, section
from kiosk.store import StaleError
from kiosk.tables import table_lock

if TYPE_CHECKING:
    from kiosk.cards.desk import CardTables, Desk
    from kiosk.cards.reader import CardReader, SeenCard
    from vision.types import Frame

G = TypeVar("G", bound="CardGame")  # the engine's game of a card table (engines.cards: TrucoGame, CachoEvening, ...)
Events = list[dict[str, object]]  # log events a tap or a confirmed reading writes, as the engine reads them
StateOf = Callable[["Desk[G]", str], Mapping[str, object]]  # the desk, the view: the page's JSON
StartOf = Callable[[Mapping[str, str]], dict[str, object]]  # the setup form: the `start` event (RuleError/LogError)
TapEvents = Callable[[G, JsonDict], Events]  # the engine's game, the request's JSON: the events
# What a reading of cards laid face up is for: the seats read, the cards each shows, and what the reading carries.
ReadStart = Callable[["Desk[G]", JsonDict], tuple[list[int], int, dict[str, object]]]
ShownEvents = Callable[["Desk[G]", Reading], Events]  # the confirmed reading's log events
NO_READER = "todavía no hay lector de cartas: toque las cartas en el selector"


class CardGame(Protocol):
    """What the shared views read of any card game (the engines' games)."""

    @property
    def players(self) -> tuple[str, ...]:
        """The players by seat."""
        ...


class CardFace(TypedDict):
    """A card as the pages draw it (`card_data`)."""

    card: str  # its notation, e.g. "QH"
    rank: str  # the notation's rank
    suit: str  # the suit's symbol
    red: bool
    down: bool  # face down


class PageHead(TypedDict):
    """What every card page's JSON starts with (`page_head`)."""

    id: int
    name: str
    seq: int
    view: str  # "coordinator" | "tv"
    game: str


class Allowed(TypedDict):
    """Whether an action is allowed now, and the section and reason when not (`legal_map`)."""

    allowed: bool
    article: str | None
    reason: str | None


def card_data(card: Card, down: bool = False) -> CardFace:
    """A card as the pages draw it: its notation, rank and suit symbol, red or black, and whether face down."""
    rank = str(card)[:-1]
    return {"card": str(card), "rank": rank, "suit": SUIT_SYMBOLS[card.suit], "red": not card.black, "down": down}


def labels(keys: Iterable[str]) -> dict[str, str]:
    """A page's labels in its language (the Spanish is the key)."""
    return {key: t(key) for key in keys}


def card_views(
    bp: Blueprint,
    tables: CardTables[G],
    state_of: StateOf[G],
    tap_events: TapEvents[G],
    js_labels: Iterable[str],
    imported_name: str,
    export_prefix: str,
) -> GameViews[Desk[G], Reading]:
    """The game's views and its routes: both pages, state.json, photos, export, import, undo and the tap."""

    def page_state(desk: Desk[G], view: str) -> dict[str, object]:
        """`state_of` as a plain JSON object, as the shared views take it."""
        return dict(state_of(desk, view))

    views: GameViews[Desk[G], Reading] = GameViews(tables.game, tables.load, tables.act, page_state, current_reading)
    views.add_routes(
        bp,
        undo=UNDO_TAP,
        import_log=tables.import_log,
        imported_name=imported_name,
        export_name=lambda table_id: f"{export_prefix}-{table_id}.jsonl",
    )
    keys = tuple(js_labels)

    def table(table_id: int) -> ResponseReturnValue:
        """The coordinator's screen."""
        views.load_or_404(table_id)
        return views.page("table", table_id, labels=labels(keys))

    def tv(table_id: int) -> ResponseReturnValue:
        """The spectators' screen (read-only)."""
        views.load_or_404(table_id)
        return views.page("tv", table_id, labels=labels(keys))

    def action(table_id: int) -> ResponseReturnValue:
        """One tap, refused (with the seed's section) when illegal, and then nothing is stored."""
        return tap(tables, views, table_id, tap_events)

    bp.add_url_rule("/<int:table_id>", "table", coordinator_required(table))
    bp.add_url_rule("/<int:table_id>/tv", "tv", tv)
    bp.add_url_rule("/<int:table_id>/action", "action", coordinator_required(action), methods=["POST"])
    return views


def add_new_route(
    bp: Blueprint,
    tables: CardTables[G],
    title: str,
    defaults: Mapping[str, object],
    choices: Mapping[str, list[str]],
    start_of: StartOf,
    imported_name: str,
) -> None:
    """Add `/new`: the setup form (`GAME/new.html`), and a table from `start_of(form)` or the form again with why."""

    def page(error: str | None, form: Mapping[str, str] | None = None, status: int = 200) -> tuple[str, int]:
        html = render_template(
            f"{bp.name}/new.html",
            game=bp.name,
            unnamed=f"{title} 1",
            imported_name=imported_name,
            defaults=defaults,
            choices=choices,
            house={name: HOUSE[name] for name in defaults if name in HOUSE},
            error=error,
            form=form,
        )
        return html, status

    def new() -> ResponseReturnValue:
        """Start a game from the setup form."""
        if request.method == "GET":
            return page(None)
        form = request.form
        name = form.get("name", "").strip() or f"{title} {len(web.store().tables()) + 1}"
        try:
            table_id = tables.create(web.store(), name, start_of(form))
        except RuleError as error:
            return page(said(error), form, 400)
        except LogError as error:
            return page(error.message, form, 400)
        return redirect(url_for(f"{bp.name}.table", table_id=table_id))

    bp.add_url_rule("/new", "new", coordinator_required(new), methods=["GET", "POST"])


def players_of(form: Mapping[str, str]) -> list[str]:
    """The players of a setup form, one a line."""
    return [line.strip() for line in form.get("players", "").splitlines() if line.strip()]


def checked(form: Mapping[str, str], key: str) -> bool:
    """Whether a setup form's checkbox is on."""
    return form.get(key) in ("on", "true", "1")


def action_name(data: JsonDict, actions: tuple[str, ...]) -> str:
    """The tap's action, one of the game's `actions`; LogError otherwise."""
    name = data.get("action")
    if name not in actions:
        raise LogError(f"acción desconocida {name!r}; las acciones son: {', '.join(actions)}")
    return str(name)


def int_field(data: JsonDict, key: str, default: int | None) -> int:
    """A number of the tap (`default` when absent); LogError when it is not one."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise LogError(f"falta '{key}' (un número)")
    return value


def card_field(data: JsonDict, key: str) -> str:
    """A card of the tap in its notation; LogError when missing."""
    value = data.get(key)
    if not isinstance(value, str):
        raise LogError(f"falta '{key}': una carta, p. ej. QH")
    return str(parse_card(value))


def draw_source(data: JsonDict) -> str:
    """Where a draw takes its card from: stock or discard; LogError otherwise."""
    source = data.get("source")
    if source not in ("stock", "discard"):
        raise LogError("'source' es stock (el mazo) o discard (el descarte)")
    return str(source)


def shown_cards(data: JsonDict, missing: str) -> list[str]:
    """The cards a player shows (`cards`), in their notation; LogError (`missing`) when not a list of cards."""
    shown = data.get("cards")
    if not isinstance(shown, list) or not all(isinstance(x, str) for x in shown):
        raise LogError(missing)
    return [str(parse_card(x)) for x in shown]


def seat_name(players: tuple[str, ...], seat: object) -> str:
    """The name at a seat for the history list, or "?" when the event names none."""
    return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?"


def page_head(desk: Desk[object], view: str, game: str) -> PageHead:
    """What every card page's JSON starts with: the table's id, name and seq, the view and the game."""
    return {
        "id": desk.table_id,
        "name": web.store().table(desk.table_id).name,
        "seq": desk.seq,
        "view": view,
        "game": game,
    }


def legal_map(checks: Iterable[Legality]) -> dict[str, Allowed]:
    """The engine's legality checks by action: allowed, and the section and reason when not."""
    return {x.action: {"allowed": x.allowed, "article": section(x.article), "reason": x.reason} for x in checks}


def full_deck(ranks: Iterable[int]) -> list[CardFace]:
    """The card picker's cards: each suit, the `ranks` in order."""
    order = tuple(ranks)
    return [card_data(Card(rank, suit)) for suit in SUITS for rank in order]


def card_reader() -> CardReader | None:
    """The app's card reader (`CARD_READER`), or None: the cards are tapped."""
    return cast("CardReader | None", current_app.config.get("CARD_READER"))


def tap(
    tables: CardTables[G], views: GameViews[Desk[G], Reading], table_id: int, tap_events: TapEvents[G]
) -> ResponseReturnValue:
    """One tap of a card game's page: the events `tap_events` makes of the request for the game as the page showed
    it, checked by the engine and stored; the coordinator's state, or the refusal (a stale page, a malformed
    request: 400, a rule: the seed's section) and nothing stored."""
    views.load_or_404(table_id)
    data = web.json_body()
    seq = web.json_seq(data)
    try:
        desk = tables.tables.current(web.store(), table_id, seq)  # a stale page first: its tap was for another state
        events = tap_events(desk.state, data)
    except RuleError as error:
        return web.rule_refusal(error)
    except LogError as error:
        return web.refuse(error.message, 400)
    except StaleError as error:
        return web.refuse(str(error), 409)
    return views.apply(table_id, events, seq, {"by": "coordinador"})


def lay_for_demo(game: str, desk: Desk[CardGame], seats: Sequence[int], size: int, seen: Collection[str] = ()) -> None:
    """On the demo camera, lay out the cards a reading of `seats` expects, `size` each, none of those `seen`
    already (a real camera shows what is on the table)."""
    if web.camera().spec != "demo":
        return
    from kiosk.cards.demo import demo_cards

    seed = desk.table_id * 100_003 + desk.seq
    laid = demo_cards(game, len(desk.state.players), seats, size, seen, seed)
    web.camera().lay_cards(game, laid, seed)


PHOTO_WIDTH = 1600  # a reading's photo: enough to see each card's index on the screen


def models_of(reader: CardReader) -> dict[str, str]:
    """The models folder a camera reading was read with, for its log lines (a reader that says none: nothing)."""
    name = getattr(reader, "models_name", None)
    return {"models": name} if isinstance(name, str) else {}


def read_seen(
    desk: Desk[CardGame], reader: CardReader, seats: Sequence[int]
) -> tuple[list[SeenCard], str | None, Frame | None]:
    """The cards the reader sees in front of `seats` on the camera's frame, the stored photo of the frame annotated
    with them, and the frame (both None without one)."""
    frame = camera_frame()
    seen = reader.read_cards(frame, seats, list(desk.state.players))
    if frame is None:
        return seen, None, None
    from kiosk.camera import encode_jpeg, shrink
    from vision.annotate import DOUBTFUL, SURE, boxed
    from vision.types import Box

    out = np.array(frame, copy=True)
    for card in seen:
        if card.box is not None:
            doubt = readers.doubtful(card)
            label = f"{seat_name(desk.state.players, card.seat)}: {card.card or '?'}{'?' if doubt else ''}"
            boxed(out, Box(*card.box), label, DOUBTFUL if doubt else SURE)
    jpeg = encode_jpeg(shrink(out, PHOTO_WIDTH), 85)
    return seen, web.save_photo(desk.table_id, photo_name(desk.seq, time.time()), jpeg), frame


def learned_root() -> Path:
    """The folder of the labelled card corners (kiosk.cards.learned)."""
    return Path(current_app.config["CARD_LEARNED"])


def keep_frame(desk: Desk[object], data: Reading, seen: Sequence[SeenCard], frame: Frame | None) -> None:
    """Keep the frame of a camera reading whose cards show corners, to be labelled once confirmed
    (kiosk.cards.learned)."""
    if any(card.indices and card.card for card in seen):
        with contextlib.suppress(OSError):  # a full disk costs a labelled sample, never the reading
            learned.keep_frame(learned_root(), str(desk.table_id), data, frame)


def confirming(reading: Reading, change: Callable[[], ResponseReturnValue]) -> ResponseReturnValue:
    """Log a confirmed card reading by `change`; the corners of its cards confirmed as read are kept as a sample."""
    return learned.confirming(learned_root(), reading, change)


def camera_frame() -> Frame | None:
    """A full frame for the card reader, or None without a camera (a reader may read from elsewhere)."""
    try:
        return web.camera().full_frame() if web.camera().can_read else None
    except CameraError:
        return None


def add_shown_routes(
    bp: Blueprint,
    views: GameViews[Desk[G], Reading],
    what: str,
    start: ReadStart[G],
    events_of: ShownEvents[G],
) -> None:
    """Add read, card, confirm and cancel: cards laid face up (`what`, e.g. «las manos») read by the card reader,
    shown with the doubtful ones highlighted, corrected by tap (audited), and logged only when confirmed."""

    def read(table_id: int) -> ResponseReturnValue:
        """Read the cards laid face up; kept until confirmed."""
        desk = views.load_or_404(table_id)
        reader = card_reader()
        if reader is None:
            return web.refuse(NO_READER, 409)
        try:
            seats, size, extra = start(desk, web.json_body())
        except RuleError as error:
            return web.rule_refusal(error)
        except LogError as error:
            return web.refuse(error.message, 400)
        lay_for_demo(bp.name, desk, seats, size)
        seen, photo, frame = read_seen(desk, reader, seats)
        data = readers.hands_reading(seen, seats, size) | extra | {"photo": photo} | models_of(reader)
        keep_frame(desk, data, seen, frame)
        with table_lock(table_id):
            web.replace_pending(table_id, desk.seq, data)
        return views.redrawn(table_id)

    def card(table_id: int) -> ResponseReturnValue:
        """Correct (or confirm) one card read, `{seat, index, card}`, or the discard, `{discard}`; audited."""
        desk = views.load_or_404(table_id)
        data = web.json_body()
        if "discard" in data:
            corrected = views.corrected(
                desk, lambda r: readers.correct_discard(r, data["discard"]), f"no hay lectura: lea {what}"
            )
        else:
            corrected = views.corrected(
                desk,
                lambda r: readers.correct_hand(r, data.get("seat"), data.get("index"), data.get("card")),
                f"no hay lectura que corregir: lea {what} o tóquelas",
            )
        return corrected

    def confirm(table_id: int) -> ResponseReturnValue:
        """Log what was read once nothing is missing or doubtful; the engine rules it."""
        desk = views.load_or_404(table_id)
        seq = web.json_seq(web.json_body())
        reading = web.pending_reading(table_id, desk.seq)
        if reading is None:
            return web.refuse(f"no hay lectura que confirmar: lea {what} o tóquelas", 409)
        blocked = readers.hands_blockers(reading, desk.state.players)
        if blocked:
            return web.refuse("; ".join(blocked), 409)
        return confirming(reading, lambda: views.apply(table_id, events_of(desk, reading), seq, reading_meta(reading)))

    def cancel(table_id: int) -> ResponseReturnValue:
        """Drop the reading awaiting confirmation (nothing is logged)."""
        return cancel_reading(views, table_id)

    for name, view in (("read", read), ("card", card), ("confirm", confirm), ("cancel", cancel)):
        bp.add_url_rule(f"/<int:table_id>/{name}", name, coordinator_required(view), methods=["POST"])


def cancel_reading(views: GameViews[Desk[G], Reading], table_id: int) -> ResponseReturnValue:
    """Drop the table's reading awaiting confirmation (nothing is logged); the coordinator's state."""
    views.load_or_404(table_id)
    with table_lock(table_id):
        web.discard_pending(table_id)
    return views.redrawn(table_id)


def current_reading(desk: Desk[object]) -> Reading | None:
    """The card reading awaiting confirmation, if it was taken for the game as it stands, with its photo's URL."""
    reading = web.pending_reading(desk.table_id, desk.seq)
    if reading is not None and reading.get("photo"):
        name = Path(reading["photo"]).name
        reading = reading | {"photo_url": url_for(f"{request.blueprint}.photo", table_id=desk.table_id, name=name)}
    return reading


def reading_meta(reading: Reading) -> dict[str, object]:
    """What the lines of a confirmed reading keep: by whom, from the camera, the corrections, the photo and the
    models folder that read it."""
    meta: dict[str, object] = {"by": "coordinador", "source": "camera", "corrections": reading.get("corrections", [])}
    meta |= {"photo": reading["photo"]} if reading.get("photo") else {}
    return meta | ({"models": reading["models"]} if reading.get("models") else {})


def summary_for(summary: Mapping[str, object], view: str) -> Mapping[str, object]:
    """The engine's summary for a page: the spectators' leaves out the hands (known only from a log written with
    the cards dealt face up)."""
    return summary if view != "tv" else {k: v for k, v in summary.items() if k != "hands"}
