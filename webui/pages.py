"""The HTML pages: the live game, new game, history, a stored game, records; the forms.

Forms post here and are redirected back (post/redirect/get); the live page then follows
the game through the event stream.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from flask import (
    Blueprint,
    Response,
    flash,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from engine import SPECTRANGLE36
from engine.variant import load_variant
from webui import security
from webui.actions import ACTIONS, check_fields, text
from webui.app import services, table
from webui.drawing import geometry_json
from webui.errors import ForbiddenError, InputError, NotFoundError
from webui.session import build_state
from webui.store import GameMeta

log = logging.getLogger(__name__)
bp = Blueprint("pages", __name__)


def _form() -> dict[str, Any]:
    return {k: v for k, v in request.form.items()}


def _back(default: str = "pages.index") -> BaseResponse:
    return redirect(url_for(default))


@bp.get("/")
def index() -> str:
    t = table()
    variant = t.game.variant if t.game is not None else SPECTRANGLE36
    return render_template(
        "game.html",
        state=t.state(),
        geometry=geometry_json(variant),
        live=True,
        players=list(t.game.players) if t.game is not None else [],
        hands_known=t.game is not None and t.game.hands_known,
    )


@bp.get("/new")
def new_form() -> str:
    return render_template("new.html")


@bp.post("/new")
def new_game() -> BaseResponse:
    flash(ACTIONS["new"](table(), _form()))
    return _back()


@bp.post(f"/act/<any({','.join(a for a in ACTIONS if a != 'new')}):name>")
def act(name: str) -> BaseResponse:
    action = ACTIONS.get(name)
    if action is None or name == "new":
        raise NotFoundError(f"there is no action {name!r}")
    flash(action(table(), _form()))
    return _back()


@bp.get("/pin")
def pin_form() -> str:
    return render_template("pin.html")


@bp.post("/pin")
def enter_pin() -> BaseResponse:
    data = _form()
    check_fields(data, {"pin"})
    if not security.check_pin(text(data, "pin", max_len=12)):
        raise ForbiddenError("wrong table PIN")
    flash("PIN accepted: this device may now change the game")
    return _back()


@bp.get("/history")
def history() -> str:
    return render_template("history.html", games=table().store.games(), current=table().game_id)


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    t = table()
    meta, g = t.stored(game_id)
    state = build_state(meta, g, t.clock())
    state.update(live=False, alert=None, uncertain=None, camera=None, notice="", version=0)
    return render_template(
        "game.html",
        state=state,
        geometry=geometry_json(load_variant(meta.variant)),
        live=False,
        players=list(g.players),
        hands_known=False,
    )


@bp.get("/games/<int:game_id>/record.json")
def export_json(game_id: int) -> Response:
    body = table().export_record(game_id)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f"attachment; filename=spectrangle-game-{game_id}.json"},
    )


@bp.get("/games/<int:game_id>/record.csv")
def export_csv(game_id: int) -> Response:
    body = table().export_csv(game_id)
    return Response(
        body,
        mimetype="text/csv",
        headers={"Content-Disposition": f"attachment; filename=spectrangle-game-{game_id}.csv"},
    )


@bp.post("/games/<int:game_id>/resume")
def resume(game_id: int) -> BaseResponse:
    check_fields(_form(), set())
    table().load(game_id)
    flash(f"game {game_id} is the current game again")
    return _back()


@bp.post("/import")
def import_record() -> BaseResponse:
    check_fields(_form(), set(), {"record"})
    upload = request.files.get("record")
    if upload is not None and upload.filename:
        raw = upload.read()
    else:
        raw = str(request.form.get("record", "")).encode()
    if not raw.strip():
        raise InputError("choose a JSON game record to import", "record")
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("the file is not UTF-8 text (a JSON game record)", "record") from None
    game_id = table().import_record(content)
    flash(f"imported as game {game_id}")
    return redirect(url_for("pages.history"))


def best_by_month(games: list[GameMeta | Any]) -> dict[str, list[dict[str, Any]]]:
    """Per month, each player's best finished score (highest first); demos left out."""
    best: dict[str, dict[tuple[str, str], dict[str, Any]]] = defaultdict(dict)
    for meta in games:
        if not isinstance(meta, GameMeta) or meta.status != "finished" or meta.source == "demo":
            continue
        month = meta.created[:7]
        for name, total in meta.totals.items():
            key = (name, meta.mode)
            row = best[month].get(key)
            if row is None or total > row["score"]:
                best[month][key] = {"player": name, "score": total, "game": meta.id,
                                    "mode": meta.mode}  # fmt: skip
    return {
        month: sorted(rows.values(), key=lambda r: (-r["score"], r["player"]))
        for month, rows in sorted(best.items(), reverse=True)
    }


@bp.get("/records")
def records() -> str:
    return render_template("records.html", months=best_by_month(table().store.games()))


@bp.get("/camera/frame/<path:name>")
def camera_frame(name: str) -> Response:
    script = services().script
    if script is None or script.frames is None:
        raise NotFoundError("there is no camera frame to show")
    return send_from_directory(script.frames, name, max_age=3600)


@bp.get("/camera/live.jpg")
def camera_live() -> Response:
    """The latest camera view with the fitted lattice (the page reloads it a few times a second)."""
    live = services().live
    jpeg = live.jpeg() if live is not None else None
    if jpeg is None:
        raise NotFoundError("there is no live camera view (yet)")
    response = Response(jpeg, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store, max-age=0"
    return response
