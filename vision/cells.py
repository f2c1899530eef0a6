"""Stage 3: measure every cell of the rectified board.

Zones are fixed by the board's physics, in board units around each cell:
- the *rim corners* (near the cell's corners, away from its centre): black plastic on an
  empty or bonus cell, tile colour on a tile;
- the *sector patches*, one per edge, between the central disc and the edge: that
  edge's colour on a tile;
- the *flank patches*, two per edge, in the two halves of that edge's sector (towards
  each of its ends): the same colour on a tile, as one piece of plastic shows it;
  another colour in one of them is something over part of the tile;
- the *disc*: the navy disc and its white numeral at the centre of a tile;
- the *band*, outside the playing triangle: always black plastic, the black reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.colours import EDGE_ORDER
from vision.config import ReaderConfig
from vision.model import (
    CENTROIDS,
    EDGE_ENDS,
    EDGE_MIDPOINTS,
    GEOMETRY,
    PLAY_CORNERS,
    VERTICES,
    Canvas,
    FloatArray,
)

IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class CellZones:
    """Canvas pixel coordinates (rows, cols) of each zone of one cell."""

    rim: tuple[IntArray, IntArray] = field(repr=False)
    sectors: tuple[tuple[IntArray, IntArray], ...] = field(repr=False)  # EDGE_ORDER
    #: (edge, end) in EDGE_ORDER, then the edge's two ends in EDGE_ENDS order: 6 patches
    flanks: tuple[tuple[IntArray, IntArray], ...] = field(repr=False)
    disc: tuple[IntArray, IntArray] = field(repr=False)
    whole: tuple[IntArray, IntArray] = field(repr=False)


def _edge_distance(points: FloatArray, tri: FloatArray) -> FloatArray:
    """Signed distance of points to the triangle's sides (positive inside), min over sides."""
    c = tri.mean(axis=0)
    out = np.full(len(points), np.inf)
    for i in range(3):
        a, b = tri[i], tri[(i + 1) % 3]
        d = b - a
        n = np.array([-d[1], d[0]]) / math.hypot(*d)
        if (c - a) @ n < 0:
            n = -n
        out = np.minimum(out, (points - a) @ n)
    return out


@cache
def zones(ppu: int, cfg: ReaderConfig) -> tuple[tuple[CellZones, ...], tuple[IntArray, IntArray]]:
    """The zones of every cell and of the border band on a canvas of ``ppu``."""
    canvas = Canvas(ppu)
    out = []
    for i in range(len(CENTROIDS)):
        tri = VERTICES[i]
        lo = np.floor(canvas.to_canvas(tri.min(axis=0))).astype(int)
        hi = np.ceil(canvas.to_canvas(tri.max(axis=0))).astype(int)
        us, vs = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1))
        us, vs = us.ravel(), vs.ravel()
        pts = np.stack([canvas.x0 + (us + 0.5) / ppu, canvas.y0 + (vs + 0.5) / ppu], axis=1)
        ed = _edge_distance(pts, tri)
        r = np.hypot(*(pts - CENTROIDS[i]).T)
        rim = (ed > 0.03) & (ed < 0.11) & (r > 0.26)
        sectors = []
        for k in range(3):
            mid = EDGE_MIDPOINTS[i, k]
            direction = (mid - CENTROIDS[i]) / np.linalg.norm(mid - CENTROIDS[i])
            centre = CENTROIDS[i] + cfg.sector_distance * direction
            sel = np.hypot(*(pts - centre).T) < cfg.sector_radius
            sectors.append((vs[sel], us[sel]))
        flanks = []
        for k in range(3):
            for end in EDGE_ENDS[i, k]:
                # the incentre of the half sector (centroid, edge end, edge midpoint): as
                # far from the ridge, the tile's edge and the sector's middle as can be
                centre = _incentre(CENTROIDS[i], end, EDGE_MIDPOINTS[i, k])
                sel = np.hypot(*(pts - centre).T) < cfg.sector_radius
                flanks.append((vs[sel], us[sel]))
        disc = r < cfg.disc_radius * 0.9
        whole = ed > 0.02
        out.append(
            CellZones(
                (vs[rim], us[rim]),
                tuple(sectors),
                tuple(flanks),
                (vs[disc], us[disc]),
                (vs[whole], us[whole]),
            )
        )
    # The band: outside the playing triangle, between 0.06 and 0.3 units away.
    us, vs = np.meshgrid(np.arange(canvas.width), np.arange(canvas.height))
    us, vs = us.ravel(), vs.ravel()
    pts = np.stack([canvas.x0 + (us + 0.5) / ppu, canvas.y0 + (vs + 0.5) / ppu], axis=1)
    ed = _edge_distance(pts, PLAY_CORNERS)
    # Not beyond the corners, where the board's outline is rounded off and the table shows.
    beside_one_side = _sides_outside(pts, PLAY_CORNERS) == 1
    band = (ed < -0.06) & (ed > -0.3) & beside_one_side
    return tuple(out), (vs[band], us[band])


def _incentre(a: FloatArray, b: FloatArray, c: FloatArray) -> FloatArray:
    """The incentre (2,) of the triangle ``a``, ``b``, ``c`` (2,) each.

    >>> _incentre(np.array([0.0, 0.0]), np.array([4.0, 0.0]), np.array([0.0, 3.0])).tolist()
    [1.0, 1.0]
    """
    la, lb, lc = (float(np.linalg.norm(p - q)) for p, q in ((b, c), (c, a), (a, b)))
    return (la * a + lb * b + lc * c) / (la + lb + lc)  # type: ignore[no-any-return]


#: How far (board units) a flank patch's centre (the incentre of a half sector: the
#: centroid, an edge's end and its midpoint) lies from the half sector's sides, the
#: sector's boundary and the tile's edge among them.
HALF_SECTOR_INRADIUS: float = float(
    _edge_distance(
        _incentre(CENTROIDS[0], EDGE_ENDS[0, 0, 0], EDGE_MIDPOINTS[0, 0])[None],
        np.array([CENTROIDS[0], EDGE_ENDS[0, 0, 0], EDGE_MIDPOINTS[0, 0]]),
    )[0]
)


def _sides_outside(points: FloatArray, tri: FloatArray) -> NDArray[np.int64]:
    """How many of the triangle's sides each point lies outside of (0 inside)."""
    c = tri.mean(axis=0)
    count = np.zeros(len(points), dtype=np.int64)
    for i in range(3):
        a, b = tri[i], tri[(i + 1) % 3]
        d = b - a
        n = np.array([-d[1], d[0]])
        if (c - a) @ n < 0:
            n = -n
        count += ((points - a) @ n < 0).astype(np.int64)
    return count


@dataclass(frozen=True)
class PackedZones:
    """Every cell's zones concatenated in cell order, to measure all cells at once.

    ``*_starts`` are the offsets of each cell's (or each (cell, edge) sector's) pixels in
    the concatenated (rows, cols); ``sector_centres`` the centre pixel (rows, cols) of
    each of the 108 sector patches, in (cell, edge) order. ``*_flat`` are the same pixels
    as indices into the canvas's rows laid end to end (for :func:`pixels`).
    """

    rim: tuple[IntArray, IntArray] = field(repr=False)
    rim_starts: IntArray = field(repr=False)
    sectors: tuple[IntArray, IntArray] = field(repr=False)
    sector_starts: IntArray = field(repr=False)
    sector_centres: tuple[IntArray, IntArray] = field(repr=False)
    flanks: tuple[IntArray, IntArray] = field(repr=False)
    flank_starts: IntArray = field(repr=False)
    whole: tuple[IntArray, IntArray] = field(repr=False)
    whole_starts: IntArray = field(repr=False)
    rim_flat: IntArray = field(repr=False)
    sectors_flat: IntArray = field(repr=False)
    flanks_flat: IntArray = field(repr=False)
    whole_flat: IntArray = field(repr=False)
    #: each rim pixel's centre in board units (N, 2), and its cell (N,)
    rim_points: FloatArray = field(repr=False)
    rim_cells: IntArray = field(repr=False)


def pixels(image: NDArray[Any], flat: IntArray) -> NDArray[Any]:
    """``image[rows, cols]`` for ``flat`` = rows * width + cols: (N,) for an (H, W) image,
    (N, C) for (H, W, C) (``np.take`` on the rows laid end to end is several times faster
    than indexing by (rows, cols))."""
    return np.ascontiguousarray(image).reshape(-1, *image.shape[2:]).take(flat, axis=0)


def _pack(parts: list[tuple[IntArray, IntArray]]) -> tuple[tuple[IntArray, IntArray], IntArray]:
    starts = np.cumsum([0] + [len(r) for r, _ in parts[:-1]]).astype(np.int64)
    rows = np.concatenate([r for r, _ in parts]).astype(np.int64)
    cols = np.concatenate([c for _, c in parts]).astype(np.int64)
    return (rows, cols), starts


@cache
def packed_zones(ppu: int, cfg: ReaderConfig) -> PackedZones:
    """The zones of :func:`zones`, concatenated (cached per canvas size)."""
    cells, _ = zones(ppu, cfg)
    rim, rim_starts = _pack([z.rim for z in cells])
    sector_list = [s for z in cells for s in z.sectors]
    sectors, sector_starts = _pack(sector_list)
    centres = (
        np.array([int(np.median(r)) for r, _ in sector_list], dtype=np.int64),
        np.array([int(np.median(c)) for _, c in sector_list], dtype=np.int64),
    )
    flanks, flank_starts = _pack([f for z in cells for f in z.flanks])
    whole, whole_starts = _pack([z.whole for z in cells])
    canvas = Canvas(ppu)
    width = canvas.width
    return PackedZones(
        rim,
        rim_starts,
        sectors,
        sector_starts,
        centres,
        flanks,
        flank_starts,
        whole,
        whole_starts,
        rim[0] * width + rim[1],
        sectors[0] * width + sectors[1],
        flanks[0] * width + flanks[1],
        whole[0] * width + whole[1],
        canvas.board_from_canvas_points(np.stack([rim[1], rim[0]], axis=1) + 0.5),
        np.repeat(np.arange(len(cells)), np.diff(np.r_[rim_starts, len(rim[0])])),
    )


def segment_medians(values: NDArray[np.generic], starts: IntArray) -> FloatArray:
    """The median of each segment of ``values`` (N, C) cut at ``starts`` (S,): (S, C)
    float64.

    One sort per channel for all segments (as ``np.median`` per segment would give);
    uint8 values (canvas pixels) are sorted as one integer key with their segment.
    """
    n = len(values)
    ends = np.r_[starts[1:], n]
    counts = ends - starts
    seg = np.repeat(np.arange(len(starts), dtype=np.int64), counts)
    lo = starts + (counts - 1) // 2
    hi = starts + counts // 2
    out = np.empty((len(starts), values.shape[1]))
    for ch in range(values.shape[1]):
        if values.dtype == np.uint8:
            v = (sort_keys(seg * 256 + values[:, ch]) & 255).astype(np.float64)
        else:
            v = values[np.lexsort((values[:, ch], seg)), ch].astype(np.float64)
        out[:, ch] = 0.5 * (v[lo] + v[hi])
    return out


def cell_segments(
    flat: IntArray, starts: IntArray, per_cell: int, cells: Sequence[int]
) -> tuple[IntArray, IntArray]:
    """The pixels ``flat`` (N,) of the listed ``cells``' segments only, and where each
    segment starts among them: packed zones with ``per_cell`` consecutive segments per
    cell, cut at ``starts``; for :func:`segment_medians` of a few cells.

    >>> flat, starts = np.arange(10), np.array([0, 2, 3, 6, 8, 9])
    >>> [a.tolist() for a in cell_segments(flat, starts, 2, [2, 1])]
    [[8, 9, 3, 4, 5, 6, 7], [0, 1, 2, 5]]
    """
    ends = np.r_[starts[1:], len(flat)]
    segs = (np.asarray(cells, dtype=np.int64)[:, None] * per_cell + np.arange(per_cell)).ravel()
    lengths = ends[segs] - starts[segs]
    new_starts = np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64)
    offsets = np.repeat(starts[segs] - new_starts, lengths)
    return flat[np.arange(int(lengths.sum())) + offsets], new_starts


def moved_segments(
    flat: IntArray, starts: IntArray, per_cell: int, moves: IntArray, size: int
) -> IntArray:
    """The pixels ``flat`` (N,) of :func:`cell_segments`' cells (``per_cell`` segments
    each, cut at ``starts``), each cell's moved by its ``moves`` (K,) in flat index
    (rows times the width, plus columns), kept within an image of ``size`` pixels.

    >>> flat, starts = np.array([10, 11, 12, 20, 21]), np.array([0, 2, 3, 4])
    >>> moved_segments(flat, starts, 2, np.array([1, -5]), 100).tolist()
    [11, 12, 13, 15, 16]
    """
    ends = np.r_[starts[::per_cell][1:], len(flat)]
    lengths = ends - starts[::per_cell]
    return np.clip(flat + np.repeat(moves, lengths), 0, size - 1)  # type: ignore[no-any-return]


def sort_keys(keys: IntArray) -> IntArray:
    """``np.sort(keys)`` of non-negative integer keys, as 16-bit ones (a radix sort, many
    times faster) when they fit."""
    if len(keys) and int(keys.max()) < 1 << 16:
        return np.sort(keys.astype(np.uint16), kind="stable").astype(np.int64)
    return np.sort(keys)


def percentiles(values: NDArray[Any], qs: Sequence[float]) -> FloatArray:
    """``np.percentile(values, qs)`` (linear interpolation) of any array, flattened, not
    empty: (Q,) float64, interpolated in float64 (NumPy keeps float32 in float32). One
    partition, without the general function's overhead (a few tens of microseconds a
    call, where the reader makes dozens per frame)."""
    flat = np.asarray(values).ravel()
    pos = np.asarray(qs, dtype=np.float64) / 100.0 * (len(flat) - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, len(flat) - 1)
    part = np.partition(flat, np.unique(np.concatenate([lo, hi])))
    a, b = part[lo].astype(np.float64), part[hi].astype(np.float64)
    return a + (b - a) * (pos - lo)  # type: ignore[no-any-return]


def segment_percentiles(values: FloatArray, starts: IntArray, qs: Sequence[float]) -> FloatArray:
    """Percentiles ``qs`` (0..100) of each segment of ``values`` (N,) cut at ``starts``
    (S,), no segment empty: (S, Q), interpolated linearly as ``np.percentile`` does.

    One sort for all segments.
    """
    n = len(values)
    counts = np.r_[starts[1:], n] - starts
    seg = np.repeat(np.arange(len(starts)), counts)
    v = values[np.lexsort((values, seg))]
    out = np.empty((len(starts), len(qs)))
    for j, q in enumerate(qs):
        pos = (counts - 1) * (q / 100.0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, counts - 1)
        a, b = v[starts + lo], v[starts + hi]
        out[:, j] = a + (b - a) * (pos - lo)
    return out


@cache
def ridge_samples(ppu: int, cfg: ReaderConfig) -> tuple[IntArray, IntArray]:
    """Canvas pixels (rows, cols) across the black ridge along each cell's edges, (36, 3,
    A, P) each in EDGE_ORDER: A points along the edge's middle (clear of the stars where
    cells meet by ``ridge_end_margin`` of its length at each end), P across it, up to
    ``ridge_read_half_width`` units either side (the ridge, and where the fit may put it)."""
    canvas = Canvas(ppu)
    along = np.linspace(cfg.ridge_end_margin, 1.0 - cfg.ridge_end_margin, cfg.ridge_points)
    across = np.linspace(-cfg.ridge_read_half_width, cfg.ridge_read_half_width, cfg.ridge_points)
    pts = np.empty((len(CENTROIDS), 3, len(along), len(across), 2))
    for i in range(len(CENTROIDS)):
        for k, (a, b) in enumerate(EDGE_ENDS[i]):
            d = b - a
            n = np.array([-d[1], d[0]]) / math.hypot(*d)
            pts[i, k] = a + along[:, None, None] * d + across[None, :, None] * n
    uv = np.floor(canvas.to_canvas(pts.reshape(-1, 2))).astype(np.int64)
    cols = np.clip(uv[:, 0], 0, canvas.width - 1).reshape(pts.shape[:-1])
    rows = np.clip(uv[:, 1], 0, canvas.height - 1).reshape(pts.shape[:-1])
    return rows, cols


def _nearest_side(point: FloatArray) -> int:
    """The side of the playing triangle (PLAY_CORNERS[k] to PLAY_CORNERS[k + 1]) nearest
    a point."""
    a, b = PLAY_CORNERS, np.roll(PLAY_CORNERS, -1, axis=0)
    t = np.clip(np.sum((point - a) * (b - a), axis=1) / np.sum((b - a) ** 2, axis=1), 0, 1)
    return int(np.argmin(np.linalg.norm(a + t[:, None] * (b - a) - point, axis=1)))


#: (36, 3) int in EDGE_ORDER: the side of the playing triangle each cell's edge lies on,
#: numbered as :func:`band_sides` numbers them; -1 for the edges between two cells.
EDGE_SIDES: NDArray[np.int64] = np.array(
    [
        [
            -1 if GEOMETRY.across(i, e) is not None else _nearest_side(EDGE_MIDPOINTS[i, k])
            for k, e in enumerate(EDGE_ORDER)
        ]
        for i in range(len(CENTROIDS))
    ]
)


def _inward_normals() -> FloatArray:
    a, b = EDGE_ENDS[:, :, 0], EDGE_ENDS[:, :, 1]  # (36, 3, 2)
    d = b - a
    n = np.stack([-d[..., 1], d[..., 0]], axis=-1) / np.linalg.norm(d, axis=-1, keepdims=True)
    inward = np.sum((CENTROIDS[:, None, :] - a) * n, axis=-1, keepdims=True) > 0
    return np.where(inward, n, -n)  # type: ignore[no-any-return]


#: (36, 3, 2) each cell's edges' unit normals, pointing into the cell, in EDGE_ORDER.
INWARD: FloatArray = _inward_normals()
#: (36, 3) bool: the edge lies between two cells (not along the band).
SHARED: NDArray[np.bool_] = np.array(
    [[GEOMETRY.across(i, e) is not None for e in EDGE_ORDER] for i in range(len(CENTROIDS))]
)


#: (36, 3) each cell edge's position along its inward normal (board units)
_EDGE_LEVELS = np.sum(EDGE_ENDS[:, :, 0] * INWARD, axis=-1)


def overhung(points: FloatArray, cells: IntArray, shifts: FloatArray) -> NDArray[np.bool_]:
    """Which points of cells' frames, in the board's plane, a raised neighbour may hide.

    ``points`` (N, 2) board units, each in cell ``cells`` (N,); ``shifts`` (36, 2): where
    the camera sees a tile's top, less where its cell lies (board units, in the board's
    plane). A tile is a slab: its top and the walls below it cover its cell moved by
    anything up to its shift. A neighbour's does so across the edge they share, as deep
    as the shift goes into the cell. Returns (N,) bool.

    >>> i = int(np.flatnonzero(SHARED.all(axis=1))[0])  # a cell with three neighbours
    >>> a, b = EDGE_ENDS[i, 0]
    >>> near = (a + b) / 2 + 0.03 * INWARD[i, 0]  # just inside its first edge
    >>> shifts = np.zeros((36, 2))
    >>> bool(overhung(near[None], np.array([i]), shifts)[0])
    False
    >>> shifts[i] = 0.05 * INWARD[i, 0]  # tops seen moved into the cell across that edge
    >>> bool(overhung(near[None], np.array([i]), shifts)[0])
    True
    >>> shifts[i] = -0.05 * INWARD[i, 0]  # and away from it: its own top, not a neighbour's
    >>> bool(overhung(near[None], np.array([i]), shifts)[0])
    False
    """
    # A point lies less deep into its cell across an edge than the shift reaches: its
    # position along the edge's inward normal below the edge's own plus the reach, per
    # cell and edge (36, 3) first (no edge to a neighbour: nothing reaches over it).
    reach = np.einsum("ck,cek->ce", shifts, INWARD)
    limit = np.where(SHARED, _EDGE_LEVELS + reach, -np.inf)[cells]  # (N, 3)
    along = points[:, 0, None] * INWARD[cells, :, 0] + points[:, 1, None] * INWARD[cells, :, 1]
    return (along < limit).any(axis=1)  # type: ignore[no-any-return]


@cache
def band_sides(ppu: int, inner: float, outer: float) -> tuple[tuple[IntArray, IntArray], ...]:
    """Canvas pixels (rows, cols) of the border band along each side of the playing triangle.

    A strip between ``inner`` and ``outer`` units outside each side (PLAY_CORNERS[k] to
    PLAY_CORNERS[k + 1]), within the side's length: where only plastic and peg holes are.
    """
    canvas = Canvas(ppu)
    us, vs = np.meshgrid(np.arange(canvas.width), np.arange(canvas.height))
    us, vs = us.ravel(), vs.ravel()
    pts = np.stack([canvas.x0 + (us + 0.5) / ppu, canvas.y0 + (vs + 0.5) / ppu], axis=1)
    centre = PLAY_CORNERS.mean(axis=0)
    out = []
    for k in range(3):
        a, b = PLAY_CORNERS[k], PLAY_CORNERS[(k + 1) % 3]
        d = b - a
        length = math.hypot(*d)
        t = ((pts - a) @ d) / length
        n = np.array([-d[1], d[0]]) / length
        if (centre - a) @ n > 0:
            n = -n
        outside = (pts - a) @ n
        sel = (outside > inner) & (outside < outer) & (t > 0.5) & (t < length - 0.5)
        out.append((vs[sel], us[sel]))
    return tuple(out)


__all__ = [
    "EDGE_ORDER",
    "EDGE_SIDES",
    "INWARD",
    "SHARED",
    "CellZones",
    "PackedZones",
    "band_sides",
    "overhung",
    "packed_zones",
    "percentiles",
    "pixels",
    "ridge_samples",
    "segment_medians",
    "segment_percentiles",
    "sort_keys",
    "zones",
]
