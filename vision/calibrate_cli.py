"""``spectrangle calibrate (--camera N | --source PATH_OR_URL) [--out FILE] [--corners ...]``.

Takes a few frames of the board, fits it, learns the colours of the tiles on it, writes the
profile (``calibration/profile.json`` by default) and prints the verdict and the residual.
With ``--camera`` the camera's exposure and white balance are then fixed where the driver
allows (``--no-lock`` leaves them automatic). ``--teach`` learns the tile colours from the
tiles shown to the camera: it asks for each colour still missing and, with a live camera,
keeps looking (up to ``--teach-seconds``) while tiles are laid on the board.

Exit status: 0 good, 1 usable with warnings (or bad: see the verdict), 2 bad input (no such
source, malformed ``--corners``, a profile that cannot be written), 3 no board found.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import (
    DEFAULT_PROFILE_PATH,
    GOOD,
    CameraSettings,
    Profile,
    Teaching,
    calibrate,
    camera_settings,
    lock_camera,
    save_profile,
    teach,
)
from vision.colour import TILE_COLOURS
from vision.errors import BoardNotFoundError, CalibrationError, VisionError
from vision.read import BoardReader
from vision.sources import CameraSource, FrameSource, LiveSource, open_source

log = logging.getLogger(__name__)

EXIT_GOOD, EXIT_WARNINGS, EXIT_BAD_INPUT, EXIT_NO_BOARD = 0, 1, 2, 3


def configure(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--camera", type=int, metavar="N", help="camera device number")
    where.add_argument(
        "--source",
        metavar="PATH_OR_URL",
        help="a video, a folder of images, one image, a stream or snapshot URL",
    )
    parser.add_argument(
        "--out",
        default=str(DEFAULT_PROFILE_PATH),
        metavar="FILE",
        help=f"where to write the profile (default {DEFAULT_PROFILE_PATH})",
    )
    parser.add_argument(
        "--corners",
        metavar="x1,y1,x2,y2,x3,y3",
        help="the three corners of the playing triangle in frame pixels, when the board "
        "is not found by itself (any order)",
    )
    parser.add_argument(
        "--frames", type=int, default=8, metavar="N", help="frames to calibrate from (default 8)"
    )
    parser.add_argument(
        "--no-lock",
        action="store_true",
        help="leave the camera's exposure and white balance automatic",
    )
    parser.add_argument(
        "--teach",
        action="store_true",
        help="learn the tile colours from tiles shown to the camera, naming each colour "
        "still missing (lay tiles of every colour on the board)",
    )
    parser.add_argument(
        "--teach-seconds",
        type=float,
        default=60.0,
        metavar="S",
        help="with --teach and a live camera: how long to wait for the missing colours "
        "(default 60)",
    )
    parser.add_argument("--overlay", metavar="OUT.png", help="write a frame with the fit drawn")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def parse_corners(text: str) -> NDArray[np.float64]:
    """``"x1,y1,x2,y2,x3,y3"`` -> (3, 2); :class:`CalibrationError` when malformed."""
    try:
        values = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise CalibrationError(f"--corners: not numbers: {text!r}", text) from None
    if len(values) != 6 or not np.isfinite(values).all():
        raise CalibrationError(f"--corners needs six numbers x1,y1,x2,y2,x3,y3, not {text!r}", text)
    return np.array(values, dtype=np.float64).reshape(3, 2)


def _frames(source: FrameSource, count: int, live: bool) -> Iterator[NDArray[np.uint8]]:
    """Up to ``count`` frames: spread over a finite source, a few apart from a live one."""
    try:
        total = len(source)
    except TypeError:
        total = 0
    stride = max(1, total // count) if total and not live else 3 if live else 1
    taken = 0
    for k, (_, frame) in enumerate(source.frames()):
        if k % stride:
            continue
        yield frame
        taken += 1
        if taken >= count:
            break


class _Recorder:
    """A capture factory that remembers the capture it opened (to lock its settings)."""

    def __init__(self) -> None:
        self.cap: Any = None

    def __call__(self, device: Any) -> Any:
        self.cap = cv2.VideoCapture(device)
        return self.cap


def run(args: argparse.Namespace) -> int:
    corners = None
    try:
        if args.corners:
            corners = parse_corners(args.corners)
        if args.frames < 1:
            raise CalibrationError("--frames must be at least 1", args.frames)
        recorder = _Recorder()
        if args.camera is not None:
            source: FrameSource = CameraSource(args.camera, capture_factory=recorder)
            label, live = f"camera {args.camera}", True
        else:
            source = open_source(args.source)
            label, live = str(args.source), isinstance(source, LiveSource)
    except VisionError as exc:
        print(f"spectrangle calibrate: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    camera: CameraSettings | None = None
    teaching: Teaching | None = None
    try:
        try:
            frames = list(_frames(source, args.frames, live))
            if recorder.cap is not None:
                camera = _camera(recorder.cap, label, lock=not args.no_lock)
            if not frames:
                raise CalibrationError(f"{label} gave no frames", label)
            result = calibrate(frames, corners=corners, camera=camera)
            if args.teach:
                teaching = _teach(
                    result.profile, frames, source if live else None, args.teach_seconds
                )
                result = replace(result, profile=teaching.profile)
        finally:
            source.close()
    except BoardNotFoundError as exc:
        print(f"spectrangle calibrate: no board: {exc}", file=sys.stderr)
        return EXIT_NO_BOARD
    except VisionError as exc:
        print(f"spectrangle calibrate: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if camera is None and frames:
        h, w = frames[0].shape[:2]
        camera = CameraSettings(label, w, h)
        result = _with_camera(result, camera)
    try:
        path = save_profile(result.profile, args.out)
    except OSError as exc:
        print(f"spectrangle calibrate: cannot write {args.out}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.overlay and result.reading is not None:
        from vision.overlay import draw_overlay

        if not cv2.imwrite(args.overlay, draw_overlay(frames[-1], result.reading)):
            print(f"spectrangle calibrate: cannot write {args.overlay}", file=sys.stderr)
    verdict, fit = result.verdict, result.profile.fit
    if args.json:
        print(
            json.dumps(
                {
                    "profile": str(path),
                    "verdict": verdict.to_json(),
                    "residual_px": round(fit.residual_px, 3),
                    "frames_used": result.frames_used,
                    "frames_seen": result.frames_seen,
                    "camera": None if camera is None else camera.to_json(),
                }
            )
        )
    else:
        print(f"verdict: {verdict.words} ({verdict.level})")
        print(
            f"board fit: residual {fit.residual_px:.2f} px over {fit.points} lattice points, "
            f"{result.frames_used} of {result.frames_seen} frames"
        )
        if camera is not None and (camera.locked or camera.refused):
            if camera.locked:
                print(f"camera: fixed {', '.join(camera.locked)}")
            if camera.refused:
                print(f"camera: the driver would not fix {', '.join(camera.refused)}")
        if teaching is not None:
            for colour in TILE_COLOURS:
                print(f"colour {teaching.message(colour)}")
        print(f"profile written to {path}")
    if teaching is not None and teaching.missing:
        return EXIT_WARNINGS
    return EXIT_GOOD if verdict.level == GOOD else EXIT_WARNINGS


def _teach(
    profile: Profile,
    frames: list[NDArray[np.uint8]],
    source: FrameSource | None,
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> Teaching:
    """The colours of the tiles in ``frames``; with a live ``source``, more frames (about
    one a second) while a colour is missing, saying which, until ``seconds`` have passed."""
    reader = BoardReader()
    teaching = teach(profile, frames, reader)
    if source is None or not teaching.missing:
        return teaching
    print(_missing_line(teaching), file=sys.stderr, flush=True)
    deadline = clock() + max(0.0, seconds)
    last, shown = clock(), teaching.missing
    for _, frame in source.frames():
        if not teaching.missing or clock() > deadline:
            break
        if clock() - last < 1.0:
            continue
        last = clock()
        # Only this frame's tiles count: a tile seen on many frames is not many samples.
        now = teach(teaching.profile, [frame], reader)
        pooled = {
            c: list(now.samples.get(c, ())) if now.count(c) > teaching.count(c) else list(v)
            for c, v in teaching.samples.items()
        }
        for c, v in now.samples.items():
            pooled.setdefault(c, list(v))
        teaching = Teaching(now.profile, pooled, now.needed)
        if teaching.missing != shown:
            shown = teaching.missing
            print(_missing_line(teaching), file=sys.stderr, flush=True)
    return teaching


def _missing_line(teaching: Teaching) -> str:
    if not teaching.missing:
        return "every tile colour learned"
    names = ", ".join(c.value for c in teaching.missing)
    return f"still missing: {names}: lay tiles with these colours on the board"


def _camera(cap: Any, label: str, lock: bool) -> CameraSettings:
    settings = camera_settings(cap, label)
    if not lock:
        return settings
    locked, refused = lock_camera(cap)
    time.sleep(0.05)
    settings = camera_settings(cap, label)
    return CameraSettings(
        settings.source,
        settings.width,
        settings.height,
        settings.fps,
        settings.properties,
        locked,
        refused,
    )


def _with_camera(result: Any, camera: CameraSettings) -> Any:
    return replace(result, profile=replace(result.profile, camera=camera))


__all__ = ["configure", "parse_corners", "run"]
