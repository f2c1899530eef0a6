"""The read benchmark's own measures: they must tell a good fit from a bad one."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.read import BoardReader, load_image
from vision.rectify import BoardFit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from bench_read import lattice_error  # noqa: E402

STILL = ROOT / "sample_images" / "stills" / "00"


@pytest.fixture(scope="module")
def read_still() -> tuple[BoardFit, dict[str, Any], int]:
    """The sample still's fit, its truth, and the turn that puts the fit's corners on
    the truth's."""
    truth = json.loads(STILL.with_suffix(".json").read_text())
    reading = BoardReader().read(load_image(str(STILL.with_suffix(".jpg"))))
    assert reading.fit is not None
    corners = np.array(truth["corners"], dtype=np.float64)
    fit = reading.fit
    best = min(range(3), key=lambda k: np.abs(np.roll(corners, -k, axis=0) - fit.corners).sum())
    return fit, truth, best


def test_a_fit_on_the_board_is_a_small_share_of_a_cell_off(
    read_still: tuple[BoardFit, dict[str, Any], int],
) -> None:
    fit, truth, best = read_still
    assert lattice_error(fit, truth, best) < 0.05


def test_a_lattice_a_cell_off_or_turned_wrong_is_as_far_off_as_it_is(
    read_still: tuple[BoardFit, dict[str, Any], int],
) -> None:
    fit, truth, best = read_still
    # the same fit compared under the wrong turn: every cell lies on another's centroid
    assert lattice_error(fit, truth, (best + 1) % 3) > 0.5
    # moved by a whole cell side along the board's x axis
    moved = fit.moved(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    assert lattice_error(moved, truth, best) == pytest.approx(1.0, abs=0.1)
