"""The house options as the coordinator reads them on the setup forms: a Spanish sentence with its article, and the
English of each (docs/rulings.md has the reasons)."""

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


EN: dict[str, str] = {
    "Entre pintas comunes, subir es": "Between ordinary pintas, raising is",
    "más de la misma pinta o la misma cantidad de una pinta mayor": (
        "more of the same pinta, or the same quantity of a higher pinta"
    ),
    "también más cantidad de cualquier pinta": "also a higher quantity of any pinta",
    "Solo se calza con más de la mitad de los dados en juego": "A calzo only while more than half the dice are in play",
    "Tras un calzo acertado abre": "After a right calzo, the next round is opened by",
    "quien calzó": "the player who called calzo",
    "el jugador cuya apuesta se calzó": "the player whose bid was called",
    "Si el que pierde el dado queda eliminado, abre": "When the player who loses the die is out, the opener is",
    "el siguiente con dados, en sentido horario": "the next player with dice, clockwise",
    "el otro jugador del duelo": "the other player of the duel",
    "La primera apuesta de cada ronda nueva se juega como apertura": "The first bid of every new round is an opening",
    "Una apertura en ases se puede dudar o calzar": "An opening in aces may be doubted or called",
    "Tras una apertura en ases, una apuesta que no la sigue ni la convierte la desestima sin decirlo": (
        "After an opening in aces, a bid that neither continues nor converts it dismisses it unsaid"
    ),
    "El obligado puede declarar los ases como su pinta": "The obligated player may declare aces as his pinta",
    "El obligo se juega también mano a mano": "The obligo is also played one against one",
    "En un paso, cada as vale por cualquier pinta": "In a paso, each ace counts as any pinta",
    "Una mano mayor prueba un paso menor (la quintilla prueba el full)": (
        "A higher hand proves a lower paso (a quintilla proves a full)"
    ),
    "Una apuesta no pasa de los dados en juego": "A bid cannot exceed the dice in play",
    "El as después del 6 también hace escalera (3-4-5-6-1)": "The ace after the 6 also makes a straight (3-4-5-6-1)",
    "Cinco iguales también valen como póker": "Five of a kind also count as four of a kind",
    "Cinco iguales también valen como full": "Five of a kind also count as a full house",
    "Las dos grandes de 50 son": "The two grandes worth 50 are",
    "las dos primeras de la mesa, las anote quien las anote": "the table's first two, whoever writes them",
    "las dos primeras de cada uno": "each player's first two",
    "Una grande pasadas las dos vale": "A grande after the first two is worth",
    "la suma de sus dados (cinco 4 valen 20)": "the sum of its dice (five 4s are 20)",
    "su número una vez (cinco 4 valen 4)": "its number once (five 4s are 4)",
    "La grande de mano gana": "A grande de mano wins",
    "si se declara grande y se anota": "when grande is declared and written",
    "apenas salen cinco iguales en la primera tirada": "as soon as five of a kind show on the first roll",
    "La grande de mano gana aunque ya se anotaron las dos grandes de 50": (
        "A grande de mano wins even after both grandes of 50 were written"
    ),
    "Un dado apartado puede volver al cacho en el mismo turno": "A die set aside may go back into the cup that turn",
    "Con un empate en el primer puesto": "With a tie for first place",
    "los empatados comparten la victoria": "the tied players share the win",
    "los empatados desempatan": "the tied players play off",
    "reglas: la escalera": "rules: the straight",
    "reglas: el póker": "rules: four of a kind",
    "reglas: el full": "rules: full house",
    "reglas: las dos grandes": "rules: the two grandes",
    "reglas: las grandes": "rules: the grandes",
    "reglas: la grande de mano": "rules: grande de mano",
    "reglas: apartar dados": "rules: setting dice aside",
    "reglas: el ganador": "rules: the winner",
    "arts. 3 y 10": "arts. 3 and 10",
    "arts. 9 y 12": "arts. 9 and 12",
    "Lo que el reglamento deja abierto; el motor juega con lo marcado.": (
        "What the rules leave open; the engine plays by what is chosen."
    ),
    "Con la misma carta más alta gana": "With the same highest card, the winner is",
    "el más cercano a la izquierda de quien reparte": "the player nearest the dealer's left",
    "quien tenga la segunda (o la tercera) más alta": "the player with the higher second (or third) card",
    "En la tercera ronda se puede igualar sin que nadie haya apostado": (
        "In the third round one may call when nobody bet"
    ),
    "En una noche de varias manos, el reparto pasa a la izquierda": (
        "In an evening of hands, the deal passes to the left"
    ),
    "El tope de la apuesta (ante × jugadores) vale para": "The betting cap (ante × players) applies to",
    "la apuesta total de la ronda": "the round's whole bet",
    "cada subida": "each raise",
    "Un descarte lo reclama primero el más cercano a quien descartó que también sale": (
        "A discard goes first to the player nearest the discarder who can also go out"
    ),
    "Si las tres bazas empatan": "When all three tricks tie",
    "nadie suma": "nobody scores",
    "gana la pareja del mão": "the mão's team wins",
    "Solo truca el jugador que está por jugar": "Only the player about to play may call truco",
    "Un comodín en su propio lugar es una carta común (no gasta el comodín del juego)": (
        "A wild card in its own place is an ordinary card (it does not use up the meld's wild card)"
    ),
    "Con la vuelta en un rey, los comodines son los ases de su color": (
        "With a king flipped, the wild cards are the aces of its colour"
    ),
    "Cada ronda empieza el siguiente jugador que sigue en la mesa": (
        "Each round is opened by the next player still at the table"
    ),
    "000: Quién gana": "000: Winning",
    "000: La tercera ronda": "000: The Third Round",
    "000: El reparto": "000: Dealing",
    "001: Desarrollo del juego": "001: Game play",
    "001: Juego de la mano": "001: Play of the hand",
    "001: Subir la apuesta": "001: Raising the stakes",
    "003: El comodín": "003: Trump Card",
    "003: La vuelta": "003: Flip Card",
    "003: El juego": "003: The Game",
}
