"""``spectrangle replay SOURCE [--players N] [--json]``: follow a filmed game and score it.

SOURCE is a camera index (``0``), a video file, a folder of images (name order) or a
network stream or snapshot URL. With ``--json`` one document is printed at the end::

    {"events": [{"frame": "0012.jpg", "type": "placement", "index": 20, ...}, ...],
     "scores": {"1": 45, "2": 30}}

Without it, a readable log line per event as it happens, then the scores. Exit status 0,
or 2 when the source cannot be read (a one-line error on stderr).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

from vision.calibration import load_profile, reader_for
from vision.errors import CalibrationError, VisionError
from vision.sources import FrameSource, SourceError, open_source
from vision.track import Event, Tracker, TrackerConfig

log = logging.getLogger(__name__)

EXIT_OK, EXIT_UNREADABLE = 0, 2
PROGRESS_MIN_FRAMES = 50


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", help="camera index, video file, folder of images, or stream/snapshot URL"
    )
    parser.add_argument(
        "--players", type=int, default=2, choices=(1, 2, 3, 4), help="players (default 2)"
    )
    parser.add_argument("--json", action="store_true", help="print the events and scores as JSON")
    parser.add_argument("--config", metavar="FILE", help="tracker thresholds (JSON) to use")
    parser.add_argument(
        "--calibration", metavar="FILE", help="a calibration profile (spectrangle calibrate)"
    )
    parser.add_argument("--fps", type=float, help="frame rate of the source, when it does not say")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar on long sources"
    )


def run(args: argparse.Namespace) -> int:
    try:
        source = open_source(args.source)
        config = TrackerConfig.load(args.config) if args.config else TrackerConfig.load()
    except (SourceError, OSError, ValueError) as exc:
        print(f"spectrangle replay: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    profile = None
    if args.calibration:
        try:
            profile = load_profile(args.calibration)
        except CalibrationError as exc:
            print(f"spectrangle replay: {exc}; tracking without calibration", file=sys.stderr)
    with source:
        tracker = Tracker(
            reader_for(profile), players=args.players, config=config, fps=args.fps or source.fps
        )
        try:
            events = follow(
                source, tracker, log_events=not args.json, progress=not args.no_progress
            )
        except SourceError as exc:
            print(f"spectrangle replay: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
    scores = tracker.totals()
    if args.json:
        out: dict[str, Any] = {"events": [e.to_json() for e in events], "scores": scores}
        print(json.dumps(out))
    else:
        print("scores: " + ", ".join(f"player {k}: {v}" for k, v in scores.items()))
    log.info(
        "%d frames, %d unchanged, %d reads, %d locates",
        tracker.stats.frames,
        tracker.stats.unchanged,
        tracker.stats.reads,
        tracker.stats.locates,
    )
    return EXIT_OK


def follow(
    source: FrameSource, tracker: Tracker, log_events: bool = False, progress: bool = False
) -> list[Event]:
    """Run every frame of ``source`` through ``tracker``; the events in order."""
    events: list[Event] = []
    total = len(source)
    bar = None
    if progress and (total == 0 or total >= PROGRESS_MIN_FRAMES) and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total or None, unit="frame", file=sys.stderr, leave=False)
    try:
        for name, frame in source.frames():
            try:
                new = tracker.process(name, frame)
            except VisionError as exc:  # one bad frame never stops the game
                log.warning("%s: %s", name, exc)
                new = []
            events.extend(new)
            if log_events:
                for event in new:
                    line = event.text()
                    if bar is not None:
                        bar.write(line)
                    else:
                        print(line, flush=True)
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        log.info("stopped")
    finally:
        if bar is not None:
            bar.close()
    return events
