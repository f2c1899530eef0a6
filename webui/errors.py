"""The web app's errors and the one handler that maps every error to an HTTP answer.

Domain errors (the engine's :class:`~engine.errors.SpectrangleError` family, bad form
fields, a damaged database row) become HTTP 400 with a clear message; a refused write
(CSRF, PIN) becomes 403; unknown pages 404; wrong methods 405. The API answers JSON, the
pages answer a page. No traceback ever reaches the user: an unexpected exception is
logged and answered with a short 500 message.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from engine.errors import SpectrangleError

log = logging.getLogger(__name__)


class WebError(ValueError):
    """A request the app refuses; ``status`` is the HTTP status to answer with."""

    status = 400

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class InputError(WebError):
    """A form field or JSON member that is missing, unexpected or malformed."""


class NotFoundError(WebError):
    """An unknown game or resource."""

    status = 404


class ForbiddenError(WebError):
    """A write without a valid CSRF token, or from another device without the table PIN."""

    status = 403


class StoreError(WebError):
    """A stored game or event that cannot be read back (a damaged or edited database)."""


def _wants_json() -> bool:
    path = request.path
    if path.startswith("/api/") or path.startswith("/stream"):
        return True
    return request.accept_mimetypes.best == "application/json"


def _answer(status: int, title: str, message: str, field: str | None = None) -> Response:
    if _wants_json():
        body: dict[str, Any] = {"error": message, "status": status}
        if field is not None:
            body["field"] = field
        response = jsonify(body)
    else:
        html = render_template("error.html", status=status, title=title, message=message)
        response = Response(html, mimetype="text/html")
    response.status_code = status
    return response


def handle_error(exc: Exception) -> Response:
    """The one error handler of the app (registered for every exception)."""
    if isinstance(exc, WebError):
        log.info("refused %s %s: %s", request.method, request.path, exc)
        title = {403: "Not allowed", 404: "Not found", 503: "Busy"}.get(exc.status, "Bad request")
        return _answer(exc.status, title, str(exc), exc.field)
    if isinstance(exc, SpectrangleError):
        log.info("refused %s %s: %s", request.method, request.path, exc)
        return _answer(400, "Bad request", str(exc))
    if isinstance(exc, HTTPException):
        code = exc.code or 500
        messages = {
            404: f"there is no page {request.path}",
            405: f"{request.method} is not allowed on {request.path}",
            413: "the upload is too large",
        }
        return _answer(code, exc.name, messages.get(code, exc.description or exc.name))
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _answer(500, "Internal error", "something went wrong on the server; see its log")


def init_app(app: Flask) -> None:
    app.register_error_handler(Exception, handle_error)
