"""The ``spectrangle`` command line.

Each subcommand is a module with ``configure(parser)`` and ``run(args) -> int``;
the modules are imported only when their subcommand runs, so ``spectrangle score``
does not load OpenCV.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

# One BLAS thread: the vision code does small matrix work per frame, where a second
# BLAS thread only fights the capture and web threads for the two cores (and under
# load made a product 50x slower). Set before NumPy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: name -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "score": ("engine.score_cli", "score a recorded game (JSON game record)"),
    "read": ("vision.read_cli", "read the board from photos of a game"),
    "replay": ("vision.replay_cli", "follow a filmed game and score every placement"),
    "generate": ("vision.render.generate", "render labelled photo sets of the game"),
    "calibrate": ("vision.calibrate_cli", "calibrate the reader for one board, camera and lamp"),
    "serve": ("webui.serve_cli", "run the score page (a web app) for a game at the table"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that subcommand's module is imported."""
    parser = argparse.ArgumentParser(
        prog="spectrangle", description="A camera scoring assistant for Spectrangle."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text)
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:  # a subcommand whose extra dependencies are missing
            logging.getLogger(__name__).debug("subcommand %s unavailable: %s", name, exc)
            continue
        sp = sub.add_parser(name, help=help_text, description=help_text)
        module.configure(sp)
        sp.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command if command in SUBCOMMANDS else None)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args._run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
