"""``spectrangle read`` and the board reader: interface, bad input, invariances."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine import SPECTRANGLE36, Board, Colour, Placement, Tile
from engine.colours import EDGE_ORDER
from spectrangle.cli import main
from vision.colour import TILE_COLOURS, linear_to_srgb, srgb_to_linear, white_balanced
from vision.config import default_config
from vision.errors import BoardNotFoundError, UnreadableImageError
from vision.identify import TileGuess
from vision.model import (
    BONUS,
    CENTROIDS,
    EDGE_ENDS,
    EDGE_MIDPOINTS,
    PLAY_CORNERS,
    UP,
    VERTICES,
    canonical_order,
    outer_corners,
    project,
)
from vision.read import (
    BESIDE_COVERED,
    COLOURLESS,
    DARK_NO_HOLES,
    DARK_TABLE,
    ELSEWHERE,
    GLARE_EMPTY,
    GLARE_TILE,
    IN_SHADE,
    JOKER_REFUSED,
    PART_OTHER,
    BoardReader,
    BoardReading,
    CellReading,
    check_frame,
    disc_stats,
    load_image,
    looks_elsewhere,
    unclear_in_view,
)
from vision.rectify import (
    LATTICE_SHIFTS,
    BoardFit,
    Lens,
    Pyramid,
    homography_from_corners,
    lattice_scores,
    peg_track,
    plausible,
    px_per_unit,
)
from vision.render.compose import render, sample_still

ROOT = Path(__file__).resolve().parents[2]
STILLS = ROOT / "sample_images" / "stills"
GEO = SPECTRANGLE36.geometry


#: The weak outline lines' votes before they were lowered to 0.09 of the side hint: the
#: controls measured on the outlines found then (a control that finds no board, or the
#: board a cell off, without the part it isolates) keep them.
OLD_WEAK_LINES = (0.25, 0.12)


@cache
def reader() -> BoardReader:
    return BoardReader()


@cache
def reading_of(name: str) -> BoardReading:
    return reader().read(load_image(str(STILLS / f"{name}.jpg")))


def truth_of(name: str) -> dict[str, Any]:
    return json.loads((STILLS / f"{name}.json").read_text())


def turned(board: Board, times: int) -> Board:
    for _ in range(times):
        board = board.rotated()
    return board


def same_board_up_to_turn(a: Board, b: Board) -> bool:
    return any(turned(a, k) == b for k in range(3))


def truth_board(name: str) -> Board:
    return Board.from_notation(truth_of(name)["board"], GEO)


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(STILLS / "00.jpg"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board"]["found"] is True
    corners = out["board"]["corners"]
    assert len(corners) == 3 and all(len(c) == 2 for c in corners)
    assert [c["index"] for c in out["cells"]] == list(range(36))
    colours = {"red", "green", "blue", "yellow", "purple", "white"}
    for cell in out["cells"]:
        assert cell["state"] in {"empty", "tile", "unknown"}
        if cell["state"] == "tile":
            assert set(cell["edges"]) == {"left", "right", "base"}
            assert set(cell["edges"].values()) <= colours
            assert 1 <= cell["value"] <= 6
            assert 0.0 <= cell["confidence"] <= 1.0


def test_clean_still_reads_exactly() -> None:
    """A still without hands, blur or cut-off: every cell as the truth says."""
    reading = reading_of("00")
    assert reading.found
    assert all(c.state != "unknown" for c in reading.cells)
    assert same_board_up_to_turn(reading.board(), truth_board("00"))


def test_corners_land_on_the_board_corners() -> None:
    reading = reading_of("00")
    assert reading.fit is not None
    truth = np.array(truth_of("00")["corners"])
    side = np.linalg.norm(truth[0] - truth[1]) / 6
    err = min(
        np.linalg.norm(np.roll(truth, -k, axis=0) - reading.fit.corners, axis=1).max()
        for k in range(3)
    )
    assert err < 0.12 * side


def test_a_colour_cast_and_dimmer_light_change_nothing() -> None:
    frame = load_image(str(STILLS / "00.jpg"))
    gains = np.array([1.25, 0.95, 0.62])  # B, G, R: a cold cast, and darker
    cast = np.clip(frame.astype(np.float64) * gains * 0.8, 0, 255).astype(np.uint8)
    a, b = reading_of("00"), reader().read(cast)
    assert b.found
    assert same_board_up_to_turn(b.board(), a.board())


def saturated(frame: np.ndarray, factor: float) -> np.ndarray:
    """The photo with its saturation scaled (a phone's boost above 1, a washed-out webcam
    below): the HSV saturation times ``factor``."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * factor, 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


@pytest.mark.parametrize("name", ["02", "05", "08", "09"])
@pytest.mark.parametrize("factor", [0.55, 0.7, 1.6])
def test_a_camera_that_renders_colours_more_or_less_saturated_reads_the_same(
    name: str, factor: float
) -> None:
    """The tile set's own colours say how saturated the camera renders them: a boosted or
    a washed-out photo reads as the plain one."""
    frame = load_image(str(STILLS / f"{name}.jpg"))
    assert reads_the_same(reader().read(saturated(frame, factor)), reading_of(name), name)


def dimmed(frame: np.ndarray, factor: float) -> np.ndarray:
    """The frame under ``factor`` times the light (in linear light)."""
    linear = srgb_to_linear(frame / 255.0) * factor
    return np.clip(linear_to_srgb(linear) * 255 + 0.5, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("light", [0.35, 0.5])
def test_a_washed_out_camera_in_dim_light_reads_the_same(light: float) -> None:
    """Dim light takes chroma away too: a camera that washes colours out to half, in a
    dim room, sees the palette's colours at less than half their chroma. Its chroma
    scale is still a camera's (within ``saturation_range``) and is taken, and the tiles
    read as in the plain photo; without it, yellows and reds read as greens and blues."""
    name = "05"
    frame = saturated(dimmed(load_image(str(STILLS / f"{name}.jpg")), light), 0.5)
    right, wrong = right_and_wrong(reading_of(name), name)
    assert right >= 15 and wrong == 0
    assert right_and_wrong(reader().read(frame), name) == (right, wrong)


@pytest.mark.parametrize(
    ("factor", "whites", "expected"),
    [(0.6, 0, 1 / 0.6), (1.4, 0, 1 / 1.4), (0.6, 12, 1 / 0.6), (1.0, 4, 1.0)],
)
def test_the_chroma_scale_is_told_by_the_palettes_hues(
    factor: float, whites: int, expected: float
) -> None:
    """Palette colours with their chroma scaled by ``factor`` (each a little off in hue and
    lightness, as printed and lit) give back the scale that undoes it; whites and greys
    among them change nothing."""
    rng = np.random.default_rng(5)
    r = reader()
    protos = np.array([r.prototypes[c] for c in TILE_COLOURS if c is not Colour.WHITE] * 4)
    seen = protos.copy()
    seen[:, 1:] *= factor
    turn = rng.normal(0.0, 0.05, len(seen))  # radians of hue
    cos, sin = np.cos(turn), np.sin(turn)
    seen[:, 1], seen[:, 2] = (
        cos * seen[:, 1] - sin * seen[:, 2],
        sin * seen[:, 1] + cos * seen[:, 2],
    )
    seen[:, 0] += rng.normal(0.0, 3.0, len(seen))
    grey = np.column_stack([rng.uniform(60, 100, whites), rng.normal(0, 1.5, (whites, 2))])
    got = r._chroma_scale(np.concatenate([seen, grey]))
    assert got == pytest.approx(expected, rel=0.05)


def test_the_chroma_scale_needs_colours_to_tell() -> None:
    """Only greys, or too few colours: no scale (1)."""
    r = reader()
    greys = np.column_stack([np.full(20, 80.0), np.full(20, 1.0), np.full(20, -1.0)])
    assert r._chroma_scale(greys) == 1.0
    few = np.array([r.prototypes[c] for c in TILE_COLOURS if c is not Colour.WHITE]) * [1, 0.5, 0.5]
    assert r._chroma_scale(few) == 1.0


def glare(frame: np.ndarray, centre: np.ndarray, sigma: float, peak: float) -> np.ndarray:
    """A lamp's reflection: light added over a round spot (the plastic and tiles alike).

    ``peak`` is the light added at the centre, as a fraction of white, in linear light.
    """
    ys, xs = np.mgrid[: frame.shape[0], : frame.shape[1]]
    d2 = (xs - centre[0]) ** 2 + (ys - centre[1]) ** 2
    spot = peak * np.exp(-0.5 * d2 / sigma**2)
    linear = srgb_to_linear(frame / 255.0) + spot[:, :, None]
    return np.clip(linear_to_srgb(np.clip(linear, 0, 1)) * 255 + 0.5, 0, 255).astype(np.uint8)


def shadow(frame: np.ndarray, centre: np.ndarray, radius: float, factor: float) -> np.ndarray:
    """A soft round shadow: the light times ``factor`` (in linear light) within ``radius``."""
    ys, xs = np.mgrid[: frame.shape[0], : frame.shape[1]]
    inside = np.hypot(xs - centre[0], ys - centre[1]) < radius
    f = cv2.GaussianBlur(np.where(inside, factor, 1.0).astype(np.float32), (0, 0), 0.15 * radius)
    linear = srgb_to_linear(frame / 255.0) * f[:, :, None]
    return np.clip(linear_to_srgb(linear) * 255 + 0.5, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("cell", [8, 9, 10, 11])
def test_a_purple_tile_in_deep_shadow_is_still_read_by_its_numeral(cell: int) -> None:
    """A shadow a third as bright over a tile with purple sectors leaves them nearly as
    dark as the plastic: the tile is read all the same, its numeral vouching for it, and
    no other cell changes its tile."""
    frame = load_image(str(STILLS / "02.jpg"))
    plain = reading_of("02")
    assert plain.fit is not None
    tile = plain.cells[cell]
    assert tile.state == "tile" and "purple" in {e.value for e in tile.edges or ()}
    side = float(np.linalg.norm(plain.fit.corners[0] - plain.fit.corners[1])) / 6
    centre = project(plain.fit.homography, CENTROIDS[cell][None])[0]
    shaded = reader().read(shadow(frame, centre, 0.7 * side, 0.3), plain.fit)
    assert shaded.cells[cell].placement == tile.placement, shaded.cells[cell]
    for before, after in zip(plain.cells, shaded.cells, strict=True):
        if after.state == "tile":
            assert after.placement == before.placement


def arm_over(
    frame: np.ndarray, fit: BoardFit, cells: list[int], bgr: tuple[int, ...]
) -> np.ndarray:
    """A pale arm over the listed cells: their triangles painted a flat skin colour
    ``bgr``, shaded across the frame and a little noisy (seeded)."""
    mask = np.zeros(frame.shape[:2], np.uint8)
    for cell in cells:
        cv2.fillPoly(mask, [fit.to_image(VERTICES[cell]).round().astype(np.int32)], 255)
    mask = cv2.dilate(mask, np.ones((7, 7), np.uint8)) > 0
    shade = np.linspace(0.85, 1.1, frame.shape[1])[None, :, None]
    noise = np.random.default_rng(5).normal(0.0, 4.0, frame.shape)
    skin = np.clip(np.array(bgr, np.float64) * shade + noise, 0, 255).round()
    out = frame.copy()
    out[mask] = skin[mask].astype(np.uint8)
    return out


@pytest.mark.parametrize("bgr", [(120, 150, 185), (60, 85, 125)])
def test_an_arm_over_most_tiles_does_not_set_the_white_of_the_others(bgr: tuple[int, ...]) -> None:
    """An arm over all but five of the tiles shows more "tiles" than the board does, none
    with a numeral: the numerals of the five still give the white, and they read as
    without the arm."""
    frame = load_image(str(STILLS / "02.jpg"))
    plain = reading_of("02")
    assert plain.fit is not None
    tiles = [c.index for c in plain.cells if c.state == "tile"]
    seen, covered = tiles[::5], [i for i in tiles if i not in tiles[::5]]
    assert len(seen) == 6 and len(covered) == 20
    reading = reader().read(arm_over(frame, plain.fit, covered, bgr), plain.fit)
    for i in seen:
        assert reading.cells[i].placement == plain.cells[i].placement, reading.cells[i]


@pytest.mark.parametrize("cell", [9, 11, 12])
def test_a_tile_in_a_shadow_as_dark_as_the_plastic_is_not_read_empty(cell: int) -> None:
    """A shadow a fifth as bright over a tile with purple sectors makes its whole face as
    dark as the plastic, like an empty cell over a dark table; but its numeral still
    shows, which no window does: the cell is not empty (the tile, or unknown)."""
    frame = load_image(str(STILLS / "02.jpg"))
    plain = reading_of("02")
    assert plain.fit is not None and plain.cells[cell].state == "tile"
    side = float(np.linalg.norm(plain.fit.corners[0] - plain.fit.corners[1])) / 6
    centre = project(plain.fit.homography, CENTROIDS[cell][None])[0]
    shaded = reader().read(shadow(frame, centre, 0.7 * side, 0.2), plain.fit)
    assert shaded.cells[cell].state != "empty"
    if shaded.cells[cell].state == "tile":
        assert shaded.cells[cell].placement == plain.cells[cell].placement


def test_glare_on_the_plastic_leaves_empty_cells_empty() -> None:
    """A lamp's glare over the empty part of the board brightens the black frames of the
    empty cells: their windows still show, so they stay empty, and no tile appears."""
    clean = reading_of("00")
    assert clean.fit is not None
    empty = [c.index for c in clean.cells if c.state == "empty"]
    centre = clean.fit.to_image(CENTROIDS[empty]).mean(axis=0)
    frame = glare(
        load_image(str(STILLS / "00.jpg")), centre, px_per_unit(clean.fit.homography), 0.2
    )
    reading = reader().read(frame)
    assert reading.found
    changed = [
        (a.index, a.state, a.note)
        for a, b in zip(reading.cells, clean.cells, strict=True)
        if a.state != b.state or a.placement != b.placement
    ]
    assert all(state == "unknown" for _, state, _ in changed), changed
    assert len(changed) <= 1, changed


@pytest.mark.parametrize(("name", "peak"), [("00", 0.3), ("00", 0.5), ("02", 0.3), ("02", 0.5)])
def test_cells_under_a_strong_glare_read_with_the_veil_taken_off(name: str, peak: float) -> None:
    """A strong glare a cell wide over the empty part of the board lifts the frames of
    the empty cells under it off the plastic's black and washes out the tiles' colours:
    read as they are, they are unknown. With the veil of light taken off the board
    (``veil_margin`` levels above its darkest patches), the empty cells read empty and
    the tiles as the clean photo reads them, noted so; no other cell changes."""
    clean = reading_of(name)
    assert clean.fit is not None
    empty = [c.index for c in clean.cells if c.state == "empty"]
    centre = clean.fit.to_image(CENTROIDS[empty]).mean(axis=0)
    size = px_per_unit(clean.fit.homography)
    frame = glare(load_image(str(STILLS / f"{name}.jpg")), centre, size, peak)
    lifted = reader().read(frame)
    as_seen = BoardReader(replace(default_config(), veil_margin=255.0)).read(frame)
    rescued = [c.index for c in lifted.cells if c.note in (GLARE_EMPTY, GLARE_TILE)]
    assert sum(lifted.cells[i].note == GLARE_EMPTY for i in rescued) >= 3
    for i in rescued:
        assert as_seen.cells[i].state == "unknown"
        assert lifted.cells[i].state == clean.cells[i].state
        assert lifted.cells[i].placement == clean.cells[i].placement
    for a, b in zip(lifted.cells, as_seen.cells, strict=True):
        assert a.index in rescued or a == b


@pytest.mark.parametrize(("name", "spread", "peak"), [("02", 3.0, 1.0), ("03", 2.0, 1.0)])
def test_a_board_mostly_under_a_lamps_glare_is_found(
    name: str, spread: float, peak: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A glare spot as wide as the board lifts the black frames of most cells towards
    their windows: read as they are, most cells read unclear, and the lattice, however
    well its points hold it, was refused as no board's. With the veil of light taken off
    it reads as a board's: the board is found where the clean photo has it, and no cell
    reads otherwise than there (those under the glare may be unknown)."""
    clean = reading_of(name)
    assert clean.fit is not None
    size = spread * px_per_unit(clean.fit.homography)
    frame = glare(
        load_image(str(STILLS / f"{name}.jpg")), clean.fit.corners.mean(axis=0), size, peak
    )
    reading = reader().read(frame)
    assert reading.found, reading.reason
    assert reading.fit is not None
    assert np.abs(reading.fit.corners - clean.fit.corners).max() < 0.1 * size
    for got, was in zip(reading.cells, clean.cells, strict=True):
        if got.state != "unknown":
            assert (got.state, got.placement) == (was.state, was.placement), (got, was)
    # (the premise: judged on its cells as they read under the glare, it is refused)
    monkeypatch.setattr(BoardReader, "_clear_unveiled", lambda self, frame, fit: False)
    assert not reader().read(frame).found


def test_a_hand_over_the_board_is_no_veil_of_light() -> None:
    """A hand (skin-coloured, nothing dark on it) over tiles away from any empty cell's
    frame holds no veil of light that the plastic shows: the cells under it are not read
    again with a veil taken off, and stay unknown or as they were."""
    clean = reading_of("02")
    assert clean.fit is not None
    tiles = [c.index for c in clean.cells if c.state == "tile"]
    empty = CENTROIDS[[c.index for c in clean.cells if c.state == "empty"]]
    far = max(tiles, key=lambda i: float(np.linalg.norm(empty - CENTROIDS[i], axis=1).min()))
    centre = clean.fit.to_image(CENTROIDS[[far]])[0]
    frame = load_image(str(STILLS / "02.jpg")).copy()
    radius = int(0.9 * px_per_unit(clean.fit.homography))
    cv2.circle(frame, (int(centre[0]), int(centre[1])), radius, (120, 160, 210), -1)
    reading = reader().read(frame)
    assert reading.cells[far].state == "unknown"
    assert not [c.index for c in reading.cells if c.note in (GLARE_EMPTY, GLARE_TILE)]


def black_things_beside(frame: np.ndarray, corners: np.ndarray, share: float) -> np.ndarray:
    """Black slabs (phones) laid near the frame's corners and edges' middles where those
    are clear of the board (its playing triangle's ``corners`` (3, 2), grown to take in
    its band and a margin), each ``share`` of the frame's width and height, none touching
    the frame's edge."""
    h, w = frame.shape[:2]
    board = np.zeros((h, w), np.uint8)
    centre = corners.mean(axis=0)
    cv2.fillPoly(board, [np.round(centre + 1.6 * (corners - centre)).astype(np.int32)], 1)
    out = frame.copy()
    bw, bh = int(share * w), int(share * h)
    for fx, fy in [
        (0.04, 0.04),
        (0.76, 0.04),
        (0.04, 0.76),
        (0.76, 0.76),
        (0.4, 0.04),
        (0.4, 0.76),
    ]:
        x0, y0 = int(fx * w), int(fy * h)
        if not board[y0 : y0 + bh, x0 : x0 + bw].any():
            out[y0 : y0 + bh, x0 : x0 + bw] = 12
    return out


@pytest.mark.parametrize("name", ["00", "02", "04"])
def test_black_things_beside_a_glared_board_under_a_warm_light_leave_it_found(name: str) -> None:
    """Phones beside the board are blacker than its plastic once a lamp's glare and its
    warm colour lift that: the plastic is told by the darkest of the board itself, not
    of the whole photo, and the board is read as it is without them."""
    clean = reading_of(name)
    assert clean.fit is not None
    frame = load_image(str(STILLS / f"{name}.jpg"))
    lit = glare(frame, clean.fit.corners.mean(axis=0), 3 * px_per_unit(clean.fit.homography), 0.1)
    warm = np.clip(lit * np.array([0.7, 0.95, 1.25]) + 0.5, 0, 255).astype(np.uint8)
    shown = black_things_beside(warm, clean.fit.corners, 0.18)
    assert (shown != warm).any()  # a phone lies in view
    reading = reader().read(shown)
    assert reading.found, reading.reason
    # (the lattice may be named from another corner: the boards are compared at the turn
    # that fits; a cell the truth has under a hand may read unknown in either, the right
    # answer too, but no tile there may read wrong)
    assert same_tiles_in_view(reading, clean, name)
    assert right_and_wrong(reading, name)[1] <= right_and_wrong(clean, name)[1]


@pytest.mark.parametrize(("cell", "edge"), [(12, 0), (13, 0), (21, 0), (6, 1)])
def test_a_fingertip_over_a_tiles_edge_makes_it_unknown_not_another_tile(
    cell: int, edge: int
) -> None:
    """A fingertip over one sector and the ridge beside it: the sector reads the finger's
    colour, which with the other two may name another tile. The hidden ridge says that
    something lies over the tile."""
    clean = reading_of("00")
    assert clean.fit is not None and clean.cells[cell].state == "tile"
    across = GEO.across(cell, EDGE_ORDER[edge])
    assert across is not None and clean.cells[across[0]].state == "tile"
    tip = clean.fit.to_image((0.75 * EDGE_MIDPOINTS[cell, edge] + 0.25 * CENTROIDS[cell])[None])
    size = px_per_unit(clean.fit.homography)
    frame = load_image(str(STILLS / "00.jpg"))
    axes = (round(0.22 * size), round(0.12 * size))
    centre = (round(float(tip[0, 0])), round(float(tip[0, 1])))
    cv2.ellipse(frame, centre, axes, 30, 0, 360, (110, 140, 205), -1, cv2.LINE_AA)
    reading = reader().read(frame)
    assert reading.found
    assert reading.cells[cell].state == "unknown", reading.cells[cell]
    wrong = [
        c.index
        for c, was in zip(reading.cells, clean.cells, strict=True)
        if c.state == "tile" and c.placement != was.placement
    ]
    assert wrong == []


@pytest.mark.parametrize("cell", [12, 13, 21])
def test_a_fingertip_over_a_tiles_disc_makes_it_unknown(cell: int) -> None:
    """A fingertip over a tile's disc hides the navy every tile shows there, and its
    numeral: the tile is not read from its sectors alone (the finger is placing or
    taking it), and no other cell changes."""
    clean = reading_of("00")
    assert clean.fit is not None and clean.cells[cell].state == "tile"
    centre = clean.fit.to_image(CENTROIDS[cell][None])[0]
    size = px_per_unit(clean.fit.homography)
    frame = load_image(str(STILLS / "00.jpg"))
    # A round fingertip, lit from one side: its shading spans the disc's contrast.
    tip = np.zeros(frame.shape[:2], np.uint8)
    axes = (round(0.17 * size), round(0.14 * size))
    at = (round(float(centre[0])), round(float(centre[1])))
    cv2.ellipse(tip, at, axes, 30, 0, 360, 255, -1, cv2.LINE_AA)
    shade = np.clip((np.arange(frame.shape[1]) - at[0]) / (0.3 * size) + 0.5, 0.0, 1.0)
    skin = np.array([110, 140, 205], np.float64) * (0.35 + 0.75 * shade)[None, :, None]
    alpha = tip[:, :, None] / 255.0
    frame = np.clip(frame * (1 - alpha) + np.clip(skin, 0, 255) * alpha, 0, 255).astype(np.uint8)
    reading = reader().read(frame, clean.fit)
    assert reading.cells[cell].state == "unknown", reading.cells[cell]
    for c, was in zip(reading.cells, clean.cells, strict=True):
        if c.index != cell:
            assert (c.state, c.placement) == (was.state, was.placement)


def sector_colour(
    reading: BoardReading, frame: NDArray[np.uint8], colour: Colour
) -> tuple[int, ...]:
    """The BGR that a tile's sector of ``colour`` shows in ``frame`` (read as ``reading``):
    the median of a few pixels between its disc and its edge."""
    for c in reading.cells:
        if c.state == "tile" and c.edges is not None and colour in c.edges:
            e = c.edges.index(colour)
            towards = EDGE_MIDPOINTS[c.index, e] - CENTROIDS[c.index]
            point = CENTROIDS[c.index] + 0.19 * towards / np.linalg.norm(towards)
            assert reading.fit is not None
            x, y = (round(float(v)) for v in reading.fit.to_image(point[None])[0])
            patch = frame[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3)
            return tuple(int(v) for v in np.median(patch, axis=0))
    raise AssertionError(f"no {colour} sector on the board")


@pytest.mark.parametrize(
    ("cell", "edge", "colour"),
    [(12, 0, Colour.PURPLE), (7, 0, Colour.GREEN), (8, 1, Colour.RED), (3, 2, Colour.GREEN)],
)
def test_another_colour_over_part_of_a_sector_makes_the_tile_unknown(
    cell: int, edge: int, colour: Colour
) -> None:
    """A held tile's corner (or a painted fingernail) over the middle of a sector and one
    of its flanks, clear of the disc and the ridges: the sector's middle reads the other
    colour, which with the other two sectors names another tile. The flank it leaves
    uncovered still shows the edge's own colour, and one piece of plastic shows one
    colour: the cell is unknown, and no other cell changes."""
    clean = reading_of("00")
    assert clean.fit is not None and clean.cells[cell].state == "tile"
    frame = load_image(str(STILLS / "00.jpg"))
    paint = sector_colour(clean, frame, colour)
    mid, centroid = EDGE_MIDPOINTS[cell, edge], CENTROIDS[cell]
    out = (mid - centroid) / np.linalg.norm(mid - centroid)
    along = (EDGE_ENDS[cell, edge, 0] - mid) / np.linalg.norm(EDGE_ENDS[cell, edge, 0] - mid)
    centre = clean.fit.to_image((centroid + 0.222 * out + 0.06 * along)[None])[0]
    size = px_per_unit(clean.fit.homography)
    at = (round(float(centre[0])), round(float(centre[1])))
    cv2.circle(frame, at, round(0.08 * size), paint, -1, cv2.LINE_AA)
    # (the premise: without the flanks, the cell reads as another tile)
    blind = BoardReader(replace(reader().config, flank_max_share=1e6))
    misread = blind.read(frame, clean.fit).cells[cell]
    assert misread.state == "tile" and misread.placement != clean.cells[cell].placement
    reading = reader().read(frame, clean.fit)
    assert reading.cells[cell].state == "unknown", reading.cells[cell]
    assert reading.cells[cell].note == PART_OTHER
    for c, was in zip(reading.cells, clean.cells, strict=True):
        if c.index != cell:
            assert (c.state, c.placement) == (was.state, was.placement)


def test_the_flank_check_holds_on_a_lattice_a_little_off() -> None:
    """The flank patches lie nearer the ridges than the sectors' middles: on a lattice a
    thirtieth of a cell off in any direction (no refit on the discs), every tile of the
    sample stills that reads right without the flank check still does with it."""
    cfg = replace(default_config(), disc_refit_rounds=0)
    checked, blind = BoardReader(cfg), BoardReader(replace(cfg, flank_max_share=1e6))
    rng = np.random.default_rng(5)
    lost, right = [], 0
    for path in sorted(STILLS.glob("*.jpg")):
        clean = reading_of(path.stem)
        if clean.fit is None:
            continue
        frame = load_image(str(path))
        for angle in rng.uniform(0.0, 2 * np.pi, 2):
            d = 0.03 * np.array([np.cos(angle), np.sin(angle)])
            fit = clean.fit.moved(np.array([[1.0, 0.0, d[0]], [0.0, 1.0, d[1]], [0.0, 0.0, 1.0]]))
            pairs = zip(checked.read(frame, fit).cells, blind.read(frame, fit).cells, strict=True)
            for a, b in pairs:
                was = clean.cells[a.index]
                if was.state == "tile" and b.placement == was.placement:
                    right += 1
                    if a.placement != was.placement:
                        lost.append((path.stem, a.index, a.note))
    assert right > 300
    assert lost == []


@pytest.mark.parametrize(("cell", "edge"), [(11, 0), (14, 2), (21, 2)])
def test_a_lamps_highlight_over_part_of_a_sector_leaves_the_tile_read(cell: int, edge: int) -> None:
    """The lamp's highlight on the glossy plastic over one flank of a sector adds the
    light's colour (white) to it: the flank is lighter and paler than the sector's middle
    but no other colour, and the tile reads as it did, as does every other cell."""
    clean = reading_of("00")
    assert clean.fit is not None and clean.cells[cell].state == "tile"
    c, m, a = CENTROIDS[cell], EDGE_MIDPOINTS[cell, edge], EDGE_ENDS[cell, edge, 0]
    sides = [float(np.linalg.norm(p - q)) for p, q in ((a, m), (m, c), (c, a))]
    flank = (sides[0] * c + sides[1] * a + sides[2] * m) / sum(sides)  # the flank's middle
    x, y = (round(float(v)) for v in clean.fit.to_image(flank[None])[0])
    size = px_per_unit(clean.fit.homography)
    spot = np.zeros((720, 1280), np.float32)
    cv2.circle(spot, (x, y), round(0.07 * size), 1.0, -1, cv2.LINE_AA)
    spot = cv2.GaussianBlur(spot, (0, 0), 0.02 * size)
    frame = load_image(str(STILLS / "00.jpg"))
    assert frame.shape[:2] == spot.shape
    lit = srgb_to_linear(frame / 255.0) + 0.5 * spot[..., None]
    frame = (linear_to_srgb(np.clip(lit, 0.0, 1.0)) * 255 + 0.5).astype(np.uint8)
    reading = reader().read(frame, clean.fit)
    for got, was in zip(reading.cells, clean.cells, strict=True):
        assert (got.state, got.placement) == (was.state, was.placement), (got, was)


def test_a_plainly_seen_window_is_empty_whatever_its_frame() -> None:
    """A veil of light over the playing area (haze, a lamp's broad reflection) lifts the
    black frames of the empty cells far above the plastic's black: a window whose shape
    is unmistakable still says the cell is empty (no tile shows a window's shape)."""
    clean = reading_of("07")
    assert clean.fit is not None
    frame = load_image(str(STILLS / "07.jpg")).astype(np.float32)
    inside = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillPoly(inside, [clean.fit.corners.round().astype(np.int32)], 255)
    veiled = frame + (200.0 - frame) * 0.3
    frame[inside > 0] = veiled[inside > 0]
    hazy = frame.astype(np.uint8)
    details: dict[str, Any] = {}
    cells, _ = reader().read_cells(hazy, clean.fit, details)
    plain = np.nonzero(details["plain_windows"])[0]
    assert len(plain) >= 5
    assert all(cells[i].state == "empty" for i in plain)
    # the veil does lift the frames: some windows are seen but not plainly (unknown)
    assert sum(c.state == "empty" for c in cells) < sum(c.state == "empty" for c in clean.cells)


@pytest.mark.parametrize("seed", [73000219002, 73000219014])
def test_an_all_purple_tile_in_a_small_photo_is_not_read_as_a_window(seed: int) -> None:
    """At 640x480 an all-purple tile's light halo and numeral look like the light
    window of an empty cell, and its dark purple like the plastic of most of its frame;
    its numeral, which no window shows, keeps it a tile. No empty cell reads a tile."""
    shot = render(sample_still(seed, (640, 480)))
    truth = shot.truth.board_state
    reading = reader().read(shot.frame_bgr)
    assert reading.found
    placed = reading.board().placements
    turn = max(range(3), key=lambda k: sum(p == turned(truth, k)[p.index] for p in placed))
    truth = turned(truth, turn)
    hidden = set(shot.truth.covered) | set(shot.truth.outside)
    for _ in range(turn):
        hidden = {GEO.rotation[i] for i in hidden}
    purple = [p.index for p in truth.placements if str(p.tile) == "PPP6"]
    assert purple
    for cell in reading.cells:
        if cell.index in hidden:
            continue
        if cell.index in purple:
            assert cell.state != "empty"
        elif truth[cell.index] is None:
            assert cell.state != "tile", cell


def test_a_window_seen_clearly_through_a_glared_frame_is_empty() -> None:
    """A lamp's glare lifts the black frames of empty cells until they do not look like
    plastic, and what the cell shows is no tile: a window that explains the cell clearly
    better than a tile does, with no navy disc at its centre (a dark tile's numeral in its
    disc looks like a window), says it is empty, though its shape is not unmistakable."""
    clean = reading_of("02")
    assert clean.fit is not None
    empty = [c.index for c in clean.cells if c.state == "empty"]
    centre = clean.fit.to_image(CENTROIDS[empty]).mean(axis=0)
    size = px_per_unit(clean.fit.homography)
    frame = glare(load_image(str(STILLS / "02.jpg")), centre, size, 0.4)
    details: dict[str, Any] = {}
    cells, _ = reader().read_cells(frame, clean.fit, details)
    plain = set(np.nonzero(details["plain_windows"])[0].tolist())
    navy = {i: details["disc"][k][1] for k, i in enumerate(details["candidates"])}
    windows = [
        i
        for i in np.nonzero(details["clear_windows"])[0].tolist()
        if i in empty and i not in plain and navy.get(i, np.inf) > default_config().disc_max_navy
    ]
    assert len(windows) >= 3
    assert [cells[i].state for i in windows] == ["empty"] * len(windows)
    for cell, was in zip(cells, clean.cells, strict=True):
        assert cell.state != "tile" or cell.placement == was.placement
    # without the window's word, glare leaves them unknown
    blind = BoardReader(replace(default_config(), disc_max_navy=np.inf))
    unseen, _ = blind.read_cells(frame, clean.fit)
    assert sum(unseen[i].state == "unknown" for i in windows) >= 3


def truth_turn(reading: BoardReading, name: str) -> int:
    """The turn of the truth that fits the reading best."""
    placed = reading.board().placements
    truths = [turned(truth_board(name), k) for k in range(3)]
    return max(range(3), key=lambda k: sum(p == truths[k][p.index] for p in placed))


def covered_as_read(reading: BoardReading, name: str) -> set[int]:
    """The cells the truth has under a hand, numbered as ``reading`` names them."""
    covered = set(truth_of(name).get("covered", []))
    for _ in range(truth_turn(reading, name)):
        covered = {GEO.rotation[i] for i in covered}
    return covered


def reads_the_same(reading: BoardReading, clean: BoardReading, name: str) -> bool:
    """Whether ``reading`` gives ``clean``'s board, but that a cell the truth has under a
    hand may read unknown in either (the right answer too: a finger on its edge)."""
    covered = covered_as_read(clean, name)
    for a, b in zip(reading.cells, clean.cells, strict=True):
        if a.index in covered and "unknown" in (a.state, b.state):
            continue
        if a.state != b.state or a.placement != b.placement:
            return False
    return True


def same_tiles_in_view(reading: BoardReading, clean: BoardReading, name: str) -> bool:
    """Whether ``reading`` places the tiles ``clean`` does on the cells the truth has in
    view, at some turn of its lattice (:func:`reads_the_same` without the same apex)."""
    covered = covered_as_read(clean, name)

    def in_view(board: Board) -> set[object]:
        return {p for p in board.placements if p.index not in covered}

    return any(in_view(turned(reading.board(), k)) == in_view(clean.board()) for k in range(3))


def right_and_wrong(reading: BoardReading, name: str) -> tuple[int, int]:
    """Tiles read right and wrong against sample ``name``'s truth, at the turn that fits
    best."""
    return placed_right_and_wrong(reading, truth_board(name))


def placed_right_and_wrong(reading: BoardReading, truth: Board) -> tuple[int, int]:
    """Tiles read right and wrong against the ``truth`` board, at the turn that fits best."""
    placed = reading.board().placements
    right = max(sum(p == turned(truth, k)[p.index] for p in placed) for k in range(3))
    return right, len(placed) - right


def crosstalk(frame: np.ndarray, share: float) -> np.ndarray:
    """The photo as a cheap sensor's colour matrix renders it: each channel takes in a
    share of its neighbours' light (in linear light), which no gain per channel undoes."""
    m = np.array([[1 - share, share, 0], [share / 2, 1 - share, share / 2], [0, share, 1 - share]])
    out = srgb_to_linear(frame.astype(np.float64) / 255.0) @ m.T
    return (linear_to_srgb(np.clip(out, 0, 1)) * 255 + 0.5).astype(np.uint8)


def greyscale(frame: np.ndarray, gains: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> np.ndarray:
    """The photo as a camera with no colour takes it (a night mode's infrared, a black and
    white setting), each channel the grey times ``gains`` (a tinted one), as JPEG."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    tinted = np.clip(grey[..., None] * np.array(gains, np.float32), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", tinted, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), (1.2, 1.0, 0.75)])
def test_a_photo_with_no_colour_reads_where_the_tiles_are_and_their_values_not_colours(
    gains: tuple[float, float, float],
) -> None:
    clean = reading_of("00")
    frame = greyscale(load_image(str(STILLS / "00.jpg")), gains)
    assert reader().read(frame).found
    grey = reader().read(frame, fit=clean.fit)
    tiles = [c for c in clean.cells if c.state == "tile"]
    assert len(tiles) >= 10
    assert not any(c.state == "tile" for c in grey.cells)
    values_right = 0
    for c in tiles:
        seen = grey.cells[c.index]
        assert seen.state == "unknown" and seen.note.endswith(COLOURLESS), seen
        values_right += f"numeral looks like {c.value};" in seen.note and seen.value == c.value
    assert values_right >= len(tiles) - 2
    assert all(grey.cells[c.index].state == "empty" for c in clean.cells if c.state == "empty")


def test_the_photos_own_palette_reads_a_camera_that_renders_colours_its_own_way() -> None:
    """The tiles the numerals vouch for show how the photo renders each colour; the
    tiles whose colours the printed palette cannot name are named by those."""
    frame = crosstalk(load_image(str(STILLS / "02.jpg")), 0.35)
    tiles = len(truth_board("02").placements)
    right, wrong = right_and_wrong(reader().read(frame), "02")
    assert wrong == 0 and right >= tiles - 1
    printed_only = BoardReader(replace(default_config(), seen_palette_min_sectors=10**6))
    assert right_and_wrong(printed_only.read(frame), "02")[0] < right


def test_the_photos_palette_moves_by_how_often_each_colour_is_vouched_for() -> None:
    reader_ = BoardReader()
    cfg = reader_.config
    red, blue = reader_.prototypes[Colour.RED], reader_.prototypes[Colour.BLUE]
    shift = np.array([0.0, 6.0, -4.0])
    rrb = Tile.from_notation("RRB4")

    def guess(numeral: int | None, margin: float) -> TileGuess:
        edges = (Colour.RED, Colour.RED, Colour.BLUE)
        return TileGuess(rrb, edges, 10.0, 10.0 + margin, numeral)

    labs = np.stack([np.stack([red + shift, red + shift, blue])] * 2)
    # Two tiles vouched for: four red sectors, two blue ones seen as printed.
    palette = reader_._seen_palette(labs, [guess(4, 20.0), guess(4, 20.0)])
    assert palette is not None
    n = 4
    assert np.allclose(palette[Colour.RED], red + shift * n / (n + cfg.seen_palette_prior))
    assert np.allclose(palette[Colour.BLUE], blue)
    assert np.allclose(palette[Colour.GREEN], reader_.prototypes[Colour.GREEN])
    # Neither a numeral that reads another value nor colours close to another tile's
    # vouch for a tile.
    assert reader_._seen_palette(labs, [guess(5, 20.0), guess(4, 1.0)]) is None


def test_an_out_of_focus_photo_still_reads_its_tiles() -> None:
    """Blur mixes each disc's white numeral into its navy and the numerals become hard to
    read: the tiles are still named from their colours, and none wrongly."""
    clean = reading_of("00")
    assert clean.fit is not None
    frame = load_image(str(STILLS / "00.jpg"))
    blurred = cv2.GaussianBlur(frame, (0, 0), 0.06 * px_per_unit(clean.fit.homography))
    reading = reader().read(blurred)
    assert reading.found
    right, wrong = right_and_wrong(reading, "00")
    assert wrong == 0
    assert right >= 0.75 * len(truth_board("00").placements)


def test_strong_blur_mixes_the_sectors_into_the_disc() -> None:
    """Blur of a tenth of a tile side, then the detail of half the resolution lost: the
    discs take the colour of the sectors around them as well as of their numerals. A board
    with only eight tiles learns that mix from the tiles themselves, and reads them."""
    clean = reading_of("03")
    assert clean.fit is not None
    frame = load_image(str(STILLS / "03.jpg"))
    h, w = frame.shape[:2]
    blurred = cv2.GaussianBlur(frame, (0, 0), 0.1 * px_per_unit(clean.fit.homography))
    half = cv2.resize(blurred, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    reading = reader().read(cv2.resize(half, (w, h)))
    assert reading.found
    right, wrong = right_and_wrong(reading, "03")
    assert wrong == 0
    assert right >= 0.75 * len(truth_board("03").placements)


def motion_blurred(frame: np.ndarray, length: float, angle_deg: float) -> np.ndarray:
    """The frame smeared along a line ``length`` px long (a camera moving while the shutter
    is open), in linear light."""
    size = int(length) | 1
    kernel = np.zeros((size, size), np.float32)
    d = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    for t in np.linspace(-length / 2, length / 2, 4 * size):
        x, y = np.round(size // 2 + t * d).astype(int)
        kernel[y, x] = 1.0
    linear = cv2.filter2D(srgb_to_linear(frame / 255.0), -1, kernel / kernel.sum())
    return np.clip(linear_to_srgb(linear) * 255 + 0.5, 0, 255).astype(np.uint8)


def test_a_photo_smeared_by_motion_reads_its_tiles_by_their_colours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Motion blur of a sixth of a tile side makes many numerals read as another value as
    clearly as their own: the plain tiles show it, the numerals weigh that much less, and
    the colours name the tiles. Weighed as in a sharp photo, the numerals lose many."""
    clean = reading_of("06")
    assert clean.fit is not None
    frame = load_image(str(STILLS / "06.jpg"))
    smeared = motion_blurred(frame, 0.15 * px_per_unit(clean.fit.homography), 30.0)
    tiles = len(truth_board("06").placements)
    right, wrong = right_and_wrong(reader().read(smeared), "06")
    assert wrong == 0 and right >= 0.85 * tiles
    monkeypatch.setattr("vision.read.numeral_trust", lambda *args: 1.0)
    assert right_and_wrong(reader().read(smeared), "06")[0] < right - 5


@pytest.mark.parametrize("name", ["02", "08"])
def test_a_stored_fit_a_tenth_of_a_cell_off_is_refitted_on_hazy_discs(name: str) -> None:
    """Haze (a veil of light over the photo) leaves the discs faint, a third of their
    contrast: they still say where the cells are, and a fit a tenth of a cell off is
    put back on them."""
    frame = load_image(str(STILLS / f"{name}.jpg"))
    clean = reading_of(name)
    assert clean.fit is not None
    hazy = np.clip(0.6 * frame + 0.4 * 0.7 * 255, 0, 255).astype(np.uint8)
    off = clean.fit.moved(np.array([[1.0, 0.0, 0.1], [0.0, 1.0, -0.05], [0.0, 0.0, 1.0]]))
    reading = reader().read(hazy, off)
    assert reading.fit is not None
    assert reads_the_same(reading, clean, name)


def test_a_fit_bent_off_at_one_corner_is_refitted_on_discs_found_further_off() -> None:
    """A fit right over most of the board but bent off towards one corner (by 0.37 of a
    tile side there, as a lattice extrapolated under a hand): the discs there lie past
    the numerals' own search, and are looked for further, so the refit on the discs puts
    every tile back. Looked for no further, several stay off."""
    clean = reading_of("06")
    assert clean.fit is not None
    fit = clean.fit
    centre = PLAY_CORNERS.mean(axis=0)
    towards = (centre - PLAY_CORNERS[1]) / np.linalg.norm(centre - PLAY_CORNERS[1])
    src = np.vstack([PLAY_CORNERS, centre])
    dst = src.copy()
    dst[1] += 0.6 * towards
    bend, _ = cv2.findHomography(src, dst)
    h = fit.homography @ bend
    bent = BoardFit.from_homography(
        h / h[2, 2], fit.residual_px, fit.residual_units, fit.points, fit.lens, fit.lattice
    )
    frame = load_image(str(STILLS / "06.jpg"))
    tiles = [c for c in clean.cells if c.state == "tile"]

    def kept(reader_: BoardReader) -> int:
        reading = reader_.read(frame, bent)
        return sum(reading.cells[c.index].placement == c.placement for c in tiles)

    assert kept(reader()) == len(tiles)
    narrow = replace(default_config(), disc_refit_far_min=len(tiles) + 1)
    assert kept(BoardReader(narrow)) < len(tiles) - 3


def test_each_disc_refit_is_checked_against_the_lattice_points() -> None:
    """Discs all along the base rows say little about the apex: a refit that follows
    them and bends the apex away from the lattice points seen there is refused, at the
    second refit as at the first (the refitted fit keeps the lattice points)."""
    clean = reading_of("00")
    assert clean.fit is not None
    h = clean.fit.homography
    lattice = (CENTROIDS.copy(), project(h, CENTROIDS))
    fit = BoardFit.from_homography(h, 1.0, 0.01, 36, Lens.none((720, 1280)), lattice)
    base_rows = np.arange(16, 36)  # rows 4 and 5
    steady = {
        "candidates": base_rows.tolist(),
        "disc_contrast": np.ones(len(base_rows)),
        "disc_offsets": np.tile([0.03, 0.0], (len(base_rows), 1)),  # a small slide
    }
    first = reader()._refit_on_discs(fit, steady, joint=True)
    assert first is not None and first.lattice is not None
    np.testing.assert_array_equal(first.lattice[1], lattice[1])
    # the discs now say the board is 8% taller about the base rows: the apex would move
    # by a third of a cell, away from the lattice points seen there
    y = CENTROIDS[base_rows, 1]
    stretched = dict(steady, disc_offsets=np.stack([0 * y, 0.08 * (y - y.mean())], axis=1))
    assert reader()._refit_on_discs(first, stretched, joint=True) is None
    assert reader()._refit_on_discs(fit, stretched, joint=True) is None


def test_a_refit_on_discs_in_one_corner_keeps_the_lattice_points_elsewhere() -> None:
    """Tiles only near the apex: their discs, found to about a pixel, say where the
    lattice is there but little about the base, which the lattice points seen in this
    frame hold. Fitted together, the base corners stay within a pixel; on the discs
    alone (as for a stored fit, whose lattice points were seen in another frame) they
    drift several times as far."""
    clean = reading_of("00")
    assert clean.fit is not None
    truth = clean.fit.homography
    rng = np.random.default_rng(11)
    apex_rows = np.arange(0, 9)  # rows 0 to 2
    seen = np.arange(16, 36)  # the lattice points of rows 4 and 5
    lattice = (CENTROIDS[seen], project(truth, CENTROIDS[seen]))
    slid = truth @ np.array([[1.0, 0.0, 0.05], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    fit = BoardFit.from_homography(slid, 1.0, 0.01, 29, Lens.none((720, 1280)), lattice)
    discs = project(truth, CENTROIDS[apex_rows]) + rng.normal(0.0, 0.7, (len(apex_rows), 2))
    details = {
        "candidates": apex_rows.tolist(),
        "disc_contrast": np.ones(len(apex_rows)),
        "disc_offsets": project(np.linalg.inv(slid), discs) - CENTROIDS[apex_rows],
    }

    def base_error(refit: BoardFit | None) -> float:
        assert refit is not None
        base = PLAY_CORNERS[1:]
        return float(np.linalg.norm(refit.to_image(base) - project(truth, base), axis=1).max())

    joint = reader()._refit_on_discs(fit, details, joint=True)
    alone = reader()._refit_on_discs(fit, details, joint=False)
    assert joint is not None and joint.points == fit.points  # held as the lattice was
    assert base_error(joint) < 1.0
    assert base_error(alone) > 3 * base_error(joint)


def test_a_few_clear_discs_in_a_bent_corner_refit_it_with_the_lattice_points() -> None:
    """A hand over most of the tiles leaves six discs, fewer than hold a fit alone, in
    the corner where the lattice is bent off (a quarter of a tile side there, as where
    the lattice points in that corner were found on the tiles' rims): fitted with the
    lattice points seen far from them, they put the corner back within a pixel or two,
    the rest of the board staying where its lattice points hold it. On the discs alone
    (a stored fit), or on discs too faint to trust, the fit is left as it was."""
    clean = reading_of("00")
    assert clean.fit is not None
    truth = clean.fit.homography
    scale = float(
        np.linalg.norm(project(truth, PLAY_CORNERS[:1]) - project(truth, PLAY_CORNERS[1:2]))
    )
    centre = PLAY_CORNERS.mean(axis=0)
    src = np.vstack([PLAY_CORNERS, centre])
    dst = src.copy()
    dst[2] += 0.4 * (centre - PLAY_CORNERS[2]) / np.linalg.norm(centre - PLAY_CORNERS[2])
    bend, _ = cv2.findHomography(src, dst)
    bent = truth @ bend
    bent /= bent[2, 2]
    seen = np.arange(0, 16)  # rows 0 to 3: far from the bottom-left corner
    lattice = (CENTROIDS[seen], project(truth, CENTROIDS[seen]))
    fit = BoardFit.from_homography(bent, 1.0, 0.01, 16, Lens.none((720, 1280)), lattice)
    corner = PLAY_CORNERS[2:3]

    def corner_error(refit: BoardFit) -> float:
        return float(np.linalg.norm(refit.to_image(corner) - project(truth, corner)))

    rng = np.random.default_rng(5)
    few = np.array([16, 17, 18, 25, 26, 27])  # the bottom-left corner's cells
    discs = project(truth, CENTROIDS[few]) + rng.normal(0.0, 0.5, (len(few), 2))

    def details(contrast: float) -> dict[str, Any]:
        return {
            "candidates": few.tolist(),
            "disc_contrast": np.full(len(few), contrast),
            "disc_offsets": project(np.linalg.inv(bent), discs) - CENTROIDS[few],
        }

    assert len(few) < default_config().disc_refit_min_tiles
    assert corner_error(fit) > 0.03 * scale
    joint = reader()._refit_on_discs(fit, details(1.0), joint=True)
    assert joint is not None and corner_error(joint) < 0.01 * scale
    apex = PLAY_CORNERS[:1]
    assert float(np.linalg.norm(joint.to_image(apex) - project(truth, apex))) < 0.01 * scale
    assert reader()._refit_on_discs(fit, details(1.0), joint=False) is None
    faint = default_config().disc_refit_joint_min_contrast - 0.05
    assert faint >= default_config().disc_refit_min_contrast
    assert reader()._refit_on_discs(fit, details(faint), joint=True) is None


def test_discs_enough_to_hold_a_lattice_refit_a_steep_close_view() -> None:
    """Portrait 9898/1: 45 degrees of tilt, the board filling three quarters of a
    phone's frame, its far corner twice as far from the camera as its near one. Thirty
    discs, found to half a pixel, hold that perspective as surely as a lattice's points
    would (``max_perspective_ratio_held``), and the refit on them is taken; a dozen
    discs, no more than a handful of points, are not trusted with it."""
    cfg = default_config()
    corners = np.array([[640.0, 60.0], [1180.0, 660.0], [100.0, 640.0]])
    truth = homography_from_corners(corners, PLAY_CORNERS, (0.0, -0.13))
    w = np.hstack([outer_corners(cfg.band_width), np.ones((3, 1))]) @ truth[2]
    assert cfg.max_perspective_ratio < w.max() / w.min() < cfg.max_perspective_ratio_held
    lattice = (CENTROIDS.copy(), project(truth, CENTROIDS))
    slid = truth @ np.array([[1.0, 0.0, 0.05], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    fit = BoardFit.from_homography(slid, 1.0, 0.01, 36, Lens.none((720, 1280)), lattice)
    rng = np.random.default_rng(7)

    def refit(cells: NDArray[np.int64]) -> BoardFit | None:
        discs = project(truth, CENTROIDS[cells]) + rng.normal(0.0, 0.5, (len(cells), 2))
        details = {
            "candidates": cells.tolist(),
            "disc_contrast": np.ones(len(cells)),
            "disc_offsets": project(np.linalg.inv(slid), discs) - CENTROIDS[cells],
        }
        return reader()._refit_on_discs(fit, details, joint=True)

    many = refit(np.arange(0, 36, dtype=np.int64)[:30])
    assert many is not None
    err = np.linalg.norm(many.to_image(PLAY_CORNERS) - project(truth, PLAY_CORNERS), axis=1)
    assert err.max() < 1.5
    few = np.arange(0, 36, 3, dtype=np.int64)  # 12 discs spread over the board
    assert cfg.disc_refit_min_tiles <= len(few) < cfg.enough_lattice_points
    assert refit(few) is None


def test_the_light_field_follows_a_lamps_falloff() -> None:
    """The numerals' whites across the board give a smooth light field; a hand's pale
    "disc" among them does not bend it."""
    rng = np.random.default_rng(3)
    places = CENTROIDS[[0, 2, 5, 7, 9, 12, 14, 17, 20, 22, 26, 28, 31, 33, 35]]
    level = 0.8 * np.exp(0.35 * places[:, 0] / 3.0 - 0.2 * (places[:, 1] - 3.46) / 3.0)
    black, white = np.full(3, 0.02), np.full(3, 0.8)
    discs = []
    for lv in level:
        navy = np.tile([0.02, 0.04, 0.12], (70, 1)) * lv / 0.8
        numeral = np.full((30, 3), lv) + rng.normal(0.0, 0.01, (30, 3))
        discs.append(np.vstack([navy, numeral]))
    discs[4] = np.full((100, 3), 0.15)  # skin in shadow: no white
    light = reader()._light_field(
        disc_stats(discs), places, black, white, np.ones(len(discs), bool)
    )
    expect = (level - 0.02) / np.median(np.delete(level, 4) - 0.02)
    keep = np.arange(len(level)) != 4
    assert np.allclose(light[keep], expect[keep], rtol=0.06), (light, expect)


def test_a_phones_big_photo_reads_as_its_smaller_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A photo three times as large (a phone's) is read at the reader's size: the same
    cells, and the corners and the fit in the big photo's own pixels."""
    frame = load_image(str(STILLS / "00.jpg"))
    h, w = frame.shape[:2]
    big = cv2.resize(frame, (3 * w, 3 * h), interpolation=cv2.INTER_CUBIC)
    clean = reading_of("00")
    searched: list[tuple[int, ...]] = []
    located = BoardReader._read_located

    def spy(self: BoardReader, frame_bgr: np.ndarray, *args: Any) -> BoardReading:
        searched.append(frame_bgr.shape)
        return located(self, frame_bgr, *args)

    monkeypatch.setattr(BoardReader, "_read_located", spy)
    large = BoardReader().read(big)
    assert searched and all(max(shape[:2]) == max(h, w) for shape in searched)
    assert large.found and large.fit is not None and clean.fit is not None
    assert [(c.state, c.placement) for c in large.cells] == [
        (c.state, c.placement) for c in clean.cells
    ]
    np.testing.assert_allclose(large.fit.corners, 3 * clean.fit.corners + 1.0, atol=3.0)
    # the fit maps the board onto the big photo: a cell's centre there is three times as far
    np.testing.assert_allclose(
        large.fit.to_image(CENTROIDS), 3 * clean.fit.to_image(CENTROIDS) + 1.0, atol=3.0
    )


def test_upside_down_photo_reads_the_same_board() -> None:
    frame = load_image(str(STILLS / "00.jpg"))
    flipped = cv2.rotate(frame, cv2.ROTATE_180)
    reading = reader().read(flipped)
    assert reading.found
    assert same_board_up_to_turn(reading.board(), reading_of("00").board())


def test_cut_off_board_reports_corners_outside_and_unknown_cells() -> None:
    frame = load_image(str(STILLS / "00.jpg"))
    truth = np.array(truth_of("00")["corners"])
    # Cut the frame just inside the lowest corner of the playing triangle.
    low = truth[np.argmax(truth[:, 1])]
    cut = frame[: int(low[1]) - 25].copy()
    reading = reader().read(cut)
    assert reading.found and reading.fit is not None
    h = cut.shape[0]
    assert (reading.fit.corners[:, 1] > h).any()
    states = [c.state for c in reading.cells]
    assert "unknown" in states
    assert sum(s == "tile" for s in states) >= 8
    # Whatever it reads as a tile is right.
    truth_b = truth_board("00")
    for k in range(3):
        t = turned(truth_b, k)
        if all(p == t[p.index] for p in reading.board().placements):
            break
    else:
        pytest.fail("tiles read on the cut-off frame disagree with the truth")


def test_a_cell_whose_frame_the_image_edge_just_clips_is_read() -> None:
    """The frame's edge cuts off the tip of a tile's cell: its sectors are all in view,
    and so is most of its frame. It reads as in the whole photo, not "outside the image";
    a cell cut through its sectors is outside."""
    clean = reading_of("00")
    assert clean.fit is not None
    frame = load_image(str(STILLS / "00.jpg"))
    lowest = {
        c.index: float(clean.fit.to_image(VERTICES[c.index])[:, 1].max())
        for c in clean.cells
        if c.state == "tile"
    }
    cell = max(lowest, key=lambda i: lowest[i])
    side = float(np.linalg.norm(clean.fit.corners[0] - clean.fit.corners[1])) / 6
    # a tenth of a side above the cell's lowest vertex: the tip of its frame is cut off
    cut = frame[: int(lowest[cell] - 0.1 * side)].copy()
    fit = clean.fit
    reading = reader().read(cut, fit)
    assert reading.cells[cell].state == "tile", reading.cells[cell]
    assert reading.cells[cell].placement == clean.cells[cell].placement
    deeper = reader().read(frame[: int(lowest[cell] - 0.6 * side)].copy(), fit)
    assert deeper.cells[cell].state == "unknown"


def test_an_empty_board_on_a_cloth_under_a_warm_lamp_is_found() -> None:
    """Nothing white in view: the brightest things are the navy cloth, which a balance
    to the brightest leaves blue and the plastic brown. The darkest things (the plastic,
    the shadows) give the lamp's colour; the board is found, and its cells read empty."""
    spec = sample_still(81023, (1280, 720), tiles=0, table="cloth", light="tungsten", hands=0)
    shot = render(spec)
    reading = reader().read(shot.frame_bgr)
    assert reading.found, reading.reason
    assert reading.corners is not None
    truth = np.array(shot.truth.corners)
    side = float(np.linalg.norm(truth[0] - truth[1])) / 6
    gap = min(np.abs(np.roll(truth, -k, axis=0) - reading.corners).max() for k in range(3))
    assert gap < 0.25 * side
    states = [c.state for c in reading.cells]
    assert "tile" not in states
    assert states.count("empty") >= 30


@pytest.mark.parametrize(("name", "peak"), [("00", 0.25), ("04", 0.35), ("06", 0.25)])
def test_a_board_under_a_lamps_broad_glare_is_found(name: str, peak: float) -> None:
    """A lamp's glare five cells wide over the board lifts its black plastic to more than
    half the table's brightness: no outline is dark enough at the usual levels, and the
    paler level tried late finds the board, every tile read right. (The table is not
    dark: the searches for what stands out from it and for the regions its edges enclose
    come after, and are left out of the control, which they would find too.)"""
    clean = reading_of(name)
    assert clean.fit is not None
    centre = clean.fit.to_image(CENTROIDS).mean(axis=0)
    frame = glare(
        load_image(str(STILLS / f"{name}.jpg")),
        centre,
        5 * px_per_unit(clean.fit.homography),
        peak,
    )
    control = replace(default_config(), haze_levels=(), off_table_last=False, structure_last=False)
    assert not BoardReader(control).read(frame).found
    reading = reader().read(frame)
    assert reading.found
    right, wrong = right_and_wrong(reading, name)
    assert wrong == 0 and right == len(reading.board().placements) >= 20


def test_a_board_in_a_photo_a_camera_made_more_saturated_is_found() -> None:
    """A phone's vivid rendering (saturation x1.5) lifts the plastic's faint tint, and the
    red table's reflection in it, past the colourless limit: a small board on a red table
    with an arm over its band (9898/25) shows no dark colourless outline. Its outline is
    looked for last with the limit raised as far as the colours are read under (their
    chroma scale down to the bottom of ``saturation_range``), and the board is found
    where it lies, its tiles read right; without that last look it is not found. (The
    search for the regions its edges enclose finds it too, right: it is left out of the
    control.)"""
    frame, truth = rendered(9898 * 1_000_003 + 25)
    assert truth.conditions["table"] == "plain_red"
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * 1.5, 0, 255)
    vivid = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    # (the control with the weak lines as strong as when it was measured: at 0.09 of the
    # side hint a line through the arm's gap finds the board among the usual outlines)
    muted = BoardReader(
        replace(
            default_config(),
            saturation_range=(1.0, 3.0),
            structure_last=False,
            outline_line_votes=OLD_WEAK_LINES,
        )
    )
    assert not muted.read(vivid).found
    reading = read_on_the_board(vivid, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 15 and right == placed


def test_no_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(1)
    blank = np.full((480, 640, 3), 180, np.uint8)
    noise = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    for i, img in enumerate([blank, noise]):
        cv2.imwrite(str(tmp_path / f"{i}.png"), img)
    assert main(["read", str(tmp_path / "0.png"), str(tmp_path / "1.png"), "--json"]) == 3
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        doc = json.loads(line)
        assert doc["board"]["found"] is False
        assert doc["board"]["reason"]
        assert doc["cells"] == []


def test_a_black_or_white_photo_says_so_and_a_dark_one_still_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = load_image(str(STILLS / "00.jpg"))
    # a lens capped but for a sliver, and a camera burnt out all but for a speck
    black = np.zeros_like(frame)
    black[:20] = frame[:20]
    white = np.full_like(frame, 255)
    white[:10, :10] = frame[:10, :10]
    for name, img in (("black", black), ("white", white)):
        cv2.imwrite(str(tmp_path / f"{name}.png"), img)
    args = ["read", str(tmp_path / "black.png"), str(tmp_path / "white.png"), "--json"]
    assert main(args) == 3
    black_doc, white_doc = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert black_doc["board"]["reason"].startswith("the photo is almost all black")
    assert white_doc["board"]["reason"].startswith("the photo is almost all white")
    # an eighth of the light (the photo in 32 grey levels): the board is read by what it
    # shows itself, not by fixed levels
    dark = (frame.astype(np.float32) / 8).astype(np.uint8)
    reading = reader().read(dark)
    assert reading.found
    assert same_board_up_to_turn(reading.board(), reading_of("00").board())


def test_find_gives_the_fit_that_read_reports_or_the_reason_there_is_none() -> None:
    frame = load_image(str(STILLS / "05.jpg"))
    fit, reading = reader().find(frame), reader().read(frame)
    assert reading.fit is not None
    assert np.allclose(fit.corners, reading.fit.corners)
    noise = np.random.default_rng(2).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    with pytest.raises(BoardNotFoundError) as excinfo:
        reader().find(noise)
    assert str(excinfo.value) == reader().read(noise).reason


def test_unreadable_file_exit_2_and_others_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    status = main(["read", str(bad), str(STILLS / "03.jpg"), "--json"])
    assert status == 2
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1
    assert "broken.jpg" in captured.err
    docs = [json.loads(line) for line in captured.out.strip().splitlines()]
    assert len(docs) == 1 and docs[0]["board"]["found"] is True


def test_a_photo_the_reader_fails_on_is_reported_and_the_others_still_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error inside the reader on one photo (a bug, an OpenCV surprise) gives that
    photo a one-line error, a ``found: false`` document with the reason and exit 3; the
    photos after it are still read."""
    real = BoardReader.read
    bad = str(STILLS / "01.jpg")
    calls: list[int] = []

    def failing(self: BoardReader, frame: np.ndarray, fit: BoardFit | None = None) -> BoardReading:
        calls.append(1)
        if len(calls) == 1:  # the first photo's read
            raise ValueError("cannot reshape array of size 0 into shape (3,2)")
        return real(self, frame, fit)

    monkeypatch.setattr(BoardReader, "read", failing)
    status = main(["read", bad, str(STILLS / "03.jpg"), "--json"])
    assert status == 3
    captured = capsys.readouterr()
    errors = captured.err.strip().splitlines()
    assert len(errors) == 1 and "01.jpg" in errors[0] and "cannot reshape" in errors[0]
    docs = [json.loads(line) for line in captured.out.strip().splitlines()]
    assert len(docs) == 2
    assert docs[0] == {
        "board": {"found": False, "reason": docs[0]["board"]["reason"]},
        "cells": [],
    }
    assert "reader failed" in docs[0]["board"]["reason"]
    assert docs[1]["board"]["found"] is True


def test_a_phones_heic_photo_or_a_video_is_named_and_the_way_out_given(tmp_path: Path) -> None:
    heic = tmp_path / "IMG_0001.HEIC"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))
    with pytest.raises(UnreadableImageError, match=r"HEIC or AVIF.*JPEG or PNG") as info:
        load_image(str(heic))
    assert info.value.value == str(heic)
    video = tmp_path / "game.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypisom" + bytes(64))
    with pytest.raises(UnreadableImageError, match=r"a video.*spectrangle replay"):
        load_image(str(video))
    other = tmp_path / "notes.txt"
    other.write_bytes(b"the score of last night" + bytes(64))
    with pytest.raises(UnreadableImageError, match="not an image"):
        load_image(str(other))


def test_text_output_and_overlay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "overlay.png"
    assert main(["read", str(STILLS / "00.jpg"), "--overlay", str(out)]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line.strip() and not line.startswith("(")]
    assert len(rows) >= 6
    drawn = cv2.imread(str(out))
    assert drawn is not None
    assert drawn.shape == load_image(str(STILLS / "00.jpg")).shape


def test_command_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "spectrangle.cli", "read", str(STILLS / "03.jpg"), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["board"]["found"] is True


@pytest.mark.parametrize(
    "frame",
    [
        np.zeros((100, 100, 3), np.float32),
        np.zeros((20, 20, 3), np.uint8),
        "image",
        np.zeros((100, 100, 5), np.uint8),
    ],
    ids=["float", "tiny", "not-an-array", "five-channels"],
)
def test_bad_frames_are_refused(frame: Any) -> None:
    with pytest.raises(UnreadableImageError):
        check_frame(frame)


def test_missing_file() -> None:
    with pytest.raises(UnreadableImageError, match="no such file"):
        load_image("/nonexistent/photo.jpg")


def test_a_folder_given_as_an_image_is_named_so(tmp_path: Path) -> None:
    with pytest.raises(UnreadableImageError, match="a folder, not an image") as err:
        load_image(str(tmp_path))
    assert err.value.value == str(tmp_path)


def test_canonical_order_is_invariant_to_input_order() -> None:
    pts = np.array([[100.0, 20.0], [180.0, 160.0], [20.0, 150.0]])
    for perm in ([0, 1, 2], [1, 2, 0], [2, 1, 0]):
        out = canonical_order(pts[perm])
        assert out[0].tolist() == [100.0, 20.0]
        assert out[1].tolist() == [180.0, 160.0]


@pytest.mark.parametrize("k", [-0.3, -0.12, 0.0, 0.1])
def test_lens_round_trip(k: float) -> None:
    lens = Lens(k, (640.0, 360.0), 734.0)
    pts = np.random.default_rng(3).uniform(0, 1, (200, 2)) * [1280, 720]  # the frame
    assert np.allclose(lens.undistort(lens.distort(pts)), pts, atol=1e-3)


def test_homography_from_corners_keeps_corners_and_plausibility() -> None:
    cfg = default_config()
    img = np.array([[400.0, 50.0], [700.0, 600.0], [100.0, 580.0]])
    from vision.model import outer_corners

    for g in [(0.0, 0.0), (0.05, -0.03), (-0.08, 0.02)]:
        h = homography_from_corners(img, outer_corners(cfg.band_width), g)
        from vision.model import project

        assert np.allclose(project(h, outer_corners(cfg.band_width)), img, atol=1e-6)
        assert plausible(h, cfg)
    folded = homography_from_corners(img[[0, 2, 1]], outer_corners(cfg.band_width), (0.0, 0.0))
    assert not plausible(folded, cfg)
    assert PLAY_CORNERS.shape == (3, 2)


def test_placements_of_a_reading_are_engine_placements() -> None:
    for cell in reading_of("00").cells:
        p = cell.placement
        if cell.state == "tile":
            assert isinstance(p, Placement)
            assert SPECTRANGLE36.has_tile(p.tile)
        else:
            assert p is None


def test_a_corrupt_calibration_profile_falls_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text('{"kind": "something else"}', encoding="utf-8")
    status = main(["read", str(STILLS / "03.jpg"), "--json", "--calibration", str(profile)])
    captured = capsys.readouterr()
    assert status == 0
    assert "without calibration" in captured.err and "profile.json" in captured.err
    assert json.loads(captured.out)["board"]["found"] is True


@pytest.mark.parametrize("name", ["00", "01", "05", "08"])
def test_a_fit_one_cell_off_is_moved_back(name: str) -> None:
    """The lattice repeats itself; the border band tells a fit one cell off (any of the
    six ways), and the right fit stays where it is."""
    fit = reading_of(name).fit
    assert fit is not None
    frame = load_image(str(STILLS / f"{name}.jpg"))
    for shift in [*LATTICE_SHIFTS, np.zeros(2)]:
        moved = fit.homography @ np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]])
        probe = BoardFit(moved, np.zeros((3, 2)), 0.0, 0.0, 0, fit.lens)
        wrong = BoardFit(moved, probe.to_image(PLAY_CORNERS), 0.0, 0.0, 0, fit.lens)
        back = reader().check_band(frame, wrong)
        assert np.abs(back.corners - fit.corners).max() < 1.0, shift


@pytest.mark.parametrize("name", ["00", "08"])
def test_a_fit_at_the_wrong_scale_is_fitted_again_from_outlines_a_cell_off(name: str) -> None:
    """An outline a row of cells off (a side merged with a shadow) gives a lattice a
    cell larger or smaller, scaled about one corner; its cells hardly look like cells,
    and the fit from the outline a cell smaller or larger finds the board again. The
    right fit is left as it is."""
    fit = reading_of(name).fit
    assert fit is not None
    frame = load_image(str(STILLS / f"{name}.jpg"))
    side = np.linalg.norm(fit.corners[0] - fit.corners[1]) / 6
    cfg = reader().config
    assert reader().cells_evidence(frame, fit) > cfg.rescale_max_evidence
    assert reader().rescaled(frame, fit) is fit
    for corner in PLAY_CORNERS:
        for s in (5 / 6, 7 / 6):
            scaled = np.array(
                [[s, 0, corner[0] * (1 - s)], [0, s, corner[1] * (1 - s)], [0, 0, 1.0]]
            )
            h = fit.homography @ scaled
            probe = BoardFit(h, np.zeros((3, 2)), 0.0, 0.0, 0, fit.lens)
            wrong = BoardFit(h, probe.to_image(PLAY_CORNERS), 0.0, 0.0, 0, fit.lens)
            assert reader().cells_evidence(frame, wrong) < cfg.rescale_max_evidence
            back = reader().rescaled(frame, wrong)
            assert np.abs(back.corners - fit.corners).max() < 0.15 * side, (corner, s)


def test_a_board_on_a_navy_cloth_under_a_warm_lamp_is_found() -> None:
    """A warm lamp tints the black plastic brown and makes a navy cloth as colourless as
    the plastic should be: the dark region of the board runs into the table. Balanced to
    the light's colour (its brightest things), the plastic is colourless again."""
    name = "08"
    frame = load_image(str(STILLS / f"{name}.jpg")).astype(np.float64)
    outline = project(np.array(truth_of(name)["homography"]), outer_corners(0.51))
    board = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillPoly(board, [np.round(outline).astype(np.int32)], 1)
    cloth = np.array([62.0, 38.0, 28.0]) + np.random.default_rng(0).normal(0, 4, frame.shape)
    frame = np.where(board[..., None] == 1, frame, cloth)
    warm = np.clip(frame * np.array([0.45, 0.8, 1.0]), 0, 255).astype(np.uint8)
    assert not reader()._read_located(warm, warm).found  # as the photo is, it is not
    reading = reader().read(warm)
    assert reading.found
    assert reads_the_same(reading, reading_of(name), name)
    assert right_and_wrong(reading, name)[1] == 0


@pytest.mark.parametrize("tint", [(0.5, 0.8, 1.0), (1.0, 0.9, 0.6), (1.0, 1.0, 1.0)])
def test_white_balance_makes_the_brightest_things_colourless(tint: tuple[float, ...]) -> None:
    frame = np.full((100, 100, 3), 30.0)
    frame[:5, :] = 240.0  # the white things: 5% of the photo
    frame[50:, :] = (200.0, 60.0, 40.0)  # a blue object, as bright as white is not
    tinted = np.clip(frame * np.array(tint), 0, 255).astype(np.uint8)
    balanced = white_balanced(tinted, 96.0)
    white = balanced[:5].reshape(-1, 3).astype(float)
    assert np.ptp(white, axis=1).max() <= 2 and white.max() >= 239
    blue = balanced[60, 0].astype(float)
    assert blue[0] > 2 * blue[2]  # coloured things keep their colour


def test_a_wide_lens_bending_the_board_is_fitted() -> None:
    """Barrel distortion of a wide-angle webcam (as the reader models it, k = -0.12):
    the corners land where the bent image shows them and the board reads the same."""
    frame = load_image(str(STILLS / "00.jpg"))
    lens = Lens.none(frame.shape).with_k(-0.12)
    h, w = frame.shape[:2]
    ys, xs = np.mgrid[:h, :w].astype(np.float64)
    source = lens.undistort(np.stack([xs.ravel(), ys.ravel()], axis=1)).reshape(h, w, 2)
    source = source.astype(np.float32)
    bent = cv2.remap(
        frame, source[..., 0], source[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    truth = np.array(truth_of("00")["corners"], dtype=np.float64)
    want = lens.distort(truth)
    side = np.linalg.norm(truth[0] - truth[1]) / 6
    reading = reader().read(bent)
    assert reading.found and reading.fit is not None
    assert reading.fit.lens is not None and reading.fit.lens.k < -0.05
    err = min(
        np.linalg.norm(np.roll(want, -k, axis=0) - reading.fit.corners, axis=1).max()
        for k in range(3)
    )
    assert err < 0.04 * side
    assert same_board_up_to_turn(reading.board(), truth_board("00"))


def outer_outline(name: str) -> np.ndarray:
    """The true image corners (3, 2) of the board's outline (the band's outer edge)."""
    h = np.array(truth_of(name)["homography"], dtype=np.float64)
    return project(h, outer_corners(default_config().band_width))


def corner_error(reading: BoardReading, name: str) -> float:
    assert reading.fit is not None
    truth = np.array(truth_of(name)["corners"], dtype=np.float64)
    return float(
        min(
            np.linalg.norm(np.roll(truth, -k, axis=0) - reading.fit.corners, axis=1).max()
            for k in range(3)
        )
    )


@pytest.mark.parametrize("name", ["02", "05", "10"])
def test_dark_sleeves_over_the_band_do_not_hide_the_board(name: str) -> None:
    """Two dark, colourless sleeves reach in over two sides of the band: they merge with
    the board's black into one dark region whose outline makes many triangles. The board
    is still found, its corners where they are (within a quarter of a cell)."""
    frame = load_image(str(STILLS / f"{name}.jpg"))
    outer = outer_outline(name)
    side = float(np.linalg.norm(outer[0] - outer[1]))
    centre = outer.mean(axis=0)
    for a, b in ((0, 1), (1, 2)):
        mid = 0.5 * (outer[a] + outer[b])
        far, near = mid + (mid - centre) * 3.0, mid + (centre - mid) * 0.25
        width = int(0.16 * side)
        cv2.line(frame, tuple(far.astype(int)), tuple(near.astype(int)), (52, 50, 50), width)
    reading = reader().read(frame)
    assert reading.found, reading.reason
    cell_side = side / 7.6  # the outline's side is about 7.6 cell sides (band included)
    assert corner_error(reading, name) < 0.25 * cell_side  # not a cell off: a fifth


@pytest.mark.parametrize(("name", "corner"), [("06", 1), ("08", 0), ("08", 1)])
def test_an_arm_across_the_board_cutting_its_plastic_in_two(name: str, corner: int) -> None:
    """A bare arm lies right across the board, from beyond the middle of one side to
    beyond the middle of another: the board's black is two pieces, neither with all
    three sides. The board is still found, its corners within a quarter of a cell."""
    frame = load_image(str(STILLS / f"{name}.jpg"))
    outer = outer_outline(name)
    side = float(np.linalg.norm(outer[0] - outer[1]))
    apex, right, left = (outer[(corner + k) % 3] for k in range(3))
    p, q = 0.5 * (apex + right), 0.5 * (apex + left)
    along = (p - q) / np.linalg.norm(p - q)
    start, end = (q - along * side).astype(int), (p + along * side).astype(int)
    cv2.line(frame, tuple(start), tuple(end), (120, 160, 215), int(0.1 * side))
    reading = reader().read(frame)
    assert reading.found, reading.reason
    assert corner_error(reading, name) < 0.25 * side / 7.6


def test_the_likeliest_outline_by_the_lattice_is_the_board() -> None:
    """The coarse lattice score ranks the true outline above triangles of the same size
    moved by a third of a side, turned, or shrunk."""
    frame = load_image(str(STILLS / "02.jpg"))
    outer = outer_outline("02")
    centre = outer.mean(axis=0)
    side = float(np.linalg.norm(outer[0] - outer[1]))
    turn = np.array([[0.5, -0.866], [0.866, 0.5]])
    wrong = [
        outer + np.array([side / 3, 0.0]),
        outer - np.array([0.0, side / 3]),
        centre + (outer - centre) @ turn.T,
        centre + (outer - centre) * 0.6,
    ]
    cfg = default_config()
    scores = lattice_scores(Pyramid(frame, cfg), [outer, *wrong], cfg)
    assert scores.shape == (5,)
    assert int(np.argmax(scores)) == 0
    assert scores[0] > 1.5 * scores[1:].max()


def rendered(seed: int, harsh: bool = False, **force: Any) -> tuple[np.ndarray, Any]:
    """A still rendered from its seed (as ``spectrangle generate`` makes it, with
    ``--harsh`` when ``harsh``, and ``force`` as its options: ``tile_height=(lo, hi)``
    for ``--tile-height``, ``table="checked"``): the frame (H, W, 3) uint8 BGR and its
    truth."""
    from vision.render.compose import render, sample_still

    r = render(sample_still(seed, (1280, 720), harsh, **force))
    return cv2.imdecode(np.frombuffer(r.jpeg, np.uint8), cv2.IMREAD_COLOR), r.truth


def corner_error_cells(truth: Any, reading: BoardReading) -> float:
    """How far the reading's corners are from the truth's, at worst, in cell sides."""
    assert reading.corners is not None
    corners = np.array(truth.corners, dtype=np.float64)
    side = float(np.linalg.norm(corners[0] - corners[1])) / 6
    return (
        min(
            float(np.linalg.norm(np.roll(corners, -k, axis=0) - reading.corners, axis=1).max())
            for k in range(3)
        )
        / side
    )


def read_on_the_board(frame: np.ndarray, truth: Any) -> BoardReading:
    """``frame`` read with the default reader, which must find the board where the
    truth has it (every corner within a quarter of a cell)."""
    reading = reader().read(frame)
    assert reading.found and reading.fit is not None, reading.reason
    assert corner_error_cells(truth, reading) < 0.25
    return reading


def tiles_read_right(truth: Any, reading: BoardReading) -> tuple[int, int]:
    """The tiles read, and how many of them lie so on the truth's board (best turn)."""
    actual = Board.from_notation(truth.board, GEO)
    placed = reading.board().placements
    return len(placed), max(sum(p == turned(actual, k)[p.index] for p in placed) for k in range(3))


def test_hands_over_the_band_on_a_dark_table_do_not_move_the_fit_a_cell() -> None:
    """Hands lie over two sides of the band and the table (a dark cloth) is about as dark
    as the plastic: moving the lattice by a cell would put the band on the dark table but
    match the cells clearly worse. The fit stays on the board (or no board is reported),
    never a cell off."""
    frame, truth = rendered(1_000_187)
    assert truth.conditions["table"] == "cloth" and truth.conditions["hands"] == 2
    reading = reader().read(frame)
    if reading.found:
        assert corner_error_cells(truth, reading) < 0.5


@pytest.mark.parametrize("still", [87, 152])
def test_on_a_dark_table_a_lattice_whose_band_shows_no_peg_holes_is_no_board(
    still: int,
) -> None:
    """k4242/87, 152: twenty tiles on a board on a dark table (87 cut off at a corner,
    in dim light; 152 at 39 degrees of tilt under a kitchen lamp). The packed
    tiles' ridges hold a lattice a turn or a few cells off as well as the right one (4.3
    and 1.4 cells off, held by 13 and 14 points), and the band's darkness tells nothing on
    a table as dark as it. The peg holes' row does: on 152 the wrong fit's band shows it
    along no side (at most 0.15 of its ripple, the right one's 0.65 or more) and the
    search goes on to the board; on 87 nothing else is found and no board is reported,
    never a lattice off the board. Since the cells seed outlines of their own
    (:mod:`vision.seeds`), 87's tiles lead to the board: found where the truth has it."""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    assert truth.conditions["table"] == "dark" and truth.conditions["tiles"] == 20
    reading = reader().read(frame)
    assert reading.found
    assert corner_error_cells(truth, reading) < 0.5
    unseeded = BoardReader(replace(default_config(), seeded_last=False)).read(frame)
    if unseeded.found:
        assert corner_error_cells(truth, unseeded) < 0.5
    else:
        assert unseeded.reason == DARK_NO_HOLES
    assert unseeded.found == (still == 152)


@pytest.mark.parametrize("still", [10, 63])
def test_on_a_dark_table_the_cells_seed_the_board_no_outline_shows(still: int) -> None:
    """k4242/10: an empty board on a dark-brown table, cut off at a corner, a hand over
    one side; 63: a small board with a full hand of tiles, two hands over it. No dark
    region, region off the table or region edges enclose outlines the board, and no
    board was found. The tiles and windows, taken each for each cell, seed outlines the
    lattice fits (:mod:`vision.seeds`): the board is found where the truth has it, and
    its tiles read right."""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    assert truth.conditions["table"] == "dark"
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed == right and placed >= (1 if still == 10 else 20)
    unseeded = BoardReader(replace(default_config(), seeded_last=False))
    assert not unseeded.read(frame).found


def test_a_seeded_fit_held_by_fewer_points_is_taken_where_two_sides_show_the_holes() -> None:
    """k4242/169: seven tiles on a board on a dark table seen at 48 degrees, cut off at a
    corner, a hand over it. Only the seeds find it, on a lattice held by fewer points
    than ``enough_lattice_points`` and fewer tiles named than ``trust_min_points``; the
    side the frame cuts is mostly out of it. Along both other sides its band shows the
    holes' row clearly, and its cells look like cells a cell over no more: it is taken
    on the points any fit is trusted on."""
    frame, truth = rendered(4242 * 1_000_003 + 169, table="dark")
    board = reader()
    reading = read_on_the_board(frame, truth)
    assert reading.fit is not None
    placed, right = tiles_read_right(truth, reading)
    assert placed == right >= 6
    assert reading.fit.points < board.config.enough_lattice_points
    assert sum(c.state == "tile" for c in reading.cells) < board.config.trust_min_points
    assert board._pegs_seen(frame, reading)
    assert not board._held(reading, board.config.enough_lattice_points)


def test_a_seeded_lattice_a_cell_off_is_moved_back_or_not_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """k4242/10 read on the board, its lattice moved by a cell each of the six ways: each
    is held by as many points, its cells look like cells, and most show the peg holes
    along a side, as a fit a seed might give. The move whose cells look most like
    cells brings each back onto the board; and one a cell off that a search found as it
    is is no board found (its cells would look more like cells a cell over)."""
    frame, truth = rendered(4242 * 1_000_003 + 10, table="dark")
    board = reader()
    right = board.read(frame)
    assert right.found and right.fit is not None
    assert corner_error_cells(truth, right) < 0.25
    shown = 0
    for shift in LATTICE_SHIFTS:
        off = right.fit.moved(np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0, 0, 1]]))
        reading = board._read_fitted(frame, off, None)
        assert corner_error_cells(truth, reading) > 1.0
        assert board._held(reading, board.config.enough_lattice_points)
        assert board.cells_evidence(frame, off, True) > 0
        shown += board._holes_shown(frame, reading)
        back = board._seed_moved(frame, off)
        assert corner_error_cells(truth, BoardReading(True, (), back)) < 0.25
    assert shown >= 4
    off = right.fit.moved(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0, 0, 1]]))
    found_off = board._read_fitted(frame, off, None)
    assert board._holes_shown(frame, found_off)
    monkeypatch.setattr(BoardReader, "_read_located", lambda self, *a, **k: found_off)
    assert board._seeded_searched(frame) is None


def test_an_arm_across_a_side_on_a_dark_table_leaves_the_side_its_line() -> None:
    """k4242/56: an arm reaches in over the middle of one side of a board on a dark
    table, its apex cut off. The arm merges with the board in every region that stands
    out from the table, and swells the side hint (the region's size) by half: the side
    shows two short stretches, above and below the arm, whose votes together (25) fall
    short of the weak lines' threshold at 0.12 of the hint. At 0.09 its line is found,
    and the board with it, where the truth has it. (The outlines the cells seed, looked
    for last, find it too: the premise is asked of the outlines regions give.)"""
    frame, truth = rendered(4242 * 1_000_003 + 56, table="dark")
    assert truth.conditions["hands"] == 1 and truth.conditions["table"] == "dark"
    read_on_the_board(frame, truth)
    strict = BoardReader(
        replace(default_config(), outline_line_votes=OLD_WEAK_LINES, seeded_last=False)
    )
    assert not strict.read(frame).found


def test_a_fit_moved_off_its_row_of_peg_holes_shows_none() -> None:
    """The same check on one fit: k4242/152 read on the board shows the holes along its
    band's sides; the same lattice moved by two cells across the sides, or given a half
    turn about the board's centre (as a full board's packed tiles allow), puts its band
    on tiles and the table, where no side shows them. (A move along one side keeps that
    side on its row: the band check's to tell.)"""
    frame, _ = rendered(4242 * 1_000_003 + 152, table="dark")
    board = reader()
    reading = board.read(frame)
    assert reading.found and reading.fit is not None
    assert board._holes_shown(frame, reading)
    cx, cy = CENTROIDS.mean(axis=0)
    half = np.array([[-1.0, 0.0, 2 * cx], [0.0, -1.0, 2 * cy], [0.0, 0.0, 1.0]])
    across = np.array([[1.0, 0.0, 1.5], [0.0, 1.0, math.sqrt(0.75)], [0.0, 0.0, 1.0]])
    for step in (across, half, half @ across):
        moved = replace(reading, fit=reading.fit.moved(step))
        assert not board._holes_shown(frame, moved), step


def test_a_move_onto_the_whole_board_is_kept_though_it_brings_covered_cells_into_view() -> None:
    """7070/18: a sheet of paper lies over one side of the board and a hand over another,
    its apex out of the frame. The lattice was located a row off, towards the apex; the
    band check moves it onto the board. The cells that move brings into view lie under
    the paper and the hand (unclear), but none read before is lost: the move is kept. A
    row off, the lattice named tiles on empty cells and tiles a row away (its corners
    1.8 cells off; on the board, the apex out of the frame is a third of a cell off)."""
    frame, truth = rendered(7070021228)
    assert truth.conditions["hands"] == 1 and truth.conditions["over_band"]
    reading = reader().read(frame)
    assert reading.found and corner_error_cells(truth, reading) < 0.5
    right, wrong = placed_right_and_wrong(reading, Board.from_notation(truth.board, GEO))
    assert wrong == 0 and right >= 5


@pytest.mark.parametrize("name", ["00", "02", "03", "05", "09"])
def test_a_band_covered_all_round_still_gives_the_plastics_black(name: str) -> None:
    """The whole border band lies under something light (a printed band, paper): the
    plastic's black is then taken from the frames of the empty cells' windows, and the
    board reads as without it (a board with ten empty cells or more, in good light)."""
    clean = reading_of(name)
    assert clean.fit is not None
    frame = load_image(str(STILLS / f"{name}.jpg"))
    outer = outer_outline(name)
    inner = min(
        (np.roll(clean.fit.corners, -k, axis=0) for k in range(3)),
        key=lambda c: float(np.linalg.norm(c - outer, axis=1).max()),
    )
    ring = (0.5 * (outer + inner)).round().astype(np.int32)
    width = int(0.9 * np.linalg.norm(outer[0] - inner[0]) / 2)
    cv2.polylines(frame, [ring], True, (120, 170, 200), width)
    covered = reader().read(frame, clean.fit)
    assert covered.board() == clean.board()
    assert sum(c.state == "unknown" for c in covered.cells) <= sum(
        c.state == "unknown" for c in clean.cells
    )


def test_a_lattice_the_cells_refuse_sends_the_reader_to_the_other_outlines() -> None:
    """The likeliest outlines lead to a lattice that its cells refuse (most read as
    neither tile nor empty): a board filling most of the frame with a hand over one side
    (8181/147), a large board cut off at a corner with a hand holding a tile over it
    (7070/11), a blurred board cut off at a corner (harsh 7171/51). The other outlines are
    tried on other places, and the board is found where it lies; without that second try
    (nor the paler outlines tried last) it is not.

    Which of the scenes leads the first try astray depends on the pixels OpenCV renders
    (4.x: the first, 5.x: the second and third) and on how the cells read: since the
    flank patches were read, 7070/11's first try undoes its move by a cell (the cells
    read worse after it) and keeps a lattice the cells no longer refuse. At least one
    must, and each that does is found.
    The first try here does not scale the lattice by half or double either (which puts
    7070/11's first lattice right, :func:`test_a_lattice_at_half_the_scale_is_scaled_up`)."""
    first_only = BoardReader(
        replace(default_config(), locate_retries=0, haze_levels=(), rescale_scales=())
    )
    tried = 0
    scenes = (
        (8181 * 1_000_003 + 147, False, 20),
        (7070 * 1_000_003 + 11, False, 15),
        (7171 * 1_000_003 + 51, True, 15),
    )
    for seed, harsh, min_tiles in scenes:
        frame, truth = rendered(seed, harsh)
        once = first_only.read(frame)
        if once.found or "most cells" not in once.reason:
            continue
        tried += 1
        reading = read_on_the_board(frame, truth)
        placed, right = tiles_read_right(truth, reading)
        assert placed >= min_tiles and right == placed
    assert tried >= 1


def test_a_lattice_at_half_the_scale_is_scaled_up() -> None:
    """The lattice repeats itself at twice its scale: one at half the board's scale
    matches every other vertex (sensor noise led 7070/11's fit to such a lattice). Here
    it shares the board's corner that the frame cuts off: its cells hardly look like
    cells, and scaled by two about that corner it is the board again; with no
    whole-lattice scalings tried, it stays off."""
    frame, truth = rendered(7070 * 1_000_003 + 11)
    right = reader().read(frame)
    assert right.fit is not None and corner_error_cells(truth, right) < 0.25
    a = PLAY_CORNERS[1]
    half = np.array([[0.5, 0.0, 0.5 * a[0]], [0.0, 0.5, 0.5 * a[1]], [0.0, 0.0, 1.0]])
    small = right.fit.moved(half)
    assert reader().cells_evidence(frame, small) < default_config().rescale_max_evidence
    found = reader().rescaled(frame, small)
    assert corner_error_cells(truth, BoardReading(True, (), found)) < 0.25
    fixed = BoardReader(replace(default_config(), rescale_scales=()))
    stays = fixed.rescaled(frame, small)
    assert corner_error_cells(truth, BoardReading(True, (), stays)) > 1.0


def test_a_large_board_cut_off_at_two_corners_is_fitted() -> None:
    """The board fills most of the frame and two of its corners lie outside it: few cells
    have the whole of the first, wide search region in the frame. The lattice is matched
    with the narrower search around the outline's guess instead of given up."""
    frame, truth = rendered(7979 * 1_000_003 + 26)
    corners = np.array(truth.corners)
    outside = (corners[:, 0] < 0) | (corners[:, 1] < 0)
    outside |= (corners[:, 0] > 1279) | (corners[:, 1] > 719)
    assert outside.sum() == 2 and truth.conditions["board_fraction"] > 0.8
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 20 and right == placed


def glossed(frame: np.ndarray, polygons: list[np.ndarray], veil: float) -> np.ndarray:
    """Light reflected off the gloss of some tiles only: ``veil`` of white added, in
    linear light, within each polygon (image pixels (3, 2)), and not on the plastic."""
    mask = np.zeros(frame.shape[:2], np.uint8)
    for poly in polygons:
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 255)
    added = veil * cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.0)
    linear = srgb_to_linear(frame / 255.0) + added[:, :, None]
    return np.clip(linear_to_srgb(np.clip(linear, 0, 1)) * 255 + 0.5, 0, 255).astype(np.uint8)


def test_a_veil_of_glare_on_tiles_alone_is_taken_away_as_their_discs_tell() -> None:
    """A lamp reflected off the gloss of some tiles, not off the matte plastic around
    them, lightens their navy discs as much as their colours: the reader takes that veil
    away, and the tiles whose numerals then vouch for them are read as before the glare.
    Without it (``veil_min`` past any veil), the washed-out colours read fewer of them.
    (A veil of 0.3 no longer shows it: the glossed tiles' discs then show too little of
    the clear numerals' contrast to set the white and the tint, and the tiles read right
    without the veil taken away; 0.4 reads 5 of 8 so, 0.5 one.)"""
    name = "00"
    clean = reading_of(name)
    assert clean.fit is not None
    tiles = [c.index for c in clean.cells if c.state == "tile"][:8]
    polygons = [clean.fit.to_image(np.array(GEO[i].vertices)) for i in tiles]
    frame = glossed(load_image(str(STILLS / f"{name}.jpg")), polygons, 0.4)
    veiled = reader().read(frame, clean.fit)
    right = [i for i in tiles if veiled.cells[i].placement == clean.cells[i].placement]
    assert len(right) >= 6, [veiled.cells[i] for i in tiles]
    for before, after in zip(clean.cells, veiled.cells, strict=True):
        assert after.state != "tile" or after.placement == before.placement, after
    blind = BoardReader(replace(default_config(), veil_min=np.inf)).read(frame, clean.fit)
    unveiled = [i for i in tiles if blind.cells[i].placement == clean.cells[i].placement]
    assert len(unveiled) < len(right), (unveiled, right)


def test_an_empty_bonus_cell_under_glare_is_told_by_its_big_numeral() -> None:
    """A lamp's glare over empty bonus cells lifts their black plastic until it does not
    look like plastic; their big see-through numerals (a tile's is a third as big) still
    say they are empty. Without that (``bonus_numeral_corr`` past any correlation) some
    read unknown, and no other cell reads differently either way."""
    name = "04"
    clean = reading_of(name)
    assert clean.fit is not None
    bonus = [c.index for c in clean.cells if c.state == "empty" and BONUS[c.index] > 1]
    assert len(bonus) >= 3
    centre = clean.fit.to_image(CENTROIDS[bonus]).mean(axis=0)
    size = px_per_unit(clean.fit.homography)
    frame = glare(load_image(str(STILLS / f"{name}.jpg")), centre, 1.5 * size, 0.5)
    told, _ = reader().read_cells(frame, clean.fit)
    assert [told[i].state for i in bonus] == ["empty"] * len(bonus)
    blind = BoardReader(replace(default_config(), bonus_numeral_corr=np.inf))
    untold, _ = blind.read_cells(frame, clean.fit)
    assert any(untold[i].state == "unknown" for i in bonus)
    for a, b in zip(told, untold, strict=True):
        if a.index not in bonus:
            assert (a.state, a.placement) == (b.state, b.placement), (a, b)


def reading_index(truth: Any, reading: BoardReading, index: int) -> int:
    """The index in ``reading`` of the truth's cell ``index``: the reading may take any
    corner for the apex, and is turned as its tiles best match the truth's."""
    actual = Board.from_notation(truth.board, GEO)
    placed = reading.board().placements
    turn = max(range(3), key=lambda k: sum(p == turned(actual, k)[p.index] for p in placed))
    for _ in range(turn):
        index = GEO.rotation[index]
    return index


def read_at_a_bonus_cell(
    seed: int, index: int, bonus: int, **force: Any
) -> tuple[np.ndarray, Any, BoardReading, Board, int]:
    """Still ``seed`` (``force`` as :func:`rendered`'s) read on the board: the frame,
    its truth, the reading, the truth's board and the reading's index of the truth's
    cell ``index``, a bonus cell of ``bonus``."""
    frame, truth = rendered(seed, **force)
    reading = read_on_the_board(frame, truth)
    cell = reading_index(truth, reading, index)
    assert BONUS[cell] == bonus
    return frame, truth, reading, Board.from_notation(truth.board, GEO), cell


def test_a_bonus_numeral_is_also_matched_in_a_window_inside_its_cell() -> None:
    """The window a bonus cell's numeral is matched in grows with the numeral: at the
    design's height (0.45) it reaches past the cell onto the tiles beside it. On a light
    table under studio light (4242/55) the x4 cell's numeral shows the table, as pale as
    the joker, and its frame not as plastic: at the design's size alone its numeral does
    not correlate enough and the cell reads unknown (it looks like the joker, which lies
    elsewhere), or empty only by its frame and window darker than the plastic around;
    matched too at the largest size whose window stays inside the cell, its numeral tells
    it empty, and no other cell reads differently."""
    frame, _, reading, actual, cell = read_at_a_bonus_cell(4242 * 1_000_003 + 55, 13, 4)
    assert actual[13] is None
    # (told by its numeral: not by its frame and window darker than the plastic around)
    assert reading.cells[cell].state == "empty" and reading.cells[cell].note != IN_SHADE
    # (no veil taken off the plane: the numeral alone tells it)
    single = BoardReader(replace(default_config(), veil_margin=255.0))
    assert len(single.bonus_sizes) == 3
    single.bonus_sizes = single.bonus_sizes[-1:]  # the design's size alone
    once = single.read(frame)
    assert once.cells[cell].state == "unknown" or once.cells[cell].note == IN_SHADE
    for a, b in zip(reading.cells, once.cells, strict=True):
        if a.index != cell:
            assert (a.state, a.placement) == (b.state, b.placement), (a, b)


def test_a_bonus_numeral_is_looked_for_where_the_board_prints_it() -> None:
    """9898/191: a board on wood under a kitchen lamp, blurred, three tiles placed. The
    empty x3 cell beside them shows its big see-through numeral plainly, but glare
    lifts its plastic so that its frame is not seen as one. Its numeral, looked for as
    far from the cell's centre as a tile's disc times the numeral's size (a quarter of a
    cell), was drawn to the tiles' edges beside it and matched nothing (0.55 at best):
    the cell read as a blue tile 6 (confidence 0.18). Printed by the board, the numeral
    lies where the lattice says, and is looked for no farther than a tile's disc: it
    reads 3 and the cell is empty."""
    from vision.numerals import grey_of, read_scores

    _, truth, reading, actual, cell = read_at_a_bonus_cell(9898 * 1_000_003 + 191, 34, 3)
    assert actual[34] is None
    assert reading.cells[cell].state == "empty"
    placed, right = tiles_read_right(truth, reading)
    assert placed == right == 3
    # the numeral as read, and as looked for the farther way
    r = reader()
    assert reading.canvas_bgr is not None and reading.fit is not None
    ppu = r._read_ppu(reading.fit)
    size = r.bonus_sizes[-1]
    scores, _, offsets = r.numerals.scores(reading.canvas_bgr, [cell], ppu, r.config, size)
    assert int(np.argmax(scores[0])) + 1 == 3 and scores[0].max() >= r.config.bonus_numeral_corr
    assert float(np.hypot(*offsets[0])) <= r.numerals.params.search_units + 1e-9
    idx, centres, scale = r.numerals._discs_on([cell], ppu, r.config, size)
    far, _, moved = read_scores(
        grey_of(reading.canvas_bgr),
        centres,
        UP[idx],
        scale,
        r.numerals.params,
        r.numerals.banks,
        r.numerals.blur_index(scale),
    )
    assert far[0].max() < r.config.bonus_numeral_corr
    assert float(np.hypot(*moved[0])) / (scale * ppu) > 2 * r.numerals.params.search_units


def test_a_bonus_numeral_taken_for_a_tiles_is_told_by_its_size() -> None:
    """9898/45 in portrait (720x1280): a small board on wood, eight tiles. The empty x3
    cell's frame is plastic, but at this resolution its big numeral's strokes pass for a
    tile's small numeral: the cell became a tile candidate, named none ("does not look
    like a tile") and read unknown. A bonus cell in which a numeral seems to show is
    looked at for its own big numeral too: it reads 3 there, and the cell is empty."""
    from vision.render.compose import render, sample_still

    r = render(sample_still(9898 * 1_000_003 + 45, (720, 1280), False))
    frame = cv2.imdecode(np.frombuffer(r.jpeg, np.uint8), cv2.IMREAD_COLOR)
    reading = read_on_the_board(frame, r.truth)
    cell = reading_index(r.truth, reading, 34)
    assert BONUS[cell] == 3 and Board.from_notation(r.truth.board, GEO)[34] is None
    assert reading.cells[cell].state == "empty"
    assert [c.state for c in reading.cells].count("unknown") == 0
    placed, right = tiles_read_right(r.truth, reading)
    assert placed == right == 8
    assert reading.fit is not None
    sampled = reader()._sample_cells(frame, reading.fit, {}, bonus=False)
    assert cell in sampled.candidates  # (its frame alone says no tile: a numeral did)
    assert cell in sampled.doubtful.tolist() and reader()._bonus_told(sampled)[cell]


def test_a_clear_window_without_a_navy_disc_is_empty_whatever_names_a_tile() -> None:
    """Harsh 9898/173: a strong blue cast under tungsten light, a lamp's glare over the
    empty cells by the board's cut-off corner. One window shows its light triangle
    clearly, but the glare lifts its frame off the plastic's level: a tile candidate,
    which its glare-lit colours and a "numeral" in the window's pattern named a blue
    tile 6 (confidence 0.37). No navy disc lies in it (over ``disc_max_navy`` from
    navy): the cell is empty, as a doubted candidate's clear window already said."""
    frame, truth = rendered(9898 * 1_000_003 + 173, harsh=True)
    reading = reader().read(frame)
    assert reading.found and reading.fit is not None
    cell = reading_index(truth, reading, 27)
    assert Board.from_notation(truth.board, GEO)[27] is None
    assert reading.cells[cell].state == "empty"
    assert all(c.placement is None or c.value != 6 for c in reading.cells)
    details: dict[str, Any] = {}
    r = reader()
    named, _ = r.read_cells(frame, reading.fit, details)
    assert details["clear_windows"][cell] and named[cell].state == "empty"
    k = details["candidates"].index(cell)
    assert details["disc"][k][1] > r.config.disc_max_navy


OTHER_FONT = Path("/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf")


@pytest.mark.skipif(not OTHER_FONT.is_file(), reason="no Liberation Sans Bold (fonts-liberation)")
def test_a_tile_on_a_bonus_cell_is_not_read_as_its_numeral() -> None:
    """9898/12 of the other print (colours printed otherwise, dark creases between the
    sectors, numerals in another font), with motion blur: RRR6 lies on the x4 cell. Its
    dark creases and disc, blurred, correlate with the big 4 (0.85) where the board
    prints it, and the numeral told the cell empty. But the numeral shows only through
    the board's black plastic, on which no navy disc lies: the tile, plainly red around
    a navy disc, is read, on the fit located in the photo as on one stored (the tracker's:
    the numerals are told there as the cells are sampled, and read again after the tiles
    are named where a cell told empty looks like a tile's). The empty x3 cell of
    9898/191 (a glare-lit window named a blue tile, its "disc" 28 from navy) is still
    told empty by its numeral."""
    frame, truth, reading, actual, cell = read_at_a_bonus_cell(
        9898 * 1_000_003 + 12,
        11,
        4,
        print_variation=1.0,
        dark_creases=True,
        numeral_font=str(OTHER_FONT),
    )
    on_bonus = actual[11]
    assert on_bonus is not None and on_bonus.value == 6
    assert reading.cells[cell].state == "tile" and reading.cells[cell].value == 6
    placed, right = tiles_read_right(truth, reading)
    assert placed == right == len(actual.placements)
    # read on the fit stored (as the tracker reads), the same
    assert reading.fit is not None
    stored = reader().read(frame, reading.fit)
    assert [c.placement for c in stored.cells] == [c.placement for c in reading.cells]
    # the numeral alone, as it was taken before: the cell read empty
    r = reader()
    assert reading.fit is not None
    details: dict[str, Any] = {}
    sampled = r._sample_cells(frame, reading.fit, details, bonus=False)
    assert r._bonus_told(sampled)[cell]
    no_tile = BoardReader(replace(default_config(), sure_disc_max_navy=-1.0))
    assert no_tile.read(frame).cells[cell].state == "empty"


def test_a_bonus_cell_under_glare_whose_small_numeral_disagrees_is_told_by_its_own() -> None:
    """5151/130: an empty board on a white table under a tungsten lamp, seen at 46
    degrees, a lamp's glare over part of it. On the x3 cell (the truth's 2) the glare
    lifts the plastic to a bluish grey and its darker part comes near navy: the cell
    looked plainly like BBB6 around a disc, and a tile so shown is not told empty by the
    big numeral under it (as a tile over a bonus cell hides it). But its small numeral
    reads 1, not 6: the big 3's strokes at a tile's numeral's size. The big 3 reads
    clearly (0.97, the best of the six): the cell reads empty, and no tile is read on
    the empty board."""
    frame, truth = rendered(5151 * 1_000_003 + 130)
    assert truth.board.replace("/", "").replace(".", "").strip() == ""
    reading = read_on_the_board(frame, truth)
    assert not reading.board().placements
    # (no tile tells the turn: the corners do, as the bench matches them)
    assert reading.corners is not None
    corners = np.array(truth.corners)
    best = min(range(3), key=lambda k: np.abs(np.roll(corners, -k, axis=0) - reading.corners).sum())
    turned_index = list(range(36))
    for _ in range(best):
        turned_index = [GEO.rotation[i] for i in turned_index]
    cell = reading.cells[turned_index.index(2)]
    assert BONUS[cell.index] == 3 and cell.state == "empty"


@pytest.mark.parametrize(
    ("seed", "index", "under"),
    [(6262 * 1_000_003 + 1, 19, "RYP2"), (5151 * 1_000_003 + 138, 22, "BGR3")],
    ids=["a held tile over RYP2", "dark fingers over BGR3"],
)
def test_a_tile_under_a_hand_is_unknown_rather_than_what_the_hand_makes_it(
    seed: int, index: int, under: str
) -> None:
    """6262/1: a hand holds a red tile over cell 19 (RYP2 under it); 5151/138: dark
    fingers lie over cell 22 (BGR3 under it). Each read as a tile it is not, at
    confidence 0.3 (RRP5, RBY1): its numeral reads another value (1, 3), and its colours
    are 17 from the tile's, where the photo's other tiles lie 3.5 and 6.5 from theirs.
    Beside a cell the hand covers, both doubts make it unknown; the tiles in view all
    read right."""
    frame, truth = rendered(seed)
    assert index in truth.covered
    hidden = Board.from_notation(truth.board, GEO)[index]
    assert hidden is not None and hidden.field() == under
    reading = read_on_the_board(frame, truth)
    cell = reading.cells[reading_index(truth, reading, index)]
    assert cell.state == "unknown" and cell.note == BESIDE_COVERED
    placed, right = tiles_read_right(truth, reading)
    assert placed == right


@pytest.mark.parametrize(
    ("seed", "index", "tile"),
    [(5151 * 1_000_003 + 2, 9, "RRR6"), (6262 * 1_000_003 + 9, 19, "BBB6")],
    ids=["RRR6 read 4", "BBB6 read 4"],
)
def test_a_tile_beside_a_hand_is_read_though_its_blurred_numeral_reads_another_value(
    seed: int, index: int, tile: str
) -> None:
    """5151/2 and 6262/9: small, blurred boards, a hand over some cells and a cell
    beside the tile looking like a tile read elsewhere. The tile's numeral, a few pixels
    high, reads 4; in these photos numerals read other values often (numeral trust
    0.86 and 0.65), and its colours lie as near its tile's as the photo's other tiles
    lie to theirs. The numeral alone does not make it unknown: it is read."""
    frame, truth = rendered(seed)
    reading = read_on_the_board(frame, truth)
    cell = reading.cells[reading_index(truth, reading, index)]
    assert cell.state == "tile" and cell.placement is not None
    assert cell.placement.field() == tile and cell.note.startswith("numeral reads 4")
    placed, right = tiles_read_right(truth, reading)
    assert placed == right


@pytest.mark.parametrize(
    ("seed", "force"),
    [(6262 * 1_000_003 + 46, {}), (9898 * 1_000_003 + 49, {"print_variation": 1.0})],
    ids=["two arms on a red cloth", "a hand under a tungsten lamp, another print"],
)
def test_skin_over_cells_does_not_set_how_the_camera_renders_colours(
    seed: int, force: dict[str, Any]
) -> None:
    """6262/46: a small board on a red cloth, two arms over eleven of its cells; colours
    9898/49: a hand over four cells under a tungsten lamp. The skin over the cells is
    read as many washed-out "reds" (disc contrast 0.05-0.21 where the photo's clearly
    read numerals show 0.34-0.42): they outvoted the palette's other colours, the
    camera was taken to wash colours out 1.7 and 1.8 times, and the tiles in view read
    unknown (1 of 8 and 0 of 5 read). A candidate sets the white and the tint only where
    its disc shows half the contrast of the photo's clear numerals: every tile in view
    reads right."""
    frame, truth = rendered(seed, **force)
    reading = read_on_the_board(frame, truth)
    actual = Board.from_notation(truth.board, GEO)
    in_view = [p for p in actual.placements if p.index not in truth.covered]
    assert in_view
    for p in in_view:
        cell = reading.cells[reading_index(truth, reading, p.index)]
        assert cell.state == "tile" and cell.value == p.value
    placed, right = tiles_read_right(truth, reading)
    assert placed == right >= 3


def test_a_motion_blurred_tile_on_a_bonus_cell_keeps_it_though_its_numeral_disagrees() -> None:
    """9898/12 as a phone boosting saturation 1.5 times would show it: RRR6 lies on the
    x4 cell, smeared by motion blur (4.9 px), and its small numeral reads 1. Motion blur
    makes numerals read other values as clearly as their own (the photo's numerals are
    trusted 0.4-0.5): the disagreeing numeral tells nothing, and the tile, plainly red
    around a navy disc, keeps its cell from the big numeral its blurred creases
    correlate with."""
    frame, truth = rendered(9898 * 1_000_003 + 12)
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * 1.5, 0, 255)
    frame = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    reading = read_on_the_board(frame, truth)
    actual = Board.from_notation(truth.board, GEO)
    on_bonus = actual[11]
    assert on_bonus is not None and on_bonus.value == 6
    cell = reading.cells[reading_index(truth, reading, 11)]
    assert BONUS[cell.index] == 4
    assert cell.state == "tile" and cell.value == 6 and cell.note.startswith("numeral reads 1")
    placed, right = tiles_read_right(truth, reading)
    assert placed == right


def test_a_lone_first_tile_is_read_against_a_white_in_the_plastics_hue() -> None:
    """9898/174: the game's first tile (BPB5) alone on the board, under an overcast sky,
    the photo a little blurred. Its one numeral's whitest pixels mix in its navy disc:
    a white so tinted blue took the blue out of its sectors and its disc (72 from navy),
    and the tile read as no tile. The plastic is a neutral grey lit by the same light:
    in its hue the white reads the tile on its cell, with its colours and value."""
    frame, truth = rendered(9898 * 1_000_003 + 174)
    actual = Board.from_notation(truth.board, GEO)
    assert len(actual.placements) == 1 and truth.conditions["light"] == "overcast"
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed == right == 1
    numerals_own = BoardReader(replace(default_config(), white_min_numerals=1)).read(frame)
    assert numerals_own.found and not numerals_own.board().placements


def test_an_empty_cell_in_a_hands_shadow_reads_empty() -> None:
    """9898/5: a hand reaches over a full board on a green cloth under a kitchen lamp.
    The empty cell beside its fingertips lies in its shadow: its frame and its window (the
    cloth, dark green) are darker than the plastic the light field expects there, so far
    that, by their distance either way from it, the frame was no plastic, the window no
    window and the sectors coloured: read unknown. No tile is darker than the plastic it
    lies on: where what is darker counts as plastic, and the cell's brightness looks more
    like a window than a tile, it is empty. The tiles still read as they lie, and no cell
    of a tile reads empty."""
    frame, truth = rendered(9898 * 1_000_003 + 5)
    actual = Board.from_notation(truth.board, GEO)
    assert truth.conditions["hands"] == 1 and actual[6] is None and 6 not in truth.covered
    reading = read_on_the_board(frame, truth)
    cell = reading_index(truth, reading, 6)
    assert reading.cells[cell].state == "empty"
    assert reading.cells[cell].note == IN_SHADE
    placed, right = tiles_read_right(truth, reading)
    assert placed == right and placed >= 25
    for index in range(len(reading.cells)):
        if actual[index] is not None:
            assert reading.cells[reading_index(truth, reading, index)].state != "empty"


def bare_cells_at_the_usual_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bonus cells showing no tile's colours or disc told empty by their numeral at the
    bar of any bonus cell (``bonus_numeral_corr``), as before a bare cell's lower bar."""

    told = BoardReader._bonus_told
    monkeypatch.setattr(
        BoardReader, "_bonus_told", lambda self, sampled, cells=None: told(self, sampled)
    )


def test_an_empty_bonus_cell_that_looks_like_a_tile_on_another_cell_is_told_by_its_numeral(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """t9898/65: a lamp's glare over a wooden table under tungsten light. The empty x4
    cell's window shows the lit wood in the tile colours' hues, and reads as a tile that
    lies on another cell; its own numeral is the best of the six there, but at 0.83 below
    the bar of a cell that may hold a tile (0.85). A cell that looks only like a tile
    lying elsewhere holds no tile of the set named there: it is bare, told empty by its
    numeral read clearly, as a cell showing no tile's colours is. The tiles read right.
    (Cells told empty take part in the light the board shows: at the usual bar the
    x2 cell's tile YGY5 read as no tile.)"""
    frame, truth = rendered(9898 * 1_000_003 + 65, harsh=True)
    actual = Board.from_notation(truth.board, GEO)
    assert actual[20] is None and 20 not in truth.covered and truth.conditions["glare"]
    reading = read_on_the_board(frame, truth)
    cell = reading_index(truth, reading, 20)
    assert BONUS[cell] == 4 and reading.cells[cell].state == "empty"
    bare_cells_at_the_usual_bar(monkeypatch)
    usual = BoardReader().read(frame)
    placed, right = tiles_read_right(truth, reading)
    assert placed == right and placed >= 20
    assert usual.cells[cell].state == "unknown" and looks_elsewhere(usual.cells[cell].note)


@pytest.mark.parametrize("still", [27, 97])
def test_on_a_dark_table_a_bonus_numeral_is_matched_between_its_two_sizes(
    still: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """k4242/27, 97: on a dark table the x4 cell's see-through numeral shows the table
    as dark as its frame, and only the numeral's shape tells the cell empty. At the
    design's size and at the largest inside the cell its numeral correlates too little
    (0.82 and 0.78 on 27); half way between, it is empty. No other cell reads
    differently for it. (The cell shows no tile's colours or disc: at the lower bar of
    such a bare cell, a numeral read clearly, the two sizes tell it too; they are asked
    at the bar of a cell that may hold a tile.)"""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    reading = read_on_the_board(frame, truth)
    actual = Board.from_notation(truth.board, GEO)
    cell = reading_index(truth, reading, 13)
    assert BONUS[cell] == 4 and actual[13] is None and 13 not in truth.covered
    assert reading.cells[cell].state == "empty"
    bare_cells_at_the_usual_bar(monkeypatch)
    two = BoardReader()
    two.bonus_sizes = (two.bonus_sizes[0], two.bonus_sizes[-1])
    without = two.read(frame)
    assert without.cells[cell].state == "unknown"
    for a, b in zip(reading.cells, without.cells, strict=True):
        if a.index != cell:
            assert (a.state, a.placement) == (b.state, b.placement), (a, b)


@pytest.mark.parametrize(
    ("seed", "table", "cell"),
    [
        (4242 * 1_000_003 + 3, "dark", 21),  # YPG2 on a dark table
        (4242 * 1_000_003 + 148, "dark", 16),  # YPY4 on a dark table
        (9898 * 1_000_003 + 7, None, 16),  # RPB2 beside a hand, on a cloth
    ],
)
def test_a_tile_with_a_sector_as_dark_as_the_plastic_is_read_by_its_numeral(
    seed: int, table: str | None, cell: int
) -> None:
    """k4242/3, 148, s9898/7: a tile with a purple sector about as dark as the plastic
    (a dark table, dim light) and other sectors coloured, on a frame that is not plastic:
    its numeral is looked for as a dark tile's is, and shows; the tile is read exactly
    (without the numeral, neither empty nor a tile: "covered or unclear")."""
    frame, truth = rendered(seed, **({} if table is None else {"table": table}))
    reading = read_on_the_board(frame, truth)
    actual = Board.from_notation(truth.board, GEO)
    placement = actual[cell]
    assert placement is not None and cell not in truth.covered
    assert Colour.PURPLE in placement.tile.colours
    placed = reading.board().placements
    turn = max(range(3), key=lambda k: sum(p == turned(actual, k)[p.index] for p in placed))
    index = reading_index(truth, reading, cell)
    assert reading.cells[index].placement == turned(actual, turn)[index], reading.cells[index]


def test_a_lattice_is_trusted_on_its_cells_as_read_without_the_bonus_numerals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lattice a cell off puts bonus cells' numerals where other cells are read, so the
    bonus cells told empty by them do not vouch for a located lattice: the trust rule
    judges the cells as read without them (here, unclear), while the reading keeps them
    empty."""
    name = "04"
    clean = reading_of(name)
    assert clean.fit is not None
    bonus = [c.index for c in clean.cells if c.state == "empty" and BONUS[c.index] > 1]
    centre = clean.fit.to_image(CENTROIDS[bonus]).mean(axis=0)
    size = px_per_unit(clean.fit.homography)
    frame = glare(load_image(str(STILLS / f"{name}.jpg")), centre, 1.5 * size, 0.5)
    strict = BoardReader(replace(default_config(), trust_full_points=10**6))
    judged: list[tuple[CellReading, ...]] = []
    untrusted = BoardReader._untrusted

    def spy(self: BoardReader, fit: BoardFit, cells: tuple[CellReading, ...]) -> bool:
        judged.append(cells)
        return untrusted(self, fit, cells)

    monkeypatch.setattr(BoardReader, "_untrusted", spy)
    reading = strict.read(frame)
    assert reading.found and judged
    untold = [i for i in bonus if judged[-1][i].state != "empty"]
    assert untold, [judged[-1][i] for i in bonus]
    assert all(reading.cells[i].state == "empty" for i in untold)


@pytest.mark.parametrize(
    ("name", "cell"), [("00", 2), ("01", 13), ("01", 34), ("03", 30), ("09", 14)]
)
def test_the_bonus_numerals_told_after_sampling_read_as_sampling_with_them(
    name: str, cell: int
) -> None:
    """A lattice is judged on its cells sampled without the bonus cells' big numerals;
    the reading finally given tells them after the fact (``_with_bonus``), without
    sampling the frame again: the same readings as a sampling that tells them. Glare
    over an empty bonus cell makes its frame look unlike plastic, so that its numeral
    tells it."""
    from vision.read import _with_bonus

    r = reader()
    clean = reading_of(name)
    assert clean.fit is not None and clean.cells[cell].state == "empty"
    frame = glare(
        load_image(str(STILLS / f"{name}.jpg")),
        clean.fit.to_image(CENTROIDS[[cell]])[0],
        0.6 * px_per_unit(clean.fit.homography),
        0.5,
    )
    fit = r.find(frame)
    details: dict[str, Any] = {}
    sampled = r._sample_cells(frame, fit, details, bonus=False)
    assert "bonus_seen" not in details  # looked for on the fit finally read only
    details["bonus_seen"] = r._bonus_told(sampled)
    seen = np.flatnonzero(details["bonus_seen"])
    assert cell in seen
    told, told_details = _with_bonus(sampled, details)
    again: dict[str, Any] = {}
    direct = r._sample_cells(frame, fit, again, bonus=True)
    assert told.candidates == direct.candidates
    assert told.readings == direct.readings
    # the numerals' scores of fewer discs at once may differ by a float32 rounding
    np.testing.assert_allclose(told.numeral_scores[0], direct.numeral_scores[0], atol=1e-5)
    for a, b in zip(r._name_tiles(told, told_details), r._name_tiles(direct, again), strict=True):
        assert (a.index, a.state, a.edges, a.value, a.note) == (
            b.index,
            b.state,
            b.edges,
            b.value,
            b.note,
        )
        assert a.confidence == pytest.approx(b.confidence, abs=1e-3)
        assert [p for p, _ in a.alternatives] == [p for p, _ in b.alternatives]
    assert all(told.readings[i].state == "empty" for i in seen)
    assert not set(seen.tolist()) & set(told.candidates)
    assert r.read(frame).cells[cell].state == "empty"


def placements_against(truth: Any, reading: BoardReading) -> tuple[int, int, int]:
    """The tiles a reading names, against a rendered truth's board turned as it fits them
    best: (how many, how many of them wrong, the truth's tiles in view)."""
    board = truth.board_state
    placed = reading.board().placements
    turn = max(range(3), key=lambda k: sum(p == turned(board, k)[p.index] for p in placed))
    wrong = sum(p != turned(board, turn)[p.index] for p in placed)
    hidden = set(truth.covered) | set(truth.outside)
    return len(placed), wrong, sum(p.index not in hidden for p in board.placements)


def test_a_weakly_held_lattice_is_looked_for_again_in_the_balanced_photo() -> None:
    """A camera's white balance gone warm (red x1.25, blue x0.7) tints the black
    plastic brown and takes the blue out of a navy cloth, which then looks as dark and
    colourless as the plastic: the outlines found in the photo as it is are the
    board's merged with the cloth, and the best lattice on them is held by a handful of
    points, a cell or more off. The board is looked for again in the photo balanced to
    the light, where it is held by many more points: that fit is the one read."""
    frame, truth = rendered(9696029103)
    warm = np.clip(frame * np.array([0.7, 0.95, 1.25]) + 0.5, 0, 255).astype(np.uint8)
    reading = read_on_the_board(warm, truth)
    assert reading.fit is not None
    assert reading.fit.points >= default_config().enough_lattice_points
    placed, wrong, _ = placements_against(truth, reading)
    assert placed >= 12 and wrong == 0


def test_a_lattice_with_many_unclear_cells_is_looked_for_again_in_the_balanced_photo() -> None:
    """A hand over a board cut off by the frame: the outline of the board merged with
    the hand's leads the fit a cell off, held by enough points, but a third of the cells
    in view read as neither empty nor a tile. Looked for again in the photo balanced to
    the light, the board is found where its cells read: that fit, held nearly as well,
    is the one read."""
    frame, truth = rendered(9696029226)
    reading = read_on_the_board(frame, truth)
    # the hand still covers some: fewer unclear than on the lattice a cell off (14 of 32)
    unclear, in_view = unclear_in_view(reading.cells)
    assert unclear < 14 and in_view >= 30
    placed, wrong, _ = placements_against(truth, reading)
    assert placed and wrong == 0


def test_a_steep_close_view_held_by_many_points_keeps_its_perspective() -> None:
    """50 degrees of tilt through a wide lens, the board filling two thirds of the frame:
    its far corner is 2.7 times as far from the camera as its near one, past what a fit
    on few points may claim (``max_perspective_ratio``). Held by many lattice points,
    that perspective is taken, and the tiles at the far side read."""
    frame, truth = rendered(9797029461, harsh=True)
    reading = read_on_the_board(frame, truth)
    assert reading.fit is not None
    placed, wrong, visible = placements_against(truth, reading)
    assert wrong == 0
    assert placed >= visible - 1  # (12 of 17 on the perspective of few points)
    cfg = default_config()
    w = np.hstack([outer_corners(cfg.band_width), np.ones((3, 1))]) @ reading.fit.homography[2]
    assert cfg.max_perspective_ratio < w.max() / w.min() <= cfg.max_perspective_ratio_held
    assert reading.fit.points >= cfg.enough_lattice_points


def test_a_lattice_still_unclear_is_looked_for_on_the_other_outlines() -> None:
    """Two hands over a board cut off by the frame, in harsh light: the likeliest outline
    (the board's merged with a hand's) and the balanced photo's both give a lattice
    a third of a cell off, on which 13 of the 35 cells in view read unclear and a tile
    is named wrong. Another outline, on another place, gives a lattice held nearly as
    well on which the cells read: that one is read."""
    frame, truth = rendered(9797029496, harsh=True)
    reading = read_on_the_board(frame, truth)
    unclear, in_view = unclear_in_view(reading.cells)
    assert unclear < 13 and in_view >= 30
    placed, wrong, visible = placements_against(truth, reading)
    assert wrong == 0 and placed >= visible


def test_no_more_glare_is_taken_off_a_tile_than_its_darkest_sector_shows() -> None:
    """Glare adds the lamp's light to every sector of a tile alike, so no more can be
    taken off than its darkest sector shows in its weakest channel. A hand reaching
    over the border band (tungsten light, seed 9696029096) lifts the plastic's level
    beside it, not the tiles' colours: taken off as glare, it left negative light in
    four tiles and read six as "glare washes the colours out"."""
    frame, _ = rendered(9696029096)
    r = reader()
    fit = r.find(frame)
    sampled = r._sample_cells(frame, fit, {}, bonus=True)
    assert sampled.candidates
    assert float(np.stack(sampled.sector_lin).min()) >= 0.0
    glared = [c.index for c in r.read(frame).cells if c.note.startswith("glare")]
    assert len(glared) <= 2, glared


def test_a_tiles_ridges_are_read_where_its_neighbours_discs_say_it_lies() -> None:
    """s9898/50: at 45 degrees, the board cut off at the frame's right edge (where the
    lens bends it most): the lattice lies a tenth of a cell off there, beside the red
    tile next to the joker, and the ridge between them falls outside where it was read.
    The tile's colours, read well inside its sectors, were right, but it read unknown
    ("an edge shows no ridge"). Its neighbours' discs tell where it lies.

    The lattice lay off there because the lens went unfitted (a 10% lower error on 24
    points, held too little by a fixed 15% rule): fitted now (``lens_min_f``), every
    tile in the image reads right. A lattice fitted without a lens lies off as it did,
    and the discs still mend it."""
    frame, truth = rendered(9898029744)
    board = Board.from_notation(truth.board, GEO)
    bent = reader().read(frame)
    assert bent.fit is not None and bent.fit.lens is not None and bent.fit.lens.k < -0.05
    inside = [c for c in bent.cells if c.note != "outside the image"]
    assert all(c.state != "unknown" for c in inside)
    assert placed_right_and_wrong(bent, board) == (sum(c.state == "tile" for c in inside), 0)
    straight = replace(default_config(), max_lens_k=0.0)
    read = BoardReader(straight).read(frame)
    unshifted = BoardReader(replace(straight, tile_shift_min_discs=99)).read(frame)
    right, wrong = placed_right_and_wrong(read, board)
    assert wrong == 0
    assert right > placed_right_and_wrong(unshifted, board)[0]
    assert right < placed_right_and_wrong(bent, board)[0]
    red_six = [c for c in read.cells if c.value == 6 and set(c.edges or ()) == {Colour.RED}]
    assert len(red_six) == 1 and red_six[0].note == ""


@pytest.mark.parametrize("seed", [569, 599])
def test_raised_tiles_are_read_on_their_tops_and_the_board_on_its_plane(seed: int) -> None:
    """A tile is a slab: a camera tilted by 37 degrees sees its top 0.08 units above the
    board shifted off its cell, and its walls. A reader told the tiles' height
    (``tile_height``; 0, flat, by default) takes the tiles' lattice points down to the
    board's plane (its corners land nearer the truth's than where a reader of flat tiles
    puts them) and reads each tile on its top: every cell right."""
    from vision.render.compose import render, sample_still

    spec = sample_still(seed, (1280, 720), hands=0, cut=False, tile_height=(0.08, 0.08))
    assert spec.conditions()["tilt_deg"] > 35
    shot = render(spec)
    frame = cv2.imdecode(np.frombuffer(shot.jpeg, np.uint8), cv2.IMREAD_COLOR)
    told = replace(default_config(), tile_height_max=0.0)  # the height as given
    raised = BoardReader(replace(told, tile_height=0.08)).read(frame)
    flat = BoardReader(replace(told, tile_height=0.0)).read(frame)
    assert raised.found and flat.found
    assert corner_error_cells(shot.truth, raised) < 0.7 * corner_error_cells(shot.truth, flat)
    truth = Board.from_notation(shot.truth.board, GEO)
    assert same_board_up_to_turn(raised.board(), truth)
    assert all(c.state != "unknown" for c in raised.cells)


@pytest.mark.parametrize("seed", [569, 593])
def test_the_reader_tells_how_high_the_tiles_are(seed: int) -> None:
    """The same scenes' tiles 0.08 units thick, then flat: by default the reader tells
    the height from the tiles' discs against the empty windows (and fits the board's
    plane nearer the truth than a reader that takes them flat); flat tiles it reads flat."""
    from vision.render.compose import render, sample_still

    thick = sample_still(seed, (1280, 720), hands=0, cut=False, tile_height=(0.08, 0.08))
    frames = []
    for spec in (thick, replace(thick, tile_height=0.0)):
        shot = render(spec)
        frames.append((cv2.imdecode(np.frombuffer(shot.jpeg, np.uint8), cv2.IMREAD_COLOR), shot))
    (frame, shot), (flat_frame, _) = frames
    told = reader().read(frame)
    assert told.fit is not None and 0.03 <= told.fit.tile_height <= 0.12
    taken_flat = BoardReader(replace(default_config(), tile_height_max=0.0)).read(frame)
    assert corner_error_cells(shot.truth, told) < corner_error_cells(shot.truth, taken_flat)
    assert same_board_up_to_turn(told.board(), Board.from_notation(shot.truth.board, GEO))
    flat = reader().read(flat_frame)
    assert flat.fit is not None and flat.fit.tile_height == 0.0


def test_raised_tiles_whose_height_is_not_told_are_read_where_their_discs_say() -> None:
    """t7070/116: tiles 0.11 units thick seen at 36 degrees, where no height is told:
    their tops, and their discs, lie off their cells by up to a tenth of a cell. Read on
    the cells, two tiles' sector flanks fell on their neighbours ("part of a sector shows
    another colour"); read where their own disc and a neighbour's say they lie, every
    tile reads right."""
    frame, rendered_truth = rendered(7070021326, tile_height=(0.05, 0.12))
    assert rendered_truth.conditions["tile_height"] > 0.1
    truth = Board.from_notation(rendered_truth.board, GEO)
    read = reader().read(frame)
    assert read.fit is not None and read.fit.tile_height == 0.0
    unshifted = BoardReader(replace(default_config(), tile_shift_min_discs=99)).read(frame)
    right, wrong = placed_right_and_wrong(read, truth)
    assert wrong == 0 and right == len(truth.placements)
    assert placed_right_and_wrong(unshifted, truth)[0] < right


def test_a_joker_refused_on_its_cell_is_not_said_to_lie_elsewhere() -> None:
    """Harsh 9797/9: blur leaves the joker's numeral unread and its disc barely navy, so
    the joker is refused on its cell (it reads unknown, safely). No other cell holds the
    joker: its note says why it was refused, not "which is on another cell"."""
    frame, truth = rendered(9797029400, harsh=True)
    assert any(p.tile.is_joker for p in Board.from_notation(truth.board, GEO).placements)
    read = reader().read(frame)
    holds = {c.placement.tile for c in read.cells if c.placement is not None}
    assert not any(t.is_joker for t in holds)
    pale = [c for c in read.cells if c.note.startswith(JOKER_REFUSED)]
    assert pale and all(c.state == "unknown" for c in pale)
    assert not [c for c in read.cells if "WWW1" in c.note and c.note.endswith(ELSEWHERE)]


def test_a_washed_out_board_is_held_by_the_tiles_it_names() -> None:
    """Harsh 9797/10: a board full of tiles, overexposed under a studio lamp on a white
    table. Its plastic is lifted past the darkness levels, so only the paler haze level
    outlines it; the washed-out ridges and discs hold its lattice by fewer points than a
    last search needs. Its tiles' colours still read: the many tiles named hold it."""
    frame, truth = rendered(9797029401, harsh=True)
    cfg = default_config()
    hazy = reader()._read_located(frame, frame, levels=cfg.haze_levels)
    assert hazy.fit is not None and hazy.fit.points < cfg.trust_min_points
    reading = read_on_the_board(frame, truth)
    right, wrong = placed_right_and_wrong(reading, Board.from_notation(truth.board, GEO))
    assert right >= cfg.trust_min_points and wrong == 0


def read_raised(seed: int) -> tuple[Any, BoardReading, int, int, int]:
    """A still of tiles 0.05-0.12 thick (``--tile-height 0.05:0.12``) read on the board
    with their height told: its truth, the reading, the tiles read right and wrong, and
    the tiles no hand covers."""
    frame, truth = rendered(seed, tile_height=(0.05, 0.12))
    reading = read_on_the_board(frame, truth)
    assert reading.fit is not None and reading.fit.tile_height > 0.0
    board = Board.from_notation(truth.board, GEO)
    right, wrong = placed_right_and_wrong(reading, board)
    visible = sum(p.index not in set(truth.covered) for p in board.placements)
    return truth, reading, right, wrong, visible


def test_a_lattice_moved_away_and_back_keeps_the_fit_found_there() -> None:
    """t9898/56: tiles 0.075 thick seen at 45 degrees on a dark green cloth. The band
    check moves the located lattice by cells, and the rescaling brings it back where it
    was, fitted again from a rescaled outline's corners: on fewer lattice points, too few
    of them windows to tell the tiles' height. The discs, on the tiles' tops, then pulled
    that lattice off as if they lay on the board, and six empty cells read unknown. The
    fit located there, which told the tiles' height, is kept."""
    truth, reading, right, wrong, visible = read_raised(9898029750)
    assert truth.conditions["tile_height"] > 0.05
    assert wrong == 0 and right == visible
    # (a hand covers three cells; the empty ones read unknown were none of them)
    assert sum(c.state == "unknown" for c in reading.cells) <= len(truth.covered)


def test_a_clear_window_beside_raised_tiles_is_judged_in_the_boards_plane() -> None:
    """t4242/139: tiles 0.10 thick seen at 42 degrees on a red table. An empty cell's
    window shows the red table clearly in the board's plane; on the plane of the tiles'
    tops, where a tile's disc is looked for, the window is seen moved and its black frame
    lies on the disc's place, as dark as a navy disc: the cell read as no tile (unknown).
    Its disc is looked for in the board's plane: no navy there, and the cell is empty."""
    truth, reading, right, wrong, visible = read_raised(4242012865)
    assert truth.conditions["tile_height"] > 0.1 and truth.conditions["table"] == "plain_red"
    assert wrong == 0 and right == visible
    assert [c.index for c in reading.cells if c.state == "unknown"] == []


def test_a_frame_of_plastic_in_the_boards_plane_is_an_empty_cell_under_a_raised_neighbour() -> None:
    """t9898/100: tiles 0.12 thick seen at 48 degrees on a green cloth. A raised tile's
    wall stands over the window of the empty cell beside it, which then shows no
    window's shape, and on the plane of the tiles' tops its frame looks a third covered:
    it was taken for a tile and read unknown. In the board's plane its frame is plastic
    all round, which no tile's is (a tile stands on its frame): the cell is empty."""
    truth, reading, right, wrong, visible = read_raised(9898029794)
    assert truth.conditions["tile_height"] > 0.1
    assert wrong == 0 and right >= visible  # (a tile the hand half covers reads too)
    assert [c.index for c in reading.cells if c.state == "unknown"] == []


def test_a_few_discs_tell_how_high_the_tiles_are_where_the_lattice_cannot() -> None:
    """t7070/106: tiles 0.11 units thick seen at 47 degrees, few of them and hands over
    others: the lattice matches one tile's points, too few to tell a height, and seven
    discs are too few to refit the lattice on. A height is one unknown: the discs tell
    it against the windows' plane, and the tiles are read on their tops (read as flat,
    their sectors fall on their walls and the cells read unknown)."""
    frame, rendered_truth = rendered(7070021316, tile_height=(0.05, 0.12))
    assert rendered_truth.conditions["tile_height"] > 0.1
    told = reader().read(frame)
    assert told.fit is not None and told.fit.raised is not None
    assert int(told.fit.raised.sum()) < default_config().tile_height_min_points
    assert 0.05 <= told.fit.tile_height <= default_config().tile_height_max
    flat = BoardReader(replace(default_config(), tile_height_max=0.0)).read(frame)
    truth = Board.from_notation(rendered_truth.board, GEO)
    told_right, told_wrong = placed_right_and_wrong(told, truth)
    assert told_wrong == 0
    assert told_right > placed_right_and_wrong(flat, truth)[0]


@pytest.mark.parametrize(("shrink", "small"), [(1.0, False), (0.5, False), (1 / 6, True)])
def test_a_lattice_too_small_to_be_the_board_is_told(shrink: float, small: bool) -> None:
    """A dark region is an outline only when it covers ``min_board_area_fraction`` of the
    frame, and the board's plastic lies within its outline: a lattice whose whole board
    covers less (once rescaled) fits a pattern within one (a checked tablecloth's
    squares, a tile's sectors); the board at its own or half its size does not."""
    clean = reading_of("00")
    assert clean.fit is not None
    frame = load_image(str(STILLS / "00.jpg"))
    centre = PLAY_CORNERS.mean(axis=0)
    towards = np.array(
        [
            [shrink, 0.0, (1 - shrink) * centre[0]],
            [0.0, shrink, (1 - shrink) * centre[1]],
            [0, 0, 1],
        ]
    )
    fit = BoardFit.from_homography(clean.fit.homography @ towards, 0.5, 0.01, 30, clean.fit.lens)
    assert reader()._too_small(fit, frame.shape) == small


def test_a_lattice_fitted_to_a_checked_tablecloth_is_no_board() -> None:
    """A lattice a sixth of the board's size, fitted to the squares of a black gingham
    beside a board cut off by the frame, is refused after the rescale's chances: the
    board is not reported there (it was, five cells off its place)."""
    frame, truth = rendered(3131009470, table="checked")  # c3131/77
    assert truth.conditions["table"] == "checked"
    reading = reader().read(frame)
    assert not reading.found or corner_error_cells(truth, reading) < 0.25


def test_a_lattice_held_by_a_checked_tablecloth_whose_cells_read_nothing_is_no_board() -> None:
    """The squares of a gingham, seen in perspective, hold a whole lattice (36 points)
    beside the real board (c3232/51): not one of its cells reads as a window or a tile,
    most look like a tile seen elsewhere. Every cell of a board is a window or a tile:
    such a lattice is not reported, however many points hold it."""
    frame, truth = rendered(3232009747, table="checked")
    reading = reader().read(frame)
    assert not reading.found or corner_error_cells(truth, reading) < 0.25


@pytest.mark.parametrize(
    "seed",
    [
        9898 * 1_000_003 + 24,  # dark-stained wood, as bright as the plastic; no hands
        9898 * 1_000_003 + 60,  # the same in overcast light, a hand over the board
    ],
)
def test_a_board_on_a_table_as_dark_as_its_plastic_is_found_and_read(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``generate --table dark``: the table is as dark as the board's plastic (stills of
    ``--seed 9898 --table dark``). The dark region the outline is looked for in is
    the table and the plastic merged, and the windows show the table as dark as the
    ribs; the board stands out from the table by its tiles and the plastic's own colour.
    Without the search off the table, in the frame as it is, neither board is found.
    (With the veil of light taken off, the dark region finds the second; the searches for
    the regions their edges enclose and on the brightness find both, right, and are left
    out of the control.)"""
    frame, truth = rendered(seed, table="dark")
    assert truth.conditions["table"] == "dark"
    without = BoardReader(
        replace(default_config(), table_distances=(), structure_last=False, brightness_last=False)
    )
    with monkeypatch.context() as patch:
        patch.setattr("vision.read.lifted_veil", lambda frame_bgr, cfg: frame_bgr)
        assert not without.read(frame).found
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 8 and right == placed


def test_on_a_dark_table_a_fit_a_cell_off_is_moved_back() -> None:
    """On a dark table a band moved a cell onto the table looks as dark as the plastic:
    the band check measures the distance from the ribs' colour instead, either way, and
    each of the six fits a cell off is moved back (with the darkness alone, three stay
    off)."""
    frame, truth = rendered(9898 * 1_000_003 + 12, table="dark")
    reading = read_on_the_board(frame, truth)
    assert reading.fit is not None
    plain = BoardReader(replace(default_config(), dark_table_share=0.0, table_brighter=-9.0))
    stayed = 0
    for dx, dy in LATTICE_SHIFTS:
        off = reading.fit.moved(np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]))
        back = reader().check_band(frame, off)
        assert corner_error_cells(truth, BoardReading(True, (), back)) < 0.25
        kept = plain.check_band(frame, off)
        stayed += corner_error_cells(truth, BoardReading(True, (), kept)) > 0.5
    assert stayed >= 1


@pytest.mark.parametrize("still", [80, 192])
def test_a_board_as_dark_as_the_table_and_of_its_shade_is_found_by_its_structure(
    still: int,
) -> None:
    """k4242/80, 192: the table is as dark as the plastic and of its shade, so that
    neither the dark regions nor what is not the table outline the board; the regions
    its edges enclose do (:func:`vision.locate.structure_mask`). The board is found
    where it is, every tile read on its cell, and its band shows the peg holes on two
    sides. Without the structure search, no board was found."""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 5 and right == placed
    # (weak lines as strong as when it was measured: at 0.09 of the side hint, 192's
    # outline is found among those of what is not the table too; the search on the
    # brightness, last, looks among the regions edges enclose as well)
    unseen = BoardReader(
        replace(
            default_config(),
            structure_last=False,
            brightness_last=False,
            outline_line_votes=OLD_WEAK_LINES,
        )
    ).read(frame)
    assert not unseen.found


def test_a_lattice_found_by_the_structure_without_the_peg_holes_is_not_taken() -> None:
    """k4242/158: an empty board on a dark table under a spot lamp. The structure search
    fits a lattice stretched past the board (one side on the band, the others on the
    table and the cells): held by enough points, but its band shows the peg holes on one
    side only. No board is reported from it, rather than one more than a cell off. The
    search on the brightness, last, fits the lattice on every cell; its band check
    matches the windows there as it found them, darker than their frames (judged as
    the usual contrast shows them, the cells look like none and the fit was moved three
    cells off, onto a band showing the holes on one side), and the board is found
    where it lies, its band showing the holes on two sides."""
    frame, truth = rendered(4242 * 1_000_003 + 158, table="dark")
    unlit = replace(default_config(), brightness_last=False)
    assert not BoardReader(unlit).read(frame).found
    unguarded = BoardReader(replace(unlit, structure_peg_chances=0.0)).read(frame)
    assert unguarded.found and corner_error_cells(truth, unguarded) > 0.75
    reading = read_on_the_board(frame, truth)
    assert corner_error_cells(truth, reading) < 0.25
    assert sum(c.state == "empty" for c in reading.cells) >= 18
    assert not any(c.state == "tile" for c in reading.cells)
    located = reader().locate(frame, structure=True, brightness=True)
    signed = reader().check_band(frame, located)  # the cells judged signed
    assert corner_error_cells(truth, BoardReading(True, (), signed)) > 0.75


@pytest.mark.parametrize("still", [24, 137])
def test_on_a_dark_table_the_peg_holes_move_a_fit_a_cell_off_back(still: int) -> None:
    """k4242/24, 137: the table is as dark as the plastic and the lattice fits the tiles
    a cell off, the band on the board's empty cells (as dark as the band) on one side
    and the cells on the real band on the other. The band's darkness cannot tell; its
    row of peg holes does (:func:`vision.rectify.peg_track`): the fit is moved back and
    every tile read lies where it is. Without that check the board was reported a cell
    off, every tile on the wrong cell."""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 8 and right == placed
    blind = BoardReader(replace(default_config(), peg_shift_margin=math.inf)).read(frame)
    assert blind.found and corner_error_cells(truth, blind) > 0.75


def test_a_fit_a_cell_off_in_any_of_six_ways_is_moved_back_by_the_peg_holes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a sharp still each of the six fits a cell off the truth's is moved back onto
    it by the peg holes alone, and the truth's own fit is not moved: its sides show the
    holes' row (two would do), so its six moves are not even measured."""
    frame, truth = load_image(str(STILLS / "02.jpg")), truth_of("02")
    fit = BoardFit.from_homography(np.array(truth["homography"], dtype=np.float64))
    measured: list[int] = []

    def counted(frame_bgr: np.ndarray, at: BoardFit, cfg: Any, shifts: Any = None) -> Any:
        measured.append(1 if shifts is None else len(shifts))
        return peg_track(frame_bgr, at, cfg, shifts)

    with monkeypatch.context() as patch:
        patch.setattr("vision.read.peg_track", counted)
        assert reader()._peg_moved(frame, fit) is None
    assert measured == [1]
    for dx, dy in LATTICE_SHIFTS:
        off = fit.moved(np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]))
        back = reader()._peg_moved(frame, off)
        assert back is not None and np.abs(back.corners - fit.corners).max() < 1e-6


def test_no_board_found_on_a_dark_table_says_what_would_help() -> None:
    """A dark table with a few loose tiles and no board (seeded noise on dark brown):
    whatever the search ran into, the reason ends by saying the table looks as dark as
    the plastic and that a lighter cloth under the board helps. A lit table does not
    say so, nor does a photo almost all black (that is the light's fault)."""
    rng = np.random.default_rng(7)
    dark = np.clip(rng.normal((30, 38, 48), 4, (720, 1280, 3)), 0, 255).astype(np.uint8)
    for k in range(4):  # loose tiles' worth of light things
        dark[100 + 120 * k : 150 + 120 * k, 900:960] = (60, 200, 230)
    reading = reader().read(dark)
    assert not reading.found and reading.reason.endswith(f"({DARK_TABLE})")
    lit = np.clip(dark.astype(np.int16) * 4, 0, 255).astype(np.uint8)
    lit[100:150, 900:960] = (60, 200, 230)
    assert "cloth" not in reader().read(lit).reason
    black = np.zeros_like(dark)
    black[:20] = dark[:20]
    assert "cloth" not in reader().read(black).reason


@pytest.mark.parametrize(
    ("still", "moved_by_the_bright_part"), [(35, True), (37, True), (112, False)]
)
def test_on_a_dark_table_the_band_is_told_by_its_middle_level(
    still: int, moved_by_the_bright_part: bool
) -> None:
    """k4242/35, 37, 112: in the distance from the plastic's colour the band's peg holes
    (they show the table) and its printing stand out as much as the table does, and the
    table here is nearly the plastic's colour. Judged by the brighter part of its strip
    (the 80th percentile, as in the brightness of a lit table), the band looked less like
    the plastic than the table a cell away, and the fit was moved there; its middle
    level keeps it, and every tile reads right. (On 112 the tiles' match in the
    brightness now keeps it too, whatever the band's level.)"""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 8 and right == placed
    # (the band check alone: the peg holes' check may move such a fit back too, 35's, or
    # refuse it on a dark table)
    alone = replace(
        default_config(),
        band_percentile_dark=80.0,
        peg_shift_margin=math.inf,
        dark_peg_chances=0.0,
        outline_line_votes=OLD_WEAK_LINES,  # (the outlines it was measured on)
    )
    bright = BoardReader(alone).read(frame)
    assert bright.found
    assert (corner_error_cells(truth, bright) > 0.75) == moved_by_the_bright_part


def test_on_a_dark_table_a_lattice_held_by_few_points_and_no_tiles_is_no_board() -> None:
    """On a dark table the windows look like the ribs, and a lattice may fit a few
    tiles at any place, turn and scale (k4242/46: the search in the dark finds one on
    six points, no tile named, eight cells off, two hands over the board). Such a fit is
    no board found, with a reason that says what would help; the search on the
    brightness, last, then finds the board where it is."""
    frame, truth = rendered(4242 * 1_000_003 + 46, table="dark")
    unlit = BoardReader(replace(default_config(), brightness_last=False)).read(frame)
    assert not unlit.found
    assert "dark" in unlit.reason and "cloth" in unlit.reason
    searched = reader()._searched(frame, dark_table=True)  # the search alone: a wrong fit
    assert searched.found and corner_error_cells(truth, searched) > 0.5
    # (the lattice fitted to the brightness as it is, last, finds the board where it is)
    reading = reader().read(frame)
    assert reading.found and corner_error_cells(truth, reading) < 0.25


@pytest.mark.parametrize("seed", [11, 14])
def test_an_empty_board_on_a_dark_table_reads_empty(seed: int) -> None:
    """The start of a game on a dark table: no tile, and every window shows the table
    as dark as the ribs, or darker. The windows' shape is looked for in the distance
    from the ribs' colour, and the bonus cells' see-through numerals too: every cell
    reads empty. (In the brightness alone, no window shows and no cell reads.)"""
    frame, truth = rendered(seed, table="dark", tiles=0, hands=0, cut=False)
    reading = read_on_the_board(frame, truth)
    assert [c.state for c in reading.cells] == ["empty"] * 36


@pytest.mark.parametrize("seed", [5, 16])
def test_a_game_start_on_a_dark_table_with_a_few_loose_tiles_reads_empty(seed: int) -> None:
    """The first frame of a game on a dark table: an empty board, a few loose tiles
    beside it (a percent of the frame or less) and a phone or a bag. The frame's 99th
    percentile falls on the tiles' darker sectors, beside which the table looked lit:
    the board was not found, and a tracked game (gdark seed 11, game 0) recalled none of
    its 34 placements. The bright reference is the frame's brightest pixels."""
    frame, truth = rendered(seed, table="dark", tiles=0, hands=0, cut=False)
    assert 0 < truth.conditions["loose_tiles"] <= 8
    reading = read_on_the_board(frame, truth)
    assert [c.state for c in reading.cells] == ["empty"] * 36
    lower = BoardReader(replace(default_config(), dark_table_bright_percentile=99.0))
    assert not lower.read(frame).found


def test_a_small_board_on_a_darkish_table_is_found_off_the_table_at_its_own_scale() -> None:
    """k4242/57: a small, blurred board on a dark-brown table a little lighter than its
    plastic. No dark outline is the board's; what stands out from the table is. Its
    lattice, held by few
    points, is not taken for one at half its scale that the tiles' sectors hold (whose
    board would be smaller than any outline looked for)."""
    frame, truth = rendered(4242 * 1_000_003 + 57, table="dark")
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 12 and right == placed
    located = reader().locate(frame, off_table=True)
    assert not reader()._too_small(reader().rescaled(frame, located), frame.shape)


def test_the_last_search_off_the_table_wants_the_band_on_plastic() -> None:
    """t9797/154 (haze, a hand): what stands out from the table includes a cluster of
    tiles, and a lattice a half turn off fits them, held by 14 points. Its band lies on
    tiles and the table, on no side like the plastic: no board found rather than that."""
    frame, truth = rendered(9797 * 1_000_003 + 154, harsh=True, tile_height=(0.05, 0.12))
    reading = reader().read(frame)
    assert not reading.found or corner_error_cells(truth, reading) < 0.5
    # (the search off the table no longer finds that fit: its band is told by its
    # middle level, ``band_percentile_dark``; it is put where it lay, half a turn off)
    with_it = BoardReader(replace(default_config(), band_percentile_dark=80.0))
    off = with_it._read_located(frame, frame, off_table=True)
    assert off.found and off.fit is not None and corner_error_cells(truth, off) > 2
    assert not reader()._band_on_plastic(frame, off)


def test_a_fit_that_names_enough_tiles_beats_one_held_by_more_points_that_does_not() -> None:
    """A portrait still (720x1280, 4242/45): the first search's fit, a cell off, is
    held by at least as many points as the balanced frame's, yet not by enough points or
    tiles to be trusted; the balanced frame's is, and it is the board."""
    from vision.render.compose import render, sample_still

    r = render(sample_still(4242 * 1_000_003 + 45, (720, 1280), False))
    frame = cv2.imdecode(np.frombuffer(r.jpeg, np.uint8), cv2.IMREAD_COLOR)
    reading = read_on_the_board(frame, r.truth)
    placed, right = tiles_read_right(r.truth, reading)
    assert placed > 0 and right >= placed - 1


def test_no_tile_sure_enough_to_set_the_tint_leaves_the_colours_as_they_are() -> None:
    # A frame whose tile candidates are all unsure (k4242/118 on a lattice found in the
    # frame with the glare taken off): no gains are fitted to no colours.
    gains, chroma = BoardReader()._palette_gains([], np.full(3, 0.02), [])
    assert gains.tolist() == [1.0, 1.0, 1.0]
    assert chroma == 1.0


@pytest.mark.skipif(not OTHER_FONT.is_file(), reason="no Liberation Sans Bold (fonts-liberation)")
def test_a_lattice_refitted_on_the_discs_a_cell_off_is_band_checked_again() -> None:
    """9898/57 of the other print: the board cut off at a corner by a cell and a half, a
    hand over its far side and a phone beside it. The lattice located there is pinned by
    eight points, and its refit on the tiles' discs took it a cell off along the side
    whose band shows: every tile read on its neighbour's cell, nine of them wrong. The
    refitted lattice's band lies over a row of tiles on the other side; checked again,
    it is moved onto the board, and the tiles in view read right."""
    frame, truth = rendered(
        9898 * 1_000_003 + 57,
        print_variation=1.0,
        dark_creases=True,
        numeral_font=str(OTHER_FONT),
    )
    assert truth.conditions["cut_off"] is not None
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    in_view = [c for c in truth.cells if c["state"] == "tile"]
    assert placed >= 10 and right >= placed - 1 and right >= len(in_view) - 2


def test_a_refitted_lattice_on_a_dark_table_is_not_band_checked_again() -> None:
    """k4242/137: fourteen tiles on a board on a dark table under a lamp, the lattice
    pinned by fourteen points and refitted on the discs. The band's darkness tells
    nothing on a dark table: checked again, the lattice was moved a cell off the board,
    where its band showed the peg holes' row clearer (the dim tiles' ridges as its
    ripple) and read every tile on its neighbour's cell. It is left where it is, every
    tile read on its own cell."""
    frame, truth = rendered(4242 * 1_000_003 + 137, table="dark")
    reading = read_on_the_board(frame, truth)
    assert reading.fit is not None and reading.fit.points < default_config().enough_lattice_points
    placed, right = tiles_read_right(truth, reading)
    assert placed == right >= 12


@pytest.mark.parametrize("still", [88, 113])
def test_a_board_under_a_lamps_glare_on_a_dark_table_is_found_with_the_veil_taken_off(
    still: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """k4242/88, 113: a lamp's glare on a dark table lifts the table and the plastic
    under it alike, and what stands out from the table (or is dark) merges with the
    bright spot: the board is not found. Looked for again in the frame with the veil
    taken off, it is found where it lies, every tile read right. (The searches for the
    regions its edges enclose and on the brightness find /113 too, right: they are left
    out of the control.)"""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    assert truth.conditions["glare"] is not None
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 8 and right == placed
    monkeypatch.setattr("vision.read.lifted_veil", lambda frame_bgr, cfg: frame_bgr)
    control = replace(default_config(), structure_last=False, brightness_last=False)
    assert not BoardReader(control).read(frame).found


@pytest.mark.parametrize("still", [9, 52, 117])
def test_on_a_dark_table_the_tiles_tell_the_cells_a_cell_off_from_the_right_ones(
    still: int,
) -> None:
    """k4242/9, 52, 117: on a dark table the cells are matched in the distance from the
    plastic's colour, where the windows show the table, but where every tile is far
    from the plastic, and its disc too: a tile's cell is flat there and tells nothing,
    and the fit a cell off (the band as dark as the table beside it) was taken. The
    cells are also matched in the brightness, where a tile shows its disc and its
    edges: the right fit's cells look more like cells than those of any fit a cell
    off, and every tile reads right."""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 15 and right == placed
    assert reading.fit is not None
    here = reader().cells_evidence(frame, reading.fit)
    for dx, dy in ((1, 0), (-1, 0), (0.5, 0.866), (-0.5, 0.866), (0.5, -0.866), (-0.5, -0.866)):
        moved = reading.fit.moved(np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]))
        assert reader().cells_evidence(frame, moved) < here


def test_a_read_fits_each_outline_once_per_pyramid_and_keeps_no_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """k4242/7: a small board on a dark table that no search finds, so that every search
    runs (the retries among them, which try again the outlines they refused). Each
    outline is fitted once on each pyramid, the reading is the same as with every fit
    worked out again, and nothing of the frame is kept once the read ends."""
    import vision.read as read_module

    frame, _ = rendered(4242 * 1_000_003 + 7, table="dark")
    fitted: list[tuple[int, bytes]] = []
    real_fit = read_module.fit_board

    def counting(frame_bgr: Any, corners: Any, cfg: Any, pyramid: Any = None) -> Any:
        fitted.append((id(pyramid), np.asarray(corners, dtype=np.float64).tobytes()))
        return real_fit(frame_bgr, corners, cfg, pyramid)

    monkeypatch.setattr(read_module, "fit_board", counting)
    r = BoardReader()
    once = r.read(frame)
    assert len(fitted) > 10 and len(set(fitted)) == len(fitted)
    assert not r._pyramid_memo and not r._fit_memo and not r._dark_memo

    # every fit worked out again: the memo forgets each fit as soon as it is made
    class Forgetful(dict):  # type: ignore[type-arg]
        def __setitem__(self, key: Any, value: Any) -> None:
            pass

    again = BoardReader()
    again._fit_memo = Forgetful()
    twice = again.read(frame)
    assert twice.to_json() == once.to_json()


@pytest.mark.parametrize(
    "still",
    [
        145,  # an empty board (three tiles in a corner) filling the frame, tungsten light
        122,  # a small board, one tile, in dim light beside a lamp's spot
    ],
)
def test_an_empty_board_on_a_table_darker_than_its_plastic_is_found_by_its_brightness(
    still: int,
) -> None:
    """k4242/145, 122: the table is darker than the plastic and of its brown shade; the
    windows show it darker than their frames, by less than the contrast views keep (the
    usual one saturates the whole board above the darkest table, the plastic's colour
    distance floors the windows with the ribs). No outline kind fits a lattice there.
    In the frame's brightness as it is, a window matches as a dark triangle in its
    frame (signless), and the lattice fitted so shows the peg holes on two sides: the
    board is found where it is and its tiles read on their cells. Without that last
    search, no board was found."""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    reading = read_on_the_board(frame, truth)
    assert corner_error_cells(truth, reading) < 0.25
    placed, right = tiles_read_right(truth, reading)
    assert placed >= 1 and right == placed
    unlit = BoardReader(replace(default_config(), brightness_last=False)).read(frame)
    assert not unlit.found


def test_a_bonus_cell_whose_window_shows_with_a_small_numeral_is_told_by_its_own() -> None:
    """k4242/84: on a dark table, an empty bonus cell (the truth's 20) shows its window,
    and its big see-through numeral's strokes pass for a tile's small numeral there: a
    window seen where a numeral seems to show is a dark tile's light centre, so the cell
    was a tile candidate, named no tile and read unknown ("covered?"). The big numeral,
    the best of the six and clear, tells it: every empty bonus cell in view reads
    empty, and every tile in view is read on its cell."""
    frame, truth = rendered(4242 * 1_000_003 + 84, table="dark")
    assert truth.conditions["table"] == "dark"
    hidden = set(truth.covered) | set(truth.outside)
    empty_bonus = sum(
        c["state"] == "empty" and BONUS[c["index"]] > 1 and c["index"] not in hidden
        for c in truth.cells
    )
    board = reader()
    reading = read_on_the_board(frame, truth)
    assert reading.fit is not None
    read_empty = [c.index for c in reading.cells if c.state == "empty" and BONUS[c.index] > 1]
    assert len(read_empty) >= empty_bonus
    # the truth's cell 20 among them, told empty where its window is seen: asked for
    # its big numeral, not empty without it
    cell = reading_index(truth, reading, 20)
    assert 20 not in hidden and BONUS[cell] > 1 and cell in read_empty
    details: dict[str, Any] = {}
    sampled = board._sample_cells(frame, reading.fit, details, bonus=False)
    assert details["windows"][cell] and cell in sampled.doubtful
    assert sampled.readings[cell].state != "empty"
    # every tile in view is read on its cell (a tile is read under the hand too)
    tiles_in_view = sum(c["state"] == "tile" and c["index"] not in hidden for c in truth.cells)
    _, right = tiles_read_right(truth, reading)
    assert right >= tiles_in_view > 0


@pytest.mark.parametrize("still", [15, 62, 163])
def test_an_empty_bonus_cell_on_a_dark_table_is_told_by_its_faint_numeral(
    still: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """k4242/15, 62, 163: on a table as dark as the plastic an empty bonus cell shows
    its big see-through numeral faintly (the table's dark through the plastic's black),
    and no window: it shows neither a tile's colours nor its disc, and read unknown
    ("covered?"), its numeral the best of the six but below the bar a cell that may hold
    a tile must reach. A cell bare of any tile's sign is told by its numeral read
    clearly (the numeral reader's ``corr_good``), a lower bar: every empty bonus cell
    in view reads empty, and every tile is read on its cell."""
    frame, truth = rendered(4242 * 1_000_003 + still, table="dark")
    assert truth.conditions["table"] == "dark"
    hidden = set(truth.covered) | set(truth.outside)
    empty_bonus = sum(
        c["state"] == "empty" and BONUS[c["index"]] > 1 and c["index"] not in hidden
        for c in truth.cells
    )
    # (the bonus cells the board really leaves empty, under a hand too: the bonus cells
    # turn into bonus cells as the board turns)
    actual = Board.from_notation(truth.board, GEO)
    empty_anyway = sum(BONUS[i] > 1 and actual[i] is None for i in range(len(BONUS)))

    def bonus_read_empty(reading: BoardReading) -> int:
        return sum(c.state == "empty" and BONUS[c.index] > 1 for c in reading.cells)

    reading = read_on_the_board(frame, truth)
    placed, right = tiles_read_right(truth, reading)
    assert right == placed
    assert empty_bonus <= bonus_read_empty(reading) <= empty_anyway
    bare_cells_at_the_usual_bar(monkeypatch)
    assert bonus_read_empty(reader().read(frame)) < bonus_read_empty(reading)
