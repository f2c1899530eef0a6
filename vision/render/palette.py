"""Colours of the physical Jumbo game (sRGB under studio light), as BGR floats in [0, 1].

The values come from ``shared/spec/README.md`` ("How the physical Jumbo game looks").
"""

from __future__ import annotations

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
