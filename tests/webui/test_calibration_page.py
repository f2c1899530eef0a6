"""The calibration page: a frame in, the lattice and verdict out, clicked corners, saving."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.webui.conftest import Api, make_app
from vision.calibration import load_profile
from webui import shutdown

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "sample_images" / "game"
FRAME = GAME / "0120.jpg"


@pytest.fixture
def app(tmp_path: Path) -> Any:
    app = make_app(tmp_path / "games.sqlite3", CALIBRATION_PATH=str(tmp_path / "cal" / "p.json"))
    yield app
    shutdown(app)


def upload(api: Api, path: Path = FRAME, status: int = 200) -> Any:
    data = {"image": (io.BytesIO(path.read_bytes()), path.name)}
    response = api.client.post(
        "/api/calibration/frame",
        data=data,
        headers={"X-CSRF-Token": api.token},
        content_type="multipart/form-data",
    )
    assert response.status_code == status, response.get_data(as_text=True)
    return response.json


def test_page_and_nav_link(client: FlaskClient) -> None:
    page = client.get("/calibrate").get_data(as_text=True)
    assert "Calibrate the camera" in page and "calibrate.js" in page
    assert 'href="/calibrate"' in client.get("/").get_data(as_text=True)
    with client.get("/static/calibrate.js") as script:
        assert script.status_code == 200
    state = client.get("/api/calibration").json
    assert state["has_frame"] is False and state["found"] is False
    assert client.get("/calibrate/view.jpg").status_code == 404


def test_uploaded_frame_is_fitted_judged_and_saved(api: Api, app: Flask) -> None:
    state = upload(api)
    assert state["found"] and state["verdict"]["level"] == "good"
    assert state["verdict"]["words"] == "good" and state["residual_px"] < 2.0
    assert (state["width"], state["height"]) == (960, 540)
    truth = np.array(json.loads((GAME / "0120.json").read_text())["corners"])
    got = np.array(state["corners"])
    assert min(np.abs(np.roll(got, -k, axis=0) - truth).max() for k in range(3)) < 3.0
    image = api.client.get("/calibrate/view.jpg")
    assert image.status_code == 200 and image.mimetype == "image/jpeg"
    saved = api.post("/api/calibration/save")
    path = Path(app.config["CALIBRATION_PATH"])
    assert saved["saved"] == str(path) and load_profile(path).frame_size == (960, 540)


def test_clicked_corners_refit_the_board(api: Api, tmp_path: Path) -> None:
    import cv2

    # A board whose border band is painted over: the locator goes wrong by itself.
    frame = cv2.imread(str(FRAME))
    truth = np.array(json.loads((GAME / "0120.json").read_text())["corners"])
    band = truth.mean(axis=0) + (truth - truth.mean(axis=0)) * 1.2
    cv2.polylines(frame, [band.round().astype(np.int32)], True, (60, 110, 160), 50)
    path = tmp_path / "covered.png"
    cv2.imwrite(str(path), frame)
    auto = upload(api, path)
    if auto["found"] and auto["verdict"]["level"] == "good":  # then it must be off
        off = np.array(auto["corners"])
        assert min(np.abs(np.roll(off, -k, axis=0) - truth).max() for k in range(3)) > 20.0
    clicked = (truth + np.array([[4, -3], [-5, 2], [3, 4]])).tolist()
    state = api.post("/api/calibration/corners", {"corners": clicked})
    assert state["found"] and state["manual"] and state["points"] >= 15
    assert state["verdict"]["level"] == "good" and state["residual_px"] < 1.5
    got = np.array(state["corners"])
    assert min(np.abs(np.roll(got, -k, axis=0) - truth).max() for k in range(3)) < 3.0


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"corners": [[1, 2], [3, 4]]},
        {"corners": "1,2,3,4,5,6"},
        {"corners": [[1, 2], [3, "x"], [5, 6]]},
        {"corners": [[1, 2], [3, 4], [5e9, 6]]},
    ],
)
def test_bad_corners_are_refused(api: Api, body: Any) -> None:
    upload(api)
    answer = api.post("/api/calibration/corners", body, status=400)
    assert "corners" in answer["error"]


def test_bad_uploads_and_requests(api: Api, client: FlaskClient, tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not an image")
    assert "not an image" in upload(api, text, status=400)["error"]
    assert "no camera" in api.post("/api/calibration/frame", {}, status=400)["error"]
    assert "nothing to save" in api.post("/api/calibration/save", status=400)["error"]
    assert (
        "no frame" in api.post("/api/calibration/corners", {"corners": [[0, 0]] * 3}, 400)["error"]
    )
    assert client.post("/api/calibration/save").status_code == 403  # no CSRF token


def test_frame_grabbed_from_the_configured_source(tmp_path: Path) -> None:
    app = make_app(
        tmp_path / "g.sqlite3",
        CALIBRATION_SOURCE=str(FRAME),
        CALIBRATION_PATH=str(tmp_path / "p.json"),
    )
    try:
        client = app.test_client()
        api = Api(client, client.get("/api/session").json["csrf_token"])
        assert (
            "disabled"
            not in client.get("/calibrate").get_data(as_text=True).split('id="grab"')[1][:40]
        )
        state = api.post("/api/calibration/frame", {})
        assert state["found"] and FRAME.name in state["label"]
        gone = make_app(tmp_path / "h.sqlite3", CALIBRATION_SOURCE=str(tmp_path / "nothing"))
        c2 = gone.test_client()
        a2 = Api(c2, c2.get("/api/session").json["csrf_token"])
        assert "nothing" in a2.post("/api/calibration/frame", {}, status=400)["error"]
        shutdown(gone)
    finally:
        shutdown(app)


def test_in_a_browser_upload_then_click_three_corners(tmp_path: Path) -> None:
    """The page's JS: upload a photo, see the verdict, click the corners, fit and save."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.webui.test_browser import ARGS, CHROMIUM, Server

    if not CHROMIUM.exists():  # pragma: no cover
        pytest.skip("Debian's chromium is not installed")
    server = Server(make_app(tmp_path / "g.sqlite3", CALIBRATION_PATH=str(tmp_path / "p.json")))
    truth = np.array(json.loads((GAME / "0120.json").read_text())["corners"])
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(20_000)
            page.goto(server.url + "/calibrate")
            page.set_input_files("#upload", str(FRAME))
            page.wait_for_function("document.getElementById('verdict').textContent === 'good'")
            assert "residual" in page.locator("#residual").inner_text()
            page.wait_for_function(
                "document.getElementById('frame').complete"
                " && document.getElementById('frame').naturalWidth > 0"
            )
            box = page.locator("#frame").bounding_box()
            scale = box["width"] / 960
            for x, y in truth + np.array([[3, -2], [-4, 3], [2, 4]]):
                page.mouse.click(box["x"] + x * scale, box["y"] + y * scale)
            assert page.locator(".calib-mark").count() == 3
            page.click("#fit-corners")
            page.wait_for_function("document.getElementById('residual').textContent.includes('px')")
            page.wait_for_function("!document.getElementById('save').disabled")
            page.click("#save")
            page.wait_for_function(
                "document.getElementById('message').textContent.includes('saved')"
            )
            browser.close()
        assert load_profile(tmp_path / "p.json").fit.points >= 15
    finally:
        server.stop()


def test_live_camera_view_and_recheck(tmp_path: Path) -> None:
    """With a live camera the page shows its latest frame with the lattice, re-checked once
    a frame (no search), and "grab" takes the live frame (the camera is the worker's)."""
    import shutil

    import cv2

    from webui.app import services

    folder = tmp_path / "frames"
    folder.mkdir()
    for n in range(3):
        shutil.copy(GAME / f"{n:04d}.jpg", folder / f"{n:04d}.jpg")
    app = make_app(
        tmp_path / "g.sqlite3", LIVE_SOURCE=str(folder), CALIBRATION_PATH=str(tmp_path / "p.json")
    )
    try:
        client = app.test_client()
        api = Api(client, client.get("/api/session").json["csrf_token"])
        with app.app_context():
            live = services().live
        assert live is not None and live.join(timeout=20)
        page = client.get("/calibrate").get_data(as_text=True)
        assert 'data-live="1"' in page
        assert "disabled" not in page.split('id="grab"')[1][:40]
        state = client.get("/api/calibration").json
        assert state["live_view"] and state["live"]["active"] is False
        info = client.get("/api/calibration/live").json
        assert info["live"] and info["frame"] == "0002.jpg" and info["fit_from"] == "tracker"
        assert info["verdict"]["level"] in ("good", "usable") and info["score"] > 20
        assert client.get("/api/calibration/live").json == info  # the same frame: cached
        image = client.get("/calibrate/live.jpg")
        assert image.status_code == 200 and "no-store" in image.headers["Cache-Control"]
        decoded = cv2.imdecode(np.frombuffer(image.data, np.uint8), cv2.IMREAD_COLOR)
        assert decoded.shape[:2] == (540, 960)
        grabbed = api.post("/api/calibration/frame", {})
        assert grabbed["found"] and "live camera (0002.jpg)" in grabbed["label"]
        info = client.get("/api/calibration/live").json
        assert info["fit_from"] == "page" and info["fresh"] is True
        saved = api.post("/api/calibration/save")
        assert "live tracking uses it now" in saved["message"]
        assert live.calibration.profile is not None
        assert live.calibration.path == tmp_path / "p.json"
    finally:
        shutdown(app)


def test_no_live_camera_no_live_view(client: FlaskClient) -> None:
    assert client.get("/api/calibration/live").json == {"live": False, "frame": None}
    assert client.get("/calibrate/live.jpg").status_code == 404
    assert 'data-live="0"' in client.get("/calibrate").get_data(as_text=True)


def test_a_dragged_lattice_point_with_the_corners(api: Api) -> None:
    """Corners as the fit gives them and one lattice vertex dragged: refitted from them."""
    state = upload(api)
    lattice = state["lattice"]
    assert len(lattice) == 29 and state["board_centre"] == pytest.approx([0, 2 * 3**0.5])
    vertex = lattice[7]
    corners = (np.array(state["corners"]) + np.array([[8, -6], [-7, 5], [6, 8]])).tolist()
    body = {"corners": corners, "points": [{"board": vertex[:2], "image": vertex[2:]}]}
    again = api.post("/api/calibration/corners", body)
    assert again["found"] and again["manual"] and again["residual_px"] < 1.5
    assert np.abs(np.array(again["corners"]) - np.array(state["corners"])).max() < 2.0
    for bad in (
        [{"board": [0.3, 0.7], "image": [400, 300]}],
        [{"board": [0, 1]}],
        [{"board": [0, 1], "image": [1e9, 0]}],
        "x",
    ):
        answer = api.post("/api/calibration/corners", {"corners": corners, "points": bad}, 400)
        assert "points" in answer["error"]


def test_teaching_colours_names_the_missing_ones(api: Api, app: Flask) -> None:
    assert "fit the board first" in api.post("/api/calibration/teach", {}, 400)["error"]
    upload(api, GAME / "0020.jpg")
    few = api.post("/api/calibration/teach", {})
    missing = few["teach"]["missing"]
    assert "purple" in missing and "yellow" not in missing
    assert "still missing" in few["message"] and "purple" in few["message"]
    rows = {c["colour"]: c for c in few["teach"]["colours"]}
    assert rows["purple"]["missing"] and "lay a tile with purple" in rows["purple"]["message"]
    upload(api, GAME / "0216.jpg")  # a new frame starts over
    done = api.post("/api/calibration/teach", {})
    assert done["teach"]["missing"] == [] and "every colour learned" in done["message"]
    api.post("/api/calibration/save")
    saved = load_profile(Path(app.config["CALIBRATION_PATH"]))
    assert all(n >= 3 for n in saved.samples.values())


def test_in_a_browser_live_view_then_drag_a_lattice_point(tmp_path: Path) -> None:
    """The live camera on the page: verdict from the live re-check, then "Adjust the fit",
    drag a lattice point, fit from the points, teach the colours."""
    import shutil

    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.webui.test_browser import ARGS, CHROMIUM, Server

    if not CHROMIUM.exists():  # pragma: no cover
        pytest.skip("Debian's chromium is not installed")
    folder = tmp_path / "frames"
    folder.mkdir()
    for n in (0, 216):
        shutil.copy(GAME / f"{n:04d}.jpg", folder / f"{n:04d}.jpg")
    app = make_app(
        tmp_path / "g.sqlite3", LIVE_SOURCE=str(folder), CALIBRATION_PATH=str(tmp_path / "p.json")
    )
    server = Server(app)
    try:
        live = app.extensions["spectrangle"].live
        assert live is not None and live.join(timeout=20)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(20_000)
            page.goto(server.url + "/calibrate")
            page.wait_for_function(
                "document.getElementById('residual').textContent.includes('lattice score')"
            )
            assert page.locator("#verdict").inner_text() not in ("", "no frame yet")
            page.wait_for_function("!document.getElementById('adjust').disabled")
            page.click("#adjust")
            assert page.locator(".calib-dot").count() == 29
            assert page.locator(".calib-mark").count() == 3
            dot = page.locator(".calib-dot").nth(7).bounding_box()
            x, y = dot["x"] + dot["width"] / 2, dot["y"] + dot["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + 1, y + 1)
            page.mouse.up()
            assert page.locator(".calib-mark.point").count() == 1
            page.click("#fit-corners")
            page.wait_for_function(
                "document.getElementById('message').textContent.includes('verdict')"
            )
            assert "residual" in page.locator("#residual").inner_text()
            page.click("#teach")
            page.wait_for_function("document.getElementById('teach-list').children.length === 6")
            assert "every colour learned" in page.locator("#message").inner_text()
            browser.close()
    finally:
        server.stop()
