"""Stage 1: find the board's outline in a frame and make a first board-to-image map.

The board is matte black plastic: a large dark, colourless region whose convex outline
is a (rounded) triangle. Darkness is judged relative to the local brightness of the
frame, so uneven light and colour casts do not move the threshold. Loose tiles are
bright, hands are not dark, and a partly covered or cut-off border only removes points
from the three side lines, which are fitted robustly.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import ReaderConfig
from vision.errors import BoardNotFoundError
from vision.model import FloatArray, canonical_order, outer_corners

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outline:
    """The board's outline: its three sharp corners in frame pixels (canonical order)."""

    corners: FloatArray  # (3, 2) float64, apex / bottom-right / bottom-left
    fill: float  # area of the dark region's hull / area of the fitted triangle
    cut_off: bool  # the dark region touches the frame's edge

    def __repr__(self) -> str:
        pts = ", ".join(f"({x:.0f}, {y:.0f})" for x, y in self.corners)
        return f"Outline([{pts}], fill={self.fill:.2f}, cut_off={self.cut_off})"


def dark_mask(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> NDArray[np.uint8]:
    """Pixels dark and colourless relative to their surroundings (the board's plastic).

    ``frame_bgr``: (H, W, 3) uint8. Returns (H, W) uint8 of 0/255.
    """
    f = frame_bgr.astype(np.float32)
    value = f.max(axis=2)
    chroma = value - f.min(axis=2)
    h, w = value.shape
    # Local white reference: the brightest things nearby, smoothed.
    k = max(3, int(cfg.illumination_window * max(h, w)) | 1)
    small = cv2.resize(value, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    ks = max(3, (k // 4) | 1)
    ref = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ks, ks)))
    ref = cv2.blur(ref, (ks, ks))
    ref = cv2.resize(ref, (w, h), interpolation=cv2.INTER_LINEAR)
    ref = np.maximum(ref, 24.0)
    dark = (value < cfg.dark_relative_value * ref) & (chroma < cfg.dark_relative_chroma * ref)
    return dark.astype(np.uint8) * 255


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


def _intersect(l1: tuple[FloatArray, FloatArray], l2: tuple[FloatArray, FloatArray]) -> FloatArray:
    (p, r), (q, s) = l1, l2
    den = r[0] * s[1] - r[1] * s[0]
    if abs(den) < 1e-9:
        raise BoardNotFoundError("two sides of the outline are parallel")
    t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / den
    return p + t * r


def locate_outline(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> Outline:
    """Find the board's triangular outline; :class:`BoardNotFoundError` if there is none."""
    h, w = frame_bgr.shape[:2]
    scale = min(1.0, cfg.locate_long_side_px / max(h, w))
    small = cv2.resize(
        frame_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
    )
    sh, sw = small.shape[:2]
    mask = dark_mask(small, cfg)
    k = max(3, int(0.012 * max(sh, sw)) | 1)
    mask = cv2.morphologyEx(
        mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = cfg.min_board_area_fraction * sh * sw
    best: tuple[float, FloatArray, float, NDArray[np.int32]] | None = None
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        hull = cv2.convexHull(contour)
        hull_area = cv2.contourArea(hull)
        tri_area, tri = cv2.minEnclosingTriangle(hull.astype(np.float32))
        if tri is None or tri_area <= 0:
            continue
        fill = hull_area / tri_area
        density = area / max(hull_area, 1.0)
        corners = tri.reshape(3, 2).astype(np.float64)
        sides = [np.hypot(*(corners[i] - corners[(i + 1) % 3])) for i in range(3)]
        if min(sides) / max(sides) < 0.3 or density < 0.2:
            continue
        score = hull_area * fill**4
        log.debug("outline candidate area=%.0f fill=%.2f density=%.2f", hull_area, fill, density)
        if fill >= cfg.min_triangle_fill and (best is None or score > best[0]):
            best = (score, corners, fill, contour)
    if best is None:
        raise BoardNotFoundError("no dark triangular board outline in the image")
    _, corners, fill, contour = best
    pts = contour.reshape(-1, 2).astype(np.float64)
    border = (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= sw - 2) | (pts[:, 1] >= sh - 2)
    cut_off = bool(border.any())
    pts = pts[~border]
    perimeter = sum(np.hypot(*(corners[i] - corners[(i + 1) % 3])) for i in range(3))
    tol = 0.03 * perimeter
    for _ in range(2):
        lines = [_fit_side(pts, corners[i], corners[(i + 1) % 3], tol) for i in range(3)]
        if any(line is None for line in lines):
            break
        refined = np.array([_intersect(lines[i - 1], lines[i]) for i in range(3)])  # type: ignore[arg-type]
        if not np.all(np.isfinite(refined)) or np.abs(refined - corners).max() > 0.2 * perimeter:
            break
        corners = refined
        tol = 0.015 * perimeter
    return Outline(canonical_order(corners / scale), float(fill), cut_off)


def initial_homography(outline: Outline, cfg: ReaderConfig) -> FloatArray:
    """The affine board-to-image map that puts the model's outline on the found one."""
    src = outer_corners(cfg.band_width).astype(np.float32)
    dst = outline.corners.astype(np.float32)
    affine = cv2.getAffineTransform(src, dst)
    return np.vstack([affine, [0.0, 0.0, 1.0]])


def triangle_side_px(outline: Outline) -> float:
    c = outline.corners
    return float(np.mean([math.dist(c[i], c[(i + 1) % 3]) for i in range(3)]))
