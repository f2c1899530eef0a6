"""The vocabulary of colours and edges.

>>> Colour.from_letter("R")
<Colour.RED: 'red'>
>>> Colour.WHITE.matches(Colour.PURPLE), Colour.RED.matches(Colour.BLUE)
(True, False)
>>> Colour.parse("yellow").letter
'Y'
"""

from __future__ import annotations

from enum import StrEnum

from engine.errors import InvalidNotationError


class Colour(StrEnum):
    """A tile colour. White is the joker colour and matches every colour."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"
    YELLOW = "yellow"
    PURPLE = "purple"
    WHITE = "white"

    @property
    def letter(self) -> str:
        """The one-letter notation (R G B Y P W)."""
        return _LETTERS[self]

    @classmethod
    def from_letter(cls, letter: str) -> Colour:
        try:
            return _BY_LETTER[letter.upper()]
        except KeyError:
            raise InvalidNotationError(
                f"not a colour letter: {letter!r} (one of {' '.join(_BY_LETTER)})", letter
            ) from None

    @classmethod
    def parse(cls, text: object) -> Colour:
        """A colour from its name (``"red"``) or its letter (``"R"``)."""
        if not isinstance(text, str):
            raise InvalidNotationError(f"not a colour: {text!r}", text)
        try:
            return cls(text.lower())
        except ValueError:
            pass
        if len(text) == 1:
            return cls.from_letter(text)
        names = " ".join(c.value for c in cls)
        raise InvalidNotationError(f"not a colour: {text!r} (one of {names})", text)

    def matches(self, other: Colour) -> bool:
        """Whether two touching edges may lie side by side (white matches all)."""
        return self is other or self is Colour.WHITE or other is Colour.WHITE

    def __str__(self) -> str:
        return self.value


_LETTERS = {
    Colour.RED: "R",
    Colour.GREEN: "G",
    Colour.BLUE: "B",
    Colour.YELLOW: "Y",
    Colour.PURPLE: "P",
    Colour.WHITE: "W",
}
_BY_LETTER = {letter: colour for colour, letter in _LETTERS.items()}
#: Canonical order of colours in tile notation.
COLOUR_ORDER: tuple[Colour, ...] = tuple(Colour)


class Edge(StrEnum):
    """The three edges of a cell: ``base`` is the horizontal one."""

    LEFT = "left"
    RIGHT = "right"
    BASE = "base"

    def __str__(self) -> str:
        return self.value


#: The order of edges in placement notation: left, right, base.
EDGE_ORDER: tuple[Edge, ...] = (Edge.LEFT, Edge.RIGHT, Edge.BASE)
