"""Art. 5: the opening (first bid of the game and every reopening): aces not wild, the false start, heads-up."""

from __future__ import annotations

from engines.dudo import Bid, DudoTable

from .helpers import assert_legal_agrees, dice, last_ruling, lost, play, refused, seat

# 6 sextas and 4 ases over Ana, Beto and Caro (the Reglamento's example).
DIEZ_SEXTAS = {"Ana": [6, 6, 1, 1, 2], "Beto": [6, 6, 1, 1, 3], "Caro": [6, 6, 2, 3, 4]}


def three() -> DudoTable:
    return seat("Ana Beto Caro")


def test_the_first_round_opens_under_art_5() -> None:
    table = three()
    assert table.round is not None and table.round.opening_rules and table.round.mode == "apertura"
    table = play(table, "Ana bid 4 5")
    assert table.round is not None and table.round.en_apertura and not table.round.aces_wild


def test_example_diez_sextas() -> None:
    # "diez sextas", 6 sextas and 4 ases: at the opening the aces do not add up: 6, not 10; the opener loses.
    table = play(three(), "Ana bid 10 6", "Beto dudo", DIEZ_SEXTAS)
    ruling = last_ruling(table)
    assert ruling.count is not None
    assert (ruling.count.total, ruling.count.naturals, ruling.count.aces_wild) == (6, 6, False)
    assert "Ana" in lost(table) and lost(table)["Ana"] < 0
    assert "Beto" not in lost(table)
    assert "5" in ruling.articles
    assert "apertura" in ruling.message


def test_the_same_dice_after_a_raise_count_the_aces() -> None:
    # Had Beto raised, the aces would be wild again: 10 sextas, and the doubter loses.
    table = play(three(), "Ana bid 9 6", "Beto bid 10 6", "Caro dudo", DIEZ_SEXTAS)
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.total == 10
    assert lost(table) == {"Caro": -1}


def test_the_opening_is_true_on_its_literal_pinta() -> None:
    table = play(three(), "Ana bid 6 6", "Beto dudo", DIEZ_SEXTAS)
    assert lost(table)["Beto"] < 0


def test_every_reopening_by_the_loser_is_an_opening() -> None:
    table = play(three(), "Ana bid 10 6", "Beto dudo", DIEZ_SEXTAS)
    assert table.round is not None and table.round.opener == "Ana" and table.round.opening_rules
    cups = {"Ana": [6, 1, 1], "Beto": [6, 6, 1, 1, 3], "Caro": [6, 6, 2, 3, 4]}
    table = play(table, "Ana bid 6 6", "Beto dudo", cups)
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.total == 5 and not ruling.count.aces_wild
    assert lost(table)["Ana"] < 0


def test_a_raise_normalizes_the_round() -> None:
    table = play(three(), "Ana bid 4 5", "Beto bid 5 5")
    assert table.round is not None and not table.round.en_apertura and table.round.aces_wild
    assert table.round.mode == "normal"
    table = play(table, "Caro bid 5 6", "Ana dudo", DIEZ_SEXTAS)
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.aces_wild and ruling.count.total == 10
    assert lost(table) == {"Ana": -1}


# ----------------------------------------------------------------- the false start (opening in aces)


def false_start() -> DudoTable:
    table = play(three(), "Ana bid 2 1")
    assert table.round is not None and table.round.partida_en_falso
    return table


def test_a_false_start_may_not_be_doubted_nor_calzado() -> None:
    table = false_start()
    refused(table, "Beto dudo", "5")
    refused(table, "Beto calzo", "5")
    legal = table.legal_actions()
    assert legal is not None and legal.desestima.allowed
    assert not legal.dudo.allowed and legal.dudo.article == "5"
    assert not legal.calzo.allowed and legal.calzo.article == "5"
    assert_legal_agrees(table)


def test_a_false_start_continued_in_aces() -> None:
    table = play(false_start(), "Beto bid 3 1")
    assert table.round is not None and not table.round.en_apertura and not table.round.partida_en_falso
    table.check(Bid("Caro", 4, 1))
    table.check(Bid("Caro", 7, 5))
    refused(table, "Caro bid 3 1", "4")
    refused(table, "Caro bid 2 1 desestima", "5")
    table = play(table, "Caro dudo", DIEZ_SEXTAS)
    assert lost(table) == {"Caro": -1}  # 4 ases >= 3; one die: the round was normalized
    assert not last_ruling(table).siciliana


def test_a_false_start_converted_up_double_plus_one() -> None:
    table = play(false_start(), "Beto bid 5 6")
    assert table.round is not None and not table.round.en_apertura and table.round.aces_wild
    table = play(table, "Caro dudo", DIEZ_SEXTAS)
    assert lost(table) == {"Caro": -1}  # 6 sextas + 4 ases (wild) >= 5


def test_a_false_start_dismissed_explicitly() -> None:
    table = play(false_start(), Bid("Beto", 3, 4, desestima=True))
    rnd = table.round
    assert rnd is not None and rnd.en_apertura and not rnd.aces_wild
    assert rnd.bid is not None and (rnd.bid.player, rnd.bid.quantity, rnd.bid.face) == ("Beto", 3, 4)
    table = play(table, "Caro dudo", DIEZ_SEXTAS)  # 1 cuadra, the aces do not count: Beto loses two
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.total == 1
    assert lost(table) == {"Beto": -2} and ruling.siciliana


def test_a_false_start_dismissed_even_with_a_raise_when_desestima() -> None:
    table = play(false_start(), Bid("Beto", 5, 6, desestima=True))
    assert table.round is not None and table.round.en_apertura and not table.round.aces_wild


def test_a_false_start_dismissed_by_a_bid_that_is_not_a_raise() -> None:
    table = play(false_start(), "Beto bid 4 6")  # not 2q+1: a new opening, not a conversion
    rnd = table.round
    assert rnd is not None and rnd.en_apertura and not rnd.aces_wild and rnd.bid is not None
    assert rnd.bid.player == "Beto"
    table.check(Bid("Caro", 5, 6))


def test_a_dismissal_opening_in_aces_is_a_false_start_again() -> None:
    table = play(false_start(), Bid("Beto", 1, 1, desestima=True))
    assert table.round is not None and table.round.partida_en_falso
    refused(table, "Caro dudo", "5")


def test_desestima_only_dismisses_a_false_start() -> None:
    table = play(three(), "Ana bid 4 5")
    refused(table, Bid("Beto", 5, 5, desestima=True), "5")
    legal = table.legal_actions()
    assert legal is not None and not legal.desestima.allowed
    refused(play(three(), "Ana bid 4 5", "Beto bid 2 1"), Bid("Caro", 3, 1, desestima=True), "5")
    refused(three(), Bid("Ana", 3, 1, desestima=True), "5")


def test_the_opener_may_open_in_aces_in_a_reopening_too() -> None:
    table = play(three(), "Ana bid 10 6", "Beto dudo", DIEZ_SEXTAS, "Ana bid 1 1")
    assert table.round is not None and table.round.partida_en_falso
    refused(table, "Beto dudo", "5")


# ----------------------------------------------------------------- heads-up: none of art. 5


def test_heads_up_aces_are_wild_from_the_opening() -> None:
    table = seat("Ana Beto")
    assert table.round is not None and table.round.heads_up and not table.round.opening_rules
    table = play(table, "Ana bid 5 6", "Beto dudo", {"Ana": [6, 6, 1, 2, 3], "Beto": [6, 1, 2, 3, 4]})
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.aces_wild and ruling.count.total == 5
    assert lost(table) == {"Beto": -1}


def test_heads_up_an_opening_in_aces_is_an_ordinary_bid() -> None:
    table = play(seat("Ana Beto"), "Ana bid 2 1")
    assert table.round is not None and not table.round.partida_en_falso
    table.check(Bid("Beto", 3, 1))
    refused(table, Bid("Beto", 3, 4, desestima=True), "5")
    refused(table, "Beto bid 4 6", "4")
    assert_legal_agrees(table)
    table = play(table, "Beto dudo", {"Ana": [6, 6, 1, 2, 3], "Beto": [6, 1, 2, 3, 4]})
    assert lost(table) == {"Beto": -1}


def test_heads_up_when_two_of_three_have_dice() -> None:
    table = seat("Ana Beto Caro", dice={"Beto": 0})
    assert table.round is not None and table.round.heads_up and table.round.aces_wild


def test_heads_up_begins_once_a_third_player_is_out() -> None:
    table = seat("Ana Beto Caro", dice={"Caro": 1}, opener="Ana")
    table = play(
        table,
        "Ana bid 3 5",
        "Beto bid 3 6",
        "Caro dudo",
        {"Ana": [6, 6, 1, 2, 3], "Beto": [6, 2, 3, 4, 5], "Caro": [6]},
    )
    assert dice(table)["Caro"] == 0
    assert table.round is not None and table.round.heads_up and table.round.aces_wild
    assert table.round.mode == "mano a mano"


def test_the_kiosk_sees_why_a_false_start_may_not_be_doubted() -> None:
    legal = false_start().legal_actions()
    assert legal is not None
    out = legal.to_dict()
    assert out["player"] == "Beto" and out["desestima"] is True
    may = out["may"]
    assert isinstance(may, list) and "bid" in may and "dudo" not in may and "calzo" not in may
    may_not = out["may_not"]
    assert isinstance(may_not, dict)
    assert may_not["dudo"]["article"] == "5" and may_not["calzo"]["article"] == "5"
    assert may_not["dudo"]["reason"]
