"""An evening of Pif Paf (seed 001): hand after hand at one table, the chips carried over, the winner dealing next.

Players are named by their table seat (0, 1, ... clockwise); each hand is dealt by `dealer` and played by the
players who can pay the ante, from the dealer's left, with `PifPafHand` counting its seats that way. A log whose
`start` has `"evening": true` is an evening: `hand` (`dealer`) begins each hand, then the hand's own events with
table seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engines.cards.errors import LogFormatError
from engines.cards.log import Event, get_int, get_int_list, get_names, options_from
from engines.cards.pifpaf.game import (
    OPTION_FIELDS,
    PLAY,
    SETUP,
    Action,
    Deal,
    PifPafError,
    PifPafHand,
    PifPafOptions,
    parse_action,
)

DEALING = "Pif Paf (Cacheta)"
DEFAULT_OPTIONS = PifPafOptions()


@dataclass(frozen=True, slots=True)
class StartHand:
    """A new hand dealt by `dealer` (a table seat): everyone who can pay the ante antes."""

    dealer: int


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: the winner's table seat and the pot he took."""

    winner: int
    pot: int


@dataclass(frozen=True, slots=True)
class PifPafEvening:
    """The table's evening: each seat's chips between hands, and the hand in play with its seats."""

    players: tuple[str, ...]
    chips: tuple[int, ...]
    ante: int
    options: PifPafOptions = DEFAULT_OPTIONS
    hand_no: int = 0
    dealer: int | None = None
    seats: tuple[int, ...] = ()  # the table seats in the hand in play, from the dealer's left
    hand: PifPafHand | None = None
    results: tuple[HandResult, ...] = ()

    @classmethod
    def start(
        cls, players: Sequence[str], chips: Sequence[int], ante: int, options: PifPafOptions = DEFAULT_OPTIONS
    ) -> PifPafEvening:
        """A new evening (3 to 8 players, seats clockwise), checked as its first hand would be."""
        PifPafHand.start(players, chips, ante, options)
        return cls(tuple(players), tuple(chips), ante, options)

    @property
    def phase(self) -> str:
        """ "hand" between hands, else the hand's phase ("deal", "bet", "play")."""
        if self.hand is None or self.hand.phase == "over":
            return "hand"
        return self.hand.phase

    def seat(self, hand_seat: int) -> int:
        """The table seat of a seat of the hand in play."""
        return self.seats[hand_seat]

    def next_dealer(self) -> int | None:
        """Who deals the next hand: the winner of the last one ("The winner of the hand then deals the next one")."""
        return self.results[-1].winner if self.results else None

    def check(self, action: StartHand | Action) -> None:
        """Raise PifPafError if the action is not allowed now; change nothing."""
        if isinstance(action, StartHand):
            if self.phase != "hand":
                raise PifPafError(PLAY, "la mano en curso no ha terminado")
            if not 0 <= action.dealer < len(self.players):
                raise PifPafError(DEALING, f"no hay asiento {action.dealer}")
            wanted = self.next_dealer()
            if wanted is not None and action.dealer != wanted:
                raise PifPafError(DEALING, f"reparte {self.players[wanted]}: quien gana la mano reparte la siguiente")
            able = [s for s in range(len(self.players)) if self.chips[s] >= self.ante]
            if len(able) < 3:
                raise PifPafError(SETUP, "quedan menos de tres jugadores con fichas para la apuesta inicial")
            return
        if self.hand is None or self.hand.phase == "over":
            raise PifPafError(DEALING, "primero empieza la mano («hand» con quien reparte)")
        self.hand.check(self._local(action))

    def apply(self, action: StartHand | Action) -> PifPafEvening:
        """Check the action, then return the new state."""
        self.check(action)
        n = len(self.players)
        if isinstance(action, StartHand):
            # Who cannot pay the ante sits this hand out.
            order = [(action.dealer + k) % n for k in range(1, n + 1)]
            seats = tuple(s for s in order if self.chips[s] >= self.ante)
            hand = PifPafHand.start(
                [self.players[s] for s in seats], [self.chips[s] for s in seats], self.ante, self.options
            )
            chips = list(self.chips)
            for k, s in enumerate(seats):
                chips[s] = hand.chips[k]
            return replace(
                self, hand_no=self.hand_no + 1, dealer=action.dealer, seats=seats, hand=hand, chips=tuple(chips)
            )
        assert self.hand is not None
        hand = self.hand.apply(self._local(action))
        chips = list(self.chips)
        for k, s in enumerate(self.seats):
            chips[s] = hand.chips[k]
        state = replace(self, hand=hand, chips=tuple(chips))
        if hand.phase != "over" or hand.winner is None:
            return state
        return replace(state, results=(*self.results, HandResult(self.seat(hand.winner), hand.won)))

    def _local(self, action: Action) -> Action:
        """The action with the hand's seats; a table seat not in the hand is refused."""
        if isinstance(action, Deal):
            return action
        if action.player not in self.seats:
            name = self.players[action.player] if 0 <= action.player < len(self.players) else str(action.player)
            raise PifPafError(PLAY, f"{name} no juega esta mano")
        return replace(action, player=self.seats.index(action.player))

    def summary(self) -> dict[str, Any]:
        """The state as JSON-ready data, seats as at the table."""
        n = len(self.players)
        hand = self.hand
        data: dict[str, Any] = {
            "game": "pifpaf",
            "evening": True,
            "players": list(self.players),
            "chips": list(self.chips),
            "hand": self.hand_no,
            "dealer": self.dealer,
            "phase": self.phase,
            "pot": 0 if hand is None else hand.pot,
            "winner": None,
            "hands_won": [sum(1 for r in self.results if r.winner == s) for s in range(n)],
        }
        if hand is not None and hand.phase != "over":
            data["in_hand"] = [self.seat(i) for i in hand.in_hand]
            if hand.phase == "bet" and hand.to_act:
                data["to_act"] = self.seat(hand.to_act[0])
            if hand.phase == "play":
                data.update(turn=self.seat(hand.turn), must_draw=hand.must_draw)
            if hand.table is not None:
                data["discard_top"] = None if hand.table.top is None else str(hand.table.top)
        if self.results:
            last = self.results[-1]
            data["last_hand"] = {"winner": last.winner, "pot": last.pot}
            if hand is not None and hand.melds:
                data["last_hand"]["melds"] = [[str(c) for c in m.cards] for m in hand.melds]
        return data


def new_state(event: Event) -> PifPafEvening:
    """The evening described by a `start` event with `"evening": true`."""
    return PifPafEvening.start(
        get_names(event),
        get_int_list(event, "chips"),
        get_int(event, "ante"),
        PifPafOptions(**options_from(event, OPTION_FIELDS)),
    )


def parse_evening_action(event: Event) -> StartHand | Action:
    """Turn one evening event into an action (players by table seat)."""
    if event["event"] == "hand":
        return StartHand(get_int(event, "dealer"))
    if event["event"] == "start":
        raise LogFormatError("solo la primera línea es «start»")
    return parse_action(event)


def apply_event(state: PifPafEvening, event: Event) -> PifPafEvening:
    """Apply one logged event."""
    return state.apply(parse_evening_action(event))
