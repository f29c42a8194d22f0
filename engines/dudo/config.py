"""The organizer's decisions where the Reglamento is silent (art. 11), as one frozen config value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum

from .errors import RuleError


class Subir(StrEnum):
    """Which raises art. 4 allows between two bids of ordinary pintas."""

    REGLAMENTO = "reglamento"  # more of the same pinta, or the same quantity of a higher pinta
    LIBRE = "libre"  # also more quantity of any pinta


class AbreTrasCalzo(StrEnum):
    """Who opens after a calzo that was right (nobody lost a die: art. 3 is silent)."""

    CALZADOR = "calzador"
    APOSTADOR = "apostador"


class AbreTrasEliminacion(StrEnum):
    """Who opens when the player who lost the die is eliminated (art. 3 and 10 are silent)."""

    SIGUIENTE = "siguiente"  # the next player with dice, clockwise from the eliminated one
    GANADOR = "ganador"  # the other player of the duel


@dataclass(frozen=True, slots=True)
class DudoConfig:
    """Named options for the silent points of the Reglamento; docs/rulings.md has one line each."""

    subir: Subir = Subir.REGLAMENTO
    calzo_restringido: bool = True
    abre_tras_calzo: AbreTrasCalzo = AbreTrasCalzo.CALZADOR
    abre_tras_eliminacion: AbreTrasEliminacion = AbreTrasEliminacion.SIGUIENTE
    apertura_en_toda_ronda: bool = False
    partida_en_falso_desafiable: bool = False
    desestimar_sin_decirlo: bool = True
    obligo_abre_en_ases: bool = True
    obligo_en_mano_a_mano: bool = True
    paso_ases_comodin: bool = False
    paso_mayor_cubre: bool = False
    tope_cantidad_en_juego: bool = True

    @classmethod
    def from_mapping(cls, options: Mapping[str, object]) -> DudoConfig:
        """Build from a log's `options` object; an unknown option or a wrong value is refused (art. 11)."""
        known = {f.name: f for f in fields(cls)}
        values: dict[str, object] = {}
        for name, value in options.items():
            if name not in known:
                raise RuleError("11", f"opción desconocida {name!r}; las opciones son: {', '.join(known)}")
            default = getattr(cls(), name)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise RuleError("11", f"la opción {name!r} es true o false, no {value!r}")
                values[name] = value
            else:
                enum_type = type(default)
                allowed = [member.value for member in enum_type]
                if value not in allowed:
                    raise RuleError("11", f"la opción {name!r} vale {' o '.join(allowed)}, no {value!r}")
                values[name] = enum_type(value)
        return cls(**values)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        """JSON form, the inverse of `from_mapping`."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
