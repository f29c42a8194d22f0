"""Brazilian Truco against the text of seed 001 (card ranking, tricks, stakes, eleven, iron hand).

Written from the seed's text, not from the engine; documented decisions (docs/rulings.md) are followed.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engines.cards.deck import SUITS, Card, parse_cards
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
from engines.cards.truco.trick import Play, TrucoError, resolve_trick
from tests.cards.helpers import refused

CACHO = Path(sys.executable).parent / "cacho"
NAMES = ("Ana", "Beto", "Caro", "Davi")  # seats in playing order; partners 0 & 2, 1 & 3

# "(high) 4♣, 7♥, A♠, 7♦, 3, 2, A, K, J, Q, 7, 6, 5, 4 (low)"
MANILHAS = ["4C", "7H", "AS", "7D"]
PLAIN = ["3", "2", "A", "K", "J", "Q", "7", "6", "5", "4"]


def c(text: str) -> Card:
    return parse_cards(text)[0]


def seed_level(card: Card) -> int:
    """My own reading of the seed's ranking: a smaller number is a higher card."""
    name = str(card)
    if name in MANILHAS:
        return MANILHAS.index(name)
    return len(MANILHAS) + PLAIN.index(name[:-1])


DECK = [Card(rank, suit) for rank in (1, 2, 3, 4, 5, 6, 7, 11, 12, 13) for suit in SUITS]


def new_game(scores: tuple[int, int] = (0, 0), **options: object) -> TrucoGame:
    """A game brought to `scores` through the referee's fouls (one tento to the other team each)."""
    state = TrucoGame.start(NAMES, TrucoOptions(**options))  # type: ignore[arg-type]
    for team, tentos in enumerate(scores):
        for _ in range(tentos):
            state = state.apply(Foul(1 - team, "disclose"))
    assert state.scores == scores
    return state


def deal(state: TrucoGame, hands: dict[int, str], dealer: int = 3) -> TrucoGame:
    """Start a hand and deal it: the mão keeps the first three cards (or the direct deal with eleven)."""
    state = state.apply(StartHand(dealer))
    mao = (dealer + 1) % 4
    if state.kind == "normal":
        state = state.apply(Offer(parse_cards(hands[mao]))).apply(Keep(mao))
    while state.deal_queue:
        seat = state.deal_queue[0]
        state = state.apply(DealTo(seat, parse_cards(hands[seat])))
    return state


def play(state: TrucoGame, moves: list[tuple[int, str]]) -> TrucoGame:
    for seat, card in moves:
        down = card.startswith("~")
        state = state.apply(PlayCard(seat, c(card.lstrip("~")), down))
    return state


# Dealer 3: the mão is seat 0 and leads the first trick.
HANDS = {0: "3S KS 5H", 1: "2S QD 4D", 2: "3H 6C JH", 3: "AH 7S 5C"}


# --- Card ranking ---------------------------------------------------------------------------------------


def test_deck_is_forty_cards_without_eights_nines_tens() -> None:
    assert len(DECK) == 40
    for bad in ("8S", "9H", "10D"):
        with pytest.raises(TrucoError, match="no está en la baraja"):
            resolve_trick([Play(0, c(bad)), Play(1, c("4S"))])


def test_every_pair_of_cards_ranks_as_the_seed_says() -> None:
    # Seats 0 and 1 are opponents: the higher card takes the trick; equal ranks belong to no one.
    for a, b in itertools.combinations(DECK, 2):
        result = resolve_trick([Play(0, a), Play(1, b)])
        if seed_level(a) < seed_level(b):
            assert result.winner == 0, (a, b)
        elif seed_level(b) < seed_level(a):
            assert result.winner == 1, (a, b)
        else:
            assert result.winner is None and result.team is None, (a, b)


def test_manilhas_order_and_suits_otherwise_irrelevant() -> None:
    order = ["4C", "7H", "AS", "7D", "3D", "2C", "AH", "KS", "JD", "QC", "7C", "6H", "5S", "4D"]
    for high, low in itertools.pairwise(order):
        assert resolve_trick([Play(1, c(low)), Play(2, c(high))]).winner == 2
    # The other sevens, aces and fours are plain cards: 7♠ ties 7♣, A♦ ties A♣, 4♥ ties 4♠.
    for left, right in (("7S", "7C"), ("AD", "AC"), ("4H", "4S")):
        assert resolve_trick([Play(0, c(left)), Play(3, c(right))]).team is None


# --- Tricks ---------------------------------------------------------------------------------------------


def test_tie_within_a_team_the_first_of_the_two_leads() -> None:
    # Played in the order 2, 3, 0, 1: seats 2 and 0 (partners) tie with threes.
    result = resolve_trick([Play(2, c("3C")), Play(3, c("2D")), Play(0, c("3S")), Play(1, c("KH"))])
    assert (result.team, result.winner, result.leads_next) == (0, 2, 2)
    result = resolve_trick([Play(0, c("JS")), Play(1, c("2C")), Play(2, c("KD")), Play(3, c("2H"))])
    assert (result.team, result.winner, result.leads_next) == (1, 1, 1)
    assert result.team == 1 and result.winner == 1 and result.leads_next == 1


def test_tie_between_teams_belongs_to_no_one_first_tying_player_leads() -> None:
    result = resolve_trick([Play(1, c("5S")), Play(2, c("2D")), Play(3, c("2C")), Play(0, c("KS"))])
    assert result.team is None and result.winner is None
    assert result.leads_next == 2
    # Three tied: two partners and one opponent, still opposing teams tying.
    result = resolve_trick([Play(0, c("3S")), Play(1, c("3H")), Play(2, c("3D")), Play(3, c("4H"))])
    assert result.team is None and result.leads_next == 0


def test_face_down_card_cannot_win_even_the_highest() -> None:
    result = resolve_trick([Play(0, c("4C"), down=True), Play(1, c("5S")), Play(2, c("4S")), Play(3, c("6D"))])
    assert result.winner == 3 and result.team == 1


def test_no_face_down_on_the_first_trick_allowed_later() -> None:
    state = deal(new_game(), HANDS)
    refused(
        state,
        PlayCard(0, c("3S"), down=True),
        TrucoError,
        "Juego de la mano",
        "en la primera baza no se juega carta tapada",
    )
    state = play(state, [(0, "3S"), (1, "2S"), (2, "6C"), (3, "7S")])  # Ana's 3 wins; she leads
    assert state.turn == 0
    state = play(state, [(0, "~KS"), (1, "4D"), (2, "~3H"), (3, "5C")])
    # Caro's 3♥ face down takes nothing: the highest face-up card is Davi's 5♣.
    assert [t.winner for t in state.tricks] == [0, 3]
    assert state.turn == 3


def test_first_trick_to_one_team_second_tied_ends_the_hand() -> None:
    # "When a trick is tied, whichever team won the first trick that hand is the winner of the entire hand."
    state = deal(new_game(), HANDS)
    state = play(state, [(0, "3S"), (1, "2S"), (2, "6C"), (3, "7S")])
    state = play(state, [(0, "5H"), (1, "4D"), (2, "JH"), (3, "AH")])  # A♥ wins for team 1
    assert [t.team for t in state.tricks] == [0, 1]
    state = play(state, [(3, "5C"), (0, "KS"), (1, "QD"), (2, "3H")])
    assert state.scores == (1, 0)
    tied = deal(new_game(), {0: "3S KS 5H", 1: "2S KD 4D", 2: "3H 6C JH", 3: "AH 7S 5C"})
    tied = play(tied, [(0, "3S"), (1, "2S"), (2, "6C"), (3, "7S")])
    tied = play(tied, [(0, "KS"), (1, "KD"), (2, "JH"), (3, "5C")])  # kings tie across teams
    assert tied.phase == "hand" and tied.scores == (1, 0) and len(tied.tricks) == 2
    assert tied.last_result is not None and tied.last_result.team == 0


def test_third_trick_tied_goes_to_the_first_trick_winner() -> None:
    # Dealer 0: Beto (1) is the mão.
    state = deal(new_game(), {1: "3S KS 5H", 2: "2S QD 5D", 3: "3H 6C JH", 0: "AH 7S 4D"}, dealer=0)
    assert state.turn == 1
    state = play(state, [(1, "3S"), (2, "2S"), (3, "6C"), (0, "7S")])  # team 1
    state = play(state, [(1, "KS"), (2, "QD"), (3, "JH"), (0, "AH")])  # team 0 (A♥)
    assert state.phase == "play" and state.turn == 0
    state = play(state, [(0, "4D"), (1, "5H"), (2, "5D"), (3, "~3H")])  # fives tie across teams
    assert state.tricks[-1].team is None
    assert state.scores == (0, 1)
    assert state.last_result is not None and state.last_result.team == 1


def test_the_mao_leads_and_play_goes_to_the_right() -> None:
    state = deal(new_game(), {2: "3S KS 5H", 3: "2S QD 4D", 0: "3H 6C JH", 1: "AH 7S 5C"}, dealer=1)
    assert state.mao == 2 and state.turn == 2
    with pytest.raises(TrucoError, match="no es su turno"):
        state.check(PlayCard(1, c("AH")))
    state = play(state, [(2, "5H")])
    assert state.turn == 3


# --- Dealing procedure ----------------------------------------------------------------------------------


def test_deal_keep_order_dealers_partner_maos_partner_dealer() -> None:
    state = new_game().apply(StartHand(0))
    assert state.mao == 1
    state = state.apply(Cut(3, 1, "bottom"))  # the player to the dealer's left cuts
    state = state.apply(Offer(parse_cards("3S KS 5H"))).apply(Keep(1))
    assert state.deal_queue == (2, 3, 0)


def test_pass_once_reject_three_times_at_most() -> None:
    state = new_game().apply(StartHand(0))
    state = state.apply(Offer(parse_cards("3S KS 5H"))).apply(PassToPartner(1))
    assert state.hands[3] == parse_cards("3S KS 5H")
    for hand in ("2S QD 4D", "3H 6C JH", "AH 7S 5C"):
        state = state.apply(Offer(parse_cards(hand)))
        refused(state, PassToPartner(1), TrucoError, "El reparto", "ya pasó una mano a su compañero")
        state = state.apply(Reject(1))
    state = state.apply(Offer(parse_cards("4C 7H AS")))
    with pytest.raises(TrucoError, match="tres"):
        state.check(Reject(1))
    state = state.apply(Keep(1))
    assert state.deal_queue == (2, 0)  # the mão's partner is already served
    with pytest.raises(TrucoError, match="repetida"):
        state.check(DealTo(2, parse_cards("2S 2H 2D")))  # 2♠ was rejected face up, out of play


def test_cut_one_to_three_times_by_the_dealers_left() -> None:
    state = new_game().apply(StartHand(2))
    for cuts in (1, 2, 3):
        state.check(Cut(1, cuts, "top"))
    for cuts in (0, 4):
        refused(state, Cut(1, cuts, "top"), TrucoError, "El reparto", "de una a tres veces")
    refused(state, Cut(3, 1, "top"), TrucoError, "El reparto", "corta el jugador a la izquierda")


# --- Stakes ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("raises", "tentos"), [(1, 1), (2, 3), (3, 6), (4, 9)])
def test_running_gives_the_raiser_the_stake_before_the_raise(raises: int, tentos: int) -> None:
    state = deal(new_game(), HANDS)
    for k in range(raises):
        state = state.apply(Truco(k % 4))  # seats 0, 1, 2, 3 alternate teams
    assert state.pending == (3, 6, 9, 12)[raises - 1]
    raiser = (raises - 1) % 2
    state = state.apply(Run(1 - raiser))
    expected = [0, 0]
    expected[raiser] = tentos
    assert state.scores == tuple(expected)


def test_accepted_truco_plays_for_three() -> None:
    state = deal(new_game(), HANDS)
    state = state.apply(Truco(0)).apply(Accept(3))  # either opponent may answer
    assert state.stake == 3 and state.pending is None
    state = play(state, [(0, "3S"), (1, "2S"), (2, "3H"), (3, "7S")])
    state = play(state, [(0, "KS"), (1, "QD"), (2, "JH"), (3, "5C")])
    assert state.scores == (3, 0)


def test_no_card_while_a_raise_is_unanswered() -> None:
    state = deal(new_game(), HANDS).apply(Truco(0))
    refused(state, PlayCard(0, c("3S")), TrucoError, "Subir la apuesta", "responder el truco antes de jugar")
    # The trucador's own partner cannot answer.
    refused(state, Accept(2), TrucoError, "Subir la apuesta", "responde la pareja contraria")


def test_seed_example_score_six_cannot_raise_to_nine() -> None:
    # "If you have a score of six, you can truco ... you cannot raise again to nine"
    state = deal(new_game((6, 0)), HANDS)
    state = state.apply(Truco(0)).apply(Truco(1))
    assert state.pending == 6
    for seat in (0, 2):
        refused(state, Truco(seat), TrucoError, "Subir la apuesta", "con 6 tentos, 6 ya ganan el juego")
    state = state.apply(Accept(2))
    assert state.stake == 6


@pytest.mark.parametrize(("score", "allowed"), [(8, True), (9, False)])
def test_no_raise_when_the_accepted_stake_already_wins(score: int, allowed: bool) -> None:
    state = deal(new_game((score, 0)), HANDS)
    state = play(state, [(0, "5H")])
    state = state.apply(Truco(1)).apply(Accept(0))  # the other team's truco: stake 3
    state = play(state, [(1, "4D")])
    assert state.turn == 2 and state.stake == 3
    if allowed:
        state.check(Truco(2))  # 8 + 3 = 11: a raise is still needed to win
    else:
        # 9 + 3 = 12 already wins the game
        refused(state, Truco(2), TrucoError, "Subir la apuesta", "con 9 tentos, 3 ya ganan el juego")


def test_a_team_on_six_may_still_truco() -> None:
    state = deal(new_game((6, 0)), HANDS)
    state.check(Truco(0))
    state = deal(new_game((10, 0)), HANDS)
    state.check(Truco(0))  # 10 + 1 does not win; three does


# --- Fouls ----------------------------------------------------------------------------------------------


def test_fouls_one_tento_never_the_twelfth() -> None:
    state = new_game((10, 3)).apply(Foul(1, "shuffle"))
    assert state.scores == (11, 3)
    # "You cannot score your twelfth tento ... they lose one tento and you remain at a score of eleven."
    state = state.apply(Foul(1, "deal"))
    assert state.scores == (11, 2) and state.winner is None


# --- A score of eleven ----------------------------------------------------------------------------------


def test_hand_of_eleven_direct_deal_no_pass_no_reject() -> None:
    state = new_game((11, 4)).apply(StartHand(3))
    assert state.kind == "eleven"
    eleven = "La mano de once"
    refused(state, Offer(parse_cards("3S KS 5H")), TrucoError, eleven, "se reparte directamente")
    # Nothing is offered to the mão, so there is nothing to reject or pass.
    for decision in (Reject(0), PassToPartner(0)):
        refused(state, decision, TrucoError, "El reparto", "no hay cartas ofrecidas al mão")


def test_hand_of_eleven_run_costs_one_tento() -> None:
    state = deal(new_game((11, 4)), HANDS)
    refused(state, ElevenDecision(1, False), TrucoError, "La mano de once", "decide la pareja que tiene once")
    state = state.apply(ElevenDecision(0, False))
    assert state.scores == (11, 5) and state.phase == "hand"


def test_hand_of_eleven_played_for_three_without_truco_leader_wins_game() -> None:
    state = deal(new_game((11, 4)), HANDS).apply(ElevenDecision(0, True))
    assert state.stake == 3
    for seat in range(4):
        refused(state, Truco(seat), TrucoError, "La mano de once", "no se puede trucar")
    state = play(state, [(0, "3S"), (1, "2S"), (2, "3H"), (3, "7S")])
    state = play(state, [(0, "KS"), (1, "QD"), (2, "JH"), (3, "5C")])
    assert state.phase == "over" and state.winner == 0 and state.scores[0] == 12


def test_hand_of_eleven_lost_gives_the_others_three() -> None:
    hands = {0: "4S KS 5H", 1: "2S QD 3D", 2: "5D 6C JH", 3: "AH 7S 5C"}
    state = deal(new_game((11, 4)), hands).apply(ElevenDecision(0, True))
    state = play(state, [(0, "4S"), (1, "2S"), (2, "5D"), (3, "7S")])
    state = play(state, [(1, "3D"), (2, "6C"), (3, "5C"), (0, "KS")])
    assert state.scores == (11, 7) and state.winner is None


def test_iron_hand_both_on_eleven() -> None:
    state = deal(new_game((11, 11)), HANDS)
    assert state.kind == "iron" and state.phase == "play"  # nobody decides: the hand is played
    refused(state, Truco(0), TrucoError, "La mano de once", "no se puede trucar")
    state = play(state, [(0, "3S"), (1, "2S"), (2, "3H"), (3, "7S")])
    # Cards are turned up.
    refused(state, PlayCard(0, c("KS"), down=True), TrucoError, "La mano de once", "mano de hierro.*no hay tapadas")
    state = play(state, [(0, "KS"), (1, "QD"), (2, "JH"), (3, "5C")])
    assert state.phase == "over" and state.winner == 0


def test_iron_hand_tie_another_iron_hand() -> None:
    hands = {0: "3S KS 5H", 1: "3H KH 5D", 2: "4S 6S 7S", 3: "4H 6H 7C"}
    state = deal(new_game((11, 11)), hands)
    order = [(0, "3S"), (1, "3H"), (2, "4S"), (3, "4H"), (0, "KS"), (1, "KH"), (2, "6S"), (3, "6H")]
    state = play(state, [*order, (0, "5H"), (1, "5D"), (2, "7S"), (3, "7C")])
    assert state.scores == (11, 11) and state.winner is None
    assert state.apply(StartHand(0)).kind == "iron"


def test_eleven_decision_for_a_team_that_does_not_exist_is_refused() -> None:
    state = deal(new_game((0, 11)), HANDS)
    for team in (2, -1):
        refused(state, ElevenDecision(team, True), TrucoError, "La mano de once", f"no hay pareja {team}")


# --- Conservation: each hand moves exactly its stake to one team ----------------------------------------


def test_random_games_score_only_whole_stakes_and_end_at_twelve() -> None:
    rnd = random.Random(20240611)
    for _ in range(40):
        state = TrucoGame.start(NAMES)
        dealer = rnd.randrange(4)
        for _hand in range(60):
            if state.phase == "over":
                break
            cards = rnd.sample(DECK, 12)
            hands = {s: " ".join(map(str, cards[3 * s : 3 * s + 3])) for s in range(4)}
            before = state.scores
            state = deal(state, hands, dealer)
            dealer = (dealer + 1) % 4
            if state.phase == "eleven":
                state = state.apply(ElevenDecision(0 if before[0] == 11 else 1, rnd.random() < 0.7))
            while state.phase == "play":
                options: list[object]
                if state.pending is not None:
                    answer = next(s for s in range(4) if s % 2 != state.last_raiser)
                    options = [Accept(answer), Run(answer), Truco(answer)]
                else:
                    p = state.turn
                    options = [PlayCard(p, card, down) for card in state.hands[p] or () for down in (False, True)]
                    options.append(Truco(p))
                legal = []
                for action in options:
                    try:
                        state.check(action)  # type: ignore[arg-type]
                    except TrucoError:
                        continue
                    legal.append(action)
                state = state.apply(rnd.choice(legal))  # type: ignore[arg-type]
            gained = [after - b for after, b in zip(state.scores, before, strict=True)]
            assert min(gained) == 0
            assert max(gained) in (0, 1, 3, 6, 9, 12) or max(state.scores) == 12
        assert state.phase == "over" and max(state.scores) == 12


# --- CLI, from outside ----------------------------------------------------------------------------------


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CACHO), "cards", *argv], capture_output=True, text=True, check=False, timeout=60)


def test_cli_trick_contract() -> None:
    done = cli("trick", "--game", "truco", "7D", "AS", "7H", "4C", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"game": "truco", "winner": 3, "team": 1, "leads_next": 3}
    done = cli("trick", "--game", "truco", "2S", "2C", "KD", "QH", "--json")
    data = json.loads(done.stdout)
    assert data["winner"] is None and data["team"] is None
    done = cli("trick", "--game", "truco", "--lead", "3", "3S", "5H", "3D", "6C", "--json")
    data = json.loads(done.stdout)
    assert (data["winner"], data["team"], data["leads_next"]) == (0, 0, 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["trick", "--game", "truco", "10S", "3H", "2C", "4C"], "10S no está en la baraja"),
        (["trick", "--game", "truco", "3H", "3H", "2C", "4C"], "repetida"),
        (["trick", "--game", "truco", "3H", "2C", "4C", "5C", "6C"], "cuatro cartas"),
        (["trick", "--game", "tute", "3H", "2C", "4C", "5C"], "juego desconocido"),
    ],
)
def test_cli_trick_bad_input(argv: list[str], message: str) -> None:
    done = cli(*argv)
    assert done.returncode != 0
    assert message in done.stderr and "Traceback" not in done.stderr


def test_cli_replay_bad_eleven_team_is_a_clear_error(tmp_path: Path) -> None:
    lines = [{"event": "start", "game": "truco", "players": list(NAMES)}]
    lines += [{"event": "foul", "team": 1, "kind": "cut"} for _ in range(11)]  # team 0 on eleven
    lines.append({"event": "hand", "dealer": 3})
    for seat, hand in ((0, "3S KS 5H"), (1, "2S QD 4D"), (2, "3H 6C JH"), (3, "AH 7S 5C")):
        lines.append({"event": "deal", "seat": seat, "cards": hand.split()})
    lines.append({"event": "eleven", "team": 2, "play": True})
    log = tmp_path / "eleven.jsonl"
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    done = cli("replay", str(log), "--json")
    assert "Traceback" not in done.stderr
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["line"] == len(lines)
