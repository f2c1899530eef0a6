"""Config files: every setting given once, and a bad file refused with its name."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from vision.config import ReaderConfig, config_json
from vision.errors import VisionError


@pytest.mark.parametrize("name", ["reader.json", "tracker.json", "calibration.json"])
def test_the_shipped_configs_give_each_setting_once(name: str) -> None:
    text = resources.files("vision.data").joinpath(name).read_text("utf-8")
    assert config_json(text)  # raises on a key given twice


def test_a_reader_config_with_a_setting_twice_is_refused(tmp_path: Path) -> None:
    text = resources.files("vision.data").joinpath("reader.json").read_text("utf-8")
    doubled = text.replace('  "dark_distance"', '  "dark_distance": 0.5,\n  "dark_distance"', 1)
    assert doubled != text
    path = tmp_path / "reader.json"
    path.write_text(doubled, encoding="utf-8")
    with pytest.raises(VisionError, match="dark_distance"):
        ReaderConfig.load(path)
    path.write_text(text, encoding="utf-8")
    assert ReaderConfig.load(path).dark_distance == ReaderConfig.load().dark_distance


@pytest.mark.parametrize("text", ["[1, 2]", "{", '"a"'])
def test_a_config_that_is_no_json_object_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        config_json(text)
