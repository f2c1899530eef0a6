"""``spectrangle read IMAGE... [--json] [--overlay OUT.png] [--calibration FILE]``.

Exit status: 0 when every image showed a board, 3 when one showed none (or the reader
failed on it: a one-line error on stderr, and ``found: false`` with the reason), 2 when a
file could not be read (a one-line error on stderr; the other images are still read).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import cv2

from vision.calibration import fit_for, load_profile, reader_for
from vision.errors import CalibrationError, UnreadableImageError
from vision.read import BoardReading, load_image

log = logging.getLogger(__name__)

EXIT_OK, EXIT_UNREADABLE, EXIT_NO_BOARD = 0, 2, 3


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", help="photos of the board (JPEG, PNG, ...)")
    parser.add_argument("--json", action="store_true", help="one JSON document per image, per line")
    parser.add_argument(
        "--overlay",
        metavar="OUT.png",
        help="write the photo with the fitted lattice and the readings drawn on it "
        "(with several images: OUT-<image name>.png)",
    )
    parser.add_argument("--calibration", metavar="FILE", help="a calibration profile (optional)")


def _overlay_path(template: str, image: str, many: bool) -> Path:
    out = Path(template)
    if not many:
        return out
    return out.with_name(f"{out.stem}-{Path(image).stem}{out.suffix or '.png'}")


def run(args: argparse.Namespace) -> int:
    profile = None
    if args.calibration:
        try:
            profile = load_profile(args.calibration)
        except CalibrationError as exc:
            print(f"spectrangle read: {exc}; reading without calibration", file=sys.stderr)
    reader = reader_for(profile)
    status = EXIT_OK
    many = len(args.images) > 1
    for image in args.images:
        try:
            frame = load_image(image)
        except UnreadableImageError as exc:
            print(f"spectrangle read: {exc}", file=sys.stderr)
            status = EXIT_UNREADABLE
            continue
        try:
            fit = fit_for(profile, frame, reader) if profile is not None else None
            reading = reader.read(frame, fit)
        except Exception as exc:  # a photo the reader fails on never stops the others
            log.exception("%s: the reader failed", image)
            print(f"spectrangle read: {image}: the reader failed ({exc!r})", file=sys.stderr)
            reading = BoardReading(False, reason=f"the reader failed on this photo ({exc!r})")
        if not reading.found:
            status = max(status, EXIT_NO_BOARD) if status != EXIT_UNREADABLE else status
        if args.json:
            print(json.dumps(reading.to_json()), flush=True)
        else:
            if many:
                print(f"== {image}")
            if reading.found and reading.fit is not None:
                print(reading.text())
                print(f"(lattice residual {reading.fit.residual_px:.1f} px)")
                for cell in reading.cells:
                    if cell.note:
                        print(f"cell {cell.index}: {cell.note}")
            else:
                print(f"no board found: {reading.reason}")
        if args.overlay:
            from vision.overlay import draw_overlay

            path = _overlay_path(args.overlay, image, many)
            if not cv2.imwrite(str(path), draw_overlay(frame, reading)):
                print(f"spectrangle read: cannot write {path}", file=sys.stderr)
                status = EXIT_UNREADABLE
    return status
