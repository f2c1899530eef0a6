"""Colours of the physical Jumbo game (sRGB under studio light), as BGR floats in [0, 1].

The values come from ``shared/spec/README.md`` ("How the physical Jumbo game looks").
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from engine import Colour


def _bgr(r: int, g: int, b: int) -> tuple[float, float, float]:
    return (b / 255.0, g / 255.0, r / 255.0)


#: Tile sector colours, BGR in [0, 1].
TILE_BGR: dict[Colour, tuple[float, float, float]] = {
    Colour.RED: _bgr(196, 61, 50),
    Colour.YELLOW: _bgr(240, 222, 63),
    Colour.GREEN: _bgr(51, 131, 78),
    Colour.BLUE: _bgr(95, 147, 183),
    Colour.PURPLE: _bgr(93, 77, 115),
    Colour.WHITE: _bgr(245, 245, 245),
}

BOARD_BGR = _bgr(33, 30, 27)
NAVY_BGR = _bgr(50, 70, 125)
HALO_BGR = _bgr(205, 208, 215)
NUMERAL_BGR = _bgr(250, 250, 250)

#: Score ring markers (4 player colours).
RING_BGR: tuple[tuple[float, float, float], ...] = (
    _bgr(215, 40, 40),
    _bgr(30, 90, 200),
    _bgr(40, 160, 60),
    _bgr(245, 205, 30),
)

#: Skin tones (BGR) for hands, light to dark.
SKIN_BGR: tuple[tuple[float, float, float], ...] = (
    _bgr(236, 198, 170),
    _bgr(224, 172, 138),
    _bgr(198, 140, 104),
    _bgr(161, 106, 72),
    _bgr(110, 70, 48),
    _bgr(232, 190, 160),
)

SLEEVE_BGR: tuple[tuple[float, float, float], ...] = (
    _bgr(40, 50, 80),
    _bgr(150, 30, 40),
    _bgr(200, 200, 195),
    _bgr(60, 60, 62),
    _bgr(90, 120, 70),
    _bgr(210, 150, 60),
    _bgr(30, 30, 32),
)


#: How far another print run of the tiles (or another camera's rendering of them) moves
#: each colour at ``amount`` 1: its hue turns up to this many degrees, its lightness moves
#: up to this many L* units, and its chroma is scaled within these bounds, on top of one
#: scale for all (a camera's saturation). Photos of the physical game show blues from
#: 95,147,183 to 4,148,201: chroma 25 to 39 at the same hue within 4 degrees and lightness
#: within 1.5.
PRINT_HUE_DEG = 6.0
PRINT_LIGHTNESS = 4.0
PRINT_CHROMA = (0.85, 1.2)
PRINT_CAMERA_CHROMA = (0.9, 1.3)


def _shifted(
    bgr: tuple[float, float, float], turn_deg: float, chroma: float, lightness: float
) -> tuple[float, float, float]:
    """``bgr`` (sRGB in [0, 1]) with its hue turned, chroma scaled and L* moved, in gamut."""
    lab = cv2.cvtColor(np.float32([[bgr]]), cv2.COLOR_BGR2Lab)[0, 0].astype(np.float64)
    t = math.radians(turn_deg)
    a, b = lab[1], lab[2]
    lab[1] = chroma * (a * math.cos(t) - b * math.sin(t))
    lab[2] = chroma * (a * math.sin(t) + b * math.cos(t))
    lab[0] = min(100.0, max(0.0, lab[0] + lightness))
    out = cv2.cvtColor(np.float32([[lab]]), cv2.COLOR_Lab2BGR)[0, 0]
    return tuple(float(v) for v in np.clip(out, 0.0, 1.0))  # type: ignore[return-value]


def print_variation(
    seed: int, amount: float
) -> tuple[tuple[tuple[Colour, tuple[float, float, float]], ...], tuple[float, float, float]]:
    """Another print run's tile colours and disc navy (BGR in [0, 1]), drawn from ``seed``:
    ((colour, bgr) for each tile colour, navy). ``amount`` 0 gives the colours above.

    >>> colours, navy = print_variation(1, 0.0)
    >>> dict(colours)[Colour.BLUE] == TILE_BGR[Colour.BLUE] and navy == NAVY_BGR
    True
    >>> dict(print_variation(1, 1.0)[0])[Colour.BLUE] != TILE_BGR[Colour.BLUE]
    True
    """
    if amount <= 0:
        return tuple(TILE_BGR.items()), NAVY_BGR
    rng = np.random.default_rng([seed, 0x9217])
    camera = 1.0 + amount * (float(rng.uniform(*PRINT_CAMERA_CHROMA)) - 1.0)

    def one(bgr: tuple[float, float, float], chroma_scale: float) -> tuple[float, float, float]:
        chroma = chroma_scale * (1.0 + amount * (float(rng.uniform(*PRINT_CHROMA)) - 1.0))
        turn = amount * float(rng.uniform(-PRINT_HUE_DEG, PRINT_HUE_DEG))
        lightness = amount * float(rng.uniform(-PRINT_LIGHTNESS, PRINT_LIGHTNESS))
        return _shifted(bgr, turn, chroma, lightness)

    colours = tuple((c, one(bgr, camera)) for c, bgr in TILE_BGR.items())
    return colours, one(NAVY_BGR, camera)
