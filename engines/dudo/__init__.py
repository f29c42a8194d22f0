"""Dudo (Cacho chileno/boliviano de apuestas) by the Reglamento del Campeonato de Cachos, with house rules."""

from .actions import Action, Bid, Calzo, Dudo, Event, Paso, PlayerAction, Reveal, Start
from .config import AbreTrasCalzo, AbreTrasEliminacion, DudoConfig, Subir
from .errors import LogError, RuleError
from .log import ReplayError, ReplayResult, dumps, event_to_dict, parse_event, replay_lines
from .pintas import AS, Count, Hand, bid_text, count, face_name, hands_in
from .rolloff import sorteo
from .rulings import Challenge, ChallengeKind, Ruling, StandingBid
from .state import CoordinatorCount, DudoTable, LegalActions, Option, Round

__all__ = [
    "AS",
    "AbreTrasCalzo",
    "AbreTrasEliminacion",
    "Action",
    "Bid",
    "Calzo",
    "Challenge",
    "ChallengeKind",
    "CoordinatorCount",
    "Count",
    "Dudo",
    "DudoConfig",
    "DudoTable",
    "Event",
    "Hand",
    "LegalActions",
    "LogError",
    "Option",
    "Paso",
    "PlayerAction",
    "ReplayError",
    "ReplayResult",
    "Reveal",
    "Round",
    "RuleError",
    "Ruling",
    "StandingBid",
    "Start",
    "Subir",
    "bid_text",
    "count",
    "dumps",
    "event_to_dict",
    "face_name",
    "hands_in",
    "parse_event",
    "replay_lines",
    "sorteo",
]
