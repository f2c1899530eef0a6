"""The calibration page: a frame of the board with the fitted lattice, the verdict, and saving.

The frame comes from the camera configured for calibration (``CALIBRATION_SOURCE``: a camera
number, video, folder, image or URL, as ``spectrangle calibrate --source`` takes) or from an
uploaded photo. Every new frame is calibrated at once (board found, lattice fitted, tile
colours learned) and judged; when the board is not found the user clicks the three corners of
the playing triangle on the image and the fit is refined from there. "Save" writes the
profile (``CALIBRATION_PATH``, default ``calibration/profile.json``).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from flask import Blueprint, Response, current_app, jsonify, render_template, request
from numpy.typing import NDArray

from vision.errors import BoardNotFoundError, VisionError
from webui.errors import InputError, NotFoundError, WebError
from webui.live import LiveWorker

if TYPE_CHECKING:
    from vision.calibration import Calibration

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
        }
        worker = live_worker()
        if worker is not None:
            out["live"] = worker.calibration.state()
        if self.frame is not None:
            h, w = self.frame.shape[:2]
            out["width"], out["height"] = w, h
        if self.result is not None:
            fit = self.result.profile.fit
            out["verdict"] = self.result.verdict.to_json()
            out["residual_px"] = round(fit.residual_px, 2) if np.isfinite(fit.residual_px) else None
            out["points"] = fit.points
            out["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in fit.corners]
        return out


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


def _run(d: Desk, corners: list[list[float]] | None) -> None:
    """Calibrate the desk's frame (with clicked corners, if any)."""
    from vision.calibration import calibrate  # imported on first use: app start stays fast

    assert d.frame is not None
    d.corners = corners
    d.saved = ""
    d.version += 1
    try:
        d.result = calibrate([d.frame], corners=corners)
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


# ----------------------------------------------------------------------------- routes


@bp.get("/calibrate")
def page() -> str:
    return render_template(
        "calibrate.html",
        source=current_app.config.get("CALIBRATION_SOURCE"),
        path=str(_profile_path()),
    )


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
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:  # pragma: no cover - encoding a valid frame does not fail
        raise WebError("cannot encode the frame")
    response = Response(data.tobytes(), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/api/calibration/frame")
def new_frame() -> Response:
    """A new frame: an uploaded photo (``image``), else one grabbed from the source."""
    d = desk()
    upload = request.files.get("image")
    if upload is not None:
        frame, label = _decode(upload.read()), upload.filename or "upload"
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
    pts = _corners(request.get_json(silent=True))
    if not d.lock.acquire(timeout=30):
        raise BusyError("a calibration is already running")
    try:
        if d.frame is None:
            raise InputError("no frame yet: grab one from the camera or upload a photo")
        h, w = d.frame.shape[:2]
        if any(not (-w <= x <= 2 * w and -h <= y <= 2 * h) for x, y in pts):
            raise InputError("corners: a point lies far outside the image", "corners")
        _run(d, pts)
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
        return jsonify(d.status())
