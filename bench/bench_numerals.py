"""Accuracy and speed of the numeral reader on a generated labelled set.

    python bench/bench_numerals.py DIR [--limit N] [--truth-geometry]

DIR holds images with truth files beside them (``spectrangle generate DIR --stills N``).
Each image goes through ``BoardReader().read``; the numerals of the visible tiles are then
read on the reader's own canvas (``reading.canvas_bgr``) and compared with the truth, the
reading turned to the truth's apex as in ``bench_read.py``. ``--truth-geometry`` rectifies
with the truth homography and lens instead (no lattice error: the reader's upper bound).

Accuracy is top-1 over visible tiles; a flat cost row (nothing read) counts as wrong and is
also counted apart. "geometry ok" keeps the tiles whose centre the reader put within 0.1
tile of the truth. Time is per cell, one core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as the reader runs

import cv2
import numpy as np
from _stills import labelled_stills
from numpy.typing import NDArray

from engine import SPECTRANGLE36
from vision.config import default_config
from vision.model import CENTROIDS, Canvas, project
from vision.numerals import NumeralReader
from vision.read import BoardReader, load_image
from vision.rectify import Lens, px_per_unit, warp_to_canvas

GEO = SPECTRANGLE36.geometry
GEOMETRY_OK_UNITS = 0.1


def canvas_ppu(canvas_bgr: NDArray[np.uint8]) -> int:
    """The integer ppu whose Canvas has this canvas' size."""
    h, w = canvas_bgr.shape[:2]
    for ppu in range(8, 400):
        c = Canvas(ppu)
        if c.width == w and c.height == h:
            return ppu
    raise ValueError(f"no Canvas has size {w}x{h}")


def truth_image_points(truth: dict[str, Any], board_pts: NDArray[np.float64]) -> NDArray[Any]:
    """Board points (N, 2) -> frame pixels through the truth homography and camera k1."""
    pts = project(np.array(truth["homography"]), board_pts)
    cam = truth.get("camera") or {}
    dist = cam.get("dist") or [0.0]
    if not cam or not dist[0]:
        return pts
    k = np.array(cam["K"], dtype=np.float64)
    n = (pts - k[:2, 2]) / np.array([k[0, 0], k[1, 1]])
    n = n * (1.0 + dist[0] * (n**2).sum(axis=1, keepdims=True))
    return n * np.array([k[0, 0], k[1, 1]]) + k[:2, 2]


def truth_lens(truth: dict[str, Any]) -> Lens | None:
    """The truth camera's k1 as the reader's one-parameter Lens (same centre)."""
    cam = truth.get("camera") or {}
    dist = cam.get("dist") or [0.0]
    if not cam or not dist[0]:
        return None
    lens = Lens.none((cam["height"], cam["width"]))
    return lens.with_k(float(dist[0]) * (lens.norm / float(cam["K"][0][0])) ** 2)


def blur_bucket(cond: dict[str, Any]) -> str:
    blur = (cond.get("blur") or 0) + (1.0 if cond.get("motion_blur") else 0)
    return "strong" if blur > 1.2 else ("some" if blur > 0.5 else "none")


def ppu_bucket(ppu: int) -> str:
    lo = 36 + (max(ppu, 36) - 36) // 12 * 12
    return f"{lo}-{lo + 11}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--truth-geometry", action="store_true")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    cfg = default_config()
    reader = BoardReader()
    numerals = NumeralReader()
    truths = labelled_stills(args.folder, args.limit)
    if not truths:
        print(f"no labelled images in {args.folder}", file=sys.stderr)
        return 2
    stats: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    confusion = np.zeros((6, 6), np.int64)
    times: list[float] = []
    flat = 0
    gaps_ok: list[float] = []
    gaps_wrong: list[float] = []
    not_found = 0
    for path in truths:
        truth = json.loads(path.read_text())
        frame = load_image(str(path.with_suffix(".jpg")))
        reading = reader.read(frame)
        if not reading.found or reading.fit is None or reading.canvas_bgr is None:
            not_found += 1
            continue
        ppu = canvas_ppu(reading.canvas_bgr)
        ours = np.array(reading.to_json()["board"]["corners"])
        true_c = np.array(truth["corners"])
        best = min(range(3), key=lambda k: np.abs(np.roll(true_c, -k, axis=0) - ours).sum())
        to_truth = list(range(36))  # our cell index -> truth cell index
        for _ in range(best):
            to_truth = [GEO.rotation[i] for i in to_truth]
        if args.truth_geometry:
            # The truth in the reader's frame: our board point p is truth point R^best(p).
            h_truth = np.array(truth["homography"])
            src = CENTROIDS[to_truth[:3]]
            dst = CENTROIDS[:3]
            affine = cv2.getAffineTransform(dst.astype(np.float32), src.astype(np.float32))
            turn = np.vstack([affine, [0.0, 0.0, 1.0]])
            scale = px_per_unit(h_truth)
            sigma = 0.5 * scale / ppu - 0.5  # as the reader does before warping
            src = cv2.GaussianBlur(frame, (0, 0), sigma) if sigma > 0.3 else frame
            with np.errstate(all="ignore"):  # far off-frame points of a strong lens
                canvas_bgr = warp_to_canvas(
                    src, h_truth @ turn, Canvas(ppu), lens=truth_lens(truth)
                )
        else:
            canvas_bgr = reading.canvas_bgr
        hidden = set(truth.get("covered", [])) | set(truth.get("outside", []))
        cells: list[int] = []
        values: list[int] = []
        for j in range(36):
            t = truth["cells"][to_truth[j]]
            if t["state"] == "tile" and to_truth[j] not in hidden:
                cells.append(j)
                values.append(int(t["value"]))
        if not cells:
            continue
        ours_px = reading.fit.to_image(CENTROIDS[cells])
        true_px = truth_image_points(truth, CENTROIDS[[to_truth[j] for j in cells]])
        unit_px = np.linalg.norm(
            reading.fit.to_image(CENTROIDS[cells] + [1.0, 0.0]) - ours_px, axis=1
        )
        geo_err = np.linalg.norm(ours_px - true_px, axis=1) / np.maximum(unit_px, 1e-6)
        t0 = time.perf_counter()
        costs = numerals.costs(canvas_bgr, cells, ppu, cfg)
        times.append((time.perf_counter() - t0) / len(cells))
        if costs is None:
            continue
        cond = truth.get("conditions", {})
        for k, v in enumerate(values):
            row = costs[k]
            order = np.sort(row)
            pred = int(np.argmin(row)) + 1
            is_flat = order[1] - order[0] < 1e-9
            ok = pred == v and not is_flat
            flat += int(is_flat)
            confusion[v - 1, pred - 1] += 1
            (gaps_ok if ok else gaps_wrong).append(float(order[1] - order[0]))
            keys = {
                "all": "all",
                "ppu": ppu_bucket(ppu),
                "blur": blur_bucket(cond),
                "light": str(cond.get("light")),
                "geometry": "ok" if geo_err[k] < GEOMETRY_OK_UNITS else "off",
            }
            for key, name in keys.items():
                stats[key][name][0] += int(ok)
                stats[key][name][1] += 1
    ok_all, n_all = stats["all"]["all"]
    print(f"images: {len(truths)}, board not found: {not_found}")
    print(f"numerals read right (top-1): {ok_all / max(n_all, 1):.1%} of {n_all} visible tiles")
    print(f"flat (nothing read): {flat}")
    for key in ("geometry", "ppu", "blur", "light"):
        parts = ", ".join(
            f"{name} {ok / max(n, 1):.1%} ({n})" for name, (ok, n) in sorted(stats[key].items())
        )
        print(f"  by {key}: {parts}")
    if gaps_ok:
        print(
            f"cost gap best-to-next: right median {statistics.median(gaps_ok):.2f}, "
            f"wrong median {statistics.median(gaps_wrong) if gaps_wrong else 0.0:.2f}"
        )
    print("confusion (rows truth 1-6, columns read 1-6):")
    for r in confusion:
        print("   " + " ".join(f"{x:5d}" for x in r))
    if times:
        print(
            f"time per cell: median {statistics.median(times) * 1000:.3f} ms, "
            f"90% {np.percentile(times, 90) * 1000:.3f} ms (one core)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
