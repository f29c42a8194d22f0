"""Brazilian Truco (seed 001): ranking, tricks, the hand, the deal, stakes, fouls, eleven and iron hands."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.cards.deck import SUITS, TRUCO_DECK, Card
from engines.cards.truco.game import (
    Accept,
    Cut,
    DealTo,
    ElevenDecision,
    Foul,
    Keep,
    Offer,
    PassToPartner,
    PlayCard,
    Reject,
    Run,
    StartHand,
    Truco,
    TrucoGame,
    TrucoOptions,
)
from engines.cards.truco.trick import Play, TrucoError, hand_outcome, resolve_trick, strength
from tests.cards.helpers import cards, refused, run

NAMES = ("Ana", "Beto", "Caro", "Davi")


def c(text: str) -> Card:
    return cards(text)[0]


def game(scores: tuple[int, int] = (0, 0), **options: object) -> TrucoGame:
    return replace(TrucoGame.start(NAMES, TrucoOptions(**options)), scores=scores)  # type: ignore[arg-type]


def dealt(hands: dict[int, str], dealer: int = 3, state: TrucoGame | None = None) -> TrucoGame:
    """Start a hand and deal it the plain way: the mão keeps the first three cards."""
    state = (state or game()).apply(StartHand(dealer))
    mao = (dealer + 1) % 4
    if state.kind == "normal":
        state = run(state, [Offer(cards(hands[mao])), Keep(mao)])
    while state.deal_queue:
        seat = state.deal_queue[0]
        state = state.apply(DealTo(seat, cards(hands[seat])))
    return state


HANDS = {0: "AS 2C QH", 1: "7H JS 5C", 2: "4C 3H KD", 3: "3S 2H 6C"}


def test_ranking() -> None:
    order = ["4C", "7H", "AS", "7D", "3S", "2S", "AH", "KS", "JS", "QS", "7S", "6S", "5S", "4S"]
    values = [strength(c(t)) for t in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    # Suits are otherwise irrelevant.
    assert strength(c("3H")) == strength(c("3C")) == strength(c("3D"))
    assert strength(c("AC")) == strength(c("AD")) < strength(c("AS"))
    with pytest.raises(TrucoError, match="no está en la baraja"):
        strength(c("9S"))


def test_highest_card_wins_the_trick() -> None:
    result = resolve_trick([Play(0, c("KS")), Play(1, c("3D")), Play(2, c("4C")), Play(3, c("AS"))])
    assert result.winner == 2 and result.team == 0 and result.leads_next == 2


def test_tie_within_a_team_goes_to_that_team_first_player_leads() -> None:
    result = resolve_trick([Play(1, c("2D")), Play(2, c("3S")), Play(3, c("5C")), Play(0, c("3H"))])
    assert result.team == 0 and result.winner == 2 and result.leads_next == 2


def test_tie_between_teams_belongs_to_no_one() -> None:
    result = resolve_trick([Play(0, c("3S")), Play(1, c("3H")), Play(2, c("KD")), Play(3, c("4S"))])
    assert result.team is None and result.winner is None
    assert result.leads_next == 0  # the first of the tying players


def test_face_down_cards_never_win() -> None:
    result = resolve_trick([Play(0, c("4C"), down=True), Play(1, c("4S")), Play(2, c("5S")), Play(3, c("6S"))])
    assert result.winner == 3
    everything_down = resolve_trick([Play(2, c("4C"), True), Play(3, c("4S"), True)])
    assert everything_down.team is None and everything_down.leads_next == 2


@pytest.mark.parametrize(
    ("results", "outcome"),
    [
        ([0, 0], (True, 0)),
        ([0, 1], (False, None)),
        ([0, 1, 1], (True, 1)),
        ([0, None], (True, 0)),  # a tied trick: the team that won the first trick wins the hand
        ([1, 0, None], (True, 1)),
        ([None, 1], (True, 1)),  # first trick tied: the next trick won decides
        ([None, None, 0], (True, 0)),
        ([None, None, None], (True, None)),
        ([0], (False, None)),
    ],
)
def test_hand_outcome(results: list[int | None], outcome: tuple[bool, int | None]) -> None:
    assert hand_outcome(results, mao_team=1) == outcome


def test_triple_tie_option() -> None:
    assert hand_outcome([None, None, None], mao_team=1, triple_tie="mao") == (True, 1)


def test_a_plain_hand_for_one_tento() -> None:
    state = dealt(HANDS)  # dealer 3: Ana (0) is the mão and leads
    assert state.turn == 0 and state.phase == "play"
    plays = [(0, "AS"), (1, "7H"), (2, "4C"), (3, "3S"), (2, "3H"), (3, "2H"), (0, "2C"), (1, "JS")]
    state = run(state, [PlayCard(p, c(t)) for p, t in plays])
    assert state.scores == (1, 0) and state.phase == "hand"
    assert state.last_result is not None and state.last_result.reason == "tricks"


def test_the_deal_keep_pass_reject() -> None:
    state = game().apply(StartHand(3))
    assert state.mao == 0
    state = run(state, [Cut(2, 2, "top"), Offer(cards("4S 5H 6D")), Reject(0)])
    state = run(state, [Offer(cards("4C 3H KD")), PassToPartner(0)])
    assert state.hands[2] == cards("4C 3H KD")
    with pytest.raises(TrucoError, match="ya pasó"):
        state.apply(Offer(cards("AS 2C QH"))).check(PassToPartner(0))
    state = run(state, [Offer(cards("AS 2C QH")), Keep(0)])
    # The dealer's partner, then the mão's partner (already served), then the dealer.
    assert state.deal_queue == (1, 3)
    with pytest.raises(TrucoError, match="ahora se reparte a Beto"):
        state.check(DealTo(3, cards("3S 2H 6C")))
    state = run(state, [DealTo(1, cards("7H JS 5C")), DealTo(3, cards("3S 2H 6C"))])
    assert state.phase == "play"
    with pytest.raises(TrucoError, match="repetida"):
        game().apply(StartHand(3)).apply(Offer(cards("4S 5H 6D"))).apply(Reject(0)).check(Offer(cards("4S 2H 3C")))


def test_at_most_three_rejections() -> None:
    state = game().apply(StartHand(0))
    mao = state.mao
    for hand in ("4S 5H 6D", "4C 3H KD", "AS 2C QH"):
        state = run(state, [Offer(cards(hand)), Reject(mao)])
    state = state.apply(Offer(cards("7H JS 5C")))
    refused(state, Reject(mao), TrucoError, "El reparto", "el mão no puede rechazar más de tres manos por reparto")
    state.check(Keep(mao))
    state.check(PassToPartner(mao))


def test_cut_rules() -> None:
    state = game().apply(StartHand(0))  # the cutter sits to the dealer's left: seat 3
    with pytest.raises(TrucoError, match="izquierda"):
        state.check(Cut(1, 1, "top"))
    with pytest.raises(TrucoError, match="una a tres"):
        state.check(Cut(3, 4, "top"))
    with pytest.raises(TrucoError, match="arriba"):
        state.check(Cut(3, 2, "middle"))
    state = state.apply(Cut(3, 3, "bottom"))
    with pytest.raises(TrucoError, match="una sola vez"):
        state.check(Cut(3, 1, "top"))


def test_deal_refusals() -> None:
    state = game().apply(StartHand(0))
    with pytest.raises(TrucoError, match="decide el mão"):
        state.apply(Offer(cards("4S 5H 6D"))).check(Keep(2))
    with pytest.raises(TrucoError, match="no hay cartas ofrecidas"):
        state.check(Keep(1))
    with pytest.raises(TrucoError, match="tres cartas"):
        state.check(Offer(cards("4S 5H")))
    with pytest.raises(TrucoError, match="el mão decide primero"):
        state.check(DealTo(2, cards("4S 5H 6D")))
    with pytest.raises(TrucoError, match="no está en la baraja"):
        state.check(Offer(cards("8S 5H 6D")))
    with pytest.raises(TrucoError, match="primero empieza la mano"):
        game().check(Offer(cards("4S 5H 6D")))
    with pytest.raises(TrucoError, match="la mano pasa a la derecha"):
        run(dealt(HANDS), [Truco(0), Run(1)]).check(StartHand(1))


def test_truco_accept_and_the_stake() -> None:
    state = run(dealt(HANDS), [PlayCard(0, c("AS")), PlayCard(1, c("7H")), Truco(2)])
    assert state.pending == 3
    with pytest.raises(TrucoError, match="responder el truco"):
        state.check(PlayCard(2, c("4C")))
    with pytest.raises(TrucoError, match="pareja contraria"):
        state.check(Accept(0))
    state = run(state, [Accept(3), PlayCard(2, c("4C")), PlayCard(3, c("3S"))])
    state = run(state, [PlayCard(2, c("3H")), PlayCard(3, c("2H")), PlayCard(0, c("2C")), PlayCard(1, c("JS"))])
    assert state.scores == (3, 0)


def test_running_from_truco_gives_one_tento() -> None:
    state = run(dealt(HANDS), [Truco(0), Run(1)])
    assert state.scores == (1, 0) and state.last_result is not None and state.last_result.reason == "run"


def test_raise_ladder_and_running_from_a_reraise() -> None:
    state = run(dealt(HANDS), [Truco(0), Truco(1)])
    assert state.stake == 3 and state.pending == 6  # a retruco accepts the truco
    with pytest.raises(TrucoError, match="espera la respuesta"):
        state.check(Truco(3))
    state = run(state, [Truco(2)])
    assert state.pending == 9
    state = run(state, [Truco(3)])
    assert state.pending == 12
    with pytest.raises(TrucoError, match="queda"):
        state.check(Truco(0))
    state = state.apply(Run(0))
    assert state.scores == (0, 9)


def test_only_the_other_team_raises_next() -> None:
    state = run(dealt(HANDS), [Truco(0), Accept(1), PlayCard(0, c("AS")), PlayCard(1, c("7H"))])
    with pytest.raises(TrucoError, match="última subida"):
        state.check(Truco(2))
    state = run(state, [PlayCard(2, c("4C")), Truco(3)])
    assert state.pending == 6


def test_truco_is_called_in_turn_by_default() -> None:
    state = dealt(HANDS)
    with pytest.raises(TrucoError, match="truca quien está por jugar"):
        state.check(Truco(2))
    free = dealt(HANDS, state=game(truco_in_turn=False))
    free.check(Truco(2))


def test_no_raise_beyond_what_wins_the_game() -> None:
    # "If you have a score of six, you can truco ... you cannot raise again to nine"
    state = dealt(HANDS, state=game(scores=(6, 0)))
    state = run(state, [Truco(0), Truco(1)])
    assert state.pending == 6
    refused(state, Truco(2), TrucoError, "Subir la apuesta", "con 6 tentos, 6 ya ganan el juego: no se sube más allá")
    state = state.apply(Accept(2))
    assert state.stake == 6
    on_ten = run(dealt(HANDS, state=game(scores=(0, 10))), [Truco(0)])
    refused(on_ten, Truco(1), TrucoError, "Subir la apuesta", "con 10 tentos, 3 ya ganan el juego: no se sube más allá")


def test_fouls_give_one_tento_but_never_the_twelfth() -> None:
    state = game().apply(Foul(1, "reject"))
    assert state.scores == (1, 0)
    state = game(scores=(11, 4)).apply(Foul(1, "disclose"))
    assert state.scores == (11, 3)
    assert game(scores=(11, 0)).apply(Foul(1, "cut")).scores == (11, 0)
    with pytest.raises(TrucoError, match="falta desconocida"):
        game().check(Foul(0, "cheating"))


def test_hand_of_eleven_play_for_three_without_truco() -> None:
    state = dealt(HANDS, state=game(scores=(11, 5)))
    assert state.kind == "eleven" and state.phase == "eleven"
    with pytest.raises(TrucoError, match="decide la pareja que tiene once"):
        state.check(ElevenDecision(1, True))
    with pytest.raises(TrucoError, match="aún no se juega"):
        state.check(PlayCard(0, c("AS")))
    state = state.apply(ElevenDecision(0, True))
    assert state.stake == 3
    with pytest.raises(TrucoError, match="no se puede trucar"):
        state.check(Truco(0))
    plays = [(0, "AS"), (1, "7H"), (2, "4C"), (3, "3S"), (2, "3H"), (3, "2H"), (0, "2C"), (1, "JS")]
    state = run(state, [PlayCard(p, c(t)) for p, t in plays])
    assert state.scores == (12, 5) and state.phase == "over" and state.winner == 0
    with pytest.raises(TrucoError, match="el juego terminó"):
        state.check(StartHand(0))


def test_hand_of_eleven_run_costs_one_tento() -> None:
    state = dealt(HANDS, state=game(scores=(4, 11)))
    state = state.apply(ElevenDecision(1, False))
    assert state.scores == (5, 11)


def test_with_eleven_no_pass_or_reject() -> None:
    state = game(scores=(11, 0)).apply(StartHand(3))
    refused(
        state, Offer(cards("4S 5H 6D")), TrucoError, "La mano de once", "con once se reparte directamente a cada uno"
    )
    assert state.deal_queue == (0, 1, 2, 3)


def test_iron_hand_face_up_no_truco_and_replayed_on_a_tie() -> None:
    state = dealt(HANDS, state=game(scores=(11, 11)))
    assert state.kind == "iron" and state.phase == "play"
    with pytest.raises(TrucoError, match="no se puede trucar"):
        state.check(Truco(0))
    state = run(state, [PlayCard(0, c("2C")), PlayCard(1, c("5C")), PlayCard(2, c("KD")), PlayCard(3, c("6C"))])
    with pytest.raises(TrucoError, match="mano de hierro"):
        state.check(PlayCard(0, c("AS"), down=True))
    tied = {0: "3S 2S KS", 1: "3H 2H KH", 2: "4S 5S 6S", 3: "4H 5H 6H"}
    state = dealt(tied, state=game(scores=(11, 11)))
    order = ["3S", "3H", "4S", "4H", "2S", "2H", "5S", "5H", "KS", "KH", "6S", "6H"]
    state = run(state, [PlayCard(k % 4, c(t)) for k, t in enumerate(order)])
    assert state.last_result is not None and state.last_result.team is None
    assert state.scores == (11, 11) and state.phase == "hand"
    assert state.apply(StartHand(0)).kind == "iron"  # another iron hand


def test_play_refusals() -> None:
    state = dealt(HANDS)
    with pytest.raises(TrucoError, match="no es su turno"):
        state.check(PlayCard(1, c("7H")))
    with pytest.raises(TrucoError, match="no tiene la carta"):
        state.check(PlayCard(0, c("7H")))
    with pytest.raises(TrucoError, match="primera baza"):
        state.check(PlayCard(0, c("AS"), down=True))
    with pytest.raises(TrucoError, match="no hay truco que responder"):
        state.check(Accept(1))
    with pytest.raises(TrucoError, match="cuatro"):
        TrucoGame.start(NAMES[:3])
    legal = {item.action: item for item in state.legal_actions(0)}
    assert legal["play AS"].allowed and legal["truco"].allowed and not legal["accept"].allowed


DECK = [Card(r, s) for r in (1, 2, 3, 4, 5, 6, 7, 11, 12, 13) for s in SUITS]


def _ok(state: TrucoGame, action: object) -> bool:
    try:
        state.check(action)  # type: ignore[arg-type]
    except TrucoError:
        return False
    return True


@given(
    st.integers(0, 2**32),
    st.sampled_from(["nobody", "mao"]),
    st.sampled_from([(0, 0), (11, 3), (11, 11), (6, 9), (10, 10)]),
)
def test_every_hand_ends_with_a_winner_unless_all_three_tricks_tie(
    seed: int, triple_tie: str, scores: tuple[int, int]
) -> None:
    rnd = random.Random(seed)
    deal = rnd.sample(DECK, 12)
    hands = {s: " ".join(str(x) for x in deal[3 * s : 3 * s + 3]) for s in range(4)}
    state = dealt(hands, dealer=rnd.randrange(4), state=game(scores, triple_tie=triple_tie))
    before = state.scores
    if state.phase == "eleven":
        team = 0 if scores[0] == 11 else 1
        state = state.apply(ElevenDecision(team, rnd.random() < 0.8))
    for _ in range(60):
        if state.phase != "play":
            break
        if state.pending is not None:
            responder = next(o for o in range(4) if o % 2 != state.last_raiser)
            options: list[object] = [Accept(responder), Run(responder), Truco(responder)]
        else:
            p = state.turn
            down = bool(state.tricks) and state.kind != "iron" and rnd.random() < 0.2
            options = [PlayCard(p, card, down) for card in state.hands[p] or ()] + [Truco(p)]
        state = state.apply(rnd.choice([a for a in options if _ok(state, a)]))  # type: ignore[arg-type]
    assert state.phase in ("hand", "over"), state.summary()
    result = state.last_result
    assert result is not None
    all_tied = len(state.tricks) == 3 and all(t.team is None for t in state.tricks)
    if result.team is None:
        assert triple_tie == "nobody" and all_tied and state.scores == before
    else:
        assert state.scores[result.team] == min(12, before[result.team] + result.tentos)
        assert state.scores[1 - result.team] == before[1 - result.team]
    TRUCO_DECK.check(deal)
