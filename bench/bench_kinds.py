"""The reader on photos of kinds it was not built on, beside the usual kind.

    python bench/bench_kinds.py OUT_DIR [--stills N] [--seed S] [--kinds K,K...]

The issue's last target: the same figures on photos of a kind the code has never seen
decide. Each kind is a set of ``spectrangle generate`` stills of the same scenes (same
seed) as the usual set, but for one thing: the tiles printed in another run's colours
(``colours``), their numerals in a font the reader's templates never saw (``font``: Liberation
Sans Bold, skipped where it is not installed), the creases between their sectors dark
(``creases``), all three at once (``other print``), the board on a table about as dark as
its plastic (``dark table``: black, charcoal, dark-stained wood), a portrait phone photo
(``portrait``, 720x1280, other scenes) or a 4:3 one (``4:3``, 2016x1512, other scenes).
The sets are written under OUT_DIR (outside the repository), once: a set already there is
measured again as it is. Each is then measured by ``bench_read.py``; the table gives its
main figures.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FONT = Path("/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf")


@dataclass(frozen=True)
class Kind:
    name: str
    folder: str
    args: tuple[str, ...]
    needs_font: bool = False


KINDS = (
    Kind("usual", "usual", ()),
    Kind("colours", "colours", ("--print-variation", "1")),
    Kind("font", "font", ("--numeral-font", str(FONT)), True),
    Kind("creases", "creases", ("--dark-creases",)),
    Kind(
        "other print",
        "other_print",
        ("--print-variation", "1", "--dark-creases", "--numeral-font", str(FONT)),
        True,
    ),
    Kind("dark table", "dark_table", ("--table", "dark")),
    Kind("portrait", "portrait", ("--size", "720x1280")),
    Kind("4:3", "four_three", ("--size", "2016x1512")),
)

#: (column, pattern in bench_read.py's output)
FIGURES = (
    ("whole images", r"whole images exactly right: ([0-9.]+%)"),
    ("tiles exact", r"tiles read exactly, boards not found counted: ([0-9.]+%)"),
    ("unknown", r"tiles read exactly: [0-9.]+% of [0-9]+ \(unknown ([0-9]+)"),
    ("wrong", r"unknown [0-9]+, wrong ([0-9]+)\)"),
    ("found <=45", r"up to 45 degrees of tilt: ([0-9.]+%)"),
    ("median ms", r"read time: median ([0-9]+) ms"),
)


def figures(report: str) -> list[str]:
    """The table's figures from a ``bench_read.py`` report ("?" where one is missing).

    >>> figures("whole images exactly right: 95.3%\\nread time: median 46 ms, 90% 2 ms")
    ['95.3%', '?', '?', '?', '?', '46']
    """
    out = []
    for _, pattern in FIGURES:
        m = re.search(pattern, report)
        out.append(m.group(1) if m else "?")
    return out


def generate(folder: Path, kind: Kind, stills: int, seed: int) -> None:
    """The kind's set in ``folder`` (left as it is where it is there already)."""
    if (folder / "stills").is_dir():
        return
    cmd = [sys.executable, "-c", "import sys; from spectrangle.cli import main; sys.exit(main())"]
    cmd += ["generate", str(folder)]
    cmd += ["--stills", str(stills), "--seed", str(seed), *kind.args]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir", type=Path, help="where the sets are written (outside the repo)")
    p.add_argument("--stills", type=int, default=60, help="stills per set")
    p.add_argument("--seed", type=int, default=9898, help="the sets' seed")
    p.add_argument(
        "--kinds",
        default=",".join(k.name for k in KINDS),
        help="which kinds, comma-separated (default: all)",
    )
    args = p.parse_args(argv)
    names = [n.strip() for n in args.kinds.split(",") if n.strip()]
    unknown = [n for n in names if n not in {k.name for k in KINDS}]
    if unknown:
        print(f"error: no kind {', '.join(unknown)}; kinds: {', '.join(k.name for k in KINDS)}")
        return 2
    if args.stills < 1:
        print("error: --stills must be at least 1")
        return 2
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    rows = []
    for kind in (k for k in KINDS if k.name in names):
        if kind.needs_font and not FONT.is_file():
            print(f"{kind.name}: skipped, no {FONT} (Debian: fonts-liberation)")
            continue
        folder = args.out_dir / f"{kind.folder}_{args.seed}"
        generate(folder, kind, args.stills, args.seed)
        report = subprocess.run(
            [sys.executable, str(HERE / "bench_read.py"), str(folder / "stills")],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout
        rows.append([kind.name, *figures(report)])
        print(f"{kind.name}: measured", flush=True)
    header = ["kind", *(name for name, _ in FIGURES)]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, *rows]:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
