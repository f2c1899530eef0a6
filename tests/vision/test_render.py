"""Tests of the photo renderer and its truth (vision.render)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import SPECTRANGLE36, Board, Colour, Edge, Placement, check_placement
from vision.render import generate
from vision.render.camera import Camera, canvas_for, undistort_pixels
from vision.render.compose import SceneSpec, render, sample_camera, sample_still
from vision.render.palette import TILE_BGR, print_variation
from vision.render.photometric import Photometric
from vision.render.scene import LightDir, glyph_mask, playing_corners
from vision.render.sequence import find_game, random_position
from vision.render.table import TABLE_KINDS, render_table, sample_table
from vision.render.truth import Truth, load_truth

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_images"
GEO = SPECTRANGLE36.geometry


def _neutral(spec: SceneSpec, table: str = "plain_light") -> SceneSpec:
    """The same scene under neutral light, no sensor effects, no hands or clutter."""
    photo = Photometric("studio", (1.0, 1.0, 1.0), 1.0, (0.0, 0.0), 0.0, None, 0.0, None, 0.0, 95)
    return replace(
        spec,
        photo=photo,
        hands=(),
        clutter=(),
        table=sample_table(np.random.default_rng(0), table),
        light=LightDir(225.0, 75.0),
    )


@pytest.fixture(scope="module")
def still() -> tuple[SceneSpec, Truth, np.ndarray]:
    spec = sample_still(11, (640, 360))
    r = render(spec)
    return spec, r.truth, r.frame_bgr


def test_deterministic_for_a_seed() -> None:
    a = render(sample_still(5, (480, 270)))
    b = render(sample_still(5, (480, 270)))
    c = render(sample_still(6, (480, 270)))
    assert a.jpeg == b.jpeg
    assert a.truth == b.truth
    assert a.jpeg != c.jpeg


def test_corners_are_the_distorted_projection(still: tuple[SceneSpec, Truth, np.ndarray]) -> None:
    _, truth, _ = still
    cam = Camera.from_json(dict(truth.camera))
    obj = np.column_stack([playing_corners(), np.zeros(3)])
    img, _ = cv2.projectPoints(obj, cam.rvec, cam.tvec, cam.K, cam.dist)
    assert np.allclose(np.array(truth.corners), img.reshape(-1, 2), atol=0.01)
    # The homography maps the corners to the undistorted positions of the same points.
    h = truth.homography_array()
    q = np.column_stack([playing_corners(), np.ones(3)]) @ h.T
    und = undistort_pixels(np.array(truth.corners), cam.K, cam.dist)
    assert np.allclose(q[:, :2] / q[:, 2:3], und, atol=0.05)


@pytest.mark.parametrize("seed", [3, 4])
def test_distortion_map_agrees_with_projection(seed: int) -> None:
    spec = sample_still(seed, (320, 180), harsh=True)
    canvas = canvas_for(spec.camera)
    if canvas.map_x is None:
        pytest.skip("no distortion drawn")
    pts = np.array([[0.0, 0.0], [2.0, 3.0], [-2.5, 5.0]])
    d = spec.camera.project(pts)
    k = canvas.K
    hc = spec.camera.homography(k)
    u = np.column_stack([pts, np.ones(3)]) @ hc.T
    u = u[:, :2] / u[:, 2:3]
    for (x, y), (ux, uy) in zip(d, u, strict=True):
        xi, yi = round(x), round(y)
        if 0 <= xi < spec.camera.width and 0 <= yi < spec.camera.height:
            assert abs(canvas.map_x[yi, xi] - ux) < 1.0 + abs(x - xi) * 2
            assert abs(canvas.map_y[yi, xi] - uy) < 1.0 + abs(y - yi) * 2


def _hue_of(frame_bgr: np.ndarray, truth: Truth, point: tuple[float, float]) -> np.ndarray:
    cam = Camera.from_json(dict(truth.camera))
    x, y = cam.project(np.array([point]))[0]
    xi, yi = round(x), round(y)
    patch = frame_bgr[yi - 1 : yi + 2, xi - 1 : xi + 2].reshape(-1, 3).astype(np.float32)
    return patch.mean(axis=0)


def test_tile_sectors_show_their_colour_and_windows_the_table() -> None:
    board = Board.empty(GEO)
    for text in ("6:RRR6", "5:BBR5", "12:YYB5", "7:PPP6"):
        board = board.place(Placement.from_notation(text))
    base = sample_still(21, (960, 540), cut=False, hands=0, over_band=False)
    spec = _neutral(replace(base, board=board, loose=(), rings=()), "plain_light")
    r = render(spec)
    expected = {
        Colour.RED: (50, 61, 196),
        Colour.BLUE: (183, 147, 95),
        Colour.YELLOW: (63, 222, 240),
        Colour.PURPLE: (115, 77, 93),
    }
    for p in board.placements:
        cell = GEO[p.index]
        c = np.array(cell.centroid)
        for edge in (Edge.LEFT, Edge.RIGHT, Edge.BASE):
            mid = np.array(cell.edge_midpoint(edge))
            bgr = _hue_of(r.frame_bgr, r.truth, tuple(c + (mid - c) * 0.55))
            want = np.array(expected[p.colour(edge)], np.float32)
            assert np.abs(bgr - want).max() < 60, (p, edge, bgr, want)
    # An empty plain cell's window shows the (light) table; the frame around it is dark.
    cell = GEO[0]
    centre = _hue_of(r.frame_bgr, r.truth, cell.centroid)
    assert centre.mean() > 150
    rim = _hue_of(
        r.frame_bgr,
        r.truth,
        tuple(np.array(cell.vertices[0]) * 0.8 + np.array(cell.centroid) * 0.2),
    )
    assert rim.mean() < 80


def test_another_print_changes_the_tiles_colours_and_nothing_else() -> None:
    """``print_variation`` draws the tiles in another print run's colours (the same scene
    otherwise): each sector shows the varied colour, the table and board do not change."""
    board = Board.empty(GEO)
    for text in ("6:RRR6", "5:BBR5", "12:YYB5", "7:PPP6", "20:GGG6"):
        board = board.place(Placement.from_notation(text))
    base = sample_still(21, (960, 540), cut=False, hands=0, over_band=False)
    spec = _neutral(replace(base, board=board, loose=(), rings=()), "plain_light")
    usual, other = (render(replace(spec, print_variation=a)) for a in (0.0, 1.0))
    assert "print_variation" not in usual.truth.conditions
    assert other.truth.conditions["print_variation"] == 1.0
    assert other.truth.board == usual.truth.board
    varied, _ = print_variation(spec.seed, 1.0)
    moved = []
    for p in board.placements:
        cell = GEO[p.index]
        c = np.array(cell.centroid)
        mid = np.array(cell.edge_midpoint(Edge.BASE))
        at = tuple(c + (mid - c) * 0.55)
        was, now = (_hue_of(r.frame_bgr, r.truth, at) for r in (usual, other))
        colour = p.colour(Edge.BASE)
        # the sector's colour moved the way the print's did (within 45 degrees in BGR)
        want = 255.0 * (np.array(dict(varied)[colour]) - np.array(TILE_BGR[colour]))
        seen = now - was
        if np.linalg.norm(want) > 10.0:
            cos = float(seen @ want) / (np.linalg.norm(seen) * np.linalg.norm(want) + 1e-9)
            assert cos > 0.7, (p, was, now, want)
        moved.append(float(np.abs(seen).max()))
    assert max(moved) > 8.0
    # an empty cell's window (the table) and the board's plastic are as they were
    for point in (GEO[0].centroid, tuple(np.array(GEO[0].vertices[0]) * 0.8 + 0.2 * c)):
        assert (
            np.abs(
                _hue_of(other.frame_bgr, other.truth, point)
                - _hue_of(usual.frame_bgr, usual.truth, point)
            ).max()
            <= 2.0
        )


def test_red_table_shows_red_through_windows() -> None:
    base = sample_still(22, (960, 540), cut=False, hands=0, over_band=False, tiles=0)
    r = render(_neutral(replace(base, loose=()), "plain_red"))
    b, g, rr = _hue_of(r.frame_bgr, r.truth, GEO[0].centroid)
    assert rr > 150 and g < 110 and b < 100


def _assert_legal_position(board: Board) -> None:
    tiles = [p.tile for p in board.placements]
    assert len(set(tiles)) == len(tiles)
    for p in board.placements:
        assert SPECTRANGLE36.has_tile(p.tile)
        for edge in (Edge.LEFT, Edge.RIGHT, Edge.BASE):
            across = GEO.across(p.index, edge)
            if across is None or board[across[0]] is None:
                continue
            other = board[across[0]]
            assert other is not None
            assert p.colour(edge).matches(other.colour(across[1]))
    # Some order of growth is legal: every tile touches an earlier one (connected).
    if board.placements:
        seen = {board.placements[0].index}
        grow = True
        while grow:
            grow = False
            for p in board.placements:
                if p.index in seen:
                    continue
                if any(o is not None and o in seen for _, o in GEO[p.index].neighbours):
                    seen.add(p.index)
                    grow = True
        assert len(seen) == len(board.placements)


@pytest.mark.parametrize("seed", range(8))
def test_random_positions_are_legal(seed: int) -> None:
    _assert_legal_position(random_position(seed, 5 * seed))


def test_truth_board_matches_the_cells(still: tuple[SceneSpec, Truth, np.ndarray]) -> None:
    spec, truth, _ = still
    board = truth.board_state
    assert board == spec.board
    _assert_legal_position(board)
    assert len(truth.cells) == 36
    for entry in truth.cells:
        i = entry["index"]
        if entry["state"] == "unknown":
            assert i in truth.covered or i in truth.outside
        elif entry["state"] == "empty":
            assert board[i] is None
        else:
            p = board[i]
            assert p is not None and entry["value"] == p.value
            assert entry["edges"] == {
                e.value: p.colour(e).value for e in (Edge.LEFT, Edge.RIGHT, Edge.BASE)
            }


def test_hand_covers_cells() -> None:
    spec = sample_still(2, (640, 360), hands=2, cut=False)
    r = render(spec)
    assert r.truth.covered
    assert all(r.truth.cells[i]["state"] == "unknown" for i in r.truth.covered)


def test_cut_off_corner_marks_cells_outside() -> None:
    spec = sample_still(8, (640, 360), cut=True, hands=0)
    r = render(spec)
    corners = np.array(r.truth.corners)
    out = (corners[:, 0] < 0) | (corners[:, 0] > 639) | (corners[:, 1] < 0) | (corners[:, 1] > 359)
    assert out.any()
    assert r.truth.outside


def test_game_replays_legally() -> None:
    game = find_game(3, min_placements=20)
    board = Board.empty(GEO)
    illegal = 0
    for t in game.turns:
        if t.placement is None:
            continue
        verdict = check_placement(board, t.placement, SPECTRANGLE36)
        assert verdict.legal == t.legal
        if t.legal:
            assert verdict.points == t.points
            board = board.place(t.placement)
        else:
            illegal += 1
    assert illegal == 1
    assert board == game.final_board()


def _run(args: list[str]) -> int:
    p = argparse.ArgumentParser()
    generate.configure(p)
    return generate.run(p.parse_args(args))


def test_generate_writes_images_and_truth(tmp_path: Path) -> None:
    assert _run([str(tmp_path), "--stills", "3", "--size", "320x180", "--seed", "4"]) == 0
    stills = tmp_path / "stills"
    jpgs = sorted(stills.glob("*.jpg"))
    jsons = sorted(stills.glob("*.json"))
    assert len(jpgs) == 3 and len(jsons) == 3
    for j in jpgs:
        truth = load_truth(j)
        assert truth.image == j.name
        assert cv2.imread(str(j)).shape == (180, 320, 3)


def test_generate_forces_the_conditions_asked_for(tmp_path: Path) -> None:
    args = ["--stills", "3", "--size", "320x180", "--seed", "6", "--table", "cloth"]
    args += ["--light", "tungsten", "--tiles", "0", "--hands", "0", "--no-cut"]
    assert _run([str(tmp_path), *args]) == 0
    for path in sorted((tmp_path / "stills").glob("*.jpg")):
        truth = load_truth(path)
        cond = truth.conditions
        assert (cond["table"], cond["light"], cond["hands"]) == ("cloth", "tungsten", 0)
        assert cond["cut_off"] is None and truth.board_state.placements == ()
    assert _run([str(tmp_path / "cut"), "--stills", "2", "--size", "320x180", "--cut"]) == 0
    for path in sorted((tmp_path / "cut" / "stills").glob("*.jpg")):
        assert load_truth(path).conditions["cut_off"] is not None


#: A bold sans TrueType font other than the reader's own templates' (.ci/run installs it).
OTHER_FONT = Path("/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf")


@pytest.mark.skipif(not OTHER_FONT.is_file(), reason="no Liberation Sans Bold (fonts-liberation)")
def test_numerals_print_in_another_font_when_asked_for(tmp_path: Path) -> None:
    """``numeral_font`` prints the tiles' numerals from a TrueType file: the same digit
    shows another shape, the rest of the tile is as it was."""
    usual, other = (glyph_mask("6", 60, 90, 0.95, f) for f in ("", str(OTHER_FONT)))
    assert usual.shape != other.shape or np.abs(usual - other).mean() > 0.05
    assert other.max() > 0.9  # drawn, upright and centred: ink in the middle rows
    assert other[other.shape[0] // 2].max() > 0.9
    board = Board.empty(GEO).place(Placement.from_notation("12:YYB5"))
    base = sample_still(21, (960, 540), cut=False, hands=0, over_band=False)
    spec = _neutral(replace(base, board=board, loose=(), rings=()), "plain_light")
    a, b = (render(replace(spec, numeral_font=f)) for f in ("", str(OTHER_FONT)))
    assert b.truth.conditions["numeral_font"] == OTHER_FONT.stem
    cam = Camera.from_json(dict(a.truth.camera))
    disc = cam.project(np.array([GEO[12].centroid]))[0]
    side = cam.project(np.array([GEO[12].edge_midpoint(Edge.LEFT)]))[0]
    r = float(np.linalg.norm(side - disc))
    ys, xs = np.mgrid[: a.frame_bgr.shape[0], : a.frame_bgr.shape[1]]
    near = np.hypot(xs - disc[0], ys - disc[1])
    diff = np.abs(a.frame_bgr.astype(int) - b.frame_bgr.astype(int)).max(axis=2)
    # the numeral's strokes moved; its sectors did not (but for JPEG's ringing)
    numeral, around = diff[near < 0.35 * r], diff[(near > 0.7 * r) & (near < 2.0 * r)]
    assert numeral.max() > 25 and numeral.mean() > 4.0 * around.mean() + 1.0
    assert np.percentile(around, 99) <= 4
    assert _run([str(tmp_path), "--stills", "1", "--numeral-font", str(tmp_path)]) == 2


def test_dark_creases_darken_the_lines_between_the_sectors_only() -> None:
    """``dark_creases`` draws the creases from a tile's centre to its corners dark: the
    middle of a crease is darker than with light creases, a sector's middle is not."""
    board = Board.empty(GEO).place(Placement.from_notation("12:YYY6"))
    base = sample_still(21, (960, 540), cut=False, hands=0, over_band=False)
    spec = _neutral(replace(base, board=board, loose=(), rings=()), "plain_light")
    light, dark = (render(replace(spec, dark_creases=d)) for d in (False, True))
    assert "dark_creases" not in light.truth.conditions and dark.truth.conditions["dark_creases"]
    cell = GEO[12]
    c, corner = np.array(cell.centroid), np.array(cell.vertices[0])
    on_crease = tuple(c + (corner - c) * 0.6)
    mid = np.array(cell.edge_midpoint(Edge.BASE))
    in_sector = tuple(c + (mid - c) * 0.6)
    was, now = (_hue_of(r.frame_bgr, r.truth, on_crease) for r in (light, dark))
    assert now.mean() < was.mean() - 40.0
    was, now = (_hue_of(r.frame_bgr, r.truth, in_sector) for r in (light, dark))
    assert np.abs(now - was).max() <= 3.0


def test_generate_prints_the_tiles_in_other_colours_when_asked_for(tmp_path: Path) -> None:
    args = ["--stills", "1", "--size", "320x180", "--seed", "6", "--tiles", "8"]
    assert _run([str(tmp_path / "bad"), *args, "--print-variation", "1.5"]) == 2
    assert not (tmp_path / "bad" / "stills").exists()
    assert _run([str(tmp_path), *args, "--print-variation", "0.5"]) == 0
    (path,) = sorted((tmp_path / "stills").glob("*.jpg"))
    assert load_truth(path).conditions["print_variation"] == 0.5


def test_a_checked_tablecloth_shows_white_and_dark_squares_when_asked_for() -> None:
    """A gingham tablecloth: white squares, the dark colour where its bands cross and
    half-tone where one passes, about a tile's size; never drawn at random (every
    seed's still stays as it was)."""
    spec = sample_table(np.random.default_rng(3), "checked")
    img = render_table(spec, 320, 240, 40.0)
    value = img.max(axis=2)
    assert np.percentile(value, 95) > 0.85  # white squares
    dark = float(np.asarray(spec.colour).max())
    assert np.percentile(value, 5) < dark * 1.1 + 0.02  # the full colour where bands cross
    # three tones: white, half-tone and the colour, each a good share of the cloth
    white = value > 0.8
    full = value < dark + 0.1
    assert 0.15 < white.mean() < 0.4 and 0.15 < full.mean() < 0.4
    assert "checked" not in TABLE_KINDS
    rng = np.random.default_rng(0)
    assert all(sample_table(rng).kind != "checked" for _ in range(200))


def test_a_dark_table_is_about_as_dark_as_the_board_when_asked_for() -> None:
    """A black, charcoal or dark-stained table top: every part of it about as dark as the
    board's plastic (0.13 at most) or darker; never drawn at random."""
    rng = np.random.default_rng(5)
    for _ in range(8):
        spec = sample_table(rng, "dark")
        value = render_table(spec, 160, 120, 40.0).max(axis=2)
        assert np.percentile(value, 95) < 0.2 and value.min() >= 0.0
    assert "dark" not in TABLE_KINDS
    rng = np.random.default_rng(0)
    assert all(sample_table(rng).kind != "dark" for _ in range(200))


def test_generate_refuses_a_tile_count_past_the_set(tmp_path: Path) -> None:
    assert _run([str(tmp_path), "--stills", "1", "--tiles", "37"]) == 2
    assert not (tmp_path / "stills").exists()


def test_generate_refuses_sample_images(tmp_path: Path) -> None:
    assert _run([str(SAMPLES / "stills"), "--stills", "1"]) == 2


samples_present = pytest.mark.skipif(
    not (SAMPLES / "game" / "record.json").exists(), reason="sample_images not generated"
)


@samples_present
def test_sample_stills_load() -> None:
    stills = sorted((SAMPLES / "stills").glob("*.jpg"))
    assert len(stills) >= 12
    for path in stills:
        truth = load_truth(path)
        _assert_legal_position(truth.board_state)
        img = cv2.imread(str(path))
        assert img.shape == (720, 1280, 3)


@samples_present
def test_sample_game_is_consistent_with_its_record() -> None:
    game_dir = SAMPLES / "game"
    record = json.loads((game_dir / "record.json").read_text())
    events = json.loads((game_dir / "events.json").read_text())
    assert record["variant"] == "spectrangle36" and record["players"] == ["Ann", "Bob"]
    frames = sorted(game_dir.glob("[0-9][0-9][0-9][0-9].jpg"))
    assert len(frames) == events["frames"]
    # Replay the record: illegal moves are refused, the same player plays again.
    board = Board.empty(GEO)
    states = [board]
    illegal = 0
    for move in record["moves"]:
        if move["type"] != "place":
            continue
        p = Placement.from_edges(move["index"], move["edges"], move["value"])
        if check_placement(board, p, SPECTRANGLE36).legal:
            board = board.place(p)
            states.append(board)
        else:
            illegal += 1
    assert illegal >= 1
    assert len(states) >= 26
    # Every frame's board is a state of the game, or one with the illegal tile on it.
    known = {s.notation() for s in states}
    seen_final = False
    for path in frames:
        truth = load_truth(path)
        b = truth.board_state
        if truth.illegal:
            b = b.remove(truth.illegal[0])
        assert b.notation() in known, path.name
        seen_final |= b == board
    assert seen_final
    # Events name real frames, in order.
    names = [e["frame"] for e in events["events"]]
    assert names == sorted(names)
    assert {e["type"] for e in events["events"]} == {"placement", "removal"}


def test_a_portrait_photo_is_taken_with_the_same_lens_as_a_landscape_one() -> None:
    """A phone held upright: the same field of view over the frame's long side, so the
    lens's barrel bending stays monotonic out to the frame's corners (spanned over the
    short side, it folded back at a portrait frame's top and bottom)."""
    for seed in range(12):
        wide, _ = sample_camera(np.random.default_rng(seed), (1280, 720), harsh=True)
        tall, _ = sample_camera(np.random.default_rng(seed), (720, 1280), harsh=True)
        assert tall.K[0, 0] == pytest.approx(wide.K[0, 0])
        k1, k2 = tall.dist[:2]
        corner = np.hypot(tall.K[0, 2], tall.K[1, 2]) / tall.K[0, 0]  # normalised radius
        r = np.linspace(0.0, corner, 50)
        assert (1 + 3 * k1 * r**2 + 5 * k2 * r**4 > 0).all()  # d(r (1 + k1 r^2 + k2 r^4))/dr


@pytest.mark.parametrize("focal", [500.0, 700.0])
def test_a_strong_barrel_lens_keeps_the_canvas_a_sane_size(focal: float) -> None:
    """The lens's inverse diverges far out in the corners; the canvas stays bounded
    (it once asked for a 300 GB image on a harsh still)."""
    cam = Camera(
        1280,
        720,
        np.array([[focal, 0.0, 639.5], [0.0, focal, 359.5], [0.0, 0.0, 1.0]]),
        np.zeros(3),
        np.array([0.0, 0.0, 10.0]),
        np.array([-0.2438, -0.0059, 0.0, 0.0, 0.0]),
    )
    canvas = canvas_for(cam)
    assert canvas.width <= 3 * 1280 + 8 and canvas.height <= 3 * 720 + 8
    assert canvas.map_x is not None and np.isfinite(canvas.map_x).all()


def _disc_centre(frame_bgr: np.ndarray, near: np.ndarray, radius: float) -> np.ndarray:
    """The centroid (x, y) of the navy disc's pixels within ``radius`` px of ``near``."""
    ys, xs = np.mgrid[: frame_bgr.shape[0], : frame_bgr.shape[1]]
    b, g, r = (frame_bgr[..., k].astype(np.int32) for k in range(3))
    navy = (b > r + 40) & (b > g + 25) & (b < 170)
    close = np.hypot(xs - near[0], ys - near[1]) < radius
    sel = navy & close
    return np.array([xs[sel].mean(), ys[sel].mean()])


def test_raised_tiles_show_the_parallax_of_their_height() -> None:
    """A tile is a slab: seen at a tilt its top (and disc) lies where the camera sees the
    plane ``tile_height`` above the board, not on its cell (the truth stays the board's)."""
    board = Board.empty(GEO).place(Placement.from_notation("12:YYB5"))
    base = sample_still(21, (960, 540), cut=False, hands=0, over_band=False)
    spec = _neutral(replace(base, board=board, loose=(), rings=()), "plain_light")
    cam = spec.camera
    centroid = np.array(GEO[12].centroid)
    flat, raised = (render(replace(spec, tile_height=h)) for h in (0.0, 0.12))
    assert flat.truth.homography == raised.truth.homography
    assert "tile_height" not in flat.truth.conditions
    assert raised.truth.conditions["tile_height"] == 0.12
    # where the camera sees the disc's centre: on the board, and 0.12 units above it
    # (the world's z points into the table)
    img, _ = cv2.projectPoints(
        np.array([[*centroid, 0.0], [*centroid, -0.12]]), cam.rvec, cam.tvec, cam.K, cam.dist
    )
    on_board, above = img.reshape(2, 2)
    assert np.linalg.norm(above - on_board) > 4.0  # the scene is tilted enough to tell
    radius = 0.5 * float(np.linalg.norm(above - on_board)) + 6.0
    seen_flat = _disc_centre(flat.frame_bgr, on_board, radius)
    seen_raised = _disc_centre(raised.frame_bgr, above, radius)
    assert np.linalg.norm(seen_flat - on_board) < 1.5
    assert np.linalg.norm(seen_raised - above) < 1.5
    # the homography of the raised plane agrees with the projection
    top = cam.homography_at(0.12)
    q = top @ np.array([*centroid, 1.0])
    undistorted = cv2.undistortPoints(above.reshape(1, 1, 2), cam.K, cam.dist, P=cam.K)
    assert np.linalg.norm(q[:2] / q[2] - undistorted.ravel()) < 0.01
    assert np.allclose(cam.homography_at(0.0), cam.homography())


def test_a_filmed_game_is_laid_on_the_table_asked_for() -> None:
    """``generate --games N --table dark`` films the games on a dark table; without it
    they stay on wood, drawn from the same seed as before."""
    from vision.render.film import game_scene

    wood = game_scene(9999)
    assert wood.table.kind == "wood"
    assert game_scene(9999, table="wood") == wood
    dark = game_scene(9999, table="dark")
    assert dark.table.kind == "dark" and dark.camera == wood.camera
