"""An independent referee for the property tests: re-derives each ruling from the events alone.

It does not use the engine's round state: it tracks who opened, how many dice each player had when the
round began, and the bids said, and applies the Reglamento's counting and penalties to the dice shown.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engines.dudo import Bid, Calzo, Dudo, DudoConfig, Paso, Reveal

HANDS = {"full": 0, "escala": 1, "quintilla": 2}


def literal_hand(dice: tuple[int, ...]) -> str | None:
    """Full (3+2), escala (5 distinct) or quintilla (5 equal), taken literally."""
    if len(dice) != 5:
        return None
    shape = sorted(Counter(dice).values())
    return {(5,): "quintilla", (2, 3): "full", (1, 1, 1, 1, 1): "escala"}.get(tuple(shape))


@dataclass
class Oracle:
    """Tracks one table from its events and predicts each ruling's dice changes."""

    players: tuple[str, ...]
    dice: dict[str, int]
    config: DudoConfig
    opener: str
    opener_lost: bool = True  # the first round is an opening
    bids: list[Bid] = field(default_factory=list)
    paso: Paso | None = None
    challenge: Dudo | Calzo | None = None
    false_start_seen: bool = False

    def round_kind(self) -> tuple[bool, bool]:
        """(obligo, opening rules) for the current round, from the dice when it began."""
        active = sum(1 for n in self.dice.values() if n > 0)
        heads_up = active == 2
        obligo = self.dice[self.opener] == 1 and (not heads_up or self.config.obligo_en_mano_a_mano)
        opening = not heads_up and not obligo and (self.opener_lost or self.config.apertura_en_toda_ronda)
        return obligo, opening

    def see(self, event: Bid | Dudo | Calzo | Paso) -> None:
        """Record a player's action."""
        if isinstance(event, Bid):
            _, opening = self.round_kind()
            if (opening and len(self.bids) == 1 and self.bids[0].face == 1) or event.desestima:
                self.false_start_seen = True  # implicit dismissals need the raise rules: skip the check
            self.bids.append(event)
            self.paso = None
        elif isinstance(event, Paso):
            self.paso = event
        else:
            self.challenge = event

    def predict(self, reveal: Reveal) -> dict[str, int] | None:
        """The dice each player should lose (-) or get back (+); None where the oracle abstains."""
        shown = reveal.as_dict()
        challenger = self.challenge
        assert challenger is not None
        if isinstance(challenger, Dudo) and self.paso is not None:
            if self.config.paso_ases_comodin:
                return None
            have = literal_hand(shown[self.paso.player])
            declared = self.paso.hand.value
            held = have == declared or (
                self.config.paso_mayor_cubre and have is not None and HANDS[have] > HANDS[declared]
            )
            return {challenger.player: -1} if held else {self.paso.player: -1}
        if self.false_start_seen:
            return None
        obligo, opening = self.round_kind()
        bid = self.bids[-1]
        at_opening = len(self.bids) == 1
        aces_wild = not obligo and not (opening and at_opening)
        every = [d for faces in shown.values() for d in faces]
        total = every.count(bid.face) + (every.count(1) if aces_wild and bid.face != 1 else 0)
        if isinstance(challenger, Dudo):
            loser = challenger.player if total >= bid.quantity else bid.player
            lost = 2 if opening and at_opening else 1
            return {loser: -min(lost, self.dice[loser])}
        if total == bid.quantity:
            return {challenger.player: 1 if self.dice[challenger.player] < 5 else 0}
        return {challenger.player: -1}

    def settle(self, changes: dict[str, int], next_opener: str | None) -> None:
        """Apply a ruling's changes and start the next round."""
        lost_one = None
        for name, delta in changes.items():
            self.dice[name] += delta
            if delta < 0:
                lost_one = name
        if next_opener is not None:
            self.opener_lost = next_opener == lost_one
            self.opener = next_opener
        self.bids, self.paso, self.challenge, self.false_start_seen = [], None, None, False
