"""Fixtures of the web app tests: an app on a fresh SQLite file, its client, a CSRF token."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webui import create_app, shutdown

REMOTE = {"REMOTE_ADDR": "192.168.1.23"}


def make_app(db: Path, **config: Any) -> Flask:
    return create_app({"DATABASE": str(db), "TESTING": True, "SECRET_KEY": "test", **config})


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def app(db_path: Path) -> Iterator[Flask]:
    app = make_app(db_path)
    yield app
    shutdown(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def token(client: FlaskClient) -> str:
    token: str = client.get("/api/session").json["csrf_token"]  # type: ignore[index]
    return token


class Api:
    """JSON calls with the CSRF header, failing loudly on an unexpected status."""

    def __init__(self, client: FlaskClient, token: str) -> None:
        self.client = client
        self.token = token

    def post(self, path: str, data: Any = None, status: int = 200) -> Any:
        response = self.client.post(
            path, json=data if data is not None else {}, headers={"X-CSRF-Token": self.token}
        )
        assert response.status_code == status, response.get_data(as_text=True)
        return response.json

    def act(self, name: str, data: Any = None, status: int = 200) -> Any:
        return self.post(f"/api/{name}", data, status)

    def state(self) -> Any:
        return self.client.get("/api/state").json

    def form(self, path: str, data: dict[str, Any] | None = None, status: int = 302) -> Any:
        fields = {"csrf_token": self.token, **(data or {})}
        response = self.client.post(path, data=fields)
        assert response.status_code == status, response.get_data(as_text=True)
        return response


@pytest.fixture
def api(client: FlaskClient, token: str) -> Api:
    return Api(client, token)


@pytest.fixture
def started(api: Api) -> Api:
    """A game of Ann and Bob, Ann to play."""
    api.act("new", {"players": ["Ann", "Bob"]})
    return api
