"""The state of a Dudo table: check an action, apply it, and say what the player to act may do."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from .actions import Action, Bid, Calzo, Descalificacion, Dudo, Event, Paso, PlayerAction, Reveal, Start
from .config import AbreTrasCalzo, AbreTrasEliminacion, DudoConfig, Subir
from .doubt import DoubtfulReveal, Settlement, check_candidates, combinations, count_bounds, counts, faces_for_total
from .errors import RuleError
from .pintas import AS, FACES, MAX_DICE, Count, Hand, bid_text, count, face_name, hands_in
from .rulings import Challenge, ChallengeKind, Ruling, StandingBid

SICILIANA_DICE = 2
SICILIANA_ARTICLE = "12"


def _dados(n: int) -> str:
    return f"{n} dado" if n == 1 else f"{n} dados"


def _ceil_half(n: int) -> int:
    return (n + 1) // 2


@dataclass(frozen=True, slots=True)
class _Verdict:
    """What the lifted cups decide: who loses how many dice (None, 0: a right calzo), the articles applied, and the
    count (a dudo or calzo) or the passer's dice and whether they hold his hand (a doubted paso)."""

    loser: str | None
    lost: int
    articles: tuple[str, ...]
    tally: Count | None = None
    passer_dice: tuple[int, ...] | None = None
    hand_held: bool | None = None


@dataclass(frozen=True, slots=True)
class PasoDeclared:
    """A paso just declared: the next player raises the bid before it or doubts it (art. 8)."""

    player: str
    hand: Hand


@dataclass(frozen=True, slots=True)
class Round:
    """One tirada: from the opening bid to the cups lifted."""

    number: int
    opener: str
    heads_up: bool  # two players left: aces wild from the opening, no siciliana (art. 5, 12)
    obligo: bool  # the opener has one die: obligo cerrado (art. 9)
    opening_rules: bool  # art. 5 applies to this round's opening
    obligados: frozenset[str]  # players with one die in an obligo round
    to_act: str
    bid: StandingBid | None = None
    en_apertura: bool = True  # the standing bid is still the round's opening: nobody has raised
    paso: PasoDeclared | None = None
    passed: frozenset[str] = frozenset()

    @property
    def aces_wild(self) -> bool:
        """Whether aces count as wild for the standing bid (art. 2, 5, 9, 12)."""
        return not self.obligo and not (self.opening_rules and self.en_apertura)

    @property
    def partida_en_falso(self) -> bool:
        """The standing bid is an opening in aces (art. 5)."""
        return self.opening_rules and self.en_apertura and self.bid is not None and self.bid.face == AS

    @property
    def mode(self) -> str:
        """ "obligo", "mano a mano", "apertura" (art. 5 in force) or "normal"."""
        if self.obligo:
            return "obligo"
        if self.heads_up:
            return "mano a mano"
        return "apertura" if self.opening_rules and self.en_apertura else "normal"

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "number": self.number,
            "opener": self.opener,
            "mode": self.mode,
            "aces_wild": self.aces_wild,
            "bid": None if self.bid is None else self.bid.to_dict(),
            "paso": None if self.paso is None else {"player": self.paso.player, "hand": self.paso.hand.value},
            "passed": sorted(self.passed),
            "obligados": sorted(self.obligados),
            "to_act": self.to_act,
        }


@dataclass(frozen=True, slots=True)
class Option:
    """Whether an action is open to the player now; when not, the article and the reason."""

    allowed: bool
    article: str | None = None
    reason: str | None = None

    @classmethod
    def of(cls, error: RuleError | None) -> Option:
        """Allowed when there is no refusal."""
        return cls(True) if error is None else cls(False, error.article, error.message)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        if self.allowed:
            return {"allowed": True}
        return {"allowed": False, "article": self.article, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the player to act may do now, each refusal with its article (the kiosk greys buttons by it)."""

    player: str | None
    reveal: tuple[str, ...]  # whose cups must be shown before anything else
    bid: Option
    bids: tuple[tuple[int, int], ...]  # every (quantity, face) he may bid
    desestima: Option  # may dismiss an opening in aces and open anew (art. 5)
    dudo: Option
    calzo: Option
    paso: Option
    # each pinta 1-6 he may bid in at no quantity, with the article and reason (that of its largest quantity)
    pintas_refused: tuple[tuple[int, Option], ...] = ()

    def to_dict(self) -> dict[str, object]:
        """JSON form: `may` lists allowed action kinds, `may_not` the refused ones with article and reason, and
        `pintas_not` each pinta no bid of his may be in, with its article and reason."""
        if self.player is None:
            return {"player": None, "may": ["reveal"], "show": list(self.reveal)}
        options = {"bid": self.bid, "dudo": self.dudo, "calzo": self.calzo, "paso": self.paso}
        return {
            "player": self.player,
            "may": [name for name, option in options.items() if option.allowed],
            "may_not": {
                name: {"article": option.article, "reason": option.reason}
                for name, option in options.items()
                if not option.allowed
            },
            "bids": [list(pair) for pair in self.bids],
            "desestima": self.desestima.allowed,
            "pintas_not": {
                str(face): {"article": option.article, "reason": option.reason} for face, option in self.pintas_refused
            },
        }


@dataclass(frozen=True, slots=True)
class CoordinatorCount:
    """The coordinator's count (art. 11): dice per player and in play, and whether calzo is allowed."""

    dice: tuple[tuple[str, int], ...]
    in_play: int
    table_start_dice: int
    calzo: Option

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "dice": dict(self.dice),
            "in_play": self.in_play,
            "table_start_dice": self.table_start_dice,
            "calzo": self.calzo.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class DudoTable:
    """An immutable Dudo table: `check` refuses an illegal action, `apply` returns the next table."""

    players: tuple[str, ...]
    dice: tuple[int, ...]
    table_start_dice: int
    config: DudoConfig
    round: Round | None
    pending: Challenge | None
    winner: str | None
    rulings: tuple[Ruling, ...]
    history: tuple[Event, ...]
    disqualified: tuple[str, ...] = ()  # in the order the organizer put them out (art. 11)

    # ----------------------------------------------------------------- start and replay

    @classmethod
    def start(cls, start: Start) -> DudoTable:
        """Seat a table (art. 1, 3); refuses a wrong seating with the article."""
        players = start.players
        if len(players) < 2:
            raise RuleError("3", "una mesa necesita al menos 2 jugadores")
        for name in players:
            if not name.strip():
                raise RuleError("3", "cada jugador necesita un nombre")
        repeated = sorted({name for name in players if players.count(name) > 1})
        if repeated:
            raise RuleError("3", f"nombre repetido en la mesa: {', '.join(repeated)}")
        dice = start.dice if start.dice is not None else (MAX_DICE,) * len(players)
        if len(dice) != len(players):
            raise RuleError("1", "hace falta la cantidad de dados de cada jugador")
        for name, n in zip(players, dice, strict=True):
            if not 0 <= n <= MAX_DICE:
                raise RuleError("1", f"{name} tiene {n} dados: cada jugador tiene entre 0 y {MAX_DICE}")
        if sum(1 for n in dice if n > 0) < 2:
            raise RuleError("10", "hacen falta al menos 2 jugadores con dados para jugar")
        table_start = start.table_start_dice if start.table_start_dice is not None else MAX_DICE * len(players)
        if table_start < sum(dice):
            raise RuleError(
                "11",
                f"la mesa no pudo partir con {table_start} dados si hay {sum(dice)} en juego",
            )
        if start.opener not in players:
            raise RuleError("3", f"{start.opener!r} no está sentado en la mesa")
        if dice[players.index(start.opener)] == 0:
            raise RuleError("3", f"{start.opener} no tiene dados: no puede abrir")
        table = cls(
            players=players,
            dice=tuple(dice),
            table_start_dice=table_start,
            config=start.config,
            round=None,
            pending=None,
            winner=None,
            rulings=(),
            history=(start,),
        )
        return replace(table, round=table._new_round(1, start.opener, opener_lost=True))

    @classmethod
    def replay(cls, events: list[Event] | tuple[Event, ...]) -> DudoTable:
        """Rebuild a table from its history (a Start, then actions)."""
        if not events or not isinstance(events[0], Start):
            raise RuleError("3", "la historia de una mesa empieza por su inicio (start)")
        table = cls.start(events[0])
        for event in events[1:]:
            if isinstance(event, Start):
                raise RuleError("3", "la mesa ya empezó")
            table = table.apply(event)
        return table

    # ----------------------------------------------------------------- the count

    def dice_of(self, player: str) -> int:
        """Dice the player has now (0 once eliminated)."""
        return self.dice[self.players.index(player)]

    @property
    def in_play(self) -> int:
        """Dice on the table."""
        return sum(self.dice)

    @property
    def active(self) -> tuple[str, ...]:
        """Players still with dice, in seat order."""
        return tuple(p for p, n in zip(self.players, self.dice, strict=True) if n > 0)

    def next_active(self, player: str) -> str:
        """The next player with dice clockwise from `player` (art. 3)."""
        i = self.players.index(player)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(i + step) % len(self.players)]
            if self.dice_of(candidate) > 0:
                return candidate
        raise AssertionError("no player has dice")

    def calzo_threshold_refusal(self) -> RuleError | None:
        """Art. 7, option A: calzo only while more than half the dice the table started with are in play."""
        if self.config.calzo_restringido and 2 * self.in_play <= self.table_start_dice:
            return RuleError(
                "7",
                f"calzo restringido: quedan {self.in_play} de {self.table_start_dice} dados, la mitad o "
                f"menos; solo se calza con más de {self.table_start_dice / 2:g} en juego: solo se puede dudar",
            )
        return None

    def coordinator_count(self) -> CoordinatorCount:
        """The coordinator's count (art. 11)."""
        return CoordinatorCount(
            dice=tuple(zip(self.players, self.dice, strict=True)),
            in_play=self.in_play,
            table_start_dice=self.table_start_dice,
            calzo=Option.of(self.calzo_threshold_refusal()),
        )

    # ----------------------------------------------------------------- checking

    def check(self, action: Action) -> None:
        """Raise RuleError naming the article if `action` is not allowed now; change nothing."""
        error = self.refusal(action)
        if error is not None:
            raise error

    def refusal(self, action: Action) -> RuleError | None:
        """The RuleError `check` would raise, or None when the action is allowed."""
        if self.winner is not None:
            return RuleError("10", f"la mesa terminó: {self.winner} es el campeón")
        if isinstance(action, Reveal):
            return self._reveal_refusal(action)
        if isinstance(action, Descalificacion):
            return self._disqualification_refusal(action.player)
        if self.pending is not None:
            return RuleError(
                self.pending.article,
                f"hay que levantar los cachos ({self.pending.kind.value} de {self.pending.challenger}) antes de seguir",
            )
        rnd = self._round()
        player = action.player
        if player not in self.players:
            return RuleError("3", f"{player!r} no está sentado en la mesa")
        if self.dice_of(player) == 0:
            return RuleError("10", f"{player} ya quedó fuera del juego: no tiene dados")
        if player != rnd.to_act:
            return RuleError("3", f"no es el turno de {player}: le toca a {rnd.to_act} (sentido horario)")
        if isinstance(action, Bid):
            return self._bid_refusal(rnd, player, action.quantity, action.face, action.desestima)
        if isinstance(action, Dudo):
            return self._dudo_refusal(rnd)
        if isinstance(action, Calzo):
            return self._calzo_refusal(rnd)
        return self._paso_refusal(rnd, player)

    def _round(self) -> Round:
        assert self.round is not None
        return self.round

    def _disqualification_refusal(self, player: str) -> RuleError | None:
        if player not in self.players:
            return RuleError("11", f"{player!r} no está sentado en la mesa")
        if self.dice_of(player) == 0:
            return RuleError("11", f"{player} ya no tiene dados en la mesa: no hay nada que quitarle")
        return None

    def _bid_limit(self) -> int:
        # Bids are over the dice on the table (art. 4); beyond them a bid cannot be true.
        return self.in_play if self.config.tope_cantidad_en_juego else 2 * self.in_play + 1

    def _bid_refusal(self, rnd: Round, player: str, quantity: int, face: int, desestima: bool) -> RuleError | None:
        if face not in FACES:
            return RuleError("2", f"la pinta va de 1 (as) a 6 (sexta), no {face}")
        if quantity < 1:
            return RuleError("4", "la cantidad de una apuesta es al menos 1")
        if quantity > self._bid_limit():
            return RuleError(
                "4",
                f"«{bid_text(quantity, face)}» es más de lo que hay: {self.in_play} dados en juego",
            )
        if desestima and not rnd.partida_en_falso:
            return RuleError("5", "solo se desestima una apertura con ases (partida en falso)")
        if desestima and rnd.paso is not None:
            return RuleError("8", "tras un paso solo se sube la jugada anterior al paso o se duda el paso")
        bid = rnd.bid
        if bid is None:
            if rnd.obligo and face == AS and not self.config.obligo_abre_en_ases:
                return RuleError("9", "en el obligo no se declara la pinta en ases")
            return None
        if rnd.partida_en_falso and rnd.paso is None:
            # a raise continues the aces; anything else dismisses the false start (art. 5 c), said or not as the
            # house decides (art. 11)
            if desestima or self.config.desestimar_sin_decirlo or self._raise_refusal(bid, quantity, face) is None:
                return None
            return RuleError(
                "5",
                f"«{bid_text(quantity, face)}» no sigue ni convierte «{bid.text()}»: para abrir con otra apuesta hay "
                "que desestimar la apertura en ases",
            )
        if rnd.obligo and not (player in rnd.obligados and player != rnd.opener):
            if face != bid.face:
                return RuleError(
                    "9",
                    f"en el obligo la pinta ({face_name(bid.face)}) no se cambia: solo se sube la cantidad o se duda",
                )
            if quantity <= bid.quantity:
                return RuleError(
                    "9",
                    f"en el obligo hay que subir la cantidad de {face_name(bid.face)} (más de {bid.quantity})",
                )
            return None
        return self._raise_refusal(bid, quantity, face)

    def _raise_refusal(self, bid: StandingBid, quantity: int, face: int) -> RuleError | None:
        said = f"«{bid_text(quantity, face)}» no sube «{bid.text()}»"
        if face == AS and bid.face == AS:
            if quantity <= bid.quantity:
                return RuleError("4", f"{said}: en ases hay que subir la cantidad (más de {bid.quantity})")
            return None
        if face == AS:
            need = _ceil_half(bid.quantity)
            if quantity < need:
                return RuleError(
                    "4", f"{said}: a ases, al menos la mitad redondeando hacia arriba ({bid_text(need, AS)})"
                )
            return None
        if bid.face == AS:
            need = 2 * bid.quantity + 1
            if quantity < need:
                return RuleError("4", f"{said}: de ases a otra pinta, al menos el doble más uno ({need})")
            return None
        if quantity == bid.quantity and face > bid.face:
            return None
        if quantity > bid.quantity and (face == bid.face or self.config.subir is Subir.LIBRE):
            return None
        if self.config.subir is Subir.LIBRE:
            return RuleError("4", f"{said}: hay que subir la cantidad, o la pinta con la misma cantidad")
        return RuleError(
            "4",
            f"{said}: se sube con más {face_name(bid.face)}, con {bid.quantity} de una pinta mayor, o a ases",
        )

    def _dudo_refusal(self, rnd: Round) -> RuleError | None:
        if rnd.bid is None:
            return RuleError("6", "no hay apuesta que dudar: hay que abrir")
        if rnd.paso is None and rnd.partida_en_falso and not self.config.partida_en_falso_desafiable:
            return RuleError(
                "5",
                "abrir con ases es partida en falso: se continúa en ases, se sube convirtiendo (el doble "
                "más uno) o se desestima y se abre de nuevo",
            )
        return None

    def _calzo_refusal(self, rnd: Round) -> RuleError | None:
        if rnd.bid is None:
            return RuleError("7", "no hay apuesta que calzar: hay que abrir")
        if rnd.paso is not None:
            return RuleError("8", "no se puede calzar el paso ni la jugada anterior a él")
        if rnd.obligo:
            return RuleError("9", "en el obligo solo se puede subir la cantidad o dudar")
        if rnd.partida_en_falso and not self.config.partida_en_falso_desafiable:
            return RuleError("5", "abrir con ases es partida en falso: no se calza")
        if rnd.to_act in rnd.passed:
            return RuleError("8", f"{rnd.to_act} ya pasó en esta tirada: debe subir o dudar")
        return self.calzo_threshold_refusal()

    def _paso_refusal(self, rnd: Round, player: str) -> RuleError | None:
        if rnd.bid is None:
            return RuleError("8", "el paso sigue a una apuesta: quien abre debe apostar")
        if rnd.paso is not None:
            return RuleError("8", "no puede haber dos pasos seguidos")
        if player in rnd.passed:
            return RuleError("8", f"{player} ya pasó en esta tirada: debe subir o dudar")
        if rnd.obligo:
            return RuleError("9", "en el obligo solo se puede subir la cantidad o dudar")
        return None

    def _reveal_refusal(self, reveal: Reveal) -> RuleError | None:
        pending = self.pending
        if pending is None:
            return RuleError("6", "no hay cachos que levantar: nadie dudó ni calzó")
        shown = reveal.as_dict()
        if len(shown) != len(reveal.dice):
            return RuleError("11", "un jugador aparece dos veces al levantar los cachos")
        for name, faces in shown.items():
            if name not in self.players:
                return RuleError("11", f"{name!r} no está sentado en la mesa")
            have = self.dice_of(name)
            if have == 0:
                return RuleError("10", f"{name} quedó fuera del juego: no tiene cacho que levantar")
            if len(faces) != have:
                return RuleError(
                    "11", f"{name} tiene {_dados(have)} según la cuenta del coordinador y mostró {len(faces)}"
                )
            for face in faces:
                if face not in FACES:
                    return RuleError("2", f"{name} mostró un {face}: un dado va de 1 a 6")
        needed = (pending.target,) if pending.kind is ChallengeKind.PASO else self.active
        missing = [name for name in needed if name not in shown]
        if missing:
            return RuleError(pending.article, f"faltan los dados de {', '.join(missing)}")
        return None

    def settle(self, doubt: DoubtfulReveal) -> Settlement:
        """Whether the lifted cups give the same ruling whichever face each die in doubt shows (art. 6-8): the
        engine's own verdict over every choice of faces; where they do not, the dice whose face could change it.
        Refused as `apply` refuses a reveal of that shape."""
        refusal = check_candidates(doubt) or self._reveal_refusal(doubt.first())
        if refusal is not None:
            raise refusal
        pending = self.pending
        assert pending is not None and pending.bid is not None
        bid, shown = pending.bid, doubt.as_dict()
        if pending.kind is ChallengeKind.PASO:
            return self._settle_paso(pending, bid, shown[pending.target])
        dice = [(name, candidates) for name, cup in shown.items() for candidates in cup]
        least, most = count_bounds((c for _, c in dice), bid.face, pending.aces_wild)
        outcomes = set()
        for total in range(least, most + 1):  # each die in doubt adds 0 or 1: every total between is reachable
            verdict = self._verdict(pending, bid, faces_for_total(dice, bid.face, pending.aces_wild, total))
            outcomes.add((verdict.loser, verdict.lost))
        if len(outcomes) == 1:
            loser, lost = outcomes.pop()
            return Settlement(True, least, most, (), loser, lost)
        deciding = tuple(
            (name, k)
            for name, cup in shown.items()
            for k, candidates in enumerate(cup)
            if counts(candidates, bid.face, pending.aces_wild) == (True, False)
        )
        return Settlement(False, least, most, deciding, None, 0)

    def _settle_paso(self, pending: Challenge, bid: StandingBid, cup: tuple[frozenset[int], ...]) -> Settlement:
        """A doubted paso over the passer's dice in doubt: the hand held or not by every choice of faces (art. 8)."""
        known: dict[tuple[int, ...], tuple[str | None, int]] = {}

        def outcome(faces: tuple[int, ...]) -> tuple[str | None, int]:
            key = tuple(sorted(faces))
            if key not in known:
                verdict = self._verdict(pending, bid, {pending.target: key})
                known[key] = (verdict.loser, verdict.lost)
            return known[key]

        outcomes = {outcome(faces) for faces in combinations(cup)}
        if len(outcomes) == 1:
            loser, lost = outcomes.pop()
            return Settlement(True, None, None, (), loser, lost)

        def decides(k: int) -> bool:
            others = cup[:k] + cup[k + 1 :]
            return any(len({outcome((*rest, face)) for face in cup[k]}) > 1 for rest in combinations(others))

        deciding = tuple((pending.target, k) for k in range(len(cup)) if len(cup[k]) > 1 and decides(k))
        return Settlement(False, None, None, deciding, None, 0)

    # ----------------------------------------------------------------- applying

    def apply(self, action: Action) -> DudoTable:
        """Check `action` and return the table after it; the history records it."""
        self.check(action)
        if isinstance(action, Reveal):
            table = self._resolve(action)
        elif isinstance(action, Descalificacion):
            table = self._disqualify(action.player)
        else:
            table = self._apply_player_action(action)
        return replace(table, history=(*self.history, action))

    def _disqualify(self, player: str) -> DudoTable:
        """The player leaves with his dice (art. 11); the round under way is void (any challenge with it) and is
        opened again by its opener, or the next player with dice after him when the opener is the one put out."""
        rnd = self._round()
        dice = tuple(0 if name == player else n for name, n in zip(self.players, self.dice, strict=True))
        table = replace(self, dice=dice, pending=None, disqualified=(*self.disqualified, player))
        active = table.active
        if len(active) == 1:
            return replace(table, round=None, winner=active[0])
        opener = rnd.opener if rnd.opener != player else table.next_active(player)
        return replace(table, round=table._new_round(rnd.number + 1, opener, opener_lost=rnd.opening_rules))

    def dismisses(self, bid: Bid) -> bool:
        """Whether a bid dismisses the opening in aces that stands (art. 5 c): said so, or neither continuing nor
        converting it."""
        rnd = self.round
        if rnd is None or rnd.bid is None or not rnd.partida_en_falso or rnd.paso is not None:
            return False
        return bid.desestima or self._raise_refusal(rnd.bid, bid.quantity, bid.face) is not None

    def _apply_player_action(self, action: PlayerAction) -> DudoTable:
        rnd = self._round()
        player = action.player
        nxt = self.next_active(player)
        if isinstance(action, Bid):
            reopens = rnd.bid is None or self.dismisses(action)
            new_bid = StandingBid(player, action.quantity, action.face)
            # A reopening (or dismissing a false start) is an opening; any raise normalizes the round (art. 5).
            return replace(self, round=replace(rnd, bid=new_bid, en_apertura=reopens, paso=None, to_act=nxt))
        if isinstance(action, Paso):
            declared = PasoDeclared(player, action.hand)
            return replace(self, round=replace(rnd, paso=declared, passed=rnd.passed | {player}, to_act=nxt))
        assert rnd.bid is not None
        if isinstance(action, Dudo) and rnd.paso is not None:
            challenge = Challenge(
                kind=ChallengeKind.PASO,
                challenger=player,
                target=rnd.paso.player,
                bid=rnd.bid,
                aces_wild=self.config.paso_ases_comodin,
                hand=rnd.paso.hand,
            )
        else:
            challenge = Challenge(
                kind=ChallengeKind.DUDO if isinstance(action, Dudo) else ChallengeKind.CALZO,
                challenger=player,
                target=rnd.bid.player,
                bid=rnd.bid,
                aces_wild=rnd.aces_wild,
                # Siciliana: a doubt of the opening while aces are not wild (art. 5, 12); never in obligo.
                siciliana=isinstance(action, Dudo) and rnd.opening_rules and rnd.en_apertura,
                obligo=rnd.obligo,
            )
        return replace(self, pending=challenge)

    def _resolve(self, reveal: Reveal) -> DudoTable:
        pending = self.pending
        rnd = self._round()
        assert pending is not None and pending.bid is not None
        verdict = self._verdict(pending, pending.bid, reveal.as_dict())
        dice, change = self._dice_after(verdict.loser, verdict.lost, pending.challenger)
        eliminated = tuple(
            p for p, before, after in zip(self.players, self.dice, dice, strict=True) if before and not after
        )
        articles = verdict.articles + (("10",) if eliminated else ())
        table = replace(self, dice=dice, pending=None)
        active = table.active
        winner = active[0] if len(active) == 1 else None
        opener = None if winner is not None else table._next_opener(pending, verdict.loser, eliminated)
        message = self._ruling_message(pending, verdict, change, eliminated, winner, opener)
        ruling = Ruling(
            round=rnd.number,
            kind=pending.kind,
            challenger=pending.challenger,
            target=pending.target,
            bid=pending.bid,
            count=verdict.tally,
            hand=pending.hand,
            shown=verdict.passer_dice,
            hand_held=verdict.hand_held,
            changes=(change,),
            eliminated=eliminated,
            siciliana=pending.siciliana and pending.kind is ChallengeKind.DUDO,
            article=SICILIANA_ARTICLE if pending.siciliana else pending.article,
            articles=tuple(dict.fromkeys(articles)),
            next_opener=opener,
            message=message,
        )
        table = replace(table, rulings=(*self.rulings, ruling), winner=winner)
        if winner is not None:
            return replace(table, round=None)
        assert opener is not None
        return replace(table, round=table._new_round(rnd.number + 1, opener, opener_lost=opener == verdict.loser))

    def _verdict(self, pending: Challenge, bid: StandingBid, shown: dict[str, tuple[int, ...]]) -> _Verdict:
        """Who loses how many dice (nobody: a right calzo), by the passer's hand (art. 8) or the count (art. 6, 7)."""
        articles: tuple[str, ...] = (pending.article,)
        if pending.kind is ChallengeKind.PASO:
            assert pending.hand is not None
            passer_dice = shown[pending.target]
            found = hands_in(passer_dice, pending.aces_wild)
            hand_held = pending.hand in found or (
                self.config.paso_mayor_cubre and any(h.rank > pending.hand.rank for h in found)
            )
            loser = pending.challenger if hand_held else pending.target
            return _Verdict(loser, 1, articles, None, passer_dice, hand_held)
        tally = count((face for faces in shown.values() for face in faces), bid.face, pending.aces_wild)
        if not pending.aces_wild:
            tally = replace(tally, why_not_wild=" en el obligo" if pending.obligo else " en la apertura")
            if bid.face != AS:
                articles += ("9" if pending.obligo else "5",)
        if pending.kind is ChallengeKind.CALZO:
            if tally.total == bid.quantity:
                return _Verdict(None, 0, articles, tally)
            return _Verdict(pending.challenger, 1, articles, tally)
        loser = pending.challenger if tally.total >= bid.quantity else pending.target
        if pending.siciliana:
            return _Verdict(loser, SICILIANA_DICE, (*articles, SICILIANA_ARTICLE), tally)
        return _Verdict(loser, 1, articles, tally)

    def _dice_after(self, loser: str | None, lost: int, challenger: str) -> tuple[tuple[int, ...], tuple[str, int]]:
        """Everyone's dice once the loser gives up `lost` (never more than he has), and whose dice changed by how
        many."""
        dice = list(self.dice)
        if loser is not None:
            i = self.players.index(loser)
            lost = min(lost, dice[i])
            dice[i] -= lost
            return tuple(dice), (loser, -lost)
        # A calzo that was right gets a die back, never above five (art. 7).
        i = self.players.index(challenger)
        gained = 1 if dice[i] < MAX_DICE else 0
        dice[i] += gained
        return tuple(dice), (challenger, gained)

    def _next_opener(self, pending: Challenge, loser: str | None, eliminated: tuple[str, ...]) -> str:
        """Who opens the next round (the table after the ruling, nobody has won yet)."""
        if loser is None:
            return pending.challenger if self.config.abre_tras_calzo is AbreTrasCalzo.CALZADOR else pending.target
        if loser not in eliminated:
            return loser  # whoever loses a die opens the next round (art. 3)
        if self.config.abre_tras_eliminacion is AbreTrasEliminacion.SIGUIENTE:
            return self.next_active(loser)
        # The duel's winner lost nothing, so he still has dice.
        return pending.target if loser == pending.challenger else pending.challenger

    def _new_round(self, number: int, opener: str, opener_lost: bool) -> Round:
        heads_up = len(self.active) == 2
        obligo = self.dice_of(opener) == 1 and (not heads_up or self.config.obligo_en_mano_a_mano)
        # Art. 5: the first bid of the game and every reopening by whoever just lost a die is an opening;
        # apertura_en_toda_ronda extends it to every new round (after a right calzo, or an elimination).
        opening = not heads_up and not obligo and (opener_lost or self.config.apertura_en_toda_ronda)
        obligados = frozenset(p for p in self.active if self.dice_of(p) == 1) if obligo else frozenset()
        return Round(
            number=number,
            opener=opener,
            heads_up=heads_up,
            obligo=obligo,
            opening_rules=opening,
            obligados=obligados,
            to_act=opener,
        )

    def _ruling_message(
        self,
        pending: Challenge,
        verdict: _Verdict,
        change: tuple[str, int],
        eliminated: tuple[str, ...],
        winner: str | None,
        opener: str | None,
    ) -> str:
        assert pending.bid is not None
        who, delta = change
        if pending.kind is ChallengeKind.PASO:
            assert pending.hand is not None and verdict.passer_dice is not None
            shown = " ".join(str(d) for d in verdict.passer_dice)
            held = "tiene" if verdict.hand_held else "no tiene"
            text = (
                f"{pending.challenger} dudó el paso de {pending.target} ({pending.hand.label}): "
                f"mostró {shown}, {held} {pending.hand.label}"
            )
        else:
            assert verdict.tally is not None
            verb = "dudó" if pending.kind is ChallengeKind.DUDO else "calzó"
            text = (
                f"{pending.challenger} {verb} «{pending.bid.text()}» de {pending.bid.player}: "
                f"hay {verdict.tally.text()}"
            )
        if delta < 0:
            text += f". Pierde {who} {_dados(-delta)}"
            if pending.siciliana and pending.kind is ChallengeKind.DUDO:
                text += " (siciliana)"
        elif delta > 0:
            text += f". Calzo justo: {who} recupera un dado"
        else:
            text += f". Calzo justo: {who} ya tiene {MAX_DICE} dados (tope)"
        text += f" (art. {SICILIANA_ARTICLE if pending.siciliana else pending.article})."
        for name in eliminated:
            text += f" {name} se queda sin dados y sale de la mesa."
        if winner is not None:
            text += f" {winner} gana la mesa."
        elif opener is not None:
            text += f" Abre {opener}."
        return text

    # ----------------------------------------------------------------- what may be done

    def legal_actions(self) -> LegalActions | None:
        """What the player to act may do now, with the article and reason of every refusal; None at the end."""
        if self.winner is not None:
            return None
        if self.pending is not None:
            needed = (self.pending.target,) if self.pending.kind is ChallengeKind.PASO else self.active
            refused = Option(False, self.pending.article, "hay que levantar los cachos")
            return LegalActions(None, needed, refused, (), refused, refused, refused, refused)
        rnd = self._round()
        player = rnd.to_act
        bids = tuple(self._legal_bids(rnd, player))
        bid_option = Option(True)
        if not bids:  # an opening can always be made, so a bid stands
            assert rnd.bid is not None
            bid_option = Option(False, "4", f"no queda apuesta que suba «{rnd.bid.text()}» con {self.in_play} dados")
        faces = {face for _, face in bids}
        pintas = tuple(
            (face, Option.of(self._bid_refusal(rnd, player, self._bid_limit(), face, False)))
            for face in FACES
            if face not in faces
        )
        return LegalActions(
            player=player,
            reveal=(),
            bid=bid_option,
            bids=bids,
            desestima=Option.of(self._bid_refusal(rnd, player, 1, 2, True)),
            dudo=Option.of(self._dudo_refusal(rnd)),
            calzo=Option.of(self._calzo_refusal(rnd)),
            paso=Option.of(self._paso_refusal(rnd, player)),
            pintas_refused=pintas,
        )

    def _legal_bids(self, rnd: Round, player: str) -> Iterator[tuple[int, int]]:
        for quantity in range(1, self._bid_limit() + 1):
            for face in FACES:
                if self._bid_refusal(rnd, player, quantity, face, False) is None:
                    yield quantity, face

    def legal_player_actions(self) -> list[PlayerAction]:
        """Every player action `apply` accepts now (bids, dudo, calzo, paso of each hand)."""
        legal = self.legal_actions()
        if legal is None or legal.player is None:
            return []
        player = legal.player
        actions: list[PlayerAction] = [Bid(player, q, f) for q, f in legal.bids]
        if legal.desestima.allowed:
            actions += [Bid(player, q, f, desestima=True) for q, f in legal.bids]
        if legal.dudo.allowed:
            actions.append(Dudo(player))
        if legal.calzo.allowed:
            actions.append(Calzo(player))
        if legal.paso.allowed:
            actions += [Paso(player, hand) for hand in Hand]
        return actions

    # ----------------------------------------------------------------- output

    def to_dict(self) -> dict[str, object]:
        """The table as JSON: the count, the round, the rulings, and what comes next."""
        legal = self.legal_actions()
        return {
            "players": list(self.players),
            "dice": dict(zip(self.players, self.dice, strict=True)),
            "in_play": self.in_play,
            "table_start_dice": self.table_start_dice,
            "calzo": self.coordinator_count().calzo.to_dict(),
            "winner": self.winner,
            "round": None if self.round is None else self.round.to_dict(),
            "pending": None
            if self.pending is None
            else {
                "kind": self.pending.kind.value,
                "challenger": self.pending.challenger,
                "target": self.pending.target,
            },
            "rulings": [ruling.to_dict() for ruling in self.rulings],
            "next": None if legal is None else legal.to_dict(),
            "options": self.config.to_dict(),
        }
