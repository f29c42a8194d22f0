"""Helpers that turn one JSON Lines event (a dict) into typed values; pure, no file access."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.cards.deck import Card, parse_card
from engines.cards.errors import CardRuleError, LogFormatError

Event = Mapping[str, Any]


INVALID_JSON = "JSON inválido: {msg}"  # how the card logs report a line that is not JSON


def event_of(obj: object) -> dict[str, Any]:
    """A decoded log line (engines.jsonl.decode_json_line) as an event dict with an `event` name."""
    if not isinstance(obj, dict) or not isinstance(obj.get("event"), str):
        raise LogFormatError('cada línea debe ser un objeto JSON con "event"')
    return obj


def get_int(event: Event, key: str) -> int:
    """A required integer field."""
    value = event.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise LogFormatError(f'falta "{key}" (entero) en el evento «{event.get("event")}»')
    return value


def get_str(event: Event, key: str) -> str:
    """A required string field."""
    value = event.get(key)
    if not isinstance(value, str):
        raise LogFormatError(f'falta "{key}" (texto) en el evento «{event.get("event")}»')
    return value


def get_bool(event: Event, key: str, default: bool | None = None) -> bool:
    """A boolean field, required unless a default is given."""
    value = event.get(key, default)
    if not isinstance(value, bool):
        raise LogFormatError(f'falta "{key}" (true/false) en el evento «{event.get("event")}»')
    return value


def to_card(value: object) -> Card:
    """A card string, refused with the notation article when it is not a card."""
    if not isinstance(value, str):
        raise LogFormatError(f"se esperaba una carta como texto, no {value!r}")
    return parse_card(value)


def get_card(event: Event, key: str) -> Card:
    """A required card field."""
    if key not in event:
        raise LogFormatError(f'falta "{key}" (carta) en el evento «{event.get("event")}»')
    return to_card(event[key])


def get_optional_card(event: Event, key: str) -> Card | None:
    """A card field that may be absent or null."""
    value = event.get(key)
    return None if value is None else to_card(value)


def to_cards(value: object) -> tuple[Card, ...]:
    """A list of card strings (or one string of cards separated by spaces)."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list):
        raise LogFormatError(f"se esperaba una lista de cartas, no {value!r}")
    return tuple(to_card(item) for item in value)


def get_cards(event: Event, key: str) -> tuple[Card, ...]:
    """A required list of cards."""
    if key not in event:
        raise LogFormatError(f'falta "{key}" (cartas) en el evento «{event.get("event")}»')
    return to_cards(event[key])


def get_names(event: Event, key: str = "players") -> tuple[str, ...]:
    """The players' names of a `start` event."""
    value = event.get(key)
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise LogFormatError(f'falta "{key}" (lista de nombres) en el evento «start»')
    return tuple(value)


def get_int_list(event: Event, key: str) -> tuple[int, ...]:
    """A required list of integers."""
    value = event.get(key)
    if not isinstance(value, list) or not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        raise LogFormatError(f'falta "{key}" (lista de enteros) en el evento «{event.get("event")}»')
    return tuple(value)


def options_from(event: Event, fields: Mapping[str, type]) -> dict[str, Any]:
    """The `options` of a start event, checked against the config's fields and types."""
    raw = event.get("options", {})
    if not isinstance(raw, dict):
        raise LogFormatError('"options" debe ser un objeto')
    for key, value in raw.items():
        if key not in fields:
            raise LogFormatError(f"opción desconocida «{key}»; las opciones son: {', '.join(fields)}")
        expected = fields[key]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise LogFormatError(f"la opción «{key}» debe ser {expected.__name__}")
    return dict(raw)


def check_choice(article: str, name: str, value: str, allowed: tuple[str, ...]) -> None:
    """Refuse an option value outside its named choices."""
    if value not in allowed:
        raise CardRuleError(article, f"la opción {name} debe ser una de: {', '.join(allowed)}")
