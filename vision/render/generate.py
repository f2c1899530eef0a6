"""The data-set command: labelled stills and filmed games, rendered into a folder.

    spectrangle generate OUT_DIR [--stills N] [--games M] [--seed S] [--size 1280x720]
                                 [--game-size 960x540] [--harsh] [--sample]
                                 [--table KIND] [--light NAME] [--tiles N] [--hands N]
                                 [--cut | --no-cut] [--tile-height LO:HI]

The last five force a condition of every still (an empty board on a cloth under a
tungsten lamp: ``--tiles 0 --table cloth --light tungsten``); each is random otherwise.
``--table`` also lays the filmed games' board on that table (wood by default).

Layout: ``OUT_DIR/stills/NNNNNN.jpg`` + ``.json``; ``OUT_DIR/games/game_MMM/`` with frames,
truth, ``record.json`` and ``events.json``. ``--sample`` writes the bundled sample set
(12 stills at 1280x720 and one game at 960x540) to OUT_DIR; it is the only way to write
into the repository's ``sample_images``. Same arguments, same bytes.
"""

from __future__ import annotations

import argparse
import logging
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.render.compose import render, sample_still
from vision.render.film import count_frames, write_game
from vision.render.photometric import LIGHTS
from vision.render.scene import glyph_mask
from vision.render.sequence import find_game
from vision.render.table import EXTRA_TABLE_KINDS, TABLE_KINDS
from vision.render.truth import save_truth

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
SAMPLE_DIR = REPO / "sample_images"
SAMPLE_SEED = 2024

#: The bundled stills: seed and forced conditions, chosen to cover the range.
SAMPLE_STILLS: tuple[dict[str, object], ...] = (
    {"table": "wood", "light": "studio", "hands": 0, "cut": False, "tiles": 20},
    {"table": "cloth", "light": "daylight", "hands": 1, "cut": False, "tiles": 14},
    {"table": "plain_light", "light": "kitchen", "hands": 0, "cut": True, "tiles": 26},
    {"table": "plain_red", "light": "studio", "hands": 0, "cut": False, "tiles": 8},
    {"table": "plain_white", "light": "overcast", "hands": 1, "cut": False, "tiles": 30},
    {"table": "wood", "light": "tungsten", "hands": 2, "cut": False, "tiles": 20},
    {"table": "cloth", "light": "window", "hands": 0, "over_band": True, "tiles": 36},
    {"table": "plain_light", "light": "dim", "hands": 0, "cut": False, "tiles": 3},
    {"table": "wood", "light": "daylight", "hands": 1, "cut": True, "tiles": 26},
    {"table": "plain_red", "light": "kitchen", "hands": 1, "harsh": True, "tiles": 14},
    {"table": "cloth", "light": "tungsten", "hands": 0, "harsh": True, "tiles": 30},
    {"table": "wood", "light": "window", "hands": 0, "over_band": True, "harsh": True, "tiles": 1},
)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 1280x720)") from None
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"size out of range: {text!r}")
    return w, h


def _span(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a range: {text!r} (e.g. 0.05:0.12)") from None
    if not 0.0 <= lo <= hi <= 0.5:
        raise argparse.ArgumentTypeError(f"range out of 0..0.5: {text!r}")
    return lo, hi


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the command's arguments to ``parser``."""
    parser.add_argument("out_dir", type=Path, help="folder to write into (created)")
    parser.add_argument("--stills", type=int, default=100, help="number of labelled stills")
    parser.add_argument("--games", type=int, default=0, help="number of filmed games")
    parser.add_argument("--seed", type=int, default=0, help="first seed (deterministic output)")
    parser.add_argument("--size", type=_size, default=(1280, 720), help="still size, WxH")
    parser.add_argument("--game-size", type=_size, default=(960, 540), help="game frame size")
    parser.add_argument("--harsh", action="store_true", help="wider, harder conditions")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    force = parser.add_argument_group(
        "forced conditions of the stills (each random when not given)"
    )
    force.add_argument(
        "--table",
        choices=TABLE_KINDS + EXTRA_TABLE_KINDS,
        help="the table's kind (the stills' and the games')",
    )
    force.add_argument("--light", choices=sorted(LIGHTS), help="the light's kind")
    force.add_argument("--tiles", type=int, help="tiles on the board (0-36)")
    force.add_argument("--hands", type=int, choices=(0, 1, 2), help="hands over the board")
    force.add_argument(
        "--cut",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the board cut off by the frame (--no-cut: never)",
    )
    parser.add_argument(
        "--tile-height",
        type=_span,
        default=(0.0, 0.0),
        metavar="LO:HI",
        help="the stills' tiles drawn as slabs this thick (board units, drawn per still;"
        " e.g. 0.05:0.12); flat by default",
    )
    parser.add_argument(
        "--print-variation",
        type=float,
        default=0.0,
        metavar="AMOUNT",
        help="the stills' tiles printed in other colours (0-1: how far from the usual"
        " ones, drawn per still; as another print run or camera would show them); the"
        " usual colours by default",
    )
    parser.add_argument(
        "--numeral-font",
        type=Path,
        metavar="TTF",
        help="a TrueType font file the stills' tiles' numerals are printed in (another"
        " print run's); the usual font by default",
    )
    parser.add_argument(
        "--dark-creases",
        action="store_true",
        help="the creases between the tiles' sectors drawn dark, as some photos of the"
        " physical game show them (light by default)",
    )
    parser.add_argument("--threads", type=int, default=1, help="OpenCV threads")
    parser.add_argument(
        "--sample",
        action="store_true",
        help="write the bundled sample set (stills + sample game) to OUT_DIR",
    )


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def write_still(
    out_dir: Path, name: str, seed: int, size: tuple[int, int], harsh: bool, **force: object
) -> None:
    """Render one still with its truth as ``out_dir/name.jpg`` + ``.json``."""
    spec = sample_still(seed, size, harsh, **force)  # type: ignore[arg-type]
    r = render(spec)
    (out_dir / f"{name}.jpg").write_bytes(r.jpeg)
    save_truth(replace(r.truth, image=f"{name}.jpg"), out_dir / f"{name}.json")


def write_sample(out_dir: Path) -> int:
    """The bundled sample set: 12 stills and the sample game."""
    stills = out_dir / "stills"
    game_dir = out_dir / "game"
    for d in (stills, game_dir):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    game = find_game(SAMPLE_SEED, min_placements=28, illegal_at=6)
    total = len(SAMPLE_STILLS) + count_frames(game, 3, SAMPLE_SEED)
    with tqdm(total=total, unit="img", desc="sample") as bar:
        for i, force in enumerate(SAMPLE_STILLS):
            f = dict(force)
            harsh = bool(f.pop("harsh", False))
            write_still(stills, f"{i:02d}", SAMPLE_SEED + i, (1280, 720), harsh, **f)
            bar.update(1)
        write_game(game, game_dir, SAMPLE_SEED, (960, 540), bar.update, 3)
    return 0


def contact_sheet(
    paths: list[Path], out: Path, cols: int = 3, width: int = 420, labels: list[str] | None = None
) -> None:
    """Small images side by side (for the README): ``paths`` in rows of ``cols``, JPEG."""
    tiles = []
    for k, p in enumerate(paths):
        img = cv2.imread(str(p))
        h = round(img.shape[0] * width / img.shape[1])
        img = cv2.resize(img, (width, h), interpolation=cv2.INTER_AREA)
        if labels:
            cv2.rectangle(img, (0, h - 22), (width, h), (0, 0, 0), -1)
            cv2.putText(
                img,
                labels[k],
                (6, h - 7),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45,
                (255, 255, 255),
                1,
                cv2.LINE_AA,
            )
        tiles.append(img)
    h = max(t.shape[0] for t in tiles)
    tiles = [cv2.copyMakeBorder(t, 0, h - t.shape[0], 0, 0, cv2.BORDER_CONSTANT) for t in tiles]
    while len(tiles) % cols:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i : i + cols]) for i in range(0, len(tiles), cols)]
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), np.vstack(rows), [cv2.IMWRITE_JPEG_QUALITY, 82])


def run(args: argparse.Namespace) -> int:
    """Generate the data set; returns the exit code."""
    cv2.setNumThreads(max(1, int(args.threads)))
    out: Path = args.out_dir
    if args.sample:
        return write_sample(out)
    if _inside(out, SAMPLE_DIR):
        log.error("refusing to write into %s without --sample", SAMPLE_DIR)
        print(f"error: {out} is inside the bundled sample_images; use --sample to regenerate it")
        return 2
    if args.stills < 0 or args.games < 0:
        print("error: --stills and --games must be >= 0")
        return 2
    if args.tiles is not None and not 0 <= args.tiles <= 36:
        print(f"error: --tiles must be 0-36, not {args.tiles}")
        return 2
    force = {
        key: getattr(args, key)
        for key in ("table", "light", "tiles", "hands", "cut")
        if getattr(args, key) is not None
    }
    if args.tile_height[1] > 0:
        force["tile_height"] = args.tile_height
    if not 0.0 <= args.print_variation <= 1.0:
        print(f"error: --print-variation must be 0-1, not {args.print_variation}")
        return 2
    if args.print_variation > 0:
        force["print_variation"] = args.print_variation
    if args.numeral_font is not None:
        try:
            glyph_mask("1", 20, 90, 0.95, str(args.numeral_font))
        except (OSError, ValueError) as exc:
            print(f"error: --numeral-font {args.numeral_font}: not a TrueType font ({exc})")
            return 2
        force["numeral_font"] = str(args.numeral_font)
    if args.dark_creases:
        force["dark_creases"] = True
    players = ("Ann", "Bob", "Cid", "Dee")[: args.players]
    games = []
    for k in range(args.games):
        games.append(
            find_game(
                args.seed * 1000 + k * 7919,
                min_placements=20,
                players=players,
                illegal_at=6 if k % 2 == 0 else None,
            )
        )
    total = args.stills + sum(count_frames(g, 3, args.seed + k) for k, g in enumerate(games))
    with tqdm(total=total, unit="img", desc="generate") as bar:
        if args.stills:
            stills = out / "stills"
            stills.mkdir(parents=True, exist_ok=True)
            for i in range(args.stills):
                write_still(
                    stills, f"{i:06d}", args.seed * 1_000_003 + i, args.size, args.harsh, **force
                )
                bar.update(1)
        for k, g in enumerate(games):
            write_game(
                g,
                out / "games" / f"game_{k:03d}",
                args.seed + k,
                args.game_size,
                bar.update,
                3,
                args.table or "wood",
            )
    print(f"wrote {args.stills} stills and {len(games)} games to {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="spectrangle generate", description=__doc__.split("\n")[0]
    )
    configure(parser)
    logging.basicConfig(level=logging.INFO)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
