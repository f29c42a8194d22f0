"""Categories and scoring of one roll (How to play: scores), with the pizarra's traditional marks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .config import BoliviaConfig, GrandeTardia
from .errors import ART_EQUIPMENT, ART_HOW_TO_PLAY, RuleError

DICE = 5
MAX_ROLLS = 3
GRANDES_AT_FULL_VALUE = 2  # "You can score only two grandes a game"


class Category(StrEnum):
    """The ten categories of the cross hatch, by their Bolivian names."""

    BALAS = "balas"
    TONTOS = "tontos"
    TRENES = "trenes"
    CUADRAS = "cuadras"
    QUINAS = "quinas"
    SENAS = "senas"
    ESCALERA = "escalera"
    FULL = "full"
    POKER = "poker"
    GRANDE = "grande"

    @property
    def face(self) -> int | None:
        """The pip a number category counts (1-6), None for the others."""
        return _FACES.get(self)

    @property
    def label(self) -> str:
        """The Spanish name shown to players."""
        face = self.face
        if face is not None:
            return f"{self.value} ({face})"
        return "póker" if self is Category.POKER else self.value


_FACES = {c: i for i, c in enumerate(Category, start=1) if i <= 6}
CATEGORIES: tuple[Category, ...] = tuple(Category)
NUMBER_CATEGORIES: tuple[Category, ...] = CATEGORIES[:6]
# «Dormida» is what the tables call a grande (five of a kind).
_ALIASES = {str(face): category for category, face in _FACES.items()} | {
    "póker": Category.POKER,
    "dormida": Category.GRANDE,
}


def category_from(text: str) -> Category | None:
    """The category named by `text` (1-6, a Bolivian name, escalera, full, poker/póker, grande), or None."""
    key = text.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        return Category(key)
    except ValueError:
        return None


def check_dice(dice: Sequence[int]) -> tuple[int, ...]:
    """The five dice as a tuple; anything but five pips 1-6 is refused (Equipment: five dice)."""
    if len(dice) != DICE:
        raise RuleError(ART_EQUIPMENT, f"se juega con cinco dados: llegaron {len(dice)}")
    for position, pip in enumerate(dice, start=1):
        if isinstance(pip, bool) or not isinstance(pip, int) or not 1 <= pip <= 6:
            raise RuleError(ART_EQUIPMENT, f"el dado {position} muestra {pip!r}: un dado va de 1 a 6")
    return tuple(dice)


def check_roll_number(roll: int) -> int:
    """The roll number 1-3 (How to play: at most three rolls)."""
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= MAX_ROLLS:
        raise RuleError(ART_HOW_TO_PLAY, f"la tirada es la 1, la 2 o la 3, no {roll!r}")
    return roll


def is_escalera(dice: Sequence[int], config: BoliviaConfig) -> bool:
    """Five in sequence: 1-2-3-4-5 or 2-3-4-5-6 (and 3-4-5-6-1 with `escalera_as_alto`)."""
    pips = frozenset(dice)
    if len(dice) != DICE or len(pips) != DICE:
        return False
    return pips in _ESCALERAS or (config.escalera_as_alto and pips == _AS_ALTO)


_ESCALERAS = (frozenset({1, 2, 3, 4, 5}), frozenset({2, 3, 4, 5, 6}))
_AS_ALTO = frozenset({3, 4, 5, 6, 1})


def is_full(dice: Sequence[int], config: BoliviaConfig) -> bool:
    """A pair and a three of a kind (five of a kind too with `grande_como_full`)."""
    shape = sorted(Counter(dice).values())
    return shape == [2, 3] or (config.grande_como_full and shape == [5])


def is_poker(dice: Sequence[int], config: BoliviaConfig) -> bool:
    """Four of a kind (five of a kind too with `grande_como_poker`)."""
    most = max(Counter(dice).values())
    return most == 4 or (config.grande_como_poker and most == 5)


def is_grande(dice: Sequence[int]) -> bool:
    """Five of a kind."""
    return len(dice) == DICE and len(set(dice)) == 1


def grande_points(face: int, grandes_before: int, config: BoliviaConfig) -> int:
    """A grande's value: 50 for the first two of the game, then its face value (`grande_tardia`)."""
    if grandes_before < GRANDES_AT_FULL_VALUE:
        return 50
    return face * DICE if config.grande_tardia is GrandeTardia.SUMA else face


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """One category scored: the points, the pizarra mark, and whether it is a grande or wins the game."""

    category: Category
    dice: tuple[int, ...]
    roll: int
    points: int
    mark: str
    made: bool
    grande: bool = False  # a grande written in the grande cell: it counts toward the two at 50
    instant_win: bool = False  # grande de mano

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "category": self.category.value,
            "dice": list(self.dice),
            "roll": self.roll,
            "points": self.points,
            "mark": self.mark,
            "made": self.made,
            "grande": self.grande,
            "instant_win": self.instant_win,
        }


# Escalera, full and póker: first-roll value, then the value after a re-roll.
_MIDDLE_POINTS = {Category.ESCALERA: (25, 20), Category.FULL: (35, 30), Category.POKER: (45, 40)}


def score(
    dice: Sequence[int],
    category: Category,
    roll: int,
    config: BoliviaConfig | None = None,
    grandes_before: int = 0,
) -> ScoreResult:
    """Score five dice made on roll `roll` (1 = the first) in `category`; `grandes_before` counts toward two."""
    config = config or BoliviaConfig()
    pips = check_dice(dice)
    check_roll_number(roll)
    face = category.face
    if face is not None:
        # Numbers: the sum of the matching dice; none matching is a crossed-out 0.
        points = face * pips.count(face)
        return ScoreResult(category, pips, roll, points, str(points) if points else "X", points > 0)
    if category is Category.GRANDE:
        if not is_grande(pips):
            return ScoreResult(category, pips, roll, 0, "X", False)
        points = grande_points(pips[0], grandes_before, config)
        de_mano = roll == 1 and (grandes_before < GRANDES_AT_FULL_VALUE or config.grande_de_mano_tras_limite)
        return ScoreResult(category, pips, roll, points, "$", True, grande=True, instant_win=de_mano)
    made = {
        Category.ESCALERA: is_escalera,
        Category.FULL: is_full,
        Category.POKER: is_poker,
    }[category](pips, config)
    if not made:
        return ScoreResult(category, pips, roll, 0, "X", False)
    first, later = _MIDDLE_POINTS[category]
    # Traditional marks of the middle column: "5" made on the first roll, "O" after a re-roll.
    return ScoreResult(category, pips, roll, first if roll == 1 else later, "5" if roll == 1 else "O", True)


@dataclass(frozen=True, slots=True)
class ScoreSettlement:
    """A category scored over dice in doubt (each die the faces it may show): the results it may give, whether they
    are one (settled), and the dice whose face alone could change it."""

    category: Category
    results: tuple[ScoreResult, ...]  # the distinct results, by points
    deciding: tuple[int, ...]  # places of the dice that could change it

    @property
    def settled(self) -> bool:
        """The same points and mark whichever face each die shows."""
        return len(self.results) == 1

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "category": self.category.value,
            "settled": self.settled,
            "points": sorted({r.points for r in self.results}),
            "marks": sorted({r.mark for r in self.results}),
            "deciding": list(self.deciding),
        }


def score_over(
    dice: Sequence[frozenset[int]],
    category: Category,
    roll: int,
    config: BoliviaConfig | None = None,
    grandes_before: int = 0,
) -> ScoreSettlement:
    """Score five dice in doubt in `category` (How to play: scores) over every choice of faces: the results it may
    give and the dice that could change it. A die with no face it may show, or one that is not 1-6, is refused."""
    import itertools

    if len(dice) != DICE:
        raise RuleError(ART_EQUIPMENT, f"se tiran {DICE} dados, no {len(dice)}")
    for k, faces in enumerate(dice, start=1):
        if not faces or any(f not in range(1, 7) for f in faces):
            raise RuleError(ART_EQUIPMENT, f"el dado {k} no tiene caras posibles de 1 a 6: {sorted(faces)}")
    known: dict[tuple[int, ...], ScoreResult] = {}

    def result(choice: Sequence[int]) -> ScoreResult:
        key = tuple(sorted(choice))  # scores never depend on the order of the dice
        if key not in known:
            known[key] = score(key, category, roll, config, grandes_before)
        return known[key]

    def outcome(choice: Sequence[int]) -> tuple[int, str, bool]:
        found = result(choice)
        return found.points, found.mark, found.instant_win

    choices = list(itertools.product(*(sorted(faces) for faces in dice)))
    distinct = {outcome(c): result(c) for c in choices}
    deciding: list[int] = []
    if len(distinct) > 1:
        for k, faces in enumerate(dice):
            others = [sorted(f) for j, f in enumerate(dice) if j != k]
            if len(faces) > 1 and any(
                len({outcome((*rest[:k], face, *rest[k:])) for face in faces}) > 1
                for rest in itertools.product(*others)
            ):
                deciding.append(k)
    results = tuple(sorted(distinct.values(), key=lambda r: (r.points, r.mark)))
    return ScoreSettlement(category, results, tuple(deciding))
