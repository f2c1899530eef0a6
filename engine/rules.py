"""Legality and scoring of placements, and the enumeration of legal placements.

Every refusal has a :class:`Refusal` code and a sentence that names what is wrong.

>>> from engine.variant import SPECTRANGLE36 as V
>>> board = Board.empty(V.geometry)
>>> check_placement(board, Placement.from_notation("2:RRY5"), V).reason
'the first tile may not go on a bonus cell (cell 2 is x3)'
>>> board = board.place(Placement.from_notation("6:RRY5"))
>>> verdict = check_placement(board, Placement.from_notation("5:YPP5"), V)
>>> verdict.legal, verdict.refusal.value
(False, 'colour_mismatch')
>>> verdict.reason
"the right edge of cell 5 is purple but cell 6's left edge is red"
>>> check_placement(board, Placement.from_notation("5:BRR4"), V).score.arithmetic()
'4 x 1 edge = 4'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from engine.board import Board, Geometry
from engine.colours import EDGE_ORDER, Colour, Edge
from engine.errors import IllegalPlacementError
from engine.tiles import Placement, Tile
from engine.variant import SetTile, Variant


class Refusal(StrEnum):
    """Why a move is refused."""

    NO_SUCH_CELL = "no_such_cell"
    NOT_A_TILE = "not_a_tile"
    OCCUPIED = "occupied"
    ALREADY_PLAYED = "already_played"
    NOT_IN_HAND = "not_in_hand"
    FIRST_ON_BONUS = "first_on_bonus"
    NOT_TOUCHING = "not_touching"
    COLOUR_MISMATCH = "colour_mismatch"
    MUST_PLAY = "must_play"
    OUT_OF_TURN = "out_of_turn"
    GAME_OVER = "game_over"
    BAG_EMPTY = "bag_empty"
    NOT_IN_BAG = "not_in_bag"


@dataclass(frozen=True)
class Score:
    """The arithmetic of one placement: value x touching edges x bonus."""

    value: int
    edges: int
    bonus: int

    @property
    def points(self) -> int:
        return self.value * max(1, self.edges) * self.bonus

    def arithmetic(self) -> str:
        """``"5 x 2 edges x bonus 3 = 30"``; the first tile: ``"5 (first tile) = 5"``."""
        if self.edges == 0:
            return f"{self.value} (first tile) = {self.points}"
        text = f"{self.value} x {self.edges} edge{'s' if self.edges > 1 else ''}"
        if self.bonus > 1:
            text += f" x bonus {self.bonus}"
        return f"{text} = {self.points}"


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a move: a score when legal, a refusal and reason when not."""

    refusal: Refusal | None = None
    reason: str = ""
    score: Score | None = None

    @property
    def legal(self) -> bool:
        return self.refusal is None

    @property
    def points(self) -> int:
        return self.score.points if self.score is not None else 0

    @classmethod
    def refuse(cls, refusal: Refusal, reason: str) -> Verdict:
        return cls(refusal, reason, None)


def touching_edges(board: Board, placement: Placement) -> list[tuple[Edge, int, Edge]]:
    """The edges of ``placement`` that touch a tile: ``(edge, neighbour, neighbour's edge)``."""
    out = []
    for edge in EDGE_ORDER:
        across = board.geometry.across(placement.index, edge)
        if across is not None and board[across[0]] is not None:
            out.append((edge, across[0], across[1]))
    return out


def score_placement(board: Board, placement: Placement) -> Score:
    """The score of a placement assumed legal (the first tile scores its value)."""
    cell = board.geometry[placement.index]
    touching = len(touching_edges(board, placement))
    if board.is_empty():
        return Score(placement.value, 0, 1)
    return Score(placement.value, touching, cell.bonus)


def check_placement(
    board: Board,
    placement: Placement,
    variant: Variant,
    hand: Iterable[Tile] | None = None,
) -> Verdict:
    """Check ``placement`` on ``board``; ``hand`` is the player's tiles when known."""
    geometry = board.geometry
    if not 0 <= placement.index < len(geometry):
        return Verdict.refuse(
            Refusal.NO_SUCH_CELL, f"there is no cell {placement.index} (0..{len(geometry) - 1})"
        )
    tile = placement.tile
    if not variant.has_tile(tile):
        return Verdict.refuse(Refusal.NOT_A_TILE, f"there is no tile {tile} in the set")
    occupant = board[placement.index]
    if occupant is not None:
        return Verdict.refuse(
            Refusal.OCCUPIED, f"cell {placement.index} already holds {occupant.tile}"
        )
    for placed in board.placements:
        if placed.tile == tile:
            return Verdict.refuse(
                Refusal.ALREADY_PLAYED,
                f"tile {tile} is already on the board at cell {placed.index}",
            )
    if hand is not None:
        held = list(hand)
        if tile not in held:
            shown = " ".join(str(t) for t in held) or "nothing"
            return Verdict.refuse(
                Refusal.NOT_IN_HAND, f"tile {tile} is not in the player's hand ({shown})"
            )
    cell = geometry[placement.index]
    if board.is_empty():
        if cell.bonus > 1:
            return Verdict.refuse(
                Refusal.FIRST_ON_BONUS,
                f"the first tile may not go on a bonus cell (cell {cell.index} is x{cell.bonus})",
            )
        return Verdict(score=score_placement(board, placement))
    touching = touching_edges(board, placement)
    if not touching:
        return Verdict.refuse(
            Refusal.NOT_TOUCHING, f"cell {cell.index} does not touch any tile on the board"
        )
    clashes = []
    for edge, other_index, other_edge in touching:
        other = board[other_index]
        assert other is not None
        mine, theirs = placement.colour(edge), other.colour(other_edge)
        if not mine.matches(theirs):
            clashes.append(
                f"the {edge.value} edge of cell {cell.index} is {mine.value} but cell "
                f"{other_index}'s {other_edge.value} edge is {theirs.value}"
            )
    if clashes:
        return Verdict.refuse(Refusal.COLOUR_MISMATCH, "; ".join(clashes))
    return Verdict(score=score_placement(board, placement))


def validate_placement(
    board: Board, placement: Placement, variant: Variant, hand: Iterable[Tile] | None = None
) -> Score:
    """Like :func:`check_placement` but raises :class:`IllegalPlacementError` when refused."""
    verdict = check_placement(board, placement, variant, hand)
    if verdict.score is None:
        raise IllegalPlacementError(
            f"illegal placement {placement}: {verdict.reason}", placement, verdict.refusal
        )
    return verdict.score


@cache
def rotations(set_tile: SetTile, index: int, geometry: Geometry) -> tuple[Placement, ...]:
    """The distinct placements of a physical tile on a cell (its 3 rotations, no flips)."""
    cell = geometry[index]
    seen: dict[tuple[Colour, Colour, Colour], Placement] = {}
    for r in range(3):
        edges = {e: set_tile.clockwise[(i + r) % 3] for i, e in enumerate(cell.edges_clockwise)}
        p = Placement(index, edges[Edge.LEFT], edges[Edge.RIGHT], edges[Edge.BASE], set_tile.value)
        seen.setdefault((p.left, p.right, p.base), p)
    return tuple(seen.values())


def _iter_legal(
    board: Board, variant: Variant, tiles: Iterable[Tile] | None
) -> Iterator[Placement]:
    on_board = board.tiles
    pool = variant.all_tiles if tiles is None else frozenset(tiles)
    candidates = [variant.set_tile(t) for t in sorted(pool) if t not in on_board]
    first = board.is_empty()
    geometry = board.geometry
    for cell in geometry:
        if board[cell.index] is not None:
            continue
        constraints: list[tuple[Edge, Colour]] = []
        if first:
            if cell.bonus > 1:
                continue
        else:
            for edge in EDGE_ORDER:
                across = geometry.across(cell.index, edge)
                other = board[across[0]] if across is not None else None
                if across is not None and other is not None:
                    constraints.append((edge, other.colour(across[1])))
            if not constraints:
                continue
        for st in candidates:
            for p in rotations(st, cell.index, geometry):
                if all(p.colour(e).matches(c) for e, c in constraints):
                    yield p


def legal_placements(
    board: Board, variant: Variant, tiles: Iterable[Tile] | None = None
) -> list[Placement]:
    """Every legal placement of ``tiles`` (default: every tile not on the board).

    Tiles are turned, never flipped, so each tile is tried in its 3 physical rotations.
    The rules are those of :func:`check_placement` (a test holds the two together).
    """
    return list(_iter_legal(board, variant, tiles))


def can_play(board: Board, variant: Variant, hand: Iterable[Tile]) -> bool:
    """Whether any tile of ``hand`` has a legal placement."""
    return next(_iter_legal(board, variant, hand), None) is not None
