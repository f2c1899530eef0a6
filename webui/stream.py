"""The live event stream (server-sent events) that keeps every page up to date."""

from __future__ import annotations

import json

from flask import Blueprint, Response

from webui.app import services
from webui.broadcast import TooManyListenersError
from webui.errors import WebError

bp = Blueprint("stream", __name__)


class BusyError(WebError):
    status = 503


@bp.get("/stream")
def stream() -> Response:
    found = services()
    first = f"event: state\ndata: {json.dumps(found.table.state())}\n\n"
    try:
        chunks = found.hub.listen(first=first)
    except TooManyListenersError:
        raise BusyError("too many pages are watching; try again later") from None
    response = Response(chunks, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
