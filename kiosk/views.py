"""The kiosk's shared pages: the tables, live updates (SSE), the camera badge and calibration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request, session, stream_with_context

from kiosk.auth import coordinator_required, pin_is_set
from kiosk.bus import StreamsFull
from kiosk.camera import encode_jpeg, shrink
from kiosk.i18n import t
from kiosk.web import bus, camera, store

MAX_STREAMS = 200  # live pages at once unless SSE_MAX_STREAMS says otherwise (kiosk.server gives each a thread)

home_bp = Blueprint("home", __name__)
live_bp = Blueprint("live", __name__)


def table_config_path() -> Path:
    """Where the table's seat config (markers, zones) is kept."""
    return Path(current_app.config["TABLE_CONFIG"])


@home_bp.route("/")
def index() -> Any:
    """Every table, and the buttons to start a new one; on a first start, the way to the coordinator's PIN."""
    tables = store().tables()
    first_steps = session.pop("first_steps", False) or not tables
    return render_template("home.html", tables=tables, pin_set=pin_is_set(), first_steps=first_steps)


@live_bp.route("/events")
def events() -> Response:
    """Server-sent events: `?topics=table:3,camera` (every topic when absent)."""
    raw = request.args.get("topics", "")
    topics = frozenset(part for part in raw.split(",") if part) or None
    cap = int(current_app.config.get("SSE_MAX_STREAMS", MAX_STREAMS))
    live = bus()
    gone = request.environ.get("waitress.client_disconnected")
    try:
        inbox = live.open_stream(cap, gone)
    except StreamsFull:
        # Every stream holds one of the server's threads: past the cap, the controls would wait for one.
        message = t("El kiosco ya sirve {n} páginas en vivo: esta vuelve a intentarlo en {s} s").format(n=cap, s=15)
        return Response(message + "\n", status=503, mimetype="text/plain", headers={"Retry-After": "15"})
    stream = live.stream(
        topics,
        heartbeat_s=float(current_app.config.get("SSE_HEARTBEAT_S", 15.0)),
        inbox=inbox,
        gone=gone,
    )
    response = Response(stream_with_context(stream), mimetype="text/event-stream")
    response.call_on_close(lambda: live.unsubscribe(inbox))  # also when the stream never started
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@live_bp.route("/camera/health")
def camera_health() -> Any:
    """The camera badge as JSON."""
    return jsonify(camera().health().to_dict())


@live_bp.route("/camera/preview.jpg")
def camera_preview() -> Any:
    """The latest preview frame (404 when the camera gives none)."""
    data = camera().preview_jpeg()
    if data is None:
        return jsonify(error=t("La cámara no da imagen")), 404
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@live_bp.route("/calibrate")
@coordinator_required
def calibrate_page() -> Any:
    """The calibration screen: live preview, seat markers found, and zones drawn by hand."""
    from vision.seats import ConfigError, TableConfig, load_table_config

    path = table_config_path()
    try:
        config = load_table_config(path) if path.exists() else TableConfig()
        problem = None
    except ConfigError as error:
        config, problem = TableConfig(), str(error)
    return render_template("calibrate.html", config=json.dumps(config.to_dict()), problem=problem)


@live_bp.route("/calibrate/markers", methods=["POST"])
@coordinator_required
def calibrate_markers() -> Any:
    """Look for the seat markers on a full frame now; the drawn frame and what was found."""
    from hardware.camera import CameraError
    from vision.seats import ConfigError, TableConfig, calibrate, camera_tilt, fit_hfov, load_table_config

    try:
        frame = camera().full_frame()
    except CameraError as error:
        return jsonify(error=f"{t('Cámara')}: {error}"), 409
    path = table_config_path()
    try:
        config = load_table_config(path) if path.exists() else TableConfig()
    except ConfigError as error:
        return jsonify(error=str(error)), 409
    body = request.get_json(silent=True)
    seats = body.get("seats", []) if isinstance(body, dict) else []
    if not isinstance(seats, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seats):
        return jsonify(error="'seats' debe ser una lista de números de asiento"), 400
    wanted = list(seats)
    seating = calibrate(frame, config, seats_in_play=wanted)
    tilt = None  # the camera's nadir, as a reading will measure it (not in zones mode)
    if seating.mode == "markers":
        hfov = fit_hfov(config, camera().camera_hfov)
        tilt = camera_tilt(seating.markers, seating.width, seating.height, hfov, config.marker_mm)
    drawn = draw_seating(frame, seating)
    current_app.extensions["cacho.calibration"] = encode_jpeg(shrink(drawn, 1280), 85)
    return jsonify(
        seating=seating.to_dict(),
        markers=[m.seat for m in seating.markers],
        missing=list(seating.missing),
        problems=[p.to_dict() for p in seating.problems],
        tilt=None if tilt is None else tilt.to_dict(),
        image="/calibrate/last.jpg",
    )


@live_bp.route("/calibrate/last.jpg")
@coordinator_required
def calibration_image() -> Any:
    """The frame of the last marker search, drawn."""
    data = current_app.extensions.get("cacho.calibration")
    if data is None:
        return jsonify(error=t("Todavía no se buscaron marcadores")), 404
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@live_bp.route("/calibrate/zones", methods=["POST"])
@coordinator_required
def save_zones() -> Any:
    """Save seat zones drawn by hand (frame fractions) into the table's config file."""
    from vision.seats import ConfigError, parse_table_config, save_table_config

    data = request.get_json(silent=True)
    try:
        config = parse_table_config(data)
    except ConfigError as error:
        return jsonify(error=str(error)), 400
    path = table_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    save_table_config(path, config)
    return jsonify(ok=True, config=config.to_dict())


def draw_seating(frame: Any, seating: Any) -> Any:
    """The frame with the markers found, the seat zones and the table's region drawn."""
    import cv2
    import numpy as np

    out = frame.copy()
    scale = max(out.shape[:2]) / 1280
    thick = max(2, round(3 * scale))
    if seating.region is not None:
        cv2.polylines(out, [np.array(seating.region, np.int32)], True, (255, 255, 0), thick)
    for seat, zone in seating.zones.items():
        points = np.array(zone, np.int32)
        cv2.polylines(out, [points], True, (0, 200, 255), thick)
        x, y = points.mean(axis=0)
        cv2.putText(out, str(seat), (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 1.5 * scale, (0, 200, 255), thick)
    for marker in seating.markers:
        corners = np.array(marker.corners, np.int32)
        cv2.polylines(out, [corners], True, (60, 220, 60), thick)
        x, y = marker.center
        cv2.putText(
            out, f"{marker.seat}", (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 2 * scale, (60, 220, 60), thick * 2
        )
    return out
