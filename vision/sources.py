"""Frame sources: a camera, a video file, a folder of images, a network stream or snapshot.

Every source is a :class:`FrameSource`: :meth:`~FrameSource.frames` yields ``(name,
frame_bgr)`` and :meth:`~FrameSource.close` stops it. Live sources (a camera, a stream, a
snapshot URL) capture in their own thread into a bounded queue that drops the oldest frame,
so a slow consumer never falls behind the scene; when they stop delivering they are
reopened with a growing pause, and the consumer just sees a gap.

>>> open_source("0")  # doctest: +SKIP
CameraSource(0)
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
import time
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import SourceError, UnreadableImageError
from vision.read import load_image

log = logging.getLogger(__name__)

Frame = NDArray[np.uint8]
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg"})
URL_SCHEMES = ("http://", "https://", "rtsp://", "rtmp://")


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` the sources use (a fake one in tests)."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...

    def get(self, prop: int) -> float: ...


CaptureFactory = Callable[[Any], Capture]


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key for names in name order, numbers by value: ``img2`` before ``img10``."""
    return tuple(int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name))


class FrameSource(ABC):
    """A stream of named BGR frames."""

    #: Frames per second when the source knows it (a camera, a video file), else ``None``.
    fps: float | None = None

    @abstractmethod
    def frames(self) -> Iterator[tuple[str, Frame]]:
        """Yield ``(name, frame_bgr)`` until the source ends or is closed."""

    def close(self) -> None:  # noqa: B027 - optional for sources that hold nothing
        """Release whatever the source holds; :meth:`frames` then ends."""

    def __len__(self) -> int:
        """The number of frames when known in advance (files), else 0."""
        return 0

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class FolderSource(FrameSource):
    """The images of a folder in name order; unreadable files are skipped with a warning."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"{self.folder} is not a folder", str(folder))
        self.paths = sorted(
            (p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
            key=lambda p: natural_key(p.name),
        )
        if not self.paths:
            raise SourceError(f"{self.folder} holds no images", str(folder))
        self._closed = False

    def frames(self) -> Iterator[tuple[str, Frame]]:
        for path in self.paths:
            if self._closed:
                return
            try:
                frame = load_image(str(path))
            except UnreadableImageError as exc:
                log.warning("skipping %s: %s", path.name, exc)
                continue
            yield path.name, frame

    def close(self) -> None:
        self._closed = True

    def __len__(self) -> int:
        return len(self.paths)

    def __repr__(self) -> str:
        return f"FolderSource({str(self.folder)!r})"


class VideoFileSource(FrameSource):
    """The frames of a video file, named by their number (``000012``)."""

    def __init__(self, path: str | Path, capture_factory: CaptureFactory | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"cannot read {self.path}: no such file", str(path))
        factory = capture_factory or _video_capture
        self._cap: Capture | None = factory(str(self.path))
        if not self._cap.isOpened():
            self._cap.release()
            self._cap = None
            raise SourceError(f"cannot read {self.path}: not a video OpenCV can open", str(path))
        fps = float(self._cap.get(cv2.CAP_PROP_FPS))
        self.fps = fps if fps > 0 else None
        self._count = max(0, int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT)))

    def frames(self) -> Iterator[tuple[str, Frame]]:
        number = 0
        while self._cap is not None:
            ok, frame = self._cap.read()
            if not ok or frame is None:
                return
            yield f"{number:06d}", _as_bgr(frame)
            number += 1

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"VideoFileSource({str(self.path)!r})"


class LiveSource(FrameSource):
    """A source captured in its own thread, reopened with backoff when it stops delivering.

    Subclasses say how to open, grab from and release the device. Frames go into a
    bounded queue; when it is full the oldest frame is dropped, so :meth:`frames` always
    returns recent frames however slow the consumer.
    """

    def __init__(
        self,
        label: str,
        queue_size: int = 2,
        backoff: tuple[float, float] = (0.5, 8.0),
        max_frames: int | None = None,
    ) -> None:
        self.label = label
        self.backoff = backoff
        self.max_frames = max_frames
        self.reopened = 0  # how many times the device was reopened after failing
        self.dropped = 0  # frames dropped because the consumer was slower than the device
        self._queue: queue.Queue[tuple[str, Frame]] = queue.Queue(maxsize=max(1, queue_size))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- what subclasses provide -------------------------------------------------------

    @abstractmethod
    def _open(self) -> bool:
        """Open the device; False when it cannot be opened now."""

    @abstractmethod
    def _grab(self) -> Frame | None:
        """The next frame, or None when the device stopped delivering."""

    @abstractmethod
    def _release(self) -> None:
        """Release the device (it may be opened again)."""

    # -- the capture thread --------------------------------------------------------------

    def start(self) -> None:
        """Start capturing (:meth:`frames` starts it when needed)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.label, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        number = 0
        pause = self.backoff[0]
        opened = False
        while not self._stop.is_set():
            if not opened:
                opened = self._safe(self._open, False)
                if not opened:
                    log.warning("%s: cannot open; retrying in %.1f s", self.label, pause)
                    self._stop.wait(pause)
                    pause = min(pause * 2, self.backoff[1])
                    continue
            frame = self._safe(self._grab, None)
            if frame is None:
                log.warning("%s stopped delivering; reopening", self.label)
                self._safe(self._release, None)
                opened = False
                self.reopened += 1
                self._stop.wait(pause)
                pause = min(pause * 2, self.backoff[1])
                continue
            pause = self.backoff[0]
            self._put((f"{number:06d}", _as_bgr(frame)))
            number += 1
            if self.max_frames is not None and number >= self.max_frames:
                break
        if opened:
            self._safe(self._release, None)
        self._stop.set()

    def _safe(self, fn: Callable[[], Any], default: Any) -> Any:
        try:
            return fn()
        except (OSError, cv2.error, ValueError) as exc:
            log.warning("%s: %s", self.label, exc)
            return default

    def _put(self, item: tuple[str, Frame]) -> None:
        while True:
            try:
                self._queue.put_nowait(item)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def frames(self) -> Iterator[tuple[str, Frame]]:
        self.start()
        while True:
            try:
                yield self._queue.get(timeout=0.05)
            except queue.Empty:
                if self._stop.is_set() and self._queue.empty():
                    return

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r})"


class CaptureSource(LiveSource):
    """A ``cv2.VideoCapture`` device: a camera by index or a network stream by URL."""

    def __init__(
        self,
        device: int | str,
        capture_factory: CaptureFactory | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(f"camera {device}" if isinstance(device, int) else str(device), **kwargs)
        self.device = device
        self._factory = capture_factory or _video_capture
        self._cap: Capture | None = None

    def _open(self) -> bool:
        cap = self._factory(self.device)
        if not cap.isOpened():
            cap.release()
            return False
        self._cap = cap
        fps = float(cap.get(cv2.CAP_PROP_FPS))
        self.fps = fps if fps > 0 else self.fps
        return True

    def _grab(self) -> Frame | None:
        if self._cap is None:
            return None
        ok, frame = self._cap.read()
        return frame if ok and frame is not None else None

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class CameraSource(CaptureSource):
    """A local camera by index (``/dev/video0`` is 0)."""

    def __init__(self, index: int, capture_factory: CaptureFactory | None = None, **kw: Any):
        super().__init__(index, capture_factory, **kw)


class SnapshotSource(LiveSource):
    """A snapshot URL (``http://phone:8080/shot.jpg``) polled over HTTP."""

    def __init__(
        self,
        url: str,
        interval: float = 0.1,
        timeout: float = 5.0,
        opener: Callable[..., Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(url, **kwargs)
        self.url = url
        self.interval = interval
        self.timeout = timeout
        self._opener = opener or urllib.request.urlopen
        self._last = 0.0

    def _open(self) -> bool:
        return True

    def _grab(self) -> Frame | None:
        wait = self.interval - (time.monotonic() - self._last)
        if wait > 0:
            self._stop.wait(wait)
        self._last = time.monotonic()
        try:
            with self._opener(self.url, timeout=self.timeout) as response:
                data = response.read()
        except (OSError, ValueError) as exc:  # URLError and timeouts are OSErrors
            log.debug("%s: %s", self.url, exc)
            return None
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        return image if image is not None else None

    def _release(self) -> None:
        pass


def UrlSource(url: str, **kwargs: Any) -> LiveSource:
    """A network source: a snapshot URL (an image) is polled, anything else is a stream."""
    if is_snapshot_url(url):
        return SnapshotSource(url, **kwargs)
    return CaptureSource(url, **kwargs)


def is_snapshot_url(url: str) -> bool:
    """An HTTP URL of a still image (``.../shot.jpg``, ``.../snapshot``), not a stream."""
    if not url.startswith(("http://", "https://")):
        return False
    path = url.split("?", 1)[0].lower().rstrip("/")
    return Path(path).suffix in IMAGE_SUFFIXES or path.endswith(("snapshot", "shot", "still"))


def open_source(spec: str) -> FrameSource:
    """A source from a command-line word: digits = a camera, an http(s)/rtsp URL, an
    existing folder (images in name order) or file (a video, or one image)."""
    spec = spec.strip()
    if spec.isdigit():
        return CameraSource(int(spec))
    if spec.lower().startswith(URL_SCHEMES):
        return UrlSource(spec)
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return _SingleImageSource(path)
        return VideoFileSource(path)
    raise SourceError(f"cannot read {spec}: no such file, folder, camera or URL", spec)


class _SingleImageSource(FrameSource):
    def __init__(self, path: Path) -> None:
        self.path = path
        if not os.access(path, os.R_OK):
            raise SourceError(f"cannot read {path}", str(path))

    def frames(self) -> Iterator[tuple[str, Frame]]:
        try:
            yield self.path.name, load_image(str(self.path))
        except UnreadableImageError as exc:
            raise SourceError(str(exc), str(self.path)) from None

    def __len__(self) -> int:
        return 1


def _video_capture(device: Any) -> Capture:
    return cv2.VideoCapture(device)  # type: ignore[no-any-return]


def _as_bgr(frame: Any) -> Frame:
    arr = np.asarray(frame)
    if arr.ndim == 2:
        return cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)  # type: ignore[no-any-return]
    if arr.ndim == 3 and arr.shape[2] == 4:
        return cv2.cvtColor(arr, cv2.COLOR_BGRA2BGR)  # type: ignore[no-any-return]
    return arr.astype(np.uint8, copy=False)
