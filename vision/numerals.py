"""Reading the printed value on a tile's disc (values 1-6, in six orientations).

Placeholder-free minimal form: returns ``None`` (no numeral evidence) until the
templates are calibrated; colours alone identify a tile of the set.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.config import ReaderConfig


class NumeralReader:
    """Holds the digit templates."""

    def costs(
        self, canvas_bgr: NDArray[np.uint8], cells: list[int], ppu: int, cfg: ReaderConfig
    ) -> NDArray[np.float64] | None:
        return None
