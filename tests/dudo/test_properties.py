"""Property tests: thousands of random legal tables, checked at every step."""

from __future__ import annotations

import random
from dataclasses import fields

from hypothesis import given
from hypothesis import strategies as st

from engines.dudo import DudoConfig, DudoTable, Reveal, RuleError, Start, dumps, replay_lines
from engines.dudo.simulate import random_action, roll_cups, sensible_action

from .oracle import Oracle

NAMES = ("Ana", "Beto", "Caro", "Dani", "Eli", "Fede")


@st.composite
def configs(draw: st.DrawFn) -> DudoConfig:
    """Any combination of the organizer's options."""
    values: dict[str, object] = {}
    default = DudoConfig()
    for f in fields(DudoConfig):
        current = getattr(default, f.name)
        if isinstance(current, bool):
            values[f.name] = draw(st.booleans())
        else:
            values[f.name] = draw(st.sampled_from(list(type(current))))
    return DudoConfig(**values)  # type: ignore[arg-type]


def _check_legal_actions_agree(table: DudoTable, rng: random.Random) -> None:
    legal = table.legal_actions()
    assert legal is not None and legal.player is not None
    actions = table.legal_player_actions()
    assert actions, "the player to act always has something to do"
    for action in rng.sample(actions, min(4, len(actions))):
        table.check(action)  # every listed action is accepted
        after = table.apply(action)
        assert after.history[-1] == action
    for name in ("dudo", "calzo", "paso"):
        option = getattr(legal, name)
        if not option.allowed:
            assert option.article and option.reason


@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 6),
    sensible=st.booleans(),
    config=configs(),
    start_dice=st.none() | st.lists(st.integers(1, 5), min_size=6, max_size=6),
)
def test_random_legal_tables(
    seed: int, players: int, sensible: bool, config: DudoConfig, start_dice: list[int] | None
) -> None:
    """Dice stay in 0..5, totals change only by rulings, every table ends with one champion, logs replay."""
    rng = random.Random(seed)
    names = NAMES[:players]
    dice = None if start_dice is None else tuple(start_dice[:players])
    table = DudoTable.start(Start(names, rng.choice(names), dice=dice, config=config))
    cups = roll_cups(table, rng)
    oracle = Oracle(names, dict(zip(names, table.dice, strict=True)), config, table.players[0])
    oracle.opener = table.history[0].opener  # type: ignore[union-attr]
    for _step in range(20_000):
        if table.winner is not None:
            break
        before_total = table.in_play
        if table.pending is not None:
            legal = table.legal_actions()
            assert legal is not None and legal.player is None
            event = Reveal.of({name: cups[name] for name in legal.reveal})
            predicted = oracle.predict(event)
            after = table.apply(event)
            ruling = after.rulings[-1]
            if predicted is not None:  # an independent referee agrees with the ruling
                assert dict(ruling.changes) == predicted, ruling.message
            else:  # it abstains only where it says it does: an aces opening in the round, or wild-ace pasos
                assert oracle.false_start_seen or config.paso_ases_comodin, ruling.message
            oracle.settle(dict(ruling.changes), ruling.next_opener)
            assert len(after.rulings) == len(table.rulings) + 1
            assert after.in_play - before_total == sum(delta for _, delta in ruling.changes)
            assert all(-2 <= delta <= 1 for _, delta in ruling.changes)
            if ruling.siciliana:  # only on a doubt of the opening, where aces are not wild (art. 12)
                assert ruling.count is not None and not ruling.count.aces_wild
                loser, delta = ruling.changes[0]
                assert delta == -min(2, table.dice_of(loser))
        else:
            if rng.random() < 0.3:
                _check_legal_actions_agree(table, rng)
            action = sensible_action(table, cups, rng) if sensible else random_action(table, rng)
            after = table.apply(action)
            oracle.see(action)
            assert after.in_play == before_total  # only rulings change the count
            assert after.rulings == table.rulings
        assert all(0 <= n <= 5 for n in after.dice)
        if after.round is not None and (table.round is None or after.round.number != table.round.number):
            cups = roll_cups(after, rng)
        table = after
    else:
        raise AssertionError("the table never ended")

    assert table.winner is not None
    assert [p for p in table.players if table.dice_of(p) > 0] == [table.winner]
    assert table.legal_actions() is None
    try:
        table.check(Reveal.of({}))
    except RuleError as error:
        assert error.article == "10"
    else:
        raise AssertionError("a finished table accepted an action")
    # The log is the history: written out and read back, it rebuilds the same table.
    replayed = replay_lines(dumps(table.history).splitlines())
    assert replayed.error is None and replayed.table == table
