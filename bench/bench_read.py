"""Accuracy and speed of ``spectrangle read`` on a generated labelled set.

    python bench/bench_read.py DIR [--limit N] [--details] [--greyscale] [--set KEY=VALUE]

DIR holds images with truth files beside them (``spectrangle generate DIR --stills N``).
The reader may take any corner as the apex; readings are turned to the truth's apex
(matched by the reported corners) before they are compared.
"""

from __future__ import annotations

import os

# One core, as the figures say (and as `spectrangle` runs): one BLAS thread, set
# before NumPy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import fields
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from _stills import labelled_stills

from engine import SPECTRANGLE36, Board
from engine.colours import EDGE_ORDER
from vision.config import ReaderConfig
from vision.model import CENTROIDS
from vision.read import COLOURLESS, BoardReader, load_image
from vision.rectify import BoardFit, px_per_unit

GEO = SPECTRANGLE36.geometry


def turn(cells: list[dict[str, Any]], times: int) -> list[dict[str, Any]]:
    """Re-index a reading of the board turned ``times`` x 120 degrees."""
    for _ in range(times):
        out: list[dict[str, Any]] = [{}] * len(cells)
        for c in cells:
            i = c["index"]
            target = GEO.rotation[i]
            new = dict(c, index=target)
            if c.get("state") == "tile":
                edges = {}
                for e in EDGE_ORDER:
                    _, new_edge = GEO.edge_rotation[(i, e)]
                    edges[new_edge.value] = c["edges"][e.value]
                new["edges"] = edges
            out[target] = new
        cells = out
    return cells


def lattice_error(fit: BoardFit, truth: dict[str, Any], times: int) -> float:
    """How far (board units) the fit puts the cells' centroids from where the truth's
    camera sees them on the board's plane (its lens included): the median over the cells
    in the frame, the reading's cells turned ``times`` x 120 degrees onto the truth's. A
    lattice a whole cell off is as far off as it is."""
    cam = truth["camera"]
    seen, _ = cv2.projectPoints(
        np.c_[CENTROIDS, np.zeros(len(CENTROIDS))],
        np.array(cam["rvec"], float),
        np.array(cam["tvec"], float),
        np.array(cam["K"], float),
        np.array(cam["dist"], float),
    )
    seen = seen.reshape(-1, 2)
    index = np.arange(len(CENTROIDS))
    for _ in range(times):
        index = np.array([GEO.rotation[i] for i in index])
    ours = fit.to_image(CENTROIDS)
    inside = ((seen[index] >= 0) & (seen[index] < truth["conditions"]["size"])).all(axis=1)
    gaps = np.linalg.norm(ours - seen[index], axis=1) / px_per_unit(fit.homography)
    return float(np.median(gaps[inside])) if inside.any() else float("nan")


def bucket(cond: dict[str, Any], cell_px: float) -> dict[str, str]:
    tilt = cond.get("tilt_deg", 0)
    blur = (cond.get("blur") or 0) + (1.0 if cond.get("motion_blur") else 0)
    smear = (cond.get("motion_blur") or [0.0])[0] / max(cell_px, 1.0)  # in tile sides
    return {
        "motion": "none" if smear == 0 else ("< 0.1 tile" if smear < 0.1 else ">= 0.1 tile"),
        "tilt": f"{int(tilt // 15) * 15:02d}-{int(tilt // 15) * 15 + 15}",
        "light": str(cond.get("light")),
        "table": str(cond.get("table")),
        "blur": "strong" if blur > 1.2 else ("some" if blur > 0.5 else "none"),
        "hands": "hands" if cond.get("hands") else "no hands",
        "harsh": "harsh" if cond.get("harsh") else "normal",
        "tiles": "flat"
        if not cond.get("tile_height")
        else ("raised < 0.08" if cond["tile_height"] < 0.08 else "raised >= 0.08"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--details", action="store_true", help="print every wrong cell")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="try another value of a reader threshold (JSON value), e.g. --set numeral_weight=8",
    )
    parser.add_argument(
        "--greyscale",
        action="store_true",
        help="read each still as a camera with no colour takes it (its tiles' colours then"
        " cannot be read: how many are seen, and their values)",
    )
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    data = json.loads(resources.files("vision.data").joinpath("reader.json").read_text("utf-8"))
    for item in args.set:
        key, _, value = item.partition("=")
        if key not in {f.name for f in fields(ReaderConfig)}:
            print(f"no reader threshold named {key!r}", file=sys.stderr)
            return 2
        data[key] = json.loads(value)
    config = ReaderConfig.from_json(data)
    reader = BoardReader(config)
    truths = labelled_stills(args.folder, args.limit)
    if not truths:
        print(f"no labelled images in {args.folder}", file=sys.stderr)
        return 2
    times: list[float] = []
    stats: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    tile_stats: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    totals = defaultdict(int)
    corner_err: list[float] = []
    lattice_err: list[float] = []  # per image: median over the cells in view (board units)
    heights: list[tuple[float, float, float]] = []  # raised tiles: (tilt, true, told height)
    for path in truths:
        truth = json.loads(path.read_text())
        frame = load_image(str(path.with_suffix(".jpg")))
        if args.greyscale:
            frame = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        t0 = time.perf_counter()
        reading = reader.read(frame)
        times.append(time.perf_counter() - t0)
        true_c = np.array(truth["corners"])
        cell_side = float(np.linalg.norm(true_c[0] - true_c[1])) / 6.0
        groups = bucket(truth.get("conditions", {}), cell_side)
        groups["all"] = "all"
        totals["images"] += 1
        upright = truth.get("conditions", {}).get("tilt_deg", 0.0) <= 45.0
        totals["images up to 45 degrees"] += int(upright)
        hidden = set(truth.get("covered", [])) | set(truth.get("outside", []))
        if not reading.found:
            totals["not found"] += 1
            totals["tiles on boards not found"] += sum(
                c["state"] == "tile" and c["index"] not in hidden for c in truth["cells"]
            )
            totals["not found up to 45 degrees"] += int(upright)
            for k, v in groups.items():
                stats[k][v][1] += 1
            if args.details:
                print(f"{path.name}: not found: {reading.reason}")
            continue
        out = reading.to_json()
        ours = np.array(out["board"]["corners"])
        best = min(range(3), key=lambda k: np.abs(np.roll(true_c, -k, axis=0) - ours).sum())
        true_height = truth.get("conditions", {}).get("tile_height") or 0.0
        if true_height > 0 and reading.fit is not None:
            tilt = float(truth.get("conditions", {}).get("tilt_deg", 0.0))
            heights.append((tilt, float(true_height), float(reading.fit.tile_height)))
        corner_err.append(
            float(np.linalg.norm(np.roll(true_c, -best, axis=0) - ours, axis=1).max())
        )
        totals["wrong boards"] += int(corner_err[-1] > 0.5 * cell_side)
        if reading.fit is not None and "camera" in truth:
            lattice_err.append(lattice_error(reading.fit, truth, best))
        if args.details and corner_err[-1] > 0.5 * cell_side:
            print(f"{path.name}: a corner {corner_err[-1] / cell_side:.2f} cells off")
        cells = turn(out["cells"], best)
        # What really lies under a hand: the truth's board (its cells say "unknown" there).
        actual = Board.from_notation(truth["board"], GEO)
        image_ok = True
        for t_cell, o_cell in zip(truth["cells"], cells, strict=True):
            i = t_cell["index"]
            state = o_cell.get("state")
            if i in hidden or t_cell["state"] == "unknown":
                real = actual[i]
                if state == "tile" and (
                    real is None
                    or o_cell.get("edges") != real.to_json()["edges"]
                    or o_cell.get("value") != real.value
                ):
                    totals["wrong tile on a hidden cell"] += 1
                    image_ok = False
                    if args.details:
                        under = "nothing" if real is None else str(real)
                        print(f"{path.name} cell {i}: hidden ({under} under it), read {o_cell}")
                continue
            if t_cell["state"] == "tile":
                totals["visible tiles"] += 1
                for k, v in groups.items():
                    tile_stats[k][v][1] += 1
                totals["tiles read as tiles"] += int(state == "tile")
                totals["tiles read empty"] += int(state == "empty")
                exact = (
                    state == "tile"
                    and o_cell.get("edges") == t_cell["edges"]
                    and o_cell.get("value") == t_cell["value"]
                )
                if exact:
                    totals["tiles exact"] += 1
                    for k, v in groups.items():
                        tile_stats[k][v][0] += 1
                elif state == "unknown":
                    totals["tiles unknown"] += 1
                    note = o_cell.get("note", "")
                    if note.endswith(COLOURLESS):
                        totals["tiles seen, colours unread"] += 1
                        seems = re.search(r"numeral looks like (\d)", note)
                        same = seems is not None and int(seems.group(1)) == t_cell["value"]
                        totals["their value right"] += int(same)
                else:
                    totals["tiles wrong"] += 1
                if not exact:
                    image_ok = False
                    if args.details:
                        print(f"{path.name} cell {i}: truth {t_cell} read {o_cell}")
            else:
                totals["visible empty"] += 1
                if state == "tile":
                    totals["phantom tiles"] += 1
                    image_ok = False
                    if args.details:
                        print(f"{path.name} cell {i}: truth empty, read {o_cell}")
                elif state == "unknown":
                    totals["empty read unknown"] += 1
                    image_ok = False
                    if args.details:
                        print(f"{path.name} cell {i}: truth empty, read {o_cell}")
        totals["images exact"] += int(image_ok)
        for k, v in groups.items():
            stats[k][v][0] += int(image_ok)
            stats[k][v][1] += 1
    n = totals["images"]
    found = n - totals["not found"]
    tiles = max(totals["visible tiles"], 1)
    print(f"images: {n}, board found: {found / n:.1%}")
    upright = totals["images up to 45 degrees"]
    if upright:
        found_upright = upright - totals["not found up to 45 degrees"]
        print(f"board found up to 45 degrees of tilt: {found_upright / upright:.1%} of {upright}")
    print(f"boards found but wrong (a corner half a cell off or more): {totals['wrong boards']}")
    print(
        f"tiles read exactly: {totals['tiles exact'] / tiles:.2%} of {totals['visible tiles']}"
        f" (unknown {totals['tiles unknown']}, wrong {totals['tiles wrong']})"
    )
    # A board not found reads none of its tiles: counted as missed, finding a hard board
    # that was missed before cannot make the figure worse by adding its unclear tiles.
    every = totals["visible tiles"] + totals["tiles on boards not found"]
    print(
        f"tiles read exactly, boards not found counted: {totals['tiles exact'] / max(every, 1):.2%}"
        f" of {every}"
    )
    named = totals["tiles exact"] + totals["tiles wrong"]
    print(
        f"tiles named (not unknown): {named / tiles:.2%}, of which exact"
        f" {totals['tiles exact'] / max(named, 1):.2%}"
    )
    print(
        f"empty cells: {totals['visible empty']}, phantom tiles {totals['phantom tiles']},"
        f" read unknown {totals['empty read unknown']}"
    )
    print(f"wrong tiles on hidden cells: {totals['wrong tile on a hidden cell']}")
    if args.greyscale:
        seen = totals["tiles seen, colours unread"]
        print(
            f"no colour: tiles seen with their colours unread {seen / tiles:.2%} of"
            f" {totals['visible tiles']}, their numeral's value right"
            f" {totals['their value right'] / max(seen, 1):.2%}; tiles named anyway"
            f" {totals['tiles read as tiles']} (a guess), read empty {totals['tiles read empty']}"
        )
    print(f"whole images exactly right: {totals['images exact'] / n:.1%}")
    if corner_err:
        print(
            f"corner error px: median {statistics.median(corner_err):.1f}, "
            f"90% {np.percentile(corner_err, 90):.1f}"
        )
    lattice = [e for e in lattice_err if np.isfinite(e)]
    if lattice:
        print(
            "lattice error (cell centroids against the truth's camera, units): median "
            f"{statistics.median(lattice):.3f}, 90% {np.percentile(lattice, 90):.3f}"
        )
    if heights:
        told = [(t, h, f) for t, h, f in heights if f > 0]
        steep = [(t, h, f) for t, h, f in heights if t >= 30.0]
        ratio = statistics.median(f / h for _, h, f in told) if told else float("nan")
        print(
            f"raised tiles' height told: {len(told) / len(heights):.0%} of {len(heights)}"
            f" boards found, {sum(f > 0 for *_, f in steep) / max(len(steep), 1):.0%} of"
            f" {len(steep)} at 30 degrees of tilt or more; told / true height, median"
            f" {ratio:.2f}"
        )
    print(
        f"read time: median {statistics.median(times) * 1000:.0f} ms, "
        f"90% {np.percentile(times, 90) * 1000:.0f} ms (one core)"
    )
    for key in ("tilt", "light", "table", "blur", "motion", "hands", "harsh", "tiles"):
        parts = ", ".join(
            f"{name} {ok / max(all_, 1):.0%} ({all_})"
            for name, (ok, all_) in sorted(stats[key].items())
        )
        print(f"  exact images by {key}: {parts}")
    for key in ("tilt", "light", "table", "blur", "motion", "hands", "harsh", "tiles"):
        parts = ", ".join(
            f"{name} {ok / max(all_, 1):.1%} ({all_})"
            for name, (ok, all_) in sorted(tile_stats[key].items())
        )
        print(f"  tiles exact by {key}: {parts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
