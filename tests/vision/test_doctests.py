"""The examples in the reader's docstrings, and the renderer's palette's, run (the
suite's doctests cover engine/ only; vision.sources has only a camera example, skipped)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "vision.cells",
    "vision.colour",
    "vision.config",
    "vision.identify",
    "vision.locate",
    "vision.model",
    "vision.numerals",
    "vision.read",
    "vision.rectify",
    "vision.render.palette",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
