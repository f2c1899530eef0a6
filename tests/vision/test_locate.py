"""The outline's straight stretches: parallel lines of one blurred edge count once."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.locate import _distinct_lines

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
