"""A Cacheta table (seed 003): trumps, knocking with nine or ten, the good one, cutting, burning, scoring."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.cards.cacheta.game import (
    CachetaError,
    CachetaGame,
    CachetaOptions,
    Cut,
    Deal,
    Discard,
    Draw,
    GoodOne,
    Knock,
)
from engines.cards.cacheta.tournament import game_points, victory_points
from engines.cards.deck import Card
from tests.cards.helpers import cards, refusal, run

NAMES = ("Ana", "Beto", "Caro", "Davi")


def c(text: str) -> Card:
    return cards(text)[0]


def table(n: int = 3, **options: object) -> CachetaGame:
    return CachetaGame.start(NAMES[:n], CachetaOptions(**options))  # type: ignore[arg-type]


ROUND = (
    cards("AH 2H 3H 5S 5D KC QD JS 10H"),
    cards("4D 5D 6D 7S 7H 7C JH QH 9S"),  # with flip 8♣ the 9♠ is a trump: J♥ Q♥ + 9♠
    cards("AC 3C 5C 8D 10S JD KD 4S 6H"),
)


def dealt(**options: object) -> CachetaGame:
    return table(**options).apply(Deal(ROUND, c("8C")))


def test_start_points_and_the_ranked_variant() -> None:
    assert table().points == (10, 10, 10)
    assert table(start_points=5).points == (5, 5, 5)  # "At GameVelvet's ranked rooms"


def test_nine_card_knock_costs_each_opponent_one_point() -> None:
    state = run(dealt(), [Draw(0, "stock", c("2S")), Discard(0, c("KC")), Draw(1, "stock", c("KS"))])
    state = state.apply(Knock(1, c("KS")))
    assert state.points == (9, 10, 9)
    assert state.last_knock is not None and state.last_knock[1] == 9
    assert state.phase == "deal" and state.round == 1


def test_ten_card_knock_costs_two() -> None:
    hands = (ROUND[0], cards("4D 5D 6D 7S 7H 7C JH QH KH"), ROUND[2])
    state = run(table(), [Deal(hands, c("8C")), Draw(0, "stock", c("2S")), Discard(0, c("KC"))])
    state = run(state, [Draw(1, "stock", c("AH")), Knock(1, None)])  # J♥ Q♥ K♥ A♥
    assert state.points == (8, 10, 8)
    assert state.last_knock is not None and state.last_knock[1] == 10


def test_an_invalid_knock_is_refused() -> None:
    state = run(dealt(), [Draw(0, "stock", c("2S"))])
    with refusal(CachetaError, "Knock out", "las nueve cartas no forman todas juegos válidos"):
        state.check(Knock(0, c("KC")))
    with refusal(CachetaError, "Knock out", "las diez cartas no forman todas juegos válidos"):
        state.check(Knock(0, None))


def test_out_at_zero_last_one_left_wins_with_vp_and_gp() -> None:
    state = table(start_points=1).apply(Deal(ROUND, c("8C")))
    state = run(state, [Draw(0, "stock", c("2S")), Discard(0, c("KC")), Draw(1, "stock", c("KS"))])
    state = state.apply(Knock(1, c("KS")))
    assert state.phase == "over" and state.winner == 1
    assert state.places() == [[1], [0, 2]]
    summary = state.summary()
    assert summary["vp"] == [2, 5, 2]  # a tie for second place: 2 points each
    assert summary["gp"] == [1, 2, 1]
    with pytest.raises(CachetaError, match="la mesa ya terminó"):
        state.check(Deal(ROUND, c("8C")))


def test_eliminated_players_get_no_cards_and_lose_their_turn() -> None:
    state = table(start_points=2).apply(Deal(ROUND, c("8C")))
    state = run(state, [Draw(0, "stock", c("2S")), Discard(0, c("KC")), Draw(1, "stock", c("KS"))])
    state = state.apply(Knock(1, c("KS")))
    hands = (ROUND[0], cards("4D 5D 6D 7S 7H 7C JH QH KH"), ROUND[2])
    state = run(state, [Deal(hands, c("8C"))])
    assert state.turn == 1  # the first player rotates
    state = run(state, [Draw(1, "stock", c("AH")), Knock(1, None)])
    assert state.points == (0, 2, 0) and state.winner == 1
    third = table(start_points=3).apply(Deal(ROUND, c("8C")))
    third = run(third, [Draw(0, "stock", c("2S")), Discard(0, c("KC")), Draw(1, "stock", c("AH"))])
    third = third.apply(Knock(1, c("AH")))
    with pytest.raises(CachetaError, match="recibe 9 cartas"):
        third.check(Deal((ROUND[0], ROUND[1], None), c("8C")))


def test_good_one_cut_the_line_and_knock() -> None:
    hands = (ROUND[0], ROUND[1], cards("AS 2S 3S 6C 6D 6S 10H JH 5C"))  # Caro needs a Q♥ (or 9♥, K♥...)
    state = run(table(), [Deal(hands, c("QD")), GoodOne(2), Draw(0, "stock", c("QH")), Discard(0, c("QH"))])
    state = state.apply(Cut(2, c("5C")))
    assert state.points == (9, 9, 10)
    assert state.last_knock is not None and state.last_knock[0] == 2


def test_a_wrong_cut_burns_the_player() -> None:
    hands = (ROUND[0], ROUND[1], cards("AS 2S 3S 6C 6D 6S 10H JH 5C"))
    state = run(table(), [Deal(hands, c("8C")), GoodOne(2), Draw(0, "stock", c("2D")), Discard(0, c("2D"))])
    burned = state.apply(Cut(2, c("5C")))
    assert burned.burned[2] and burned.points == (10, 10, 10)
    assert burned.table is not None and burned.table.top == c("2D")  # the card stays on the pile
    burned = run(burned, [Draw(1, "stock", c("QH")), Discard(1, c("QH"))])
    with refusal(CachetaError, "Burned", "Caro está quemado: ya no puede cortar la fila"):
        burned.check(Cut(2, c("5C")))
    with refusal(CachetaError, "Burned", "Caro está quemado"):
        burned.check(GoodOne(2))


def test_only_players_by_the_good_one_cut_and_not_their_own_discard() -> None:
    hands = (ROUND[0], ROUND[1], cards("AS 2S 3S 6C 6D 6S 10H JH 5C"))
    state = run(table(), [Deal(hands, c("8C")), Draw(0, "stock", c("QH")), Discard(0, c("QH"))])
    with pytest.raises(CachetaError, match="solo corta la fila quien pidió la buena"):
        state.check(Cut(2, c("5C")))
    with pytest.raises(CachetaError, match="descarte propio"):
        state.apply(GoodOne(0)).check(Cut(0, None))
    with pytest.raises(CachetaError, match="ya está por la buena"):
        state.apply(GoodOne(2)).check(GoodOne(2))


def test_cut_priority_goes_to_the_closest_to_act() -> None:
    hands = (
        ROUND[0],
        cards("4D 5D 6D 7S 7H 7C JH KH 2C"),  # Beto needs the Q♥ too
        cards("AS 2S 3S 6C 6D 6S 10H JH 5C"),
    )
    state = run(
        table(),
        [Deal(hands, c("8D")), GoodOne(1), GoodOne(2), Draw(0, "stock", c("QH")), Discard(0, c("QH"))],
    )
    with pytest.raises(CachetaError, match="Beto también bate con QH y tiene prioridad"):
        state.check(Cut(2, c("5C")))
    state.check(Cut(1, c("2C")))


def test_turn_and_draw_refusals() -> None:
    state = dealt()
    with pytest.raises(CachetaError, match="no es su turno"):
        state.check(Draw(1, "stock", c("2S")))
    with pytest.raises(CachetaError, match="primero roba"):
        state.check(Discard(0, c("AH")))
    with pytest.raises(CachetaError, match="no hay descarte"):
        state.check(Draw(0, "discard"))
    with pytest.raises(CachetaError, match="repetida"):
        table().check(Deal(ROUND, c("5D")))  # a third 5♦ with the flip
    with pytest.raises(CachetaError, match="la ronda ya está repartida"):
        state.check(Deal(ROUND, c("8C")))
    with pytest.raises(CachetaError, match="primero se reparte"):
        table().check(Draw(0, "stock", c("2S")))
    with pytest.raises(CachetaError, match="de 2 a 8"):
        CachetaGame.start(("Ana",))
    drawn = state.apply(Draw(0, "stock", c("2S")))
    with pytest.raises(CachetaError, match="ya robó"):
        drawn.check(Draw(0, "stock", c("3S")))
    legal = {item.action: item for item in drawn.legal_actions(0)}
    assert legal["discard 2S"].allowed and not legal["knock 10"].allowed
    assert legal["knock 10"].article == "Knock out"


def test_trumps_in_play() -> None:
    state = dealt()
    assert state.rules.trumps == frozenset(cards("9S 9C"))
    assert state.summary()["trumps"] == ["9C", "9S"]


@pytest.mark.parametrize(
    ("places", "vp"),
    [
        ([[0], [1], [2], [3]], {0: 5, 1: 3, 2: 2, 3: 0}),
        ([[0], [1], [2, 3]], {0: 5, 1: 3, 2: 1, 3: 1}),  # third-place tie: 1 point each
        ([[0], [1, 2], [3]], {0: 5, 1: 2, 2: 2, 3: 0}),  # second-place tie: 2 points each
        ([[0, 1], [2], [3]], {0: 3, 1: 3, 2: 2, 3: 0}),  # first-place tie: 3 points each
        ([[2], [0, 1, 3]], {2: 5, 0: 2, 1: 2, 3: 2}),
    ],
)
def test_victory_points(places: list[list[int]], vp: dict[int, int]) -> None:
    assert victory_points(places) == vp


def test_game_points() -> None:
    # Games played plus the score; the winner of the table gets games played plus one.
    assert game_points([7, 7, 5], [0, 4, 0], winner=None) == [7, 11, 5]
    assert game_points([7, 7, 5], [0, 4, 0], winner=1) == [7, 8, 5]


@given(st.lists(st.integers(0, 10), min_size=2, max_size=8), st.data())
def test_a_knock_takes_exactly_one_or_two_from_each_opponent(points: list[int], data: st.DataObject) -> None:
    alive = [i for i, p in enumerate(points) if p > 0]
    if not alive:
        return
    knocker = data.draw(st.sampled_from(alive))
    ten = data.draw(st.booleans())
    state = replace(CachetaGame.start(tuple(f"J{i}" for i in range(len(points)))), points=tuple(points))
    after = state._knock(knocker, None if ten else c("2S"), ())
    loss = 2 if ten else 1
    for seat, (before, now) in enumerate(zip(points, after.points, strict=True)):
        expected = before if seat == knocker or before == 0 else max(0, before - loss)
        assert now == expected
    assert after.points[knocker] == points[knocker]
    assert (after.winner is not None) == (len([p for p in after.points if p > 0]) == 1)
