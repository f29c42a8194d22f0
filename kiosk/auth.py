"""The coordinator's PIN (set at first start, stored hashed) and CSRF tokens on every form."""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Blueprint, current_app, flash, g, jsonify, redirect, render_template, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response

from kiosk.i18n import EN, t
from kiosk.web import store

bp = Blueprint("auth", __name__)

PIN_RE = re.compile(r"^[0-9]{4,8}$")
MAX_TRIES = 5  # wrong PINs in a row before the lock
LOCK_S = 30.0

F = TypeVar("F", bound=Callable[..., Any])


class PinLock:
    """Wrong PINs in a row and the lock after too many, per client address (in memory: a restart does not help a
    guesser much)."""

    MAX_CLIENTS = 1024  # addresses remembered before the counts of those not locked are forgotten

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[str, tuple[int, float]] = {}  # address: (wrong PINs in a row, locked until)

    def wait_s(self, client: str) -> float:
        """Seconds until `client` may try a PIN again."""
        with self._lock:
            _, until = self._clients.get(client, (0, 0.0))
        return max(0.0, until - time.monotonic())

    def failed(self, client: str) -> None:
        """Count a wrong PIN from `client`; lock it after MAX_TRIES."""
        with self._lock:
            failures, until = self._clients.get(client, (0, 0.0))
            failures += 1
            if failures >= MAX_TRIES:
                failures, until = 0, time.monotonic() + LOCK_S
            self._clients[client] = (failures, until)
            if len(self._clients) > self.MAX_CLIENTS:
                self._forget_idle()

    def passed(self, client: str) -> None:
        """A right PIN clears `client`'s count."""
        with self._lock:
            self._clients.pop(client, None)

    def _forget_idle(self) -> None:
        clock = time.monotonic()
        for client, (_, until) in list(self._clients.items()):
            if until <= clock:
                del self._clients[client]


def pin_lock() -> PinLock:
    """The app's PIN lock."""
    return cast(PinLock, current_app.extensions["cacho.pinlock"])


def pin_is_set() -> bool:
    """A coordinator's PIN exists."""
    return store().setting("pin_hash") is not None


def check_pin(pin: str) -> bool:
    """The PIN is the coordinator's."""
    stored = store().setting("pin_hash")
    return stored is not None and check_password_hash(stored, pin)


def is_coordinator() -> bool:
    """This browser has entered the PIN."""
    return bool(session.get("coordinator"))


def page_view() -> str:
    """The view a page's state is for: `?view=` (the coordinator's by default), always "tv" without the PIN."""
    view = request.args.get("view", "coordinator")
    return view if view == "tv" or is_coordinator() else "tv"


def wants_json() -> bool:
    """The request came from the page's script (fetch), not a form."""
    return request.is_json or request.headers.get("Accept", "").startswith("application/json")


def coordinator_required(view: F) -> F:
    """Only the coordinator (the PIN entered) may use this view."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not pin_is_set():
            if wants_json():
                return jsonify(error=t("Falta fijar el PIN del coordinador")), 401
            return redirect(url_for("auth.setup"))
        if not is_coordinator():
            if wants_json():
                return jsonify(error=t("Hace falta el PIN del coordinador")), 401
            return redirect(url_for("auth.login", next=request.full_path))
        return view(*args, **kwargs)

    return cast(F, wrapped)


# ------------------------------------------------------------------ CSRF


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> Response | tuple[Response, int] | None:
    """Refuse a state-changing request without this session's token (form field or X-CSRF-Token header)."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    if current_app.config.get("CSRF_DISABLED"):
        return None
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    token = session.get("csrf")
    if isinstance(token, str) and sent and hmac.compare_digest(sent, token):
        return None
    message = t("Formulario vencido o ajeno (CSRF): recargue la página e inténtelo de nuevo")
    if wants_json():
        return jsonify(error=message), 400
    return Response(render_template("error.html", message=message), status=400)


# ------------------------------------------------------------------ pages


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Any:
    """First start: the coordinator chooses the PIN (4 to 8 digits)."""
    if pin_is_set():
        return redirect(url_for("auth.login"))
    if request.method == "POST":
        pin = request.form.get("pin", "")
        again = request.form.get("pin2", "")
        if not PIN_RE.match(pin):
            flash(t("El PIN tiene de 4 a 8 cifras"), "error")
        elif pin != again:
            flash(t("Los dos PIN no coinciden"), "error")
        else:
            stored = store().setting_once("pin_hash", generate_password_hash(pin))
            if check_password_hash(stored, pin):
                session["coordinator"] = True
                session["first_steps"] = True  # the home page says what to do first
                store().audit(None, "pin_set", {})
                return redirect(url_for("home.index"))
            return redirect(url_for("auth.login"))
        return render_template("setup.html"), 400
    return render_template("setup.html")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The coordinator enters the PIN."""
    if not pin_is_set():
        return redirect(url_for("auth.setup"))
    target = request.values.get("next") or url_for("home.index")
    if not target.startswith("/") or target.startswith("//"):
        target = url_for("home.index")
    if request.method == "POST":
        if is_coordinator():
            return redirect(target)  # already signed in: never locked out
        lock = pin_lock()
        client = request.remote_addr or ""
        wait = lock.wait_s(client)
        if wait > 0:
            flash(t("Demasiados intentos: espere {s} s").format(s=int(wait) + 1), "error")
            return render_template("login.html", next=target), 429
        if check_pin(request.form.get("pin", "")):
            lock.passed(client)
            session["coordinator"] = True
            return redirect(target)
        lock.failed(client)
        store().audit(None, "wrong_pin", {"remote": request.remote_addr or ""})
        flash(t("PIN incorrecto"), "error")
        return render_template("login.html", next=target), 403
    return render_template("login.html", next=target)


@bp.route("/logout", methods=["POST"])
def logout() -> Any:
    """Leave the coordinator's controls on this browser."""
    session.pop("coordinator", None)
    return redirect(url_for("home.index"))


def install(app: Any) -> None:
    """Wire the PIN lock, the CSRF check and the template helpers into the app."""
    app.extensions["cacho.pinlock"] = PinLock()
    app.before_request(check_csrf)

    def helpers() -> dict[str, object]:
        return {
            "csrf_token": csrf_token,
            "is_coordinator": is_coordinator,
            "lang": g.get("lang", "es"),
            "en_texts": EN,
        }

    app.context_processor(helpers)
