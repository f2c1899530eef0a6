"""Accuracy, cost and latency of the live tracker on generated filmed games.

    spectrangle generate /tmp/games --games 4 --stills 0 --seed 11 --game-size 1280x720
    python bench/bench_track.py /tmp/games/games [--details]

For every game folder (frames, ``events.json``, ``record.json``) the frames are fed to a
:class:`vision.track.Tracker` in name order, and the events compared with the expected
ones: placements recalled with the right cell, tile, rotation and score (and player),
illegal placements flagged, removals, phantom placements (reported but not expected), and
other events (look, uncertain, correction). The cost of ``Tracker.process`` is timed per
frame (decoding the JPEG is not counted: a camera delivers decoded frames); "unchanged"
frames are the still frames the cheap gate let through without a read. Latency is counted
in frames from the first still frame after the hand left (the expected frame), and in
seconds for a live camera at ``--fps`` (the still run the tracker waits for, plus the
reads).
"""

from __future__ import annotations

import os

# One core, as the figures say (and as `spectrangle` runs): one BLAS thread, set
# before NumPy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read import BoardReader
from vision.sources import FolderSource
from vision.track import Tracker, TrackerConfig

#: Stress: the frames lit by a lamp on the right, and how much brighter its side gets.
LAMP_FRAMES = (100, 160)
LAMP_GAIN = 0.3


def frame_number(name: str) -> int:
    return int(Path(name).stem)


def frames(folder: Path, stress: int, seed: int = 0) -> Iterator[tuple[str, Any]]:
    """The game's frames; with ``stress`` > 1, every frame with a hand is repeated that
    many times (a hand pausing over the board), one frame in 37 is darkened (a flicker of
    light), a lamp lights one side of the scene from frame 100 to 159 (a light change that
    stays and is not uniform) and every frame gets fresh sensor noise."""
    rng = np.random.default_rng(seed)
    lamp: NDArray[np.float32] | None = None
    for name, frame in FolderSource(folder).frames():
        if stress <= 1:
            yield name, frame
            continue
        truth = json.loads((folder / f"{Path(name).stem}.json").read_text())
        phase = truth["conditions"]["phase"]
        repeat = 1 if phase == "stable" else stress
        if frame_number(name) % 37 == 20:
            frame = cv2.convertScaleAbs(frame, alpha=0.8)
        if LAMP_FRAMES[0] <= frame_number(name) < LAMP_FRAMES[1]:
            if lamp is None:
                w = frame.shape[1]
                ramp = 1.0 + LAMP_GAIN * np.clip((np.arange(w) - w / 2) / (w / 2), 0.0, 1.0)
                lamp = ramp.astype(np.float32)[None, :, None]
            frame = np.clip(frame * lamp, 0, 255).astype(np.uint8)
        for _ in range(repeat):
            noise = rng.integers(-2, 3, frame.shape, dtype=np.int16)
            yield name, np.clip(frame + noise, 0, 255).astype(np.uint8)


def run_game(folder: Path, reader: BoardReader, details: bool, stress: int = 1) -> dict[str, Any]:
    expected = json.loads((folder / "events.json").read_text())["events"]
    record = json.loads((folder / "record.json").read_text())
    players = record["players"]
    tracker = Tracker(reader, players=len(players))
    got: list[dict[str, Any]] = []
    unchanged_ms: list[float] = []
    all_ms: list[float] = []
    read_ms: list[float] = []
    for name, frame in frames(folder, stress):
        before = tracker.stats.unchanged
        reads = tracker.stats.reads
        t0 = time.perf_counter()
        events = tracker.process(name, frame)
        ms = (time.perf_counter() - t0) * 1000
        all_ms.append(ms)
        if tracker.stats.unchanged > before:
            unchanged_ms.append(ms)
        if tracker.stats.reads > reads:
            read_ms.append(ms / (tracker.stats.reads - reads))
        got.extend(e.to_json() for e in events)
    result: dict[str, Any] = {
        "placements": 0,
        "recalled": 0,
        "illegal": 0,
        "illegal_flagged": 0,
        "removals": 0,
        "removals_recalled": 0,
        "phantoms": 0,
        "other": {},
        "latency": [],
        "unchanged_ms": unchanged_ms,
        "all_ms": all_ms,
        "read_ms": read_ms,
        "frames": len(all_ms),
        "reads": tracker.stats.reads,
        "locates": tracker.stats.locates,
        "misses": [],
    }
    pool = [g for g in got if g["type"] in ("placement", "removal")]
    for g in got:
        if g["type"] not in ("placement", "removal", "located"):
            result["other"][g["type"]] = result["other"].get(g["type"], 0) + 1
            if details:
                print(f"  {folder.name}: {g}")
    starts = [frame_number(e["frame"]) for e in expected] + [10**9]
    for k, e in enumerate(expected):
        lo, hi = frame_number(e["frame"]) - 1, starts[k + 1]
        match = next(
            (
                g
                for g in pool
                if g["type"] == e["type"]
                and g["index"] == e["index"]
                and lo <= frame_number(g["frame"]) < hi
            ),
            None,
        )
        if e["type"] == "removal":
            result["removals"] += 1
            if match is not None:
                result["removals_recalled"] += 1
                pool.remove(match)
            else:
                result["misses"].append(e)
            continue
        result["placements"] += 1
        if not e["legal"]:
            result["illegal"] += 1
        if match is None:
            result["misses"].append(e)
            continue
        pool.remove(match)
        right = (
            match["edges"] == e["edges"]
            and match["value"] == e["value"]
            and match["score"] == e["points"]
            and match["legal"] == e["legal"]
            and players[match["player"] - 1] == e["player"]
        )
        if right:
            result["recalled"] += 1
            result["latency"].append(frame_number(match["frame"]) - frame_number(e["frame"]))
        else:
            result["misses"].append({"expected": e, "got": match})
        if not e["legal"] and not match["legal"]:
            result["illegal_flagged"] += 1
    result["phantoms"] = sum(1 for g in pool if g["type"] == "placement")
    result["extra"] = pool
    if details:
        for m in result["misses"]:
            print(f"  {folder.name}: MISSED {m}")
        for g in pool:
            print(f"  {folder.name}: EXTRA {g}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder of game folders (or one game)")
    parser.add_argument("--details", action="store_true", help="print every miss and extra")
    parser.add_argument("--fps", type=float, default=30.0, help="live frame rate for latency")
    parser.add_argument(
        "--stress",
        type=int,
        default=1,
        metavar="K",
        help="repeat each frame with a hand K times, add light changes and noise",
    )
    args = parser.parse_args(argv)
    games = sorted(p for p in args.folder.iterdir() if (p / "events.json").is_file())
    if (args.folder / "events.json").is_file():
        games = [args.folder]
    if not games:
        print(f"no games in {args.folder}", file=sys.stderr)
        return 2
    reader = BoardReader()
    totals: dict[str, Any] = {"other": {}}
    for folder in games:
        t0 = time.perf_counter()
        r = run_game(folder, reader, args.details, args.stress)
        wall = time.perf_counter() - t0
        print(
            f"{folder.name}: {r['recalled']}/{r['placements']} placements, "
            f"{r['illegal_flagged']}/{r['illegal']} illegal flagged, "
            f"{r['removals_recalled']}/{r['removals']} removals, {r['phantoms']} phantoms, "
            f"other {r['other']}, {r['frames']} frames, {r['reads']} reads, "
            f"{r['locates']} locates, {wall:.1f} s"
        )
        for key, value in r.items():
            if isinstance(value, int):
                totals[key] = totals.get(key, 0) + value
            elif isinstance(value, list):
                totals.setdefault(key, []).extend(value)
            elif isinstance(value, dict):
                for k, v in value.items():
                    totals.setdefault(key, {})
                    totals[key][k] = totals[key].get(k, 0) + v
    cfg = TrackerConfig.load()
    lat = totals["latency"]
    med_read = statistics.median(totals["read_ms"]) if totals["read_ms"] else 0.0
    live = cfg.run_length(args.fps) / args.fps + cfg.same_reads * med_read / 1000
    print()
    print(f"games                      {len(games)}")
    print(
        f"placements recalled        {totals['recalled']}/{totals['placements']} "
        f"({100 * totals['recalled'] / max(1, totals['placements']):.1f}%; right cell, tile, "
        "rotation, score, player)"
    )
    print(f"illegal flagged            {totals['illegal_flagged']}/{totals['illegal']}")
    print(f"removals recalled          {totals['removals_recalled']}/{totals['removals']}")
    print(f"phantom placements         {totals['phantoms']}")
    print(f"other events               {totals['other']}")
    print(
        f"unchanged frame, median    {statistics.median(totals['unchanged_ms']):.2f} ms "
        f"(p95 {statistics.quantiles(totals['unchanged_ms'], n=20)[-1]:.2f} ms, "
        f"{len(totals['unchanged_ms'])} frames)"
    )
    print(f"any frame, median          {statistics.median(totals['all_ms']):.2f} ms")
    print(f"full read with stored fit  {med_read:.1f} ms median")
    if lat:
        print(
            f"latency (frames)           median {statistics.median(lat):.0f}, max {max(lat)} "
            "after the first still frame"
        )
    print(
        f"latency live at {args.fps:.0f} fps      about {live:.2f} s after the hand leaves "
        f"({cfg.run_length(args.fps)} still frames + {cfg.same_reads} reads)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
