"""SQLite storage of games and their events (one table of games, one of events).

Every event is committed as it happens, so killing the server at any moment loses
nothing; a game is rebuilt by replaying its events through :class:`engine.game.Game`.
A damaged row raises :class:`~webui.errors.StoreError` naming the game and the event;
the other games stay readable.

>>> store = Store(":memory:")
>>> gid = store.create_game(GameMeta(players=("Ann", "Bob")))
>>> store.append_event(gid, {"type": "pass", "player": 0}, {"Ann": 0, "Bob": 0})
0
>>> [e for _, e in store.events(gid)]
[{'type': 'pass', 'player': 0}]
>>> store.close()
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from webui.errors import NotFoundError, StoreError

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    created  TEXT    NOT NULL,
    started  REAL    NOT NULL,
    ended    REAL,
    players  TEXT    NOT NULL,
    teams    TEXT,
    variant  TEXT    NOT NULL DEFAULT 'spectrangle36',
    mode     TEXT    NOT NULL DEFAULT 'normal' CHECK (mode IN ('normal', 'solo')),
    source   TEXT    NOT NULL DEFAULT 'manual',
    status   TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
    first    INTEGER,
    hands    TEXT,
    totals   TEXT
);
CREATE TABLE IF NOT EXISTS events (
    game_id  INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    event    TEXT    NOT NULL,
    created  TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS meta (
    key      TEXT PRIMARY KEY,
    value    TEXT NOT NULL
);
"""

MODES = ("normal", "solo")
STATUSES = ("active", "finished")


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class GameMeta:
    """A stored game's row (everything but its events)."""

    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] | None = None
    variant: str = "spectrangle36"
    mode: str = "normal"
    source: str = "manual"
    first: int | None = 0
    hands: tuple[tuple[str, ...], ...] | None = None  # tile notations per player
    id: int = 0
    created: str = ""
    started: float = 0.0
    ended: float | None = None
    status: str = "active"
    totals: dict[str, int] = field(default_factory=dict)


class Store:
    """One SQLite file (WAL mode); every method is safe to call from any thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the database {self.path}: {exc}") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise StoreError(f"{self.path} is not a usable games database: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # -- meta ----------------------------------------------------------------------------

    def meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- games ---------------------------------------------------------------------------

    def create_game(self, meta: GameMeta) -> int:
        teams = None if meta.teams is None else json.dumps([list(t) for t in meta.teams])
        hands = None if meta.hands is None else json.dumps([list(h) for h in meta.hands])
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO games (created, started, players, teams, variant, mode, source,"
                " status, first, hands, totals) VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)",
                (
                    _now_iso(),
                    meta.started or time.time(),
                    json.dumps(list(meta.players)),
                    teams,
                    meta.variant,
                    meta.mode,
                    meta.source,
                    meta.first,
                    hands,
                    json.dumps(dict.fromkeys(meta.players, 0)),
                ),
            )
            game_id = cur.lastrowid
        assert game_id is not None
        log.info("created game %d (%s)", game_id, ", ".join(meta.players))
        return int(game_id)

    def game(self, game_id: int) -> GameMeta:
        with self._lock:
            row = self._db.execute(
                "SELECT id, created, started, ended, players, teams, variant, mode, source,"
                " status, first, hands, totals FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
        if row is None:
            raise NotFoundError(f"there is no game {game_id}")
        return _meta_from_row(row)

    def games(self) -> list[GameMeta | StoreError]:
        """Every game, newest first; a damaged row is returned as its error."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, created, started, ended, players, teams, variant, mode, source,"
                " status, first, hands, totals FROM games ORDER BY id DESC"
            ).fetchall()
        out: list[GameMeta | StoreError] = []
        for row in rows:
            try:
                out.append(_meta_from_row(row))
            except StoreError as exc:
                out.append(exc)
        return out

    def latest_active(self, exclude_source: str | None = None) -> int | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM games WHERE status = 'active' AND source IS NOT ?"
                " ORDER BY id DESC LIMIT 1",
                (exclude_source,),
            ).fetchone()
        return None if row is None else int(row[0])

    def set_status(self, game_id: int, status: str, ended: float | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        with self._transaction() as db:
            db.execute(
                "UPDATE games SET status = ?, ended = ? WHERE id = ?", (status, ended, game_id)
            )

    def delete_game(self, game_id: int) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM events WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))

    def delete_unfinished(self, source: str) -> int:
        """Delete the unfinished games of one source (used for demo playbacks)."""
        with self._transaction() as db:
            ids = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM games WHERE source = ? AND status = 'active'", (source,)
                )
            ]
            for gid in ids:
                db.execute("DELETE FROM events WHERE game_id = ?", (gid,))
                db.execute("DELETE FROM games WHERE id = ?", (gid,))
        return len(ids)

    # -- events --------------------------------------------------------------------------

    def events(self, game_id: int) -> list[tuple[int, dict[str, Any]]]:
        """``(seq, event)`` in order; a row that is not a JSON object raises StoreError."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        out = []
        for seq, text in rows:
            try:
                data = json.loads(text)
            except (TypeError, json.JSONDecodeError) as exc:
                raise StoreError(f"game {game_id}, event {seq}: not JSON ({exc})") from None
            if not isinstance(data, dict):
                raise StoreError(f"game {game_id}, event {seq}: not a JSON object: {text!r}")
            out.append((int(seq), data))
        return out

    def append_event(self, game_id: int, event: dict[str, Any], totals: dict[str, int]) -> int:
        """Store an event (committed before returning) and the game's new totals."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()
            seq = int(row[0])
            db.execute(
                "INSERT INTO events (game_id, seq, event, created) VALUES (?, ?, ?, ?)",
                (game_id, seq, json.dumps(event), _now_iso()),
            )
            db.execute("UPDATE games SET totals = ? WHERE id = ?", (json.dumps(totals), game_id))
        return seq

    def append_events(
        self, game_id: int, events: Sequence[dict[str, Any]], totals: dict[str, int]
    ) -> None:
        """Store several events in one transaction (an import)."""
        with self._transaction() as db:
            for seq, event in enumerate(events):
                db.execute(
                    "INSERT INTO events (game_id, seq, event, created) VALUES (?, ?, ?, ?)",
                    (game_id, seq, json.dumps(event), _now_iso()),
                )
            db.execute("UPDATE games SET totals = ? WHERE id = ?", (json.dumps(totals), game_id))

    def delete_last_event(self, game_id: int, totals: dict[str, int]) -> None:
        with self._transaction() as db:
            db.execute(
                "DELETE FROM events WHERE game_id = ? AND seq ="
                " (SELECT MAX(seq) FROM events WHERE game_id = ?)",
                (game_id, game_id),
            )
            db.execute(
                "UPDATE games SET totals = ?, status = 'active', ended = NULL WHERE id = ?",
                (json.dumps(totals), game_id),
            )

    def replace_event(
        self, game_id: int, position: int, event: dict[str, Any], totals: dict[str, int]
    ) -> None:
        """Replace the ``position``-th event (0-based, in order) of a game."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT seq FROM events WHERE game_id = ? ORDER BY seq LIMIT 1 OFFSET ?",
                (game_id, position),
            ).fetchone()
            if row is None:
                raise NotFoundError(f"game {game_id} has no event {position}")
            db.execute(
                "UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                (json.dumps(event), game_id, row[0]),
            )
            db.execute("UPDATE games SET totals = ? WHERE id = ?", (json.dumps(totals), game_id))

    def set_first(self, game_id: int, first: int | None) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET first = ? WHERE id = ?", (first, game_id))

    def set_totals(self, game_id: int, totals: dict[str, int]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET totals = ? WHERE id = ?", (json.dumps(totals), game_id))


def _json_field(row_id: int, name: str, text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError) as exc:
        raise StoreError(f"game {row_id}: column {name} is not JSON ({exc})") from None


def _meta_from_row(row: Sequence[Any]) -> GameMeta:
    (gid, created, started, ended, players, teams, variant, mode, source, status, first, hands,
     totals) = row  # fmt: skip
    players_v = _json_field(gid, "players", players)
    if not isinstance(players_v, list) or not all(isinstance(p, str) for p in players_v):
        raise StoreError(f"game {gid}: column players is not a list of names: {players!r}")
    teams_v = _json_field(gid, "teams", teams)
    hands_v = _json_field(gid, "hands", hands)
    totals_v = _json_field(gid, "totals", totals) or {}
    try:
        return GameMeta(
            id=int(gid),
            created=str(created),
            started=float(started),
            ended=None if ended is None else float(ended),
            players=tuple(players_v),
            teams=None if teams_v is None else tuple(tuple(map(str, t)) for t in teams_v),
            variant=str(variant),
            mode=str(mode),
            source=str(source),
            status=str(status),
            first=None if first is None else int(first),
            hands=None if hands_v is None else tuple(tuple(map(str, h)) for h in hands_v),
            totals={str(k): int(v) for k, v in dict(totals_v).items()},
        )
    except (TypeError, ValueError) as exc:
        raise StoreError(f"game {gid}: malformed row: {exc}") from None
