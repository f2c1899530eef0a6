"""Board outlines seeded by the cells themselves: the tiles and the windows seen as
triangles, each taken in turn for each cell of the board.

Where the board's outline does not stand out from the table (a table as dark as the
plastic and of its shade, a hand over most of the band), its cells still do: a tile is a
bright triangle the size of a cell, a window a triangle half its size, darker or lighter
than the ribs around it, and both sit on the cells' lattice turned as their cell. One such
triangle and the cell it is taken for fix the board's place, turn and scale (an affine
map, which the lattice fit then straightens): each is scored by a coarse lattice fit in
one view, and the best few places are the outlines tried.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import ReaderConfig
from vision.locate import corner_gaps, signed_area, triangle_area
from vision.model import PLAY_CORNERS, SIDE, SQRT3, VERTICES, outer_corners, playing_share
from vision.rectify import Pyramid, coarse_totals

FloatArray = NDArray[np.float64]


def cell_triangles(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> FloatArray:
    """The triangles a frame (H, W, 3) uint8 shows that could be a cell's tile or window:
    their corners (N, 3, 2) float64 frame pixels.

    Each is a region brighter (or darker) than its surroundings over a few sizes of
    neighbourhood (:func:`cv2.adaptiveThreshold` on the brightest channel) that fills
    ``seed_fill`` of the least triangle enclosing it, of an area between half a window's
    on the least board looked for (``min_board_area_fraction`` of the frame) and a
    tile's on a board whose playing triangle is as wide as the frame's long side. (The
    rim just around a region that stands out stands out the other way from its own
    neighbourhood, and may be found too, about the same triangle: one more seed on the
    same place.)
    """
    h, w = frame_bgr.shape[:2]
    value = np.ascontiguousarray(frame_bgr.max(axis=2))
    short = min(h, w)
    cells = len(VERTICES)
    least_play = cfg.min_board_area_fraction * h * w * playing_share(cfg.band_width) ** 2
    least = 0.5 * cfg.window_side**2 * least_play / cells
    most = SQRT3 / 4 * max(h, w) ** 2 / cells
    tris: list[FloatArray] = []
    opening = np.ones((3, 3), np.uint8)
    for share in cfg.seed_blocks:
        block = max(3, int(share * short) | 1)
        for light in (True, False):
            mask = cv2.adaptiveThreshold(
                value,
                255,
                cv2.ADAPTIVE_THRESH_MEAN_C,
                cv2.THRESH_BINARY if light else cv2.THRESH_BINARY_INV,
                block,
                -cfg.seed_contrast if light else cfg.seed_contrast,
            )
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, opening)
            # (every region's outer boundary, those within another's hole too: the
            # board's windows lie within the ring of table darker than its band)
            contours, tree = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
            for k, contour in enumerate(contours):
                if tree[0, k, 3] >= 0:  # a hole's boundary
                    continue
                area = cv2.contourArea(contour)
                if area < least or area > most:
                    continue
                found, tri = cv2.minEnclosingTriangle(contour)
                if found <= 0 or tri is None or area < cfg.seed_fill * found:
                    continue
                tris.append(tri.reshape(3, 2).astype(np.float64))
    return np.array(tris) if tris else np.zeros((0, 3, 2))


def seed_homographies(triangles: FloatArray, scales: tuple[float, ...]) -> FloatArray:
    """The affine board-to-frame maps (T x S x 3 x 36, 3, 3) that put each cell's
    triangle, shrunk about its centroid to each of ``scales`` (a tile's, a window's side in
    cell sides), on each of ``triangles`` (T, 3, 2) in each of its three turns: by frame
    triangle, then scale, turn and cell."""
    tri = np.asarray(triangles, np.float64)
    # the frame's triangles turned as the cells' are (both y downwards)
    flip = np.sign(signed_area(tri)) != np.sign(signed_area(VERTICES[0]))
    tri = np.where(flip[:, None, None], tri[:, ::-1], tri)
    centroid = VERTICES.mean(axis=1, keepdims=True)  # (36, 1, 2)
    maps = []
    for s in scales:
        src = centroid + s * (VERTICES - centroid)  # (36, 3, 2)
        ordered = src if signed_area(src[0]) > 0 else src[:, ::-1]
        for turn in range(3):
            turned = np.roll(ordered, turn, axis=1)  # (36, 3, 2)
            system = np.concatenate([turned, np.ones((36, 3, 1))], axis=2)  # (36, 3, 3)
            # solve system @ A^T = dst for each frame triangle and cell
            inv = np.linalg.inv(system)  # (36, 3, 3)
            affine = np.einsum("cij,tjk->tcik", inv, tri)  # (T, 36, 3, 2)
            maps.append(affine)
    affine = np.stack(maps, axis=1)  # (T, S * 3, 36, 3, 2)
    full = np.zeros((*affine.shape[:3], 3, 3))
    full[..., :2, :] = np.swapaxes(affine, -1, -2)
    full[..., 2, 2] = 1.0
    return full.reshape(-1, 3, 3)


def seeded_outlines(
    frame_bgr: NDArray[np.uint8], pyramid: Pyramid, cfg: ReaderConfig, limit: int
) -> FloatArray:
    """The outlines (K, 3, 2) float64 frame pixels (K <= ``limit``) of the board placed by
    each of the cell triangles the frame shows (:func:`cell_triangles`) taken for each
    cell, as a tile (``seed_tile_side``) or as a window (``window_side``), best first
    by a coarse lattice fit on ``pyramid`` in the affine view alone; where the board
    covers ``min_board_area_fraction`` of the frame at least (as a fit must,
    :meth:`BoardReader._too_small`) and its playing triangle lies within
    ``seed_cut_cells`` of the frame; distinct places (corners a cell apart or more)
    only."""
    h, w = frame_bgr.shape[:2]
    triangles = cell_triangles(frame_bgr, cfg)
    if not len(triangles):
        return np.zeros((0, 3, 2))
    hs = seed_homographies(triangles, (cfg.seed_tile_side, cfg.window_side))
    # (affine maps: the points need no division)
    ends = np.c_[np.r_[outer_corners(cfg.band_width), PLAY_CORNERS], np.ones(6)]
    mapped = (ends @ hs.transpose(0, 2, 1))[..., :2]  # (B, 6, 2)
    outlines, play = mapped[:, :3], mapped[:, 3:]
    cell = np.hypot(*(play[:, 1] - play[:, 2]).T) / SIDE
    margin = cfg.seed_cut_cells * cell[:, None]
    inside = (
        (play[..., 0] > -margin)
        & (play[..., 0] < w + margin)
        & (play[..., 1] > -margin)
        & (play[..., 1] < h + margin)
    ).all(axis=1)
    big = triangle_area(outlines) >= cfg.min_board_area_fraction * h * w
    keep = np.flatnonzero(inside & big)
    if not len(keep):
        return np.zeros((0, 3, 2))
    order = keep[np.argsort(-coarse_totals(pyramid, hs[keep], cfg), kind="stable")]
    kept: list[FloatArray] = []
    kept_cells: list[float] = []
    for b in order:
        if kept and (corner_gaps(outlines[b], np.array(kept)) < np.array(kept_cells)).any():
            continue
        kept.append(outlines[b])
        kept_cells.append(float(cell[b]))
        if len(kept) == limit:
            break
    return np.array(kept)
