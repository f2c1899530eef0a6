"""The truth that comes with every rendered image, and its JSON file.

Shape of the JSON (same stem as the image)::

    {"board": "<board notation>",
     "cells": [{"index": 0, "state": "empty"} | {"index": 1, "state": "tile", "value": 5,
               "edges": {"left": "red", "right": "red", "base": "yellow"}}
               | {"index": 2, "state": "unknown"}, ...],      # 36 entries, reader format
     "corners": [[x, y] apex, [x, y] bottom-right, [x, y] bottom-left],  # distorted image
     "homography": 3x3 board plane -> undistorted image,
     "covered": [cell indices hidden by a hand or object],
     "outside": [cell indices (partly) outside the frame],
     "illegal": [cells holding a tile placed illegally],
     "camera": {"width", "height", "K", "rvec", "tvec", "dist"},
     "conditions": {...}, "seed": n, "image": "<file name>"}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine import SPECTRANGLE36, Board, Edge


@dataclass(frozen=True)
class Truth:
    """What an image shows. ``cells`` are in the reader's output shape."""

    board: str
    cells: tuple[Mapping[str, Any], ...] = field(repr=False)
    corners: tuple[tuple[float, float], ...]
    homography: tuple[tuple[float, ...], ...] = field(repr=False)
    covered: tuple[int, ...]
    outside: tuple[int, ...]
    conditions: Mapping[str, Any] = field(repr=False)
    seed: int
    camera: Mapping[str, Any] = field(repr=False, default_factory=dict)
    illegal: tuple[int, ...] = ()
    image: str = ""

    @property
    def board_state(self) -> Board:
        return Board.from_notation(self.board, SPECTRANGLE36.geometry)

    @property
    def unknown(self) -> tuple[int, ...]:
        return tuple(c["index"] for c in self.cells if c["state"] == "unknown")

    def homography_array(self) -> np.ndarray:
        return np.array(self.homography, np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "image": self.image,
            "board": self.board,
            "cells": [dict(c) for c in self.cells],
            "corners": [list(c) for c in self.corners],
            "homography": [list(r) for r in self.homography],
            "covered": list(self.covered),
            "outside": list(self.outside),
            "illegal": list(self.illegal),
            "camera": dict(self.camera),
            "conditions": dict(self.conditions),
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Truth:
        return cls(
            board=str(data["board"]),
            cells=tuple(dict(c) for c in data["cells"]),
            corners=tuple((float(x), float(y)) for x, y in data["corners"]),
            homography=tuple(tuple(float(v) for v in r) for r in data["homography"]),
            covered=tuple(int(i) for i in data.get("covered", ())),
            outside=tuple(int(i) for i in data.get("outside", ())),
            conditions=dict(data.get("conditions", {})),
            seed=int(data.get("seed", 0)),
            camera=dict(data.get("camera", {})),
            illegal=tuple(int(i) for i in data.get("illegal", ())),
            image=str(data.get("image", "")),
        )


def cell_entries(board: Board, unknown: Iterable[int]) -> tuple[dict[str, Any], ...]:
    """The 36 cell entries in the reader's shape; ``unknown`` cells are reported unknown."""
    hidden = set(unknown)
    out: list[dict[str, Any]] = []
    for i in range(len(board)):
        p = board[i]
        if i in hidden:
            out.append({"index": i, "state": "unknown"})
        elif p is None:
            out.append({"index": i, "state": "empty"})
        else:
            out.append(
                {
                    "index": i,
                    "state": "tile",
                    "value": p.value,
                    "edges": {
                        e.value: p.colour(e).value for e in (Edge.LEFT, Edge.RIGHT, Edge.BASE)
                    },
                }
            )
    return tuple(out)


def save_truth(truth: Truth, path: str | Path) -> None:
    Path(path).write_text(
        json.dumps(truth.to_json(), separators=(",", ":")) + "\n", encoding="utf-8"
    )


def load_truth(path: str | Path) -> Truth:
    """Read the truth JSON written beside an image (pass the .json or the image path)."""
    p = Path(path)
    if p.suffix.lower() != ".json":
        p = p.with_suffix(".json")
    return Truth.from_json(json.loads(p.read_text(encoding="utf-8")))
