"""Art. 2: the pintas As < Tonto < Tren < Cuadra < Quina < Sexta; the As is wild, except at the opening and obligo."""

from __future__ import annotations

from engines.dudo import AS, Bid, bid_text, count, face_name

from .helpers import last_ruling, play, refused, seat


def test_pintas_named_lowest_to_highest() -> None:
    names = [face_name(face) for face in range(1, 7)]
    assert names == ["ases", "tontos", "trenes", "cuadras", "quinas", "sextas"]
    assert AS == 1
    assert bid_text(4, 5) == "cuatro quinas"
    assert bid_text(2, 1) == "dos ases"
    assert bid_text(10, 6) == "diez sextas"


def test_count_with_wild_aces_adds_them_to_the_pinta() -> None:
    tally = count([5, 5, 1, 2, 1, 3], 5, aces_wild=True)
    assert (tally.naturals, tally.aces, tally.total) == (2, 2, 4)


def test_count_without_wild_aces_counts_only_the_pinta() -> None:
    tally = count([5, 5, 1, 2, 1, 3], 5, aces_wild=False)
    assert (tally.naturals, tally.total) == (2, 2)


def test_a_bid_in_aces_counts_only_aces() -> None:
    assert count([1, 1, 5, 6, 1], AS, aces_wild=True).total == 3
    assert count([1, 1, 5, 6, 1], AS, aces_wild=False).total == 3


def test_higher_pinta_same_quantity_is_a_raise_lower_is_not() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 4 3")
    for face in (4, 5, 6):
        table.check(Bid("Beto", 4, face))
    for face in (2, 3):
        refused(table, f"Beto bid 4 {face}", "4")


def test_aces_are_wild_in_a_normal_round() -> None:
    # Ana opens, Beto raises (the round is normal from there), Caro doubts: 2 quinas + 2 ases = 4 < 5.
    table = play(
        seat("Ana Beto Caro"),
        "Ana bid 4 5",
        "Beto bid 5 5",
        "Caro dudo",
        {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]},
    )
    ruling = last_ruling(table)
    assert ruling.count is not None
    assert (ruling.count.naturals, ruling.count.aces, ruling.count.total) == (2, 2, 4)
    assert ruling.count.aces_wild
    assert "comodín" in ruling.message
    assert dict(ruling.changes) == {"Beto": -1}


def test_a_wild_as_makes_the_bid_true() -> None:
    table = play(
        seat("Ana Beto Caro"),
        "Ana bid 4 5",
        "Beto bid 5 5",
        "Caro dudo",
        {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [1, 2, 3, 3, 4]},
    )
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.total == 5
    assert dict(ruling.changes) == {"Caro": -1}


def test_aces_are_not_wild_at_the_opening() -> None:
    # Art. 2 and 5: the same dice, but doubting the opening counts the quinas alone.
    table = play(
        seat("Ana Beto Caro"),
        "Ana bid 3 5",
        "Beto dudo",
        {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [1, 2, 3, 3, 4]},
    )
    ruling = last_ruling(table)
    assert ruling.count is not None and not ruling.count.aces_wild
    assert ruling.count.total == 2
    assert "Ana" in dict(ruling.changes)


def test_aces_are_not_wild_in_the_obligo() -> None:
    # Art. 2 and 9: Ana has one die and opens obligando; 1 quina and 3 ases are 1 quina.
    table = play(
        seat("Ana Beto Caro", dice={"Ana": 1}),
        "Ana bid 2 5",
        "Beto dudo",
        {"Ana": [5], "Beto": [1, 1, 2, 3, 4], "Caro": [1, 2, 3, 4, 6]},
    )
    ruling = last_ruling(table)
    assert ruling.count is not None and ruling.count.total == 1 and not ruling.count.aces_wild
    assert dict(ruling.changes) == {"Ana": -1}


def test_a_pinta_outside_one_to_six_is_refused() -> None:
    table = seat("Ana Beto Caro")
    refused(table, "Ana bid 3 7", "2")
    refused(table, "Ana bid 3 0", "2")


def test_a_die_outside_one_to_six_is_refused_at_the_reveal() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 3 5", "Beto dudo")
    refused(table, {"Ana": [5, 5, 7, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [1, 2, 3, 3, 4]}, "2")
    refused(table, {"Ana": [5, 5, 0, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [1, 2, 3, 3, 4]}, "2")
