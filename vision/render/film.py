"""Film a played game from one fixed camera: scene per frame, files per frame.

Output of :func:`write_game` in a folder: ``0000.jpg`` + ``0000.json`` (truth) per frame,
``record.json`` (the game record) and ``events.json`` (expected tracker events).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from engine import SPECTRANGLE36, Board, Placement
from vision.render.camera import place_camera
from vision.render.compose import (
    LooseTile,
    SceneSpec,
    rack_positions,
    render,
    sample_clutter,
)
from vision.render.photometric import LIGHTS, Photometric
from vision.render.props import HandSpec
from vision.render.scene import LightDir, TileLook, board_centre
from vision.render.sequence import (
    FramePlan,
    Game,
    edge_angle,
    expected_events,
    film_game,
    held_edges,
)
from vision.render.table import sample_table
from vision.render.truth import save_truth

#: Where each player sits: the side of the playing triangle (0 right, 1 base, 2 left).
SEATS = (2, 0, 1, 1)


def game_scene(
    seed: int,
    size: tuple[int, int] = (960, 540),
    tilt_deg: float = 26.0,
    light: str = "kitchen",
    table: str = "wood",
) -> SceneSpec:
    """The fixed camera, light, table and clutter of a filmed game (empty board)."""
    rng = np.random.default_rng(seed)
    w, h = size
    focal = (w / 2) / math.tan(math.radians(62) / 2)
    dist = np.array([-0.08, 0.0, 0.0, 0.0, 0.0])
    cam = place_camera(w, h, focal, -tilt_deg, float(rng.uniform(-8, 8)), 0.72, dist, (0.0, 0.25))
    gains, exposure, shadow, elev = LIGHTS[light]
    photo = Photometric(
        light,
        gains,
        exposure * 1.02,
        (float(rng.uniform(0, 360)), 0.25),
        0.25,
        None,
        0.6,
        None,
        0.006,
        80,
    )
    board = Board.empty(SPECTRANGLE36.geometry)
    clutter = sample_clutter(rng, cam, 2, False)
    extra = {
        "tilt_deg": tilt_deg,
        "rotation_deg": 0.0,
        "board_fraction": 0.72,
        "cut_off": None,
        "over_band": False,
        "harsh": False,
    }
    return SceneSpec(
        board,
        cam,
        LightDir(float(rng.uniform(200, 250)), float(np.mean(elev))),
        sample_table(rng, table),
        photo,
        (),
        (),
        clutter,
        (),
        int(rng.integers(2**31)),
        shadow,
        (),
        seed,
        tuple(extra.items()),
    )


def _rack_distance(player: str, seats: dict[str, int]) -> float:
    # A second player on the same side sits further out.
    same = [p for p in seats if seats[p] == seats[player]]
    return 1.2 + 1.4 * same.index(player)


def _rack_looks(
    plan: FramePlan, seats: dict[str, int], rng: np.random.Generator
) -> tuple[LooseTile, ...]:
    out = []
    for player, rack in plan.racks:
        spots = rack_positions(seats[player], 4, _rack_distance(player, seats))
        for slot, st in enumerate(rack):
            x, y, ang = spots[slot]
            p = Placement(0, st.clockwise[2], st.clockwise[0], st.clockwise[1], st.value)
            key = sum((k + 1) * ord(ch) for k, ch in enumerate(str(st.tile)))
            jitter = np.random.default_rng([key, slot]).normal(0, 0.08, 3)
            out.append(
                LooseTile(
                    TileLook.of(p),
                    (x + float(jitter[0]), y + float(jitter[1])),
                    ang + float(jitter[2]) * 40,
                )
            )
    del rng
    return tuple(out)


def frame_spec(
    base: SceneSpec, plan: FramePlan, number: int, players: tuple[str, ...]
) -> SceneSpec:
    """The scene of one frame of the game."""
    seats = {p: SEATS[i] for i, p in enumerate(players)}
    rng = np.random.default_rng([base.seed, number])
    hands = []
    for hp in plan.hands:
        i = players.index(hp.player)
        mid = rack_positions(seats[hp.player], 1)[0]
        g = board_centre()
        d = np.array(mid[:2]) - g
        holding = None
        angle = 0.0
        if hp.holding is not None:
            holding = TileLook.of(held_edges(hp.holding))
            angle = edge_angle(hp.holding.index) + float(rng.normal(0, 4))
        hands.append(
            HandSpec(
                target_xy=hp.target_xy,
                from_deg=math.degrees(math.atan2(d[1], d[0])) + float(rng.normal(0, 6)),
                lift=hp.lift,
                holding=holding,
                holding_angle_deg=angle,
                pose=hp.pose,
                mirror=bool(i % 2),
                skin=(0, 3, 1, 4)[i],
                sleeve=(1, 0, 5, 2)[i],
                sleeve_at=(6.0, 5.0, 99.0, 7.0)[i],
                size=1.0,
            )
        )
    rings = []
    for i, (_, score) in enumerate(plan.scores):
        if score > 0:
            rings.append(((score - 1) % 100 + 1, i))
    extra = dict(base.extra)
    extra["phase"] = plan.phase
    # Light flickers a little; the sensor noise is new in every frame.
    photo = replace(base.photo, exposure=base.photo.exposure * float(1 + rng.normal(0, 0.01)))
    return replace(
        base,
        board=plan.board,
        hands=tuple(hands),
        loose=_rack_looks(plan, seats, rng),
        rings=tuple(rings),
        illegal=plan.illegal,
        seed=base.seed * 10000 + number,
        photo=photo,
        extra=tuple(extra.items()),
    )


def write_game(
    game: Game,
    out_dir: Path,
    seed: int,
    size: tuple[int, int] = (960, 540),
    progress: Callable[[int], Any] | None = None,
    stable: int = 3,
    table: str = "wood",
) -> list[FramePlan]:
    """Render every frame of ``game`` into ``out_dir`` with truth, record and events, on
    a ``table`` of that kind (:func:`vision.render.table.sample_table`)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    base = game_scene(seed, size, table=table)
    seats = {p: SEATS[i] for i, p in enumerate(game.players)}
    rack_xy = {
        p: tuple(rack_positions(seats[p], 1, _rack_distance(p, seats))[0][:2]) for p in game.players
    }
    plans = film_game(game, stable, rack_xy, seed)  # type: ignore[arg-type]
    names = [f"{i:04d}.jpg" for i in range(len(plans))]
    for i, plan in enumerate(plans):
        spec = frame_spec(base, plan, i, game.players)
        r = render(spec)
        (out_dir / names[i]).write_bytes(r.jpeg)
        save_truth(replace(r.truth, image=names[i]), out_dir / f"{i:04d}.json")
        if progress is not None:
            progress(1)
    (out_dir / "record.json").write_text(
        json.dumps(game.record(), indent=1) + "\n", encoding="utf-8"
    )
    events = {"frames": len(plans), "events": expected_events(plans, names)}
    (out_dir / "events.json").write_text(json.dumps(events, indent=1) + "\n", encoding="utf-8")
    return plans


def count_frames(game: Game, stable: int = 3, seed: int = 0) -> int:
    return len(film_game(game, stable, None, seed))
