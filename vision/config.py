"""Thresholds and constants of the reader, loaded from ``vision/data/reader.json``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from vision.errors import VisionError


def config_json(text: str) -> dict[str, Any]:
    """A config file's JSON object; a key given twice is an error (json.loads would keep
    the last silently, and one of two settings of the same name would be lost).

    >>> config_json('{"a": 1, "b": 2}')
    {'a': 1, 'b': 2}
    >>> config_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    ValueError: key 'a' given twice
    """

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise ValueError(f"key {key!r} given twice")
            out[key] = value
        return out

    data = json.loads(text, object_pairs_hook=unique)
    if not isinstance(data, dict):
        raise ValueError("a config is a JSON object")
    return data


def config_values(cls: type, data: Mapping[str, Any], what: str) -> dict[str, Any]:
    """The values of a config dataclass's fields from JSON data; a missing one is an error.

    Shared by the reader's, the tracker's and the calibration's configs.
    """
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            raise VisionError(f"{what} config lacks {f.name!r}", dict(data))
        values[f.name] = data[f.name]
    return values


@dataclass(frozen=True)
class AlignRound:
    ppu: int  # pixels per board unit of the rectified canvas
    search: float  # search radius in board units


@dataclass(frozen=True)
class ReaderConfig:
    """Every number the reader uses; see the JSON file for their meaning."""

    locate_long_side_px: int
    locate_white_quantile: float  # brightest share of a photo taken as lit white
    locate_dark_quantile: float  # darkest share of a photo taken as the lit black plastic
    band_width: float
    dark_relative_value: float
    dark_relative_chroma: float
    dark_levels: tuple[float, ...]
    haze_levels: tuple[float, ...]
    min_outline_support: float
    outline_candidates: int
    enough_lattice_points: int
    extra_refines: int
    illumination_window: float
    min_board_area_fraction: float
    align_rounds: tuple[AlignRound, ...]
    align_min_score: float
    align_min_cells: int
    ransac_threshold: float
    min_cells_for_perspective: int
    max_perspective_ratio: float
    max_perspective_ratio_held: float  # the same for a fit held by enough lattice points
    max_anisotropy: float
    saturation_range: tuple[float, float]  # chroma scales a camera may need (palette / seen)
    saturation_tolerance: tuple[float, float]  # chroma scales within 1/less..more are left out
    saturation_min_tiles: int  # fewer tiles than this do not tell a camera's saturation
    saturation_min_chroma: float  # Lab chroma: colours less colourful tell nothing of it
    saturation_quantile: float  # of a colour's chroma seen: its clearest, the camera's own
    black_min_windows: int  # seen windows whose frames may overrule a covered band
    outline_line_votes: tuple[float, float]  # strong, weak lines: stretches of the side hint
    outline_lines: tuple[int, int]  # so many strong lines at most, and weak ones besides
    outline_line_apart: float  # parallel lines nearer (of the side hint) are one: < a cell
    outline_pool: int  # outlines kept at most, the likeliest tried first
    outline_reranked: int  # of the others, so many best by a coarse lattice fit are tried
    rim_min_seen: float  # share of a cell's frame in the frame for it to be read
    locate_retries: int  # outlines located again after the cells refuse a lattice
    relocate_max_unclear: float  # above this share of unclear cells, look again (balanced)
    relocate_min_points: float  # a clearer fit found so must hold this share of the points
    same_place_cells: float  # two fits this close (in cells, at every corner) are one
    outline_distinct: float  # outlines whose corners differ by less (of their size) are one
    outline_piece_fraction: float  # pieces of plastic this big (of the least board) join up
    contrast_floor: float
    contrast_span: float
    contrast_span_dark: float  # dark table: floor + span = half the white (creases show)
    contrast_chroma_weight: float  # chroma's weight beside value in 'not plastic'
    plastic_board_quantile: float  # the plastic is no darker than this percentile of the board
    table_brighter: float  # ln: a table not this much brighter than the band is dark
    plastic_distance: tuple[float, float]  # ln: (floor, span) of 'not plastic' on a dark table
    table_strip: float  # the frame's outer strip, of its short side, that shows the table
    table_distances: tuple[float, ...]  # ln: farther from the table's colour is not the table
    structure_clahe: float  # clip limit of the local equalisation before the edges are found
    structure_edges: tuple[float, float]  # Canny's (low, high) on the equalised grey, 8-bit
    structure_close: float  # of the long side: edges this near join into one region
    structure_last: bool  # look for the board as what edges enclose when all else fails
    brightness_last: bool  # on a dark table, fit the lattice to the brightness as it is, last
    seeded_last: bool  # on a dark table, fit the lattice on outlines its cells seed, last
    seed_blocks: tuple[float, ...]  # of the short side: neighbourhoods a cell stands out from
    seed_contrast: float  # 8-bit: a cell this much brighter (or darker) than them
    seed_fill: float  # a cell's region fills this share of the least triangle enclosing it
    seed_tile_side: float  # cell sides: the least triangle around a tile as it stands out
    # (the cell less its ridges and the threshold's edge; 0.88 and 1.0 each lose seeds)
    seed_cut_cells: float  # cells: the playing corners lie at most this far outside the frame
    structure_peg_chances: float  # a fit found so shows the holes' row on 2 sides this many
    # times as clearly as a line along no holes does by chance
    dark_peg_chances: float  # a fit on a dark table shows it so on a side at least
    dark_table_share: float  # a table darker than this share of the bright things is dark
    dark_table_bright_percentile: float  # the frame's bright things: its brightest pixels
    veil_window: float  # dark table: patches (of the long side) mostly holding something black
    veil_cell_window: float  # board units: every patch this wide holds something near black
    veil_margin: float  # 8-bit levels: a veil of light less than this over the black is none
    veil_reach: float  # board units: an unknown cell read again lies this near lifted plastic
    veil_max_clipped: float  # share of a cell's pixels clipped in every channel: no veil lifts
    max_lens_k: float
    lens_min_f: float  # a lens is taken where its F statistic over the homography is this high
    lens_min_points: int  # ... and where at least this many lattice points hold it
    lens_noise_px: float  # ... their errors' spread taken as at least this (px per coordinate)
    read_ppu_min: int
    read_ppu_max: int
    read_max_side_px: int  # larger photos (a phone's 12 MP) are read at this long side
    read_ppu_step: int
    ridge_half_width: float
    window_side: float
    disc_radius: float
    dark_distance: float
    dim_sector_distance: float  # sectors this close to the plastic read only with a numeral
    occupancy_min_fill: float
    occupancy_max_empty_fill: float
    weak_tile_min_contrast: float
    window_empty_ncc: float
    window_empty_margin: float
    window_max_fill: float
    window_numeral_corr: float  # a window whose centre reads a numeral this well is a tile's disc
    bonus_numeral_height: float  # a bonus cell's see-through numeral, board units (tile side 1)
    bonus_numeral_corr: float  # a bonus cell whose own numeral reads this well so is empty
    window_sure_ncc: float  # a window this like the window's shape is empty whatever its frame
    window_sure_margin: float  # ... and this much more like it than like a tile
    local_black_radius: float
    local_black_prior: float
    glare_limit: float
    light_field_min_tiles: int
    white_min_numerals: int  # fewer numerals than this: their white in the plastic's hue
    light_field_range: tuple[float, float]
    band_check_ppu: int
    band_strip: tuple[float, float]
    band_percentile: float
    band_percentile_dark: float  # the same, in the distance from the plastic colour (dark table)
    band_min_seen: float
    band_weight: float
    band_cell_chance: float  # a lattice cell's match that is as likely a cell as not
    rescale_max_evidence: float  # below it, outlines a cell larger or smaller are tried
    rescale_margin: float
    rescale_rounds: int
    rescale_scales: tuple[float, ...]  # whole-lattice scalings tried too (half, double)
    seen_palette_min_sectors: int  # sectors of vouched tiles needed to adapt the palette
    seen_palette_prior: float
    band_bright_level: float  # a side of the band below it is evidence of plastic
    #: where nothing else found the board and the table does not look dark, look for
    #: what stands out from the table last (as over a dark table, first)
    off_table_last: bool
    band_covered_level: float  # a side above it is not plastic, however bright
    band_shift_margin: float
    # the band's peg holes: their pitch (board units), how far it may differ (a share),
    # where across the band they are looked for (shares of band_width), and how much
    # clearer the sides a move by a cell moves must show them for it to be taken
    peg_pitch: float
    peg_pitch_tolerance: float
    peg_band_shares: tuple[float, ...]
    peg_shift_margin: float
    peg_side_gain: float
    peg_on_band: float  # a side's share this clear is on the holes' row
    band_move_max_unclear: int  # a move by a cell may make so many more cells unclear
    # (any more, where no fewer cells read clearly)
    sector_distance: float
    sector_radius: float
    colour_reject_distance: float
    disc_min_contrast: float
    disc_navy_weight: float
    disc_blur_max_white: float
    disc_blur_max_colour: float  # the sectors' share blur may mix into the disc at most
    disc_blur_colour_steps: int  # so many shares of the sectors tried, 0 included
    disc_blur_max_mix: float  # white and sectors together, at most (some navy is left)
    disc_blur_min_white: float
    disc_blur_min_tiles: int
    plain_max_cost: float  # a reading this close to a tile's colours is plain from them
    tile_doubt_limit: float
    beside_covered_min_confidence: float  # below it, a tile beside a covered cell is unknown
    #: Beside a covered cell, a tile whose numeral disagrees and whose colour cost is
    #: this many times the photo's typical tile's is unknown (:func:`beside_covered`).
    beside_covered_cost_ratio: float
    #: A candidate sets the white and the tint only where its disc shows this share of
    #: the contrast the photo's clearly read numerals show (their median).
    sure_contrast_share: float
    #: A flank patch nearer another colour than its edge's own by this share of the
    #: distance between the palette's two nearest colours shows something over the tile.
    flank_max_share: float
    ridge_end_margin: float  # share of an edge's length at each end not read for its ridge
    ridge_read_half_width: float  # board units either side of an edge read for its ridge
    ridge_points: int  # samples along and across each edge's ridge
    ridge_along_quantile: float  # an edge's ridge: this quantile of its samples along it
    ridge_seen_max: float  # the photo shows its ridges: median ridge over sector below this
    ridge_seen_min_edges: int  # ... on at least so many edges between two tiles
    ridge_hidden_min: float  # an edge whose ridge is this bright against its sector: hidden
    ridge_noise: float  # ... plus this of black-to-white: ~4 8-bit levels, sensor noise + JPEG
    ridge_min_sector: float  # ...judged only beside a sector this far from the plastic or more
    ridge_over_both_min: float  # a ridge this bright against both sides' sectors: hidden (any blur)
    tile_shift_min_discs: int  # a tile read where so many discs near it say it lies (or more)
    disc_max_navy: float  # a navy disc: no further from navy (a window shows the table)
    veil_min: float  # light reflected off a tile over its disc's navy, of the white, taken away
    colourless_max_spread: float  # tile candidates' colour spread in a photo with none
    colourless_min_tiles: int  # candidates that tell alone (else the board must agree)
    colourless_numeral_margin: float  # a numeral this clear says a tile is there
    clipped_level: int  # a pixel this bright in every channel is burnt out white
    clipped_share: float  # a photo this much burnt out is overexposed
    black_level: int  # a pixel no brighter than this in any channel is black
    black_share: float  # a photo this much black shows (almost) nothing
    joker_min_lightness: float  # the joker's sectors' mean L*, the numerals' white = 100
    sure_disc_max_navy: float  # a disc this near navy is surely a tile's (an unread joker's,
    # a tile's over a bonus cell's numeral)
    joker_unread_min_lightness: float  # an unread joker's sectors this white (and its disc sure)
    edge_reject_distance: float
    vouched_min_margin: float
    forced_gap: float
    vouched_doubt_limit: float
    vouched_edge_limit: float
    colour_lightness_weight: float
    numeral_weight: float
    numeral_sharp_agreement: float
    disc_refit_min_contrast: float
    disc_refit_min_tiles: int
    disc_refit_joint_min_tiles: int  # fewer discs refit the lattice only with its far points
    disc_refit_joint_min_contrast: float  # ... and only where they show this clearly
    disc_refit_min_shift: float
    disc_refit_max_shift: float
    disc_refit_check_distance: float  # board units: lattice points this far from discs
    disc_refit_lattice_distance: float  # lattice points this far from every disc join its refit
    disc_refit_check_slack: float  # board units a refit may move them beyond their error
    disc_refit_check_points: int  # so many far lattice points at least for the check
    disc_refit_max_sigmas: float  # discs this many times their spread off the refit: set aside
    disc_refit_rounds: int  # refits at most (each from the discs seen on the last)
    disc_refit_edge: float  # a disc this share of the numeral's search off is at its edge
    disc_refit_far_min: int
    max_residual_units: float
    trust_min_points: int
    trust_max_unknown: float
    trust_full_points: int  # a lattice held by so many points is trusted
    #: ... unless nearly all unclear, this share of the cells in view 'elsewhere': a lattice
    #: at another scale or turn over a full board names its tiles again on other cells;
    #: a hand over a real board leaves its cells 'covered', few of them so (0.3 refuses
    #: no fit of the generated sets; a wrong fit over two hands on a board of 26 tiles
    #: showed 0.44)
    trust_full_min_elsewhere: float
    trust_max_unclear: float  # share of unknown + twice the 'elsewhere' ones, below that
    #: board units a tile's top lies above the board (a slab, seen shifted at a tilt)
    #: where a photo does not tell it: assumed, not measured on the physical game; 0
    #: reads the tiles as printed on the board
    tile_height: float
    tile_height_max: float  # the most a photo's lattice may tell (0: never estimated)
    tile_height_step: float  # the heights tried, this far apart
    tile_height_min_points: int  # tiles and windows each among the lattice points to tell it
    #: a view leaning less (:func:`rectify.lean`) tells no height: 0.4 moves the tops of
    #: tiles 0.1 thick by 0.04 units, about as much as a lattice point is off
    tile_height_min_lean: float
    #: share of the fit's squared error a height must take off to be told: one parameter
    #: more fitted to the points' noise alone takes off about 1 / (2N - 8) of it (2-4%
    #: for 15-30 points), so a real height takes off several times that
    tile_height_min_gain: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReaderConfig:
        values = config_values(cls, data, "reader")
        values["align_rounds"] = tuple(AlignRound(**r) for r in data["align_rounds"])
        values["dark_levels"] = tuple(float(v) for v in data["dark_levels"])
        values["haze_levels"] = tuple(float(v) for v in data["haze_levels"])
        values["table_distances"] = tuple(float(v) for v in data["table_distances"])
        values["rescale_scales"] = tuple(float(v) for v in data["rescale_scales"])
        values["peg_band_shares"] = tuple(float(v) for v in data["peg_band_shares"])
        values["seed_blocks"] = tuple(float(v) for v in data["seed_blocks"])
        pairs: tuple[tuple[str, type], ...] = (
            ("band_strip", float),
            ("light_field_range", float),
            ("saturation_range", float),
            ("saturation_tolerance", float),
            ("outline_line_votes", float),
            ("outline_lines", int),
            ("plastic_distance", float),
            ("structure_edges", float),
        )
        for name, kind in pairs:  # JSON lists -> tuples (the config is hashable)
            first, second = data[name]
            values[name] = (kind(first), kind(second))
        return cls(**values)

    @classmethod
    def load(cls, path: str | Path | None = None) -> ReaderConfig:
        if path is None:
            return default_config()
        try:
            return cls.from_json(config_json(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as exc:
            raise VisionError(f"cannot load reader config {path}: {exc}", str(path)) from None


@cache
def default_config() -> ReaderConfig:
    text = resources.files("vision.data").joinpath("reader.json").read_text("utf-8")
    return ReaderConfig.from_json(config_json(text))
