"""Stage 2: fit a homography to the whole lattice and rectify the board.

Every cell is centred on its centroid whatever it shows: a tile is a bright triangle
framed by thin dark ridges, an empty cell a bright window framed by black plastic. So
the lattice is found by template matching in a rectified view of the frame's value
channel (max of B, G, R: the plastic is dark in it, tiles and table are not):

1. from the outline's corners, the two perspective parameters that the corners leave
   free are searched on a grid, scoring how well all 36 cells match (``perspective``);
2. each cell's best match offset is a lattice point; a homography is fitted to all of
   them with RANSAC, at finer scales (``refine``);
3. the lattice shifted by one cell in each direction is scored too, so that a fit that
   slipped by a whole cell (the lattice is periodic) is put back (``verify``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from vision.cells import percentiles
from vision.config import ReaderConfig
from vision.errors import BoardNotFoundError
from vision.locate import (
    darkest_channel,
    darkest_veil,
    relative_value,
    relative_value_only,
    table_looks_dark,
    taken_off,
)
from vision.model import (
    CENTRE,
    CENTROIDS,
    EDGE_ENDS,
    PLAY_CORNERS,
    UP,
    Canvas,
    FloatArray,
    outer_corners,
    playing_share,
    project,
)

log = logging.getLogger(__name__)

#: The six lattice translations that map the cell lattice onto itself.
LATTICE_SHIFTS: FloatArray = np.array(
    [
        [1.0, 0.0],
        [-1.0, 0.0],
        [0.5, math.sqrt(3) / 2],
        [-0.5, -math.sqrt(3) / 2],
        [-0.5, math.sqrt(3) / 2],
        [0.5, -math.sqrt(3) / 2],
    ]
)


@dataclass(frozen=True)
class Lens:
    """One-parameter radial distortion about the frame centre (wide-angle webcams).

    A distorted point is ``c + (u - c) * (1 + k * r**2)`` with ``r = |u - c| / norm``,
    ``u`` the undistorted pixel, ``c`` the frame centre and ``norm`` its half-diagonal.
    """

    k: float
    centre: tuple[float, float]
    norm: float

    @classmethod
    def none(cls, shape: tuple[int, ...]) -> Lens:
        h, w = shape[:2]
        return cls(0.0, ((w - 1) / 2.0, (h - 1) / 2.0), math.hypot(w, h) / 2.0)

    def with_k(self, k: float) -> Lens:
        return Lens(k, self.centre, self.norm)

    def distort(self, pts: FloatArray) -> FloatArray:
        if self.k == 0.0:
            return pts
        c = np.asarray(self.centre)
        d = (pts - c) / self.norm
        r2 = (d**2).sum(axis=-1, keepdims=True)
        return c + (pts - c) * (1.0 + self.k * r2)

    def undistort(self, pts: FloatArray) -> FloatArray:
        if self.k == 0.0:
            return pts
        c = np.asarray(self.centre)
        d = (pts - c) / self.norm
        t = np.linalg.norm(d, axis=-1, keepdims=True)
        # r + k r^3 rises only up to r = 1/sqrt(-3k) when k < 0: stay below that.
        r_max = 1.0 / math.sqrt(-3.0 * self.k) if self.k < 0 else np.inf
        r = np.minimum(t, 0.999 * r_max)
        for _ in range(12):  # Newton on r + k r^3 = t
            step = (r + self.k * r**3 - t) / np.maximum(1.0 + 3.0 * self.k * r**2, 1e-3)
            r = np.clip(r - step, 0.0, 0.999 * r_max)
        ratio = np.where(t > 1e-12, r / np.maximum(t, 1e-12), 1.0)
        return c + d * ratio * self.norm


@dataclass(frozen=True)
class BoardFit:
    """A board-plane to image map (homography, then lens) and how well the lattice fits it."""

    homography: FloatArray = field(repr=False)  # 3x3, board units -> undistorted pixels
    corners: FloatArray  # (3, 2) playing-triangle corners in frame pixels
    residual_px: float  # RMS distance of the inlier lattice points from the model
    residual_units: float  # the same in board units
    points: int  # inlier lattice points
    lens: Lens | None = field(default=None, repr=False)
    #: The inlier lattice points the fit rests on, board units (N, 2) and frame pixels
    #: (N, 2), when it was fitted to a frame (not loaded from a calibration).
    lattice: tuple[FloatArray, FloatArray] | None = field(default=None, repr=False, compare=False)
    #: How far above the board (board units) the tiles' tops lie, as the lattice told
    #: (or as the reader assumes): a tile is read on that plane (:func:`lift`).
    tile_height: float = 0.0
    #: (N,) bool, with :attr:`lattice`: the points a tile's template matched (taken down
    #: from the tiles' tops to the board's plane), the others an empty window's
    raised: NDArray[np.bool_] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_homography(
        cls,
        homography: FloatArray,
        residual_px: float = 0.0,
        residual_units: float = 0.0,
        points: int = 0,
        lens: Lens | None = None,
        lattice: tuple[FloatArray, FloatArray] | None = None,
        tile_height: float = 0.0,
        raised: NDArray[np.bool_] | None = None,
    ) -> BoardFit:
        """A fit whose playing-triangle corners are where ``homography`` and ``lens`` put them."""
        probe = cls(homography, np.zeros((3, 2)), residual_px, residual_units, points, lens)
        corners = probe.to_image(PLAY_CORNERS)
        return cls(
            homography,
            corners,
            residual_px,
            residual_units,
            points,
            lens,
            lattice,
            tile_height,
            raised,
        )

    def tops(self, frame_shape: tuple[int, ...] | None = None) -> FloatArray:
        """The homography of the tiles' tops' plane (:func:`lift`); a fit without a lens
        needs its frame's ``frame_shape`` (its centre is the principal point)."""
        if self.lens is not None:
            lens = self.lens
        elif frame_shape is not None:
            lens = Lens.none(frame_shape)
        else:
            raise ValueError("a fit without a lens needs the frame's shape")
        return lift(self.homography, self.tile_height, lens.centre, lens.norm)

    def moved(self, step: FloatArray) -> BoardFit:
        """The fit with the lattice moved by ``step`` (3x3, board units): the homography
        becomes ``homography @ step`` and the lattice points keep their frame pixels."""
        lattice = None
        if self.lattice is not None:
            board, image = self.lattice
            lattice = (project(np.linalg.inv(step), board), image)
        return BoardFit.from_homography(
            self.homography @ step,
            self.residual_px,
            self.residual_units,
            self.points,
            self.lens,
            lattice,
            self.tile_height,
            self.raised,
        )

    def scaled(self, fx: float, fy: float | None = None) -> BoardFit:
        """The same fit on the frame resized by ``fx`` across and ``fy`` (``fx`` when
        None) down, as ``cv2.resize`` maps pixel centres (``x`` becomes
        ``fx * (x + 0.5) - 0.5``). A lens keeps its bending; its norm takes the mean.

        >>> fit = BoardFit.from_homography(np.diag([50.0, 50.0, 1.0]), 2.0, 0.04, 30)
        >>> big = fit.scaled(2.0)
        >>> bool(np.allclose(big.corners, 2 * fit.corners + 0.5)), big.residual_px, big.points
        (True, 4.0, 30)
        """
        fy = fx if fy is None else fy
        sx, sy = 0.5 * (fx - 1.0), 0.5 * (fy - 1.0)
        resize = np.array([[fx, 0.0, sx], [0.0, fy, sy], [0.0, 0.0, 1.0]])
        lens = None
        if self.lens is not None:
            cx, cy = self.lens.centre
            lens = Lens(self.lens.k, (fx * cx + sx, fy * cy + sy), self.lens.norm * (fx + fy) / 2)
        lattice = None
        if self.lattice is not None:
            board, image = self.lattice
            lattice = (board, project(resize, image))
        return BoardFit.from_homography(
            resize @ self.homography,
            self.residual_px * (fx + fy) / 2,
            self.residual_units,
            self.points,
            lens,
            lattice,
            self.tile_height,
            self.raised,
        )

    def to_image(self, board_pts: FloatArray) -> FloatArray:
        """Board points (N, 2) -> frame pixels (N, 2), lens included."""
        pts = project(self.homography, board_pts)
        return self.lens.distort(pts) if self.lens is not None else pts

    def __repr__(self) -> str:
        pts = ", ".join(f"({x:.0f}, {y:.0f})" for x, y in self.corners)
        k = self.lens.k if self.lens is not None else 0.0
        return (
            f"BoardFit(corners=[{pts}], residual_px={self.residual_px:.2f}, "
            f"points={self.points}, k={k:.3f})"
        )


def warp_to_canvas(
    frame: NDArray[np.generic],
    homography: FloatArray,
    canvas: Canvas,
    border: int = 0,
    lens: Lens | None = None,
) -> NDArray[np.generic]:
    """Rectify ``frame`` (H, W[, C]) onto ``canvas`` with a board-to-image map."""
    image_from_canvas = homography @ canvas.board_from_canvas
    if lens is None or lens.k == 0.0:
        return cv2.warpPerspective(  # type: ignore[no-any-return]
            frame,
            image_from_canvas,
            (canvas.width, canvas.height),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=border,
        )
    mx, my = _remap_grid(image_from_canvas.tobytes(), lens, canvas)
    return cv2.remap(  # type: ignore[no-any-return]
        frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=border
    )


@lru_cache(maxsize=8)
def _remap_grid(
    image_from_canvas: bytes, lens: Lens, canvas: Canvas
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Frame coordinates of every canvas pixel through homography and lens (cached: a
    tracker rectifies frame after frame with the same fit)."""
    h = np.frombuffer(image_from_canvas, dtype=np.float64).reshape(3, 3)
    # project() and Lens.distort() written out per coordinate plane: the same arithmetic
    # without (N, 2) temporaries, which cost more than the arithmetic at this size.
    us = np.arange(canvas.width, dtype=np.float64)[None, :]
    vs = np.arange(canvas.height, dtype=np.float64)[:, None]
    w = h[2, 0] * us + h[2, 1] * vs + h[2, 2]
    w[np.abs(w) < 1e-12] = 1e-12
    x = (h[0, 0] * us + h[0, 1] * vs + h[0, 2]) / w
    y = (h[1, 0] * us + h[1, 1] * vs + h[1, 2]) / w
    if lens.k != 0.0:
        cx, cy = lens.centre
        x -= cx
        y -= cy
        f = 1.0 + lens.k * (x * x + y * y) / lens.norm**2
        x *= f
        y *= f
        x += cx
        y += cy
    return x.astype(np.float32), y.astype(np.float32)


def _polygon_mask(shape: tuple[int, int], poly: FloatArray) -> NDArray[np.uint8]:
    out = np.zeros(shape, np.uint8)
    cv2.fillPoly(out, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return out


def _inset(tri: FloatArray, d: float) -> FloatArray:
    """Move the sides of an equilateral triangle inwards by ``d`` (outwards if negative)."""
    c = tri.mean(axis=0)
    inradius = float(np.linalg.norm(tri[0] - c)) / 2.0
    return c + (tri - c) * (inradius - d) / inradius


@cache
def cell_templates(
    up: bool, ppu: float, ridge: float, window_side: float, disc: float
) -> tuple[tuple[NDArray[np.float32], NDArray[np.float32]], ...]:
    """Templates (image, mask) of a tile and of an empty window, centred on the centroid.

    Each template is square, (2h+1, 2h+1) float32, with the centroid at its centre pixel.
    """
    h3 = math.sqrt(3.0) / 2.0
    tri = np.array([[0.0, -2 * h3 / 3], [0.5, h3 / 3], [-0.5, h3 / 3]])
    if not up:
        tri = tri * np.array([1.0, -1.0])
    half = int(math.ceil((2 * h3 / 3 + 0.12) * ppu))
    size = 2 * half + 1
    shape = (size, size)

    def px(poly: FloatArray) -> FloatArray:
        return poly * ppu + half

    ridge_px = max(ridge, 0.6 / ppu)
    outer = _polygon_mask(shape, px(_inset(tri, -2.2 * ridge_px)))
    inner = _polygon_mask(shape, px(_inset(tri, ridge_px)))
    disc_mask = np.zeros(shape, np.uint8)
    cv2.circle(disc_mask, (half, half), int(round((disc + 0.03) * ppu)), 255, -1)
    tile_img = (inner > 127).astype(np.float32)
    tile_mask = ((outer > 127) & (disc_mask == 0)).astype(np.float32)
    window = _polygon_mask(shape, px(tri * window_side))
    cell = _polygon_mask(shape, px(_inset(tri, 0.02)))
    win_img = (window > 127).astype(np.float32)
    win_mask = (cell > 127).astype(np.float32)
    return (tile_img, tile_mask), (win_img, win_mask)


class LatticeScorer:
    """Masked normalised correlation of every cell's templates at its nominal place.

    Vectorised over the 36 cells: one call scores a whole rectified canvas.
    """

    def __init__(self, ppu: int, cfg: ReaderConfig) -> None:
        self.canvas = Canvas(ppu)
        centres = np.round(self.canvas.to_canvas(CENTROIDS)).astype(int)
        flat, seg, weights = [], [], []
        for i, (cx, cy) in enumerate(centres):
            for k, (img, mask) in enumerate(
                cell_templates(
                    bool(UP[i]), ppu, cfg.ridge_half_width, cfg.window_side, cfg.disc_radius
                )
            ):
                half = img.shape[0] // 2
                ys, xs = np.nonzero(mask > 0)
                t = img[ys, xs].astype(np.float64)
                t = t - t.mean()
                norm = np.sqrt((t**2).sum())
                flat.append((ys + cy - half) * self.canvas.width + (xs + cx - half))
                weights.append(t / max(norm, 1e-9))
                seg.append(np.full(len(ys), 2 * i + k))
        self.flat = np.concatenate(flat)
        self.weights = np.concatenate(weights)
        self.seg = np.concatenate(seg)
        self.starts = np.r_[0, np.flatnonzero(np.diff(self.seg)) + 1]
        self.counts = np.diff(np.r_[self.starts, len(self.seg)])
        # the canvas pixels the templates use, (M, 2) (u, v), and each template pixel's
        # index among them: scoring needs the canvas only there
        pixels, self.inverse = np.unique(self.flat, return_inverse=True)
        self.pixels = np.stack([pixels % self.canvas.width, pixels // self.canvas.width], axis=1)
        # the templates' sums over those pixels as a sparse (2 x 72, M) map: plain, weighted
        n = len(self.starts)
        self.sparse_sums = sparse.csr_matrix(
            (
                np.r_[np.ones(len(self.seg)), self.weights],
                (np.r_[self.seg, self.seg + n], np.r_[self.inverse, self.inverse]),
            ),
            shape=(2 * n, len(pixels)),
        )
        self.sparse_plain = self.sparse_sums[:n]  # (72, M): the plain sums alone

    def scores(
        self,
        value: NDArray[np.float32],
        valid: NDArray[np.uint8] | None = None,
        signless: bool = False,
    ) -> FloatArray:
        """(36, 2) correlation of the tile and window template of each cell (-1..1); 0 for
        a template that reaches outside the frame (``valid`` 0 there). ``signless``: a
        window's as high darker than its frame as lighter (0..1)."""
        x = value.reshape(-1)[self.flat].astype(np.float64)
        sums = np.add.reduceat(x, self.starts)
        squares = np.add.reduceat(x * x, self.starts)
        # the weights sum to 0, so the mean need not be taken off x
        num = np.add.reduceat(x * self.weights, self.starts)
        den = np.sqrt(np.maximum(squares - sums * sums / self.counts, 0.0))
        ncc = np.where(den > 1e-6, num / np.maximum(den, 1e-9), 0.0)
        if signless:
            ncc[1::2] = np.abs(ncc[1::2])
        if valid is not None and valid.min() == 0:
            ok = np.minimum.reduceat(valid.reshape(-1)[self.flat], self.starts) > 0
            ncc = np.where(ok, ncc, 0.0)
        return ncc.reshape(-1, 2)

    @cached_property
    def cells(self) -> NDArray[np.int64]:
        """(P,) the cell each template pixel belongs to."""
        return self.seg // 2  # type: ignore[no-any-return]

    @cached_property
    def board_points(self) -> FloatArray:
        """(P, 2) each template pixel's centre in board units."""
        w = self.canvas.width
        cols, rows = self.flat % w, self.flat // w
        return self.canvas.board_from_canvas_points(np.stack([cols, rows], axis=1) + 0.5)

    def scores_kept(
        self,
        value: NDArray[np.float32],
        valid: NDArray[np.uint8] | None,
        keep: NDArray[np.bool_],
    ) -> FloatArray:
        """:meth:`scores` with each template on its pixels ``keep`` (P,) bool only (a
        template and the canvas compared where the cell is not hidden)."""
        m = keep.astype(np.float64)
        x = value.reshape(-1)[self.flat].astype(np.float64)
        t = self.weights
        starts = self.starts

        def total(v: FloatArray) -> FloatArray:
            return np.add.reduceat(v, starts)  # type: ignore[no-any-return]

        n = np.maximum(total(m), 1.0)
        sx, st = total(m * x), total(m * t)
        vx = np.maximum(total(m * x * x) - sx * sx / n, 0.0)
        vt = np.maximum(total(m * t * t) - st * st / n, 0.0)
        cov = total(m * x * t) - sx * st / n
        den = np.sqrt(vx * vt)
        ncc = np.where((vx > 1e-6 * n) & (vt > 1e-12), cov / np.maximum(den, 1e-12), 0.0)
        if valid is not None and valid.min() == 0:
            ok = np.minimum.reduceat(valid.reshape(-1)[self.flat], starts) > 0
            ncc = np.where(ok, ncc, 0.0)
        return ncc.reshape(-1, 2)

    def total(self, value: NDArray[np.float32], valid: NDArray[np.uint8] | None = None) -> float:
        return float(np.clip(self.scores(value, valid).max(axis=1), 0.0, None).sum())

    def totals(
        self,
        pixels: NDArray[np.float32],
        valids: NDArray[np.uint8] | None = None,
        signless: bool = False,
    ) -> FloatArray:
        """:meth:`total` of each of B canvases given at :attr:`pixels` only: ``pixels`` and
        ``valids`` (B, M) float32 and uint8. Returns (B,) float64."""
        # (M, B) C-ordered: the sparse product takes the columns in that order
        x = np.ascontiguousarray(pixels.T, dtype=np.float64)
        both = self.sparse_sums @ x  # (2 x 72, B): sums, and sums weighted
        sums, num = both[: len(self.starts)], both[len(self.starts) :]
        squares = self.sparse_plain @ (x * x)
        den = np.sqrt(np.maximum(squares - sums * sums / self.counts[:, None], 0.0))
        ncc = np.where(den > 1e-6, num / np.maximum(den, 1e-9), 0.0)  # (72, B)
        if signless:  # a window as dark against its frame as a light one (a dark table)
            ncc[1::2] = np.abs(ncc[1::2])
        if valids is not None and valids.min() == 0:
            # a template with a pixel outside the frame counts 0, in the canvases with one
            cut = np.flatnonzero(valids.min(axis=1) == 0)
            outside = (valids[cut] == 0)[:, self.inverse]  # (b, template pixels)
            holes = np.logical_or.reduceat(outside, self.starts, axis=1)  # (b, 72)
            ncc[:, cut] = np.where(holes.T, 0.0, ncc[:, cut])
        best = ncc.T.reshape(len(pixels), -1, 2).max(axis=2)
        return np.clip(best, 0.0, None).sum(axis=1)  # type: ignore[no-any-return]


@cache
def scorer(ppu: int, cfg: ReaderConfig) -> LatticeScorer:
    return LatticeScorer(ppu, cfg)


def value_channel(frame_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """max(B, G, R) as float32 (H, W): the board's plastic is dark in it, tiles are not."""
    b, g, r = cv2.split(frame_bgr)
    return cv2.max(cv2.max(b, g), r).astype(np.float32)  # type: ignore[no-any-return]


def colourful_value(frame_bgr: NDArray[np.uint8], chroma_weight: float) -> NDArray[np.float32]:
    """max(B, G, R) plus ``chroma_weight`` times (max - min), float32 (H, W): how far a
    pixel is from colourless black (the board's plastic), in brightness and in colour."""
    b, g, r = cv2.split(frame_bgr)
    high, low = cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r)
    chroma = cv2.subtract(high, low).astype(np.float32)
    return high.astype(np.float32) + np.float32(chroma_weight) * chroma  # type: ignore[no-any-return]


def plastic_contrast(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> NDArray[np.float32]:
    """How clearly each pixel is *not* the board's black plastic, 0..1, float32 (H, W).

    The value channel relative to the local brightest surroundings, then stretched so
    that anything clearly brighter than the plastic (any tile colour, however shaded,
    and a lit table) saturates at 1: tiles then match by their outline, not by how
    bright their sectors happen to be.
    """
    return _plastic_contrast(frame_bgr, cfg, None, cfg.contrast_span)[0]


def _plastic_contrast(
    frame_bgr: NDArray[np.uint8], cfg: ReaderConfig, lo: float | None, span: float
) -> tuple[NDArray[np.float32], NDArray[np.float32], float]:
    """:func:`plastic_contrast` with the plastic's level ``lo`` given (None: told by the
    frame) and saturating ``span`` above it; also the relative values it stretched,
    sampled every 4th pixel, and ``lo``."""
    if cfg.contrast_chroma_weight > 0:
        # Colour counts too: a purple or blue sector in shade is as dark as the plastic
        # in value, but the plastic is colourless.
        rel, chroma = relative_value(frame_bgr, cfg)
        chroma *= np.float32(cfg.contrast_chroma_weight)
        rel += chroma
    else:
        rel = relative_value_only(frame_bgr, cfg)
    sample = rel[::4, ::4].copy()
    if lo is None:
        # The plastic's level: the darkest twentieth of the frame, unless the board is
        # too small a part of the frame for that; then the typical level of the dark
        # pixels.
        lo = float(percentiles(sample, [5])[0])
        if lo > cfg.dark_levels[0]:
            dark = sample[sample < cfg.dark_levels[-1]]
            lo = float(np.median(dark)) if dark.size >= 50 else cfg.dark_levels[0] / 2
    # (rel - lo - floor) / span clipped to 0..1, in place
    np.subtract(rel, lo + cfg.contrast_floor, out=rel)
    np.divide(rel, span, out=rel)
    return np.clip(rel, 0.0, 1.0, out=rel), sample, lo


#: ln(v + 4) of each 8-bit value v, float32 (256,), and the same for B, G, R (256, 3):
#: :func:`log_colour`'s table.
_LOG_TABLE = np.log(np.arange(256, dtype=np.float32) + np.float32(4.0))
_LOG_TABLE_BGR = np.ascontiguousarray(np.repeat(_LOG_TABLE[:, None], 3, axis=1))


def _per_channel_table(
    frame_bgr: NDArray[np.uint8], table: NDArray[np.float32]
) -> NDArray[np.float32]:
    """``table`` (256, 3) float32 looked up per channel of ``frame_bgr`` (..., 3) uint8:
    (..., 3) float32 (an image through OpenCV's lookup, several times faster than
    computing each pixel)."""
    if frame_bgr.ndim == 3 and frame_bgr.shape[2] == 3:
        lut = np.ascontiguousarray(table[None])  # (1, 256, 3)
        return cv2.LUT(np.ascontiguousarray(frame_bgr), lut)  # type: ignore[no-any-return]
    return table[frame_bgr, np.arange(3)]  # type: ignore[no-any-return]


def log_colour(frame_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """ln(channel + 4) of each of B, G, R, float32 (..., 3), of a frame (H, W, 3) or
    pixels (N, 3) uint8: a colour's distance from another in it is their ratio, as a
    change of light or exposure leaves it.

    >>> log_colour(np.array([[0, 4, 251]], np.uint8)).round(3)
    array([[1.386, 2.079, 5.541]], dtype=float32)
    """
    return _per_channel_table(frame_bgr, _LOG_TABLE_BGR)


def plastic_distance(
    frame_bgr: NDArray[np.uint8], plastic: FloatArray, floor: float, span: float
) -> NDArray[np.float32]:
    """How clearly each pixel is not the board's plastic of colour ``plastic`` (3,)
    (:func:`log_colour`), 0..1, float32 (H, W): the largest ratio of a channel's to the
    plastic's, either way, in ln units, past ``floor`` and up to ``span`` beyond it (the
    reader's: ``cfg.plastic_distance``).

    :func:`plastic_contrast` takes whatever is brighter than the plastic for not
    plastic; a table as dark as the plastic, or darker, is not brighter (the windows
    then show it darker than the ribs): darker counts here too, and a dark table's tint.
    """
    # (each channel's distance, past the floor and over the span, for each of its 256
    # values: the largest of three lookups)
    table = np.abs(_LOG_TABLE[:, None] - plastic.astype(np.float32)[None, :])
    table -= np.float32(floor)
    table /= np.float32(span)
    dist = _per_channel_table(frame_bgr, table)
    if dist.ndim == 3:
        out = cv2.max(cv2.max(dist[..., 0], dist[..., 1]), dist[..., 2])
    else:
        out = dist.max(axis=-1)
    return np.clip(out, 0.0, 1.0, out=out)  # type: ignore[no-any-return]


def band_and_surround(
    colour: NDArray[np.float32], corners: FloatArray, band_width: float
) -> tuple[FloatArray, FloatArray] | None:
    """The median :func:`log_colour` (3,) of a board's border band and of the table
    just outside it, for its outline ``corners`` (3, 2) in the pixels of ``colour``
    (H, W, 3); None where either shows too few pixels."""
    centre = corners.mean(axis=0)
    inner = playing_share(band_width)
    h, w = colour.shape[:2]

    def ring(a: float, b: float) -> NDArray[np.bool_]:
        mask = np.zeros((h, w), np.uint8)
        for s, value in ((b, 1), (a, 0)):
            poly = centre + (corners - centre) * s
            cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], value)
        return mask > 0

    # the band's middle (away from its rounded edge and the playing area), and a strip of
    # the table about as wide outside it
    band = ring(inner + 0.3 * (1 - inner), 1 - 0.2 * (1 - inner))
    outside = ring(1 + 0.2 * (1 - inner), 1 + 1.2 * (1 - inner))
    if band.sum() < 20 or outside.sum() < 20:
        return None
    return np.median(colour[band], axis=0), np.median(colour[outside], axis=0)


def dark_table_band(
    frame_bgr: NDArray[np.uint8], corners: FloatArray, cfg: ReaderConfig
) -> FloatArray | None:
    """The colour (3,) of :func:`log_colour` of the band of the board outlined by
    ``corners`` (3, 2) pixels of ``frame_bgr`` (H, W, 3) uint8 where the table just
    outside it is not brighter than it (in their brightest channels, by
    ``table_brighter`` ln units or more): the board lies on a dark table. Else None."""
    return _dark_table_band(log_colour(frame_bgr[::4, ::4]), corners / 4.0, cfg)


def _dark_table_band(
    colour: NDArray[np.float32], corners: FloatArray, cfg: ReaderConfig
) -> FloatArray | None:
    seen = band_and_surround(colour, corners, cfg.band_width)
    if seen is None:
        return None
    band, outside = seen
    if float(outside.max() - band.max()) >= cfg.table_brighter:
        return None
    return band


def sides_moved(shift: FloatArray) -> NDArray[np.bool_]:
    """(3,) whether a move of the lattice by ``shift`` (2,) board units moves each side
    of the playing triangle (from corner k to corner k + 1) off its line: all but a
    side along the shift.

    >>> sides_moved(LATTICE_SHIFTS[0]).sum()
    np.int64(2)
    """
    ends = np.roll(PLAY_CORNERS, -1, axis=0) - PLAY_CORNERS
    along = ends / np.linalg.norm(ends, axis=1, keepdims=True)
    across = np.abs(along[:, 0] * shift[1] - along[:, 1] * shift[0])
    return across > 0.5 * float(np.linalg.norm(shift))  # type: ignore[no-any-return]


def peg_track(
    frame_bgr: NDArray[np.uint8], fit: BoardFit, cfg: ReaderConfig, shifts: FloatArray | None = None
) -> FloatArray:
    """How clearly the band along each side of the playing triangle of ``fit`` shows
    the row of peg holes, (3,) float64 from 0 to 1, NaN for a side mostly outside the
    frame (H, W, 3) uint8; or (S, 3) for the fit moved by each of ``shifts`` (S, 2)
    board units (as :meth:`BoardFit.moved`), measured at once.

    The holes repeat every ``peg_pitch`` (0.19 units) along the band, whatever the
    table shows through them and however the light falls: brighter or darker than the
    plastic, their row is a ripple of that one pitch. Lines along each side are sampled
    across the band's middle (``peg_band_shares`` of its width), at an eighth of the
    pitch in board units (so that perspective keeps the pitch), in the log of the
    brightest channel; each profile's share of its ripple power (from a quarter to three
    times the holes' frequency, after its slow trend is taken off) within
    ``peg_pitch_tolerance`` of the holes' frequency is the side's, its best line's.
    A lattice a cell off puts two of the three sides' lines on cells or on the table,
    where nothing repeats at that pitch: the band tells the board's place even where the
    table is as dark as the plastic.
    """
    moves = np.zeros((1, 2)) if shifts is None else np.asarray(shifts, dtype=np.float64)
    lines = _peg_lines(cfg.peg_pitch, cfg.band_width, cfg.peg_band_shares)  # (3, O, N, 2)
    board = lines[None] + moves[:, None, None, None, :]  # (S, 3, O, N, 2)
    px = fit.to_image(board.reshape(-1, 2)).astype(np.float32).reshape(board.shape)
    h, w = frame_bgr.shape[:2]
    inside = (px[..., 0] >= 0) & (px[..., 0] <= w - 1) & (px[..., 1] >= 0) & (px[..., 1] <= h - 1)
    # (a map of one row per line: remap takes no side of 32767 pixels or more)
    flat = px.reshape(-1, px.shape[-2], 2)
    sampled = cv2.remap(frame_bgr, flat[..., 0].copy(), flat[..., 1].copy(), cv2.INTER_LINEAR)
    brightest = cv2.max(cv2.max(sampled[..., 0], sampled[..., 1]), sampled[..., 2])
    profiles = _LOG_TABLE[brightest].astype(np.float64).reshape(px.shape[:-1])
    shares = np.full(inside.shape[:-1], np.nan)  # (S, 3, O)
    seen = (inside.mean(axis=-1) >= 0.5) & (inside.sum(axis=-1) >= 64)
    if seen.any():
        # A line the frame's edge cuts is seen along one stretch (a straight line in a
        # convex frame): its samples past the edge take the value of its last one inside,
        # where no ripple is.
        kept = inside[seen]
        n = kept.shape[1]
        first = np.argmax(kept, axis=1)
        last = n - 1 - np.argmax(kept[:, ::-1], axis=1)
        nearest = np.clip(np.arange(n)[None, :], first[:, None], last[:, None])
        shares[seen] = _peg_shares(np.take_along_axis(profiles[seen], nearest, axis=1), cfg)
    with np.errstate(all="ignore"):
        best = np.where(
            np.isnan(shares).all(axis=-1), np.nan, np.nanmax(shares, axis=-1, initial=-1.0)
        )
    return best[0] if shifts is None else best  # type: ignore[no-any-return]


#: Samples to a pitch of the peg holes along :func:`peg_track`'s lines.
_PEG_SAMPLES = 8


@cache
def _peg_lines(pitch: float, band_width: float, band_shares: tuple[float, ...]) -> FloatArray:
    """The board points (3, O, N, 2) along each side of the playing triangle (its middle
    eight tenths), ``pitch`` / :data:`_PEG_SAMPLES` apart, on lines across the band at
    each of ``band_shares`` of its width: :func:`peg_track`'s."""
    out = []
    for k in range(3):
        a, b = PLAY_CORNERS[k], PLAY_CORNERS[(k + 1) % 3]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / length
        normal = np.array([along[1], -along[0]])
        if np.dot(normal, (a + b) / 2 - CENTRE) < 0:
            normal = -normal
        ts = np.arange(0.1 * length, 0.9 * length, pitch / _PEG_SAMPLES)
        out.append(
            [a + normal * (share * band_width) + ts[:, None] * along for share in band_shares]
        )
    lines = np.array(out)
    lines.setflags(write=False)
    return lines


def _peg_shares(profiles: FloatArray, cfg: ReaderConfig) -> FloatArray:
    """:func:`peg_track`'s share of the holes' ripple in each of the profiles (L, N)
    sampled :data:`_PEG_SAMPLES` to a pitch: (L,)."""
    k = 2 * _PEG_SAMPLES + 1  # two pitches: the slow trend
    sums = np.cumsum(np.pad(profiles, ((0, 0), (1, 0))), axis=1)
    trend = (sums[:, k:] - sums[:, :-k]) / k
    ripple = profiles[:, k // 2 : profiles.shape[1] - k // 2] - trend
    power = np.abs(np.fft.rfft(ripple * np.hanning(ripple.shape[1]), axis=1)) ** 2
    freq = np.fft.rfftfreq(ripple.shape[1], d=1.0 / _PEG_SAMPLES)  # in the holes' frequency
    low, high = _PEG_RIPPLE
    total = power[:, (freq >= low) & (freq <= high)].sum(axis=1)
    holes = power[:, np.abs(freq - 1.0) <= cfg.peg_pitch_tolerance].sum(axis=1)
    return np.where(total > 0, holes / np.maximum(total, 1e-300), np.nan)  # type: ignore[no-any-return]


#: The frequencies (in the holes' own) whose ripple :func:`peg_track` weighs the holes'
#: against: from slow shading (a quarter) to the finest detail (three times).
_PEG_RIPPLE = (0.25, 3.0)


def peg_chance_share(cfg: ReaderConfig) -> float:
    """The share of :func:`peg_track` a line along no row of holes shows by chance: a
    ripple spread evenly over the frequencies weighed puts the width of the holes' band
    (twice ``peg_pitch_tolerance``) of their span there.

    >>> from vision.config import default_config
    >>> round(peg_chance_share(default_config()), 3)
    0.109
    """
    low, high = _PEG_RIPPLE
    return 2.0 * cfg.peg_pitch_tolerance / (high - low)


def on_holes(shares: FloatArray, level: float, sides: int = 2) -> bool:
    """Whether ``sides`` sides or more of :func:`peg_track`'s ``shares`` (3,) show the
    holes' row at least ``level`` clear (a side out of the frame, NaN, never does): a
    lattice a cell off, or at the wrong scale, leaves at most one side of its band on
    it; a half turn, or a move across the sides, none.

    >>> on_holes(np.array([0.6, 0.5, np.nan]), 0.3), on_holes(np.array([0.6, 0.1, 0.1]), 0.3)
    (True, False)
    >>> on_holes(np.array([0.6, 0.1, 0.1]), 0.3, sides=1)
    True
    """
    return int((np.asarray(shares) >= level).sum()) >= sides


def rib_colour(view_bgr: NDArray[np.uint8], canvas: Canvas) -> FloatArray | None:
    """The median :func:`log_colour` (3,) of the plastic ribs between the cells of a
    rectified view (H, W, 3) uint8 on ``canvas``, where its colourless half is; None
    where too few of them are in view.

    A lattice moved by whole cells still puts its cells' edges on the ribs (but along
    the board's sides), so this is the plastic's colour whether or not the fit is a
    cell off (tiles over a rib are coloured: left out).
    """
    ends = EDGE_ENDS.reshape(-1, 2, 2)  # every cell's edges, shared ones twice
    ts = np.linspace(0.25, 0.75, 5)[:, None, None]
    pts = (ends[None, :, 0] * (1 - ts) + ends[None, :, 1] * ts).reshape(-1, 2)
    uv = np.round(canvas.to_canvas(pts)).astype(int)
    h, w = view_bgr.shape[:2]
    inside = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
    px = view_bgr[uv[inside, 1], uv[inside, 0]]
    if len(px) < 30:
        return None
    chroma = px.max(axis=1).astype(np.int16) - px.min(axis=1)
    plain = px[chroma <= np.median(chroma)]
    return np.median(log_colour(plain), axis=0).astype(np.float64)  # type: ignore[no-any-return]


def veil_lifted(
    view_bgr: NDArray[np.uint8], valid: NDArray[np.uint8], ppu: float, cfg: ReaderConfig
) -> NDArray[np.uint8]:
    """A rectified view (H, W, 3) uint8 of a board, ``ppu`` pixels per unit, with the veil
    of a lamp's glare taken off (the view itself where there is none); ``valid`` (H, W)
    uint8, 255 where the view is in the frame.

    Light reflected off the glossy plastic and tiles adds about the same to every
    channel of everything under it. Every patch of the board a cell wide
    (``veil_cell_window`` units) holds something near black in one channel at least: an
    empty cell's frame, the ribs between tiles, a tile's navy disc. So the darkest
    channel, opened over such patches and smoothed, is the plastic's black plus the veil
    there; what it rises above the board's darkest patches by more than ``veil_margin``
    (8-bit levels: a lamp's gradient on black lifts it less) is taken off every channel,
    never more than a pixel's own darkest channel. The shapes and levels of the windows,
    frames and see-through numerals then read as without the glare.

    >>> from vision.config import default_config
    >>> view = np.full((120, 120, 3), 200, np.uint8)
    >>> view[::10] = 20  # ribs
    >>> yy, xx = np.mgrid[:120, :120]
    >>> glare = (90 * np.exp(-((xx - 60) ** 2 + (yy - 60) ** 2) / (2 * 25.0**2))).astype(np.uint8)
    >>> lit = cv2.add(view, cv2.merge([glare] * 3))
    >>> out = veil_lifted(lit, np.full((120, 120), 255, np.uint8), 20, default_config())
    >>> int(lit[60, 60, 0]), int(out[60, 60, 0]), int(out[5, 5, 0])  # a rib; far off
    (110, 39, 200)
    """
    lift = veil_lift(view_bgr, valid, ppu, cfg)
    if lift is None:
        return view_bgr
    return taken_off(view_bgr, np.rint(lift).astype(np.uint8))


def veil_lift(
    view_bgr: NDArray[np.uint8], valid: NDArray[np.uint8], ppu: float, cfg: ReaderConfig
) -> NDArray[np.float32] | None:
    """The veil of light :func:`veil_lifted` takes off a view, (H, W) float32 8-bit
    levels; None where it takes nothing off."""
    darkest = darkest_channel(view_bgr)
    inside = valid == 255
    if not inside.any():
        return None
    k = max(3, int(cfg.veil_cell_window * ppu) | 1)
    veil, _, level = darkest_veil(darkest, k, inside)
    lift = np.minimum(veil - np.float32(level + cfg.veil_margin), darkest.astype(np.float32))
    if float(lift.max()) < 1.0:
        return None
    return np.clip(lift, 0.0, 255.0, out=lift)  # type: ignore[no-any-return]


class Pyramid:
    """The value channel at a few scales, to sample each canvas without aliasing.

    ``plastic``: the plastic's level among the relative values (None: told by the frame,
    see :func:`plastic_contrast`), or its colour (3,) of :func:`log_colour` (then
    :func:`plastic_distance`); :meth:`for_board` gives the pyramid of a board outline's
    own level. ``dark``: whether the table looks dark (None: :func:`table_looks_dark`).

    The contrast saturates ``contrast_floor + contrast_span`` above the plastic's level
    (in shares of the local white, the lit tiles), 0.28: tiles match by their outline
    whatever their colours. On a dark table the windows show the table as dark as the
    ribs, and only the creases between the tiles hold the lattice where tiles fill the
    board; a crease is a tile's surface turned from the light, darker than the tile but
    far brighter than the plastic, and at 0.28 it saturates with the tiles (a lattice
    then slides along rows of tiles or takes another scale). There the contrast
    saturates at half the white (``contrast_span_dark``: 0.08 + 0.42), so that a crease
    down to half a lit tile's brightness still shows.
    """

    def __init__(
        self,
        frame_bgr: NDArray[np.uint8],
        cfg: ReaderConfig | None = None,
        plastic: float | FloatArray | None = None,
        dark: bool | None = None,
        *,
        brightness: bool = False,
    ) -> None:
        # Alignment canvases never need more than ~40 px per unit: start from a frame of
        # at most ~800 px across.
        base, scale = frame_bgr, 1.0
        while max(base.shape[:2]) > 4000:
            base, scale = cv2.pyrDown(base), scale / 2
        self._base, self._cfg = base, cfg
        self._others: dict[float | tuple[float, ...] | str, Pyramid] = {}
        self._colour: NDArray[np.float32] | None = None
        self._table_dark: bool | None = None
        # whether a cell's window matches as well darker than its frame as lighter
        self.signless = brightness
        if brightness:
            level = _LOG_TABLE[cv2.max(cv2.max(base[..., 0], base[..., 1]), base[..., 2])]
            self._sample, self.plastic = None, 0.0
        elif cfg is None:
            level = value_channel(base)
            self._sample, self.plastic = None, 0.0
        elif isinstance(plastic, np.ndarray):
            level = plastic_distance(base, plastic, *cfg.plastic_distance)
            self._sample, self.plastic = None, 0.0
        else:
            self._table_dark = table_looks_dark(base, cfg) if dark is None else dark
            span = cfg.contrast_span_dark if self._table_dark else cfg.contrast_span
            level, self._sample, self.plastic = _plastic_contrast(base, cfg, plastic, span)
        self.levels = [(scale, level)]
        while min(level.shape) > 160:
            level = cv2.pyrDown(level)
            self.levels.append((self.levels[-1][0] / 2, level))
        h, w = frame_bgr.shape[:2]
        self.ones = [(s, _full_255(lv.shape)) for s, lv in self.levels]
        self.shape = (h, w)

    def for_board(self, corners: FloatArray) -> Pyramid:
        """This pyramid, or one with the plastic's level raised to that of the board
        outlined by ``corners`` (3, 2) frame pixels (the ``plastic_board_quantile``
        percentile of what lies in it; its plastic is a third of it or more).

        Black things beside the board (a phone, a shadow) may be darker than its
        plastic, which a lamp's glare and colour lift: taken for the plastic's level,
        they leave the plastic as far from themselves as the tiles are.
        """
        cfg, sample = self._cfg, self._sample
        if cfg is None or sample is None:
            return self
        inside = np.zeros(sample.shape, np.uint8)
        cv2.fillPoly(inside, [np.round(corners * self.levels[0][0] / 4.0).astype(np.int32)], 1)
        own = sample[inside > 0]
        if own.size < 50:
            return self
        # (levels a hundredth apart share a pyramid; one within half the contrast's floor
        # of this one's would change the contrast little, and uses this)
        level = round(float(np.percentile(own, cfg.plastic_board_quantile)), 2)
        if level <= self.plastic + cfg.contrast_floor / 2:
            return self
        if level not in self._others:
            self._others[level] = Pyramid(self._base, cfg, level, self._table_dark)
        return self._others[level]

    def band_colour(self, corners: FloatArray) -> FloatArray | None:
        """The median :func:`log_colour` (3,) of the band of the board outlined by
        ``corners`` (3, 2) frame pixels (:func:`band_and_surround`; the frame's colours
        taken once for all outlines); None where it shows too few pixels."""
        if self._cfg is None:
            return None
        if self._colour is None:
            self._colour = log_colour(self._base[::4, ::4])
        scale = self.levels[0][0] / 4.0
        seen = band_and_surround(self._colour, corners * scale, self._cfg.band_width)
        return None if seen is None else seen[0]

    def on_dark_table(self, corners: FloatArray) -> Pyramid | None:
        """The pyramid of :func:`plastic_distance` from the band's colour of the board
        outlined by ``corners`` (3, 2) frame pixels (:meth:`band_colour`) where the
        frame's table looks dark (:func:`table_looks_dark`); else None.

        The table just outside the band may be as dark as the plastic, or darker, or a
        little brighter (a dark-brown table): the windows show it in its own shade and
        tint, which the distance from the plastic's colour tells from the ribs where the
        usual contrast (brighter than the plastic) sees the window and rib alike. An
        outline may also pass for one on a dark table where it is not the board's (its
        band on tiles, inside a black and white check's dark squares, or on a gingham's
        squares): a fit on this pyramid is one more to weigh, not the only one.
        """
        if self._cfg is None:
            return None
        if self._table_dark is None:
            self._table_dark = table_looks_dark(self._base, self._cfg)
        band = self.band_colour(corners) if self._table_dark else None
        if band is None:
            return None
        key = tuple(round(float(c), 2) for c in band)
        if key not in self._others:
            self._others[key] = Pyramid(self._base, self._cfg, np.array(key))
        return self._others[key]

    def brightness_view(self) -> Pyramid:
        """The pyramid of the log of the frame's brightness (max(B, G, R)) as it is, on
        which a cell's window matches darker than its frame as well as lighter
        (:attr:`signless`): on a table as dark as the plastic, or darker, the windows show
        it in its own shade, and a lamp may light the plastic above it. Neither the
        plastic's level nor its colour is needed (the correlation takes each cell's own
        level and contrast), so a board on a dark table is matched there where the
        contrast views, saturated or floored, lose its windows."""
        if "brightness" not in self._others:
            self._others["brightness"] = Pyramid(self._base, self._cfg, brightness=True)
        return self._others["brightness"]

    def for_scale(
        self, px_per_unit: float, ppu: float
    ) -> tuple[float, NDArray[np.float32], NDArray[np.uint8]]:
        """The coarsest level still at least as fine as the canvas."""
        best = 0
        for k, (s, _) in enumerate(self.levels):
            if px_per_unit * s >= ppu:
                best = k
        s, lv = self.levels[best]
        return s, lv, self.ones[best][1]

    def level_indices(self, px_per_unit: FloatArray, ppu: float) -> NDArray[np.intp]:
        """:meth:`for_scale`'s level, by its index in :attr:`levels`, for each of B
        scales ``px_per_unit`` (B,) float64 at once: (B,)."""
        scales = np.array([s for s, _ in self.levels])
        fine = px_per_unit[:, None] * scales[None, :] >= ppu  # (B, L), as for_scale's test
        last = len(scales) - 1 - np.argmax(fine[:, ::-1], axis=1)  # the last level fine enough
        return np.where(fine.any(axis=1), last, 0)  # type: ignore[no-any-return]


@lru_cache(maxsize=16)
def _full_255(shape: tuple[int, ...]) -> NDArray[np.uint8]:
    """A read-only (H, W) uint8 image of 255: a frame level's validity."""
    out = np.full(shape, 255, np.uint8)
    out.setflags(write=False)
    return out


def _scaled(h: FloatArray, s: float) -> FloatArray:
    return np.diag([s, s, 1.0]) @ h


_PLAY_CORNERS_H = np.hstack([PLAY_CORNERS, np.ones((3, 1))])


def px_per_unit(homography: FloatArray) -> float:
    """Mean image length of one board unit along the playing triangle's sides."""
    hc = _PLAY_CORNERS_H @ np.asarray(homography, dtype=np.float64).T  # project(), inlined
    w = hc[:, 2:3]
    c = hc[:, :2] / np.where(np.abs(w) < 1e-12, 1e-12, w)
    d = c - c[[1, 2, 0]]
    return float(np.sqrt((d * d).sum(axis=1)).mean() / 6.0)


def sample_canvas(
    pyr: Pyramid, h: FloatArray, ppu: int, lens: Lens | None = None, with_valid: bool = True
) -> tuple[NDArray[np.float32], NDArray[np.uint8], Canvas]:
    """The pyramid level that suits ``ppu``, rectified onto a canvas (and its validity)."""
    canvas = _canvas(ppu)
    s, lv, ones = pyr.for_scale(px_per_unit(h), ppu)
    hs = _scaled(h, s)
    ls = None
    if lens is not None and lens.k != 0.0:
        ls = Lens(lens.k, (lens.centre[0] * s, lens.centre[1] * s), lens.norm * s)
    value = warp_to_canvas(lv, hs, canvas, lens=ls)
    valid = validity(lv.shape, hs, canvas, ls) if with_valid else ones[:0]
    return value, valid, canvas


def validity(
    shape: tuple[int, ...], homography: FloatArray, canvas: Canvas, lens: Lens | None
) -> NDArray[np.uint8]:
    """Which canvas pixels come from inside an image of ``shape`` (H, W) uint8, 255 = inside.

    Without warping when the whole canvas lies in the image (then read-only).
    """
    if (lens is None or lens.k == 0.0) and canvas_inside(homography, canvas, shape[:2]):
        return all_valid(canvas)
    return warp_to_canvas(_full_255(tuple(shape[:2])), homography, canvas, lens=lens)


@cache
def _canvas(ppu: int) -> Canvas:
    return Canvas(ppu)


def canvas_inside(h: FloatArray, canvas: Canvas, shape: tuple[int, ...]) -> bool:
    """Whether every canvas pixel maps into the image (H, W) by ``h`` (board -> image),
    half a pixel clear of its edges (then warping it would leave no pixel invalid)."""
    p = _canvas_corners(canvas) @ h.T
    if np.any(p[:, 2] <= 1e-9):  # a side of the board's plane behind the camera
        return False
    # w > 0 at the four corners: the canvas maps to a convex quadrilateral
    x, y = p[:, 0] / p[:, 2], p[:, 1] / p[:, 2]
    return bool(
        x.min() >= 0.5
        and y.min() >= 0.5
        and x.max() <= shape[1] - 1.5
        and y.max() <= shape[0] - 1.5
    )


@cache
def _canvas_corners(canvas: Canvas) -> FloatArray:
    """The board points (4, 3), homogeneous, of a canvas's corner pixels."""
    u, v = canvas.width - 1.0, canvas.height - 1.0
    corners = np.array([[0.0, 0.0, 1.0], [u, 0.0, 1.0], [0.0, v, 1.0], [u, v, 1.0]])
    return corners @ canvas.board_from_canvas.T  # type: ignore[no-any-return]


@cache
def all_valid(canvas: Canvas) -> NDArray[np.uint8]:
    """A canvas's validity (H, W) uint8 where it lies wholly in the frame (read-only)."""
    out = np.full((canvas.height, canvas.width), 255, np.uint8)
    out.setflags(write=False)
    return out


#: How many homographies :func:`sample_pixels` maps at a time: their frame coordinates
#: (float64) then stay in the processor's cache between the steps that compute them.
SAMPLE_CHUNK = 32


def sample_pixels(
    pyr: Pyramid,
    homographies: FloatArray,
    canvas: Canvas,
    pixels: NDArray[np.int64],
    lens: Lens | None = None,
) -> tuple[NDArray[np.float32], NDArray[np.uint8]]:
    """:func:`sample_canvas` of B homographies (B, 3, 3) at some canvas pixels (M, 2)
    (u, v) only: the values (B, M) float32 and validity (B, M) uint8.

    The same numbers as rectifying whole canvases with ``cv2.warpPerspective`` (to ~1e-4:
    the frame coordinates are computed in float64 here), for a fraction of the pixels.
    """
    b = len(homographies)
    values = np.zeros((b, len(pixels)), np.float32)
    valids = np.zeros((b, len(pixels)), np.uint8)
    hc = _PLAY_CORNERS_H @ homographies.transpose(0, 2, 1)  # (B, 3, 3), px_per_unit
    w = hc[..., 2:3]
    c = hc[..., :2] / np.where(np.abs(w) < 1e-12, 1e-12, w)
    d = c - c[:, [1, 2, 0]]
    ppus = np.sqrt((d * d).sum(axis=2)).mean(axis=1) / 6.0
    level_of = pyr.level_indices(ppus, canvas.ppu)  # (B,)
    uv = np.hstack([pixels.astype(np.float64), np.ones((len(pixels), 1))])
    distorted = lens is not None and lens.k != 0.0
    for index in np.unique(level_of):
        s, level = pyr.levels[index]
        ones = pyr.ones[index][1]
        which = level_of == index
        m = np.diag([s, s, 1.0]) @ homographies[which] @ canvas.board_from_canvas  # (b, 3, 3)
        # the frame coordinates (b, M) float32, SAMPLE_CHUNK homographies at a time
        maps = [np.empty((len(m), len(pixels)), np.float32) for _ in range(2)]
        for lo in range(0, len(m), SAMPLE_CHUNK):
            hi = lo + SAMPLE_CHUNK
            p = np.tensordot(m[lo:hi], uv, axes=([2], [1]))  # (b, 3, M): contiguous rows are fast
            horizon = p[:, 2] == 0
            w = np.where(horizon, 1.0, p[:, 2]) if horizon.any() else p[:, 2]
            with np.errstate(over="ignore"):
                if distorted or horizon.any():
                    x, y = p[:, 0] / w, p[:, 1] / w
                    if distorted:
                        assert lens is not None
                        ls = Lens(lens.k, (lens.centre[0] * s, lens.centre[1] * s), lens.norm * s)
                        xy = ls.distort(np.stack([x, y], axis=-1))
                        x, y = xy[..., 0], xy[..., 1]
                    if horizon.any():  # a pixel on the horizon maps outside the frame
                        x, y = np.where(horizon, -1e6, x), np.where(horizon, -1e6, y)
                    maps[0][lo:hi], maps[1][lo:hi] = x, y
                else:  # the quotient, float64, rounded to float32 as it is stored
                    np.divide(p[:, 0], w, out=maps[0][lo:hi], casting="unsafe")
                    np.divide(p[:, 1], w, out=maps[1][lo:hi], casting="unsafe")
        for coord in maps:
            np.clip(coord, -1e6, 1e6, out=coord)  # far outside: as far as needed
        values[which] = cv2.remap(
            level, *maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
        )
        lh, lw = level.shape[:2]
        if (
            maps[0].min() >= 0
            and maps[1].min() >= 0
            and maps[0].max() <= lw - 1
            and maps[1].max() <= lh - 1
        ):
            valids[which] = 255  # every pixel interpolated from inside the frame alone
        else:
            valids[which] = cv2.remap(
                ones, *maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
            )
    return values, valids


def homography_from_corners(
    corners_img: FloatArray, corners_board: FloatArray, g: tuple[float, float]
) -> FloatArray:
    """The homography mapping ``corners_board`` to ``corners_img`` with perspective ``g``.

    ``g`` are the two projective parameters (per board unit, about the board centre)
    that three point pairs leave free.
    """
    t = np.array([[1.0, 0.0, -CENTRE[0]], [0.0, 1.0, -CENTRE[1]], [0.0, 0.0, 1.0]])
    p = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [g[0], g[1], 1.0]]) @ t
    src = project(p, corners_board).astype(np.float32)
    affine = cv2.getAffineTransform(src, corners_img.astype(np.float32))
    return np.vstack([affine, [0.0, 0.0, 1.0]]) @ p


def homographies_from_corners(
    corners_img: FloatArray, corners_board: FloatArray, gs: FloatArray
) -> FloatArray:
    """:func:`homography_from_corners` for many perspectives ``gs`` (B, 2) at once: (B, 3, 3).

    The affine part is solved in float64 from the float32-rounded points, as
    ``cv2.getAffineTransform`` does, by numpy instead.
    """
    b = len(gs)
    p = np.zeros((b, 3, 3))
    p[:, 0, 0] = p[:, 1, 1] = p[:, 2, 2] = 1.0
    p[:, 2, :2] = gs
    p = p @ np.array([[1.0, 0.0, -CENTRE[0]], [0.0, 1.0, -CENTRE[1]], [0.0, 0.0, 1.0]])
    hb = np.hstack([corners_board, np.ones((3, 1))]) @ p.transpose(0, 2, 1)  # (B, 3, 3)
    src = (hb[..., :2] / hb[..., 2:3]).astype(np.float32).astype(np.float64)
    system = np.concatenate([src, np.ones((b, 3, 1))], axis=2)  # rows (x, y, 1)
    dst = np.broadcast_to(corners_img.astype(np.float32).astype(np.float64), (b, 3, 2))
    affine = np.linalg.solve(system, dst).transpose(0, 2, 1)  # (B, 2, 3)
    full = np.concatenate([affine, np.broadcast_to([[[0.0, 0.0, 1.0]]], (b, 1, 3))], axis=1)
    return full @ p  # type: ignore[no-any-return]


#: The canvas resolution (pixels per board unit) of the coarse perspective search.
SEARCH_PPU = 10


def perspective_grid(step: float = 0.03) -> list[tuple[float, float]]:
    """The perspective parameters g tried first by :func:`perspective_search`: a disc of
    steps ``step``. |g| up to ~0.12 per unit covers 50 degrees of tilt with the board
    filling the frame."""
    return [
        (gx * step, gy * step)
        for gx in range(-4, 5)
        for gy in range(-4, 5)
        if gx * gx + gy * gy <= 17
    ]


def perspective_search(
    pyr: Pyramid,
    corners_img: FloatArray,
    cfg: ReaderConfig,
    corners_board: FloatArray | None = None,
    step: float = 0.03,
    only_plausible: bool = False,
) -> FloatArray:
    """Search the perspective that best fits the lattice, three corners fixed.

    ``corners_board`` are the board-plane points seen at ``corners_img``: by default the
    outline's corners (the band's outer edge); the playing triangle's for clicked corners.
    """
    board = outer_corners(cfg.band_width) if corners_board is None else corners_board
    sc = scorer(SEARCH_PPU, cfg)
    best_g, best_score = (0.0, 0.0), -1.0
    grid = perspective_grid(step)
    seen: set[tuple[float, float]] = set()
    for _ in range(2):
        # not the previous round's best again, the centre of this round's grid
        cands = [g for g in grid if g not in seen]
        seen.update(cands)
        hs = homographies_from_corners(corners_img, board, np.array(cands).reshape(-1, 2))
        if only_plausible:
            ok = [plausible(h, cfg) for h in hs]
            cands = [g for g, k in zip(cands, ok, strict=True) if k]
            hs = hs[np.array(ok, dtype=bool)]
        if cands:
            values, valids = sample_pixels(pyr, hs, sc.canvas, sc.pixels)
            scores = sc.totals(values, valids, pyr.signless)
            k = int(np.argmax(scores))  # the first of equal best scores, as before
            if scores[k] > best_score:
                best_g, best_score = cands[k], float(scores[k])
        step /= 3
        grid = [
            (best_g[0] + gx * step, best_g[1] + gy * step)
            for gx in range(-2, 3)
            for gy in range(-2, 3)
        ]
    log.debug("perspective g=(%.3f, %.3f) score %.1f", best_g[0], best_g[1], best_score)
    return homography_from_corners(corners_img, board, best_g)


def lattice_scores(pyr: Pyramid, outlines: Sequence[FloatArray], cfg: ReaderConfig) -> FloatArray:
    """How well the lattice fits each of several outlines (K,) float64: the best total of
    :func:`perspective_search`'s first, coarse round, all outlines' views in one batch.

    A cheap way to rank outlines that the outline's own shape cannot tell apart (a hand
    or clutter over the border makes many plausible triangles).
    """
    if not outlines:
        return np.zeros(0)
    board = outer_corners(cfg.band_width)
    grid = np.array(perspective_grid())
    hs = np.concatenate([homographies_from_corners(c, board, grid) for c in outlines])
    totals = coarse_totals(pyr, hs, cfg)
    return totals.reshape(len(outlines), len(grid)).max(axis=1)  # type: ignore[no-any-return]


def coarse_totals(pyr: Pyramid, homographies: FloatArray, cfg: ReaderConfig) -> FloatArray:
    """The lattice's total match (B,) float64 in each of the views B homographies (B, 3,
    3) give, at the coarse search's resolution (``SEARCH_PPU``)."""
    sc = scorer(SEARCH_PPU, cfg)
    totals = np.empty(len(homographies))
    for lo in range(0, len(homographies), LATTICE_SCORES_CHUNK):  # each view on its own
        chunk = homographies[lo : lo + LATTICE_SCORES_CHUNK]
        values, valids = sample_pixels(pyr, chunk, sc.canvas, sc.pixels)
        totals[lo : lo + LATTICE_SCORES_CHUNK] = sc.totals(values, valids, pyr.signless)
    return totals


#: How many views :func:`coarse_totals` samples and scores at a time: their samples
#: then stay in the processor's cache while they are scored.
LATTICE_SCORES_CHUNK = 64


class MaskedNcc:
    """Masked normalised cross-correlation of fixed templates over images of one shape.

    The same scores as ``cv2.matchTemplate(image, template, cv2.TM_CCOEFF_NORMED,
    mask=mask)`` for a 0/1 mask, computed from three unmasked correlations that share the
    image's spectra: with ``Z = M (T - mean_M T)``,
    ``ncc = corr(I, Z) / (|Z| sqrt(corr(I^2, M) - corr(I, M)^2 / sum(M)))``. The
    templates' spectra are computed once, so many windows of one image cost two forward
    and three inverse transforms per template instead of a masked match per window.
    Where the image is flat under the mask (no defined correlation) the score is -1.
    """

    def __init__(
        self,
        shape: tuple[int, int],
        pairs: tuple[tuple[NDArray[np.float32], NDArray[np.float32]], ...],
    ) -> None:
        """``shape``: (H, W) of the images; ``pairs``: (template, mask) of one size each,
        (th, tw) float32, the mask 0 or 1."""
        h, w = shape
        self.shape = (h, w)
        self.dft_shape = (_fast_dft_size(h), _fast_dft_size(w))
        self.template_shape: tuple[int, int] = pairs[0][0].shape[:2]  # type: ignore[assignment]
        self.out_shape = (h - self.template_shape[0] + 1, w - self.template_shape[1] + 1)
        self.kernels: list[tuple[NDArray[np.float32], NDArray[np.float32], float, float]] = []
        for img, mask in pairs:
            m = (mask > 0).astype(np.float64)
            n = float(m.sum())
            mean = float((img * m).sum()) / max(n, 1.0)
            z = m * (img.astype(np.float64) - mean)
            self.kernels.append((self._spectrum(z), self._spectrum(m), n, float(np.linalg.norm(z))))
        # the kernels' sum(M) and |Z| (|Z| at least 1e-12), (K,) float64, for score()
        self.counts = np.asarray([kern[2] for kern in self.kernels])
        self.norms = np.maximum(np.asarray([kern[3] for kern in self.kernels]), 1e-12)

    def _spectrum(self, image: NDArray[np.floating]) -> NDArray[np.float32]:
        """Packed (CCS) spectrum of ``image`` zero-padded to the transform size."""
        pad = np.zeros(self.dft_shape, np.float32)
        pad[: image.shape[0], : image.shape[1]] = image
        return cv2.dft(pad)  # type: ignore[no-any-return]

    def sums(self, image: NDArray[np.float32]) -> NDArray[np.float32]:
        """The correlations ``corr(I, Z)``, ``corr(I, M)`` and ``corr(I^2, M)`` of each
        template with the image (H, W) less its mean (which NCC ignores): (K, 3, h, w)
        float32 over the whole transform size (h, w) ``dft_shape``, valid in the first
        ``out_shape``."""
        # the image less its mean, then its square, zero-padded to the transform size
        h, w = image.shape[:2]
        pad = np.zeros(self.dft_shape, np.float32)
        np.subtract(image, np.float32(image.mean()), out=pad[:h, :w], dtype=np.float32)
        f1 = cv2.dft(pad)
        f2 = cv2.dft(np.multiply(pad, pad, out=pad))
        out = np.empty((len(self.kernels), 3, *self.dft_shape), np.float32)
        prod = np.empty_like(f1)
        for k, (fz, fm, _, _) in enumerate(self.kernels):
            for j, (f, kernel) in enumerate(((f1, fz), (f1, fm), (f2, fm))):
                prod = cv2.mulSpectrums(f, kernel, 0, prod, conjB=True)
                res = cv2.idft(prod, out[k, j], flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
                if not np.shares_memory(res, out):  # OpenCV wrote elsewhere after all
                    out[k, j] = res
        return out

    def score(self, k: NDArray[np.int64] | int, sums: NDArray[np.floating]) -> FloatArray:
        """NCC (float64) of templates ``k`` from (any selection of) their :meth:`sums`:
        ``sums`` (..., 3, ...) with ``k`` broadcasting against the dimensions before the
        3; -1 where the image is flat."""
        n, norm_z = self.counts[k], self.norms[k]
        lead = np.ndim(n)
        num, s, q = (np.asarray(sums[(slice(None),) * lead + (j,)], np.float64) for j in range(3))
        extra = (...,) + (None,) * (num.ndim - lead)
        return _ncc(num, s, q, n[extra], norm_z[extra])

    def maps(self, image: NDArray[np.float32]) -> list[FloatArray]:
        """Every template's NCC map (out_h, out_w) float64 over ``image`` (H, W)."""
        oh, ow = self.out_shape
        sums = self.sums(image)[:, :, :oh, :ow]
        return [self.score(k, sums[k]) for k in range(len(self.kernels))]


def _ncc(
    num: FloatArray, s: FloatArray, q: FloatArray, n: FloatArray, norm_z: FloatArray
) -> FloatArray:
    """NCC (float64) from the sums ``corr(I, Z)``, ``corr(I, M)``, ``corr(I^2, M)`` and the
    templates' ``sum(M)`` and ``|Z|``, all broadcasting together; -1 where I is flat."""
    var = q - s * s / n
    flat = var <= FLAT_VARIANCE * n
    return np.where(flat, -1.0, num / (np.sqrt(np.where(flat, 1.0, var)) * norm_z))  # type: ignore[no-any-return]


def _fast_dft_size(n: int) -> int:
    """The smallest length >= ``n`` of the form 2^a 3^b 5^c with a >= 3 (OpenCV's
    transforms are fastest on lengths with several factors of two)."""
    m = max(n, 8)
    while True:
        k = m
        for p in (2, 3, 5):
            while k % p == 0:
                k //= p
        if k == 1 and m % 8 == 0:
            return m
        m += 1


#: Mean squared deviation (value units squared) under a mask below which the image counts
#: as flat there; the plastic contrast spans 0..1, so this is a spread of 1%.
FLAT_VARIANCE = 1e-4


@dataclass(frozen=True)
class _CellWindows:
    """Where each cell's search region lies on a canvas, and the NCC over their union."""

    x0: NDArray[np.int64]  # (36,) left column of each cell's search region
    y0: NDArray[np.int64]  # (36,) top row
    inside: NDArray[np.bool_]  # (36,) the region lies on the canvas
    box: tuple[int, int, int, int]  # (x0, y0, x1, y1): the union of the regions inside
    half: int  # template half size: the template is (2 half + 1) square
    side: int  # search window side, 2 r + 1
    ncc: MaskedNcc  # up tile, up window, down tile, down window templates over the box
    on_canvas: NDArray[np.int64]  # (n,) the cells inside, in order
    #: (n, side, side) the top row and left column, on the canvas, of the template's
    #: square at each offset of each cell inside (broadcast from (n, side, 1), (n, 1, side))
    rows: NDArray[np.int64]
    cols: NDArray[np.int64]
    #: (n, 2) the templates (tile and window of its orientation) of each cell inside
    templates: NDArray[np.int64]
    #: (3, n, 2, side^2) where the cells inside find, in ``ncc.sums``'s output flattened,
    #: the three sums of each of their templates at each offset
    gather: NDArray[np.intp]


@lru_cache(maxsize=16)
def _cell_windows(
    canvas: Canvas, r: int, ridge: float, window_side: float, disc: float
) -> _CellWindows:
    ppu = int(canvas.ppu)
    pairs = cell_templates(True, ppu, ridge, window_side, disc) + cell_templates(
        False, ppu, ridge, window_side, disc
    )
    half = pairs[0][0].shape[0] // 2
    centres = canvas.to_canvas(CENTROIDS)
    # np.round, like the built-in round, rounds halves to even
    cx = np.round(centres[:, 0]).astype(np.int64)
    cy = np.round(centres[:, 1]).astype(np.int64)
    x0, y0 = cx - half - r, cy - half - r
    x1, y1 = cx + half + r + 1, cy + half + r + 1
    inside = (x0 >= 0) & (y0 >= 0) & (x1 <= canvas.width) & (y1 <= canvas.height)
    if not inside.any():
        inside[:] = False
        box = (0, 0, canvas.width, canvas.height)
    else:
        box = (
            int(x0[inside].min()),
            int(y0[inside].min()),
            int(x1[inside].max()),
            int(y1[inside].max()),
        )
    shape = (box[3] - box[1], box[2] - box[0])
    ncc = MaskedNcc(shape, pairs)
    side = 2 * r + 1
    on_canvas = np.flatnonzero(inside)
    grid = np.arange(side)
    rows = (y0[on_canvas, None] + grid)[:, :, None]
    cols = (x0[on_canvas, None] + grid)[:, None, :]
    # the sums' flat index: template (tile and window of the cell's orientation), sum,
    # then the offset's place in the transform-sized output
    dh, dw = ncc.dft_shape
    window = (grid[:, None] * dw + grid[None, :]).ravel()  # (side^2,)
    corner = (y0[on_canvas] - box[1]) * dw + (x0[on_canvas] - box[0])  # (n,)
    templates = np.where(UP[on_canvas], 0, 2)[:, None] + np.arange(2)[None, :]  # (n, 2)
    gather = (
        (templates[None, :, :, None] * 3 + np.arange(3)[:, None, None, None]) * (dh * dw)
        + (corner[:, None] + window[None, :])[None, :, None, :]
    ).astype(np.intp)
    return _CellWindows(
        x0,
        y0,
        inside,
        box,
        half,
        side,
        ncc,
        on_canvas.astype(np.int64),
        rows,
        cols,
        templates,
        gather,
    )


def match_offsets(
    value: NDArray[np.float32],
    valid: NDArray[np.uint8],
    canvas: Canvas,
    search: float,
    cfg: ReaderConfig,
) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
    """Best template offset of every cell: (indices, offsets in board units, scores);
    :func:`match_cells` without which template matched."""
    idx, off, score, _ = match_cells(value, valid, canvas, search, cfg)
    return idx, off, score


def match_cells(
    value: NDArray[np.float32],
    valid: NDArray[np.uint8],
    canvas: Canvas,
    search: float,
    cfg: ReaderConfig,
    signless: bool = False,
) -> tuple[NDArray[np.int64], FloatArray, FloatArray, NDArray[np.bool_]]:
    """Best template offset of every cell: (indices, offsets in board units, scores,
    whether a tile's template matched there rather than an empty window's).

    ``value``: the canvas (H, W) float32; ``valid``: (H, W) uint8, 0 outside the frame.
    A cell is matched when its search region lies on the canvas and its template, at
    its nominal place, in the frame. Only the offsets whose template (its bounding
    square) lies in the frame are tried, so the cells along the frame's edge of a board
    it cuts off are matched too; a peak beside an offset not tried is not kept (the best
    may lie past it). The best score over both templates and the search window must
    reach ``align_min_score``; the peak is refined to sub-pixel by a parabola on each
    axis.
    """
    r = int(math.ceil(search * canvas.ppu))
    win = _cell_windows(canvas, r, cfg.ridge_half_width, cfg.window_side, cfg.disc_radius)
    half, side = win.half, win.side
    x0, y0 = win.x0, win.y0
    cells, templates, gather = win.on_canvas, win.templates, win.gather
    # the offsets whose template's square is in the frame, (n, side, side); None: all
    free: NDArray[np.bool_] | None = None
    if len(cells) and valid.min() == 0:
        # the frame's holes under the template's square at each offset of each cell
        holes = cv2.integral((valid == 0).astype(np.uint8))  # (H + 1, W + 1) int32
        size = 2 * half + 1
        ys, xs = win.rows, win.cols
        free = (
            holes[ys + size, xs + size]
            - holes[ys, xs + size]
            - holes[ys + size, xs]
            + holes[ys, xs]
            == 0
        )
        centred = free[:, side // 2, side // 2]
        cells, free = cells[centred], free[centred]
        templates, gather = templates[centred], gather[:, centred]
    n = len(cells)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros(0), np.zeros(0, bool)
    bx0, by0, bx1, by1 = win.box
    sums = win.ncc.sums(value[by0:by1, bx0:bx1])  # (4, 3, h, w)
    num, s, q = sums.reshape(-1)[gather].astype(np.float64)  # each (n, 2, side^2)
    ncc = win.ncc
    flat = _ncc(num, s, q, ncc.counts[templates][..., None], ncc.norms[templates][..., None])
    if signless:  # (the flat windows' -1 stays)
        var = q[:, 1] - s[:, 1] * s[:, 1] / ncc.counts[templates][:, 1:2]
        shown = var > FLAT_VARIANCE * ncc.counts[templates][:, 1:2]
        flat[:, 1] = np.where(shown, np.abs(flat[:, 1]), flat[:, 1])
    if free is not None:
        flat = np.where(free.reshape(n, 1, -1), flat, -2.0)
    scores = flat.reshape(n, 2, side, side)
    peak = flat.argmax(axis=2)  # (n, 2), the first of equal maxima as cv2.minMaxLoc
    n_idx = np.arange(n)
    peak_score = flat[n_idx[:, None], np.arange(2)[None, :], peak]  # (n, 2)
    which = (peak_score[:, 1] > peak_score[:, 0]).astype(np.int64)
    score = peak_score[n_idx, which]
    loc = peak[n_idx, which]
    ly, lx = loc // side, loc % side
    best = scores[n_idx, which]  # (n, side, side)

    def parabola(
        a: FloatArray, b: FloatArray, c: FloatArray, inner: NDArray[np.bool_]
    ) -> FloatArray:
        den = a - 2 * b + c
        use = inner & (den < 0)
        return np.where(use, 0.5 * (a - c) / np.where(use, den, -1.0), 0.0)

    inner_x = (lx > 0) & (lx < side - 1)
    inner_y = (ly > 0) & (ly < side - 1)
    # the neighbours' places, kept in the window (0 <= lx, ly < side)
    lxm, lxp = np.maximum(lx - 1, 0), np.minimum(lx + 1, side - 1)
    lym, lyp = np.maximum(ly - 1, 0), np.minimum(ly + 1, side - 1)
    centre = best[n_idx, ly, lx]
    px = lx + parabola(best[n_idx, ly, lxm], centre, best[n_idx, ly, lxp], inner_x)
    py = ly + parabola(best[n_idx, lym, lx], centre, best[n_idx, lyp, lx], inner_y)
    keep = score >= cfg.align_min_score
    if free is not None:  # not beside an offset not tried
        keep &= (
            free[n_idx, ly, lxm]
            & free[n_idx, ly, lxp]
            & free[n_idx, lym, lx]
            & free[n_idx, lyp, lx]
        )
    centres = canvas.to_canvas(CENTROIDS[cells])
    off = np.stack(
        [
            (x0[cells] + px + half - centres[:, 0]) / canvas.ppu,
            (y0[cells] + py + half - centres[:, 1]) / canvas.ppu,
        ],
        axis=1,
    )
    return cells[keep].astype(np.int64), off[keep], score[keep], which[keep] == 0


def find_homography(
    src: FloatArray, dst: FloatArray, method: int = 0, thresh: float = 3.0
) -> tuple[FloatArray | None, NDArray[np.uint8] | None]:
    """``cv2.findHomography`` that answers ``(None, None)`` for degenerate points
    (fewer than four, or all on a line) instead of raising."""
    if len(src) < 4:
        return None, None
    try:
        return cv2.findHomography(src, dst, method, thresh)  # type: ignore[no-any-return]
    except cv2.error:
        return None, None


def fit_with_lens(
    board_pts: FloatArray,
    image_pts: FloatArray,
    lens: Lens,
    thresh: float,
    max_k: float,
    min_f: float = 8.0,
    min_points: int = 15,
    max_sigmas: float = 0.0,
    *,
    bend: bool = True,
    noise_px: float = 0.0,
) -> tuple[FloatArray, Lens, NDArray[np.bool_], FloatArray]:
    """Homography and radial distortion that best map board points onto image points.

    The wrong lattice points are set aside by OpenCV's USAC (RANSAC with local
    optimisation of the inliers: plain RANSAC kept or dropped borderline points by the
    luck of its draws, and misplaced fits by a tenth of a cell); the distortions tried are
    scored all at once (:func:`_homographies`); the one chosen is fitted again with OpenCV.

    ``max_sigmas`` (0: not asked for): of USAC's inliers, those further off its
    homography than so many times the inliers' own spread are set aside too, where most
    are kept (:func:`_within_spread`): points found as precisely as the discs are, a
    few found on something else lie many times their spread off, yet inside ``thresh``.
    ``bend`` False: no distortion is looked for, ``lens`` is kept as it is.

    A distortion is taken where it explains the points better than chance would:
    where the F statistic of its one parameter over the homography's eight,
    ``(RSS0 - RSS1) / (RSS1 / (2N - 9))`` for N points' squared errors, is at least
    ``min_f`` (:func:`lens_is_significant`, the errors' spread at least ``noise_px``).
    A fixed share of the error (what was asked before) turned down a
    lens that 24 points held at F = 9.6 (s9898/50: 2.39 -> 2.14 px, its corner
    cells 17 px off), and asked as much of 200 points as of 20.
    """
    h0, keep = _usac_inliers(board_pts, image_pts, thresh)
    if max_sigmas > 0:
        keep = _within_spread(h0, board_pts, image_pts, keep, max_sigmas)
    bp, ip = board_pts[keep], image_pts[keep]

    def residual(k: float) -> tuple[float, FloatArray, FloatArray | None]:
        """rms error, homography, and each point's error (None: no homography fits)."""
        und = lens.with_k(k).undistort(ip)
        h, _ = find_homography(bp, und, 0)
        if h is None:
            return float("inf"), h0, None
        err = np.linalg.norm(lens.with_k(k).distort(project(h, bp)) - ip, axis=1)
        return float(np.sqrt(np.mean(err**2))), h, err

    best_k = 0.0 if bend else lens.k
    best_r, best_h, best_err = residual(best_k)
    if best_err is None:  # none fits: USAC's homography, on the frame's pixels as they are
        best_k = 0.0
    r_none = best_r
    if bend and len(bp) >= min_points and max_k > 0:
        ks = np.linspace(-max_k, 0.0, 13)[:-1]
        hs = _homographies(bp, undistort_many(lens, ks, ip))
        # each k's rms error: its homography, then its distortion (Lens.distort, batched)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            hp = np.hstack([bp, np.ones((len(bp), 1))]) @ hs.transpose(0, 2, 1)  # (K, N, 3)
            w = hp[..., 2:3]
            pts = hp[..., :2] / np.where(np.abs(w) < 1e-12, 1e-12, w)
            c = np.asarray(lens.centre)
            r2 = (((pts - c) / lens.norm) ** 2).sum(axis=-1, keepdims=True)
            pts = c + (pts - c) * (1.0 + ks[:, None, None] * r2)
            rms = np.sqrt(np.mean(((pts - ip) ** 2).sum(axis=-1), axis=1))
        rms = np.where(np.isfinite(rms), rms, np.inf)
        j = int(np.argmin(rms))
        # The best bending, if it explains the points better than chance would.
        if lens_is_significant(best_r, float(rms[j]), len(bp), min_f, noise_px):
            best_k, best_r = float(ks[j]), float(rms[j])
        if best_k != 0.0:
            best_r, best_h, best_err = residual(best_k)
            # between the grid's steps: the vertex of the parabola through the best
            # and its neighbours (the last step's neighbour is k = 0)
            r_all = np.r_[rms, r_none]
            k_all = np.r_[ks, 0.0]
            if 0 < j < len(k_all) - 1 and np.isfinite(r_all[[j - 1, j + 1]]).all():
                a, b, c = r_all[j - 1], r_all[j], r_all[j + 1]
                den = a - 2 * b + c
                if den > 0:
                    k_v = float(ks[j] + 0.5 * (a - c) / den * (k_all[1] - k_all[0]))
                    r_v, h_v, err_v = residual(k_v)
                    if r_v < best_r:
                        best_k, best_r, best_h, best_err = k_v, r_v, h_v, err_v
    out_lens = lens.with_k(best_k)
    errors = best_err  # best_h's, as residual() measured them
    if errors is None:  # h0's
        errors = np.linalg.norm(out_lens.distort(project(best_h, bp)) - ip, axis=1)
    return best_h / best_h[2, 2], out_lens, keep, errors


def lens_is_significant(
    rms_none: float, rms_lens: float, points: int, min_f: float, noise_px: float = 0.0
) -> bool:
    """Whether a radial distortion's rms error ``rms_lens`` (px, over ``points`` image
    points) is lower than the homography's alone, ``rms_none``, by more than chance:
    the F statistic of the one parameter added, on the 2N - 9 degrees of freedom
    left, is at least ``min_f``. The errors' spread is taken as ``noise_px`` (px per
    coordinate) where the lens leaves less: the lattice points are found to about that,
    and a lens explaining errors finer than their own precision explains the matching's
    bias (a dark-table board read with k = -0.10 where the camera's was +0.02: 0.83 ->
    0.76 px on 28 points, F = 9.1 on its own spread, 3.2 on 0.7 px).

    >>> lens_is_significant(2.39, 2.14, 24, 8.0)
    True
    >>> lens_is_significant(2.39, 2.30, 24, 8.0)
    False
    >>> lens_is_significant(0.83, 0.76, 28, 8.0), lens_is_significant(0.83, 0.76, 28, 8.0, 0.7)
    (True, False)
    """
    dof = 2 * points - 9
    if dof <= 0 or not np.isfinite(rms_lens) or rms_lens >= rms_none:
        return False
    rss_none, rss_lens = rms_none**2 * points, rms_lens**2 * points
    spread = max(rss_lens / dof, noise_px**2)  # per coordinate, px^2
    return spread <= 0.0 or (rss_none - rss_lens) / spread >= min_f


def _within_spread(
    h: FloatArray,
    board_pts: FloatArray,
    image_pts: FloatArray,
    keep: NDArray[np.bool_],
    max_sigmas: float,
) -> NDArray[np.bool_]:
    """``keep`` (N,) less the points further off homography ``h`` than ``max_sigmas``
    times the spread of those kept, where at least ``WITHIN_SPREAD_MIN_SHARE`` of them
    stay (a fit held by fewer than ``WITHIN_SPREAD_MIN_POINTS``, or one whose errors do
    not gather about a spread, is left to USAC alone).

    The spread is a 2-D Gaussian's sigma told robustly by the median distance (which is
    sigma times sqrt(2 ln 2), a Rayleigh distribution's median). USAC's homography is
    pulled towards the far points it keeps: the points are judged again from the
    homography of those within the spread, until they stay the same.

    >>> bp = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [2, 2], [2, 1], [1, 2.]])
    >>> off = np.zeros_like(bp); off[::2, 0] = 0.1; off[1::2, 0] = -0.1; off[8] = [0.0, 2.0]
    >>> _within_spread(np.eye(3), bp, bp + off, np.ones(9, bool), 3.0).tolist()
    [True, True, True, True, True, True, True, True, False]
    """
    if keep.sum() < WITHIN_SPREAD_MIN_POINTS:
        return keep
    within = keep
    for _ in range(WITHIN_SPREAD_ROUNDS):
        err = np.linalg.norm(project(h, board_pts) - image_pts, axis=1)
        sigma = float(np.median(err[within])) / math.sqrt(2.0 * math.log(2.0))
        now = keep & (err <= max_sigmas * sigma)
        if now.sum() < WITHIN_SPREAD_MIN_SHARE * keep.sum():
            return keep
        if (now == within).all():
            break
        # the points a few far ones pulled the homography towards are seen again from
        # the homography of the rest
        within = now
        refit, _ = find_homography(board_pts[within], image_pts[within])
        if refit is None:
            return keep
        h = refit
    return within


#: :func:`_within_spread` drops at most 30% of the inliers, of 8 or more, refitting the
#: homography to those left up to 3 times.
WITHIN_SPREAD_MIN_SHARE = 0.7
WITHIN_SPREAD_MIN_POINTS = 8
WITHIN_SPREAD_ROUNDS = 3


def _usac_inliers(
    board_pts: FloatArray, image_pts: FloatArray, thresh: float
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """The homography (3x3) that OpenCV's USAC fits to the points, and its inliers (N,);
    :class:`BoardNotFoundError` when none fits."""
    h0, inliers = find_homography(board_pts, image_pts, cv2.USAC_DEFAULT, thresh)
    if h0 is None:
        raise BoardNotFoundError("no homography fits the lattice")
    return h0, inliers.ravel().astype(bool)


def undistort_many(lens: Lens, ks: FloatArray, pts: FloatArray) -> FloatArray:
    """``lens.with_k(k).undistort(pts)`` for every k of ``ks`` (K,) < 0: (K, N, 2).

    The same arithmetic as :meth:`Lens.undistort`, one Newton iteration for all k at once.
    """
    k = np.asarray(ks, dtype=np.float64)[:, None, None]  # (K, 1, 1)
    c = np.asarray(lens.centre)
    d = (pts - c) / lens.norm
    t = np.linalg.norm(d, axis=-1, keepdims=True)[None]  # (1, N, 1)
    r_max = 1.0 / np.sqrt(-3.0 * k)
    r = np.minimum(t, 0.999 * r_max)
    for _ in range(12):  # Newton on r + k r^3 = t
        step = (r + k * r**3 - t) / np.maximum(1.0 + 3.0 * k * r**2, 1e-3)
        r = np.minimum(np.maximum(r - step, 0.0), 0.999 * r_max)  # np.clip, but faster
        if float(np.abs(step).max()) < 1e-15:  # converged: further steps change nothing
            break
    ratio = np.where(t > 1e-12, r / np.maximum(t, 1e-12), 1.0)
    return c + d[None] * ratio * lens.norm  # type: ignore[no-any-return]


def _homographies(src: FloatArray, dst: FloatArray, iterations: int = 3) -> FloatArray:
    """Least-squares homographies (K, 3, 3) mapping ``src`` (N, 2) onto each of ``dst``
    (K, N, 2): a normalised DLT, then Gauss-Newton on the reprojection error (what
    ``cv2.findHomography(src, dst, 0)`` computes, for K point sets at once; a few steps
    from the DLT leave the error within a micro-pixel of its minimum on lattice points).
    NaN where the points leave it undetermined."""
    kk, n = dst.shape[0], src.shape[0]

    def normaliser(p: FloatArray) -> FloatArray:  # (..., N, 2) -> (..., 3, 3)
        m = p.mean(axis=-2)
        scale = np.sqrt(2.0) / np.maximum(
            np.linalg.norm(p - m[..., None, :], axis=-1).mean(-1), 1e-12
        )
        t = np.zeros((*p.shape[:-2], 3, 3))
        t[..., 0, 0] = t[..., 1, 1] = scale
        t[..., 0, 2] = -scale * m[..., 0]
        t[..., 1, 2] = -scale * m[..., 1]
        t[..., 2, 2] = 1.0
        return t

    ts, td = normaliser(src), normaliser(dst)
    s = project(ts, src)  # (N, 2)
    d = dst * td[:, None, [0, 1], [0, 1]] + td[:, None, [0, 1], 2]  # (K, N, 2)
    x, y = s[:, 0], s[:, 1]
    a = np.zeros((kk, 2 * n, 9))
    a[:, 0::2, 0], a[:, 0::2, 1], a[:, 0::2, 2] = x, y, 1.0
    a[:, 1::2, 3], a[:, 1::2, 4], a[:, 1::2, 5] = x, y, 1.0
    a[:, 0::2, 6] = -d[..., 0] * x
    a[:, 0::2, 7] = -d[..., 0] * y
    a[:, 0::2, 8] = -d[..., 0]
    a[:, 1::2, 6] = -d[..., 1] * x
    a[:, 1::2, 7] = -d[..., 1] * y
    a[:, 1::2, 8] = -d[..., 1]
    # the null vector of A: the eigenvector of A^T A (9 x 9) with the least eigenvalue
    # (several times faster than the SVD of A; the points are normalised, so well
    # conditioned, and Gauss-Newton below polishes what is left)
    try:
        _, vecs = np.linalg.eigh(a.transpose(0, 2, 1) @ a)
    except np.linalg.LinAlgError:
        return np.full((kk, 3, 3), np.nan)
    h = np.linalg.inv(td) @ vecs[:, :, 0].reshape(kk, 3, 3) @ ts
    with np.errstate(divide="ignore", invalid="ignore"):
        h = h / h[:, 2:3, 2:3]
        params = h.reshape(kk, 9)[:, :8]
        xs, ys = src[:, 0], src[:, 1]

        def residuals(p: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
            w = p[:, 6:7] * xs + p[:, 7:8] * ys + 1.0  # (K, N)
            u = (p[:, 0:1] * xs + p[:, 1:2] * ys + p[:, 2:3]) / w
            v = (p[:, 3:4] * xs + p[:, 4:5] * ys + p[:, 5:6]) / w
            res = np.concatenate([u - dst[..., 0], v - dst[..., 1]], axis=1)  # (K, 2N)
            return res, u, v, w

        res, u, v, w = residuals(params)
        cost = (res**2).sum(axis=1)
        for _ in range(iterations):
            jac = np.zeros((kk, 2 * n, 8))
            jac[:, :n, 0], jac[:, :n, 1], jac[:, :n, 2] = xs / w, ys / w, 1.0 / w
            jac[:, n:, 3], jac[:, n:, 4], jac[:, n:, 5] = xs / w, ys / w, 1.0 / w
            jac[:, :n, 6], jac[:, :n, 7] = -u * xs / w, -u * ys / w
            jac[:, n:, 6], jac[:, n:, 7] = -v * xs / w, -v * ys / w
            jtj = jac.transpose(0, 2, 1) @ jac
            jtr = (jac.transpose(0, 2, 1) @ res[..., None])[..., 0]
            try:
                step = np.linalg.solve(jtj, jtr[..., None])[..., 0]
            except np.linalg.LinAlgError:
                break
            trial = params - step
            new_res, nu, nv, nw = residuals(trial)
            new_cost = (new_res**2).sum(axis=1)
            better = new_cost < cost
            if not np.any(better & (cost - new_cost > 1e-9 * cost)):
                # converged: what is left would not move a point by a micro-pixel
                params = np.where(better[:, None], trial, params)
                break
            params = np.where(better[:, None], trial, params)
            res = np.where(better[:, None], new_res, res)
            u, v, w = (
                np.where(better[:, None], a_new, a_old)
                for a_new, a_old in ((nu, u), (nv, v), (nw, w))
            )
            cost = np.where(better, new_cost, cost)
        out = np.concatenate([params, np.ones((kk, 1))], axis=1).reshape(kk, 3, 3)
    return out  # type: ignore[no-any-return]


#: The focal length assumed (in units of the frame's half-diagonal) where a homography
#: does not tell it (a view from straight above): about a phone's 70-degree view.
DEFAULT_FOCAL = 1.4
#: The focal lengths (same units) a homography may tell: from a fisheye to a zoom.
FOCAL_RANGE = (0.5, 5.0)


def focal_length(homography: FloatArray, centre: tuple[float, float], norm: float) -> float:
    """The camera's focal length (px) that a board-plane homography implies, with the
    principal point at ``centre`` and square pixels; ``norm`` is the frame's
    half-diagonal (px), the unit of :data:`DEFAULT_FOCAL` and :data:`FOCAL_RANGE`.

    The plane's two axes must be at right angles and of equal length once the camera's
    intrinsics are taken off: two equations in 1/f^2, solved together. A view from
    straight above tells nothing (and needs nothing: no parallax), so the default.

    >>> k = np.array([[800.0, 0.0, 320.0], [0.0, 800.0, 240.0], [0.0, 0.0, 1.0]])
    >>> c, s = np.cos(0.6), np.sin(0.6)
    >>> rt = np.array([[1.0, 0.0, -2.0], [0.0, c, -1.0], [0.0, s, 12.0]])  # r1, r2, t
    >>> round(focal_length(k @ rt, (320.0, 240.0), 400.0), 3)
    800.0
    """
    t = np.array([[1.0, 0.0, -centre[0]], [0.0, 1.0, -centre[1]], [0.0, 0.0, 1.0]])
    h = t @ np.asarray(homography, dtype=np.float64)
    h = h / np.linalg.norm(h)
    h1, h2 = h[:, 0], h[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    lo, hi = (x * norm for x in FOCAL_RANGE)
    denominator = float(a @ a)
    if denominator > 0:
        w = -float(a @ b) / denominator  # 1 / f^2
        if w > 0 and lo <= 1.0 / math.sqrt(w) <= hi:
            return 1.0 / math.sqrt(w)
    return DEFAULT_FOCAL * norm


def lift(
    homography: FloatArray, height: float, centre: tuple[float, float], norm: float
) -> FloatArray:
    """The homography (3, 3) float64 of the plane ``height`` board units above the
    board's (towards the camera: a tile's top), from the board's ``homography``, with the
    camera's principal point at ``centre`` and its focal length as the homography
    implies (:func:`focal_length`).

    The camera's pose relative to the board follows from the homography and the focal
    length: ``K^-1 H = s [r1 r2 t]``. The raised plane is ``K [r1 r2 t + height u]``, with
    ``u`` the board's normal turned to the camera (in camera coordinates).

    >>> k = np.array([[800.0, 0.0, 320.0], [0.0, 800.0, 240.0], [0.0, 0.0, 1.0]])
    >>> c, s = np.cos(0.6), np.sin(0.6)
    >>> r = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    >>> t = np.array([-2.0, -1.0, 12.0])
    >>> h = k @ np.column_stack([r[:, 0], r[:, 1], t])
    >>> up = -r[:, 2]  # the camera is on the side of -z: the board's up is -z
    >>> want = k @ np.column_stack([r[:, 0], r[:, 1], t + 0.1 * up])
    >>> bool(np.allclose(lift(h, 0.1, (320.0, 240.0), 400.0), want / want[2, 2]))
    True
    """
    h = np.asarray(homography, dtype=np.float64)
    if height == 0.0:
        return h
    return lifts(h, np.array([height]), centre, norm)[0]


def lifts(
    homography: FloatArray, heights: FloatArray, centre: tuple[float, float], norm: float
) -> FloatArray:
    """:func:`lift` to each of ``heights`` (J,): (J, 3, 3) float64."""
    h = np.asarray(homography, dtype=np.float64)
    f = focal_length(h, centre, norm)
    k = np.array([[f, 0.0, centre[0]], [0.0, f, centre[1]], [0.0, 0.0, 1.0]])
    m = np.linalg.solve(k, h)
    scale = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2.0
    if m[2, 2] < 0:  # the board lies in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] / scale, m[:, 1] / scale, m[:, 2] / scale
    r3 = np.cross(r1, r2)
    r3 /= np.linalg.norm(r3)
    # the camera's centre, in board coordinates, lies on the side the normal points to
    camera_z = -float(r3 @ t)
    up = r3 if camera_z > 0 else -r3
    cols = np.broadcast_to(np.column_stack([r1, r2, t]), (len(heights), 3, 3)).copy()
    cols[:, :, 2] += np.asarray(heights, dtype=np.float64)[:, None] * up
    out = k @ cols
    return out / out[:, 2:3, 2:3]  # type: ignore[no-any-return]


def anisotropy(homography: FloatArray) -> float:
    """How much more the board is stretched one way than the other at its centre.

    The ratio of the singular values of the homography's Jacobian there: about
    1 / cos(tilt) for a camera tilted away from overhead (1.56 at 50 degrees).

    >>> round(anisotropy(np.diag([2.0, 1.0, 1.0])), 3)
    2.0
    """
    c = np.asarray(CENTRE, dtype=np.float64)
    e = 1e-3
    pts = project(homography, c + np.array([[0.0, 0.0], [e, 0.0], [0.0, e]]))
    jac = np.stack([pts[1] - pts[0], pts[2] - pts[0]], axis=1) / e
    s = np.linalg.svd(jac, compute_uv=False)
    return float(s[0] / max(s[1], 1e-12))


def plausible(homography: FloatArray, cfg: ReaderConfig, max_ratio: float | None = None) -> bool:
    """A homography a real camera could give: board in front, not folded, modest
    perspective (its farthest outer corner at most ``max_ratio``, by default
    ``max_perspective_ratio``, times as far from the camera as its nearest)."""
    corners = outer_corners(cfg.band_width)
    w = np.hstack([corners, np.ones((3, 1))]) @ homography[2]
    if np.any(w <= 0):
        return False
    if w.max() / w.min() > (cfg.max_perspective_ratio if max_ratio is None else max_ratio):
        return False
    img = project(homography, corners)
    cross = (img[1, 0] - img[0, 0]) * (img[2, 1] - img[0, 1]) - (img[1, 1] - img[0, 1]) * (
        img[2, 0] - img[0, 0]
    )
    return bool(cross > 0)


def perspective_limit(points: int, cfg: ReaderConfig) -> float:
    """The perspective (:func:`plausible`'s ``max_ratio``) a fit held by ``points``
    points may show. A steep view close up sees the far corner up to three times as far
    as the near one (50 degrees of tilt, the board filling 90% of a 70-degree view: the
    camera about 0.8 board sizes away, the corners 0.4 nearer and farther): such a
    perspective is taken where as many points hold it as hold a lattice
    (``enough_lattice_points``: lattice points or discs alike), and left to the
    outline's guess where fewer do (a wrong one fits a handful of points as well)."""
    if points >= cfg.enough_lattice_points:
        return cfg.max_perspective_ratio_held
    return cfg.max_perspective_ratio


def _affine_update(
    current: FloatArray, board_pts: FloatArray, image_pts: FloatArray, lens: Lens, thresh: float
) -> tuple[FloatArray, NDArray[np.bool_], FloatArray]:
    """Correct ``current`` by an affine map of the image only (its perspective stays)."""
    predicted = project(current, board_pts)
    target = lens.undistort(image_pts)
    try:
        affine, inliers = cv2.estimateAffine2D(
            predicted, target, method=cv2.RANSAC, ransacReprojThreshold=thresh
        )
    except cv2.error:
        affine, inliers = None, None
    if affine is None:
        raise BoardNotFoundError("no map fits the lattice")
    new = np.vstack([affine, [0.0, 0.0, 1.0]]) @ current
    keep = inliers.ravel().astype(bool)
    errors = np.linalg.norm(lens.distort(project(new, board_pts[keep])) - image_pts[keep], axis=1)
    return new / new[2, 2], keep, errors


def lowered(
    homography: FloatArray, seen: FloatArray, tiles: NDArray[np.bool_], height: float, lens: Lens
) -> FloatArray:
    """Undistorted image points ``seen`` (N, 2), those of ``tiles`` (N,) bool taken from
    the plane of the tiles' tops ``height`` above the board down to the board's, as
    ``homography`` (the board's) sees both."""
    out = np.array(seen, dtype=np.float64)
    if height > 0 and tiles.any():
        tops = lift(homography, height, lens.centre, lens.norm)
        out[tiles] = project(homography @ np.linalg.inv(tops), out[tiles])
    return out


def tile_height_told(
    homography: FloatArray,
    board_pts: FloatArray,
    seen: FloatArray,
    tiles: NDArray[np.bool_],
    lens: Lens,
    thresh: float,
    cfg: ReaderConfig,
    prior: float | None = None,
) -> float:
    """How far above the board the tiles' tops lie (board units), as the lattice points
    tell: the height at which the tiles' points (``tiles``), taken down to the board's
    plane, fit one homography best with the windows' (the other points). ``seen``:
    undistorted image points (N, 2) of ``board_pts`` (N, 2), matched on a canvas of
    ``homography``. The ``prior`` (by default the config's ``tile_height``) where there
    are too few of either (``tile_height_min_points``): then nothing tells it (and a
    board of tiles alone, or of windows alone, needs no more). A tile's disc, on its
    top, is as good a point of a tile.
    """
    prior = cfg.tile_height if prior is None else prior
    if cfg.tile_height_max <= 0:
        return prior
    least = cfg.tile_height_min_points
    if int(tiles.sum()) < least or int((~tiles).sum()) < least:
        return prior
    if lean(homography, lens) < cfg.tile_height_min_lean:
        return prior  # seen from nearly above: a height shifts nothing to tell it by
    try:
        _, keep = _usac_inliers(board_pts, lowered(homography, seen, tiles, prior, lens), thresh)
    except BoardNotFoundError:
        return prior
    if int(tiles[keep].sum()) < least or int((~tiles[keep]).sum()) < least:
        return prior
    heights = np.r_[prior, np.arange(0.0, cfg.tile_height_max + 1e-9, cfg.tile_height_step)]
    tops = lifts(homography, heights, lens.centre, lens.norm)  # (J, 3, 3)
    down = homography @ np.linalg.inv(tops)  # (J, 3, 3): from each height to the board
    pts = np.broadcast_to(seen[keep], (len(heights), int(keep.sum()), 2)).copy()
    raised = tiles[keep]
    q = np.concatenate([pts[:, raised], np.ones((len(heights), int(raised.sum()), 1))], axis=2)
    q = q @ down.transpose(0, 2, 1)
    pts[:, raised] = q[..., :2] / q[..., 2:3]
    errors = _fit_errors(board_pts[keep], pts)
    k = 1 + int(np.argmin(errors[1:]))
    # another height than the prior only where it fits clearly better
    if errors[k] > (1.0 - cfg.tile_height_min_gain) * errors[0]:
        return prior
    return float(heights[k])


def _fit_errors(board_pts: FloatArray, image_pts: FloatArray) -> FloatArray:
    """The mean squared error (px^2) of the normalised-DLT homography (:func:`_homographies`
    without its polishing) from ``board_pts`` (N, 2) to each set of ``image_pts``
    (J, N, 2): (J,)."""
    h = _homographies(board_pts, image_pts, iterations=0)  # (J, 3, 3)
    q = np.concatenate([board_pts, np.ones((len(board_pts), 1))], axis=1) @ h.transpose(0, 2, 1)
    fitted = q[..., :2] / q[..., 2:3]
    return ((fitted - image_pts) ** 2).sum(axis=-1).mean(axis=-1)  # type: ignore[no-any-return]


def lean(homography: FloatArray, lens: Lens) -> float:
    """How far (board units) the camera sees a point one unit above the board's centre
    moved off it, per unit of height: about the tangent of the view's tilt."""
    tops = lift(homography, 0.1, lens.centre, lens.norm)
    moved = project(np.linalg.inv(homography) @ tops, np.asarray([CENTRE]))[0]
    return float(np.linalg.norm(moved - np.asarray(CENTRE))) / 0.1


def relowered(
    homography: FloatArray,
    image_pts: FloatArray,
    raised: NDArray[np.bool_],
    old: float,
    new: float,
    lens: Lens,
) -> FloatArray:
    """Frame pixels (N, 2) of points taken down to the board's plane from a height
    ``old`` (those ``raised``), taken down from ``new`` instead."""
    if old == new or not raised.any():
        return image_pts
    pts = lens.undistort(image_pts)
    up = lift(homography, old, lens.centre, lens.norm) @ np.linalg.inv(homography)
    pts[raised] = project(up, pts[raised])
    return lens.distort(lowered(homography, pts, raised, new, lens))


def refine(
    pyr: Pyramid, homography: FloatArray, cfg: ReaderConfig, lens: Lens
) -> tuple[FloatArray, Lens, FloatArray, tuple[FloatArray, FloatArray]]:
    """Rounds of lattice point matching; returns (homography, lens, inlier errors px,
    (inlier board points (N, 2), their frame pixels (N, 2)))."""
    h, lens, errors, lattice, _, _ = refine_raised(pyr, homography, cfg, lens)
    return h, lens, errors, lattice


def refine_raised(
    pyr: Pyramid, homography: FloatArray, cfg: ReaderConfig, lens: Lens
) -> tuple[FloatArray, Lens, FloatArray, tuple[FloatArray, FloatArray], float, NDArray[np.bool_]]:
    """:func:`refine`, the points of tiles taken down from their tops' plane to the
    board's (:func:`tile_height_told`); returns its answer, the tiles' height and which
    of the lattice points are tiles'."""
    raised = np.zeros(0, bool)
    current = np.asarray(homography, dtype=np.float64)
    height = cfg.tile_height
    errors = np.zeros(0)
    lattice = (np.zeros((0, 2)), np.zeros((0, 2)))
    narrow = min(r.search for r in cfg.align_rounds)
    for rnd in cfg.align_rounds:
        value, valid, canvas = sample_canvas(pyr, current, rnd.ppu, lens)
        idx, off, _, tiles = match_cells(value, valid, canvas, rnd.search, cfg, pyr.signless)
        if len(idx) < cfg.align_min_cells and rnd.search > narrow:
            # A board cut off by the frame leaves few cells whose whole search region is
            # in it: a narrower search, around the first guess, keeps more of them.
            idx, off, _, tiles = match_cells(value, valid, canvas, narrow, cfg, pyr.signless)
        if len(idx) < cfg.align_min_cells:
            raise BoardNotFoundError(
                f"only {len(idx)} cells of the lattice could be matched", len(idx)
            )
        board_pts = CENTROIDS[idx]
        seen = project(current, board_pts + off)
        thresh = cfg.ransac_threshold * px_per_unit(current)
        # A tile's top lies above the board: the camera sees it on the plane of the
        # tiles' tops. Taken down to the board's plane (as the fit so far lies), the
        # points of tiles and windows fit one homography. (A tile's template matches its
        # top and the walls below it: the height they tell is less than the discs tell,
        # later; near it, both tiles and windows are kept among the points.)
        if rnd is not cfg.align_rounds[0]:  # (the first round's points are coarse)
            height = tile_height_told(current, board_pts, seen, tiles, lens, thresh, cfg, height)
        image_pts = lens.distort(lowered(current, seen, tiles, height, lens))
        few = len(idx) < cfg.min_cells_for_perspective
        if few:
            # fit_with_lens's answer would be set aside below: only whether a homography
            # fits at all (else it raises) is asked of it
            _usac_inliers(board_pts, image_pts, thresh)
        else:
            new, new_lens, keep, new_errors = fit_with_lens(
                board_pts,
                image_pts,
                lens,
                thresh,
                cfg.max_lens_k,
                cfg.lens_min_f,
                cfg.lens_min_points,
                noise_px=cfg.lens_noise_px,
                # (the lens is looked for on the last round's points, the finest: the
                # coarser rounds' would tell it less surely, and the last tells it again)
                bend=rnd is cfg.align_rounds[-1],
            )
        # (a steep perspective only where enough lattice points hold it)
        if few or not plausible(new, cfg, perspective_limit(int(keep.sum()), cfg)):
            # Too few points to pin the perspective down: keep it, correct the rest.
            new, keep, new_errors = _affine_update(current, board_pts, image_pts, lens, thresh)
            new_lens = lens
        current, lens, errors = new, new_lens, new_errors
        lattice = (board_pts[keep], image_pts[keep])
        raised = tiles[keep]
        log.debug(
            "round ppu=%d: %d matched, %d inliers, rms %.2f px, k %.3f",
            rnd.ppu,
            len(idx),
            int(keep.sum()),
            float(np.sqrt(np.mean(errors**2))),
            lens.k,
        )
    return current, lens, errors, lattice, height, raised


def verify_shifts(
    pyr: Pyramid, homography: FloatArray, cfg: ReaderConfig, lens: Lens | None = None
) -> tuple[FloatArray, bool]:
    """Move the lattice by whole cells while that fits the board better.

    The shifts are tried in turn, each from the lattice as it then is; the canvases of
    those still to try are scored together.
    """
    sc = scorer(14, cfg)
    steps = [
        np.array([[1.0, 0.0, sx], [0.0, 1.0, sy], [0.0, 0.0, 1.0]]) for sx, sy in LATTICE_SHIFTS
    ]

    def totals(hs: list[FloatArray]) -> FloatArray:
        values, valids = sample_pixels(pyr, np.stack(hs), sc.canvas, sc.pixels, lens)
        return sc.totals(values, valids, pyr.signless)

    current = homography
    first = totals([current] + [current @ t for t in steps])
    best, scores = float(first[0]), list(first[1:])
    moved = False
    for _ in range(3):
        improved = False
        for k, t in enumerate(steps):
            if scores[k] > best * 1.08 + 0.5:
                best, current, improved, moved = float(scores[k]), current @ t, True, True
                if k + 1 < len(steps):  # the rest from the moved lattice
                    scores[k + 1 :] = list(totals([current @ u for u in steps[k + 1 :]]))
        if not improved:
            break
        scores = list(totals([current @ t for t in steps]))
    return current, moved


def fit_board(
    frame_bgr: NDArray[np.uint8],
    corners_img: FloatArray,
    cfg: ReaderConfig,
    pyramid: Pyramid | None = None,
) -> BoardFit:
    """The whole stage: perspective search, refinement and shift check from outline corners.

    ``pyramid``: the frame's :class:`Pyramid` when already built (several outlines of one
    frame share it).
    """
    pyr = pyramid if pyramid is not None else Pyramid(frame_bgr, cfg)
    lens = Lens.none(frame_bgr.shape)
    h = perspective_search(pyr, corners_img, cfg)
    h, lens, errors, lattice, height, raised = refine_raised(pyr, h, cfg, lens)
    unmoved = h
    h, moved = verify_shifts(pyr, h, cfg, lens)
    if moved:  # the same points, named by the cells they now fall on
        lattice = (project(np.linalg.inv(h) @ unmoved, lattice[0]), lattice[1])
    for attempt in range(cfg.extra_refines):
        if not (moved and attempt == 0) and len(errors) >= cfg.enough_lattice_points:
            break
        # Cells far from the first guess are found once the fit has improved elsewhere.
        log.debug("refining again (moved=%s, %d points)", moved, len(errors))
        try:
            h2, lens2, errors2, lattice2, height2, raised2 = refine_raised(pyr, h, cfg, lens)
        except BoardNotFoundError:
            break
        if not (moved and attempt == 0) and len(errors2) <= len(errors):
            break
        h, lens, errors, lattice, height, raised = h2, lens2, errors2, lattice2, height2, raised2
    rms = float(np.sqrt(np.mean(errors**2))) if len(errors) else float("inf")
    scale = px_per_unit(h)
    return BoardFit.from_homography(h, rms, rms / scale, len(errors), lens, lattice, height, raised)
