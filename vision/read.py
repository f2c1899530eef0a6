"""The board reader: one photo in, the board as it is out.

A frame flows one way: locate the outline -> fit the lattice homography -> rectify ->
measure the cells -> normalise colours against the board itself -> identify tiles with
the tile set's constraints. :class:`BoardReader` holds the loaded resources (config,
calibration, templates); :func:`read_board` is the one-call form.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine import SPECTRANGLE36, Board, Colour, Placement, Tile
from engine.colours import EDGE_ORDER
from vision.cells import (
    EDGE_SIDES,
    HALF_SECTOR_INRADIUS,
    IntArray,
    PackedZones,
    band_sides,
    cell_segments,
    moved_segments,
    overhung,
    packed_zones,
    percentiles,
    pixels,
    ridge_samples,
    segment_medians,
    segment_percentiles,
    sort_keys,
    zones,
)
from vision.colour import (
    NOMINAL_SRGB,
    TILE_COLOURS,
    bgr_to_linear_rgb,
    colour_distance,
    dark_balanced,
    linear_rgb_to_lab,
    nominal_linear,
    normalise,
    prototype_lab,
    prototype_linear,
    white_balanced,
)
from vision.config import ReaderConfig, default_config
from vision.errors import BoardNotFoundError, UnreadableImageError
from vision.identify import (
    TileGuess,
    identify,
    numeral_trust,
    numerals_told,
    read_numerals,
    set_tiles,
)
from vision.locate import (
    Outline,
    Outlines,
    lifted_veil,
    outline_candidates,
    table_looks_dark,
    triangle_area,
)
from vision.model import (
    BONUS,
    CENTROIDS,
    FACING,
    GEOMETRY,
    NEIGHBOUR_HALF,
    Canvas,
    FloatArray,
    canonical_order,
    outer_corners,
    project,
)
from vision.numerals import NumeralReader, scores_to_costs
from vision.rectify import (
    LATTICE_SHIFTS,
    BoardFit,
    Lens,
    Pyramid,
    anisotropy,
    colourful_value,
    dark_table_band,
    fit_board,
    fit_with_lens,
    lattice_scores,
    lowered,
    on_holes,
    peg_chance_share,
    peg_track,
    perspective_limit,
    plastic_distance,
    plausible,
    px_per_unit,
    relowered,
    rib_colour,
    scorer,
    sides_moved,
    tile_height_told,
    validity,
    value_channel,
    veil_lift,
    veil_lifted,
    warp_to_canvas,
)
from vision.seeds import seeded_outlines

log = logging.getLogger(__name__)

EMPTY, TILE, UNKNOWN = "empty", "tile", "unknown"
OUTSIDE = "outside the image"
GLARE = "glare washes the colours out"
#: A cell read only with a lamp's glare taken off the board (on the fit finally read
#: alone: :meth:`BoardReader._glare_rescued`).
GLARE_EMPTY = "empty under glare: its frame and window show with the glare taken off"
GLARE_TILE = "read with the glare taken off"
IN_SHADE = "empty in a shadow: its frame and window darker than the plastic around"
COVERED = "covered or unclear"
NO_TILE = "does not look like a tile: no clear disc or colours (covered?)"
BESIDE_COVERED = "unsure, beside a cell something covers (a hand?)"
RIDGE_HIDDEN = "an edge shows no ridge: something over it (a hand? a held tile?)"
DARK_TABLE = "the table looks as dark as the board's plastic: a lighter cloth under it helps"
DARK_UNCLEAR = f"too few tiles and lattice points show the board ({DARK_TABLE})"
DARK_NO_HOLES = (
    f"the lattice found puts no side of the board's band on its row of peg holes ({DARK_TABLE})"
)
PART_OTHER = "part of a sector shows another colour: something over it (a hand? a held tile?)"
#: What a cell shows of something over it (a hand, a sleeve): no veil of light, which a
#: tile is not read through.
SOMETHING_OVER = (BESIDE_COVERED, RIDGE_HIDDEN, PART_OTHER)
#: The end of the note of a cell that looks like a tile read (better) on another cell.
ELSEWHERE = "which is on another cell (covered?)"
#: The set's one joker.
_JOKER = next(t for t in set_tiles()[0] if t.is_joker)
#: A pale patch read as the joker while the joker lies on another cell: a palm or a sleeve
#: (white has no hue to tell it by), so a cell that covers (:func:`beside_covered`).
JOKER_ELSEWHERE = f"looks like {_JOKER}, {ELSEWHERE}"
#: The start of the note of a pale patch that looks like the joker, which no cell holds:
#: the joker was refused here (:func:`joker_doubt`'s reason follows). It covers, as one
#: that looks like the joker read elsewhere does.
JOKER_REFUSED = f"looks like {_JOKER}, but "
NUMERAL_DISAGREES = "numeral reads"
#: A tile candidate's note in a photo with no colour at all (a greyscale or night-mode camera).
COLOURLESS = "its colours cannot be read: no colour in the photo (a greyscale camera?)"


@dataclass(frozen=True)
class CellReading:
    """What one cell shows: ``empty``, a ``tile`` (edges as seen, value) or ``unknown``."""

    index: int
    state: str
    edges: tuple[Colour, Colour, Colour] | None = None  # left, right, base
    value: int | None = None
    confidence: float = 1.0
    note: str = ""
    #: The best readings of this cell, best first: (placement, colour cost); for a tracker
    #: that must choose among the tiles still available.
    alternatives: tuple[tuple[Placement, float], ...] = field(default=(), repr=False)

    @property
    def placement(self) -> Placement | None:
        if self.state != TILE or self.edges is None or self.value is None:
            return None
        return Placement(self.index, *self.edges, self.value)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "state": self.state}
        if self.state == TILE and self.edges is not None:
            out["value"] = self.value
            out["confidence"] = round(self.confidence, 3)
            out["edges"] = {e.value: c.value for e, c in zip(EDGE_ORDER, self.edges, strict=True)}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class BoardReading:
    """The reading of one frame."""

    found: bool
    cells: tuple[CellReading, ...] = ()
    fit: BoardFit | None = None
    reason: str = ""
    canvas_bgr: NDArray[np.uint8] | None = field(default=None, repr=False, compare=False)

    @property
    def corners(self) -> FloatArray | None:
        return None if self.fit is None else self.fit.corners

    def board(self) -> Board:
        """The tiles read, as an engine board (unknown cells left empty)."""
        board = Board.empty(SPECTRANGLE36.geometry)
        for cell in self.cells:
            p = cell.placement
            if p is not None:
                board = board.place(p)
        return board

    def to_json(self) -> dict[str, Any]:
        if not self.found or self.fit is None:
            return {"board": {"found": False, "reason": self.reason}, "cells": []}
        board = {
            "found": True,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.fit.corners],
            "residual_px": round(self.fit.residual_px, 2),
        }
        return {"board": board, "cells": [c.to_json() for c in self.cells]}

    def text(self) -> str:
        """The board as rows of fields: ``.`` empty, ``?`` unknown, ``RRY5`` a tile."""
        rows = []
        for row in SPECTRANGLE36.geometry.rows:
            fields = []
            for i in row:
                c = self.cells[i]
                p = c.placement
                fields.append(p.field() if p is not None else ("?" if c.state == UNKNOWN else "."))
            rows.append(" ".join(fields))
        width = max(len(r) for r in rows)
        return "\n".join(r.center(width).rstrip() for r in rows)


def _group_low_levels(
    rows: IntArray, cols: IntArray, groups: IntArray, value: NDArray[np.uint8]
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Per group of pixels: mean position, (group id, 30th percentile of value), size.

    Vectorised: one sort instead of a percentile call per group.
    """
    # The value is a uint8's (0..255): one integer key sorts by group, then value.
    key = sort_keys(groups.astype(np.int64) * 256 + value[rows, cols].astype(np.int64))
    g_sorted, v_sorted = key >> 8, (key & 255).astype(np.float64)
    ids, starts, counts = np.unique(g_sorted, return_index=True, return_counts=True)
    low = v_sorted[starts + (0.3 * (counts - 1)).astype(np.int64)]
    inverse = np.searchsorted(ids, groups)
    mean_r = np.bincount(inverse, weights=rows) / counts
    mean_c = np.bincount(inverse, weights=cols) / counts
    return np.stack([mean_r, mean_c], axis=1), np.stack([ids, low], axis=1), counts


def same_place(a: BoardFit, b: BoardFit, tolerance: float) -> bool:
    """Whether two fits put the playing triangle's corners within ``tolerance`` of a
    cell's side of each other, whichever corner each takes for the apex.

    >>> h = np.diag([60.0, 60.0, 1.0])
    >>> fit = BoardFit.from_homography(h)
    >>> same_place(fit, fit.moved(np.array([[1, 0, 0.2], [0, 1, 0], [0, 0, 1]])), 0.5)
    True
    >>> same_place(fit, fit.moved(np.array([[1, 0, 1.0], [0, 1, 0], [0, 0, 1]])), 0.5)
    False
    """
    side = float(np.linalg.norm(a.corners[0] - a.corners[1])) / 6.0
    gaps = [
        np.linalg.norm(np.roll(b.corners, -k, axis=0) - a.corners, axis=1).max() for k in range(3)
    ]
    return bool(min(gaps) <= tolerance * side)


def kept_located(located: BoardFit, rescaled: BoardFit, cfg: ReaderConfig) -> BoardFit:
    """The fit to read of the one ``located`` and what the band check and the rescaling
    made of it (``rescaled``): the rescaled one, but where it lies on the same place
    (within ``same_place_cells``) and the located one told the tiles' height where it did
    not.

    A lattice moved by cells and back is fitted again from a rescaled outline's corners:
    the lattice points it matches may be too few windows to tell the tiles' height. Taken
    for the board's points, the discs on the tiles' tops then pull it off.

    >>> h = np.diag([60.0, 60.0, 1.0])
    >>> told = BoardFit.from_homography(h, tile_height=0.07)
    >>> again = BoardFit.from_homography(h)
    >>> kept_located(told, again, default_config()) is told
    True
    >>> kept_located(told, again.moved(np.array([[1, 0, 1.0], [0, 1, 0], [0, 0, 1]])),
    ...              default_config()) is told
    False
    """
    prior = cfg.tile_height
    if (
        rescaled is not located
        and located.tile_height != prior
        and rescaled.tile_height == prior
        and same_place(rescaled, located, cfg.same_place_cells)
    ):
        return located
    return rescaled


def unclear_in_view(cells: Sequence[CellReading]) -> tuple[int, int]:
    """How many cells in the frame read as neither empty nor a tile, and how many cells
    are in the frame. A tile whose colours a photo without colour hides but whose numeral
    reads clearly (an unknown cell with a value) is clear: a tile is there.

    >>> unclear_in_view([CellReading(0, EMPTY), CellReading(1, UNKNOWN, note="covered"),
    ...                  CellReading(2, UNKNOWN, value=4), CellReading(3, UNKNOWN, note=OUTSIDE)])
    (1, 3)
    """
    seen = [c for c in cells if c.note != OUTSIDE]
    return sum(c.state == UNKNOWN and c.value is None for c in seen), len(seen)


def worse_after_move(
    moved: Sequence[CellReading], unmoved: Sequence[CellReading], cfg: ReaderConfig
) -> bool:
    """Whether the cells read clearly worse on a lattice the band check moved by a cell
    than where it was: more of them unclear by over ``band_move_max_unclear``, and fewer
    of them read clearly (as a tile or empty).

    A move onto a dark table beside the board loses the cells of a row that read, and
    those under a hand read unclear. A lattice moved onto the whole board from a cell
    off may bring cells that were out of the frame into it, under a hand or a sheet of
    paper over the board's edge: unclear, but no cell's reading is lost.

    >>> cells = lambda tiles, unknown, outside: (
    ...     [CellReading(i, TILE) for i in range(tiles)]
    ...     + [CellReading(i, UNKNOWN, note=COVERED) for i in range(unknown)]
    ...     + [CellReading(i, UNKNOWN, note=OUTSIDE) for i in range(outside)])
    >>> cfg = default_config()
    >>> worse_after_move(cells(10, 9, 17), cells(16, 3, 17), cfg)  # a row's tiles lost
    True
    >>> worse_after_move(cells(16, 9, 11), cells(16, 3, 17), cfg)  # more of it in view
    False
    """
    after, _ = unclear_in_view(moved)
    before, _ = unclear_in_view(unmoved)
    clear_after = sum(c.state in (TILE, EMPTY) for c in moved)
    clear_before = sum(c.state in (TILE, EMPTY) for c in unmoved)
    return after > before + cfg.band_move_max_unclear and clear_after < clear_before


def _scaled_chroma(lab: FloatArray, chroma: float) -> FloatArray:
    """Lab colours (..., 3) with their chroma (a*, b*) scaled by ``chroma``."""
    if chroma == 1.0:
        return lab
    out = np.array(lab, dtype=np.float64)
    out[..., 1:] *= chroma
    return out


def _sample_stride(ppu: int, cfg: ReaderConfig) -> int:
    """Every how many pixels to sample a zone for its statistics: the same density per
    board unit at any canvas size (all of them at the smallest)."""
    return max(1, round((ppu / cfg.read_ppu_min) ** 2))


def _halve(image: NDArray[Any], canvas: Canvas) -> NDArray[Any]:
    """A canvas image at half its ppu, pixel-exact: 2x2 blocks averaged (H/2, W/2)."""
    h, w = image.shape[:2]
    pad_h, pad_w = 2 * canvas.height - h, 2 * canvas.width - w
    if pad_h > 0 or pad_w > 0:
        image = cv2.copyMakeBorder(image, 0, max(pad_h, 0), 0, max(pad_w, 0), cv2.BORDER_REPLICATE)
    image = image[: 2 * canvas.height, : 2 * canvas.width]
    return cv2.resize(image, (canvas.width, canvas.height), interpolation=cv2.INTER_AREA)


def check_frame(frame_bgr: Any) -> NDArray[np.uint8]:
    """Validate a frame: (H, W, 3) uint8 of a usable size."""
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.dtype != np.uint8:
        raise UnreadableImageError("a frame is a uint8 array", type(frame_bgr).__name__)
    if frame_bgr.ndim == 2:
        frame_bgr = cv2.cvtColor(frame_bgr, cv2.COLOR_GRAY2BGR)
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] not in (3, 4):
        raise UnreadableImageError(f"a frame is (H, W, 3), not {frame_bgr.shape}", frame_bgr.shape)
    if frame_bgr.shape[2] == 4:
        frame_bgr = cv2.cvtColor(frame_bgr, cv2.COLOR_BGRA2BGR)
    if min(frame_bgr.shape[:2]) < 64:
        raise UnreadableImageError(
            f"the image is too small: {frame_bgr.shape[:2]}", frame_bgr.shape
        )
    return frame_bgr


def load_image(path: str) -> NDArray[np.uint8]:
    """Read an image file as BGR; :class:`UnreadableImageError` when it is not one."""
    if os.path.isdir(path):
        raise UnreadableImageError(
            f"cannot read {path}: a folder, not an image (give the images in it:"
            f" {os.path.join(path, '*.jpg')})",
            path,
        )
    data = np.fromfile(path, dtype=np.uint8) if os.path.isfile(path) else None
    if data is None or data.size == 0:
        raise UnreadableImageError(f"cannot read {path}: no such file or empty", path)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise UnreadableImageError(f"cannot read {path}: {_not_an_image(data)}", path)
    return check_frame(image)


#: The brands of an ISO media file that hold HEIC or AVIF stills (the box after "ftyp").
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis"}


def _not_an_image(data: NDArray[np.uint8]) -> str:
    """What a file OpenCV cannot decode seems to be, from its first bytes, and the way
    out: a phone's HEIC or AVIF photo, a video, or just "not an image"."""
    head = data[:12].tobytes()
    if head[4:8] == b"ftyp":
        if head[8:12] in _HEIF_BRANDS:
            return (
                "a HEIC or AVIF photo (as phones save them), which OpenCV does not open:"
                " save or export it as JPEG or PNG"
            )
        return "a video, not a photo: spectrangle replay FILE follows a filmed game"
    if head[:4] == b"\x1aE\xdf\xa3" or (head[:4] == b"RIFF" and head[8:12] == b"AVI "):
        return "a video, not a photo: spectrangle replay FILE follows a filmed game"
    return "not an image"


@dataclass(frozen=True)
class _Darkness:
    """How far pixels are from the plastic's black where they lie, 0 = plastic: the
    plastic's colour ``black_srgb`` (3,) BGR times the light ``field`` there, over the
    ``span`` from it to the bright things on the board."""

    black_srgb: FloatArray
    field: Callable[[tuple[IntArray, IntArray]], FloatArray]
    span: float

    def __call__(
        self, px: NDArray[np.generic], where: tuple[IntArray, IntArray], *, shade: bool = False
    ) -> FloatArray:
        """(N,) for pixels (N, 3) BGR at canvas ``where`` (rows, cols). ``shade``: how far
        they are brighter than the plastic there, pixels darker than it at 0 (a shadow the
        light field does not follow, a hand's, darkens the plastic below it)."""
        local = self.black_srgb * self.field(where)[:, None]
        d = np.asarray(px, dtype=np.float64) - local
        d = np.maximum(d, 0.0) if shade else np.abs(d)
        # (the largest of three columns: faster than a reduction over a short axis)
        return np.maximum(np.maximum(d[:, 0], d[:, 1]), d[:, 2]) / self.span


@dataclass(frozen=True)
class _BandView:
    """A view of the board with a cell's margin more (:meth:`BoardReader._band_view`):
    its brightness ``value`` and distance from the plastic ``plastic`` (H, W) float32,
    its validity ``valid`` (H, W) uint8, and the ``percentile`` of a band side's strip
    that is its level."""

    value: NDArray[np.float32]
    plastic: NDArray[np.float32]
    valid: NDArray[np.uint8]
    percentile: float
    also: NDArray[np.float32] | None = None  # a second view the cells are matched in
    signless: bool = False  # a window matches ``also`` darker than its frame as well


@dataclass(frozen=True)
class _Sampled:
    """The first half of a reading (:meth:`BoardReader._sample_cells`): the rectified
    canvas, each cell's reading so far, and for the tile candidates (their cell indices)
    what naming them needs."""

    canvas_bgr: NDArray[np.uint8]
    #: the canvas of the tiles' tops (``canvas_bgr`` where tiles are flat): what the tile
    #: candidates' colours, discs and numerals are read on
    tiles_bgr: NDArray[np.uint8]
    valid: NDArray[np.uint8]  # the canvas's pixels in the frame, 255
    ppu: int  # the canvas's pixels per unit
    readings: list[CellReading]
    darkness: _Darkness
    sector_levels: FloatArray  # (36, 3): each sector's darkness
    clear_windows: NDArray[np.bool_]  # (36,)
    black: FloatArray  # (3,) the plastic, linear RGB
    candidates: list[int]
    weak: list[bool]  # a frame partly dark
    glares: list[float]  # light reflected off the plastic there
    sector_lin: list[FloatArray]  # (3, 3) linear RGB each
    sector_srgb: FloatArray  # (K, 3, 3) the same as seen, sRGB in [0, 1] (BGR), no glare taken
    flank_lin: FloatArray  # (K, 3, 2, 3) each sector's two flank patches, as sector_lin
    disc_lin: list[FloatArray]  # the disc's pixels (N, 3) each
    numeral_scores: tuple[FloatArray, FloatArray]  # the numerals' scores and contrast
    #: what a bonus cell's see-through numeral is read on, and the bonus cells to look at
    #: for it (:meth:`BoardReader._bonus_told`)
    bonus_bgr: NDArray[np.uint8]
    doubtful: NDArray[np.int64]


#: What :meth:`BoardReader._sample_cells` leaves in a reading's details.
_SAMPLE_DETAILS = ("windows", "plain_windows", "clear_windows", "bonus_seen", "canvas")


def _with_bonus(sampled: _Sampled, details: dict[str, Any]) -> tuple[_Sampled, dict[str, Any]]:
    """A reading sampled without the bonus numerals (``bonus=False``) as it is sampled with
    them: the bonus cells their big numerals tell empty (``details["bonus_seen"]``) read
    empty, and no longer tile candidates; and the details the sampling leaves, so
    restricted (nothing else differs, so the frame is not sampled again)."""
    seen = np.asarray(details["bonus_seen"], dtype=bool)
    readings = [CellReading(r.index, EMPTY) if seen[r.index] else r for r in sampled.readings]
    keep = [k for k, i in enumerate(sampled.candidates) if not seen[i]]
    rows = np.asarray(keep, dtype=np.int64)
    scores, contrast = sampled.numeral_scores
    told = replace(
        sampled,
        readings=readings,
        candidates=[sampled.candidates[k] for k in keep],
        weak=[sampled.weak[k] for k in keep],
        glares=[sampled.glares[k] for k in keep],
        sector_lin=[sampled.sector_lin[k] for k in keep],
        sector_srgb=sampled.sector_srgb[rows],
        flank_lin=sampled.flank_lin[rows],
        disc_lin=[sampled.disc_lin[k] for k in keep],
        numeral_scores=(scores[rows], contrast[rows]) if keep else (np.zeros(0), np.zeros(0)),
    )
    out = {key: details[key] for key in _SAMPLE_DETAILS if key in details}
    out["candidates"] = told.candidates
    if not keep:
        out.pop("canvas", None)
    elif "disc_offsets" in details:
        out["disc_offsets"] = details["disc_offsets"][rows]
        out["disc_contrast"] = details["disc_contrast"][rows]
    return told, out


@dataclass(frozen=True)
class _Judged:
    """The tile candidates named and their discs judged (:meth:`BoardReader._judge`)."""

    sectors: FloatArray  # (K, 3, 3) normalised linear RGB
    labs: FloatArray  # (K, 3, 3) the same, Lab
    guesses: list[TileGuess]
    first: list[TileGuess]  # against the printed palette alone
    seen_palette: dict[Colour, FloatArray] | None
    contrasts: FloatArray  # (K,)
    navy: FloatArray  # (K, S)
    fit_share: int
    plain: list[int]  # the tiles plain from their colours or numeral
    trust: float  # how far the photo's numerals are trusted (:func:`numeral_trust`)


@dataclass(frozen=True)
class DiscStats:
    """Order statistics of the candidates' disc pixels, all discs at once.

    ``counts`` (K,) pixels per disc; ``top`` (K, 3) the median of each disc's whitest
    tenth, its numeral's white ("whitest" by the weakest channel, as a yellow or red
    sector caught at the disc's edge can be as bright as the numeral in its strongest
    channel, never in all); ``whitest`` (M, 3) those pixels of every disc and
    ``whitest_disc`` (M,) their disc; ``levels`` (K, 3) the 15th, 40th and 92nd
    percentiles of the strongest channel; ``dark`` (K, 3) the median of the pixels at or
    below the 40th, the navy's.
    """

    counts: IntArray
    top: FloatArray
    whitest: FloatArray
    whitest_disc: IntArray
    levels: FloatArray
    dark: FloatArray


def disc_stats(discs: list[FloatArray]) -> DiscStats:
    """:class:`DiscStats` of discs (each (N_k, 3) linear RGB, none empty)."""
    counts = np.array([len(d) for d in discs], dtype=np.int64)
    px = np.concatenate(discs)
    starts = np.r_[0, np.cumsum(counts)[:-1]].astype(np.int64)
    disc_of = np.repeat(np.arange(len(discs)), counts)
    weakest = px.min(axis=1)
    white_cut = segment_percentiles(weakest, starts, [90])[:, 0]
    whitest = weakest >= white_cut[disc_of]
    strongest = px.max(axis=1)
    levels = segment_percentiles(strongest, starts, [15, 40, 92])
    darkest = strongest <= levels[disc_of, 1]

    def medians(keep: NDArray[np.bool_]) -> FloatArray:
        n = np.bincount(disc_of[keep], minlength=len(discs))
        return segment_medians(px[keep], np.r_[0, np.cumsum(n)[:-1]].astype(np.int64))

    return DiscStats(
        counts, medians(whitest), px[whitest], disc_of[whitest], levels, medians(darkest)
    )


def colour_spread(srgb: FloatArray) -> float:
    """How much colour samples (N, 3) sRGB in [0, 1] show: past one gain per channel (a
    tinted camera), each sample's (max - min) / max, the 90th percentile. 0 in a
    greyscale photo, a few hundredths for a single tint through JPEG; the tiles' sectors,
    the board's brown-black plastic or a table give tenths (pale hands and glare alone,
    0.06 or more). Clipped and black samples say nothing (a clipped channel loses the
    tint's ratio): 1 when none is left.

    >>> colour_spread(np.array([[0.2, 0.2, 0.2], [0.6, 0.6, 0.6]]))
    0.0
    >>> tinted = np.array([[0.2, 0.3, 0.4], [0.4, 0.6, 0.8]])
    >>> round(colour_spread(tinted), 6)
    0.0
    >>> colour_spread(np.array([[0.8, 0.2, 0.1], [0.1, 0.3, 0.7], [0.2, 0.5, 0.2]])) > 0.5
    True
    """
    high = srgb.max(axis=1)
    srgb = srgb[(high > 0.05) & (high < 0.98)]
    if not len(srgb):
        return 1.0
    gain = np.median(srgb, axis=0)
    even = srgb / np.maximum(gain / max(float(gain.mean()), 1e-6), 1e-6)
    high = even.max(axis=1)
    rel = (high - even.min(axis=1)) / np.maximum(high, 1e-6)
    return float(percentiles(rel, [90])[0])


def exposure_problem(frame_bgr: NDArray[np.uint8], cfg: ReaderConfig) -> str:
    """Why a photo (H, W, 3) uint8 BGR shows almost nothing, or "": almost all white
    (every channel at ``clipped_level`` or brighter on ``clipped_share`` of it) or black
    (no channel above ``black_level`` on ``black_share`` of it). Said with "no board
    found", so that the player fixes the light or the camera, not the board. (A white
    table burnt out around a board is no such photo: its board still shows.)

    >>> cfg = default_config()
    >>> exposure_problem(np.full((90, 160, 3), 255, np.uint8), cfg)
    'the photo is almost all white (overexposed: too much light, or the camera set too bright)'
    >>> exposure_problem(np.zeros((90, 160, 3), np.uint8), cfg)
    'the photo is almost all black (the lens covered, or too little light)'
    >>> exposure_problem(np.full((90, 160, 3), 120, np.uint8), cfg)
    ''
    """
    sample = frame_bgr[::4, ::4].reshape(-1, 3)
    if np.mean(sample.min(axis=1) >= cfg.clipped_level) >= cfg.clipped_share:
        return (
            "the photo is almost all white (overexposed: too much light, or the camera set"
            " too bright)"
        )
    if np.mean(sample.max(axis=1) <= cfg.black_level) >= cfg.black_share:
        return "the photo is almost all black (the lens covered, or too little light)"
    return ""


def hued_as_the_plastic(white: FloatArray, black: FloatArray) -> FloatArray:
    """A white (3,) linear RGB of few numerals given the hue of the plastic's ``black``
    (3,), at its own strongest channel's level; as it is where the black has a channel
    at zero (nothing to tell a hue by).

    The board's plastic is a neutral dark grey, lit by the same light as the tiles: its
    hue is the light's. One or two numerals, small and blurred, mix their navy disc into
    their whitest pixels, and a white so tinted blue takes the blue out of every colour
    (a lone first tile on an empty board reads as no tile). Many numerals' white is
    their own: the palette's gains take out what tint is left.

    >>> hued_as_the_plastic(np.array([0.11, 0.17, 0.32]), np.array([0.013, 0.0137, 0.0137]))
    array([0.30364964, 0.32      , 0.32      ])
    >>> hued_as_the_plastic(np.array([0.5, 0.4, 0.3]), np.array([0.0, 0.01, 0.01]))
    array([0.5, 0.4, 0.3])
    """
    if black.min() <= 0:
        return white
    return black / black.max() * white.max()  # type: ignore[no-any-return]


def numeral_agrees(guess: TileGuess, cfg: ReaderConfig) -> bool:
    """Whether the numeral reads the tile's own value and no other tile's colours come
    within ``vouched_min_margin``."""
    return (
        guess.numeral == guess.tile.value and guess.runner_up - guess.cost >= cfg.vouched_min_margin
    )


def vouched(guess: TileGuess, cfg: ReaderConfig) -> bool:
    """Whether a tile's numeral vouches for it (:func:`numeral_agrees`). A numeral is
    independent evidence: the colours may then be further off (blur, a shadow). Never
    the joker: white has no hue to check (a sleeve, a palm)."""
    return not guess.tile.is_joker and numeral_agrees(guess, cfg)


def tile_doubt(
    guess: TileGuess,
    contrast: float,
    navy: float,
    weak: bool,
    glared: bool,
    cfg: ReaderConfig,
    *,
    lightness: float,
    unread_joker: bool = False,
    held: Collection[Tile] | None = None,
) -> str | None:
    """Why a tile candidate's reading is not to be trusted, or None when it is.

    ``contrast`` and ``navy`` are its disc's (:meth:`BoardReader._discs`); ``weak`` a frame
    partly dark (a tile in shadow, or a hand's edge); ``glared`` light reflected off it
    above the glare limit; ``lightness`` its sectors' mean L* against the white of the
    numerals there (100: as white); ``unread_joker`` whether a joker whose numeral does not
    read may be told by its disc and whiteness alone (for the guess that is read, not
    for another judged beside it). ``held``: the tiles the cells were named (None: the
    tile it looks like is held elsewhere). An empty string: unknown, keeping the note
    "covered or unclear".
    """
    # What glare leaves of the colours (the plastic's reflection taken away; the tile may
    # be glossier) is trusted only where they alone make the tile plain, and its own
    # numeral agrees as no other tile's does, or, where blur leaves the numeral unread,
    # no other tile's colours come as close (by ``vouched_min_margin``).
    clear = guess.runner_up - guess.cost >= cfg.vouched_min_margin
    if glared and not (
        guess.cost <= cfg.plain_max_cost
        and (numeral_agrees(guess, cfg) or (guess.numeral is None and clear))
    ):
        return GLARE
    if guess.runner_up < guess.cost - cfg.forced_gap:
        # Each tile exists once: named only because the tile it looks like is read
        # (better) on another cell. One of the two is not what it looks like, most often
        # a hand or a sleeve here.
        alike = guess.alternatives[0][0] if guess.alternatives else None
        if alike is not None and alike.is_joker and held is not None and alike not in held:
            # No cell holds the joker: it was refused here, not read elsewhere.
            why = joker_doubt(guess.numeral, navy, lightness, cfg, unread_joker=unread_joker)
            if why is not None:
                return JOKER_REFUSED + why
        return f"looks like {alike}, {ELSEWHERE}"
    sure = vouched(guess, cfg)
    doubt_limit = cfg.vouched_doubt_limit if sure else cfg.tile_doubt_limit
    edge_limit = cfg.vouched_edge_limit if sure else cfg.edge_reject_distance
    if (
        contrast < cfg.disc_min_contrast
        or guess.cost + cfg.disc_navy_weight * navy > doubt_limit
        or guess.worst_edge > edge_limit
    ):
        return NO_TILE
    # A frame partly dark (a hand's edge, a shadow) asks for a clear disc and the value
    # read; a faint disc (blur, the shadow) will do where the numeral vouches.
    if (
        weak
        and not sure
        and (contrast < cfg.weak_tile_min_contrast or guess.numeral != guess.tile.value)
    ):
        return ""
    if guess.tile.is_joker:
        joker = joker_doubt(guess.numeral, navy, lightness, cfg, unread_joker=unread_joker)
        if joker is not None:
            return joker
    if navy > cfg.disc_max_navy and not sure:
        # Every tile shows its navy disc: one not navy at all is covered (a fingertip)
        # or no tile, unless the numeral read there vouches for the tile.
        return NO_TILE
    if guess.cost > cfg.colour_reject_distance:
        return "colours unlike any tile (covered?)"
    return None


def joker_doubt(
    numeral: int | None,
    navy: float,
    lightness: float,
    cfg: ReaderConfig,
    *,
    unread_joker: bool = True,
) -> str | None:
    """Why a cell read as the joker is not it, or None: its ``numeral`` read (None:
    unread), its disc's ``navy`` distance and its sectors' mean L* ``lightness`` against
    the numerals' white; ``unread_joker`` as :func:`tile_doubt`'s. White has no hue to
    check, so the rest must be the joker's.

    >>> cfg = default_config()
    >>> joker_doubt(1, 10.0, 95.0, cfg) is None
    True
    >>> joker_doubt(None, 60.0, 95.0, cfg)[:5], joker_doubt(1, 60.0, 95.0, cfg)[:4]
    ('white', 'pale')
    """
    if numeral != 1:
        # All white and no readable 1: a white table through a window, or glare. But a
        # numeral too blurred or small to read (a 640x480 photo) says no other value:
        # sectors as white as the numerals' white around a disc as navy as a tile's are
        # the joker's; neither the table nor glare shows that disc.
        told = (
            unread_joker
            and numeral is None
            and navy <= cfg.sure_disc_max_navy
            and lightness >= cfg.joker_unread_min_lightness
        )
        if not told:
            return "white without the joker's numeral (the table? glare?)"
    if navy > cfg.disc_max_navy or lightness < cfg.joker_min_lightness:
        # Its sectors are the numerals' white, around the same navy disc as every tile's.
        # A palm or a pale sleeve is neither.
        return "pale, but not the joker's white around a navy disc (a hand? a sleeve?)"
    return None


def _translation(shift: FloatArray) -> FloatArray:
    """The 3x3 board-plane move by ``shift`` (2,) board units."""
    return np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0.0, 0.0, 1.0]])


def band_shift_gain(
    here: tuple[FloatArray, float, int],
    there: tuple[FloatArray, float, int],
    cfg: ReaderConfig,
) -> float:
    """How much better the lattice fits moved (``there``) than as it is (``here``),
    each the (band levels (3,), cells' evidence, cells seen) of
    :meth:`BoardReader._shifted`.

    The cells' evidence (per cell in view both ways), and the band along each side:
    darker (more like the plastic) is better where the side is seen both ways, up to
    ``band_covered_level`` (a side
    under a hand is no plastic, whether the hand covers more or less of it); a side
    seen one way only (the other is out of the frame) counts only as the evidence it
    gives when it is on plastic, so that a side under a hand is not escaped by moving
    it out of the frame, nor a side on the plastic lost so.
    """
    (band_here, cells_here, n_here), (band_there, cells_there, n_there) = here, there
    seen_here, seen_there = ~np.isnan(band_here), ~np.isnan(band_there)
    both = seen_here & seen_there
    top = cfg.band_covered_level  # past it, not plastic however bright (a hand)
    darker = float(np.sum(np.minimum(band_here[both], top) - np.minimum(band_there[both], top)))
    lost = float(np.sum(np.maximum(cfg.band_bright_level - band_here[seen_here & ~both], 0)))
    found = float(np.sum(np.maximum(cfg.band_bright_level - band_there[seen_there & ~both], 0)))
    cells = (cells_there - cells_here) / max(min(n_here, n_there), 1)
    return cells + cfg.band_weight * (darker + found - lost)


def holes_as_clear(
    here: FloatArray, there: FloatArray, sides: NDArray[np.bool_] | None = None
) -> bool:
    """Whether a lattice moved by whole cells shows the peg holes' row at least as
    clearly, in all, as where it was: :func:`vision.rectify.peg_track`'s shares (3,) of
    both, over the ``sides`` (3,) bool (by default all; a side along a move stays on its
    own line, its share nearly the same) seen on both.

    >>> holes_as_clear(np.array([0.4, 0.1, np.nan]), np.array([0.3, 0.3, 0.5]))
    True
    >>> holes_as_clear(np.array([0.4, 0.1, 0.2]), np.array([0.3, 0.3, 0.1]),
    ...                np.array([True, False, True]))
    False
    """
    both = np.isfinite(here) & np.isfinite(there)
    if sides is not None:
        both &= sides
    return float((there[both] - here[both]).sum()) >= 0


def _per_cell(band_and_cells: tuple[FloatArray, float, int]) -> float:
    """The cells' evidence per cell in view, of :meth:`BoardReader._band_and_cells`."""
    _, evidence, seen = band_and_cells
    return evidence / max(seen, 1)


def hidden_ridges(
    readings: list[CellReading],
    ridges: FloatArray,
    sectors: FloatArray,
    cfg: ReaderConfig,
    band_plastic: NDArray[np.bool_] | None = None,
) -> list[CellReading]:
    """The readings with the tiles that show no ridge along an edge made unknown.

    A tile fills its cell; a thin ridge of the board's black plastic runs between two
    cells, and an empty cell's frame or the border band is as dark beyond it. An edge as
    bright as the tile's own sector beside it (``ridge_hidden_min`` of it, plus the
    photo's noise ``ridge_noise``) has something over it: fingers, or a tile held above
    the board, whose colours are then read. Only in a photo whose ridges show (their
    median between two tiles at most ``ridge_seen_max`` of the sectors, on
    ``ridge_seen_min_edges`` at least): blur may wash them all out. In any photo, an
    edge brighter than the sectors on both its sides (``ridge_over_both_min`` of the
    brighter: above it by more than sensor noise and JPEG ringing add) has something
    over it: blur mixes a ridge with what lies on its two sides and never lifts it above
    both (fingertips over one sector of a small, blurred board). The first test is made
    only beside sectors ``ridge_min_sector`` or more from the plastic: a ridge can
    hardly show against a sector about as dark.

    ``ridges`` and ``sectors`` (36, 3) in EDGE_ORDER: how far each edge's ridge and the
    sector beside it are from the plastic's black (0: plastic; an empty cell's
    "sectors" are its window's). ``band_plastic`` (3,): the sides of the board whose
    band shows its plastic along most of their length; the tiles' edges on the others
    (paper or a printed band on it, a sleeve along it) are not judged, nor any on the
    board's edge without it.

    >>> cfg = default_config()
    >>> cells = [CellReading(i, TILE if i < 9 else EMPTY) for i in range(36)]
    >>> ridges, sectors = np.full((36, 3), 0.2), np.full((36, 3), 0.8)
    >>> [c.state for c in hidden_ridges(cells, ridges, sectors, cfg)[:3]]
    ['tile', 'tile', 'tile']
    >>> ridges[2, 2] = 0.78  # cell 2's base: as bright as its sector
    >>> [c.state for c in hidden_ridges(cells, ridges, sectors, cfg)[:3]]
    ['tile', 'tile', 'unknown']
    >>> ridges[:], ridges[2, 2] = 0.6, 0.78  # a blurred photo: only cell 2's base...
    >>> [c.state for c in hidden_ridges(cells, ridges, sectors, cfg)[:3]]
    ['tile', 'tile', 'tile']
    >>> ridges[2, 2] = 1.0  # ... brighter than both sides: something over it
    >>> [c.state for c in hidden_ridges(cells, ridges, sectors, cfg)[:3]]
    ['tile', 'tile', 'unknown']
    """
    tiles = {c.index for c in readings if c.state == TILE}
    is_tile = np.zeros(len(readings) + 1, bool)  # the last: no cell (FACING's -1)
    is_tile[list(tiles)] = True
    share = ridges / np.maximum(sectors, 1e-6)
    plastic = np.zeros(3, bool) if band_plastic is None else np.asarray(band_plastic, bool)
    on_plastic = (EDGE_SIDES < 0) | plastic[EDGE_SIDES]
    # Across the board's edge lies the band: the plastic's black where it is judged. An
    # edge as dark as the plastic is a ridge however its sides compare.
    across = np.where(FACING[..., 0] >= 0, sectors[FACING[..., 0], FACING[..., 1]], 0.0)
    hidden = (
        on_plastic
        & (ridges >= cfg.dark_distance)
        & (ridges >= cfg.ridge_over_both_min * np.maximum(sectors, across))
    )
    between = share[is_tile[:-1, None] & is_tile[FACING[..., 0]]]  # edges between two tiles
    if len(between) >= cfg.ridge_seen_min_edges and float(np.median(between)) <= cfg.ridge_seen_max:
        # Beside a sector about as dark as the plastic, no ridge can show; beside one
        # barely off it (a purple or blue sector in dim light), the ridge, blurred with
        # it, reads within noise of it: a share near 1 there says nothing. The share is
        # judged where the sector stands clearly off the plastic (``ridge_min_sector``),
        # and must clear ``ridge_hidden_min`` by more than the photo's noise: beside a
        # dark sector that share is a hundredth of black-to-white, within the noise.
        judged = (sectors >= cfg.ridge_min_sector) & on_plastic
        hidden |= judged & (ridges >= cfg.ridge_hidden_min * sectors + cfg.ridge_noise)
    out = list(readings)
    for i in tiles:
        if hidden[i].any():
            out[i] = CellReading(i, UNKNOWN, note=RIDGE_HIDDEN)
    return out


def tile_shifts(
    tiles: Sequence[int],
    discs: Sequence[int],
    offsets: FloatArray,
    contrast: FloatArray,
    cfg: ReaderConfig,
    search: float,
    *,
    own: bool = False,
    least: float | None = None,
) -> FloatArray:
    """Where each of ``tiles`` lies off its cell on the canvas, as the navy discs near it
    tell: (T, 2) board units.

    Each tile's disc sits on its cell's centroid, so a disc seen off it says the lattice
    is off there (a lens's bend the fit leaves near a corner of the frame, a raised
    tile's parallax). The tile's own disc and its neighbours' (``discs`` (K,) cells, seen
    at ``offsets`` (K, 2) with ``contrast`` (K,)) tell it: the median of those clearly
    seen (``disc_refit_min_contrast``) within the numeral's ``search`` (short of its edge,
    ``disc_refit_edge``, past which a disc may lie further or be a spot of something
    else), where ``tile_shift_min_discs`` or more are and all lie within half the
    ridge's read half-width (``ridge_read_half_width``) of it; elsewhere none (a disc
    found on a hand beside the tile, or a spot of a blurred numeral, points elsewhere
    than the rest). A shift under that half-width, which the ridge's read spans
    already, is none too: the discs' own jitter would move it by a pixel, no more.
    ``own``: only where the tile's own disc is among those clearly seen (what is read
    inside the tile moves with it: a wrong shift reads its colours wrong, where a
    ridge read in the wrong place only makes it unknown). ``least``: the shortest shift
    taken (by default that half-width): a read that absorbs less misfit (its patches'
    margin to what lies beside them) follows the tile only past it.

    >>> cfg = default_config()
    >>> offsets = np.array([[0.05, 0.0], [0.04, 0.01], [0.0, 0.095]])  # cells 1, 2 and 5
    >>> tile_shifts([1, 20], [1, 2, 5], offsets, np.full(3, 0.5), cfg, 0.1).round(3).tolist()
    [[0.045, 0.005], [0.0, 0.0]]
    """
    seen = np.full((len(CENTROIDS) + 1, 2), np.nan)  # the last: no cell
    clear = (contrast >= cfg.disc_refit_min_contrast) & (
        np.linalg.norm(offsets, axis=1) < cfg.disc_refit_edge * search
    )
    seen[np.asarray(discs, dtype=np.int64)[clear]] = offsets[clear]
    tolerance = cfg.ridge_read_half_width / 2
    out = np.zeros((len(tiles), 2))
    near = seen[_NEAR[np.asarray(tiles, dtype=np.int64)]]  # (T, 4, 2): itself, neighbours
    count = (~np.isnan(near[..., 0])).sum(axis=1)
    told = count >= cfg.tile_shift_min_discs
    if own:
        told &= ~np.isnan(near[:, 0, 0])
    if not told.any():
        return out
    # the median of each tile's discs (NaN sorts last: the discs seen come first)
    ordered = np.sort(near[told], axis=1)  # (T', 4, 2)
    c = count[told][:, None, None]
    low = np.take_along_axis(ordered, np.broadcast_to((c - 1) // 2, (len(c), 1, 2)), axis=1)
    high = np.take_along_axis(ordered, np.broadcast_to(c // 2, (len(c), 1, 2)), axis=1)
    middle = ((low + high) / 2)[:, 0]  # (T', 2)
    spread = np.linalg.norm(near[told] - middle[:, None], axis=2)  # NaN where no disc
    agree = np.where(np.isnan(spread), 0.0, spread).max(axis=1) <= tolerance
    out[np.flatnonzero(told)[agree]] = middle[agree]
    out[np.linalg.norm(out, axis=1) < (tolerance if least is None else least)] = 0.0
    return out


#: (36, 4) each cell and its neighbours across its edges (36, the row of NaN in
#: :func:`tile_shifts`' table, where there is none).
_NEAR: NDArray[np.int64] = np.concatenate(
    [
        np.arange(len(CENTROIDS))[:, None],
        np.where(FACING[..., 0] >= 0, FACING[..., 0], len(CENTROIDS)),
    ],
    axis=1,
)


def looks_elsewhere(note: str) -> bool:
    """Whether a cell's ``note`` says it looks like a tile it was not named: one read
    (better) on another cell, or the joker refused there.

    >>> [looks_elsewhere(n) for n in (JOKER_ELSEWHERE, JOKER_REFUSED + "pale", COVERED)]
    [True, True, False]
    """
    return note.endswith(ELSEWHERE) or note.startswith(JOKER_REFUSED)


def beside_covered(
    readings: list[CellReading],
    cfg: ReaderConfig,
    costs: Mapping[int, float] | None = None,
    sharp: bool = True,
) -> list[CellReading]:
    """The readings with the unsure tiles beside a cell read as neither empty nor a tile
    made unknown.

    A hand or a sleeve covers a patch of cells: beside the ones it hides, a tile it
    covers in part (one sector, often) still reads, as the tile whose colours come
    closest, and only a little better than others. A tile named with a confidence below
    ``beside_covered_min_confidence`` there is unknown. Covering are the cells whose
    frame is not plastic or that show no tile's disc and colours, and the pale ones that
    look like the joker read on another cell (a palm, a sleeve: white has no hue to tell
    them by); not glare, the frame's edge, nor another tile read unsure (blur mistakes it
    for one read elsewhere).

    Beside a cell that looks like a tile read on another cell (so one of the two is not
    what it looks like), a tile whose numeral reads another value than its colours say
    is unknown too: a held tile, or fingers over some of its sectors, make both. That
    numeral tells it only in a photo whose numerals read as a sharp photo's do
    (``sharp``: :func:`numerals_told`), or where the colours doubt the tile too
    (below): on a small, blurred board a tile's numeral reads another value as clearly,
    and the tile beside a hand is read right.

    ``costs``: each tile's colour cost (cell -> cost). Beside a covering cell, a tile
    whose numeral reads another value and whose colours are further from its tile's than
    ``beside_covered_cost_ratio`` times the photo's typical tile's (the median over its
    tiles: one light, one camera, one blur) is unknown too: a hand or a held tile over
    the cell's middle leaves a disc and colours that a tile comes near, neither clearly.
    """
    covering = {
        c.index
        for c in readings
        if c.state == UNKNOWN
        and (c.note in (COVERED, NO_TILE, JOKER_ELSEWHERE) or c.note.startswith(JOKER_REFUSED))
    }
    doubled = {c.index for c in readings if c.state == UNKNOWN and looks_elsewhere(c.note)}
    costs = costs or {}
    named = [costs[c.index] for c in readings if c.state == TILE and c.index in costs]
    typical = float(np.median(named)) if named else math.inf
    out = list(readings)
    for c in readings:
        if c.state != TILE:
            continue
        beside = {b[0] for b in (GEOMETRY.across(c.index, e) for e in EDGE_ORDER) if b is not None}
        unsure = c.confidence < cfg.beside_covered_min_confidence
        disagree = c.note.startswith(NUMERAL_DISAGREES)
        far = costs.get(c.index, 0.0) > cfg.beside_covered_cost_ratio * typical
        telling = disagree and (sharp or far)
        if (
            (unsure and beside & covering)
            or (telling and beside & doubled)
            or (disagree and far and beside & covering)
        ):
            out[c.index] = CellReading(c.index, UNKNOWN, note=BESIDE_COVERED)
    return out


class BoardReader:
    """Reads boards from frames; holds the config, colour prototypes and numeral templates."""

    def __init__(self, config: ReaderConfig | None = None) -> None:
        self.config = config or default_config()
        self.prototypes = prototype_lab()
        self.proto_linear = prototype_linear()
        self.numerals = NumeralReader()
        black, white = nominal_linear("black"), nominal_linear("white")
        navy = normalise(nominal_linear("navy"), black, white)
        # Blur mixes the disc's navy with its white numeral and with the tile's own
        # sectors around it (linearly, in linear light): the disc's darker part lies in
        # the triangle of navy, white and the sectors' mean colour. The mixes tried:
        # (white share, sectors' share) pairs, flattened; not so much that no navy is left.
        cfg = self.config
        white_shares = np.linspace(0.0, cfg.disc_blur_max_white, 11)
        colour_shares = np.linspace(0.0, cfg.disc_blur_max_colour, cfg.disc_blur_colour_steps)
        ws, cs = (g.ravel() for g in np.meshgrid(white_shares, colour_shares, indexing="ij"))
        keep = ws + cs <= cfg.disc_blur_max_mix + 1e-9
        self.navy_shares, self.colour_shares = ws[keep], cs[keep]
        self.navy_linear = navy
        # A bonus cell's numeral is matched in a window about the cell's centre that
        # grows with the numeral: at the design's height it reaches past the cell's edges
        # onto the tiles beside it. It is matched at that height and, where so, at the
        # largest size whose window stays inside the cell (half way to a neighbour's
        # centroid); the larger of the templates' two digit heights is then about the
        # design's. The design's height is known only roughly (measured on product
        # photos), and the window inside the cell leaves the numeral's ends out: it is
        # matched half way between the two as well (their geometric mean; on a dark
        # table, k4242, one of the three 4s in four photos of ten matched neither).
        design = self.numerals.size_of(cfg.bonus_numeral_height, cfg.disc_radius)
        inside = NEIGHBOUR_HALF / (self.numerals.params.match_r * cfg.disc_radius)
        between = math.sqrt(inside * design)
        self.bonus_sizes = (design,) if inside >= design else (inside, between, design)
        # whether the table looks dark, per frame of the read under way (its id, the
        # frame kept so that the id stays its own); emptied when the read ends
        self._dark_memo: dict[int, tuple[NDArray[np.uint8], bool]] = {}
        # The searches of one read look at the same frame (or the same balanced copy of
        # it) many times, and try many of the same outlines again (a retry passes over
        # the fits it refused only once they are fitted): each frame's pyramid, and each
        # fit of an outline on a pyramid, are worked out once per read. Keyed by ids,
        # the frame or pyramid kept beside each so that the id stays its own; emptied
        # when the read ends.
        self._pyramid_memo: dict[int, tuple[NDArray[np.uint8], Pyramid]] = {}
        self._fit_memo: dict[
            tuple[int, int, bytes], tuple[NDArray[np.uint8], Pyramid, BoardFit | tuple[Any, ...]]
        ] = {}

    # -- the pipeline -------------------------------------------------------------------

    def locate(
        self,
        frame_bgr: NDArray[np.uint8],
        exclude: Sequence[BoardFit] = (),
        levels: Sequence[float] | None = None,
        chroma: float | None = None,
        off_table: bool = False,
        *,
        structure: bool = False,
        brightness: bool = False,
        seeded: bool = False,
    ) -> BoardFit:
        """The board's fit: the outline candidates (found at the darkness ``levels``, and
        the relative chroma below ``chroma`` that counts as colourless, by default the
        config's; or, ``off_table``, as what is not the table; or, ``structure``, as what
        edges enclose; or, ``seeded``, as the cells seen place the board,
        :func:`vision.seeds.seeded_outlines`) are tried until the lattice fits one; fits
        on the same place as one of ``exclude`` (refused before) are passed over.
        ``brightness``: the lattice fitted to the frame's brightness as it is
        (:meth:`Pyramid.brightness_view`)."""
        cfg = self.config
        pyramid = self._pyramid(frame_bgr)
        outlines: Sequence[Outline]
        if seeded:
            h, w = frame_bgr.shape[:2]
            outlines = [
                Outline(canonical_order(c), 0.0, bool(((c < 0) | (c > (w, h))).any()))
                for c in seeded_outlines(
                    frame_bgr, pyramid.brightness_view(), cfg, cfg.outline_pool
                )
            ]
            if not outlines:
                raise BoardNotFoundError("no tile or window of the board's cells in view")
        else:
            outline_cfg = cfg if chroma is None else replace(cfg, dark_relative_chroma=chroma)
            outlines = outline_candidates(
                frame_bgr, outline_cfg, cfg.outline_pool, levels, off_table, structure=structure
            )
        first = min(cfg.outline_candidates, len(outlines))
        # (each outline is straightened only when it is tried)
        best, problem = self._best_fit(
            frame_bgr, (outlines[i] for i in range(first)), pyramid, exclude, brightness
        )
        others = range(first, len(outlines))
        if others and (best is None or best.points < cfg.enough_lattice_points):
            # The likeliest outlines do not fit well (a hand or clutter over the border
            # makes many triangles): the others are ranked by a coarse lattice fit.
            rough = [
                outlines.rough_corners(i) if isinstance(outlines, Outlines) else outlines[i].corners
                for i in others
            ]
            scores = lattice_scores(
                pyramid.brightness_view() if brightness else pyramid, rough, cfg
            )
            order = np.argsort(-scores, kind="stable")[: cfg.outline_reranked]
            ranked = (outlines[others[int(k)]] for k in order)
            # More outlines tried are more chances of a lattice fitting by accident (at
            # half the board's scale, say): one of these must be held by enough points.
            found, more = self._best_fit(frame_bgr, ranked, pyramid, exclude, brightness)
            if (
                found is not None
                and found.points >= cfg.enough_lattice_points
                and (best is None or found.points > best.points)
            ):
                best = found
            problem = more or problem
        if best is None:
            raise BoardNotFoundError(problem or "no outline fits the board's lattice")
        return best

    def _best_fit(
        self,
        frame_bgr: NDArray[np.uint8],
        outlines: Iterable[Outline],
        pyramid: Pyramid,
        exclude: Sequence[BoardFit] = (),
        brightness: bool = False,
    ) -> tuple[BoardFit | None, str]:
        """The fit on the most lattice points of those of ``outlines``, tried in order
        until one is held by ``enough_lattice_points``, but those on the place of one of
        ``exclude``; and why the last refused one was refused. ``brightness``: fitted to
        the frame's brightness as it is (:meth:`Pyramid.brightness_view`) alone."""
        cfg = self.config
        best: BoardFit | None = None
        problem = ""
        for outline in outlines:
            if brightness:
                views = [pyramid.brightness_view()]
            else:
                # (on a table as dark as the plastic, the lattice is fitted to the
                # plastic's own colour too, and the fit on more points kept)
                dark = pyramid.on_dark_table(outline.corners)
                views = [pyramid.for_board(outline.corners)] + ([] if dark is None else [dark])
            found: BoardFit | None = None
            for view in views:
                try:
                    fit = self._fit_board(frame_bgr, outline.corners, view)
                except BoardNotFoundError as exc:
                    problem = str(exc)
                    continue
                if any(same_place(fit, other, cfg.same_place_cells) for other in exclude):
                    continue
                refusal = self._refusal(fit)
                if refusal:
                    problem = refusal
                    continue
                if found is None or fit.points > found.points:
                    found = fit
            if found is None:
                continue
            if best is None or found.points > best.points:
                best = found
            if found.points >= cfg.enough_lattice_points:
                break
        return best, problem

    def _pyramid(self, frame_bgr: NDArray[np.uint8]) -> Pyramid:
        """The frame's :class:`Pyramid`, built once per read."""
        memo = self._pyramid_memo.get(id(frame_bgr))
        if memo is not None and memo[0] is frame_bgr:
            return memo[1]
        pyramid = Pyramid(frame_bgr, self.config, dark=self._table_dark(frame_bgr))
        self._pyramid_memo[id(frame_bgr)] = (frame_bgr, pyramid)
        return pyramid

    def _fit_board(
        self, frame_bgr: NDArray[np.uint8], corners: FloatArray, pyramid: Pyramid
    ) -> BoardFit:
        """:func:`fit_board` from outline ``corners`` on ``pyramid`` (of ``frame_bgr``),
        fitted once per read: a fit, or :class:`BoardNotFoundError` with the same reason."""
        key = (id(frame_bgr), id(pyramid), np.asarray(corners, dtype=np.float64).tobytes())
        memo = self._fit_memo.get(key)
        if memo is None or memo[0] is not frame_bgr or memo[1] is not pyramid:
            try:
                found: BoardFit | tuple[Any, ...] = fit_board(
                    frame_bgr, corners, self.config, pyramid
                )
            except BoardNotFoundError as exc:
                found = exc.args
            memo = (frame_bgr, pyramid, found)
            self._fit_memo[key] = memo
        if isinstance(memo[2], tuple):
            raise BoardNotFoundError(*memo[2])
        return memo[2]

    def _refusal(self, fit: BoardFit) -> str:
        """Why a fit is no board's ("" when it may be one)."""
        cfg = self.config
        if fit.residual_units > cfg.max_residual_units * 2:
            return f"the lattice does not fit the board (residual {fit.residual_units:.2f})"
        if anisotropy(fit.homography) > cfg.max_anisotropy:
            return "the lattice found is stretched as no camera view of a board could be"
        return ""

    def _too_small(self, fit: BoardFit, shape: tuple[int, ...]) -> bool:
        """Whether the whole board ``fit`` puts in a frame of ``shape`` covers less of it
        than ``min_board_area_fraction``."""
        area = float(triangle_area(fit.to_image(outer_corners(self.config.band_width))))
        return area < self.config.min_board_area_fraction * shape[0] * shape[1]

    def cells_evidence(
        self, frame_bgr: NDArray[np.uint8], fit: BoardFit, signless: bool = False
    ) -> float:
        """How much the lattice's cells in the frame look like cells: per cell in view,
        the mean of its match with a tile or an empty window less ``band_cell_chance``
        (about 0.25 on a right fit, near 0 or below on a lattice a cell off)."""
        view = self._band_view(frame_bgr, fit, signless)
        return _per_cell(self._shifted(view, np.zeros(2)))

    def rescaled(
        self, frame_bgr: NDArray[np.uint8], fit: BoardFit, brightness: bool = False
    ) -> BoardFit:
        """The fit band-checked (:meth:`check_band`), and fitted again from outlines a row
        of cells larger or smaller when its cells then hardly look like cells.

        An outline a cell off (a side merged with a shadow, a sleeve or a dark table, or
        one cut off) leads the fit to a lattice at the wrong scale that still matches
        the cells near one corner; the band check moves lattices by whole cells but does
        not scale them. The lattice repeats itself at twice its scale too: a lattice at
        half the board's scale matches every other vertex (noise or a hand over the band
        can lead the fit there). Below ``rescale_max_evidence`` (:meth:`cells_evidence`),
        the six outlines with one side moved out or in by a cell's height, and the
        outline scaled by each of ``rescale_scales`` about each corner, are fitted (each
        then band-checked), and the one whose cells look most like cells is taken when it
        beats the fit by ``rescale_margin``; up to ``rescale_rounds`` times.
        ``brightness``: the fit was found on the frame's brightness as it is, on which
        the others are fitted too and the cells' windows matched signless.
        """
        cfg = self.config
        fit, evidence = self._band_checked(frame_bgr, fit, brightness)
        if evidence >= cfg.rescale_max_evidence:
            return fit
        outer = outer_corners(cfg.band_width)
        height = float(np.linalg.norm(outer[0] - outer[1:].mean(axis=0)))
        step = (math.sqrt(3.0) / 2.0) / height  # a row of cells, as a share of the height
        pyramid = self._pyramid(frame_bgr)
        pyramid = (
            pyramid.brightness_view() if brightness else pyramid.for_board(fit.to_image(outer))
        )
        for _ in range(cfg.rescale_rounds):
            best, best_evidence = fit, evidence + cfg.rescale_margin
            for anchor in outer:
                for factor in (1.0 - step, 1.0 + step, *cfg.rescale_scales):
                    corners = fit.to_image(anchor + (outer - anchor) * factor)
                    try:
                        other = self._fit_board(frame_bgr, corners, pyramid)
                    except BoardNotFoundError:
                        continue
                    # (a lattice whose board covers less than an outline may fits a
                    # pattern within the board: a tile's sectors at half its scale)
                    if self._refusal(other) or self._too_small(other, frame_bgr.shape):
                        continue
                    other, other_evidence = self._band_checked(frame_bgr, other, brightness)
                    if other_evidence > best_evidence:
                        best, best_evidence = other, other_evidence
            if best is fit:
                break
            log.debug("lattice rescaled: cells' evidence %.3f -> %.3f", evidence, best_evidence)
            fit, evidence = best, best_evidence
        return fit

    def check_band(self, frame_bgr: NDArray[np.uint8], fit: BoardFit) -> BoardFit:
        """The fit moved by whole cells when that puts the border band on dark plastic.

        The cell lattice repeats itself, so a fit one cell off still matches almost every
        cell (most often when a corner of the board is outside the frame); the border band,
        black plastic with small peg holes, tells. A move is taken when the band along
        the sides gets clearly darker than the cells' match gets worse.
        """
        return self._band_checked(frame_bgr, fit)[0]

    def _band_checked(
        self, frame_bgr: NDArray[np.uint8], fit: BoardFit, signless: bool = False
    ) -> tuple[BoardFit, float]:
        """:meth:`check_band`'s fit, and its :meth:`cells_evidence` (measured on the way;
        ``signless`` as there)."""
        cfg = self.config
        evidence: float | None = None
        for _ in range(2):
            view = self._band_view(frame_bgr, fit, signless)
            here = self._shifted(view, np.zeros(2))
            best, best_gain = None, cfg.band_shift_margin
            for shift in LATTICE_SHIFTS:
                gain = band_shift_gain(here, self._shifted(view, shift), cfg)
                if gain > best_gain:
                    best, best_gain = shift, gain
            if best is None:
                evidence = _per_cell(here)
                break
            log.debug("lattice moved by a cell: merit %.2f better", best_gain)
            fit = fit.moved(_translation(best))
        on_pegs = self._peg_moved(frame_bgr, fit)
        if on_pegs is not None:
            fit, evidence = on_pegs, None
        if evidence is None:
            evidence = self.cells_evidence(frame_bgr, fit, signless)
        return fit, evidence

    def _peg_moved(self, frame_bgr: NDArray[np.uint8], fit: BoardFit) -> BoardFit | None:
        """The fit moved by whole cells where that puts the band's lines on the row of
        peg holes (:func:`vision.rectify.peg_track`) along the sides it moves, by
        ``peg_shift_margin`` in all and ``peg_side_gain`` on each, clearly more than
        where it is; None where no move does. (A fit off by more than a move, its scale
        or turn wrong, may put one side's line on the holes a cell away, but not both:
        the move would not make it right.)

        The band's darkness tells a lattice a cell off only where the table beside the
        board is brighter than the plastic; the holes' row tells it on any table, as
        long as the photo is sharp enough to show holes a twelfth of a cell wide (blur
        takes them from every place alike, and then nothing moves).
        """
        cfg = self.config
        moved: BoardFit | None = None
        for _ in range(2):
            here = peg_track(frame_bgr, fit, cfg)
            if on_holes(here, cfg.peg_on_band):
                break  # (two sides on the holes' row: the band lies where it is)
            theres = peg_track(frame_bgr, fit, cfg, LATTICE_SHIFTS)
            best, best_gain = None, cfg.peg_shift_margin
            for shift, there in zip(LATTICE_SHIFTS, theres, strict=True):
                both = sides_moved(shift) & np.isfinite(here) & np.isfinite(there)
                gains = there[both] - here[both]
                gain = float(gains.sum())
                if gains.size and gain > best_gain and gains.min() >= cfg.peg_side_gain:
                    best, best_gain = shift, gain
            if best is None:
                break
            log.debug("lattice moved by a cell onto the peg holes: %.2f clearer", best_gain)
            fit = moved = fit.moved(_translation(best))
        return moved

    def _band_view(
        self, frame_bgr: NDArray[np.uint8], fit: BoardFit, signless: bool = False
    ) -> _BandView:
        """One view of the board with a cell's margin more, to be cut at each shift
        (:meth:`_shifted`): its brightness, its distance from colourless black (the band
        is black plastic: colourless as well as dark; a dark cloth beside the board is
        as dark, but not colourless), and its validity, (H, W) each. ``signless``: on a
        dark table, the cells' windows are matched in the brightness darker than their
        frames as well (a fit found so, :meth:`Pyramid.brightness_view`)."""
        cfg = self.config
        wide = Canvas(cfg.band_check_ppu, margin=Canvas(cfg.band_check_ppu).margin + 1.0)
        view = warp_to_canvas(frame_bgr, fit.homography, wide, lens=fit.lens)
        value, plastic = value_channel(view), colourful_value(view, cfg.contrast_chroma_weight)
        also: NDArray[np.float32] | None = None
        percentile = cfg.band_percentile
        outline = fit.to_image(outer_corners(cfg.band_width))
        dark_table = self._table_dark(frame_bgr)
        if dark_table or dark_table_band(frame_bgr, outline, cfg) is not None:
            # On a table as dark as the plastic, or darker, a band moved onto the table
            # looks as dark as on the plastic, and the windows show it as dark as the
            # ribs: distance from the plastic's own colour, either way, tells them apart
            # (the ribs' colour, the same a cell off), for the band and the cells alike.
            # In that distance the band's peg holes (they show the table) and printing
            # stand out as much as the table does: the band is told by its middle level
            # (``band_percentile_dark``), not by its brighter part. There every tile,
            # its navy disc too, is far from the plastic: a tile's cell is flat and
            # tells nothing. The cells are matched in the brightness too (``also``),
            # where a tile shows its disc and its edges, and each takes its better match.
            ribs = rib_colour(view, wide)
            if ribs is not None:
                plastic = plastic_distance(view, ribs, *cfg.plastic_distance) * np.float32(255.0)
                percentile = cfg.band_percentile_dark
                if dark_table:
                    value, also = plastic, value
        valid = validity(frame_bgr.shape, fit.homography, wide, fit.lens)
        return _BandView(value, plastic, valid, percentile, also, signless and also is not None)

    def _shifted(self, view: _BandView, shift: FloatArray) -> tuple[FloatArray, float, int]:
        """:meth:`_band_and_cells` of the lattice moved by ``shift`` units, on a view of
        the board with a cell's extra margin (:meth:`_band_view`)."""
        ppu = self.config.band_check_ppu
        canvas = Canvas(ppu)
        x, y = (int(round((1.0 + d) * ppu)) for d in shift)
        window = (slice(y, y + canvas.height), slice(x, x + canvas.width))
        return self._band_and_cells(
            view.value[window],
            view.plastic[window],
            view.valid[window],
            ppu,
            view.percentile,
            None if view.also is None else view.also[window],
            view.signless,
        )

    def _band_and_cells(
        self,
        value: NDArray[np.float32],
        plastic: NDArray[np.float32],
        valid: NDArray[np.uint8],
        ppu: int,
        percentile: float,
        also: NDArray[np.float32] | None = None,
        signless: bool = False,
    ) -> tuple[FloatArray, float, int]:
        """On a canvas's value channel, its distance from colourless black and validity
        (H, W each): the (3,) level of the band along each side (NaN where out of the
        frame; the ``percentile`` of its strip), 0 for the plastic's black and 1 for
        the bright things on the board; and
        the evidence that the visible cells are cells: the sum over them of their match
        with a tile or an empty window (in ``value``, or in ``also`` where given and it
        matches better; there a window darker than its frame as well, ``signless``)
        less ``band_cell_chance``, and how many they are.

        A sum, not a mean: a lattice moved towards the frame's edge loses cells out of
        it, and the mean of those left rises when the lost ones matched poorly (under a
        hand, by the cut edge) however wrong the move; the sum counts what each lattice
        claims is a cell and the other does not. ``band_cell_chance`` lies between the
        match of a cell and that of the band's plastic (medians about 0.57 and 0.06)."""
        cfg = self.config
        ok = valid == 255
        if ok.sum() < 50:
            return np.full(3, np.nan), 0.0, 0
        lo, hi = percentiles(plastic[ok], [5, 95])
        levels = np.full(3, np.nan)
        for k, (rows, cols) in enumerate(band_sides(ppu, *cfg.band_strip)):
            seen = ok[rows, cols]
            if len(seen) and seen.mean() >= cfg.band_min_seen:
                level = percentiles(plastic[rows, cols][seen], [percentile])[0]
                levels[k] = (level - lo) / max(float(hi - lo), 1.0)
        sc, inside = scorer(ppu, cfg), np.ascontiguousarray(valid)
        views = [(value, False)] if also is None else [(value, False), (also, signless)]
        best = np.max(
            [sc.scores(np.ascontiguousarray(v), inside, s).max(axis=1) for v, s in views], 0
        )
        seen_cells = best != 0
        evidence = float(np.sum(best[seen_cells] - cfg.band_cell_chance))
        return levels, evidence, int(seen_cells.sum())

    def read(self, frame_bgr: NDArray[np.uint8], fit: BoardFit | None = None) -> BoardReading:
        """Read a frame; a frame without a board gives ``found=False`` and a reason."""
        frame_bgr = check_frame(frame_bgr)
        try:
            return self._glare_rescued(frame_bgr, self._read(frame_bgr, fit))
        finally:
            self._dark_memo.clear()
            self._pyramid_memo.clear()
            self._fit_memo.clear()

    def _read_ppu(self, fit: BoardFit) -> int:
        """The pixels per unit of the canvas a fit's cells are read on: near the frame's
        own, in a few sizes only, so that the cells' zones (cached per size) are reused."""
        cfg = self.config
        step = cfg.read_ppu_step
        scale = px_per_unit(fit.homography)
        return int(min(cfg.read_ppu_max, max(cfg.read_ppu_min, step * round(scale / step))))

    def _glare_rescued(self, frame_bgr: NDArray[np.uint8], reading: BoardReading) -> BoardReading:
        """A reading with the cells it leaves unknown under a lamp's glare read again with
        the veil of light taken off the board (:func:`veil_lifted`): those that then read
        empty, or as a tile no other cell holds, read so (noted so).

        Only the fit finally read is looked at so, and only its unknown cells change:
        off the board, taking the veil off a plain surface leaves it as dark as the
        plastic, so no fit is judged on it (looked at during the search, a lattice off
        the board read clearer). Not where no veil lies over an unknown cell (a hand, the
        frame's edge). On a dark table too: its windows show the table as dark as the
        plastic, but the cells are read as there (the windows' shapes in the distance
        from the ribs' colour), and a glare lifts its plastic and table alike."""
        if not reading.found or reading.fit is None:
            return reading
        unknown = [c.index for c in reading.cells if c.state == UNKNOWN and c.note != OUTSIDE]
        # A lamp's glare lifts the plastic under it too; a hand (no dark thing on it
        # either) has no plastic under it: only unknown cells near an empty cell whose
        # frame the veil lifts are read again. (Not the border band: a hand lies over it
        # as often as not.)
        plastic = CENTROIDS[[c.index for c in reading.cells if c.state == EMPTY]]
        if not unknown or not len(plastic):
            return reading
        # (those near an empty cell at all, first: geometry alone)
        gaps = np.linalg.norm(CENTROIDS[unknown][:, None] - plastic[None], axis=2)
        reach = gaps.min(axis=1) <= self.config.veil_reach
        unknown = [i for i, ok in zip(unknown, reach, strict=True) if ok]
        view = reading.canvas_bgr
        if not unknown or view is None:
            return reading
        canvas = Canvas(self._read_ppu(reading.fit))
        if (canvas.height, canvas.width) != view.shape[:2]:
            return reading
        valid = validity(frame_bgr.shape, reading.fit.homography, canvas, reading.fit.lens)
        lift = veil_lift(view, valid, canvas.ppu, self.config)
        if lift is None:
            return reading
        h, w = lift.shape

        def lifted(points: FloatArray) -> NDArray[np.bool_]:
            at = np.round(canvas.to_canvas(points)).astype(np.int64)
            inside = (at[:, 0] >= 0) & (at[:, 0] < w) & (at[:, 1] >= 0) & (at[:, 1] < h)
            out = np.zeros(len(points), dtype=bool)
            out[inside] = lift[at[inside, 1], at[inside, 0]] >= 1.0
            return out

        lit = plastic[lifted(plastic)]
        near = np.zeros(len(unknown), dtype=bool)
        if len(lit):
            gaps = np.linalg.norm(CENTROIDS[unknown][:, None] - lit[None], axis=2)
            near = (gaps.min(axis=1) <= self.config.veil_reach) & lifted(CENTROIDS[unknown])
        if not near.any():
            return reading
        # Where the glare clipped most of a cell's pixels white in every channel, their
        # light is lost, not veiled: nothing taken off shows what lies there (a tile or a
        # window alike reads as a flat dark patch).
        clipped = self._clipped(view, int(canvas.ppu))
        rescuable = {i for i, ok in zip(unknown, near, strict=True) if ok and not clipped[i]}
        if not rescuable:
            return reading
        again = self._read_fitted(frame_bgr, reading.fit, None, veiled=True).cells
        held = {c.placement.tile for c in reading.cells if c.placement is not None}

        def better(was: CellReading, now: CellReading) -> CellReading:
            if was.index not in rescuable:
                return was
            if now.state == EMPTY:
                return replace(now, note=GLARE_EMPTY)
            if (
                now.state == TILE
                and now.placement is not None
                and now.placement.tile not in held
                and was.note not in SOMETHING_OVER
            ):
                return replace(now, note=GLARE_TILE)
            return was

        cells = tuple(better(a, b) for a, b in zip(reading.cells, again, strict=True))
        return replace(reading, cells=cells)

    def _clipped(self, canvas_bgr: NDArray[np.uint8], ppu: int) -> NDArray[np.bool_]:
        """(36,) bool: the cells of a canvas (H, W, 3) uint8 of ``ppu`` more
        than ``veil_max_clipped`` of whose pixels are at ``clipped_level`` or above in
        every channel."""
        cfg = self.config
        packed = packed_zones(ppu, cfg)
        darkest = pixels(canvas_bgr, packed.whole_flat).min(axis=1)
        share = np.add.reduceat(
            (darkest >= cfg.clipped_level).astype(np.float64), packed.whole_starts
        )
        total = np.diff(np.r_[packed.whole_starts, len(darkest)])
        return share > cfg.veil_max_clipped * total  # type: ignore[no-any-return]

    def _table_dark(self, frame_bgr: NDArray[np.uint8]) -> bool:
        """:func:`table_looks_dark` of a frame, worked out once per frame of a read (the
        search, the band check and each sampling of the cells all ask)."""
        memo = self._dark_memo.get(id(frame_bgr))
        if memo is not None and memo[0] is frame_bgr:
            return memo[1]
        dark = table_looks_dark(frame_bgr, self.config)
        self._dark_memo[id(frame_bgr)] = (frame_bgr, dark)
        return dark

    def _read(self, frame_bgr: NDArray[np.uint8], fit: BoardFit | None) -> BoardReading:
        """:meth:`read` of a checked frame."""
        if fit is not None:  # a stored fit (the tracker's) is not second-guessed
            return self._read_fitted(frame_bgr, fit, None)
        h, w = frame_bgr.shape[:2]
        side = self.config.read_max_side_px
        if max(h, w) > side:
            # A phone's 12 MP photo shows a cell by hundreds of pixels where the reader
            # samples it by at most read_ppu_max: it is read smaller, several times
            # faster, and its fit given in the photo's own pixels.
            s = side / max(h, w)
            small = cv2.resize(
                frame_bgr, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA
            )
            reading = self._read(small, None)
            if reading.fit is None:
                return reading
            fx, fy = w / small.shape[1], h / small.shape[0]
            return replace(reading, fit=reading.fit.scaled(fx, fy))
        dark_table = self._table_dark(frame_bgr)
        reading = self._searched(frame_bgr, dark_table)
        # (asked once: the band's peg holes are sampled for it)
        held = dark_table and reading.found and self._held_dark(frame_bgr, reading)
        if dark_table and not held:
            # A lamp's glare on a dark table lifts the plastic and the table under it
            # alike: the dark regions, the table's colour and the lattice's contrast all
            # lose the board there, merged with the bright spot. It is looked
            # for again with the veil taken off (:func:`lifted_veil`), and read in the
            # frame as it is. A second search is a second chance to fit a lattice by
            # accident: its fit must be held by as many lattice points as a fit needs
            # to be taken at once (``enough_lattice_points``), or by the tiles named.
            again = self._searched(frame_bgr, dark_table, lifted_veil(frame_bgr, self.config))
            if self._held(again, self.config.enough_lattice_points) and self._holes_shown(
                frame_bgr, again
            ):
                reading, held = again, self._held(again)  # (its holes are shown)
        if dark_table and reading.found and not held:
            # (a search that found nothing looked for the board by its structure last;
            # one that found a lattice it does not hold did not; a fit found so shows
            # the holes on two sides)
            structure = self._structured(frame_bgr, frame_bgr)
            if structure is None:
                # On a dark table the lattice fits the tiles alone, at any place, turn
                # and scale where they are few: a fit held by fewer points and tiles than
                # a fit needs to be trusted on them alone is no board found. Where they
                # are many (a full board's packed tiles), it fits them a turn or a few
                # cells off as well as on the board, and the band's darkness tells
                # nothing on a dark table: the peg holes' row does.
                why = DARK_NO_HOLES if self._held(reading) else DARK_UNCLEAR
                return self._brightness_searched(frame_bgr) or BoardReading(False, reason=why)
            reading = structure
        if dark_table and not reading.found:
            bright = self._brightness_searched(frame_bgr)
            if bright is not None:
                return bright
            if not exposure_problem(frame_bgr, self.config):
                # (whatever went wrong, what would help is the same)
                return BoardReading(False, reason=f"{reading.reason} ({DARK_TABLE})")
        return reading

    def _brightness_searched(self, frame_bgr: NDArray[np.uint8]) -> BoardReading | None:
        """The frame read on a lattice fitted to its brightness as it is
        (:meth:`Pyramid.brightness_view`) on the outlines of each kind in turn (dark
        regions, what is not the table, what edges enclose), where one is held by as
        many lattice points as a fit needs to be taken at once
        (``enough_lattice_points``), or by the tiles named (:meth:`_held`), and its band
        shows the peg holes' row along two sides (:meth:`_pegs_seen`); else what the
        outlines the cells seed find (:meth:`_seeded_searched`), the very last (both
        searches off without ``brightness_last``).

        On a table as dark as the plastic the windows show it darker than their frames,
        or lighter, by little: the contrast views (saturated above the plastic's level,
        or floored below a distance from its colour) lose them, and with them the
        lattice of an empty board. The brightness keeps them, and a window matches
        there either way; twice the ways to match are twice the chances of a lattice
        fitting something else by accident, so this is the last search, and its fit must
        show the holes as a fit found by the board's structure must.
        """
        if not self.config.brightness_last:
            return None
        for kind in ({}, {"off_table": True}, {"structure": True}):
            reading = self._read_located(frame_bgr, frame_bgr, brightness=True, **kind)
            held = self._held(reading, self.config.enough_lattice_points)
            if held and self._pegs_seen(frame_bgr, reading):
                return reading
        return self._seeded_searched(frame_bgr)

    def _best_move(
        self, frame_bgr: NDArray[np.uint8], fit: BoardFit
    ) -> tuple[FloatArray | None, bool]:
        """The move by a cell (of :data:`LATTICE_SHIFTS`) whose cells look most like
        cells, where one looks more so than the fit's own (:meth:`_band_and_cells`'s
        evidence, windows matched darker or lighter than their frames, summed), else
        None; and whether the sides it moves show the peg holes' row
        (:func:`vision.rectify.peg_track`) at least as clearly there, in all.

        Summed, not per cell: a move towards the frame's edge loses poorly matched cells
        out of it. Only the sides the move takes off their lines count for the holes: a
        side along it stays on its own, and only the stretch of it in view changes."""
        view = self._band_view(frame_bgr, fit, True)
        best, evidence = -1, self._shifted(view, np.zeros(2))[1]
        for k, shift in enumerate(LATTICE_SHIFTS):
            cells = self._shifted(view, shift)[1]
            if cells > evidence:
                best, evidence = k, cells
        if best < 0:
            return None, False
        shift = LATTICE_SHIFTS[best]
        here = peg_track(frame_bgr, fit, self.config)
        there = peg_track(frame_bgr, fit, self.config, shift[None])[0]
        return shift, holes_as_clear(here, there, sides_moved(shift))

    def _seed_moved(self, frame_bgr: NDArray[np.uint8], fit: BoardFit) -> BoardFit:
        """A fit on an outline the cells seeded, moved by whole cells (up to twice) where
        a move makes its cells look more like cells and its band show the holes' row
        as clearly (:meth:`_best_move`).

        A window or a tile taken for its neighbour's cell seeds a lattice a cell off that
        matches every cell but a row as well as the right one; on a dark table the band's
        darkness does not tell them apart (:meth:`check_band`), and a hand over the band
        may hide the holes' row of a side that moves (:meth:`_peg_moved`). The row of
        cells the right lattice has more, and the holes, tell it together."""
        for _ in range(2):
            shift, holes = self._best_move(frame_bgr, fit)
            if shift is None or not holes:
                break
            log.debug("seeded lattice moved by a cell: its cells look more like cells")
            fit = fit.moved(_translation(shift))
        return fit

    def _seeded_searched(self, frame_bgr: NDArray[np.uint8]) -> BoardReading | None:
        """The frame read on a lattice fitted on the outlines its cells' tiles and
        windows seed (:func:`vision.seeds.seeded_outlines`), in the contrast views and in
        the brightness as it is (the fit on more lattice points kept); else None.

        Many outlines seeded are many chances of a lattice fitting by accident: a fit
        must be held by ``enough_lattice_points`` or the tiles named (:meth:`_held`) and
        show the holes' row along a side of its band (:meth:`_holes_shown`; a hand over
        the band may hide the others), or be held by the points any fit is trusted on
        (``trust_min_points``) and show the row along two sides (:meth:`_pegs_seen`; a
        small board seen steeply, a corner cut off, shows few points). Two sides alone do
        not rule a wrong lattice out (one three cells off, fitted to the brightness on an
        unseen kind's still, showed them): its cells must also look like cells (a
        lattice a turn off or at another scale matches them no better than chance,
        :meth:`cells_evidence`), and no move by a cell may make them look more so
        (:meth:`_best_move`; where the holes did not take the move, the two lattices
        are left undecided, and no board is reported).
        """
        if not self.config.seeded_last:
            return None
        best: BoardReading | None = None
        for brightness in (False, True):
            reading = self._read_located(frame_bgr, frame_bgr, brightness=brightness, seeded=True)
            fit = reading.fit
            if fit is None or (
                best is not None and best.fit is not None and best.fit.points >= fit.points
            ):
                continue
            if self._held(reading, self.config.enough_lattice_points):
                shows_holes = self._holes_shown(frame_bgr, reading)
            else:
                shows_holes = self._held(reading) and self._pegs_seen(frame_bgr, reading)
            if (
                shows_holes
                and self.cells_evidence(frame_bgr, fit, True) > 0
                and self._best_move(frame_bgr, fit)[0] is None
            ):
                best = reading
        return best

    def _searched(
        self,
        frame_bgr: NDArray[np.uint8],
        dark_table: bool,
        search_bgr: NDArray[np.uint8] | None = None,
    ) -> BoardReading:
        """:meth:`read`'s search for the board, and the board read on the fit found
        (``dark_table``: the table looks dark, :func:`table_looks_dark`). The board is
        looked for in ``search_bgr`` (by default the frame itself) and read in the
        frame."""
        refused: list[BoardFit] = []
        cfg = self.config
        search = frame_bgr if search_bgr is None else search_bgr
        # On a dark table, or one as dark as the board's plastic around the board found
        # in the dark, the dark region is the plastic and the table merged, its outline
        # the board's only in part (a lattice on it slides along the tiles, or takes
        # another scale): the board is looked for as what stands out from the table, and
        # a fit found so taken when held (:meth:`_held`).
        if dark_table:
            off_table = self._read_located(frame_bgr, search, off_table=True)
            if self._held_dark(frame_bgr, off_table):
                return off_table
        first = self._read_located(frame_bgr, search, refused)
        if not dark_table and first.fit is not None and self._on_dark_table(frame_bgr, first.fit):
            off_table = self._read_located(frame_bgr, search, off_table=True)
            if self._held(off_table):
                return off_table
        unclear, in_view = unclear_in_view(first.cells)
        held = first.fit is not None and first.fit.points >= cfg.enough_lattice_points
        if held and unclear <= cfg.relocate_max_unclear * in_view:
            return first
        # The plastic tinted by a coloured lamp (or a camera's white balance gone wrong)
        # may look no more colourless than a coloured table, and a table whose colour
        # the light takes away as dark and colourless as the plastic: the board is looked
        # for again in the photo balanced to the light's colour (its cells are still read
        # in the photo as it is) when it was not found, or held by few lattice points,
        # or read on a lattice where many cells are unclear (a hand's outline merged
        # with the board's puts it a cell off). A fit held by more points is kept; of
        # two held fits, the one whose cells read clearer, if held nearly as well.
        balanced = white_balanced(search, cfg.locate_white_quantile)
        second = self._read_located(frame_bgr, balanced)
        if first.fit is not None:
            if not held:
                # (the one held by more points; or the one that names as many tiles as
                # a fit needs to be trusted on, where the other does not)
                more = second.fit is not None and second.fit.points > first.fit.points
                trusted = self._held(second) and not self._held(first)
                return second if more or trusted else first
            if self._clearer(second, first, unclear):
                return second
            # Still unclear: the lattice may rest on the wrong one of several outlines
            # (a hand's merged with the board's): the others, on other places, are tried.
            other = self._read_located(frame_bgr, search, [first.fit])
            return other if self._clearer(other, first, unclear) else first
        if second.found:
            return second
        # A lattice the cells refused (the trust rule) may rest on the wrong one of
        # several outlines (a hand, or the tiles' ridges, make triangles too): the
        # others are tried, on other places.
        for _ in range(self.config.locate_retries):
            before = len(refused)
            again = self._read_located(frame_bgr, search, refused)
            if again.found:
                return again
            if len(refused) == before:
                break
        # Nothing white in view to tell the light's colour (an empty board on a cloth
        # under a warm lamp): the darkest things, the plastic and shadows, tell it. This
        # last search has had the most chances to fit a lattice by accident: its fit
        # must be held by the points a fit needs to be trusted on them alone, or by as
        # many tiles named on it (:meth:`_held`).
        dark = dark_balanced(search, self.config.locate_dark_quantile)
        last = self._read_located(frame_bgr, dark)
        if self._held(last):
            return last
        # A lamp's glare over the board lifts its black plastic to half the brightness of
        # the table beside it or more: its outline is looked for at a paler level too,
        # last (a pale level merges shadows and clutter with the board), held as above.
        hazy = self._read_located(frame_bgr, search, levels=self.config.haze_levels)
        if self._held(hazy):
            return hazy
        # A camera that boosts the saturation (as much as the colours are read under:
        # their chroma scale down to the bottom of ``saturation_range``) lifts the
        # plastic's faint tint, and a coloured table's reflection in it, past the
        # colourless limit: its outline is looked for with the limit raised so, last,
        # held as above.
        vivid = self._read_located(
            frame_bgr, search, chroma=cfg.dark_relative_chroma / cfg.saturation_range[0]
        )
        if self._held(vivid):
            return vivid
        # A board whose plastic stands out from a table a little darker or lighter
        # than it, but not as dark and colourless as the dark regions looked for: its
        # outline is looked for as what is not the table, last. Held as above, and on
        # a band that looks like the plastic along most of its sides seen (a lattice
        # fitted on a cluster of tiles alone, a half turn off, puts its band on tiles
        # and on the table).
        if self.config.off_table_last and not dark_table:
            off_table = self._read_located(frame_bgr, search, off_table=True)
            if self._held(off_table) and self._band_on_plastic(frame_bgr, off_table):
                return off_table
        structure = self._structured(frame_bgr, search)
        if structure is not None:
            return structure
        problem = exposure_problem(frame_bgr, self.config)
        if problem:
            return BoardReading(False, reason=f"{problem} ({first.reason})")
        return first

    def _on_dark_table(self, frame_bgr: NDArray[np.uint8], fit: BoardFit) -> bool:
        """Whether the table around the board ``fit`` puts in the frame is no brighter
        than the board's band (:func:`vision.rectify.dark_table_band`)."""
        outline = fit.to_image(outer_corners(self.config.band_width))
        return dark_table_band(frame_bgr, outline, self.config) is not None

    def _held(self, reading: BoardReading, points: int | None = None) -> bool:
        """Whether a reading found by a last search is held by ``trust_min_points``:
        lattice points (or as many as ``points``, where given), or tiles named on it.

        A tile named is a tile of the set whose colours (and numeral, where read) its
        cell shows, no other cell showing it: a lattice fitted by accident on something
        else's pattern (a tablecloth's squares, clutter) names few. A board overexposed
        or under a glare that washes out its ridges and discs may hold the lattice by
        few points, yet its tiles' colours read. (A lattice a cell off on the board is
        the band check's to tell, as for any fit.)
        """
        if not reading.found or reading.fit is None:
            return False
        least = self.config.trust_min_points
        named = sum(c.state == TILE for c in reading.cells)
        return reading.fit.points >= (least if points is None else points) or named >= least

    def _held_dark(self, frame_bgr: NDArray[np.uint8], reading: BoardReading) -> bool:
        """:meth:`_held`, and on a board's band that shows the peg holes' row along a
        side at least (:meth:`_holes_shown`): what a fit on a dark table must be."""
        return self._held(reading) and self._holes_shown(frame_bgr, reading)

    def _holes_shown(self, frame_bgr: NDArray[np.uint8], reading: BoardReading) -> bool:
        """Whether the band of a found reading's fit shows the peg holes' row
        (:func:`vision.rectify.peg_track`) along one side at least, ``dark_peg_chances``
        times as clearly as a line along no holes shows it by chance (on k4242, the fits
        on the board show 0.43 of the ripple or more on a side, those a turn or cells off
        0.19 or less; a line by chance 0.11); or has fewer than two sides in view to tell.

        On a dark table the band's darkness tells the board's place nothing, and a lattice
        fitted on a full board's packed tiles a turn or a few cells off is held by as many
        points as the right one: its band lies on tiles and the table, where no row of
        holes one pitch apart runs. A side a hand or a sleeve covers shows none either;
        the board's whole band under them is rare, and a fit then no board found.
        """
        if reading.fit is None:
            return False
        cfg = self.config
        shares = peg_track(frame_bgr, reading.fit, cfg)
        if int(np.isfinite(shares).sum()) < 2:
            return True
        return on_holes(shares, cfg.dark_peg_chances * peg_chance_share(cfg), sides=1)

    def _band_on_plastic(self, frame_bgr: NDArray[np.uint8], reading: BoardReading) -> bool:
        """Whether the band of a found reading's fit looks like the plastic
        (``band_bright_level`` or darker) along most of its sides in the frame."""
        if reading.fit is None:
            return False
        # (its brighter part, ``band_percentile``, in any view: tiles or the table over
        # part of a side make it no plastic)
        view = replace(
            self._band_view(frame_bgr, reading.fit), percentile=self.config.band_percentile
        )
        levels = self._shifted(view, np.zeros(2))[0]
        seen = levels[~np.isnan(levels)]
        return 2 * int((seen < self.config.band_bright_level).sum()) > len(seen)

    def _structured(
        self, frame_bgr: NDArray[np.uint8], search_bgr: NDArray[np.uint8]
    ) -> BoardReading | None:
        """The frame read with the board looked for in ``search_bgr`` by its structure
        (its outline as what edges enclose), where that is held (:meth:`_held`) and shows
        the peg holes' row along two sides of its band (:meth:`_pegs_seen`); else None.

        A board that stands out from the table by neither its darkness nor its colour (a
        table as dark as the plastic and of its shade, or a lamp's sheen making the
        plastic lighter than the table) still stands out by its structure. It is looked
        for so last, when nothing else holds: the band's darkness tells nothing there, and
        a lattice at the wrong scale puts at most one side of its band on the holes.
        """
        if not self.config.structure_last:
            return None
        reading = self._read_located(frame_bgr, search_bgr, structure=True)
        if self._held(reading) and self._pegs_seen(frame_bgr, reading):
            return reading
        return None

    def _pegs_seen(self, frame_bgr: NDArray[np.uint8], reading: BoardReading) -> bool:
        """Whether the band of a found reading's fit shows the peg holes' row
        (:func:`vision.rectify.peg_track`) on two of its sides or more, each at least
        ``structure_peg_chances`` times as clear as a line along no holes shows it by
        chance (:func:`vision.rectify.peg_chance_share`)."""
        if reading.fit is None:
            return False
        cfg = self.config
        level = cfg.structure_peg_chances * peg_chance_share(cfg)
        return on_holes(peg_track(frame_bgr, reading.fit, cfg), level)

    def _clearer(self, other: BoardReading, first: BoardReading, unclear: int) -> bool:
        """Whether ``other`` reads more of its cells than ``first`` (``unclear`` of whose
        cells in view read unclear) on a lattice held nearly as well
        (``relocate_min_points`` of its points)."""
        if not other.found or other.fit is None or first.fit is None:
            return False
        if other.fit.points < self.config.relocate_min_points * first.fit.points:
            return False
        return unclear_in_view(other.cells)[0] < unclear

    def find(self, frame_bgr: NDArray[np.uint8]) -> BoardFit:
        """The board's fit as :meth:`read` finds it (located, band-checked, rescaled,
        refitted on the discs, looked for again in the photo balanced to the light, and
        trusted), for those that follow the board from frame to frame;
        :class:`BoardNotFoundError` with the reason when there is none."""
        reading = self.read(frame_bgr)
        if not reading.found or reading.fit is None:
            raise BoardNotFoundError(reading.reason)
        return reading.fit

    def _read_located(
        self,
        frame_bgr: NDArray[np.uint8],
        search_bgr: NDArray[np.uint8],
        refused: list[BoardFit] | None = None,
        levels: Sequence[float] | None = None,
        chroma: float | None = None,
        off_table: bool = False,
        *,
        structure: bool = False,
        brightness: bool = False,
        seeded: bool = False,
    ) -> BoardReading:
        """The frame read with the board located in ``search_bgr`` (the frame, or the
        frame balanced to the light's colour) at the darkness ``levels`` and colourless
        limit ``chroma`` (by default the config's), on none of the places of the fits
        ``refused`` before; a fit the cells refuse is added to them. ``structure``,
        ``brightness``, ``seeded``: as :meth:`locate`'s."""
        try:
            unmoved = self.locate(
                search_bgr,
                refused or (),
                levels,
                chroma,
                off_table,
                structure=structure,
                brightness=brightness,
                seeded=seeded,
            )
        except BoardNotFoundError as exc:
            return BoardReading(False, reason=str(exc))
        fit = kept_located(unmoved, self.rescaled(search_bgr, unmoved, brightness), self.config)
        if seeded:
            fit = self._seed_moved(search_bgr, fit)
        if self._too_small(fit, frame_bgr.shape):
            # An outline is looked for among dark regions of at least
            # min_board_area_fraction of the frame, and the board's plastic lies within
            # its outline: a lattice whose whole board covers less, even once rescaled
            # (a lattice at half the board's scale is), fits a pattern within one (a
            # checked tablecloth's squares, a tile's sectors).
            if refused is not None:
                refused += [unmoved, fit]
            return BoardReading(False, reason="the lattice found is too small to be the board")
        reading = self._read_fitted(frame_bgr, fit, unmoved)
        if not reading.found and refused is not None:
            refused += [unmoved, fit]
        return reading

    def _read_fitted(
        self,
        frame_bgr: NDArray[np.uint8],
        fit: BoardFit,
        unmoved: BoardFit | None,
        *,
        veiled: bool = False,
    ) -> BoardReading:
        """The frame read on a fit; ``unmoved`` the located fit before the band check and
        the rescaling (None for a stored fit, which is trusted as it is); ``veiled``: the
        board read with a lamp's veil of light taken off (:meth:`_glare_rescued`)."""
        located = unmoved is not None
        sample = partial(self._sample_cells, frame_bgr, veiled=veiled)
        # A lattice a cell off puts a bonus cell's big numeral where another cell is read:
        # a located lattice is judged (moved, refitted, trusted) on its cells read without
        # the bonus numerals, and only the lattice finally read is read with them.
        told = not located
        details: dict[str, Any] = {}
        # The tiles are named only on the fit finally read: the refit on the discs needs
        # the first half of a reading alone.
        sampled = sample(fit, details, bonus=told)
        named: tuple[CellReading, ...] | None = None
        if unmoved is not None and fit is not unmoved:
            # The band may be dark beside the board too (a dark table) where hands lie
            # over it: a move by a cell must not make the cells read clearly worse.
            named = self._name_tiles(sampled, details)
            details_then: dict[str, Any] = {}
            sampled_then = sample(unmoved, details_then, bonus=told)
            then = self._name_tiles(sampled_then, details_then)
            if worse_after_move(named, then, self.config):
                log.debug("lattice move undone: the cells read worse after it")
                fit, sampled, details, named = unmoved, sampled_then, details_then, then
        refitted = False
        pinned_by_few = fit.points < self.config.enough_lattice_points
        for _ in range(self.config.disc_refit_rounds):
            better = self._refit_on_discs(fit, details, joint=located)
            if better is None:
                break
            fit, details, refitted = better, {}, True
            sampled, named = sample(fit, details, bonus=told), None
        # The refit on the discs may leave a lattice a cell off that the band check before
        # it did not see so: the peg holes are looked at again on a fit refitted. A fit
        # pinned by few lattice points before (a corner cut off, a hand over the rest) is
        # band-checked again as a whole: the discs it was refitted on may be its
        # neighbours' (a lattice a cell off reads every tile on the next cell), and the
        # band then lies over a row of tiles on a side where the holes show too faintly
        # to move it alone. A move must show the holes' row at least as clearly (hands
        # and their shadows over the band move a lattice on the board a cell off as
        # well), and must not make the cells read clearly worse. Not on a dark table:
        # there the band's darkness tells nothing, and a lattice a cell off the board's
        # dim tiles showed the holes' row clearer (the tiles' ridges as its ripple).
        band_again = located and refitted and pinned_by_few and not self._table_dark(frame_bgr)
        checked = self.check_band(frame_bgr, fit) if band_again else fit
        if checked is not fit and holes_as_clear(
            peg_track(frame_bgr, fit, self.config), peg_track(frame_bgr, checked, self.config)
        ):
            moved_details: dict[str, Any] = {}
            moved_sampled = sample(checked, moved_details, bonus=told)
            moved_named = self._name_tiles(moved_sampled, moved_details)
            if named is None:
                named = self._name_tiles(sampled, details)
            if not worse_after_move(moved_named, named, self.config):
                log.debug("refitted lattice moved by a cell by the band check")
                fit, details = checked, moved_details
                sampled, named = moved_sampled, moved_named
        on_pegs = (
            self._peg_moved(frame_bgr, fit) if located and refitted and not band_again else None
        )
        if on_pegs is not None:
            fit, details = on_pegs, {}
            sampled, named = sample(fit, details, bonus=told), None
        cells = self._name_tiles(sampled, details) if named is None else named
        if located and self._untrusted(fit, cells) and not self._clear_unveiled(frame_bgr, fit):
            if fit.points < self.config.align_min_cells:
                why = "fewer than the cells needed to match a lattice at all"
            else:
                why = "on which most cells do not look like the board's"
            return BoardReading(
                False,
                reason=(
                    f"a lattice pinned by only {fit.points} points, {why} (a hand over it,"
                    " or the board cut off?)"
                ),
            )
        if told and "told_over_tiles" in details:
            # A bonus cell its numeral told empty looks like a tile's otherwise: read again
            # without the numerals, they are told after the tiles are named (as on a
            # located fit), and a tile plainly shown there is kept (:meth:`_tiles_shown`).
            details = {}
            sampled = sample(fit, details, bonus=False)
            cells = self._name_tiles(sampled, details)
            told = False
        if not told:
            details["bonus_seen"] = self._bonus_told(sampled, cells) & ~self._tiles_shown(
                cells, details
            )
        if not told and details["bonus_seen"].any():
            sampled, details = _with_bonus(sampled, details)
            cells = self._name_tiles(sampled, details)
        canvas_bgr = sampled.canvas_bgr
        if "ridges" in details:
            cells = tuple(
                hidden_ridges(
                    list(cells),
                    details["ridges"],
                    details["sector_levels"],
                    self.config,
                    details["band_plastic"],
                )
            )
        return BoardReading(True, cells, fit, canvas_bgr=canvas_bgr)

    def _clear_unveiled(self, frame_bgr: NDArray[np.uint8], fit: BoardFit) -> bool:
        """Whether a located lattice on which most cells read unclear reads as a board's
        once the veil of a lamp's glare is taken off (:func:`veil_lifted`).

        Glare over much of a board lifts its black frames towards the windows' and tiles'
        levels: the cells under it read as neither empty nor a tile, or as a tile seen
        elsewhere, and the lattice would be refused (:meth:`_untrusted`) however well its
        points hold it. Only a lattice held by ``enough_lattice_points`` is looked at so
        (a lattice off the board, over a plain surface, may read clearer without a veil;
        it is rarely held by so many points). Not on a dark table: its search fits
        lattices on dozens of outlines, off the board as often as on it, each of which
        would be read a second time (not measured there). The cells are then read as
        usual, and those unknown under the glare read again at the end
        (:meth:`_glare_rescued`).
        """
        if fit.points < self.config.enough_lattice_points or self._table_dark(frame_bgr):
            return False
        again = self._read_fitted(frame_bgr, fit, None, veiled=True)
        if self._untrusted(fit, again.cells):
            return False
        log.debug("a lattice whose cells read unclear reads clear with the veil of glare off")
        return True

    def _tiles_shown(
        self, cells: tuple[CellReading, ...], details: dict[str, Any]
    ) -> NDArray[np.bool_]:
        """(36,) bool: the cells named a tile (``cells``, with the ``details`` of their
        naming) whose colours are plainly the tile's (``plain_max_cost``) around a disc as
        navy as a tile's (``sure_disc_max_navy``).

        A tile over a bonus cell hides its see-through numeral, but its own creases, disc
        and sectors' edges can correlate with the big numeral's strokes (a red tile with
        dark creases, blurred, 0.85 with the x4 cell's 4). The numeral shows only through
        the board's black plastic, which no navy disc lies on: such a cell is the tile's.
        Unless its small numeral reads another value than the tile's (:data:`NUMERAL_DISAGREES`)
        in a photo whose numerals read as a sharp photo's do (``numeral_trust`` 1, or no
        tile to tell): a tile's own numeral is its value there, and the big numeral's
        strokes read at a tile's numeral's size are not (an empty x3 cell under a lamp's
        glare, its lifted plastic bluish and its darker part near navy, passed for BBB6
        with a "1"). Motion blur makes a tile's numeral read another value as clearly as
        its own (RRR6 on the x4 cell read "1"): it tells nothing there.
        """
        cfg = self.config
        shown = np.zeros(len(cells), dtype=bool)
        if "disc" not in details:  # (none named: a photo without colour)
            return shown
        told = numerals_told(details["numeral_trust"])
        for k, i in enumerate(details["candidates"]):
            _, navy = details["disc"][k]
            shown[i] = (
                cells[i].state == TILE
                and details["costs"][k] <= cfg.plain_max_cost
                and navy <= cfg.sure_disc_max_navy
                and not (told and cells[i].note.startswith(NUMERAL_DISAGREES))
            )
        return shown

    def _untrusted(self, fit: BoardFit, cells: tuple[CellReading, ...]) -> bool:
        """A found lattice held by few points on which most cells in the frame read as
        neither empty nor a tile: most likely a wrong fit (a corner guessed from a cut-off
        or covered outline, a lattice at the wrong scale), not a board to report.

        A fit left with fewer points than ``align_min_cells`` (the fewest cells a round
        of the fit may match) after its outliers are dropped is never trusted: a
        homography has eight unknowns, and five points fit some lattice almost exactly
        wherever it lies.
        """
        cfg = self.config
        if fit.points < cfg.align_min_cells:
            return True
        unknown, in_view = unclear_in_view(cells)
        n = max(in_view, 1)
        elsewhere = sum(looks_elsewhere(c.note) for c in cells)
        if fit.points >= cfg.trust_full_points:
            # Every cell of a board is a window or a tile: a lattice held by many points on
            # which nearly no cell in view reads as either, most of them looking like a
            # tile seen elsewhere, fits something else's pattern (a checked tablecloth's
            # squares, seen in perspective, fit it closely).
            return unknown >= cfg.trust_max_unclear * n and (
                elsewhere >= cfg.trust_full_min_elsewhere * n
            )
        if fit.points < cfg.trust_min_points:
            return unknown >= cfg.trust_max_unknown * n
        # Held by more points: only when nearly nothing reads, counting twice the cells
        # that look like a tile seen elsewhere (a lattice at the wrong scale repeats them).
        return unknown + elsewhere >= cfg.trust_max_unclear * n

    def _refit_on_discs(
        self, fit: BoardFit, details: dict[str, Any], *, joint: bool
    ) -> BoardFit | None:
        """A better fit from where the tiles' discs were actually seen, or None.

        Every tile's navy disc sits exactly on its cell's centroid, and the numeral reader
        finds it to about a pixel: with enough tiles these are the best lattice points.
        ``joint``: the fit's lattice points were seen in this frame (it was located in
        it), and may hold the board away from the discs (a stored fit's were seen in
        another frame, perhaps before the board was bumped).
        """
        cfg = self.config
        offsets, contrast = details.get("disc_offsets"), details.get("disc_contrast")
        if offsets is None or contrast is None:
            return None
        cells = np.asarray(details["candidates"], dtype=np.int64)
        good = contrast >= cfg.disc_refit_min_contrast
        # Too few discs to refit the lattice on may still tell how high the tiles are,
        # where the lattice's own tiles' points were too few to tell it (a board of few
        # tiles seen at a slant): a height is one unknown, and the windows hold the
        # board's plane. Where the lattice's tiles told a height, a few discs do not
        # overrule it.
        few = bool(good.sum() < cfg.disc_refit_min_tiles)
        # Fewer discs than hold a fit alone may still hold one with the lattice points
        # seen far from them (a located fit's): three tiles in a corner under a hand,
        # their discs at the edge of the numerals' search, say the lattice there is off
        # where the windows elsewhere say it is right. Such a refit is taken only
        # together with those lattice points, never on the discs alone, and only on
        # discs seen clearly (``disc_refit_joint_min_contrast``): in a blurred photo the
        # faint "discs" at the search's edge are as likely the lattice's own error.
        clear = contrast >= cfg.disc_refit_joint_min_contrast
        with_lattice = bool(
            few
            and joint
            and clear.sum() >= cfg.disc_refit_joint_min_tiles
            and fit.lattice is not None
            and len(fit.lattice[0])
        )
        if with_lattice:
            good = clear
        if (
            few
            and not with_lattice
            and not (
                good.sum() >= cfg.tile_height_min_points
                and fit.raised is not None
                and int(fit.raised.sum()) < cfg.tile_height_min_points
            )
        ):
            return None
        # Discs found at the edge of the numeral's search may lie further off (a lattice
        # extrapolated into a corner under a hand): they are looked for further, when
        # they are a few (``disc_refit_far_min``; one alone is as likely a disc the search
        # barely sees, and further off a spot of something else) and the discs found well
        # inside the search the most (they pin the lattice; were most at its edge, the
        # lattice itself would be off, and a disc further off may be another cell's). They
        # are looked for up to half way to a neighbour's disc: one found is this cell's.
        search = self.numerals.params.search_units
        edge = good & (np.linalg.norm(offsets, axis=1) >= cfg.disc_refit_edge * search)
        if cfg.disc_refit_far_min <= edge.sum() <= good.sum() / 2 and "canvas" in details:
            canvas_bgr, ppu = details["canvas"]
            far, seen = self.numerals.far_discs(
                canvas_bgr, cells[edge].tolist(), ppu, cfg, NEIGHBOUR_HALF
            )
            offsets = offsets.copy()
            offsets[np.flatnonzero(edge)[seen]] = far[seen]
        board_pts = CENTROIDS[cells[good]]
        scale = px_per_unit(fit.homography)
        image_pts = fit.to_image(board_pts + offsets[good])
        # the fit with the height the discs tell, where they tell another (as it is
        # where they need no refit)
        unmoved: BoardFit | None = None
        lens = fit.lens
        if cfg.tile_height_max > 0 and lens is not None:
            # The discs lie on the tiles' tops (read on their plane): with the empty
            # windows among the lattice points they tell how high those are, and are
            # taken down to the board's plane from there, as the lattice's tiles' points.
            seen = project(fit.tops(), board_pts + offsets[good])  # undistorted
            height = self._height_from_discs(fit, board_pts, seen, scale)
            if height != fit.tile_height:
                down = lowered(fit.homography, seen, np.ones(len(seen), bool), height, lens)
                image_pts = lens.distort(down)
                offsets = offsets.copy()
                offsets[good] = project(np.linalg.inv(fit.homography), down) - board_pts
                lattice = fit.lattice
                if lattice is not None and fit.raised is not None:
                    old = fit.tile_height
                    moved = relowered(fit.homography, lattice[1], fit.raised, old, height, lens)
                    lattice = (lattice[0], moved)
                fit = unmoved = replace(fit, tile_height=height, lattice=lattice)
        if few and not with_lattice:
            return unmoved
        shifts = np.linalg.norm(offsets[good], axis=1)
        # Refit when the discs say the lattice is off overall, or off somewhere (a wide
        # lens bends the board's far corners away from the lattice fitted to its middle).
        if (
            float(np.median(shifts)) < cfg.disc_refit_min_shift
            and float(shifts.max()) < cfg.disc_refit_max_shift
        ):
            return unmoved
        lens = fit.lens or Lens.none((1, 1))
        # The discs are found to about a pixel: of those USAC keeps, one several times
        # further off than most is a spot of something else (a fingertip, a bonus
        # numeral's stroke), not set aside by the lattice's looser threshold. Only on a
        # located fit, whose lattice points were seen in this frame and check the refit.
        # A stored fit's were seen in another frame and check little: on sample 09 with
        # its band covered, the second refit then found a third of its "discs" on empty
        # cells, more than the rule sets aside, and moved the apex 17 px.
        try:
            h, new_lens, keep, errors = fit_with_lens(
                board_pts,
                image_pts,
                lens,
                cfg.ransac_threshold * scale,
                cfg.max_lens_k,
                cfg.lens_min_f,
                cfg.lens_min_points,
                cfg.disc_refit_max_sigmas if joint else 0.0,
                noise_px=cfg.lens_noise_px,
            )
        except BoardNotFoundError:
            return unmoved
        discs = int(keep.sum())
        steep = perspective_limit(discs, cfg)
        if with_lattice:
            if discs < cfg.disc_refit_joint_min_tiles:
                return unmoved
        elif discs < cfg.disc_refit_min_tiles or not plausible(h, cfg, steep):
            return unmoved
        rms = float(np.sqrt(np.mean(errors**2)))
        # The lattice points stay what they were seen as: the next refit checks against
        # them too. A refit is taken only where it agrees with them, so it is held by as
        # many points as the fit it refines, or its discs if more (a board refitted on 16
        # discs is no weaker a find than the 25 lattice points it agrees with).
        points = max(discs, fit.points)
        better = BoardFit.from_homography(
            h, rms, rms / px_per_unit(h), points, new_lens, fit.lattice, fit.tile_height, fit.raised
        )
        if fit.lattice is None or not len(fit.lattice[0]):
            return better
        lat_board, lat_image = fit.lattice
        # board units from each lattice point to the nearest disc
        gap = np.linalg.norm(lat_board[:, None, :] - board_pts[None, :, :], axis=2).min(axis=1)
        slack = cfg.disc_refit_check_slack * scale  # px
        # The discs may all lie in one part of the board; the lattice points away from
        # them check that the new fit does not bend the rest of the board off.
        far = gap > cfg.disc_refit_check_distance

        def bends_away(refit: BoardFit) -> bool:
            """Whether ``refit`` moves the lattice points away from the discs off."""
            if far.sum() < cfg.disc_refit_check_points:
                return False
            before = np.linalg.norm(fit.to_image(lat_board[far]) - lat_image[far], axis=1)
            after = np.linalg.norm(refit.to_image(lat_board[far]) - lat_image[far], axis=1)
            limit = float(np.median(before)) + slack
            if float(np.median(after)) <= limit:
                return False
            log.debug(
                "disc refit kept: it moves %d lattice points away from the discs %.1f -> %.1f px",
                int(far.sum()),
                float(np.median(before)),
                float(np.median(after)),
            )
            return True

        # Discs all in one corner of the board hold that corner, and a fit on them alone
        # may swing the far side off: such a fit is not taken. Where the discs are too
        # few to hold a fit alone, it is never taken, yet they and the lattice points
        # far from them, fitted together below, may still hold the whole board. (Where
        # they are enough and still swing it, they disagree with the lattice there: on
        # the usual and harsh sets, a fit on both then misread more boards than it
        # mended.)
        if not with_lattice and bends_away(better):
            return unmoved
        # The lattice points further than ``disc_refit_lattice_distance`` from every disc
        # then hold the rest of the board where it was seen (near the discs, the discs are
        # the better points): the two are fitted together where they agree, the discs
        # (listed first) fitted as well, within ``disc_refit_check_slack``.
        other = gap > cfg.disc_refit_lattice_distance
        fallback = unmoved if with_lattice else better
        if not joint or not other.any():
            return fallback
        try:
            h2, lens2, keep2, errors2 = fit_with_lens(
                np.concatenate([board_pts, lat_board[other]]),
                np.concatenate([image_pts, lat_image[other]]),
                lens,
                cfg.ransac_threshold * scale,
                cfg.max_lens_k,
                cfg.lens_min_f,
                cfg.lens_min_points,
                noise_px=cfg.lens_noise_px,
            )
        except BoardNotFoundError:
            return fallback
        discs2 = int(keep2[: len(board_pts)].sum())
        rms2 = float(np.sqrt(np.mean(errors2[:discs2] ** 2)))
        # The discs are held as the fit on them alone held them: all of them, where that
        # fit is taken alone; where it is not, as many as hold a joint fit.
        least = cfg.disc_refit_joint_min_tiles if with_lattice else discs
        steep = perspective_limit(int(keep2.sum()), cfg)
        if discs2 < least or not plausible(h2, cfg, steep) or rms2 > rms + slack:
            log.debug(
                "joint disc refit not taken: %d of %d discs kept, rms %.1f -> %.1f px",
                discs2,
                discs,
                rms,
                rms2,
            )
            return fallback
        together = BoardFit.from_homography(
            h2,
            rms2,
            rms2 / px_per_unit(h2),
            points,
            lens2,
            fit.lattice,
            fit.tile_height,
            fit.raised,
        )
        if with_lattice and bends_away(together):
            return unmoved
        return together

    def _height_from_discs(
        self, fit: BoardFit, board_pts: FloatArray, seen: FloatArray, scale: float
    ) -> float:
        """The tiles' height the discs (at ``board_pts``, seen at undistorted pixels
        ``seen`` on the tiles' tops) and the fit's empty windows tell together
        (:func:`tile_height_told`); the fit's where they do not."""
        if fit.lattice is None or fit.raised is None or fit.lens is None:
            return fit.tile_height
        windows = ~fit.raised
        lat_board, lat_image = fit.lattice
        pts = np.concatenate([board_pts, lat_board[windows]])
        image = np.concatenate([seen, fit.lens.undistort(lat_image[windows])])
        tiles = np.r_[np.ones(len(board_pts), bool), np.zeros(int(windows.sum()), bool)]
        thresh = self.config.ransac_threshold * scale
        return tile_height_told(
            fit.homography, pts, image, tiles, fit.lens, thresh, self.config, fit.tile_height
        )

    def read_cells(
        self, frame_bgr: NDArray[np.uint8], fit: BoardFit, details: dict[str, Any] | None = None
    ) -> tuple[tuple[CellReading, ...], NDArray[np.uint8]]:
        """Read every cell with a known fit; returns the readings and the rectified canvas.

        ``details``, when given, is filled with the intermediate measurements of the tile
        candidates (``candidates``, sector ``labs``, ``costs``, ``worst``, ``disc`` stats,
        how far their ``flank`` patches name another colour than their sectors,
        ``disc_offsets`` and ``disc_contrast``, and the ``canvas`` they were read on with
        its px per unit, to look for discs further off): the lattice refit on the discs
        and the calibration's colour learning use them; and with the cells whose window is seen
        (``windows``), clearly so (``clear_windows``: a window explains it much better than
        a tile does) and unmistakable (``plain_windows``), (36,) bool each; the bonus cells
        told empty by their numerals (``bonus_seen``); the ``veils`` of glare taken off the
        candidates (a share of the white).
        """
        sampled = self._sample_cells(frame_bgr, fit, details)
        return self._name_tiles(sampled, details), sampled.canvas_bgr

    def _sample_cells(
        self,
        frame_bgr: NDArray[np.uint8],
        fit: BoardFit,
        details: dict[str, Any] | None,
        bonus: bool = True,
        *,
        veiled: bool = False,
    ) -> _Sampled:
        """The first half of :meth:`read_cells`: the frame rectified, each cell's window
        and frame, the tile candidates' colours and their numerals' scores (all that the
        refit on the discs needs). The bonus cells that their big numerals tell empty
        (``details["bonus_seen"]``, (36,) bool) are read so when ``bonus``; the board's
        veil of light is taken off first when ``veiled`` (:func:`veil_lifted`)."""
        cfg = self.config
        scale = px_per_unit(fit.homography)
        ppu = self._read_ppu(fit)
        canvas = Canvas(ppu)
        sigma = 0.5 * scale / ppu - 0.5
        src = cv2.GaussianBlur(frame_bgr, (0, 0), sigma) if sigma > 0.3 else frame_bgr
        canvas_bgr = warp_to_canvas(src, fit.homography, canvas, lens=fit.lens)
        valid = validity(frame_bgr.shape, fit.homography, canvas, fit.lens)
        if veiled:
            canvas_bgr = veil_lifted(canvas_bgr, valid, ppu, cfg)
        # A tile is a slab: at a tilt its top shows off its cell, where the plane of the
        # tiles' tops lies (the windows and the band lie in the board's).
        tiles_bgr = canvas_bgr
        shifts: FloatArray | None = None  # (36, 2) where the tiles' tops are seen moved
        if fit.tile_height > 0:
            tops = fit.tops(frame_bgr.shape)
            tiles_bgr = warp_to_canvas(src, tops, canvas, lens=fit.lens)
            if veiled:
                tiles_bgr = veil_lifted(tiles_bgr, valid, ppu, cfg)
            shifts = project(np.linalg.inv(fit.homography) @ tops, CENTROIDS) - CENTROIDS
        cell_zones, band = zones(ppu, cfg)
        packed = packed_zones(ppu, cfg)
        # A cell is seen when its sectors and most of its frame (``rim_min_seen``) are in
        # the frame: its outer edge, and the tip of its frame, may be cut off.
        rim_valid = pixels(valid, packed.rim_flat) == 255
        rim_seen = np.add.reduceat(rim_valid.astype(np.float64), packed.rim_starts)
        rim_total = np.diff(np.r_[packed.rim_starts, len(rim_valid)])
        seen = (rim_seen >= cfg.rim_min_seen * rim_total) & (
            np.minimum.reduceat(pixels(valid, packed.sectors_flat), packed.sector_starts)
            .reshape(-1, 3)
            .min(axis=1)
            == 255
        )
        value = value_channel(canvas_bgr)
        windows, clear_windows, plain_windows, leans = self._see_through(value, valid, ppu, shifts)
        # what a bonus cell's see-through numeral is read on
        bonus_bgr: NDArray[np.uint8] = canvas_bgr
        dark_table = self._table_dark(frame_bgr)
        ribs = rib_colour(canvas_bgr, canvas) if dark_table else None
        if ribs is not None:
            # On a dark table the windows may show it as dark as the ribs, or darker:
            # their shape is also looked for in the distance from the ribs' colour,
            # either way (the plastic dark in it, the windows and the tiles light, as in
            # the brightness of a board on a light table); a window either shows is seen.
            shapes = plastic_distance(canvas_bgr, ribs, *cfg.plastic_distance) * np.float32(255.0)
            also = self._see_through(shapes, valid, ppu, shifts)
            # (whether a cell leans to a window is asked off a dark table alone, below)
            windows, clear_windows, plain_windows = (
                windows | also[0],
                clear_windows | also[1],
                plain_windows | also[2],
            )
            bonus_bgr = self._bonus_view(canvas_bgr, ribs)
        if details is not None:
            details["windows"], details["plain_windows"] = windows, plain_windows
            details["clear_windows"] = clear_windows
        # (the plastic's black from whole frames only)
        black_srgb, field = self._black_field(
            canvas_bgr, value, valid, band, packed, canvas, windows, seen & (rim_seen == rim_total)
        )
        black = bgr_to_linear_rgb(black_srgb)
        # A bright reference: the brighter pixels on the playing area.
        # Statistics over many pixels sample about the same density per unit at any size.
        stride = _sample_stride(ppu, cfg)
        whole = pixels(value, packed.whole_flat[::stride]).astype(np.float64)  # max(B, G, R)
        bright = float(percentiles(whole, [97])[0]) if len(whole) else 255.0
        # (on a dark table, at least the plastic's own level: on an empty board there
        # nothing is bright, and a sixth of a tiny span is the photo's noise)
        least = float(black_srgb.max()) if dark_table else 8.0
        span = max(bright - float(black_srgb.max()), least, 8.0)

        darkness = _Darkness(black_srgb, field, span)

        # Every cell at once: how much of its frame is not plastic, its sectors' colours.
        def filled(
            canvas_px: NDArray[np.uint8], kept: NDArray[np.bool_], shade: bool = False
        ) -> FloatArray:
            """(36,) the share of each cell's frame seen (and ``kept``) not plastic
            (``shade``: as :class:`_Darkness` tells it)."""
            rim_px = pixels(canvas_px, packed.rim_flat)
            rim_dark = (darkness(rim_px, packed.rim, shade=shade) > cfg.dark_distance) & kept
            dark = np.add.reduceat(rim_dark.astype(np.float64), packed.rim_starts)
            total = np.add.reduceat(kept.astype(np.float64), packed.rim_starts)
            return dark / np.maximum(total, 1.0)  # type: ignore[no-any-return]

        # An empty cell's frame lies in the board's plane, a tile's corners in its top's.
        # A raised tile's walls and top stand over a neighbour's frame in the board's:
        # that part of the frame is not judged.
        rim_kept = rim_valid
        if shifts is None:
            fills = tile_fills = filled(canvas_bgr, rim_valid)
        else:
            rim_kept = rim_valid & ~overhung(packed.rim_points, packed.rim_cells, shifts)
            fills = filled(canvas_bgr, rim_kept)
            tile_fills = filled(tiles_bgr, rim_valid)
        sec_meds = segment_medians(
            pixels(tiles_bgr, packed.sectors_flat), packed.sector_starts
        ).reshape(-1, 3, 3)
        sec_levels = darkness(sec_meds.reshape(-1, 3), packed.sector_centres).reshape(-1, 3)
        sec_rows, sec_cols = (c.reshape(-1, 3) for c in packed.sector_centres)
        # A hand's shadow darkens an empty cell's frame and window below the plastic's
        # level the light field expects there: by their distance either way from it, they
        # are neither plastic nor a window, yet no tile is darker than the plastic it
        # lies on. A cell whose brightness looks more like a window than a tile
        # (``window_empty_margin``), whose frame is plastic and sectors dark where what is
        # darker than the plastic counts as plastic, is empty in a shadow. (Not on a dark
        # table: there every window shows the table about as dark as the plastic, or
        # darker, shadow or not, and the levels tell an empty cell from a tile nothing.)
        shaded = np.flatnonzero(seen & leans & ~windows & (not dark_table))
        in_shade = np.zeros(len(cell_zones), dtype=bool)
        if len(shaded):
            shade_fills = filled(canvas_bgr, rim_kept, True)
            flat_meds = sec_meds[shaded].reshape(-1, 3)
            where = (sec_rows[shaded].ravel(), sec_cols[shaded].ravel())
            shade_levels = darkness(flat_meds, where, shade=True).reshape(-1, 3)
            in_shade[shaded] = (shade_fills[shaded] <= cfg.occupancy_max_empty_fill) & (
                shade_levels <= cfg.dim_sector_distance
            ).all(axis=1)

        # A dark tile (all purple, say) at a low resolution: its disc's light halo and
        # numeral look like a window's light triangle, and its own dark colour like the
        # plastic of most of its frame. The numeral, which no window shows, tells it. So
        # it does for a tile whose dark sectors or a deep shadow make its frame look like
        # plastic, where no window is seen (an empty cell over a dark cloth shows none
        # either): not empty, and a tile if its colours show. A frame that is not plastic
        # around sectors of which some are coloured and some as dark as the plastic (a
        # purple sector on a dark table, in dim light) is a tile's too if its numeral
        # shows: without it, neither empty nor a tile.
        lit = sec_levels > cfg.dim_sector_distance
        part_lit = lit.any(axis=1) & ~lit.all(axis=1) & (fills > cfg.occupancy_max_empty_fill)
        unsure = np.flatnonzero(
            seen
            & (
                windows & ~plain_windows & (fills < cfg.window_max_fill)
                | ~windows & (fills <= cfg.occupancy_max_empty_fill)
                | part_lit
            )
        )
        numeral_seen = np.zeros(len(cell_zones), dtype=bool)
        if len(unsure):
            corr, _, _ = self.numerals.scores(tiles_bgr, unsure.tolist(), ppu, cfg)
            numeral_seen[unsure] = corr.max(axis=1) >= cfg.window_numeral_corr
        # An empty bonus cell shows its big see-through numeral, which no tile shows (its
        # own numeral is a third as big): under haze or glare its black frame may not look
        # like plastic, but the numeral, as big as the board's design prints it, tells
        # (at the best of :attr:`bonus_sizes`).
        # (On a dark table the numeral shows the table as dark as the plastic, or
        # darker, and a tile's numeral may seem to show in it: every bonus cell whose
        # window is not seen is looked at so. So is one whose frame is plastic but in
        # which a tile's numeral seemed to show, a stroke of its own: at a low resolution
        # (a board a third of a portrait photo) the big numeral's strokes pass for a
        # small one, and the cell would be named a tile. So is one whose window is seen
        # but in which a tile's numeral seemed to show: there the window's edges and the
        # big numeral's strokes pass for a small one, which would make the cell a dark
        # tile's light centre.)
        doubtful = np.flatnonzero(
            seen
            & (BONUS > 1)
            & (~windows & ((fills > cfg.occupancy_max_empty_fill) | dark_table) | numeral_seen)
        )
        # (read without them, a lattice is judged, moved and refitted first: they are
        # looked for only on the fit finally read, :meth:`_bonus_told`)
        bonus_seen = self._bonus_seen(bonus_bgr, doubtful, ppu) if bonus else None
        if details is not None and bonus_seen is not None:
            details["bonus_seen"] = bonus_seen
        states: list[str] = []
        notes: list[str] = []
        sector_lin: list[FloatArray] = []
        sector_srgb = np.zeros((0, 3, 3))
        flank_lin = np.zeros((0, 3, 2, 3))
        disc_lin: list[FloatArray] = []
        glares: list[float] = []
        candidates: list[int] = []
        weak: list[bool] = []
        #: bonus cells told empty by their numeral that look like a tile's otherwise
        told_over_tiles: list[int] = []
        for i in range(len(cell_zones)):
            if not seen[i]:
                states.append(UNKNOWN)
                notes.append(OUTSIDE)
                continue
            fill = float(tile_fills[i])
            # Sectors unlike the plastic; one nearly as dark (purple or blue in dim or
            # tungsten light) makes the reading weak, like a frame partly dark. A numeral
            # read clearly says a tile is there, however dark its sectors: it is named if
            # its numeral vouches for the tile its colours name.
            coloured = bool(lit[i].all())
            # A tile stands on its cell's frame: in the board's plane too, its frame is
            # no plastic. One that is, where no raised neighbour stands over it, is an
            # empty cell's, however its window is hidden (a raised tile's walls over it)
            # and whatever shows on the tiles' tops' plane.
            both_planes = min(fill, float(fills[i]))
            tile_like = (coloured and both_planes > cfg.occupancy_max_empty_fill) or bool(
                numeral_seen[i]
            )
            if bonus_seen is not None and bonus_seen[i]:
                states.append(EMPTY)
                notes.append("")
                if tile_like:
                    told_over_tiles.append(i)
                continue
            # A window seen through a frame that is not plastic is a dark tile's light
            # centre (its numeral) instead, unless its shape is unmistakable: then the
            # frame is plastic under glare or haze (no tile shows a window's shape).
            if (
                windows[i]
                and (fills[i] < cfg.window_max_fill or plain_windows[i])
                and not numeral_seen[i]
            ):
                states.append(EMPTY)
                notes.append("")
                continue
            if in_shade[i] and not numeral_seen[i]:
                states.append(EMPTY)
                notes.append(IN_SHADE)
                continue
            if tile_like:
                # A frame partly dark (a dark tile in shadow, or a hand's edge): a tile if
                # its disc and numeral say so clearly, below.
                strong = fill >= cfg.occupancy_min_fill and bool(
                    (sec_levels[i] > cfg.dark_distance).all()
                )
                states.append(TILE if strong else UNKNOWN)
                notes.append("" if strong else COVERED)
                weak.append(not strong)
                candidates.append(i)
            elif fills[i] <= cfg.occupancy_max_empty_fill and not numeral_seen[i]:
                states.append(EMPTY)
                notes.append("")
            else:
                states.append(UNKNOWN)
                notes.append(COVERED)
        numerals = (np.zeros(0), np.zeros(0))
        if candidates:
            # The numerals are read first: where a tile's disc, and its neighbours', say
            # it lies off its cell (the lattice a little off there, a raised tile's
            # parallax where its height was not told) by more than its flank patches'
            # margin, its sectors and their flanks are read where it lies (its disc is
            # read where the numeral reader found it).
            num_scores, num_contrast, num_offsets = self.numerals.scores(
                tiles_bgr, candidates, ppu, cfg
            )
            numerals = (num_scores, num_contrast)
            shifts = tile_shifts(
                candidates,
                candidates,
                num_offsets,
                num_contrast,
                cfg,
                self.numerals.params.search_units,
                own=True,
                least=HALF_SECTOR_INRADIUS - cfg.sector_radius,
            )
            step = np.round(shifts * ppu).astype(np.int64)
            moves = step[:, 1] * tiles_bgr.shape[1] + step[:, 0]  # (K,) in flat index
            cand_meds = sec_meds[candidates]
            if moves.any():
                sec_px, sec_starts = cell_segments(
                    packed.sectors_flat, packed.sector_starts, 3, candidates
                )
                moved_px = moved_segments(sec_px, sec_starts, 3, moves, value.size)
                cand_meds = segment_medians(pixels(tiles_bgr, moved_px), sec_starts).reshape(
                    -1, 3, 3
                )
            # Light reflected off the plastic there (glare) is reflected off the tile too:
            # take it away, as an offset, before the colours are judged.
            where = (sec_rows[candidates].ravel(), sec_cols[candidates].ravel())
            lit = bgr_to_linear_rgb(black_srgb * field(where)[:, None])  # (K * 3, 3)
            glare = np.maximum(lit - black, 0.0).reshape(-1, 3, 3)
            seen_lin = bgr_to_linear_rgb(cand_meds)  # (K, 3, 3)
            # Reflected light adds to every sector alike: no more than the tile's darkest
            # sector shows in its weakest channel (a hand over the band beside it lifts
            # the plastic's level there, but not the tile's colours).
            glare = np.minimum(glare, seen_lin.min(axis=(1, 2))[:, None, None])
            glares = glare.max(axis=(1, 2)).tolist()
            sector_lin = list(seen_lin - glare)
            sector_srgb = cand_meds / 255.0
            flank_px, flank_starts = cell_segments(
                packed.flanks_flat, packed.flank_starts, 6, candidates
            )
            if moves.any():
                flank_px = moved_segments(flank_px, flank_starts, 6, moves, value.size)
            flank_meds = segment_medians(pixels(tiles_bgr, flank_px), flank_starts)
            flank_lin = bgr_to_linear_rgb(flank_meds.reshape(-1, 3, 2, 3)) - glare[:, :, None, :]
            # A cell whose window shows clearly (in the board's plane) has its disc looked
            # for there: on the plane of raised tiles' tops, the window is seen moved and
            # its black frame falls on the disc's place, as dark as a navy disc.
            disc_lin = [
                bgr_to_linear_rgb(
                    (canvas_bgr if clear_windows[i] else tiles_bgr)[cell_zones[i].disc]
                )
                - g.mean(axis=0)
                for i, g in zip(candidates, glare, strict=True)
            ]
        readings: list[CellReading] = [
            CellReading(i, s, note=n) for i, (s, n) in enumerate(zip(states, notes, strict=True))
        ]
        if details is not None:
            details["candidates"] = candidates
            if told_over_tiles:
                details["told_over_tiles"] = told_over_tiles
        if candidates and details is not None:
            details["disc_offsets"] = num_offsets
            details["disc_contrast"] = num_contrast
            details["canvas"] = (tiles_bgr, ppu)
        return _Sampled(
            canvas_bgr,
            tiles_bgr,
            valid,
            ppu,
            readings,
            darkness,
            sec_levels,
            clear_windows,
            black,
            candidates,
            weak,
            glares,
            sector_lin,
            sector_srgb,
            flank_lin,
            disc_lin,
            numerals,
            bonus_bgr,
            doubtful.astype(np.int64),
        )

    def _bonus_seen(
        self,
        bonus_bgr: NDArray[np.uint8],
        doubtful: NDArray[np.int64],
        ppu: int,
        bare: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.bool_]:
        """(36,) bool: the ``doubtful`` bonus cells whose big see-through numeral shows on
        ``bonus_bgr`` (a canvas of ``ppu``), at the best of :attr:`bonus_sizes`: empty.

        The numeral must be the best of the six there, at ``bonus_numeral_corr``; on the
        cells ``bare`` (36,) bool, at the numeral reader's ``corr_good``, a numeral read
        clearly. A bare cell shows neither a tile's colours nor its disc
        (:data:`NO_TILE`), or looks only like a tile that lies on another cell
        (:func:`looks_elsewhere`): no tile of the set is named there, and what is left to
        ask is only whether something covers the cell, which its own numeral read at all
        answers (over a dark table it shows faintly, the table's dark through the
        plastic's black, and the table's tint may pass for a tile's colours)."""
        cfg = self.config
        bonus_seen = np.zeros(len(CENTROIDS), dtype=bool)
        if len(doubtful):
            corr = np.max(
                [
                    self.numerals.scores(bonus_bgr, doubtful.tolist(), ppu, cfg, size=size)[0]
                    for size in self.bonus_sizes
                ],
                axis=0,
            )
            own = corr[np.arange(len(doubtful)), BONUS[doubtful] - 1]
            least = np.full(len(doubtful), cfg.bonus_numeral_corr)
            if bare is not None:
                least[bare[doubtful]] = self.numerals.params.corr_good
            bonus_seen[doubtful] = (own >= least) & (own >= corr.max(axis=1))
        return bonus_seen

    def _bonus_told(
        self, sampled: _Sampled, cells: Sequence[CellReading] | None = None
    ) -> NDArray[np.bool_]:
        """:meth:`_bonus_seen` of a reading sampled without the bonus numerals, its
        ``cells`` as named if they are (those read unknown as :data:`NO_TILE`, or as
        looking like a tile on another cell, are bare)."""
        bare = None
        if cells is not None:
            bare = np.array(
                [
                    c.state == UNKNOWN and (c.note == NO_TILE or looks_elsewhere(c.note))
                    for c in cells
                ]
            )
        return self._bonus_seen(sampled.bonus_bgr, sampled.doubtful, sampled.ppu, bare)

    def _name_tiles(
        self, sampled: _Sampled, details: dict[str, Any] | None
    ) -> tuple[CellReading, ...]:
        """The second half of :meth:`read_cells`: each tile candidate named (its colours
        judged against the light the board shows, with its numeral) or doubted."""
        cfg = self.config
        canvas_bgr, readings, candidates = sampled.canvas_bgr, sampled.readings, sampled.candidates
        if not candidates:
            return tuple(readings)
        if self._no_colour(sampled):
            return self._colourless(sampled)
        weak, glares, sector_lin, disc_lin = (
            sampled.weak,
            sampled.glares,
            sampled.sector_lin,
            sampled.disc_lin,
        )
        black, (num_scores, num_contrast) = sampled.black, sampled.numeral_scores
        valid, ppu, darkness = sampled.valid, sampled.ppu, sampled.darkness
        # The tiles read clearly set the white, the light's reference and the tint. Where
        # a few numerals read clearly (the photo is sharp enough for them), the white is
        # theirs, and a candidate whose disc shows no numeral's contrast is no tile to set
        # the tint (an arm over many cells would set its own white and tint).
        in_sure = ~np.array(weak, dtype=bool)
        if not in_sure.any():
            in_sure[:] = True
        params = self.numerals.params
        reference = in_sure & (num_scores.max(axis=1) >= params.corr_good)
        if reference.sum() >= cfg.white_min_numerals:
            shown = float(np.median(num_contrast[reference]))
            in_sure &= num_contrast > max(params.contrast_floor, cfg.sure_contrast_share * shown)
        else:
            reference = in_sure
        sure = np.flatnonzero(in_sure).tolist()
        stats = disc_stats(disc_lin)
        white = self._white_point(stats, reference, [sector_lin[k] for k in sure], black)
        # The light falls off across the board (a lamp's cone, vignetting): each tile is
        # judged against the white the smooth light field gives at its place.
        light = self._light_field(stats, CENTROIDS[candidates], black, white, reference)
        whites = black + (white - black) * light[:, None]  # (K, 3)
        gains, chroma = self._palette_gains(
            [sector_lin[k] for k in sure], black, [whites[k] for k in sure]
        )
        numeral_costs = scores_to_costs(num_scores, num_contrast, self.numerals.params)

        def judge(veils: FloatArray, trust: float | None = None) -> _Judged:
            return self._judge(
                np.stack(sector_lin) - veils[:, None, :],
                replace(stats, dark=stats.dark - veils),
                black,
                whites,
                gains,
                chroma,
                numeral_costs,
                trust,
            )

        judged = judge(np.zeros_like(whites))
        veils = self._veils(judged, stats, black, whites, gains)
        if (veils > 0).any():
            # Light reflected off a tile (a lamp's glare on its gloss) is added to all it
            # shows: its navy disc as much as its colours. Taken away as the disc tells,
            # where the tile's numeral then vouches for the tile so read: a hand's
            # "disc" tells no veil, and under it no numeral reads.
            veiled = judge(veils, judged.trust)
            taken = np.array([vouched(g, cfg) for g in veiled.guesses]) & (veils > 0).any(axis=1)
            if taken.any():
                veils[~taken] = 0.0
                judged = judge(veils, judged.trust)
        labs = judged.labs
        guesses, first_guesses, seen_palette = judged.guesses, judged.first, judged.seen_palette
        disc_contrasts, disc_navy, fit_share = judged.contrasts, judged.navy, judged.fit_share
        structure_ok = [
            (float(c), float(m))
            for c, m in zip(disc_contrasts, disc_navy[:, fit_share], strict=True)
        ]
        flank = self._flank_disagreement(sampled, judged, veils, black, whites, gains, chroma)
        flank_limit = cfg.flank_max_share * self._nearest_colours()
        if details is not None:
            details["flank"] = flank
            details["labs"] = list(labs)
            details["costs"] = [g.cost for g in guesses]
            details["numeral_trust"] = judged.trust
            details["worst"] = [g.worst_edge for g in guesses]
            details["disc"] = structure_ok
            details["veils"] = (veils * gains / (whites - black)).mean(axis=1)
        held = {g.tile for g in guesses}
        held_first = {g.tile for g in first_guesses}
        for k, (i, guess) in enumerate(zip(candidates, guesses, strict=True)):
            contrast, navy = structure_ok[k]
            glared = glares[k] > cfg.glare_limit * float(white.max())
            lightness = float(labs[k, :, 0].mean())
            doubt_of = partial(
                tile_doubt,
                contrast=contrast,
                navy=navy,
                weak=weak[k],
                glared=glared,
                cfg=cfg,
                lightness=lightness,
            )
            doubt = doubt_of(guess, unread_joker=True, held=held)
            if doubt is None and seen_palette is not None and not vouched(guess, cfg):
                # The photo's own palette names only tiles its numeral vouches for that
                # the printed palette would not name.
                first = first_guesses[k]
                doubt = doubt_of(first, unread_joker=first.tile == guess.tile, held=held_first)
            if doubt is None and flank[k] > flank_limit:
                # One piece of plastic shows one colour: a flank patch of another colour is
                # a fingertip or a held tile over part of the sector.
                doubt = PART_OTHER
            # The light window of an empty cell shows clearly with no navy disc in it (a
            # dark tile's numeral in its disc looks like a window): an empty cell whose
            # frame glare or haze lightens, even where its colours and a "numeral" (the
            # window's own pattern, glare-lit) name a tile.
            window_no_disc = bool(sampled.clear_windows[i]) and navy > cfg.disc_max_navy
            log.debug(
                "cell %d: %s numeral %s cost %.1f runner-up %.1f worst edge %.1f disc %.2f"
                " navy %.1f weak %s glared %s flank %.2f/%.2f: %s",
                i,
                guess.tile,
                guess.numeral,
                guess.cost,
                guess.runner_up,
                guess.worst_edge,
                contrast,
                navy,
                weak[k],
                glared,
                flank[k],
                flank_limit,
                "empty: a clear window, no disc"
                if window_no_disc
                else ("ok" if doubt is None else (doubt or COVERED)),
            )
            if doubt is not None or window_no_disc:
                if window_no_disc:
                    readings[i] = CellReading(i, EMPTY)
                elif doubt:  # else it stays "covered or unclear"
                    readings[i] = CellReading(i, UNKNOWN, note=doubt)
                continue
            margin = guess.runner_up - guess.cost
            confidence = float(1.0 - math.exp(-max(margin, 0.0) / 12.0))
            note = ""
            if guess.numeral is not None and guess.numeral != guess.tile.value:
                note = f"{NUMERAL_DISAGREES} {guess.numeral} but the colours say {guess.tile}"
                # (as much as the photo's numerals are trusted)
                confidence *= 1.0 - 0.5 * judged.trust
            alternatives = tuple(
                (Placement(i, *edges, tile.value), cost) for tile, edges, cost in guess.alternatives
            )
            readings[i] = CellReading(
                i, TILE, guess.edges, guess.tile.value, confidence, note, alternatives
            )
        tiles = [c.index for c in readings if c.state == TILE]
        if details is not None and tiles:
            rows, cols = (a[tiles] for a in ridge_samples(ppu, cfg))  # (T, 3, A, P)
            if "disc_offsets" in details:
                # Each tile's ridges are read about where its disc and its neighbours'
                # say it lies: a lattice a tenth of a cell off there (near a corner of
                # the frame, where the lens bends it) reads the tile's sectors well
                # inside them, but misses the narrow ridge beside it.
                shifts = tile_shifts(
                    tiles,
                    details["candidates"],
                    details["disc_offsets"],
                    details["disc_contrast"],
                    cfg,
                    self.numerals.params.search_units,
                )
                moved = np.round(shifts * ppu).astype(np.int64)[:, :, None, None, None]
                height, width = sampled.tiles_bgr.shape[:2]
                cols = np.clip(cols + moved[:, 0], 0, width - 1)
                rows = np.clip(rows + moved[:, 1], 0, height - 1)
            dark = darkness(
                sampled.tiles_bgr[rows, cols].reshape(-1, 3), (rows.ravel(), cols.ravel())
            )
            ridges = np.full((len(readings), 3), np.nan)
            ridges[tiles] = np.quantile(
                dark.reshape(rows.shape).min(axis=-1), cfg.ridge_along_quantile, axis=-1
            )
            details["ridges"], details["sector_levels"] = ridges, sampled.sector_levels
            plastic = np.zeros(3, bool)
            stride = _sample_stride(ppu, cfg)
            for k, (rows, cols) in enumerate(band_sides(ppu, *cfg.band_strip)):
                inside = valid[rows, cols] == 255
                if inside.any():
                    where = (rows[inside][::stride], cols[inside][::stride])
                    level = np.median(darkness(canvas_bgr[where], where))
                    plastic[k] = level < cfg.dark_distance
            details["band_plastic"] = plastic
        costs = {i: g.cost for i, g in zip(candidates, guesses, strict=True)}
        return tuple(beside_covered(readings, cfg, costs, numerals_told(judged.trust)))

    def _nearest_colours(self) -> float:
        """The colour distance between the two nearest colours of the palette (blue and
        purple as printed; a calibration's prototypes may set them further apart or
        nearer)."""
        protos = np.stack([self.prototypes[c] for c in TILE_COLOURS])
        apart = self._sector_costs(protos[:, None, :], self.prototypes)[:, 0, :]
        return float(apart[~np.eye(len(protos), dtype=bool)].min())

    def _flank_disagreement(
        self,
        sampled: _Sampled,
        judged: _Judged,
        veils: FloatArray,
        black: FloatArray,
        whites: FloatArray,
        gains: FloatArray,
        chroma: float,
    ) -> FloatArray:
        """(K,) for each candidate: how much more its worst flank patch costs as the
        colour its tile gives that edge than as the nearest other colour (below 0: every
        flank names the edge's colour), a highlight over it taken off. The patches are
        seen as the sectors were judged (``judged``): the veils taken off, normalised to
        the light, against the palette as printed or as the photo shows it, whichever is
        nearer."""
        flank_lin = sampled.flank_lin - veils[:, None, None, :]
        k = len(flank_lin)
        norm = normalise(flank_lin, black, whites[:, None, None, :]) * gains
        # A highlight of the lamp on the glossy plastic adds the light's colour (white once
        # normalised) to part of a sector: what a flank shows above its sector's middle in
        # every channel alike is taken off (a fingertip or another tile's colour differs
        # from the sector's in hue, and is left).
        above = (norm - judged.sectors[:, :, None, :]).min(axis=-1, keepdims=True)
        norm = norm - np.maximum(above, 0.0)
        labs = _scaled_chroma(linear_rgb_to_lab(norm), chroma).reshape(k, 6, 3)
        costs = self._sector_costs(labs, self.prototypes)  # (K, 6, 6)
        if judged.seen_palette is not None:
            costs = np.minimum(costs, self._sector_costs(labs, judged.seen_palette))
        colour = np.array(
            [[TILE_COLOURS.index(c) for c in g.edges] for g in judged.guesses]
        ).repeat(2, axis=1)  # (K, 6)
        rows, cols = np.arange(k)[:, None], np.arange(6)[None, :]
        own = costs[rows, cols, colour]
        others = costs.copy()
        others[rows, cols, colour] = np.inf
        return (own - others.min(axis=2)).max(axis=1)  # type: ignore[no-any-return]

    def _judge(
        self,
        sector_lin: FloatArray,
        stats: DiscStats,
        black: FloatArray,
        whites: FloatArray,
        gains: FloatArray,
        chroma: float,
        numeral_costs: FloatArray,
        trust: float | None = None,
    ) -> _Judged:
        """The candidates' tiles named from their sectors ``sector_lin`` (K, 3, 3) linear
        RGB and numerals' costs, under the light ``whites`` (K, 3) and tint; and their
        discs judged, with the share of blur that fits the plain tiles' discs. The
        numerals weigh as much as the photo's plain tiles show they read right
        (:func:`numeral_trust`), measured here unless ``trust`` (a property of the photo,
        measured once) is given."""
        cfg = self.config
        sectors = normalise(sector_lin, black, whites[:, None, :]) * gains  # (K, 3, 3)
        labs = _scaled_chroma(linear_rgb_to_lab(sectors), chroma)
        sector_costs = self._sector_costs(labs, self.prototypes)
        if trust is None:
            trust = numeral_trust(
                sector_costs,
                numeral_costs,
                cfg.vouched_min_margin,
                cfg.plain_max_cost,
                cfg.disc_blur_min_tiles,
                cfg.numeral_sharp_agreement,
            )
        numeral_costs = numeral_costs * trust
        # A reading past colour_reject_distance is refused, whatever else it shows: no
        # pairing costs more in the assignment.
        reject = cfg.colour_reject_distance
        guesses = identify(sector_costs, numeral_costs, cfg.numeral_weight, reject_cost=reject)
        disc_contrasts, disc_navy = self._discs(
            stats, black, whites, gains, chroma, sectors.mean(axis=1)
        )
        # Each tile exists once, but only a cell that could hold it competes for it: one
        # with no disc holds none, and a palm as white as the joker without the joker's
        # navy disc or numeral takes it from no joker.
        refused = self._refused_pairings(
            disc_contrasts,
            disc_navy[:, self._blur_share(self._plain(guesses), disc_navy)],
            labs[:, :, 0].mean(axis=1),
            read_numerals(numeral_costs),
        )
        tile_index = {t: j for j, t in enumerate(set_tiles()[0])}
        if any(refused[k, tile_index[g.tile]] for k, g in enumerate(guesses)):
            guesses = identify(
                sector_costs, numeral_costs, cfg.numeral_weight, reject_cost=reject, refused=refused
            )
        first_guesses = guesses
        seen_palette = self._seen_palette(labs, guesses)
        if seen_palette is not None:
            # Each sector against the nearer of the two palettes: the light may differ
            # across the board (a lamp's glare on part of it), and tiles read well as
            # printed stay so.
            seen_costs = self._sector_costs(labs, seen_palette)
            guesses = identify(
                np.minimum(sector_costs, seen_costs),
                numeral_costs,
                cfg.numeral_weight,
                reject_cost=reject,
                refused=refused,
            )
        plain = self._plain(guesses)
        fit_share = self._blur_share(plain, disc_navy)
        return _Judged(
            sectors,
            labs,
            guesses,
            first_guesses,
            seen_palette,
            disc_contrasts,
            disc_navy,
            fit_share,
            plain,
            trust,
        )

    def _plain(self, guesses: list[TileGuess]) -> list[int]:
        """The candidates plain from their colours or their numeral (not the joker)."""
        cfg = self.config
        return [
            k
            for k, g in enumerate(guesses)
            if not g.tile.is_joker and (g.numeral == g.tile.value or g.cost <= cfg.plain_max_cost)
        ]

    def _blur_share(self, plain: list[int], disc_navy: FloatArray) -> int:
        """How much blur mixes the numeral's white into the navy: one property of the
        photo, the share (an index into the shares tried) that fits best the discs
        ``disc_navy`` (K, S) of the candidates ``plain`` (:meth:`_plain`: not a hand's
        "disc"). A little is no blur (the disc's halo), and a few tiles do not tell: pure
        navy is asked for then (0)."""
        cfg = self.config
        if len(plain) < cfg.disc_blur_min_tiles:
            return 0
        share = int(np.argmin(np.median(disc_navy[plain], axis=0)))
        if (
            self.navy_shares[share] < cfg.disc_blur_min_white
            and self.colour_shares[share] < cfg.disc_blur_min_white
        ):
            return 0
        return share

    def _refused_pairings(
        self,
        contrast: FloatArray,
        navy: FloatArray,
        lightness: FloatArray,
        numerals: list[int | None],
    ) -> NDArray[np.bool_]:
        """(K, T) bool: the candidates' pairings with the set's tiles that
        :func:`tile_doubt` refuses whatever they cost: every tile on a cell whose disc
        shows no contrast (``contrast`` (K,)), and the joker where :func:`joker_doubt`
        refuses it (its disc's ``navy`` (K,), its sectors' mean L* ``lightness`` (K,),
        its ``numerals``)."""
        cfg = self.config
        tiles = set_tiles()[0]
        out = np.zeros((len(contrast), len(tiles)), dtype=bool)
        out[contrast < cfg.disc_min_contrast, :] = True
        no_joker = [
            joker_doubt(v, float(m), float(lt), cfg) is not None
            for v, m, lt in zip(numerals, navy, lightness, strict=True)
        ]
        out[:, [t.is_joker for t in tiles]] |= np.array(no_joker, dtype=bool)[:, None]
        return out

    def _veils(
        self,
        judged: _Judged,
        stats: DiscStats,
        black: FloatArray,
        whites: FloatArray,
        gains: FloatArray,
    ) -> FloatArray:
        """(K, 3) linear RGB: the light each candidate reflects over what it shows (glare
        on its gloss), 0 where none is told.

        Its disc is navy, mixed with as much of the numeral's white and of the sectors'
        colours as blur mixes in the plain tiles (``judged.fit_share``). What the disc's
        dark part shows above that in its weakest channel (reflected light has the
        light's colour, white once normalised), beyond what the plain tiles' discs show,
        and up to the weakest channel of its darkest sector, is the veil. Under
        ``veil_min`` of the white, none is told.
        """
        cfg = self.config
        share = judged.fit_share
        ws, cs = float(self.navy_shares[share]), float(self.colour_shares[share])
        around = judged.sectors.mean(axis=1)  # (K, 3)
        expected = (1.0 - ws - cs) * self.navy_linear + ws + cs * around  # (K, 3)
        seen = normalise(stats.dark, black, whites) * gains
        excess = (seen - expected).min(axis=1)  # (K,) of the white
        # Against the navy the plain tiles' discs show in this photo (a camera's tone
        # curve, the disc's own gloss), as glare lies on part of the board only.
        if len(judged.plain) >= cfg.disc_blur_min_tiles:
            excess = excess - float(np.median(excess[judged.plain]))
        veil = np.maximum(excess, 0.0)
        # Nor more than the tile's darkest sector shows in its weakest channel: the veil is
        # over all of it. (A window's "disc" shows the table, around a black frame.)
        veil = np.minimum(veil, judged.sectors.min(axis=(1, 2)))
        veil[(veil < cfg.veil_min) | (stats.counts < 6)] = 0.0
        return veil[:, None] * (whites - black) / gains

    def _no_colour(self, sampled: _Sampled) -> bool:
        """Whether the photo has no colour at all: the tile candidates' sectors as seen
        show none (:func:`colour_spread`), and, with fewer than ``colourless_min_tiles``
        of them (an empty cell under glare may be one), nor does the whole board."""
        cfg = self.config
        sectors = sampled.sector_srgb.reshape(-1, 3)
        if colour_spread(sectors) > cfg.colourless_max_spread:
            return False
        if len(sampled.candidates) >= cfg.colourless_min_tiles:
            return True
        seen = sampled.canvas_bgr[sampled.valid == 255]
        stride = _sample_stride(sampled.ppu, cfg)
        return colour_spread(seen[::stride] / 255.0) <= cfg.colourless_max_spread

    def _colourless(self, sampled: _Sampled) -> tuple[CellReading, ...]:
        """The readings of a photo with no colour: its tile candidates are unknown, their
        colours unreadable; the value their numeral seems to show, if any, in the note."""
        readings = list(sampled.readings)
        scores, contrast = sampled.numeral_scores
        costs = scores_to_costs(scores, contrast, self.numerals.params)
        # A numeral read clearly (its runner-up value costs colourless_numeral_margin
        # more) says a tile is there: the cell keeps the value, though unknown.
        ordered = np.sort(costs, axis=1)
        clear = ordered[:, 1] - ordered[:, 0] >= self.config.colourless_numeral_margin
        for k, (i, seems) in enumerate(zip(sampled.candidates, read_numerals(costs), strict=True)):
            lead = "" if seems is None else f"a tile whose numeral looks like {seems}; "
            value = seems if clear[k] else None
            readings[i] = CellReading(i, UNKNOWN, value=value, note=lead + COLOURLESS)
        return tuple(readings)

    def _sector_costs(self, labs: FloatArray, palette: dict[Colour, FloatArray]) -> FloatArray:
        """The colour distance (K, 3 edges, 6 colours) of the sectors ``labs`` (K, 3, 3)
        Lab to each colour of ``palette``, in ``TILE_COLOURS`` order."""
        weight = self.config.colour_lightness_weight
        return np.stack([colour_distance(labs, palette[c], weight) for c in TILE_COLOURS], axis=-1)

    def _seen_palette(
        self, labs: FloatArray, guesses: list[TileGuess]
    ) -> dict[Colour, FloatArray] | None:
        """The palette as this photo shows it, from the tiles its numerals vouch for; or
        None when none is.

        ``labs`` (K, 3 edges, 3) are the candidates' sectors in normalised Lab. The
        normalisation leaves what one gain per channel cannot fix: a lamp's spectrum,
        glare over the board, a camera's own colour rendering. A tile whose numeral
        reads its value and whose colours name it clearly (by ``vouched_min_margin``)
        shows its colours as the photo renders them; each colour's prototype moves to
        the median of its sectors so seen, by the share n / (n + ``seen_palette_prior``)
        of its n sectors (a colour seen once moves little, one seen often to what is
        seen).
        """
        cfg = self.config
        samples: dict[Colour, list[FloatArray]] = {c: [] for c in TILE_COLOURS}
        for k, g in enumerate(guesses):
            if not vouched(g, cfg) or g.cost > cfg.tile_doubt_limit:
                continue
            for e, colour in enumerate(g.edges):
                samples[colour].append(labs[k, e])
        if sum(len(v) for v in samples.values()) < cfg.seen_palette_min_sectors:
            return None
        out = dict(self.prototypes)
        for colour, seen in samples.items():
            if not seen:
                continue
            n = len(seen)
            offset = np.median(np.stack(seen), axis=0) - self.prototypes[colour]
            out[colour] = self.prototypes[colour] + offset * (n / (n + cfg.seen_palette_prior))
        return out

    def _see_through(
        self,
        value: NDArray[np.float32],
        valid: NDArray[np.uint8],
        ppu: int,
        shifts: FloatArray | None = None,
    ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
        """(36,) bool each: the cells whose see-through window is visible, those whose
        window explains them clearly better than a tile would (by ``window_sure_margin``),
        those whose window's shape is unmistakable, and those whose brightness looks more
        like a window than a tile (by ``window_empty_margin``), however faint, from the
        canvas's brightness ``value`` (H, W) float32 and validity (H, W) uint8.

        Judged by shape alone: the correlation of the brightness with an empty cell's
        window (a light triangle in a dark frame) against that with a tile (light edge to
        edge). Correlation ignores gain and offset, so a lamp's glare on the plastic or a
        dim corner does not change it; a table as dark as the plastic leaves the decision
        to the levels.
        """
        cfg = self.config
        if ppu % 2 == 0 and ppu // 2 >= cfg.band_check_ppu:
            # Shapes this big read as well at half the size, four times faster.
            half = Canvas(ppu // 2)
            value, valid = (_halve(a, half) for a in (value, valid))
            ppu = ppu // 2
        sc = scorer(ppu, cfg)
        inside = (valid == 255).astype(np.uint8)
        if shifts is None:
            ncc = sc.scores(value, inside)
        else:  # where raised neighbours may stand over a cell, it is not judged
            ncc = sc.scores_kept(value, inside, ~overhung(sc.board_points, sc.cells, shifts))
        tile, window = ncc[:, 0], ncc[:, 1]
        leans = window - tile >= cfg.window_empty_margin
        seen = (window >= cfg.window_empty_ncc) & leans
        clear = seen & (window - tile >= cfg.window_sure_margin)
        plain = clear & (window >= cfg.window_sure_ncc)
        return seen, clear, plain, leans

    # -- colour ---------------------------------------------------------------------------

    def _bonus_view(self, canvas_bgr: NDArray[np.uint8], ribs: FloatArray) -> NDArray[np.uint8]:
        """What a bonus cell's see-through numeral is read on over a dark table: the
        distance of a canvas (H, W, 3) uint8 from the ribs' colour ``ribs`` (3,) of
        :func:`vision.rectify.log_colour`, as a grey (H, W, 3) uint8 image. The numeral
        shows the table: light in it. Graded (no floor, twice the span) and smoothed by a
        pixel: the noise of dark pixels is large in ratios."""
        span = 2 * self.config.plastic_distance[1]
        near = plastic_distance(canvas_bgr, ribs, 0.0, span) * np.float32(255.0)
        near = cv2.GaussianBlur(near, (0, 0), 1.0)
        return cv2.merge([near.astype(np.uint8)] * 3)  # type: ignore[no-any-return]

    def _black_field(
        self,
        canvas_bgr: NDArray[np.uint8],
        value: NDArray[np.float32],
        valid: NDArray[np.uint8],
        band: tuple[IntArray, IntArray],
        packed: PackedZones,
        canvas: Canvas,
        windows: NDArray[np.bool_],
        seen: NDArray[np.bool_],
    ) -> tuple[FloatArray, Any]:
        """The plastic's colour, and how its brightness varies over the board.

        ``canvas_bgr`` (H, W, 3) uint8 and its brightness ``value`` (H, W) float32.
        Samples: stretches of the border band and the rims of every cell; a smooth
        (quadratic) lower envelope is fitted to their dark levels, so a lamp's gradient
        does not read as a tile. On top of it, what the surely-plastic samples (the band
        and the frames of cells whose window is seen, ``windows``) say locally: a glare
        spot or a hand's shadow on the plastic is followed over about a cell. Returns the
        band's median BGR and a function of canvas pixels (rows, cols) -> factor on that
        colour.
        """
        ok = valid[band] == 255
        if ok.sum() < 20:
            black = np.array(NOMINAL_SRGB["black"][::-1], dtype=np.float64)
            return black, lambda where: np.ones(len(where[0]))
        stride = _sample_stride(int(canvas.ppu), self.config)
        rows, cols = band[0][ok][::stride], band[1][ok][::stride]
        ang = np.arctan2(rows - rows.mean(), cols - cols.mean())
        band_groups = np.digitize(ang, np.linspace(-np.pi, np.pi, 37))
        rim_rows, rim_cols = packed.rim
        rim_cell = np.repeat(np.arange(len(seen)), np.diff(np.r_[packed.rim_starts, len(rim_rows)]))
        inside = seen[rim_cell] & (np.arange(len(rim_cell)) % stride == 0)
        pts_arr, lv_arr, counts = _group_low_levels(
            np.concatenate([rows, rim_rows[inside]]),
            np.concatenate([cols, rim_cols[inside]]),
            np.concatenate([band_groups, 100 + rim_cell[inside]]),
            value,
        )
        usable = counts >= 8
        # The frames of cells whose window is seen are plastic for sure. Stretches of the
        # band far brighter than they are covered (a sleeve, a sheet of paper, a printed
        # band): they say nothing of the plastic.
        group_ids = lv_arr[:, 0].astype(np.int64)
        framed = (
            usable & (group_ids >= 100) & windows[np.clip(group_ids - 100, 0, len(windows) - 1)]
        )
        band_kept = np.ones(len(rows), bool)
        bright = float(percentiles(value[::3, ::3], [97])[0])
        if framed.sum() >= self.config.black_min_windows:
            ref = float(np.median(lv_arr[framed, 1]))
            spread = bright - ref
            limit = ref + self.config.dark_distance * max(spread, 8.0)
            covered = usable & (group_ids < 100) & (lv_arr[:, 1] > limit)
            if covered.any():
                usable &= ~covered
                band_kept = ~np.isin(band_groups, group_ids[covered])
        on_frames = inside & windows[rim_cell]
        if band_kept.sum() < 20 and on_frames.sum() >= 20:
            # the whole band covered: the frames of the seen windows
            black = np.median(
                canvas_bgr[rim_rows[on_frames], rim_cols[on_frames]].astype(np.float64), axis=0
            )
        else:
            if band_kept.sum() < 20:
                band_kept[:] = True
            black = np.median(
                canvas_bgr[rows[band_kept], cols[band_kept]].astype(np.float64), axis=0
            )
        band_count = int((usable & (group_ids < 100)).sum())
        # Locally, only the frames of cells whose window is seen: something lying on the
        # band (a hand, a pencil) is no glare.
        trusted = framed[usable]
        pts = [tuple(p) for p in pts_arr[usable]]
        levels = list(lv_arr[usable, 1])
        p = np.array(pts, dtype=np.float64)
        lv = np.array(levels, dtype=np.float64)
        scale = max(canvas.width, canvas.height)

        def design(r: FloatArray, c: FloatArray) -> FloatArray:
            y, x = r / scale - 0.5, c / scale - 0.5
            return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)

        a = design(p[:, 0], p[:, 1])
        # First the band alone (always plastic, where not covered), as a plane; then the
        # rims that are dark enough to be plastic too, for the quadratic. Without the
        # band, the frames of the seen windows are the plastic.
        keep = np.zeros(len(lv), bool)
        keep[:band_count] = True
        if band_count < 4:
            keep |= trusted
        coef = np.zeros(6)
        if keep.sum() >= 4:
            coef[:3], *_ = np.linalg.lstsq(a[keep][:, :3], lv[keep], rcond=None)
        else:
            coef[0] = float(np.median(lv))
        spread = bright - coef[0]
        margin = 0.5 * self.config.dark_distance * max(spread, 8.0)
        keep = keep | (lv < a @ coef + margin)
        if keep.sum() >= 10:
            coef, *_ = np.linalg.lstsq(a[keep], lv[keep], rcond=None)
        v_black = max(float(black.max()), 1.0)
        local = self._local_excess(p[trusted], lv[trusted] - a[trusted] @ coef, canvas)
        # The whole field on the grid of the local term (a quarter unit): a lookup per pixel.
        step = canvas.ppu / 4.0
        gr, gc = np.meshgrid(
            (np.arange(local.shape[0]) + 0.5) * step,
            (np.arange(local.shape[1]) + 0.5) * step,
            indexing="ij",
        )
        level = (design(gr.ravel(), gc.ravel()) @ coef).reshape(local.shape) + local
        factor = np.clip(level / v_black, 0.5, 6.0)

        def field(where: tuple[IntArray, IntArray]) -> FloatArray:
            r = np.asarray(where[0], dtype=np.int64)
            c = np.asarray(where[1], dtype=np.int64)
            return factor[r * 4 // canvas.ppu, c * 4 // canvas.ppu]  # type: ignore[no-any-return]

        return black, field

    def _local_excess(self, pts: FloatArray, residuals: FloatArray, canvas: Canvas) -> FloatArray:
        """The plastic's level above (or below) the smooth field, on a grid of ppu/4 px.

        A kernel average of the residuals of surely-plastic samples ``pts`` (N, 2) canvas
        (row, col); where no sample is near, it fades to 0 (the smooth field).
        Returns float64 (ceil(H*4/ppu)+1, ceil(W*4/ppu)+1).
        """
        cfg = self.config
        step = canvas.ppu / 4.0
        gh = int(math.ceil(canvas.height / step)) + 1
        gw = int(math.ceil(canvas.width / step)) + 1
        grid = np.zeros((gh, gw))
        if len(pts) == 0:
            return grid
        gr, gc = np.meshgrid((np.arange(gh) + 0.5) * step, (np.arange(gw) + 0.5) * step)
        g = np.stack([gr.ravel(), gc.ravel()], axis=1)
        sigma = cfg.local_black_radius * canvas.ppu
        d2 = ((g[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2)
        w = np.exp(-0.5 * d2 / sigma**2)
        est = (w @ residuals) / (w.sum(axis=1) + cfg.local_black_prior)
        return est.reshape(gw, gh).T

    def _white_point(
        self,
        stats: DiscStats,
        sure: NDArray[np.bool_],
        sectors: list[FloatArray],
        black: FloatArray,
    ) -> FloatArray:
        """White from the numerals: the whitest pixels (:class:`DiscStats`) of the discs
        of the ``sure`` (K,) tiles, per channel; from fewer than ``white_min_numerals``
        of them, in the plastic's hue (:func:`hued_as_the_plastic`)."""
        ok = sure & (stats.counts >= 4)
        if ok.any():
            white = np.median(stats.whitest[ok[stats.whitest_disc]], axis=0)
        else:
            white = np.percentile(np.concatenate(sectors), 95, axis=0)
        if ok.sum() < self.config.white_min_numerals:
            white = hued_as_the_plastic(white, black)
        return np.maximum(white, black + 1e-3)

    def _light_field(
        self,
        stats: DiscStats,
        places: FloatArray,
        black: FloatArray,
        white: FloatArray,
        reference: NDArray[np.bool_],
    ) -> FloatArray:
        """(K,) the light at each tile relative to the board's white point, 1 = as bright.

        Each tile's numeral (the whitest pixels of its disc, :class:`DiscStats`) gives the
        light at its place (``places`` (K, 2) board units); one numeral is noisy (blur, a
        small digit), so a smooth field (a plane, a quadratic with enough tiles) is
        fitted to the logs of them all, robustly, and read back at each place. The field
        is 1 at the median of the tiles that gave the white point (``reference`` (K,) bool).
        """
        cfg = self.config
        k = len(stats.counts)
        span = float(np.max(white - black))
        levels = np.where(
            stats.counts >= 6, np.max(stats.top - black, axis=1) / max(span, 1e-6), np.nan
        )
        ok = np.isfinite(levels) & (levels > 0.05)
        if ok.sum() < cfg.light_field_min_tiles:
            return np.ones(k)
        x, y = places[:, 0] / 3.0, (places[:, 1] - 3.46) / 3.0
        columns = [np.ones(k), x, y]
        if ok.sum() >= 2 * cfg.light_field_min_tiles:
            columns += [x * x, x * y, y * y]
        design = np.stack(columns, axis=1)
        target = np.log(np.where(ok, levels, 1.0))
        use = ok.copy()
        coef = np.zeros(design.shape[1])
        for _ in range(3):
            coef, *_ = np.linalg.lstsq(design[use], target[use], rcond=None)
            resid = target - design @ coef
            mad = float(np.median(np.abs(resid[ok]))) + 1e-3
            use = ok & (np.abs(resid) < 3.0 * 1.4826 * mad)
            if use.sum() < design.shape[1] + 2:
                return np.ones(k)
        field = design @ coef
        # The white point is the median numeral of the reference tiles: the field is
        # relative to that.
        ref = ok & reference if (ok & reference).any() else ok
        field -= float(np.median(field[ref]))
        lo, hi = cfg.light_field_range
        return np.exp(np.clip(field, math.log(lo), math.log(hi)))

    def _palette_gains(
        self, sectors: list[FloatArray], black: FloatArray, whites: list[FloatArray]
    ) -> tuple[FloatArray, float]:
        """Per-channel gains (3,) that best map the observed sectors onto the palette, and
        the scale of their Lab chroma that does.

        The tile set's colours are known, so the observed colours themselves say how the
        light is tinted and how saturated the camera renders colours (a phone's boost, a
        washed-out webcam); the overall level is kept from the white point (each tile's
        own, ``whites``). The two are found together: colours washed out are named by
        their nearest palette colour only once their chroma is scaled back.
        """
        if sum(len(s) for s in sectors) < 9:  # (none at all where no tile is sure)
            return np.ones(3), 1.0
        obs = np.concatenate([normalise(s, black, w) for s, w in zip(sectors, whites, strict=True)])
        protos = np.array([self.proto_linear[c] for c in TILE_COLOURS])
        proto_lab = np.array([self.prototypes[c] for c in TILE_COLOURS])
        cfg = self.config
        # Few tiles do not say how the camera renders colours (the windows of empty cells
        # taken for tiles, a glare): their chroma is left as it is.
        judge = len(sectors) >= cfg.saturation_min_tiles
        gains, chroma = np.ones(3), 1.0
        for _ in range(3):
            lab = _scaled_chroma(linear_rgb_to_lab(obs * gains), chroma)
            d = np.linalg.norm(lab[:, None, :] - proto_lab[None, :, :], axis=2)
            nearest = d.argmin(axis=1)
            target = protos[nearest]
            new = (obs * target).sum(axis=0) / np.maximum((obs * obs).sum(axis=0), 1e-9)
            new = new / np.exp(np.mean(np.log(np.maximum(new, 1e-6))))
            gains = np.clip(new, 0.6, 1.6)
            if judge:
                chroma = self._camera_chroma(linear_rgb_to_lab(obs * gains))
        return gains, chroma

    def _camera_chroma(self, lab: FloatArray) -> float:
        """The chroma scale (:meth:`_chroma_scale`) of observed palette colours (N, 3) Lab,
        1 where it is within the palette's own spread (print, plastic, shading) or past
        what a camera does (no camera's rendering either)."""
        cfg = self.config
        chroma = self._chroma_scale(lab)
        lo, hi = cfg.saturation_range
        less, more = cfg.saturation_tolerance
        if not (lo < chroma < hi) or 1.0 / less < chroma < more:
            return 1.0
        return chroma

    def _chroma_scale(self, lab: FloatArray) -> float:
        """How much the chroma of observed palette colours (N, 3) Lab falls short of the
        palette's. Each colour is named by its hue alone (a camera that washes colours out
        or boosts them keeps their hues); per palette colour seen three times or more, the
        ratio of its chroma to the ``saturation_quantile`` of those seen (blur, glare,
        shade and a hand's edge only take chroma away: the clearest of them tell the
        camera); the median of these ratios, weighted by how often each colour is seen.
        The whites and greys (chroma under ``saturation_min_chroma``) say nothing; 1 when
        few colours are left."""
        cfg = self.config
        # (the prototypes may be a calibration's, set after the reader was made)
        palette = np.array([self.prototypes[c] for c in TILE_COLOURS if c is not Colour.WHITE])
        palette_hues = np.arctan2(palette[:, 2], palette[:, 1])
        seen_chroma = np.hypot(lab[:, 1], lab[:, 2])
        keep = seen_chroma > cfg.saturation_min_chroma
        if keep.sum() < 9:
            return 1.0
        hue = np.arctan2(lab[keep, 2], lab[keep, 1])
        gap = np.abs((hue[:, None] - palette_hues[None, :] + np.pi) % (2 * np.pi) - np.pi)
        named = gap.argmin(axis=1)
        seen = seen_chroma[keep]
        ratios, weights = [], []
        for k, chroma in enumerate(np.hypot(palette[:, 1], palette[:, 2])):
            mine = seen[named == k]
            if len(mine) >= 3:
                ratios.append(chroma / percentiles(mine, [100 * cfg.saturation_quantile])[0])
                weights.append(len(mine))
        if not ratios:
            return 1.0
        order = np.argsort(ratios)
        cumulative = np.cumsum(np.array(weights)[order])
        return float(np.array(ratios)[order][np.searchsorted(cumulative, cumulative[-1] / 2)])

    def _discs(
        self,
        stats: DiscStats,
        black: FloatArray,
        whites: FloatArray,
        gains: FloatArray,
        chroma: float,
        around: FloatArray,
    ) -> tuple[FloatArray, FloatArray]:
        """The tiles' centres: navy discs with white numerals. Returns the contrasts (K,)
        and the navy distances (K, S).

        Contrast is the spread of a disc zone's brightness relative to black-to-white
        (``whites`` (K, 3), each tile's); the navy distances are the Lab distances of its
        darker part to the navy prototype mixed with each share of white (blur mixes the
        numeral in) and of ``around`` (K, 3), the tile's sectors' mean normalised colour
        (blur mixes them in too), as listed in ``self.navy_shares`` and
        ``self.colour_shares``; under the same tint correction (``gains``, then ``chroma``
        on the Lab chroma) as the tiles' colours. A disc too small to tell (under six
        pixels) has contrast 1 and distances 0.
        """
        lo, hi = stats.levels[:, 0], stats.levels[:, 2]
        span = np.maximum(whites.max(axis=1) - float(black.max()), 1e-3)
        contrast = (hi - lo) / span
        lab = linear_rgb_to_lab(normalise(stats.dark, black, whites) * gains)
        lab = _scaled_chroma(lab, chroma)  # (K, 3)
        ws, cs = self.navy_shares[None, :, None], self.colour_shares[None, :, None]
        mixed = (1.0 - ws - cs) * self.navy_linear + ws * np.ones(3) + cs * around[:, None, :]
        navy = np.linalg.norm(lab[:, None, :] - linear_rgb_to_lab(mixed), axis=-1)  # (K, S)
        small = stats.counts < 6
        contrast[small], navy[small] = 1.0, 0.0
        return contrast, navy
