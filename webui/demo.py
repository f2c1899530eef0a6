"""Demo mode: the bundled sample game, followed live by the tracker or played back.

When the demo folder (default ``sample_images/game``) holds the game's frames, they are fed
through the real tracker by :class:`webui.live.LiveWorker`, one every ``DEMO_SPEED`` seconds
(default :data:`LIVE_SPEED`), and the page shows the camera view with the fitted lattice;
at the end the tiles left in hands (``record.json``) are deducted, as the players would.

Without frames (or with ``DEMO_TRACKER`` off) the script is played back instead: it comes
from ``events.json`` (the tracker events the camera should produce, with frame names), else
from ``record.json`` (a game record), else from a built-in seeded random game. Events are
fed to :meth:`webui.session.Table.observe` one every ``DEMO_SPEED`` seconds (default
:data:`PLAYBACK_SPEED`); the matching frame is shown as the camera view.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import SpectrangleError
from engine.record import GameRecord, record_from_game
from engine.simulate import random_game
from engine.tiles import Tile
from vision.errors import SourceError
from vision.sources import IMAGE_SUFFIXES
from webui.errors import WebError
from webui.live import start_demo as start_live_demo

log = logging.getLogger(__name__)

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "sample_images" / "game"
LIVE_SPEED = 0.4  # seconds a frame: the 224 frames of the sample game in about 90 s
PLAYBACK_SPEED = 1.5  # seconds between played-back events


@dataclass(frozen=True)
class DemoScript:
    """What the demo plays: players, tracker events, where frames are, where it came from."""

    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] | None
    events: tuple[dict[str, Any], ...]
    frames: Path | None
    origin: str


def builtin_record() -> GameRecord:
    """The fallback sample: a seeded random game of Ann and Bob."""
    return record_from_game(random_game(["Ann", "Bob"], random.Random(1)))


def events_from_record(record: GameRecord) -> list[dict[str, Any]]:
    """The tracker events a camera would report for a record (plus passes and the end)."""
    out: list[dict[str, Any]] = []
    for move in record.moves:
        if move.type == "place":
            assert move.placement is not None
            out.append({"type": "placement", "player": move.player, **move.placement.to_json()})
        else:
            out.append({"type": move.type, "player": move.player})
    if record.remaining is not None:
        out.append(
            {"type": "finish", "remaining": {k: list(v) for k, v in record.remaining.items()}}
        )
    return out


def _lenient_record(path: Path) -> GameRecord:
    """Read a record; remaining tiles given as notations (``"RRY5"``) count their values."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and isinstance(data.get("remaining"), dict):
        fixed = {}
        for name, values in data["remaining"].items():
            if isinstance(values, list):
                values = [Tile.from_notation(v).value if isinstance(v, str) else v for v in values]
            fixed[name] = values
        data = {**data, "remaining": fixed}
    return GameRecord.from_json(data)


def load_script(folder: Path | None = None) -> DemoScript:
    """The demo script from ``folder`` (default: the bundled sample game)."""
    folder = DEFAULT_DIR if folder is None else folder
    record: GameRecord | None = None
    record_path = folder / "record.json"
    if record_path.is_file():
        try:
            record = _lenient_record(record_path)
        except (OSError, ValueError) as exc:
            log.warning("demo: cannot read %s: %s", record_path, exc)
    frames = folder if folder.is_dir() else None
    events_path = folder / "events.json"
    if events_path.is_file():
        try:
            raw = json.loads(events_path.read_text(encoding="utf-8"))
            if isinstance(raw, Mapping):
                raw = raw.get("events")
            if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
                raise ValueError("events.json is not a list of event objects")
            players = _players_of(raw, record)
            events = list(raw)
            if record is not None and record.remaining is not None:
                remaining = {k: list(v) for k, v in record.remaining.items()}
                events.append({"type": "finish", "remaining": remaining})
            teams = record.teams if record is not None else None
            return DemoScript(players, teams, tuple(events), frames, str(events_path))
        except (OSError, ValueError) as exc:
            log.warning("demo: cannot use %s: %s", events_path, exc)
    if record is not None:
        events = events_from_record(record)
        return DemoScript(record.players, record.teams, tuple(events), frames, str(record_path))
    record = builtin_record()
    return DemoScript(
        record.players, record.teams, tuple(events_from_record(record)), None, "built-in"
    )


def _players_of(events: list[dict[str, Any]], record: GameRecord | None) -> tuple[str, ...]:
    if record is not None:
        return record.players
    names: list[str] = []
    for e in events:
        p = e.get("player")
        if isinstance(p, str) and p not in names:
            names.append(p)
    if len(names) < 2:
        raise ValueError("events.json names fewer than two players and there is no record.json")
    return tuple(names)


class DemoPlayer:
    """A background thread feeding a :class:`DemoScript` to a table."""

    def __init__(self, table: Any, script: DemoScript, speed: float = 1.5) -> None:
        self.table = table
        self.script = script
        self.speed = speed
        self.position = 0
        self.game_id: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.table.store.delete_unfinished("demo")
        self.game_id = self.table.new_game(
            self.script.players,
            teams=self.script.teams or False,
            first=None,
            source="demo",
        )
        self.table.set_camera(
            mode="demo",
            status="tracking",
            frame=None,
            message=f"demo: playing back {self.script.origin}",
        )
        self._thread = threading.Thread(target=self._run, name="demo", daemon=True)
        self._thread.start()
        log.info("demo started: %d events from %s", len(self.script.events), self.script.origin)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def done(self) -> bool:
        return self.position >= len(self.script.events)

    def _run(self) -> None:
        for event in self.script.events:
            if self._stop.wait(self.speed):
                return
            if self.table.game_id != self.game_id:
                log.info("demo stopped: another game was started")
                self.table.set_camera(mode="none", status="no camera", frame=None, message="")
                return
            try:
                self.table.observe(event)
            except (SpectrangleError, WebError) as exc:
                log.warning("demo event %d refused: %s (%s)", self.position, exc, event)
            self.position += 1
        self.table.set_camera(message=f"demo finished ({self.script.origin})")


def has_frames(folder: Path | None) -> bool:
    """Whether ``folder`` holds images for the tracker to follow."""
    if folder is None or not folder.is_dir():
        return False
    return any(p.suffix.lower() in IMAGE_SUFFIXES for p in folder.iterdir())


def start_demo(services: Any, config: Mapping[str, Any]) -> None:
    """Start the demo for an app's :class:`~webui.app.Services` from its configuration."""
    folder = Path(config["DEMO_DIR"]) if config.get("DEMO_DIR") else None
    script = load_script(folder)
    services.script = script
    speed = config.get("DEMO_SPEED")
    if config.get("DEMO_TRACKER", True) and has_frames(script.frames):
        assert script.frames is not None
        finish = None  # the tiles left in hands, from the record beside the frames
        if (
            script.origin != "built-in"
            and script.events
            and script.events[-1].get("type") == "finish"
        ):
            finish = _remaining_values(script.events[-1].get("remaining", {}))
        try:
            services.live = start_live_demo(
                services.table,
                script.frames,
                script.players,
                script.teams,
                LIVE_SPEED if speed is None else float(speed),
                finish,
            )
            return
        except (SourceError, SpectrangleError, WebError) as exc:
            log.warning("demo: cannot follow %s live (%s); playing back events", folder, exc)
    services.demo = DemoPlayer(
        services.table, script, PLAYBACK_SPEED if speed is None else float(speed)
    )
    services.demo.start()


def _remaining_values(raw: Any) -> dict[str, list[int]] | None:
    if not isinstance(raw, Mapping):
        return None
    out: dict[str, list[int]] = {}
    for name, values in raw.items():
        if isinstance(values, list):
            out[str(name)] = [
                Tile.from_notation(v).value if isinstance(v, str) else int(v) for v in values
            ]
    return out
