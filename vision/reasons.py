"""Why a die or a card must go to the coordinator: a code that programs compare, and the Spanish message people
read.

A reason is its message (a `str`: what `cacho vision read --json`, the table check and the kiosk show) that also
knows its code, so code asks `has(die.reasons, ReasonCode.CUT)` and never searches the Spanish text.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from enum import StrEnum

from vision import words


class ReasonCode(StrEnum):
    """What makes a die uncertain."""

    DOUBTFUL_DETECTION = "doubtful_detection"  # the finder is not sure of the box
    CUT = "cut"  # cut by the frame's edge
    TOO_SMALL = "too_small"  # too small on the frame to show its pips
    TOO_BIG = "too_big"  # too big a share of the frame for a die
    TOO_BIG_FOR_AREA = "too_big_for_area"  # too big a share of a known area (the Bolivian rolling area) for a die
    ODD_SIZE = "odd_size"  # far bigger or smaller than the frame's other dice
    OFF_CENTRE = "off_centre"  # the top face is pushed sideways or inwards (a cocked die)
    TILTED = "tilted"  # the top face looks seen at a slant (a cocked die)
    NO_FACE = "no_face"  # the face classifier sees no readable face
    MODEL_DOUBTS = "model_doubts"  # the face classifier is under its threshold
    NOT_COUNTED = "not_counted"  # the pip counter could not count
    READERS_DISAGREE = "readers_disagree"  # the classifier and the pip counter name different faces
    MAYBE_COCKED = "maybe_cocked"  # the face classifier's cocked class is at its threshold or over
    FINDER_COCKED = "finder_cocked"  # the finder's cocked class is at its threshold or over (the die's surroundings)
    FEW_FRAMES = "few_frames"  # seen on only some of a still's frames
    FRAMES_DISAGREE = "frames_disagree"  # a still's frames read different faces
    OUTSIDE = "outside"  # outside the table (the seat check)
    COVERED = "covered"  # covered by a hand (a rendered scene's labels)
    DOUBTFUL_FACE = "doubtful_face"  # a face a rendered scene's labels mark as doubtful


# The Spanish message of each code: a str.format template of the values the reason is made with; its numbers are
# written as Spanish writes them («0,60 < 0,90», «10 %»: `Spanish`).
MESSAGES: dict[ReasonCode, str] = {
    ReasonCode.DOUBTFUL_DETECTION: "detección dudosa ({confidence:.0%})",
    ReasonCode.CUT: "cortado por el borde de la imagen",
    ReasonCode.TOO_SMALL: "muy chico para ver los puntos ({side:.0f} px)",
    ReasonCode.TOO_BIG: "demasiado grande para un dado ({share:.0%} de la imagen): ¿es un dado?",
    ReasonCode.TOO_BIG_FOR_AREA: "demasiado grande para un dado ({share:.0%} de la zona de tirada): ¿es un dado?",
    ReasonCode.ODD_SIZE: "de otro tamaño que los demás dados ({ratio:.1f} veces): ¿es un dado?",
    ReasonCode.OFF_CENTRE: (
        "la cara de arriba está corrida ({sideways:.2f} de lado, {outward:+.2f} hacia afuera): ¿dado montado?"
    ),
    ReasonCode.TILTED: "la cara de arriba se ve inclinada ({squash:.2f} < {limit:.2f}): ¿dado montado?",
    ReasonCode.NO_FACE: "el modelo no ve una cara legible",
    ReasonCode.MODEL_DOUBTS: "el modelo duda ({confidence:.2f} < {threshold:.2f})",
    ReasonCode.NOT_COUNTED: "no se pudieron contar los puntos",
    ReasonCode.READERS_DISAGREE: "los dos lectores no coinciden (modelo {model}, puntos {pips})",
    ReasonCode.MAYBE_COCKED: "el modelo ve un dado quizá montado ({p:.2f} ≥ {threshold:.2f})",
    ReasonCode.FINDER_COCKED: "el buscador ve un dado quizá montado ({p:.2f} ≥ {threshold:.2f})",
    ReasonCode.FEW_FRAMES: "visto en {seen} de {frames} imágenes",
    ReasonCode.FRAMES_DISAGREE: "las imágenes no coinciden en la cara ({faces})",
    ReasonCode.OUTSIDE: "fuera de la mesa",
    ReasonCode.COVERED: "tapado por una mano",
    ReasonCode.DOUBTFUL_FACE: "cara dudosa",
}


class CardReasonCode(StrEnum):
    """What makes a card uncertain (vision.cards.reader.judge)."""

    BACK_DOUBTFUL = "back_doubtful"  # a back the finder is not sure of
    SECOND_DOUBTS = "second_doubts"  # the second classifier, on all the corners, doubts the name
    SECOND_SAYS = "second_says"  # the second reading names another card
    RIVAL = "rival"  # another card is about as likely
    CORNERS_DOUBTFUL = "corners_doubtful"  # the corners together are not sure
    LONE_CORNER = "lone_corner"  # one corner seen, with no second reading
    LONE_CORNER_DOUBTFUL = "lone_corner_doubtful"  # one corner, not sure enough alone
    LONE_CORNER_SECOND_DOUBTS = "lone_corner_second_doubts"  # one corner, the second reading not sure
    LONE_CORNER_SMALL = "lone_corner_small"  # one corner, boxed smaller than the others: maybe without its suit
    INDEX_TOO_SMALL = "index_too_small"  # the index too small for its suit to be read
    SUIT_DOUBTFUL = "suit_doubtful"  # the suit reader cannot tell the suit from the other of its colour
    RANK_DOUBTFUL = "rank_doubtful"  # an index under the floor, whose rank the rank reader doubts


CARD_MESSAGES: dict[CardReasonCode, str] = {
    CardReasonCode.BACK_DOUBTFUL: "dorso poco seguro",
    CardReasonCode.SECOND_DOUBTS: "la segunda lectura duda ({share:.2f})",
    CardReasonCode.SECOND_SAYS: "la segunda lectura dice {names}",
    CardReasonCode.RIVAL: "otra lectura posible: {names}",
    CardReasonCode.CORNERS_DOUBTFUL: "esquinas poco seguras ({confidence:.2f})",
    CardReasonCode.LONE_CORNER: "una sola esquina a la vista: falta la segunda lectura",
    CardReasonCode.LONE_CORNER_DOUBTFUL: "una sola esquina, poco segura ({confidence:.2f})",
    CardReasonCode.LONE_CORNER_SECOND_DOUBTS: "una sola esquina, la segunda lectura poco segura ({share:.2f})",
    CardReasonCode.LONE_CORNER_SMALL: "una sola esquina, más pequeña que las demás: quizá sin el palo",
    CardReasonCode.INDEX_TOO_SMALL: "índice demasiado pequeño para leer el palo ({side:.0f} px)",
    CardReasonCode.SUIT_DOUBTFUL: "el lector de palos no distingue {suit} de {twin} ({share:.2f})",
    CardReasonCode.RANK_DOUBTFUL: "índice pequeño ({side:.0f} px) y el lector de rangos duda ({share:.2f})",
}


class Spanish(string.Formatter):
    """str.format with the decimals of `f` and `%` fields as Spanish writes them (0,60; 10 %)."""

    def format_field(self, value: object, format_spec: str) -> str:
        """A number with a fixed-point or percent spec in Spanish; anything else as str.format writes it."""
        spec = re.fullmatch(r"(\+?)\.(\d+)([f%])", format_spec)
        if spec is None or not isinstance(value, int | float):
            return str(super().format_field(value, format_spec))
        sign, digits, kind = spec.group(1), int(spec.group(2)), spec.group(3)
        text = words.percent(value, digits) if kind == "%" else words.number(value, digits)
        return f"+{text}" if sign and value >= 0 else text


SPANISH = Spanish()


class Reason(str):
    """A reason's Spanish message that knows its code: `Reason(ReasonCode.MODEL_DOUBTS, confidence=0.6,
    threshold=0.9)` is the text "el modelo duda (0,60 < 0,90)" with `.code` MODEL_DOUBTS."""

    code: ReasonCode | CardReasonCode

    def __new__(cls, code: ReasonCode | CardReasonCode, **values: object) -> Reason:
        template = CARD_MESSAGES[code] if isinstance(code, CardReasonCode) else MESSAGES[code]
        return _reason(SPANISH.format(template, **values), code)

    def __reduce__(self) -> tuple[object, tuple[str, ReasonCode | CardReasonCode]]:
        """Pickled as its text and code (a reading sent between processes keeps its codes)."""
        return _reason, (str(self), self.code)


def _reason(text: str, code: ReasonCode | CardReasonCode) -> Reason:
    reason = str.__new__(Reason, text)
    reason.code = code
    return reason


def has(reasons: Iterable[str], code: ReasonCode | CardReasonCode) -> bool:
    """Whether one of `reasons` has this code (a plain message, one written by hand, has none)."""
    return any(getattr(reason, "code", None) is code for reason in reasons)
