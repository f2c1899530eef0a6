"""The benchmark of photos of other kinds: it makes its sets and reports their figures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from bench_kinds import FIGURES, figures, main  # noqa: E402


def test_a_kind_is_generated_once_and_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path), "--stills", "1", "--kinds", "usual,creases"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("  ")[0]: line for line in out.splitlines() if line[:1].isalpha()}
    assert {"usual", "creases"} <= rows.keys()
    for name in ("usual", "creases"):
        # every figure read from bench_read's report: none left as "?"
        assert "?" not in rows[name].split()[1:]
        assert (tmp_path / f"{name}_9898" / "stills" / "000000.jpg").is_file()
    before = (tmp_path / "usual_9898" / "stills" / "000000.jpg").stat().st_mtime_ns
    assert main([str(tmp_path), "--stills", "1", "--kinds", "usual"]) == 0
    assert (tmp_path / "usual_9898" / "stills" / "000000.jpg").stat().st_mtime_ns == before


def test_an_unknown_kind_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path), "--kinds", "usual,sepia"]) == 2
    assert "no kind sepia" in capsys.readouterr().out
    assert not any(tmp_path.iterdir())


def test_figures_are_read_off_the_report() -> None:
    report = "\n".join(
        [
            "board found up to 45 degrees of tilt: 99.3% of 136",
            "tiles read exactly: 99.68% of 2201 (unknown 7, wrong 2)",
            "tiles read exactly, boards not found counted: 99.61% of 2201",
            "whole images exactly right: 95.3%",
            "read time: median 46 ms, 90% 200 ms (one core)",
        ]
    )
    assert figures(report) == ["95.3%", "99.61%", "7", "2", "99.3%", "46"]
    assert len(FIGURES) == 6
