"""Simulated tables: players who choose legal actions, for tests and for making demo logs.

The randomness is injected (a `random.Random`), so a seed gives the same table every time.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .actions import Bid, Calzo, Dudo, Event, Paso, PlayerAction, Reveal, Start
from .config import DudoConfig
from .pintas import AS, FACES, Hand, hands_in
from .state import DudoTable


def roll_cups(table: DudoTable, rng: random.Random) -> dict[str, tuple[int, ...]]:
    """Roll every active player's dice (what lies under the cups this round)."""
    return {name: tuple(rng.choice(FACES) for _ in range(table.dice_of(name))) for name in table.active}


def _kind(action: PlayerAction) -> str:
    if isinstance(action, Bid):
        return "desestima" if action.desestima else "bid"
    return type(action).__name__.lower()


def random_action(table: DudoTable, rng: random.Random) -> PlayerAction:
    """Any legal action, uniformly by kind (bid, desestima, dudo, calzo, paso), then within the kind."""
    actions = table.legal_player_actions()
    kind = rng.choice(sorted({_kind(a) for a in actions}))
    return rng.choice([a for a in actions if _kind(a) == kind])


def sensible_action(table: DudoTable, cups: dict[str, tuple[int, ...]], rng: random.Random) -> PlayerAction:
    """A plausible player: bids near what he expects from his own dice, doubts what looks too high."""
    legal = table.legal_actions()
    assert legal is not None and legal.player is not None and table.round is not None
    player, rnd = legal.player, table.round
    own = cups[player]
    unseen = table.in_play - len(own)

    def expected(face: int, wild: bool) -> float:
        mine = sum(1 for d in own if d == face or (wild and face != AS and d == AS))
        return mine + unseen * (1 / 3 if wild and face != AS else 1 / 6)

    if legal.paso.allowed and own and hands_in(own, False) and rng.random() < 0.6:
        return Paso(player, next(iter(hands_in(own, False))))
    if legal.paso.allowed and rng.random() < 0.04:  # a bluff (art. 8 allows it)
        return Paso(player, rng.choice(sorted(Hand, key=lambda h: h.rank)))
    if rnd.paso is not None and legal.dudo.allowed and rng.random() < 0.35:
        return Dudo(player)
    if rnd.bid is not None and rnd.paso is None:
        exp = expected(rnd.bid.face, rnd.aces_wild)
        if legal.calzo.allowed and abs(exp - rnd.bid.quantity) < 0.4 and rng.random() < 0.3:
            return Calzo(player)
        if legal.dudo.allowed and rnd.bid.quantity > exp + 0.6 + rng.random():
            return Dudo(player)
        if legal.dudo.allowed and rnd.mode == "apertura" and rnd.bid.quantity > exp - 0.5 and rng.random() < 0.2:
            return Dudo(player)  # doubting an opening risks the siciliana (art. 12)
    if not legal.bids:
        return Dudo(player) if legal.dudo.allowed else Calzo(player)
    wild_next = not rnd.obligo and rnd.bid is not None

    def excess(pair: tuple[int, int]) -> float:
        quantity, face = pair
        return quantity - expected(face, wild_next) + rng.random() * 0.8

    quantity, face = min(legal.bids, key=excess)
    return Bid(player, quantity, face)


def play_table(
    players: Sequence[str],
    rng: random.Random,
    *,
    config: DudoConfig | None = None,
    sensible: bool = True,
    max_actions: int = 10_000,
) -> list[Event]:
    """Play a whole table to its champion and return its log (the opener drawn by `rng`)."""
    start = Start(tuple(players), rng.choice(list(players)), config=config or DudoConfig())
    table = DudoTable.start(start)
    events: list[Event] = [start]
    cups = roll_cups(table, rng)
    for _ in range(max_actions):
        if table.winner is not None:
            return events
        event: Event
        if table.pending is not None:
            legal = table.legal_actions()
            assert legal is not None
            event = Reveal.of({name: cups[name] for name in legal.reveal})
        else:
            event = sensible_action(table, cups, rng) if sensible else random_action(table, rng)
        before = table.round.number if table.round else 0
        table = table.apply(event)
        events.append(event)
        if table.round is not None and table.round.number != before:
            cups = roll_cups(table, rng)
    raise RuntimeError(f"la mesa no terminó en {max_actions} acciones")
