"""The table's decisions where the seed is silent, as one frozen config value (docs/rulings.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum

from .errors import LogError


class AlcanceGrandes(StrEnum):
    """Whose grandes count toward "only two grandes a game" (How to play: scores)."""

    PARTIDA = "partida"  # the first two grandes written by anybody at the table
    JUGADOR = "jugador"  # each player's (each team's) own first two


class GrandeTardia(StrEnum):
    """What the "face value" of a grande after the first two is (How to play: scores)."""

    SUMA = "suma"  # the sum of the five dice, as the number categories count: five 4s are 20
    CARA = "cara"  # the face once: five 4s are 4


class GrandeDeMano(StrEnum):
    """When five of a kind on the first roll wins the game at once (How to play: scores)."""

    DECLARADA = "declarada"  # when the player declares grande and scores it on that first roll
    TIRADA = "tirada"  # as soon as it shows, whatever the player declares or has already filled


class Empate(StrEnum):
    """What a tie for first place means (the seed is silent)."""

    COMPARTIDO = "compartido"  # the tied players share the win
    DESEMPATE = "desempate"  # no winner yet: the tied players must play off


@dataclass(frozen=True, slots=True)
class BoliviaConfig:
    """Named options for the silent points of the seed; docs/rulings.md has one line each."""

    escalera_as_alto: bool = False
    grande_como_poker: bool = True
    grande_como_full: bool = False
    alcance_grandes: AlcanceGrandes = AlcanceGrandes.PARTIDA
    grande_tardia: GrandeTardia = GrandeTardia.SUMA
    grande_de_mano: GrandeDeMano = GrandeDeMano.DECLARADA
    grande_de_mano_tras_limite: bool = True
    retomar_apartados: bool = False
    empate: Empate = Empate.COMPARTIDO

    @classmethod
    def from_mapping(cls, options: Mapping[str, object]) -> BoliviaConfig:
        """Build from a log's `options` object; an unknown option or a wrong value is malformed."""
        known = {f.name for f in fields(cls)}
        default = cls()
        values: dict[str, object] = {}
        for name, value in options.items():
            if name not in known:
                raise LogError(f"opción desconocida {name!r}; las opciones son: {', '.join(sorted(known))}")
            current = getattr(default, name)
            if isinstance(current, bool):
                if not isinstance(value, bool):
                    raise LogError(f"la opción {name!r} es true o false, no {value!r}")
                values[name] = value
            else:
                enum_type = type(current)
                allowed = [member.value for member in enum_type]
                if value not in allowed:
                    raise LogError(f"la opción {name!r} vale {' o '.join(allowed)}, no {value!r}")
                values[name] = enum_type(value)
        return cls(**values)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        """JSON form, the inverse of `from_mapping`."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def changed(self) -> dict[str, object]:
        """Only the options that differ from the defaults (what a log's start event needs)."""
        default = BoliviaConfig()
        return {k: v for k, v in self.to_dict().items() if v != getattr(default, k)}
