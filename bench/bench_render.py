"""Benchmark: seconds to generate 100 labelled stills at 1280x720 on one core.

    python bench/bench_render.py [--stills 100] [--size 1280x720]

Renders and writes (JPEG + truth JSON) into a temporary folder, as the generate command
does, with OpenCV limited to one thread.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import cv2

from vision.render.generate import write_still


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stills", type=int, default=100)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    w, h = (int(v) for v in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        write_still(Path(tmp), "warmup", 10**6, (w, h), False)  # caches, imports
        start = time.perf_counter()
        for i in range(args.stills):
            write_still(Path(tmp), f"{i:06d}", args.seed + i, (w, h), False)
        elapsed = time.perf_counter() - start
    print(
        f"{args.stills} stills at {w}x{h}, one core: {elapsed:.1f} s "
        f"({elapsed / max(1, args.stills) * 1000:.0f} ms per still)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
