"""Calibration: the profile file, the pooled fit, colours under another lamp, staleness."""

from __future__ import annotations

import json
import logging
import math
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from engine import SPECTRANGLE36, Board, Colour, Placement
from spectrangle.cli import main
from vision.calibrate_cli import parse_corners
from vision.calibration import (
    BAD,
    COLOURS_CLOSE,
    GLARE,
    GOOD,
    TOO_DARK,
    TOO_SMALL,
    TOO_STEEP,
    UNCLEAR,
    USABLE,
    Calibration,
    Profile,
    calibrate,
    check_fit,
    fit_for,
    fit_from_corners,
    judge,
    lab_to_linear_rgb,
    lattice_vertices,
    learn,
    lens_from_chessboard,
    load_profile,
    load_profile_or_none,
    lock_camera,
    measure,
    reader_for,
    recheck,
    refresh,
    save_profile,
    teach,
    tilt_deg,
)
from vision.colour import linear_rgb_to_lab, prototype_lab
from vision.errors import BoardNotFoundError, CalibrationError
from vision.model import CENTRE, PLAY_CORNERS, VERTICES, outer_corners, project
from vision.read import BoardReader, BoardReading, load_image
from vision.rectify import BoardFit, Lens

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "sample_images" / "game"
STILLS = ROOT / "sample_images" / "stills"
CALIBRATION_FRAMES = (0, 56, 112, 168, 216)
EDGES = ("left", "right", "base")
LATTICE = np.unique(VERTICES.reshape(-1, 2).round(9), axis=0)


def frame(i: int) -> np.ndarray:
    return load_image(str(GAME / f"{i:04d}.jpg"))


def truth(i: int) -> dict[str, Any]:
    return json.loads((GAME / f"{i:04d}.json").read_text())


@cache
def calibration() -> Calibration:
    return calibrate([frame(i) for i in CALIBRATION_FRAMES])


def profile() -> Profile:
    return calibration().profile


def truth_pixels(t: dict[str, Any], board_pts: np.ndarray) -> np.ndarray:
    """Board points -> distorted frame pixels, by the renderer's camera (OpenCV model)."""
    und = project(np.array(t["homography"]), board_pts)
    cam = t["camera"]
    k = np.array(cam["K"])
    k1, k2 = cam["dist"][:2]
    f = np.array([k[0, 0], k[1, 1]])
    xn = (und - k[:2, 2]) / f
    r2 = (xn**2).sum(axis=1, keepdims=True)
    return k[:2, 2] + xn * (1 + k1 * r2 + k2 * r2**2) * f


def turned(points: np.ndarray, turns: int) -> np.ndarray:
    a = 2 * math.pi / 3 * turns
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return (points - CENTRE) @ rot.T + CENTRE


def lattice_error(fit: BoardFit, t: dict[str, Any]) -> tuple[float, float]:
    """Mean and largest distance (px) of the 28 lattice vertices from the truth."""
    want = truth_pixels(t, LATTICE)
    errs = [np.linalg.norm(fit.to_image(turned(LATTICE, k)) - want, axis=1) for k in range(3)]
    best = min(errs, key=lambda e: float(e.mean()))
    return float(best.mean()), float(best.max())


def same_up_to_turn(reading: BoardReading, t: dict[str, Any]) -> bool:
    want = Board.from_notation(t["board"], SPECTRANGLE36.geometry)
    got = reading.board()
    for _ in range(3):
        if got == want:
            return True
        got = got.rotated()
    return False


def lamp(frame_bgr: np.ndarray, seed: int) -> np.ndarray:
    """A warm, dim lamp with a gradient across the frame, and sensor noise (seeded)."""
    rng = np.random.default_rng(seed)
    gains = np.array([rng.uniform(0.3, 0.45), rng.uniform(0.8, 0.9), 1.35])  # B, G, R
    f = frame_bgr.astype(np.float64) * gains * rng.uniform(0.35, 0.45)
    x = np.linspace(-1.0, 1.0, f.shape[1])[None, :, None]
    f = f * (1.0 + 0.3 * x) + rng.normal(0.0, 2.0, f.shape)
    return np.clip(f, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------- the fit


def test_calibration_recovers_the_board_fit_within_a_pixel() -> None:
    cal = calibration()
    assert cal.frames_used == len(CALIBRATION_FRAMES)
    for i in (0, 100, 200):  # the camera is fixed: one fit for every frame
        mean, worst = lattice_error(cal.profile.fit, truth(i))
        assert mean < 1.0, (i, mean)
        assert worst < 1.8, (i, worst)
    # A single frame's own fit is worse: pooling is what makes it exact.
    single = BoardReader().locate(frame(50))
    assert lattice_error(single, truth(50))[0] > lattice_error(cal.profile.fit, truth(50))[0]
    # The lens: barrel distortion found (the renderer's k1 = -0.08, as a Lens k about -0.04).
    lens = cal.profile.fit.lens
    assert lens is not None and -0.09 < lens.k < -0.02


def test_verdict_of_a_good_setup_and_tilt_from_the_homography() -> None:
    cal = calibration()
    assert cal.verdict.level == GOOD and cal.verdict.words == GOOD
    assert cal.verdict.measures["px_per_unit"] == pytest.approx(75, abs=3)
    assert cal.verdict.measures["tilt_deg"] == pytest.approx(
        truth(0)["conditions"]["tilt_deg"], abs=2
    )
    for name in ("01", "04", "06"):
        t = json.loads((STILLS / f"{name}.json").read_text())
        est = tilt_deg(np.array(t["homography"]), (t["camera"]["height"], t["camera"]["width"]))
        assert est == pytest.approx(t["conditions"]["tilt_deg"], abs=2.5), name
    # Every colour of the set was learned from the tiles on the board.
    assert all(n >= 3 for n in profile().samples.values())


def test_manual_corners_are_refined_onto_the_lattice() -> None:
    t = truth(120)
    rng = np.random.default_rng(11)
    clicked = np.array(t["corners"]) + rng.uniform(-5, 5, (3, 2))
    fit = fit_from_corners(frame(120), clicked[[2, 0, 1]])  # any click order
    assert fit.points >= 20
    mean, _ = lattice_error(fit, t)
    assert mean < 1.5
    result = calibrate([frame(120)], corners=clicked)
    assert lattice_error(result.profile.fit, t)[0] < 1.2


@pytest.mark.parametrize(
    "corners", [[[0, 0], [1, 1]], [[10, 10], [20, 20], [30, 30]], [[0, 0], [np.nan, 1], [5, 9]]]
)
def test_manual_corners_that_are_not_a_triangle_are_refused(corners: list[Any]) -> None:
    with pytest.raises(CalibrationError):
        fit_from_corners(frame(0), corners)


@pytest.mark.parametrize("order", [[0, 1, 2], [2, 1, 0], [1, 2, 0]])
def test_a_dragged_lattice_point_sets_the_perspective(order: list[int]) -> None:
    """Three corners off by up to 25 px and the board's centre dragged onto its place: the
    homography goes through the four points, and the lattice is refined from there."""
    t = truth(120)
    corners = truth_pixels(t, PLAY_CORNERS)
    clicked = corners + np.random.default_rng(5).uniform(-25, 25, (3, 2))
    centre = truth_pixels(t, CENTRE[None])[0]
    fit = fit_from_corners(frame(120), clicked[order], points=[(CENTRE, centre)])
    assert fit.points >= 20 and lattice_error(fit, t)[0] < 1.6
    result = calibrate([frame(120)], corners=clicked[order], points=[(CENTRE, centre)])
    mean, worst = lattice_error(result.profile.fit, t)
    assert mean < 1.0 and worst < 2.5


def test_any_lattice_vertex_can_be_dragged() -> None:
    """Corners in the order of a fit's corners (as the page sends them), one cell corner."""
    t = truth(120)
    corners = truth_pixels(t, PLAY_CORNERS)
    vertices = lattice_vertices()
    assert len(vertices) == 29  # 28 cell corners and the centre
    vertex = vertices[7]
    at = truth_pixels(t, vertex[None])[0]
    clicked = corners + np.array([[9.0, -7.0], [-8.0, 6.0], [7.0, 9.0]])
    fit = fit_from_corners(frame(120), clicked, points=[(vertex, at)])
    assert fit.points >= 20 and lattice_error(fit, t)[0] < 1.6
    # A lattice that cannot be matched (a blank frame): the four points' own homography.
    blank = np.full_like(frame(120), 128)
    kept = fit_from_corners(blank, clicked, points=[(vertex, at)])
    assert kept.points == 0 and np.allclose(kept.to_image(vertex[None])[0], at, atol=1e-3)
    with pytest.raises(CalibrationError, match="not a lattice vertex"):
        fit_from_corners(frame(120), clicked, points=[((0.3, 0.7), at)])


def test_recheck_a_fit_on_a_new_frame() -> None:
    prof = profile()
    config = BoardReader().config
    same = recheck(frame(200), prof.fit, config, prof.lattice_score, prof.prototype_arrays())
    assert same.fresh and same.verdict.level == GOOD and same.score > 12
    moved = recheck(_shifted(frame(200), 35, -20), prof.fit, config, prof.lattice_score)
    assert moved.fresh is False and moved.verdict.level == BAD
    assert "moved" in moved.verdict.words
    assert recheck(frame(200), prof.fit, config).fresh is None


def test_recheck_counts_the_cells_that_do_not_read() -> None:
    """With a reader, the live re-check reads the cells under the fit: a clear board reads
    them all; a sheet lying over half the board leaves them unclear, and says so."""
    prof = profile()
    reader = reader_for(prof, BoardReader())
    clear = recheck(frame(200), prof.fit, reader.config, reader=reader)
    assert clear.verdict.measures["unclear"] == 0.0 and UNCLEAR not in clear.verdict.problems
    covered = frame(200)
    corners = prof.fit.corners
    sheet = np.vstack([corners[0], corners[1], 0.5 * (corners[1] + corners[2])])
    cv2.fillPoly(covered, [sheet.round().astype(np.int32)], (205, 215, 220))
    seen = recheck(covered, prof.fit, reader.config, reader=reader)
    assert seen.verdict.measures["unclear"] > 0.3
    assert UNCLEAR in seen.verdict.problems and seen.verdict.level != GOOD
    assert "unclear" not in recheck(covered, prof.fit, reader.config).verdict.measures


# ----------------------------------------------------------------------------- colours


def test_teaching_colours_from_the_tiles_shown() -> None:
    """Showing tiles on request: few tiles name the colours still missing; more teach all,
    and a profile taught under a lamp reads under it."""
    blank = calibrate([frame(0)]).profile  # an empty board: the default colours
    assert all(n == 0 for n in blank.samples.values())
    few = teach(blank, [frame(20)])  # three tiles: yellow and green, one red edge
    assert Colour.PURPLE in few.missing and Colour.WHITE in few.missing
    assert Colour.YELLOW not in few.missing and Colour.GREEN not in few.missing
    assert "seen on 1 tile edge" in few.message(Colour.RED)
    for c in few.missing:
        assert "on the board" in few.message(c) and c.value in few.message(c)
    doc = few.to_json()
    assert [c["colour"] for c in doc["colours"]] == [c.value for c in Colour]
    more = teach(blank, [frame(216)], previous=few)
    assert more.missing == () and all(more.count(c) >= few.count(c) for c in Colour)
    assert all(more.profile.samples[c] >= 3 for c in Colour)
    assert "learned from" in more.message(Colour.RED)
    dark = lamp(frame(216), 4)
    under = teach(blank, [dark])
    assert under.missing == ()
    reading = reader_for(under.profile).read(lamp(frame(176), 5), blank.fit)
    assert reading.found and same_up_to_turn(reading, truth(176)), reading.text()


def test_a_profile_learned_under_one_light_reads_after_a_change_of_lamp() -> None:
    prof = profile()
    reader = reader_for(prof)
    assert reader.prototypes[Colour.RED] == pytest.approx(np.array(prof.prototypes[Colour.RED]))
    for i, seed in ((176, 1), (216, 2)):
        dark = lamp(frame(i), seed)
        fit = fit_for(prof, dark, reader)
        assert fit is prof.fit  # the lamp does not make the profile stale
        reading = reader.read(dark, fit)
        assert reading.found and same_up_to_turn(reading, truth(i)), reading.text()
    # The running update follows the new lamp: prototypes move toward what it shows.
    dark = lamp(frame(216), 3)
    after = learn(prof, dark, reader)
    moved = [c for c in Colour if after.prototypes[c] != prof.prototypes[c]]
    assert len(moved) == 6
    assert all(after.samples[c] > prof.samples[c] for c in Colour)
    step = max(
        float(np.linalg.norm(np.subtract(after.prototypes[c], prof.prototypes[c]))) for c in Colour
    )
    assert step < 10.0  # one frame nudges (learn_rate), it does not replace


def test_learning_from_accepted_placements_uses_their_colours() -> None:
    cells = [c for c in truth(216)["cells"] if c["state"] == "tile"][:3]
    placements = [
        Placement(
            c["index"], *(Colour(c["edges"][e]) for e in ("left", "right", "base")), c["value"]
        )
        for c in cells
    ]
    reader = BoardReader()
    fresh = Profile(
        profile().fit,
        profile().frame_size,
        dict(profile().prototypes),
        dict.fromkeys(Colour, 0),
        1.0,
    )
    after = learn(fresh, frame(216), reader, placements=placements)
    seen = {c for p in placements for c in (p.left, p.right, p.base)}
    assert {c for c in Colour if after.samples[c] > 0} == seen


def test_lab_round_trip() -> None:
    for lab in prototype_lab().values():
        assert linear_rgb_to_lab(lab_to_linear_rgb(lab)) == pytest.approx(lab, abs=1e-6)


# ----------------------------------------------------------------------------- the file


def test_profile_round_trip(tmp_path: Path) -> None:
    path = save_profile(profile(), tmp_path / "calibration" / "profile.json")
    back = load_profile(path)
    assert np.allclose(back.fit.homography, profile().fit.homography)
    assert back.fit.lens == profile().fit.lens
    assert set(back.prototypes) == set(profile().prototypes)
    assert all(
        np.allclose(back.prototypes[c], profile().prototypes[c], atol=1e-3)
        for c in profile().prototypes
    )
    assert back.frame_size == (960, 540)
    assert back.verdict is not None and back.verdict.level == GOOD
    assert not list(path.parent.glob(".profile-*"))  # no temporary left behind


def _doc() -> dict[str, Any]:
    return profile().to_json()


def _broken(change: str) -> Any:
    doc = _doc()
    if change == "kind":
        doc["kind"] = "chess-calibration"
    elif change == "version":
        doc["version"] = 99
    elif change == "homography":
        doc["fit"]["homography"] = [[1, 0], [0, 1]]
    elif change == "singular":
        doc["fit"]["homography"] = [[0, 0, 0]] * 3
    elif change == "colour":
        doc["colours"]["orange"] = {"lab": [1, 2, 3], "samples": 1}
    elif change == "lab":
        doc["colours"]["red"]["lab"] = [1, "x", 3]
    elif change == "no-fit":
        del doc["fit"]
    elif change == "list":
        doc = [1, 2, 3]
    return doc


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("kind", "not a spectrangle calibration profile"),
        ("version", "version 99 is not supported"),
        ("homography", "corrupt"),
        ("singular", "corrupt"),
        ("colour", "corrupt"),
        ("lab", "corrupt"),
        ("no-fit", "missing 'fit'"),
        ("list", "not a calibration profile"),
    ],
)
def test_corrupt_or_foreign_profiles_give_a_clear_error(
    tmp_path: Path, change: str, words: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_broken(change)))
    with pytest.raises(CalibrationError, match=words) as info:
        load_profile(path)
    assert str(path) in str(info.value) and info.value.value == str(path)
    with caplog.at_level(logging.WARNING, logger="vision.calibration"):
        assert load_profile_or_none(path) is None  # falls back to no calibration
    assert "without calibration" in caplog.text
    assert reader_for(None).prototypes[Colour.RED] == pytest.approx(prototype_lab()[Colour.RED])


@pytest.mark.parametrize("content", [b"", b"{not json", b"\xff\xfe\x00garbage"])
def test_unreadable_profiles(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(content)
    with pytest.raises(CalibrationError, match=r"p\.json"):
        load_profile(path)
    with pytest.raises(CalibrationError, match="cannot read"):
        load_profile(tmp_path / "missing.json")


# ----------------------------------------------------------------------------- staleness


def _shifted(frame_bgr: np.ndarray, dx: float, dy: float) -> np.ndarray:
    m = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]])
    h, w = frame_bgr.shape[:2]
    return cv2.warpAffine(frame_bgr, m, (w, h), borderMode=cv2.BORDER_REPLICATE)


def test_a_moved_board_makes_the_profile_stale_and_is_refitted() -> None:
    prof, reader = profile(), BoardReader()
    here = frame(120)
    assert fit_for(prof, here, reader) is prof.fit
    moved = _shifted(here, 35, -20)
    check = check_fit(prof, moved, reader)
    assert not check.fresh and "moved" in check.reason
    assert check.moved_px is not None and 30 < check.moved_px < 50
    assert fit_for(prof, moved, reader) is None
    new, _ = refresh(prof, moved, reader)
    assert new.fit is not prof.fit
    corners = np.array(truth(120)["corners"]) + np.array([35.0, -20.0])
    d = min(np.abs(np.roll(new.fit.corners, -k, axis=0) - corners).max() for k in range(3))
    assert d < 3.0
    assert new.prototypes == prof.prototypes  # colours kept
    assert fit_for(new, moved, reader) is new.fit
    # Another camera resolution: stale at once.
    small = cv2.resize(here, (640, 360))
    assert "640x360" in check_fit(prof, small, reader).reason


def test_a_hand_over_the_board_does_not_make_it_stale() -> None:
    prof, reader = profile(), BoardReader()
    covered = frame(120).copy()
    x, y = (int(v) for v in np.array(truth(120)["corners"]).mean(axis=0))
    cv2.ellipse(covered, (x + 40, y + 30), (70, 45), 30, 0, 360, (120, 150, 200), -1)
    assert fit_for(prof, covered, reader) is prof.fit


# ----------------------------------------------------------------------------- verdict


def test_judge_names_each_problem() -> None:
    good = {
        "px_per_unit": 70.0,
        "tilt_deg": 20.0,
        "white": 200.0,
        "span": 160.0,
        "glare": 0.0,
        "separation": 25.0,
        "residual_px": 0.8,
    }
    assert judge(good).words == GOOD
    cases = [
        ("px_per_unit", 30.0, TOO_SMALL, USABLE),
        ("px_per_unit", 15.0, TOO_SMALL, BAD),
        ("tilt_deg", 48.0, TOO_STEEP, USABLE),
        ("tilt_deg", 65.0, TOO_STEEP, BAD),
        ("white", 40.0, TOO_DARK, BAD),
        ("glare", 0.03, GLARE, USABLE),
        ("separation", 5.0, COLOURS_CLOSE, BAD),
    ]
    for name, value, words, level in cases:
        verdict = judge({**good, name: value})
        assert verdict.problems == (words,) and verdict.level == level, (name, verdict)
    both = judge({**good, "tilt_deg": 50.0, "glare": 0.2})
    assert both.level == BAD and both.words == f"{TOO_STEEP}; {GLARE}"


def test_measures_see_darkness_glare_and_a_small_board() -> None:
    prof, cfg = profile(), BoardReader().config
    base = measure(frame(120), prof.fit, cfg, 250)
    assert base["glare"] < 0.005 and base["white"] > 150
    dim = measure((frame(120) * 0.2).astype(np.uint8), prof.fit, cfg, 250)
    assert TOO_DARK in judge(dim).problems
    glary = frame(120).copy()
    c = np.array(truth(120)["corners"]).mean(axis=0).astype(int)
    cv2.circle(glary, (int(c[0]), int(c[1])), 60, (255, 255, 255), -1)
    assert GLARE in judge(measure(glary, prof.fit, cfg, 250)).problems
    # The same board seen from three times as far: too small.
    small = cv2.resize(frame(120), (320, 180), interpolation=cv2.INTER_AREA)
    canvas = np.full((540, 960, 3), 90, np.uint8)
    canvas[180:360, 320:640] = small
    verdict = calibrate([canvas]).verdict
    assert TOO_SMALL in verdict.problems and verdict.level == BAD


# ----------------------------------------------------------------------------- lens, camera


def test_lens_from_a_printed_chessboard() -> None:
    """Synthetic photos of a 9x6 chessboard through a lens with known barrel distortion."""
    w, h, f, k1 = 960, 540, 800.0, -0.12
    square = 52
    board = np.kron((np.indices((7, 10)).sum(axis=0) % 2) * 255, np.ones((square, square)))
    board = np.pad(board.astype(np.uint8), square // 2, constant_values=255)
    board = cv2.cvtColor(board, cv2.COLOR_GRAY2BGR)
    bh, bw = board.shape[:2]
    kmat = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
    # Each distorted pixel shows the undistorted image at the point the lens maps it from.
    grid = np.stack(np.meshgrid(np.arange(w), np.arange(h)), axis=-1).reshape(-1, 1, 2)
    dist = np.array([k1, 0.0, 0.0, 0.0])
    src = cv2.undistortPoints(grid.astype(np.float32), kmat, dist, P=kmat).reshape(h, w, 2)
    s = 1.0 / 600
    board_to_plane = np.array([[s, 0, -s * bw / 2], [0, s, -s * bh / 2], [0, 0, 1]])
    frames = []
    for rx, ry in ((0.3, 0.0), (-0.3, 0.1), (0.0, 0.35), (0.2, -0.3)):
        r, _ = cv2.Rodrigues(np.array([rx, ry, 0.0]))
        pose = np.column_stack([r[:, 0], r[:, 1], [0.0, 0.0, 1.45]])
        undist = cv2.warpPerspective(
            board, kmat @ pose @ board_to_plane, (w, h), borderValue=(255, 255, 255)
        )
        frames.append(cv2.remap(undist, src[..., 0], src[..., 1], cv2.INTER_LINEAR))
    lens = lens_from_chessboard(frames)
    want = k1 * (math.hypot(w, h) / 2 / f) ** 2  # the Lens's k is per half-diagonal squared
    assert lens.k == pytest.approx(want, abs=0.004)
    with pytest.raises(CalibrationError, match="no chessboard"):
        lens_from_chessboard([frame(0)])


class FakeCapture:
    """A capture whose driver accepts some settings and ignores others."""

    def __init__(self, accepts: set[int]) -> None:
        self.accepts = accepts
        self.values: dict[int, float] = {
            cv2.CAP_PROP_AUTO_EXPOSURE: 3.0,
            cv2.CAP_PROP_EXPOSURE: 156.0,
            cv2.CAP_PROP_AUTO_WB: 1.0,
            cv2.CAP_PROP_WB_TEMPERATURE: 4600.0,
        }

    def get(self, prop: int) -> float:
        return self.values.get(prop, 0.0)

    def set(self, prop: int, value: float) -> bool:
        if prop in self.accepts:
            self.values[prop] = value
            return True
        return False


def test_lock_camera_reports_what_the_driver_refused(caplog: pytest.LogCaptureFixture) -> None:
    cap = FakeCapture({cv2.CAP_PROP_AUTO_EXPOSURE, cv2.CAP_PROP_EXPOSURE})
    with caplog.at_level(logging.WARNING):
        locked, refused = lock_camera(cap)
    assert locked == ("exposure",) and refused == ("white balance",)
    assert cap.values[cv2.CAP_PROP_AUTO_EXPOSURE] == 1.0
    assert cap.values[cv2.CAP_PROP_EXPOSURE] == 156.0
    assert "white balance" in caplog.text
    everything = FakeCapture(set(FakeCapture(set()).values))
    assert lock_camera(everything) == (("exposure", "white balance"), ())
    assert everything.values[cv2.CAP_PROP_AUTO_WB] == 0.0


# ----------------------------------------------------------------------------- CLI


def test_cli_calibrates_from_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "profile.json"
    overlay = tmp_path / "overlay.png"
    args = ["calibrate", "--source", str(GAME), "--frames", "3", "--out", str(out)]
    assert main([*args, "--overlay", str(overlay)]) == 0
    text = capsys.readouterr().out
    assert "verdict: good" in text and "residual" in text and str(out) in text
    prof = load_profile(out)
    assert prof.camera is not None and prof.camera.source == str(GAME)
    assert cv2.imread(str(overlay)) is not None
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"]["level"] == GOOD and doc["residual_px"] < 1.5


def test_cli_bad_input_and_no_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "p.json")
    assert main(["calibrate", "--source", str(tmp_path / "nothing"), "--out", out]) == 2
    assert "nothing" in capsys.readouterr().err
    still = str(GAME / "0000.jpg")
    assert main(["calibrate", "--source", still, "--corners", "1,2,3", "--out", out]) == 2
    assert "six numbers" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 200, np.uint8))
    assert main(["calibrate", "--source", str(blank), "--out", out]) == 3
    assert "no board" in capsys.readouterr().err
    assert not Path(out).exists()


def test_parse_corners() -> None:
    assert parse_corners("1,2, 3,4,5,6").tolist() == [[1, 2], [3, 4], [5, 6]]
    for bad in ("1,2,3,4,5", "a,b,c,d,e,f", "1,2,3,4,5,nan"):
        with pytest.raises(CalibrationError):
            parse_corners(bad)


def test_lens_is_stored_with_the_fit() -> None:
    doc = _doc()
    assert doc["fit"]["lens"]["k"] == pytest.approx(profile().fit.lens.k)  # type: ignore[union-attr]
    assert isinstance(profile().fit.lens, Lens)


def test_cli_teach_names_the_missing_colours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    few = tmp_path / "few"
    few.mkdir()
    (few / "0020.jpg").symlink_to(GAME / "0020.jpg")
    out = tmp_path / "p.json"
    assert main(["calibrate", "--source", str(few), "--teach", "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "colour purple: not seen yet: lay a tile with purple on the board" in text
    assert "colour yellow: learned from" in text and out.is_file()
    many = tmp_path / "many"
    many.mkdir()
    (many / "0216.jpg").symlink_to(GAME / "0216.jpg")
    assert main(["calibrate", "--source", str(many), "--teach", "--out", str(out)]) == 0
    assert "not seen" not in capsys.readouterr().out
    assert all(n >= 3 for n in load_profile(out).samples.values())


def test_teach_from_a_live_camera_waits_for_the_missing_colours(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from vision.calibrate_cli import _teach

    class Live:
        def frames(self) -> Any:
            for _ in range(3):
                yield "a", frame(20)
            for _ in range(20):
                yield "b", frame(216)

    ticks = iter(np.arange(0.0, 1000.0, 0.6))
    blank = calibrate([frame(0)]).profile
    taught = _teach(blank, [frame(20)], Live(), 60.0, clock=lambda: float(next(ticks)))  # type: ignore[arg-type]
    assert taught.missing == ()
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("still missing: red") and "purple" in err[0]
    assert err[-1] == "every tile colour learned"
    # Nothing more shown before the time is up: the missing colours are reported.
    ticks = iter(np.arange(0.0, 1000.0, 5.0))
    still = _teach(blank, [frame(20)], Live(), 4.0, clock=lambda: float(next(ticks)))  # type: ignore[arg-type]
    assert Colour.PURPLE in still.missing


def test_calibration_finds_the_board_as_read_does() -> None:
    """A navy cloth under a warm lamp hides the board from the bare outline fit; the
    calibration finds it as ``spectrangle read`` does (in the photo balanced to the light)."""
    name = "08"
    still = load_image(str(STILLS / f"{name}.jpg")).astype(np.float64)
    homography = np.array(json.loads((STILLS / f"{name}.json").read_text())["homography"])
    outline = project(homography, outer_corners(0.51))
    board = np.zeros(still.shape[:2], np.uint8)
    cv2.fillPoly(board, [np.round(outline).astype(np.int32)], 1)
    cloth = np.array([62.0, 38.0, 28.0]) + np.random.default_rng(0).normal(0, 4, still.shape)
    warm = np.clip(np.where(board[..., None] == 1, still, cloth) * (0.45, 0.8, 1.0), 0, 255)
    warm = warm.astype(np.uint8)
    reader = BoardReader()
    with pytest.raises(BoardNotFoundError):
        reader.locate(warm)
    result = calibrate([warm], reader=reader)
    corners = np.array(json.loads((STILLS / f"{name}.json").read_text())["corners"])
    got = result.profile.fit.corners
    side = float(np.linalg.norm(corners[0] - corners[1])) / 6
    assert (
        min(float(np.abs(np.roll(got, -k, axis=0) - corners).max()) for k in range(3)) < 0.25 * side
    )
