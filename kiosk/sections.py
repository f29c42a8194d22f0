"""The seeds' section names in Spanish, as the kiosk shows them: the Bolivian and card seeds are written in English,
and their engines cite each section by its seed name (docs/engines.md); Truco's engine names its sections in Spanish
itself, as they are shown, so they pass through `section` unchanged."""

from __future__ import annotations

from typing import Any

from engines.errors import RuleError

SECTIONS = {
    # Bolivian Cacho (seed 002)
    "Players": "Jugadores",
    "Equipment": "Material",
    "How to play": "Cómo se juega",
    "How to play: scores": "Cómo se juega: puntajes",
    "How to play: cross hatch": "Cómo se juega: la cruz",
    "Variations: three cross hatches": "Variantes: tres cruces",
    "Variations: partners": "Variantes: en parejas",
    "Variations: Generala": "Variantes: Generala",
    # Cacho español (seed 000)
    "Dealing": "El reparto",
    "Winning": "Quién gana",
    # Pif Paf (seed 001)
    "Game play": "Desarrollo del juego",
    "Play of the hand": "Juego de la mano",
    # Cacheta (seed 003)
    "The Game": "El juego",
    "Knock out": "Batir (knock out)",
    "Good One": "La buena (good one)",
    "Cut the Line": "Cortar la fila (cut the line)",
}


def section(article: str | None) -> str | None:
    """A seed section's Spanish name (an article number or an unknown name is returned as it is)."""
    return SECTIONS.get(article, article) if article is not None else None


def spanish(option: dict[str, Any]) -> dict[str, Any]:
    """An engine option's JSON with its `article` named in Spanish."""
    return option | {"article": section(option.get("article"))}


def said(error: RuleError) -> str:
    """A refusal as the kiosk shows it: its seed section in Spanish, then why (a Dudo article as the engine says it)."""
    article = section(error.article)
    return str(error) if article == error.article else f"{article}: {error.message}"
