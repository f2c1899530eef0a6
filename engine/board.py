"""Board geometry (cells, edges, neighbours, bonus, rotation) and board states.

The geometry is data: it is built from the ``cells`` list of a variant file, so any
triangular board fits. Board states are immutable; :meth:`Board.place` returns a new board.

>>> from engine.variant import SPECTRANGLE36
>>> geo = SPECTRANGLE36.geometry
>>> len(geo), geo[2].bonus, geo[0].neighbour(Edge.BASE)
(36, 3, 2)
>>> geo.rotation[0]  # the apex cell goes to a corner cell under a 120-degree turn
35
>>> board = Board.empty(geo).place(Placement.from_notation("20:RBY1"))
>>> Board.from_notation(board.notation(), geo) == board
True
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from engine.colours import EDGE_ORDER, Colour, Edge
from engine.errors import InvalidNotationError, VariantError
from engine.tiles import Placement, Tile

Point = tuple[float, float]


@dataclass(frozen=True)
class Cell:
    """One triangular cell of the board, in board-plane units (tile side = 1)."""

    index: int
    row: int
    col: int
    orientation: str  # "up" or "down"
    bonus: int
    vertices: tuple[Point, Point, Point]
    neighbours: tuple[tuple[Edge, int | None], ...]
    edges_clockwise: tuple[Edge, Edge, Edge]

    def neighbour(self, edge: Edge) -> int | None:
        """The index of the cell across ``edge``, or ``None`` on the border."""
        return dict(self.neighbours)[edge]

    @property
    def centroid(self) -> Point:
        xs, ys = zip(*self.vertices, strict=True)
        return (sum(xs) / 3.0, sum(ys) / 3.0)

    def edge_vertices(self, edge: Edge) -> tuple[Point, Point]:
        """The two end points of an edge (base is the horizontal edge)."""
        return _edge_vertices(self.vertices)[edge]

    def edge_midpoint(self, edge: Edge) -> Point:
        a, b = self.edge_vertices(edge)
        return ((a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0)


def _edge_vertices(vertices: Sequence[Point]) -> dict[Edge, tuple[Point, Point]]:
    pairs = [(vertices[i], vertices[(i + 1) % 3]) for i in range(3)]
    base = min(pairs, key=lambda p: abs(p[0][1] - p[1][1]))
    slanted = sorted((p for p in pairs if p is not base), key=lambda p: p[0][0] + p[1][0])
    return {Edge.BASE: base, Edge.LEFT: slanted[0], Edge.RIGHT: slanted[1]}


class Geometry(Sequence[Cell]):
    """The cells of a board, and its 120-degree rotation as permutations."""

    def __init__(self, cells: Sequence[Cell]) -> None:
        self._cells = tuple(cells)
        if [c.index for c in self._cells] != list(range(len(self._cells))):
            raise VariantError("cells must be listed in index order from 0", cells)
        self._check_neighbours()
        self._across = {
            (c.index, e): (o, self._facing(o, c.index))
            for c in self._cells
            for e, o in c.neighbours
            if o is not None
        }
        self.rotation, self.edge_rotation = self._rotation()

    def _facing(self, index: int, other: int) -> Edge:
        return next(e for e, o in self._cells[index].neighbours if o == other)

    def across(self, index: int, edge: Edge) -> tuple[int, Edge] | None:
        """The neighbouring cell across ``edge`` and the name of its edge facing back."""
        return self._across.get((index, edge))

    @classmethod
    def from_data(cls, cells: Sequence[Mapping[str, object]]) -> Geometry:
        built = []
        for raw in cells:
            try:
                neigh = raw["neighbours"]
                assert isinstance(neigh, Mapping)
                verts = raw["vertices"]
                assert isinstance(verts, Sequence)
                clockwise = raw["edges_clockwise"]
                assert isinstance(clockwise, Sequence)
                built.append(
                    Cell(
                        index=int(raw["index"]),  # type: ignore[call-overload]
                        row=int(raw["row"]),  # type: ignore[call-overload]
                        col=int(raw["col"]),  # type: ignore[call-overload]
                        orientation=str(raw["orientation"]),
                        bonus=int(raw["bonus"]),  # type: ignore[call-overload]
                        vertices=tuple((float(x), float(y)) for x, y in verts),  # type: ignore[arg-type]
                        neighbours=tuple((Edge(e), neigh[e.value]) for e in EDGE_ORDER),
                        edges_clockwise=tuple(Edge(e) for e in clockwise),  # type: ignore[arg-type]
                    )
                )
            except (KeyError, TypeError, ValueError, AssertionError) as exc:
                raise VariantError(f"malformed cell {raw!r}: {exc!r}", raw) from None
        return cls(built)

    def _check_neighbours(self) -> None:
        for cell in self._cells:
            for _edge, other in cell.neighbours:
                if other is None:
                    continue
                back = [e for e, o in self._cells[other].neighbours if o == cell.index]
                if len(back) != 1:
                    raise VariantError(f"cells {cell.index} and {other} disagree on adjacency")

    def _rotation(self) -> tuple[tuple[int, ...], dict[tuple[int, Edge], tuple[int, Edge]]]:
        pts = [v for c in self._cells for v in c.vertices]
        cx = sum(p[0] for p in pts) / len(pts)
        cy = sum(p[1] for p in pts) / len(pts)
        cos, sin = math.cos(2 * math.pi / 3), math.sin(2 * math.pi / 3)

        def turn(p: Point) -> Point:
            dx, dy = p[0] - cx, p[1] - cy
            return (cx + cos * dx - sin * dy, cy + sin * dx + cos * dy)

        def nearest(p: Point, candidates: dict[Point, object]) -> object:
            best = min(candidates, key=lambda q: (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2)
            if math.dist(best, p) > 1e-3:
                raise VariantError("the board is not symmetric under a 120-degree turn")
            return candidates[best]

        centroids: dict[Point, object] = {c.centroid: c.index for c in self._cells}

        def inside(c: Cell, e: Edge) -> Point:
            # A point just inside the cell near the edge's midpoint: a shared edge
            # has one midpoint but two sides.
            (mx, my), (gx, gy) = c.edge_midpoint(e), c.centroid
            return (0.8 * mx + 0.2 * gx, 0.8 * my + 0.2 * gy)

        midpoints: dict[Point, object] = {
            inside(c, e): (c.index, e) for c in self._cells for e in EDGE_ORDER
        }
        perm = tuple(int(nearest(turn(c.centroid), centroids)) for c in self._cells)  # type: ignore[call-overload]
        edge_perm: dict[tuple[int, Edge], tuple[int, Edge]] = {}
        for c in self._cells:
            for e in EDGE_ORDER:
                target = nearest(turn(inside(c, e)), midpoints)
                edge_perm[(c.index, e)] = target  # type: ignore[assignment]
        return perm, edge_perm

    def __len__(self) -> int:
        return len(self._cells)

    def __getitem__(self, index: int) -> Cell:  # type: ignore[override]
        if not isinstance(index, int) or not 0 <= index < len(self._cells):
            raise IndexError(f"no cell {index!r} (0..{len(self._cells) - 1})")
        return self._cells[index]

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._cells)

    @property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        """Cell indices row by row."""
        out: dict[int, list[int]] = {}
        for c in self._cells:
            out.setdefault(c.row, []).append(c.index)
        return tuple(tuple(out[r]) for r in sorted(out))

    @property
    def side(self) -> float:
        """The side of the playing triangle in tile units."""
        return float(len(self.rows))


@dataclass(frozen=True)
class Board:
    """An immutable board state: one :class:`Placement` or ``None`` per cell."""

    geometry: Geometry = field(repr=False, compare=False)
    cells: tuple[Placement | None, ...]

    @classmethod
    def empty(cls, geometry: Geometry) -> Board:
        return cls(geometry, (None,) * len(geometry))

    def __getitem__(self, index: int) -> Placement | None:
        return self.cells[index]

    def __len__(self) -> int:
        return len(self.cells)

    def place(self, placement: Placement) -> Board:
        """A new board with ``placement`` added (no rule check: see :mod:`engine.rules`)."""
        cells = list(self.cells)
        cells[placement.index] = placement
        return Board(self.geometry, tuple(cells))

    def remove(self, index: int) -> Board:
        cells = list(self.cells)
        cells[index] = None
        return Board(self.geometry, tuple(cells))

    @property
    def placements(self) -> tuple[Placement, ...]:
        return tuple(p for p in self.cells if p is not None)

    @property
    def tiles(self) -> frozenset[Tile]:
        return frozenset(p.tile for p in self.placements)

    def is_empty(self) -> bool:
        return all(p is None for p in self.cells)

    def is_full(self) -> bool:
        return all(p is not None for p in self.cells)

    def rotated(self) -> Board:
        """The same position seen with the board turned by 120 degrees."""
        cells: list[Placement | None] = [None] * len(self.cells)
        for p in self.placements:
            edges: dict[Edge, Colour] = {}
            target = self.geometry.rotation[p.index]
            for e in EDGE_ORDER:
                cell, new_edge = self.geometry.edge_rotation[(p.index, e)]
                assert cell == target
                edges[new_edge] = p.colour(e)
            cells[target] = Placement.from_edges(target, edges, p.value)
        return Board(self.geometry, tuple(cells))

    def notation(self) -> str:
        """One line of fields in index order, ``.`` for empty, ``/`` between rows."""
        rows = [" ".join(self._field(i) for i in row) for row in self.geometry.rows]
        return " / ".join(rows)

    def _field(self, index: int) -> str:
        p = self.cells[index]
        return "." if p is None else p.field()

    @classmethod
    def from_notation(cls, text: str, geometry: Geometry) -> Board:
        """Parse :meth:`notation` (row separators ``/`` are optional)."""
        if not isinstance(text, str):
            raise InvalidNotationError(f"not a board: {text!r}", text)
        tokens = text.split()
        if "/" in tokens:
            rows = " ".join(tokens).split("/")
            lengths = [len(r.split()) for r in rows]
            expected = [len(r) for r in geometry.rows]
            if lengths != expected:
                raise InvalidNotationError(
                    f"board rows have {lengths} fields, expected {expected}", text
                )
        fields = [t for t in tokens if t != "/"]
        if len(fields) != len(geometry):
            raise InvalidNotationError(
                f"a board has {len(geometry)} fields, got {len(fields)}: {text!r}", text
            )
        cells: list[Placement | None] = []
        for i, f in enumerate(fields):
            cells.append(None if f == "." else Placement.from_notation(f"{i}:{f}"))
        return cls(geometry, tuple(cells))

    def __str__(self) -> str:
        return self.notation()
