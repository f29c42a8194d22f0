"""Errors of the Bolivian Cacho engine, and the seed sections a refusal can cite."""

from __future__ import annotations

from engines.errors import LogError, RuleError

__all__ = ["LogError", "RuleError"]

# The seed's own sections (shared/seeds/002), named as the seed names them; a refusal cites one.
ART_PLAYERS = "Players"
ART_EQUIPMENT = "Equipment"
ART_HOW_TO_PLAY = "How to play"
ART_SCORES = "How to play: scores"
ART_CROSS_HATCH = "How to play: cross hatch"
ART_THREE_HATCHES = "Variations: three cross hatches"
ART_PARTNERS = "Variations: partners"
ART_GENERALA = "Variations: Generala"
