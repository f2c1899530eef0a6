"""The JSON API: the state, the cells' options, the players' actions, the tracker's seam.

Writes need the ``X-CSRF-Token`` header (from ``GET /api/session``) and, from another
device when the server is open to the network, the table PIN (``POST /api/pin``).
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, jsonify, request

from webui import security
from webui.actions import ACTIONS, check_fields, text
from webui.app import table
from webui.drawing import geometry_json
from webui.errors import ForbiddenError, InputError, NotFoundError
from webui.session import build_state

log = logging.getLogger(__name__)
bp = Blueprint("api", __name__, url_prefix="/api")


def body() -> dict[str, Any]:
    """The request's JSON object (an empty object for an empty body)."""
    if not request.data:
        return {}
    if not request.is_json:
        raise InputError("send JSON (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if data is None:
        raise InputError("the body is not valid JSON")
    if not isinstance(data, dict):
        raise InputError(f"the body must be a JSON object, not {type(data).__name__}")
    return data


@bp.get("/session")
def session_info() -> Response:
    return jsonify(
        csrf_token=security.csrf_token(),
        local=security.is_local(),
        pin_required=security.pin_required(),
    )


@bp.post("/pin")
def enter_pin() -> Response:
    data = body()
    check_fields(data, {"pin"})
    if not security.check_pin(text(data, "pin", max_len=12)):
        raise ForbiddenError("wrong table PIN")
    return jsonify(message="PIN accepted")


@bp.get("/state")
def state() -> Response:
    return jsonify(table().state())


@bp.get("/geometry")
def geometry() -> Response:
    t = table()
    from engine import SPECTRANGLE36

    variant = t.game.variant if t.game is not None else SPECTRANGLE36
    return jsonify(geometry_json(variant))


@bp.get("/options/<int:index>")
def options(index: int) -> Response:
    return jsonify(index=index, options=table().options(index))


@bp.post("/observe")
def observe() -> Response:
    t = table()
    outcome = t.observe(body())
    result: dict[str, Any] = {"state": t.state()}
    if outcome is not None:
        result.update(legal=outcome.legal, points=outcome.points, reason=outcome.reason)
    return jsonify(result)


@bp.post(f"/<any({','.join(ACTIONS)}):name>")
def act(name: str) -> Response:
    action = ACTIONS.get(name)
    if action is None:
        raise NotFoundError(f"there is no action {name!r} ({', '.join(sorted(ACTIONS))})")
    t = table()
    message = action(t, body())
    return jsonify(message=message, state=t.state())


@bp.get("/games")
def games() -> Response:
    out = []
    for meta in table().store.games():
        if isinstance(meta, Exception):
            out.append({"error": str(meta)})
            continue
        out.append(
            {
                "id": meta.id,
                "created": meta.created,
                "players": list(meta.players),
                "mode": meta.mode,
                "source": meta.source,
                "status": meta.status,
                "totals": meta.totals,
            }
        )
    return jsonify(games=out)


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> Response:
    t = table()
    meta, g = t.stored(game_id)
    return jsonify(build_state(meta, g, t.clock()))


@bp.post("/import")
def import_record() -> Response:
    import json

    t = table()
    game_id = t.import_record(json.dumps(body()))
    return jsonify(id=game_id, message=f"imported as game {game_id}")
