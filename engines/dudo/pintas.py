"""Pintas (art. 2), the words for bids, counting the table (art. 6) and the paso's hands (art. 8)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

AS = 1
FACES = (1, 2, 3, 4, 5, 6)
MAX_DICE = 5

_NAMES = {
    1: ("as", "ases"),
    2: ("tonto", "tontos"),
    3: ("tren", "trenes"),
    4: ("cuadra", "cuadras"),
    5: ("quina", "quinas"),
    6: ("sexta", "sextas"),
}
_NUMBERS = (
    "cero",
    "un",
    "dos",
    "tres",
    "cuatro",
    "cinco",
    "seis",
    "siete",
    "ocho",
    "nueve",
    "diez",
    "once",
    "doce",
    "trece",
    "catorce",
    "quince",
    "dieciséis",
    "diecisiete",
    "dieciocho",
    "diecinueve",
    "veinte",
    "veintiún",
    "veintidós",
    "veintitrés",
    "veinticuatro",
    "veinticinco",
    "veintiséis",
    "veintisiete",
    "veintiocho",
    "veintinueve",
    "treinta",
)


def face_name(face: int, quantity: int = 2) -> str:
    """The pinta's name, singular for one die: 1 -> "as"/"ases", 5 -> "quina"/"quinas"."""
    singular, plural = _NAMES[face]
    return singular if quantity == 1 else plural


_FEMININE = frozenset({4, 5, 6})


def bid_text(quantity: int, face: int) -> str:
    """A bid as said at the table: (4, 5) -> "cuatro quinas", (1, 1) -> "un as", (1, 5) -> "una quina"."""
    number = _NUMBERS[quantity] if 0 <= quantity < len(_NUMBERS) else str(quantity)
    if face in _FEMININE and quantity in (1, 21):
        number = "una" if quantity == 1 else "veintiuna"
    return f"{number} {face_name(face, quantity)}"


@dataclass(frozen=True, slots=True)
class Count:
    """What was counted for a bid: the pinta's own dice and, when wild, the aces apart."""

    face: int
    naturals: int
    aces: int
    aces_wild: bool
    why_not_wild: str = ""  # ": apertura" or ": obligo", for the message

    @property
    def total(self) -> int:
        """Dice that count for the bid."""
        return self.naturals + self.aces

    def text(self) -> str:
        """Spanish account of the count, aces apart when they were wild."""
        own = f"{self.naturals} {face_name(self.face, self.naturals)}"
        if self.face == AS:
            return own
        if not self.aces_wild:
            return f"{own} (los ases no son comodín{self.why_not_wild})"
        return f"{own} + {self.aces} {face_name(AS, self.aces)} (comodín) = {self.total}"

    def to_dict(self) -> dict[str, object]:
        """JSON form; `aces` is null when aces did not count as wild."""
        return {
            "face": self.face,
            "naturals": self.naturals,
            "aces": self.aces if self.aces_wild and self.face != AS else None,
            "total": self.total,
            "aces_wild": self.aces_wild,
        }


def count(dice: Iterable[int], face: int, aces_wild: bool) -> Count:
    """Count a pinta over every die on the table; the As is wild only when `aces_wild` (art. 2 and 6)."""
    tally = Counter(dice)
    if face == AS:
        return Count(face=AS, naturals=tally[AS], aces=0, aces_wild=aces_wild)
    return Count(face=face, naturals=tally[face], aces=tally[AS] if aces_wild else 0, aces_wild=aces_wild)


class Hand(StrEnum):
    """The combinations a paso declares, lowest first (art. 8); 4+1 (póker) does not exist."""

    FULL = "full"
    ESCALA = "escala"
    QUINTILLA = "quintilla"

    @property
    def rank(self) -> int:
        """Full < Escala < Quintilla."""
        return (Hand.FULL, Hand.ESCALA, Hand.QUINTILLA).index(self)

    @property
    def label(self) -> str:
        """Name as said at the table."""
        return self.value.capitalize()


def literal_hand(dice: Sequence[int]) -> Hand | None:
    """The combination five dice show taken literally, or None (fewer than 5 dice never show one)."""
    if len(dice) != MAX_DICE:
        return None
    shape = sorted(Counter(dice).values())
    if shape == [5]:
        return Hand.QUINTILLA
    if shape == [2, 3]:
        return Hand.FULL
    if len(shape) == 5:
        return Hand.ESCALA
    return None


def hands_in(dice: Sequence[int], aces_wild: bool) -> frozenset[Hand]:
    """Every combination the dice can show; with wild aces each As may stand for any pinta."""
    if len(dice) != MAX_DICE:
        return frozenset()
    if not aces_wild:
        hand = literal_hand(dice)
        return frozenset() if hand is None else frozenset({hand})
    others = [d for d in dice if d != AS]
    aces = len(dice) - len(others)
    found: set[Hand] = set()
    for stand_ins in itertools.product(FACES, repeat=aces):
        hand = literal_hand([*others, *stand_ins])
        if hand is not None:
            found.add(hand)
    return frozenset(found)
