"""The vision error hierarchy: every error carries the offending input in ``.value``."""

from __future__ import annotations

from typing import Any


class VisionError(ValueError):
    """Base class of the errors raised by :mod:`vision`."""

    def __init__(self, message: str, value: Any = None) -> None:
        super().__init__(message)
        self.value = value


class UnreadableImageError(VisionError):
    """A file or frame that is not an image (missing, corrupt, empty, wrong dtype)."""


class BoardNotFoundError(VisionError):
    """No Spectrangle board could be located in the frame."""


class CalibrationError(VisionError):
    """A calibration profile that cannot be used (corrupt, foreign, wrong version)."""


class SourceError(VisionError):
    """A frame source that cannot be opened (no such camera, file, folder or URL)."""
