"""The examples in the web app's docstrings run (the suite's doctests cover engine/ only)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["webui.store", "webui.broadcast", "webui.drawing", "webui.app"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
