"""Calibration: one board, camera and lamp measured once, and kept exact through an evening.

The reader needs no calibration: it locates the board and normalises colours on every
frame. A :class:`Profile` makes it exact for one table: the board fit pooled over many
frames of a fixed camera (lattice points and tile discs of every frame, with the lens's
radial distortion), the colour prototypes of this tile set under this light (normalised Lab,
as the reader compares them; followed by a running update as placements are accepted), and
the camera settings used. It is a small versioned JSON file (:func:`save_profile`,
:func:`load_profile`).

- :func:`calibrate` frames -> :class:`Calibration` (a profile and a :class:`Verdict`: good,
  or in words what is wrong: board too small in the frame, too steep, too dark, glare on the
  board, colours too close to tell apart), from measurable quantities whose limits are in
  ``vision/data/calibration.json``.
- :func:`fit_from_corners` the manual override: three clicked corners of the playing
  triangle -> a refined fit.
- :func:`reader_for` a reader with the profile's colours; :func:`fit_for` the stored fit
  when it still matches a frame (None when the board moved: the profile is stale);
  :func:`refresh` re-fits a stale profile; :func:`learn` updates its colours.
- :func:`lens_from_chessboard`, :func:`lock_camera`: the optional lens and camera steps.
"""

from __future__ import annotations

import json
import logging
import math
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engine import Colour, Placement
from vision.cells import zones
from vision.colour import (
    TILE_COLOURS,
    colour_distance,
    prototype_lab,
)
from vision.config import ReaderConfig, config_json, config_values
from vision.errors import BoardNotFoundError, CalibrationError, VisionError
from vision.model import (
    CENTRE,
    CENTROIDS,
    PLAY_CORNERS,
    VERTICES,
    Canvas,
    FloatArray,
    canonical_order,
    outer_corners,
    project,
)
from vision.read import (
    TILE,
    BoardReader,
    BoardReading,
    CellReading,
    check_frame,
    unclear_in_view,
)
from vision.rectify import (
    BoardFit,
    Lens,
    Pyramid,
    find_homography,
    match_offsets,
    perspective_search,
    plausible,
    px_per_unit,
    refine,
    sample_canvas,
    scorer,
    warp_to_canvas,
)

log = logging.getLogger(__name__)

PROFILE_KIND = "spectrangle-calibration"
PROFILE_VERSION = 1
DEFAULT_PROFILE_PATH = Path("calibration") / "profile.json"

GOOD, USABLE, BAD = "good", "usable", "bad"
TOO_SMALL = "board too small in the frame"
TOO_STEEP = "too steep"
TOO_DARK = "too dark"
GLARE = "glare on the board"
COLOURS_CLOSE = "colours too close to tell apart"
LATTICE_LOOSE = "the lattice does not fit the board closely"
UNCLEAR = (
    "many cells read as neither empty nor a tile (something over the board, or the lattice off?)"
)


# ----------------------------------------------------------------------------- config


@dataclass(frozen=True)
class CalibrationConfig:
    """Every threshold of calibration; see ``vision/data/calibration.json``."""

    px_per_unit_good: float
    px_per_unit_usable: float
    tilt_deg_good: float
    tilt_deg_usable: float
    white_good: float
    white_usable: float
    span_good: float
    span_usable: float
    glare_good: float
    glare_usable: float
    glare_level: int
    separation_good: float
    separation_usable: float
    residual_px_good: float
    residual_px_usable: float
    unclear_good: float
    unclear_usable: float
    keep_score_ratio: float
    moved_units: float
    learn_rate: float
    learn_min_confidence: float
    learn_min_samples: int
    joint_rounds: int
    joint_max_frames: int
    score_ppu: int
    max_lens_k: float
    corner_search_step: float

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CalibrationConfig:
        return cls(**config_values(cls, data, "calibration"))


@cache
def default_calibration_config() -> CalibrationConfig:
    text = resources.files("vision.data").joinpath("calibration.json").read_text("utf-8")
    return CalibrationConfig.from_json(config_json(text))


# ----------------------------------------------------------------------------- the profile


@dataclass(frozen=True)
class CameraSettings:
    """What the camera reported when the profile was made, and what could be locked."""

    source: str
    width: int
    height: int
    fps: float = 0.0
    properties: Mapping[str, float] = field(default_factory=dict)
    locked: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()  # what the driver would not lock

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "width": self.width,
            "height": self.height,
            "fps": self.fps,
            "properties": dict(self.properties),
            "locked": list(self.locked),
            "refused": list(self.refused),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CameraSettings:
        return cls(
            source=str(data["source"]),
            width=int(data["width"]),
            height=int(data["height"]),
            fps=float(data.get("fps", 0.0)),
            properties={str(k): float(v) for k, v in dict(data.get("properties", {})).items()},
            locked=tuple(str(s) for s in data.get("locked", ())),
            refused=tuple(str(s) for s in data.get("refused", ())),
        )


@dataclass(frozen=True)
class Verdict:
    """How fit the setup is: ``good``, ``usable`` (with warnings) or ``bad``, and why."""

    level: str
    problems: tuple[str, ...] = ()
    measures: Mapping[str, float | None] = field(default_factory=dict, compare=False)

    @property
    def words(self) -> str:
        return GOOD if not self.problems else "; ".join(self.problems)

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "words": self.words,
            "problems": list(self.problems),
            "measures": {
                k: (round(float(v), 4) if v is not None and math.isfinite(v) else None)
                for k, v in self.measures.items()
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        level = str(data["level"])
        if level not in (GOOD, USABLE, BAD):
            raise ValueError(f"verdict level {level!r}")
        measures = {
            str(k): (None if v is None else float(v)) for k, v in dict(data["measures"]).items()
        }
        return cls(level, tuple(str(p) for p in data["problems"]), measures)


@dataclass(frozen=True)
class Profile:
    """One table's calibration: the board fit, colour prototypes and camera settings.

    ``prototypes`` are normalised Lab (as :func:`vision.colour.prototype_lab`), one per tile
    colour; ``samples`` how many sector samples each was learned from (0 = the default).
    ``lattice_score`` is how well the fit matched the board on the calibration frames (the
    reference for :func:`fit_for`).
    """

    fit: BoardFit
    frame_size: tuple[int, int]  # (width, height)
    prototypes: Mapping[Colour, tuple[float, float, float]] = field(repr=False)
    samples: Mapping[Colour, int] = field(repr=False)
    lattice_score: float
    camera: CameraSettings | None = field(default=None, repr=False)
    verdict: Verdict | None = field(default=None, repr=False)
    created: str = ""
    version: int = PROFILE_VERSION

    def prototype_arrays(self) -> dict[Colour, FloatArray]:
        return {c: np.array(v, dtype=np.float64) for c, v in self.prototypes.items()}

    def to_json(self) -> dict[str, Any]:
        fit = self.fit
        lens = fit.lens or Lens.none((self.frame_size[1], self.frame_size[0]))
        return {
            "kind": PROFILE_KIND,
            "version": self.version,
            "created": self.created,
            "frame": {"width": self.frame_size[0], "height": self.frame_size[1]},
            "fit": {
                "homography": [[float(v) for v in row] for row in fit.homography],
                "lens": {"k": lens.k, "centre": list(lens.centre), "norm": lens.norm},
                "corners": [[round(float(x), 3), round(float(y), 3)] for x, y in fit.corners],
                "residual_px": _finite_or_none(fit.residual_px),
                "residual_units": _finite_or_none(fit.residual_units),
                "points": fit.points,
            },
            "lattice_score": round(self.lattice_score, 4),
            "colours": {
                c.value: {
                    "lab": [round(float(v), 3) for v in self.prototypes[c]],
                    "samples": int(self.samples.get(c, 0)),
                }
                for c in TILE_COLOURS
            },
            "camera": None if self.camera is None else self.camera.to_json(),
            "verdict": None if self.verdict is None else self.verdict.to_json(),
        }


def _finite_or_none(x: float) -> float | None:
    return round(float(x), 4) if math.isfinite(x) else None


def profile_from_json(data: Any, origin: str = "<profile>") -> Profile:
    """A profile from its JSON document; :class:`CalibrationError` names what is wrong."""
    if not isinstance(data, dict):
        raise CalibrationError(
            f"{origin}: not a calibration profile (a JSON object is expected)", origin
        )
    kind = data.get("kind")
    if kind != PROFILE_KIND:
        raise CalibrationError(
            f"{origin}: not a spectrangle calibration profile (kind is {kind!r}, "
            f"expected {PROFILE_KIND!r})",
            origin,
        )
    version = data.get("version")
    if version != PROFILE_VERSION:
        raise CalibrationError(
            f"{origin}: calibration profile version {version!r} is not supported "
            f"(this version reads {PROFILE_VERSION}); calibrate again",
            origin,
        )
    where = "frame"
    try:
        frame = data["frame"]
        size = (int(frame["width"]), int(frame["height"]))
        if min(size) < 64:
            raise ValueError(f"frame size {size}")
        where = "fit"
        f = data["fit"]
        h = np.array(f["homography"], dtype=np.float64)
        if h.shape != (3, 3) or not np.isfinite(h).all() or abs(np.linalg.det(h)) < 1e-12:
            raise ValueError("the homography is not an invertible 3x3 matrix")
        lens_d = f["lens"]
        centre = tuple(float(v) for v in lens_d["centre"])
        if len(centre) != 2:
            raise ValueError("the lens centre is not (x, y)")
        lens = Lens(float(lens_d["k"]), (centre[0], centre[1]), float(lens_d["norm"]))
        if not (math.isfinite(lens.k) and abs(lens.k) < 1.0 and lens.norm > 0):
            raise ValueError(f"lens {lens}")
        corners = np.array(f["corners"], dtype=np.float64)
        if corners.shape != (3, 2) or not np.isfinite(corners).all():
            raise ValueError("corners are not three (x, y) points")
        residual = f.get("residual_px")
        residual_px = float("inf") if residual is None else float(residual)
        units = f.get("residual_units")
        residual_units = float("inf") if units is None else float(units)
        fit = BoardFit(h, corners, residual_px, residual_units, int(f["points"]), lens)
        where = "lattice_score"
        score = float(data["lattice_score"])
        if not math.isfinite(score) or score < 0:
            raise ValueError(f"lattice score {score}")
        where = "colours"
        colours = data["colours"]
        if not isinstance(colours, dict):
            raise ValueError("colours is not an object")
        protos: dict[Colour, tuple[float, float, float]] = {}
        samples: dict[Colour, int] = {}
        defaults = prototype_lab()
        for name, entry in colours.items():
            colour = Colour(name)
            lab = [float(v) for v in entry["lab"]]
            if len(lab) != 3 or not all(math.isfinite(v) for v in lab):
                raise ValueError(f"{name}: lab is not three numbers")
            protos[colour] = (lab[0], lab[1], lab[2])
            samples[colour] = int(entry.get("samples", 0))
        for c in TILE_COLOURS:
            if c not in protos:
                d = defaults[c]
                protos[c], samples[c] = (float(d[0]), float(d[1]), float(d[2])), 0
        where = "camera"
        camera = None if data.get("camera") is None else CameraSettings.from_json(data["camera"])
        where = "verdict"
        verdict = None if data.get("verdict") is None else Verdict.from_json(data["verdict"])
    except (KeyError, TypeError, ValueError) as exc:
        detail = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
        raise CalibrationError(
            f"{origin}: corrupt calibration profile ({where}: {detail})", origin
        ) from None
    return Profile(
        fit, size, protos, samples, score, camera, verdict, str(data.get("created", "")), version
    )


def save_profile(profile: Profile, path: str | Path) -> Path:
    """Write a profile as JSON (atomically: a half-written file never replaces a good one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(profile.to_json(), indent=1) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".profile-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    log.info("calibration profile written to %s", path)
    return path


def load_profile(path: str | Path) -> Profile:
    """Read a profile; :class:`CalibrationError` (naming the file) when it cannot be used."""
    origin = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"cannot read calibration profile {origin}: {exc}", origin) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CalibrationError(
            f"{origin}: corrupt calibration profile (not JSON: {exc})", origin
        ) from None
    return profile_from_json(data, origin)


def load_profile_or_none(path: str | Path | None) -> Profile | None:
    """A profile, or None (logged as a warning) when it cannot be used: no calibration."""
    if path is None:
        return None
    try:
        return load_profile(path)
    except CalibrationError as exc:
        log.warning("%s; reading without calibration", exc)
        return None


# ----------------------------------------------------------------------------- colours


def lab_to_linear_rgb(lab: FloatArray) -> FloatArray:
    """The inverse of :func:`vision.colour.linear_rgb_to_lab` (white = 1, 1, 1)."""
    from vision.colour import _SRGB_TO_XYZ, _WHITE_XYZ

    lab = np.asarray(lab, dtype=np.float64)
    eps, kappa = 216 / 24389, 24389 / 27
    fy = (lab[..., 0] + 16) / 116
    fx = fy + lab[..., 1] / 500
    fz = fy - lab[..., 2] / 200

    def finv(t: FloatArray) -> FloatArray:
        return np.where(t**3 > eps, t**3, (116 * t - 16) / kappa)

    xyz = np.stack([finv(fx), finv(fy), finv(fz)], axis=-1) * _WHITE_XYZ
    return np.asarray(xyz @ np.linalg.inv(_SRGB_TO_XYZ).T, dtype=np.float64)


def reader_for(profile: Profile | None, reader: BoardReader | None = None) -> BoardReader:
    """A reader whose colour prototypes are the profile's (a new reader unless given one)."""
    reader = reader or BoardReader()
    if profile is None:
        return reader
    protos = profile.prototype_arrays()
    reader.prototypes = protos
    reader.proto_linear = {c: np.clip(lab_to_linear_rgb(v), 0.0, 1.5) for c, v in protos.items()}
    return reader


def colour_samples(
    reader: BoardReader,
    frame_bgr: NDArray[np.uint8],
    fit: BoardFit,
    placements: Iterable[Placement] | None = None,
    min_confidence: float = 0.5,
) -> dict[Colour, list[FloatArray]]:
    """Normalised Lab of tile sectors in a frame, by colour.

    With ``placements`` (accepted by the game) their edge colours label their cells;
    otherwise the reading's own confident tiles do.
    """
    debug: dict[str, Any] = {}
    cells, _ = reader.read_cells(frame_bgr, fit, debug)
    return _samples_from(cells, debug, placements, min_confidence)


def _samples_from(
    cells: Sequence[CellReading],
    debug: Mapping[str, Any],
    placements: Iterable[Placement] | None,
    min_confidence: float,
) -> dict[Colour, list[FloatArray]]:
    labs = debug.get("labs") or []
    candidates = list(debug.get("candidates") or [])
    labels: dict[int, tuple[Colour, Colour, Colour]] = {}
    if placements is not None:
        for p in placements:
            labels[p.index] = (p.left, p.right, p.base)
    else:
        for cell in cells:
            if cell.state == TILE and cell.edges is not None and cell.confidence >= min_confidence:
                labels[cell.index] = cell.edges
    out: dict[Colour, list[FloatArray]] = {}
    for k, index in enumerate(candidates):
        edges = labels.get(index)
        if edges is None or k >= len(labs):
            continue
        lab = np.asarray(labs[k], dtype=np.float64).reshape(3, 3)
        for colour, value in zip(edges, lab, strict=True):
            out.setdefault(colour, []).append(value)
    return out


def separation(prototypes: Mapping[Colour, FloatArray], lightness_weight: float) -> float:
    """The smallest distance between two colour prototypes (the reader's metric)."""
    cols = list(prototypes)
    best = float("inf")
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            d = float(colour_distance(prototypes[a], prototypes[b], lightness_weight))
            best = min(best, d)
    return best


def learn(
    profile: Profile,
    frame_bgr: NDArray[np.uint8],
    reader: BoardReader,
    placements: Iterable[Placement] | None = None,
    fit: BoardFit | None = None,
    config: CalibrationConfig | None = None,
) -> Profile:
    """The profile with its colours moved toward what this frame shows (a running mean).

    Each colour's prototype moves by ``max(learn_rate, 1 / (samples + 1))`` toward the mean
    of this frame's samples: the first samples average, later ones follow a changing lamp.
    """
    cfg = config or default_calibration_config()
    frame_bgr = check_frame(frame_bgr)
    samples = colour_samples(
        reader, frame_bgr, fit or profile.fit, placements, cfg.learn_min_confidence
    )
    protos = dict(profile.prototypes)
    counts = dict(profile.samples)
    for colour, values in samples.items():
        if not values:
            continue
        mean = np.median(np.array(values), axis=0)
        n = counts.get(colour, 0)
        rate = max(cfg.learn_rate, 1.0 / (n + 1)) if n else 1.0
        old = np.array(protos[colour])
        new = (1 - rate) * old + rate * mean if n else mean
        protos[colour] = (float(new[0]), float(new[1]), float(new[2]))
        counts[colour] = n + len(values)
    return replace(profile, prototypes=protos, samples=counts)


@dataclass(frozen=True)
class Teaching:
    """Colours taught by showing tiles to the camera (:func:`teach`): the profile with the
    prototypes of every colour seen enough, and the samples gathered so far (kept across
    calls: lay more tiles and teach again)."""

    profile: Profile
    samples: Mapping[Colour, Sequence[FloatArray]] = field(repr=False)
    needed: int

    def count(self, colour: Colour) -> int:
        return len(self.samples.get(colour, ()))

    @property
    def missing(self) -> tuple[Colour, ...]:
        return tuple(c for c in TILE_COLOURS if self.count(c) < self.needed)

    def message(self, colour: Colour) -> str:
        n = self.count(colour)
        if n >= self.needed:
            return f"{colour.value}: learned from {n} tile edges"
        if n == 0:
            return f"{colour.value}: not seen yet: lay a tile with {colour.value} on the board"
        return (
            f"{colour.value}: seen on {n} tile edge(s), {self.needed} needed: "
            f"lay another tile with {colour.value} on the board"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "missing": [c.value for c in self.missing],
            "colours": [
                {
                    "colour": c.value,
                    "samples": self.count(c),
                    "missing": c in self.missing,
                    "message": self.message(c),
                }
                for c in TILE_COLOURS
            ],
        }


def teach(
    profile: Profile,
    frames: Iterable[NDArray[np.uint8]],
    reader: BoardReader | None = None,
    previous: Teaching | None = None,
    config: CalibrationConfig | None = None,
) -> Teaching:
    """Learn the colour prototypes from the tiles on the board (showing tiles on request).

    The tiles the reader reads confidently under the profile's fit (each edge a sample of
    its colour) are pooled with ``previous``'s; each colour seen on at least
    ``learn_min_samples`` edges gets the median of its samples as its prototype, the
    others keep theirs and are named by :attr:`Teaching.missing`.
    """
    cfg = config or default_calibration_config()
    reader = reader_for(profile, reader)
    pooled: dict[Colour, list[FloatArray]] = {
        c: list(v) for c, v in (previous.samples if previous is not None else {}).items()
    }
    for frame in frames:
        frame = check_frame(frame)
        try:
            found = colour_samples(reader, frame, profile.fit, None, cfg.learn_min_confidence)
        except VisionError as exc:
            log.info("teach: a frame could not be read: %s", exc)
            continue
        for colour, values in found.items():
            pooled.setdefault(colour, []).extend(values)
    protos = dict(profile.prototypes)
    counts = dict(profile.samples)
    for colour, values in pooled.items():
        if len(values) >= cfg.learn_min_samples:
            v = np.median(np.array(values), axis=0)
            protos[colour] = (float(v[0]), float(v[1]), float(v[2]))
            counts[colour] = len(values)
    taught = replace(profile, prototypes=protos, samples=counts)
    result = Teaching(taught, pooled, cfg.learn_min_samples)
    log.info(
        "taught colours: %s; missing %s",
        {c.value: result.count(c) for c in TILE_COLOURS},
        [c.value for c in result.missing] or "none",
    )
    return result


# ----------------------------------------------------------------------------- geometry


def tilt_deg(homography: FloatArray, frame_shape: tuple[int, ...]) -> float:
    """The angle between the camera's axis and the board's normal, from the homography.

    The focal length is estimated from the homography itself (principal point at the frame
    centre, square pixels); when it cannot be (a nearly overhead view), a 53-degree lens.
    """
    h_img, w_img = frame_shape[:2]
    t = np.array([[1.0, 0.0, -(w_img - 1) / 2], [0.0, 1.0, -(h_img - 1) / 2], [0.0, 0.0, 1.0]])
    hc = t @ np.asarray(homography, dtype=np.float64)
    h1, h2 = hc[:, 0], hc[:, 1]
    # Orthogonal, equal-length columns of K^-1 H: a (1/f^2) + b = 0, in the least squares.
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    inv_f2 = -float(a @ b) / max(float(a @ a), 1e-30)
    f_default = max(w_img, h_img)
    f = 1.0 / math.sqrt(inv_f2) if inv_f2 > 0 else f_default
    if not (0.3 * f_default < f < 5 * f_default):
        f = f_default
    k_inv = np.diag([1.0 / f, 1.0 / f, 1.0])
    r1, r2 = k_inv @ h1, k_inv @ h2
    normal = np.cross(r1 / np.linalg.norm(r1), r2 / np.linalg.norm(r2))
    cos = abs(float(normal[2])) / max(float(np.linalg.norm(normal)), 1e-12)
    return math.degrees(math.acos(min(1.0, cos)))


def lattice_score(
    frame_bgr: NDArray[np.uint8],
    fit: BoardFit,
    reader_cfg: ReaderConfig,
    ppu: int = 14,
    pyramid: Pyramid | None = None,
) -> float:
    """How well the fit's lattice matches the board in this frame (0..36)."""
    pyr = pyramid or Pyramid(frame_bgr, reader_cfg)
    value, valid, _ = sample_canvas(pyr, fit.homography, ppu, fit.lens)
    return scorer(ppu, reader_cfg).total(value, valid)


def _fit_of(h: FloatArray, lens: Lens, errors: FloatArray) -> BoardFit:
    rms = float(np.sqrt(np.mean(errors**2))) if len(errors) else float("inf")
    scale = px_per_unit(h)
    return BoardFit.from_homography(h, rms, rms / scale, len(errors), lens)


PointPair = tuple[Sequence[float], Sequence[float]]  # (board (u, v), frame (x, y))


def lattice_vertices() -> FloatArray:
    """The board's lattice vertices (every cell corner, the centre among them), (N, 2)."""
    return np.unique(np.vstack([VERTICES.reshape(-1, 2), CENTRE[None]]).round(9), axis=0)


def _homography_from_points(
    corners: FloatArray, points: Sequence[PointPair]
) -> tuple[FloatArray, FloatArray]:
    """The homography through the three corners (given in the order of ``PLAY_CORNERS``) and
    the extra (board, frame) point pairs; (homography, canonically ordered corners).

    The corners are turned into the canonical order (apex first, clockwise: the orientation
    of the board seen from above) and the extra points' board coordinates follow by the
    same symmetry of the triangle, so points given against a turned or mirrored labelling
    of the corners (a hand-clicked order) still land on their own lattice vertices.
    """
    canon = canonical_order(corners)
    perm = [int(np.argmin(np.abs(corners - c).sum(axis=1))) for c in canon]
    if sorted(perm) != [0, 1, 2]:
        raise CalibrationError("two corners are the same point", corners.tolist())
    sym = cv2.getAffineTransform(
        PLAY_CORNERS[perm].astype(np.float32), PLAY_CORNERS.astype(np.float32)
    ).astype(np.float64)
    board = [PLAY_CORNERS]
    image = [canon]
    for b, i in points:
        bp = np.asarray(b, dtype=np.float64).reshape(2)
        ip = np.asarray(i, dtype=np.float64).reshape(2)
        if not (np.isfinite(bp).all() and np.isfinite(ip).all()):
            raise CalibrationError("a lattice point is not finite", [list(bp), list(ip)])
        d = np.abs(lattice_vertices() - bp).sum(axis=1).min()
        if d > 1e-3:
            raise CalibrationError(f"{bp.tolist()} is not a lattice vertex of the board", d)
        board.append((sym[:, :2] @ bp + sym[:, 2])[None])
        image.append(ip[None])
    h, _ = find_homography(np.vstack(board), np.vstack(image), 0)
    if h is None or not np.isfinite(h).all():
        raise CalibrationError("the points do not make a homography", len(board))
    return h / h[2, 2], canon


def fit_from_corners(
    frame_bgr: NDArray[np.uint8],
    corners: Sequence[Sequence[float]] | FloatArray,
    reader_cfg: ReaderConfig | None = None,
    config: CalibrationConfig | None = None,
    points: Sequence[PointPair] = (),
) -> BoardFit:
    """The manual override: three clicked corners of the playing triangle -> a fit.

    With only the corners, the perspective they leave free is searched like the reader's
    own (:func:`vision.rectify.perspective_search`); with ``points`` as well (a lattice
    vertex dragged onto its place: (board (u, v), frame (x, y)) pairs, the corners then
    taken in the order of ``PLAY_CORNERS``, as a fit's corners are) the homography through
    the four points or more is the start (``cv2.findHomography``). The lattice is refined
    from there (:func:`vision.rectify.refine`). When it cannot be matched the clicked fit is
    kept (``points`` = 0, an infinite residual). :class:`CalibrationError` for corners that
    are not a triangle or points that are not lattice vertices.
    """
    frame_bgr = check_frame(frame_bgr)
    rcfg = reader_cfg or BoardReader().config
    cfg = config or default_calibration_config()
    pts = np.asarray(corners, dtype=np.float64)
    if pts.shape != (3, 2) or not np.isfinite(pts).all():
        raise CalibrationError("three corners (x, y) are needed", pts.tolist())
    if points:
        return _fit_from_points(frame_bgr, pts, points, rcfg)
    pts = canonical_order(pts)
    (ax, ay), (bx, by) = pts[1] - pts[0], pts[2] - pts[0]
    area = 0.5 * abs(float(ax * by - ay * bx))
    if area < 400:
        raise CalibrationError("the three corners do not make a triangle", pts.tolist())
    pyr = Pyramid(frame_bgr, rcfg)
    h0 = perspective_search(pyr, pts, rcfg, PLAY_CORNERS, cfg.corner_search_step, True)
    lens0 = Lens.none(frame_bgr.shape)
    try:
        h, lens, errors, _ = refine(pyr, h0, rcfg, lens0)
    except BoardNotFoundError as exc:
        log.info("manual corners: the lattice could not be refined (%s)", exc)
        return BoardFit(h0, pts, float("inf"), float("inf"), 0, lens0)
    if not plausible(h, rcfg):
        return BoardFit(h0, pts, float("inf"), float("inf"), 0, lens0)
    return _fit_of(h, lens, errors)


def _check_triangle(pts: FloatArray) -> None:
    (ax, ay), (bx, by) = pts[1] - pts[0], pts[2] - pts[0]
    if 0.5 * abs(float(ax * by - ay * bx)) < 400:
        raise CalibrationError("the three corners do not make a triangle", pts.tolist())


def _fit_from_points(
    frame_bgr: NDArray[np.uint8],
    corners: FloatArray,
    points: Sequence[PointPair],
    rcfg: ReaderConfig,
) -> BoardFit:
    _check_triangle(corners)
    h0, canon = _homography_from_points(corners, points)
    lens0 = Lens.none(frame_bgr.shape)
    clicked = BoardFit(h0, project(h0, PLAY_CORNERS), float("inf"), float("inf"), 0, lens0)
    if not plausible(h0, rcfg):
        raise CalibrationError("the points do not make a plausible view of the board", canon)
    try:
        h, lens, errors, _ = refine(Pyramid(frame_bgr, rcfg), h0, rcfg, lens0)
    except BoardNotFoundError as exc:
        log.info("manual points: the lattice could not be refined (%s)", exc)
        return clicked
    if not plausible(h, rcfg):
        return clicked
    return _fit_of(h, lens, errors)


def _lattice_points(
    frame_bgr: NDArray[np.uint8],
    pyr: Pyramid,
    fit: BoardFit,
    reader: BoardReader,
    samples: dict[Colour, list[FloatArray]] | None = None,
    min_confidence: float = 0.5,
) -> tuple[FloatArray, FloatArray]:
    """Lattice points of one frame near a fit: (board points, frame pixels), each (N, 2).

    Cell centres matched by the lattice templates; with ``samples`` (a dict to fill with
    the colour samples of the reading) also the tiles' navy discs as the numeral reader
    finds them (they sit exactly on their cells' centroids).
    """
    cfg = reader.config
    rnd = cfg.align_rounds[-1]
    value, valid, canvas = sample_canvas(pyr, fit.homography, rnd.ppu, fit.lens)
    idx, off, _ = match_offsets(value, valid, canvas, rnd.search, cfg)
    board = [CENTROIDS[idx]]
    image = [fit.to_image(CENTROIDS[idx] + off)]
    if samples is None:
        return np.concatenate(board), np.concatenate(image)
    debug: dict[str, Any] = {}
    cells, _ = reader.read_cells(frame_bgr, fit, debug)
    for colour, values in _samples_from(cells, debug, None, min_confidence).items():
        samples.setdefault(colour, []).extend(values)
    offsets, contrast = debug.get("disc_offsets"), debug.get("disc_contrast")
    if offsets is not None and contrast is not None and len(debug.get("candidates", [])):
        cells_idx = np.asarray(debug["candidates"], dtype=np.int64)
        good = np.asarray(contrast) >= cfg.disc_refit_min_contrast
        offs = np.asarray(offsets, dtype=np.float64).reshape(-1, 2)
        board.append(CENTROIDS[cells_idx[good]])
        image.append(fit.to_image(CENTROIDS[cells_idx[good]] + offs[good]))
    return np.concatenate(board), np.concatenate(image)


def fit_points(
    board_pts: FloatArray,
    image_pts: FloatArray,
    frame_shape: tuple[int, ...],
    max_k: float,
    threshold_px: float,
) -> BoardFit:
    """A homography and radial distortion fitted to many lattice points (several frames)."""
    from scipy.optimize import minimize_scalar

    lens0 = Lens.none(frame_shape)
    h0, inliers = find_homography(board_pts, image_pts, cv2.RANSAC, threshold_px)
    if h0 is None or inliers is None:
        raise BoardNotFoundError("no homography fits the lattice points", len(board_pts))
    keep = inliers.ravel().astype(bool)

    def solve(k: float, sel: NDArray[np.bool_]) -> tuple[float, FloatArray, FloatArray]:
        lens = lens0.with_k(k)
        und = lens.undistort(image_pts[sel])
        h, _ = find_homography(board_pts[sel], und, 0)
        if h is None:
            return float("inf"), h0, np.full(int(sel.sum()), np.inf)
        err = np.linalg.norm(lens.distort(project(h, board_pts)) - image_pts, axis=1)
        return float(np.sqrt(np.mean(err[sel] ** 2))), h, err

    k = 0.0
    for _ in range(2):
        if max_k > 0 and keep.sum() >= 15:
            sel = keep
            res = minimize_scalar(
                lambda x, sel=sel: solve(float(x), sel)[0],
                bounds=(-max_k, max_k),
                method="bounded",
                options={"xatol": 1e-4},
            )
            k = float(res.x)
        _, h, err = solve(k, keep)
        limit = max(3.0 * float(np.median(err[keep])), 0.5)
        keep = err < limit
    _, h, err = solve(k, keep)
    h = h / h[2, 2]
    return _fit_of(h, lens0.with_k(k), err[keep])


def _align_turn(fit: BoardFit, reference: BoardFit) -> BoardFit:
    """``fit`` with its apex turned (the board's 120-degree symmetry) to match ``reference``."""
    best, best_d = fit, float("inf")
    for turns in range(3):
        a = 2 * math.pi / 3 * turns
        rot = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0]])
        r = np.vstack([rot, [0.0, 0.0, 1.0]])
        t = np.array([[1.0, 0.0, CENTRE[0]], [0.0, 1.0, CENTRE[1]], [0.0, 0.0, 1.0]])
        move = t @ r @ np.linalg.inv(t)
        h = fit.homography @ move
        cand = BoardFit.from_homography(
            h, fit.residual_px, fit.residual_units, fit.points, fit.lens
        )
        d = float(np.abs(cand.corners - reference.corners).max())
        if d < best_d:
            best_d, best = d, cand
    return best


def joint_fit(
    frames: Sequence[NDArray[np.uint8]],
    fits: Sequence[BoardFit],
    reader: BoardReader,
    config: CalibrationConfig | None = None,
    samples: dict[Colour, list[FloatArray]] | None = None,
) -> BoardFit:
    """One fit for frames of a fixed camera: lattice points of all of them, pooled.

    The first rounds pool the cells matched by the lattice templates; the last adds the
    tiles' discs (a full read of each frame, whose colour samples go into ``samples``).
    """
    cfg = config or default_calibration_config()
    if not frames:
        raise BoardNotFoundError("no frames to fit")
    shape = frames[0].shape
    reference = fits[0]
    aligned = [_align_turn(f, reference) for f in fits]
    # Start from the fit whose corners are closest to the median corners.
    med = np.median(np.array([f.corners for f in aligned]), axis=0)
    current = min(aligned, key=lambda f: float(np.abs(f.corners - med).max()))
    pyramids = [Pyramid(f, reader.config) for f in frames]
    rounds = max(1, cfg.joint_rounds)
    for rnd in range(rounds):
        last = rnd == rounds - 1
        sink: dict[Colour, list[FloatArray]] | None = {} if last else None
        board, image = [], []
        for frame, pyr in zip(frames, pyramids, strict=True):
            try:
                b, i = _lattice_points(frame, pyr, current, reader, sink, cfg.learn_min_confidence)
            except (BoardNotFoundError, cv2.error) as exc:
                log.debug("no lattice points in a frame: %s", exc)
                continue
            board.append(b)
            image.append(i)
        if sink is not None and samples is not None:
            for colour, values in sink.items():
                samples.setdefault(colour, []).extend(values)
        if not board:
            break
        thresh = reader.config.ransac_threshold * px_per_unit(current.homography)
        current = fit_points(
            np.concatenate(board), np.concatenate(image), shape, cfg.max_lens_k, thresh
        )
        log.debug("joint fit: %s", current)
    return current


# ----------------------------------------------------------------------------- the verdict


def measure(
    frame_bgr: NDArray[np.uint8], fit: BoardFit, reader_cfg: ReaderConfig, glare_level: int
) -> dict[str, float]:
    """The measurable quantities of one frame under a fit (see :func:`judge`)."""
    ppu = 20
    canvas = Canvas(ppu)
    canvas_bgr = warp_to_canvas(frame_bgr, fit.homography, canvas, lens=fit.lens)
    valid = warp_to_canvas(
        np.full(frame_bgr.shape[:2], 255, np.uint8), fit.homography, canvas, lens=fit.lens
    )
    value = canvas_bgr.max(axis=2).astype(np.float64)
    cell_zones, band = zones(ppu, reader_cfg)
    ok = valid[band] == 255
    black = float(np.median(value[band][ok])) if ok.any() else float("nan")
    cells = np.concatenate([value[z.whole][valid[z.whole] == 255] for z in cell_zones])
    white = float(np.percentile(cells, 99)) if len(cells) else float("nan")
    outline = np.zeros(valid.shape, np.uint8)
    poly = np.round(canvas.to_canvas(outer_corners(reader_cfg.band_width))).astype(np.int32)
    cv2.fillPoly(outline, [poly], 255)
    board = (outline == 255) & (valid == 255)
    saturated = canvas_bgr.min(axis=2) >= glare_level
    glare = float(saturated[board].mean()) if board.any() else 0.0
    return {
        "px_per_unit": px_per_unit(fit.homography),
        "tilt_deg": tilt_deg(fit.homography, frame_bgr.shape),
        "black": black,
        "white": white,
        "span": white - black,
        "glare": glare,
        "residual_px": fit.residual_px,
    }


def judge(measures: Mapping[str, float | None], config: CalibrationConfig | None = None) -> Verdict:
    """Measures -> a verdict: each past its 'good' limit is a warning, past 'usable' bad."""
    cfg = config or default_calibration_config()
    problems: list[str] = []
    level = GOOD

    def check(name: str, words: str, good: float, usable: float, higher_is_better: bool) -> None:
        nonlocal level
        v = measures.get(name)
        if v is None or not math.isfinite(v):
            return
        worse = (lambda x, lim: x < lim) if higher_is_better else (lambda x, lim: x > lim)
        if worse(v, usable):
            level = BAD
        elif worse(v, good):
            level = USABLE if level == GOOD else level
        else:
            return
        if words not in problems:
            problems.append(words)

    check("px_per_unit", TOO_SMALL, cfg.px_per_unit_good, cfg.px_per_unit_usable, True)
    check("tilt_deg", TOO_STEEP, cfg.tilt_deg_good, cfg.tilt_deg_usable, False)
    check("white", TOO_DARK, cfg.white_good, cfg.white_usable, True)
    check("span", TOO_DARK, cfg.span_good, cfg.span_usable, True)
    check("glare", GLARE, cfg.glare_good, cfg.glare_usable, False)
    check("separation", COLOURS_CLOSE, cfg.separation_good, cfg.separation_usable, True)
    residual = measures.get("residual_px")
    if residual is not None and not math.isfinite(residual):
        level = BAD if level == BAD else USABLE
        problems.append(LATTICE_LOOSE)
    else:
        check("residual_px", LATTICE_LOOSE, cfg.residual_px_good, cfg.residual_px_usable, False)
    check("unclear", UNCLEAR, cfg.unclear_good, cfg.unclear_usable, False)
    return Verdict(level, tuple(problems), dict(measures))


def unclear_share(reading: BoardReading) -> float | None:
    """The share of the cells in view that read as neither empty nor a tile; None when
    no cell is in view. A board set up for calibration shows its cells: many unknown
    ones are something lying over it, or a lattice that does not fit it."""
    unknown, in_view = unclear_in_view(reading.cells)
    return unknown / in_view if in_view else None


# ----------------------------------------------------------------------------- calibrate


@dataclass(frozen=True)
class Calibration:
    """The outcome of :func:`calibrate`: the profile, its verdict and what was used."""

    profile: Profile
    verdict: Verdict
    frames_used: int
    frames_seen: int
    reading: BoardReading | None = field(default=None, repr=False, compare=False)


def calibrate(
    frames: Iterable[NDArray[np.uint8]],
    reader: BoardReader | None = None,
    corners: Sequence[Sequence[float]] | FloatArray | None = None,
    camera: CameraSettings | None = None,
    config: CalibrationConfig | None = None,
    points: Sequence[PointPair] = (),
) -> Calibration:
    """Calibrate from frames of one fixed camera (one is enough; a dozen is better).

    Each frame's board is found as ``spectrangle read`` finds it (:meth:`BoardReader.find`;
    or fitted from the clicked ``corners`` and dragged lattice ``points``:
    :func:`fit_from_corners`); the fits are pooled
    into one (:func:`joint_fit`); the tiles on the board teach the colour prototypes; the
    frames are measured for the verdict. :class:`BoardNotFoundError` when no frame shows
    the board.
    """
    cfg = config or default_calibration_config()
    reader = reader or BoardReader()
    rcfg = reader.config
    used: list[NDArray[np.uint8]] = []
    fits: list[BoardFit] = []
    seen = 0
    last_error = "no frames"
    for frame in frames:
        seen += 1
        frame = check_frame(frame)
        if used and frame.shape != used[0].shape:
            log.warning("frame %d has another size %s; skipped", seen, frame.shape[:2])
            continue
        try:
            if corners is not None:
                fit = fit_from_corners(frame, corners, rcfg, cfg, points)
            else:
                fit = reader.find(frame)
        except BoardNotFoundError as exc:
            last_error = str(exc)
            log.info("frame %d: no board: %s", seen, exc)
            continue
        used.append(frame)
        fits.append(fit)
    if not fits:
        raise BoardNotFoundError(f"no board found in {seen} frame(s): {last_error}", seen)
    if len(used) > cfg.joint_max_frames:
        pick = np.linspace(0, len(used) - 1, cfg.joint_max_frames).round().astype(int)
        used, fits = [used[i] for i in pick], [fits[i] for i in pick]
    manual_failed = corners is not None and all(f.points == 0 for f in fits)
    pooled: dict[Colour, list[FloatArray]] = {}
    if manual_failed:
        fit = fits[0]
        for frame in used:
            for colour, values in colour_samples(
                reader, frame, fit, None, cfg.learn_min_confidence
            ).items():
                pooled.setdefault(colour, []).extend(values)
    else:
        good = [f for f in fits if f.points > 0] or fits
        fit = joint_fit(used, good, reader, cfg, pooled)
    # Colours from the tiles on the board.
    defaults = prototype_lab()
    protos: dict[Colour, tuple[float, float, float]] = {}
    counts: dict[Colour, int] = {}
    for c in TILE_COLOURS:
        values = pooled.get(c, [])
        src = np.median(np.array(values), axis=0) if len(values) >= cfg.learn_min_samples else None
        v = defaults[c] if src is None else src
        protos[c] = (float(v[0]), float(v[1]), float(v[2]))
        counts[c] = len(values) if src is not None else 0
    learned = {c: np.array(protos[c]) for c in TILE_COLOURS if counts[c] > 0}
    scores = [lattice_score(f, fit, rcfg, cfg.score_ppu) for f in used]
    per_frame = [measure(f, fit, rcfg, cfg.glare_level) for f in used]
    measures: dict[str, float | None] = {
        k: float(np.median([m[k] for m in per_frame])) for k in per_frame[0]
    }
    measures["residual_px"] = fit.residual_px
    measures["separation"] = (
        separation(learned, rcfg.colour_lightness_weight) if len(learned) >= 2 else None
    )
    measures["frames"] = float(len(used))
    h, w = used[0].shape[:2]
    profile = Profile(
        fit=fit,
        frame_size=(w, h),
        prototypes=protos,
        samples=counts,
        lattice_score=float(np.median(scores)),
        camera=camera,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    reading = reader_for(profile, reader).read(used[-1], fit)
    measures["unclear"] = unclear_share(reading)
    verdict = judge(measures, cfg)
    profile = replace(profile, verdict=verdict)
    log.info("calibrated from %d of %d frames: %s, %s", len(used), seen, fit, verdict.words)
    return Calibration(profile, verdict, len(used), seen, reading)


# ----------------------------------------------------------------------------- staleness


@dataclass(frozen=True)
class FitCheck:
    """Whether a profile's stored fit still matches a frame, and why (not)."""

    fresh: bool
    reason: str
    score: float
    reference: float
    moved_px: float | None = None
    new_fit: BoardFit | None = field(default=None, repr=False)


def _corner_distance(a: BoardFit, b: BoardFit) -> float:
    """The largest corner distance in pixels, over the board's three turns."""
    return min(
        float(np.linalg.norm(np.roll(a.corners, -k, axis=0) - b.corners, axis=1).max())
        for k in range(3)
    )


def check_fit(
    profile: Profile,
    frame_bgr: NDArray[np.uint8],
    reader: BoardReader,
    config: CalibrationConfig | None = None,
) -> FitCheck:
    """Does the stored fit still match this frame? (the board may have been moved)

    The stored lattice's score on this frame is compared with the score it had on the
    calibration frames; when it has dropped, the board is located afresh and the two
    fits compared (a hand over the board lowers both scores; a moved board only the
    stored one).
    """
    cfg = config or default_calibration_config()
    frame_bgr = check_frame(frame_bgr)
    h, w = frame_bgr.shape[:2]
    if (w, h) != tuple(profile.frame_size):
        reason = (
            f"the frame is {w}x{h} but the profile was made at "
            f"{profile.frame_size[0]}x{profile.frame_size[1]}"
        )
        try:
            located: BoardFit | None = reader.find(frame_bgr)
        except BoardNotFoundError:
            located = None
        return FitCheck(False, reason, 0.0, profile.lattice_score, None, located)
    rcfg = reader.config
    pyr = Pyramid(frame_bgr, rcfg)
    score = lattice_score(frame_bgr, profile.fit, rcfg, cfg.score_ppu, pyr)
    reference = profile.lattice_score
    if score >= cfg.keep_score_ratio * reference:
        return FitCheck(True, "the stored fit matches", score, reference)
    try:
        fresh = reader.find(frame_bgr)
    except BoardNotFoundError as exc:
        return FitCheck(
            False,
            f"the stored fit scores {score:.1f} (was {reference:.1f}) and no board is found: {exc}",
            score,
            reference,
        )
    moved = _corner_distance(fresh, profile.fit)
    fresh_score = lattice_score(frame_bgr, fresh, rcfg, cfg.score_ppu, pyr)
    limit = cfg.moved_units * px_per_unit(profile.fit.homography)
    if moved <= limit and score >= cfg.keep_score_ratio * fresh_score:
        return FitCheck(
            True, "the board is where it was (partly covered?)", score, reference, moved
        )
    return FitCheck(
        False,
        f"the board moved by {moved:.0f} px (stored fit scores {score:.1f}, "
        f"a fresh one {fresh_score:.1f})",
        score,
        reference,
        moved,
        fresh,
    )


def fit_for(
    profile: Profile | None,
    frame_bgr: NDArray[np.uint8],
    reader: BoardReader,
    config: CalibrationConfig | None = None,
) -> BoardFit | None:
    """The profile's fit if it still matches this frame, else None (stale; logged)."""
    if profile is None:
        return None
    check = check_fit(profile, frame_bgr, reader, config)
    if not check.fresh:
        log.warning("calibration profile is stale: %s", check.reason)
        return None
    return profile.fit


@dataclass(frozen=True)
class Recheck:
    """A fit re-checked on a new frame (cheap: no search for the board)."""

    verdict: Verdict
    score: float  # the lattice score on this frame (0..36)
    reference: float | None  # the score it had when fitted, if known
    fresh: bool | None  # whether the score holds up (None without a reference)


def recheck(
    frame_bgr: NDArray[np.uint8],
    fit: BoardFit,
    reader_cfg: ReaderConfig,
    reference: float | None = None,
    prototypes: Mapping[Colour, FloatArray] | None = None,
    config: CalibrationConfig | None = None,
    reader: BoardReader | None = None,
) -> Recheck:
    """The verdict and lattice score of a known fit on a new frame (a live view's second).

    Nothing is located: the frame is measured under the fit (as :func:`calibrate` judges),
    and the fit's lattice score compared with ``reference`` (the board may have moved).
    With a ``reader`` the cells are read under the fit too, for the share of unclear ones.
    """
    cfg = config or default_calibration_config()
    frame_bgr = check_frame(frame_bgr)
    measures: dict[str, float | None] = dict(measure(frame_bgr, fit, reader_cfg, cfg.glare_level))
    if prototypes is not None and len(prototypes) >= 2:
        measures["separation"] = separation(prototypes, reader_cfg.colour_lightness_weight)
    if reader is not None:
        measures["unclear"] = unclear_share(reader.read(frame_bgr, fit))
    score = lattice_score(frame_bgr, fit, reader_cfg, cfg.score_ppu)
    fresh = None if reference is None else score >= cfg.keep_score_ratio * reference
    verdict = judge(measures, cfg)
    if fresh is False:
        problems = (*verdict.problems, "the board has moved since it was fitted")
        verdict = Verdict(BAD, problems, verdict.measures)
    return Recheck(verdict, score, reference, fresh)


def refresh(
    profile: Profile,
    frame_bgr: NDArray[np.uint8],
    reader: BoardReader,
    config: CalibrationConfig | None = None,
) -> tuple[Profile, FitCheck]:
    """The profile, re-fitted on this frame when the board moved (colours kept)."""
    cfg = config or default_calibration_config()
    check = check_fit(profile, frame_bgr, reader, cfg)
    if check.fresh or check.new_fit is None:
        return profile, check
    frame_bgr = check_frame(frame_bgr)
    fit = joint_fit([frame_bgr], [check.new_fit], reader, cfg)
    score = lattice_score(frame_bgr, fit, reader.config, cfg.score_ppu)
    log.info("calibration re-fitted: %s", check.reason)
    h, w = frame_bgr.shape[:2]
    return replace(profile, fit=fit, lattice_score=score, frame_size=(w, h)), check


# ----------------------------------------------------------------------------- lens


def lens_from_chessboard(
    frames: Iterable[NDArray[np.uint8]], pattern: tuple[int, int] = (9, 6)
) -> Lens:
    """The radial distortion of a camera from photos of a printed chessboard.

    ``pattern`` is the number of inner corners (columns, rows). Only the first radial
    term is estimated (principal point at the frame centre), as the reader's
    :class:`~vision.rectify.Lens` models it. :class:`CalibrationError` when no frame
    shows the pattern.
    """
    grid = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    grid[:, :2] = np.mgrid[0 : pattern[0], 0 : pattern[1]].T.reshape(-1, 2)
    object_pts, image_pts = [], []
    shape: tuple[int, ...] | None = None
    for frame in frames:
        frame = check_frame(frame)
        if shape is not None and frame.shape != shape:
            continue
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        found, corners = cv2.findChessboardCorners(grey, pattern)
        if not found:
            continue
        shape = frame.shape
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3)
        corners = cv2.cornerSubPix(grey, corners, (5, 5), (-1, -1), criteria)
        object_pts.append(grid)
        image_pts.append(corners)
    if shape is None:
        raise CalibrationError(f"no chessboard of {pattern[0]}x{pattern[1]} corners found", pattern)
    h, w = shape[:2]
    f0 = float(max(w, h))
    k0 = np.array([[f0, 0.0, (w - 1) / 2], [0.0, f0, (h - 1) / 2], [0.0, 0.0, 1.0]])
    flags = (
        cv2.CALIB_USE_INTRINSIC_GUESS
        | cv2.CALIB_FIX_PRINCIPAL_POINT
        | cv2.CALIB_FIX_ASPECT_RATIO
        | cv2.CALIB_ZERO_TANGENT_DIST
        | cv2.CALIB_FIX_K2
        | cv2.CALIB_FIX_K3
    )
    if len(object_pts) < 3:
        flags |= cv2.CALIB_FIX_FOCAL_LENGTH
    _, k, dist, _, _ = cv2.calibrateCamera(object_pts, image_pts, (w, h), k0, None, flags=flags)
    lens = Lens.none(shape)
    # OpenCV's k1 is per focal length squared; the Lens's per half-diagonal squared.
    k_lens = float(dist.ravel()[0]) * (lens.norm / float(k[0, 0])) ** 2
    return lens.with_k(k_lens)


# ----------------------------------------------------------------------------- camera


class CameraControl(Protocol):
    """The part of ``cv2.VideoCapture`` used to read and lock settings."""

    def get(self, prop: int) -> float: ...

    def set(self, prop: int, value: float) -> bool: ...


_PROPERTIES = {
    "exposure": cv2.CAP_PROP_EXPOSURE,
    "auto_exposure": cv2.CAP_PROP_AUTO_EXPOSURE,
    "gain": cv2.CAP_PROP_GAIN,
    "brightness": cv2.CAP_PROP_BRIGHTNESS,
    "auto_wb": cv2.CAP_PROP_AUTO_WB,
    "wb_temperature": cv2.CAP_PROP_WB_TEMPERATURE,
    "fps": cv2.CAP_PROP_FPS,
}


def camera_settings(cap: CameraControl, source: str) -> CameraSettings:
    """What the capture device reports (properties it does not support are left out)."""
    props: dict[str, float] = {}
    for name, prop in _PROPERTIES.items():
        try:
            v = float(cap.get(prop))
        except (cv2.error, TypeError, ValueError):
            continue
        if math.isfinite(v) and v != -1.0 and not (v == 0.0 and name == "fps"):
            props[name] = v
    width = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
    height = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
    return CameraSettings(source, width, height, props.get("fps", 0.0), props)


def lock_camera(cap: CameraControl) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Fix exposure and white balance at their current values where the driver allows.

    Returns (what was locked, what the driver refused). V4L2 takes 1 (newer OpenCV) or
    0.25 (older) for manual exposure; both are tried, and every setting is read back.
    """
    locked: list[str] = []
    refused: list[str] = []

    def try_set(prop: int, value: float) -> bool:
        try:
            ok = bool(cap.set(prop, value))
            return ok and abs(float(cap.get(prop)) - value) < 1e-3
        except (cv2.error, TypeError, ValueError):
            return False

    exposure = float(cap.get(cv2.CAP_PROP_EXPOSURE))
    if any(try_set(cv2.CAP_PROP_AUTO_EXPOSURE, v) for v in (1.0, 0.25)):
        if math.isfinite(exposure):
            try_set(cv2.CAP_PROP_EXPOSURE, exposure)
        locked.append("exposure")
    else:
        refused.append("exposure")
    temperature = float(cap.get(cv2.CAP_PROP_WB_TEMPERATURE))
    if try_set(cv2.CAP_PROP_AUTO_WB, 0.0):
        if math.isfinite(temperature) and temperature > 0:
            try_set(cv2.CAP_PROP_WB_TEMPERATURE, temperature)
        locked.append("white balance")
    else:
        refused.append("white balance")
    for what in refused:
        log.warning("the camera driver would not fix its %s", what)
    return tuple(locked), tuple(refused)


__all__ = [
    "Calibration",
    "CalibrationConfig",
    "CameraSettings",
    "FitCheck",
    "Profile",
    "Recheck",
    "Teaching",
    "Verdict",
    "calibrate",
    "check_fit",
    "fit_for",
    "fit_from_corners",
    "learn",
    "lens_from_chessboard",
    "load_profile",
    "load_profile_or_none",
    "lock_camera",
    "reader_for",
    "recheck",
    "refresh",
    "save_profile",
    "teach",
]
