"""Demo playback (events.json, record.json, built-in) and the ``spectrangle serve`` flags.

The live demo (the frames followed by the tracker) is tested in ``test_live.py``; here
``DEMO_TRACKER`` is off so that a folder with a frame in it is still played back.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.record import GameRecord, score_record
from spectrangle.cli import main
from tests.webui.conftest import make_app
from webui import shutdown
from webui.app import Services
from webui.demo import builtin_record, events_from_record, load_script
from webui.drawing import hole_for, track_holes
from webui.serve_cli import is_loopback


def run_demo(tmp_path: Path, folder: Path) -> dict[str, object]:
    app = make_app(
        tmp_path / "d.sqlite3", DEMO=True, DEMO_SPEED=0.0, DEMO_DIR=str(folder), DEMO_TRACKER=False
    )
    try:
        services: Services = app.extensions["spectrangle"]
        assert services.demo is not None
        deadline = time.monotonic() + 20
        while not services.demo.done and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.05)
        state: dict[str, object] = app.test_client().get("/api/state").json
        return state
    finally:
        shutdown(app)


def test_builtin_demo_scores_like_spectrangle_score(tmp_path: Path) -> None:
    state = run_demo(tmp_path, tmp_path / "nothing-here")
    expected = score_record(builtin_record())
    assert state["finished"] is True
    assert state["totals"] == expected.totals
    assert state["camera"]["message"].startswith("demo finished (built-in)")  # type: ignore[index]


def test_record_demo_with_tile_notations_left_in_hands(tmp_path: Path) -> None:
    record = builtin_record().to_json()
    names = iter(["RRY5", "BBB6", "PPP6", "GGG6"])
    record["remaining"] = {name: [next(names)] for name in record["players"]}
    (tmp_path / "record.json").write_text(json.dumps(record))
    state = run_demo(tmp_path, tmp_path)
    numeric = {**record, "remaining": {"Ann": [5], "Bob": [6]}}
    assert state["totals"] == score_record(GameRecord.from_json(numeric)).totals


def test_events_demo_infers_passes_and_takes_back_illegal_tiles(tmp_path: Path) -> None:
    record = GameRecord.from_json(
        {"players": ["Ann", "Bob"], "moves": [
            {"player": "Ann", "type": "place", "index": 6, "value": 5,
             "edges": {"left": "red", "right": "red", "base": "yellow"}},
            {"player": "Bob", "type": "pass"},
            {"player": "Ann", "type": "place", "index": 5, "value": 4,
             "edges": {"left": "blue", "right": "red", "base": "red"}}],
         "remaining": {"Bob": [6]}}
    )  # fmt: skip
    events = [e for e in events_from_record(record) if e["type"] == "placement"]
    for n, e in enumerate(events):
        e["frame"] = f"{n:04d}.jpg"
    edges = {"left": "yellow", "right": "purple", "base": "purple"}
    bad = {"type": "placement", "player": "Bob", "index": 7, "value": 5, "frame": "0009.jpg",
           "edges": edges, "legal": False}  # fmt: skip
    script = [events[0], bad, {"type": "removal", "index": 7}, events[1]]
    (tmp_path / "events.json").write_text(json.dumps({"frames": 10, "events": script}))
    (tmp_path / "record.json").write_text(json.dumps(record.to_json()))
    (tmp_path / "0009.jpg").write_bytes(b"\xff\xd8fake jpeg")
    loaded = load_script(tmp_path)
    assert loaded.origin.endswith("events.json") and loaded.events[-1]["type"] == "finish"
    state = run_demo(tmp_path, tmp_path)
    assert state["totals"] == score_record(record).totals == {"Ann": 9, "Bob": -6}
    assert [r["text"] for r in state["log"]][:3] == ["place 6 RRY5", "pass", "place 5 BRR4"]  # type: ignore[index]


def test_demo_frames_are_served(tmp_path: Path) -> None:
    (tmp_path / "0003.jpg").write_bytes(b"\xff\xd8fake jpeg")
    (tmp_path / "record.json").write_text(json.dumps(builtin_record().to_json()))
    app = make_app(
        tmp_path / "d.sqlite3",
        DEMO=True,
        DEMO_SPEED=60.0,
        DEMO_DIR=str(tmp_path),
        DEMO_TRACKER=False,
    )
    try:
        client = app.test_client()
        response = client.get("/camera/frame/0003.jpg")
        assert response.status_code == 200 and response.data.startswith(b"\xff\xd8")
        response.close()
        assert client.get("/camera/frame/../d.sqlite3").status_code == 404
        assert client.get("/api/state").json["camera"]["mode"] == "demo"
    finally:
        shutdown(app)


def test_a_new_game_stops_the_demo(tmp_path: Path) -> None:
    app = make_app(tmp_path / "d.sqlite3", DEMO=True, DEMO_SPEED=0.05)
    try:
        client = app.test_client()
        token = client.get("/api/session").json["csrf_token"]
        client.post("/api/new", json={"players": ["Cid", "Dan"]}, headers={"X-CSRF-Token": token})
        deadline = time.monotonic() + 10
        while client.get("/api/state").json["camera"]["mode"] != "none":
            assert time.monotonic() < deadline, "the demo did not stop"
            time.sleep(0.05)
        time.sleep(0.2)
        state = client.get("/api/state").json
        assert state["game"]["players"] == ["Cid", "Dan"] and state["log"] == []
        assert state["camera"]["mode"] == "none" and state["camera"]["view"] is None
    finally:
        shutdown(app)


def test_track_geometry() -> None:
    from engine import SPECTRANGLE36

    holes = track_holes(SPECTRANGLE36)
    assert [h["n"] for h in holes] == list(range(101))
    assert [h["n"] for h in holes if "tag" in h] == list(range(10, 101, 10))
    assert (hole_for(99), hole_for(100), hole_for(113), hole_for(200)) == (99, 100, 13, 100)


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--pin", "12"],
        ["serve", "--demo-speed", "fast"],
        ["serve", "--port", "x"],
        ["serve", "--players", "5"],
        ["serve", "--names", "Ann"],
    ],
)
def test_bad_serve_flags(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2")
