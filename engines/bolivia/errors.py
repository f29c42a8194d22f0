"""Errors of the Bolivian Cacho engine, and the seed sections a refusal can cite."""

from __future__ import annotations

# The seed's own sections (shared/seeds/002), named as the seed names them; a refusal cites one.
ART_PLAYERS = "Players"
ART_EQUIPMENT = "Equipment"
ART_HOW_TO_PLAY = "How to play"
ART_SCORES = "How to play: scores"
ART_CROSS_HATCH = "How to play: cross hatch"
ART_THREE_HATCHES = "Variations: three cross hatches"
ART_PARTNERS = "Variations: partners"
ART_GENERALA = "Variations: Generala"


class RuleError(ValueError):
    """An action the rules do not allow; `article` is the seed section applied, `message` says why."""

    def __init__(self, article: str, message: str) -> None:
        super().__init__(f"{article}: {message}")
        self.article = article
        self.message = message


class LogError(ValueError):
    """A game-log line that cannot be read as an event (bad JSON, a missing or ill-typed field)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
