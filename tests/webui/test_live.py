"""Live tracking on the score page: the worker (source -> tracker -> table), the camera view,
``spectrangle serve --source``. The sample game is followed once (about 8 s, full speed);
the mapping of every tracker event is checked with a scripted tracker."""

from __future__ import annotations

import dataclasses
import json
import queue
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask

from engine import Placement
from engine.game import Game
from engine.record import GameRecord, score_record
from spectrangle.cli import main
from tests.webui.conftest import Api, make_app
from vision.sources import FrameSource, open_source
from vision.track import (
    Candidate,
    Correction,
    Event,
    Located,
    Look,
    Placed,
    Resumed,
    Uncertain,
)
from webui import shutdown
from webui.app import Services
from webui.demo import DEFAULT_DIR
from webui.live import LiveWorker, render_view, start_camera

pytestmark = pytest.mark.skipif(
    not (DEFAULT_DIR / "0000.jpg").is_file(), reason="the sample game's frames are not bundled"
)


def wait_for(check: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        time.sleep(0.02)


def services(app: Flask) -> Services:
    found: Services = app.extensions["spectrangle"]
    return found


# -- the sample game, followed once --------------------------------------------------------------


@dataclasses.dataclass
class Run:
    state: dict[str, Any]
    seen: list[tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any]]]
    seconds: float
    frames: int


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """The whole sample game through the live worker at full speed (no pacing), in two
    halves: the server is restarted after frame 99 and the second half resumes the game."""
    tmp = tmp_path_factory.mktemp("live")
    halves = [tmp / "first", tmp / "second"]
    for folder in halves:
        folder.mkdir()
    for path in sorted(DEFAULT_DIR.glob("*.jpg")):
        (halves[int(path.stem) >= 100] / path.name).symlink_to(path)
    seen: list[tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any]]] = []
    started = time.monotonic()
    frames = 0
    for half, names in zip(halves, (["Ann", "Bob"], None), strict=True):
        app = make_app(tmp / "games.sqlite3")
        try:
            table = services(app).table
            observe = table.observe

            def recording(event: Any, table: Any = table, observe: Any = observe) -> Any:
                outcome = observe(event)
                seen.append((dict(event), table.alert(), dict(table.state()["camera"])))
                return outcome

            table.observe = recording  # type: ignore[method-assign]
            worker = start_camera(table, str(half), names)  # names: a new game, else resumed
            services(app).live = worker
            assert worker.join(timeout=60), f"{half.name} half not followed to its end"
            frames += worker.frames
            state = table.state()
        finally:
            shutdown(app)
    yield Run(state, seen, time.monotonic() - started, frames)


def test_sample_game_totals_match_the_record_before_the_hands(sample_run: Run) -> None:
    data = GameRecord.load(DEFAULT_DIR / "record.json")
    expected = score_record(dataclasses.replace(data, remaining=None)).totals
    assert sample_run.state["totals"] == expected
    assert sample_run.frames == len(open_source(str(DEFAULT_DIR)))
    assert sample_run.state["game"]["id"] == 1  # the second half resumed the game
    assert sample_run.seconds < 60


def test_sample_game_illegal_placement_shown_then_cleared(sample_run: Run) -> None:
    alerts = [alert for _, alert, _ in sample_run.seen if alert is not None]
    assert len(alerts) == 1 and alerts[0]["index"] == 21 and alerts[0]["player"] == "Ann"
    assert "base edge of cell 21" in alerts[0]["reason"]
    removal = next(i for i, (e, _, _) in enumerate(sample_run.seen) if e["type"] == "removal")
    assert sample_run.seen[removal - 1][1] is not None and sample_run.seen[removal][1] is None
    assert sample_run.state["alert"] is None
    assert all(row["legal"] for row in sample_run.state["log"])


def test_sample_game_statuses_reach_the_state(sample_run: Run) -> None:
    statuses = [camera for e, _, camera in sample_run.seen if e["type"] == "status"]
    assert statuses[0] == {
        **statuses[0],
        "status": "board lost",
        "message": "looking for the board",
    }
    assert statuses[1]["status"] == "tracking" and "board found" in statuses[1]["message"]
    camera = sample_run.state["camera"]
    assert camera["status"] == "source ended" and camera["view"] == "/camera/live.jpg"
    assert "the game stays as it is" in camera["message"]
    assert camera["mode"] == "camera"


# -- real frames, small folders ---------------------------------------------------------------


def frames_folder(tmp: Path, count: int) -> Path:
    folder = tmp / "frames"
    folder.mkdir()
    for n in range(count):
        name = f"{n:04d}.jpg"
        shutil.copy(DEFAULT_DIR / name, folder / name)
    return folder


def test_live_view_is_served_while_running(tmp_path: Path) -> None:
    folder = frames_folder(tmp_path, 12)
    app = make_app(tmp_path / "games.sqlite3")
    try:
        table = services(app).table
        client = app.test_client()
        assert client.get("/camera/live.jpg").status_code == 404  # no live camera
        table.new_game(["Ann", "Bob"], first=0)
        worker = LiveWorker(table, open_source(str(folder)), pace=0.15)
        services(app).live = worker
        worker.start()
        response = wait_for(
            lambda: (r := client.get("/camera/live.jpg")).status_code == 200 and r, what="a view"
        )
        assert worker.running
        assert response.mimetype == "image/jpeg" and response.data[:2] == b"\xff\xd8"
        assert "no-store" in response.headers["Cache-Control"]
        image = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
        assert image is not None and image.shape[1] <= 960
        state = client.get("/api/state").json
        assert state["camera"]["view"] == "/camera/live.jpg" and state["camera"]["mode"] == "camera"
    finally:
        shutdown(app)
    assert not worker.running


def test_folder_with_unreadable_files_keeps_going(tmp_path: Path) -> None:
    folder = frames_folder(tmp_path, 10)
    (folder / "0003b.jpg").write_bytes(b"not a jpeg at all")
    (folder / "0005b.png").write_bytes(b"")
    app = make_app(tmp_path / "games.sqlite3")
    try:
        table = services(app).table
        table.new_game(["Ann", "Bob"], first=0)
        worker = LiveWorker(table, open_source(str(folder)))
        services(app).live = worker
        worker.start()
        assert worker.join(timeout=30)
        state = table.state()
        assert worker.frames == 10
        assert [row["text"] for row in state["log"]] == ["place 6 YGY5"]
        assert state["totals"] == {"Ann": 5, "Bob": 0}
        assert state["camera"]["status"] == "source ended"
    finally:
        shutdown(app)


def test_live_view_is_downscaled() -> None:
    jpeg = render_view(np.full((1080, 1920, 3), 90, np.uint8), None, None)
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (540, 960, 3)


# -- every tracker event, from a scripted tracker -------------------------------------------------


class QueueSource(FrameSource):
    """Frames handed over one by one by the test; None ends the source."""

    def __init__(self) -> None:
        self.items: queue.Queue[tuple[str, Any] | None] = queue.Queue()

    def frames(self) -> Iterator[tuple[str, Any]]:
        while (item := self.items.get()) is not None:
            yield item

    def close(self) -> None:
        self.items.put(None)


class ScriptedTracker:
    """The part of :class:`vision.track.Tracker` the worker uses, with scripted events."""

    def __init__(self, game: Game, script: dict[str, list[Event]]) -> None:
        self.game = game
        self.script = script
        self.fit = None
        self.resolved: list[Placement] = []

    def process(self, name: str, frame: Any) -> list[Event]:
        if name == "boom":
            raise RuntimeError("the tracker fell over")
        return self.script.get(name, [])

    def resolve(self, name: str, placement: Placement) -> list[Event]:
        self.resolved.append(placement)
        return []


def p(notation: str) -> Placement:
    return Placement.from_notation(notation)


def test_tracker_events_reach_the_table(tmp_path: Path, api: Api, app: Flask) -> None:
    script: dict[str, list[Event]] = {
        "located": [Located("located", ((0.0, 0.0), (10.0, 0.0), (5.0, 8.0)))],
        "placed": [Placed("placed", p("6:RRY5"), 1, True, 5)],
        "unsure": [
            Uncertain(
                "unsure",
                5,
                2,
                (Candidate(p("5:BRR4"), 1.0, True, 4), Candidate(p("5:RBR4"), 1.5, True, 4)),
            )
        ],
        "settled": [Placed("settled", p("5:BRR4"), 2, True, 4)],
        "corrected": [
            Correction("corrected", 6, p("6:RRY5"), p("6:RYR5"), 1, True, 5, (("1", 5),))
        ],
        "hand": [Look("hand", "something has been over the board for a while; clear it")],
        "bumped": [Look("bumped", "tiles gone from cells 6: put the board back", (), (6,))],
        "back": [Resumed("back")],
    }
    trackers: list[ScriptedTracker] = []

    def factory(game: Game) -> Any:
        trackers.append(ScriptedTracker(game, script))
        return trackers[-1]

    table = services(app).table
    api.act("new", {"players": ["Ann", "Bob"]})
    source = QueueSource()
    worker = LiveWorker(table, source, tracker_factory=factory)
    services(app).live = worker
    worker.start()
    frame = np.zeros((30, 40, 3), np.uint8)

    def feed(name: str, until: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
        done = worker.frames + 1
        source.items.put((name, frame))

        def ready() -> dict[str, Any] | None:
            state: dict[str, Any] = api.state()
            return state if worker.frames >= done and until(state) else None

        found: dict[str, Any] = wait_for(ready, what=name)
        return found

    camera = api.state()["camera"]
    assert camera["status"] == "board lost" and camera["message"].startswith(
        "waiting for the first"
    )
    feed("located", lambda s: s["camera"]["status"] == "tracking")
    feed("placed", lambda s: s["totals"]["Ann"] == 5)
    state = feed("unsure", lambda s: s["uncertain"] is not None)
    assert [c["placement"] for c in state["uncertain"]["candidates"]] == ["5:BRR4", "5:RBR4"]
    assert api.client.get("/camera/live.jpg").data[:2] == b"\xff\xd8"
    api.act("pick", {"choice": 0})
    feed("quiet", lambda s: trackers[0].resolved)
    assert trackers[0].resolved == [p("5:BRR4")]
    state = feed("settled", lambda s: True)  # already recorded by the pick: not twice
    assert [r["text"] for r in state["log"]] == ["place 6 RRY5", "place 5 BRR4"]
    assert state["totals"] == {"Ann": 5, "Bob": 4}
    state = feed("corrected", lambda s: s["log"][0]["text"] == "place 6 RYR5")
    assert "move 1 fixed" in state["notice"]
    state = feed("hand", lambda s: s["camera"]["status"] == "covered")
    assert "over the board" in state["camera"]["message"]
    state = feed("bumped", lambda s: s["camera"]["status"] == "moved")
    assert "put it back" in state["camera"]["message"]
    feed("back", lambda s: s["camera"]["status"] == "tracking")
    state = feed("boom", lambda s: s["camera"]["status"] == "camera error")
    assert "fell over" in state["camera"]["message"]
    feed("located", lambda s: s["camera"]["status"] == "tracking")  # it keeps going
    # A new game at the table: a camera follows it with a new tracker.
    api.act("new", {"players": ["Cid", "Dan"]})
    feed("placed", lambda s: s["totals"].get("Cid") == 5)
    assert len(trackers) == 2 and trackers[1].game.players == ("Cid", "Dan")
    source.items.put(None)
    assert worker.join(timeout=10)
    assert api.state()["camera"]["status"] == "source ended"


# -- spectrangle serve ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--source", "/nonexistent"], "cannot read /nonexistent: no such file"),
        (["--camera", "0", "--source", "x"], "not both"),
        (["--players", "3"], "go with --camera or --source"),
    ],
)
def test_serve_refuses_bad_sources(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


def test_live_source_config_starts_a_named_game(tmp_path: Path) -> None:
    folder = frames_folder(tmp_path, 3)
    app = make_app(tmp_path / "g.sqlite3", LIVE_SOURCE=str(folder), LIVE_PLAYERS=["Ann", "Cy"])
    try:
        live = services(app).live
        assert live is not None and live.join(timeout=20)
        state = app.test_client().get("/api/state").json
        assert state["game"]["players"] == ["Ann", "Cy"] and state["game"]["source"] == "camera"
        assert state["camera"]["status"] == "source ended" and live.frames == 3
    finally:
        shutdown(app)
    # Without names the last unfinished game is resumed.
    app = make_app(tmp_path / "g.sqlite3", LIVE_SOURCE=str(folder))
    try:
        state = app.test_client().get("/api/state").json
        assert state["game"]["players"] == ["Ann", "Cy"]
    finally:
        shutdown(app)


# -- the calibration profile -------------------------------------------------------------------


def test_stale_profile_is_redone_and_learned_colours_saved(tmp_path: Path) -> None:
    """A profile from another board position: re-fitted on the first frame and saved; every
    accepted placement teaches its colours, saved every five placements."""
    from vision.calibration import calibrate, load_profile
    from vision.read import load_image
    from vision.rectify import BoardFit
    from webui.live import LiveCalibration

    profile = calibrate([load_image(str(DEFAULT_DIR / "0000.jpg"))]).profile
    fit = profile.fit
    shift = np.array([[1.0, 0.0, 35.0], [0.0, 1.0, -20.0], [0.0, 0.0, 1.0]])
    moved = BoardFit(
        shift @ fit.homography,
        fit.corners + np.array([35.0, -20.0]),
        fit.residual_px,
        fit.residual_units,
        fit.points,
        fit.lens,
    )
    stale = dataclasses.replace(profile, fit=moved)
    path = tmp_path / "cal" / "profile.json"
    folder = tmp_path / "frames"
    folder.mkdir()
    for n in range(100):
        (folder / f"{n:04d}.jpg").symlink_to(DEFAULT_DIR / f"{n:04d}.jpg")
    app = make_app(tmp_path / "games.sqlite3")
    try:
        table = services(app).table
        table.new_game(["Ann", "Bob"], first=0)
        calibration = LiveCalibration(stale, path)
        worker = LiveWorker(table, open_source(str(folder)), calibration=calibration)
        services(app).live = worker
        worker.start()
        assert worker.join(timeout=60)
        state = table.state()
        assert calibration.redone == 1 and calibration.checked
        assert "calibration redone" in calibration.note
        assert calibration.learned >= 10 and calibration.saves >= 3
        saved = load_profile(path)
        truth = np.array(json.loads((DEFAULT_DIR / "0000.json").read_text())["corners"])
        got = saved.fit.corners
        assert min(np.abs(np.roll(got, -k, axis=0) - truth).max() for k in range(3)) < 3.0
        assert sum(saved.samples.values()) >= 3 * calibration.learned - 3
        assert all(n > 0 for n in saved.samples.values())
        assert state["totals"] == {"Ann": 68, "Bob": 52}  # as without calibration
        state_json = app.test_client().get("/api/calibration").json
        assert state_json["live"]["redone"] == 1 and state_json["live"]["active"]
    finally:
        shutdown(app)


def test_a_fresh_profile_gives_the_tracker_its_fit(tmp_path: Path) -> None:
    from vision.calibration import calibrate, save_profile
    from vision.read import load_image

    profile = calibrate([load_image(str(DEFAULT_DIR / "0000.jpg"))]).profile
    path = save_profile(profile, tmp_path / "p.json")
    folder = frames_folder(tmp_path, 4)
    app = make_app(tmp_path / "g.sqlite3", LIVE_SOURCE=str(folder), LIVE_CALIBRATION=str(path))
    try:
        live = services(app).live
        assert live is not None and live.join(timeout=20)
        assert live.calibration.checked and live.calibration.redone == 0
        assert live.tracker is not None and live.tracker.stats.locates == 0  # no search
        assert live.tracker.fit is not None
        assert np.allclose(live.tracker.fit.homography, profile.fit.homography)
    finally:
        shutdown(app)


@pytest.mark.parametrize(
    ("content", "required", "message"),
    [
        (b"{not json", True, "corrupt calibration profile"),
        (b'{"kind": "other"}', False, "not a spectrangle calibration profile"),
        (None, True, "cannot read calibration profile"),
        (None, False, ""),
    ],
)
def test_corrupt_foreign_or_missing_profiles_mean_no_calibration(
    tmp_path: Path, content: bytes | None, required: bool, message: str
) -> None:
    from webui.live import LiveCalibration

    path = tmp_path / "profile.json"
    if content is not None:
        path.write_bytes(content)
    calibration = LiveCalibration.load(path, required=required)
    assert calibration.profile is None
    assert message in calibration.error
    if message:
        assert "without calibration" in calibration.error
        folder = frames_folder(tmp_path, 3)
        app = make_app(
            tmp_path / "g.sqlite3", LIVE_SOURCE=str(folder), LIVE_CALIBRATION=calibration
        )
        try:
            live = services(app).live
            assert live is not None and live.join(timeout=20) and live.frames == 3
            state = app.test_client().get("/api/calibration").json
            assert message in state["live"]["error"]
        finally:
            shutdown(app)
