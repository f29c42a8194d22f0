"""Who opens: the one-die roll-off of art. 3 (the rolls are input; the engine draws nothing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .errors import RuleError
from .pintas import FACES


def sorteo(players: Sequence[str], rolls: Sequence[Mapping[str, int]]) -> str:
    """The opener from the roll-off rounds: highest die wins, the As counts 1, the tied roll again (art. 3)."""
    if not rolls:
        raise RuleError("3", "el sorteo necesita al menos una tirada")
    contenders = list(players)
    for number, roll in enumerate(rolls, start=1):
        if sorted(roll) != sorted(contenders):
            expected = ", ".join(contenders)
            raise RuleError("3", f"en la tirada {number} del sorteo lanzan {expected}, y solo ellos")
        for name, face in roll.items():
            if isinstance(face, bool) or face not in FACES:
                raise RuleError("2", f"{name} sacó {face!r} en el sorteo: un dado va de 1 a 6")
        best = max(roll.values())
        contenders = [name for name in contenders if roll[name] == best]
        if len(contenders) == 1:
            if number != len(rolls):
                raise RuleError("3", f"el sorteo se resolvió en la tirada {number}: sobran tiradas")
            return contenders[0]
    raise RuleError("3", f"el sorteo sigue empatado entre {', '.join(contenders)}: relanzan entre ellos")
