"""Vision: locate the board in a frame, read its cells, follow a game from a camera."""

from vision.errors import (
    BoardNotFoundError,
    CalibrationError,
    SourceError,
    UnreadableImageError,
    VisionError,
)
from vision.read import BoardReader, BoardReading, CellReading, load_image
from vision.rectify import BoardFit
from vision.sources import FrameSource, open_source
from vision.track import (
    Correction,
    Event,
    Located,
    Look,
    Placed,
    Removal,
    Resumed,
    Tracker,
    TrackerConfig,
    Uncertain,
)

__all__ = [
    "BoardFit",
    "BoardNotFoundError",
    "BoardReader",
    "BoardReading",
    "CalibrationError",
    "CellReading",
    "Correction",
    "Event",
    "FrameSource",
    "Located",
    "Look",
    "Placed",
    "Removal",
    "Resumed",
    "SourceError",
    "Tracker",
    "TrackerConfig",
    "Uncertain",
    "UnreadableImageError",
    "VisionError",
    "load_image",
    "open_source",
]
