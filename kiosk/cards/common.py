"""What the card games' pages share: a card as the pages draw it, and the labels their scripts draw."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from flask import current_app

from engines.cards.deck import SUIT_SYMBOLS, Card
from kiosk.i18n import t

if TYPE_CHECKING:
    from kiosk.cards.reader import CardReader


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
