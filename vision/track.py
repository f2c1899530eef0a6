"""The live tracker: frames in, scored placements and other events out.

A layered gate keeps the cost of a frame in which nothing moved to a small fraction of a
full read: each frame is rectified onto a small grey canvas of the board (the stored fit),
and compared per cell with the previous frame (motion) and with the reference canvas of
the last decided scene (change). Only when something changed and then stayed still for a
few frames is the board read in full (with the stored fit), and only when the same
occupancy is read on several frames is a decision taken:

- nothing changed but the picture (light, a lamp, a shadow): the board reads as recorded,
  and the scene becomes the reference. Whether something lies over the board is judged on
  the change from the last clean scene *and* from the last scene that read as recorded,
  whichever is smaller, so a shadow or a lamp that stays is not taken for a hand, and a
  hand the reader saw as the record does not hide the next placement;
- something over the board (cells read unknown, or change around the new tile or on the
  border band): wait, decide nothing and keep the reference; the scene is read again
  less often the longer it rests (a hand that leaves starts a new still run). An empty
  cell read unknown whose picture has not changed since the board last matched the
  record is no such thing: it counts as empty (the reader may call a hard empty cell
  unknown now and then, a bonus cell over a dark table);
- exactly one empty cell now holds a tile, all else unchanged, nothing over the board:
  a placement; the tile is chosen among those still available in all rotations, the
  engine checks and scores it (an illegal one stays on the board until it is taken back:
  its removal is a ``removal`` event and it is never scored);
- anything else: a ``look`` event (what changed); when most of the board changed the board
  is located again (``moved``), and tracking resumes (``resumed``) once the board matches
  the recorded state.

Later, clearer readings of a tile already placed correct it (``correction``) and the scores
are redone by the engine. :class:`Tracker` holds only the loaded resources and this memory.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engine import SPECTRANGLE36, Placement, check_placement
from engine.colours import EDGE_ORDER
from engine.game import Game, Outcome, Place
from vision.config import config_json, config_values
from vision.errors import VisionError
from vision.model import CENTRE, PLAY_CORNERS, VERTICES, Canvas, FloatArray, outer_corners, project
from vision.read import COLOURLESS, EMPTY, TILE, UNKNOWN, BoardReading, CellReading, check_frame
from vision.rectify import BoardFit

log = logging.getLogger(__name__)

BLOCKED_LOOK = "something has been over the board for a while; clear it or check the record"
NO_COLOUR_LOOK = (
    "the camera shows no colour (a greyscale or night-mode camera?): tiles cannot be told"
    " apart; switch it to colour, or give it more light"
)

N_CELLS = len(SPECTRANGLE36.geometry)
BAND = N_CELLS  # label of the border band region on the change canvas
_NEIGHBOURS: tuple[frozenset[int], ...] = tuple(
    frozenset(o for _, o in cell.neighbours if o is not None) for cell in SPECTRANGLE36.geometry
)


# ----------------------------------------------------------------------------- config


@dataclass(frozen=True)
class TrackerConfig:
    """Every threshold of the tracker; see ``vision/data/tracker.json`` for their meaning."""

    canvas_ppu: int
    cell_inset: float
    band_width: float
    blur_px: int
    change_threshold: float
    motion_threshold: float
    band_change_threshold: float
    stray_threshold: float
    neighbour_factor: float
    quiet_frames: int
    quiet_seconds: float
    same_reads: int
    blocked_retry_frames: int
    blocked_retry_max_frames: int
    blocked_look_frames: int
    locate_every: int
    relocate_min_cells: int
    moved_min_fraction: float
    uncertain_margin: float
    max_candidates: int
    correction_min_confidence: float
    correction_margin: float
    correction_reads: int

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrackerConfig:
        return cls(**config_values(cls, data, "tracker"))

    @classmethod
    def load(cls, path: str | Path | None = None) -> TrackerConfig:
        if path is None:
            text = resources.files("vision.data").joinpath("tracker.json").read_text("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        return cls.from_json(config_json(text))

    def run_length(self, fps: float | None) -> int:
        """Frames that must be still (mutually quiet) before the board is read."""
        n = max(self.quiet_frames + 1, self.same_reads)
        if fps:
            n = max(n, math.ceil(self.quiet_seconds * fps))
        return n


# ----------------------------------------------------------------------------- events


def _edges_json(p: Placement) -> dict[str, str]:
    return {e.value: p.colour(e).value for e in EDGE_ORDER}


@dataclass(frozen=True)
class Event:
    """Something the tracker reports; ``frame`` names the frame that decided it."""

    frame: str
    type: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        return {"frame": self.frame, "type": self.type}

    def text(self) -> str:
        return f"{self.frame}: {self.type}"


@dataclass(frozen=True)
class Located(Event):
    """The board was found (first, or again after it moved: ``moved``)."""

    corners: tuple[tuple[float, float], ...]
    moved: bool = False
    type: ClassVar[str] = "located"

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["type"] = "moved" if self.moved else "located"
        out["corners"] = [[round(x, 1), round(y, 1)] for x, y in self.corners]
        return out

    def text(self) -> str:
        what = "the board moved; located again" if self.moved else "board located"
        return f"{self.frame}: {what}"


@dataclass(frozen=True)
class Placed(Event):
    """A tile put down, as the engine judged it (an illegal one scores 0)."""

    placement: Placement
    player: int  # 1-based
    legal: bool
    score: int
    reason: str = ""
    arithmetic: str = ""
    confidence: float = 1.0
    assumed: bool = False  # an uncertain reading settled on its best candidate
    type: ClassVar[str] = "placement"

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(
            index=self.placement.index,
            value=self.placement.value,
            edges=_edges_json(self.placement),
            legal=self.legal,
            score=self.score,
            player=self.player,
        )
        if not self.legal:
            out["reason"] = self.reason
        out["confidence"] = round(self.confidence, 3)
        if self.assumed:
            out["assumed"] = True
        return out

    def text(self) -> str:
        p = self.placement
        if not self.legal:
            return (
                f"{self.frame}: player {self.player} put {p.field()} on cell {p.index}: "
                f"ILLEGAL - {self.reason}; take it back"
            )
        extra = " (assumed)" if self.assumed else ""
        return (
            f"{self.frame}: player {self.player} put {p.field()} on cell {p.index}: "
            f"{self.arithmetic or self.score}{extra}"
        )


@dataclass(frozen=True)
class Candidate:
    """One reading offered for an uncertain tile, with what the engine would make of it."""

    placement: Placement
    cost: float
    legal: bool
    score: int

    def to_json(self) -> dict[str, Any]:
        return {
            "placement": self.placement.notation(),
            "edges": _edges_json(self.placement),
            "value": self.placement.value,
            "legal": self.legal,
            "score": self.score,
            "cost": round(self.cost, 2),
        }


@dataclass(frozen=True)
class Uncertain(Event):
    """A new tile whose best reading does not clearly beat the runner-up: players choose."""

    index: int
    player: int
    candidates: tuple[Candidate, ...]
    type: ClassVar[str] = "uncertain"

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(
            index=self.index,
            player=self.player,
            candidates=[c.to_json() for c in self.candidates],
        )
        return out

    def text(self) -> str:
        options = " or ".join(c.placement.field() for c in self.candidates)
        return f"{self.frame}: cell {self.index}: is it {options}? please confirm"


@dataclass(frozen=True)
class Removal(Event):
    """An illegally placed tile taken back; the previous state is restored."""

    index: int
    player: int
    type: ClassVar[str] = "removal"

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(index=self.index, player=self.player)
        return out

    def text(self) -> str:
        return f"{self.frame}: the illegal tile on cell {self.index} was taken back"


@dataclass(frozen=True)
class Look(Event):
    """Something the tracker will not guess at: the players should look."""

    message: str
    new: tuple[int, ...] = ()
    gone: tuple[int, ...] = ()
    changed: tuple[int, ...] = ()
    type: ClassVar[str] = "look"

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(
            message=self.message,
            new=list(self.new),
            gone=list(self.gone),
            changed=list(self.changed),
        )
        return out

    def text(self) -> str:
        return f"{self.frame}: LOOK - {self.message}"


@dataclass(frozen=True)
class Resumed(Event):
    """The board matches the recorded state again after a ``look``."""

    type: ClassVar[str] = "resumed"

    def text(self) -> str:
        return f"{self.frame}: the board matches the record again; tracking resumed"


@dataclass(frozen=True)
class Correction(Event):
    """A tile read wrongly earlier, seen better now; the scores are redone."""

    index: int
    before: Placement
    after: Placement
    player: int
    legal: bool
    score: int
    totals: tuple[tuple[str, int], ...]
    type: ClassVar[str] = "correction"

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(
            index=self.index,
            before=self.before.notation(),
            value=self.after.value,
            edges=_edges_json(self.after),
            legal=self.legal,
            score=self.score,
            player=self.player,
            scores=dict(self.totals),
        )
        return out

    def text(self) -> str:
        totals = ", ".join(f"{k} {v}" for k, v in self.totals)
        return (
            f"{self.frame}: cell {self.index} is {self.after.field()}, not "
            f"{self.before.field()}: scores redone ({totals})"
        )


# ----------------------------------------------------------------------------- the change canvas


class Reader(Protocol):
    """What the tracker needs of :class:`vision.read.BoardReader` (a fake one in tests)."""

    def locate(self, frame_bgr: NDArray[np.uint8]) -> BoardFit: ...

    def read(self, frame_bgr: NDArray[np.uint8], fit: BoardFit | None = None) -> BoardReading: ...


@dataclass(frozen=True)
class View:
    """One frame seen through a :class:`ChangeMeter`: the used canvas pixels (N, 3) and
    the mean colour of each region (37, 3)."""

    pixels: NDArray[np.float32] = field(repr=False)
    means: FloatArray = field(repr=False)


class ChangeMeter:
    """A small rectified canvas of the board for one fit, and per-region differences.

    Regions: the 36 cells (shrunk away from the ridges) and the border band (index 36).
    The frame is warped straight onto the canvas (a fixed set of sample points, so
    sampling noise does not change between frames), then lightly blurred; colour is kept
    so that a red tile swapped for a green one of the same lightness is still a change.
    """

    def __init__(self, fit: BoardFit, frame_shape: tuple[int, ...], cfg: TrackerConfig) -> None:
        self.cfg = cfg
        h_img, w_img = frame_shape[:2]
        canvas = Canvas(cfg.canvas_ppu)
        self.canvas = canvas
        image_from_canvas = fit.homography @ canvas.board_from_canvas
        cw, ch = canvas.width, canvas.height
        box = project(image_from_canvas, np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], float))
        x0 = int(np.clip(math.floor(box[:, 0].min()) - 2, 0, w_img - 1))
        x1 = int(np.clip(math.ceil(box[:, 0].max()) + 2, x0 + 1, w_img))
        y0 = int(np.clip(math.floor(box[:, 1].min()) - 2, 0, h_img - 1))
        y1 = int(np.clip(math.ceil(box[:, 1].max()) + 2, y0 + 1, h_img))
        self.crop = (slice(y0, y1), slice(x0, x1))
        self.crop_size = (x1 - x0, y1 - y0)
        shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
        self.crop_from_canvas = shift @ image_from_canvas
        # Region labels, minus what lies outside the frame.
        labels = np.full((ch, cw), -1, np.int32)
        band = np.zeros((ch, cw), np.uint8)
        outer = canvas.to_canvas(outer_corners(cfg.band_width * 0.9))
        inner = canvas.to_canvas(outer_corners(0.08))
        cv2.fillPoly(band, [np.round(outer).astype(np.int32)], 1)
        cv2.fillPoly(band, [np.round(inner).astype(np.int32)], 0)
        labels[band > 0] = BAND
        for i in range(N_CELLS):
            tri = VERTICES[i]
            c = tri.mean(axis=0)
            inradius = float(np.linalg.norm(tri[0] - c)) / 2.0
            shrunk = c + (tri - c) * max(0.2, (inradius - cfg.cell_inset) / inradius)
            mask = np.zeros((ch, cw), np.uint8)
            cv2.fillPoly(mask, [np.round(canvas.to_canvas(shrunk)).astype(np.int32)], 1)
            labels[mask > 0] = i
        inside = self._warp(np.full((self.crop_size[1], self.crop_size[0]), 255, np.uint8))
        labels[inside < 255] = -1
        self.labels = labels
        flat = labels.ravel()
        self.index = np.flatnonzero(flat >= 0)
        self.region = flat[self.index]
        self.counts = np.bincount(self.region, minlength=N_CELLS + 1).astype(np.float64)
        self.scale = 1.0 / np.maximum(self.counts, 1.0)
        # A cell is visible when all of it projects into the frame.
        corners = project(fit.homography, VERTICES.reshape(-1, 2)).reshape(N_CELLS, 3, 2)
        self.visible = tuple(
            bool(
                (corners[i, :, 0] >= 0).all()
                and (corners[i, :, 0] <= w_img - 1).all()
                and (corners[i, :, 1] >= 0).all()
                and (corners[i, :, 1] <= h_img - 1).all()
            )
            for i in range(N_CELLS)
        )

    def _warp(self, image: NDArray[Any]) -> NDArray[Any]:
        return cv2.warpPerspective(  # type: ignore[no-any-return]
            image,
            self.crop_from_canvas,
            (self.canvas.width, self.canvas.height),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )

    def view(self, frame_bgr: NDArray[np.uint8]) -> View:
        """The frame on the small canvas, and its region means."""
        out = self._warp(frame_bgr[self.crop])
        k = self.cfg.blur_px
        if k > 1:
            out = cv2.blur(out, (k, k))
        pixels = out.reshape(-1, 3)[self.index].astype(np.float32)
        means = np.stack(
            [np.bincount(self.region, pixels[:, c], N_CELLS + 1) for c in range(3)], axis=1
        )
        return View(pixels, means * self.scale[:, None])

    def gain(self, a: View, b: View) -> FloatArray:
        """Per-channel gain from ``a`` to ``b``: the median over regions of the ratio of
        their means, so that a few regions that really changed do not sway it."""
        ok = (self.counts > 0) & (a.means.min(axis=1) > 8.0)
        if not ok.any():
            return np.ones(3)
        gain = np.median(b.means[ok] / a.means[ok], axis=0)
        return gain if ((gain > 0.5) & (gain < 2.0)).all() else np.ones(3)  # type: ignore[no-any-return]

    def diff(self, a: View, b: View, normalise: bool = False) -> FloatArray:
        """Mean over each region (36 cells, then the band) of the largest channel difference;
        with ``normalise``, a uniform change of light is taken out first."""
        av = a.pixels * self.gain(a, b).astype(np.float32) if normalise else a.pixels
        d = np.abs(av - b.pixels).max(axis=1)
        return np.bincount(self.region, d, N_CELLS + 1) * self.scale  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------- the tracker


@dataclass
class _Pending:
    """An uncertain new tile waiting for a choice."""

    index: int
    player: int  # 0-based
    candidates: tuple[Candidate, ...]


@dataclass
class _Still:
    """The frames of the current still run, with their readings once read."""

    frames: list[tuple[str, NDArray[np.uint8], View]] = field(default_factory=list)
    readings: dict[str, BoardReading] = field(default_factory=dict)
    count: int = 0  # frames in the run (``frames`` keeps only the last few)
    last_read_at: int = 0
    blocked_since: int | None = None
    retries: int = 0  # reads that found something over the board


@dataclass
class TrackerStats:
    frames: int = 0
    unchanged: int = 0
    reads: int = 0
    locates: int = 0
    decisions: int = 0


class Tracker:
    """Follows one game from frames. ``players``: a number, the names, or a :class:`Game`.

    :meth:`process` takes each frame and returns the events it decided (usually none).
    """

    def __init__(
        self,
        reader: Reader,
        players: int | Sequence[str] | Game = 2,
        config: TrackerConfig | None = None,
        fps: float | None = None,
    ) -> None:
        self.reader = reader
        self.cfg = config or TrackerConfig.load()
        if isinstance(players, Game):
            self.game = players
        else:
            names = (
                [str(i + 1) for i in range(players)] if isinstance(players, int) else list(players)
            )
            self.game = Game(names, SPECTRANGLE36, first=0)
        self.run_length = self.cfg.run_length(fps)
        self.stats = TrackerStats()
        # Memory.
        self.fit: BoardFit | None = None
        self.meter: ChangeMeter | None = None
        self.reference: View | None = None  # the canvas of the last decided scene
        self.clean: View | None = None  # the last scene that matched the record, bare
        self.matched: View | None = None  # the last scene that read as the record
        self.previous: View | None = None
        # What lies on the board (incl. pending); a game taken over starts from its board.
        self.physical: dict[int, Placement] = {p.index: p for p in self.game.board.placements}
        self.illegal: dict[int, tuple[Placement, int]] = {}  # illegal tiles not yet taken back
        self.pending: dict[int, _Pending] = {}
        self.look: tuple[tuple[int, ...], ...] | None = None  # what the last look was about
        self.votes: dict[int, tuple[Placement, int]] = {}
        self._still = _Still()
        self._frames_since_locate = 10**9

    # -- the frame loop -------------------------------------------------------------------

    def process(self, name: str, frame_bgr: NDArray[np.uint8]) -> list[Event]:
        """Take one frame; return the events it decided."""
        self.stats.frames += 1
        frame_bgr = check_frame(frame_bgr)
        if self.fit is None or self.meter is None:
            return self._try_locate(name, frame_bgr)
        grey = self.meter.view(frame_bgr)
        previous, self.previous = self.previous, grey
        # A change of light over the whole scene (a cloud, the exposure) is no motion.
        motion = self.meter.diff(grey, previous, normalise=True) if previous is not None else None
        moving = motion is None or float(motion.max()) >= self.cfg.motion_threshold
        if self.reference is not None and not moving:
            change = self.meter.diff(grey, self.reference, normalise=True)
            if float(change.max()) < self.cfg.change_threshold:
                self.stats.unchanged += 1
                self._still = _Still()
                return []
        if moving:
            self._still = _Still(frames=[(name, frame_bgr, grey)], count=1)
            return []
        still = self._still
        still.frames.append((name, frame_bgr, grey))
        still.count += 1
        del still.frames[: -max(self.run_length, self.cfg.same_reads)]
        if still.count < self.run_length:
            return []
        waited = still.count - still.last_read_at
        if still.blocked_since is not None and waited < self._retry_interval(still):
            return []
        return self._settled(still)

    def _try_locate(self, name: str, frame_bgr: NDArray[np.uint8]) -> list[Event]:
        self._frames_since_locate += 1
        if self._frames_since_locate < self.cfg.locate_every:
            return []
        self._frames_since_locate = 0
        self.stats.locates += 1
        try:
            fit = self.reader.find(frame_bgr)
        except VisionError as exc:
            log.info("%s: no board: %s", name, exc)
            return []
        self._set_fit(name, fit, frame_bgr)
        return [Located(name, _corners(fit))]

    def start_from(self, name: str, fit: BoardFit, frame_bgr: NDArray[np.uint8]) -> None:
        """Follow the board at ``fit`` (e.g. a calibration's) from this frame on, without
        looking for it first."""
        self._set_fit(name, fit, frame_bgr)

    def _set_fit(self, name: str, fit: BoardFit, frame_bgr: NDArray[np.uint8]) -> None:
        self.fit = fit
        self.meter = ChangeMeter(fit, frame_bgr.shape, self.cfg)
        grey = self.meter.view(frame_bgr)
        self.previous = grey
        self.reference = None
        self.clean = None
        self.matched = None
        self._still = _Still(frames=[(name, frame_bgr, grey)], count=1)

    # -- reading a still scene ------------------------------------------------------------

    def _read(self, frame_bgr: NDArray[np.uint8]) -> BoardReading:
        self.stats.reads += 1
        return self.reader.read(frame_bgr, self.fit)

    def _settled(self, still: _Still) -> list[Event]:
        """The scene has been still for long enough: read it and decide."""
        still.last_read_at = still.count
        recent = still.frames[-self.cfg.same_reads :]
        for fname, frame, _ in recent:
            if fname not in still.readings:
                still.readings[fname] = self._read(frame)
        keep = {f[0] for f in recent}
        still.readings = {k: v for k, v in still.readings.items() if k in keep}
        readings = [self._steady(still.readings[f[0]], f[2]) for f in recent]
        if len(readings) < self.cfg.same_reads:
            return []
        states = {tuple(c.state for c in r.cells) for r in readings}
        name, frame_bgr, grey = recent[-1]
        if len(states) != 1 or not all(r.found for r in readings):
            log.debug("%s: readings disagree; reading the next still frame", name)
            return []
        events = self._decide(name, frame_bgr, grey, readings, still)
        return events

    def _steady(self, reading: BoardReading, grey: View) -> BoardReading:
        """``reading`` with its unknown cells that are empty in the record, and whose
        picture has not changed since the board last matched it, read as empty.

        Nothing came onto such a cell: no tile, no hand (either would change its
        picture). The reader may still call it unknown where an empty cell is hard to
        tell (a bonus cell's see-through numeral over a table as dark as the plastic),
        and the placement next to it would wait for it forever.
        """
        if self.clean is None or not reading.found:
            return reading
        change = self._change(grey)
        steady = [
            c.index
            for c in reading.cells
            if c.state == UNKNOWN
            and c.index not in self.physical
            and change[c.index] < self.cfg.stray_threshold
        ]
        if not steady:
            return reading
        cells = tuple(
            CellReading(c.index, EMPTY) if c.index in steady else c for c in reading.cells
        )
        return replace(reading, cells=cells)

    def _retry_interval(self, still: _Still) -> int:
        """Frames to wait before reading a scene with something over the board again: the
        longer it rests there, the longer (a hand that leaves starts a new still run)."""
        interval = self.cfg.blocked_retry_frames * 2 ** max(0, min(still.retries - 1, 8))
        return min(interval, max(self.cfg.blocked_retry_frames, self.cfg.blocked_retry_max_frames))

    def _mark_blocked(self, still: _Still) -> None:
        still.retries += 1
        if still.blocked_since is None:
            still.blocked_since = self.stats.frames

    def _accept_scene(self, grey: View, clean: bool = False, matched: bool = False) -> None:
        """The scene is decided: frames like it are now cheap. ``clean``: it matches the
        record with nothing over the board, so later changes are measured against it;
        ``matched``: it reads as the record (light or a shadow may differ)."""
        self.reference = grey
        if clean:
            self.clean = grey
        if clean or matched:
            self.matched = grey
        self._still = _Still()
        self.stats.decisions += 1

    def _change(self, grey: View) -> FloatArray:
        """Per region, the change from the last clean scene and from the last scene that
        read as the record, whichever is smaller: a shadow or a lamp that stayed while the
        board read as recorded is not taken for something over the board."""
        assert self.meter is not None and self.clean is not None
        change = self.meter.diff(grey, self.clean, normalise=True)
        if self.matched is not None and self.matched is not self.clean:
            change = np.minimum(change, self.meter.diff(grey, self.matched, normalise=True))
        return change

    def _decide(
        self,
        name: str,
        frame_bgr: NDArray[np.uint8],
        grey: View,
        readings: list[BoardReading],
        still: _Still,
        relocated: bool = False,
    ) -> list[Event]:
        assert self.meter is not None
        reading = readings[-1]
        visible = self.meter.visible
        cells = reading.cells
        new = tuple(
            i
            for i in range(N_CELLS)
            if visible[i] and i not in self.physical and cells[i].state == TILE
        )
        gone = tuple(
            i
            for i in range(N_CELLS)
            if visible[i] and i in self.physical and cells[i].state == EMPTY
        )
        unknown = tuple(i for i in range(N_CELLS) if visible[i] and cells[i].state == UNKNOWN)
        n_visible = max(1, sum(visible))
        # A board that moved: most of the canvas changed, or the reading makes no sense.
        if self.clean is not None and not relocated:
            change = self._change(grey)
            changed_cells = int((change[:N_CELLS] >= self.cfg.change_threshold).sum())
            moved = (
                changed_cells >= self.cfg.moved_min_fraction * n_visible
                and change[BAND] >= self.cfg.band_change_threshold
            )
            if moved or len(new) + len(gone) >= self.cfg.relocate_min_cells:
                events = self._relocate(name, frame_bgr, still)
                if events is not None:
                    return events
        over_band = False
        stray: list[int] = []
        if self.clean is not None:
            change = self._change(grey)
            # Something over the board: change where the reading saw none, or on the band.
            explained = set(new) | set(gone)
            near = {n for i in explained for n in _NEIGHBOURS[i]} - explained
            stray = [
                i
                for i in range(N_CELLS)
                if i not in explained
                and change[i]
                >= self.cfg.stray_threshold * (self.cfg.neighbour_factor if i in near else 1.0)
            ]
            over_band = change[BAND] >= self.cfg.band_change_threshold
            if (new or gone) and (stray or over_band or unknown):
                return self._blocked(name, grey, still, new, gone, unknown)
        if unknown and (new or gone):
            return self._blocked(name, grey, still, new, gone, unknown)
        events: list[Event] = []
        # Pending uncertain tiles: a clearer view may settle them.
        for index in list(self.pending):
            if index in gone:
                continue
            settled = self._candidates(index, readings, self.pending[index].player)
            choice = self._clear_choice(settled)
            if choice is not None:
                events.extend(self._commit_pending(name, index, choice))
        # An illegal tile swapped for another on the same cell.
        for index in list(self.illegal):
            cell = cells[index]
            if index in gone or cell.state != TILE:
                continue
            bad, _ = self.illegal[index]
            if not _reads_as(cell, bad, self.cfg.uncertain_margin + self.cfg.correction_margin):
                events.append(self._removal(name, index))
                new = (*new, index)
        removed = [i for i in gone if i in self.illegal]
        for index in removed:
            events.append(self._removal(name, index))
        gone = tuple(i for i in gone if i not in removed)
        for index in gone:
            if index in self.pending:  # an uncertain tile taken away again
                del self.pending[index]
                del self.physical[index]
        gone = tuple(i for i in gone if i in self.physical)
        if not unknown:  # earlier tiles seen better, before anything new is scored
            events.extend(self._corrections(name, readings))
        if not new and not gone:
            if unknown:  # something over the board: wait, keep the reference
                if any(cells[i].note.endswith(COLOURLESS) for i in unknown):
                    # Nothing over it: the camera shows no colour, and a tile is told by
                    # its colours. Say so once it lasts, or the players wait for nothing.
                    return events + self._blocked(
                        name, grey, still, new, gone, unknown, NO_COLOUR_LOOK
                    )
                self._mark_blocked(still)
                return events
            if self.look is not None:
                self.look = None
                events.append(Resumed(name))
            # The board reads as recorded: whatever changed is light or shadow (or a hand
            # the reader did not see). Later changes are measured against both this scene
            # and the last clean one, and only a change from both counts.
            self._accept_scene(grey, clean=not (over_band or stray), matched=True)
            return events
        if len(new) == 1 and not gone:
            if self.look is not None:
                self.look = None
            events.extend(self._settle_pending_before_move(name))
            events.extend(self._placement(name, new[0], readings))
            self._accept_scene(grey, clean=True)
            return events
        signature = (new, gone, unknown)
        self._accept_scene(grey)
        if self.look == signature:
            return events
        self.look = signature
        parts = []
        if new:
            parts.append(f"new tiles on cells {', '.join(map(str, new))}")
        if gone:
            parts.append(f"tiles gone from cells {', '.join(map(str, gone))}")
        message = "; ".join(parts) + ": put the board back as recorded, or fix the record"
        events.append(Look(name, message, new, gone))
        return events

    def _blocked(
        self,
        name: str,
        grey: View,
        still: _Still,
        new: tuple[int, ...],
        gone: tuple[int, ...],
        unknown: tuple[int, ...],
        why: str = BLOCKED_LOOK,
    ) -> list[Event]:
        """Something lies over the board (or ``why``): wait; say so when it stays for long."""
        self._mark_blocked(still)
        assert still.blocked_since is not None
        if self.stats.frames - still.blocked_since < self.cfg.blocked_look_frames:
            return []
        signature = (new, gone, unknown)
        self._accept_scene(grey)
        if self.look == signature:
            return []
        self.look = signature
        return [Look(name, why, new, gone, unknown)]

    def _relocate(
        self, name: str, frame_bgr: NDArray[np.uint8], still: _Still
    ) -> list[Event] | None:
        """Locate the board again; None when the stored fit still explains the frame best."""
        assert self.fit is not None
        self.stats.locates += 1
        try:
            fit = self.reader.find(frame_bgr)
        except VisionError as exc:
            log.info("%s: board not found again: %s", name, exc)
            return None
        best: tuple[int, BoardFit, BoardReading] | None = None
        for turn in range(3):
            candidate = _turned(fit, turn)
            reading = self.reader.read(frame_bgr, candidate)
            self.stats.reads += 1
            mismatch = sum(
                1
                for c in reading.cells
                if c.state == UNKNOWN or (c.state == TILE) != (c.index in self.physical)
            )
            if best is None or mismatch < best[0]:
                best = (mismatch, candidate, reading)
        assert best is not None
        mismatch, new_fit, reading = best
        shift = float(np.abs(new_fit.corners - self.fit.corners).max())
        if mismatch > 1 + self.cfg.relocate_min_cells // 2 or shift < 2.0:
            return None
        log.info("%s: board moved by %.0f px; located again", name, shift)
        self._set_fit(name, new_fit, frame_bgr)
        assert self.meter is not None
        grey = self.meter.view(frame_bgr)
        events: list[Event] = [Located(name, _corners(new_fit), moved=True)]
        self.reference = None
        events.extend(self._decide(name, frame_bgr, grey, [reading], _Still(), relocated=True))
        return events

    # -- placements -------------------------------------------------------------------------

    def _on_board_elsewhere(self, index: int) -> set[Any]:
        return {p.tile for i, p in self.physical.items() if i != index}

    def _candidates(
        self, index: int, readings: Sequence[BoardReading], player: int
    ) -> tuple[Candidate, ...]:
        """The readings of a new tile, best first, among the tiles still available."""
        costs: dict[Placement, list[float]] = {}
        for r in readings:
            cell = r.cells[index]
            alts = list(cell.alternatives)
            if not alts and cell.placement is not None:
                alts = [(cell.placement, 0.0)]
            worst = max((c for _, c in alts), default=0.0) + 1.0
            seen = {p for p, _ in alts}
            for p, c in alts:
                costs.setdefault(p, []).append(float(c))
            for p in costs:
                if p not in seen:
                    costs[p].append(worst)
        taken = self._on_board_elsewhere(index)
        hand = self.game.hand(player) if self.game.hands_known else None
        usable = {
            p: c
            for p, c in costs.items()
            if p.tile not in taken and (hand is None or p.tile in hand)
        }
        if not usable:
            usable = costs
        ranked = sorted(usable.items(), key=lambda kv: (float(np.mean(kv[1])), kv[0].notation()))
        out = []
        board = self.game.board
        for p, c in ranked[: max(self.cfg.max_candidates, 2) * 3]:
            verdict = check_placement(board, p, self.game.variant, hand)
            out.append(Candidate(p, float(np.mean(c)), verdict.legal, verdict.points))
        return tuple(out)

    def _clear_choice(self, candidates: tuple[Candidate, ...]) -> Candidate | None:
        """The candidate to take, or None when the players must choose.

        The near ones (within the margin of the best) are filtered by the rules: one legal
        reading is taken; none legal means the tile is illegal whichever it is (the best is
        reported); several legal ones are uncertain.
        """
        if not candidates:
            return None
        best = candidates[0]
        near = [c for c in candidates if c.cost - best.cost <= self.cfg.uncertain_margin]
        if len(near) == 1:
            return best
        legal = [c for c in near if c.legal]
        if len(legal) == 1:
            return legal[0]
        if not legal:
            return best
        return None

    def _placement(self, name: str, index: int, readings: Sequence[BoardReading]) -> list[Event]:
        player = self.game.state.turn if self.game.state.turn is not None else 0
        candidates = self._candidates(index, readings, player)
        confidence = float(np.mean([r.cells[index].confidence for r in readings]))
        if not candidates:
            return [Look(name, f"a tile on cell {index} that cannot be read", (index,))]
        choice = self._clear_choice(candidates)
        if choice is None:
            near = tuple(
                c
                for c in candidates
                if c.legal and c.cost - candidates[0].cost <= self.cfg.uncertain_margin
            )[: self.cfg.max_candidates]
            self.pending[index] = _Pending(index, player, near)
            self.physical[index] = near[0].placement
            return [Uncertain(name, index, player + 1, near)]
        return [self._place(name, choice.placement, confidence)]

    def _place(
        self, name: str, placement: Placement, confidence: float, assumed: bool = False
    ) -> Placed:
        outcome = self.game.place(placement)
        player = _player_number(self.game, outcome)
        self.physical[placement.index] = placement
        if not outcome.legal:
            self.illegal[placement.index] = (placement, len(self.game.history) - 1)
        arithmetic = outcome.score.arithmetic() if outcome.score is not None else ""
        return Placed(
            name,
            placement,
            player,
            outcome.legal,
            outcome.points,
            outcome.reason,
            arithmetic,
            confidence,
            assumed,
        )

    def _commit_pending(
        self, name: str, index: int, choice: Candidate, assumed: bool = False
    ) -> list[Event]:
        del self.pending[index]
        return [self._place(name, choice.placement, 1.0, assumed)]

    def _settle_pending_before_move(self, name: str) -> list[Event]:
        """A new tile while an earlier one is uncertain: the earlier takes its best reading."""
        events: list[Event] = []
        for index in list(self.pending):
            events.extend(
                self._commit_pending(name, index, self.pending[index].candidates[0], True)
            )
        return events

    def resolve(self, name: str, placement: Placement) -> list[Event]:
        """The players chose the reading of an uncertain tile (from the score page)."""
        if placement.index not in self.pending:
            raise VisionError(f"no uncertain tile on cell {placement.index}", placement)
        del self.pending[placement.index]
        return [self._place(name, placement, 1.0)]

    def _removal(self, name: str, index: int) -> Removal:
        placement, position = self.illegal.pop(index)
        del self.physical[index]
        history = self.game.history
        event = history[position].event if position < len(history) else None
        player = 1
        if isinstance(event, Place):
            # The refused event stays in the game's history: it changed nothing, and the
            # record of the game keeps the illegal placement (it scores 0 there too).
            player = event.player + 1
        log.info("%s: illegal %s taken back", name, placement)
        return Removal(name, index, player)

    # -- corrections ------------------------------------------------------------------------

    def _corrections(self, name: str, readings: Sequence[BoardReading]) -> list[Event]:
        """Tiles placed earlier that now read clearly as another available tile."""
        events: list[Event] = []
        reading = readings[-1]
        board = self.game.board
        for recorded in board.placements:
            index = recorded.index
            if index in self.pending or index in self.illegal:
                continue
            cell = reading.cells[index]
            seen = cell.placement
            agree = all(r.cells[index].placement == seen for r in readings)
            if seen is None or seen == recorded or not agree:
                if seen == recorded:
                    self.votes.pop(index, None)
                continue
            if cell.confidence < self.cfg.correction_min_confidence:
                continue
            costs = dict(cell.alternatives)
            best = costs.get(seen, 0.0)
            if costs.get(recorded, math.inf) - best < self.cfg.correction_margin:
                continue
            if seen.tile in self._on_board_elsewhere(index):
                continue
            previous, count = self.votes.get(index, (seen, 0))
            count = count + 1 if previous == seen else 1
            self.votes[index] = (seen, count)
            if count < self.cfg.correction_reads:
                continue
            del self.votes[index]
            events.append(self._correct(name, recorded, seen))
        return events

    def _correct(self, name: str, before: Placement, after: Placement) -> Correction:
        position = next(
            k
            for k in range(len(self.game.history) - 1, -1, -1)
            if isinstance(ev := self.game.history[k].event, Place)
            and ev.placement == before
            and self.game.history[k].legal
        )
        event = self.game.history[position].event
        assert isinstance(event, Place)
        outcomes = self.game.correct(position, Place(event.player, after))
        self.physical[after.index] = after
        first = outcomes[0]
        log.info("%s: corrected %s to %s", name, before, after)
        return Correction(
            name,
            after.index,
            before,
            after,
            event.player + 1,
            first.legal,
            first.points,
            tuple(self.game.totals().items()),
        )

    # -- results ----------------------------------------------------------------------------

    def totals(self) -> dict[str, int]:
        return self.game.totals()


def _reads_as(cell: CellReading, placement: Placement, margin: float) -> bool:
    """Whether a cell's reading is consistent with ``placement`` (within ``margin`` cost)."""
    if cell.placement == placement:
        return True
    costs = dict(cell.alternatives)
    if placement not in costs or not cell.alternatives:
        return cell.placement is not None and cell.placement.tile == placement.tile
    return costs[placement] - cell.alternatives[0][1] <= margin


def _player_number(game: Game, outcome: Outcome) -> int:
    event = outcome.event
    return event.player + 1 if isinstance(event, Place) else 0


def _corners(fit: BoardFit) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in fit.corners)


def _turned(fit: BoardFit, turns: int) -> BoardFit:
    """The same fit with the board's cells numbered from another corner (120-degree turns)."""
    if turns % 3 == 0:
        return fit
    angle = math.radians(120.0 * turns)
    cx, cy = CENTRE
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy], [0.0, 0.0, 1.0]])
    h = fit.homography @ rot
    return replace(fit, homography=h, corners=project(h, PLAY_CORNERS))
