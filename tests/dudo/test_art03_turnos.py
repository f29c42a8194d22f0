"""Art. 3: the roll-off (sorteo), the fixed clockwise order, and whoever loses a die opens the next round."""

from __future__ import annotations

from engines.dudo import DudoTable, RuleError, Start, sorteo

from .helpers import dice, last_ruling, play, refusal, refused, seat

PLAYERS = ("Ana", "Beto", "Caro")


# ----------------------------------------------------------------- the sorteo


def test_sorteo_highest_die_opens() -> None:
    assert sorteo(PLAYERS, [{"Ana": 3, "Beto": 6, "Caro": 2}]) == "Beto"


def test_sorteo_the_as_counts_one_the_lowest() -> None:
    assert sorteo(PLAYERS, [{"Ana": 1, "Beto": 2, "Caro": 1}]) == "Beto"
    assert sorteo(("Ana", "Beto"), [{"Ana": 1, "Beto": 2}]) == "Beto"


def test_sorteo_tied_reroll_among_themselves_only() -> None:
    rolls = [{"Ana": 6, "Beto": 6, "Caro": 2}, {"Ana": 4, "Beto": 5}]
    assert sorteo(PLAYERS, rolls) == "Beto"


def test_sorteo_a_lower_tie_does_not_reroll() -> None:
    assert sorteo(PLAYERS, [{"Ana": 2, "Beto": 2, "Caro": 5}]) == "Caro"


def test_sorteo_ties_until_resolved() -> None:
    rolls = [{"Ana": 6, "Beto": 6, "Caro": 6}, {"Ana": 3, "Beto": 3, "Caro": 1}, {"Ana": 2, "Beto": 4}]
    assert sorteo(PLAYERS, rolls) == "Beto"


def _sorteo_refused(rolls: list[dict[str, object]], article: str, reason: str) -> None:
    with refusal(RuleError, article, reason):
        sorteo(PLAYERS, rolls)  # type: ignore[arg-type]


def test_sorteo_needs_a_roll() -> None:
    _sorteo_refused([], "3", "el sorteo necesita al menos una tirada")


def test_sorteo_everyone_rolls_first() -> None:
    everyone = "en la tirada 1 del sorteo lanzan Ana, Beto, Caro, y solo ellos"
    _sorteo_refused([{"Ana": 6, "Beto": 2}], "3", everyone)  # Caro did not roll
    _sorteo_refused([{"Ana": 6, "Beto": 2, "Caro": 3, "Dani": 1}], "3", everyone)  # Dani is not seated


def test_sorteo_only_the_tied_reroll() -> None:
    tied = "en la tirada 2 del sorteo lanzan Ana, Beto, y solo ellos"
    _sorteo_refused([{"Ana": 6, "Beto": 6, "Caro": 2}, {"Ana": 4, "Beto": 5, "Caro": 6}], "3", tied)
    _sorteo_refused([{"Ana": 6, "Beto": 6, "Caro": 2}, {"Ana": 4}], "3", tied)


def test_sorteo_no_rolls_after_it_is_decided() -> None:
    rolls: list[dict[str, object]] = [{"Ana": 6, "Beto": 5, "Caro": 2}, {"Ana": 4, "Beto": 5, "Caro": 6}]
    _sorteo_refused(rolls, "3", "el sorteo se resolvió en la tirada 1: sobran tiradas")


def test_sorteo_still_tied_is_not_decided() -> None:
    still = "el sorteo sigue empatado entre Ana, Beto: relanzan entre ellos"
    _sorteo_refused([{"Ana": 6, "Beto": 6, "Caro": 2}], "3", still)
    _sorteo_refused([{"Ana": 6, "Beto": 6, "Caro": 2}, {"Ana": 4, "Beto": 4}], "3", still)


def test_sorteo_a_die_goes_from_one_to_six() -> None:
    _sorteo_refused([{"Ana": 7, "Beto": 2, "Caro": 3}], "2", "Ana sacó 7 en el sorteo: un dado va de 1 a 6")
    _sorteo_refused([{"Ana": 0, "Beto": 2, "Caro": 3}], "2", "Ana sacó 0 en el sorteo: un dado va de 1 a 6")
    _sorteo_refused([{"Ana": True, "Beto": 2, "Caro": 3}], "2", "Ana sacó True en el sorteo: un dado va de 1 a 6")


# ----------------------------------------------------------------- seating


def _start_refused(start: Start, article: str, reason: str) -> None:
    with refusal(RuleError, article, reason):
        DudoTable.start(start)


def test_seating_refusals() -> None:
    _start_refused(Start(("Ana",), "Ana"), "3", "una mesa necesita al menos 2 jugadores")
    _start_refused(Start(("Ana", "Ana", "Beto"), "Ana"), "3", "nombre repetido en la mesa: Ana")
    _start_refused(Start(("Ana", " ", "Beto"), "Ana"), "3", "cada jugador necesita un nombre")
    _start_refused(Start(PLAYERS, "Dani"), "3", "'Dani' no está sentado en la mesa")
    _start_refused(Start(PLAYERS, "Beto", dice=(5, 0, 5)), "3", "Beto no tiene dados: no puede abrir")


def test_the_opener_acts_first() -> None:
    table = seat("Ana Beto Caro", opener="Caro")
    assert table.round is not None and table.round.to_act == "Caro" and table.round.opener == "Caro"
    refused(table, "Ana bid 3 5", "3")


# ----------------------------------------------------------------- clockwise order


def test_turn_passes_clockwise_and_wraps() -> None:
    table = seat("Ana Beto Caro", opener="Beto")
    table = play(table, "Beto bid 3 5")
    assert table.round is not None and table.round.to_act == "Caro"
    table = play(table, "Caro bid 4 5")
    assert table.round is not None and table.round.to_act == "Ana"
    table = play(table, "Ana bid 5 5")
    assert table.round is not None and table.round.to_act == "Beto"


def test_out_of_turn_is_refused() -> None:
    table = play(seat("Ana Beto Caro"), "Ana bid 3 5")
    refused(table, "Caro bid 4 5", "3")
    refused(table, "Caro dudo", "3")
    refused(table, "Caro calzo", "3")
    refused(table, "Caro paso full", "3")
    refused(table, "Ana bid 4 5", "3")  # not twice in a row


def test_a_stranger_is_refused() -> None:
    table = seat("Ana Beto Caro")
    refused(table, "Dani bid 3 5", "3")


def test_the_order_skips_players_without_dice() -> None:
    table = seat("Ana Beto Caro Dani", dice={"Beto": 0})
    table = play(table, "Ana bid 3 5")
    assert table.round is not None and table.round.to_act == "Caro"
    assert table.next_active("Dani") == "Ana"
    refused(table, "Beto bid 4 5", "10")


def test_the_order_skips_a_player_eliminated_during_the_game() -> None:
    # Beto opens obligando, Caro doubts and wins: Beto is out; Caro, who did not lose, does not open.
    table = play(
        seat("Ana Beto Caro Dani", opener="Beto", dice={"Beto": 1}),
        "Beto bid 2 5",
        "Caro dudo",
        {"Ana": [2, 2, 3, 3, 4], "Beto": [5], "Caro": [2, 3, 4, 6, 6], "Dani": [2, 3, 4, 6, 6]},
    )
    assert dice(table)["Beto"] == 0
    table = play(table, "Caro bid 3 5", "Dani bid 4 5", "Ana bid 5 5")
    assert table.round is not None and table.round.to_act == "Caro"


# ----------------------------------------------------------------- who opens


def test_the_doubter_who_loses_opens_next() -> None:
    table = play(
        seat("Ana Beto Caro"),
        "Ana bid 3 5",
        "Beto bid 4 5",
        "Caro dudo",
        {"Ana": [5, 5, 1, 2, 3], "Beto": [5, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]},
    )
    assert dict(last_ruling(table).changes) == {"Caro": -1}
    assert last_ruling(table).next_opener == "Caro"
    assert table.round is not None and table.round.opener == "Caro" and table.round.to_act == "Caro"
    assert table.round.number == 2


def test_the_bidder_who_loses_opens_next() -> None:
    table = play(
        seat("Ana Beto Caro"),
        "Ana bid 3 5",
        "Beto bid 4 5",
        "Caro dudo",
        {"Ana": [2, 2, 3, 3, 4], "Beto": [5, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]},
    )
    assert dict(last_ruling(table).changes) == {"Beto": -1}
    assert table.round is not None and table.round.opener == "Beto"
    refused(table, "Ana bid 2 2", "3")
