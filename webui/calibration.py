"""The calibration page: a frame of the board with the fitted lattice, the verdict, and saving.

The frame comes from the live camera the server tracks (its worker's latest frame), the
camera configured for calibration (``CALIBRATION_SOURCE``: a camera number, video, folder,
image or URL, as ``spectrangle calibrate --source`` takes) or an uploaded photo. With a live
camera the page shows it live (``/calibrate/live.jpg`` and ``/api/calibration/live``, about
once a second): the fitted lattice over the latest frame, re-checked on it (lattice score,
verdict; no search for the board).

Every new frame is calibrated at once (board found, lattice fitted, tile colours learned)
and judged. When the board is not found the user clicks the three corners of the playing
triangle and the fit is refined from there; dragging a lattice point as well (the centre
or any cell corner) fixes the perspective from four points or more. "Teach colours" learns
the colour prototypes from the tiles on the board, naming the colours still missing.
"Save" writes the profile (``CALIBRATION_PATH``, default ``calibration/profile.json``), and
the live tracking takes it at once.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from flask import Blueprint, Response, current_app, jsonify, render_template, request
from numpy.typing import NDArray

from vision.errors import BoardNotFoundError, VisionError
from vision.model import CENTRE
from webui.errors import InputError, NotFoundError, WebError
from webui.live import LiveWorker

if TYPE_CHECKING:
    from vision.calibration import Calibration, Teaching
    from vision.rectify import BoardFit

log = logging.getLogger(__name__)
bp = Blueprint("calibration", __name__)

EXTENSION = "spectrangle_calibration"
MAX_SIDE = 4000
DEFAULT_PROFILE_PATH = Path("calibration") / "profile.json"


class BusyError(WebError):
    status = 503


@dataclass
class Desk:
    """The calibration in progress (one per app): the frame, the result, the saved path."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    frame: NDArray[np.uint8] | None = None
    label: str = ""
    result: Calibration | None = None
    message: str = ""
    corners: list[list[float]] | None = None
    saved: str = ""
    version: int = 0
    teaching: Teaching | None = None
    points: list[tuple[list[float], list[float]]] = field(default_factory=list)
    live_lock: threading.Lock = field(default_factory=threading.Lock)
    live_seen: str = ""  # the live frame last re-checked
    live_state: dict[str, Any] = field(default_factory=dict)

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "has_frame": self.frame is not None,
            "label": self.label,
            "message": self.message,
            "saved": self.saved,
            "version": self.version,
            "source": current_app.config.get("CALIBRATION_SOURCE"),
            "found": self.result is not None,
            "manual": self.corners is not None,
            "live": None,
            "live_view": False,
            "board_centre": [round(float(v), 6) for v in CENTRE],
            "teach": None if self.teaching is None else self.teaching.to_json(),
        }
        worker = live_worker()
        if worker is not None:
            out["live"] = worker.calibration.state()
            out["live_view"] = True
        if self.frame is not None:
            h, w = self.frame.shape[:2]
            out["width"], out["height"] = w, h
        if self.result is not None:
            fit = self.result.profile.fit
            out["verdict"] = self.result.verdict.to_json()
            out["residual_px"] = round(fit.residual_px, 2) if np.isfinite(fit.residual_px) else None
            out["points"] = fit.points
            out["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in fit.corners]
            out["lattice"] = lattice_json(fit)
        return out


def lattice_json(fit: BoardFit) -> list[list[float]]:
    """The fit's lattice points for dragging: [u, v, x, y] (board units, frame pixels)."""
    from vision.calibration import lattice_vertices

    board = lattice_vertices()
    image = fit.to_image(board)
    return [
        [round(float(u), 6), round(float(v), 6), round(float(x), 1), round(float(y), 1)]
        for (u, v), (x, y) in zip(board, image, strict=True)
    ]


def live_worker() -> LiveWorker | None:
    """The live camera's worker, when the server tracks one."""
    services = current_app.extensions.get("spectrangle")
    worker = getattr(services, "live", None)
    return worker if isinstance(worker, LiveWorker) else None


def desk() -> Desk:
    found = current_app.extensions.get(EXTENSION)
    if found is None:
        found = current_app.extensions.setdefault(EXTENSION, Desk())
    assert isinstance(found, Desk)
    return found


def _profile_path() -> Path:
    return Path(current_app.config.get("CALIBRATION_PATH") or DEFAULT_PROFILE_PATH)


def _run(
    d: Desk,
    corners: list[list[float]] | None,
    points: list[tuple[list[float], list[float]]] | None = None,
) -> None:
    """Calibrate the desk's frame (with clicked corners and dragged lattice points, if any)."""
    from vision.calibration import calibrate  # imported on first use: app start stays fast

    assert d.frame is not None
    d.corners = corners
    d.points = list(points or [])
    d.saved = ""
    d.teaching = None
    d.version += 1
    try:
        d.result = calibrate([d.frame], corners=corners, points=d.points)
        verdict = d.result.verdict
        d.message = f"verdict: {verdict.words}"
    except BoardNotFoundError as exc:
        d.result = None
        d.message = f"board not found ({exc}): click its three corners on the image"
    except VisionError as exc:
        d.result = None
        raise InputError(str(exc)) from None


def _grab(spec: str) -> tuple[NDArray[np.uint8], str]:
    from vision.sources import open_source

    try:
        source = open_source(spec)
    except VisionError as exc:
        raise InputError(str(exc), "source") from None
    frame = None
    try:
        for k, (name, f) in enumerate(source.frames()):
            frame, label = f, name
            if k >= 4:  # a few frames in: a camera's exposure has settled
                break
    except VisionError as exc:
        raise InputError(str(exc), "source") from None
    finally:
        source.close()
    if frame is None:
        raise InputError(f"{spec} gave no frame", "source")
    return frame, f"{spec} ({label})"


def _decode(data: bytes) -> NDArray[np.uint8]:
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        raise InputError("the upload is not an image (JPEG, PNG, ...)", "image")
    if min(image.shape[:2]) < 64 or max(image.shape[:2]) > MAX_SIDE:
        raise InputError(f"the image is {image.shape[1]}x{image.shape[0]}: too small or large")
    return image  # type: ignore[no-any-return]


def _corners(data: Any) -> list[list[float]]:
    corners = data.get("corners") if isinstance(data, dict) else None
    try:
        pts = np.array(corners, dtype=np.float64)
    except (TypeError, ValueError):
        pts = np.zeros(0)
    if pts.shape != (3, 2) or not np.isfinite(pts).all():
        raise InputError("corners: three [x, y] points are needed", "corners")
    return [[float(x), float(y)] for x, y in pts]


def _points(data: Any) -> list[tuple[list[float], list[float]]]:
    """Dragged lattice points: ``[{"board": [u, v], "image": [x, y]}, ...]`` (at most 6)."""
    raw = data.get("points") if isinstance(data, dict) else None
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > 6:
        raise InputError("points: a list of at most 6 {board, image} points", "points")
    out = []
    for item in raw:
        try:
            board = np.array(item["board"], dtype=np.float64)
            image = np.array(item["image"], dtype=np.float64)
        except (TypeError, ValueError, KeyError):
            raise InputError("points: each is {board: [u, v], image: [x, y]}", "points") from None
        if board.shape != (2,) or image.shape != (2,) or not np.isfinite([*board, *image]).all():
            raise InputError("points: each is {board: [u, v], image: [x, y]}", "points")
        out.append(([float(v) for v in board], [float(v) for v in image]))
    return out


# ----------------------------------------------------------------------------- routes


def _latest() -> tuple[str, NDArray[np.uint8]] | None:
    worker = live_worker()
    return worker.latest() if worker is not None else None


def _live_fit(d: Desk, frame: NDArray[np.uint8]) -> tuple[Any, str, Any]:
    """The fit to show over a live frame: (fit, where from, the profile or None).

    The page's own fit first (what would be saved), then the live camera's profile, then
    the tracker's fit.
    """
    h, w = frame.shape[:2]
    if d.result is not None and d.result.profile.frame_size == (w, h):
        return d.result.profile.fit, "page", d.result.profile
    worker = live_worker()
    if worker is None:
        return None, "", None
    profile = worker.calibration.profile
    if profile is not None and profile.frame_size == (w, h):
        return profile.fit, "profile", profile
    tracker = worker.tracker
    if tracker is not None and tracker.fit is not None:
        return tracker.fit, "tracker", None
    return None, "", None


def _live_check(d: Desk) -> dict[str, Any]:
    """The latest live frame re-checked under the shown fit (once per frame)."""
    latest = _latest()
    if latest is None:
        return {"live": live_worker() is not None, "frame": None}
    name, frame = latest
    with d.live_lock:
        key = f"{name}/{d.version}/{id(frame)}"
        if key == d.live_seen:
            return d.live_state
        from vision.calibration import reader_for, recheck
        from vision.read import BoardReader

        fit, origin, profile = _live_fit(d, frame)
        h, w = frame.shape[:2]
        out: dict[str, Any] = {"live": True, "frame": name, "width": w, "height": h}
        out["fit_from"] = origin
        if fit is not None:
            protos = profile.prototype_arrays() if profile is not None else None
            reference = profile.lattice_score if profile is not None else None
            try:
                reader = reader_for(profile, BoardReader())
                check = recheck(frame, fit, reader.config, reference, protos, reader=reader)
            except VisionError as exc:
                log.info("calibration page: live re-check failed: %s", exc)
            else:
                out["verdict"] = check.verdict.to_json()
                out["score"] = round(check.score, 2)
                out["reference"] = None if reference is None else round(reference, 2)
                out["fresh"] = check.fresh
                residual = fit.residual_px
                out["residual_px"] = round(residual, 2) if np.isfinite(residual) else None
                out["points"] = fit.points
                out["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in fit.corners]
                out["lattice"] = lattice_json(fit)
        d.live_seen, d.live_state = key, out
        return out


@bp.get("/calibrate")
def page() -> str:
    return render_template(
        "calibrate.html",
        source=current_app.config.get("CALIBRATION_SOURCE") or bool(live_worker()),
        live=live_worker() is not None,
        path=str(_profile_path()),
    )


@bp.get("/api/calibration/live")
def live_status() -> Response:
    """The live frame re-checked: verdict, residual, lattice score (no search for the board)."""
    return jsonify(_live_check(desk()))


def _jpeg(image: NDArray[np.uint8], quality: int) -> Response:
    """A frame (H, W, 3) uint8 BGR as a JPEG response that no cache keeps."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - encoding a valid frame does not fail
        raise WebError("cannot encode the frame")
    response = Response(data.tobytes(), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/calibrate/live.jpg")
def live_view() -> Response:
    """The latest live frame with the shown fit's lattice drawn over it (full size)."""
    latest = _latest()
    if latest is None:
        raise NotFoundError("there is no live camera frame (yet)")
    from vision.model import VERTICES

    _, frame = latest
    d = desk()
    image = frame.copy()
    fit, origin, _ = _live_fit(d, frame)
    if fit is not None:
        tris = np.round(fit.to_image(VERTICES.reshape(-1, 2)).reshape(-1, 3, 2)).astype(np.int32)
        colour = (80, 220, 80) if origin == "page" else (255, 255, 0)
        cv2.polylines(image, list(tris), True, colour, 1, cv2.LINE_AA)
    return _jpeg(image, 80)


@bp.get("/api/calibration")
def status() -> Response:
    return jsonify(desk().status())


@bp.get("/calibrate/view.jpg")
def view() -> Response:
    d = desk()
    with d.lock:
        if d.frame is None:
            raise NotFoundError("no frame yet: grab one from the camera or upload a photo")
        image = d.frame
        if d.result is not None and d.result.reading is not None:
            from vision.overlay import draw_overlay

            image = draw_overlay(d.frame, d.result.reading)
    return _jpeg(image, 85)


@bp.post("/api/calibration/frame")
def new_frame() -> Response:
    """A new frame: an uploaded photo (``image``), else one grabbed from the source."""
    d = desk()
    upload = request.files.get("image")
    latest = _latest()
    if upload is not None:
        frame, label = _decode(upload.read()), upload.filename or "upload"
    elif latest is not None:  # the live camera's latest frame (it holds the camera)
        frame, label = latest[1], f"live camera ({latest[0]})"
    else:
        spec = current_app.config.get("CALIBRATION_SOURCE")
        if not spec:
            raise InputError(
                "no camera is configured for calibration: upload a photo "
                "(or start the server with a camera)",
                "source",
            )
        frame, label = _grab(str(spec))
    if not d.lock.acquire(timeout=30):
        raise BusyError("a calibration is already running")
    try:
        d.frame, d.label = frame, label
        _run(d, None)
        return jsonify(d.status())
    finally:
        d.lock.release()


@bp.post("/api/calibration/corners")
def corners() -> Response:
    """The manual override: the three clicked corners of the playing triangle."""
    d = desk()
    body = request.get_json(silent=True)
    pts = _corners(body)
    extra = _points(body)
    latest = _latest()
    if not d.lock.acquire(timeout=30):
        raise BusyError("a calibration is already running")
    try:
        if isinstance(body, dict) and body.get("live") and latest is not None:
            d.frame, d.label = latest[1], f"live camera ({latest[0]})"
        if d.frame is None:
            raise InputError("no frame yet: grab one from the camera or upload a photo")
        h, w = d.frame.shape[:2]
        if any(not (-w <= x <= 2 * w and -h <= y <= 2 * h) for x, y in pts):
            raise InputError("corners: a point lies far outside the image", "corners")
        if any(not (-w <= x <= 2 * w and -h <= y <= 2 * h) for _, (x, y) in extra):
            raise InputError("points: a point lies far outside the image", "points")
        try:
            _run(d, pts, extra)
        except InputError as exc:
            if not extra:
                raise
            raise InputError(f"points: {exc}", "points") from None
        return jsonify(d.status())
    finally:
        d.lock.release()


@bp.post("/api/calibration/teach")
def teach_colours() -> Response:
    """Learn the colour prototypes from the tiles on the board (the live camera's latest
    frame, else the desk's frame); answers with a message per colour (missing ones first)."""
    from vision.calibration import teach

    d = desk()
    body = request.get_json(silent=True)
    latest = _latest() if isinstance(body, dict) and body.get("live", True) else None
    if not d.lock.acquire(timeout=30):
        raise BusyError("a calibration is already running")
    try:
        if latest is not None:
            frame = latest[1]
            if d.result is None or d.frame is None or d.frame.shape != frame.shape:
                d.frame, d.label = frame, f"live camera ({latest[0]})"
                _run(d, None)
        else:
            frame = d.frame
        if d.result is None or frame is None:
            raise InputError("fit the board first: the tiles are read on the fitted lattice")
        teaching = teach(d.result.profile, [frame], previous=d.teaching)
        d.teaching = teaching
        d.result = replace(d.result, profile=teaching.profile)
        d.saved = ""
        d.version += 1
        missing = teaching.missing
        d.message = (
            "every colour learned: save the profile"
            if not missing
            else f"still missing: {', '.join(c.value for c in missing)}: "
            "lay tiles with these colours on the board and teach again"
        )
        return jsonify(d.status())
    finally:
        d.lock.release()


@bp.post("/api/calibration/save")
def save() -> Response:
    d = desk()
    with d.lock:
        if d.result is None:
            raise InputError("nothing to save: the board has not been fitted yet")
        from vision.calibration import save_profile

        path = _profile_path()
        try:
            save_profile(d.result.profile, path)
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc}") from None
        d.saved = str(path)
        d.message = f"profile saved to {path}"
        worker = live_worker()
        if worker is not None:
            worker.use_profile(d.result.profile, path)
            d.message += "; live tracking uses it now"
        return jsonify(d.status())
