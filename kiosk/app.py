"""The kiosk's Flask application factory: store, live bus, camera, PIN and one blueprint per game."""

from __future__ import annotations

import atexit
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request
from werkzeug.wrappers import Response

from kiosk import auth, i18n, learned, learnpart, photos, teach
from kiosk.bus import Bus
from kiosk.camera import CameraService, default_camera_factory, default_reader_factory, models_reader_factory
from kiosk.cards import learned as cards_learned
from kiosk.store import Store
from vision.evening import Learning

DEFAULTS: dict[str, Any] = {
    "CAMERA": None,  # None: no camera (dice entered by hand); "demo", "pi", "opencv:0", "replay:PATH"
    "CAMERA_FACTORY": default_camera_factory,
    "READER_FACTORY": default_reader_factory,
    "MODELS_READER_FACTORY": models_reader_factory,  # the reader of another models folder (an adapted one)
    "STOCK_MODELS": str(Path(__file__).resolve().parents[1] / "models"),
    "ADAPTER": None,  # kiosk.teach.Adapter (None: vision.faces.adapt.adapt)
    "LEARN_MODULES": learnpart.MODULES,  # what the real adaptation imports: missing, the kiosk offers to install it
    "LEARN_INSTALL_COMMAND": None,  # the command that installs them (None: pip, the `learn` extra)
    "TEACH_MINUTES": teach.MINUTES,
    "TEACH_EPOCHS": None,  # epochs of an adaptation, instead of TEACH_MINUTES (None: the minutes)
    "LEARN_EVERY": Learning().every,  # new confirmed dice in play that start an adaptation (None: never by itself)
    "LEARN_CROPS": Learning().crops,  # that adaptation's budget, in augmented crops taught
    "STILL": None,  # vision.still.StillSettings for captures (None: its defaults)
    "DEMO": False,  # seat the bundled demo table at first start
    "CSRF_DISABLED": False,
    "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
}


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the kiosk; `test_config` overrides the defaults (DATABASE, CAMERA, READER_FACTORY...)."""
    app = Flask(__name__, instance_relative_config=True)
    _configure(app, test_config)
    store = Store(Path(app.config["DATABASE"]))
    app.extensions["cacho.store"] = store
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = store.setting_once("secret_key", secrets.token_hex(32))
    app.config.setdefault("SESSION_COOKIE_SAMESITE", "Strict")
    photos.sweep(store, Path(app.config["PHOTOS"]))  # what a crash between a read and its confirmation left
    learned.sweep(Path(app.config["LEARNED"]), store, [teach.waiting(store)])
    learned.sweep(Path(app.config["CARD_LEARNED"]), store)
    _start_camera(app)
    auth.install(app)
    _install_pages(app)
    if app.config["DEMO"]:
        from kiosk.cards.demo import seat_card_demos
        from kiosk.demo.table import seat_demo

        seat_demo(store)
        seat_card_demos(store)
    return app


def _configure(app: Flask, test_config: dict[str, Any] | None) -> None:
    """The defaults, then `test_config`; the data folder (photos, the table's seats) beside the database."""
    app.config.from_mapping(DEFAULTS)
    app.config["DATABASE"] = str(Path(app.instance_path) / "cacho.sqlite3")
    if test_config is not None:
        app.config.from_mapping(test_config)
    database = Path(app.config["DATABASE"])
    app.config.setdefault("DATA_DIR", str(database.parent))
    data_dir = Path(app.config["DATA_DIR"])
    app.config.setdefault("PHOTOS", str(data_dir / "fotos"))
    app.config.setdefault("TABLE_CONFIG", str(data_dir / "mesa.json"))
    app.config.setdefault("LEARNED", str(learned.folder(data_dir)))
    app.config.setdefault("CARD_LEARNED", str(cards_learned.folder(data_dir)))
    app.config.setdefault("ADAPTED_MODELS", str(data_dir / "modelos-adaptados"))
    app.config.setdefault("EVIDENCE", str(data_dir / "pruebas"))  # what each models folder showed on the table's dice
    if "CARD_READER" not in app.config:  # with a camera, the camera reads the cards shown (kiosk.cards.camera)
        from kiosk.cards.camera import CameraCardReader

        camera = app.config["CAMERA"] is not None
        models = Path(app.config["CARD_MODELS"]) if app.config.get("CARD_MODELS") else None
        table = Path(app.config["TABLE_CONFIG"])
        app.config["CARD_READER"] = CameraCardReader(models, table_config=table) if camera else None


def _start_camera(app: Flask) -> None:
    """The live bus and the camera service (its health changes go out on the bus), closed at exit."""
    bus = Bus()
    app.extensions["cacho.bus"] = bus
    camera = CameraService(
        app.config["CAMERA"],
        camera_factory=app.config["CAMERA_FACTORY"],
        reader_factory=app.config["READER_FACTORY"] if app.config["CAMERA"] is not None else None,
        on_change=lambda health: bus.publish("camera", health),
        models=teach.chosen_models(app.config, app.extensions["cacho.store"]),
        models_factory=app.config["MODELS_READER_FACTORY"],
    )
    app.extensions["cacho.camera"] = camera
    camera.start()
    atexit.register(camera.close)


def _install_pages(app: Flask) -> None:
    """The page language (?lang= remembered in a cookie), the 404 page, and the blueprints."""

    @app.before_request
    def choose_language() -> None:
        i18n.lang()

    @app.after_request
    def remember_language(response: Response) -> Response:
        chosen = request.args.get("lang")
        if chosen in i18n.LANGS:
            response.set_cookie("lang", chosen, max_age=365 * 24 * 3600, samesite="Strict")
        return response

    app.jinja_env.globals["_"] = i18n.t

    @app.errorhandler(404)
    def not_found(error: Exception) -> tuple[str, int]:
        return render_template("error.html", message=i18n.t("No existe esa página")), 404

    from kiosk.bolivia.views import bp as bolivia_bp
    from kiosk.cards.cacheta import bp as cacheta_bp
    from kiosk.cards.cacho import bp as cacho_bp
    from kiosk.cards.pifpaf import bp as pifpaf_bp
    from kiosk.cards.truco import bp as truco_bp
    from kiosk.cards.views import bp as cards_bp
    from kiosk.championship.views import install as install_championship
    from kiosk.dudo.views import bp as dudo_bp
    from kiosk.views import home_bp, live_bp

    app.register_blueprint(auth.bp)
    app.register_blueprint(home_bp)
    app.register_blueprint(live_bp)
    app.register_blueprint(dudo_bp)
    app.register_blueprint(bolivia_bp)
    app.register_blueprint(truco_bp)
    app.register_blueprint(cacho_bp)
    app.register_blueprint(pifpaf_bp)
    app.register_blueprint(cacheta_bp)
    app.register_blueprint(cards_bp)
    teach.install(app)
    install_championship(app)  # the organizer's pages, or this table's link to a championship
