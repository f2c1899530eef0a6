"""The physical Jumbo board and its tiles, drawn as textures in the board plane.

Board-plane units: tile side = 1, apex of the playing triangle at (0, 0), x right, y down
(the engine's convention). A :class:`Texture` holds a BGRA uint8 image of a flat object
and the 3x3 matrix that maps board-plane points (x, y) to its pixels; alpha 0 marks the
see-through openings (windows of empty cells, bonus numerals, peg holes) and the outside.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine import SPECTRANGLE36, Board, Colour, Edge, Placement
from vision.render.palette import (
    BOARD_BGR,
    HALO_BGR,
    NAVY_BGR,
    NUMERAL_BGR,
    RING_BGR,
    TILE_BGR,
)

SQRT3 = math.sqrt(3.0)
#: Default texture resolution: pixels per tile side.
PPU = 128
#: Width of the border band around the playing triangle (tile units).
BAND = 0.47
#: Radius of the outer rounded corners.
CORNER_RADIUS = 0.85
#: Distance of the peg-hole track from the playing triangle's sides.
TRACK_OFFSET = 0.19
HOLE_DIAMETER = 0.08
N_HOLES = 100
#: Side of the see-through window of an empty plain cell.
WINDOW_SIDE = 0.52
#: Gap between a tile and its cell's edges (half the ridge between cells).
TILE_GAP = 0.018
_SHIFT = 4
_ONE = 1 << _SHIFT

#: Which edge each bonus numeral faces (its bottom points toward that edge): a fixed design.
BONUS_FACING: dict[int, Edge] = {
    2: Edge.BASE,
    10: Edge.LEFT,
    11: Edge.RIGHT,
    13: Edge.BASE,
    14: Edge.RIGHT,
    20: Edge.LEFT,
    26: Edge.BASE,
    30: Edge.LEFT,
    34: Edge.RIGHT,
}


@dataclass(frozen=True)
class LightDir:
    """Direction of the main light: azimuth in the board plane (degrees, x toward y) and
    elevation above the table (degrees)."""

    azimuth_deg: float = 225.0
    elevation_deg: float = 55.0

    @property
    def vector(self) -> np.ndarray:
        """Unit vector from the surface toward the light, world (x, y, z), z into the table."""
        az, el = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), -math.sin(el)])


@dataclass(frozen=True)
class Texture:
    """A flat object drawn in its own pixels.

    ``bgra``: (h, w, 4) uint8, alpha 255 = opaque. ``plane_to_tex``: (3, 3) float64 mapping
    board-plane (x, y, 1) to texture pixels (pixel centres at integers).
    """

    bgra: np.ndarray = field(repr=False)
    plane_to_tex: np.ndarray = field(repr=False)
    ppu: float


# ----------------------------------------------------------------------------- geometry


def playing_corners() -> np.ndarray:
    """The playing triangle's corners (3, 2) float64: apex, bottom-right, bottom-left."""
    h = 6 * SQRT3 / 2
    return np.array([[0.0, 0.0], [3.0, h], [-3.0, h]])


def board_centre() -> np.ndarray:
    """The centroid of the playing triangle (2,) float64."""
    return playing_corners().mean(axis=0)


def rounded_triangle(
    corners: np.ndarray, offset: float, radius: float, n_arc: int = 10
) -> np.ndarray:
    """An equilateral triangle grown by ``offset`` with corners rounded to ``radius``.

    ``corners`` (3, 2) in any orientation; returns the outline (3 * n_arc, 2) float64.
    A negative offset shrinks. The rounding keeps the sides where they would be.
    """
    c = corners.mean(axis=0)
    core_off = offset - radius
    # Offsetting an equilateral triangle by d moves each corner 2 d away from the centroid.
    out: list[np.ndarray] = []
    for i in range(3):
        v = corners[i]
        d = v - c
        d /= np.linalg.norm(d)
        core = v + d * 2.0 * core_off
        prev_edge = corners[i] - corners[i - 1]
        next_edge = corners[(i + 1) % 3] - corners[i]
        n0 = np.array([prev_edge[1], -prev_edge[0]])
        n1 = np.array([next_edge[1], -next_edge[0]])
        # Outward normals: point away from the centroid.
        if np.dot(n0, corners[i] - c) < 0:
            n0, n1 = -n0, -n1
        a0 = math.atan2(n0[1], n0[0])
        a1 = math.atan2(n1[1], n1[0])
        da = (a1 - a0 + math.pi) % (2 * math.pi) - math.pi
        for t in np.linspace(0.0, 1.0, n_arc):
            a = a0 + da * t
            out.append(core + radius * np.array([math.cos(a), math.sin(a)]))
    return np.array(out)


def outer_outline(n_arc: int = 16) -> np.ndarray:
    """The outline of the whole board (border band included), (N, 2) board-plane points."""
    return rounded_triangle(playing_corners(), BAND, CORNER_RADIUS, n_arc)


def _resample_closed(poly: np.ndarray, n: int, start: float) -> np.ndarray:
    seg = np.roll(poly, -1, axis=0) - poly
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    cum = np.concatenate([[0.0], np.cumsum(lengths)])
    total = cum[-1]
    s = (start + np.arange(n) * total / n) % total
    idx = np.searchsorted(cum, s, side="right") - 1
    frac = (s - cum[idx]) / lengths[idx]
    return poly[idx] + seg[idx] * frac[:, None]


def peg_holes() -> np.ndarray:
    """Centres (100, 2) of the score track's peg holes, hole 1 first, clockwise.

    Hole 100 sits at the apex corner, next to the start triangle.
    """
    track = rounded_triangle(
        playing_corners(), TRACK_OFFSET, CORNER_RADIUS - (BAND - TRACK_OFFSET), 40
    )
    # The arc around the apex is points 0..39; start at its middle (the apex top).
    seg = np.roll(track, -1, axis=0) - track
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    start = float(np.sum(lengths[:20]))
    pts = _resample_closed(track, N_HOLES, start)
    # pts[0] is at the apex: make it hole 100 and go on clockwise from hole 1.
    return np.roll(pts, -1, axis=0)


def _px(points: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Board-plane points (N, 2) -> fixed-point int32 pixel coordinates for cv2 drawing."""
    p = np.asarray(points, dtype=np.float64)
    q = p @ m[:2, :2].T + m[:2, 2]
    return np.round(q * _ONE).astype(np.int32)


def _col(bgr: Sequence[float], scale: float = 1.0) -> tuple[int, int, int, int]:
    return (
        int(np.clip(bgr[0] * scale * 255, 0, 255)),
        int(np.clip(bgr[1] * scale * 255, 0, 255)),
        int(np.clip(bgr[2] * scale * 255, 0, 255)),
        255,
    )


# ----------------------------------------------------------------------------- glyphs


@functools.lru_cache(maxsize=512)
def glyph_mask(
    text: str, height_px: int, angle_deg: int, weight: float, font: str = ""
) -> np.ndarray:
    """A bold rounded numeral as an anti-aliased mask.

    Returns (s, s) float32 in [0, 1], the glyph centred; ``angle_deg`` turns the glyph so
    that its bottom points along that image direction (90 = upright, y down). ``font``: a
    TrueType file to draw it in (its own weight), or "" for OpenCV's Hershey simplex
    stroked ``weight`` thick.
    """
    crop = _ttf_text(text, font) if font else _hershey_text(text, weight)
    gh, gw = crop.shape
    k = height_px / gh
    small = cv2.resize(
        crop, (max(1, round(gw * k)), max(1, height_px)), interpolation=cv2.INTER_AREA
    )
    s = math.ceil(math.hypot(*small.shape)) + 4
    canvas = np.zeros((s, s), np.float32)
    y0, x0 = (s - small.shape[0]) // 2, (s - small.shape[1]) // 2
    canvas[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small / 255.0
    rot = cv2.getRotationMatrix2D(((s - 1) / 2, (s - 1) / 2), -(angle_deg - 90), 1.0)
    out = cv2.warpAffine(canvas, rot, (s, s), flags=cv2.INTER_LINEAR)
    out.setflags(write=False)
    return out


def _hershey_text(text: str, weight: float) -> np.ndarray:
    """``text`` in OpenCV's Hershey simplex, stroked ``weight`` thick: (h, w) uint8, cropped."""
    scale = 4
    font = cv2.FONT_HERSHEY_SIMPLEX
    probe = 2.0
    thick = max(1, round(weight * 22 * scale))
    (w, h), _ = cv2.getTextSize(text, font, probe * scale, thick)
    big = np.zeros((h * 3, w * 3), np.uint8)
    cv2.putText(big, text, (w, 2 * h), font, probe * scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(big > 127)
    return big[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _ttf_text(text: str, path: str) -> np.ndarray:
    """``text`` drawn from the TrueType file ``path``: (h, w) uint8, cropped. Raises
    OSError where the file is no font."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(path, 200)
    img = Image.new("L", (300 * max(1, len(text)), 400), 0)
    ImageDraw.Draw(img).text((50, 50), text, fill=255, font=font)
    big = np.asarray(img, dtype=np.uint8)
    ys, xs = np.nonzero(big > 127)
    return big[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _stamp(
    img: np.ndarray, mask: np.ndarray, centre: tuple[float, float], value: np.ndarray
) -> None:
    """Blend ``value`` (per channel, same channel count as img) into img through ``mask``."""
    s = mask.shape[0]
    x0 = round(centre[0] - (s - 1) / 2)
    y0 = round(centre[1] - (s - 1) / 2)
    h, w = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + s), min(h, y0 + s)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0][..., None]
    roi = img[ya:yb, xa:xb].astype(np.float32)
    img[ya:yb, xa:xb] = (roi * (1 - m) + value * m).astype(np.uint8)


def _angle_of(v: np.ndarray) -> int:
    return round(math.degrees(math.atan2(v[1], v[0])))


# ----------------------------------------------------------------------------- board


@functools.lru_cache(maxsize=4)
def board_base_texture(ppu: int = PPU) -> Texture:
    """The empty board: black plastic, band with peg holes and tags, windows, bonus numerals.

    Deterministic (its small plastic grain uses a fixed seed). Read-only arrays.
    """
    outline = outer_outline(24)
    margin = 0.1
    lo = outline.min(axis=0) - margin
    hi = outline.max(axis=0) + margin
    w = math.ceil((hi[0] - lo[0]) * ppu)
    h = math.ceil((hi[1] - lo[1]) * ppu)
    m = np.array([[ppu, 0.0, -lo[0] * ppu], [0.0, ppu, -lo[1] * ppu], [0.0, 0.0, 1.0]])
    bgr = np.zeros((h, w, 3), np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    black = _col(BOARD_BGR)[:3]
    cv2.fillPoly(bgr, [_px(outline, m)], black, cv2.LINE_AA, _SHIFT)
    cv2.fillPoly(alpha, [_px(outline, m)], 255, cv2.LINE_AA, _SHIFT)
    # Moulded plastic: faint low-frequency mottling and fine grain.
    grain_rng = np.random.default_rng(1234)
    low = cv2.resize(grain_rng.normal(0, 1, (h // 32 + 2, w // 32 + 2)).astype(np.float32), (w, h))
    fine = grain_rng.normal(0, 1, (h, w)).astype(np.float32)
    tone = 1.0 + 0.06 * low + 0.05 * fine
    bgr = np.clip(bgr.astype(np.float32) * tone[..., None], 0, 255).astype(np.uint8)
    lip = _col(BOARD_BGR, 1.45)[:3]
    ridge = _col(BOARD_BGR, 1.3)[:3]
    grey = (120, 120, 118)
    # The rim of the playing area, slightly raised.
    tri = rounded_triangle(playing_corners(), 0.015, 0.03, 4)
    cv2.polylines(bgr, [_px(tri, m)], True, lip, max(1, round(0.022 * ppu)), cv2.LINE_AA, _SHIFT)
    outer_lip = rounded_triangle(playing_corners(), BAND - 0.02, CORNER_RADIUS - 0.02, 24)
    cv2.polylines(
        bgr, [_px(outer_lip, m)], True, lip, max(1, round(0.015 * ppu)), cv2.LINE_AA, _SHIFT
    )
    # Ridges between the cells.
    geo = SPECTRANGLE36.geometry
    for cell in geo:
        cv2.polylines(
            bgr,
            [_px(np.array(cell.vertices), m)],
            True,
            ridge,
            max(1, round(0.02 * ppu)),
            cv2.LINE_AA,
            _SHIFT,
        )
    # Peg holes, ticks, tags.
    holes = peg_holes()
    centre = board_centre()
    r_hole = HOLE_DIAMETER / 2
    for k, p in enumerate(holes, start=1):
        out = p - centre
        out /= np.linalg.norm(out)
        cv2.circle(
            alpha, tuple(_px(p[None], m)[0]), round(r_hole * ppu * _ONE), 0, cv2.LINE_AA, _SHIFT
        )
        cv2.circle(
            bgr,
            tuple(_px(p[None], m)[0]),
            round((r_hole + 0.012) * ppu * _ONE),
            (62, 60, 58),
            max(1, round(0.012 * ppu)),
            cv2.LINE_AA,
            _SHIFT,
        )
        normal = _track_normal(holes, k - 1)
        if k % 5 == 0 and k % 10 != 0:
            a = p + normal * 0.07
            b = p + normal * 0.15
            cv2.line(
                bgr,
                tuple(_px(a[None], m)[0]),
                tuple(_px(b[None], m)[0]),
                grey,
                max(1, round(0.014 * ppu)),
                cv2.LINE_AA,
                _SHIFT,
            )
        if k % 10 == 0:
            _draw_tag(bgr, p, normal, str(k), m, ppu)
    # The start triangle next to 100.
    p100 = holes[-1]
    tangent = holes[0] - holes[-2]
    tangent /= np.linalg.norm(tangent)
    normal = _track_normal(holes, N_HOLES - 1)
    c = p100 - tangent * 0.2 + normal * 0.02
    start_tri = np.array(
        [c + tangent * 0.07, c - tangent * 0.05 + normal * 0.06, c - tangent * 0.05 - normal * 0.06]
    )
    cv2.fillPoly(bgr, [_px(start_tri, m)], grey, cv2.LINE_AA, _SHIFT)
    # Cells: windows of plain cells, numerals of bonus cells.
    for cell in geo:
        verts = np.array(cell.vertices)
        cen = verts.mean(axis=0)
        if cell.bonus == 1:
            # A rounded triangular window, same orientation as the cell.
            win = cen + (verts - cen) * (WINDOW_SIDE / 1.0)
            poly = rounded_triangle(win, 0.0, 0.06, 6)
            cv2.fillPoly(alpha, [_px(poly, m)], 0, cv2.LINE_AA, _SHIFT)
            rim = rounded_triangle(win, 0.012, 0.07, 6)
            cv2.polylines(
                bgr, [_px(rim, m)], True, ridge, max(1, round(0.016 * ppu)), cv2.LINE_AA, _SHIFT
            )
        else:
            facing = BONUS_FACING[cell.index]
            mid = np.array(cell.edge_midpoint(facing))
            down = mid - cen
            mask = glyph_mask(str(cell.bonus), round(0.45 * ppu), _angle_of(down), 0.9)
            cc = cen @ m[:2, :2].T + m[:2, 2]
            hole = alpha.copy()
            s = mask.shape[0]
            x0, y0 = round(cc[0] - (s - 1) / 2), round(cc[1] - (s - 1) / 2)
            roi = hole[y0 : y0 + s, x0 : x0 + s].astype(np.float32)
            hole[y0 : y0 + s, x0 : x0 + s] = (roi * (1 - mask)).astype(np.uint8)
            # A faint moulded edge around the numeral.
            edge = cv2.dilate((mask > 0.3).astype(np.uint8), np.ones((5, 5), np.uint8)) - (
                mask > 0.3
            ).astype(np.uint8)
            sub = bgr[y0 : y0 + s, x0 : x0 + s]
            sub[edge > 0] = ridge
            alpha = hole
    bgr = cv2.GaussianBlur(bgr, (3, 3), 0.6)
    bgra = np.dstack([bgr, alpha])
    bgra.setflags(write=False)
    m.setflags(write=False)
    return Texture(bgra, m, float(ppu))


def _track_normal(holes: np.ndarray, i: int) -> np.ndarray:
    t = holes[(i + 1) % len(holes)] - holes[i - 1]
    n = np.array([t[1], -t[0]])
    n /= np.linalg.norm(n)
    if np.dot(n, holes[i] - board_centre()) < 0:
        n = -n
    return n


def _draw_tag(
    bgr: np.ndarray, p: np.ndarray, normal: np.ndarray, text: str, m: np.ndarray, ppu: int
) -> None:
    """A small pentagon tag pointing at the hole, with the number, outside the hole."""
    t = np.array([-normal[1], normal[0]])
    c = p + normal * 0.15
    half = 0.075
    pent = np.array(
        [
            c - normal * 0.1,
            c - normal * 0.05 + t * half,
            c + normal * 0.065 + t * half,
            c + normal * 0.065 - t * half,
            c - normal * 0.05 - t * half,
        ]
    )
    grey = (110, 110, 108)
    cv2.polylines(bgr, [_px(pent, m)], True, grey, max(1, round(0.01 * ppu)), cv2.LINE_AA, _SHIFT)
    size = round(0.075 * ppu)
    # Numbers read upright from outside the board.
    mask = glyph_mask(text, max(4, size), _angle_of(normal), 0.45)
    cc = c + normal * 0.01
    q = cc @ m[:2, :2].T + m[:2, 2]
    _stamp(bgr, mask, (float(q[0]), float(q[1])), np.array(grey, np.float32))


# ----------------------------------------------------------------------------- tiles


@dataclass(frozen=True)
class TileLook:
    """How one physical tile looks: the colour against each edge of its cell, its value,
    the edge its numeral faces, and its small manufacturing tint (BGR gains near 1)."""

    edges: tuple[tuple[Edge, Colour], ...]
    value: int
    numeral_edge: Edge
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    #: the print's colours (BGR in [0, 1]) where they are not the usual ones (another
    #: print run, :func:`vision.render.palette.print_variation`), and its disc's navy
    colours: tuple[tuple[Colour, tuple[float, float, float]], ...] = ()
    navy: tuple[float, float, float] = NAVY_BGR
    #: the TrueType file its numeral is printed in ("": the usual font)
    font: str = ""
    #: the colour (BGR 0-255) of the creases between its sectors: light as moulded here,
    #: dark as seen on some photos of the physical game
    crease: tuple[int, int, int] = (240, 240, 240)

    @classmethod
    def of(
        cls, placement: Placement, tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    ) -> TileLook:
        return cls(
            tuple((e, placement.colour(e)) for e in (Edge.LEFT, Edge.RIGHT, Edge.BASE)),
            placement.value,
            numeral_edge(placement),
            tint,
        )

    def colour(self, edge: Edge) -> Colour:
        return dict(self.edges)[edge]

    def bgr(self, edge: Edge) -> tuple[float, float, float]:
        """The printed colour (BGR in [0, 1]) of the sector against ``edge``."""
        colour = self.colour(edge)
        return dict(self.colours).get(colour, TILE_BGR[colour])


def numeral_edge(placement: Placement) -> Edge:
    """The edge the numeral of this physical tile faces, as placed.

    Two-colour tiles: the odd colour's edge. Three-colour tiles: the edge of the first colour
    of the tile's clockwise listing. One-colour tiles and the joker: fixed by the cell index
    (the physical orientation cannot be seen from the colours).
    """
    cols = [placement.colour(e) for e in (Edge.LEFT, Edge.RIGHT, Edge.BASE)]
    edges = (Edge.LEFT, Edge.RIGHT, Edge.BASE)
    distinct = set(cols)
    if len(distinct) == 2:
        odd = next(c for c in distinct if cols.count(c) == 1)
        return edges[cols.index(odd)]
    if len(distinct) == 3:
        st = SPECTRANGLE36.set_tile(placement.tile)
        return edges[cols.index(st.clockwise[0])]
    return edges[placement.index % 3]


def sector_shade(
    outward: np.ndarray, slope_deg: float, light: LightDir, ambient: float = 0.38
) -> float:
    """Brightness of a facet tilted by ``slope_deg`` toward ``outward`` (board-plane unit
    vector), relative to a flat surface under the same light."""
    s = math.radians(slope_deg)
    n = np.array([math.sin(s) * outward[0], math.sin(s) * outward[1], -math.cos(s)])
    lv = light.vector
    lit = max(0.0, float(n @ lv))
    flat = max(0.0, -float(lv[2]))
    return (ambient + (1 - ambient) * lit) / (ambient + (1 - ambient) * flat)


def _edge_of_pair(
    verts: np.ndarray, cell_edges: dict[Edge, tuple[tuple[float, float], ...]]
) -> list[Edge]:
    """For vertex pairs (v0, v1), (v1, v2), (v2, v0): their edge names."""
    out = []
    for i in range(3):
        a, b = verts[i], verts[(i + 1) % 3]
        for e, (p, q) in cell_edges.items():
            if (np.allclose(a, p, atol=1e-3) and np.allclose(b, q, atol=1e-3)) or (
                np.allclose(a, q, atol=1e-3) and np.allclose(b, p, atol=1e-3)
            ):
                out.append(e)
                break
    return out


def draw_tile(
    bgra: np.ndarray,
    verts: np.ndarray,
    pair_edges: Sequence[Edge],
    look: TileLook,
    light: LightDir,
    m: np.ndarray,
    ppu: float,
) -> None:
    """Draw one tile filling the cell with board-plane corners ``verts`` (3, 2) into ``bgra``.

    ``pair_edges[i]`` names the edge between ``verts[i]`` and ``verts[i+1]``; ``m`` maps
    board-plane points to ``bgra``'s pixels. Draws in place (colour and alpha).
    """
    c = verts.mean(axis=0)
    outline = rounded_triangle(verts, -TILE_GAP, 0.05, 6)
    q = outline @ m[:2, :2].T + m[:2, 2]
    x0, y0 = np.floor(q.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 3
    h, w = bgra.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x0 >= x1 or y0 >= y1:
        return
    mm = m.copy()
    mm[0, 2] -= x0
    mm[1, 2] -= y0
    layer = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [_px(outline, mm)], 255, cv2.LINE_AA, _SHIFT)
    tint = np.array(look.tint)
    ext = c + (verts - c) * 1.3
    rim_w = 0.05
    inner = c + (verts - c) * (1 - 2 * rim_w / (1 / SQRT3 * 1.0))
    for i in range(3):
        e = pair_edges[i]
        base = np.array(look.bgr(e)) * tint
        a, b = verts[i], verts[(i + 1) % 3]
        mid = (a + b) / 2
        out = mid - c
        out /= np.linalg.norm(out)
        rim_col = base * sector_shade(out, 38.0, light) * 0.92
        face_col = base * sector_shade(out, 11.0, light)
        cv2.fillPoly(
            layer,
            [_px(np.array([c, ext[i], ext[(i + 1) % 3]]), mm)],
            _col(rim_col)[:3],
            cv2.LINE_AA,
            _SHIFT,
        )
        cv2.fillPoly(
            layer,
            [_px(np.array([c, inner[i], inner[(i + 1) % 3]]), mm)],
            _col(face_col)[:3],
            cv2.LINE_AA,
            _SHIFT,
        )
    # Creases from the centre to the corners.
    lw = max(1, round(0.012 * ppu))
    crease = layer.copy()
    for i in range(3):
        cv2.line(
            crease,
            tuple(_px(c[None], mm)[0]),
            tuple(_px(inner[i][None], mm)[0]),
            look.crease,
            lw,
            cv2.LINE_AA,
            _SHIFT,
        )
    layer = cv2.addWeighted(layer, 0.45, crease, 0.55, 0)
    # Halo, navy disc, numeral.
    cp = tuple(_px(c[None], mm)[0])
    cv2.circle(layer, cp, round(0.142 * ppu * _ONE), _col(HALO_BGR)[:3], -1, cv2.LINE_AA, _SHIFT)
    cv2.circle(
        layer, cp, round(0.122 * ppu * _ONE), _col(look.navy, 0.8)[:3], -1, cv2.LINE_AA, _SHIFT
    )
    cv2.circle(layer, cp, round(0.112 * ppu * _ONE), _col(look.navy)[:3], -1, cv2.LINE_AA, _SHIFT)
    k = pair_edges.index(look.numeral_edge)
    down = (verts[k] + verts[(k + 1) % 3]) / 2 - c
    down_px = down @ m[:2, :2].T
    glyph = glyph_mask(
        str(look.value), max(5, round(0.14 * ppu)), _angle_of(down_px), 0.95, look.font
    )
    cc = c @ mm[:2, :2].T + mm[:2, 2]
    _stamp(layer, glyph, (float(cc[0]), float(cc[1])), np.array(_col(NUMERAL_BGR)[:3], np.float32))
    roi = bgra[y0:y1, x0:x1]
    a = (mask.astype(np.float32) / 255.0)[..., None]
    roi[..., :3] = (roi[..., :3] * (1 - a) + layer * a).astype(np.uint8)
    roi[..., 3] = np.maximum(roi[..., 3], mask)


def _cell_pairs(index: int) -> tuple[np.ndarray, list[Edge]]:
    cell = SPECTRANGLE36.geometry[index]
    verts = np.array(cell.vertices)
    edges = {e: cell.edge_vertices(e) for e in (Edge.LEFT, Edge.RIGHT, Edge.BASE)}
    return verts, _edge_of_pair(verts, edges)


def draw_ring(
    bgra: np.ndarray, centre: np.ndarray, colour: Sequence[float], m: np.ndarray, ppu: float
) -> None:
    """A coloured score ring marker sitting in a peg hole."""
    cp = tuple(_px(centre[None], m)[0])
    cv2.circle(bgra, cp, round(0.075 * ppu * _ONE), _col(colour, 0.55), -1, cv2.LINE_AA, _SHIFT)
    cv2.circle(bgra, cp, round(0.068 * ppu * _ONE), _col(colour), -1, cv2.LINE_AA, _SHIFT)
    cv2.circle(bgra, cp, round(0.03 * ppu * _ONE), _col(colour, 0.45), -1, cv2.LINE_AA, _SHIFT)
    hl = centre + np.array([-0.025, -0.025])
    cv2.circle(
        bgra,
        tuple(_px(hl[None], m)[0]),
        round(0.018 * ppu * _ONE),
        _col(colour, 1.35),
        -1,
        cv2.LINE_AA,
        _SHIFT,
    )


def board_texture(
    board: Board,
    light: LightDir,
    looks: dict[int, TileLook] | None = None,
    rings: Sequence[tuple[int, int]] = (),
    ppu: int = PPU,
) -> Texture:
    """The board in a given state: the base texture with tiles and score rings drawn on it.

    ``looks`` overrides the look (tint) of tiles by cell index; ``rings`` lists
    (hole number 1..100, colour index 0..3).
    """
    base = board_base_texture(ppu)
    bgra = base.bgra.copy()
    m = base.plane_to_tex
    draw_tiles(bgra, board, light, looks, m, ppu)
    holes = peg_holes()
    for hole, colour in rings:
        draw_ring(bgra, holes[(hole - 1) % N_HOLES], RING_BGR[colour % len(RING_BGR)], m, ppu)
    return Texture(bgra, m, float(ppu))


def tiles_texture(
    board: Board, light: LightDir, looks: dict[int, TileLook] | None = None, ppu: int = PPU
) -> Texture:
    """The board's tiles alone, on a transparent texture of the board's size and mapping
    (to be drawn on their own plane, above the board's)."""
    base = board_base_texture(ppu)
    bgra = np.zeros_like(base.bgra)
    draw_tiles(bgra, board, light, looks, base.plane_to_tex, ppu)
    return Texture(bgra, base.plane_to_tex, float(ppu))


def draw_tiles(
    bgra: np.ndarray,
    board: Board,
    light: LightDir,
    looks: dict[int, TileLook] | None,
    m: np.ndarray,
    ppu: float,
) -> None:
    """Draw the board's tiles into ``bgra`` (board plane to pixels ``m``), in place."""
    for p in board.placements:
        verts, pairs = _cell_pairs(p.index)
        look = (looks or {}).get(p.index) or TileLook.of(p)
        draw_tile(bgra, verts, pairs, look, light, m, ppu)


def tile_texture(look: TileLook, light: LightDir, ppu: int = PPU) -> Texture:
    """One loose tile as an up-pointing cell around the origin (its centroid at (0, 0)).

    The texture's ``plane_to_tex`` maps the tile's own plane (tile side 1, centroid at the
    origin, base at the bottom) to its pixels; place it with a rotation + translation.
    """
    h = SQRT3 / 2
    verts = np.array([[0.0, -2 * h / 3], [0.5, h / 3], [-0.5, h / 3]])
    pad = 0.06
    lo = verts.min(axis=0) - pad
    hi = verts.max(axis=0) + pad
    w_px = math.ceil((hi[0] - lo[0]) * ppu)
    h_px = math.ceil((hi[1] - lo[1]) * ppu)
    m = np.array([[ppu, 0.0, -lo[0] * ppu], [0.0, ppu, -lo[1] * ppu], [0.0, 0.0, 1.0]])
    bgra = np.zeros((h_px, w_px, 4), np.uint8)
    # Pairs (v0, v1) = right, (v1, v2) = base, (v2, v0) = left for an up cell.
    draw_tile(bgra, verts, [Edge.RIGHT, Edge.BASE, Edge.LEFT], look, light, m, ppu)
    return Texture(bgra, m, float(ppu))
