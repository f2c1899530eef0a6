"""Geometry for the page's SVG: the board's cells and the score track around it.

Coordinates are board-plane units (tile side 1, apex at (0, 0), y down), as in the
variant data. The score track runs in the border band like on the physical board:
a start hole next to the apex, then holes 1..100 clockwise round the triangle.

>>> from engine import SPECTRANGLE36
>>> holes = track_holes(SPECTRANGLE36)
>>> len(holes), holes[0]["n"], holes[-1]["n"]
(101, 0, 100)
>>> hole_for(0), hole_for(7), hole_for(100), hole_for(101), hole_for(-3)
(0, 7, 100, 1, 0)
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from engine.colours import EDGE_ORDER
from engine.variant import Variant

Point = tuple[float, float]
TRACK_HOLES = 100
#: Distance of the hole line and of the band's outer edge from the playing triangle.
HOLE_OFFSET = 0.28
BAND_OFFSET = 0.56
TAG_OFFSET = 0.86


def hole_for(score: int) -> int:
    """The hole (0 = start, 1..100) of a peg showing ``score``; laps wrap past 100."""
    if score <= 0:
        return 0
    return (score - 1) % TRACK_HOLES + 1


def corners(variant: Variant) -> tuple[Point, Point, Point]:
    """Apex, right base corner and left base corner of the playing triangle."""
    pts = [v for cell in variant.geometry for v in cell.vertices]
    apex = min(pts, key=lambda p: (p[1], abs(p[0])))
    bottom = max(p[1] for p in pts)
    base = [p for p in pts if abs(p[1] - bottom) < 1e-6]
    return apex, max(base), min(base)


def _scaled(variant: Variant, offset: float) -> tuple[Point, Point, Point]:
    a, b, c = corners(variant)
    gx, gy = (a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3
    side = math.dist(b, c)
    inradius = side / (2 * math.sqrt(3))
    k = (inradius + offset) / inradius

    def grow(p: Point) -> Point:
        return (round(gx + (p[0] - gx) * k, 4), round(gy + (p[1] - gy) * k, 4))

    return grow(a), grow(b), grow(c)


def track_holes(variant: Variant) -> list[dict[str, Any]]:
    """The 101 positions of the track: 0 is the start, then 1..100 clockwise."""
    a, b, c = _scaled(variant, HOLE_OFFSET)
    ta, tb, tc = _scaled(variant, TAG_OFFSET)
    total = TRACK_HOLES + 1
    per_side = [total - 2 * (total // 3), total // 3, total // 3]
    sides = [((a, b), (ta, tb)), ((b, c), (tb, tc)), ((c, a), (tc, ta))]
    holes: list[dict[str, Any]] = []
    for n_side, ((p, q), (tp, tq)) in zip(per_side, sides, strict=True):
        for i in range(n_side):
            t = 0.07 + 0.86 * (i + 0.5) / n_side
            n = len(holes)
            hole: dict[str, Any] = {
                "n": n,
                "x": round(p[0] + (q[0] - p[0]) * t, 4),
                "y": round(p[1] + (q[1] - p[1]) * t, 4),
            }
            if n % 10 == 0 and n > 0:
                hole["tag"] = {
                    "x": round(tp[0] + (tq[0] - tp[0]) * t, 4),
                    "y": round(tp[1] + (tq[1] - tp[1]) * t, 4),
                }
            holes.append(hole)
    return holes


@cache
def geometry_json(variant: Variant) -> dict[str, Any]:
    """Cells, track and frame of a variant's board, for the page's script."""
    cells = []
    for cell in variant.geometry:
        cells.append(
            {
                "index": cell.index,
                "bonus": cell.bonus,
                "orientation": cell.orientation,
                "vertices": [list(v) for v in cell.vertices],
                "centroid": [round(x, 4) for x in cell.centroid],
                "edges": {e.value: [list(v) for v in cell.edge_vertices(e)] for e in EDGE_ORDER},
            }
        )
    band = _scaled(variant, BAND_OFFSET)
    xs = [p[0] for p in band]
    ys = [p[1] for p in band]
    margin = 0.55
    return {
        "variant": variant.name,
        "cells": cells,
        "track": track_holes(variant),
        "band": [list(p) for p in band],
        "board": [list(p) for p in corners(variant)],
        "viewbox": [
            round(min(xs) - margin, 3),
            round(min(ys) - margin, 3),
            round(max(xs) - min(xs) + 2 * margin, 3),
            round(max(ys) - min(ys) + 2 * margin, 3),
        ],
    }
