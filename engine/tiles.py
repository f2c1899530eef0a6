"""Tiles and placements, with their text notation.

A :class:`Tile` is identified by its colour multiset and its value: the colours are
kept in a canonical order, so the same physical tile read in any rotation is equal.

>>> Tile.from_notation("RYB1")
Tile.from_notation('RBY1')
>>> Tile.from_notation("YRR5") == Tile.from_notation("RRY5")
True
>>> str(Tile.from_notation("PPB4"))
'PPB4'

A :class:`Placement` is a tile on a cell with the colour of each edge as placed,
written ``index:LRBv`` (left, right and base colour, then the value):

>>> p = Placement.from_notation("20:RBY1")
>>> p.index, p.left, p.base, p.tile
(20, <Colour.RED: 'red'>, <Colour.YELLOW: 'yellow'>, Tile.from_notation('RBY1'))
>>> Placement.from_notation(str(p)) == p
True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.colours import COLOUR_ORDER, EDGE_ORDER, Colour, Edge
from engine.errors import InvalidNotationError

_TILE_RE = re.compile(r"^([A-Za-z]{3})(\d+)$")
_PLACEMENT_RE = re.compile(r"^(\d+):([A-Za-z]{3})(\d+)$")


def _canonical(colours: Iterable[Colour]) -> tuple[Colour, Colour, Colour]:
    counts = Counter(colours)
    ordered = sorted(counts.elements(), key=lambda c: (-counts[c], COLOUR_ORDER.index(c)))
    if len(ordered) != 3:
        raise InvalidNotationError(f"a tile has 3 colours, not {len(ordered)}", ordered)
    return ordered[0], ordered[1], ordered[2]


@dataclass(frozen=True, order=True)
class Tile:
    """A tile as an identity: its colour multiset (canonical order) and printed value."""

    colours: tuple[Colour, Colour, Colour]
    value: int

    def __post_init__(self) -> None:
        if not isinstance(self.value, int) or isinstance(self.value, bool) or self.value < 0:
            raise InvalidNotationError(f"a tile value is a whole number >= 0: {self.value!r}")
        object.__setattr__(self, "colours", _canonical(self.colours))

    @classmethod
    def from_notation(cls, text: str) -> Tile:
        """Parse ``"RRY5"``: three colour letters in any order, then the value."""
        match = _TILE_RE.match(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise InvalidNotationError(
                f"not a tile: {text!r} (three colour letters and a value, e.g. 'RRY5')", text
            )
        try:
            colours = tuple(Colour.from_letter(ch) for ch in match.group(1))
        except InvalidNotationError as exc:
            raise InvalidNotationError(f"not a tile: {text!r}: {exc}", text) from None
        return cls(colours, int(match.group(2)))  # type: ignore[arg-type]

    def notation(self) -> str:
        return "".join(c.letter for c in self.colours) + str(self.value)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Tile.from_notation({self.notation()!r})"

    @property
    def is_joker(self) -> bool:
        return all(c is Colour.WHITE for c in self.colours)


@dataclass(frozen=True)
class Placement:
    """A tile on a cell, with the colour that lies against each edge."""

    index: int
    left: Colour
    right: Colour
    base: Colour
    value: int

    @classmethod
    def from_edges(
        cls, index: int, edges: Mapping[Edge, Colour] | Mapping[str, str], value: int
    ) -> Placement:
        """A placement from an ``{"left": ..., "right": ..., "base": ...}`` mapping."""
        try:
            cols = {Edge(str(e)): Colour.parse(str(c)) for e, c in edges.items()}
        except ValueError as exc:
            raise InvalidNotationError(f"bad edges {dict(edges)!r}: {exc}", edges) from None
        missing = [e.value for e in EDGE_ORDER if e not in cols]
        if missing:
            raise InvalidNotationError(f"edges lack {', '.join(missing)}", edges)
        return cls(index, cols[Edge.LEFT], cols[Edge.RIGHT], cols[Edge.BASE], value)

    @classmethod
    def from_notation(cls, text: str) -> Placement:
        """Parse ``"20:RBY1"`` (cell index, left, right and base colour letters, value)."""
        match = _PLACEMENT_RE.match(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise InvalidNotationError(
                f"not a placement: {text!r} (e.g. '20:RBY1' = cell 20, left R, right B, base Y,"
                " value 1)",
                text,
            )
        try:
            left, right, base = (Colour.from_letter(ch) for ch in match.group(2))
        except InvalidNotationError as exc:
            raise InvalidNotationError(f"not a placement: {text!r}: {exc}", text) from None
        return cls(int(match.group(1)), left, right, base, int(match.group(3)))

    def colour(self, edge: Edge) -> Colour:
        return {Edge.LEFT: self.left, Edge.RIGHT: self.right, Edge.BASE: self.base}[edge]

    @property
    def edges(self) -> dict[Edge, Colour]:
        return {Edge.LEFT: self.left, Edge.RIGHT: self.right, Edge.BASE: self.base}

    @property
    def tile(self) -> Tile:
        return Tile((self.left, self.right, self.base), self.value)

    def field(self) -> str:
        """The placement without its index: ``"RBY1"`` (left, right, base, value)."""
        return f"{self.left.letter}{self.right.letter}{self.base.letter}{self.value}"

    def notation(self) -> str:
        return f"{self.index}:{self.field()}"

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Placement.from_notation({self.notation()!r})"

    def to_json(self) -> dict[str, object]:
        """The placement as in a game record's move (without player and type)."""
        return {
            "index": self.index,
            "edges": {e.value: self.colour(e).value for e in EDGE_ORDER},
            "value": self.value,
        }
