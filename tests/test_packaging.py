"""A non-editable install carries the data files each package loads at run time."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_holds_the_package_data(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "engine/data/spectrangle36.json",
        "engine/data/variants.json",
        "vision/data/reader.json",
        "vision/data/bold_digits.npz",
        "webui/templates/base.html",
        "webui/static/style.css",
        "spectrangle/cli.py",
    ):
        assert needed in names, f"{needed} missing from the wheel"
