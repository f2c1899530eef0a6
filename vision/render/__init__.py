"""Photographs of the physical Jumbo game, rendered with their truth (see docs/renders)."""

from vision.render.compose import Render, SceneSpec, render, sample_still
from vision.render.truth import Truth, load_truth

__all__ = ["Render", "SceneSpec", "Truth", "load_truth", "render", "sample_still"]
