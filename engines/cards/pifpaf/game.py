"""A whole hand of Pif Paf (seed 001): ante, betting capped at ante x players, play and going out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engines.cards.deck import DOUBLE_DECK, Card, show
from engines.cards.errors import CardRuleError, LogFormatError
from engines.cards.legal import Legality, legality
from engines.cards.log import (
    Event,
    check_choice,
    get_card,
    get_cards,
    get_int,
    get_int_list,
    get_names,
    options_from,
)
from engines.cards.melds import PIFPAF_RULES, Meld, any_going_out, going_out
from engines.cards.table import Discard, Draw, RummyTable, parse_turn_event

HAND_SIZE = 9
SETUP = "Pif Paf (Cacheta)"
BETTING = "Game play"
PLAY = "Play of the hand"
BET_CAPS = ("total", "raise")


class PifPafError(CardRuleError):
    """A refused Pif Paf action: the seed's section and a Spanish message."""


@dataclass(frozen=True, slots=True)
class PifPafOptions:
    """Named options where seed 001 is silent (one line each in docs/rulings.md)."""

    bet_cap: str = "total"  # "total": the bet may not pass ante x players; "raise": each raise may not
    claim_priority: bool = True  # a claim yields to a player nearer the discarder who could also go out


@dataclass(frozen=True, slots=True)
class Deal:
    """Nine cards to each player, in seat order from the dealer's left (no hands: face down, unknown to the table)."""

    hands: tuple[tuple[Card, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Fold:
    """Betting round: the player folds and is out of the hand."""

    player: int


@dataclass(frozen=True, slots=True)
class Call:
    """Betting round: the player matches the bet (checks when there is none)."""

    player: int


@dataclass(frozen=True, slots=True)
class Raise:
    """Betting round: the player raises the bet by `amount` chips."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class GoOut:
    """The player in turn discards and shows the other nine cards all in melds (`cards`: the nine shown, needed
    when some of his cards were never seen by the table)."""

    player: int
    discard: Card
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Claim:
    """Out of turn: the player takes the card just discarded, discards and goes out (`cards` as in GoOut)."""

    player: int
    discard: Card
    cards: tuple[Card, ...] = ()


Action = Deal | Fold | Call | Raise | Draw | Discard | GoOut | Claim


@dataclass(frozen=True, slots=True)
class PifPafHand:
    """One hand of Pif Paf: chips, pot, betting, the table's cards and whose turn it is."""

    players: tuple[str, ...]
    chips: tuple[int, ...]
    ante: int
    options: PifPafOptions = PifPafOptions()
    pot: int = 0
    phase: str = "deal"  # "deal", "bet", "play" or "over"
    folded: tuple[bool, ...] = ()
    to_act: tuple[int, ...] = ()
    level: int = 0
    put_in: tuple[int, ...] = ()
    table: RummyTable | None = None
    turn: int = 0
    must_draw: bool = True
    claimable_from: int | None = None  # who discarded the top card, while it may still be claimed
    winner: int | None = None
    won: int = 0  # the pot the winner took
    melds: tuple[Meld, ...] = ()

    @classmethod
    def start(
        cls, players: Sequence[str], chips: Sequence[int], ante: int, options: PifPafOptions = PifPafOptions()
    ) -> PifPafHand:
        """A new hand: every player antes (seats in order from the dealer's left)."""
        n = len(players)
        if not 3 <= n <= 8:
            raise PifPafError(SETUP, f"Pif Paf se juega de 3 a 8 jugadores, no {n}")
        if len(chips) != n:
            raise PifPafError(SETUP, "hace falta un número de fichas por jugador")
        if ante < 1:
            raise PifPafError(SETUP, "la apuesta inicial (ante) es de al menos una ficha")
        check_choice(BETTING, "bet_cap", options.bet_cap, BET_CAPS)
        poor = [players[i] for i in range(n) if chips[i] < ante]
        if poor:
            raise PifPafError(SETUP, f"no tiene fichas para la apuesta inicial: {', '.join(poor)}")
        return cls(
            tuple(players),
            tuple(c - ante for c in chips),
            ante,
            options,
            pot=ante * n,
            folded=(False,) * n,
            put_in=(0,) * n,
        )

    @property
    def cap(self) -> int:
        """The betting limit: the ante times the number of players."""
        return self.ante * len(self.players)

    @property
    def in_hand(self) -> tuple[int, ...]:
        """Seats that have not folded."""
        return tuple(i for i, f in enumerate(self.folded) if not f)

    def _next_seat(self, seat: int) -> int:
        n = len(self.players)
        for k in range(1, n + 1):
            if not self.folded[(seat + k) % n]:
                return (seat + k) % n
        return seat

    def check(self, action: Action) -> None:
        """Raise PifPafError if the action is not allowed now; change nothing."""
        if self.phase == "over":
            raise PifPafError("Object of Pif Paf", "la mano ya terminó")
        if isinstance(action, Deal):
            if self.phase != "deal":
                raise PifPafError(SETUP, "las cartas ya se repartieron")
            if not action.hands:
                return
            if len(action.hands) != len(self.players) or any(len(h) != HAND_SIZE for h in action.hands):
                raise PifPafError(SETUP, f"se reparten {HAND_SIZE} cartas a cada uno de los {len(self.players)}")
            DOUBLE_DECK.check([c for hand in action.hands for c in hand], PifPafError)
            return
        if self.phase == "deal":
            raise PifPafError(SETUP, "primero se reparten las cartas")
        if not 0 <= action.player < len(self.players):
            raise PifPafError(PLAY, f"no hay jugador {action.player}")
        if isinstance(action, Fold | Call | Raise):
            self._check_bet(action)
            return
        if self.phase != "play":
            raise PifPafError(BETTING, "primero se termina la ronda de apuestas")
        if self.folded[action.player]:
            raise PifPafError(BETTING, f"{self.players[action.player]} se retiró en las apuestas")
        assert self.table is not None
        if isinstance(action, Claim):
            self._check_claim(action)
            return
        if action.player != self.turn:
            raise PifPafError(PLAY, f"no es su turno: le toca a {self.players[self.turn]}")
        if isinstance(action, Draw):
            if not self.must_draw:
                raise PifPafError(PLAY, "ya robó: ahora descarta")
            self.table.check_draw(action.player, action.source, action.card, PifPafError, PLAY)
            return
        if self.must_draw:
            raise PifPafError(PLAY, "primero roba del mazo o del descarte")
        if isinstance(action, Discard):
            self.table.check_holds(action.player, action.card, PifPafError, PLAY, self.players[action.player])
            return
        shown = self._shown(self.table, action)
        if going_out(shown, PIFPAF_RULES, action.discard) is None:
            raise PifPafError(PLAY, "las nueve cartas que quedan no forman todas juegos válidos")

    def _shown(self, table: RummyTable, action: GoOut | Claim) -> tuple[Card, ...]:
        """The whole hand a player goes out with: the nine cards shown and the discard (checked against what the
        table knows of his hand), or his known hand when every card of it is known."""
        p, name = action.player, self.players[action.player]
        if not action.cards and not table.unseen(p):
            hand = table.hands[p]
            if action.discard not in hand:
                raise PifPafError(PLAY, f"{name} no tiene la carta {action.discard}")
            return hand
        if len(action.cards) != HAND_SIZE:
            raise PifPafError(PLAY, f"para salir se muestran las {HAND_SIZE} cartas que quedan tras el descarte")
        shown = (*action.cards, action.discard)
        table.check_shown(p, shown, PifPafError, PLAY, name)
        return shown

    def _check_bet(self, action: Fold | Call | Raise) -> None:
        if self.phase != "bet":
            raise PifPafError(BETTING, "la ronda de apuestas ya terminó")
        if action.player != self.to_act[0]:
            raise PifPafError(BETTING, f"no es su turno: le toca a {self.players[self.to_act[0]]}")
        owed = self.level - self.put_in[action.player]
        if isinstance(action, Fold):
            return
        if isinstance(action, Raise):
            if action.amount < 1:
                raise PifPafError(BETTING, "una subida es de al menos una ficha")
            limit = action.amount if self.options.bet_cap == "raise" else self.level + action.amount
            if limit > self.cap:
                raise PifPafError(BETTING, f"no se puede subir más allá de ante × jugadores = {self.cap} fichas")
            owed += action.amount
        if owed > self.chips[action.player]:
            raise PifPafError(BETTING, f"no tiene fichas suficientes: le faltan {owed - self.chips[action.player]}")

    def _check_claim(self, action: Claim) -> None:
        assert self.table is not None
        top = self.table.top
        discarder = self.claimable_from
        if discarder is None or top is None:
            raise PifPafError(PLAY, "no hay descarte recién tirado que reclamar")
        if action.player == discarder:
            raise PifPafError(PLAY, "no puede reclamar su propio descarte")
        hand = self._shown(self.table.take_top(action.player), action)
        if going_out(hand, PIFPAF_RULES, action.discard) is None:
            raise PifPafError(PLAY, f"con {top} no completa juegos con las nueve cartas: no puede reclamarla")
        if not self.options.claim_priority:
            return
        seat = self._next_seat(discarder)
        while seat != action.player:
            # "the next player in turn order from the player that discarded it gets the right to claim it first";
            # a hand the table has not seen cannot be judged: its player claims first or yields by himself.
            if not self.table.unseen(seat) and any_going_out(
                (*self.table.hands[seat], top), PIFPAF_RULES, keep_all=False
            ):
                raise PifPafError(PLAY, f"{self.players[seat]} también sale con {top} y tiene prioridad")
            seat = self._next_seat(seat)

    def apply(self, action: Action) -> PifPafHand:
        """Check the action, then return the new state."""
        self.check(action)
        n = len(self.players)
        if isinstance(action, Deal):
            stock = DOUBLE_DECK.size - HAND_SIZE * n
            if not action.hands:
                table = RummyTable(((),) * n, stock, hidden=(HAND_SIZE,) * n)
                return replace(self, table=table, phase="bet", to_act=tuple(range(n)))
            return replace(self, table=RummyTable(action.hands, stock), phase="bet", to_act=tuple(range(n)))
        if isinstance(action, Fold | Call | Raise):
            return self._apply_bet(action)
        assert self.table is not None
        p = action.player
        if isinstance(action, Draw):
            table, _ = self.table.draw(p, action.source, action.card)
            return replace(self, table=table, must_draw=False, claimable_from=None)
        if isinstance(action, Discard):
            table = self.table.throw(p, action.card)
            return replace(self, table=table, must_draw=True, turn=self._next_seat(p), claimable_from=p)
        table = self.table.take_top(p) if isinstance(action, Claim) else self.table
        hand = self._shown(table, action)
        table = table.reveal(p, hand)
        melds = going_out(hand, PIFPAF_RULES, action.discard)
        assert melds is not None
        return self._win(p, table.throw(p, action.discard), melds)

    def _apply_bet(self, action: Fold | Call | Raise) -> PifPafHand:
        p = action.player
        rest = self.to_act[1:]
        if isinstance(action, Fold):
            state = replace(self, folded=_set(self.folded, p, True), to_act=rest)
            if len(state.in_hand) == 1:
                # "Should all players but one fold, that player takes the pot by default"
                return state._win(state.in_hand[0], self.table, ())
        else:
            target = self.level + (action.amount if isinstance(action, Raise) else 0)
            paid = target - self.put_in[p]
            if isinstance(action, Raise):
                order = [(p + k) % len(self.players) for k in range(1, len(self.players))]
                rest = tuple(i for i in order if not self.folded[i])
            state = replace(
                self,
                chips=_set(self.chips, p, self.chips[p] - paid),
                put_in=_set(self.put_in, p, target),
                pot=self.pot + paid,
                level=target,
                to_act=rest,
            )
        if rest:
            return state
        first = 0 if not state.folded[0] else state._next_seat(0)
        # Folded hands stay in `table.hands`: out of play, but their cards are known.
        return replace(state, phase="play", turn=first, must_draw=True)

    def _win(self, seat: int, table: RummyTable | None, melds: tuple[Meld, ...]) -> PifPafHand:
        return replace(
            self,
            chips=_set(self.chips, seat, self.chips[seat] + self.pot),
            pot=0,
            won=self.pot,
            phase="over",
            winner=seat,
            table=table,
            melds=melds,
            to_act=(),
            claimable_from=None,
        )

    def legal_actions(self, player: int) -> list[Legality]:
        """What this player may do now, and why not, through the same checks as `check`."""
        candidates: list[tuple[str, Action]] = [
            ("fold", Fold(player)),
            ("call", Call(player)),
            ("raise", Raise(player, 1)),
            (
                "draw stock",
                Draw(player, "stock", self.table.next_stock_card() if self.table and not self.table.hidden else None),
            ),
            ("draw discard", Draw(player, "discard")),
        ]
        hand = self.table.hands[player] if self.table is not None else ()
        candidates += [(f"discard {c}", Discard(player, c)) for c in dict.fromkeys(hand)]
        candidates += [(f"out {c}", GoOut(player, c)) for c in dict.fromkeys(hand)]
        return legality(self.check, candidates)

    def summary(self) -> dict[str, Any]:
        """The state as JSON-ready data."""
        data: dict[str, Any] = {
            "game": "pifpaf",
            "players": list(self.players),
            "chips": list(self.chips),
            "pot": self.pot,
            "phase": self.phase,
            "folded": list(self.folded),
            "winner": self.winner,
        }
        if self.phase == "bet":
            data.update(to_act=self.to_act[0], bet=self.level, cap=self.cap)
        if self.phase == "play":
            data.update(turn=self.turn, must_draw=self.must_draw)
        if self.table is not None:
            data["hands"] = [show(h) for h in self.table.hands]
            data["discard_top"] = None if self.table.top is None else str(self.table.top)
            data["stock"] = self.table.stock_count + len(self.table.stock_known)
            if self.table.hidden:
                data["hidden"] = list(self.table.hidden)
        if self.melds:
            data["melds"] = [[str(c) for c in m.cards] for m in self.melds]
        return data


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


OPTION_FIELDS = {"bet_cap": str, "claim_priority": bool}


def new_state(event: Event) -> PifPafHand:
    """The hand described by a `start` event."""
    return PifPafHand.start(
        get_names(event),
        get_int_list(event, "chips"),
        get_int(event, "ante"),
        PifPafOptions(**options_from(event, OPTION_FIELDS)),
    )


def parse_action(event: Event) -> Action:
    """Turn one event dict into an action."""
    name = event["event"]
    if name == "deal":
        if "hands" not in event:
            return Deal()
        hands = event.get("hands")
        if not isinstance(hands, list):
            raise LogFormatError('falta "hands" (una lista de manos) en el evento «deal»')
        return Deal(tuple(get_cards({"event": "deal", "cards": h}, "cards") for h in hands))
    if name == "fold":
        return Fold(get_int(event, "player"))
    if name == "call":
        return Call(get_int(event, "player"))
    if name == "raise":
        return Raise(get_int(event, "player"), get_int(event, "amount"))
    turn = parse_turn_event(name, event)
    if turn is not None:
        return turn
    if name in ("out", "claim"):
        shown = get_cards(event, "cards") if "cards" in event else ()
        kind = GoOut if name == "out" else Claim
        return kind(get_int(event, "player"), get_card(event, "discard"), shown)
    raise LogFormatError(f"evento desconocido en Pif Paf: «{name}»")


def apply_event(state: PifPafHand, event: Event) -> PifPafHand:
    """Apply one logged event."""
    return state.apply(parse_action(event))
