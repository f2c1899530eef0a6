"""Things around and over the board: hands and arms, loose tiles, clutter; their shadows.

Everything is drawn into the undistorted canvas (float32 BGR in [0, 1]) given the canvas
homography ``h_canvas`` (board plane -> canvas pixels). Functions return the mask of what
they drew (float32 (h, w) in [0, 1]) so the caller knows what hides the board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.palette import SKIN_BGR, SLEEVE_BGR
from vision.render.scene import LightDir, Texture, TileLook, tile_texture

_SHIFT = 4
_ONE = 1 << _SHIFT


def map_points(h: np.ndarray, p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, np.float64).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ h.T
    return q[:, :2] / q[:, 2:3]


def _fix(p: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(p) * _ONE).astype(np.int32)


def shadow_offset(
    h_canvas: np.ndarray, at_xy: np.ndarray, lift: float, light: LightDir
) -> np.ndarray:
    """Image offset (2,) of the shadow of something ``lift`` units above ``at_xy``."""
    az, el = math.radians(light.azimuth_deg), math.radians(light.elevation_deg)
    d = -lift / math.tan(el) * np.array([math.cos(az), math.sin(az)])
    a = map_points(h_canvas, at_xy)[0]
    b = map_points(h_canvas, np.asarray(at_xy) + d)[0]
    return b - a


def cast_shadow(
    image: np.ndarray,
    mask: np.ndarray,
    offset: np.ndarray,
    blur_px: float,
    strength: float,
    bbox: tuple[int, int, int, int] | None = None,
) -> None:
    """Darken ``image`` (h, w, 3) float32 in place by ``mask`` moved by ``offset`` and blurred.

    ``bbox`` = (x0, y0, x1, y1) bounds where the mask is non-zero (whole image if None).
    """
    h, w = mask.shape
    if bbox is None:
        bbox = (0, 0, w, h)
    pad = int(abs(offset[0]) + abs(offset[1]) + 3 * blur_px + 3)
    x0, y0 = max(0, bbox[0] - pad), max(0, bbox[1] - pad)
    x1, y1 = min(w, bbox[2] + pad), min(h, bbox[3] + pad)
    if x0 >= x1 or y0 >= y1:
        return
    f = 1.0 if blur_px < 3.0 else min(8.0, blur_px / 1.5)
    m = np.float32([[1 / f, 0, offset[0] / f], [0, 1 / f, offset[1] / f]])
    size = (max(1, round((x1 - x0) / f)), max(1, round((y1 - y0) / f)))
    sh = cv2.warpAffine(
        mask[y0:y1, x0:x1], m, size, flags=cv2.INTER_AREA if f > 1 else cv2.INTER_LINEAR
    )
    if blur_px > 0.3:
        sh = cv2.GaussianBlur(sh, (0, 0), blur_px / f)
    if f > 1:
        sh = cv2.resize(sh, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    roi = image[y0:y1, x0:x1]
    cv2.multiply(roi, cv2.merge([1.0 - strength * sh] * 3), dst=roi)


# ----------------------------------------------------------------------------- textures


def warp_texture(
    image: np.ndarray,
    tex: Texture,
    h_tex_to_canvas: np.ndarray,
    shade: float = 1.0,
    blur_for_scale: bool = True,
    shadow: tuple[np.ndarray, float, float] | None = None,
) -> np.ndarray:
    """Composite a texture (premultiplied by its alpha) into ``image`` in place.

    ``h_tex_to_canvas`` (3, 3) maps texture pixels to canvas pixels; ``shadow`` = (image
    offset, blur px, strength) casts the texture's shadow first. Returns the drawn alpha
    mask (h, w) float32. Only the bounding box of the texture is warped.
    """
    th, tw = tex.bgra.shape[:2]
    corners = np.array([[0, 0], [tw - 1, 0], [tw - 1, th - 1], [0, th - 1]], np.float64)
    q = map_points(h_tex_to_canvas, corners)
    h, w = image.shape[:2]
    mask_full = np.zeros((h, w), np.float32)
    x0 = max(0, math.floor(q[:, 0].min()) - 1)
    y0 = max(0, math.floor(q[:, 1].min()) - 1)
    x1 = min(w, math.ceil(q[:, 0].max()) + 2)
    y1 = min(h, math.ceil(q[:, 1].max()) + 2)
    if x0 >= x1 or y0 >= y1:
        return mask_full
    src = tex.bgra
    hh = h_tex_to_canvas.copy()
    # Pre-shrink the texture when it is drawn much smaller (avoid aliasing).
    scale = float(
        np.median(np.hypot(*(np.diff(q, axis=0, append=q[:1]).T)))
        / np.median(np.hypot(*(np.diff(corners, axis=0, append=corners[:1]).T)))
    )
    if blur_for_scale and scale < 0.7:
        f = max(scale * 1.4, 0.1)
        src = cv2.resize(
            src, (max(2, round(tw * f)), max(2, round(th * f))), interpolation=cv2.INTER_AREA
        )
        sx, sy = src.shape[1] / tw, src.shape[0] / th
        hh = hh @ np.diag([1 / sx, 1 / sy, 1.0])
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
    warped = cv2.warpPerspective(
        src, shift @ hh, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    a = warped[..., 3].astype(np.float32) * (1 / 255.0)
    col = warped[..., :3].astype(np.float32) * (shade / 255.0)
    mask_full[y0:y1, x0:x1] = a
    if shadow is not None:
        cast_shadow(image, mask_full, shadow[0], shadow[1], shadow[2], (x0, y0, x1, y1))
    roi = image[y0:y1, x0:x1]
    roi *= (1 - a)[..., None]
    roi += col * a[..., None]
    return mask_full


def tile_on_plane(
    image: np.ndarray,
    look: TileLook,
    light: LightDir,
    h_canvas: np.ndarray,
    centre_xy: np.ndarray,
    angle_deg: float,
    scale: float = 1.0,
    ppu: int = 96,
    shadow_lift: float = 0.0,
    shadow_strength: float = 0.4,
) -> np.ndarray:
    """Draw a loose tile lying on the table (or held just above it) at ``centre_xy``,
    turned ``angle_deg``. Returns its mask (h, w) float32."""
    a = math.radians(angle_deg)
    rel = LightDir(light.azimuth_deg - angle_deg, light.elevation_deg)
    tex = tile_texture(look, rel, ppu)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    place = np.array([[c, -s, centre_xy[0]], [s, c, centre_xy[1]], [0, 0, 1.0]])
    h_tex = h_canvas @ place @ np.linalg.inv(tex.plane_to_tex)
    shadow = None
    if shadow_lift > 0:
        off = shadow_offset(h_canvas, np.asarray(centre_xy), shadow_lift, light)
        shadow = (off, max(0.8, float(np.linalg.norm(off)) * 0.8), shadow_strength)
    return warp_texture(image, tex, h_tex, shadow=shadow)


# ----------------------------------------------------------------------------- hands


@dataclass(frozen=True)
class HandSpec:
    """A hand reaching over the table.

    ``target_xy``: board-plane point under the fingertips; ``from_deg``: board-plane
    direction the arm comes from; ``lift``: height of the hand above the board (tile units);
    ``holding``: the tile held between the fingers (its look) or None; ``pose``: "pinch" or
    "open"; ``mirror``: left hand; colours index the palette.
    """

    target_xy: tuple[float, float]
    from_deg: float
    lift: float = 2.0
    holding: TileLook | None = None
    holding_angle_deg: float = 0.0
    pose: str = "pinch"
    mirror: bool = False
    skin: int = 0
    sleeve: int = 0
    sleeve_at: float = 5.0
    size: float = 1.0


def _light_xy(light: LightDir) -> np.ndarray:
    a = math.radians(light.azimuth_deg)
    return np.array([math.cos(a), math.sin(a)])


def _capsule(img: np.ndarray, a: np.ndarray, b: np.ndarray, width: float, value: float) -> None:
    cv2.line(img, tuple(_fix(a)), tuple(_fix(b)), value, max(1, round(width)), cv2.LINE_AA, _SHIFT)


def draw_hand(
    image: np.ndarray,
    spec: HandSpec,
    h_canvas: np.ndarray,
    light: LightDir,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw the hand's shadow, the held tile and the hand/arm. Returns the mask of the hand
    and the held tile (h, w) float32 (what hides the board)."""
    h, w = image.shape[:2]
    t = np.array(spec.target_xy, np.float64)
    d = np.array([math.cos(math.radians(spec.from_deg)), math.sin(math.radians(spec.from_deg))])
    p0 = map_points(h_canvas, t)[0]
    p1 = map_points(h_canvas, t + d * 0.5)[0]
    perp = np.array([-d[1], d[0]])
    q0 = map_points(h_canvas, t - perp * 0.5)[0]
    q1 = map_points(h_canvas, t + perp * 0.5)[0]
    along = p1 - p0
    along /= max(1e-9, float(np.linalg.norm(along)))
    px = float(np.linalg.norm(q1 - q0)) * spec.size * (1.0 + 0.04 * spec.lift)
    side = np.array([-along[1], along[0]]) * (-1.0 if spec.mirror else 1.0)

    def at(u: float, v: float) -> np.ndarray:
        return p0 + px * (u * along + v * side)

    mask_skin = np.zeros((h, w), np.uint8)
    mask_sleeve = np.zeros((h, w), np.uint8)
    if spec.pose == "pinch":
        knuckles = [(1.15, -0.5), (1.2, -0.17), (1.2, 0.16), (1.12, 0.47)]
        tips = [(0.4, -0.42), (0.05, -0.16), (0.02, 0.13), (0.3, 0.38)]
        thumb = ((1.75, 0.72), (0.55, 0.55))
    else:
        knuckles = [(1.15, -0.52), (1.2, -0.18), (1.2, 0.17), (1.12, 0.5)]
        tips = [(0.25, -0.75), (-0.1, -0.28), (-0.05, 0.2), (0.3, 0.68)]
        thumb = ((1.75, 0.72), (0.9, 1.25))
    fw = 0.3 * px
    for (ku, kv), (tu, tv) in zip(knuckles, tips, strict=True):
        _capsule(mask_skin, at(ku, kv), at(tu, tv), fw * (0.9 if kv > 0.4 else 1.0), 255)
    _capsule(mask_skin, at(*thumb[0]), at(*thumb[1]), 0.33 * px, 255)
    palm = np.array(
        [
            at(1.0, -0.62),
            at(1.05, 0.6),
            at(2.2, 0.75),
            at(2.7, 0.55),
            at(2.7, -0.55),
            at(2.2, -0.68),
        ]
    )
    cv2.fillPoly(mask_skin, [_fix(palm)], 255, cv2.LINE_AA, _SHIFT)
    far = 14.0
    arm = np.array([at(2.5, -0.55), at(2.5, 0.55), at(far, 0.8), at(far, -0.8)])
    cv2.fillPoly(mask_skin, [_fix(arm)], 255, cv2.LINE_AA, _SHIFT)
    if spec.sleeve_at < far:
        sl = np.array(
            [at(spec.sleeve_at, -0.78), at(spec.sleeve_at, 0.78), at(far, 0.95), at(far, -0.95)]
        )
        cv2.fillPoly(mask_sleeve, [_fix(sl)], 255, cv2.LINE_AA, _SHIFT)
    skin_m = mask_skin.astype(np.float32) / 255.0
    sleeve_m = mask_sleeve.astype(np.float32) / 255.0
    hand_m = np.maximum(skin_m, sleeve_m)
    # The held tile: a tile just under the fingertips, lifted.
    tile_m = np.zeros((h, w), np.float32)
    tile_layer = None
    if spec.holding is not None:
        tile_layer = np.zeros_like(image)
        tile_m = tile_on_plane(
            tile_layer,
            spec.holding,
            light,
            h_canvas,
            t,
            spec.holding_angle_deg,
            scale=1.0 + 0.03 * spec.lift,
        )
    # Shadow of hand and tile on what lies below.
    off = shadow_offset(h_canvas, t, spec.lift, light)
    occl = np.maximum(hand_m, tile_m)
    cast_shadow(image, occl, off, 0.25 * px * (0.5 + 0.3 * spec.lift), 0.55)
    if tile_layer is not None:
        image *= (1 - tile_m)[..., None]
        image += tile_layer
    # Shading: rounder (brighter) away from the silhouette.
    ys, xs = np.nonzero(hand_m > 0)
    if len(xs) == 0:
        return occl
    x0, x1 = max(0, xs.min() - 2), min(w, xs.max() + 3)
    y0, y1 = max(0, ys.min() - 2), min(h, ys.max() + 3)
    roi_m = hand_m[y0:y1, x0:x1]
    dist = cv2.distanceTransform((roi_m > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    rnd = np.clip(dist / (0.22 * px), 0, 1) ** 0.6
    # Directional light on a rounded surface: the side facing the light is brighter.
    soft = cv2.GaussianBlur(roi_m, (0, 0), max(1.0, 0.15 * px))
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)
    lv = map_points(h_canvas, np.array(spec.target_xy) + 0.5 * _light_xy(light))[0] - p0
    lv /= max(1e-9, float(np.linalg.norm(lv)))
    facing = -(gx * lv[0] + gy * lv[1]) * (0.35 * px)
    shade = 0.5 + 0.45 * rnd + np.clip(facing, -0.25, 0.25)
    # Gaps between the fingers.
    gaps = np.zeros(roi_m.shape, np.float32)
    for k in range(3):
        (ku, kv), (tu, tv) = knuckles[k], tips[k]
        (ku2, kv2), (tu2, tv2) = knuckles[k + 1], tips[k + 1]
        a0 = at((ku + ku2) / 2 - 0.05, (kv + kv2) / 2) - [x0, y0]
        a1 = at((tu + tu2) / 2 + 0.15, (tv + tv2) / 2) - [x0, y0]
        cv2.line(
            gaps,
            tuple(_fix(a0)),
            tuple(_fix(a1)),
            1.0,
            max(1, round(0.04 * px)),
            cv2.LINE_AA,
            _SHIFT,
        )
    shade = shade * (1 - 0.35 * cv2.GaussianBlur(gaps, (0, 0), max(0.6, 0.02 * px)))
    skin = np.array(SKIN_BGR[spec.skin % len(SKIN_BGR)], np.float32)
    sleeve = np.array(SLEEVE_BGR[spec.sleeve % len(SLEEVE_BGR)], np.float32)
    tex = 1.0 + 0.03 * rng.normal(0, 1, roi_m.shape).astype(np.float32)
    tex = cv2.GaussianBlur(tex, (0, 0), 1.2)
    sm = sleeve_m[y0:y1, x0:x1][..., None]
    col = skin[None, None] * (1 - sm) + sleeve[None, None] * sm
    col = col * (shade * tex)[..., None]
    # Knuckle creases between the fingers, nails at the tips.
    roi = image[y0:y1, x0:x1]
    a = roi_m[..., None]
    roi *= 1 - a
    roi += col * a
    for tu, tv in tips:
        nail = at(tu + 0.12, tv)
        c = (int(nail[0] * _ONE) - x0 * _ONE, int(nail[1] * _ONE) - y0 * _ONE)
        ax = (max(1, int(0.09 * px * _ONE)), max(1, int(0.07 * px * _ONE)))
        ang = math.degrees(math.atan2(along[1], along[0]))
        nail_layer = np.zeros(roi.shape[:2], np.float32)
        cv2.ellipse(nail_layer, c, ax, ang, 0, 360, 1.0, -1, cv2.LINE_AA, _SHIFT)
        nail_layer *= roi_m
        roi += (np.array([0.9, 0.88, 0.95], np.float32) - roi) * (0.18 * nail_layer[..., None])
    return occl


# ----------------------------------------------------------------------------- clutter


@dataclass(frozen=True)
class Clutter:
    """A flat object on the table: ``kind`` in notepad, pencil, phone, bag, coaster;
    centre (board plane), turn, size factor, colour (BGR in [0, 1]), lift (its height)."""

    kind: str
    centre_xy: tuple[float, float]
    angle_deg: float
    size: float
    colour: tuple[float, float, float]


CLUTTER_KINDS: tuple[str, ...] = ("notepad", "pencil", "phone", "bag", "coaster")


def _outline(kind: str, size: float, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """The object's outline in its own plane (units) and its height."""
    if kind == "notepad":
        w, ln = 2.6 * size, 3.6 * size
        return np.array(
            [[-w / 2, -ln / 2], [w / 2, -ln / 2], [w / 2, ln / 2], [-w / 2, ln / 2]]
        ), 0.05
    if kind == "pencil":
        ln = 3.4 * size
        r = 0.08
        return np.array(
            [[-ln / 2, -r], [ln / 2 - 0.35, -r], [ln / 2, 0], [ln / 2 - 0.35, r], [-ln / 2, r]]
        ), 0.15
    if kind == "phone":
        w, ln = 1.4 * size, 2.9 * size
        a = np.linspace(0, 2 * np.pi, 40, endpoint=False)
        pts = np.stack(
            [
                np.sign(np.cos(a)) * np.abs(np.cos(a)) ** 0.15 * w / 2,
                np.sign(np.sin(a)) * np.abs(np.sin(a)) ** 0.15 * ln / 2,
            ],
            axis=1,
        )
        return pts, 0.15
    if kind == "bag":
        a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        rr = 1.5 * size * (1 + 0.12 * np.sin(3 * a + rng.uniform(0, 6)) + 0.06 * np.sin(7 * a))
        return np.stack([rr * np.cos(a) * 1.2, rr * np.sin(a)], axis=1), 0.7
    a = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    return np.stack([np.cos(a), np.sin(a)], axis=1) * 0.9 * size, 0.06


def draw_clutter(
    image: np.ndarray,
    item: Clutter,
    h_canvas: np.ndarray,
    light: LightDir,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw one flat object with its shadow; returns its mask (h, w) float32."""
    h, w = image.shape[:2]
    poly, height = _outline(item.kind, item.size, rng)
    a = math.radians(item.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    plane = poly @ rot.T + np.array(item.centre_xy)
    q = map_points(h_canvas, plane)
    mask8 = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask8, [_fix(q)], 255, cv2.LINE_AA, _SHIFT)
    mask = mask8.astype(np.float32) / 255.0
    if not mask.any():
        return mask
    c = np.array(item.centre_xy)
    off = shadow_offset(h_canvas, c, height, light)
    px = float(
        np.linalg.norm(
            map_points(h_canvas, [*c, 0.5, 0])[0] - map_points(h_canvas, c - [0.5, 0])[0]
        )
    )
    cast_shadow(image, mask, off, max(1.0, 0.12 * px * (0.3 + height)), 0.45)
    ys, xs = np.nonzero(mask)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    m = mask[y0:y1, x0:x1][..., None]
    col = np.array(item.colour, np.float32)
    layer = np.empty((y1 - y0, x1 - x0, 3), np.float32)
    layer[:] = col
    if item.kind == "notepad":
        # Ruled lines along the long side and a margin.
        lines = np.zeros((h, w), np.uint8)
        for k in range(-8, 9):
            yv = k * 0.2 * item.size
            seg = np.array([[-1.2 * item.size, yv], [1.2 * item.size, yv]]) @ rot.T + c
            cv2.line(
                lines,
                tuple(_fix(map_points(h_canvas, seg[:1])[0])),
                tuple(_fix(map_points(h_canvas, seg[1:])[0])),
                255,
                1,
                cv2.LINE_AA,
                _SHIFT,
            )
        lm = lines[y0:y1, x0:x1].astype(np.float32)[..., None] / 255.0
        layer = layer * (1 - 0.35 * lm) + np.array([0.75, 0.55, 0.45], np.float32) * 0.35 * lm
    elif item.kind == "phone":
        dist = cv2.distanceTransform((m[..., 0] > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
        bezel = dist < 0.08 * px
        layer[~bezel] = np.array([0.08, 0.07, 0.07], np.float32)
        gy = np.linspace(0, 1, y1 - y0, dtype=np.float32)[:, None]
        layer[~bezel] += (0.12 * np.clip(1 - np.abs(gy - 0.3) * 5, 0, 1) * np.ones((1, x1 - x0)))[
            ~bezel
        ][..., None]
    elif item.kind in ("bag", "coaster"):
        dist = cv2.distanceTransform((m[..., 0] > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
        rnd = np.clip(dist / (0.5 * px), 0, 1) ** 0.5
        folds = cv2.GaussianBlur(
            rng.normal(0, 1, (y1 - y0, x1 - x0)).astype(np.float32), (0, 0), max(1.0, 0.15 * px)
        )
        folds /= max(1e-6, float(folds.std()))
        k = 0.6 if item.kind == "bag" else 0.2
        layer *= ((1 - k) + k * rnd + (0.08 if item.kind == "bag" else 0.01) * folds)[..., None]
    elif item.kind == "pencil":
        # A round body: bright along the middle, darker at the sides.
        dist = cv2.distanceTransform((m[..., 0] > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
        layer *= (0.6 + 0.5 * np.clip(dist / max(1.0, 0.07 * px), 0, 1))[..., None]
    roi = image[y0:y1, x0:x1]
    roi *= 1 - m
    roi += layer * m
    return mask
