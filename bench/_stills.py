"""The labelled stills of a folder, shared by the benches."""

from __future__ import annotations

from pathlib import Path


def labelled_stills(folder: Path, limit: int = 0) -> list[Path]:
    """The truth files (``*.json`` with a ``.jpg`` beside them) under ``folder``, in name
    order, the first ``limit`` of them when it is not 0."""
    truths = sorted(p for p in folder.rglob("*.json") if p.with_suffix(".jpg").exists())
    return truths[:limit] if limit else truths
