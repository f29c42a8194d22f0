"""Numbers and counts as a language writes them (Babel's locale data): «1,4 s» and «1 dado» in Spanish, «1.4 s» and
«1 die» in English. The readers' messages are Spanish; the kiosk passes its page's language."""

from __future__ import annotations

from babel import Locale
from babel.numbers import format_decimal, format_percent


def number(value: float, digits: int = 1, locale: str = "es") -> str:
    """`value` with `digits` decimals, no grouping below 10,000 (1,4; 0,84; 1240)."""
    pattern = "0." + "0" * digits if digits > 0 else "0"
    return str(format_decimal(value, format=pattern, locale=locale))


def percent(share: float, digits: int = 0, locale: str = "es") -> str:
    """`share` (0.92) as a percentage with `digits` decimals: «92 %» in Spanish, «92%» in English."""
    pattern = Locale.parse(locale).percent_formats[None].pattern  # «#,##0 %» in Spanish: the space is the locale's
    if digits > 0:
        pattern = pattern.replace("0", "0." + "0" * digits, 1)
    return str(format_percent(share, format=pattern, locale=locale))


def count(n: int, one: str, other: str, locale: str = "es") -> str:
    """«1 dado», «2 dados»: the number and the noun phrase its plural form takes in the language."""
    form = Locale.parse(locale).plural_form(n)
    return f"{n} {one if form == 'one' else other}"
