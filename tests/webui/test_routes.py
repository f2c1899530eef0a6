"""Every route of the app answers, through forms (pages) and JSON (API)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine.record import GameRecord, score_record
from tests.webui.conftest import Api, make_app
from webui import shutdown
from webui.app import Services

PAGES = ["/", "/new", "/history", "/records", "/pin", "/games/1", "/static/game.js"]
API_GETS = ["/api/state", "/api/geometry", "/api/options/7", "/api/session", "/api/games",
            "/api/games/1"]  # fmt: skip


@pytest.mark.parametrize("path", PAGES)
def test_pages_answer(started: Api, path: str) -> None:
    response = started.client.get(path)
    assert response.status_code == 200
    if path != "/static/game.js":
        assert b"<html" in response.data
        assert b"Traceback" not in response.data
    response.close()


@pytest.mark.parametrize("path", API_GETS)
def test_api_reads_answer_json(started: Api, path: str) -> None:
    response = started.client.get(path)
    assert response.status_code == 200
    assert response.is_json


def test_live_page_embeds_the_state_and_the_board(started: Api) -> None:
    started.act("place", {"placement": "6:RRY5"})
    html = started.client.get("/").get_data(as_text=True)
    assert 'id="board"' in html and 'id="initial-state"' in html
    state = json.loads(html.split('id="initial-state" type="application/json">')[1].split("<")[0])
    assert state["totals"] == {"Ann": 5, "Bob": 0}
    assert 'name="csrf_token"' in html


def test_page_without_a_game_offers_a_new_one(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert "No game in progress" in html


def test_forms_play_a_game(api: Api) -> None:
    api.form("/new", {"player1": "Ann", "player2": "Bob", "player3": "", "first": "1"})
    assert api.state()["turn"] == "Bob"
    api.form("/act/place", {"placement": "6:RRY5"})
    api.form("/act/place", {"placement": "5:YPP5"})  # illegal: refused and shown
    alert = api.state()["alert"]
    assert alert["index"] == 5 and "purple" in alert["reason"]
    api.form("/act/takeback")
    assert api.state()["alert"] is None
    api.form("/act/place", {"placement": "5:BRR4"})
    api.form("/act/pass")
    api.form("/act/exchange")
    api.form("/act/fix", {"move": "2", "placement": "5:BRR4"})
    api.form("/act/undo")
    state = api.state()
    assert state["totals"] == {"Ann": 4, "Bob": 5}
    assert [row["text"] for row in state["log"]] == ["place 6 RRY5", "place 5 BRR4", "pass"]
    api.form("/act/finish", {"remaining1": "5 3", "remaining2": "RRY5"})
    state = api.state()
    assert state["finished"] and state["totals"] == {"Ann": -4, "Bob": 0}
    follow = api.client.post("/act/pass", data={"csrf_token": api.token}, follow_redirects=True)
    assert b"the game is over" in follow.data


def test_api_arithmetic_and_turns(started: Api) -> None:
    assert started.act("place", {"placement": "6:RRY5"})["message"] == "Ann: 5 (first tile) = 5"
    answer = started.act("place", {"index": 5, "tile": "BRR4", "rotation": 0})
    assert answer["state"]["log"][-1]["arithmetic"].endswith("= 4")
    assert answer["state"]["turn"] == "Ann"
    assert answer["state"]["bag"] == 36 - 2 - 8


def test_options_list_legal_rotations_first(started: Api) -> None:
    started.act("place", {"placement": "6:RRY5"})
    options = started.client.get("/api/options/5").json["options"]
    legal = [o for o in options if o["legal"]]
    assert legal and all(o["legal"] for o in options[: len(legal)])
    assert all(o["edges"]["right"] in ("red", "white") for o in legal)
    assert {o["tile"] for o in options} >= {"RRB4", "WWW1"}
    assert not any(o["tile"] == "RRY5" for o in options)  # on the board already


def test_fix_rescores_later_moves(started: Api) -> None:
    started.act("place", {"placement": "6:RRY5"})
    started.act("place", {"placement": "5:BRR4"})
    state = started.act("fix", {"move": 1, "placement": "6:GGR5"})["state"]
    assert state["log"][1]["legal"] is False  # BRR4 no longer matches a green edge
    assert state["totals"] == {"Ann": 5, "Bob": 0}
    assert "fixed" in state["notice"]


def test_teams_track_two_pegs_per_team(api: Api) -> None:
    api.act("new", {"players": ["Ann", "Bob", "Cid", "Dan"], "teams": True})
    api.act("place", {"placement": "6:RRY5"})
    api.act("place", {"placement": "5:BRR4"})
    api.act("pass")
    api.act("place", {"placement": "7:RRP5"})
    state = api.state()
    assert state["team_totals"] == {"Ann & Cid": 5, "Bob & Dan": 9}
    assert [(t["label"], t["rear"], t["front"]) for t in state["track"]] == [
        ("Ann & Cid", 0, 5),
        ("Bob & Dan", 4, 9),
    ]


def test_known_hands_draw_and_exchange(api: Api) -> None:
    hands = [["RRY5", "BBB6", "GGG6", "WWW1"], ["BRR4", "PPP6", "YYY6", "RRR6"]]
    api.act("new", {"players": ["Ann", "Bob"], "hands": hands})
    api.act("place", {"placement": "6:RRY5"})
    api.act("draw", {"player": "Ann", "tile": "GGB5"})
    state = api.state()
    assert state["hands"]["Ann"] == ["BBB6", "GGG6", "WWW1", "GGB5"]
    options = api.client.get("/api/options/5").json["options"]
    assert {o["tile"] for o in options} == {"RRB4", "PPP6", "YYY6", "RRR6"}
    answer = api.act("pass")  # Bob can play BRR4: the engine refuses the pass
    assert answer["message"].startswith("refused") and "may not pass" in answer["message"]


def test_solo_variant_has_a_timer(api: Api) -> None:
    api.form("/new", {"player1": "Ann", "player2": "Bob", "mode": "solo"})
    api.act("place", {"placement": "6:RRY5"})
    state = api.state()
    assert state["game"]["mode"] == "solo" and state["game"]["players"] == ["Ann"]
    assert state["solo"]["limit"] == 180 and state["solo"]["placed"] == 1
    assert state["solo"]["running"] is True
    api.act("finish")
    solo = api.state()["solo"]
    assert solo["running"] is False and solo["completed"] is False


def test_observe_seam_placement_uncertain_removal_status(started: Api) -> None:
    edges = {"left": "red", "right": "red", "base": "yellow"}
    first = {"frame": "0006.jpg", "type": "placement", "index": 6, "value": 5, "player": "Bob",
             "edges": edges, "legal": True, "score": 5}  # fmt: skip
    answer = started.post("/api/observe", first)
    assert answer["legal"] and answer["state"]["turn"] == "Ann"
    assert answer["state"]["camera"]["frame"] == "0006.jpg"
    # Ann does not play; Bob places again: Ann is taken to have passed.
    cands = [{"index": 5, "value": 4, "edges": {"left": "blue", "right": "red", "base": "red"}},
             {"index": 5, "value": 5, "edges": {"left": "yellow", "right": "purple",
                                                "base": "purple"}}]  # fmt: skip
    state = started.post(
        "/api/observe", {"type": "uncertain", "index": 5, "candidates": cands, "player": 1}
    )["state"]
    assert [c["legal"] for c in state["uncertain"]["candidates"]] == [True, False]
    state = started.act("pick", {"choice": 0})["state"]
    assert state["uncertain"] is None
    assert [r["text"] for r in state["log"]] == ["place 6 RRY5", "pass", "place 5 BRR4"]
    state = started.post("/api/observe", {"type": "removal", "index": 5})["state"]
    assert state["totals"] == {"Ann": 0, "Bob": 5}
    state = started.post("/api/observe", {"type": "status", "status": "covered"})["state"]
    assert state["camera"]["status"] == "covered"


def test_history_export_and_import_round_trip(started: Api) -> None:
    started.act("place", {"placement": "6:RRY5"})
    started.act("place", {"placement": "5:BRR4"})
    started.act("finish", {"remaining": {"Ann": [5, 3], "Bob": [6]}})
    exported = started.client.get("/games/1/record.json")
    assert exported.headers["Content-Disposition"].endswith("spectrangle-game-1.json")
    record = GameRecord.loads(exported.get_data(as_text=True))
    assert score_record(record).totals == {"Ann": -3, "Bob": -2}
    rows = list(csv.reader(io.StringIO(started.client.get("/games/1/record.csv").data.decode())))
    assert rows[0][:3] == ["move", "player", "type"]
    assert rows[2][:4] == ["2", "Bob", "place", "5"] and rows[2][10] == "4 x 1 edge = 4"
    assert rows[-1] == ["total", "Bob", "", "", "", "", "", "", "", "", "", "", "-2"]
    upload = started.client.post(
        "/import",
        data={"csrf_token": started.token, "record": (io.BytesIO(exported.data), "game.json")},
        content_type="multipart/form-data",
    )
    assert upload.status_code == 302
    games = started.client.get("/api/games").json["games"]
    assert games[0]["id"] == 2 and games[0]["source"] == "import"
    assert games[0]["totals"] == {"Ann": -3, "Bob": -2} and games[0]["status"] == "finished"
    answer = started.post("/api/import", record.to_json())
    assert answer["id"] == 3
    assert "#2" in started.client.get("/history").get_data(as_text=True)


def test_records_best_score_per_month(api: Api) -> None:
    for placements in (["6:RRY5"], ["6:RRR6", "5:RRR6"]):
        api.act("new", {"players": ["Ann", "Bob"]})
        for p in placements:
            api.act("place", {"placement": p})
        api.act("finish")
    html = api.client.get("/records").get_data(as_text=True)
    assert "Best scores of the month" in html
    month_rows = html.split("<tbody>")[1]
    assert month_rows.index("Ann") < month_rows.index("Bob")
    assert ">6<" in month_rows and ">5<" not in month_rows  # Ann's best of 5 and 6


def test_resume_makes_an_old_game_current(started: Api) -> None:
    started.act("place", {"placement": "6:RRY5"})
    started.act("new", {"players": ["Cid", "Dan"]})
    started.form("/games/1/resume")
    assert started.state()["game"]["id"] == 1 and started.state()["totals"]["Ann"] == 5


def test_stream_sends_state_then_heartbeats(tmp_path: Path) -> None:
    app = make_app(tmp_path / "s.sqlite3", HEARTBEAT=0.01)
    try:
        response = app.test_client().get("/stream")
        assert response.mimetype == "text/event-stream"
        chunks = iter(response.response)
        first = next(chunks)
        assert isinstance(first, bytes) and first.startswith(b"event: state\ndata: {")
        assert json.loads(first.split(b"data: ")[1])["game"] is None
        assert next(chunks) == b": heartbeat\n\n"
        response.close()
        assert services_of(app).hub.listeners == 0
    finally:
        shutdown(app)


def services_of(app: Flask) -> Services:
    found: Services = app.extensions["spectrangle"]
    return found
