"""Legal positions and recorded games, and the frame-by-frame script of a filmed game.

A game is played with the engine's rules by 2-4 players picking at random among their
legal placements (sometimes greedily); one illegal placement can be slipped in, then
taken back. :func:`film_game` turns it into frames from one fixed camera: a hand reaches
in with the tile, puts it down, leaves, then a few stable frames.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import SPECTRANGLE36, Board, Placement, check_placement, legal_placements
from engine.rules import Refusal, rotations
from engine.variant import SetTile

log = logging.getLogger(__name__)


def random_position(seed: int, n_tiles: int) -> Board:
    """A legal position of up to ``n_tiles`` tiles grown by random legal placements.

    Replaying its placements in index-free order of growth is legal; fast (samples
    placements instead of enumerating them all).
    """
    rnd = random.Random(seed)
    geo = SPECTRANGLE36.geometry
    board = Board.empty(geo)
    for _ in range(n_tiles):
        p = _random_legal(board, rnd)
        if p is None:
            break
        board = board.place(p)
    return board


def _random_legal(board: Board, rnd: random.Random) -> Placement | None:
    geo = board.geometry
    if board.is_empty():
        cells = [c.index for c in geo if c.bonus == 1]
    else:
        cells = [
            c.index
            for c in geo
            if board[c.index] is None
            and any(o is not None and board[o] is not None for _, o in c.neighbours)
        ]
    rnd.shuffle(cells)
    on_board = board.tiles
    free = [t for t in SPECTRANGLE36.tiles if t.tile not in on_board]
    for index in cells:
        rnd.shuffle(free)
        for st in free:
            rots = list(rotations(st, index, geo))
            rnd.shuffle(rots)
            for p in rots:
                if check_placement(board, p, SPECTRANGLE36).legal:
                    return p
    return None


@dataclass(frozen=True)
class Turn:
    """One move of a game: ``placement`` None = a pass; ``legal`` False = an illegal
    placement (scores 0, taken back, the same player plays again)."""

    player: str
    placement: Placement | None
    legal: bool
    points: int
    tile: SetTile | None
    slot: int
    rack_before: tuple[SetTile, ...]
    rack_after: tuple[SetTile, ...]


@dataclass(frozen=True)
class Game:
    """A played game: the turns in order, final racks and scores."""

    players: tuple[str, ...]
    turns: tuple[Turn, ...]
    racks: tuple[tuple[str, tuple[SetTile, ...]], ...]
    scores: tuple[tuple[str, int], ...]
    seed: int

    @property
    def placements(self) -> int:
        return sum(1 for t in self.turns if t.placement is not None and t.legal)

    def final_board(self) -> Board:
        board = Board.empty(SPECTRANGLE36.geometry)
        for t in self.turns:
            if t.placement is not None and t.legal:
                board = board.place(t.placement)
        return board

    def record(self) -> dict[str, Any]:
        """The game record: variant, players, moves, remaining tiles."""
        moves: list[dict[str, Any]] = []
        for t in self.turns:
            if t.placement is None:
                moves.append({"player": t.player, "type": "pass"})
                continue
            move: dict[str, Any] = {"player": t.player, "type": "place"}
            move.update(t.placement.to_json())
            moves.append(move)
        return {
            "variant": "spectrangle36",
            "players": list(self.players),
            "moves": moves,
            "remaining": {p: [st.value for st in rack] for p, rack in self.racks},
        }


def play_game(
    seed: int,
    players: Sequence[str] = ("Ann", "Bob"),
    illegal_at: int | None = None,
    greedy: float = 0.4,
) -> Game:
    """Play a whole game with the engine's rules.

    Players keep 4 tiles, draw after playing, pass when they cannot play; the game ends
    when the bag is empty and nobody can play. ``illegal_at``: at this turn number (or the
    first later turn where one exists) the player first puts down a tile illegally.
    """
    rnd = random.Random(seed)
    bag = list(SPECTRANGLE36.tiles)
    rnd.shuffle(bag)
    racks: dict[str, list[SetTile]] = {p: [bag.pop() for _ in range(4)] for p in players}
    scores = dict.fromkeys(players, 0)
    board = Board.empty(SPECTRANGLE36.geometry)
    turns: list[Turn] = []
    passes = 0
    k = 0
    illegal_done = illegal_at is None
    while passes < len(players):
        player = players[k % len(players)]
        k += 1
        rack = racks[player]
        legal = legal_placements(board, SPECTRANGLE36, [st.tile for st in rack])
        if not legal:
            turns.append(Turn(player, None, True, 0, None, -1, tuple(rack), tuple(rack)))
            passes += 1
            continue
        passes = 0
        if not illegal_done and illegal_at is not None and len(turns) >= illegal_at:
            bad = _illegal_for(board, rack, rnd)
            if bad is not None:
                p_bad, st_bad = bad
                slot = rack.index(st_bad)
                turns.append(Turn(player, p_bad, False, 0, st_bad, slot, tuple(rack), tuple(rack)))
                illegal_done = True
        if rnd.random() < greedy:
            pts = [check_placement(board, p, SPECTRANGLE36).points for p in legal]
            best = max(pts)
            choice = rnd.choice([p for p, s in zip(legal, pts, strict=True) if s == best])
        else:
            choice = rnd.choice(legal)
        points = check_placement(board, choice, SPECTRANGLE36).points
        st = SPECTRANGLE36.set_tile(choice.tile)
        slot = rack.index(st)
        before = tuple(rack)
        if bag:
            rack[slot] = bag.pop()
        else:
            rack.pop(slot)
        board = board.place(choice)
        scores[player] += points
        turns.append(Turn(player, choice, True, points, st, slot, before, tuple(rack)))
    return Game(
        tuple(players),
        tuple(turns),
        tuple((p, tuple(racks[p])) for p in players),
        tuple((p, scores[p] - sum(st.value for st in racks[p])) for p in players),
        seed,
    )


def _illegal_for(
    board: Board, rack: Sequence[SetTile], rnd: random.Random
) -> tuple[Placement, SetTile] | None:
    """A placement of a rack tile that breaks the colour rule next to a tile."""
    geo = board.geometry
    cells = [
        c.index
        for c in geo
        if board[c.index] is None
        and any(o is not None and board[o] is not None for _, o in c.neighbours)
    ]
    rnd.shuffle(cells)
    for index in cells:
        for st in rack:
            for p in rotations(st, index, geo):
                v = check_placement(board, p, SPECTRANGLE36)
                if v.refusal is Refusal.COLOUR_MISMATCH:
                    return p, st
    return None


def find_game(
    seed: int,
    min_placements: int = 25,
    players: Sequence[str] = ("Ann", "Bob"),
    illegal_at: int | None = 6,
    tries: int = 200,
) -> Game:
    """The first game from ``seed`` on with at least ``min_placements`` placements and an
    illegal placement (when asked) and no pass before the last round."""
    best: Game | None = None
    for s in range(seed, seed + tries):
        g = play_game(s, players, illegal_at)
        if illegal_at is not None and all(t.legal for t in g.turns):
            continue
        last_place = max(i for i, t in enumerate(g.turns) if t.placement is not None)
        early_pass = any(t.placement is None for t in g.turns[:last_place])
        if g.placements >= min_placements and not early_pass:
            return g
        if best is None or g.placements > best.placements:
            best = g
    assert best is not None
    log.warning("no game met the wish list; using one with %d placements", best.placements)
    return best


# ----------------------------------------------------------------------------- filming


@dataclass(frozen=True)
class HandPlan:
    """A hand in one frame: the player, where the fingertips are (board plane), whether it
    holds a tile (the placement it shows, or a rack tile) and its pose."""

    player: str
    target_xy: tuple[float, float]
    holding: Placement | None
    pose: str
    lift: float


@dataclass(frozen=True)
class FramePlan:
    """One frame of a filmed game: what is on the board, in the racks, in the hands."""

    board: Board
    racks: tuple[tuple[str, tuple[SetTile, ...]], ...]
    hands: tuple[HandPlan, ...]
    illegal: tuple[int, ...]
    scores: tuple[tuple[str, int], ...]
    phase: str
    event: dict[str, Any] | None = field(default=None)


def film_game(
    game: Game,
    stable: int = 3,
    rack_xy: dict[str, tuple[float, float]] | None = None,
    seed: int = 0,
) -> list[FramePlan]:
    """The frame plan of a whole game (see the module docstring)."""
    rnd = random.Random(seed)
    board = Board.empty(SPECTRANGLE36.geometry)
    first = {p: next(t.rack_before for t in game.turns if t.player == p) for p in game.players}
    racks: dict[str, tuple[SetTile, ...]] = dict(first)
    scores = dict.fromkeys(game.players, 0)
    rack_xy = rack_xy or {p: (0.0, 8.0) for p in game.players}
    frames: list[FramePlan] = []

    def snap(
        hands: tuple[HandPlan, ...],
        phase: str,
        illegal: tuple[int, ...] = (),
        event: dict[str, Any] | None = None,
        rk: dict[str, tuple[SetTile, ...]] | None = None,
        bd: Board | None = None,
    ) -> None:
        frames.append(
            FramePlan(
                bd if bd is not None else board,
                tuple((rk or racks).items()),
                hands,
                illegal,
                tuple(scores.items()),
                phase,
                event,
            )
        )

    def lerp(a: Sequence[float], b: Sequence[float], t: float) -> tuple[float, float]:
        return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)

    for _ in range(stable):
        snap((), "stable")
    for turn in game.turns:
        if turn.placement is None:
            continue
        p = turn.placement
        home = rack_xy[turn.player]
        cell = SPECTRANGLE36.geometry[p.index].centroid
        without = dict(racks)
        without[turn.player] = tuple(st for i, st in enumerate(turn.rack_before) if i != turn.slot)
        jit = rnd.uniform(0.3, 0.6)
        snap((HandPlan(turn.player, lerp(home, cell, jit), p, "pinch", 2.2),), "reach", rk=without)
        snap((HandPlan(turn.player, cell, p, "pinch", 0.9),), "place", rk=without)
        board = board.place(p)
        bad = () if turn.legal else (p.index,)
        snap(
            (HandPlan(turn.player, lerp(cell, home, rnd.uniform(0.3, 0.5)), None, "open", 1.6),),
            "leave",
            bad,
            rk=without,
        )
        if turn.legal:
            scores[turn.player] += turn.points
            racks[turn.player] = turn.rack_after
        event = {
            "type": "placement",
            "player": turn.player,
            **p.to_json(),
            "legal": turn.legal,
            "points": turn.points,
        }
        for i in range(stable + (1 if rnd.random() < 0.4 else 0)):
            snap(
                (), "stable", bad, event if i == 0 else None, rk=without if not turn.legal else None
            )
        if not turn.legal:
            # Taken back: the hand comes, picks the tile up, carries it home.
            snap((HandPlan(turn.player, cell, None, "pinch", 0.9),), "take", bad, rk=without)
            board = board.remove(p.index)
            snap(
                (HandPlan(turn.player, lerp(cell, home, 0.45), p, "pinch", 2.0),),
                "carry",
                rk=without,
            )
            removal = {"type": "removal", "player": turn.player, "index": p.index}
            for i in range(max(2, stable - 1)):
                snap((), "stable", (), removal if i == 0 else None)
    return frames


def expected_events(frames: Sequence[FramePlan], names: Sequence[str]) -> list[dict[str, Any]]:
    """Tracker events with the name of the first stable frame that shows them."""
    out = []
    for f, name in zip(frames, names, strict=True):
        if f.event is not None:
            out.append({"frame": name, **f.event})
    return out


def edge_angle(index: int) -> float:
    """Turn (degrees) that lays an up-pointing loose tile onto cell ``index``."""
    return 0.0 if SPECTRANGLE36.geometry[index].orientation == "up" else 180.0


def held_edges(p: Placement) -> Placement:
    """The colours of an up tile which, turned by :func:`edge_angle`, lies as ``p``."""
    if SPECTRANGLE36.geometry[p.index].orientation == "up":
        return p
    return Placement(p.index, p.right, p.left, p.base, p.value)
