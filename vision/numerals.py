"""Reading the printed value on a tile's disc (values 1-6, in six orientations).

Every tile shows at its centre a dark navy disc (radius ``cfg.disc_radius`` of the tile side)
with a thin light halo and a white bold rounded numeral. In the rectified canvas an up cell's
numeral is upright or turned by 120/240 degrees, a down cell's by 180, 60 or 300 degrees.

The reader works on one grey image per frame, resampled so that a disc has the same size in
pixels whatever the canvas scale (``norm_radius_px``):

1. the disc centre is searched near the predicted one (the lattice can be off by a tenth of a
   tile): a ring filter finds the dark disc rim inside the light halo;
2. a round patch inside the disc, at a few shifts around that centre, is compared by
   normalised correlation (brightness and contrast invariant) with digit templates;
3. the best correlation of each value becomes a cost, scaled by how numeral-like the best
   match is, so that an unreadable disc gives flat costs.

Templates are drawn here from generic fonts (OpenCV's Hershey stroke fonts, drawn thick, so
with round ends, and a bold system sans if one is installed), at two digit heights, the
three orientations of the cell, a small rotation jitter and a few blurs. They are never taken
from rendered or photographed tiles. Thresholds are in ``vision/data/numerals.json``.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.config import ReaderConfig
from vision.model import CENTROIDS, UP, Canvas

log = logging.getLogger(__name__)

FloatArray = NDArray[np.float64]
F32 = NDArray[np.float32]

#: Directions of a numeral's "up" in the canvas, degrees anticlockwise, per cell orientation.
UP_ANGLES = (0.0, 120.0, 240.0)
DOWN_ANGLES = (180.0, 300.0, 60.0)
VALUES = (1, 2, 3, 4, 5, 6)
_HERSHEY = {"simplex": cv2.FONT_HERSHEY_SIMPLEX, "duplex": cv2.FONT_HERSHEY_DUPLEX}
_OVERSAMPLE = 4


@dataclass(frozen=True)
class NumeralParams:
    """The numbers of ``vision/data/numerals.json`` (see its comment)."""

    norm_radius_px: float
    search_units: float
    ring_inner_r: tuple[float, float]
    ring_outer_r: tuple[float, float]
    match_r: float
    shift_px: int
    digit_height_r: tuple[float, ...]
    jitter_deg: tuple[float, ...]
    template_blur_px: tuple[float, ...]
    canvas_blur_px: float
    hershey_fonts: tuple[tuple[str, float], ...]
    bold_digits: str  # a file in vision/data: the digits of a bold sans font (bundle_bold_digits)
    corr_floor: float
    corr_good: float
    contrast_floor: float
    contrast_good: float
    gap_scale: float
    cost_cap: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NumeralParams:
        return cls(
            norm_radius_px=float(data["norm_radius_px"]),
            search_units=float(data["search_units"]),
            ring_inner_r=(float(data["ring_inner_r"][0]), float(data["ring_inner_r"][1])),
            ring_outer_r=(float(data["ring_outer_r"][0]), float(data["ring_outer_r"][1])),
            match_r=float(data["match_r"]),
            shift_px=int(data["shift_px"]),
            digit_height_r=tuple(float(v) for v in data["digit_height_r"]),
            jitter_deg=tuple(float(v) for v in data["jitter_deg"]),
            template_blur_px=tuple(float(v) for v in data["template_blur_px"]),
            canvas_blur_px=float(data["canvas_blur_px"]),
            hershey_fonts=tuple(
                (str(f["face"]), float(f["stroke"])) for f in data["hershey_fonts"]
            ),
            bold_digits=str(data["bold_digits"]),
            corr_floor=float(data["corr_floor"]),
            corr_good=float(data["corr_good"]),
            contrast_floor=float(data["contrast_floor"]),
            contrast_good=float(data["contrast_good"]),
            gap_scale=float(data["gap_scale"]),
            cost_cap=float(data["cost_cap"]),
        )


@cache
def default_params() -> NumeralParams:
    text = resources.files("vision.data").joinpath("numerals.json").read_text("utf-8")
    return NumeralParams.from_json(json.loads(text))


# -- glyphs ---------------------------------------------------------------------------------


def _crop(mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    ys, xs = np.nonzero(mask > 127)
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def hershey_glyph(digit: int, face: str, stroke: float) -> NDArray[np.uint8]:
    """A digit of an OpenCV Hershey font drawn with round strokes ``stroke`` x its height.

    Returns a (h, w) uint8 mask (255 = ink) cropped to the glyph, h about 200.
    """
    font = _HERSHEY[face]
    scale = 8.0
    (_, h), _ = cv2.getTextSize(str(digit), font, scale, 1)
    thick = max(1, round(stroke * h))
    size = 3 * h + 2 * thick
    img = np.zeros((size, size), np.uint8)
    cv2.putText(img, str(digit), (h, 2 * h), font, scale, 255, thick, cv2.LINE_AA)
    return _crop(img)


def ttf_glyph(digit: int, path: str) -> NDArray[np.uint8] | None:
    """A digit of a TrueType font file (bold sans), or None without Pillow or the file."""
    if not Path(path).is_file():
        return None
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:  # pragma: no cover - Pillow comes with scikit-image
        return None
    try:
        font = ImageFont.truetype(path, 200)
    except OSError:
        return None
    img = Image.new("L", (400, 400), 0)
    ImageDraw.Draw(img).text((100, 50), str(digit), fill=255, font=font)
    return _crop(np.asarray(img, dtype=np.uint8))


def bundle_bold_digits(ttf_path: str, out_path: str) -> None:
    """Write the digits 1-6 of a TrueType font (bold sans) as the glyph masks the reader
    loads (``bold_digits``): one (h, w) uint8 mask per digit, cropped, in a compressed
    ``.npz`` keyed "1".."6". The bundled file was drawn so from DejaVu Sans Bold; bundled,
    the templates are the same on every machine, whatever fonts it has."""
    glyphs = {str(d): ttf_glyph(d, ttf_path) for d in VALUES}
    missing = [d for d, g in glyphs.items() if g is None]
    if missing:
        raise ValueError(f"no digits {', '.join(missing)} drawn from {ttf_path!r}")
    np.savez_compressed(out_path, **{d: g for d, g in glyphs.items() if g is not None})


def bold_glyphs(name: str) -> list[NDArray[np.uint8]] | None:
    """The bundled bold digits 1-6 (``vision/data/<name>``), or None without the file."""
    source = resources.files("vision.data").joinpath(name)
    if not source.is_file():
        log.warning("numeral templates: %s is missing, Hershey fonts alone", name)
        return None
    with source.open("rb") as fh, np.load(fh) as data:
        return [np.asarray(data[str(d)], dtype=np.uint8) for d in VALUES]


def glyph_sets(params: NumeralParams) -> list[list[NDArray[np.uint8]]]:
    """Glyph masks of the digits 1-6 for every font: a list of fonts of 6 masks (OpenCV's
    Hershey fonts at the strokes given, and the bundled bold sans digits)."""
    fonts = [
        [hershey_glyph(d, face, stroke) for d in VALUES] for face, stroke in params.hershey_fonts
    ]
    bold = bold_glyphs(params.bold_digits)
    if bold is not None:
        fonts.append(bold)
    return fonts


def place_glyph(glyph: NDArray[np.uint8], side: int, height_px: float, up_deg: float) -> F32:
    """Draw a glyph centred in a (side, side) float32 image, ``height_px`` tall, turned.

    ``up_deg``: direction of the glyph's top, anticlockwise from the image's up, degrees.
    Ink is 1, background 0; anti-aliased by supersampling.
    """
    os_ = _OVERSAMPLE
    big_side = side * os_
    gh, gw = glyph.shape
    k = height_px * os_ / gh
    w, h = max(1, round(gw * k)), max(1, round(gh * k))
    small = cv2.resize(glyph, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    # Affine: glyph centre -> canvas centre, turned by up_deg.
    c = (big_side - 1) / 2.0
    rot = cv2.getRotationMatrix2D(((w - 1) / 2.0, (h - 1) / 2.0), up_deg, 1.0)
    rot[:, 2] += c - np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    big = cv2.warpAffine(small, rot, (big_side, big_side), flags=cv2.INTER_LINEAR)
    return cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)


def disc_mask(side: int, radius_px: float) -> NDArray[np.bool_]:
    """Boolean (side, side) disc of ``radius_px`` around the centre pixel."""
    c = (side - 1) / 2.0
    yy, xx = np.mgrid[:side, :side]
    return np.asarray((xx - c) ** 2 + (yy - c) ** 2 <= radius_px**2)


@cache
def ring_kernel(params: NumeralParams) -> F32:
    """Zero-sum filter: + on the light halo ring, - on the dark rim inside the disc."""
    rn = params.norm_radius_px
    half = math.ceil(params.ring_outer_r[1] * rn)
    side = 2 * half + 1
    yy, xx = np.mgrid[:side, :side]
    r = np.hypot(xx - half, yy - half) / rn
    outer = (r >= params.ring_outer_r[0]) & (r <= params.ring_outer_r[1])
    inner = (r >= params.ring_inner_r[0]) & (r <= params.ring_inner_r[1])
    k = outer / outer.sum() - inner / inner.sum()
    return k.astype(np.float32)


def normalise_rows(x: F32) -> tuple[F32, F32]:
    """Zero-mean, unit-norm rows of (N, P) float32; returns them and each row's relative
    contrast (N,): its std over its mean (brightness invariant)."""
    mean = x.mean(axis=1, keepdims=True)
    x = x - mean
    norm = np.sqrt((x * x).sum(axis=1, keepdims=True))
    std = norm[:, 0] / math.sqrt(max(x.shape[1], 1))
    contrast = (std / np.maximum(mean[:, 0], 1.0)).astype(np.float32)
    return (x / np.maximum(norm, 1e-6)).astype(np.float32), contrast


@dataclass(frozen=True)
class TemplateBank:
    """Digit templates for one cell orientation and one blur.

    ``vectors``: (6 * K, P) float32, zero-mean unit-norm over the match mask, ordered value
    first (rows v*K..v*K+K-1 show value v+1).
    """

    vectors: F32
    per_value: int


def build_banks(params: NumeralParams) -> dict[tuple[bool, int], TemplateBank]:
    """Templates keyed by (up cell, blur index)."""
    rn = params.norm_radius_px
    half = math.ceil(params.match_r * rn)
    side = 2 * half + 1
    mask = disc_mask(side, params.match_r * rn)
    fonts = glyph_sets(params)
    banks: dict[tuple[bool, int], TemplateBank] = {}
    for up, angles in ((True, UP_ANGLES), (False, DOWN_ANGLES)):
        images: list[list[F32]] = [[] for _ in VALUES]
        for font in fonts:
            for v, glyph in enumerate(font):
                for height in params.digit_height_r:
                    for a in angles:
                        for j in params.jitter_deg:
                            images[v].append(place_glyph(glyph, side, height * rn, a + j))
        per_value = len(images[0])
        for b, sigma in enumerate(params.template_blur_px):
            rows = [cv2.GaussianBlur(img, (0, 0), sigma)[mask] for per_v in images for img in per_v]
            vectors, _ = normalise_rows(np.array(rows, dtype=np.float32))
            banks[(up, b)] = TemplateBank(vectors, per_value)
    return banks


@cache
def _shared_banks(params: NumeralParams) -> dict[tuple[bool, int], TemplateBank]:
    return build_banks(params)


# -- reading --------------------------------------------------------------------------------


def grey_of(canvas_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """(H, W, 3) uint8 BGR -> (H, W) uint8 grey (luma), where the white numeral is brightest.

    Navy, the tile colours and the halo keep their order under colour casts, and a greyscale
    photograph reads the same.
    """
    if canvas_bgr.ndim == 2:
        return canvas_bgr
    return cv2.cvtColor(canvas_bgr, cv2.COLOR_BGR2GRAY)


def disc_windows(
    grey: NDArray[np.uint8], centres: FloatArray, scale: float, half: int, blur_px: float
) -> F32:
    """Square windows around disc centres, resampled to the normalised scale.

    ``grey``: (H, W) uint8; ``centres``: (N, 2) float canvas pixels; ``scale``: normalised px
    per canvas px. Returns (N, 2 * half + 1, 2 * half + 1) float32, the centre at
    ``[half, half]``; outside the canvas the border is replicated. With ``blur_px`` each
    window is blurred on its own (its edges reflected, as ``cv2.GaussianBlur`` does).
    """
    side = 2 * half + 1
    n = len(centres)
    inv = 1.0 / scale
    affine = np.zeros((n, 2, 3))  # window px -> canvas px, per window
    affine[:, 0, 0] = affine[:, 1, 1] = inv
    affine[:, :, 2] = centres - half * inv
    # One warp per window (a remap of them all interpolates differently); each is written
    # into its rows of one stack, ``pad`` rows apart for the blur: at least the reach of
    # OpenCV's float Gaussian kernel (about 4 sigma a side).
    pad = math.ceil(4.0 * blur_px + 1.0) if blur_px > 0 and n else 0
    stack = np.empty((n, side + 2 * pad, side), np.uint8)
    for i in range(n):
        cv2.warpAffine(
            grey,
            affine[i],
            (side, side),
            dst=stack[i, pad : pad + side],
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
    if not pad:
        return stack.astype(np.float32)
    # Each window's own rows reflected into its pad (BORDER_REFLECT_101): one blur of the
    # stack then gives every window exactly its own blur (the columns' border is the stack's).
    stack[:, :pad] = stack[:, 2 * pad : pad : -1]
    stack[:, pad + side :] = stack[:, pad + side - 2 : side - 2 : -1]
    tall = stack.reshape(-1, side).astype(np.float32)
    blurred = cv2.GaussianBlur(tall, (0, 0), blur_px).reshape(n, side + 2 * pad, side)
    return np.ascontiguousarray(blurred[:, pad : pad + side])


#: Ring responses (grey levels) closer than this are matched again window by window.
_NEAR_TIE = 1e-3


@cache
def _search_mask(search_px: float) -> NDArray[np.bool_]:
    s_r = math.floor(search_px)
    yy, xx = np.mgrid[-s_r : s_r + 1, -s_r : s_r + 1]
    return np.asarray(xx**2 + yy**2 <= search_px**2)


def find_discs(windows: F32, ring: F32, search_px: float) -> NDArray[np.int64]:
    """Offsets (N, 2) int64 (dx, dy) in px from each window's centre to its most disc-like
    point.

    ``windows``: (N, S, S) float32 normalised grey, S >= 2 * (search_px + ring half size) + 1;
    ``ring``: the ring filter; candidates lie within ``search_px`` of the centre.

    The ring is matched on all windows at once, stacked one under the other; that stack's
    float32 spectra give responses within about 3e-5 of a single window's, so a window whose
    two best candidates are within ``_NEAR_TIE`` is matched again on its own: what is found in
    a window never depends on the other windows.
    """
    n = len(windows)
    if n == 0:
        return np.zeros((0, 2), np.int64)
    half = windows.shape[1] // 2
    s_r = math.floor(search_px)
    r = s_r + ring.shape[0] // 2
    size, out = 2 * r + 1, 2 * s_r + 1
    sub = windows[:, half - r : half + r + 1, half - r : half + r + 1]
    tall = cv2.matchTemplate(np.ascontiguousarray(sub).reshape(n * size, size), ring, cv2.TM_CCORR)
    # Window i's responses are the stack's rows i * size ... i * size + out - 1.
    step, item = tall.strides
    stacked = np.lib.stride_tricks.as_strided(
        tall, (n, out, out), (size * step, step, item), writeable=False
    )
    inside = _search_mask(search_px)
    response = np.where(inside, stacked, -np.inf).reshape(n, -1)
    best = response.max(axis=1, keepdims=True)
    for i in np.flatnonzero((response >= best - _NEAR_TIE).sum(axis=1) > 1):
        alone = cv2.matchTemplate(sub[i], ring, cv2.TM_CCORR)
        response[i] = np.where(inside, alone, -np.inf).reshape(-1)
    dy, dx = np.divmod(response.argmax(axis=1), out)  # the first best, row by row
    return np.stack([dx - s_r, dy - s_r], axis=1).astype(np.int64)


@cache
def _patch_offsets(params: NumeralParams, side: int) -> NDArray[np.int64]:
    """(P, n_shift) int64 flat offsets, in a (side, side) window, from the disc centre to the
    match mask's pixels (row by row) at each shift (row by row: dy, then dx, each from
    -shift_px to shift_px)."""
    rn = params.norm_radius_px
    m_half = math.ceil(params.match_r * rn)
    yy, xx = np.nonzero(disc_mask(2 * m_half + 1, params.match_r * rn))
    s = params.shift_px
    sy, sx = np.mgrid[-s : s + 1, -s : s + 1]
    rows = yy[:, None] - m_half + sy.reshape(1, -1)
    cols = xx[:, None] - m_half + sx.reshape(1, -1)
    offsets = (rows * side + cols).astype(np.int64)
    offsets.setflags(write=False)
    return offsets


def read_scores(
    grey: NDArray[np.uint8],
    centres: FloatArray,
    up: NDArray[np.bool_],
    scale: float,
    params: NumeralParams,
    banks: dict[tuple[bool, int], TemplateBank],
    blur_index: int,
    search_scale: float = 1.0,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Best correlation of each value, the patch contrast and the disc offset, per disc.

    ``grey``: (H, W) uint8 canvas; ``centres``: (N, 2) predicted disc centres in its pixels;
    ``up``: (N,) bool cell orientation; ``scale``: normalised px per canvas px;
    ``search_scale``: the disc looked for within that share of ``search_units``' radius
    (normalised px). Returns scores (N, 6) float64 in [-1, 1], the relative contrast (N,)
    of the matched patch (std over mean grey) and the offset (N, 2) (dx, dy) of the disc
    found from the predicted centre, in normalised px.
    """
    rn = params.norm_radius_px
    # normalised px (disc radius = 0.125 unit)
    search = params.search_units / 0.125 * rn * search_scale
    ring = ring_kernel(params)
    m_half = math.ceil(params.match_r * rn)
    s = params.shift_px
    half = math.floor(search) + max(ring.shape[0] // 2, m_half + s) + 1
    side = 2 * half + 1
    n = len(centres)
    scores = np.zeros((n, 6))
    contrasts = np.zeros(n)
    offsets = np.zeros((n, 2))
    if n == 0:
        return scores, contrasts, offsets
    windows = disc_windows(grey, centres, scale, half, params.canvas_blur_px)
    found = find_discs(windows, ring, search)
    offsets[:] = found
    # Each disc's patches at every shift, gathered at once from the stacked windows: rows
    # (cells * shifts, P), the up cells' first, laid out pixel-major (the transpose of a C
    # array) as the per-window masked views were, so that each row sums in the same order.
    up = np.asarray(up, dtype=bool)
    cells = {True: np.flatnonzero(up), False: np.flatnonzero(~up)}
    order = np.concatenate([cells[True], cells[False]])
    centre = order * side * side + (half + found[order, 1]) * side + (half + found[order, 0])
    shifts = _patch_offsets(params, side)
    n_shift = shifts.shape[1]
    patches = windows.reshape(-1)[shifts[:, None, :] + centre[None, :, None]]
    unit, contrast = normalise_rows(patches.reshape(len(shifts), -1).T)
    start = 0
    for orient in (True, False):
        idx = cells[orient]
        if not len(idx):
            continue
        bank = banks[(orient, blur_index)]
        rows = slice(start * n_shift, (start + len(idx)) * n_shift)
        start += len(idx)
        corr = unit[rows] @ bank.vectors.T  # (cells * shifts, 6 * K)
        best = corr.reshape(len(idx), n_shift, -1).max(axis=1)  # over shifts
        scores[idx] = best.reshape(len(idx), 6, bank.per_value).max(axis=2)
        contrasts[idx] = contrast[rows].reshape(len(idx), n_shift).mean(axis=1)
    return scores, contrasts, offsets


def ramp(x: FloatArray, lo: float, hi: float) -> FloatArray:
    """0 below ``lo``, 1 above ``hi``, linear between."""
    return np.clip((x - lo) / (hi - lo), 0.0, 1.0)


def legibility(scores: FloatArray, contrast: FloatArray, params: NumeralParams) -> FloatArray:
    """(N, 6) correlations and (N,) patch contrasts -> (N,) how clearly each shows a
    numeral: 1 from ``corr_good`` and ``contrast_good`` up, 0 from ``corr_floor`` or
    ``contrast_floor`` down (a disc without a numeral, skin, a blank surface)."""
    return np.asarray(
        ramp(scores.max(axis=1), params.corr_floor, params.corr_good)
        * ramp(contrast, params.contrast_floor, params.contrast_good),
        dtype=np.float64,
    )


def scores_to_costs(scores: FloatArray, contrast: FloatArray, params: NumeralParams) -> FloatArray:
    """(N, 6) correlations and (N,) patch contrasts -> (N, 6) costs.

    0 for the best value and about 1 for a clear runner-up, scaled down to flat with the
    numeral's :func:`legibility`.
    """
    best = scores.max(axis=1, keepdims=True)
    gap = np.minimum((best - scores) / params.gap_scale, params.cost_cap)
    return np.asarray(legibility(scores, contrast, params)[:, None] * gap, dtype=np.float64)


class NumeralReader:
    """Holds the digit templates; reads the value of listed cells' discs."""

    def __init__(self, params: NumeralParams | None = None) -> None:
        self.params = params or default_params()
        self.banks = _shared_banks(self.params) if params is None else build_banks(self.params)

    def blur_index(self, scale: float) -> int:
        """Template blur matching a canvas upsampled by ``scale`` (normalised px per px)."""
        want = math.hypot(0.6 * scale, self.params.canvas_blur_px)
        blurs = np.array(self.params.template_blur_px)
        return int(np.argmin(np.abs(blurs - want)))

    def size_of(self, height: float, disc_radius: float) -> float:
        """How many times as big as a tile's numeral one ``height`` tall is (board
        units; the templates' smaller digit height, in disc radii, is a tile's).

        >>> round(NumeralReader().size_of(0.45, 0.125), 2)
        3.27
        """
        return height / (disc_radius * min(self.params.digit_height_r))

    def scores(
        self,
        canvas_bgr: NDArray[np.uint8],
        cells: list[int],
        ppu: int,
        cfg: ReaderConfig,
        size: float = 1.0,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """For the listed cells: best correlation (N, 6) per value, relative patch contrast
        (N,), and where the disc was found (N, 2), board units from the cell centroid (a
        per-cell lattice error signal; meaningful where the contrast is high). ``size``: a
        numeral that many times as big as a tile's (a bonus cell's). A bonus cell's
        numeral is printed where the board's design puts it, as sure as the lattice: it is
        looked for no farther from there than a tile's disc (``search_units`` in board
        units), not that far times its size, which reaches the tiles beside it (their
        discs and edges draw the ring's match away)."""
        idx, centres, scale = self._discs_on(cells, ppu, cfg, size)
        grey = grey_of(canvas_bgr)
        up = UP[idx]
        scores, contrast, offsets = read_scores(
            grey,
            centres,
            up,
            scale,
            self.params,
            self.banks,
            self.blur_index(scale),
            search_scale=1.0 / size,
        )
        return scores, contrast, offsets / (scale * ppu)

    def _discs_on(
        self, cells: list[int], ppu: int, cfg: ReaderConfig, size: float = 1.0
    ) -> tuple[NDArray[np.int64], FloatArray, float]:
        """The listed cells (N,), their discs' nominal centres (N, 2) on a ``Canvas(ppu)``,
        and the normalised px per canvas px of a numeral ``size`` times a tile's."""
        idx = np.asarray(cells, dtype=np.int64)
        scale = self.params.norm_radius_px / (cfg.disc_radius * ppu * size)
        return idx, Canvas(ppu).to_canvas(CENTROIDS[idx]), scale

    def far_discs(
        self,
        canvas_bgr: NDArray[np.uint8],
        cells: list[int],
        ppu: int,
        cfg: ReaderConfig,
        search_units: float,
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """Where the listed cells' discs are when looked for within ``search_units`` (wider
        than a numeral's own search), (N, 2) board units from their centroids, and whether
        a numeral reads clearly there (N,) (a disc, not some other ring-like spot)."""
        params = self.params
        idx, centres, scale = self._discs_on(cells, ppu, cfg)
        search = search_units * ppu * scale  # normalised px
        ring = ring_kernel(params)
        half = math.floor(search) + ring.shape[0] // 2 + 1
        grey = grey_of(canvas_bgr)
        windows = disc_windows(grey, centres, scale, half, params.canvas_blur_px)
        far = find_discs(windows, ring, search) / scale  # canvas px
        scores, contrast, near = read_scores(
            grey, centres + far, UP[idx], scale, params, self.banks, self.blur_index(scale)
        )
        offsets = (far + near / scale) / ppu
        return offsets, legibility(scores, contrast, params) >= 1.0

    def costs(
        self, canvas_bgr: NDArray[np.uint8], cells: list[int], ppu: int, cfg: ReaderConfig
    ) -> NDArray[np.float64] | None:
        """(len(cells), 6) float64 cost of values 1..6 per listed cell, lower = more likely.

        ``canvas_bgr``: (H, W, 3) uint8, the board rectified by ``Canvas(ppu)``. A clear
        numeral has a gap of about 1 between its best and next value; an unreadable one has
        nearly flat costs. None when no cell is listed.
        """
        if not cells:
            return None
        scores, contrast, _ = self.scores(canvas_bgr, cells, ppu, cfg)
        return scores_to_costs(scores, contrast, self.params)
