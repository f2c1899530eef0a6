"""Outlines seeded by the cells: triangles found, hypotheses placed, outlines ranked."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.config import default_config
from vision.errors import BoardNotFoundError
from vision.locate import corner_gaps, outline_candidates
from vision.model import PLAY_CORNERS, VERTICES, outer_corners, playing_share, project
from vision.rectify import Pyramid
from vision.seeds import cell_triangles, seed_homographies, seeded_outlines

CFG = default_config()


def _affine(angle_deg: float, scale: float, shift: tuple[float, float]) -> np.ndarray:
    a = np.deg2rad(angle_deg)
    rot = scale * np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return np.vstack([np.c_[rot, shift], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize(
    ("cell", "order", "scale"),
    [(0, [0, 1, 2], 0.92), (7, [2, 0, 1], 0.92), (20, [1, 0, 2], 0.52), (35, [2, 1, 0], 0.52)],
)
def test_one_hypothesis_puts_the_board_where_the_triangle_came_from(
    cell: int, order: list[int], scale: float
) -> None:
    """A cell's triangle, shrunk to a tile's or a window's side and seen through an
    affine map (its corners in any order, either way round), seeds among its hypotheses
    the map itself: the board's corners where the map puts them."""
    truth = _affine(33.0, 41.0, (600.0, 300.0))
    centroid = VERTICES[cell].mean(axis=0)
    shrunk = centroid + scale * (VERTICES[cell] - centroid)
    triangle = project(truth, shrunk)[order]
    hs = seed_homographies(triangle[None], (0.92, 0.52))
    assert hs.shape == (2 * 3 * 36, 3, 3)
    corners = np.array([project(h, PLAY_CORNERS) for h in hs])
    gaps = np.abs(corners - project(truth, PLAY_CORNERS)).max(axis=(1, 2))
    assert gaps.min() < 1e-6
    # and only one: every other cell, turn or size puts the board elsewhere
    assert int((gaps < 1.0).sum()) == 1


def _frame() -> np.ndarray:
    rng = np.random.default_rng(7)
    frame = np.full((720, 1280, 3), 35, np.uint8)
    frame += rng.integers(0, 6, frame.shape, dtype=np.uint8)
    return frame


def test_a_bright_triangle_is_a_cell_and_a_disc_is_not() -> None:
    """A tile-sized bright triangle on a dark table is found, its corners where it was
    drawn; a bright disc of the same size fills too little of the least triangle around
    it to be a cell; a dark triangle (a window) on a lighter patch is found too."""
    frame = _frame()
    tile = np.array([[300.0, 200.0], [380.0, 200.0], [340.0, 269.3]])
    cv2.fillPoly(frame, [np.round(tile).astype(np.int32)], (60, 200, 230))
    cv2.circle(frame, (700, 300), 35, (60, 200, 230), -1)
    cv2.rectangle(frame, (850, 400), (1050, 600), (150, 150, 150), -1)
    window = np.array([[920.0, 520.0], [980.0, 520.0], [950.0, 468.0]])
    cv2.fillPoly(frame, [np.round(window).astype(np.int32)], (30, 30, 30))
    triangles = cell_triangles(frame, CFG)

    def gap(drawn: np.ndarray) -> float:
        """How far the triangle found nearest the drawn one is from it (either way round)."""
        return float(
            min(corner_gaps(drawn, triangles).min(), corner_gaps(drawn, triangles[:, ::-1]).min())
        )

    assert gap(tile) < 4
    assert gap(window) < 4
    centres = triangles.mean(axis=1)
    assert (np.linalg.norm(centres - [700.0, 300.0], axis=1) > 30).all()


def test_a_plain_frame_seeds_nothing() -> None:
    frame = _frame()
    assert len(cell_triangles(frame, CFG)) == 0
    assert len(seeded_outlines(frame, Pyramid(frame, CFG), CFG, 5)) == 0


def rendered(seed: int, **force: object) -> tuple[np.ndarray, object]:
    from vision.render.compose import render, sample_still

    r = render(sample_still(seed, (1280, 720), False, **force))
    return cv2.imdecode(np.frombuffer(r.jpeg, np.uint8), cv2.IMREAD_COLOR), r.truth


def test_the_cells_seed_the_outline_no_region_gives() -> None:
    """k4242/63: a small board with a full hand of tiles on a dark table, two hands over
    it and the band. No region (dark, off the table, enclosed by edges) has the board's
    outline within a cell; the tiles seed it, first of all, within a fifth of a cell."""
    frame, truth = rendered(4242 * 1_000_003 + 63, table="dark")
    homography = np.array(truth.homography)  # type: ignore[attr-defined]
    outline = project(homography, outer_corners(CFG.band_width))
    cell = float(np.linalg.norm(outline[1] - outline[2])) / 6 / 1.3
    for kind in ({}, {"off_table": True}, {"structure": True}):
        try:
            found = outline_candidates(frame, CFG, CFG.outline_pool, None, **kind)  # type: ignore[arg-type]
        except BoardNotFoundError:
            continue
        rough = np.array([found.rough_corners(i) for i in range(len(found))])
        assert corner_gaps(outline, rough).min() > cell
    seeded = seeded_outlines(frame, Pyramid(frame, CFG).brightness_view(), CFG, CFG.outline_pool)
    assert corner_gaps(outline, seeded[:1])[0] < 0.2 * cell


def test_a_board_beyond_the_frame_by_more_than_the_cut_is_not_seeded() -> None:
    """A tile near the frame's corner seeds no board whose playing triangle would lie
    farther outside the frame than ``seed_cut_cells``: with none allowed, the boards
    seeded all lie within the frame."""
    frame = _frame()
    tile = np.array([[60.0, 40.0], [140.0, 40.0], [100.0, 109.3]])
    cv2.fillPoly(frame, [np.round(tile).astype(np.int32)], (60, 200, 230))
    pyramid = Pyramid(frame, CFG)
    some = seeded_outlines(frame, pyramid, CFG, 500)
    strict = replace(CFG, seed_cut_cells=0.0)
    none_out = seeded_outlines(frame, pyramid, strict, 500)
    assert 0 < len(none_out) < len(some)
    centre = none_out.mean(axis=1, keepdims=True)
    play = centre + (none_out - centre) * playing_share(CFG.band_width)
    h, w = frame.shape[:2]
    assert (play >= -1).all() and (play[..., 0] <= w + 1).all() and (play[..., 1] <= h + 1).all()
