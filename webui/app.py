"""The application factory (flaskr style) and its services.

>>> app = create_app({"DATABASE": ":memory:", "TESTING": True})
>>> state = app.test_client().get("/api/state").json
>>> state["game"], state["camera"]["status"]
(None, 'no camera')
>>> shutdown(app)
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from webui import errors, security
from webui.broadcast import Broadcaster
from webui.demo import DemoPlayer, DemoScript, start_demo
from webui.live import LiveCalibration, LiveWorker, start_camera
from webui.session import Table
from webui.store import Store

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "DATABASE": None,  # default: <instance path>/games.sqlite3
    "PIN": None,  # the table PIN; set when the server listens beyond loopback
    "DEMO": False,  # play back the sample game
    "DEMO_SPEED": None,  # seconds a frame (live demo, 0.4) or between events (playback, 1.5)
    "DEMO_DIR": None,  # default: sample_images/game
    "DEMO_TRACKER": True,  # follow the demo's frames with the tracker (else play events back)
    "LIVE_SOURCE": None,  # a camera, video, folder or URL (spec or opened source) to track
    "LIVE_PLAYERS": None,  # names for a new tracked game (default: resume the last one)
    "LIVE_CALIBRATION": None,  # the live camera's calibration profile (a path or LiveCalibration)
    "HEARTBEAT": 15.0,  # seconds between SSE heartbeats
    "MAX_LISTENERS": 64,
    "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SESSION_COOKIE_HTTPONLY": True,
}


@dataclass
class Services:
    """What the app shares between requests (one per app)."""

    store: Store
    hub: Broadcaster
    table: Table
    demo: DemoPlayer | None = None
    script: DemoScript | None = None
    live: LiveWorker | None = None


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=False)
    app.config.update(DEFAULTS)
    if config:
        app.config.update(config)
    db_path = app.config["DATABASE"] or str(Path(app.instance_path) / "games.sqlite3")
    app.config["DATABASE"] = db_path
    store = Store(db_path)
    if not app.config.get("SECRET_KEY"):
        # Kept in the database so sessions (CSRF token, PIN) survive a restart.
        key = store.meta("secret_key")
        if key is None:
            key = secrets.token_hex(32)
            store.set_meta("secret_key", key)
        app.config["SECRET_KEY"] = key
    hub = Broadcaster(
        heartbeat=float(app.config["HEARTBEAT"]), max_listeners=int(app.config["MAX_LISTENERS"])
    )
    table = Table(store, hub)
    services = Services(store, hub, table)
    app.extensions["spectrangle"] = services

    errors.init_app(app)
    security.init_app(app)
    from webui import api, calibration, pages, stream

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(calibration.bp)

    if app.config["LIVE_SOURCE"] is not None:
        calibration = app.config["LIVE_CALIBRATION"]
        if calibration is not None and not isinstance(calibration, LiveCalibration):
            calibration = LiveCalibration.load(calibration)
        services.live = start_camera(
            table, app.config["LIVE_SOURCE"], app.config["LIVE_PLAYERS"], calibration
        )
    elif app.config["DEMO"]:
        start_demo(services, app.config)
    else:
        table.resume_latest()
    return app


def services() -> Services:
    found: Services = current_app.extensions["spectrangle"]
    return found


def table() -> Table:
    return services().table


def shutdown(app: Flask) -> None:
    """Stop the demo, end the streams and close the database (tests, server exit)."""
    found: Services | None = app.extensions.get("spectrangle")
    if found is None:
        return
    if found.demo is not None:
        found.demo.stop()
    if found.live is not None:
        found.live.stop()
    found.hub.close()
    found.store.close()
