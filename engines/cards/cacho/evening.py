"""An evening of Spanish Cacho (seed 000): hand after hand at one table, the chips carried from hand to hand.

Players are named by their table seat (0, 1, ... clockwise); each hand starts with its eldest (the dealer's left),
and `CachoHand` plays it with its seats counted from that eldest. A log whose `start` has `"evening": true` is an
evening: `hand` (`eldest`) begins each hand, then the hand's own events with table seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engines.cards.cacho.game import (
    OPTION_FIELDS,
    Action,
    Bet,
    CachoHand,
    CachoOptions,
    Call,
    Deal,
    Pass,
    Raise,
    Show,
    parse_action,
)
from engines.cards.cacho.showdown import CATEGORY_IDS, CachoError
from engines.cards.deck import show
from engines.cards.errors import LogFormatError
from engines.cards.log import Event, get_int, get_int_list, get_names, options_from, to_cards

DEALING = "Dealing"
EVENING_OPTIONS = {**OPTION_FIELDS, "deal_rotates": bool}
DEFAULT_OPTIONS = CachoOptions()


@dataclass(frozen=True, slots=True)
class StartHand:
    """A new hand; `eldest` is the table seat to the dealer's left, who is dealt first and speaks first."""

    eldest: int


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: the winner's table seat, the pot he took, and the shown hands' values when shown."""

    winner: int
    pot: int
    showdown: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class CachoEvening:
    """The table's evening: the chips of each seat between hands, and the hand in play (its seats from the eldest)."""

    players: tuple[str, ...]
    chips: tuple[int, ...]
    options: CachoOptions = DEFAULT_OPTIONS
    deal_rotates: bool = True  # the next hand's eldest is the seat to the left of this hand's eldest
    hand_no: int = 0
    eldest: int | None = None
    hand: CachoHand | None = None
    results: tuple[HandResult, ...] = ()

    @classmethod
    def start(
        cls,
        players: Sequence[str],
        chips: Sequence[int],
        options: CachoOptions = DEFAULT_OPTIONS,
        deal_rotates: bool = True,
    ) -> CachoEvening:
        """A new evening (2 to 4 players, seats clockwise), checked as a hand would be."""
        CachoHand.start(players, chips, options)
        return cls(tuple(players), tuple(chips), options, deal_rotates)

    @property
    def phase(self) -> str:
        """ "hand" between hands, else the hand's phase ("deal", "bet", "show")."""
        if self.hand is None or self.hand.phase == "over":
            return "hand"
        return self.hand.phase

    def seat(self, hand_seat: int) -> int:
        """The table seat of a seat of the hand in play."""
        return ((self.eldest or 0) + hand_seat) % len(self.players)

    def hand_seat(self, seat: int) -> int:
        """The hand's seat (counted from its eldest) of a table seat."""
        return (seat - (self.eldest or 0)) % len(self.players)

    def next_eldest(self) -> int | None:
        """Who must be the eldest of the next hand (None: anyone, before the first hand or without rotation)."""
        if self.eldest is None or not self.deal_rotates:
            return None
        return (self.eldest + 1) % len(self.players)

    def check(self, action: StartHand | Action) -> None:
        """Raise CachoError if the action is not allowed now; change nothing."""
        if isinstance(action, StartHand):
            if self.phase != "hand":
                raise CachoError(DEALING, "la mano en curso no ha terminado")
            if not 0 <= action.eldest < len(self.players):
                raise CachoError(DEALING, f"no hay asiento {action.eldest}")
            wanted = self.next_eldest()
            if wanted is not None and action.eldest != wanted:
                raise CachoError(
                    DEALING, f"el mano de esta mano es {self.players[wanted]}: el reparto pasa a la izquierda"
                )
            return
        if self.hand is None or self.hand.phase == "over":
            raise CachoError(DEALING, "primero empieza la mano («hand» con el mano)")
        self.hand.check(self._local(action))

    def apply(self, action: StartHand | Action) -> CachoEvening:
        """Check the action, then return the new state."""
        self.check(action)
        if isinstance(action, StartHand):
            n = len(self.players)
            order = [(action.eldest + k) % n for k in range(n)]
            hand = CachoHand.start([self.players[s] for s in order], [self.chips[s] for s in order], self.options)
            return replace(self, hand_no=self.hand_no + 1, eldest=action.eldest, hand=hand)
        assert self.hand is not None
        hand = self.hand.apply(self._local(action))
        state = replace(self, hand=hand, chips=tuple(hand.chips[self.hand_seat(s)] for s in range(len(self.players))))
        if hand.phase != "over" or hand.winner is None:
            return state
        return replace(state, results=(*self.results, HandResult(self.seat(hand.winner), hand.won, _shown(state))))

    def _local(self, action: Action) -> Action:
        """The action with the hand's seats (counted from its eldest)."""
        if isinstance(action, Pass | Bet | Call):
            return type(action)(self.hand_seat(action.player))
        if isinstance(action, Raise):
            return Raise(self.hand_seat(action.player), action.amount)
        return action

    def summary(self) -> dict[str, Any]:
        """The state as JSON-ready data, seats as at the table."""
        n = len(self.players)
        hand = self.hand
        data: dict[str, Any] = {
            "game": "cacho",
            "evening": True,
            "players": list(self.players),
            "chips": list(self.chips),
            "hand": self.hand_no,
            "eldest": self.eldest,
            "phase": self.phase,
            "pot": 0 if hand is None else hand.pot,
            "round": None if hand is None else hand.round,
            "winner": None,
            "hands_won": [sum(1 for r in self.results if r.winner == s) for s in range(n)],
        }
        if hand is not None and hand.phase != "over":
            data["in_hand"] = [self.seat(i) for i in hand.in_hand]
            data["to_act"] = None if hand.next_player is None else self.seat(hand.next_player)
            data["cards"] = [hand.unseen[self.hand_seat(s)] + len(hand.hands[self.hand_seat(s)]) for s in range(n)]
            if hand.round == 3:
                data["bet"] = hand.level
                data["resto"] = hand.resto
                data["put_in"] = [hand.put_in[self.hand_seat(s)] for s in range(n)]
        if self.results:
            last = self.results[-1]
            data["last_hand"] = {"winner": last.winner, "pot": last.pot, "showdown": last.showdown}
        return data


def _shown(state: CachoEvening) -> dict[str, Any] | None:
    """The showdown of the hand just over, with table seats, or None when it was won without showing."""
    hand = state.hand
    if hand is None or hand.result is None:
        return None
    seats = [state.seat(i) for i in hand.in_hand]
    return {
        "seats": seats,
        "decided_by": hand.result.decided_by,
        "hands": [
            {"seat": seat, "cards": show(v.cards).split(), "category": CATEGORY_IDS[v.category], "points": v.points}
            for seat, v in zip(seats, hand.result.hands, strict=True)
        ],
    }


def new_state(event: Event) -> CachoEvening:
    """The evening described by a `start` event with `"evening": true`."""
    raw = dict(options_from(event, EVENING_OPTIONS))
    rotates = bool(raw.pop("deal_rotates", True))
    return CachoEvening.start(get_names(event), get_int_list(event, "chips"), CachoOptions(**raw), rotates)


def parse_evening_action(state: CachoEvening, event: Event) -> StartHand | Action:
    """Turn one evening event into an action (players and the shown hands by table seat)."""
    name = event["event"]
    if name == "hand":
        return StartHand(get_int(event, "eldest"))
    if name == "show":
        value = event.get("hands")
        n = len(state.players)
        if not isinstance(value, list) or len(value) != n:
            raise LogFormatError(f'"hands" es una lista de {n} manos por asiento (null para quien no sigue)')
        hand = state.hand
        if hand is None or hand.phase != "show":  # refused by the hand's own check, with its section
            return Show(tuple(to_cards(h) for h in value if h is not None))
        seats = [state.seat(i) for i in hand.in_hand]
        if any((value[s] is None) == (s in seats) for s in range(n)):
            raise CachoError("Winning", "se muestran las manos de los que siguen, y solo esas (null para los demás)")
        return Show(tuple(to_cards(value[s]) for s in seats))
    return parse_action(event)


def apply_event(state: CachoEvening, event: Event) -> CachoEvening:
    """Apply one logged event."""
    return state.apply(parse_evening_action(state, event))


__all__ = ["CachoEvening", "Deal", "HandResult", "StartHand", "apply_event", "new_state"]
