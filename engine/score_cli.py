"""``spectrangle score RECORD [--json]``: re-score a recorded game.

Exit status 0 when scored, 2 when the file is not a readable record of the right
shape (a one-line error names the move and field).
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.errors import RecordError
from engine.record import GameRecord, score_record
from engine.report import format_result


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record (JSON)")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        record = GameRecord.load(args.record)
    except RecordError as exc:
        print(f"spectrangle score: {args.record}: {exc}", file=sys.stderr)
        return 2
    result = score_record(record)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(format_result(result))
    return 0
