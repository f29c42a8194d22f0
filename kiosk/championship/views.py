"""The championship's pages: the organizer's (`cacho campeonato serve`) and, on each table's kiosk, joining one."""

from __future__ import annotations

import atexit
import json
import secrets
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from flask import Blueprint, Flask, Response, abort, current_app, flash, jsonify, redirect, render_template, request
from flask import url_for as flask_url_for

from engines.dudo import Descalificacion
from engines.errors import RuleError
from kiosk.auth import coordinator_required, is_coordinator
from kiosk.championship import topics
from kiosk.championship.link import SETTING, LinkConfig, TableLink, fetch_retained
from kiosk.championship.organizer import Organizer
from kiosk.championship.pool import Learner, Pool, PoolError, install_model
from kiosk.championship.registry import Registry, RegistryError
from kiosk.championship.service import OPTIONS, Championship
from kiosk.i18n import t
from kiosk.store import StaleError, Store
from kiosk.tables import CorruptLog
from vision.evening import Learning

bp = Blueprint("championship", __name__, url_prefix="/campeonato")

RULING_KIND = "championship_ruling"  # the organizer's rulings a table's kiosk received, in its audit trail


def url_for(endpoint: str, **values: Any) -> str:
    """flask.url_for, typed."""
    return str(flask_url_for(endpoint, **values))


# ------------------------------------------------------------------ wiring


def install(app: Flask) -> None:
    """Register the pages; start the organizer when this is `cacho campeonato serve`, the table's link when this
    kiosk joined a championship."""
    app.register_blueprint(bp)
    config = app.config.get("CHAMPIONSHIP")
    if config:
        feeds = config.get("feeds")
        if feeds is None:
            learner = _learner(app, config)

            def sampled(table: int) -> None:
                if learner is not None:
                    learner.sampled()

            organizer = Organizer(
                config["host"],
                int(config["port"]),
                config["code"],
                username=config.get("username"),
                password=config.get("password"),
                journal=Path(config["journal"]) if config.get("journal") else None,
                pool=None if learner is None else learner.pool,
                on_sample=sampled,
            ).start()
            if learner is not None:
                learner.publish, learner.publish_levels = organizer.publish_model, organizer.publish_levels
                learner.republish()  # kept for the tables that join, whatever the broker lost
                app.extensions["cacho.pool_learner"] = learner
            atexit.register(organizer.stop)
            feeds = organizer
        registry = Registry(Path(config["registry"]))
        champ = Championship(config["code"], registry, feeds, config.get("table_broker"), config.get("table_passwords"))
        champ.announce_all()
        app.extensions["cacho.championship"] = champ
    store = cast(Store, app.extensions["cacho.store"])
    if store.setting(SETTING):
        try:
            start_link(app, LinkConfig.from_dict(json.loads(store.setting(SETTING) or "{}")))
        except ValueError as error:
            app.logger.warning("no se pudo unir al campeonato: %s", error)

    @app.context_processor
    def link_badge() -> dict[str, object]:
        link = app.extensions.get("cacho.link")
        return {"championship_link": None if link is None else link.status()}


def _learner(app: Flask, config: dict[str, Any]) -> Learner | None:
    """The organizer's pooled learning (kiosk.championship.pool), beside the registry; None where it is off."""
    if not config.get("learn", True) or not config.get("registry"):
        return None
    folder = Path(config["registry"]).parent
    every = app.config.get("LEARN_EVERY")
    return Learner(
        Pool(folder / "muestras"),
        Path(app.config["STOCK_MODELS"]),
        folder / "modelos",
        publish=lambda payload: None,  # the organizer's, once it exists
        adapter=app.config.get("POOL_ADAPTER"),
        every=int(every) if every else Learning().every,
        crops=int(app.config.get("LEARN_CROPS") or Learning().crops),
    )


def use_pooled_model(app: Flask, data: dict[str, Any]) -> Path | None:
    """The reader the organizer adapted on the championship's dice, kept and read with from the next reading on
    (its hash checked: kiosk.championship.pool.install_model); None where it is the one in use already."""
    from kiosk import teach
    from kiosk.camera import CameraService

    with app.app_context():
        camera = cast(CameraService, app.extensions["cacho.camera"])
        folder = install_model(data, Path(app.config["STOCK_MODELS"]), teach.adapted_root(app.config))
        if camera.wanted_models == folder:
            return None
        cast(Store, app.extensions["cacho.store"]).set_setting(teach.SETTING, folder.name)
        teach.read_with(folder)
        app.logger.info("lee con el modelo del campeonato %s", folder.name)
        return folder


def use_pooled_levels(app: Flask, data: dict[str, Any]) -> None:
    """The levels the organizer set for one of the championship's readers on every table's evidence of it: kept,
    and read at from the next reading on where that reader is in use and they rest on more dice than the table's
    own (kiosk.teach.table_levels)."""
    from kiosk import teach
    from kiosk.camera import CameraService

    with app.app_context():
        try:
            levels = teach.use_pooled_levels(app.config, data)
        except (ValueError, OSError) as error:
            app.logger.warning("niveles del campeonato no usados: %s", error)
            return
        name = str(data["models"])
        if levels is not None:
            cast(CameraService, app.extensions["cacho.camera"]).use_levels(name, levels)


def start_link(app: Flask, config: LinkConfig) -> TableLink:
    """Link the kiosk's table to the championship's broker (replacing any earlier link); each stored event wakes it."""
    stop_link(app)
    store = cast(Store, app.extensions["cacho.store"])
    bus = app.extensions["cacho.bus"]

    def ruled(data: dict[str, Any]) -> None:
        """An organizer's ruling for this table: kept once in the audit trail and shown to the coordinator."""
        known = {entry.get("id") for entry in store.audit_trail(config.table_id) if entry.get("kind") == RULING_KIND}
        if data.get("id") in known:
            return
        kept = {k: v for k, v in data.items() if k != "kind"} | {"ruling": data.get("kind")}  # the trail's own "kind"
        if data.get("kind") == "disqualification" and isinstance(data.get("player"), str):
            with app.app_context():
                kept["applied"] = disqualify_at_table(store, config.table_id, data)
            bus.publish(f"table:{config.table_id}", {"table": config.table_id})
        store.audit(config.table_id, RULING_KIND, kept)
        bus.publish("championship", {"ruling": data.get("id")})

    def reading() -> dict[str, Any]:
        """What the table reads with, and on how many of its confirmed dice it has been checked."""
        camera = app.extensions["cacho.camera"]
        levels = camera.levels(camera.models)
        return {"models": camera.models, "evidence": 0 if levels is None else levels.dice}

    def pooled(data: dict[str, Any]) -> None:
        try:
            use_pooled_model(app, data)
        except PoolError as error:
            app.logger.warning("modelo del campeonato no usado: %s", error)

    def pooled_levels(data: dict[str, Any]) -> None:
        use_pooled_levels(app, data)

    link = TableLink(
        store,
        config,
        on_ruling=ruled,
        photos=Path(app.config["PHOTOS"]),
        samples=Path(app.config["LEARNED"]),
        on_model=pooled,
        on_levels=pooled_levels,
        reader=reading,
    ).start()
    app.extensions["cacho.link"] = link
    inbox = bus.subscribe()
    topic = f"table:{config.table_id}"

    def relay() -> None:
        while True:
            message = inbox.get()
            if message is None or app.extensions.get("cacho.link") is not link:
                bus.unsubscribe(inbox)
                return
            if message.topic == topic:
                link.wake()

    threading.Thread(target=relay, name="enlace-despertar", daemon=True).start()
    atexit.register(link.stop)
    return link


def disqualify_at_table(store: Store, table_id: int, ruling: dict[str, Any]) -> str:
    """Apply the organizer's disqualification to the table's log (art. 11: at once); what happened, in Spanish."""
    from kiosk.dudo.desk import act

    player = str(ruling["player"])
    meta = {"by": str(ruling.get("by") or "organizador"), "note": str(ruling.get("text") or "")}
    try:
        act(store, table_id, Descalificacion(player), None, meta)
    except (RuleError, StaleError, CorruptLog) as error:
        return f"no se aplicó en la mesa: {error}"
    return f"{player} salió de la mesa con sus dados"


def stop_link(app: Flask) -> None:
    """Unlink the kiosk from its championship, if it was linked."""
    link = app.extensions.pop("cacho.link", None)
    if link is not None:
        link.stop()
        app.extensions["cacho.bus"].publish("championship", {"link": "off"})


def championship() -> Championship:
    """This machine's championship (404 where this is a table's kiosk, not the organizer's)."""
    found = current_app.extensions.get("cacho.championship")
    if found is None:
        abort(404)
    return cast(Championship, found)


def done(message: str) -> Response:
    """Back to the organizer's page with a notice."""
    flash(message, "ok")
    return cast(Response, redirect(url_for("championship.organizer")))


def refused(error: Exception) -> Response:
    """Back to the organizer's page saying what is wrong (nothing was changed)."""
    flash(str(error), "error")
    return cast(Response, redirect(url_for("championship.organizer")))


def form_int(name: str, default: int | None = None) -> int:
    """A whole number from the form; RegistryError in Spanish otherwise."""
    raw = request.form.get(name, "").strip()
    if not raw and default is not None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise RegistryError(f"'{name}' debe ser un número entero, no {raw!r}") from None


# ------------------------------------------------------------------ the organizer's pages


@bp.route("/")
@coordinator_required
def organizer() -> Any:
    """The organizer's page: registration, the draw, the live tables, standings and the rulings log."""
    champ = championship()
    return render_template(
        "championship/organizer.html",
        state=champ.state(),
        options=OPTIONS,
        suggested_seed=str(secrets.randbelow(900000) + 100000),
    )


@bp.route("/estado.json")
def state_json() -> Any:
    """Everything the organizer's page and the TV draw (read-only, no PIN: what the spectators may see)."""
    state = championship().state()
    learner = current_app.extensions.get("cacho.pool_learner")
    if learner is not None:
        state["learning"] = {**learner.last, "dice": learner.pool.dice(), "tables": learner.pool.tables()}
    return jsonify(state)


@bp.route("/foto/<int:table>.jpg")
def photo(table: int) -> Any:
    """The last ruling's photo a table sent (404 when none came)."""
    champ = championship()
    data = champ.feeds.photo(table) if champ.feeds is not None else None
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.route("/tv")
def tv() -> Any:
    """The TV: one table after another, then the standings."""
    championship()
    return render_template("championship/tv.html")


@bp.route("/jugadores", methods=["POST"])
@coordinator_required
def add_players() -> Any:
    """Register players: one per line, "Nombre, Club"; all or none."""
    champ = championship()
    entries = []
    for line in request.form.get("players", "").splitlines():
        if line.strip():
            name, _, club = line.partition(",")
            entries.append((name.strip(), club.strip()))
    if not entries:
        return refused(RegistryError(t("Escriba un jugador por línea: Nombre, Club")))
    known = {p.name.casefold() for p in champ.registry.players()}
    for name, _ in entries:
        if name.casefold() in known:
            return refused(RegistryError(f"{name} ya está inscrito: no se inscribió a nadie"))
        known.add(name.casefold())
    try:
        for name, club in entries:
            champ.registry.add_player(name, club)
    except RegistryError as error:
        return refused(error)
    return done(t("Inscritos: {n}").format(n=len(entries)))


@bp.route("/jugadores/quitar", methods=["POST"])
@coordinator_required
def remove_player() -> Any:
    """Take a player off the list (before the draw)."""
    try:
        championship().registry.remove_player(request.form.get("name", ""))
    except RegistryError as error:
        return refused(error)
    return done(t("Jugador quitado"))


@bp.route("/sorteo", methods=["POST"])
@coordinator_required
def draw_first() -> Any:
    """The public draw of round 1 (art. 3): the seed on screen, the same seed gives the same tables."""
    try:
        rnd = championship().draw_first(request.form.get("seed", ""), form_int("size"))
    except RegistryError as error:
        return refused(error)
    return done(t("Sorteo de la ronda 1 con la semilla {seed}: {n} mesas").format(seed=rnd.seed, n=len(rnd.tables)))


@bp.route("/ronda", methods=["POST"])
@coordinator_required
def draw_next() -> Any:
    """The draw of the next round among those who advance (art. 10; options in docs/rulings.md)."""
    try:
        rnd = championship().draw_next(request.form.get("seed", ""), form_int("size"))
    except RegistryError as error:
        return refused(error)
    message = t("Sorteo de la ronda {r} con la semilla {seed}: {n} mesas")
    return done(message.format(r=rnd.number, seed=rnd.seed, n=len(rnd.tables)))


@bp.route("/opciones", methods=["POST"])
@coordinator_required
def set_options() -> Any:
    """The organizer's options for later rounds."""
    champ = championship()
    try:
        values = {name: form_int(name, champ.option(name)) for name in OPTIONS}
        for name, value in values.items():
            champ.set_option(name, value)
    except RegistryError as error:
        return refused(error)
    return done(t("Opciones guardadas"))


@bp.route("/fallo", methods=["POST"])
@coordinator_required
def rule() -> Any:
    """An organizer's ruling (art. 11): recorded with its article, time and who, and sent to the table's kiosk."""
    try:
        raw = request.form.get("table", "").strip()
        table = int(raw) if raw else None
        championship().rule(
            table, request.form.get("text", ""), request.form.get("article", "11"), request.form.get("by", "")
        )
    except ValueError as error:
        return refused(error)
    return done(t("Fallo registrado"))


@bp.route("/descalificar", methods=["POST"])
@coordinator_required
def disqualify() -> Any:
    """Disqualify a player from the whole championship (art. 11: trampa = descalificación inmediata)."""
    try:
        championship().disqualify(
            request.form.get("player", ""), request.form.get("reason", ""), request.form.get("by", "")
        )
    except RegistryError as error:
        return refused(error)
    return done(t("Jugador descalificado"))


@bp.route("/hojas/<int:number>")
@coordinator_required
def sheets(number: int) -> Any:
    """Printable table sheets of a round."""
    rounds = championship().registry.rounds()
    if not 1 <= number <= len(rounds):
        abort(404)
    champ = championship()
    return render_template("championship/sheets.html", code=champ.code, rnd=rounds[number - 1], qr=champ.table_broker)


@bp.route("/qr/<int:table>.png")
@coordinator_required
def join_qr(table: int) -> Any:
    """The QR code a table's kiosk scans to join (its user's password inside: the organizer's PIN)."""
    from kiosk.championship.qr import qr_png

    try:
        text = championship().join_text(table)
    except RegistryError as error:
        return Response(str(error), status=404, mimetype="text/plain; charset=utf-8")
    return Response(qr_png(text), mimetype="image/png", headers={"Cache-Control": "no-store"})


@bp.route("/resultado")
def result() -> Any:
    """The result sheet: standings, champion, rulings."""
    return render_template("championship/result.html", state=championship().state())


@bp.route("/fallos.md")
@coordinator_required
def rulings_annex() -> Any:
    """The rulings log as a Markdown annex for docs/rulings.md."""
    return Response(championship().annex(), mimetype="text/markdown; charset=utf-8")


# ------------------------------------------------------------------ a table's kiosk joins a championship


def kiosk_store() -> Store:
    """The kiosk's store."""
    return cast(Store, current_app.extensions["cacho.store"])


def received_rulings(table_id: int | None) -> list[dict[str, object]]:
    """The organizer's rulings this kiosk received, newest first."""
    if table_id is None:
        return []
    return [e for e in reversed(kiosk_store().audit_trail(table_id)) if e.get("kind") == RULING_KIND]


@bp.route("/mesa")
@coordinator_required
def table_page() -> Any:
    """This kiosk in a championship: the link's badge and the organizer's rulings, or the form to join one."""
    link = current_app.extensions.get("cacho.link")
    saved = kiosk_store().setting(SETTING)
    config = json.loads(saved) if saved else {}
    return render_template(
        "championship/table.html",
        status=None if link is None else link.status(),
        config=config,
        tables=kiosk_store().tables("dudo"),
        rulings=received_rulings(link.config.table_id if link is not None else None),
        seating=None,
        table_id=link.config.table_id if link is not None else None,
    )


def form_config(table_id: str) -> LinkConfig:
    """The link the join form describes (ValueError in Spanish when something is wrong)."""
    form = request.form
    host, _, port = form.get("broker", "").strip().partition(":")
    return LinkConfig.from_dict(
        {
            "host": host,
            "port": port or "1883",
            "code": form.get("code", "").strip(),
            "table": form.get("table", "").strip(),
            "table_id": table_id,
            "username": form.get("username", "").strip(),
            "password": form.get("password", ""),
        }
    )


def joined(config: LinkConfig, then: str | None = None) -> Response:
    """Keep the link's settings, start it, and go to `then` (by default, back to the page)."""
    kiosk_store().set_setting(SETTING, json.dumps(config.to_dict()))
    start_link(current_app._get_current_object(), config)  # type: ignore[attr-defined]
    flash(t("Mesa {n} unida al campeonato {code}").format(n=config.table, code=config.code), "ok")
    return cast(Response, redirect(then or url_for("championship.table_page")))


def not_joined(error: Exception) -> Response:
    """Back to the page saying why (nothing was changed)."""
    flash(t("No se unió al campeonato: {e}").format(e=error), "error")
    return cast(Response, redirect(url_for("championship.table_page")))


@bp.route("/mesa/unirse", methods=["POST"])
@coordinator_required
def join() -> Any:
    """Join a championship with one of this kiosk's Dudo tables: the broker, the code, the number from the draw."""
    try:
        config = form_config(request.form.get("table_id", "").strip())
        kiosk_store().table(config.table_id)
    except (ValueError, LookupError) as error:
        return not_joined(error)
    return joined(config)


@bp.route("/mesa/sorteo", methods=["POST"])
@coordinator_required
def seating() -> Any:
    """Ask the broker for the players the draw sat at this table number (art. 3), to seat the table with them."""
    try:
        config = form_config("0")
        drawn = fetch_retained(config, topics.SEATING)
    except (ValueError, ConnectionError) as error:
        return not_joined(error)
    if drawn is None or not isinstance(drawn.get("players"), list):
        return not_joined(ValueError(t("el organizador no ha sorteado la mesa {n}").format(n=config.table)))
    return render_template(
        "championship/table.html",
        status=None,
        config={**config.to_dict(), "password": request.form.get("password", "")},
        tables=kiosk_store().tables("dudo"),
        rulings=[],
        seating=drawn,
        prefill=True,
    )


@bp.route("/mesa/qr", methods=["POST"])
@coordinator_required
def scan_qr() -> Any:
    """Read the QR code of the table's sheet with the kiosk's camera: the join form filled in, and the drawn players."""
    from hardware.camera import CameraError
    from kiosk.championship.qr import read_join
    from kiosk.web import camera

    try:
        data = read_join(camera().full_frame())
    except CameraError as error:
        return not_joined(ValueError(t("no hay cámara para leer el código QR: {e}").format(e=error)))
    except ValueError as error:
        return not_joined(error)
    if data is None:
        return not_joined(ValueError(t("la cámara no ve ningún código QR: acerque la hoja de mesa")))
    host, _, port = str(data.get("broker", "")).partition(":")
    fields = {"host": host, "port": port or "1883", "code": data.get("code"), "table": data.get("table")}
    try:
        config = LinkConfig.from_dict(
            {**fields, "table_id": 0, "username": data.get("username"), "password": data.get("password")}
        )
    except (ValueError, TypeError) as error:
        return not_joined(ValueError(str(error)))
    try:
        drawn = fetch_retained(config, topics.SEATING)
    except ConnectionError as error:
        flash(str(error), "error")
        drawn = None
    return render_template(
        "championship/table.html",
        status=None,
        config=config.to_dict(),
        tables=kiosk_store().tables("dudo"),
        rulings=[],
        seating=drawn if drawn is not None and isinstance(drawn.get("players"), list) else None,
        prefill=True,
    )


@bp.route("/mesa/sentar", methods=["POST"])
@coordinator_required
def seat_and_join() -> Any:
    """Seat a new Dudo table with the drawn players (the opener from the art. 3 roll-off) and join with it."""
    from engines.dudo import Start
    from kiosk.dudo.desk import create

    players = tuple(name.strip() for name in request.form.getlist("player") if name.strip())
    try:
        config = form_config("0")
        table_id = create(kiosk_store(), f"Mesa {config.table}", Start(players, request.form.get("opener", "")))
    except (ValueError, RuleError) as error:
        return not_joined(error)
    return joined(replace(config, table_id=table_id), url_for("dudo.table", table_id=table_id))  # play there at once


@bp.route("/mesa/dejar", methods=["POST"])
@coordinator_required
def leave() -> Any:
    """Unlink this kiosk (the table keeps its log; joining again sends what the broker has not acknowledged)."""
    stop_link(current_app._get_current_object())  # type: ignore[attr-defined]
    kiosk_store().set_setting(SETTING, "")
    flash(t("La mesa dejó el campeonato"), "ok")
    return redirect(url_for("championship.table_page"))


@bp.route("/mesa/enlace.json")
def link_json() -> Any:
    """The link's badge and, for the coordinator, the organizer's rulings received."""
    link = current_app.extensions.get("cacho.link")
    if link is None:
        return jsonify(state="off", rulings=[])
    rulings = received_rulings(link.config.table_id) if is_coordinator() else []
    return jsonify(**link.status(), rulings=rulings)
