"""The championship as the organizer runs it: the draws, each table's live view, standings, rulings (art. 3, 10, 11)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from kiosk.championship import qr
from kiosk.championship.draw import DrawError, Placing, advancing, draw, placings
from kiosk.championship.registry import DrawnTable, Registry, RegistryError, Round, Ruling

# The organizer's options where the Reglamento is silent (one line each in docs/rulings.md, Campeonato).
OPTIONS: dict[str, tuple[int, int, int]] = {
    "avanzan_por_mesa": (1, 1, 3),  # (default, least, most)
    "mesa_final_hasta": (6, 2, 10),
}


class Feeds(Protocol):
    """What the championship reads of the tables: the organizer's view of each (kiosk.championship.organizer)."""

    def summary(self, table: int) -> dict[str, Any] | None:
        """One table's view, or None when nothing came from it."""
        ...

    def publish_ruling(self, table: int, ruling: dict[str, Any]) -> None:
        """Send a ruling to a table's kiosk."""
        ...

    def publish_seating(self, table: int, seating: dict[str, Any] | None) -> None:
        """Tell a table's kiosk the players the draw sat there (None: no longer drawn)."""
        ...

    def photo(self, table: int) -> bytes | None:
        """The last ruling's photo a table sent, or None."""
        ...


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place in the championship: the last round reached and the place there."""

    rank: int
    name: str
    club: str
    round: int | None
    table: int | None
    place: int | None
    out: str | None  # the disqualification's reason (art. 11)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "rank": self.rank,
            "name": self.name,
            "club": self.club,
            "round": self.round,
            "table": self.table,
            "place": self.place,
            "out": self.out,
        }


class Championship:
    """One championship: the organizer's records and the tables' live views."""

    def __init__(
        self,
        code: str,
        registry: Registry,
        feeds: Feeds | None,
        table_broker: str | None = None,
        table_passwords: dict[str, str] | None = None,
    ) -> None:
        self.code = code
        self.registry = registry
        self.feeds = feeds
        self.table_broker = table_broker  # the broker's address as the tables reach it (host:port)
        self.table_passwords = table_passwords or {}  # each table user's password (cacho campeonato credenciales)

    def join_text(self, table: int) -> str:
        """What a table's kiosk needs to join, as the QR code on its sheet says it; RegistryError without the
        broker's address for the tables."""
        if not self.table_broker:
            raise RegistryError("falta la dirección del broker para las mesas (cacho campeonato serve --broker-mesas)")
        user = f"mesa-{table}"
        password = self.table_passwords.get(user)
        return qr.join_text(self.table_broker, self.code, table, user if password else None, password)

    def option(self, name: str) -> int:
        """An organizer's option (its default when not set)."""
        return self.registry.option(name, OPTIONS[name][0])

    def set_option(self, name: str, value: int) -> None:
        """Set an option; RegistryError when it is unknown or out of range."""
        if name not in OPTIONS:
            raise RegistryError(f"opción desconocida {name!r}; las opciones son: {', '.join(OPTIONS)}")
        _, least, most = OPTIONS[name]
        if not least <= value <= most:
            raise RegistryError(f"{name} va de {least} a {most}, no {value}")
        self.registry.set_option(name, value)

    # ------------------------------------------------------------------ the live tables

    def view(self, table: DrawnTable) -> dict[str, Any]:
        """A drawn table as the organizer sees it now: the link's view, or the draw's players when none came yet."""
        summary = self.feeds.summary(table.number) if self.feeds is not None else None
        if summary is None:
            summary = {
                "table": table.number,
                "seq": 0,
                "players": [{"name": name, "dice": None} for name in table.players],
                "bid": None,
                "to_act": None,
                "eliminated": [],
                "winner": None,
                "ruling": None,
                "link": "unknown",
                "link_since": None,
                "received": 0,
            }
        return {**summary, "table": table.number, "drawn": list(table.players)}

    def table_placings(self, table: DrawnTable, out_already: set[str] | None = None) -> list[Placing]:
        """The table's placings from its view (the champion first, art. 10); the disqualified have none (art. 11)."""
        view = self.view(table)
        known = set(self.registry.disqualified()) if out_already is None else out_already
        out = known | set(view.get("disqualified") or [])
        seated = [name for name in table.players if name not in out]
        eliminated = [name for name in view.get("eliminated") or [] if name not in out]
        return placings(seated, eliminated, view.get("winner"))

    def heard_from(self, rnd: Round) -> bool:
        """Some table of the round has sent events: its draw is being played."""
        return any(self.view(t).get("received") for t in rnd.tables)

    # ------------------------------------------------------------------ the draws (art. 3)

    def draw_first(self, seed: str, size: int) -> Round:
        """Round 1 from the registered players; drawn again (another seed) only while no table has played."""
        rounds = self.registry.rounds()
        if rounds and self.heard_from(rounds[0]):
            raise RegistryError("las mesas de la ronda 1 ya están jugando: el sorteo no se repite")
        if len(rounds) > 1:
            raise RegistryError("ya hay rondas después de la primera: el sorteo no se repite")
        names = [p.name for p in self.registry.players()]
        try:
            tables = draw(names, seed, size)
        except DrawError as error:
            raise RegistryError(str(error)) from None
        before = [t.number for t in rounds[0].tables] if rounds else []
        rnd = self.registry.save_round(1, seed.strip(), size, tables)
        self.announce(rnd, gone=before)
        return rnd

    def advancing(self) -> list[str]:
        """Who goes on from the last round (every table must have its champion)."""
        rounds = self.registry.rounds()
        if not rounds:
            raise RegistryError("todavía no hay sorteo")
        last = rounds[-1]
        waiting = [t.number for t in last.tables if self.view(t).get("winner") is None]
        if waiting:
            raise RegistryError(f"faltan campeones de mesa (art. 10): mesa {', '.join(map(str, waiting))}")
        out = set(self.registry.disqualified())
        placed = [self.table_placings(t, out) for t in last.tables]
        return advancing(placed, self.option("avanzan_por_mesa"), out)

    def draw_next(self, seed: str, size: int) -> Round:
        """The next round from the last one's table champions: one final table when few enough advance."""
        rounds = self.registry.rounds()
        going = self.advancing()
        if len(rounds[-1].tables) == 1:
            raise RegistryError("la ronda anterior ya fue la mesa final")
        if len(going) <= self.option("mesa_final_hasta"):
            size = max(size, len(going))  # everyone who advances sits at the final table
        try:
            tables = draw(going, seed, size)
        except DrawError as error:
            raise RegistryError(str(error)) from None
        rnd = self.registry.save_round(len(rounds) + 1, seed.strip(), size, tables)
        self.announce(rnd)
        return rnd

    def announce(self, rnd: Round, gone: list[int] | None = None) -> None:
        """Tell each table's kiosk its players (retained), and clear the tables an earlier draw had and this lacks."""
        if self.feeds is None:
            return
        for table in rnd.tables:
            seating = {"table": table.number, "round": rnd.number, "seed": rnd.seed, "players": list(table.players)}
            self.feeds.publish_seating(table.number, seating)
        for number in set(gone or []) - {t.number for t in rnd.tables}:
            self.feeds.publish_seating(number, None)

    def announce_all(self) -> None:
        """Tell every table of the last round its players again (the organizer's page started anew)."""
        rounds = self.registry.rounds()
        if rounds:
            self.announce(rounds[-1])

    # ------------------------------------------------------------------ standings

    def standings(self) -> list[Standing]:
        """Every player: later rounds first, then the place at the last table played; the disqualified last."""
        clubs = {p.name: p.club for p in self.registry.players()}
        out = self.registry.disqualified()
        reached: dict[str, tuple[int, int, int | None]] = {}  # name: (round, table, place)
        for rnd in self.registry.rounds():
            for table in rnd.tables:
                for placing in self.table_placings(table, set(out)):
                    reached[placing.name] = (rnd.number, table.number, placing.place)

        def key(name: str) -> tuple[int, int, int]:
            number, _, place = reached.get(name, (0, 0, None))
            return (1 if name in out else 0, -number, place or 0)

        names = sorted(clubs, key=lambda n: (*key(n), n.casefold()))
        result: list[Standing] = []
        for index, name in enumerate(names):
            rank = result[-1].rank if result and key(names[index - 1]) == key(name) else index + 1
            got = reached.get(name)
            reason = out[name].text if name in out else None
            if got is None:
                result.append(Standing(rank, name, clubs[name], None, None, None, reason))
            else:
                result.append(Standing(rank, name, clubs[name], got[0], got[1], got[2], reason))
        return result

    def champion(self) -> str | None:
        """The championship's champion: the final table's champion (art. 10)."""
        rounds = self.registry.rounds()
        if not rounds or len(rounds[-1].tables) != 1:
            return None
        winner = self.view(rounds[-1].tables[0]).get("winner")
        return str(winner) if winner else None

    # ------------------------------------------------------------------ rulings (art. 11)

    def current_table(self, player: str) -> int | None:
        """The table where a player sits in the last round he was drawn into."""
        found = None
        for rnd in self.registry.rounds():
            for table in rnd.tables:
                if player in table.players:
                    found = table.number
        return found

    def rule(self, table: int | None, text: str, article: str, by: str) -> Ruling:
        """Record an organizer's ruling and send it to the table's kiosk."""
        if table is not None and not any(t.number == table for r in self.registry.rounds() for t in r.tables):
            raise RegistryError(f"no hay mesa {table} en el sorteo")
        ruling = self.registry.add_ruling(table, text, article, by)
        self._send(ruling)
        return ruling

    def disqualify(self, player: str, reason: str, by: str) -> Ruling:
        """Put a player out of the whole championship at once (art. 11), with the reason; his table is told."""
        if player not in {p.name for p in self.registry.players()}:
            raise RegistryError(f"{player} no está inscrito")
        if player in self.registry.disqualified():
            raise RegistryError(f"{player} ya fue descalificado")
        if not reason.strip():
            raise RegistryError("falta el motivo de la descalificación")
        text = f"{player} queda descalificado del campeonato: {reason.strip()}"
        ruling = self.registry.add_ruling(self.current_table(player), text, "11", by, "disqualification", player)
        self._send(ruling)
        return ruling

    def _send(self, ruling: Ruling) -> None:
        if ruling.table is not None and self.feeds is not None:
            self.feeds.publish_ruling(ruling.table, ruling.to_dict())

    def annex(self) -> str:
        """The rulings log as a Markdown annex for docs/rulings.md (art. 11: kept for the official rules)."""
        lines = [f"## Anexo: fallos del organizador, campeonato {self.code}", ""]
        lines += ["| Cuándo | Mesa | Artículo | Fallo | Quién |", "|---|---|---|---|---|"]
        for r in self.registry.rulings():
            text = r.text.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {r.ts} | {r.table or '—'} | art. {r.article} | {text} | {r.by} |")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ the page's data

    def state(self) -> dict[str, Any]:
        """Everything the organizer's page and the TV draw."""
        rounds = self.registry.rounds()
        out = self.registry.disqualified()
        return {
            "code": self.code,
            "players": [{"name": p.name, "club": p.club} for p in self.registry.players()],
            "rounds": [
                {
                    "number": r.number,
                    "seed": r.seed,
                    "size": r.size,
                    "drawn": r.drawn,
                    "tables": [
                        {
                            **self.view(t),
                            "placings": [{"name": p.name, "place": p.place} for p in self.table_placings(t, set(out))],
                        }
                        for t in r.tables
                    ],
                }
                for r in rounds
            ],
            "standings": [s.to_dict() for s in self.standings()],
            "champion": self.champion(),
            "rulings": [r.to_dict() for r in self.registry.rulings()],
            "options": {name: self.option(name) for name in OPTIONS},
        }
