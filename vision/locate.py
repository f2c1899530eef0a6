"""Stage 1: find the board's outline in a frame and make a first board-to-image map.

The board is matte black plastic: a large dark, colourless region whose convex outline
is a (rounded) triangle. Darkness is judged relative to the local brightness of the
frame, so uneven light and colour casts do not move the threshold. Loose tiles are
bright, hands are not dark, and a partly covered or cut-off border only removes points
from the three side lines, which are fitted robustly.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, overload

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import ReaderConfig
from vision.errors import BoardNotFoundError
from vision.model import FloatArray, canonical_order, outer_corners, playing_share

log = logging.getLogger(__name__)

Line = tuple[float, float]  # (rho, theta) of a Hough line


@dataclass(frozen=True)
class Outline:
    """The board's outline: its three sharp corners in frame pixels (canonical order)."""

    corners: FloatArray  # (3, 2) float64, apex / bottom-right / bottom-left
    fill: float  # share of the triangle's sides that the dark region's outline follows
    cut_off: bool  # the dark region touches the frame's edge

    def __repr__(self) -> str:
        pts = ", ".join(f"({x:.0f}, {y:.0f})" for x, y in self.corners)
        return f"Outline([{pts}], fill={self.fill:.2f}, cut_off={self.cut_off})"


def relative_value(
    frame_bgr: NDArray[np.uint8], cfg: ReaderConfig
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Value and chroma relative to the local white reference, float32 (H, W) each.

    The reference is the brightest things nearby, smoothed, so uneven light and colour
    casts do not move the thresholds.
    """
    b, g, r = cv2.split(frame_bgr)
    value = cv2.max(cv2.max(b, g), r)
    chroma = cv2.subtract(value, cv2.min(cv2.min(b, g), r)).astype(np.float32)
    rel = value.astype(np.float32)
    ref = white_reference(rel, cfg)
    np.divide(rel, ref, out=rel)
    np.divide(chroma, ref, out=chroma)
    return rel, chroma


def relative_value_only(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> NDArray[np.float32]:
    """The value half of :func:`relative_value` (the same numbers), float32 (H, W)."""
    b, g, r = cv2.split(frame_bgr)
    rel = cv2.max(cv2.max(b, g), r).astype(np.float32)
    np.divide(rel, white_reference(rel, cfg), out=rel)
    return rel


def white_reference(value: NDArray[np.float32], cfg: ReaderConfig) -> NDArray[np.float32]:
    """The local white reference (H, W) float32 of a value channel (H, W) float32: the
    brightest values within ``illumination_window`` of the frame's size, smoothed, found at
    a quarter of the resolution; at least 24."""
    h, w = value.shape
    k = max(3, int(cfg.illumination_window * max(h, w)) | 1)
    small = cv2.resize(value, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    ks = max(3, (k // 4) | 1)
    ref = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ks, ks)))
    ref = cv2.blur(ref, (ks, ks))
    ref = cv2.resize(ref, (w, h), interpolation=cv2.INTER_LINEAR)
    np.maximum(ref, np.float32(24.0), out=ref)
    return ref  # type: ignore[no-any-return]


def dark_masks(
    small_bgr: NDArray[np.uint8], cfg: ReaderConfig, levels: Sequence[float] | None = None
) -> list[NDArray[np.uint8]]:
    """The dark and colourless pixels (H, W) uint8 0/255 of a frame (H, W, 3) uint8 at
    each darkness level (``cfg.dark_levels`` or ``levels``): the board's plastic on a
    table brighter than it."""
    rel_v, rel_c = relative_value(small_bgr, cfg)
    colourless = rel_c < cfg.dark_relative_chroma
    return [
        ((rel_v < level) & colourless).astype(np.uint8) * 255
        for level in (cfg.dark_levels if levels is None else levels)
    ]


def not_table_masks(small_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> list[NDArray[np.uint8]]:
    """The pixels (H, W) uint8 0/255 of a frame (H, W, 3) uint8 that are not the table,
    one mask per ``table_distances`` (ln units of a channel's ratio, either way).

    A table as dark as the board's plastic hides the plastic from :func:`dark_masks`
    (the two merge); the board, its tiles and whatever else lies there then stand out
    from the table instead (the table: :func:`outer_strip`'s median colour).
    """
    colour = cv2.GaussianBlur(small_bgr, (5, 5), 0).astype(np.float32)
    np.log(colour + np.float32(4.0), out=colour)
    table = np.median(outer_strip(colour, cfg), axis=0).astype(np.float32)
    distance = np.abs(colour - table).max(axis=2)
    return [(distance > d).astype(np.uint8) * 255 for d in cfg.table_distances]


def structure_mask(small_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> NDArray[np.uint8]:
    """The regions (H, W) uint8 0/255 of a frame (H, W, 3) uint8 that edges enclose: its
    edges (Canny on the grey, equalised locally) joined where they lie within
    ``structure_close`` of the long side, each closed outline filled.

    A table as dark as the plastic may also share its colour: the board then stands out
    by neither, but by its structure, on any table and under any light. Its ribs, the
    windows' edges, the tiles and the peg holes are edges a few pixels apart, which join
    into one region; the band's outer edge closes it. A plain table has no edges, and an
    arm or a sheet of paper only its outline (filled as well: the outline candidates
    survive an arm touching the board, as on the dark masks).

    >>> from vision.config import default_config
    >>> frame = np.full((240, 320, 3), 30, np.uint8)
    >>> for k in range(80, 160, 8):  # a patch of close lines on a plain table
    ...     frame[k : k + 3, 100:200] = 60
    >>> mask = structure_mask(frame, default_config())
    >>> bool(mask[120, 150]), bool(mask[20, 20])
    (True, False)
    """
    grey = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
    grey = cv2.createCLAHE(clipLimit=cfg.structure_clahe).apply(grey)  # (8 x 8 tiles)
    low, high = cfg.structure_edges
    edges = cv2.Canny(grey, low, high)
    k = max(5, int(cfg.structure_close * max(grey.shape)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    joined = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, kernel)
    contours, _ = cv2.findContours(joined, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(joined)
    cv2.drawContours(filled, contours, -1, 255, thickness=cv2.FILLED)
    return filled


def outer_strip(image: NDArray[Any], cfg: ReaderConfig) -> NDArray[Any]:
    """The pixels (N, C) of an image (H, W, C) in its outer strip, ``table_strip`` of
    its short side wide: what the table shows most of (a board filling most of the
    frame, or cut off, still leaves most of the strip to the table)."""
    h, w = image.shape[:2]
    m = max(2, round(cfg.table_strip * min(h, w)))
    c = image.shape[2]
    return np.concatenate(
        [
            image[:m].reshape(-1, c),
            image[-m:].reshape(-1, c),
            image[m:-m, :m].reshape(-1, c),
            image[m:-m, -m:].reshape(-1, c),
        ]
    )


def table_looks_dark(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> bool:
    """Whether the table in a frame (H, W, 3) uint8 is dark: the median brightest
    channel of :func:`outer_strip` below ``dark_table_share`` of the frame's bright
    things (its ``dark_table_bright_percentile``: the tiles' lightest sectors and
    numerals, paper). A lit table of any colour is at least about a third as bright as
    the tiles; the plastic a tenth or two. The bright things may be few: at a game's
    start a handful of tiles lie beside an empty board, a percent of the frame or
    less, the darker sectors of which a lower percentile would take for the bright.
    The top 0.2% of the frame (1,800 pixels of 1280x720) is about one tile's lightest
    sector and numeral where the board fills a quarter of the frame: more than a glint
    or a few hot pixels, and within two or three loose tiles.

    >>> from vision.config import default_config
    >>> frame = np.full((400, 600, 3), 40, np.uint8)  # a dark table
    >>> frame[180:200, 280:330] = 220  # two loose tiles' worth of light things
    >>> table_looks_dark(frame, default_config())
    True
    >>> table_looks_dark(np.full((400, 600, 3), 120, np.uint8), default_config())
    False
    """
    b, g, r = cv2.split(np.ascontiguousarray(frame_bgr[::4, ::4]))
    value = cv2.max(cv2.max(b, g), r)
    table = float(np.median(outer_strip(value[..., None], cfg)))
    bright = float(np.percentile(value, cfg.dark_table_bright_percentile))
    return table < cfg.dark_table_share * max(bright, 1.0)


def lifted_veil(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> NDArray[np.uint8]:
    """The frame (H, W, 3) uint8 with the veil of light over a dark table taken off.

    A lamp's glare (its reflection off a glossy table, and off the board) adds about the
    same light to every channel of everything under it: the black plastic and the dark
    table as much as the tiles. Most patches ``veil_window`` of the frame's long side
    wide hold something near black in one channel at least (the plastic's ribs, the
    table, a tile's navy disc), so the darkest channel there is the veil: it is opened
    (a minimum, then a maximum filter over such patches), smoothed as wide, kept no
    brighter than each pixel's own darkest channel, and taken off all three channels,
    less its level over the table in the frame's outer strip (the table's own darkness
    stays as it was). Where a patch holds nothing dark (between the discs of a large
    board's packed tiles, on an arm or a sheet of paper) that thing's own darkest
    channel is taken off too: the result is for looking for the board, not for reading
    its colours.

    >>> from vision.config import default_config
    >>> frame = np.full((180, 320, 3), 20, np.uint8)  # a dark table
    >>> yy, xx = np.mgrid[:180, :320]
    >>> glare = 120 * np.exp(-((xx - 160) ** 2 + (yy - 90) ** 2) / (2 * 30.0**2))
    >>> lit = np.clip(frame + glare[..., None], 0, 255).astype(np.uint8)
    >>> int(lit[90, 160, 0]), int(lifted_veil(lit, default_config())[90, 160, 0])
    (140, 26)
    """
    value = darkest_channel(frame_bgr)
    h, w = value.shape
    k = max(3, int(cfg.veil_window * max(h, w)) | 1)
    veil, small, _ = darkest_veil(value, k)
    table = float(np.median(outer_strip(small[..., None], cfg)))
    lift = cv2.subtract(cv2.min(np.rint(veil).astype(np.uint8), value), table)
    return taken_off(frame_bgr, lift)


def darkest_channel(frame_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """min(B, G, R) (H, W) uint8 of a frame (H, W, 3) uint8: near black wherever one
    channel is (the plastic, a navy disc), and lifted by a veil of light as all are."""
    return cv2.min(cv2.min(frame_bgr[..., 0], frame_bgr[..., 1]), frame_bgr[..., 2])  # type: ignore[no-any-return]


def darkest_veil(
    darkest: NDArray[np.uint8], k: int, inside: NDArray[np.bool_] | None = None
) -> tuple[NDArray[np.float32], NDArray[np.float32], float]:
    """The veil of light over an image whose patches ``k`` px wide mostly hold something
    near black: its :func:`darkest_channel` (H, W) uint8 opened over such patches (a
    minimum, then a maximum filter) and smoothed as wide, at a quarter of the resolution
    (it is smooth at that scale already). Returns it (H, W) float32, the same at the
    quarter resolution, and the level of the darkest patches (the 5th percentile of the
    opened image: what no veil lifts).

    ``inside`` (H, W) bool: the pixels that show the image; elsewhere nothing dark is
    taken to lie, and the smoothing takes that level.
    """
    h, w = darkest.shape
    patch = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    filled = darkest if inside is None else np.where(inside, darkest, np.uint8(255))
    opened = cv2.morphologyEx(filled, cv2.MORPH_OPEN, patch)
    size = (max(1, w // 4), max(1, h // 4))
    small = cv2.resize(opened, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    shown = np.ones(small.shape, dtype=bool)
    if inside is not None:  # (wholly inside)
        mask = inside.astype(np.uint8) * np.uint8(255)
        shown = cv2.resize(mask, size, interpolation=cv2.INTER_AREA) == 255
    level = float(np.percentile(small[shown], 5)) if shown.any() else 0.0
    smooth = small if inside is None else np.where(shown, small, np.float32(round(level)))
    smooth = cv2.GaussianBlur(smooth, (0, 0), k / 12.0)
    veil = cv2.resize(smooth, (w, h), interpolation=cv2.INTER_LINEAR)
    return veil, smooth, level  # type: ignore[return-value]


def taken_off(frame_bgr: NDArray[np.uint8], lift: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A frame (H, W, 3) uint8 less ``lift`` (H, W) uint8 in every channel (saturating)."""
    return cv2.subtract(frame_bgr, cv2.merge([lift, lift, lift]))  # type: ignore[no-any-return]


def _fit_side(
    points: FloatArray, a: FloatArray, b: FloatArray, tol: float
) -> tuple[FloatArray, FloatArray] | None:
    """Fit a line to the outline points along side a-b (middle part only)."""
    d = b - a
    length = float(np.hypot(*d))
    if length < 1:
        return None
    u = d / length
    n = np.array([-u[1], u[0]])
    rel = points - a
    t = rel @ u / length
    dist = np.abs(rel @ n)
    sel = points[(t > 0.18) & (t < 0.82) & (dist < tol)]
    if len(sel) < 12:
        return None
    vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], dtype=np.float64), np.array([vx, vy], dtype=np.float64)


def _intersect(
    l1: tuple[FloatArray, FloatArray], l2: tuple[FloatArray, FloatArray]
) -> FloatArray | None:
    """Where two lines (point, direction) cross, or None where they are parallel.

    >>> _intersect((np.zeros(2), np.array([1.0, 0.0])), (np.ones(2), np.array([0.0, 1.0])))
    array([1., 0.])
    >>> _intersect((np.zeros(2), np.array([1.0, 0.0])), (np.ones(2), np.array([2.0, 0.0])))
    """
    (p, r), (q, s) = l1, l2
    den = r[0] * s[1] - r[1] * s[0]
    if abs(den) < 1e-9:
        return None
    t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / den
    return p + t * r  # type: ignore[no-any-return]


def enclosing_triangle(hull: NDArray[np.generic]) -> FloatArray | None:
    """The smallest triangle (3, 2) float64 enclosing a convex hull (N, 1, 2), or None
    where OpenCV finds none (it gives an empty one for some hulls, OpenCV 5.1 for one
    cut by the frame's edge).

    >>> enclosing_triangle(np.array([[[0, 0]], [[10, 0]], [[0, 10]]], np.float32)).shape
    (3, 2)
    """
    try:
        _, tri = cv2.minEnclosingTriangle(np.asarray(hull, dtype=np.float32))
    except cv2.error:
        return None
    if tri is None or np.size(tri) != 6 or not np.isfinite(tri).all():
        return None
    return np.asarray(tri, dtype=np.float64).reshape(3, 2)


def _supports(
    corners: FloatArray, pts: FloatArray, shape: tuple[int, int], tol: FloatArray
) -> FloatArray:
    """How much of each triangle's sides the outline points follow (0..1), for T
    triangles ``corners`` (T, 3, 2) at once with tolerances ``tol`` (T,): (T,).

    Only the parts of the sides inside the frame count, and not the rounded corners;
    ``pts`` (P, 2) float64; the three sides are measured together.
    """
    h, w = shape
    a = corners
    d = np.roll(corners, -1, axis=1) - a  # (T, 3, 2) side vectors
    length = np.hypot(d[..., 0], d[..., 1])  # (T, 3)
    degenerate = np.any(length < 1, axis=1)
    length = np.maximum(length, 1.0)
    u = d / length[..., None]
    ts = np.linspace(0.15, 0.85, 36)
    samples = a[:, :, None, :] + (ts * length[..., None])[..., None] * u[:, :, None, :]
    inside = (
        (samples[..., 0] > 2)
        & (samples[..., 0] < w - 3)
        & (samples[..., 1] > 2)
        & (samples[..., 1] < h - 3)
    )  # (T, 3, 36)
    # Each point's distance across each side's line, then along the sides it lies on.
    normal = np.stack([-u[..., 1], u[..., 0]], axis=-1)  # (T, 3, 2)
    across = normal @ pts.T - (normal * a).sum(axis=-1)[..., None]  # (T, 3, P)
    near = np.flatnonzero(np.abs(across) < tol[:, None, None])
    tri_side, pt = np.divmod(near, len(pts))  # (the side's index in (T * 3), the point's)
    a_x, a_y = a.reshape(-1, 2)[tri_side].T
    u_x, u_y = u.reshape(-1, 2)[tri_side].T
    along = (pts[pt, 0] - a_x) * u_x + (pts[pt, 1] - a_y) * u_y
    idx = np.round((along / length.ravel()[tri_side] - 0.15) / 0.02).astype(int)
    ok = (idx >= 0) & (idx < len(ts))
    hit = np.zeros(inside.shape, bool)
    hit.reshape(-1, len(ts))[tri_side[ok], idx[ok]] = True
    total = inside.sum(axis=(1, 2))
    out = (hit & inside).sum(axis=(1, 2)) / np.maximum(total, 1)
    return np.where(degenerate | (total == 0), 0.0, out)  # type: ignore[no-any-return]


def _distinct_lines(
    lines: FloatArray, limit: int, apart: float, kept: list[Line] | None = None
) -> list[Line]:
    """``kept`` (a copy) and more of ``lines`` (N, 2) of (rho, theta), in order, up to
    ``limit`` in all: those not within ``apart`` pixels and 7 degrees of one kept before."""
    kept = [] if kept is None else list(kept)
    for rho, theta in lines:
        if len(kept) == limit:
            break
        if all(not _same_line((rho, theta), line, apart) for line in kept):
            kept.append((float(rho), float(theta)))
    return kept


def _same_line(a: Line, b: Line, apart: float) -> bool:
    """Whether two lines (rho, theta) are within ``apart`` pixels and 7 degrees; theta
    wraps at 180 degrees, where rho changes sign."""
    (r1, t1), (r2, t2) = a, b
    if _angle_gap(t1, t2) > 0.12:
        return False
    wrapped = abs(t1 - t2) > math.pi / 2
    return abs(r1 - (-r2 if wrapped else r2)) <= apart


def _hough_triangles(
    pts: FloatArray, shape: tuple[int, int], side_hint: float, cfg: ReaderConfig
) -> list[tuple[FloatArray, bool]]:
    """Triangles made of three straight stretches of the outline, each with whether it
    rests on a weak line.

    Strong lines are long stretches (``outline_line_votes[0]`` of the side hint). A side's
    straight middle may be shorter (rounded corners, a sleeve, a hand or the frame's edge
    over it): weaker lines (``outline_line_votes[1]``) make more triangles, tried after
    those of the strong lines. The side hint is the region's size, which an arm or a
    sleeve merged with the board's region swells: a side whose middle the arm covers
    then shows two stretches of a tenth of the hint or less, whose votes together make
    its line.
    """
    img = np.zeros(shape, np.uint8)
    ip = np.round(pts).astype(np.int32)
    img[ip[:, 1].clip(0, shape[0] - 1), ip[:, 0].clip(0, shape[1] - 1)] = 255
    (strong_votes, weak_votes), (strong_limit, weak_limit) = (
        cfg.outline_line_votes,
        cfg.outline_lines,
    )
    found = cv2.HoughLinesWithAccumulator(img, 1, np.pi / 180, max(20, int(weak_votes * side_hint)))
    if found is None:
        return []
    found = found.reshape(-1, 3)  # (rho, theta, votes)
    found = found[np.argsort(-found[:, 2], kind="stable")]  # strongest first
    lines = found[:, :2].astype(np.float64)
    is_strong = found[:, 2] >= max(20, int(strong_votes * side_hint))
    # A blurred or rounded edge makes several parallel lines close together: one of them.
    apart = cfg.outline_line_apart * side_hint
    kept = _distinct_lines(lines[is_strong], strong_limit, apart)
    strong = len(kept)
    kept = _distinct_lines(lines, strong_limit + weak_limit, apart, kept)
    if len(kept) < 3:
        return []
    trios = _trios(len(kept))  # (T, 3) line indices, i < j < k
    rho, theta = np.asarray(kept).T
    t = theta[trios]  # (T, 3)
    gap = np.abs(t[:, [0, 1, 0]] - t[:, [1, 2, 2]]) % math.pi
    gap = np.minimum(gap, math.pi - gap)
    trios = trios[gap.min(axis=1) >= math.radians(30)]
    # Each corner where two of the three lines meet (Cramer's rule: no two are within
    # 30 degrees, so none is parallel).
    a, b = trios[:, [0, 1, 2]], trios[:, [1, 2, 0]]  # (T, 3): the lines of each corner
    ca, sa, cb, sb = np.cos(theta[a]), np.sin(theta[a]), np.cos(theta[b]), np.sin(theta[b])
    det = ca * sb - sa * cb
    corners = np.stack(
        [(rho[a] * sb - rho[b] * sa) / det, (ca * rho[b] - cb * rho[a]) / det], axis=-1
    )  # (T, 3, 2)
    return [(c, bool(k >= strong)) for c, k in zip(corners, trios[:, 2], strict=True)]


@cache
def _trios(n: int) -> NDArray[np.int64]:
    """Every three of n lines (T, 3) indices in ``itertools.combinations`` order."""
    return np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64).reshape(-1, 3)


def _angle_gap(t1: float, t2: float) -> float:
    d = abs(t1 - t2) % math.pi
    return min(d, math.pi - d)


def _triangles_ok(corners: FloatArray, shape: tuple[int, int]) -> NDArray[np.bool_]:
    """Whether each of the triangles ``corners`` (T, 3, 2) could be a board's outline in
    a frame of ``shape``: no side under 20 pixels or under 0.3 of the longest, no corner
    beyond three frame sizes away. (T,)."""
    d = np.roll(corners, -1, axis=1) - corners
    sides = np.hypot(d[..., 0], d[..., 1])  # (T, 3)
    shortest = sides.min(axis=1)
    near = (np.abs(corners) < 3 * max(shape)).all(axis=(1, 2))
    return (shortest >= 20) & (shortest >= 0.3 * sides.max(axis=1)) & near  # type: ignore[no-any-return]


def locate_outline(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> Outline:
    """The most likely board outline; :class:`BoardNotFoundError` if there is none."""
    return outline_candidates(frame_bgr, cfg, limit=1)[0]


def outline_candidates(
    frame_bgr: NDArray[np.uint8],
    cfg: ReaderConfig,
    limit: int = 3,
    levels: Sequence[float] | None = None,
    off_table: bool = False,
    *,
    structure: bool = False,
) -> Outlines:
    """Distinct triangular outlines, most likely first; :class:`BoardNotFoundError` if none.

    Dark regions are found at a few darkness levels (``cfg.dark_levels``, or ``levels``:
    haze and flare lift the plastic's black), or with ``off_table`` the regions that are
    not the table (:func:`not_table_masks`), or with ``structure`` the regions edges
    enclose (:func:`structure_mask`); every large one proposes triangles (its
    enclosing triangle, and triples of straight stretches of its outline, which survive an
    arm or clutter touching the board); the triangle whose sides the outline follows best
    wins.
    """
    h, w = frame_bgr.shape[:2]
    scale = min(1.0, cfg.locate_long_side_px / max(h, w))
    small = cv2.resize(
        frame_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
    )
    sh, sw = small.shape[:2]
    k = max(3, int(0.012 * max(sh, sw)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    min_area = cfg.min_board_area_fraction * sh * sw
    found: list[tuple[float, FloatArray, FloatArray, float, bool]] = []
    if structure:
        masks = [structure_mask(small, cfg)]
    else:
        masks = not_table_masks(small, cfg) if off_table else dark_masks(small, cfg, levels)
    for mask in masks:
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contours = sorted(contours, key=cv2.contourArea, reverse=True)[:3]
        pieces: list[tuple[float, FloatArray]] = []
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < cfg.outline_piece_fraction * min_area:
                continue
            pts = contour.reshape(-1, 2).astype(np.float64)
            border = (
                (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= sw - 2) | (pts[:, 1] >= sh - 2)
            )
            inner = pts[~border]
            if len(inner) < 30:
                continue
            pieces.append((area, inner))
            if area >= min_area:
                enclosing = enclosing_triangle(cv2.convexHull(contour))
                found += _scored(inner, area, enclosing, (sh, sw), cfg)
        if len(pieces) > 1:
            # An arm across the board cuts its plastic in pieces, each with only some of
            # the three sides: their outlines together have all three.
            area = sum(a for a, _ in pieces)
            if area >= min_area:
                inner = np.concatenate([p for _, p in pieces])
                found += _scored(inner, area, None, (sh, sw), cfg)
    if off_table or structure:
        # Where the plastic looks like the table, what stands out is the tiles alone (and
        # where the band's outer edge is too faint to close the edges' region, the cells
        # alone): on a full board, the playing area. Each outline is also taken for that,
        # and the board's outline around it tried next (as it is: no points to
        # straighten it on).
        grown = 1.0 / playing_share(cfg.band_width)
        found += [
            (score * 0.999, c.mean(axis=0) + (c - c.mean(axis=0)) * grown, pts[:0], sup, weak)
            for score, c, pts, sup, weak in found
        ]
    # Those on weak lines come last: the likeliest are tried first, the others are there
    # for when none of those fits (the reader ranks them by the lattice).
    found.sort(key=lambda f: (f[4], -f[0]))
    kept: list[tuple[float, FloatArray, FloatArray, float, bool]] = []
    kept_corners = np.zeros((limit, 3, 2))
    for cand in found:
        if len(kept) == limit:
            break
        if cand[0] < cfg.min_outline_support:
            continue
        size = math.sqrt(float(triangle_area(cand[1])))
        gaps = corner_gaps(cand[1], kept_corners[: len(kept)])
        if (gaps > cfg.outline_distinct * size).all():
            kept_corners[len(kept)] = cand[1]
            kept.append(cand)
    if not kept:
        raise BoardNotFoundError("no dark triangular board outline in the image")
    return Outlines(
        [(corners, pts, support, scale, (sw, sh)) for _, corners, pts, support, _ in kept]
    )


def _scored(
    inner: FloatArray,
    area: float,
    enclosing: FloatArray | None,
    shape: tuple[int, int],
    cfg: ReaderConfig,
) -> list[tuple[float, FloatArray, FloatArray, float, bool]]:
    """The triangles a dark region proposes, scored: its outline's points ``inner`` (P, 2)
    off the frame's edge, its ``area``, its enclosing triangle (3, 2) if any. Each entry is
    (score, corners, inner, support, on a weak line)."""
    proposals = [] if enclosing is None else [(enclosing, False)]
    side_hint = math.sqrt(area) * 1.5
    proposals += _hough_triangles(inner, shape, side_hint, cfg)
    if not proposals:
        return []
    tris = np.stack([c for c, _ in proposals])  # (T, 3, 2)
    weak = np.array([w for _, w in proposals], dtype=bool)
    ok = _triangles_ok(tris, shape)
    tris, weak = tris[ok], weak[ok]
    if not len(tris):
        return []
    sides = np.roll(tris, -1, axis=1) - tris
    perimeters = np.hypot(sides[..., 0], sides[..., 1]).sum(axis=1)
    supports = _supports(tris, inner, shape, 0.012 * perimeters)
    # The board region should fill the triangle (windows and tiles included).
    fills = np.minimum(1.0, area / (0.35 * np.maximum(triangle_area(tris), 1e-9)))
    return [
        (float(support * fill), corners, inner, float(support), bool(w))
        for corners, w, support, fill in zip(tris, weak, supports, fills, strict=True)
    ]


class Outlines(Sequence[Outline]):
    """The kept outlines, each straightened (:func:`_refined`) only when first asked for:
    the reader mostly needs the first alone."""

    def __init__(
        self, raw: list[tuple[FloatArray, FloatArray, float, float, tuple[int, int]]]
    ) -> None:
        self._raw = raw
        self._done: dict[int, Outline] = {}

    def __len__(self) -> int:
        return len(self._raw)

    @overload
    def __getitem__(self, index: int) -> Outline: ...

    @overload
    def __getitem__(self, index: slice) -> list[Outline]: ...

    def __getitem__(self, index: int | slice) -> Outline | list[Outline]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        i = range(len(self))[index]  # IndexError as a list's
        if i not in self._done:
            self._done[i] = _refined(*self._raw[i])
        return self._done[i]

    def rough_corners(self, index: int) -> FloatArray:
        """An outline's corners (3, 2) in frame pixels before it is straightened: cheap,
        for ranking many outlines."""
        corners, _, _, scale, _ = self._raw[index]
        return canonical_order(corners / scale)

    def __repr__(self) -> str:
        return repr(list(self))


#: The three cyclic orders of a triangle's corners.
_TURNS = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]])


def corner_gaps(a: FloatArray, others: FloatArray) -> FloatArray:
    """The largest distance between matched corners of triangle ``a`` (3, 2) and each of
    ``others`` (K, 3, 2), over the best cyclic matching: (K,)."""
    d = np.sqrt(((a[_TURNS][:, None] - others[None]) ** 2).sum(axis=-1))  # (3, K, 3)
    return d.max(axis=2).min(axis=0)  # type: ignore[no-any-return]


def _refined(
    corners: FloatArray, pts: FloatArray, support: float, scale: float, size: tuple[int, int]
) -> Outline:
    """Straighten the triangle's sides on the outline's points; back to frame pixels."""
    sw, sh = size
    cut_off = bool(np.any((corners < 0) | (corners > np.array([sw, sh]))))
    perimeter = sum(np.hypot(*(corners[i] - corners[(i + 1) % 3])) for i in range(3))
    tol = 0.02 * perimeter
    for _ in range(2):
        lines = [_fit_side(pts, corners[i], corners[(i + 1) % 3], tol) for i in range(3)]
        if any(line is None for line in lines):
            break
        crossings = [_intersect(lines[i - 1], lines[i]) for i in range(3)]  # type: ignore[arg-type]
        if any(c is None for c in crossings):
            # two sides fitted parallel (a side's points on something straight beside the
            # board): the corners stay as found, as where a side has too few points
            break
        refined = np.array(crossings)
        if not np.all(np.isfinite(refined)) or np.abs(refined - corners).max() > 0.1 * perimeter:
            break
        corners = refined
        tol = 0.012 * perimeter
    return Outline(canonical_order(corners / scale), support, cut_off)


def signed_area(c: FloatArray) -> FloatArray:
    """The area of triangles ``c`` (..., 3, 2), positive where their corners run
    clockwise on screen (y downwards): (...)."""
    return 0.5 * (  # type: ignore[no-any-return]
        (c[..., 1, 0] - c[..., 0, 0]) * (c[..., 2, 1] - c[..., 0, 1])
        - (c[..., 2, 0] - c[..., 0, 0]) * (c[..., 1, 1] - c[..., 0, 1])
    )


def triangle_area(c: FloatArray) -> FloatArray:
    """The area of triangles ``c`` (..., 3, 2): (...)."""
    return np.abs(signed_area(c))  # type: ignore[no-any-return]


def initial_homography(outline: Outline, cfg: ReaderConfig) -> FloatArray:
    """The affine board-to-image map that puts the model's outline on the found one."""
    src = outer_corners(cfg.band_width).astype(np.float32)
    dst = outline.corners.astype(np.float32)
    affine = cv2.getAffineTransform(src, dst)
    return np.vstack([affine, [0.0, 0.0, 1.0]])


def triangle_side_px(outline: Outline) -> float:
    c = outline.corners
    return float(np.mean([math.dist(c[i], c[(i + 1) % 3]) for i in range(3)]))
