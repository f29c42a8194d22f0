"""The organizer's options (art. 11): each DudoConfig option's default and its alternative; from_mapping."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engines.dudo import AbreTrasCalzo, AbreTrasEliminacion, Bid, DudoConfig, DudoTable, RuleError, Subir

from .helpers import assert_legal_agrees, dice, last_ruling, lost, play, refusal, refused, seat

CUPS = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [2, 2, 3, 3, 4]}  # 2 quinas + 2 ases


def test_defaults() -> None:
    config = DudoConfig()
    assert config.subir is Subir.REGLAMENTO
    assert config.calzo_restringido is True
    assert config.abre_tras_calzo is AbreTrasCalzo.CALZADOR
    assert config.abre_tras_eliminacion is AbreTrasEliminacion.SIGUIENTE
    assert config.apertura_en_toda_ronda is False
    assert config.partida_en_falso_desafiable is False
    assert config.obligo_abre_en_ases is True
    assert config.obligo_en_mano_a_mano is True
    assert config.paso_ases_comodin is False
    assert config.paso_mayor_cubre is False
    assert config.tope_cantidad_en_juego is True
    assert seat("Ana Beto").config == config


def test_config_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'subir'"):
        DudoConfig().subir = Subir.LIBRE  # type: ignore[misc]


# ----------------------------------------------------------------- subir


def test_subir() -> None:
    moves = ("Ana bid 3 5", "Beto bid 4 5")
    refused(play(seat("Ana Beto Caro"), *moves), "Caro bid 5 2", "4")
    table = play(seat("Ana Beto Caro", subir="libre"), *moves)
    table.check(Bid("Caro", 5, 2))
    refused(table, "Caro bid 4 2", "4")
    assert_legal_agrees(table)


# ----------------------------------------------------------------- calzo_restringido


def test_calzo_restringido() -> None:
    moves = ("Ana bid 1 3", "Beto bid 1 4")
    counts = {"Ana": 3, "Beto": 2, "Caro": 2}
    refused(play(seat("Ana Beto Caro", dice=counts), *moves), "Caro calzo", "7")
    table = play(seat("Ana Beto Caro", dice=counts, calzo_restringido=False), *moves)
    assert table.coordinator_count().calzo.allowed
    play(table, "Caro calzo")


# ----------------------------------------------------------------- abre_tras_calzo


@pytest.mark.parametrize(("option", "opener"), [("calzador", "Caro"), ("apostador", "Beto")])
def test_abre_tras_calzo(option: str, opener: str) -> None:
    table = seat("Ana Beto Caro", dice={"Caro": 4}, abre_tras_calzo=option)
    table = play(table, "Ana bid 1 5", "Beto bid 4 5", "Caro calzo", {**CUPS, "Caro": [2, 2, 3, 3]})
    assert lost(table) == {"Caro": 1}
    assert table.round is not None and table.round.opener == opener


def test_a_wrong_calzo_always_reopens_with_the_calzador() -> None:
    for option in ("calzador", "apostador"):
        table = seat("Ana Beto Caro", abre_tras_calzo=option)
        table = play(table, "Ana bid 1 5", "Beto bid 5 5", "Caro calzo", CUPS)
        assert table.round is not None and table.round.opener == "Caro"


# ----------------------------------------------------------------- abre_tras_eliminacion


@pytest.mark.parametrize(("option", "opener"), [("siguiente", "Dani"), ("ganador", "Beto")])
def test_abre_tras_eliminacion(option: str, opener: str) -> None:
    table = seat("Ana Beto Caro Dani", dice={"Caro": 1}, abre_tras_eliminacion=option)
    cups = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [5], "Dani": [2, 2, 3, 3, 4]}
    table = play(table, "Ana bid 1 5", "Beto bid 4 5", "Caro dudo", cups)
    assert last_ruling(table).eliminated == ("Caro",)
    assert table.round is not None and table.round.opener == opener


# ----------------------------------------------------------------- apertura_en_toda_ronda


@pytest.mark.parametrize("option", [True, False])
def test_apertura_en_toda_ronda_after_a_right_calzo(option: bool) -> None:
    table = seat("Ana Beto Caro", dice={"Caro": 4}, apertura_en_toda_ronda=option)
    table = play(table, "Ana bid 1 5", "Beto bid 4 5", "Caro calzo", {**CUPS, "Caro": [2, 2, 3, 3]})
    rnd = table.round
    assert rnd is not None and rnd.opener == "Caro"
    assert rnd.opening_rules is option
    table = play(table, "Caro bid 4 5", "Ana dudo", CUPS)
    assert last_ruling(table).siciliana is option
    assert lost(table) == ({"Caro": -2} if option else {"Ana": -1})


@pytest.mark.parametrize("option", [True, False])
def test_apertura_en_toda_ronda_after_an_elimination(option: bool) -> None:
    table = seat("Ana Beto Caro Dani", dice={"Caro": 1}, apertura_en_toda_ronda=option)
    cups = {"Ana": [5, 5, 1, 2, 3], "Beto": [1, 2, 3, 4, 6], "Caro": [5], "Dani": [2, 2, 3, 3, 4]}
    table = play(table, "Ana bid 1 5", "Beto bid 4 5", "Caro dudo", cups)
    assert table.round is not None and table.round.opener == "Dani"
    assert table.round.opening_rules is option


def test_the_reopening_by_the_loser_is_an_opening_either_way() -> None:
    table = seat("Ana Beto Caro", apertura_en_toda_ronda=False)
    assert table.round is not None and table.round.opening_rules
    table = play(table, "Ana bid 1 5", "Beto bid 4 5", "Caro dudo", CUPS)
    assert table.round is not None and table.round.opener == "Caro" and table.round.opening_rules


# ----------------------------------------------------------------- partida_en_falso_desafiable


def test_partida_en_falso_desafiable() -> None:
    refused(play(seat("Ana Beto Caro"), "Ana bid 2 1"), "Beto dudo", "5")
    table = play(seat("Ana Beto Caro", partida_en_falso_desafiable=True), "Ana bid 3 1")
    assert table.round is not None and table.round.partida_en_falso
    legal = table.legal_actions()
    assert legal is not None and legal.dudo.allowed and legal.calzo.allowed and legal.desestima.allowed
    assert_legal_agrees(table)
    doubted = play(table, "Beto dudo", CUPS)  # 2 ases < 3: the opener loses, siciliana
    assert lost(doubted) == {"Ana": -2}
    calzado = play(table, "Beto calzo", {**CUPS, "Caro": [1, 2, 3, 3, 4]})
    assert lost(calzado) == {"Beto": 0}


# ----------------------------------------------------------------- desestimar_sin_decirlo


def test_desestimar_sin_decirlo() -> None:
    """By default a bid that neither continues nor converts the aces dismisses them; with the option off it is
    refused (art. 5) unless dismissed expressly, while continuing and converting stay legal."""
    implicit = play(seat("Ana Beto Caro"), "Ana bid 2 1", "Beto bid 1 4")
    assert implicit.round is not None and implicit.round.en_apertura and not implicit.round.partida_en_falso
    said = seat("Ana Beto Caro", desestimar_sin_decirlo=False)
    table = play(said, "Ana bid 2 1")
    refused(table, "Beto bid 1 4", "5")
    assert table.legal_actions() is not None
    assert_legal_agrees(table)
    dismissed = play(table, "Beto bid 1 4 desestima")
    assert dismissed.round is not None and dismissed.round.en_apertura and dismissed.round.bid is not None
    assert dismissed.round.bid.face == 4
    continued = play(table, "Beto bid 3 1")  # a raise in aces normalizes the round (art. 5)
    assert continued.round is not None and continued.round.bid is not None and continued.round.bid.face == 1
    converted = play(table, "Beto bid 5 4")
    assert converted.round is not None and not converted.round.en_apertura


# ----------------------------------------------------------------- obligo_abre_en_ases


def test_obligo_abre_en_ases() -> None:
    play(seat("Ana Beto Caro", dice={"Ana": 1}), "Ana bid 1 1")
    table = seat("Ana Beto Caro", dice={"Ana": 1}, obligo_abre_en_ases=False)
    refused(table, "Ana bid 1 1", "9")
    play(table, "Ana bid 1 6")
    assert_legal_agrees(table)


# ----------------------------------------------------------------- obligo_en_mano_a_mano


def test_obligo_en_mano_a_mano() -> None:
    cups = {"Ana": [5], "Beto": [1, 1, 2, 3, 4]}
    table = seat("Ana Beto", dice={"Ana": 1})
    assert table.round is not None and table.round.obligo and not table.round.aces_wild
    table = play(table, "Ana bid 2 5")
    refused(table, "Beto calzo", "9")
    refused(table, "Beto bid 2 6", "9")
    table = play(table, "Beto dudo", cups)
    assert lost(table) == {"Ana": -1} and table.winner == "Beto"  # 1 quina, the ases are not wild

    table = seat("Ana Beto", dice={"Ana": 1}, obligo_en_mano_a_mano=False)
    assert table.round is not None and not table.round.obligo and table.round.aces_wild
    table = play(table, "Ana bid 2 5")
    table.check(Bid("Beto", 2, 6))
    table = play(table, "Beto dudo", cups)
    assert lost(table) == {"Beto": -1}  # 1 quina + 2 ases
    assert dice(table) == {"Ana": 1, "Beto": 4}


# ----------------------------------------------------------------- paso_ases_comodin, paso_mayor_cubre


def paso_doubted(cup: list[int], hand: str, **options: Any) -> DudoTable:
    table = seat("Ana Beto Caro", **options)
    return play(table, "Ana bid 3 5", f"Beto paso {hand}", "Caro dudo", {"Beto": cup})


@pytest.mark.parametrize(
    ("cup", "hand"),
    [([1, 5, 5, 5, 3], "full"), ([1, 1, 2, 3, 4], "escala"), ([1, 1, 6, 6, 6], "quintilla")],
)
def test_paso_ases_comodin(cup: list[int], hand: str) -> None:
    assert lost(paso_doubted(cup, hand)) == {"Beto": -1}
    assert lost(paso_doubted(cup, hand, paso_ases_comodin=True)) == {"Caro": -1}


def test_paso_mayor_cubre() -> None:
    assert lost(paso_doubted([4, 4, 4, 4, 4], "full")) == {"Beto": -1}
    assert lost(paso_doubted([4, 4, 4, 4, 4], "full", paso_mayor_cubre=True)) == {"Caro": -1}
    assert lost(paso_doubted([2, 3, 4, 5, 6], "full", paso_mayor_cubre=True)) == {"Caro": -1}
    # a lower hand never proves a higher declaration
    assert lost(paso_doubted([3, 3, 3, 6, 6], "escala", paso_mayor_cubre=True)) == {"Beto": -1}


# ----------------------------------------------------------------- tope_cantidad_en_juego


def test_tope_cantidad_en_juego() -> None:
    refused(seat("Ana Beto Caro"), "Ana bid 16 5", "4")
    table = seat("Ana Beto Caro", tope_cantidad_en_juego=False)
    table.check(Bid("Ana", 16, 5))
    table = play(table, "Ana bid 20 5", "Beto dudo", CUPS)
    assert lost(table) == {"Ana": -2}


# ----------------------------------------------------------------- from_mapping


def test_from_mapping_reads_every_option() -> None:
    options: dict[str, object] = {
        "subir": "libre",
        "calzo_restringido": False,
        "abre_tras_calzo": "apostador",
        "abre_tras_eliminacion": "ganador",
        "apertura_en_toda_ronda": False,
        "partida_en_falso_desafiable": True,
        "desestimar_sin_decirlo": False,
        "obligo_abre_en_ases": False,
        "obligo_en_mano_a_mano": False,
        "paso_ases_comodin": True,
        "paso_mayor_cubre": True,
        "tope_cantidad_en_juego": False,
    }
    config = DudoConfig.from_mapping(options)
    assert config.subir is Subir.LIBRE and config.abre_tras_calzo is AbreTrasCalzo.APOSTADOR
    assert config.abre_tras_eliminacion is AbreTrasEliminacion.GANADOR
    assert config.to_dict() == options
    assert DudoConfig.from_mapping(config.to_dict()) == config
    assert {f.name for f in dataclasses.fields(DudoConfig)} == set(options)
    assert DudoConfig.from_mapping({}) == DudoConfig()
    assert DudoConfig.from_mapping(DudoConfig().to_dict()) == DudoConfig()


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"siciliana": False}, "opción desconocida 'siciliana'; las opciones son: subir, "),
        ({"Subir": "libre"}, "opción desconocida 'Subir'"),
        ({"subir": "otro"}, "la opción 'subir' vale reglamento o libre, no 'otro'"),
        ({"subir": True}, "la opción 'subir' vale reglamento o libre, no True"),
        ({"subir": None}, "la opción 'subir' vale reglamento o libre, no None"),
        ({"abre_tras_calzo": "ganador"}, "la opción 'abre_tras_calzo' vale calzador o apostador, no 'ganador'"),
        (
            {"abre_tras_eliminacion": "calzador"},
            "la opción 'abre_tras_eliminacion' vale siguiente o ganador, no 'calzador'",
        ),
        ({"calzo_restringido": "true"}, "la opción 'calzo_restringido' es true o false, no 'true'"),
        ({"calzo_restringido": 1}, "la opción 'calzo_restringido' es true o false, no 1"),
        ({"paso_mayor_cubre": None}, "la opción 'paso_mayor_cubre' es true o false, no None"),
        ({"tope_cantidad_en_juego": 0}, "la opción 'tope_cantidad_en_juego' es true o false, no 0"),
    ],
)
def test_from_mapping_refuses_unknown_options_and_bad_values(options: dict[str, object], reason: str) -> None:
    with refusal(RuleError, "11", reason):
        DudoConfig.from_mapping(options)


def test_every_option_reaches_the_table() -> None:
    table: DudoTable = seat("Ana Beto", subir="libre", calzo_restringido=False)
    assert table.config.subir is Subir.LIBRE and table.config.calzo_restringido is False
    assert table.to_dict()["options"] == table.config.to_dict()
