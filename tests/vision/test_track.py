"""The tracker's logic on synthetic frames with a scripted reader (vision.track).

Frames are drawn from a board state (cells filled with a grey per tile, a hand as a big
blob over the board and its band, light as a gain); the fake reader returns the reading
registered for each frame, so these tests do not depend on the reader's accuracy.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import cv2
import numpy as np
import pytest

from engine import SPECTRANGLE36, Placement
from vision.errors import BoardNotFoundError
from vision.model import PLAY_CORNERS, VERTICES, outer_corners, project
from vision.read import COLOURLESS, EMPTY, TILE, UNKNOWN, BoardReading, CellReading
from vision.rectify import BoardFit
from vision.track import (
    Correction,
    Located,
    Look,
    Placed,
    Removal,
    Resumed,
    Tracker,
    TrackerConfig,
    Uncertain,
)

N = len(SPECTRANGLE36.geometry)
P = Placement.from_notation
SIZE = (640, 360)


def homography(dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """Board units -> pixels: 40 px per unit, the apex near the top middle."""
    return np.array([[40.0, 0.0, 320.0 + dx], [0.0, 40.0, 50.0 + dy], [0.0, 0.0, 1.0]])


def fit_for(h: np.ndarray) -> BoardFit:
    return BoardFit(h, project(h, PLAY_CORNERS), 0.3, 0.01, 28)


class Scene:
    """Draws frames of a board state and registers what the fake reader should say."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.h = homography()
        self.board = True  # False: the board is out of view
        self.readings: dict[bytes, tuple[np.ndarray, tuple[CellReading, ...]]] = {}

    def frame(
        self,
        tiles: dict[int, Placement],
        hand: tuple[float, float] | None = None,
        gain: float = 1.0,
        reading: dict[int, CellReading] | None = None,
        lamp: float = 0.0,
        shadow: tuple[float, float] | None = None,
    ) -> np.ndarray:
        """A frame of ``tiles`` (a hand at board point ``hand``); ``reading`` overrides
        what the reader says of some cells (unknown under the hand, misreads...). ``lamp``:
        a lamp on the right, brightening that side by up to that fraction; ``shadow``: a
        soft shadow centred on that board point."""
        w, h = SIZE
        img = np.full((h, w, 3), 150, np.uint8)
        if not self.board:
            noise = self.rng.integers(-3, 4, img.shape, dtype=np.int16)
            img = np.clip(img + noise, 0, 255).astype(np.uint8)
            self.readings[_key(img)] = (np.full((3, 3), np.nan), ())
            return img
        band = project(self.h, outer_corners(0.46))
        cv2.fillPoly(img, [np.round(band).astype(np.int32)], (30, 30, 30))
        for i in range(N):
            tri = project(self.h, VERTICES[i])
            centre = tri.mean(axis=0)
            p = tiles.get(i)
            if p is None:
                window = centre + (tri - centre) * 0.5
                cv2.fillPoly(img, [np.round(window).astype(np.int32)], (120, 110, 100))
            else:
                shade = 60 + 25 * p.value + 10 * (i % 3)
                colour = (shade, 255 - shade, (shade * 3) % 256)
                cv2.fillPoly(img, [np.round(tri * 1.0).astype(np.int32)], colour)
        if hand is not None:
            c = project(self.h, np.array([hand]))[0]
            cv2.ellipse(img, (int(c[0]), int(c[1])), (70, 45), 30, 0, 360, (90, 140, 200), -1)
            cv2.rectangle(img, (int(c[0]) - 30, int(c[1])), (int(c[0]) + 30, h), (90, 140, 200), -1)
        if gain != 1.0:
            img = cv2.convertScaleAbs(img, alpha=gain)
        if lamp or shadow is not None:
            light = np.ones((h, w), np.float32)
            if lamp:
                light *= 1.0 + lamp * np.clip((np.arange(w) - 0.4 * w) / (0.3 * w), 0.0, 1.0)
            if shadow is not None:
                c = project(self.h, np.array([shadow]))[0]
                dark = np.zeros((h, w), np.float32)
                cv2.ellipse(dark, (int(c[0]), int(c[1])), (90, 60), 20, 0, 360, 0.45, -1)
                light *= 1.0 - cv2.GaussianBlur(dark, (0, 0), 25)
            img = np.clip(img * light[:, :, None], 0, 255).astype(np.uint8)
        noise = self.rng.integers(-3, 4, img.shape, dtype=np.int16)
        img = np.clip(img + noise, 0, 255).astype(np.uint8)
        cells = []
        for i in range(N):
            if reading is not None and i in reading:
                cells.append(reading[i])
            elif i in tiles:
                cells.append(cell_reading(tiles[i]))
            else:
                cells.append(CellReading(i, EMPTY))
        self.readings[_key(img)] = (self.h.copy(), tuple(cells))
        return img


def cell_reading(
    p: Placement, runner: Placement | None = None, margin: float = 15.0, confidence: float = 0.8
) -> CellReading:
    alts = [(p, 4.0)]
    if runner is not None:
        alts.append((runner, 4.0 + margin))
    return CellReading(
        p.index, TILE, (p.left, p.right, p.base), p.value, confidence, "", tuple(alts)
    )


def _key(frame: np.ndarray) -> bytes:
    return hashlib.blake2b(frame.tobytes(), digest_size=16).digest()


class FakeReader:
    """Says what the scene registered for a frame; garbage for a fit that does not match."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.reads = 0
        self.locates = 0

    def locate(self, frame_bgr: np.ndarray) -> BoardFit:
        self.locates += 1
        h, _ = self.scene.readings[_key(frame_bgr)]
        if not np.isfinite(h).all():
            raise BoardNotFoundError("no board")
        return fit_for(h)

    find = locate  # the tracker finds the board as the reader's read does

    def read(self, frame_bgr: np.ndarray, fit: BoardFit | None = None) -> BoardReading:
        self.reads += 1
        h, cells = self.scene.readings[_key(frame_bgr)]
        fit = fit or fit_for(h)
        if not np.allclose(fit.homography, h):
            cells = tuple(CellReading(i, UNKNOWN, note="garbage") for i in range(N))
        return BoardReading(True, cells, fit)


@pytest.fixture
def scene() -> Scene:
    return Scene(seed=5)


def make_tracker(scene: Scene, **kw: object) -> tuple[Tracker, FakeReader]:
    reader = FakeReader(scene)
    return Tracker(reader, players=2, **kw), reader  # type: ignore[arg-type]


def feed(tracker: Tracker, frames: list[np.ndarray], start: int = 0) -> list[object]:
    events: list[object] = []
    for k, f in enumerate(frames):
        events.extend(tracker.process(f"{start + k:04d}.jpg", f))
    return events


def hand_sequence(
    scene: Scene,
    before: dict[int, Placement],
    after: dict[int, Placement],
    cell: int,
    lamp: float = 0.0,
) -> list[np.ndarray]:
    """A hand reaches in, puts a tile down (or takes one), leaves; then four still frames."""
    x, y = SPECTRANGLE36.geometry[cell].centroid
    ghost = {i: CellReading(i, UNKNOWN, note="covered") for i in range(N) if i % 4 == 0}
    return [
        scene.frame(before, hand=(x - 1.5, y + 2.0), reading=ghost, lamp=lamp),
        scene.frame(before, hand=(x, y + 0.5), reading=ghost, lamp=lamp),
        scene.frame(after, hand=(x + 1.0, y + 2.5), reading=ghost, lamp=lamp),
        *[scene.frame(after, lamp=lamp) for _ in range(4)],
    ]


def placements(events: list[object]) -> list[Placed]:
    return [e for e in events if isinstance(e, Placed)]


def test_placement_scored_once_with_the_player_in_turn(scene: Scene) -> None:
    tracker, reader = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    events = feed(tracker, [scene.frame({}) for _ in range(4)])
    assert [type(e) for e in events] == [Located]
    events = feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    events += feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: b}, 5), 20)
    placed = placements(events)
    assert [(p.placement, p.player, p.legal, p.score) for p in placed] == [
        (a, 1, True, 5),
        (b, 2, True, 4),
    ]
    assert placed[0].to_json()["edges"] == {"left": "red", "right": "red", "base": "yellow"}
    assert tracker.totals() == {"1": 5, "2": 4}
    # Reported within two still frames of the hand leaving.
    assert placed[0].frame in ("0013.jpg", "0014.jpg")
    # Still frames after the decision are cheap: no more reads.
    reads = reader.reads
    feed(tracker, [scene.frame({6: a, 5: b}) for _ in range(10)], 30)
    assert reader.reads == reads
    assert tracker.stats.unchanged >= 10


def test_illegal_placement_reported_then_removal_restores(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a, bad, good = P("6:RRY5"), P("5:YPP5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    events = feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    events += feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: bad}, 5), 20)
    illegal = placements(events)[-1]
    assert (illegal.legal, illegal.score, illegal.player) == (False, 0, 2)
    assert "right edge of cell 5" in illegal.reason
    assert illegal.to_json()["reason"] == illegal.reason
    events = feed(tracker, hand_sequence(scene, {6: a, 5: bad}, {6: a}, 5), 30)
    assert [(type(e), getattr(e, "index", None)) for e in events] == [(Removal, 5)]
    assert events[0].to_json() == {
        "frame": events[0].frame,
        "type": "removal",
        "index": 5,
        "player": 2,
    }
    # The refused placement stays in the game's record (it changed nothing, scored 0).
    history = tracker.game.history
    assert [o.legal for o in history] == [True, False]
    assert tracker.game.board[5] is None and tracker.totals() == {"1": 5, "2": 0}
    from engine.record import record_from_game

    assert [m.placement for m in record_from_game(tracker.game).moves] == [a, bad]
    # The same player plays again, on the same cell.
    events = feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: good}, 5), 40)
    assert [(p.placement, p.player, p.score) for p in placements(events)] == [(good, 2, 4)]


def test_illegal_tile_swapped_for_another_without_an_empty_frame(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a, bad, good = P("6:RRY5"), P("5:YPP5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: bad}, 5), 20)
    events = feed(tracker, hand_sequence(scene, {6: a, 5: bad}, {6: a, 5: good}, 5), 30)
    assert [type(e) for e in events] == [Removal, Placed]
    assert placements(events)[0].legal and tracker.totals() == {"1": 5, "2": 4}


def test_two_new_tiles_ask_to_look_and_resume_when_put_back(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a = P("6:RRY5")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    two = {6: a, 5: P("5:BRR4"), 7: P("7:RGB3")}
    events = feed(tracker, hand_sequence(scene, {6: a}, two, 5), 20)
    assert [type(e) for e in events] == [Look]
    look = events[0]
    assert isinstance(look, Look) and look.new == (5, 7) and look.gone == ()
    assert tracker.totals() == {"1": 5, "2": 0}
    # Still the same discrepancy: no second look.
    assert feed(tracker, [scene.frame(two) for _ in range(5)], 30) == []
    events = feed(tracker, hand_sequence(scene, two, {6: a}, 5), 40)
    assert [type(e) for e in events] == [Resumed]
    events = feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: P("5:BRR4")}, 5), 50)
    assert [p.score for p in placements(events)] == [4]


@pytest.mark.parametrize(
    "note", ["covered or unclear", f"a tile whose numeral looks like 4; {COLOURLESS}"]
)
def test_a_camera_with_no_colour_asks_for_colour_and_a_hand_is_waited_for(
    scene: Scene, note: str
) -> None:
    tracker, _ = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    # A tile lies on cell 5 (or a hand over it), and the reader cannot say which.
    unread = {5: CellReading(5, UNKNOWN, note=note)}
    frames = [scene.frame({6: a, 5: b}, reading=unread) for _ in range(160)]
    looks = [e for e in feed(tracker, frames, 20) if isinstance(e, Look)]
    if COLOURLESS in note:
        assert len(looks) == 1 and "no colour" in looks[0].message
        assert looks[0].changed == (5,)
    else:
        assert looks == []
    assert tracker.totals() == {"1": 5, "2": 0}


def test_a_tile_gone_asks_to_look(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: b}, 5), 20)
    events = feed(tracker, hand_sequence(scene, {6: a, 5: b}, {5: b}, 6), 30)
    assert [(type(e), getattr(e, "gone", None)) for e in events] == [(Look, (6,))]
    assert tracker.totals() == {"1": 5, "2": 4}


def test_hands_shadows_and_light_make_no_event(scene: Scene) -> None:
    tracker, reader = make_tracker(scene)
    a = P("6:RRY5")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    # A hand that stays still over the board, holding a tile that reads as one on cell 12,
    # other cells under it unknown.
    phantom = {12: cell_reading(P("12:GGB5")), 13: CellReading(13, UNKNOWN, note="covered")}
    still_hand = [scene.frame({6: a}, hand=(0.0, 4.0), reading=phantom) for _ in range(8)]
    # Even when the reader sees no unknown cell, the change on the band and around blocks.
    phantom_only = {12: cell_reading(P("12:GGB5"))}
    still_hand += [scene.frame({6: a}, hand=(0.5, 4.2), reading=phantom_only) for _ in range(8)]
    # A light change over the whole scene, and back.
    light = [scene.frame({6: a}, gain=g) for g in (0.7, 0.7, 0.7, 0.7, 1.25, 1.25, 1.25, 1.0)]
    events = feed(tracker, still_hand + light + [scene.frame({6: a}) for _ in range(4)], 20)
    assert events == []
    assert tracker.totals() == {"1": 5, "2": 0}
    assert len(tracker.game.history) == 1
    assert reader.reads < 40


def test_uncertain_between_two_legal_readings_offers_both(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a = P("6:RRY5")
    first, second = P("5:BRR4"), P("5:PRR5")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    unsure = {5: cell_reading(first, second, margin=1.0)}
    frames = hand_sequence(scene, {6: a}, {6: a, 5: first}, 5)
    frames[3:] = [scene.frame({6: a, 5: first}, reading=unsure) for _ in range(4)]
    events = feed(tracker, frames, 20)
    assert [type(e) for e in events] == [Uncertain]
    u = events[0]
    assert isinstance(u, Uncertain)
    assert [c.placement for c in u.candidates] == [first, second]
    assert [c.score for c in u.candidates] == [4, 5] and u.player == 2
    assert u.to_json()["candidates"][1]["placement"] == "5:PRR5"
    assert tracker.totals() == {"1": 5, "2": 0}  # nothing guessed
    resolved = tracker.resolve("0030.jpg", second)
    assert [(p.placement, p.score, p.player) for p in placements(resolved)] == [(second, 5, 2)]
    assert tracker.totals() == {"1": 5, "2": 5}


def test_near_readings_decided_by_the_rules_when_only_one_is_legal(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a = P("6:RRY5")
    legal, illegal = P("5:BRR4"), P("5:RBR4")  # the right edge must be red against cell 6
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    frames = hand_sequence(scene, {6: a}, {6: a, 5: legal}, 5)
    unsure = {5: cell_reading(illegal, legal, margin=1.0)}
    frames[3:] = [scene.frame({6: a, 5: legal}, reading=unsure) for _ in range(4)]
    events = feed(tracker, frames, 20)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, legal)]


def test_tile_read_wrongly_is_corrected_and_scores_redone(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    truth, wrong = P("6:RRY5"), P("6:RRB4")
    b = P("5:PRR5")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    frames = hand_sequence(scene, {}, {6: truth}, 6)
    frames[3:] = [scene.frame({6: truth}, reading={6: cell_reading(wrong)}) for _ in range(4)]
    events = feed(tracker, frames, 10)
    assert [p.placement for p in placements(events)] == [wrong]
    assert tracker.totals() == {"1": 4, "2": 0}
    # Seen better after each of the next two placements (a light change alone is no
    # decision: the cheap gate normalises it away).
    events = feed(tracker, hand_sequence(scene, {6: truth}, {6: truth, 5: b}, 5), 20)
    assert [p.placement for p in placements(events)] == [b]
    assert feed(tracker, [scene.frame({6: truth, 5: b}, gain=0.75) for _ in range(4)], 30) == []
    c7 = P("7:RGG5")
    events = feed(tracker, hand_sequence(scene, {6: truth, 5: b}, {6: truth, 5: b, 7: c7}, 7), 40)
    corrections = [e for e in events if isinstance(e, Correction)]
    assert len(corrections) == 1
    c = corrections[0]
    assert (c.index, c.before, c.after, c.player, c.score) == (6, wrong, truth, 1, 5)
    assert [p.placement for p in placements(events)] == [c7]
    assert tracker.totals() == {"1": 10, "2": 5}
    assert c.to_json()["scores"] == {"1": 5, "2": 5}
    assert [o.points for o in tracker.game.history] == [5, 5, 5]


def test_board_moved_is_located_again_without_phantoms(scene: Scene) -> None:
    tracker, reader = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    scene.h = homography(dx=25.0, dy=12.0)
    events = feed(tracker, [scene.frame({6: a}) for _ in range(4)], 20)
    assert [type(e) for e in events] == [Located]
    moved = events[0]
    assert isinstance(moved, Located) and moved.moved
    assert moved.to_json()["type"] == "moved"
    events = feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: b}, 5), 30)
    assert [(p.placement, p.score) for p in placements(events)] == [(b, 4)]
    assert reader.locates == 2


def test_no_board_no_events_and_located_later(scene: Scene) -> None:
    tracker, reader = make_tracker(scene, config=replace(TrackerConfig.load(), locate_every=2))
    scene.board = False
    blank = [scene.frame({}) for _ in range(5)]
    assert feed(tracker, blank) == []
    assert reader.locates == 3 and tracker.fit is None
    scene.board = True
    events = feed(tracker, [scene.frame({}) for _ in range(4)], 10)
    assert [type(e) for e in events] == [Located]


def test_fps_lengthens_the_still_run() -> None:
    cfg = TrackerConfig.load()
    assert cfg.run_length(None) == max(cfg.quiet_frames + 1, cfg.same_reads)
    assert cfg.run_length(30.0) >= 7


def _covered(cells: range | list[int]) -> dict[int, CellReading]:
    return {i: CellReading(i, UNKNOWN, note="covered") for i in cells}


def test_hand_pausing_over_the_board_then_leaving_with_a_tile_places_once(scene: Scene) -> None:
    tracker, reader = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    x, y = SPECTRANGLE36.geometry[5].centroid
    # The hand rests over the board: first reaching in, then over the tile it put down
    # (cells under it unknown), then still holding on with the reader seeing only the tile.
    reach = [
        scene.frame({6: a}, hand=(x, y + 1.5), reading=_covered([5, 11, 12])) for _ in range(20)
    ]
    down = _covered([11, 12, 13]) | {5: cell_reading(b)}
    hold = [scene.frame({6: a, 5: b}, hand=(x, y + 0.8), reading=down) for _ in range(20)]
    only = {5: cell_reading(b)}
    hold += [scene.frame({6: a, 5: b}, hand=(x + 0.3, y + 1.0), reading=only) for _ in range(20)]
    reads = reader.reads
    events = feed(tracker, reach + hold, 20)
    assert events == []
    # A resting hand is read only now and then (less often the longer it rests).
    assert reader.reads - reads < len(reach + hold)
    events = feed(tracker, [scene.frame({6: a, 5: b}) for _ in range(4)], 80)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, b)]
    assert events[0].frame in ("0081.jpg", "0082.jpg")  # within two still frames
    assert tracker.totals() == {"1": 5, "2": 4}


def test_hand_pausing_without_a_tile_makes_no_event(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    x, y = SPECTRANGLE36.geometry[20].centroid
    # Resting with the cells under it unknown, then where the reader sees the board as
    # recorded under it (the hand must not become what later changes are measured against).
    rest = [scene.frame({6: a}, hand=(x, y), reading=_covered([13, 20, 21])) for _ in range(30)]
    rest += [scene.frame({6: a}, hand=(x - 1.0, y + 1.0)) for _ in range(30)]
    events = feed(tracker, rest + [scene.frame({6: a}) for _ in range(4)], 20)
    assert events == []
    # The next placement is recalled as usual.
    events = feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: b}, 5), 90)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, b)]


def test_lamp_switched_on_over_one_side_makes_no_event(scene: Scene) -> None:
    tracker, reader = make_tracker(scene)
    a, b, c = P("6:RRY5"), P("5:BRR4"), P("7:RGG5")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    lamp = [scene.frame({6: a}, lamp=0.8) for _ in range(30)]
    events = feed(tracker, lamp, 20)
    assert events == []
    reads = reader.reads
    assert feed(tracker, [scene.frame({6: a}, lamp=0.8) for _ in range(10)], 50) == []
    assert reader.reads == reads  # the lit scene is absorbed: cheap again
    # Placements under the lamp are still recalled, and after it is switched off.
    events = feed(tracker, hand_sequence(scene, {6: a}, {6: a, 5: b}, 5, lamp=0.8), 60)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, b)]
    assert feed(tracker, [scene.frame({6: a, 5: b}) for _ in range(6)], 70) == []
    events = feed(tracker, hand_sequence(scene, {6: a, 5: b}, {6: a, 5: b, 7: c}, 7), 80)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, c)]
    assert tracker.totals() == {"1": 10, "2": 4}


def test_shadow_over_the_board_makes_no_event(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    # A shadow drifts over the board, rests, and goes away.
    path = [(1.0, 3.0), (1.5, 3.5), (2.0, 4.0)]
    frames = [scene.frame({6: a}, shadow=p) for p in path for _ in range(10)]
    frames += [scene.frame({6: a}) for _ in range(5)]
    assert feed(tracker, frames, 20) == []
    # A placement while a shadow rests beside it.
    steps = hand_sequence(scene, {6: a}, {6: a, 5: b}, 5)[:3]
    steps += [scene.frame({6: a, 5: b}, shadow=(3.0, 5.0)) for _ in range(4)]
    events = feed(tracker, steps, 60)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, b)]
    assert tracker.totals() == {"1": 5, "2": 4}


def test_shadow_lingering_over_a_new_tile_does_not_block_the_next(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a, b, c = P("6:RRY5"), P("5:BRR4"), P("7:RGG5")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    # The leaving hand pauses: its shadow lies over the new tile while it is decided.
    x, y = SPECTRANGLE36.geometry[5].centroid
    steps = hand_sequence(scene, {6: a}, {6: a, 5: b}, 5)[:3]
    steps += [scene.frame({6: a, 5: b}, shadow=(x + 0.5, y + 0.5)) for _ in range(4)]
    steps += [scene.frame({6: a, 5: b}) for _ in range(4)]
    events = feed(tracker, steps, 20)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, b)]
    events = feed(tracker, hand_sequence(scene, {6: a, 5: b}, {6: a, 5: b, 7: c}, 7), 40)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, c)]


def test_a_flicker_of_light_after_the_hand_leaves_does_not_delay(scene: Scene) -> None:
    tracker, _ = make_tracker(scene)
    a, b = P("6:RRY5"), P("5:BRR4")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    feed(tracker, hand_sequence(scene, {}, {6: a}, 6), 10)
    after = {6: a, 5: b}
    steps = hand_sequence(scene, {6: a}, after, 5)[:3]
    steps += [scene.frame(after, gain=g) for g in (1.0, 0.8, 1.0, 1.0)]
    events = feed(tracker, steps, 20)
    assert [(type(e), getattr(e, "placement", None)) for e in events] == [(Placed, b)]
    assert events[0].frame in ("0023.jpg", "0024.jpg")  # within two still frames


def test_an_unchanged_empty_cell_read_unknown_does_not_hold_a_placement_up(
    scene: Scene,
) -> None:
    """The reader may call an empty cell unknown where an empty cell is hard to tell (a
    bonus cell's see-through numeral over a table as dark as the plastic), now and then.
    Its picture has not changed since the board last matched the record: nothing came
    onto it, so it counts as empty and the placement beside it is scored. A cell that
    reads unknown because something is over it changes its picture, and is waited for
    (the hand's frames above)."""
    tracker, _ = make_tracker(scene)
    a = P("6:RRY5")
    feed(tracker, [scene.frame({}) for _ in range(3)])
    x, y = SPECTRANGLE36.geometry[6].centroid
    flicker = {7: CellReading(7, UNKNOWN, note="does not look like a tile")}
    frames = [
        scene.frame({}, hand=(x - 1.5, y + 2.0)),
        scene.frame({6: a}, hand=(x + 1.0, y + 2.5)),
        *[scene.frame({6: a}, reading=flicker if k % 2 else None) for k in range(6)],
    ]
    placed = placements(feed(tracker, frames, 10))
    assert [(p.placement, p.player) for p in placed] == [(a, 1)]
