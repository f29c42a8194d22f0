"""Dudo (Cacho chileno/boliviano de apuestas) by the Reglamento del Campeonato de Cachos, with house rules."""

from .actions import Action, Bid, Calzo, Descalificacion, Dudo, Event, LogEvent, Paso, PlayerAction, Reveal, Start, Undo
from .config import AbreTrasCalzo, AbreTrasEliminacion, DudoConfig, Subir
from .doubt import ANY_FACE, Candidates, DoubtfulReveal, Settlement, count_bounds
from .errors import LogError, RuleError
from .log import ReplayError, ReplayResult, dumps, event_to_dict, parse_event, replay_lines, step, undo
from .odds import BidOdds, bid_odds
from .pintas import AS, Count, Hand, bid_text, count, face_name, hands_in
from .rolloff import sorteo
from .rulings import Challenge, ChallengeKind, Ruling, StandingBid
from .state import CoordinatorCount, DudoTable, LegalActions, Option, Round

__all__ = [
    "ANY_FACE",
    "AS",
    "AbreTrasCalzo",
    "AbreTrasEliminacion",
    "Action",
    "Bid",
    "BidOdds",
    "Calzo",
    "Candidates",
    "Challenge",
    "ChallengeKind",
    "CoordinatorCount",
    "Count",
    "Descalificacion",
    "DoubtfulReveal",
    "Dudo",
    "DudoConfig",
    "DudoTable",
    "Event",
    "Hand",
    "LegalActions",
    "LogError",
    "LogEvent",
    "Option",
    "Paso",
    "PlayerAction",
    "ReplayError",
    "ReplayResult",
    "Reveal",
    "Round",
    "RuleError",
    "Ruling",
    "Settlement",
    "StandingBid",
    "Start",
    "Subir",
    "Undo",
    "bid_odds",
    "bid_text",
    "count",
    "count_bounds",
    "dumps",
    "event_to_dict",
    "face_name",
    "hands_in",
    "parse_event",
    "replay_lines",
    "sorteo",
    "step",
    "undo",
]
