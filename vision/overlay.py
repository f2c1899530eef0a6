"""Drawing the fitted lattice and the readings over a frame (``spectrangle read --overlay``)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import NOMINAL_SRGB
from vision.model import CENTROIDS, PLAY_CORNERS, VERTICES
from vision.read import EMPTY, TILE, BoardReading

_STATE_BGR = {EMPTY: (160, 160, 160), TILE: (0, 220, 0), "unknown": (0, 165, 255)}


def draw_overlay(frame_bgr: NDArray[np.uint8], reading: BoardReading) -> NDArray[np.uint8]:
    """A copy of ``frame_bgr`` (H, W, 3) uint8 with the lattice and readings drawn on it."""
    out = frame_bgr.copy()
    h, w = out.shape[:2]
    thick = max(1, round(max(h, w) / 900))
    if not reading.found or reading.fit is None:
        cv2.putText(
            out,
            f"board not found: {reading.reason}"[:90],
            (10, 30),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.7,
            (0, 0, 255),
            2,
            cv2.LINE_AA,
        )
        return out
    fit = reading.fit
    for tri in VERTICES:
        pts = np.round(fit.to_image(tri)).astype(np.int32)
        cv2.polylines(out, [pts], True, (255, 255, 0), thick, cv2.LINE_AA)
    corners = fit.to_image(PLAY_CORNERS)
    for k, (x, y) in enumerate(corners):
        cv2.circle(
            out, (int(round(x)), int(round(y))), 6 * thick, (255, 0, 255), thick, cv2.LINE_AA
        )
        if k == 0:
            cv2.putText(
                out,
                "apex",
                (int(x) + 8, int(y)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                (255, 0, 255),
                thick,
                cv2.LINE_AA,
            )
    centres = fit.to_image(CENTROIDS)
    size = float(np.linalg.norm(corners[1] - corners[2])) / 6.0
    for cell, (x, y) in zip(reading.cells, centres, strict=True):
        centre = (int(round(x)), int(round(y)))
        colour = _STATE_BGR.get(cell.state, (0, 0, 255))
        if cell.state == TILE and cell.edges is not None:
            r, g, b = NOMINAL_SRGB[cell.edges[2].value]
            cv2.circle(out, centre, max(3, int(size * 0.12)), (b, g, r), -1, cv2.LINE_AA)
            label = str(cell.value)
            scale = max(0.35, size / 90)
            cv2.putText(
                out,
                label,
                (centre[0] - 4, centre[1] + 4),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                (0, 0, 0),
                2 * thick,
                cv2.LINE_AA,
            )
            cv2.putText(
                out,
                label,
                (centre[0] - 4, centre[1] + 4),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                (255, 255, 255),
                thick,
                cv2.LINE_AA,
            )
        elif cell.state == "unknown":
            cv2.putText(
                out,
                "?",
                (centre[0] - 4, centre[1] + 4),
                cv2.FONT_HERSHEY_SIMPLEX,
                max(0.4, size / 80),
                colour,
                2 * thick,
                cv2.LINE_AA,
            )
        else:
            cv2.circle(out, centre, 2 * thick, colour, -1)
    text = f"residual {reading.fit.residual_px:.1f} px, {reading.fit.points} lattice points"
    cv2.putText(out, text, (10, h - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(
        out, text, (10, h - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA
    )
    return out
