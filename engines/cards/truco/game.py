"""A whole game of Brazilian Truco (seed 001): hands to twelve tentos, the deal, truco stakes and fouls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from engines.cards.deck import TRUCO_DECK, Card, show
from engines.cards.errors import LogFormatError
from engines.cards.legal import Legality, legality
from engines.cards.log import (
    Event,
    check_choice,
    get_bool,
    get_card,
    get_cards,
    get_int,
    get_names,
    get_str,
    options_from,
)
from engines.cards.truco.trick import (
    PLAY,
    TRIPLE_TIES,
    Play,
    TrickResult,
    TrucoError,
    hand_outcome,
    resolve_trick,
    team_of,
)

# The seed's sections as the refusals name them: its headings in Spanish (the seed's English after each); the
# game as a whole is «Truco», and the penalties, which have no heading of their own, follow «Subir la apuesta».
GAME = "Truco"  # the seed's part on Truco: four players in two partnerships
DEALING = "El reparto"  # "Dealing procedure"
STAKES = "Subir la apuesta"  # "Raising the stakes"
ELEVEN = "La mano de once"  # "A score of eleven"
OBJECT = "Objeto del Truco"  # "Object of Truco"
GAME_POINTS = 12
LADDER = (1, 3, 6, 9, 12)  # truco, retruco (six), nine, queda (twelve)
MAX_REJECTIONS = 3


class Phase(StrEnum):
    """Where the game stands (the values are what the summary and the kiosk's JSON say)."""

    HAND = "hand"  # the next hand is to start
    DEAL = "deal"  # the hand is being cut and dealt
    ELEVEN = "eleven"  # dealt with a team on eleven: it runs or plays for three
    PLAY = "play"  # the tricks are being played
    OVER = "over"  # a team has twelve tentos


class HandKind(StrEnum):
    """What kind of hand is dealt, by the score (seed 001, «La mano de once»)."""

    NORMAL = "normal"
    ELEVEN = "eleven"  # one team on eleven: dealt straight, played for three or run, no truco
    IRON = "iron"  # both teams on eleven: played face up one card at a time


class FoulKind(StrEnum):
    """The rules whose breach gives the other team one tento (seed 001, after «Subir la apuesta»)."""

    SHUFFLE = "shuffle"
    CUT = "cut"
    DEAL = "deal"
    REJECT = "reject"  # the mão rejecting when not allowed
    DISCLOSE = "disclose"  # telling or showing one's cards (signals are fine)
    OVERRAISE = "overraise"  # raising beyond what wins the game


FOUL_KINDS = tuple(FoulKind)


@dataclass(frozen=True, slots=True)
class TrucoOptions:
    """Named options where seed 001 is silent (one line each in docs/rulings.md)."""

    triple_tie: str = "nobody"  # all three tricks tied: "nobody" scores, or the "mao"'s team wins
    truco_in_turn: bool = True  # truco is called by the player about to play, before playing


@dataclass(frozen=True, slots=True)
class StartHand:
    """A new hand dealt by `dealer` (the mão is the player to his right, the next seat)."""

    dealer: int


@dataclass(frozen=True, slots=True)
class Cut:
    """The player to the dealer's left cuts one to three times into two stacks; deal from top or bottom."""

    player: int
    cuts: int
    side: str  # "top" or "bottom"


@dataclass(frozen=True, slots=True)
class Offer:
    """The dealer deals three cards face down to the mão, who then keeps, passes or rejects them (no cards: the
    table does not know them)."""

    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Keep:
    """The mão keeps the offered cards; the dealer deals the others."""

    player: int


@dataclass(frozen=True, slots=True)
class PassToPartner:
    """The mão passes the offered cards to his partner (once per deal) and gets another three."""

    player: int


@dataclass(frozen=True, slots=True)
class Reject:
    """The mão rejects the offered cards (face up, out of play), at most three times per deal."""

    player: int


@dataclass(frozen=True, slots=True)
class DealTo:
    """Three cards dealt to one seat, in the order of the procedure (no cards: face down, unknown to the table)."""

    seat: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class ElevenDecision:
    """Hand of eleven: the team with eleven runs (one tento to the others) or plays for three."""

    team: int
    play: bool


@dataclass(frozen=True, slots=True)
class Truco:
    """A player raises the stake to the next step: truco (3), six, nine, queda (12)."""

    player: int


@dataclass(frozen=True, slots=True)
class Accept:
    """An opponent of the raiser accepts the proposed stake."""

    player: int


@dataclass(frozen=True, slots=True)
class Run:
    """An opponent of the raiser runs: the raiser's team wins the hand at the stake before the raise."""

    player: int


@dataclass(frozen=True, slots=True)
class PlayCard:
    """A player plays a card to the trick (face down only in the second and third tricks)."""

    player: int
    card: Card
    down: bool = False


@dataclass(frozen=True, slots=True)
class Foul:
    """A team broke a rule (shuffle, cut, deal, reject, disclose, overraise): one tento to the others."""

    team: int
    kind: FoulKind


Action = (
    StartHand
    | Cut
    | Offer
    | Keep
    | PassToPartner
    | Reject
    | DealTo
    | ElevenDecision
    | Truco
    | Accept
    | Run
    | PlayCard
    | Foul
)


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: the team that took it (None: nobody) and the tentos scored."""

    team: int | None
    tentos: int
    reason: str  # "tricks", "run", "eleven_run" or "tie"


@dataclass(frozen=True, slots=True)
class TrucoGame:
    """A game of Truco: the teams' tentos and the hand in progress."""

    players: tuple[str, ...]
    options: TrucoOptions = TrucoOptions()
    scores: tuple[int, int] = (0, 0)
    phase: Phase = Phase.HAND
    hand_no: int = 0
    dealer: int | None = None
    kind: HandKind = HandKind.NORMAL
    cut_done: bool = False
    offer: tuple[Card, ...] | None = None
    rejections: int = 0
    passed: bool = False
    hands: tuple[tuple[Card, ...] | None, ...] = (None, None, None, None)
    hidden: tuple[int, ...] = (0, 0, 0, 0)  # cards held that the table has not seen (dealt without cards)
    seen: tuple[Card, ...] = ()  # every card dealt this hand, rejected hands included
    deal_queue: tuple[int, ...] = ()
    stake: int = 1
    pending: int | None = None  # the stake proposed and not yet answered
    last_raiser: int | None = None  # the team that made the last raise
    tricks: tuple[TrickResult, ...] = ()
    current: tuple[Play, ...] = ()
    turn: int = 0
    last_result: HandResult | None = None
    winner: int | None = None

    @classmethod
    def start(cls, players: Sequence[str], options: TrucoOptions = TrucoOptions()) -> TrucoGame:
        """A new game for four players, seated in playing order (partners across: 0 & 2, 1 & 3)."""
        if len(players) != 4:
            raise TrucoError(GAME, f"Truco se juega de a cuatro, en dos parejas; no {len(players)}")
        check_choice(PLAY, "triple_tie", options.triple_tie, TRIPLE_TIES)
        return cls(tuple(players), options)

    @property
    def mao(self) -> int:
        """The mão: the player to the dealer's right (the next seat in playing order)."""
        return ((self.dealer or 0) + 1) % 4

    @property
    def raiser_team(self) -> int | None:
        """While a raise is unanswered, the team that made it."""
        return self.last_raiser if self.pending is not None else None

    def check(self, action: Action) -> None:
        """Raise TrucoError if the action is not allowed now; change nothing."""
        if self.phase == Phase.OVER:
            raise TrucoError(OBJECT, "el juego terminó: una pareja llegó a doce tentos")
        if isinstance(action, Foul):
            if action.team not in (0, 1) or action.kind not in FOUL_KINDS:
                raise _unknown_foul()
            return
        if isinstance(action, StartHand):
            if self.phase != Phase.HAND:
                raise TrucoError(PLAY, "la mano en curso no ha terminado")
            if not 0 <= action.dealer < 4:
                raise TrucoError(DEALING, f"no hay asiento {action.dealer}")
            if self.dealer is not None and action.dealer != (self.dealer + 1) % 4:
                raise TrucoError(DEALING, f"reparte {self.players[(self.dealer + 1) % 4]}: la mano pasa a la derecha")
            return
        if self.phase == Phase.HAND:
            raise TrucoError(DEALING, "primero empieza la mano («hand» con quien reparte)")
        if isinstance(action, Cut | Offer | Keep | PassToPartner | Reject | DealTo):
            self._check_deal(action)
            return
        if isinstance(action, ElevenDecision):
            if self.phase != Phase.ELEVEN:
                raise TrucoError(ELEVEN, "no hay mano de once por decidir")
            if action.team not in (0, 1):
                raise TrucoError(ELEVEN, f"no hay pareja {action.team}: las parejas son 0 y 1")
            if self.scores[action.team] != GAME_POINTS - 1:
                raise TrucoError(ELEVEN, "decide la pareja que tiene once")
            return
        if self.phase != Phase.PLAY:
            article = ELEVEN if self.phase == Phase.ELEVEN else DEALING
            raise TrucoError(article, "aún no se juega: falta el reparto o la decisión de once")
        if not 0 <= action.player < 4:
            raise TrucoError(PLAY, f"no hay asiento {action.player}")
        team = team_of(action.player)
        if isinstance(action, Truco):
            self._check_truco(action, team)
            return
        if isinstance(action, Accept | Run):
            if self.pending is None:
                raise TrucoError(STAKES, "no hay truco que responder")
            if team == self.last_raiser:
                raise TrucoError(STAKES, "responde la pareja contraria a quien trucó")
            return
        if self.pending is not None:
            raise TrucoError(STAKES, "hay que responder el truco antes de jugar")
        if action.player != self.turn:
            raise TrucoError(PLAY, f"no es su turno: juega {self.players[self.turn]}")
        hand = self.hands[action.player] or ()
        if action.card not in hand:
            if not self.hidden[action.player]:
                raise TrucoError(PLAY, f"{self.players[action.player]} no tiene la carta {action.card}")
            # A card dealt face down: any card of the deck the table has not seen this hand.
            TRUCO_DECK.check([action.card], TrucoError)
            if action.card in self.seen:
                raise TrucoError(PLAY, f"la carta {action.card} ya se vio en esta mano: no puede estar en otra mano")
        if action.down and not self.tricks:
            raise TrucoError(PLAY, "en la primera baza no se juega carta tapada")
        if action.down and self.kind == HandKind.IRON:
            raise TrucoError(ELEVEN, "en la mano de hierro las cartas se dan vuelta una a una: no hay tapadas")

    def _check_truco(self, action: Truco, team: int) -> None:
        if self.kind != HandKind.NORMAL:
            raise TrucoError(ELEVEN, "en la mano de once y en la de hierro no se puede trucar")
        if self.pending is None:
            if self.options.truco_in_turn and action.player != self.turn:
                raise TrucoError(STAKES, f"truca quien está por jugar: {self.players[self.turn]}")
            at_stake = self.stake
        else:
            if team == self.last_raiser:
                raise TrucoError(STAKES, "la pareja que trucó espera la respuesta")
            at_stake = self.pending
        if team == self.last_raiser:
            raise TrucoError(STAKES, "la pareja que hizo la última subida no puede volver a subir")
        if at_stake >= GAME_POINTS:
            raise TrucoError(STAKES, "la apuesta ya es queda (doce): no se sube más")
        if self.scores[team] + at_stake >= GAME_POINTS:
            raise TrucoError(
                STAKES,
                f"con {self.scores[team]} tentos, {at_stake} ya ganan el juego: no se sube más allá de lo necesario",
            )

    def _check_deal(self, action: Cut | Offer | Keep | PassToPartner | Reject | DealTo) -> None:
        if self.phase != Phase.DEAL:
            raise TrucoError(DEALING, "el reparto ya terminó")
        d = self.dealer or 0
        started = bool(self.seen)
        if isinstance(action, Cut):
            if started or self.cut_done:
                raise TrucoError(DEALING, "se corta una sola vez, antes de repartir")
            if action.player != (d + 3) % 4:
                cutter = self.players[(d + 3) % 4]
                raise TrucoError(DEALING, f"corta el jugador a la izquierda de quien reparte: {cutter}")
            if not 1 <= action.cuts <= 3:
                raise TrucoError(DEALING, "se corta de una a tres veces, siempre en dos montones")
            if action.side not in ("top", "bottom"):
                raise TrucoError(DEALING, "se pide repartir de arriba («top») o de abajo («bottom»)")
            return
        if isinstance(action, Offer | DealTo) and action.cards:
            if len(action.cards) != 3:
                raise TrucoError(DEALING, f"se reparten tres cartas, no {len(action.cards)}")
            TRUCO_DECK.check([*self.seen, *action.cards], TrucoError)
        if isinstance(action, Offer):
            if self.kind != HandKind.NORMAL:
                raise TrucoError(ELEVEN, "con once se reparte directamente a cada uno: el mão no pasa ni rechaza")
            if self.offer is not None or self.hands[self.mao] is not None:
                raise TrucoError(DEALING, "el mão ya tiene cartas delante")
            return
        if isinstance(action, DealTo):
            if not self.deal_queue:
                raise TrucoError(DEALING, "aún no se reparte a los demás: el mão decide primero")
            if action.seat != self.deal_queue[0]:
                raise TrucoError(DEALING, f"ahora se reparte a {self.players[self.deal_queue[0]]}")
            return
        if action.player != self.mao:
            raise TrucoError(DEALING, f"decide el mão: {self.players[self.mao]}")
        if self.offer is None:
            raise TrucoError(DEALING, "no hay cartas ofrecidas al mão")
        if isinstance(action, PassToPartner) and (self.passed or self.hands[(self.mao + 2) % 4] is not None):
            raise TrucoError(DEALING, "el mão ya pasó una mano a su compañero")
        if isinstance(action, Reject) and self.rejections >= MAX_REJECTIONS:
            raise TrucoError(DEALING, "el mão no puede rechazar más de tres manos por reparto")

    def apply(self, action: Action) -> TrucoGame:
        """Check the action, then return the new state."""
        self.check(action)
        if isinstance(action, Foul):
            return self._foul(action)
        if isinstance(action, StartHand):
            return self._start_hand(action.dealer)
        if isinstance(action, Cut):
            return replace(self, cut_done=True)
        if isinstance(action, Offer):
            return replace(self, offer=action.cards, seen=(*self.seen, *action.cards))
        if isinstance(action, Keep | PassToPartner | Reject):
            return self._mao_decision(action)
        if isinstance(action, DealTo):
            state = replace(self._give(action.seat, action.cards), seen=(*self.seen, *action.cards))
            state = replace(state, deal_queue=self.deal_queue[1:])
            if state.deal_queue:
                return state
            return replace(state, phase=Phase.ELEVEN if self.kind == HandKind.ELEVEN else Phase.PLAY, turn=self.mao)
        if isinstance(action, ElevenDecision):
            if action.play:
                return replace(self, phase=Phase.PLAY, stake=3)
            return self._end_hand(HandResult(1 - action.team, 1, "eleven_run"))
        if isinstance(action, Truco):
            team = team_of(action.player)
            # Raising over an unanswered raise accepts it first ("Raise (retruco)"): running later concedes it.
            stake = self.pending if self.pending is not None else self.stake
            return replace(self, stake=stake, pending=LADDER[LADDER.index(stake) + 1], last_raiser=team)
        if isinstance(action, Accept):
            assert self.pending is not None
            return replace(self, stake=self.pending, pending=None)
        if isinstance(action, Run):
            assert self.last_raiser is not None
            # "The trucador's team immediately wins the hand" at the stake accepted so far.
            return self._end_hand(HandResult(self.last_raiser, self.stake, "run"))
        return self._play(action)

    def _start_hand(self, dealer: int) -> TrucoGame:
        eleven = [s == GAME_POINTS - 1 for s in self.scores]
        kind = HandKind.IRON if all(eleven) else HandKind.ELEVEN if any(eleven) else HandKind.NORMAL
        mao = (dealer + 1) % 4
        # With eleven the dealer "simply deals a hand of three cards to each player", from the mão on.
        queue = tuple((mao + k) % 4 for k in range(4)) if kind != HandKind.NORMAL else ()
        return replace(
            self,
            phase=Phase.DEAL,
            hand_no=self.hand_no + 1,
            dealer=dealer,
            kind=kind,
            cut_done=False,
            offer=None,
            rejections=0,
            passed=False,
            hands=(None, None, None, None),
            hidden=(0, 0, 0, 0),
            seen=(),
            deal_queue=queue,
            stake=1,
            pending=None,
            last_raiser=None,
            tricks=(),
            current=(),
            turn=mao,
        )

    def _mao_decision(self, action: Keep | PassToPartner | Reject) -> TrucoGame:
        assert self.offer is not None
        mao, d = self.mao, self.dealer or 0
        if isinstance(action, Reject):
            return replace(self, offer=None, rejections=self.rejections + 1)
        if isinstance(action, PassToPartner):
            return replace(self._give((mao + 2) % 4, self.offer), offer=None, passed=True)
        # "the dealer deals three cards to the dealer's partner, then the mão's partner, and finally themselves"
        queue = tuple(s for s in ((d + 2) % 4, (d + 3) % 4, d) if self.hands[s] is None)
        return replace(self._give(mao, self.offer), offer=None, deal_queue=queue)

    def _give(self, seat: int, cards: tuple[Card, ...]) -> TrucoGame:
        """The seat gets three cards: known ones, or three face down that the table does not know."""
        return replace(self, hands=_set(self.hands, seat, cards), hidden=_set(self.hidden, seat, 0 if cards else 3))

    def cards_left(self, seat: int) -> int:
        """How many cards the seat still holds, seen or not."""
        return len(self.hands[seat] or ()) + self.hidden[seat]

    def _play(self, action: PlayCard) -> TrucoGame:
        p = action.player
        hand = list(self.hands[p] or ())
        current = (*self.current, Play(p, action.card, action.down))
        if action.card in hand:
            hand.remove(action.card)
            state = replace(self, hands=_set(self.hands, p, tuple(hand)))
        else:  # from the cards dealt face down: now seen
            state = replace(self, hidden=_set(self.hidden, p, self.hidden[p] - 1), seen=(*self.seen, action.card))
        state = replace(state, current=current, turn=(p + 1) % 4)
        if len(current) < 4:
            return state
        result = resolve_trick(current)
        tricks = (*self.tricks, result)
        state = replace(state, tricks=tricks, current=(), turn=result.leads_next)
        done, team = hand_outcome([t.team for t in tricks], team_of(self.mao), self.options.triple_tie)
        if not done:
            return state
        if team is None:
            return state._end_hand(HandResult(None, 0, "tie"))
        return state._end_hand(HandResult(team, self.stake, "tricks"))

    def _end_hand(self, result: HandResult) -> TrucoGame:
        scores = list(self.scores)
        if result.team is not None:
            scores[result.team] = min(GAME_POINTS, scores[result.team] + result.tentos)
        winner = next((t for t in (0, 1) if scores[t] >= GAME_POINTS), None)
        return replace(
            self,
            scores=(scores[0], scores[1]),
            phase=Phase.OVER if winner is not None else Phase.HAND,
            pending=None,
            last_result=result,
            winner=winner,
        )

    def _foul(self, action: Foul) -> TrucoGame:
        other = 1 - action.team
        scores = list(self.scores)
        if scores[other] >= GAME_POINTS - 1:
            # "You cannot score your twelfth tento as a result of your opponents breaking the rules."
            scores[action.team] = max(0, scores[action.team] - 1)
        else:
            scores[other] += 1
        return replace(self, scores=(scores[0], scores[1]))

    def legal_actions(self, player: int) -> list[Legality]:
        """What this player may do now, and why not, through the same checks as `check`."""
        candidates: list[tuple[str, Action]] = [
            ("truco", Truco(player)),
            ("accept", Accept(player)),
            ("run", Run(player)),
        ]
        for card in self.hands[player] or ():
            candidates.append((f"play {card}", PlayCard(player, card)))
        return legality(self.check, candidates)

    def summary(self) -> dict[str, Any]:
        """The state as JSON-ready data."""
        data: dict[str, Any] = {
            "game": "truco",
            "players": list(self.players),
            "scores": list(self.scores),
            "phase": self.phase,
            "hand": self.hand_no,
            "kind": self.kind,
            "stake": self.stake,
            "pending": self.pending,
            "winner": self.winner,
        }
        if self.dealer is not None:
            data.update(dealer=self.dealer, mao=self.mao)
        if self.phase == Phase.PLAY:
            data["turn"] = self.turn
            data["hands"] = [show(h or ()) for h in self.hands]
            if any(self.hidden):
                data["hidden"] = list(self.hidden)
        data["tricks"] = [{"team": t.team, "winner": t.winner} for t in self.tricks]
        if self.last_result is not None:
            r = self.last_result
            data["last_hand"] = {"team": r.team, "tentos": r.tentos, "reason": r.reason}
        return data


def _unknown_foul() -> TrucoError:
    return TrucoError(STAKES, f"falta desconocida: pareja 0 o 1, tipo uno de {', '.join(FOUL_KINDS)}")


def _foul_kind(text: str) -> FoulKind:
    """A logged foul's kind; a kind the seed does not list is refused as `check` refuses it."""
    if text not in FOUL_KINDS:
        raise _unknown_foul()
    return FoulKind(text)


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


OPTION_FIELDS = {"triple_tie": str, "truco_in_turn": bool}


def new_state(event: Event) -> TrucoGame:
    """The game described by a `start` event."""
    return TrucoGame.start(get_names(event), TrucoOptions(**options_from(event, OPTION_FIELDS)))


def parse_action(event: Event) -> Action:
    """Turn one event dict into an action."""
    name = event["event"]
    simple: dict[str, type[Keep | PassToPartner | Reject | Truco | Accept | Run]] = {
        "keep": Keep,
        "pass": PassToPartner,
        "reject": Reject,
        "truco": Truco,
        "accept": Accept,
        "run": Run,
    }
    if name in simple:
        return simple[name](get_int(event, "player"))
    if name == "hand":
        return StartHand(get_int(event, "dealer"))
    if name == "cut":
        return Cut(get_int(event, "player"), get_int(event, "cuts"), get_str(event, "from"))
    if name == "offer":
        return Offer(get_cards(event, "cards") if "cards" in event else ())
    if name == "deal":
        return DealTo(get_int(event, "seat"), get_cards(event, "cards") if "cards" in event else ())
    if name == "eleven":
        return ElevenDecision(get_int(event, "team"), get_bool(event, "play"))
    if name == "play":
        return PlayCard(get_int(event, "player"), get_card(event, "card"), get_bool(event, "down", False))
    if name == "foul":
        return Foul(get_int(event, "team"), _foul_kind(get_str(event, "kind")))
    raise LogFormatError(f"evento desconocido en Truco: «{name}»")


def apply_event(state: TrucoGame, event: Event) -> TrucoGame:
    """Apply one logged event."""
    return state.apply(parse_action(event))
