"""Live tracking: frames from a camera (or a video, a folder, a stream) scored on the page.

One background thread runs ``source -> tracker -> table``: every frame goes through
:class:`vision.track.Tracker`, and its events are handed to :meth:`Table.observe
<webui.session.Table.observe>`. The table stays authoritative: its game is the record that
is stored, and whose turn it is comes from it (the players may pass or exchange on the
page, which the camera cannot see). The tracker's own game only helps it read tiles.

- ``placement``, ``removal`` and ``uncertain`` go straight through; when the players pick a
  candidate on the page, :meth:`Tracker.resolve <vision.track.Tracker.resolve>` is told too;
- ``located``, ``moved``, ``resumed`` and ``look`` become a camera status with a message;
- ``correction`` fixes the misread move in the table (as the "fix" button does).

The latest frame, with the fitted lattice drawn over it, is kept as JPEG bytes (at most
:data:`VIEW_FPS` encodes a second, at most :data:`VIEW_WIDTH` pixels wide) and served at
``/camera/live.jpg``; the latest raw frame is kept too (:meth:`LiveWorker.latest`, for the
calibration page). Nothing the worker meets stops the server: errors are logged and shown
as the camera status, and a source that ends leaves the game as it is ("source ended").

With a calibration profile (:class:`LiveCalibration`) the tracker reads with the profile's
colours; on the first frames the profile's fit is checked against the camera's picture and
given to the tracker (no search for the board), or, when the board has moved since, re-fitted
and saved ("calibration redone"). Every accepted placement teaches the profile's colours
(:func:`vision.calibration.learn`), saved every :data:`LEARN_SAVE_EVERY` placements, so a lamp
switched on mid-game is followed.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine import Placement
from engine.errors import SpectrangleError
from engine.game import Game, Place
from vision.calibration import Profile, learn, load_profile, reader_for, refresh, save_profile
from vision.errors import CalibrationError, VisionError
from vision.model import VERTICES
from vision.read import BoardReader
from vision.sources import FrameSource, open_source
from vision.track import (
    Correction,
    Event,
    Located,
    Look,
    Placed,
    Removal,
    Resumed,
    Tracker,
    TrackerConfig,
    Uncertain,
)
from webui.errors import WebError
from webui.session import Table

log = logging.getLogger(__name__)

VIEW_FPS = 5.0  # JPEG encodes per second, at most
VIEW_WIDTH = 960  # pixels, at most
VIEW_URL = "/camera/live.jpg"
JPEG_QUALITY = 80
LOOKING = "looking for the board"

LEARN_SAVE_EVERY = 5  # accepted placements between saves of the learned profile
RECHECK_FRAMES = 10  # frames between tries to match the profile while the board is not seen

TrackerFactory = Callable[[Game], Tracker]


class LiveCalibration:
    """The calibration profile of the live camera, as the worker uses and updates it.

    ``profile`` None: no calibration (``error`` says why when a profile was refused). The
    worker checks the profile on the first frames (``checked``), re-fits it when stale
    (``redone``), and teaches it every accepted placement (``learned``), saving it to
    ``path`` every ``save_every`` placements (``saves``) and when the source ends.
    """

    def __init__(
        self,
        profile: Profile | None = None,
        path: str | Path | None = None,
        error: str = "",
        save_every: int = LEARN_SAVE_EVERY,
    ) -> None:
        self.profile = profile
        self.path = Path(path) if path is not None else None
        self.error = error
        self.save_every = max(1, save_every)
        self.lock = threading.Lock()
        self.checked = False
        self.redone = 0
        self.learned = 0
        self.unsaved = 0
        self.saves = 0
        self.note = "" if profile is not None else (error or "no calibration profile")

    @classmethod
    def load(cls, path: str | Path | None, required: bool = True) -> LiveCalibration:
        """The profile at ``path``; a missing file is an error only when ``required`` (a
        corrupt or foreign one always is: logged, and the camera runs without calibration)."""
        if path is None:
            return cls()
        path = Path(path)
        if not path.exists() and not required:
            return cls(None, path)
        try:
            return cls(load_profile(path), path)
        except CalibrationError as exc:
            log.warning("%s; tracking without calibration", exc)
            return cls(None, path, f"{exc}; tracking without calibration")

    def save(self) -> None:
        """Write the profile (when it has a path); errors are logged, never raised."""
        with self.lock:
            profile, path = self.profile, self.path
            self.unsaved = 0
        if profile is None or path is None:
            return
        try:
            save_profile(profile, path)
            self.saves += 1
        except OSError as exc:
            log.warning("live: cannot save the calibration profile %s: %s", path, exc)

    def state(self) -> dict[str, Any]:
        """For the calibration page."""
        return {
            "path": None if self.path is None else str(self.path),
            "active": self.profile is not None,
            "error": self.error,
            "checked": self.checked,
            "redone": self.redone,
            "learned": self.learned,
            "saves": self.saves,
            "note": self.note,
        }


def default_tracker(
    game: Game, fps: float | None = None, profile: Profile | None = None
) -> Tracker:
    """A tracker that follows ``game`` (a copy of the table's game) from its current board,
    reading with the calibration ``profile``'s colours when there is one (its fit is given
    to the tracker by the worker once checked against the camera's picture)."""
    reader = reader_for(profile, BoardReader())
    # A resumed game: the tracker takes the tiles already recorded as lying on the board.
    return Tracker(reader, players=game, config=TrackerConfig.load(), fps=fps)


@dataclass(frozen=True)
class Status:
    """A camera status for the page: one of the table's statuses and a message."""

    status: str
    message: str = ""

    def event(self) -> dict[str, Any]:
        return {"type": "status", "status": self.status, "message": self.message}


def status_of(event: Event) -> Status | None:
    """The camera status a tracker event means (None for scoring events)."""
    if isinstance(event, Located):
        if event.moved:
            return Status("tracking", "the board moved; found it again and tracking")
        return Status("tracking", "board found; tracking")
    if isinstance(event, Resumed):
        return Status("tracking", "the board matches the record again; tracking")
    if isinstance(event, Look):
        if "over the board" in event.message:
            return Status("covered", event.message)
        if event.gone or len(event.new) > 1:
            return Status("moved", f"put it back: {event.message}")
        return Status("covered", event.message)
    return None


class LiveWorker:
    """The background thread that follows the current game of a table from a frame source.

    ``pace``: seconds per frame at least (the demo plays a folder at a watchable pace; 0 for
    a camera). ``mode``: the camera panel's mode (``camera`` or ``demo``). In ``demo`` mode the
    worker stops when another game is started; with a camera it follows the new game.
    ``finish``: the tiles left in hands, deducted when the source ends (the demo's end).
    """

    def __init__(
        self,
        table: Table,
        source: FrameSource,
        *,
        pace: float = 0.0,
        mode: str = "camera",
        label: str = "",
        finish: Mapping[str, Sequence[int]] | None = None,
        tracker_factory: TrackerFactory | None = None,
        calibration: LiveCalibration | None = None,
    ) -> None:
        self.table = table
        self.source = source
        self.pace = pace
        self.mode = mode
        self.label = label or repr(source)
        self.finish = finish
        self.calibration = calibration or LiveCalibration()
        self.tracker_factory = tracker_factory or (
            lambda g: default_tracker(g, source.fps, self.calibration.profile)
        )
        self._latest: tuple[str, NDArray[np.uint8]] | None = None
        self.tracker: Tracker | None = None
        self.game_id: int | None = None
        self.frames = 0
        self.errors = 0
        self.ended = False
        self.name = ""  # the last frame's name
        self._picks: queue.Queue[Placement] = queue.Queue()
        self._stop = threading.Event()
        self._nudge = threading.Event()
        self._thread: threading.Thread | None = None
        self._view_lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._view_at = 0.0
        self._lattice: tuple[int, NDArray[np.float64]] | None = None

    # -- control ----------------------------------------------------------------------------

    def start(self) -> None:
        """Follow the table's current game (start one first) in a background thread."""
        self.game_id = self.table.game_id
        if self.game_id is None:
            raise ValueError("the live worker follows the current game: start one first")
        self.table.on_pick = self._picked
        message = f"waiting for the first picture from {self.label}"
        if self.calibration.error:
            message += f" ({self.calibration.error})"
        self.table.set_camera(
            mode=self.mode,
            status="board lost",
            frame=None,
            view=VIEW_URL,
            message=message,
        )
        self._thread = threading.Thread(target=self._run, name="live", daemon=True)
        self._thread.start()
        log.info("live tracking started: %s", self.label)

    def stop(self) -> None:
        self._stop.set()
        self._nudge.set()
        self.source.close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.table.on_pick == self._picked:
            self.table.on_pick = None

    def set_pace(self, pace: float) -> None:
        """Change the seconds per frame (a frame being waited for comes at once)."""
        self.pace = pace
        self._nudge.set()

    def _pause(self, started: float) -> bool:
        """Wait out the pace after a frame begun at ``started``; whether to stop."""
        while not self._stop.is_set():
            left = self.pace - (time.monotonic() - started)
            if left <= 0:
                return False
            self._nudge.wait(left)
            self._nudge.clear()
        return True

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the source to end; whether it has."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.ended

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def jpeg(self) -> bytes | None:
        """The latest camera view (JPEG bytes), or None before the first frame."""
        with self._view_lock:
            return self._jpeg

    def use_profile(self, profile: Profile, path: str | Path | None = None) -> None:
        """A new calibration profile (saved on the calibration page): its colours at once,
        its fit when the tracker next has to find the board."""
        cal = self.calibration
        with cal.lock:
            cal.profile = profile
            cal.path = Path(path) if path is not None else cal.path
            cal.error = ""
            cal.unsaved = 0
            cal.note = "a new profile from the calibration page"
        reader = self._board_reader()
        if reader is not None:
            reader_for(profile, reader)
        log.info("live: tracking with a new calibration profile")

    def latest(self) -> tuple[str, NDArray[np.uint8]] | None:
        """The latest frame as it came from the source (name, BGR), or None before the first."""
        with self._view_lock:
            return self._latest

    # -- the thread -------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self.tracker = self._new_tracker()
            if self.tracker is None:
                return
            for name, frame in self.source.frames():
                started = time.monotonic()
                if self._stop.is_set() or not self._follows_table():
                    return
                self._frame(name, frame)
                if self._pause(started):
                    return
            if self._stop.is_set():
                return
            self._save_learned()
            self.ended = True
            self._ended()
        except Exception as exc:  # the worker never takes the server down
            log.exception("live tracking stopped")
            self._status(Status("camera error", f"tracking stopped: {exc}"))
        finally:
            self._save_learned()
            self.source.close()

    def _new_tracker(self) -> Tracker | None:
        game = self._table_game()
        if game is None:
            return None
        return self.tracker_factory(game)

    def _table_game(self) -> Game | None:
        """A copy of the table's current game for a tracker (None: no game)."""
        with self.table.lock:
            if self.table.meta is None or self.table.game is None:
                return None
            game = Game(self.table.game.players, self.table.game.variant, first=0)
            for outcome in self.table.game.history:
                event = outcome.event
                if isinstance(event, Place) and outcome.legal:
                    try:
                        game.place(event.placement)
                    except SpectrangleError:
                        log.warning("live: cannot copy %s for the tracker", event.placement)
            return game

    def _follows_table(self) -> bool:
        """Whether the table still shows our game; with a camera, follow a new one."""
        current = self.table.game_id
        if current == self.game_id:
            return True
        if self.mode == "demo":
            log.info("demo stopped: another game was started")
            self.table.on_pick = None
            self.table.set_camera(
                mode="none", status="no camera", frame=None, view=None, message=""
            )
            return False
        if current is None:
            return True
        log.info("live tracking follows game %s now", current)
        self.game_id = current
        self._drain_picks()
        self.tracker = self._new_tracker()
        return self.tracker is not None

    def _frame(self, name: str, frame: NDArray[np.uint8]) -> None:
        assert self.tracker is not None
        self.name = name
        with self._view_lock:
            self._latest = (name, frame)
        if self.frames == 0 and self.tracker.fit is None:
            self._status(Status("board lost", LOOKING))
        self._take_picks(name)
        cal = self.calibration
        if (
            cal.profile is not None
            and not cal.checked
            and self.tracker.fit is None
            and self.frames % RECHECK_FRAMES == 0
        ):
            self._match_profile(name, frame)
        try:
            events = self.tracker.process(name, frame)
        except VisionError as exc:  # one bad frame never stops the game
            log.warning("live: %s: %s", name, exc)
            events = []
        except Exception as exc:
            self.errors += 1
            log.exception("live: %s: the tracker failed", name)
            self._status(Status("camera error", f"{name}: {exc}"))
            events = []
        for event in events:
            self._apply(event)
            self._calibrate_after(event, frame)
        now = time.monotonic()
        if events or now - self._view_at >= 1.0 / VIEW_FPS:
            self._view_at = now
            self._draw(frame)
        self.frames += 1  # counted once the frame's events are with the table

    # -- calibration --------------------------------------------------------------------------

    def _board_reader(self) -> BoardReader | None:
        reader = self.tracker.reader if self.tracker is not None else None
        return reader if isinstance(reader, BoardReader) else None

    def _refresh(self, frame: NDArray[np.uint8]) -> tuple[bool, str] | None:
        """Check the profile against this frame, re-fitting (and saving) it when stale.

        (whether it was redone, why) or None when the board is not to be seen.
        """
        cal, reader = self.calibration, self._board_reader()
        if cal.profile is None or reader is None:
            return None
        try:
            profile, check = refresh(cal.profile, frame, reader)
        except VisionError as exc:
            log.info("live: the calibration could not be checked: %s", exc)
            return None
        if check.fresh:
            return False, check.reason
        if profile is cal.profile:  # stale, and no board to re-fit to
            log.info("live: calibration stale, no board to re-fit: %s", check.reason)
            return None
        with cal.lock:
            cal.profile = profile
            cal.redone += 1
            cal.note = f"calibration redone: {check.reason}"
        log.info("live: calibration redone (%s)", check.reason)
        cal.save()
        return True, check.reason

    def _match_profile(self, name: str, frame: NDArray[np.uint8]) -> None:
        """The first frames: the profile's fit, checked (or re-fitted), given to the tracker."""
        assert self.tracker is not None
        started = time.monotonic()
        outcome = self._refresh(frame)
        cal = self.calibration
        if outcome is None or cal.profile is None:
            return
        redone, reason = outcome
        self.tracker.start_from(name, cal.profile.fit, frame)
        cal.checked = True
        if redone:
            message = f"calibration redone ({reason}); tracking"
        else:
            cal.note = "the board is where the calibration has it"
            message = "board found where the calibration has it; tracking"
        log.info("live: %s (%.2f s)", message, time.monotonic() - started)
        self._status(Status("tracking", message))

    def _calibrate_after(self, event: Event, frame: NDArray[np.uint8]) -> None:
        cal = self.calibration
        if cal.profile is None:
            return
        if isinstance(event, Located):
            # Found by the tracker itself (the first time, or after the board moved).
            if event.moved or not cal.checked:
                cal.checked = True
                outcome = self._refresh(frame)
                if outcome is not None and outcome[0]:
                    self._status(Status("tracking", f"calibration redone ({outcome[1]})"))
        elif isinstance(event, Placed) and event.legal:
            self._learn(event, frame)

    def _learn(self, event: Placed, frame: NDArray[np.uint8]) -> None:
        """Teach the profile the colours of an accepted placement; save now and then."""
        cal, reader = self.calibration, self._board_reader()
        if cal.profile is None or reader is None or self.tracker is None:
            return
        with self.table.lock:
            game = self.table.game
            if game is None or game.board[event.placement.index] != event.placement:
                return  # not accepted by the table
        try:
            profile = learn(cal.profile, frame, reader, [event.placement], self.tracker.fit)
        except VisionError as exc:
            log.info("live: nothing learned from %s: %s", event.placement, exc)
            return
        reader_for(profile, reader)
        with cal.lock:
            cal.profile = profile
            cal.learned += 1
            cal.unsaved += 1
            due = cal.unsaved >= cal.save_every
        if due:
            cal.save()
            log.info("live: calibration colours learned from %d placements; saved", cal.learned)

    def _save_learned(self) -> None:
        if self.calibration.unsaved:
            self.calibration.save()

    def _ended(self) -> None:
        self._take_picks(self.name)
        if self.finish is not None:
            self._observe(
                {"type": "finish", "remaining": {k: list(v) for k, v in self.finish.items()}}
            )
        message = f"{self.label} ended after {self.frames} frames; the game stays as it is"
        if self.mode == "demo":
            message = f"demo finished: {self.frames} frames of {self.label} followed"
        self._status(Status("source ended", message))
        log.info(message)

    # -- events -> table --------------------------------------------------------------------

    def _observe(self, event: Mapping[str, Any]) -> bool:
        """Hand one event to the table (if it still shows our game); whether it took it."""
        with self.table.lock:
            if self.table.game_id != self.game_id:
                return False
            try:
                self.table.observe(event)
            except (SpectrangleError, WebError) as exc:
                log.warning("live: the table refused %s: %s", event, exc)
                return False
        return True

    def _status(self, status: Status) -> None:
        try:
            self._observe(status.event())
        except Exception:  # a closed store at shutdown, say
            log.exception("live: cannot show the status %s", status)

    def _apply(self, event: Event) -> None:
        log.info("live: %s", event.text())
        status = status_of(event)
        if status is not None:
            self._status(status)
        elif isinstance(event, Placed):
            self._placed(event)
        elif isinstance(event, Removal):
            self._observe({"type": "removal", "index": event.index})
        elif isinstance(event, Uncertain):
            candidates = [c.to_json() for c in event.candidates]
            self._observe({"type": "uncertain", "index": event.index, "candidates": candidates})
        elif isinstance(event, Correction):
            self._corrected(event)

    def _placed(self, event: Placed) -> None:
        p = event.placement
        with self.table.lock:
            game = self.table.game
            if game is not None and game.board[p.index] == p:
                return  # already recorded (the players picked it on the page)
            if game is not None and game.state.turn is not None:
                turn = game.state.turn
                if turn != event.player - 1:
                    log.info(
                        "live: the tracker says player %d, the table says %s's turn",
                        event.player,
                        game.players[turn],
                    )
            # Whose turn it is comes from the table (passes and exchanges are entered there).
            edges = event.to_json()["edges"]
            self._observe({"type": "placement", "index": p.index, "value": p.value, "edges": edges})
        if self.table.uncertain is None and self.table.camera.status != "tracking":
            self._status(Status("tracking", "tracking"))

    def _corrected(self, event: Correction) -> None:
        with self.table.lock:
            game = self.table.game
            if game is None or self.table.game_id != self.game_id:
                return
            history = game.history
            for position in range(len(history) - 1, -1, -1):
                recorded = history[position].event
                if (
                    isinstance(recorded, Place)
                    and history[position].legal
                    and recorded.placement == event.before
                ):
                    try:
                        self.table.fix(position, event.after)
                    except (SpectrangleError, WebError) as exc:
                        log.warning("live: cannot fix move %d: %s", position + 1, exc)
                    return
            log.info("live: %s is not in the record any more; correction ignored", event.before)

    # -- picks from the page ----------------------------------------------------------------

    def _picked(self, placement: Placement) -> None:
        """Called by the table (a request thread): the tracker is told in the worker thread."""
        self._picks.put(placement)

    def _take_picks(self, name: str) -> None:
        while True:
            try:
                placement = self._picks.get_nowait()
            except queue.Empty:
                return
            if self.tracker is None:
                continue
            try:
                self.tracker.resolve(name, placement)  # the table has recorded it already
            except VisionError as exc:
                log.info("live: the tracker had settled cell %d itself: %s", placement.index, exc)

    def _drain_picks(self) -> None:
        while not self._picks.empty():
            self._picks.get_nowait()

    # -- the camera view --------------------------------------------------------------------

    def _draw(self, frame: NDArray[np.uint8]) -> None:
        try:
            jpeg = render_view(frame, self.tracker, self.table)
        except Exception:
            log.exception("live: cannot draw the camera view")
            return
        with self._view_lock:
            self._jpeg = jpeg


def render_view(frame: NDArray[np.uint8], tracker: Tracker | None, table: Table | None) -> bytes:
    """The frame, at most :data:`VIEW_WIDTH` wide, with the fitted lattice drawn, as JPEG."""
    h, w = frame.shape[:2]
    scale = min(1.0, VIEW_WIDTH / w)
    if scale < 1.0:
        size = (round(w * scale), round(h * scale))
        out = np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    else:
        out = frame.copy()
    fit = tracker.fit if tracker is not None else None
    status = table.camera.status if table is not None else ""
    if fit is not None:
        tris = fit.to_image(VERTICES.reshape(-1, 2)).reshape(-1, 3, 2) * scale
        pts = np.round(tris).astype(np.int32)
        colour = (255, 255, 0) if status in ("tracking", "source ended") else (0, 140, 255)
        cv2.polylines(out, list(pts), True, colour, 1, cv2.LINE_AA)
        uncertain = table.uncertain if table is not None else None
        if uncertain is not None:
            cell = pts[int(uncertain["index"])]
            cv2.polylines(out, [cell], True, (0, 165, 255), 3, cv2.LINE_AA)
    else:
        _label(out, LOOKING)
    if status and status != "tracking" and fit is not None:
        _label(out, status)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise VisionError("cannot encode the camera view as JPEG")
    return buf.tobytes()


def _label(image: NDArray[np.uint8], text: str) -> None:
    for colour, thick in (((0, 0, 0), 4), ((255, 255, 255), 1)):
        cv2.putText(
            image, text, (12, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, thick, cv2.LINE_AA
        )


# -- starting from the app's configuration -----------------------------------------------------


def start_camera(
    table: Table,
    source: FrameSource | str,
    players: Sequence[str] | None = None,
    calibration: LiveCalibration | None = None,
) -> LiveWorker:
    """Follow a game at the table: ``players`` start a new game, else the last unfinished one
    is resumed (or a new game of two players is started); with a ``calibration`` profile."""
    if isinstance(source, str):
        source = open_source(source)
    if players:
        table.new_game(list(players), first=0, source="camera")
    elif table.resume_latest() is None:
        table.new_game(["Player 1", "Player 2"], first=0, source="camera")
    worker = LiveWorker(table, source, mode="camera", label=repr(source), calibration=calibration)
    worker.start()
    return worker


def start_demo(
    table: Table,
    folder: Path,
    players: Sequence[str],
    teams: Sequence[Sequence[str]] | None,
    pace: float,
    finish: Mapping[str, Sequence[int]] | None = None,
) -> LiveWorker:
    """The demo: the frames of ``folder`` followed live, ``pace`` seconds a frame."""
    source = open_source(str(folder))
    table.store.delete_unfinished("demo")
    table.new_game(list(players), teams=teams or False, first=None, source="demo")
    worker = LiveWorker(table, source, pace=pace, mode="demo", label=folder.name, finish=finish)
    worker.start()
    return worker
