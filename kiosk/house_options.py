"""The house options as the coordinator reads them on the setup forms: a Spanish sentence with its article (their
English is in the kiosk's catalogue, kiosk.i18n; docs/rulings.md has the reasons)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Option:
    """One option: where the rules leave it open, what ticking it means (or what it decides), each choice's words."""

    article: str
    text: str
    choices: dict[str, str] = field(default_factory=dict)


DUDO: dict[str, Option] = {
    "subir": Option(
        "art. 4",
        "Entre pintas comunes, subir es",
        {
            "reglamento": "más de la misma pinta o la misma cantidad de una pinta mayor",
            "libre": "también más cantidad de cualquier pinta",
        },
    ),
    "calzo_restringido": Option("art. 7", "Solo se calza con más de la mitad de los dados en juego"),
    "abre_tras_calzo": Option(
        "art. 3",
        "Tras un calzo acertado abre",
        {"calzador": "quien calzó", "apostador": "el jugador cuya apuesta se calzó"},
    ),
    "abre_tras_eliminacion": Option(
        "arts. 3 y 10",
        "Si el que pierde el dado queda eliminado, abre",
        {"siguiente": "el siguiente con dados, en sentido horario", "ganador": "el otro jugador del duelo"},
    ),
    "apertura_en_toda_ronda": Option("art. 5", "La primera apuesta de cada ronda nueva se juega como apertura"),
    "partida_en_falso_desafiable": Option("art. 5", "Una apertura en ases se puede dudar o calzar"),
    "desestimar_sin_decirlo": Option(
        "art. 5", "Tras una apertura en ases, una apuesta que no la sigue ni la convierte la desestima sin decirlo"
    ),
    "obligo_abre_en_ases": Option("art. 9", "El obligado puede declarar los ases como su pinta"),
    "obligo_en_mano_a_mano": Option("arts. 9 y 12", "El obligo se juega también mano a mano"),
    "paso_ases_comodin": Option("art. 8", "En un paso, cada as vale por cualquier pinta"),
    "paso_mayor_cubre": Option("art. 8", "Una mano mayor prueba un paso menor (la quintilla prueba el full)"),
    "tope_cantidad_en_juego": Option("art. 4", "Una apuesta no pasa de los dados en juego"),
}

BOLIVIA: dict[str, Option] = {
    "escalera_as_alto": Option("reglas: la escalera", "El as después del 6 también hace escalera (3-4-5-6-1)"),
    "grande_como_poker": Option("reglas: el póker", "Cinco iguales también valen como póker"),
    "grande_como_full": Option("reglas: el full", "Cinco iguales también valen como full"),
    "alcance_grandes": Option(
        "reglas: las dos grandes",
        "Las dos grandes de 50 son",
        {
            "partida": "las dos primeras de la mesa, las anote quien las anote",
            "jugador": "las dos primeras de cada uno",
        },
    ),
    "grande_tardia": Option(
        "reglas: las grandes",
        "Una grande pasadas las dos vale",
        {"suma": "la suma de sus dados (cinco 4 valen 20)", "cara": "su número una vez (cinco 4 valen 4)"},
    ),
    "grande_de_mano": Option(
        "reglas: la grande de mano",
        "La grande de mano gana",
        {"declarada": "si se declara grande y se anota", "tirada": "apenas salen cinco iguales en la primera tirada"},
    ),
    "grande_de_mano_tras_limite": Option(
        "reglas: la grande de mano", "La grande de mano gana aunque ya se anotaron las dos grandes de 50"
    ),
    "retomar_apartados": Option("reglas: apartar dados", "Un dado apartado puede volver al cacho en el mismo turno"),
    "empate": Option(
        "reglas: el ganador",
        "Con un empate en el primer puesto",
        {"compartido": "los empatados comparten la victoria", "desempate": "los empatados desempatan"},
    ),
}

# The card games' options (seeds 000, 001, 003, their sections named in Spanish); each game's form shows its own.
CARDS: dict[str, Option] = {
    "high_card_tiebreak": Option(
        "000: Quién gana",
        "Con la misma carta más alta gana",
        {
            "eldest": "el más cercano a la izquierda de quien reparte",
            "kickers": "quien tenga la segunda (o la tercera) más alta",
        },
    ),
    "call_without_bet": Option(
        "000: La tercera ronda", "En la tercera ronda se puede igualar sin que nadie haya apostado"
    ),
    "deal_rotates": Option("000: El reparto", "En una noche de varias manos, el reparto pasa a la izquierda"),
    "bet_cap": Option(
        "001: Desarrollo del juego",
        "El tope de la apuesta (ante × jugadores) vale para",
        {"total": "la apuesta total de la ronda", "raise": "cada subida"},
    ),
    "claim_priority": Option(
        "001: Juego de la mano", "Un descarte lo reclama primero el más cercano a quien descartó que también sale"
    ),
    "triple_tie": Option(
        "001: Juego de la mano",
        "Si las tres bazas empatan",
        {"nobody": "nadie suma", "mao": "gana la pareja del mão"},
    ),
    "truco_in_turn": Option("001: Subir la apuesta", "Solo truca el jugador que está por jugar"),
    "trump_natural_free": Option(
        "003: El comodín", "Un comodín en su propio lugar es una carta común (no gasta el comodín del juego)"
    ),
    "king_makes_aces": Option("003: La vuelta", "Con la vuelta en un rey, los comodines son los ases de su color"),
    "first_player_rotates": Option("003: El juego", "Cada ronda empieza el siguiente jugador que sigue en la mesa"),
}
