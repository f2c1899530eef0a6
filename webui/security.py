"""Cross-site request protection and the table PIN.

Every session gets a random CSRF token; every POST must carry it (form field
``csrf_token`` or header ``X-CSRF-Token``). When the server listens beyond loopback,
changing the game from another device also needs the table PIN, shown on the host's
screen; once entered, the session cookie remembers it.
"""

from __future__ import annotations

import hmac
import logging
import secrets

from flask import Flask, current_app, request, session

from webui.errors import ForbiddenError

log = logging.getLogger(__name__)

LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1", "localhost"})
#: Posts that need no PIN (entering the PIN itself).
PIN_FREE = frozenset({"pages.enter_pin", "api.enter_pin"})


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def is_local() -> bool:
    return (request.remote_addr or "") in LOCAL_ADDRESSES


def pin_required() -> bool:
    """Whether this request may change the game only after entering the PIN."""
    pin = current_app.config.get("PIN")
    return bool(pin) and not is_local() and not session.get("pin_ok")


def check_pin(entered: str) -> bool:
    pin = str(current_app.config.get("PIN") or "")
    ok = bool(pin) and hmac.compare_digest(entered.strip(), pin)
    if ok:
        session["pin_ok"] = True
    else:
        log.warning("wrong table PIN from %s", request.remote_addr)
    return ok


def _protect() -> None:
    if request.method in ("GET", "HEAD", "OPTIONS") or request.routing_exception is not None:
        return  # reads are free; unknown routes and methods get their 404/405
    expected = session.get("csrf")
    given = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
    if not isinstance(expected, str) or not given or not hmac.compare_digest(given, expected):
        raise ForbiddenError(
            "this request did not carry the page's security token (CSRF check failed): "
            "reload the page and try again"
        )
    if request.endpoint not in PIN_FREE and pin_required():
        raise ForbiddenError("changing the game from this device needs the table PIN")


def new_pin(rng: secrets.SystemRandom | None = None) -> str:
    """A random 4-digit PIN."""
    rng = rng or secrets.SystemRandom()
    return f"{rng.randrange(10_000):04d}"


def init_app(app: Flask) -> None:
    app.before_request(_protect)

    @app.context_processor
    def _inject() -> dict[str, object]:
        return {
            "csrf_token": csrf_token,
            "is_local": is_local,
            "pin_required": pin_required,
            "table_pin": app.config.get("PIN"),
        }
