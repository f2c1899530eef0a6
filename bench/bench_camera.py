"""How the reader holds up under camera pipelines our renderer does not make.

    python bench/bench_camera.py DIR [--limit N]

Every labelled still of DIR (``spectrangle generate DIR --stills N``, or
``sample_images/stills``) is read as it is and after each of a few transformations that
phones and webcams apply and our renderer does not: more or less saturation, tone curves,
a hue shift, a colour matrix, sharpening, heavy JPEG, another resolution, a shallow
depth of field, chromatic aberration, sensor noise, a wrong white balance, a phone held
upright (the photo turned a quarter). For each, the
tiles read exactly, named wrongly and left unknown, against the truth (a proxy for photos
of a kind the reader was never tuned on).
"""

from __future__ import annotations

import os

# One core, as the figures say (and as `spectrangle` runs): one BLAS thread, set
# before NumPy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from _stills import labelled_stills
from numpy.typing import NDArray

from engine import SPECTRANGLE36, Board
from vision.read import BoardReader, BoardReading, load_image

Image = NDArray[np.uint8]


def saturation(factor: float) -> Callable[[Image], Image]:
    def apply(img: Image) -> Image:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 1] = np.clip(hsv[..., 1] * factor, 0, 255)
        return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)

    return apply


def gamma(g: float) -> Callable[[Image], Image]:
    table = (255 * (np.arange(256) / 255.0) ** g).astype(np.uint8)
    return lambda img: cv2.LUT(img, table)


def s_curve(img: Image) -> Image:
    x = np.arange(256) / 255.0
    return cv2.LUT(img, (255 * (3 * x**2 - 2 * x**3)).astype(np.uint8))


def hue(degrees: float) -> Callable[[Image], Image]:
    def apply(img: Image) -> Image:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV_FULL).astype(np.int32)
        hsv[..., 0] = (hsv[..., 0] + round(degrees * 256 / 360)) % 256
        return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR_FULL)

    return apply


def colour_matrix(img: Image) -> Image:
    m = np.array([[1.2, -0.1, -0.1], [-0.05, 1.1, -0.05], [-0.05, -0.15, 1.2]], np.float32)
    out = np.clip(img.astype(np.float32) @ m.T, 0, 255)  # BGR rows: a camera's crosstalk fix
    return out.astype(np.uint8)


def sharpen(img: Image) -> Image:
    return cv2.addWeighted(img, 1.8, cv2.GaussianBlur(img, (0, 0), 2), -0.8, 0)


def jpeg(quality: int) -> Callable[[Image], Image]:
    def apply(img: Image) -> Image:
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else img

    return apply


def resized(factor: float) -> Callable[[Image], Image]:
    """Another resolution; the truth's pixel corners are not used, so nothing to scale."""
    inter = cv2.INTER_AREA if factor < 1 else cv2.INTER_CUBIC
    return lambda img: cv2.resize(img, None, fx=factor, fy=factor, interpolation=inter)


def depth_of_field(img: Image) -> Image:
    """A shallow depth of field: sharp across the middle row, a blur growing to 3 px
    (sigma) towards the top and bottom (a tilted board's near and far sides)."""
    h = img.shape[0]
    levels = [img] + [cv2.GaussianBlur(img, (0, 0), s) for s in (1.0, 2.0, 3.0)]
    rows = np.abs(np.arange(h) - h / 2) / (h / 2) * (len(levels) - 1)  # 0 .. 3 per row
    lo = np.floor(rows).astype(int).clip(0, len(levels) - 2)
    t = (rows - lo)[:, None, None].astype(np.float32)
    out = np.empty_like(img, dtype=np.float32)
    for k in range(len(levels) - 1):
        sel = lo == k
        out[sel] = levels[k][sel] * (1 - t[sel]) + levels[k + 1][sel] * t[sel]
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def chromatic_aberration(share: float) -> Callable[[Image], Image]:
    """Lateral chromatic aberration of a cheap lens: red imaged ``share`` larger and blue
    as much smaller than green about the frame's centre (colour fringes towards the
    corners; 0.002 puts red 1.5 px off green in a 1280x720 frame's corners)."""
    return lambda img: _aberrated(img, share)


def _aberrated(img: Image, share: float) -> Image:
    h, w = img.shape[:2]
    out = img.copy()
    for channel, scale in ((2, 1.0 + share), (0, 1.0 - share)):
        m = np.array([[scale, 0, (1 - scale) * w / 2], [0, scale, (1 - scale) * h / 2]])
        out[..., channel] = cv2.warpAffine(
            img[..., channel], m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
        )
    return out


def sensor_noise(img: Image) -> Image:
    """A small sensor at high ISO: noise growing with the signal (shot noise) and chroma
    noise in blotches of a few pixels (seeded)."""
    rng = np.random.default_rng(11)
    f = img.astype(np.float32)
    shot = rng.standard_normal(f.shape).astype(np.float32) * np.sqrt(f + 4.0) * 0.9
    blotch = cv2.GaussianBlur(rng.standard_normal(f.shape).astype(np.float32) * 9.0, (0, 0), 1.5)
    return np.clip(f + shot + blotch + 0.5, 0, 255).astype(np.uint8)


def local_tone_map(img: Image) -> Image:
    """A phone's HDR look: the lightness equalised in tiles of an eighth of the frame
    (contrast-limited), which lifts shadows and flattens highlights region by region."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    clahe = cv2.createCLAHE(clipLimit=2.5, tileGridSize=(8, 8))
    lab[..., 0] = clahe.apply(lab[..., 0])
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


def noise_reduction(img: Image) -> Image:
    """A phone's noise reduction: an edge-keeping smoothing that flattens fine detail."""
    return cv2.bilateralFilter(img, 9, 40, 5)


def chroma_subsampled(factor: int) -> Callable[[Image], Image]:
    """A webcam's video stream: the colour (Cr, Cb) kept at 1/``factor`` of the
    resolution each way, the brightness in full (colour bleeds across small sectors)."""

    def apply(img: Image) -> Image:
        ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)
        h, w = img.shape[:2]
        small = cv2.resize(ycc[..., 1:], (w // factor, h // factor), interpolation=cv2.INTER_AREA)
        ycc[..., 1:] = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
        return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)

    return apply


def white_balance(gains: tuple[float, float, float]) -> Callable[[Image], Image]:
    """A wrong white balance: each channel (B, G, R) times its gain."""
    g = np.array(gains, np.float32)
    return lambda img: np.clip(img.astype(np.float32) * g + 0.5, 0, 255).astype(np.uint8)


TRANSFORMS: dict[str, Callable[[Image], Image]] = {
    "as rendered": lambda img: img,
    "saturation x0.6": saturation(0.6),
    "saturation x1.5": saturation(1.5),
    "gamma 0.7": gamma(0.7),
    "gamma 1.4": gamma(1.4),
    "tone S-curve": s_curve,
    "hue +10 deg": hue(10),
    "hue -10 deg": hue(-10),
    "colour matrix": colour_matrix,
    "sharpened": sharpen,
    "JPEG q30": jpeg(30),
    "half size": resized(0.5),
    "2.5x size": resized(2.5),
    "depth of field": depth_of_field,
    "aberration 0.2%": chromatic_aberration(0.002),
    "aberration 0.4%": chromatic_aberration(0.004),
    "sensor noise": sensor_noise,
    "portrait": lambda img: cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE),
    "WB too warm": white_balance((0.7, 0.95, 1.25)),
    "WB too cool": white_balance((1.3, 1.0, 0.75)),
    "local tone map": local_tone_map,
    "noise reduction": noise_reduction,
    "chroma 1/4": chroma_subsampled(4),
}


def score(reading: BoardReading, truth: Board, visible: set[int]) -> tuple[int, int]:
    """Tiles in view read right, and tiles read wrong anywhere (the reading turned as it
    fits the truth best)."""
    if not reading.found:
        return 0, 0
    board = reading.board()
    best = (-1, 0)
    for _ in range(3):
        placed = board.placements
        right = sum(p == truth[p.index] and p.index in visible for p in placed)
        wrong = sum(p != truth[p.index] for p in placed)
        if right > best[0]:
            best = (right, wrong)
        board = board.rotated()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument(
        "--only", default="", help="the pipelines whose names hold this text (and as rendered)"
    )
    args = parser.parse_args(argv)
    chosen = {n: t for n, t in TRANSFORMS.items() if args.only in n or n == "as rendered"}
    cv2.setNumThreads(1)
    paths = labelled_stills(args.folder, args.limit)
    if not paths:
        print(f"no labelled images in {args.folder}", file=sys.stderr)
        return 2
    reader = BoardReader()
    totals = {name: [0, 0, 0] for name in chosen}  # right, wrong, tiles
    for path in paths:
        data = json.loads(path.read_text())
        truth = Board.from_notation(data["board"], SPECTRANGLE36.geometry)
        visible = {c["index"] for c in data["cells"] if c["state"] == "tile"}
        frame = load_image(str(path.with_suffix(".jpg")))
        for name, transform in chosen.items():
            right, wrong = score(reader.read(transform(frame)), truth, visible)
            totals[name][0] += right
            totals[name][1] += wrong
            totals[name][2] += len(visible)
    print(f"{len(paths)} stills; tiles in view counted, read right / wrong:")
    for name, (right, wrong, tiles) in totals.items():
        print(f"  {name:16s} right {right / max(tiles, 1):6.1%}  wrong {wrong:3d}  ({tiles} tiles)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
