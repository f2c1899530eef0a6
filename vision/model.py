"""The board as a geometric model in the board plane, and homography helpers.

Board-plane units: tile side = 1, apex of the playing triangle at (0, 0), x to the right,
y downwards. Points are ``(x, y)``; arrays of points have shape ``(N, 2)``, float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from engine import SPECTRANGLE36
from engine.colours import EDGE_ORDER

FloatArray = NDArray[np.float64]

SQRT3 = math.sqrt(3.0)
GEOMETRY = SPECTRANGLE36.geometry
SIDE = GEOMETRY.side  # 6 tiles
#: Apex, bottom-right and bottom-left corners of the playing triangle (the canonical order).
PLAY_CORNERS: FloatArray = np.array(
    [[0.0, 0.0], [SIDE / 2, SIDE * SQRT3 / 2], [-SIDE / 2, SIDE * SQRT3 / 2]]
)
CENTRE: FloatArray = PLAY_CORNERS.mean(axis=0)
CENTROIDS: FloatArray = np.array([c.centroid for c in GEOMETRY])
VERTICES: FloatArray = np.array([c.vertices for c in GEOMETRY])  # (36, 3, 2)
UP: NDArray[np.bool_] = np.array([c.orientation == "up" for c in GEOMETRY])
#: Half the distance between the discs (centroids) of two cells sharing an edge, board
#: units: a disc found nearer its cell's centroid than that is no neighbour's.
NEIGHBOUR_HALF: float = 0.5 * float(
    np.linalg.norm(CENTROIDS[:, None] - CENTROIDS[None], axis=2)[
        ~np.eye(len(CENTROIDS), dtype=bool)
    ].min()
)
BONUS: NDArray[np.int64] = np.array([c.bonus for c in GEOMETRY])
#: Midpoint of each cell's left, right and base edge: shape (36, 3, 2) in EDGE_ORDER.
EDGE_MIDPOINTS: FloatArray = np.array([[c.edge_midpoint(e) for e in EDGE_ORDER] for c in GEOMETRY])
#: The two ends of each cell's left, right and base edge: shape (36, 3, 2, 2) in EDGE_ORDER.
EDGE_ENDS: FloatArray = np.array([[c.edge_vertices(e) for e in EDGE_ORDER] for c in GEOMETRY])
#: The cell across each cell's left, right and base edge and that cell's edge there (its
#: index in EDGE_ORDER): shape (36, 3, 2) int in EDGE_ORDER, (-1, -1) on the board's edge.
FACING: NDArray[np.int64] = np.array(
    [
        [
            (o[0], EDGE_ORDER.index(o[1])) if (o := GEOMETRY.across(c.index, e)) else (-1, -1)
            for e in EDGE_ORDER
        ]
        for c in GEOMETRY
    ],
    dtype=np.int64,
)


def outer_corners(band_width: float) -> FloatArray:
    """Corners of the board's outline (sharp, before rounding) for a border band width."""
    return CENTRE + (PLAY_CORNERS - CENTRE) / playing_share(band_width)


def playing_share(band_width: float) -> float:
    """The playing triangle's size as a share of the board's outline (the same centre)
    for a border band width.

    >>> round(playing_share(0.0), 3), round(playing_share(0.46), 3)
    (1.0, 0.79)
    """
    inradius = SIDE / (2 * SQRT3)
    return inradius / (inradius + band_width)


def project(h: FloatArray, points: FloatArray) -> FloatArray:
    """Apply a 3x3 homography to points of shape (N, 2)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, dtype=np.float64).T
    w = homog[:, 2:3]
    w = np.where(np.abs(w) < 1e-12, 1e-12, w)
    return homog[:, :2] / w


def canonical_order(corners: FloatArray) -> FloatArray:
    """Order three image corners as apex, bottom-right, bottom-left.

    The apex is the corner highest in the image (smallest y); the other two follow
    clockwise on screen, as the board's own corners do in the board plane.

    >>> canonical_order(np.array([[10.0, 90.0], [50.0, 10.0], [90.0, 90.0]])).tolist()
    [[50.0, 10.0], [90.0, 90.0], [10.0, 90.0]]
    """
    pts = np.asarray(corners, dtype=np.float64).reshape(3, 2)
    apex = int(np.argmin(pts[:, 1]))
    a, b, c = pts[apex], pts[(apex + 1) % 3], pts[(apex + 2) % 3]
    cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return np.array([a, b, c]) if cross > 0 else np.array([a, c, b])


@dataclass(frozen=True)
class Canvas:
    """A rectified view of the board plane: ``ppu`` pixels per unit, with a margin.

    Canvas pixel ``(u, v)`` is board point ``(x0 + u / ppu, y0 + v / ppu)``.
    """

    ppu: float
    margin: float = 0.7
    x0: float = field(init=False)
    y0: float = field(init=False)
    width: int = field(init=False)
    height: int = field(init=False)

    def __post_init__(self) -> None:
        lo = PLAY_CORNERS.min(axis=0) - self.margin
        hi = PLAY_CORNERS.max(axis=0) + self.margin
        object.__setattr__(self, "x0", float(lo[0]))
        object.__setattr__(self, "y0", float(lo[1]))
        object.__setattr__(self, "width", math.ceil((hi[0] - lo[0]) * self.ppu))
        object.__setattr__(self, "height", math.ceil((hi[1] - lo[1]) * self.ppu))

    @property
    def board_from_canvas(self) -> FloatArray:
        s = 1.0 / self.ppu
        return np.array([[s, 0.0, self.x0], [0.0, s, self.y0], [0.0, 0.0, 1.0]])

    def board_from_canvas_points(self, points: FloatArray) -> FloatArray:
        """Board points (N, 2) of canvas points (u, v) (N, 2)."""
        return np.asarray(points, dtype=np.float64) / self.ppu + np.array([self.x0, self.y0])

    def to_canvas(self, points: FloatArray) -> FloatArray:
        pts = np.asarray(points, dtype=np.float64)
        return (pts - np.array([self.x0, self.y0])) * self.ppu
