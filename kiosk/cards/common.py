"""What the card games' pages share: a card as the pages draw it, and the labels their scripts draw."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from flask import Blueprint, current_app

from engines.cards.deck import SUIT_SYMBOLS, Card
from engines.errors import LogError, RuleError
from hardware.camera import CameraError
from kiosk import web
from kiosk.auth import coordinator_required
from kiosk.cards import reader as readers
from kiosk.i18n import t
from kiosk.store import StaleError
from kiosk.tables import table_lock

if TYPE_CHECKING:
    from kiosk.cards.desk import CardTables, Desk
    from kiosk.cards.reader import CardReader
    from kiosk.game_views import GameViews

TapEvents = Callable[[Any, Mapping[str, Any]], list[dict[str, Any]]]  # the engine's state, the request: the events
# What a reading of cards laid face up is for: the seats read, the cards each shows, and what the reading carries.
ReadStart = Callable[["Desk", Mapping[str, Any]], tuple[list[int], int, dict[str, Any]]]
ShownEvents = Callable[["Desk", Mapping[str, Any]], list[dict[str, Any]]]  # the confirmed reading's log events
NO_READER = "todavía no hay lector de cartas: toque las cartas en el selector"


def card_data(card: Card, down: bool = False) -> dict[str, Any]:
    """A card as the pages draw it: its notation, rank and suit symbol, red or black, and whether face down."""
    rank = str(card)[:-1]
    return {"card": str(card), "rank": rank, "suit": SUIT_SYMBOLS[card.suit], "red": not card.black, "down": down}


def labels(keys: Iterable[str]) -> dict[str, str]:
    """A page's labels in its language (the Spanish is the key)."""
    return {key: t(key) for key in keys}


def card_reader() -> CardReader | None:
    """The app's card reader (`CARD_READER`), or None: the cards are tapped."""
    return cast("CardReader | None", current_app.config.get("CARD_READER"))


def tap(tables: CardTables, views: GameViews[Desk], table_id: int, tap_events: TapEvents) -> Any:
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


def camera_frame() -> Any:
    """A full frame for the card reader, or None without a camera (a reader may read from elsewhere)."""
    try:
        return web.camera().full_frame() if web.camera().can_read else None
    except CameraError:
        return None


def add_shown_routes(
    bp: Blueprint, views: GameViews[Desk], what: str, start: ReadStart, events_of: ShownEvents
) -> None:
    """Add read, card, confirm and cancel: cards laid face up (`what`, e.g. «las manos») read by the card reader,
    shown with the doubtful ones highlighted, corrected by tap (audited), and logged only when confirmed."""

    def read(table_id: int) -> Any:
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
        data = readers.hands_reading(reader.read_cards(camera_frame(), seats), seats, size) | extra
        with table_lock(table_id):
            web.replace_pending(table_id, desk.seq, data)
        return views.redrawn(table_id)

    def card(table_id: int) -> Any:
        """Correct (or confirm) one card read, `{seat, index, card}`, or the discard, `{discard}`; audited."""
        desk = views.load_or_404(table_id)
        data = web.json_body()
        if "discard" in data:
            return views.corrected(
                desk, lambda r: readers.correct_discard(r, data["discard"]), f"no hay lectura: lea {what}"
            )
        return views.corrected(
            desk,
            lambda r: readers.correct_hand(r, data.get("seat"), data.get("index"), data.get("card")),
            f"no hay lectura que corregir: lea {what} o tóquelas",
        )

    def confirm(table_id: int) -> Any:
        """Log what was read once nothing is missing or doubtful; the engine rules it."""
        desk = views.load_or_404(table_id)
        seq = web.json_seq(web.json_body())
        reading = web.pending_reading(table_id, desk.seq)
        if reading is None:
            return web.refuse(f"no hay lectura que confirmar: lea {what} o tóquelas", 409)
        blocked = readers.hands_blockers(reading, desk.state.players)
        if blocked:
            return web.refuse("; ".join(blocked), 409)
        meta = {"by": "coordinador", "source": "camera", "corrections": reading.get("corrections", [])}
        return views.apply(table_id, events_of(desk, reading), seq, meta)

    def cancel(table_id: int) -> Any:
        """Drop the reading awaiting confirmation (nothing is logged)."""
        views.load_or_404(table_id)
        with table_lock(table_id):
            web.discard_pending(table_id)
        return views.redrawn(table_id)

    for name, view in (("read", read), ("card", card), ("confirm", confirm), ("cancel", cancel)):
        bp.add_url_rule(f"/<int:table_id>/{name}", name, coordinator_required(view), methods=["POST"])


def current_reading(desk: Desk) -> dict[str, Any] | None:
    """The card reading awaiting confirmation, if it was taken for the game as it stands."""
    return web.pending_reading(desk.table_id, desk.seq)


def summary_for(summary: dict[str, Any], view: str) -> dict[str, Any]:
    """The engine's summary for a page: the spectators' leaves out the hands (known only from a log written with
    the cards dealt face up)."""
    return summary if view != "tv" else {k: v for k, v in summary.items() if k != "hands"}
