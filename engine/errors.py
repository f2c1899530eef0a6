"""The engine's error hierarchy.

Every error is a :class:`ValueError` (bad input, not a bug) and carries the offending
input in ``.value`` so that callers can show it or log it.
"""

from __future__ import annotations

from typing import Any


class SpectrangleError(ValueError):
    """Base class of every error raised by the engine."""

    def __init__(self, message: str, value: Any = None) -> None:
        super().__init__(message)
        self.value = value


class InvalidNotationError(SpectrangleError):
    """A tile, placement or board notation that cannot be parsed."""


class VariantError(SpectrangleError):
    """A board or tile-set description that is inconsistent or unknown."""


class IllegalMoveError(SpectrangleError):
    """A move that the rules refuse; ``.refusal`` says which rule."""

    def __init__(self, message: str, value: Any = None, refusal: Any = None) -> None:
        super().__init__(message, value)
        self.refusal = refusal


class IllegalPlacementError(IllegalMoveError):
    """A placement that the rules refuse."""


class GameError(SpectrangleError):
    """A request that does not fit the game's state (e.g. undo with no history)."""


class RecordError(SpectrangleError):
    """A game record that is not JSON or not of the record's shape.

    ``move`` is the 1-based move number (``None`` for top-level fields) and ``field``
    the offending field, e.g. ``"edges.left"``.
    """

    def __init__(
        self, message: str, value: Any = None, move: int | None = None, field: str | None = None
    ) -> None:
        where = []
        if move is not None:
            where.append(f"move {move}")
        if field is not None:
            where.append(f"field '{field}'")
        full = f"{', '.join(where)}: {message}" if where else message
        super().__init__(full, value)
        self.move = move
        self.field = field
