"""Stage 4: name the tiles, using the tile set's constraints.

Colours alone identify every tile of the set (each colour multiset occurs once), and
each tile exists once, so the cells are assigned to distinct tiles by minimum total
cost (Hungarian). Edges are reported as seen: every arrangement of the tile's colours
is tried, mirror images included, so a misprinted chirality cannot force a misreading.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from engine import SPECTRANGLE36, Colour, Tile
from vision.colour import TILE_COLOURS

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class TileGuess:
    """The tile read on a cell, with its edge colours as seen (left, right, base)."""

    tile: Tile
    edges: tuple[Colour, Colour, Colour]
    cost: float  # mean colour distance per edge of the chosen reading
    runner_up: float  # the same for the best reading with another tile
    numeral: int | None  # the value read on the numeral, if read
    alternatives: tuple[tuple[Tile, tuple[Colour, Colour, Colour], float], ...] = ()
    worst_edge: float = 0.0  # the largest colour distance of one edge of the chosen reading


@cache
def set_tiles() -> tuple[tuple[Tile, ...], NDArray[np.int64]]:
    """The set's tiles, in order, and their values (T,) (made once: a tile is built from
    its colours each time it is asked for)."""
    tiles = tuple(st.tile for st in SPECTRANGLE36.tiles)
    return tiles, np.array([t.value for t in tiles], dtype=np.int64)


@cache
def arrangements() -> tuple[tuple[Tile, tuple[Colour, Colour, Colour]], ...]:
    """Every (tile, edge colours) that a tile of the set can show, mirror images included."""
    out = []
    for st in SPECTRANGLE36.tiles:
        for perm in sorted(set(itertools.permutations(st.clockwise))):
            out.append((st.tile, (perm[0], perm[1], perm[2])))
    return tuple(out)


@cache
def _arrangement_index() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(colour index per edge for each arrangement (A, 3), tile index per arrangement (A,))."""
    tiles = list(set_tiles()[0])
    colours = np.array([[TILE_COLOURS.index(c) for c in e] for _, e in arrangements()])
    tile_idx = np.array([tiles.index(t) for t, _ in arrangements()])
    return colours, tile_idx


@cache
def _arrangements_by_tile() -> NDArray[np.int64]:
    """(T, P) the arrangements of each tile, in order, padded with -1 (P the most any has)."""
    _, tile_idx = _arrangement_index()
    groups = [np.flatnonzero(tile_idx == t) for t in range(int(tile_idx.max()) + 1)]
    out = np.full((len(groups), max(len(g) for g in groups)), -1, dtype=np.int64)
    for t, g in enumerate(groups):
        out[t, : len(g)] = g
    return out


def read_numerals(numeral_costs: FloatArray) -> list[int | None]:
    """The value each numeral reads, from its costs (N, 6) of values 1..6: the cheapest,
    or None for a numeral that could not be read (all costs alike), not a 1.

    >>> read_numerals(np.array([[1.0, 0.0, 1.0, 1.0, 1.0, 1.0], [0.2] * 6]))
    [2, None]
    """
    read = np.ptp(numeral_costs, axis=1) > 1e-9
    best = np.argmin(numeral_costs, axis=1) + 1
    return [int(v) if r else None for v, r in zip(best, read, strict=True)]


def identify(
    sector_costs: FloatArray,
    numeral_costs: FloatArray | None,
    numeral_weight: float,
    alternatives_kept: int = 8,
    reject_cost: float | None = None,
    refused: NDArray[np.bool_] | None = None,
) -> list[TileGuess]:
    """Assign distinct tiles to cells.

    ``sector_costs``: (N, 3, 6) colour distance of each cell's left/right/base sector to
    each tile colour. ``numeral_costs``: (N, 6) cost of reading values 1..6 (or None).
    ``reject_cost``: the cost past which a reading names no tile (it is refused as one):
    in the assignment no pairing costs more, so that a cell unlike every tile (a palm)
    does not win a tile from the cell that shows it only because it has nothing else to
    take. A cell left with a tile past it is named by its cheapest tile no other cell
    holds. ``refused``: (N, T) bool, the pairings of a cell with a tile (in
    :func:`set_tiles` order) that would be refused whatever their cost (no navy disc,
    or white with no disc or numeral of the joker's): in the assignment they cost
    ``reject_cost`` too (so that a palm takes no joker from the joker), and a cell
    left with one is named as one past it. Returns one guess per cell, in order, each
    with its ``alternatives_kept`` best readings.

    The joker and a palm nearly as white, unlike all else: the total cost gives the
    joker to the palm (the joker's second best is cheaper than the palm's), unless
    costs past rejection are all alike.

    >>> joker, palm = np.full((3, 6), 40.0), np.full((3, 6), 60.0)
    >>> joker[:, TILE_COLOURS.index(Colour.WHITE)] = 1.0
    >>> palm[:, TILE_COLOURS.index(Colour.WHITE)] = 6.0
    >>> [g.tile.is_joker for g in identify(np.stack([palm, joker]), None, 0.0)]
    [True, False]
    >>> [g.tile.is_joker for g in identify(np.stack([palm, joker]), None, 0.0, reject_cost=38)]
    [False, True]

    A palm whiter than the joker takes it even so, unless it could not be the joker:

    >>> palm[:, TILE_COLOURS.index(Colour.WHITE)] = 0.5
    >>> [g.tile.is_joker for g in identify(np.stack([palm, joker]), None, 0.0, reject_cost=38)]
    [True, False]
    >>> no_joker = np.zeros((2, len(set_tiles()[0])), dtype=bool)
    >>> no_joker[0, [t.is_joker for t in set_tiles()[0]]] = True
    >>> [g.tile.is_joker for g in identify(np.stack([palm, joker]), None, 0.0, 8, 38, no_joker)]
    [False, True]
    """
    n = len(sector_costs)
    if n == 0:
        return []
    colours, tile_idx = _arrangement_index()
    tiles, values = set_tiles()
    # cost[c, a] = mean over edges of the distance to the arrangement's colour.
    per_edge = sector_costs[:, np.arange(3)[None, :], colours]  # (N, A, 3)
    cost = per_edge.mean(axis=2)  # (N, A)
    if numeral_costs is not None:
        cost = cost + numeral_weight * numeral_costs[:, values[tile_idx] - 1]
    # Best arrangement per (cell, tile): the first of the cheapest.
    by_tile = _arrangements_by_tile()  # (T, P)
    grouped = np.where(by_tile >= 0, cost[:, np.maximum(by_tile, 0)], np.inf)  # (N, T, P)
    pick = grouped.argmin(axis=2)  # (N, T)
    best_cost = np.take_along_axis(grouped, pick[..., None], axis=2)[..., 0]
    best_arr = by_tile[np.arange(len(by_tile))[None, :], pick]
    capped = best_cost
    if reject_cost is not None:
        capped = np.minimum(best_cost, reject_cost)
        if refused is not None:
            capped = np.where(refused, reject_cost, capped)
    rows, cols = linear_sum_assignment(capped)
    chosen = np.empty(n, dtype=np.int64)
    chosen[rows] = cols
    if reject_cost is not None:
        past = best_cost[np.arange(n), chosen] > reject_cost
        if refused is not None:
            past |= refused[np.arange(n), chosen]
        held = set(chosen[~past].tolist())
        for c in np.flatnonzero(past):
            t = next(int(k) for k in np.argsort(best_cost[c], kind="stable") if int(k) not in held)
            chosen[c] = t
            held.add(t)
    # Every cell's runner-up (the cheapest other tile), numeral and alternatives at once.
    others = best_cost.copy()
    others[np.arange(n), chosen] = np.inf
    runners = others.min(axis=1) if others.shape[1] > 1 else np.full(n, np.inf)
    numerals = [None] * n if numeral_costs is None else read_numerals(numeral_costs)
    orders = np.argsort(best_cost, axis=1)[:, :alternatives_kept]
    worst = per_edge[np.arange(n), best_arr[np.arange(n), chosen]].max(axis=1)
    out = []
    arr = arrangements()
    # (as Python lists: indexing NumPy arrays element by element costs more than the rest)
    arr_rows, cost_rows = best_arr.tolist(), best_cost.tolist()
    for c, (t, order, runner, worst_c) in enumerate(
        zip(chosen.tolist(), orders.tolist(), runners.tolist(), worst.tolist(), strict=True)
    ):
        arr_c, cost_c = arr_rows[c], cost_rows[c]
        alternatives = tuple((tiles[k], arr[arr_c[k]][1], cost_c[k]) for k in order)
        out.append(
            TileGuess(
                tiles[t], arr[arr_c[t]][1], cost_c[t], runner, numerals[c], alternatives, worst_c
            )
        )
    return out


def numeral_trust(
    sector_costs: FloatArray,
    numeral_costs: FloatArray,
    plain_margin: float,
    plain_cost: float,
    min_tiles: int,
    sharp_agreement: float,
) -> float:
    """How far a photo's numerals are to be trusted, 0..1, from its own tiles.

    The tiles its colours name plainly (alone, with a margin of ``plain_margin`` over any
    other tile and a cost within ``plain_cost``; not the joker, whose white has no hue)
    and whose numeral reads a value say how often a numeral reads its tile's value here:
    ``p``, each numeral counted as clearly as it reads (one more right and one more wrong
    counted, for the few there are). A numeral
    read so is evidence by the odds of its value against each of the five others,
    ``5 p / (1 - p)``; the trust is the log of those odds against the odds of a sharp
    photo's ``sharp_agreement``, from 0 (no better than chance) to 1. Motion blur makes a
    numeral read as another value as clearly as it reads its own. 1 with fewer than
    ``min_tiles`` such tiles: nothing tells.

    Five cells plainly red, yellow, green, blue and purple all over (the five 6s):

    >>> costs = np.full((5, 3, len(TILE_COLOURS)), 30.0)
    >>> for k, colour in enumerate("RYGBP"):
    ...     costs[k, :, TILE_COLOURS.index(Colour.from_letter(colour))] = 2.0
    >>> sixes = np.tile(np.r_[1.0, 1.0, 1.0, 1.0, 1.0, 0.0], (5, 1))
    >>> numeral_trust(costs, sixes, 5.0, 20.0, 5, 0.85)
    1.0
    >>> ones = np.tile(np.r_[0.0, 1.0, 1.0, 1.0, 1.0, 1.0], (5, 1))
    >>> numeral_trust(costs, ones, 5.0, 20.0, 5, 0.85)
    0.0

    Each numeral counts as clearly as it reads (the spread of its costs): two faint ones
    reading 1 among three clear 6s leave the numerals nearly as trusted as five 6s; two
    clear ones, not.

    >>> mixed = np.vstack([sixes[:3], 0.1 * ones[:2]])
    >>> round(numeral_trust(costs, mixed, 5.0, 20.0, 5, 0.85), 2)
    0.92
    >>> round(numeral_trust(costs, np.vstack([sixes[:3], ones[:2]]), 5.0, 20.0, 5, 0.85), 2)
    0.57
    """
    guesses = identify(sector_costs, None, 0.0, alternatives_kept=0)
    numerals = read_numerals(numeral_costs)
    plain = [
        k
        for k, g in enumerate(guesses)
        if numerals[k] is not None
        and not g.tile.is_joker
        and g.cost <= plain_cost
        and g.runner_up - g.cost >= plain_margin
    ]
    if len(plain) < min_tiles:
        return 1.0
    # Each numeral counts as clearly as it reads (its costs' spread: its legibility).
    weight = np.ptp(numeral_costs[plain], axis=1)
    agree = np.array([numerals[k] == guesses[k].tile.value for k in plain])
    unit = float(weight.mean())
    p = (float(weight[agree].sum()) + unit) / (float(weight.sum()) + 2.0 * unit)
    odds = math.log(max(5.0 * p / (1.0 - p), 1.0))
    return float(min(odds / math.log(5.0 * sharp_agreement / (1.0 - sharp_agreement)), 1.0))


def numerals_told(trust: float) -> bool:
    """Whether a photo's numerals read as a sharp photo's do: its :func:`numeral_trust`
    at its cap (or nothing to tell it), so that a numeral reading another value than its
    colours say is evidence.

    >>> numerals_told(1.0), numerals_told(0.9)
    (True, False)
    """
    return trust >= 1.0
