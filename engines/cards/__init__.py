"""Card games played at the Cacho tables: Spanish Cacho, Pif Paf, Cacheta and Brazilian Truco."""

from __future__ import annotations

from .deck import CACHO_DECK, DOUBLE_DECK, SUIT_SYMBOLS, SUITS, TRUCO_DECK, Card, parse_card, parse_cards, show
from .errors import CardRuleError
from .legal import Legality, legality
from .log import event_of
from .melds import PIFPAF_RULES, Meld, MeldRules, any_going_out, cacheta_rules, going_out, meld, split, trumps_for
from .table import Discard, Draw

__all__ = [
    "CACHO_DECK",
    "DOUBLE_DECK",
    "PIFPAF_RULES",
    "SUITS",
    "SUIT_SYMBOLS",
    "TRUCO_DECK",
    "Card",
    "CardRuleError",
    "Discard",
    "Draw",
    "Legality",
    "Meld",
    "MeldRules",
    "any_going_out",
    "cacheta_rules",
    "event_of",
    "going_out",
    "legality",
    "meld",
    "parse_card",
    "parse_cards",
    "show",
    "split",
    "trumps_for",
]
