"""Truco's card ranking, a trick and the hand's best of three (seed 001: «Valor de las cartas», «Juego de la mano»)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engines.cards.deck import TRUCO_DECK, Card
from engines.cards.errors import CardRuleError

# The seed's sections as the refusals name them: its headings in Spanish (the seed's English after each).
RANKING = "Valor de las cartas"  # "Card ranking"
PLAY = "Juego de la mano"  # "Play of the hand"
# (high) 4♣, 7♥, A♠, 7♦, 3, 2, A, K, J, Q, 7, 6, 5, 4 (low)
MANILHAS = {Card(4, "C"): 14, Card(7, "H"): 13, Card(1, "S"): 12, Card(7, "D"): 11}
RANK_ORDER = {3: 10, 2: 9, 1: 8, 13: 7, 11: 6, 12: 5, 7: 4, 6: 3, 5: 2, 4: 1}
TRIPLE_TIES = ("nobody", "mao")


class TrucoError(CardRuleError):
    """A refused Truco action: the seed's section (its heading in Spanish) and a Spanish message."""


def strength(card: Card) -> int:
    """How high the card ranks in Truco (14 for 4♣ down to 1 for a plain 4); suits matter only for manilhas."""
    TRUCO_DECK.check([card], TrucoError)
    return MANILHAS.get(card, RANK_ORDER[card.rank])


def team_of(seat: int) -> int:
    """Partners sit across: seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat % 2


@dataclass(frozen=True, slots=True)
class Play:
    """One card played to a trick (face down only in the second and third tricks)."""

    seat: int
    card: Card
    down: bool = False


@dataclass(frozen=True, slots=True)
class TrickResult:
    """Who took a trick: the team (None when opposing teams tie), the winning seat, and who leads next."""

    team: int | None
    winner: int | None
    leads_next: int
    plays: tuple[Play, ...] = ()


def resolve_trick(plays: Sequence[Play]) -> TrickResult:
    """Decide a trick from its plays in the order played."""
    if not plays:
        raise TrucoError(PLAY, "una baza necesita cartas")
    faces = [p for p in plays if not p.down]  # "Face-down cards are unable to win the trick"
    if not faces:
        return TrickResult(None, None, plays[0].seat, tuple(plays))
    top = max(strength(p.card) for p in faces)
    best = [p for p in faces if strength(p.card) == top]
    teams = {team_of(p.seat) for p in best}
    # Ties: within one team that team wins, the first of the two leads; across teams nobody wins,
    # and "whichever of the tying players played first gets to lead to the next trick".
    if len(teams) == 1:
        return TrickResult(team_of(best[0].seat), best[0].seat, best[0].seat, tuple(plays))
    return TrickResult(None, None, best[0].seat, tuple(plays))


def hand_outcome(results: Sequence[int | None], mao_team: int, triple_tie: str = "nobody") -> tuple[bool, int | None]:
    """Whether the hand is decided by these trick results (team or None per trick), and for which team."""
    for team in (0, 1):
        if results.count(team) >= 2:
            return True, team
    if len(results) >= 2:
        first = results[0]
        if first is not None and results[-1] is None:
            # "When a trick is tied, whichever team won the first trick that hand is the winner"
            return True, first
        if first is None:
            decided = [r for r in results if r is not None]
            if decided:
                # After a tied first trick, the next trick someone takes decides the hand.
                return True, decided[0]
    if len(results) == 3:
        return True, (mao_team if triple_tie == "mao" else None)
    return False, None
