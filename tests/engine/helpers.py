"""Small builders shared by the engine tests."""

from __future__ import annotations

from engine import SPECTRANGLE36, Board, Colour, Edge, Placement, Tile
from engine.rules import rotations

GEO = SPECTRANGLE36.geometry


def board_of(*notations: str) -> Board:
    """A board holding the given placements (no rule check)."""
    board = Board.empty(GEO)
    for text in notations:
        board = board.place(Placement.from_notation(text))
    return board


def turned(tile: str, index: int, edge: Edge, colour: Colour) -> Placement:
    """``tile`` on cell ``index`` turned so that ``edge`` shows ``colour``."""
    st = SPECTRANGLE36.set_tile(Tile.from_notation(tile))
    for p in rotations(st, index, GEO):
        if p.colour(edge) is colour:
            return p
    raise AssertionError(f"{tile} has no {colour} edge")


def surround(index: int, colour: Colour, count: int, tiles: list[str]) -> Board:
    """A board with ``count`` neighbours of cell ``index`` all showing ``colour`` to it."""
    board = Board.empty(GEO)
    sides = [e for e, o in GEO[index].neighbours if o is not None]
    assert len(sides) >= count, f"cell {index} has only {len(sides)} neighbours"
    for edge, tile in zip(sides[:count], tiles, strict=False):
        across = GEO.across(index, edge)
        assert across is not None
        board = board.place(turned(tile, across[0], across[1], colour))
    return board
