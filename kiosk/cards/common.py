"""What the card games' pages share: a card as the pages draw it, and the labels their scripts draw."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from flask import current_app

from engines.cards.deck import SUIT_SYMBOLS, Card
from engines.errors import LogError, RuleError
from kiosk import web
from kiosk.i18n import t
from kiosk.store import StaleError

if TYPE_CHECKING:
    from kiosk.cards.desk import CardTables, Desk
    from kiosk.cards.reader import CardReader
    from kiosk.game_views import GameViews

TapEvents = Callable[[Any, Mapping[str, Any]], list[dict[str, Any]]]  # the engine's state, the request: the events


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
