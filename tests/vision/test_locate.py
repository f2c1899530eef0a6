"""The outline's straight stretches: parallel lines of one blurred edge count once."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.config import default_config
from vision.errors import BoardNotFoundError
from vision.locate import (
    Outlines,
    _distinct_lines,
    enclosing_triangle,
    lifted_veil,
    not_table_masks,
    outline_candidates,
    structure_mask,
    table_looks_dark,
)
from vision.model import canonical_order, playing_share

DEG = math.pi / 180


@pytest.mark.parametrize(
    ("lines", "limit", "kept"),
    [
        # one edge, blurred: three lines 4 px apart at one angle -> the first
        ([(100, 30 * DEG), (104, 30 * DEG), (96, 31 * DEG)], 5, [0]),
        # the same distance apart at another angle -> another edge
        ([(100, 30 * DEG), (104, 90 * DEG)], 5, [0, 1]),
        # parallel but farther apart than the limit -> two edges
        ([(100, 30 * DEG), (111, 30 * DEG)], 5, [0, 1]),
        # theta wraps at 180 degrees, where rho changes sign: one line, then two
        ([(100, 179.5 * DEG), (-102, 0.5 * DEG), (40, 60 * DEG)], 5, [0, 2]),
        ([(100, 179.5 * DEG), (102, 0.5 * DEG)], 5, [0, 1]),
        # no more than the limit, in order
        ([(0, 0.0), (50, 60 * DEG), (90, 120 * DEG)], 2, [0, 1]),
    ],
)
def test_distinct_lines(lines: list[tuple[float, float]], limit: int, kept: list[int]) -> None:
    got = _distinct_lines(np.array(lines, dtype=np.float64), limit, apart=10.0)
    assert got == [(float(lines[i][0]), float(lines[i][1])) for i in kept]


def test_distinct_lines_extends_those_kept_without_changing_them() -> None:
    before = [(100.0, 30 * DEG)]
    got = _distinct_lines(np.array([(105.0, 30 * DEG), (100.0, 80 * DEG)]), 3, 10.0, before)
    assert got == [before[0], (100.0, 80 * DEG)]
    assert before == [(100.0, 30 * DEG)]


#: A board's plastic cut by the frame's right edge (a 640-wide search image), whose
#: hull OpenCV 5.1's minEnclosingTriangle answers with an empty triangle: the outline
#: search raised on the photo it came from (a still of ``generate --seed 9898``).
CUT_HULL = [
    [639, 0], [639, 120], [627, 150], [626, 152], [622, 158], [620, 159], [606, 161],
    [558, 164], [540, 164], [538, 162], [538, 159], [539, 153], [560, 33], [562, 23],
    [568, 0],
]  # fmt: skip


def test_a_hull_opencv_finds_no_triangle_for_gives_none() -> None:
    hull = np.array(CUT_HULL, np.float32).reshape(-1, 1, 2)
    tri = enclosing_triangle(hull)
    if tri is not None:  # another OpenCV may find one: then it encloses the hull
        assert tri.shape == (3, 2) and np.isfinite(tri).all()
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32).reshape(-1, 1, 2)
    found = enclosing_triangle(square)
    assert found is not None and found.shape == (3, 2)
    assert abs(cv2.contourArea(found.astype(np.float32))) >= 100.0


def test_an_outline_search_over_a_hull_without_triangle_does_not_raise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever OpenCV answers for the smallest enclosing triangle (an empty one, or an
    error), the outline search goes on with the outline's own sides."""
    frame = np.full((360, 640, 3), 200, np.uint8)
    cv2.fillConvexPoly(frame, np.array([[320, 40], [560, 320], [80, 320]], np.int32), (25, 25, 25))
    cfg = default_config()
    before = outline_candidates(frame, cfg, cfg.outline_pool)
    empty = (float("inf"), np.zeros((0, 2), np.float32))
    monkeypatch.setattr(cv2, "minEnclosingTriangle", lambda hull: empty)
    after = outline_candidates(frame, cfg, cfg.outline_pool)
    assert len(after) >= 1 and len(before) >= 1


def test_an_outline_whose_sides_fit_parallel_keeps_its_corners() -> None:
    """Straightening an outline fits a line to each side's points; where two come out
    parallel (a side's points on something straight beside the board), the outline keeps
    the corners it was found with instead of failing the whole search for the board."""
    corners = np.array([[0.0, 0.0], [100.0, 0.0], [50.0, 80.0]])
    base = np.column_stack([np.linspace(18, 82, 30), np.zeros(30)])  # along A-B
    across = np.column_stack([np.linspace(72, 78, 20), np.full(20, 40.0)])  # flat, on B-C
    t = np.linspace(0.2, 0.8, 30)[:, None]
    left = corners[2] + t * (corners[0] - corners[2])  # along C-A
    outlines = Outlines([(corners, np.vstack([base, across, left]), 1.0, 1.0, (200, 200))])
    outline = outlines[0]
    assert np.allclose(outline.corners, canonical_order(corners))


#: A board's outline in a 640 x 360 search image, apex first.
BOARD = np.array([[320, 40], [560, 320], [80, 320]], np.int32)


def board_on_table(table: tuple[int, int, int], plastic: tuple[int, int, int]) -> np.ndarray:
    """A 640 x 360 frame: a table, a board of plastic on it with bright tiles inside, a
    loose bright tile beside it, and some seeded noise."""
    rng = np.random.default_rng(7)
    frame = np.empty((360, 640, 3), np.uint8)
    frame[:] = table
    cv2.fillConvexPoly(frame, BOARD, plastic)
    for tri in ([[320, 110], [360, 180], [280, 180]], [[250, 240], [290, 300], [210, 300]]):
        cv2.fillConvexPoly(frame, np.array(tri, np.int32), (40, 190, 230))
    cv2.fillConvexPoly(
        frame, np.array([[590, 60], [620, 110], [560, 110]], np.int32), (200, 80, 60)
    )
    noise = rng.normal(0, 2.0, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(
    ("table", "plastic"),
    [
        ((14, 16, 20), (38, 38, 40)),  # a black table, darker than the plastic
        ((20, 34, 52), (36, 36, 38)),  # a dark-stained wood, as bright: only its tint differs
    ],
)
def test_a_board_on_a_table_as_dark_is_found_as_what_is_not_the_table(
    table: tuple[int, int, int], plastic: tuple[int, int, int]
) -> None:
    frame = board_on_table(table, plastic)
    cfg = default_config()
    masks = not_table_masks(frame, cfg)
    assert masks and all(m.shape == frame.shape[:2] for m in masks)
    assert masks[0][200, 320] == 255  # the board's plastic
    assert masks[0][20, 20] == 0 and masks[0][340, 620] == 0  # the table
    found = outline_candidates(frame, cfg, cfg.outline_pool, off_table=True)
    gaps = [np.abs(o.corners - canonical_order(BOARD.astype(float))).max() for o in found]
    assert min(gaps) < 8.0


def ribbed_board_on_table(shade: tuple[int, int, int]) -> np.ndarray:
    """A 640 x 360 frame: a board of plastic of the table's own ``shade`` whose ribs and
    band edge catch the light a little (a lattice of lines 12 levels lighter), on a plain
    table, with seeded noise."""
    rng = np.random.default_rng(11)
    frame = np.empty((360, 640, 3), np.uint8)
    frame[:] = shade
    lit = tuple(c + 12 for c in shade)
    apex, right, left = BOARD.astype(np.float64)
    cv2.polylines(frame, [BOARD], True, lit, 2)
    for k in range(1, 6):  # the rows of ribs, parallel to each side
        t = k / 6
        for a, b, c in ((apex, left, right), (right, apex, left), (left, right, apex)):
            p, q = a + t * (b - a), a + t * (c - a)
            cv2.line(frame, tuple(np.round(p).astype(int)), tuple(np.round(q).astype(int)), lit, 2)
    noise = rng.normal(0, 1.5, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def test_a_board_of_the_tables_own_shade_is_found_by_the_regions_its_edges_enclose() -> None:
    """Neither darker nor of another colour than the table, the board stands out by its
    edges alone: the structure search outlines it, the search off the table does not."""
    frame = ribbed_board_on_table((30, 32, 36))
    cfg = default_config()
    mask = structure_mask(frame, cfg)
    assert mask.shape == frame.shape[:2]
    assert mask[200, 320] == 255  # inside the board, between its ribs
    assert mask[20, 20] == 0 and mask[340, 620] == 0  # the plain table
    found = outline_candidates(frame, cfg, cfg.outline_pool, structure=True)
    gaps = [np.abs(o.corners - canonical_order(BOARD.astype(float))).max() for o in found]
    assert min(gaps) < 8.0
    try:
        off = outline_candidates(frame, cfg, cfg.outline_pool, off_table=True)
    except BoardNotFoundError:
        return
    gaps = [np.abs(o.corners - canonical_order(BOARD.astype(float))).max() for o in off]
    assert min(gaps) > 8.0


def test_a_plain_table_encloses_nothing() -> None:
    frame = np.full((360, 640, 3), (30, 32, 36), np.uint8)
    cfg = default_config()
    assert not structure_mask(frame, cfg).any()
    with pytest.raises(BoardNotFoundError):
        outline_candidates(frame, cfg, cfg.outline_pool, structure=True)


def test_the_dark_plastic_is_not_looked_for_off_the_table_on_a_light_table() -> None:
    """On a light table the dark search finds the board; the search off the table is
    the other way round (what is not the table), and finds it too."""
    frame = board_on_table((170, 180, 190), (30, 30, 32))
    cfg = default_config()
    for off_table in (False, True):
        found = outline_candidates(frame, cfg, cfg.outline_pool, off_table=off_table)
        gaps = [np.abs(o.corners - canonical_order(BOARD.astype(float))).max() for o in found]
        assert min(gaps) < 8.0


def test_tiles_filling_a_board_as_dark_as_the_table_propose_the_board_around_them() -> None:
    """Where the plastic looks like the table, only the tiles stand out: on a full board,
    the playing area. Its outline is also taken for the playing area, and the board's
    outline around it (the band's width more) proposed unstraightened."""
    frame = np.full((360, 640, 3), (36, 36, 38), np.uint8)  # table and plastic alike
    outer = canonical_order(BOARD.astype(float))
    centre = outer.mean(axis=0)
    playing = centre + (outer - centre) * playing_share(default_config().band_width)
    cv2.fillConvexPoly(frame, np.round(playing).astype(np.int32), (40, 190, 230))
    cfg = default_config()
    found = outline_candidates(frame, cfg, cfg.outline_pool, off_table=True)

    def nearest(target: np.ndarray) -> float:
        return min(float(np.abs(o.corners - target).max()) for o in found)

    assert nearest(playing) < 6.0
    assert nearest(outer) < 6.0
    dark = outline_candidates(frame, cfg, cfg.outline_pool)  # table and plastic as one
    assert min(float(np.abs(o.corners - outer).max()) for o in dark) > 20.0


@pytest.mark.parametrize(
    ("table", "dark"),
    [
        ((14, 16, 20), True),  # black
        ((20, 34, 52), True),  # dark-stained wood
        ((60, 90, 120), False),  # a wooden table in dim light: a third of the tiles' white
        ((170, 180, 190), False),  # a light one
        ((40, 40, 200), False),  # red
    ],
)
def test_a_table_is_dark_beside_the_tiles(table: tuple[int, int, int], dark: bool) -> None:
    frame = board_on_table(table, (30, 30, 32))
    frame[150:170, 300:340] = 230  # a white tile (the joker)
    assert table_looks_dark(frame, default_config()) == dark


def test_lifted_veil_takes_a_lamps_glare_off_and_keeps_the_tiles_and_the_table() -> None:
    """A dark table (level 30) with a black board's ribs (8) and a tile on it (a yellow
    triangle round a navy disc), a glare spot added over the board's middle: taken off
    down to the table's own level, the ribs under it are no lighter than the table, the
    tile under it is about its own colour, and the table away from it is as it was."""
    rng = np.random.default_rng(3)
    h, w = 360, 640
    frame = np.full((h, w, 3), 30, np.float64) + rng.normal(0, 2, (h, w, 3))
    frame[100:260, 200:440] = 8.0  # the plastic
    frame[100:260, 200:440][:, ::24] = 40.0  # windows between ribs
    tile = np.array([[300, 155], [330, 207], [270, 207]], np.int32)  # a cell's size
    yellow = np.zeros((h, w), np.uint8)
    cv2.fillPoly(yellow, [tile], 255)
    frame[yellow > 0] = (30.0, 140.0, 160.0)  # BGR
    cv2.circle(frame, (300, 190), 8, (90.0, 30.0, 25.0), -1)  # the navy disc
    yy, xx = np.mgrid[:h, :w]
    glare = 80.0 * np.exp(-((xx - 300) ** 2 + (yy - 180) ** 2) / (2 * 60.0**2))
    plain = np.clip(frame, 0, 255).astype(np.uint8)
    lit = np.clip(frame + glare[..., None], 0, 255).astype(np.uint8)
    lifted = lifted_veil(lit, default_config()).astype(np.int64)
    # the glare was strong where the rib and the tile lie ...
    assert lit[180, 360].min() > 55 and lit[200, 285].min() > 100
    # ... and is taken off: the rib no lighter than the table, the tile near its colour
    assert lifted[180, 360].max() <= 32
    assert np.abs(lifted[200, 285] - plain[200, 285]).max() <= 25
    # the table far from the spot keeps its level
    assert np.abs(lifted[20:60, 20:80] - plain[20:60, 20:80]).mean() < 1.0
