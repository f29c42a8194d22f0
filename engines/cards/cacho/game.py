"""A whole hand of Spanish Cacho (seed 000): three betting rounds, resto, showdown; chips always known."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engines.cards.cacho.showdown import (
    CATEGORY_IDS,
    HIGH_CARD_TIEBREAKS,
    CachoError,
    Showdown,
    showdown,
)
from engines.cards.deck import CACHO_DECK, Card, show
from engines.cards.errors import LogFormatError
from engines.cards.legal import Legality, legality
from engines.cards.log import (
    Event,
    check_choice,
    get_cards,
    get_int,
    get_int_list,
    get_names,
    options_from,
    to_cards,
)

ROUND_ARTICLES = {1: "The first round", 2: "The Second Round", 3: "The Third Round"}
ROUND_BETS = {1: 1, 2: 2}  # chips put in by a bet in the first and second rounds


@dataclass(frozen=True, slots=True)
class CachoOptions:
    """Named options where seed 000 is silent (one line each in docs/rulings.md)."""

    high_card_tiebreak: str = "eldest"  # "eldest": same highest card -> eldest; "kickers": next cards first
    call_without_bet: bool = True  # third round: "call" with no bet yet stays in without chips


@dataclass(frozen=True, slots=True)
class Deal:
    """The table deals one card to each player still in, in seat order from the eldest (no cards: face down,
    unknown to the table until the hands are shown)."""

    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Show:
    """The hands shown at the showdown, one per player still in (seat order from the eldest), when some card was
    dealt face down."""

    hands: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class Pass:
    """A player passes (rounds 1-2: does not bet; round 3: leaves the hand)."""

    player: int


@dataclass(frozen=True, slots=True)
class Bet:
    """A player bets: one chip in the first round, two more in the second."""

    player: int


@dataclass(frozen=True, slots=True)
class Call:
    """Third round: a player matches the current bet."""

    player: int


@dataclass(frozen=True, slots=True)
class Raise:
    """Third round: a player raises the bet by `amount` chips (never beyond the resto)."""

    player: int
    amount: int


Action = Deal | Pass | Bet | Call | Raise | Show
SHOWDOWN = "Winning"


@dataclass(frozen=True, slots=True)
class CachoHand:
    """The state of one hand: chips in front of each player, the pot, the round and who is still in."""

    players: tuple[str, ...]
    chips: tuple[int, ...]
    options: CachoOptions = CachoOptions()
    pot: int = 0
    round: int = 1
    phase: str = "deal"  # "deal", "bet", "show" (the hands dealt face down to be shown) or "over"
    active: tuple[bool, ...] = ()
    hands: tuple[tuple[Card, ...], ...] = ()
    unseen: tuple[int, ...] = ()  # cards dealt face down to each seat, not known to the table
    bettors: tuple[bool, ...] = ()  # rounds 1-2: who bet in the current round
    to_act: tuple[int, ...] = ()  # players still to act in this betting round, in order
    level: int = 0  # third round: the bet each player must match
    put_in: tuple[int, ...] = ()  # third round: chips each player has put in this round
    redeals: int = 0
    winner: int | None = None
    won: int = 0  # the pot the winner took
    result: Showdown | None = field(default=None, compare=False)

    @classmethod
    def start(cls, players: Sequence[str], chips: Sequence[int], options: CachoOptions = CachoOptions()) -> CachoHand:
        """A new hand, seats in order from the eldest (the dealer's left)."""
        if not 2 <= len(players) <= 4:
            raise CachoError("Background", f"Cacho se juega de 2 a 4 jugadores, no {len(players)}")
        if len(chips) != len(players) or any(c < 0 for c in chips):
            raise CachoError("Background", "hace falta un número de fichas (no negativo) por jugador")
        check_choice("Winning", "high_card_tiebreak", options.high_card_tiebreak, HIGH_CARD_TIEBREAKS)
        n = len(players)
        return cls(
            tuple(players),
            tuple(chips),
            options,
            active=(True,) * n,
            hands=((),) * n,
            unseen=(0,) * n,
            bettors=(False,) * n,
            put_in=(0,) * n,
        )

    @property
    def in_hand(self) -> tuple[int, ...]:
        """Seats still in the hand, in order from the eldest."""
        return tuple(i for i, a in enumerate(self.active) if a)

    @property
    def resto(self) -> int:
        """Third round: the highest bet allowed, the chips of the poorest player still in."""
        return min(self.chips[i] + self.put_in[i] for i in self.in_hand)

    @property
    def next_player(self) -> int | None:
        """Who must act now, or None while dealing or when the hand is over."""
        return self.to_act[0] if self.phase == "bet" and self.to_act else None

    def check(self, action: Action) -> None:
        """Raise CachoError if the action is not allowed now; change nothing."""
        article = ROUND_ARTICLES[self.round]
        if self.phase == "over":
            raise CachoError("Winning", "la mano ya terminó")
        if isinstance(action, Show):
            self._check_show(action)
            return
        if self.phase == "show":
            raise CachoError(SHOWDOWN, "terminaron las apuestas: se muestran las manos")
        if isinstance(action, Deal):
            if self.phase != "deal":
                raise CachoError(article, "no toca repartir: faltan apuestas de esta ronda")
            if action.cards and len(action.cards) != len(self.in_hand):
                raise CachoError(
                    "Dealing",
                    f"se reparte una carta a cada jugador que sigue: {len(self.in_hand)}, no {len(action.cards)}",
                )
            CACHO_DECK.check([*(c for h in self.hands for c in h), *action.cards], CachoError)
            return
        if self.phase != "bet":
            raise CachoError("Dealing", "primero se reparte la carta de esta ronda")
        if not 0 <= action.player < len(self.players):
            raise CachoError(article, f"no hay jugador {action.player}")
        if action.player != self.next_player:
            raise CachoError(article, f"no es su turno: le toca a {self.players[self.to_act[0]]}")
        chips = self.chips[action.player]
        if isinstance(action, Pass):
            return
        if isinstance(action, Bet):
            if self.round == 3:
                raise CachoError(article, "en la tercera ronda se pasa, se iguala o se sube")
            if chips < ROUND_BETS[self.round]:
                raise CachoError(article, f"no tiene fichas para apostar {ROUND_BETS[self.round]}: solo pasa")
            return
        if self.round != 3:
            raise CachoError(article, "en las dos primeras rondas no hay subidas: se pasa o se apuesta")
        owed = self.level - self.put_in[action.player]
        if isinstance(action, Call):
            if self.level == 0 and not self.options.call_without_bet:
                raise CachoError(article, "nadie ha apostado: se pasa o se sube")
            if owed > chips:  # cannot happen under the resto; kept as a guard
                raise CachoError("Resto - Limit on Raises", "no tiene fichas para igualar")
            return
        if action.amount < 1:
            raise CachoError(article, "una subida es de al menos una ficha")
        if self.level + action.amount > self.resto:
            raise CachoError(
                "Resto - Limit on Raises",
                f"no se puede subir más allá del resto: {self.resto} fichas (las del jugador más corto)",
            )

    def _check_show(self, action: Show) -> None:
        if self.phase != "show":
            raise CachoError(SHOWDOWN, "las manos se muestran al terminar las apuestas de la tercera ronda")
        seats = self.in_hand
        if len(action.hands) != len(seats):
            raise CachoError(SHOWDOWN, f"se muestran las manos de los {len(seats)} jugadores que siguen")
        for seat, shown in zip(seats, action.hands, strict=True):
            if len(shown) != 3:
                raise CachoError(SHOWDOWN, f"{self.players[seat]} muestra tres cartas, no {len(shown)}")
            missing = [c for c in self.hands[seat] if c not in shown]
            if missing:
                raise CachoError(SHOWDOWN, f"{self.players[seat]} recibió {show(missing)} a la vista: debe mostrarla")
        shown_cards = [c for hand in action.hands for c in hand]
        others = [c for i, hand in enumerate(self.hands) if i not in seats for c in hand]
        CACHO_DECK.check([*shown_cards, *others], CachoError)

    def apply(self, action: Action) -> CachoHand:
        """Check the action, then return the new state."""
        self.check(action)
        if isinstance(action, Show):
            hands = list(self.hands)
            for seat, shown in zip(self.in_hand, action.hands, strict=True):
                hands[seat] = tuple(shown)
            unseen = tuple(0 if a else u for a, u in zip(self.active, self.unseen, strict=True))
            return replace(self, hands=tuple(hands), unseen=unseen)._showdown()
        if isinstance(action, Deal):
            return self._deal(action)
        p = action.player
        rest = self.to_act[1:]
        if self.round < 3:
            if isinstance(action, Bet):
                bet = ROUND_BETS[self.round]
                state = replace(
                    self,
                    chips=_set(self.chips, p, self.chips[p] - bet),
                    pot=self.pot + bet,
                    bettors=_set(self.bettors, p, True),
                    to_act=rest,
                )
            else:
                state = replace(self, to_act=rest)
            return state._end_round() if not rest else state
        if isinstance(action, Pass):
            state = replace(self, active=_set(self.active, p, False), to_act=rest)
            if len(state.in_hand) == 1:
                return state._win(state.in_hand[0])
            return state._showdown() if not rest else state
        target = self.level + (action.amount if isinstance(action, Raise) else 0)
        paid = target - self.put_in[p]
        if isinstance(action, Raise):
            # After a raise every other player still in must answer it again.
            order = [(p + k) % len(self.players) for k in range(1, len(self.players))]
            rest = tuple(i for i in order if self.active[i])
        state = replace(
            self,
            chips=_set(self.chips, p, self.chips[p] - paid),
            put_in=_set(self.put_in, p, target),
            pot=self.pot + paid,
            level=target,
            to_act=rest,
        )
        return state._showdown() if not rest else state

    def _deal(self, action: Deal) -> CachoHand:
        if not action.cards:
            unseen = tuple(u + 1 if a else u for a, u in zip(self.active, self.unseen, strict=True))
            return replace(self, unseen=unseen, phase="bet", to_act=self.in_hand)
        hands = list(self.hands)
        for seat, card in zip(self.in_hand, action.cards, strict=True):
            hands[seat] = (*hands[seat], card)
        return replace(self, hands=tuple(hands), phase="bet", to_act=self.in_hand)

    def _end_round(self) -> CachoHand:
        bettors = tuple(i for i in self.in_hand if self.bettors[i])
        n = len(self.players)
        if self.round == 1 and not bettors:
            # "If all players pass, the cards are shuffled back into the deck and another round begins."
            return replace(self, phase="deal", hands=((),) * n, unseen=(0,) * n, redeals=self.redeals + 1, to_act=())
        if self.round == 2 and not bettors:
            # "if everyone passes in the second round, all players remain in the game for the third"
            bettors = self.in_hand
        active = tuple(i in bettors for i in range(n))
        state = replace(self, active=active, bettors=(False,) * n, round=self.round + 1, phase="deal")
        if len(bettors) == 1:
            return state._win(bettors[0])
        return state

    def _win(self, seat: int) -> CachoHand:
        return replace(
            self,
            chips=_set(self.chips, seat, self.chips[seat] + self.pot),
            pot=0,
            won=self.pot,
            phase="over",
            winner=seat,
            to_act=(),
        )

    def _showdown(self) -> CachoHand:
        seats = self.in_hand
        if any(self.unseen[i] for i in seats):
            return replace(self, phase="show", to_act=())
        result = showdown([self.hands[i] for i in seats], self.options.high_card_tiebreak)
        return replace(self._win(seats[result.winner]), result=result)

    def legal_actions(self) -> list[Legality]:
        """What the player to act may do now, and why not, through the same checks as `check`."""
        player = self.next_player if self.next_player is not None else 0
        candidates: list[tuple[str, Action]] = [
            ("pass", Pass(player)),
            ("bet", Bet(player)),
            ("call", Call(player)),
            ("raise", Raise(player, 1)),
        ]
        return legality(self.check, candidates)

    def summary(self) -> dict[str, Any]:
        """The state as JSON-ready data."""
        data: dict[str, Any] = {
            "game": "cacho",
            "players": list(self.players),
            "chips": list(self.chips),
            "pot": self.pot,
            "round": self.round,
            "phase": self.phase,
            "in_hand": list(self.in_hand),
            "redeals": self.redeals,
            "winner": self.winner,
            "hands": [show(h) for h in self.hands],
        }
        if self.phase == "bet":
            data["to_act"] = self.next_player
        if any(self.unseen):
            data["unseen"] = list(self.unseen)
        if self.round == 3:
            data["bet"] = self.level
            data["resto"] = self.resto if self.phase != "over" else None
        if self.result is not None:
            data["showdown"] = {
                "seats": list(self.in_hand),
                "decided_by": self.result.decided_by,
                "hands": [{"category": CATEGORY_IDS[v.category], "points": v.points} for v in self.result.hands],
            }
        return data


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


OPTION_FIELDS = {"high_card_tiebreak": str, "call_without_bet": bool}


def new_state(event: Event) -> CachoHand:
    """The hand described by a `start` event."""
    return CachoHand.start(
        get_names(event), get_int_list(event, "chips"), CachoOptions(**options_from(event, OPTION_FIELDS))
    )


def parse_action(event: Event) -> Action:
    """Turn one event dict into an action."""
    name = event["event"]
    if name == "deal":
        return Deal(get_cards(event, "cards") if "cards" in event else ())
    if name == "show":
        return Show(_hands(event.get("hands")))
    if name == "pass":
        return Pass(get_int(event, "player"))
    if name == "bet":
        return Bet(get_int(event, "player"))
    if name == "call":
        return Call(get_int(event, "player"))
    if name == "raise":
        return Raise(get_int(event, "player"), get_int(event, "amount"))
    raise LogFormatError(f"evento desconocido en Cacho: «{name}»")


def _hands(value: object) -> tuple[tuple[Card, ...], ...]:
    if not isinstance(value, list):
        raise LogFormatError('falta "hands" (una lista de manos de tres cartas) en el evento «show»')
    return tuple(to_cards(hand) for hand in value)


def apply_event(state: CachoHand, event: Event) -> CachoHand:
    """Apply one logged event."""
    return state.apply(parse_action(event))
