"""The game: an immutable state that checks each action against the seed's rules and applies it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .actions import Action, Declare, Hatch, Pick, PlayerAction, Roll, Score, SetAside, Start, Variant
from .config import AlcanceGrandes, BoliviaConfig, Empate, GrandeDeMano
from .errors import (
    ART_CROSS_HATCH,
    ART_EQUIPMENT,
    ART_GENERALA,
    ART_HOW_TO_PLAY,
    ART_PARTNERS,
    ART_PLAYERS,
    ART_THREE_HATCHES,
    RuleError,
)
from .pizarra import Pizarra
from .scoring import (
    CATEGORIES,
    DICE,
    MAX_ROLLS,
    Category,
    ScoreResult,
    check_dice,
    is_grande,
    score,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 6
HATCH_CHOICES = (1, 3)


@dataclass(frozen=True, slots=True)
class Attempt:
    """One player's rolls toward one score: the whole turn, or one partner's try in the team's turn."""

    player: str
    rolls: int = 0
    dice: tuple[int, ...] | None = None
    declared: Category | None = None
    locked: frozenset[int] = frozenset()  # 0-based positions already set aside before the last roll
    kept: frozenset[int] = frozenset()  # 0-based positions set aside for the next roll
    must_roll_all: bool = False  # the category changed: all five dice go back into the cup

    def to_dict(self) -> dict[str, object]:
        """JSON form (positions 1-based, as in the log)."""
        return {
            "player": self.player,
            "rolls": self.rolls,
            "dice": None if self.dice is None else list(self.dice),
            "declared": None if self.declared is None else self.declared.value,
            "set_aside": sorted(p + 1 for p in self.kept),
            "must_roll_all": self.must_roll_all,
        }


@dataclass(frozen=True, slots=True)
class Side:
    """Who owns a pizarra: a player, or a team of partners; one pizarra per cross hatch played."""

    name: str
    members: tuple[str, ...]
    hatches: tuple[Pizarra, ...]

    @property
    def total(self) -> int:
        """Points on all its cross hatches."""
        return sum(h.total for h in self.hatches)

    @property
    def full(self) -> bool:
        """Every cell of every cross hatch holds a score or an X."""
        return all(h.full for h in self.hatches)

    def open_in_some_hatch(self, category: Category) -> bool:
        """Whether `category` is empty on at least one of its cross hatches."""
        return any(h.is_open(category) for h in self.hatches)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "name": self.name,
            "members": list(self.members),
            "hatches": [h.to_dict() for h in self.hatches],
            "total": self.total,
        }


@dataclass(frozen=True, slots=True)
class InstantWin:
    """A grande de mano: five of a kind on the first roll wins the game at once (How to play: scores)."""

    side: str
    player: str
    dice: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Option:
    """One thing the player on turn may or may not do now; when not, the seed section and the reason."""

    action: str
    detail: str | None
    allowed: bool
    article: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "action": self.action,
            "detail": self.detail,
            "allowed": self.allowed,
            "article": self.article,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the player on turn may do now (None/empty when the game has not started or is over)."""

    player: str | None
    side: str | None
    options: tuple[Option, ...]

    def allowed(self) -> tuple[Option, ...]:
        """Only the options that are allowed."""
        return tuple(o for o in self.options if o.allowed)


@dataclass(frozen=True, slots=True)
class Standing:
    """One side's line in the ranking: points per cross hatch, total, game points and place."""

    side: str
    members: tuple[str, ...]
    hatch_totals: tuple[int, ...]
    total: int
    game_points: int
    place: int

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "side": self.side,
            "members": list(self.members),
            "hatch_totals": list(self.hatch_totals),
            "total": self.total,
            "game_points": self.game_points,
            "place": self.place,
        }


@dataclass(frozen=True, slots=True)
class Result:
    """Totals and ranking; the winners once the game is over (or a play-off, or a grande de mano)."""

    finished: bool
    standings: tuple[Standing, ...]
    winners: tuple[str, ...]
    playoff: tuple[str, ...]
    instant_win: InstantWin | None
    settlement: tuple[tuple[str, int], ...]  # Generala for stakes: what each loser pays the winner(s)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        win = self.instant_win
        return {
            "finished": self.finished,
            "ranking": [s.to_dict() for s in self.standings],
            "winners": list(self.winners),
            "playoff": list(self.playoff),
            "instant_win": None if win is None else {"side": win.side, "player": win.player, "dice": list(win.dice)},
            "settlement": [{"loser": name, "owes": amount} for name, amount in self.settlement],
        }


@dataclass(frozen=True, slots=True)
class BoliviaGame:
    """A Bolivian Cacho (or Generala) game; `BoliviaGame()` is the table before the start event."""

    players: tuple[str, ...] = ()
    variant: Variant = field(default_factory=Variant)
    config: BoliviaConfig = field(default_factory=BoliviaConfig)
    sides: tuple[Side, ...] = ()
    turn: int = 0  # index in `sides` of the side on turn
    attempt: Attempt | None = None  # None while a team picks, a hatch is chosen, or the game is over
    candidates: tuple[ScoreResult, ...] = ()  # partners: the attempts already made this turn
    pending: ScoreResult | None = None  # three hatches: the turn's score, waiting for its hatch
    instant_win: InstantWin | None = None
    last: ScoreResult | None = None  # the score produced by the last action, if it produced one
    turns_played: int = 0

    # --- queries -------------------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """Whether the start event was applied."""
        return bool(self.players)

    @property
    def over(self) -> bool:
        """A grande de mano was made, or every cell of every pizarra holds a score or an X."""
        return self.instant_win is not None or (self.started and all(s.full for s in self.sides))

    @property
    def side(self) -> Side:
        """The side on turn."""
        return self.sides[self.turn]

    @property
    def phase(self) -> str:
        """ "start", "attempt" (rolling), "pick" (partners choose), "hatch" (choose the hatch) or "over"."""
        if not self.started:
            return "start"
        if self.over:
            return "over"
        if self.pending is not None:
            return "hatch"
        if self.attempt is None:
            return "pick"
        return "attempt"

    def grandes_before(self) -> int:
        """Grandes already written that count toward the two worth 50, for the side on turn."""
        if self.config.alcance_grandes is AlcanceGrandes.JUGADOR:
            return sum(h.grandes for h in self.side.hatches)
        return sum(h.grandes for s in self.sides for h in s.hatches)

    # --- checks ----------------------------------------------------------------------------------------

    def check(self, action: Action) -> None:
        """Raise RuleError if `action` is not allowed now; change nothing."""
        if isinstance(action, Start):
            self._check_start(action)
            return
        if not self.started:
            raise RuleError(ART_PLAYERS, "la partida aún no empezó: falta el inicio")
        if self.over:
            raise RuleError(ART_CROSS_HATCH, "la partida terminó")
        if action.player not in self.players:
            raise RuleError(ART_PLAYERS, f"{action.player} no juega esta partida")
        if isinstance(action, Roll):
            self._check_roll(action)
        elif isinstance(action, Declare):
            self._check_declare(action)
        elif isinstance(action, SetAside):
            self._check_set_aside(action)
        elif isinstance(action, Score):
            self._check_score(action)
        elif isinstance(action, Pick):
            self._check_pick(action)
        else:
            self._check_hatch(action)

    def _check_start(self, action: Start) -> None:
        if self.started:
            raise RuleError(ART_PLAYERS, "la partida ya empezó: un registro tiene un solo inicio")
        players = action.players
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise RuleError(ART_PLAYERS, f"juegan de 2 a 6 jugadores, no {len(players)}")
        if any(not name.strip() for name in players):
            raise RuleError(ART_PLAYERS, "cada jugador necesita un nombre")
        if len(set(players)) != len(players):
            raise RuleError(ART_PLAYERS, "hay un nombre repetido: cada jugador se anota una vez")
        if action.variant.hatches not in HATCH_CHOICES:
            raise RuleError(ART_THREE_HATCHES, f"se juega con una pizarra o con tres, no {action.variant.hatches}")
        teams = action.variant.teams
        if teams:
            members = [m for team in teams for m in team]
            if sorted(members) != sorted(players):
                raise RuleError(ART_PARTNERS, "cada jugador debe estar en exactamente un equipo")
            if len(teams) < 2:
                raise RuleError(ART_PARTNERS, "con parejas juegan al menos dos equipos")
            # Each member rolls in the team's turn, so teams of unequal size would not get equal tries.
            if any(len(team) < 2 for team in teams) or len({len(team) for team in teams}) != 1:
                raise RuleError(ART_PARTNERS, "los equipos deben ser del mismo tamaño, de dos o más jugadores")

    def _current_attempt(self, player: str) -> Attempt:
        phase = self.phase
        if phase == "hatch":
            assert self.pending is not None
            raise RuleError(
                ART_THREE_HATCHES,
                f"falta elegir en qué pizarra va {self.pending.category.label} de {self.side.name}",
            )
        if phase == "pick":
            raise RuleError(ART_PARTNERS, f"ya tiraron todos: {self.side.name} debe elegir qué tirada anota")
        attempt = self.attempt
        assert attempt is not None
        if player != attempt.player:
            raise RuleError(ART_HOW_TO_PLAY, f"no es el turno de {player}: le toca a {attempt.player}")
        return attempt

    def _check_roll(self, action: Roll) -> None:
        attempt = self._current_attempt(action.player)
        if attempt.rolls >= MAX_ROLLS:
            raise RuleError(ART_HOW_TO_PLAY, "ya hizo sus tres tiradas: solo le queda anotar")
        if attempt.rolls >= 1 and attempt.declared is None and not self.variant.generala:
            raise RuleError(
                ART_HOW_TO_PLAY, "tras la primera tirada debe declarar qué categoría anotará antes de volver a tirar"
            )
        dice = check_dice(action.dice)
        if attempt.dice is not None:
            for position in sorted(attempt.kept):
                before, now = attempt.dice[position], dice[position]
                if before != now:
                    raise RuleError(
                        ART_HOW_TO_PLAY,
                        f"el dado {position + 1} estaba apartado con {before} y ahora muestra {now}: "
                        "los dados apartados no se mueven",
                    )

    def _check_declare(self, action: Declare) -> None:
        if self.variant.generala:
            raise RuleError(ART_GENERALA, "en Generala no se declara: la categoría se elige al anotar")
        attempt = self._current_attempt(action.player)
        if attempt.rolls == 0:
            raise RuleError(ART_HOW_TO_PLAY, "primero tire: la categoría se declara después de la primera tirada")
        self._check_open(action.category)
        if attempt.declared is action.category:
            raise RuleError(ART_HOW_TO_PLAY, f"ya declaró {action.category.label}")
        if attempt.declared is not None and attempt.rolls >= MAX_ROLLS:
            raise RuleError(
                ART_HOW_TO_PLAY,
                f"para cambiar de {attempt.declared.label} a {action.category.label} hay que tirar otra vez "
                "los cinco dados, y ya no le quedan tiradas",
            )

    def _check_open(self, category: Category) -> None:
        side = self.side
        if not side.open_in_some_hatch(category):
            where = " en sus tres pizarras" if len(side.hatches) > 1 else ""
            raise RuleError(ART_CROSS_HATCH, f"{side.name} ya anotó {category.label}{where}")

    def _check_set_aside(self, action: SetAside) -> None:
        attempt = self._current_attempt(action.player)
        if attempt.rolls == 0:
            raise RuleError(ART_HOW_TO_PLAY, "aún no tiró: no hay dados para apartar")
        if attempt.declared is None and not self.variant.generala:
            raise RuleError(ART_HOW_TO_PLAY, "tras la primera tirada debe declarar la categoría antes de apartar")
        if attempt.rolls >= MAX_ROLLS:
            raise RuleError(ART_HOW_TO_PLAY, "ya hizo sus tres tiradas: no queda tirada para la que apartar dados")
        if attempt.must_roll_all:
            raise RuleError(ART_HOW_TO_PLAY, "cambió de categoría: debe tirar los cinco dados, sin apartar ninguno")
        seen: set[int] = set()
        for position in action.positions:
            if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= DICE:
                raise RuleError(ART_EQUIPMENT, f"no hay dado en la posición {position!r}: van de 1 a 5")
            if position in seen:
                raise RuleError(ART_EQUIPMENT, f"el dado {position} se apartó dos veces")
            seen.add(position)
        if len(seen) == DICE:
            raise RuleError(ART_HOW_TO_PLAY, "si aparta los cinco dados no queda nada que tirar: anote")
        if not self.config.retomar_apartados:
            back = sorted(p + 1 for p in attempt.locked if p + 1 not in seen)
            if back:
                raise RuleError(
                    ART_HOW_TO_PLAY,
                    f"el dado {back[0]} ya quedó apartado en una tirada anterior y no vuelve al cacho",
                )

    def _check_score(self, action: Score) -> None:
        attempt = self._current_attempt(action.player)
        if attempt.rolls == 0:
            raise RuleError(ART_HOW_TO_PLAY, "aún no tiró: no hay dados para anotar")
        if self.variant.generala:
            if action.category is None:
                raise RuleError(ART_GENERALA, "en Generala la categoría se elige al anotar: falta cuál")
            self._check_open(action.category)
            return
        if attempt.declared is None:
            raise RuleError(ART_HOW_TO_PLAY, "debe declarar la categoría antes de anotar")
        if action.category is not None and action.category is not attempt.declared:
            raise RuleError(
                ART_HOW_TO_PLAY,
                f"declaró {attempt.declared.label}: para anotar {action.category.label} debe declararla "
                "y tirar otra vez los cinco dados",
            )
        if attempt.must_roll_all:
            raise RuleError(ART_HOW_TO_PLAY, "cambió de categoría: debe tirar los cinco dados antes de anotar")

    def _check_pick(self, action: Pick) -> None:
        if not self.variant.teams:
            raise RuleError(ART_PARTNERS, "solo jugando en parejas el equipo elige qué tirada anota")
        phase = self.phase
        if phase == "attempt":
            assert self.attempt is not None
            raise RuleError(ART_PARTNERS, f"aún no tiraron todos en {self.side.name}: le toca a {self.attempt.player}")
        if phase == "hatch":
            raise RuleError(ART_THREE_HATCHES, "el equipo ya eligió: falta la pizarra")
        if action.player not in self.side.members:
            raise RuleError(ART_PARTNERS, f"{action.player} no es de {self.side.name}, el equipo de turno")

    def _check_hatch(self, action: Hatch) -> None:
        if self.variant.hatches == 1:
            raise RuleError(ART_THREE_HATCHES, "solo jugando con tres pizarras se elige la pizarra")
        phase = self.phase
        if phase == "attempt":
            raise RuleError(ART_THREE_HATCHES, "la pizarra se elige al final del turno, después de anotar")
        if phase == "pick":
            raise RuleError(ART_PARTNERS, "primero el equipo elige qué tirada anota")
        if action.player not in self.side.members:
            raise RuleError(ART_HOW_TO_PLAY, f"no es el turno de {action.player}: le toca a {self.side.name}")
        hatch = action.hatch
        if isinstance(hatch, bool) or not isinstance(hatch, int) or not 1 <= hatch <= len(self.side.hatches):
            raise RuleError(ART_THREE_HATCHES, f"las pizarras son 1, 2 y 3, no {hatch!r}")
        pending = self.pending
        assert pending is not None
        if not self.side.hatches[hatch - 1].is_open(pending.category):
            raise RuleError(ART_CROSS_HATCH, f"la pizarra {hatch} ya tiene {pending.category.label} anotada")

    # --- apply -----------------------------------------------------------------------------------------

    def apply(self, action: Action) -> BoliviaGame:
        """Check `action`, then return the new state (`last` holds the score it produced, if any)."""
        self.check(action)
        if isinstance(action, Start):
            return self._start(action)
        state = replace(self, last=None)
        if isinstance(action, Roll):
            return state._roll(action)
        attempt = state.attempt
        if isinstance(action, Declare):
            assert attempt is not None
            if attempt.declared is None:
                return replace(state, attempt=replace(attempt, declared=action.category))
            # Changing the category: all five dice must be rolled again (How to play).
            changed = replace(
                attempt, declared=action.category, kept=frozenset(), locked=frozenset(), must_roll_all=True
            )
            return replace(state, attempt=changed)
        if isinstance(action, SetAside):
            assert attempt is not None
            return replace(state, attempt=replace(attempt, kept=frozenset(p - 1 for p in action.positions)))
        if isinstance(action, Score):
            return state._score(action)
        if isinstance(action, Pick):
            chosen = state.candidates[state.side.members.index(action.player)]
            return state._chosen(chosen)
        assert state.pending is not None
        return state._write(state.pending, action.hatch - 1)

    def _start(self, action: Start) -> BoliviaGame:
        hatches = (Pizarra(),) * action.variant.hatches
        if action.variant.teams:
            sides = tuple(Side(" y ".join(team), team, hatches) for team in action.variant.teams)
        else:
            sides = tuple(Side(name, (name,), hatches) for name in action.players)
        return BoliviaGame(
            players=action.players,
            variant=action.variant,
            config=action.config,
            sides=sides,
            attempt=Attempt(sides[0].members[0]),
        )

    def _roll(self, action: Roll) -> BoliviaGame:
        attempt = self.attempt
        assert attempt is not None
        dice = tuple(action.dice)
        rolled = replace(
            attempt, rolls=attempt.rolls + 1, dice=dice, locked=attempt.kept, kept=attempt.kept, must_roll_all=False
        )
        state = replace(self, attempt=rolled)
        if rolled.rolls == 1 and self.config.grande_de_mano is GrandeDeMano.TIRADA and is_grande(dice):
            result = score(dice, Category.GRANDE, 1, self.config, self.grandes_before())
            if result.instant_win:
                win = InstantWin(self.side.name, action.player, dice)
                return replace(state, instant_win=win, last=result, attempt=None)
        return state

    def _score(self, action: Score) -> BoliviaGame:
        attempt = self.attempt
        assert attempt is not None and attempt.dice is not None
        category = action.category if self.variant.generala else attempt.declared
        assert category is not None
        result = score(attempt.dice, category, attempt.rolls, self.config, self.grandes_before())
        if result.instant_win:
            win = InstantWin(self.side.name, attempt.player, attempt.dice)
            return replace(self, instant_win=win, last=result, attempt=None)
        if self.variant.teams:
            candidates = (*self.candidates, result)
            members = self.side.members
            following = Attempt(members[len(candidates)]) if len(candidates) < len(members) else None
            return replace(self, candidates=candidates, attempt=following, last=result)
        return replace(self._chosen(result), last=result)

    def _chosen(self, result: ScoreResult) -> BoliviaGame:
        if self.variant.hatches > 1:
            return replace(self, pending=result, attempt=None)
        return self._write(result, 0)

    def _write(self, result: ScoreResult, hatch: int) -> BoliviaGame:
        side = self.side
        hatches = list(side.hatches)
        hatches[hatch] = hatches[hatch].write(result)
        sides = list(self.sides)
        sides[self.turn] = replace(side, hatches=tuple(hatches))
        following = (self.turn + 1) % len(sides)
        state = replace(
            self,
            sides=tuple(sides),
            turn=following,
            candidates=(),
            pending=None,
            last=result,
            turns_played=self.turns_played + 1,
        )
        if state.over:
            return replace(state, attempt=None)
        return replace(state, attempt=Attempt(sides[following].members[0]))

    # --- what may be done now, and the result --------------------------------------------------------

    def legal_actions(self) -> LegalActions:
        """What the player (or team) on turn may do now, each refusal with its section and reason."""
        phase = self.phase
        if phase in ("start", "over"):
            return LegalActions(None, None, ())
        side = self.side
        player = self.attempt.player if self.attempt is not None else side.members[0]
        tries: list[tuple[str, str | None, PlayerAction]] = []
        attempt = self.attempt
        dice = attempt.dice if attempt is not None and attempt.dice is not None else (1,) * DICE
        tries.append(("roll", None, Roll(player, dice)))
        if not self.variant.generala:
            tries.extend(("declare", c.value, Declare(player, c)) for c in CATEGORIES)
        locked = tuple(sorted(p + 1 for p in attempt.locked)) if attempt is not None else ()
        tries.append(("set_aside", None, SetAside(player, locked)))
        if self.variant.generala:
            tries.extend(("score", c.value, Score(player, c)) for c in CATEGORIES)
        else:
            tries.append(("score", None, Score(player)))
        if self.variant.teams:
            tries.extend(("pick", member, Pick(member)) for member in side.members)
        if self.variant.hatches > 1:
            tries.extend(("hatch", str(n), Hatch(player, n)) for n in range(1, self.variant.hatches + 1))
        options = []
        for name, detail, action in tries:
            try:
                self.check(action)
            except RuleError as error:
                options.append(Option(name, detail, False, error.article, error.message))
            else:
                options.append(Option(name, detail, True))
        return LegalActions(player, side.name, tuple(options))

    def result(self) -> Result:
        """Totals and ranking (provisional while playing); winners once over; Generala's settlement."""
        hatch_count = self.variant.hatches
        totals = [tuple(h.total for h in s.hatches) for s in self.sides]
        game_points = [0] * len(self.sides)
        if hatch_count > 1:
            # Each hatch is worth its number in game points to its best total (tied sides each get them).
            for index in range(hatch_count):
                best = max(t[index] for t in totals)
                for n, t in enumerate(totals):
                    if t[index] == best:
                        game_points[n] += index + 1
        keys = [game_points[n] if hatch_count > 1 else sum(t) for n, t in enumerate(totals)]
        if self.instant_win is not None:
            # A grande de mano wins whatever the points: its side ranks first, the others after it.
            winner = next(n for n, s in enumerate(self.sides) if s.name == self.instant_win.side)
            keys[winner] = max(keys) + 1
        standings = [
            Standing(s.name, s.members, totals[n], sum(totals[n]), game_points[n], 1 + sum(k > keys[n] for k in keys))
            for n, s in enumerate(self.sides)
        ]
        standings.sort(key=lambda s: s.place)
        winners: tuple[str, ...] = ()
        playoff: tuple[str, ...] = ()
        settlement: tuple[tuple[str, int], ...] = ()
        if self.instant_win is not None:
            winners = (self.instant_win.side,)
        elif self.over:
            top = tuple(s.side for s in standings if s.place == 1)
            if len(top) > 1 and self.config.empate is Empate.DESEMPATE:
                playoff = top
            else:
                winners = top
            if self.variant.generala and winners:
                best = max(s.total for s in standings if s.side in winners)
                settlement = tuple((s.side, max(0, best - s.total)) for s in standings if s.side not in winners)
        return Result(self.over, tuple(standings), winners, playoff, self.instant_win, settlement)

    def to_dict(self) -> dict[str, object]:
        """JSON form of the whole game: pizarras, the turn, and the result."""
        turn: dict[str, object] | None = None
        if self.started and not self.over:
            turn = {
                "side": self.side.name,
                "phase": self.phase,
                "attempt": None if self.attempt is None else self.attempt.to_dict(),
                "candidates": [c.to_dict() for c in self.candidates],
                "pending": None if self.pending is None else self.pending.to_dict(),
            }
        return {
            "players": list(self.players),
            "variant": list(self.variant.names),
            "options": self.config.to_dict(),
            "sides": [s.to_dict() for s in self.sides],
            "turn": turn,
            "turns_played": self.turns_played,
            "grandes": sum(h.grandes for s in self.sides for h in s.hatches),
            "result": self.result().to_dict(),
        }
