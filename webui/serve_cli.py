"""``spectrangle serve``: run the score page.

Without a camera it follows the bundled sample game live through the tracker (``--no-demo``
for a game scored by hand). With ``--camera N`` or ``--source VIDEO|FOLDER|URL`` it scores a
real game at the table: a new game of ``--names``/``--players``, else the last unfinished
game is resumed, read with the calibration profile (``--calibration FILE``, by default
``calibration/profile.json`` when it exists). On 127.0.0.1 only this machine can reach it;
with ``--host 0.0.0.0`` phones at the table can watch, and changing the game from them needs
the table PIN printed here.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_PROFILE_PATH = Path("calibration") / "profile.json"


def default_db() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "spectrangle" / "games.sqlite3"


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"seconds between 0 and 3600, not {value}")
    return value


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if not 2 <= len(names) <= 4 or not all(1 <= len(n) <= 30 for n in names):
        raise argparse.ArgumentTypeError(f"2 to 4 comma-separated names, not {text!r}")
    return names


def _pin(text: str) -> str:
    if not (text.isdigit() and 4 <= len(text) <= 6):
        raise argparse.ArgumentTypeError(f"a PIN is 4 to 6 digits, not {text!r}")
    return text


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones watch)",
    )
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument(
        "--db", type=Path, default=None, help=f"SQLite file of games (default {default_db()})"
    )
    parser.add_argument(
        "--demo",
        dest="demo",
        action="store_true",
        default=True,
        help="play back the bundled sample game (default without a camera)",
    )
    parser.add_argument(
        "--no-demo",
        dest="demo",
        action="store_false",
        help="no playback: score a game by hand (resumes the last unfinished game)",
    )
    parser.add_argument(
        "--demo-speed",
        type=_speed,
        default=None,
        metavar="SECONDS",
        help="seconds a demo frame (default 0.4: the sample game in about 90 s; "
        "1.5 s between events when the demo has no frames)",
    )
    parser.add_argument(
        "--demo-dir",
        type=Path,
        default=None,
        help="folder of the demo game (events.json, record.json, frames)",
    )
    parser.add_argument(
        "--camera", type=int, default=None, metavar="N", help="camera device number (live tracking)"
    )
    parser.add_argument(
        "--source",
        default=None,
        metavar="PATH_OR_URL",
        help="a video, a folder of frames or a stream URL (live tracking)",
    )
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        default=None,
        help="with --camera/--source: start a new game of this many players",
    )
    parser.add_argument(
        "--names",
        type=_names,
        default=None,
        metavar="ANN,BOB",
        help="with --camera/--source: start a new game of these players "
        "(default: resume the last unfinished game, else two players)",
    )
    parser.add_argument(
        "--calibration",
        type=Path,
        default=None,
        metavar="FILE",
        help="with --camera/--source: the calibration profile to track with "
        "(default calibration/profile.json if it exists); the calibration page saves there",
    )
    parser.add_argument(
        "--pin", type=_pin, default=None, help="table PIN (4-6 digits; default random off loopback)"
    )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    if args.camera is not None and args.source is not None:
        print("spectrangle serve: give --camera or --source, not both", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"spectrangle serve: --port must be 1..65535, not {args.port}", file=sys.stderr)
        return 2
    from werkzeug.serving import make_server

    from engine.errors import SpectrangleError
    from vision.errors import SourceError
    from vision.sources import FrameSource, open_source
    from webui.app import create_app, shutdown
    from webui.errors import StoreError
    from webui.security import new_pin

    players = args.names
    if players is None and args.players is not None:
        players = [f"Player {i}" for i in range(1, args.players + 1)]
    if players is not None and args.camera is None and args.source is None:
        print("spectrangle serve: --players/--names go with --camera or --source", file=sys.stderr)
        return 2
    source: FrameSource | None = None
    spec = str(args.camera) if args.camera is not None else args.source
    if spec is not None:
        if args.camera is not None and args.camera < 0:
            print(
                f"spectrangle serve: --camera must be 0 or more, not {args.camera}", file=sys.stderr
            )
            return 2
        try:
            source = open_source(spec)
        except SourceError as exc:
            print(f"spectrangle serve: {exc}", file=sys.stderr)
            return 2

    calibration = None
    profile_path = args.calibration or DEFAULT_PROFILE_PATH
    if source is not None:
        from webui.live import LiveCalibration

        calibration = LiveCalibration.load(profile_path, required=args.calibration is not None)
        if calibration.error:
            print(f"spectrangle serve: {calibration.error}", file=sys.stderr)

    if logging.getLogger().getEffectiveLevel() > logging.INFO:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    remote = not is_loopback(args.host)
    pin = args.pin or (new_pin() if remote else None)
    db = args.db or default_db()
    try:
        app = create_app(
            {
                "DATABASE": str(db),
                "PIN": pin,
                "DEMO": args.demo and source is None,
                "DEMO_SPEED": args.demo_speed,
                "DEMO_DIR": str(args.demo_dir) if args.demo_dir else None,
                "LIVE_SOURCE": source,
                "LIVE_PLAYERS": players,
                "LIVE_CALIBRATION": calibration,
                "CALIBRATION_PATH": str(profile_path),
            }
        )
    except (StoreError, SpectrangleError) as exc:
        if source is not None:
            source.close()
        print(f"spectrangle serve: {exc}", file=sys.stderr)
        return 2
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as exc:
        shutdown(app)
        print(
            f"spectrangle serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr
        )
        return 2
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"Spectrangle score page: http://{shown}:{server.port}/  (games in {db})", flush=True)
    if source is not None:
        print(f"Tracking {source!r}", flush=True)
        if calibration is not None and calibration.profile is not None:
            print(f"Calibration: {profile_path}", flush=True)
    if pin:
        print(f"Table PIN: {pin}  (needed to change the game from another device)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        shutdown(app)
    return 0
