"""Cacheta's tournament scoring (seed 003, "Tournament Scoring"): VP by place with ties, and GP."""

from __future__ import annotations

from collections.abc import Sequence

PLACE_VP = {1: 5, 2: 3, 3: 2}  # "the fourth and last gets 0"
TIED_PLACE_VP = {1: 3, 2: 2, 3: 1}  # "1 point if it's a third-place tie, 2 ... second-place tie and 3 ... first"


def victory_points(places: Sequence[Sequence[int]]) -> dict[int, int]:
    """VP per seat, from groups of seats best first (players in one group tied for that place)."""
    points: dict[int, int] = {}
    place = 1
    for group in places:
        table = PLACE_VP if len(group) == 1 else TIED_PLACE_VP
        for seat in group:
            points[seat] = table.get(place, 0)
        place += len(group)
    return points


def game_points(rounds_played: Sequence[int], points: Sequence[int], winner: int | None) -> list[int]:
    """GP per seat: rounds played plus the points left; the table's winner gets rounds played plus one."""
    return [
        rounds + 1 if seat == winner else rounds + left
        for seat, (rounds, left) in enumerate(zip(rounds_played, points, strict=True))
    ]
