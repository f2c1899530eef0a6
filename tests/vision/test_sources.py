"""Frame sources (vision.sources): folders, video files, cameras and URLs that recover."""

from __future__ import annotations

import http.server
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.sources import (
    CameraSource,
    CaptureSource,
    FolderSource,
    SnapshotSource,
    SourceError,
    VideoFileSource,
    is_snapshot_url,
    natural_key,
    open_source,
)


def image(value: int, size: tuple[int, int] = (96, 80)) -> np.ndarray:
    w, h = size
    img = np.full((h, w, 3), value, np.uint8)
    cv2.putText(img, str(value), (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 0, 0), 2)
    return img


def test_folder_in_name_order_skipping_unreadable_files(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for n in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{n}.png"), image(n * 20))
    (tmp_path / "frame5.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "frame3.json").write_text("{}")
    source = FolderSource(tmp_path)
    assert len(source) == 4
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        got = list(source.frames())
    assert [name for name, _ in got] == ["frame1.png", "frame2.png", "frame10.png"]
    assert [int(f[60, 80, 1]) for _, f in got] == [20, 40, 200]
    assert "frame5.jpg" in caplog.text


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path)
    with pytest.raises(SourceError, match="not a folder"):
        FolderSource(tmp_path / "missing")


def test_natural_key_orders_numbers_by_value() -> None:
    assert sorted(["b10", "b9", "a100", "B2"], key=natural_key) == ["a100", "B2", "b9", "b10"]


def test_video_file_written_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 12.0, (96, 80))
    assert writer.isOpened()
    values = [30, 90, 150, 210, 120]
    for v in values:
        writer.write(image(v))
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, VideoFileSource)
    with source:
        assert source.fps == pytest.approx(12.0)
        assert len(source) == len(values)
        got = list(source.frames())
    assert [name for name, _ in got] == [f"{i:06d}" for i in range(len(values))]
    assert [abs(int(f[60, 80, 1]) - v) <= 6 for (_, f), v in zip(got, values, strict=True)] == [
        True
    ] * len(values)


def test_unreadable_video_and_missing_source(tmp_path: Path) -> None:
    bad = tmp_path / "clip.mp4"
    bad.write_bytes(b"\x00" * 64)
    with pytest.raises(SourceError):
        open_source(str(bad))
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "nothing.mp4"))


def test_open_source_dispatch(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), image(1))
    assert isinstance(open_source(str(tmp_path)), FolderSource)
    cam = open_source("0")
    assert isinstance(cam, CameraSource) and cam.device == 0
    assert isinstance(open_source("http://phone:8080/shot.jpg"), SnapshotSource)
    assert isinstance(open_source("http://phone:8080/video"), CaptureSource)
    assert isinstance(open_source("rtsp://phone/live"), CaptureSource)
    single = open_source(str(tmp_path / "a.png"))
    assert [name for name, _ in single.frames()] == ["a.png"]
    assert is_snapshot_url("https://x/cam/snapshot?t=1")
    assert not is_snapshot_url("rtsp://x/shot.jpg")


class FakeCapture:
    """A capture that opens on the second try, delivers, fails, and delivers again."""

    opens = 0

    def __init__(self, script: list[Any]) -> None:
        self.script = script
        FakeCapture.opens += 1
        self.ok = FakeCapture.opens != 1  # the first open fails

    def isOpened(self) -> bool:
        return self.ok

    def read(self) -> tuple[bool, Any]:
        if not self.script:
            time.sleep(0.01)
            return False, None
        item = self.script.pop(0)
        return (item is not None), item

    def release(self) -> None:
        self.ok = False

    def get(self, prop: int) -> float:
        return 25.0 if prop == cv2.CAP_PROP_FPS else 0.0


def take(frames: Iterator[tuple[str, np.ndarray]], n: int, timeout: float = 5.0) -> list[Any]:
    got = []
    end = time.monotonic() + timeout
    for item in frames:
        got.append(item)
        if len(got) >= n or time.monotonic() > end:
            break
    return got


def test_camera_that_fails_is_reopened_and_frames_keep_coming() -> None:
    FakeCapture.opens = 0
    script: list[Any] = [image(10), image(20), None, image(30), image(40)]
    source = CameraSource(
        3, capture_factory=lambda _: FakeCapture(script), backoff=(0.01, 0.02), queue_size=8
    )
    try:
        got = take(source.frames(), 4)
    finally:
        source.close()
    assert [int(f[60, 80, 1]) for _, f in got] == [10, 20, 30, 40]
    assert FakeCapture.opens >= 3  # failed open, first session, reopened after the failure
    assert source.reopened >= 1
    assert source.fps == 25.0


def test_slow_consumer_gets_recent_frames() -> None:
    FakeCapture.opens = 1  # opens at once
    script: list[Any] = [image(v) for v in range(0, 250, 5)]
    source = CaptureSource(
        "fake://", capture_factory=lambda _: FakeCapture(script), queue_size=2, max_frames=50
    )
    source.start()
    time.sleep(0.3)  # the device delivers everything while nobody reads
    try:
        got = list(source.frames())
    finally:
        source.close()
    assert len(got) <= 2 and source.dropped >= 48
    assert int(got[-1][1][60, 80, 1]) == 245


class _Snapshots(http.server.BaseHTTPRequestHandler):
    calls = 0

    def do_GET(self) -> None:
        type(self).calls += 1
        if type(self).calls in (2, 3):  # the phone app hiccups
            self.send_error(503)
            return
        ok, data = cv2.imencode(".jpg", image(min(250, 40 * type(self).calls)))
        assert ok
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.tobytes())

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_snapshot_url_polled_and_recovers_after_errors() -> None:
    _Snapshots.calls = 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Snapshots)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/shot.jpg"
    source = open_source(url)
    assert isinstance(source, SnapshotSource)
    source.interval = 0.0
    source.backoff = (0.01, 0.02)
    try:
        got = take(source.frames(), 3)
    finally:
        source.close()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    assert len(got) == 3
    assert source.reopened >= 1
    values = [int(f[60, 80, 1]) for _, f in got]
    assert abs(values[0] - 40) <= 4 and abs(values[1] - 160) <= 4
