"""Naming tiles from sector colours and numerals, with the tile set's constraints."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Colour, Tile
from vision.colour import TILE_COLOURS
from vision.identify import identify, set_tiles

R, G, B, Y, P, W = (
    Colour.RED,
    Colour.GREEN,
    Colour.BLUE,
    Colour.YELLOW,
    Colour.PURPLE,
    Colour.WHITE,
)


def costs_for(*cells: tuple[Colour, Colour, Colour]) -> np.ndarray:
    """(N, 3, 6) colour costs: 0 for the colour seen on each edge, 40 for the others."""
    out = np.full((len(cells), 3, len(TILE_COLOURS)), 40.0)
    for n, edges in enumerate(cells):
        for e, colour in enumerate(edges):
            out[n, e, TILE_COLOURS.index(colour)] = 0.0
    return out


def numerals_for(*values: int | None) -> np.ndarray:
    """(N, 6) numeral costs: 0 for the value read, 1 for the others; flat when unread."""
    out = np.zeros((len(values), 6))
    for n, v in enumerate(values):
        if v is not None:
            out[n] = 1.0
            out[n, v - 1] = 0.0
    return out


@pytest.mark.parametrize(
    ("edges", "tile"),
    [
        ((R, R, R), "RRR6"),
        ((W, W, W), "WWW1"),
        ((R, B, Y), "RBY1"),  # as seen, whichever way round the tile lies
        ((Y, R, B), "RBY1"),
        ((G, G, R), "GGR5"),
    ],
)
def test_colours_alone_name_the_tile(edges: tuple[Colour, Colour, Colour], tile: str) -> None:
    (guess,) = identify(costs_for(edges), None, 10.0)
    assert guess.tile == Tile.from_notation(tile)
    assert guess.edges == edges
    assert guess.cost == 0.0 and guess.runner_up > 0.0
    assert guess.numeral is None


@pytest.mark.parametrize(("value", "numeral"), [(None, None), (1, 1), (4, 4), (6, 6)])
def test_an_unread_numeral_is_no_value(value: int | None, numeral: int | None) -> None:
    """Flat numeral costs (no numeral seen) must not read as a 1."""
    (guess,) = identify(costs_for((W, W, W)), numerals_for(value), 10.0)
    assert guess.numeral == numeral


def test_each_tile_is_named_once() -> None:
    """Two cells that both look most like RRR6: the cheaper keeps it."""
    costs = costs_for((R, R, R), (R, R, R))
    costs[1, 2, TILE_COLOURS.index(R)] = 5.0  # the second is less sure of its base
    first, second = identify(costs, None, 10.0)
    assert first.tile == Tile.from_notation("RRR6")
    assert second.tile != first.tile


def _white_cell(white: float, others: float) -> np.ndarray:
    """(3, 6) colour costs of a cell ``white`` from white on each edge, ``others`` from
    every other colour."""
    out = np.full((3, len(TILE_COLOURS)), others)
    out[:, TILE_COLOURS.index(W)] = white
    return out


@pytest.mark.parametrize(
    ("palm", "joker", "reject", "palm_refused", "joker_wins"),
    [
        # (the palm's costs, the joker's, reject_cost, the palm may not be the joker)
        # Plain assignment: the palm has nothing else to take, so it takes the joker.
        ((6.0, 60.0), (1.0, 40.0), None, False, False),
        # Costs past rejection alike: the whiter cell keeps the joker.
        ((6.0, 60.0), (1.0, 40.0), 38.0, False, True),
        ((0.5, 60.0), (1.0, 40.0), 38.0, False, False),
        # A palm told not to be the joker (no navy disc, no numeral 1) takes it from none.
        ((0.5, 60.0), (1.0, 40.0), 38.0, True, True),
        # Both well within rejection: the cheapest total, as before.
        ((6.0, 20.0), (1.0, 30.0), 38.0, False, True),
    ],
)
def test_a_cell_unlike_every_tile_takes_none_from_the_tile_shown(
    palm: tuple[float, float],
    joker: tuple[float, float],
    reject: float | None,
    palm_refused: bool,
    joker_wins: bool,
) -> None:
    costs = np.stack([_white_cell(*palm), _white_cell(*joker)])
    refused = None
    if palm_refused:
        refused = np.zeros((2, len(set_tiles()[0])), dtype=bool)
        refused[0, [t.is_joker for t in set_tiles()[0]]] = True
    palm_guess, joker_guess = identify(costs, None, 10.0, reject_cost=reject, refused=refused)
    assert joker_guess.tile.is_joker is joker_wins
    assert palm_guess.tile.is_joker is not joker_wins
    if not joker_wins:  # named by elimination: its runner-up is the joker, far cheaper
        assert joker_guess.runner_up < joker_guess.cost
