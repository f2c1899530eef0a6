"""Cell zones: the packed form measures the same pixels as the per-cell zones."""

from __future__ import annotations

import numpy as np
import pytest

from engine import SPECTRANGLE36
from engine.colours import EDGE_ORDER
from vision.cells import (
    _edge_distance,
    band_sides,
    cell_segments,
    packed_zones,
    percentiles,
    pixels,
    ridge_samples,
    segment_medians,
    segment_percentiles,
    sort_keys,
    zones,
)
from vision.config import default_config
from vision.model import CENTROIDS, EDGE_ENDS, EDGE_MIDPOINTS, Canvas


@pytest.mark.parametrize("dtype", [np.float64, np.uint8])
@pytest.mark.parametrize("starts", [[0], [0, 1, 2], [0, 3, 10, 11, 30], [0, 49]])
def test_segment_medians_equal_numpy_medians(starts: list[int], dtype: type) -> None:
    rng = np.random.default_rng(7)
    values = rng.integers(0, 256, (50, 3)).astype(dtype)
    got = segment_medians(values, np.array(starts))
    assert got.dtype == np.float64
    ends = [*starts[1:], 50]
    want = np.array([np.median(values[a:b], axis=0) for a, b in zip(starts, ends, strict=True)])
    assert np.array_equal(got, want)


@pytest.mark.parametrize("starts", [[0], [0, 1, 2], [0, 3, 10, 11, 30], [0, 49]])
def test_segment_percentiles_equal_numpy_percentiles(starts: list[int]) -> None:
    rng = np.random.default_rng(8)
    values = rng.normal(0.0, 1.0, 50)
    qs = [0, 15, 40, 90, 92, 100]
    got = segment_percentiles(values, np.array(starts), qs)
    ends = [*starts[1:], 50]
    want = np.array([np.percentile(values[a:b], qs) for a, b in zip(starts, ends, strict=True)])
    assert np.allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ppu", [36, 54])
def test_packed_zones_hold_every_cells_pixels_in_order(ppu: int) -> None:
    cfg = default_config()
    cells, _ = zones(ppu, cfg)
    packed = packed_zones(ppu, cfg)
    for i, z in enumerate(cells):
        a = packed.rim_starts[i]
        b = packed.rim_starts[i + 1] if i + 1 < len(cells) else len(packed.rim[0])
        assert np.array_equal(packed.rim[0][a:b], z.rim[0])
        assert np.array_equal(packed.rim[1][a:b], z.rim[1])
        for k, (rows, cols) in enumerate(z.sectors):
            s = packed.sector_starts[3 * i + k]
            assert np.array_equal(packed.sectors[0][s : s + len(rows)], rows)
            assert np.array_equal(packed.sectors[1][s : s + len(cols)], cols)


@pytest.mark.parametrize("ppu", [36, 72])
def test_flank_patches_lie_in_their_sector_clear_of_ridges_edge_and_disc(ppu: int) -> None:
    """Each edge's two flank patches lie in the half sectors towards its two ends (the
    triangle of the centroid and the edge, on either side of the sector's middle),
    clear of the ridges to the other sectors, the tile's edge and the navy disc, and
    are packed in (cell, edge, end) order."""
    cfg = default_config()
    cells, _ = zones(ppu, cfg)
    packed = packed_zones(ppu, cfg)
    canvas = Canvas(ppu)
    pixel = 1.0 / ppu
    for i, z in enumerate(cells):
        assert len(z.flanks) == 6
        c = CENTROIDS[i]
        for k in range(3):
            mid = EDGE_MIDPOINTS[i, k]
            sides = []
            for end in range(2):
                rows, cols = z.flanks[2 * k + end]
                assert len(rows) >= 8
                s = packed.flank_starts[6 * i + 2 * k + end]
                assert np.array_equal(packed.flanks[0][s : s + len(rows)], rows)
                assert np.array_equal(packed.flanks[1][s : s + len(cols)], cols)
                pts = np.stack([canvas.x0 + (cols + 0.5) / ppu, canvas.y0 + (rows + 0.5) / ppu], 1)
                half = np.array([c, EDGE_ENDS[i, k, end], mid])  # the half sector
                inside = _edge_distance(pts, half)
                # the half sector's sides: the ridge, the tile's edge, the sector's middle
                assert inside.min() >= 0.05 - pixel
                assert np.hypot(*(pts - c).T).min() > cfg.disc_radius
                # on its own side of the sector's middle
                d = mid - c
                sides.append(np.sign((pts - c) @ np.array([-d[1], d[0]])))
            assert sides[0].max() < 0 < sides[1].min() or sides[1].max() < 0 < sides[0].min()


def test_a_few_cells_segments_have_the_medians_of_all_cells_segments() -> None:
    """:func:`cell_segments` of some cells' flanks give, for those cells, the medians that
    all cells' flanks give (on a canvas of random pixels)."""
    cfg = default_config()
    packed = packed_zones(36, cfg)
    canvas = Canvas(36)
    rng = np.random.default_rng(11)
    image = rng.integers(0, 256, (canvas.height, canvas.width, 3), dtype=np.uint8)
    every = segment_medians(pixels(image, packed.flanks_flat), packed.flank_starts)
    cells = [30, 2, 17, 0, 35]
    flat, starts = cell_segments(packed.flanks_flat, packed.flank_starts, 6, cells)
    some = segment_medians(pixels(image, flat), starts)
    assert np.array_equal(some, every.reshape(36, 6, 3)[cells].reshape(-1, 3))


def test_band_sides_lie_outside_the_playing_triangle_on_the_canvas() -> None:
    canvas = Canvas(20)
    sides = band_sides(20, 0.1, 0.36)
    assert len(sides) == 3
    for rows, cols in sides:
        assert len(rows) > 100
        assert rows.min() >= 0 and rows.max() < canvas.height
        assert cols.min() >= 0 and cols.max() < canvas.width
    # The three strips do not overlap.
    keys = [set(zip(r.tolist(), c.tolist(), strict=True)) for r, c in sides]
    assert not (keys[0] & keys[1]) and not (keys[1] & keys[2]) and not (keys[0] & keys[2])


@pytest.mark.parametrize("ppu", [24, 40])
def test_ridge_samples_lie_across_the_middle_of_each_edge(ppu: int) -> None:
    cfg = default_config()
    rows, cols = ridge_samples(ppu, cfg)
    assert rows.shape == cols.shape == (36, 3, cfg.ridge_points, cfg.ridge_points)
    canvas = Canvas(ppu)
    pts = np.stack([canvas.x0 + (cols + 0.5) / ppu, canvas.y0 + (rows + 0.5) / ppu], axis=-1)
    pixel = 1.0 / ppu
    for i, cell in enumerate(SPECTRANGLE36.geometry):
        for k, edge in enumerate(EDGE_ORDER):
            a, b = (np.array(p) for p in cell.edge_vertices(edge))
            d = (b - a) / np.linalg.norm(b - a)
            rel = pts[i, k].reshape(-1, 2) - a
            along = rel @ d
            across = np.abs(rel @ np.array([-d[1], d[0]]))
            assert across.max() <= cfg.ridge_read_half_width + pixel
            assert across.min() <= pixel  # the ridge itself is sampled
            assert along.min() >= cfg.ridge_end_margin - pixel
            assert along.max() <= 1.0 - cfg.ridge_end_margin + pixel


@pytest.mark.parametrize("high", [300, 1 << 16, 1 << 20])
def test_sort_keys_sorts_as_numpy_does_below_and_above_16_bits(high: int) -> None:
    keys = np.random.default_rng(9).integers(0, high, 5000)
    got = sort_keys(keys)
    assert got.dtype == np.int64
    assert np.array_equal(got, np.sort(keys))


@pytest.mark.parametrize("n", [1, 2, 7, 300, 5001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
def test_percentiles_equal_numpy_percentiles(n: int, dtype: type) -> None:
    rng = np.random.default_rng(n)
    values = (rng.random(n) * 255).astype(dtype)
    qs = [0, 5, 30, 50, 90, 95, 97, 100]
    got = percentiles(values, qs)
    assert got.dtype == np.float64
    # (NumPy interpolates float32 values in float32, this in float64)
    assert np.allclose(got, np.percentile(values, qs), rtol=1e-6, atol=1e-9)
