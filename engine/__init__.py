"""The Spectrangle rules engine: board, tiles, legality, scoring, game state, records.

Pure Python: no OpenCV, NumPy or Flask here.
"""

from engine.board import Board, Cell, Geometry
from engine.colours import Colour, Edge
from engine.errors import (
    GameError,
    IllegalMoveError,
    IllegalPlacementError,
    InvalidNotationError,
    RecordError,
    SpectrangleError,
    VariantError,
)
from engine.rules import Refusal, Score, Verdict, check_placement, legal_placements
from engine.tiles import Placement, Tile
from engine.variant import SPECTRANGLE36, SetTile, Variant, load_variant

__all__ = [
    "SPECTRANGLE36",
    "Board",
    "Cell",
    "Colour",
    "Edge",
    "GameError",
    "Geometry",
    "IllegalMoveError",
    "IllegalPlacementError",
    "InvalidNotationError",
    "Placement",
    "RecordError",
    "Refusal",
    "Score",
    "SetTile",
    "SpectrangleError",
    "Tile",
    "Variant",
    "VariantError",
    "Verdict",
    "check_placement",
    "legal_placements",
    "load_variant",
]
