"""End-to-end tests in a real browser (Debian's chromium driven by Playwright).

The app runs in a thread on a free port; Playwright never downloads a browser. Screenshots
of key moments are taken (and kept under 300 KB); with ``SPECTRANGLE_SCREENSHOTS=1`` they are
written to ``docs/screenshots`` for the README, otherwise to a temporary folder so that a test
run leaves the working tree clean.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from engine.record import GameRecord, score_record
from tests.webui.conftest import make_app
from webui import shutdown
from webui.demo import DEFAULT_DIR, _lenient_record, builtin_record

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():  # pragma: no cover - .ci/run installs it
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = (
    ROOT / "docs" / "screenshots"
    if os.environ.get("SPECTRANGLE_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "spectrangle-screenshots"
)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1200, "height": 780}


class Server:
    """A Flask app served by werkzeug in a thread."""

    def __init__(self, app: Flask) -> None:
        from werkzeug.serving import make_server

        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        shutdown(self.app)
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def api(self, path: str, data: Any = None) -> Any:
        client = self.app.test_client()
        token = client.get("/api/session").json["csrf_token"]
        response = client.post(path, json=data or {}, headers={"X-CSRF-Token": token})
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.json


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def serve(tmp_path: Path, **config: Any) -> Server:
    return Server(make_app(tmp_path / "games.sqlite3", **config))


def sample() -> tuple[Path | None, GameRecord]:
    """The bundled sample game (its folder and record), or the built-in fallback."""
    if (DEFAULT_DIR / "record.json").is_file():
        return DEFAULT_DIR, _lenient_record(DEFAULT_DIR / "record.json")
    return None, builtin_record()


def totals_on(page: Any) -> dict[str, int]:
    """The totals the page shows, once its script has drawn them (after a reload, too)."""
    page.wait_for_load_state()
    rows = page.locator("#totals .total")
    rows.first.wait_for(state="attached")
    return {
        rows.nth(i).get_attribute("data-player"): int(rows.nth(i).locator(".points").inner_text())
        for i in range(rows.count())
    }


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    page.screenshot(path=str(path), animations="disabled")
    assert path.stat().st_size < 300_000, f"{name} is {path.stat().st_size} bytes"


# Records on the page whether the illegal-placement alert was ever shown, and its reason.
WATCH_ALERT = """
new MutationObserver(() => {
  const alert = document.getElementById("alert");
  if (alert && !alert.hidden) {
    window.alertsSeen = window.alertsSeen || [];
    const reason = document.getElementById("alert-reason").textContent;
    if (!window.alertsSeen.includes(reason)) window.alertsSeen.push(reason);
  }
}).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
"""


def live_worker(server: Server) -> Any:
    live = server.app.extensions["spectrangle"].live
    assert live is not None, "the demo is not followed by the tracker"
    return live


def test_page_follows_the_demo_to_its_end(tmp_path: Path, page: Any) -> None:
    """The sample game's frames through the live tracker, fast, to the end of the game."""
    folder, record = sample()
    tracked = folder is not None and (folder / "0000.jpg").is_file()
    config: dict[str, Any] = {"DEMO": True, "DEMO_SPEED": 3600.0 if tracked else 0.03}
    if folder is not None:
        config["DEMO_DIR"] = str(folder)
    else:
        (tmp_path / "demo").mkdir()
        (tmp_path / "demo" / "record.json").write_text(json.dumps(record.to_json()))
        config["DEMO_DIR"] = str(tmp_path / "demo")
    server = serve(tmp_path, **config)
    try:
        page.add_init_script(WATCH_ALERT)
        page.goto(server.url + "/")
        if tracked:
            page.locator("#camera-view img.live").wait_for(state="visible")
            live_worker(server).set_pace(0.02)  # the page is watching: go
        page.locator("#winners").wait_for(state="visible", timeout=90_000)
        expected = score_record(record).totals
        assert totals_on(page) == expected
        assert page.locator("#turn").inner_text() == "Game over"
        log_rows = page.locator("#log tbody tr").count()
        assert log_rows >= len([m for m in record.moves if m.type == "place"])
        if tracked:
            reasons = page.evaluate("window.alertsSeen || []")
            assert reasons == ["the base edge of cell 21 is red but cell 13's base edge is yellow"]
            assert page.locator("#alert").is_hidden()
            status = page.locator("#camera-status")
            status.filter(has_text="demo finished").wait_for()
            assert status.inner_text().startswith("source ended")
            assert live_worker(server).frames == len(list(folder.glob("*.jpg")))  # type: ignore[union-attr]
        if max(expected.values()) > 100:
            leader = max(expected, key=lambda k: expected[k])
            assert page.locator(f'#totals .total[data-player="{leader}"] .lap').inner_text() == (
                "lap 2"
            )
            shot(page, "track-past-100.png")
    finally:
        server.stop()


def test_game_in_progress_with_camera_view(tmp_path: Path, page: Any) -> None:
    """The tracker follows the sample game to its 15th move and waits; the page shows it."""
    folder, record = sample()
    tracked = folder is not None and (folder / "0000.jpg").is_file()
    config: dict[str, Any] = {"DEMO": True, "DEMO_SPEED": 0.0 if tracked else 3600.0}
    config["DEMO_DIR"] = str(folder) if folder is not None else str(tmp_path / "none")
    server = serve(tmp_path, **config)
    try:
        client = server.app.test_client()
        if tracked:
            live = live_worker(server)
            deadline = time.monotonic() + 60
            while len(client.get("/api/state").json["log"]) < 15:
                assert time.monotonic() < deadline and live.running
                time.sleep(0.01)
            live.set_pace(3600.0)  # stop after this frame
        else:
            from webui.demo import events_from_record

            for event in events_from_record(record)[:14]:
                server.api("/api/observe", event)
        page.goto(server.url + "/")
        page.locator("#letters-toggle").click()
        assert page.locator("svg#board .letter").first.is_visible()
        page.locator("svg#board .last").wait_for(state="attached")
        state = client.get("/api/state").json
        assert totals_on(page) == state["totals"]
        assert page.locator("#turn").inner_text() == f"{state['turn']} to play"
        assert page.locator("#bag").inner_text().startswith(str(state["bag"]))
        if tracked:
            page.locator("#camera-view img.live").wait_for(state="visible")
            assert page.locator("#camera-status").inner_text().startswith("tracking")
        shot(page, "game-in-progress.png")
        server.api("/api/observe", {"type": "status", "status": "board lost"})
        page.locator("#camera-status.board-lost").wait_for(state="visible")
    finally:
        server.stop()


def test_manual_entry_scores_a_move(tmp_path: Path, page: Any) -> None:
    server = serve(tmp_path)
    try:
        server.api("/api/new", {"players": ["Ann", "Bob"]})
        page.goto(server.url + "/")
        page.locator('svg#board g.cell[data-index="6"]').click()
        page.locator('#entry-legal .choice[data-placement="6:RRY5"]').click()
        page.locator('#totals .total[data-player="Ann"] .points').filter(has_text="5").wait_for()
        assert page.locator("#log tbody tr").first.inner_text().endswith("5 (first tile) = 5")
        assert page.locator("#turn").inner_text() == "Bob to play"
        page.locator('svg#board g.cell[data-index="5"]').click()
        page.locator('#entry-legal .choice[data-placement="5:BRR4"]').click()
        page.locator('#totals .total[data-player="Bob"] .points').filter(has_text="4").wait_for()
        assert "4 x 1 edge = 4" in page.locator("#log tbody tr").first.inner_text()
        assert server.app.test_client().get("/api/state").json["totals"] == {"Ann": 5, "Bob": 4}
    finally:
        server.stop()


def test_illegal_placement_shows_its_alert(tmp_path: Path, page: Any) -> None:
    server = serve(tmp_path)
    try:
        server.api("/api/new", {"players": ["Ann", "Bob"]})
        server.api("/api/place", {"placement": "6:RRY5"})
        page.goto(server.url + "/")
        assert page.locator("#alert").is_hidden()
        page.locator('svg#board g.cell[data-index="5"]').click()
        page.locator("#entry-others-box summary").click()
        page.locator('#entry-others .choice[data-placement="5:YPP5"]').click()
        page.locator("#alert").wait_for(state="visible")
        reason = page.locator("#alert-reason").inner_text()
        assert reason == "the right edge of cell 5 is purple but cell 6's left edge is red"
        assert "Bob put PPY5 on cell 5" in page.locator("#alert-tile").inner_text()
        shot(page, "illegal-alert.png")
        page.locator("#btn-takeback").click()
        page.locator("#alert").wait_for(state="hidden")
        assert totals_on(page) == {"Ann": 5, "Bob": 0}
        assert server.app.test_client().get("/api/state").json["log"][-1]["text"] == (
            "place 6 RRY5"
        )
    finally:
        server.stop()


def test_history_page(tmp_path: Path, page: Any) -> None:
    _, record = sample()
    server = serve(tmp_path)
    try:
        server.api("/api/import", record.to_json())
        server.api("/api/new", {"players": ["Ann", "Bob", "Cid", "Dan"], "teams": True})
        server.api("/api/place", {"placement": "6:RRY5"})
        page.goto(server.url + "/history")
        rows = page.locator("#history tbody tr")
        assert rows.count() == 2
        assert "import" in rows.nth(1).inner_text()
        shot(page, "history.png")
        page.locator("#game-1 a").first.click()
        page.locator("#winners").wait_for(state="visible")
        assert totals_on(page) == score_record(record).totals
    finally:
        server.stop()
