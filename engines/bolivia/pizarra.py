"""The pizarra: one cross hatch of ten cells, each empty or holding a score (points or an X)."""

from __future__ import annotations

from dataclasses import dataclass

from .scoring import CATEGORIES, Category, ScoreResult


@dataclass(frozen=True, slots=True)
class Pizarra:
    """One cross hatch: 1-3 on the left, 4-6 on the right, escalera/full/póker in the middle, grande below."""

    cells: tuple[ScoreResult | None, ...] = (None,) * len(CATEGORIES)

    def cell(self, category: Category) -> ScoreResult | None:
        """The score written in `category`, or None while it is empty."""
        return self.cells[CATEGORIES.index(category)]

    def is_open(self, category: Category) -> bool:
        """Whether `category` is still empty."""
        return self.cell(category) is None

    def open_categories(self) -> tuple[Category, ...]:
        """The empty categories, in pizarra order."""
        return tuple(c for c, cell in zip(CATEGORIES, self.cells, strict=True) if cell is None)

    def write(self, result: ScoreResult) -> Pizarra:
        """The pizarra with `result` written in its (empty) cell."""
        index = CATEGORIES.index(result.category)
        if self.cells[index] is not None:
            raise ValueError(f"la casilla {result.category.label} ya está llena")
        return Pizarra((*self.cells[:index], result, *self.cells[index + 1 :]))

    @property
    def full(self) -> bool:
        """Every cell holds a score or an X."""
        return all(cell is not None for cell in self.cells)

    @property
    def total(self) -> int:
        """The sum of the points written (an X is 0)."""
        return sum(cell.points for cell in self.cells if cell is not None)

    @property
    def grandes(self) -> int:
        """How many grandes are written (the "$" marks)."""
        return sum(1 for cell in self.cells if cell is not None and cell.grande)

    def to_dict(self) -> dict[str, object]:
        """JSON form: {category: {"points", "mark"} or null}, and the total."""
        cells: dict[str, object] = {}
        for category, cell in zip(CATEGORIES, self.cells, strict=True):
            cells[category.value] = None if cell is None else {"points": cell.points, "mark": cell.mark}
        return {"cells": cells, "total": self.total}
