"""Spanish first, with an English switch: the Spanish text is the key, its English in one gettext catalogue
(translations/en/LC_MESSAGES/messages.po, read with Babel), plural forms by the language's plural rule."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po
from flask import g, has_request_context, request

from vision import words

LANGS = ("es", "en")

CATALOGUE = Path(__file__).parent / "translations" / "en" / "LC_MESSAGES" / "messages.po"


def _load(path: Path) -> tuple[dict[str, str], dict[tuple[str, str], tuple[str, str]]]:
    """The catalogue's English of each Spanish text, and of each pair of Spanish plural forms."""
    with path.open("rb") as source:
        catalogue = read_po(source, locale="en")
    texts: dict[str, str] = {}
    plurals: dict[tuple[str, str], tuple[str, str]] = {}
    for message in catalogue:
        if not message.id:
            continue  # the header
        if isinstance(message.id, tuple):
            one, other = str(message.id[0]), str(message.id[1])
            english = (str(message.string[0]), str(message.string[1]))
            plurals[(one, other)] = english
            texts.setdefault(one, english[0])
            texts.setdefault(other, english[1])
        else:
            texts[str(message.id)] = str(message.string)
    return texts, plurals


EN, PLURALS = _load(CATALOGUE)


def lang() -> str:
    """The page's language: ?lang=, then the cookie, then Spanish."""
    if not has_request_context():
        return "es"
    cached = g.get("lang")
    if isinstance(cached, str):
        return cached
    chosen = request.args.get("lang") or request.cookies.get("lang") or "es"
    g.lang = chosen if chosen in LANGS else "es"
    return str(g.lang)


def t(text: str) -> str:
    """The text in the page's language (the Spanish is the key)."""
    if lang() == "en":
        return EN.get(text, text)
    return text


def number(value: float, digits: int = 1) -> str:
    """A number as the page's language writes it (1,4 in Spanish, 1.4 in English)."""
    return words.number(value, digits, lang())


def count(n: int, one: str, other: str) -> str:
    """«1 dado dudoso», «3 dados dudosos» in the page's language (the Spanish forms are the catalogue's plural
    entry)."""
    if lang() == "en":
        english = PLURALS.get((one, other), (EN.get(one, one), EN.get(other, other)))
        return words.count(n, english[0], english[1], "en")
    return words.count(n, one, other)
