"""When a tile candidate's reading is trusted: a table of cases for ``tile_doubt``."""

from __future__ import annotations

import numpy as np
import pytest

from engine import SPECTRANGLE36, Colour, Edge, Tile
from engine.colours import EDGE_ORDER
from vision.config import default_config
from vision.identify import TileGuess, set_tiles
from vision.read import (
    BESIDE_COVERED,
    COVERED,
    ELSEWHERE,
    GLARE,
    JOKER_REFUSED,
    NO_TILE,
    OUTSIDE,
    RIDGE_HIDDEN,
    BoardReader,
    BoardReading,
    CellReading,
    band_shift_gain,
    beside_covered,
    hidden_ridges,
    kept_located,
    tile_doubt,
    tile_shifts,
)
from vision.rectify import BoardFit, Lens

CFG = default_config()
GEO = SPECTRANGLE36.geometry


def a_fit(points: int = 20, tile_height: float = 0.0, moved: float = 0.0) -> BoardFit:
    """A fit of a board 60 px a unit across in a 1280 x 720 frame, held by ``points``
    lattice points, telling ``tile_height``, moved ``moved`` units along the board's x."""
    h = np.array([[60.0, 0.0, 400.0], [0.0, 60.0, 100.0], [0.0, 0.0, 1.0]])
    shift = np.array([[1.0, 0.0, moved], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    lens = Lens.none((720, 1280, 3))
    return BoardFit.from_homography(h @ shift, 1.0, 0.02, points, lens, tile_height=tile_height)


R, P = Colour.RED, Colour.PURPLE


def guess(
    tile: str = "RRP5",
    cost: float = 15.0,
    runner_up: float = 35.0,
    numeral: int | None = 5,
    worst: float = 18.0,
) -> TileGuess:
    t = Tile.from_notation(tile)
    alike = Tile.from_notation("RRR6")
    return TileGuess(t, (R, R, P), cost, runner_up, numeral, ((alike, (R, R, R), 9.0),), worst)


# (case, guess, disc contrast, navy distance, weak, glared, expected start of the note)
CASES = [
    ("plain tile", guess(), 0.6, 10.0, False, False, None),
    # Under glare the colours are trusted only close, and with the numeral agreeing, or
    # (a numeral blur leaves unread) with no other tile's colours as close.
    ("glare, colours close, numeral agreeing", guess(), 0.6, 10.0, False, True, None),
    ("glare, numeral unread, colours clear", guess(numeral=None), 0.6, 10.0, False, True, None),
    (
        "glare, numeral unread, another tile near",
        guess(numeral=None, runner_up=18.0),
        0.6,
        10.0,
        False,
        True,
        "glare",
    ),
    ("glare, numeral reads another value", guess(numeral=3), 0.6, 10.0, False, True, "glare"),
    ("glare, colours further off", guess(cost=28.0), 0.6, 10.0, False, True, "glare"),
    ("glare, another tile close", guess(runner_up=17.0), 0.6, 10.0, False, True, "glare"),
    (
        "named only by elimination",
        guess(cost=25.0, runner_up=9.0),
        0.6,
        10.0,
        False,
        False,
        "looks like RRR6",
    ),
    ("no disc", guess(), 0.05, 10.0, False, False, "does not look like a tile"),
    # Blurred colours and a washed-out disc: the numeral reading the value vouches.
    ("vouched by its numeral", guess(cost=28.0, worst=48.0), 0.6, 55.0, False, False, None),
    (
        "the same without a numeral",
        guess(cost=28.0, worst=48.0, numeral=None),
        0.6,
        55.0,
        False,
        False,
        "does not look like a tile",
    ),
    (
        "a numeral of another value does not vouch",
        guess(cost=28.0, worst=48.0, numeral=3),
        0.6,
        55.0,
        False,
        False,
        "does not look like a tile",
    ),
    (
        "no vouching when another tile comes close",
        guess(cost=28.0, runner_up=30.0, worst=48.0),
        0.6,
        55.0,
        False,
        False,
        "does not look like a tile",
    ),
    (
        "the joker is never vouched for",
        guess("WWW1", cost=28.0, worst=48.0, numeral=1),
        0.6,
        55.0,
        False,
        False,
        "does not look like a tile",
    ),
    ("white without its 1", guess("WWW1", numeral=None), 0.6, 10.0, False, False, "white"),
    # Every tile shows a navy disc: colours alone do not name a tile without one.
    (
        "plain colours but no navy disc (a fingertip over it)",
        guess(cost=5.0, worst=8.0, numeral=None),
        0.6,
        55.0,
        False,
        False,
        "does not look like a tile",
    ),
    ("no navy disc, but its numeral vouches", guess(cost=5.0), 0.6, 55.0, False, False, None),
    ("weak frame, numeral agrees", guess(), 0.6, 10.0, True, False, None),
    ("weak frame, no numeral", guess(numeral=None), 0.6, 10.0, True, False, ""),
    # A faint disc (blur, a shadow) in a weak frame: the numeral reading the value of
    # colours that name the tile plainly vouches for it; a value read by chance does not.
    ("weak frame, faint disc, vouched", guess(), 0.2, 10.0, True, False, None),
    (
        "weak frame, faint disc, another tile close",
        guess(runner_up=17.0),
        0.2,
        10.0,
        True,
        False,
        "",
    ),
    ("weak frame, faint disc, no numeral", guess(numeral=None), 0.2, 10.0, True, False, ""),
]


@pytest.mark.parametrize(
    ("g", "contrast", "navy", "weak", "glared", "expected"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_tile_doubt(
    g: TileGuess, contrast: float, navy: float, weak: bool, glared: bool, expected: str | None
) -> None:
    note = tile_doubt(g, contrast, navy, weak, glared, CFG, lightness=100.0)
    if expected is None:
        assert note is None
    else:
        assert note is not None and note.startswith(expected), note


def forced_from_the_joker(numeral: int | None) -> TileGuess:
    """A white cell named BBB6 only because the joker it looks like was not given it."""
    joker, bbb6 = Tile.from_notation("WWW1"), Tile.from_notation("BBB6")
    b, w = Colour.BLUE, Colour.WHITE
    return TileGuess(bbb6, (b, b, b), 31.0, 6.5, numeral, ((joker, (w, w, w), 6.5),), 40.0)


@pytest.mark.parametrize(
    ("held", "numeral", "navy", "expected"),
    [
        ("the joker on another cell", None, 23.0, f"looks like WWW1, {ELSEWHERE}"),
        ("nobody", None, 23.0, JOKER_REFUSED + "white without the joker's numeral"),
        ("nobody", 1, 60.0, JOKER_REFUSED + "pale, but not"),
    ],
)
def test_a_cell_refused_the_joker_says_why_not_that_it_lies_elsewhere(
    held: str, numeral: int | None, navy: float, expected: str
) -> None:
    tiles = {Tile.from_notation("WWW1")} if held.startswith("the joker") else set()
    g = forced_from_the_joker(numeral)
    note = tile_doubt(g, 0.6, navy, False, False, CFG, lightness=105.0, held=tiles)
    assert note is not None and note.startswith(expected), note


# (case, disc contrast, navy distance, sectors' mean lightness, expected start of the note)
JOKER_CASES = [
    ("the joker", 0.7, 9.0, 104.0, None),
    ("the joker in a hand's shadow", 0.6, 30.0, 80.0, None),
    ("a palm over a tile: its 'disc' is no navy", 0.3, 65.0, 81.0, "pale, but not"),
    ("a pale sleeve: greyer than the numerals' white", 0.8, 26.0, 62.0, "pale, but not"),
]


@pytest.mark.parametrize(
    ("contrast", "navy", "lightness", "expected"),
    [c[1:] for c in JOKER_CASES],
    ids=[c[0] for c in JOKER_CASES],
)
def test_the_joker_needs_its_white_and_its_navy_disc(
    contrast: float, navy: float, lightness: float, expected: str | None
) -> None:
    g = guess("WWW1", cost=8.0, numeral=1, worst=10.0)
    note = tile_doubt(g, contrast, navy, False, False, CFG, lightness=lightness)
    if expected is None:
        assert note is None
    else:
        assert note is not None and note.startswith(expected), note


# (case, numeral read, navy distance, sectors' mean lightness, may an unread joker be
# told, expected start of the note)
UNREAD_JOKER_CASES = [
    (
        "a joker whose 1 does not read, its disc navy, as white as the numerals",
        None,
        10.0,
        110.0,
        True,
        None,
    ),
    ("the same judged for another tile's reading", None, 10.0, 110.0, False, "white"),
    ("a white table through a window: no navy disc", None, 45.0, 112.0, True, "white"),
    ("a pale hand: no navy disc, greyer than white", None, 16.0, 88.0, True, "white"),
    ("a numeral read as another value", 4, 10.0, 110.0, True, "white"),
]


@pytest.mark.parametrize(
    ("numeral", "navy", "lightness", "unread", "expected"),
    [c[1:] for c in UNREAD_JOKER_CASES],
    ids=[c[0] for c in UNREAD_JOKER_CASES],
)
def test_a_joker_whose_numeral_does_not_read_is_told_by_its_disc_and_white(
    numeral: int | None, navy: float, lightness: float, unread: bool, expected: str | None
) -> None:
    g = guess("WWW1", cost=8.0, numeral=numeral, worst=10.0)
    note = tile_doubt(g, 0.7, navy, False, False, CFG, lightness=lightness, unread_joker=unread)
    if expected is None:
        assert note is None
    else:
        assert note is not None and note.startswith(expected), note


NAN = float("nan")
# (case, band levels as fitted, band levels moved a cell (0 plastic, 1 bright, NaN out of
# the frame), the cells' match moved minus as fitted, whether the move is taken)
BAND_CASES = [
    ("a lattice a cell off: one side on the table", (0.8, 0.1, 0.1), (0.1, 0.1, 0.1), 0.0, True),
    ("the band where it should be", (0.1, 0.1, 0.1), (0.8, 0.1, 0.1), 0.0, False),
    (
        "a side under a hand is not escaped out of the frame",
        (0.1, 0.1, 0.9),
        (0.1, 0.1, NAN),
        0.0,
        False,
    ),
    ("nor for a better match of the cells", (0.1, 0.1, 0.9), (0.1, 0.1, NAN), 0.03, False),
    (
        "a side on the plastic is not lost out of the frame",
        (0.1, 0.1, 0.1),
        (0.1, 0.1, NAN),
        0.03,
        False,
    ),
    ("a hand covering less of a side is no plastic", (0.1, 0.1, 0.9), (0.1, 0.1, 0.75), 0.0, False),
    ("a side coming into view on the plastic", (0.8, NAN, 0.1), (0.1, 0.1, 0.1), 0.0, True),
]


@pytest.mark.parametrize(
    ("here", "there", "cells", "moved"),
    [c[1:] for c in BAND_CASES],
    ids=[c[0] for c in BAND_CASES],
)
def test_the_lattice_moves_a_cell_only_for_plastic_under_the_band(
    here: tuple[float, ...], there: tuple[float, ...], cells: float, moved: bool
) -> None:
    seen = 20  # cells in view either way; ``cells`` is the better match of each
    gain = band_shift_gain(
        (np.array(here), 0.3 * seen, seen), (np.array(there), (0.3 + cells) * seen, seen), CFG
    )
    assert (gain > CFG.band_shift_margin) == moved, gain


def test_cells_lost_out_of_the_frame_do_not_make_a_move_better() -> None:
    # A cut-off board: here, 17 cells match well (0.7) and 11 poorly by the frame's
    # edge or under a hand (0.25); a move by a cell towards the edge keeps the 17 only.
    # Their mean rises from 0.54 to 0.7, but the move explains no cell more.
    chance = CFG.band_cell_chance
    good, poor = 17 * (0.7 - chance), 11 * (0.25 - chance)
    levels = np.array([NAN, 0.3, 0.1])
    gain = band_shift_gain((levels, good + poor, 28), (levels, good, 17), CFG)
    assert gain < CFG.band_shift_margin, gain
    # The same lattice moved to where six more cells match well is better.
    gain = band_shift_gain((levels, good, 17), (levels, good + 6 * (0.7 - chance), 23), CFG)
    assert gain > CFG.band_shift_margin, gain


# Cell 12's neighbours are 11, 13 and 6 (row 3, pointing down).
DOUBLED = f"looks like RRR6, {ELSEWHERE}"
PALE = f"looks like WWW1, {ELSEWHERE}"  # a palm or a sleeve: white as the joker
#: (case, confidence of the tile on cell 12, whether its numeral disagrees with its
#: colours, its colour cost (None: no costs told; the photo's other tiles cost 4), whether
#: the photo's numerals are told, the note of unknown cell 13 or None when it reads
#: empty, whether the tile stays)
BESIDE_CASES = [
    ("unsure beside a covered cell", 0.15, False, None, True, COVERED, False),
    ("unsure beside a hand's no-tile", 0.15, False, None, True, NO_TILE, False),
    ("sure beside a covered cell", 0.6, False, None, True, COVERED, True),
    ("unsure beside an empty cell", 0.15, False, None, True, None, True),
    ("unsure beside glare (no hand)", 0.15, False, None, True, GLARE, True),
    ("unsure beside a tile read elsewhere (blur)", 0.15, False, None, True, DOUBLED, True),
    ("unsure beside a palm read as the joker", 0.15, False, None, True, PALE, False),
    ("sure beside a palm read as the joker", 0.6, False, None, True, PALE, True),
    ("unsure beside the frame's edge", 0.15, False, None, True, OUTSIDE, True),
    ("numeral disagreeing beside a tile read elsewhere", 0.6, True, None, True, DOUBLED, False),
    ("numeral disagreeing beside an empty cell", 0.6, True, None, True, None, True),
    ("numeral disagreeing beside a covered cell, sure", 0.6, True, None, True, COVERED, True),
    ("the same beside a tile read elsewhere, blurred", 0.6, True, 6.0, False, DOUBLED, True),
    ("the same, its colours far", 0.6, True, 17.0, False, DOUBLED, False),
    ("colours far, numeral disagreeing beside a cover", 0.6, True, 17.0, False, COVERED, False),
    ("colours far, numeral disagreeing beside no tile", 0.6, True, 17.0, False, NO_TILE, False),
    ("colours as near as the photo's tiles'", 0.6, True, 6.0, True, COVERED, True),
    ("colours far, numeral agreeing", 0.6, False, 17.0, True, COVERED, True),
    ("colours far, numeral disagreeing, nothing beside", 0.6, True, 17.0, True, None, True),
    ("colours far, numeral disagreeing beside glare", 0.6, True, 17.0, True, GLARE, True),
]


@pytest.mark.parametrize(
    ("confidence", "disagrees", "cost", "told", "neighbour", "kept"),
    [c[1:] for c in BESIDE_CASES],
    ids=[c[0] for c in BESIDE_CASES],
)
def test_an_unsure_tile_beside_a_covered_cell_is_unknown(
    confidence: float,
    disagrees: bool,
    cost: float | None,
    told: bool,
    neighbour: str | None,
    kept: bool,
) -> None:
    assert {a[0] for e in Edge if (a := GEO.across(12, e)) is not None} == {11, 13, 6}
    cells = [CellReading(i, "empty") for i in range(36)]
    others = [30, 31, 32, 33, 34]  # (none beside 12 or 13)
    for i in others:
        cells[i] = CellReading(i, "tile", (R, R, R), 6, 0.9)
    note = "numeral reads 4 but the colours say RRP5" if disagrees else ""
    tile = CellReading(12, "tile", (R, R, P), 5, confidence, note)
    cells[12] = tile
    if neighbour is not None:
        cells[13] = CellReading(13, "unknown", note=neighbour)
    costs = None if cost is None else {i: 4.0 for i in others} | {12: cost}
    out = beside_covered(cells, CFG, costs, told)
    assert out[13] == cells[13] and out[:12] == cells[:12] and out[14:] == cells[14:]
    if kept:
        assert out[12] == tile
    else:
        assert out[12].state == "unknown" and out[12].note == BESIDE_COVERED


def test_a_lattice_on_few_points_where_most_cells_are_unreadable_is_not_trusted() -> None:
    """A wrong fit (a corner guessed from a cut-off outline) reads as mostly unknown."""
    reader = BoardReader()

    def cells(unknown: int, outside: int = 0, elsewhere: int = 0) -> tuple[CellReading, ...]:
        out = [CellReading(i, "unknown", note=OUTSIDE) for i in range(outside)]
        out += [
            CellReading(i, "unknown", note=f"looks like RRR6, {ELSEWHERE}")
            for i in range(outside, outside + elsewhere)
        ]
        out += [CellReading(i, "unknown") for i in range(len(out), outside + unknown)]
        out += [CellReading(i, "empty") for i in range(len(out), 36)]
        return tuple(out)

    assert reader._untrusted(a_fit(10), cells(30))
    assert reader._untrusted(a_fit(10), cells(16))  # 16 of 36: not held, not readable
    assert not reader._untrusted(a_fit(30), cells(30))  # many points: a hand over the board
    assert not reader._untrusted(a_fit(10), cells(5))  # few points, but the cells read
    # Cells outside the frame do not count: 10 of the 16 in view are unknown.
    assert reader._untrusted(a_fit(10), cells(10, outside=20))
    assert not reader._untrusted(a_fit(10), cells(5, outside=20))
    # More points: only when nearly nothing reads, a tile seen elsewhere counting twice
    # (a lattice at half the board's scale names each tile on several of its cells).
    assert not reader._untrusted(a_fit(18), cells(20))  # two hands over the board
    assert reader._untrusted(a_fit(18), cells(32))
    assert reader._untrusted(a_fit(18), cells(20, elsewhere=10))
    assert not reader._untrusted(a_fit(18), cells(20, elsewhere=2))
    assert not reader._untrusted(a_fit(26), cells(20, elsewhere=10))
    # Held by many points, nearly nothing reading: refused where many cells name a tile
    # seen elsewhere (16 of 36: a lattice turned over a full board, two hands over it),
    # kept where most are covered (a hand over a real board; a few seen twice).
    assert reader._untrusted(a_fit(24), cells(33, elsewhere=16))
    assert not reader._untrusted(a_fit(24), cells(33, elsewhere=8))
    assert not reader._untrusted(a_fit(30), cells(27, elsewhere=16))  # most read
    # Five points fit some lattice almost exactly wherever it lies: never trusted.
    fewest = reader.config.align_min_cells
    assert reader._untrusted(a_fit(fewest - 1), cells(0))
    assert not reader._untrusted(a_fit(fewest), cells(0))


# (case, the located fit's height, the rescaled one's, cells it moved, which is read): the
# rescaled fit, but where it lies on the same place and only the located one told a height.
KEPT_CASES = [
    ("the same place, only the located told a height", 0.07, 0.0, 0.0, "located"),
    ("the same place, a little off, only the located told", 0.07, 0.0, 0.3, "located"),
    ("the same place, both told a height", 0.07, 0.05, 0.0, "rescaled"),
    ("the same place, neither told a height", 0.0, 0.0, 0.0, "rescaled"),
    ("the same place, only the rescaled told a height", 0.0, 0.07, 0.0, "rescaled"),
    ("moved by a cell", 0.07, 0.0, 1.0, "rescaled"),
]


@pytest.mark.parametrize(
    ("located_height", "rescaled_height", "moved", "kept"),
    [c[1:] for c in KEPT_CASES],
    ids=[c[0] for c in KEPT_CASES],
)
def test_a_lattice_brought_back_where_it_was_keeps_the_height_it_told(
    located_height: float, rescaled_height: float, moved: float, kept: str
) -> None:
    located = a_fit(tile_height=located_height)
    rescaled = a_fit(tile_height=rescaled_height, moved=moved)
    out = kept_located(located, rescaled, CFG)
    assert out is (located if kept == "located" else rescaled)
    assert kept_located(located, located, CFG) is located


# (case, lattice points, tiles named, found, held): a board found by a last search is
# held by trust_min_points (13) lattice points, or tiles named on it.
HELD_CASES = [
    ("many lattice points, no tiles", 20, 0, True, True),
    ("just enough lattice points", 13, 0, True, True),
    ("few points, few tiles", 12, 12, True, False),
    ("few points, many tiles named (a washed-out board)", 12, 13, True, True),
    ("the fewest points a fit has, many tiles", 6, 20, True, True),
    ("not found", 0, 0, False, False),
]


@pytest.mark.parametrize(
    ("points", "tiles", "found", "held"),
    [c[1:] for c in HELD_CASES],
    ids=[c[0] for c in HELD_CASES],
)
def test_a_last_search_is_held_by_lattice_points_or_tiles_named(
    points: int, tiles: int, found: bool, held: bool
) -> None:
    fit = a_fit(points)
    cells = tuple(
        CellReading(i, "tile", (R, R, P), 5, 0.9) if i < tiles else CellReading(i, "unknown")
        for i in range(36)
    )
    reading = BoardReading(True, cells, fit) if found else BoardReading(False, reason="none")
    assert BoardReader()._held(reading) is held


# Cells 0-8 (the top three rows) hold tiles, the rest are empty; cell 5's edges are
# (left, right, base). (case, ridge levels of the tiles' edges between tiles, cell 5's
# edges' ridge levels, cell 5's sectors' levels, tiles beyond row 3, whether it stays)
RIDGE_CASES = [
    ("every ridge dark", 0.2, (0.2, 0.2, 0.2), (0.8, 0.8, 0.8), False, True),
    ("one edge as bright as its sector", 0.2, (0.2, 0.75, 0.2), (0.8, 0.8, 0.8), False, False),
    ("a bright edge, sector brighter still", 0.2, (0.2, 0.6, 0.2), (0.8, 0.8, 0.8), False, True),
    ("the photo shows no ridges (blur)", 0.7, (0.2, 0.75, 0.2), (0.8, 0.8, 0.8), False, True),
    ("beside a sector as dark as the plastic", 0.2, (0.2, 0.1, 0.2), (0.8, 0.1, 0.8), False, True),
    # A dim purple sector barely off the plastic: a ridge blurred with it reads as it does.
    ("beside a sector barely off it", 0.2, (0.2, 0.17, 0.2), (0.8, 0.18, 0.8), False, True),
    ("beside a sector clearly off it", 0.2, (0.2, 0.29, 0.2), (0.8, 0.3, 0.8), False, False),
    # A dark sector (a dim green or blue): a ridge a hundredth below it reads within the
    # photo's noise of it (hidden only above it by more than the noise)...
    ("a dark sector, a ridge within noise", 0.2, (0.2, 0.205, 0.2), (0.8, 0.22, 0.8), False, True),
    ("a dark sector, a ridge above noise", 0.2, (0.2, 0.25, 0.2), (0.8, 0.22, 0.8), False, False),
    # ... while beside a bright sector the same share is far above it.
    ("a bright sector, the same share", 0.2, (0.2, 0.745, 0.2), (0.8, 0.8, 0.8), False, False),
    ("a bright edge on a full board", 0.2, (0.8, 0.2, 0.2), (0.8, 0.8, 0.8), True, False),
    # Blur mixes a ridge with the sectors on its two sides (the cells around: 0.8), never
    # lifting it above both.
    ("blur, an edge brighter than both sides", 0.7, (0.2, 1.0, 0.2), (0.8, 0.8, 0.8), False, False),
    ("blur, an edge beside a brighter sector", 0.7, (0.2, 0.7, 0.2), (0.5, 0.5, 0.5), False, True),
]


@pytest.mark.parametrize(
    ("between", "edges", "sectors", "full", "kept"),
    [c[1:] for c in RIDGE_CASES],
    ids=[c[0] for c in RIDGE_CASES],
)
def test_a_tile_whose_edge_shows_no_ridge_is_unknown(
    between: float,
    edges: tuple[float, float, float],
    sectors: tuple[float, float, float],
    full: bool,
    kept: bool,
) -> None:
    tiles = range(36) if full else range(9)
    cells = [
        CellReading(i, "tile", (R, R, P), 5, 0.9) if i in tiles else CellReading(i, "empty")
        for i in range(36)
    ]
    ridges, levels = np.full((36, 3), between), np.full((36, 3), 0.8)
    ridges[5], levels[5] = edges, sectors
    out = hidden_ridges(cells, ridges, levels, CFG)
    assert [c for c in out if c.index != 5] == [c for c in cells if c.index != 5]
    if kept:
        assert out[5] == cells[5]
    else:
        assert out[5].state == "unknown" and out[5].note == RIDGE_HIDDEN


#: (name, discs as (cell, offset x, offset y, contrast), the shift of tile 7): tile 7's
#: neighbours are cells 6, 8 and 3; a disc is clear from contrast 0.1, and at the edge
#: of the numeral's search (0.1 units here) from 0.08 off.
SHIFT_CASES = [
    (
        "its own disc and a neighbour's agree",
        [(7, 0.06, 0.0, 0.4), (8, 0.05, 0.0, 0.4)],
        (0.055, 0.0),
    ),
    (
        "the median of three",
        [(6, 0.0, 0.05, 0.4), (7, 0.0, 0.065, 0.4), (3, 0.0, 0.04, 0.4)],
        (0.0, 0.05),
    ),
    ("discs that disagree tell nothing", [(7, 0.0, 0.06, 0.4), (3, 0.0, -0.05, 0.4)], (0.0, 0.0)),
    ("one disc alone tells nothing", [(7, 0.06, 0.0, 0.4)], (0.0, 0.0)),
    ("a faint disc does not count", [(7, 0.06, 0.0, 0.4), (8, 0.05, 0.0, 0.05)], (0.0, 0.0)),
    (
        "a disc at the search's edge does not count",
        [(7, 0.06, 0.0, 0.4), (8, 0.085, 0.0, 0.4)],
        (0.0, 0.0),
    ),
    ("a disc further away does not count", [(7, 0.06, 0.0, 0.4), (15, 0.05, 0.0, 0.4)], (0.0, 0.0)),
    ("a pixel's jitter is no shift", [(7, 0.02, 0.0, 0.4), (8, 0.02, 0.01, 0.4)], (0.0, 0.0)),
]


@pytest.mark.parametrize(
    ("discs", "shift"), [c[1:] for c in SHIFT_CASES], ids=[c[0] for c in SHIFT_CASES]
)
def test_a_tiles_ridges_are_read_where_the_discs_near_it_say_it_lies(
    discs: list[tuple[int, float, float, float]], shift: tuple[float, float]
) -> None:
    cells = [d[0] for d in discs]
    offsets = np.array([d[1:3] for d in discs])
    contrast = np.array([d[3] for d in discs])
    out = tile_shifts([7, 30], cells, offsets, contrast, CFG, 0.1)
    assert out.shape == (2, 2)
    assert np.allclose(out[0], shift)
    assert np.allclose(out[1], 0.0)  # tile 30 has no disc near it


@pytest.mark.parametrize(
    ("discs", "moved"),
    [
        ([(7, 0.05, 0.0, 0.4), (8, 0.06, 0.0, 0.4)], True),
        ([(6, 0.05, 0.0, 0.4), (8, 0.06, 0.0, 0.4)], False),  # its own disc unseen
        ([(7, 0.05, 0.0, 0.05), (6, 0.05, 0.0, 0.4), (8, 0.06, 0.0, 0.4)], False),  # faint
    ],
)
def test_a_tiles_colours_are_read_where_its_own_disc_says_it_lies(
    discs: list[tuple[int, float, float, float]], moved: bool
) -> None:
    cells = [d[0] for d in discs]
    offsets = np.array([d[1:3] for d in discs])
    contrast = np.array([d[3] for d in discs])
    out = tile_shifts([7], cells, offsets, contrast, CFG, 0.1, own=True)
    assert bool(np.any(out[0])) == moved
    assert np.any(tile_shifts([7], cells, offsets, contrast, CFG, 0.1)[0])  # ridges: any two


def test_a_shift_the_read_absorbs_is_not_taken() -> None:
    offsets, contrast = np.array([[0.05, 0.0], [0.06, 0.0]]), np.full(2, 0.4)
    shift = tile_shifts([7], [7, 8], offsets, contrast, CFG, 0.1, own=True)
    assert np.allclose(shift, [[0.055, 0.0]])
    assert not tile_shifts([7], [7, 8], offsets, contrast, CFG, 0.1, own=True, least=0.06).any()


def test_too_few_edges_between_tiles_do_not_tell_whether_ridges_show() -> None:
    cells = [CellReading(i, "tile" if i in (0, 2) else "empty") for i in range(36)]
    ridges, levels = np.full((36, 3), 0.2), np.full((36, 3), 0.8)
    ridges[2] = 0.8
    assert hidden_ridges(cells, ridges, levels, CFG) == cells


@pytest.mark.parametrize(
    ("plastic", "kept"),
    [((True, True, True), False), ((True, False, True), False), ((False, True, False), True)],
    ids=["band plastic all round", "band plastic on cell 0's sides", "band covered there"],
)
def test_a_tile_on_the_boards_edge_is_judged_where_the_band_shows_plastic(
    plastic: tuple[bool, bool, bool], kept: bool
) -> None:
    """Paper, a printed band or a sleeve may lie along the band beside a tile it does not
    cover: the board's edge tells only on a side whose band shows its plastic. The apex
    cell's left and right edges lie on sides 2 and 0."""
    assert [GEO.across(0, e) is None for e in EDGE_ORDER] == [True, True, False]
    cells = [CellReading(i, "tile" if i < 9 else "empty") for i in range(36)]
    ridges, levels = np.full((36, 3), 0.2), np.full((36, 3), 0.8)
    ridges[0] = (0.8, 0.8, 0.2)
    out = hidden_ridges(cells, ridges, levels, CFG, np.array(plastic))
    assert out[1:] == cells[1:]
    assert (out[0] == cells[0]) if kept else (out[0].note == RIDGE_HIDDEN)
    assert hidden_ridges(cells, ridges, levels, CFG) == cells  # no band measured


# (case, disc contrast, navy distance, sectors' mean L*, numeral read,
#  may hold the joker, may hold another tile): the pairings refused before the tiles are
# assigned are those tile_doubt would refuse whatever they cost.
PAIRINGS = [
    ("the joker: white around a navy disc, its 1 read", 0.6, 10.0, 95.0, 1, True, True),
    ("no disc at all: no tile", 0.05, 10.0, 95.0, 1, False, False),
    ("a palm: pale, no navy disc", 0.6, 60.0, 95.0, None, False, True),
    ("a grey sleeve: a disc, but not white", 0.6, 10.0, 60.0, 1, False, True),
    ("white, a navy disc, another value read", 0.6, 10.0, 95.0, 4, False, True),
    ("a numeral too small to read, disc and white tell", 0.6, 15.0, 105.0, None, True, True),
    ("a numeral too small to read, whiteness does not tell", 0.6, 15.0, 90.0, None, False, True),
]


@pytest.mark.parametrize(
    ("contrast", "navy", "lightness", "numeral", "joker", "other"),
    [c[1:] for c in PAIRINGS],
    ids=[c[0] for c in PAIRINGS],
)
def test_pairings_refused_before_the_assignment(
    contrast: float, navy: float, lightness: float, numeral: int | None, joker: bool, other: bool
) -> None:
    refused = BoardReader()._refused_pairings(
        np.array([contrast]), np.array([navy]), np.array([lightness]), [numeral]
    )
    tiles = set_tiles()[0]
    assert refused.shape == (1, len(tiles))
    is_joker = np.array([t.is_joker for t in tiles])
    assert bool(refused[0, is_joker].all()) is not joker
    assert bool(refused[0, ~is_joker].any()) is not other
    assert bool(refused[0, ~is_joker].all()) is not other
