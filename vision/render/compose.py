"""Compose a photograph of the game from a scene description, with its truth.

``sample_still(seed)`` draws a random scene; ``render(spec)`` makes the picture:
table -> loose tiles -> board (with its shadow) -> clutter -> hands (with shadows) ->
lens distortion -> light, colour cast, exposure, glare -> blur, noise -> JPEG.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine import SPECTRANGLE36, Board, Edge, Placement
from vision.render.camera import Camera, canvas_for, distort, place_camera
from vision.render.palette import print_variation
from vision.render.photometric import (
    LIGHTS,
    Photometric,
    apply_light,
    apply_sensor,
    jpeg_roundtrip,
    sample_photometric,
)
from vision.render.props import (
    CLUTTER_KINDS,
    Clutter,
    HandSpec,
    draw_clutter,
    draw_hand,
    map_points,
    shadow_offset,
    tile_on_plane,
    warp_texture,
)
from vision.render.scene import (
    BAND,
    PPU,
    LightDir,
    TileLook,
    board_centre,
    board_texture,
    outer_outline,
    playing_corners,
    tiles_texture,
)
from vision.render.sequence import random_position
from vision.render.table import TableSpec, render_table, sample_table
from vision.render.truth import Truth, cell_entries

#: A cell counts as covered when this fraction of its area is hidden.
COVER_FRACTION = 0.02


@dataclass(frozen=True)
class LooseTile:
    """A tile lying on the table: its look, centre (board plane) and turn."""

    look: TileLook
    centre_xy: tuple[float, float]
    angle_deg: float


@dataclass(frozen=True)
class SceneSpec:
    """Everything that decides one picture. ``seed`` drives the sensor noise and textures."""

    board: Board
    camera: Camera
    light: LightDir
    table: TableSpec
    photo: Photometric
    hands: tuple[HandSpec, ...] = ()
    loose: tuple[LooseTile, ...] = ()
    clutter: tuple[Clutter, ...] = ()
    rings: tuple[tuple[int, int], ...] = ()
    tint_seed: int = 0
    shadow_strength: float = 0.5
    illegal: tuple[int, ...] = ()
    seed: int = 0
    extra: tuple[tuple[str, Any], ...] = field(default=(), repr=False)
    #: How far above the board's surface the tiles' tops lie (board units): a real tile
    #: is a slab of plastic, which a tilted camera sees shifted off its cell, and its
    #: walls on the side facing the camera. 0 draws the tiles flat on the board.
    tile_height: float = 0.0
    #: How far the tiles' print differs from the usual colours (0..1, drawn per still from
    #: ``seed``: :func:`vision.render.palette.print_variation`): another print run, or a
    #: camera that renders colours its own way. 0 prints the usual colours.
    print_variation: float = 0.0
    #: The TrueType file the tiles' numerals are printed in ("": the usual font).
    numeral_font: str = ""
    #: The creases between the tiles' sectors drawn dark (as some photos of the physical
    #: game show them) instead of light.
    dark_creases: bool = False

    def conditions(self) -> dict[str, Any]:
        cam = self.camera
        out: dict[str, Any] = dict(self.extra)
        out.update(
            {
                "size": [cam.width, cam.height],
                "table": self.table.kind,
                "light_azimuth_deg": round(self.light.azimuth_deg, 1),
                "light_elevation_deg": round(self.light.elevation_deg, 1),
                "hands": len(self.hands),
                "holding": sum(1 for h in self.hands if h.holding is not None),
                "loose_tiles": len(self.loose),
                "clutter": [c.kind for c in self.clutter],
                "distortion": [round(float(v), 4) for v in cam.dist[:2]],
            }
        )
        if self.tile_height > 0:
            out["tile_height"] = round(self.tile_height, 4)
        if self.print_variation > 0:
            out["print_variation"] = round(self.print_variation, 3)
        if self.numeral_font:
            out["numeral_font"] = Path(self.numeral_font).stem
        if self.dark_creases:
            out["dark_creases"] = True
        out.update(self.photo.conditions())
        return out


@dataclass(frozen=True)
class Render:
    """A rendered photo: ``frame_bgr`` (H, W, 3) uint8 (as decoded from ``jpeg``) and truth."""

    frame_bgr: np.ndarray = field(repr=False)
    jpeg: bytes = field(repr=False)
    truth: Truth


def tile_tint(seed: int, placement_or_look: Placement | TileLook) -> tuple[float, float, float]:
    """The small colour difference of one physical tile (BGR gains), stable per tile."""
    if isinstance(placement_or_look, Placement):
        key = str(placement_or_look.tile)
    else:
        key = "".join(sorted(c.letter for _, c in placement_or_look.edges)) + str(
            placement_or_look.value
        )
    h = sum((i + 1) * ord(ch) for i, ch in enumerate(key))
    rng = np.random.default_rng([seed, h])
    base = rng.normal(1.0, 0.03)
    return tuple(float(base * g) for g in rng.normal(1.0, 0.018, 3))  # type: ignore[return-value]


# ----------------------------------------------------------------------------- render


def render(spec: SceneSpec) -> Render:
    """Render the scene to a JPEG photo and its truth."""
    rng = np.random.default_rng(spec.seed)
    cam = spec.camera
    canvas = canvas_for(cam)
    hc = cam.homography(canvas.K)
    centre = board_centre()
    ppu_img = _px_per_unit(hc, centre)
    image = render_table(spec.table, canvas.width, canvas.height, ppu_img)
    printed = _printed(spec)
    for lt in spec.loose:
        look = printed(replace(lt.look, tint=tile_tint(spec.tint_seed, lt.look)))
        tile_on_plane(
            image,
            look,
            spec.light,
            hc,
            np.array(lt.centre_xy),
            lt.angle_deg,
            shadow_lift=0.08,
            shadow_strength=0.5 * spec.shadow_strength,
        )
    looks = {
        p.index: printed(TileLook.of(p, tile_tint(spec.tint_seed, p)))
        for p in spec.board.placements
    }
    raised = spec.tile_height > 0 and bool(spec.board.placements)
    on_board = Board.empty(spec.board.geometry) if raised else spec.board
    tex = board_texture(on_board, spec.light, looks, spec.rings, PPU)
    h_tex = hc @ np.linalg.inv(tex.plane_to_tex)
    off = shadow_offset(hc, centre, 0.12, spec.light)
    warp_texture(
        image,
        tex,
        h_tex,
        shadow=(off, max(1.0, float(np.linalg.norm(off)) * 0.6), 0.8 * spec.shadow_strength),
    )
    if raised:
        _raised_tiles(image, spec, canvas.K, looks)
    occluders = np.zeros(image.shape[:2], np.float32)
    for item in spec.clutter:
        m = draw_clutter(image, item, hc, spec.light, rng)
        np.maximum(occluders, m, out=occluders)
    for hand in spec.hands:
        if hand.holding is not None:
            hand = replace(hand, holding=printed(hand.holding))
        m = draw_hand(image, hand, hc, spec.light, rng)
        np.maximum(occluders, m, out=occluders)
    frame = distort(canvas, image)
    frame = apply_light(frame, spec.photo)
    frame_bgr = apply_sensor(frame, spec.photo, rng)
    frame_bgr, data = jpeg_roundtrip(frame_bgr, spec.photo.jpeg_quality)
    covered = _covered_cells(occluders, hc)
    outside = _outside_cells(cam)
    unknown = sorted(set(covered) | set(outside))
    corners = cam.project(playing_corners())
    h_img = cam.homography()
    truth = Truth(
        board=spec.board.notation(),
        cells=cell_entries(spec.board, unknown),
        corners=tuple((round(float(x), 3), round(float(y), 3)) for x, y in corners),
        homography=tuple(tuple(float(v) for v in row) for row in h_img),
        covered=tuple(covered),
        outside=tuple(outside),
        conditions=spec.conditions(),
        seed=spec.seed,
        camera=cam.to_json(),
        illegal=spec.illegal,
    )
    return Render(frame_bgr, data, truth)


#: The colour (BGR) of dark creases between a tile's sectors.
DARK_CREASE = (40, 40, 40)


def _printed(spec: SceneSpec) -> Callable[[TileLook], TileLook]:
    """What gives a tile's look the scene's print: the usual colours, font and light
    creases, or another print run's (``spec.print_variation``, ``spec.numeral_font``,
    ``spec.dark_creases``)."""
    if spec.print_variation <= 0 and not spec.numeral_font and not spec.dark_creases:
        return lambda look: look
    colours, navy = print_variation(spec.seed, spec.print_variation)
    crease = DARK_CREASE if spec.dark_creases else TileLook.crease
    return lambda look: replace(
        look, colours=colours, navy=navy, font=spec.numeral_font, crease=crease
    )


#: How much darker a tile's walls look than its top (they face sideways, away from the
#: light falling from above).
WALL_SHADE = 0.55


def _raised_tiles(
    image: np.ndarray, spec: SceneSpec, k_canvas: np.ndarray, looks: dict[int, TileLook]
) -> None:
    """Draw the board's tiles as slabs ``spec.tile_height`` thick: their walls (the tiles
    drawn darker at heights from the board up), then their tops, in place."""
    cam, height = spec.camera, spec.tile_height
    tiles = tiles_texture(spec.board, spec.light, looks, PPU)
    to_tex = np.linalg.inv(tiles.plane_to_tex)
    centre = board_centre()
    top = cam.homography_at(height, k_canvas)
    base = cam.homography_at(0.0, k_canvas)
    # the walls are swept in steps of at most about a pixel and a half
    shift = float(np.linalg.norm(map_points(top, centre) - map_points(base, centre)))
    steps = int(min(16, max(1, math.ceil(shift / 1.5))))
    off = shadow_offset(base, centre, height, spec.light)
    for k in range(steps):
        z = height * k / steps
        shadow = None
        if k == 0:  # a slab's shadow on the board around it
            shadow = (off, max(0.8, float(np.linalg.norm(off))), 0.6 * spec.shadow_strength)
        h = cam.homography_at(z, k_canvas) @ to_tex
        warp_texture(image, tiles, h, shade=WALL_SHADE, shadow=shadow)
    warp_texture(image, tiles, top @ to_tex)


def _px_per_unit(h: np.ndarray, at: np.ndarray) -> float:
    pts = np.array([[at[0] - 0.5, at[1], 1], [at[0] + 0.5, at[1], 1]]) @ h.T
    q = pts[:, :2] / pts[:, 2:3]
    return float(np.linalg.norm(q[1] - q[0]))


def _covered_cells(occluders: np.ndarray, hc: np.ndarray) -> list[int]:
    out = []
    if not occluders.any():
        return out
    h, w = occluders.shape
    for cell in SPECTRANGLE36.geometry:
        v = np.column_stack([np.array(cell.vertices), np.ones(3)]) @ hc.T
        q = v[:, :2] / v[:, 2:3]
        x0, y0 = np.floor(q.min(axis=0)).astype(int)
        x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 1
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if xa >= xb or ya >= yb:
            continue
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(m, [np.round((q - [x0, y0]) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        area = float(m.sum())
        if area <= 0:
            continue
        sub = m[ya - y0 : yb - y0, xa - x0 : xb - x0]
        hidden = float((occluders[ya:yb, xa:xb] * sub).sum())
        if hidden / area > COVER_FRACTION:
            out.append(cell.index)
    return out


def _outside_cells(cam: Camera) -> list[int]:
    out = []
    for cell in SPECTRANGLE36.geometry:
        v = np.array(cell.vertices)
        c = v.mean(axis=0)
        core = c + (v - c) * 0.9
        mids = (core + np.roll(core, 1, axis=0)) / 2
        q = cam.project(np.vstack([core, mids]))
        if (
            (q[:, 0] < 0) | (q[:, 0] > cam.width - 1) | (q[:, 1] < 0) | (q[:, 1] > cam.height - 1)
        ).any():
            out.append(cell.index)
    return out


# ----------------------------------------------------------------------------- sampling


def sample_camera(
    rng: np.random.Generator,
    size: tuple[int, int],
    harsh: bool = False,
    tilt_deg: float | None = None,
    fraction: float | None = None,
    cut_probability: float = 0.2,
) -> tuple[Camera, dict[str, Any]]:
    """A random camera pose over the board, and the conditions it stands for."""
    w, h = size
    tilt = float(rng.uniform(0, 50)) if tilt_deg is None else tilt_deg
    rotation = float(rng.uniform(0, 360))
    frac = float(rng.uniform(0.3, 0.9)) if fraction is None else fraction
    fov = float(rng.uniform(50, 75))
    # The field of view spans the frame's long side: a phone held upright takes a portrait
    # photo with the same sensor and lens (spanned on its short side, a lens's barrel
    # bending folds back within a portrait frame's long side).
    focal = (max(w, h) / 2) / math.tan(math.radians(fov) / 2)
    k1 = float(rng.uniform(-0.3, 0.08)) if harsh else float(rng.uniform(-0.18, 0.03))
    k2 = float(rng.uniform(-0.02, 0.04)) if harsh else 0.0
    dist = np.array([k1, k2, 0.0, 0.0, 0.0])
    cut = None
    if rng.random() < cut_probability:
        cut = (int(rng.integers(3)), float(rng.uniform(0.3, 1.5)))
    offset = (float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1)))
    cam = place_camera(w, h, focal, tilt, rotation, frac, dist, offset, cut)
    cond = {
        "tilt_deg": round(tilt, 2),
        "rotation_deg": round(rotation, 2),
        "board_fraction": round(frac, 3),
        "fov_deg": round(fov, 1),
        "cut_off": None if cut is None else {"corner": cut[0], "depth": round(cut[1], 3)},
    }
    return cam, cond


def _side_frame(side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Midpoint, outward normal and tangent of a playing-triangle side (0 right, 1 base,
    2 left)."""
    c = playing_corners()
    a, b = c[side], c[(side + 1) % 3]
    mid = (a + b) / 2
    t = (b - a) / np.linalg.norm(b - a)
    n = np.array([t[1], -t[0]])
    if np.dot(n, mid - board_centre()) < 0:
        n = -n
    return mid, n, t


def rack_positions(
    side: int, count: int, distance: float = 1.35
) -> list[tuple[float, float, float]]:
    """Where a player's tiles lie beside the board on ``side``: (x, y, angle_deg)."""
    mid, n, t = _side_frame(side)
    out = []
    base_angle = math.degrees(math.atan2(n[1], n[0])) - 90
    for k in range(count):
        p = mid + n * (BAND + distance) + t * (k - (count - 1) / 2) * 1.25
        out.append((float(p[0]), float(p[1]), base_angle + (180.0 if k % 2 else 0.0)))
    return out


def sample_loose(rng: np.random.Generator, board: Board, count: int) -> tuple[LooseTile, ...]:
    """Tiles not on the board lying face up beside it, in one or two racks."""
    on_board = board.tiles
    free = [t for t in SPECTRANGLE36.tiles if t.tile not in on_board]
    rng.shuffle(free)
    free = free[:count]
    sides = rng.permutation(3)[:2]
    out = []
    halves = [free[: (len(free) + 1) // 2], free[(len(free) + 1) // 2 :]]
    for side, group in zip(sides, halves, strict=True):
        spots = rack_positions(int(side), len(group), float(rng.uniform(0.9, 1.8)))
        for st, (x, y, ang) in zip(group, spots, strict=True):
            rot = int(rng.integers(3))
            cols = [st.clockwise[(i + rot) % 3] for i in range(3)]
            # Edges of a loose up tile clockwise from above: right, base, left.
            p = Placement(0, cols[2], cols[0], cols[1], st.value)
            look = TileLook.of(p)
            jitter = rng.normal(0, 0.12, 2)
            out.append(
                LooseTile(
                    look,
                    (x + float(jitter[0]), y + float(jitter[1])),
                    ang + float(rng.normal(0, 8)),
                )
            )
    return tuple(out)


def sample_hand(
    rng: np.random.Generator,
    cam: Camera,
    target: np.ndarray,
    holding: TileLook | None = None,
    pose: str = "pinch",
) -> HandSpec:
    """A hand reaching to ``target`` from a side where a player could sit (toward the frame
    edge, so the arm leaves the picture)."""
    g = board_centre()
    d = target - g
    if np.linalg.norm(d) < 0.3:
        d = rng.normal(0, 1, 2)
    base = math.degrees(math.atan2(d[1], d[0]))
    return HandSpec(
        target_xy=(float(target[0]), float(target[1])),
        from_deg=base + float(rng.uniform(-35, 35)),
        lift=float(rng.uniform(1.2, 3.0)),
        holding=holding,
        holding_angle_deg=float(rng.uniform(0, 360)),
        pose=pose,
        mirror=bool(rng.random() < 0.5),
        skin=int(rng.integers(6)),
        sleeve=int(rng.integers(7)),
        sleeve_at=float(rng.uniform(4.0, 9.0)) if rng.random() < 0.8 else 99.0,
        size=float(rng.uniform(0.9, 1.12)),
    )


def sample_clutter(
    rng: np.random.Generator, cam: Camera, count: int, over_band: bool
) -> tuple[Clutter, ...]:
    """Flat objects beside the board (and one across the border band when asked)."""
    hinv = np.linalg.inv(cam.homography())
    out: list[Clutter] = []
    colours = {
        "notepad": [(0.93, 0.96, 0.97), (0.80, 0.93, 0.96)],
        "pencil": [(0.1, 0.75, 0.95), (0.2, 0.2, 0.75), (0.3, 0.55, 0.2)],
        "phone": [(0.12, 0.12, 0.13), (0.85, 0.85, 0.86)],
        "bag": [(0.45, 0.12, 0.1), (0.25, 0.1, 0.35), (0.12, 0.1, 0.55)],
        "coaster": [(0.3, 0.45, 0.6), (0.7, 0.7, 0.72)],
    }
    outline = outer_outline()
    g = board_centre()
    r_board = float(np.max(np.linalg.norm(outline - g, axis=1)))
    tries = 0
    while len(out) < count and tries < 60:
        tries += 1
        kind = str(rng.choice(CLUTTER_KINDS))
        px = np.array([rng.uniform(0, cam.width), rng.uniform(0, cam.height), 1.0])
        q = hinv @ px
        if q[2] <= 0:
            continue
        p = q[:2] / q[2]
        radius = {"notepad": 2.2, "pencil": 1.8, "phone": 1.6, "bag": 2.0, "coaster": 1.0}[kind]
        if np.linalg.norm(p - g) < r_board + radius * 0.9:
            continue
        cols = colours[kind]
        out.append(
            Clutter(
                kind,
                (float(p[0]), float(p[1])),
                float(rng.uniform(0, 360)),
                float(rng.uniform(0.85, 1.15)),
                cols[int(rng.integers(len(cols)))],
            )
        )
    if over_band:
        k = int(rng.integers(len(outline)))
        p = outline[k]
        n = (p - g) / np.linalg.norm(p - g)
        kind = str(rng.choice(["pencil", "notepad", "phone"]))
        reach = {"pencil": 0.9, "notepad": 1.6, "phone": 1.3}[kind]
        c = p + n * (reach - float(rng.uniform(0.15, 0.4)))
        ang = math.degrees(math.atan2(n[1], n[0])) + float(rng.uniform(-25, 25))
        cols = colours[kind]
        out.append(
            Clutter(
                kind,
                (float(c[0]), float(c[1])),
                ang if kind == "pencil" else ang + 90,
                1.0,
                cols[int(rng.integers(len(cols)))],
            )
        )
    return tuple(out)


def sample_still(
    seed: int,
    size: tuple[int, int] = (1280, 720),
    harsh: bool = False,
    table: str | None = None,
    light: str | None = None,
    hands: int | None = None,
    cut: bool | None = None,
    over_band: bool | None = None,
    tiles: int | None = None,
    tile_height: tuple[float, float] = (0.0, 0.0),
    print_variation: float = 0.0,
    numeral_font: str = "",
    dark_creases: bool = False,
) -> SceneSpec:
    """A random labelled still: a legal position, a camera, light, table, hands, clutter.

    Keyword arguments force one condition (None = random). ``tile_height``: the range the
    tiles' thickness is drawn from (board units; (0, 0): flat), from a stream of its own
    (the rest of the scene is the same at any thickness). ``print_variation``: how far the
    tiles' print differs from the usual colours (:attr:`SceneSpec.print_variation`; the
    rest of the scene is the same at any); ``numeral_font``: a TrueType file the tiles'
    numerals are printed in ("": the usual font); ``dark_creases``: the creases between
    the tiles' sectors drawn dark.
    """
    rng = np.random.default_rng(seed)
    n_tiles = int(
        rng.choice(
            [0, 1, 3, 8, 14, 20, 26, 30, 36], p=[0.03, 0.05, 0.1, 0.14, 0.17, 0.17, 0.14, 0.1, 0.1]
        )
    )
    board = random_position(int(rng.integers(2**31)), n_tiles if tiles is None else tiles)
    cut_p = 0.2 if cut is None else float(cut)
    cam, cam_cond = sample_camera(rng, size, harsh, cut_probability=cut_p)
    light_name = str(rng.choice(list(LIGHTS))) if light is None else light
    _, _, shadow_strength, elev = LIGHTS[light_name]
    light_dir = LightDir(float(rng.uniform(0, 360)), float(rng.uniform(*elev)))
    photo = sample_photometric(rng, light_name, harsh)
    table_spec = sample_table(rng, table)
    loose = sample_loose(rng, board, int(rng.integers(0, 9)))
    hand_specs: list[HandSpec] = []
    n_hands = int(rng.choice([0, 1, 2], p=[0.45, 0.4, 0.15])) if hands is None else hands
    for _ in range(n_hands):
        target = _random_board_point(rng)
        holding = None
        if rng.random() < 0.5 and loose:
            holding = loose[int(rng.integers(len(loose)))].look
        pose = "pinch" if holding else str(rng.choice(["pinch", "open"]))
        hand_specs.append(sample_hand(rng, cam, target, holding, pose))
    band = bool(rng.random() < 0.2) if over_band is None else over_band
    clutter = sample_clutter(rng, cam, int(rng.integers(0, 4)), band)
    rings = tuple((int(rng.integers(1, 101)), k % 4) for k in range(int(rng.integers(0, 5))))
    extra = dict(cam_cond)
    extra["over_band"] = band
    extra["harsh"] = harsh
    extra["tiles"] = len(board.placements)
    return SceneSpec(
        board=board,
        camera=cam,
        light=light_dir,
        table=table_spec,
        photo=photo,
        hands=tuple(hand_specs),
        loose=loose,
        clutter=clutter,
        rings=rings,
        tint_seed=int(rng.integers(2**31)),
        shadow_strength=shadow_strength,
        seed=seed,
        extra=tuple(extra.items()),
        tile_height=_thickness(seed, tile_height),
        print_variation=print_variation,
        numeral_font=numeral_font,
        dark_creases=dark_creases,
    )


def _thickness(seed: int, span: tuple[float, float]) -> float:
    lo, hi = span
    if hi <= 0:
        return 0.0
    return float(np.random.default_rng([seed, 0x7A11]).uniform(lo, hi))


def _random_board_point(rng: np.random.Generator) -> np.ndarray:
    c = playing_corners()
    a, b = sorted(rng.random(2))
    w = np.array([a, b - a, 1 - b])
    return w @ c


def cell_centroid(index: int) -> np.ndarray:
    return np.array(SPECTRANGLE36.geometry[index].centroid)


__all__ = [
    "Edge",
    "LooseTile",
    "Render",
    "SceneSpec",
    "cell_centroid",
    "rack_positions",
    "render",
    "sample_camera",
    "sample_clutter",
    "sample_hand",
    "sample_loose",
    "sample_still",
]
