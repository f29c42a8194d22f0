"""A whole table of Cacheta (seed 003): rounds until one player is left, with the flip card's trumps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engines.cards.cacheta.tournament import game_points, victory_points
from engines.cards.deck import DOUBLE_DECK, Card, show
from engines.cards.errors import CardRuleError, LogFormatError
from engines.cards.legal import Legality, legality
from engines.cards.log import (
    Event,
    get_card,
    get_int,
    get_names,
    get_optional_card,
    options_from,
    to_cards,
)
from engines.cards.melds import Meld, MeldRules, any_going_out, cacheta_rules, going_out
from engines.cards.table import Discard, Draw, RummyTable, parse_turn_event

HAND_SIZE = 9
SETUP = "Cacheta"
GAME = "The Game"
KNOCK = "Knock out"
GOOD_ONE = "Good One"
CUT = "Cut the Line"


class CachetaError(CardRuleError):
    """A refused Cacheta action: the seed's section and a Spanish message."""


@dataclass(frozen=True, slots=True)
class CachetaOptions:
    """Named options where seed 003 is silent (one line each in docs/rulings.md)."""

    start_points: int = 10  # 5 in GameVelvet's ranked rooms
    set_min_suits: int = 3  # a set needs three different suits (2: two suits, e.g. 5♥ 5♥ 5♦, are enough)
    trump_natural_free: bool = True  # a trump in its own place is ordinary, not the meld's one trump
    king_makes_aces: bool = True  # flip a king: the trumps are the aces of its colour
    first_player_rotates: bool = True  # each round starts one seat further (skipping eliminated players)


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's deal: nine cards to each player still at the table (None for the eliminated) and the flip (no
    hands: dealt face down, unknown to the table)."""

    hands: tuple[tuple[Card, ...] | None, ...]
    flip: Card


@dataclass(frozen=True, slots=True)
class Knock:
    """The player in turn knocks out: with nine cards (`discard` given) or all ten (`discard` None); `cards`: the
    cards shown (nine or ten), needed when some of his cards were never seen by the table."""

    player: int
    discard: Card | None
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class GoodOne:
    """The player calls that he is by the good one (one card from knocking out)."""

    player: int


@dataclass(frozen=True, slots=True)
class Cut:
    """A player by the good one cuts the line: takes the card just discarded and knocks (or is burned); `cards` as
    in Knock."""

    player: int
    discard: Card | None
    cards: tuple[Card, ...] = ()


Action = Deal | Draw | Discard | Knock | GoodOne | Cut


@dataclass(frozen=True, slots=True)
class CachetaGame:
    """A Cacheta table: points, the round's cards, turn, good-one calls and who is burned."""

    players: tuple[str, ...]
    points: tuple[int, ...]
    options: CachetaOptions = CachetaOptions()
    phase: str = "deal"  # "deal", "play" or "over"
    round: int = 0
    first: int = 0
    table: RummyTable | None = None
    flip: Card | None = None
    turn: int = 0
    must_draw: bool = True
    claimable_from: int | None = None
    good_one: tuple[bool, ...] = ()
    burned: tuple[bool, ...] = ()
    eliminated_in: tuple[int | None, ...] = ()
    rounds_played: tuple[int, ...] = ()
    winner: int | None = None
    last_knock: tuple[int, int, tuple[Meld, ...]] | None = None  # (player, 9 or 10 cards, melds)

    @classmethod
    def start(cls, players: Sequence[str], options: CachetaOptions = CachetaOptions()) -> CachetaGame:
        """A new table: every player starts with the same points."""
        n = len(players)
        if not 2 <= n <= 8:
            raise CachetaError(SETUP, f"Cacheta se juega de 2 a 8 jugadores, no {n}")
        if options.start_points < 1:
            raise CachetaError(SETUP, "cada jugador empieza con al menos un punto")
        if options.set_min_suits not in (2, 3):
            raise CachetaError("Set", "set_min_suits debe ser 2 o 3")
        return cls(
            tuple(players),
            (options.start_points,) * n,
            options,
            good_one=(False,) * n,
            burned=(False,) * n,
            eliminated_in=(None,) * n,
            rounds_played=(0,) * n,
        )

    @property
    def alive(self) -> tuple[int, ...]:
        """Seats still at the table (points above zero)."""
        return tuple(i for i, p in enumerate(self.points) if p > 0)

    @property
    def rules(self) -> MeldRules:
        """This round's meld rules (trumps from the flip card)."""
        return cacheta_rules(
            self.flip,
            min_suits=self.options.set_min_suits,
            trump_natural_free=self.options.trump_natural_free,
            king_makes_aces=self.options.king_makes_aces,
        )

    def _next_alive(self, seat: int) -> int:
        n = len(self.players)
        for k in range(1, n + 1):
            if self.points[(seat + k) % n] > 0:
                return (seat + k) % n
        return seat

    def check(self, action: Action) -> None:
        """Raise CachetaError if the action is not allowed now; change nothing."""
        if self.phase == "over":
            raise CachetaError(SETUP, "la mesa ya terminó: queda un solo jugador")
        if isinstance(action, Deal):
            self._check_deal(action)
            return
        if self.phase != "play":
            raise CachetaError(GAME, "primero se reparte la ronda")
        assert self.table is not None
        if not 0 <= action.player < len(self.players) or self.points[action.player] <= 0:
            raise CachetaError(SETUP, f"el jugador {action.player} no está en la mesa")
        p = action.player
        if isinstance(action, GoodOne):
            if self.burned[p]:
                raise CachetaError("Burned", f"{self.players[p]} está quemado: ya no puede cortar la fila")
            if self.good_one[p]:
                raise CachetaError(GOOD_ONE, f"{self.players[p]} ya está por la buena")
            return
        if isinstance(action, Cut):
            self._check_cut(action)
            return
        if p != self.turn:
            raise CachetaError(GAME, f"no es su turno: le toca a {self.players[self.turn]}")
        if isinstance(action, Draw):
            if not self.must_draw:
                raise CachetaError(GAME, "ya robó: ahora descarta o bate")
            self.table.check_draw(p, action.source, action.card, CachetaError, GAME)
            return
        if self.must_draw:
            raise CachetaError(GAME, "primero roba del monte o del descarte")
        if isinstance(action, Discard):
            self.table.check_holds(p, action.card, CachetaError, GAME, self.players[p])
            return
        hand = self._shown(self.table, action, KNOCK)
        if going_out(hand, self.rules, action.discard) is None:
            cards = "las nueve cartas" if action.discard is not None else "las diez cartas"
            raise CachetaError(KNOCK, f"{cards} no forman todas juegos válidos: no puede batir")

    def _shown(self, table: RummyTable, action: Knock | Cut, article: str) -> tuple[Card, ...]:
        """The whole hand a player knocks with: the cards shown and the discard (checked against what the table knows
        of his hand), or his known hand when every card of it is known."""
        p, name = action.player, self.players[action.player]
        if not action.cards and not table.unseen(p):
            hand = table.hands[p]
            if action.discard is not None and action.discard not in hand:
                raise CachetaError(article, f"{name} no tiene la carta {action.discard}")
            return hand
        size = HAND_SIZE if action.discard is not None else HAND_SIZE + 1
        if len(action.cards) != size:
            raise CachetaError(article, f"para batir se muestran {size} cartas, no {len(action.cards)}")
        shown = (*action.cards, *([action.discard] if action.discard is not None else []))
        table.check_shown(p, shown, CachetaError, article, name)
        return shown

    def _check_deal(self, action: Deal) -> None:
        if self.phase != "deal":
            raise CachetaError(GAME, "la ronda ya está repartida")
        if not action.hands:
            DOUBLE_DECK.check([action.flip], CachetaError)
            return
        if len(action.hands) != len(self.players):
            raise CachetaError(SETUP, f"hace falta una mano por asiento ({len(self.players)})")
        for seat, hand in enumerate(action.hands):
            if self.points[seat] > 0 and (hand is None or len(hand) != HAND_SIZE):
                raise CachetaError(SETUP, f"{self.players[seat]} recibe {HAND_SIZE} cartas")
            if self.points[seat] <= 0 and hand:
                raise CachetaError(SETUP, f"{self.players[seat]} ya salió de la mesa: no recibe cartas")
        DOUBLE_DECK.check([*(c for h in action.hands if h for c in h), action.flip], CachetaError)

    def _check_cut(self, action: Cut) -> None:
        assert self.table is not None
        p = action.player
        top = self.table.top
        discarder = self.claimable_from
        if discarder is None or top is None:
            raise CachetaError(CUT, "no hay descarte recién tirado: solo se corta la fila en turno ajeno")
        if p == discarder:
            raise CachetaError(CUT, "no se corta la fila con el descarte propio")
        if self.burned[p]:
            raise CachetaError("Burned", f"{self.players[p]} está quemado: ya no puede cortar la fila")
        if not self.good_one[p]:
            raise CachetaError(CUT, "solo corta la fila quien pidió la buena")
        self._shown(self.table.take_top(p), action, CUT)
        seat = self._next_alive(discarder)
        while seat != p:
            # "the closest to act will have the priority" among players by the good one (a hand the table has not
            # seen cannot be judged: its player cuts first or yields by himself).
            if (
                not self.table.unseen(seat)
                and self.good_one[seat]
                and not self.burned[seat]
                and any_going_out((*self.table.hands[seat], top), self.rules, keep_all=True)
            ):
                raise CachetaError(KNOCK, f"{self.players[seat]} también bate con {top} y tiene prioridad")
            seat = self._next_alive(seat)

    def apply(self, action: Action) -> CachetaGame:
        """Check the action, then return the new state."""
        self.check(action)
        if isinstance(action, Deal):
            return self._deal(action)
        assert self.table is not None
        p = action.player
        if isinstance(action, GoodOne):
            return replace(self, good_one=_set(self.good_one, p, True))
        if isinstance(action, Draw):
            table, _ = self.table.draw(p, action.source, action.card)
            return replace(self, table=table, must_draw=False, claimable_from=None)
        if isinstance(action, Discard):
            table = self.table.throw(p, action.card)
            return replace(self, table=table, must_draw=True, turn=self._next_alive(p), claimable_from=p)
        table = self.table.take_top(p) if isinstance(action, Cut) else self.table
        hand = self._shown(table, action, KNOCK)
        melds = going_out(hand, self.rules, action.discard)
        if melds is None:
            # "if a player cuts the line but can't knock out, he/she is burned"
            return replace(self, burned=_set(self.burned, p, True), good_one=_set(self.good_one, p, False))
        return self._knock(p, action.discard, melds)

    def _deal(self, action: Deal) -> CachetaGame:
        alive = self.alive
        first = self._next_alive(self.first) if self.round > 0 and self.options.first_player_rotates else alive[0]
        n = len(self.players)
        hands = tuple(h or () for h in action.hands) if action.hands else ((),) * n
        hidden = tuple(HAND_SIZE if self.points[i] > 0 else 0 for i in range(n)) if not action.hands else ()
        stock = DOUBLE_DECK.size - HAND_SIZE * len(alive) - 1
        return replace(
            self,
            phase="play",
            round=self.round + 1,
            first=first,
            turn=first,
            must_draw=True,
            claimable_from=None,
            flip=action.flip,
            table=RummyTable(hands, stock, out_of_play=(action.flip,), hidden=hidden),
            good_one=(False,) * n,
            burned=(False,) * n,
            last_knock=None,
        )

    def _knock(self, p: int, discard: Card | None, melds: tuple[Meld, ...]) -> CachetaGame:
        # Nine cards: each opponent loses 1 point; ten cards: 2 ("Scoring").
        loss = 1 if discard is not None else 2
        played = tuple(r + (1 if pts > 0 else 0) for r, pts in zip(self.rounds_played, self.points, strict=True))
        points = tuple(pts if seat == p or pts <= 0 else max(0, pts - loss) for seat, pts in enumerate(self.points))
        eliminated = tuple(
            self.round if before > 0 and after <= 0 else was
            for before, after, was in zip(self.points, points, self.eliminated_in, strict=True)
        )
        alive = [i for i, pts in enumerate(points) if pts > 0]
        return replace(
            self,
            points=points,
            eliminated_in=eliminated,
            rounds_played=played,
            phase="over" if len(alive) == 1 else "deal",
            winner=alive[0] if len(alive) == 1 else None,
            claimable_from=None,
            last_knock=(p, 9 if discard is not None else 10, melds),
        )

    def legal_actions(self, player: int) -> list[Legality]:
        """What this player may do now, and why not, through the same checks as `check`."""
        candidates: list[tuple[str, Action]] = [
            ("good_one", GoodOne(player)),
            (
                "draw stock",
                Draw(player, "stock", self.table.next_stock_card() if self.table and not self.table.hidden else None),
            ),
            ("draw discard", Draw(player, "discard")),
            ("knock 10", Knock(player, None)),
            ("cut 10", Cut(player, None)),
        ]
        hand = self.table.hands[player] if self.table is not None and player < len(self.table.hands) else ()
        candidates += [(f"discard {c}", Discard(player, c)) for c in dict.fromkeys(hand)]
        candidates += [(f"knock {c}", Knock(player, c)) for c in dict.fromkeys(hand)]
        return legality(self.check, candidates)

    def places(self) -> list[list[int]]:
        """Seats grouped by place, best first: those still in, then by round of elimination (latest first)."""
        groups: list[list[int]] = []
        alive = list(self.alive)
        if alive:
            groups.append(alive)
        rounds = sorted({r for r in self.eliminated_in if r is not None}, reverse=True)
        for r in rounds:
            groups.append([i for i, e in enumerate(self.eliminated_in) if e == r])
        return groups

    def summary(self) -> dict[str, Any]:
        """The state as JSON-ready data."""
        data: dict[str, Any] = {
            "game": "cacheta",
            "players": list(self.players),
            "points": list(self.points),
            "round": self.round,
            "phase": self.phase,
            "winner": self.winner,
            "good_one": [i for i, g in enumerate(self.good_one) if g],
            "burned": [i for i, b in enumerate(self.burned) if b],
        }
        if self.flip is not None:
            data["flip"] = str(self.flip)
            data["trumps"] = sorted(str(c) for c in self.rules.trumps)
        if self.phase == "play":
            data.update(turn=self.turn, must_draw=self.must_draw)
        if self.table is not None:
            data["hands"] = [show(h) for h in self.table.hands]
            data["discard_top"] = None if self.table.top is None else str(self.table.top)
            if self.table.hidden:
                data["hidden"] = list(self.table.hidden)
        if self.last_knock is not None:
            player, size, melds = self.last_knock
            data["last_knock"] = {
                "player": player,
                "cards": size,
                "melds": [[str(c) for c in m.cards] for m in melds],
            }
        if self.phase == "over":
            vp = victory_points(self.places())
            data["vp"] = [vp[i] for i in range(len(self.players))]
            data["gp"] = game_points(self.rounds_played, self.points, self.winner)
        return data


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


OPTION_FIELDS = {
    "start_points": int,
    "set_min_suits": int,
    "trump_natural_free": bool,
    "king_makes_aces": bool,
    "first_player_rotates": bool,
}


def new_state(event: Event) -> CachetaGame:
    """The table described by a `start` event."""
    return CachetaGame.start(get_names(event), CachetaOptions(**options_from(event, OPTION_FIELDS)))


def parse_action(event: Event) -> Action:
    """Turn one event dict into an action."""
    name = event["event"]
    if name == "deal":
        if "hands" not in event:
            return Deal((), get_card(event, "flip"))
        hands = event.get("hands")
        if not isinstance(hands, list):
            raise LogFormatError('falta "hands" (una lista de manos, null para los eliminados) en «deal»')
        return Deal(tuple(None if h is None else to_cards(h) for h in hands), get_card(event, "flip"))
    turn = parse_turn_event(name, event)
    if turn is not None:
        return turn
    if name in ("knock", "cut"):
        shown = to_cards(event["cards"]) if "cards" in event else ()
        kind = Knock if name == "knock" else Cut
        return kind(get_int(event, "player"), get_optional_card(event, "discard"), shown)
    if name == "good_one":
        return GoodOne(get_int(event, "player"))
    raise LogFormatError(f"evento desconocido en Cacheta: «{name}»")


def apply_event(state: CachetaGame, event: Event) -> CachetaGame:
    """Apply one logged event."""
    return state.apply(parse_action(event))
