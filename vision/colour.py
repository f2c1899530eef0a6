"""Colour helpers: one conversion per colour space, and the tile colour prototypes.

Colours are normalised against what the board itself shows: its black plastic gives
the black point and the white numerals (or the brightest tile pixels) the white point,
per channel in linear light (von Kries). Prototypes are normalised the same way from
their nominal studio colours, so they compare under any white balance and exposure.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from engine import Colour

FloatArray = NDArray[np.float64]

#: Nominal sRGB of the physical game under studio light (spec: how the game looks).
NOMINAL_SRGB: dict[str, tuple[int, int, int]] = {
    "red": (196, 61, 50),
    "yellow": (240, 222, 63),
    "green": (51, 131, 78),
    "blue": (95, 147, 183),
    "purple": (93, 77, 115),
    "white": (245, 245, 245),
    "navy": (50, 70, 125),
    "black": (33, 30, 27),
}
TILE_COLOURS: tuple[Colour, ...] = (
    Colour.RED,
    Colour.GREEN,
    Colour.BLUE,
    Colour.YELLOW,
    Colour.PURPLE,
    Colour.WHITE,
)

_SRGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
_WHITE_XYZ = _SRGB_TO_XYZ.sum(axis=1)


def white_balanced(frame_bgr: NDArray[np.uint8], quantile: float) -> NDArray[np.uint8]:
    """The frame (H, W, 3) uint8 with each channel scaled so that its brightest things
    (value at or above the ``quantile`` percentile) come out colourless, uint8.

    A lamp's colour tints everything it lights, the board's black plastic too; on a
    coloured table (a navy cloth under a warm lamp) the tinted plastic is no more
    colourless than the table. The brightest things in a photo are mostly white or
    lit near white (the tiles' numerals and jokers, highlights), so their median colour
    is the light's.
    """
    value = frame_bgr.max(axis=2)
    return _neutral_at(frame_bgr, value >= np.percentile(value, quantile))


def _neutral_at(frame_bgr: NDArray[np.uint8], where: NDArray[np.bool_]) -> NDArray[np.uint8]:
    """The frame with each channel scaled so that the median colour of its pixels
    ``where`` (H, W) is colourless (the strongest channel kept), uint8."""
    light = np.median(frame_bgr[where].astype(np.float64), axis=0)
    gains = light.max() / np.maximum(light, 1.0)
    return np.clip(frame_bgr * gains, 0, 255).astype(np.uint8)  # type: ignore[no-any-return]


def dark_balanced(frame_bgr: NDArray[np.uint8], quantile: float) -> NDArray[np.uint8]:
    """The frame (H, W, 3) uint8 with each channel scaled so that its darkest things
    (value at or below the ``quantile`` percentile) come out colourless, uint8.

    The board's plastic is black: it takes the colour of the light that falls on it, as
    a shadow does. With nothing white in view (an empty board on a cloth under a warm
    lamp) the brightest things are the table, whose colour is its own; the darkest are
    mostly the plastic and the shadows, whose colour is the light's.

    >>> tinted = np.array([[[10, 20, 40], [100, 180, 200]]], np.uint8)
    >>> dark_balanced(tinted, 50.0)[0, 0].tolist()
    [40, 40, 40]
    """
    value = frame_bgr.max(axis=2)
    return _neutral_at(frame_bgr, value <= np.percentile(value, quantile))


def srgb_to_linear(srgb: FloatArray) -> FloatArray:
    """sRGB in [0, 1] -> linear light, any shape (..., 3)."""
    s = np.clip(np.asarray(srgb, dtype=np.float64), 0.0, 1.0)
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(linear: FloatArray) -> FloatArray:
    """Linear light in [0, 1] (...) -> sRGB-encoded in [0, 1] (...): the inverse of
    :func:`srgb_to_linear`.

    >>> round(float(linear_to_srgb(srgb_to_linear(np.array(0.5)))), 6)
    0.5
    """
    x = np.clip(np.asarray(linear, dtype=np.float64), 0.0, None)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * x ** (1 / 2.4) - 0.055)


#: The linear light of each 8-bit sRGB code.
_LINEAR_OF_CODE: FloatArray = srgb_to_linear(np.arange(256, dtype=np.float64) / 255.0)


def bgr_to_linear_rgb(bgr: NDArray[np.generic]) -> FloatArray:
    """BGR codes 0..255 (..., 3), uint8 or float -> linear RGB in [0, 1] (..., 3).

    >>> bgr_to_linear_rgb(np.array([[0, 128, 255]], np.uint8)).round(4).tolist()
    [[1.0, 0.2159, 0.0]]
    """
    arr = np.asarray(bgr)
    if arr.dtype == np.uint8:
        return _LINEAR_OF_CODE[arr[..., ::-1]]  # type: ignore[no-any-return]
    return srgb_to_linear(np.asarray(arr, dtype=np.float64)[..., ::-1] / 255.0)


def linear_rgb_to_lab(rgb: FloatArray) -> FloatArray:
    """Linear RGB relative to the white point (white = 1, 1, 1) -> CIE Lab (D65)."""
    xyz = np.asarray(rgb, dtype=np.float64) @ _SRGB_TO_XYZ.T / _WHITE_XYZ
    eps = 216 / 24389
    kappa = 24389 / 27
    f = np.where(xyz > eps, np.cbrt(np.maximum(xyz, 0.0)), (kappa * xyz + 16) / 116)
    lab = np.empty_like(f)
    lab[..., 0] = 116 * f[..., 1] - 16
    lab[..., 1] = 500 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200 * (f[..., 1] - f[..., 2])
    return lab


def normalise(linear: FloatArray, black: FloatArray, white: FloatArray) -> FloatArray:
    """Per-channel black and white point correction in linear light (von Kries)."""
    span = np.maximum(np.asarray(white) - np.asarray(black), 1e-4)
    return np.clip((linear - black) / span, 0.0, 1.5)


def nominal_linear(name: str) -> FloatArray:
    return bgr_to_linear_rgb(np.array(NOMINAL_SRGB[name][::-1], dtype=np.float64))


def prototype_lab() -> dict[Colour, FloatArray]:
    """Lab of each tile colour, normalised like a frame against black plastic and white."""
    black, white = nominal_linear("black"), nominal_linear("white")
    return {
        c: linear_rgb_to_lab(normalise(nominal_linear(c.value), black, white)) for c in TILE_COLOURS
    }


def prototype_linear() -> dict[Colour, FloatArray]:
    black, white = nominal_linear("black"), nominal_linear("white")
    return {c: normalise(nominal_linear(c.value), black, white) for c in TILE_COLOURS}


def colour_distance(lab: FloatArray, proto: FloatArray, lightness_weight: float) -> FloatArray:
    """Euclidean Lab distance with lightness down-weighted (the pyramid shades sectors).

    ``lab`` (..., 3), ``proto`` (3,). Returns (...).
    """
    d = np.asarray(lab) - proto
    return np.sqrt((lightness_weight * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
