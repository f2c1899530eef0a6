"""``spectrangle score``: JSON and readable output, exit statuses, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from spectrangle.cli import main
from tests.engine.test_record import BASE


def write(tmp_path: Path, data: Any, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(write(tmp_path, BASE)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"moves", "totals"}
    assert out["totals"] == {"Ann": 3, "Bob": -2}
    assert out["moves"][1]["legal"] is False and out["moves"][1]["score"] == 0


def test_readable_output_shows_the_arithmetic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(write(tmp_path, BASE))]) == 0
    text = capsys.readouterr().out
    assert "5 (first tile) = 5" in text
    assert "4 x 1 edge = 4" in text
    assert "ILLEGAL" in text
    assert "Unplayed tiles: Ann -8, Bob -6" in text
    assert "Totals: Ann 3, Bob -2" in text
    assert "Winner: Ann" in text


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("not json at all", ["not JSON"]),
        ({"players": ["Ann"], "moves": [{"player": "Ann", "type": "fly"}]}, ["move 1", "type"]),
        (
            {**BASE, "moves": [{**BASE["moves"][0], "edges": {"left": "red"}}]},
            ["move 1", "edges.right"],
        ),
    ],
)
def test_bad_records_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, words: list[str]
) -> None:
    path = write(tmp_path, content)
    assert main(["score", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    for word in words:
        assert word in lines[0]


def test_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_console_command_runs_as_a_process(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    proc = subprocess.run(
        [sys.executable, "-m", "spectrangle.cli", "score", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["totals"] == {"Ann": 3, "Bob": -2}
