"""The numeral reader on synthetic discs drawn here, and on a bundled still via the reader.

Synthetic tiles are drawn with OpenCV's Hershey fonts at strokes and sizes other than the
reader's templates: a navy disc with a light halo on coloured sectors, a white digit facing
one of the cell's three edges, then blur, noise, colour casts, dim light and JPEG.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine import SPECTRANGLE36
from vision.config import default_config
from vision.model import CENTROIDS, UP, VERTICES, Canvas
from vision.numerals import (
    DOWN_ANGLES,
    UP_ANGLES,
    NumeralReader,
    _search_mask,
    bundle_bold_digits,
    default_params,
    disc_mask,
    disc_windows,
    find_discs,
    glyph_sets,
    grey_of,
    normalise_rows,
    read_scores,
    ring_kernel,
)

CFG = default_config()
ROOT = Path(__file__).resolve().parents[2]
STILLS = ROOT / "sample_images" / "stills"
NAVY_BGR = (125, 70, 50)
SECTOR_BGR = [(50, 61, 196), (63, 222, 240), (78, 131, 51), (183, 147, 95), (115, 77, 93)]
FONTS = [(cv2.FONT_HERSHEY_SIMPLEX, 0.21), (cv2.FONT_HERSHEY_DUPLEX, 0.27)]


@pytest.fixture(scope="module")
def reader() -> NumeralReader:
    return NumeralReader()


def digit_mask(value: int, font: int, stroke: float, height: float, up_deg: float) -> NDArray:
    """(S, S) float32 mask in [0, 1] of a digit ``height`` px tall, its top at ``up_deg``."""
    big = 8
    (_, h), _ = cv2.getTextSize(str(value), font, 6.0, 1)
    img = np.zeros((4 * h, 4 * h), np.uint8)
    cv2.putText(img, str(value), (h, 3 * h), font, 6.0, 255, max(1, round(stroke * h)))
    ys, xs = np.nonzero(img)
    img = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    k = height * big / img.shape[0]
    img = cv2.resize(img, (max(1, round(img.shape[1] * k)), round(height * big)))
    side = int(height * 2) + 4
    out = np.zeros((side * big, side * big), np.float32)
    y0, x0 = (out.shape[0] - img.shape[0]) // 2, (out.shape[1] - img.shape[1]) // 2
    out[y0 : y0 + img.shape[0], x0 : x0 + img.shape[1]] = img / 255.0
    c = (out.shape[0] - 1) / 2
    out = cv2.warpAffine(out, cv2.getRotationMatrix2D((c, c), up_deg, 1.0), out.shape[::-1])
    return cv2.resize(out, (side, side), interpolation=cv2.INTER_AREA)


def draw_board(
    ppu: int,
    values: dict[int, tuple[int, float]],
    rng: np.random.Generator,
    offset: float = 0.0,
    numeral: bool = True,
    font_index: int = 0,
) -> NDArray[np.uint8]:
    """A canvas (Canvas(ppu)) with tiles on the given cells: {cell: (value, up_deg)}.

    ``offset``: each disc is moved by up to this much (board units) from its cell centroid.
    """
    canvas = Canvas(ppu)
    ss = 4  # supersampling
    big = np.full((canvas.height * ss, canvas.width * ss, 3), 30, np.uint8)
    for i, (value, up_deg) in values.items():
        tri = canvas.to_canvas(VERTICES[i]) * ss
        colours = rng.choice(len(SECTOR_BGR), 3)
        c = canvas.to_canvas(CENTROIDS[i]) * ss
        for e in range(3):
            wedge = np.array([c, tri[e], tri[(e + 1) % 3]])
            cv2.fillPoly(big, [np.round(wedge).astype(np.int32)], SECTOR_BGR[colours[e]])
        shift = rng.uniform(-1, 1, 2) * offset / math.sqrt(2) * ppu * ss
        centre = c + shift
        r = CFG.disc_radius * ppu * ss
        cv2.circle(big, tuple(np.round(centre).astype(int)), round(r * 1.15), (215, 215, 215), -1)
        cv2.circle(big, tuple(np.round(centre).astype(int)), round(r), NAVY_BGR, -1)
        if numeral:
            font, stroke = FONTS[font_index % len(FONTS)]
            mask = digit_mask(value, font, stroke, 1.2 * r, up_deg)
            s = mask.shape[0]
            x0, y0 = round(centre[0] - s / 2), round(centre[1] - s / 2)
            roi = big[y0 : y0 + s, x0 : x0 + s].astype(np.float32)
            white = np.array([240.0, 245.0, 245.0])
            big[y0 : y0 + s, x0 : x0 + s] = (
                roi * (1 - mask[..., None]) + white * mask[..., None]
            ).astype(np.uint8)
    return cv2.resize(big, (canvas.width, canvas.height), interpolation=cv2.INTER_AREA)


def degrade(
    img: NDArray[np.uint8],
    rng: np.random.Generator,
    blur: float = 0.0,
    noise: float = 0.0,
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0),
    jpeg: int = 0,
) -> NDArray[np.uint8]:
    out = img.astype(np.float32) * np.array(gains, np.float32)
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    out = out + rng.normal(0.0, noise, out.shape).astype(np.float32)
    res = np.clip(out, 0, 255).astype(np.uint8)
    if jpeg:
        ok, buf = cv2.imencode(".jpg", res, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
        assert ok
        res = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return res


def random_tiles(rng: np.random.Generator, n: int = 36) -> dict[int, tuple[int, float]]:
    cells = rng.choice(36, n, replace=False)
    out = {}
    for i in cells:
        angles = UP_ANGLES if UP[i] else DOWN_ANGLES
        out[int(i)] = (int(rng.integers(1, 7)), float(angles[rng.integers(3)]))
    return out


def accuracy(reader: NumeralReader, img: NDArray[np.uint8], ppu: int, tiles: dict) -> float:
    cells = sorted(tiles)
    costs = reader.costs(img, cells, ppu, CFG)
    assert costs is not None
    read = costs.argmin(axis=1) + 1
    return float(np.mean([read[k] == tiles[c][0] for k, c in enumerate(cells)]))


# Every value in every orientation, on clean discs at the top of the ppu range.
@pytest.mark.parametrize("font_index", [0, 1])
def test_all_values_all_orientations_clean(reader: NumeralReader, font_index: int) -> None:
    rng = np.random.default_rng(1)
    ppu = 72
    for value in range(1, 7):
        tiles = {}
        for i in range(36):
            angles = UP_ANGLES if UP[i] else DOWN_ANGLES
            tiles[i] = (value, angles[i % 3])
        img = draw_board(ppu, tiles, rng, font_index=font_index)
        assert accuracy(reader, img, ppu, tiles) == 1.0, value


@pytest.mark.parametrize(
    ("ppu", "blur", "noise", "gains", "jpeg", "offset", "minimum"),
    [
        (72, 0.8, 4.0, (1.0, 1.0, 1.0), 80, 0.0, 1.0),  # mild camera
        (72, 0.0, 3.0, (1.0, 1.0, 1.0), 0, 0.09, 0.97),  # disc off the lattice by 0.09
        (60, 1.2, 6.0, (0.75, 1.0, 1.35), 70, 0.05, 0.94),  # warm cast, blur, JPEG
        (48, 0.7, 3.0, (0.35, 0.35, 0.35), 0, 0.04, 0.94),  # dim light
        (48, 1.0, 5.0, (1.0, 1.0, 1.0), 60, 0.04, 0.9),
        (36, 0.6, 3.0, (1.0, 1.0, 1.0), 0, 0.03, 0.8),  # the digit is about 5 px tall
    ],
)
def test_degraded_discs(
    reader: NumeralReader,
    ppu: int,
    blur: float,
    noise: float,
    gains: tuple[float, float, float],
    jpeg: int,
    offset: float,
    minimum: float,
) -> None:
    rng = np.random.default_rng(ppu * 7 + int(blur * 10))
    scores = []
    for font_index in range(2):
        tiles = random_tiles(rng)
        clean = draw_board(ppu, tiles, rng, offset=offset, font_index=font_index)
        img = degrade(clean, rng, blur, noise, gains, jpeg)
        scores.append(accuracy(reader, img, ppu, tiles))
    assert np.mean(scores) >= minimum, scores


def test_greyscale_photo(reader: NumeralReader) -> None:
    rng = np.random.default_rng(5)
    tiles = random_tiles(rng)
    img = degrade(draw_board(64, tiles, rng), rng, 0.8, 3.0)
    grey = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert accuracy(reader, grey, 64, tiles) >= 0.97


def test_clear_reading_has_a_gap_of_about_one(reader: NumeralReader) -> None:
    rng = np.random.default_rng(2)
    tiles = random_tiles(rng)
    img = degrade(draw_board(72, tiles, rng), rng, 0.7, 3.0)
    costs = reader.costs(img, sorted(tiles), 72, CFG)
    assert costs is not None
    gaps = np.sort(costs, axis=1)[:, 1]
    assert 0.6 <= float(np.median(gaps)) <= 2.5


def test_no_numeral_and_skin_give_flat_costs(reader: NumeralReader) -> None:
    rng = np.random.default_rng(3)
    tiles = random_tiles(rng, 12)
    blank = degrade(draw_board(64, tiles, rng, numeral=False), rng, 0.8, 4.0)
    costs = reader.costs(blank, sorted(tiles), 64, CFG)
    assert costs is not None
    assert float((costs.max(axis=1) - costs.min(axis=1)).max()) < 0.3
    # A hand over the board: skin with soft shading and noise.
    canvas = Canvas(64)
    yy, xx = np.mgrid[: canvas.height, : canvas.width]
    shade = 0.8 + 0.2 * np.sin(xx / 23.0) * np.cos(yy / 31.0)
    skin = np.array([120.0, 150.0, 205.0]) * shade[..., None]
    skin_img = degrade(np.clip(skin, 0, 255).astype(np.uint8), rng, 1.0, 5.0, jpeg=75)
    costs = reader.costs(skin_img, list(range(36)), 64, CFG)
    assert costs is not None
    assert float((costs.max(axis=1) - costs.min(axis=1)).max()) < 0.3


def test_shapes_and_types(reader: NumeralReader) -> None:
    rng = np.random.default_rng(4)
    tiles = random_tiles(rng, 5)
    img = draw_board(50, tiles, rng)
    costs = reader.costs(img, sorted(tiles), 50, CFG)
    assert costs is not None
    assert costs.shape == (5, 6)
    assert costs.dtype == np.float64
    assert np.isfinite(costs).all()
    assert (costs >= 0).all()
    assert np.allclose(costs.min(axis=1), 0.0)
    assert reader.costs(img, [], 50, CFG) is None
    # Cells at the canvas border (a cut-off board) still give finite rows.
    edge = reader.costs(img[:, : img.shape[1] // 3].copy(), [0, 25, 35], 50, CFG)
    assert edge is not None and np.isfinite(edge).all()


def test_disc_offsets_are_found(reader: NumeralReader) -> None:
    rng = np.random.default_rng(6)
    tiles = random_tiles(rng, 10)
    canvas = Canvas(64)
    img = draw_board(64, tiles, np.random.default_rng(7))
    # Move the whole board by (0.06, -0.04) units: every disc is found there.
    m = np.float32([[1, 0, 0.06 * 64], [0, 1, -0.04 * 64]])
    moved = cv2.warpAffine(img, m, (canvas.width, canvas.height), borderMode=cv2.BORDER_REPLICATE)
    _, contrast, offsets = reader.scores(moved, sorted(tiles), 64, CFG)
    assert offsets.shape == (10, 2)
    assert (contrast > 0.1).all()
    assert np.abs(offsets - [0.06, -0.04]).max() < 0.025


def one_by_one(
    reader: NumeralReader, grey: NDArray[np.uint8], centres: NDArray, up: NDArray, scale: float
) -> tuple[NDArray, NDArray, NDArray]:
    """What ``read_scores`` computes, window by window: warp, blur, ring match, the patches at
    each shift, their correlation with the templates."""
    p = reader.params
    rn = p.norm_radius_px
    search = p.search_units / 0.125 * rn
    ring = ring_kernel(p)
    s_r, m_half, s = math.floor(search), math.ceil(p.match_r * rn), p.shift_px
    m_side = 2 * m_half + 1
    mask = disc_mask(m_side, p.match_r * rn)
    half = s_r + max(ring.shape[0] // 2, m_half + s) + 1
    side = 2 * half + 1
    r = s_r + ring.shape[0] // 2
    scores, contrasts, offsets = np.zeros((len(centres), 6)), np.zeros(len(centres)), []
    for i, (cx, cy) in enumerate(centres):
        inv = 1.0 / scale
        m = np.array([[inv, 0.0, cx - half * inv], [0.0, inv, cy - half * inv]])
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        win = cv2.warpAffine(grey, m, (side, side), flags=flags, borderMode=cv2.BORDER_REPLICATE)
        win = cv2.GaussianBlur(win.astype(np.float32), (0, 0), p.canvas_blur_px)
        sub = win[half - r : half + r + 1, half - r : half + r + 1]
        response = cv2.matchTemplate(sub, ring, cv2.TM_CCORR)
        response[~_search_mask(search)] = -np.inf
        dy, dx = np.unravel_index(int(np.argmax(response)), response.shape)
        qx, qy = half + dx - s_r, half + dy - s_r
        offsets.append((dx - s_r, dy - s_r))
        patch = win[qy - m_half - s : qy + m_half + s + 1, qx - m_half - s : qx + m_half + s + 1]
        views = np.lib.stride_tricks.sliding_window_view(patch, (m_side, m_side))
        unit, contrast = normalise_rows(views.reshape(-1, m_side, m_side)[:, mask])
        bank = reader.banks[(bool(up[i]), 1)]
        corr = (unit @ bank.vectors.T).reshape(len(unit), 6, bank.per_value)
        scores[i] = corr.max(axis=(0, 2))
        contrasts[i] = contrast.mean()
    return scores, contrasts, np.array(offsets, dtype=np.float64).reshape(-1, 2)


def test_read_scores_reads_each_disc_as_on_its_own(reader: NumeralReader) -> None:
    """All discs at once (stacked windows, one blur, one ring match, one gather) read as each
    disc read alone: discs off their centres, a flat grey patch (where the ring's best
    candidates tie), a disc half off the canvas."""
    rng = np.random.default_rng(8)
    tiles = random_tiles(rng, 20)
    ppu = 60
    img = degrade(draw_board(ppu, tiles, rng, offset=0.05), rng, 0.8, 4.0, jpeg=80)
    grey = grey_of(img)
    cells = np.array([*sorted(tiles), 0, 35])
    centres = Canvas(ppu).to_canvas(CENTROIDS[cells]) + rng.uniform(-4, 4, (len(cells), 2))
    centres[-2] = (3.0, 3.0)  # the canvas corner: replicated border
    grey[: ppu // 2, : ppu // 2] = 90  # flat: every candidate ties
    centres[-1] = (-10.0, grey.shape[0] / 2)
    scale = reader.params.norm_radius_px / (CFG.disc_radius * ppu)
    ref = one_by_one(reader, grey, centres, UP[cells], scale)
    got = read_scores(grey, centres, UP[cells], scale, reader.params, reader.banks, 1)
    assert np.array_equal(got[2], ref[2])
    assert np.allclose(got[0], ref[0], atol=1e-6, rtol=0)
    assert np.allclose(got[1], ref[1], atol=1e-6, rtol=0)
    empty = read_scores(grey, centres[:0], UP[:0], scale, reader.params, reader.banks, 1)
    assert [a.shape for a in empty] == [(0, 6), (0,), (0, 2)]


def test_stacked_windows_blur_and_ring_as_alone() -> None:
    """The windows' one blur and one ring match give each window its own result."""
    rng = np.random.default_rng(9)
    grey = cv2.GaussianBlur(rng.integers(0, 256, (120, 160), dtype=np.uint8), (0, 0), 3.0)
    centres = rng.uniform(-5, 165, (12, 2))
    raw = disc_windows(grey, centres, 1.7, 30, 0.0)
    blurred = disc_windows(grey, centres, 1.7, 30, 0.6)
    for w, b in zip(raw, blurred, strict=True):
        assert np.array_equal(cv2.GaussianBlur(w, (0, 0), 0.6), b)
    ring = ring_kernel(NumeralReader().params)
    blurred[3] = 100.0  # flat: a tie everywhere, the first candidate wins
    found = find_discs(blurred, ring, 12.5)
    r = 12 + ring.shape[0] // 2
    for w, (dx, dy) in zip(blurred, found, strict=True):
        response = cv2.matchTemplate(w[30 - r : 31 + r, 30 - r : 31 + r], ring, cv2.TM_CCORR)
        response[~_search_mask(12.5)] = -np.inf
        y, x = np.unravel_index(int(np.argmax(response)), response.shape)
        assert (dx, dy) == (x - 12, y - 12)
    assert find_discs(blurred[:0], ring, 12.5).shape == (0, 2)


def test_bundled_still_through_the_reader(reader: NumeralReader) -> None:
    """Still 02 (26 visible tiles, the board about 57 px per tile): through ``BoardReader().read``,
    at least 80% of the visible tiles' numerals are read right.

    80% and not 100%: the reader's lattice is still off by up to ~0.1 tile on parts of some
    images, and a few discs are partly covered or blurred; on this still the numeral reader
    gets about 95% (bench/bench_numerals.py gives the set-wide figures).
    """
    from vision.read import BoardReader, load_image

    truth = json.loads((STILLS / "02.json").read_text())
    frame = load_image(str(STILLS / "02.jpg"))
    reading = BoardReader().read(frame)
    assert reading.found and reading.canvas_bgr is not None
    ours = np.array(reading.to_json()["board"]["corners"])
    true_c = np.array(truth["corners"])
    best = min(range(3), key=lambda k: np.abs(np.roll(true_c, -k, axis=0) - ours).sum())
    to_truth = list(range(36))
    for _ in range(best):
        to_truth = [SPECTRANGLE36.geometry.rotation[i] for i in to_truth]
    hidden = set(truth.get("covered", [])) | set(truth.get("outside", []))
    cells, values = [], []
    for j in range(36):
        t = truth["cells"][to_truth[j]]
        if t["state"] == "tile" and to_truth[j] not in hidden:
            cells.append(j)
            values.append(t["value"])
    h, w = reading.canvas_bgr.shape[:2]
    ppu = next(p for p in range(20, 200) if (Canvas(p).width, Canvas(p).height) == (w, h))
    costs = reader.costs(reading.canvas_bgr, cells, ppu, CFG)
    assert costs is not None
    right = np.mean(costs.argmin(axis=1) + 1 == np.array(values))
    assert len(cells) >= 15
    assert right >= 0.8, right


def test_the_bold_digits_are_bundled_not_looked_for(tmp_path: Path) -> None:
    """The templates' bold sans digits come with the package (the same on every machine,
    whatever fonts it has): six cropped masks, each a digit's shape (taller than wide,
    ink and background both), after the Hershey fonts."""
    params = default_params()
    fonts = glyph_sets(params)
    assert len(fonts) == len(params.hershey_fonts) + 1
    bold = fonts[-1]
    assert len(bold) == 6
    for mask in bold:
        assert mask.dtype == np.uint8 and mask.shape[0] > mask.shape[1] > 20
        ink = float(np.mean(mask > 127))
        assert 0.15 < ink < 0.85
    # drawn again from a font file that does not exist: refused, nothing written
    out = tmp_path / "digits.npz"
    with pytest.raises(ValueError, match="no digits"):
        bundle_bold_digits(str(tmp_path / "none.ttf"), str(out))
    assert not out.exists()
