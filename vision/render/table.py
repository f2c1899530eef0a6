"""Table surfaces under the board, drawn in image space (float32 BGR in [0, 1]).

Kinds: ``wood``, ``cloth``, ``plain_light``, ``plain_red`` (as red as the red tiles) and
``plain_white`` (as white as the joker), drawn at random; and ``checked``, a gingham
tablecloth (white and a dark colour in squares, their crossings half-tone), and ``dark``,
a plain black, charcoal or dark-stained table top about as dark as the board's plastic
or darker, drawn only when asked for (``EXTRA_TABLE_KINDS``: the random draws of the
others, and so every seed's still, stay as they were).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

TABLE_KINDS: tuple[str, ...] = ("wood", "cloth", "plain_light", "plain_red", "plain_white")
EXTRA_TABLE_KINDS: tuple[str, ...] = ("checked", "dark")

_WOODS = ((0.55, 0.72, 0.86), (0.30, 0.45, 0.62), (0.20, 0.30, 0.45), (0.62, 0.78, 0.88))
#: Dark table tops (BGR), drawn plain: black laminate, charcoal, dark-stained walnut and
#: oak; the board's plastic is about (0.11, 0.12, 0.13).
_DARKS = ((0.06, 0.06, 0.065), (0.12, 0.12, 0.125), (0.06, 0.09, 0.13), (0.08, 0.12, 0.16))
# gingham's dark colour (BGR): navy, red, green, black
_GINGHAMS = ((0.35, 0.12, 0.08), (0.12, 0.12, 0.62), (0.15, 0.38, 0.12), (0.08, 0.08, 0.08))
_CLOTHS = (
    (0.25, 0.45, 0.18),
    (0.45, 0.25, 0.15),
    (0.55, 0.55, 0.55),
    (0.60, 0.70, 0.78),
    (0.20, 0.18, 0.50),
    (0.35, 0.40, 0.30),
)


@dataclass(frozen=True)
class TableSpec:
    """A table surface: its kind, base colour (BGR in [0, 1]), texture scale and seed."""

    kind: str
    colour: tuple[float, float, float]
    grain_deg: float
    seed: int


def sample_table(rng: np.random.Generator, kind: str | None = None) -> TableSpec:
    """A random table of ``kind`` (random kind when None)."""
    kind = kind or str(rng.choice(TABLE_KINDS))
    if kind == "wood":
        base = np.array(_WOODS[rng.integers(len(_WOODS))])
    elif kind == "cloth":
        base = np.array(_CLOTHS[rng.integers(len(_CLOTHS))])
    elif kind == "plain_red":
        base = np.array([50, 61, 196]) / 255.0
    elif kind == "plain_white":
        base = np.array([244, 245, 245]) / 255.0
    elif kind == "checked":
        base = np.array(_GINGHAMS[rng.integers(len(_GINGHAMS))])
    elif kind == "dark":
        base = np.array(_DARKS[rng.integers(len(_DARKS))])
    else:
        base = np.array([0.78, 0.82, 0.84]) + rng.uniform(-0.06, 0.04, 3)
    base = np.clip(base * rng.uniform(0.94, 1.04, 3), 0, 1)
    return TableSpec(
        kind, tuple(float(v) for v in base), float(rng.uniform(0, 180)), int(rng.integers(2**31))
    )


def _noise(rng: np.random.Generator, w: int, h: int, cell: float) -> np.ndarray:
    """Smooth value noise (h, w) float32, ~unit variance, feature size ``cell`` px."""
    gw = max(2, int(w / cell) + 2)
    gh = max(2, int(h / cell) + 2)
    small = rng.normal(0, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def render_table(spec: TableSpec, width: int, height: int, px_per_unit: float) -> np.ndarray:
    """The table surface, (height, width, 3) float32 BGR in [0, 1].

    ``px_per_unit`` = image pixels per tile side near the board (sets the texture scale).
    """
    rng = np.random.default_rng(spec.seed)
    base = np.array(spec.colour, np.float32)
    s = max(px_per_unit, 8.0)
    if spec.kind == "wood":
        a = math.radians(spec.grain_deg)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        u = xx * math.cos(a) + yy * math.sin(a)
        v = -xx * math.sin(a) + yy * math.cos(a)
        # Noise stretched along the grain, sampled through remap.
        n_small = rng.normal(0, 1, (64, 512)).astype(np.float32)
        n_small = cv2.GaussianBlur(n_small, (0, 0), 1.2)
        su, sv = s * 6.0, s * 0.25
        mu = (u / su) % 511
        mv = (v / sv) % 63
        warp = cv2.remap(n_small, mu.astype(np.float32), mv.astype(np.float32), cv2.INTER_LINEAR)
        period = s * rng.uniform(0.35, 0.7)
        rings = np.sin(2 * np.pi * (v / period + 1.6 * warp))
        fine = _noise(rng, width, height, 2.0) * 0.5
        plank = s * rng.uniform(2.5, 4.0)
        off = rng.uniform(0, plank)
        seam = np.abs(((v + off) % plank) - plank / 2) > plank / 2 - max(1.0, s * 0.02)
        # Each plank its own shade; darker streaks where the grain is dense.
        plank_id = np.floor((v + off) / plank).astype(np.int32) % 16
        plank_tone = rng.uniform(0.88, 1.1, 16).astype(np.float32)[plank_id]
        streak = np.clip(warp, 0, None) ** 2
        tone = plank_tone * (1.0 + 0.03 * rings - 0.06 * streak + 0.015 * fine)
        tone = tone + 0.06 * _noise(rng, width, height, s * 3)
        tone = tone * np.where(seam, 0.55, 1.0)
        img = base[None, None, :] * tone[..., None]
    elif spec.kind == "checked":
        # Bands of the dark colour across and along the weave, at the grain's angle,
        # each about half a tile wide: white where neither, half-tone where one, the
        # full colour where both cross.
        a = math.radians(spec.grain_deg)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        u = xx * math.cos(a) + yy * math.sin(a)
        v = -xx * math.sin(a) + yy * math.cos(a)
        period = s * rng.uniform(0.8, 1.4)
        soft = max(0.6, s * 0.01)
        across = np.clip(0.5 + (np.abs((u % period) - period / 2) - period / 4) / soft, 0, 1)
        along = np.clip(0.5 + (np.abs((v % period) - period / 2) - period / 4) / soft, 0, 1)
        dark = 0.5 * (across + along)  # 0 white, 0.5 one band, 1 both
        white = np.array([0.93, 0.94, 0.94], np.float32)
        tone = 1.0 + 0.03 * _noise(rng, width, height, s * 2.5)
        img = white[None, None, :] * (1 - dark[..., None]) + base[None, None, :] * dark[..., None]
        img = img * tone[..., None]
    elif spec.kind == "cloth":
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        p = max(2.0, s * 0.03)
        weave = np.sin(xx * 2 * np.pi / p) * np.sin(yy * 2 * np.pi / p)
        folds = _noise(rng, width, height, s * 2.5)
        tone = 1.0 + 0.05 * weave + 0.06 * folds + 0.05 * _noise(rng, width, height, 1.5)
        img = base[None, None, :] * tone[..., None]
    else:
        tone = (
            1.0
            + 0.025 * _noise(rng, width, height, s * 4)
            + 0.012 * _noise(rng, width, height, 1.5)
        )
        img = base[None, None, :] * tone[..., None]
    return np.clip(img, 0, 1).astype(np.float32)
