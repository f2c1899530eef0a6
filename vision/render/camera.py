"""A pinhole camera over the table: pose, homography, projection with lens distortion.

World frame = the board plane: x right, y down (board-plane units, tile side = 1), z into
the table (right-handed), so the board lies in z = 0 and the camera sits at z < 0.
Distortion follows OpenCV's model (k1, k2, p1, p2, k3).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.render.scene import outer_outline, playing_corners


@dataclass(frozen=True)
class Camera:
    """A calibrated camera at a pose.

    ``K`` (3, 3), ``rvec`` (3,), ``tvec`` (3,), ``dist`` (5,) float64, OpenCV conventions.
    """

    width: int
    height: int
    K: np.ndarray = field(repr=False, compare=False)
    rvec: np.ndarray = field(repr=False, compare=False)
    tvec: np.ndarray = field(repr=False, compare=False)
    dist: np.ndarray = field(repr=False, compare=False)

    @property
    def R(self) -> np.ndarray:
        return cv2.Rodrigues(self.rvec)[0]

    def homography(self, K: np.ndarray | None = None) -> np.ndarray:
        """Board plane (x, y, 1) -> undistorted image pixels, (3, 3) float64, H[2, 2] = 1."""
        k = self.K if K is None else K
        r = self.R
        h = k @ np.column_stack([r[:, 0], r[:, 1], self.tvec])
        return h / h[2, 2]

    def homography_at(self, height: float, K: np.ndarray | None = None) -> np.ndarray:
        """:meth:`homography` of the plane ``height`` units above the board (a tile's top,
        towards the camera), (3, 3) float64, H[2, 2] = 1."""
        k = self.K if K is None else K
        r = self.R
        # z points into the table: a point above the board has z = -height
        h = k @ np.column_stack([r[:, 0], r[:, 1], self.tvec - height * r[:, 2]])
        return h / h[2, 2]

    def project(self, points_xy: np.ndarray) -> np.ndarray:
        """Board-plane points (N, 2) -> distorted image pixels (N, 2) float64."""
        pts = np.asarray(points_xy, np.float64).reshape(-1, 2)
        obj = np.column_stack([pts, np.zeros(len(pts))])
        img, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.K, self.dist)
        return img.reshape(-1, 2)

    def project_undistorted(self, points_xy: np.ndarray) -> np.ndarray:
        """Board-plane points (N, 2) -> undistorted image pixels (N, 2) float64."""
        pts = np.asarray(points_xy, np.float64).reshape(-1, 2)
        q = np.column_stack([pts, np.ones(len(pts))]) @ self.homography().T
        return q[:, :2] / q[:, 2:3]

    def depth(self, points_xy: np.ndarray) -> np.ndarray:
        """Distance along the optical axis of board-plane points (N,)."""
        pts = np.asarray(points_xy, np.float64).reshape(-1, 2)
        obj = np.column_stack([pts, np.zeros(len(pts))])
        return (obj @ self.R.T + self.tvec)[:, 2]

    def to_json(self) -> dict[str, object]:
        return {
            "width": self.width,
            "height": self.height,
            "K": self.K.tolist(),
            "rvec": self.rvec.tolist(),
            "tvec": self.tvec.tolist(),
            "dist": self.dist.tolist(),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Camera:
        return cls(
            int(data["width"]),  # type: ignore[call-overload]
            int(data["height"]),  # type: ignore[call-overload]
            np.array(data["K"], np.float64),
            np.array(data["rvec"], np.float64),
            np.array(data["tvec"], np.float64),
            np.array(data["dist"], np.float64),
        )


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def look_at(
    width: int,
    height: int,
    focal_px: float,
    tilt_deg: float,
    rotation_deg: float,
    target_xy: np.ndarray,
    distance: float,
    dist: np.ndarray,
) -> Camera:
    """A camera ``distance`` away from ``target_xy`` on the board plane, looking at it,
    tilted ``tilt_deg`` from straight down and turned ``rotation_deg`` about its axis."""
    r = _rot_x(math.radians(tilt_deg)) @ _rot_z(math.radians(rotation_deg))
    view = r.T @ np.array([0.0, 0.0, 1.0])
    target = np.array([target_xy[0], target_xy[1], 0.0])
    centre = target - distance * view
    t = -r @ centre
    k = np.array([[focal_px, 0, (width - 1) / 2], [0, focal_px, (height - 1) / 2], [0, 0, 1.0]])
    return Camera(width, height, k, cv2.Rodrigues(r)[0].ravel(), t, np.asarray(dist, np.float64))


def board_fraction(cam: Camera) -> float:
    """How much of the frame the whole board spans: max of bbox width / W, height / H."""
    q = cam.project_undistorted(outer_outline())
    span = q.max(axis=0) - q.min(axis=0)
    return float(max(span[0] / cam.width, span[1] / cam.height))


def _inside(cam: Camera, pts: np.ndarray, pad: float = 2.0) -> np.ndarray:
    q = cam.project(pts)
    return (
        (q[:, 0] >= pad)
        & (q[:, 0] <= cam.width - 1 - pad)
        & (q[:, 1] >= pad)
        & (q[:, 1] <= cam.height - 1 - pad)
    )


def cut_depth(cam: Camera, corner: int) -> float:
    """How deep (tile units along the median from the corner) the frame cuts the playing
    triangle at ``corner`` (0 apex, 1 bottom-right, 2 bottom-left); 0 = corner visible."""
    corners = playing_corners()
    c = corners[corner]
    g = corners.mean(axis=0)
    lam = np.linspace(0.0, float(np.linalg.norm(g - c)), 160)
    pts = c + (g - c) / np.linalg.norm(g - c) * lam[:, None]
    ok = _inside(cam, pts, 0.0)
    if ok[0]:
        return 0.0
    first = np.argmax(ok) if ok.any() else len(lam) - 1
    return float(lam[first])


def place_camera(
    width: int,
    height: int,
    focal_px: float,
    tilt_deg: float,
    rotation_deg: float,
    fraction: float,
    dist: np.ndarray,
    offset: tuple[float, float] = (0.0, 0.0),
    cut: tuple[int, float] | None = None,
) -> Camera:
    """A camera whose view of the board spans ``fraction`` of the frame.

    ``offset`` moves the board in the frame (fractions of the free margin, -1..1);
    ``cut`` = (corner, depth) pushes that playing-triangle corner out of the frame so that
    the frame cuts ``depth`` tile units of the triangle's median.
    """
    target = playing_corners().mean(axis=0) + 0.0
    distance = 12.0
    cam = look_at(width, height, focal_px, tilt_deg, rotation_deg, target, distance, dist)
    centre_img = np.array([(width - 1) / 2, (height - 1) / 2])
    for _ in range(6):
        distance *= board_fraction(cam) / fraction
        cam = look_at(width, height, focal_px, tilt_deg, rotation_deg, target, distance, dist)
        q = cam.project_undistorted(outer_outline())
        bbox_c = (q.max(axis=0) + q.min(axis=0)) / 2
        hinv = np.linalg.inv(cam.homography())
        target = target + _unproject(hinv, bbox_c) - _unproject(hinv, centre_img)
        cam = look_at(width, height, focal_px, tilt_deg, rotation_deg, target, distance, dist)
    base_target = target
    if cut is not None:
        corner, want = cut
        g = playing_corners().mean(axis=0)
        u = playing_corners()[corner] - g
        u /= np.linalg.norm(u)
        lo, hi = 0.0, 8.0
        for _ in range(30):
            s = (lo + hi) / 2
            cam = look_at(
                width, height, focal_px, tilt_deg, rotation_deg, base_target - s * u, distance, dist
            )
            if cut_depth(cam, corner) < want:
                lo = s
            else:
                hi = s
        return look_at(
            width, height, focal_px, tilt_deg, rotation_deg, base_target - hi * u, distance, dist
        )
    # Move the board within the free margin; shrink the move until it all stays in frame.
    q = cam.project_undistorted(outer_outline())
    span = q.max(axis=0) - q.min(axis=0)
    free = np.array([width, height]) - span
    want_img = centre_img - np.array(offset) * np.maximum(free, 0) / 2 * 0.9
    for shrink in (1.0, 0.7, 0.45, 0.2, 0.0):
        hinv = np.linalg.inv(cam.homography())
        aim = centre_img + (want_img - centre_img) * shrink
        t2 = base_target + _unproject(hinv, aim) - _unproject(hinv, centre_img)
        moved = look_at(width, height, focal_px, tilt_deg, rotation_deg, t2, distance, dist)
        if _inside(moved, outer_outline()).all():
            return moved
    return cam


def _unproject(hinv: np.ndarray, p: np.ndarray) -> np.ndarray:
    q = hinv @ np.array([p[0], p[1], 1.0])
    return q[:2] / q[2]


# ----------------------------------------------------------------------------- distortion


@dataclass(frozen=True)
class Canvas:
    """Where to render the undistorted scene so that distorting it fills the frame.

    ``K`` (3, 3): intrinsics of the canvas (the camera's K shifted by the margin);
    ``map_x``, ``map_y`` (H, W) float32: for each output pixel, its canvas position.
    """

    width: int
    height: int
    origin: tuple[int, int]
    K: np.ndarray = field(repr=False, compare=False)
    map_x: np.ndarray | None = field(repr=False, compare=False)
    map_y: np.ndarray | None = field(repr=False, compare=False)


def canvas_for(cam: Camera, step: int = 16) -> Canvas:
    """The undistorted canvas and remap tables for ``cam`` (cached per camera)."""
    return _canvas(
        cam.width, cam.height, tuple(cam.K.ravel().tolist()), tuple(cam.dist.ravel().tolist()), step
    )


@functools.lru_cache(maxsize=8)
def _canvas(
    width: int, height: int, k: tuple[float, ...], dist: tuple[float, ...], step: int
) -> Canvas:
    kk = np.array(k).reshape(3, 3)
    dd = np.array(dist)
    if not np.any(dd):
        return Canvas(width, height, (0, 0), kk, None, None)
    xs = np.arange(0, width + step, step, dtype=np.float64)
    ys = np.arange(0, height + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    und = undistort_pixels(np.stack([gx, gy], axis=-1), kk, dd)
    # A strong barrel lens has no inverse far out in the frame's corners (the iteration
    # diverges there): keep the canvas a sane size, those corners sample its border.
    und[..., 0] = np.clip(np.nan_to_num(und[..., 0], nan=0.0), -width, 2 * width)
    und[..., 1] = np.clip(np.nan_to_num(und[..., 1], nan=0.0), -height, 2 * height)
    fx, fy = np.meshgrid(
        np.arange(width, dtype=np.float32) / step, np.arange(height, dtype=np.float32) / step
    )
    map_x = cv2.remap(und[..., 0].astype(np.float32), fx, fy, cv2.INTER_LINEAR)
    map_y = cv2.remap(und[..., 1].astype(np.float32), fx, fy, cv2.INTER_LINEAR)
    x_lo = min(0, math.floor(float(map_x.min())) - 2)
    y_lo = min(0, math.floor(float(map_y.min())) - 2)
    x_hi = max(width, math.ceil(float(map_x.max())) + 3)
    y_hi = max(height, math.ceil(float(map_y.max())) + 3)
    kc = kk.copy()
    kc[0, 2] -= x_lo
    kc[1, 2] -= y_lo
    map_x -= x_lo
    map_y -= y_lo
    for a in (map_x, map_y, kc):
        a.setflags(write=False)
    return Canvas(x_hi - x_lo, y_hi - y_lo, (x_lo, y_lo), kc, map_x, map_y)


def undistort_pixels(
    points: np.ndarray, k: np.ndarray, dist: np.ndarray, iters: int = 30
) -> np.ndarray:
    """Distorted pixel positions (..., 2) -> undistorted ones (same shape), OpenCV model,
    by fixed-point iteration (accurate to ~1e-6 px for the lens strengths used here)."""
    k1, k2, p1, p2, k3 = (float(v) for v in dist[:5])
    xd = (points[..., 0] - k[0, 2]) / k[0, 0]
    yd = (points[..., 1] - k[1, 2]) / k[1, 1]
    x, y = xd.copy(), yd.copy()
    for _ in range(iters):
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        x = (xd - dx) / radial
        y = (yd - dy) / radial
    return np.stack([x * k[0, 0] + k[0, 2], y * k[1, 1] + k[1, 2]], axis=-1)


def distort(canvas: Canvas, image: np.ndarray, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """Canvas image (h, w, ...) -> the frame as the lens bends it (H, W, ...), same dtype."""
    if canvas.map_x is None:
        return image
    return cv2.remap(
        image, canvas.map_x, canvas.map_y, interpolation, borderMode=cv2.BORDER_REFLECT
    )
