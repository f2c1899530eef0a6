"""Storage: every event is committed at once, the game resumes after a kill, and a
damaged row gives a clear error without losing anything else."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest

from tests.webui.conftest import Api, make_app
from webui import shutdown
from webui.errors import StoreError
from webui.store import GameMeta, Store

ROOT = Path(__file__).resolve().parents[2]
VOLATILE = ("version", "server_time", "notice", "camera")


def stable(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in VOLATILE}


def play_some(api: Api) -> None:
    api.act("new", {"players": ["Ann", "Bob", "Cid"], "first": 1})
    for p in ("6:RRY5", "5:BRR4", "5:YPP5"):  # the last one is illegal (kept, Cid's alert)
        api.act("place", {"placement": p})


def test_store_is_a_wal_sqlite_file_with_games_and_events(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    gid = store.create_game(GameMeta(players=("Ann", "Bob"), teams=None))
    store.append_event(gid, {"type": "pass", "player": 0}, {"Ann": 0, "Bob": 0})
    store.close()
    with sqlite3.connect(tmp_path / "g.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"games", "events"} <= tables
        row = db.execute("SELECT game_id, seq, event FROM events").fetchone()
    db.close()
    assert row == (gid, 0, '{"type": "pass", "player": 0}')


def test_resume_after_dropping_the_app(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    app = make_app(db)
    api = Api(app.test_client(), "")
    api.token = api.client.get("/api/session").json["csrf_token"]
    play_some(api)
    before = stable(api.state())
    assert before["alert"] is not None
    shutdown(app)
    del app, api
    again = make_app(db)
    try:
        after = stable(again.test_client().get("/api/state").json)
    finally:
        shutdown(again)
    assert after == before


def test_a_damaged_event_is_reported_and_the_rest_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    app = make_app(db)
    api = Api(app.test_client(), "")
    api.token = api.client.get("/api/session").json["csrf_token"]
    api.act("new", {"players": ["Ann", "Bob"]})
    api.act("place", {"placement": "6:RRY5"})
    api.act("new", {"players": ["Cid", "Dan"]})
    api.act("place", {"placement": "6:RRY5"})
    shutdown(app)
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE events SET event = '{\"type\": \"place\", \"player\": 0, "
                    "\"placement\": \"oops\"}' WHERE game_id = 2")  # fmt: skip
    raw.close()
    app = make_app(db)
    try:
        client = app.test_client()
        state = client.get("/api/state").json
        assert state["game"] is None and "game 2, event 0" in state["load_error"]
        assert "not a placement" in state["load_error"]
        assert b"game 2, event 0" in client.get("/").data
        page = client.get("/games/2")
        assert page.status_code == 400 and b"game 2, event 0" in page.data
        assert client.get("/games/1").status_code == 200
        assert client.get("/api/games").json["games"][1]["totals"] == {"Ann": 5, "Bob": 0}
    finally:
        shutdown(app)


def test_damaged_rows_in_the_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    gid = store.create_game(GameMeta(players=("Ann", "Bob")))
    store._db.execute("INSERT INTO events VALUES (?, 0, 'not json', 'now')", (gid,))
    with pytest.raises(StoreError, match=r"game 1, event 0: not JSON"):
        store.events(gid)
    store._db.execute("UPDATE games SET players = '\"Ann\"' WHERE id = ?", (gid,))
    listed = store.games()
    assert isinstance(listed[0], StoreError) and "players" in str(listed[0])
    store.close()
    (tmp_path / "junk.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not a usable games database"):
        Store(tmp_path / "junk.sqlite3")


# -- the real thing: a server process killed with SIGKILL ------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Http:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.token = ""

    def get(self, path: str) -> Any:
        with self.opener.open(self.base + path, timeout=5) as response:
            return json.loads(response.read())

    def post(self, path: str, data: Any) -> Any:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(data).encode(),
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.token},
        )
        with self.opener.open(request, timeout=5) as response:
            return json.loads(response.read())


def start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "spectrangle.cli", "serve", "--no-demo", "--port", str(port),
           "--db", str(db)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            Http(port).get("/api/state")
            return proc
        except (urllib.error.URLError, ConnectionError, OSError):
            if proc.poll() is not None:
                raise AssertionError(proc.communicate()[1].decode()) from None
            time.sleep(0.1)
    proc.kill()
    proc.communicate()
    raise AssertionError("the server did not start")


def kill(proc: subprocess.Popen[bytes]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    if proc.stdout:
        proc.stdout.close()
    if proc.stderr:
        proc.stderr.close()


def test_resume_after_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    port = free_port()
    proc = start_server(db, port)
    try:
        http = Http(port)
        http.token = http.get("/api/session")["csrf_token"]
        http.post("/api/new", {"players": ["Ann", "Bob"], "first": 0})
        for p in ("6:RRY5", "5:BRR4", "7:RRP5", "4:YPP5"):
            http.post("/api/place", {"placement": p})
        http.post("/api/pass", {})
        before = stable(http.get("/api/state"))
    finally:
        kill(proc)
    assert before["totals"] == {"Ann": 10, "Bob": 4} and len(before["log"]) == 5
    proc = start_server(db, port)
    try:
        after = stable(Http(port).get("/api/state"))
    finally:
        kill(proc)
    assert after == before
