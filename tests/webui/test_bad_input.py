"""Bad input anywhere gets a clear message (JSON for the API, a page for HTML), never a
traceback; writes need the CSRF token, and from another device the table PIN."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.webui.conftest import REMOTE, Api, make_app
from webui import shutdown

# (action, JSON body, status, words of the message)
API_CASES: list[tuple[str, Any, int, str]] = [
    ("new", {"players": ["Ann"]}, 400, "2 to 4 players"),
    ("new", {"players": ["Ann", "Ann"]}, 400, "distinct"),
    ("new", {"players": ["Ann", "Bob", "Cid"], "teams": True}, 400, "four names"),
    ("new", {"players": "Ann,Bob"}, 400, "list of names"),
    ("new", {"players": ["Ann", "Bob"], "colour": "red"}, 400, "unexpected field colour"),
    ("new", {"players": ["Ann", "Bob"], "first": 7}, 400, "first must be between 0 and 1"),
    ("new", {"players": ["Ann", "Bob"], "first": "x"}, 400, "whole number"),
    ("new", {"players": ["Ann", "Bob"], "mode": "blitz"}, 400, "normal or solo"),
    ("new", {"players": ["Ann", "Bob"], "teams": "maybe"}, 400, "on or off"),
    ("new", {"players": ["Ann", "Bob"], "hands": [["RRY5"]]}, 400, "every player's hand"),
    ("new", {"players": ["Ann", "Bob"], "hands": [["RRY5"], ["RRY5"]]}, 400, "two hands"),
    ("new", {"players": ["Ann", "Bob"], "hands": [["XYZ9"], ["RRY5"]]}, 400, "colour letter"),
    ("new", {"players": ["A" * 40, "Bob"]}, 400, "1 to 30 characters"),
    ("place", {}, 400, "missing field"),
    ("place", {"placement": "20:RBY1", "index": 3}, 400, "unexpected field index"),
    ("place", {"placement": 20}, 400, "must be text"),
    ("place", {"placement": "banana"}, 400, "not a placement"),
    ("place", {"placement": "6:RRY5", "extra": 1}, 400, "unexpected field extra"),
    ("place", {"index": 99, "tile": "RRY5", "rotation": 0}, 400, "no cell 99"),
    ("place", {"index": 6, "tile": "RRR6", "rotation": 2}, 400, "1 distinct rotation"),
    ("place", {"index": 6, "tile": "QQQ1", "rotation": 0}, 400, "colour letter"),
    ("place", {"index": 6, "tile": "RRY9", "rotation": 0}, 400, "no tile RRY9"),
    ("place", {"index": True, "tile": "RRY5", "rotation": 0}, 400, "whole number"),
    ("pass", {"now": True}, 400, "unexpected field now"),
    ("undo", {}, 400, "nothing to undo"),
    ("takeback", {}, 400, "no illegal tile"),
    ("fix", {"move": 1, "placement": "6:RRY5"}, 400, "no moves to fix"),
    ("fix", {"move": 1}, 400, "missing field placement"),
    ("finish", {"remaining": {"Zed": [5]}}, 400, "not a player"),
    ("finish", {"remaining": {"Ann": "lots"}}, 400, "colour letter"),
    ("finish", {"remaining": {"Ann": [{}]}}, 400, "not a tile value"),
    ("finish", {"remaining": [5]}, 400, "must be an object"),
    ("draw", {"player": "Ann", "tile": "RRY5"}, 400, "only when hands are known"),
    ("exchange", {"returned": "nope"}, 400, "not a tile"),
    ("pick", {"choice": 0}, 400, "no uncertain reading"),
    ("pick", {"choice": "first"}, 400, "whole number"),
    ("observe", {"type": "teleport"}, 400, "unknown tracker event type"),
    ("observe", {"type": "placement", "index": 6}, 400, "value must be a whole number"),
    ("observe", {"type": "placement", "index": 6, "value": 5, "edges": "red"}, 400, "edges"),
    (
        "observe",
        {
            "type": "placement",
            "index": 6,
            "value": 5,
            "player": "Zed",
            "edges": {"left": "red", "right": "red", "base": "yellow"},
        },
        400,
        "no player",
    ),
    ("observe", {"type": "status", "status": "on fire"}, 400, "camera status"),
    ("observe", {"type": "uncertain", "index": 3, "candidates": []}, 400, "candidates"),
    ("observe", {"type": "removal"}, 400, "index must be a whole number"),
    ("import", {"players": ["Ann"], "moves": "all"}, 400, "field 'moves'"),
    (
        "import",
        {"players": ["Ann", "Bob"], "moves": [{"player": "Cid", "type": "pass"}]},
        400,
        "move 1",
    ),
]


@pytest.mark.parametrize(("action", "body", "status", "words"), API_CASES)
def test_api_refuses_bad_fields_clearly(
    started: Api, action: str, body: Any, status: int, words: str
) -> None:
    path = "/api/observe" if action == "observe" else f"/api/{action}"
    answer = started.post(path, body, status=status)
    assert words in answer["error"], answer
    assert started.state()["totals"] == {"Ann": 0, "Bob": 0}  # nothing changed


@pytest.mark.parametrize(
    ("body", "content_type", "words"),
    [
        (b"{not json", "application/json", "not valid JSON"),
        (b"[1, 2]", "application/json", "JSON object, not list"),
        (b"placement=6:RRY5", "text/plain", "send JSON"),
    ],
)
def test_api_refuses_bad_json(started: Api, body: bytes, content_type: str, words: str) -> None:
    response = started.client.post(
        "/api/place", data=body, content_type=content_type, headers={"X-CSRF-Token": started.token}
    )
    assert response.status_code == 400 and words in response.json["error"]


FORM_CASES: list[tuple[str, dict[str, str], str]] = [
    ("/new", {"player1": "", "player2": ""}, "at least one player"),
    ("/new", {"player1": "Ann", "player2": "Bob", "hand1": "RRY5"}, "every player&#39;s hand"),
    ("/new", {"player1": "Ann", "player2": "Bob", "first": "3"}, "between 0 and 1"),
    ("/act/place", {"placement": "6:RRY5;DROP TABLE"}, "not a placement"),
    ("/act/place", {}, "missing field"),
    ("/act/fix", {"move": "one", "placement": "6:RRY5"}, "whole number"),
    ("/act/finish", {"remaining1": "five"}, "not a tile"),
    ("/act/finish", {"remaining9": "5"}, "unexpected field remaining9"),
    ("/act/pick", {"choice": "0"}, "no uncertain reading"),
    ("/pin", {"pin": "1234"}, "wrong table PIN"),
    ("/import", {"record": "{]"}, "not JSON"),
    ("/import", {"record": ""}, "choose a JSON game record"),
    ("/games/1/resume", {"now": "1"}, "unexpected field now"),
]


@pytest.mark.parametrize(("path", "fields", "words"), FORM_CASES)
def test_forms_refuse_bad_fields_with_a_page(
    started: Api, path: str, fields: dict[str, str], words: str
) -> None:
    response = started.form(path, fields, status=403 if path == "/pin" else 400)
    page = response.get_data(as_text=True)
    assert response.mimetype == "text/html" and words in page
    assert "Traceback" not in page


def test_import_of_a_binary_upload_is_refused(started: Api) -> None:
    import io

    response = started.client.post(
        "/import",
        data={"csrf_token": started.token, "record": (io.BytesIO(b"\xff\xfe\x00"), "x.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 400 and b"not UTF-8" in response.data


@pytest.mark.parametrize(
    "path",
    ["/games/99", "/games/99/record.json", "/games/99/record.csv", "/api/games/99"],
)
def test_unknown_game_ids_are_404(started: Api, path: str) -> None:
    response = started.client.get(path)
    assert response.status_code == 404 and b"no game 99" in response.data


def test_unknown_pages_and_methods(started: Api) -> None:
    assert started.client.get("/nowhere").status_code == 404
    assert b"no page /nowhere" in started.client.get("/nowhere").data
    assert started.client.get("/api/nowhere").json["status"] == 404
    response = started.client.get("/api/place")
    assert response.status_code == 405 and "GET is not allowed" in response.json["error"]
    assert started.client.delete("/").status_code == 405
    assert started.post("/api/launch", {}, status=404)["error"]
    assert started.client.get("/camera/frame/0001.jpg").status_code == 404


POSTS = [
    "/new", "/act/place", "/act/pass", "/act/undo", "/act/takeback", "/act/finish", "/act/fix",
    "/act/exchange", "/act/pick", "/act/dismiss", "/act/draw", "/pin", "/import",
    "/games/1/resume", "/api/new", "/api/place", "/api/pass", "/api/observe", "/api/import",
    "/api/pin", "/api/undo",
]  # fmt: skip


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize("given", [None, "forged"])
def test_every_post_needs_the_csrf_token(started: Api, path: str, given: str | None) -> None:
    data = {"placement": "6:RRY5", "pin": "0000"}
    if given is not None:
        data["csrf_token"] = given
    response = started.client.post(path, data=data)
    assert response.status_code == 403
    assert b"CSRF" in response.data
    headers = {} if given is None else {"X-CSRF-Token": given}
    assert started.client.post(path, json={}, headers=headers).status_code == 403
    assert started.state()["log"] == []


@pytest.fixture
def remote(db_path: object) -> Any:
    app = make_app(db_path, PIN="4321")  # type: ignore[arg-type]
    yield app
    shutdown(app)


def test_remote_devices_need_the_pin(remote: Any) -> None:
    host = remote.test_client()
    host_token = host.get("/api/session").json["csrf_token"]
    answer = host.post("/api/new", json={"players": ["Ann", "Bob"]},
                       headers={"X-CSRF-Token": host_token})  # fmt: skip
    assert answer.status_code == 200  # the host (127.0.0.1) needs no PIN
    assert b"4321" in host.get("/").data  # ... and sees it

    phone: FlaskClient = remote.test_client()
    phone.environ_base.update(REMOTE)
    assert b"4321" not in phone.get("/").data
    session = phone.get("/api/session").json
    assert session["pin_required"] is True and session["local"] is False
    headers = {"X-CSRF-Token": session["csrf_token"]}
    refused = phone.post("/api/place", json={"placement": "6:RRY5"}, headers=headers)
    assert refused.status_code == 403 and "table PIN" in refused.json["error"]
    form = phone.post("/act/pass", data={"csrf_token": session["csrf_token"]})
    assert form.status_code == 403 and b"table PIN" in form.data
    wrong = phone.post("/api/pin", json={"pin": "1111"}, headers=headers)
    assert wrong.status_code == 403
    assert phone.post("/api/pin", json={"pin": "4321"}, headers=headers).status_code == 200
    placed = phone.post("/api/place", json={"placement": "6:RRY5"}, headers=headers)
    assert placed.status_code == 200 and placed.json["state"]["totals"]["Ann"] == 5


def test_remote_pin_by_form(remote: Any) -> None:
    phone: FlaskClient = remote.test_client()
    phone.environ_base.update(REMOTE)
    token = phone.get("/api/session").json["csrf_token"]
    assert b"Enter the table PIN" in phone.get("/").data
    response = phone.post("/pin", data={"csrf_token": token, "pin": "4321"})
    assert response.status_code == 302
    assert phone.get("/api/session").json["pin_required"] is False
