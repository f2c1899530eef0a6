"""The game at the table: one live :class:`engine.game.Game`, stored event by event.

:class:`Table` is the service behind every page and API call. Each change is applied to
the game, committed to the :class:`~webui.store.Store`, and only then announced to the
pages (server-sent events). :meth:`Table.observe` is the seam for the camera tracker: it
takes tracker events in their fixed JSON shape.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import SPECTRANGLE36, Placement, Tile
from engine.colours import EDGE_ORDER
from engine.errors import GameError, SpectrangleError
from engine.game import (
    Draw,
    Event,
    Exchange,
    Finish,
    Game,
    Outcome,
    Pass,
    Place,
    event_from_json,
    event_to_json,
)
from engine.record import GameRecord, record_from_game, score_record
from engine.rules import check_placement, rotations
from engine.solo import SoloGame, SoloReport
from engine.variant import Variant, load_variant
from webui.broadcast import Broadcaster
from webui.errors import InputError, StoreError
from webui.store import GameMeta, Store

log = logging.getLogger(__name__)

CAMERA_STATUSES = ("tracking", "board lost", "covered", "moved", "source ended", "camera error")
#: Peg colours of the score track (players or teams), distinct from the tile colours.
PEG_COLOURS = ("#ff8c1a", "#19d3e6", "#ff4fd8", "#9be52e")


@dataclass
class Camera:
    """What the camera panel shows."""

    mode: str = "none"  # none | demo | camera
    status: str = "no camera"
    frame: str | None = None
    message: str = ""
    view: str | None = None  # URL of the live camera view (the lattice drawn over the frame)


def replay(meta: GameMeta, events: Sequence[tuple[int, Mapping[str, Any]]]) -> Game:
    """Rebuild a stored game by replaying its events; StoreError names a bad row."""
    try:
        variant = load_variant(meta.variant)
        hands = None
        if meta.hands is not None:
            hands = [[Tile.from_notation(t) for t in h] for h in meta.hands]
        game = Game(meta.players, variant, teams=meta.teams, first=meta.first, hands=hands)
    except SpectrangleError as exc:
        raise StoreError(f"game {meta.id}: cannot be set up again: {exc}") from None
    for seq, data in events:
        try:
            game.apply(event_from_json(data))
        except SpectrangleError as exc:
            raise StoreError(f"game {meta.id}, event {seq}: {exc}") from None
    return game


def solo_report(game: Game, started: float, now: float) -> SoloReport:
    """The engine's solo report for a one-player game, timed from ``started`` to ``now``."""
    times = iter((started,))
    solo = SoloGame(game.variant, clock=lambda: next(times, now))
    for outcome in game.history:
        if isinstance(outcome.event, Place) and outcome.legal:
            solo.place(outcome.event.placement)
    return solo.report()


class Table:
    """The current game and everything the score page shows about it."""

    def __init__(
        self,
        store: Store,
        hub: Broadcaster | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.hub = hub or Broadcaster()
        self.clock = clock
        self.lock = threading.RLock()
        self.meta: GameMeta | None = None
        self.game: Game | None = None
        self.camera = Camera()
        self.uncertain: dict[str, Any] | None = None
        self.notice = ""
        self.load_error = ""
        self.version = 0
        #: Told the placement the players picked for an uncertain reading (the live tracker).
        self.on_pick: Callable[[Placement], None] | None = None

    # -- loading -------------------------------------------------------------------------

    def load(self, game_id: int) -> None:
        """Make a stored game the current one (replaying its events)."""
        with self.lock:
            meta = self.store.game(game_id)
            game = replay(meta, self.store.events(game_id))
            self.meta, self.game = meta, game
            self.uncertain = None
            self.load_error = ""
            self.notice = ""
            log.info("game %d loaded with %d events", game_id, len(game.history))
            self._publish()

    def resume_latest(self, exclude_source: str | None = "demo") -> int | None:
        """Load the newest unfinished game; a damaged one is reported, not fatal."""
        game_id = self.store.latest_active(exclude_source)
        if game_id is None:
            return None
        try:
            self.load(game_id)
        except StoreError as exc:
            log.error("cannot resume game %d: %s", game_id, exc)
            self.load_error = str(exc)
            return None
        return game_id

    @property
    def game_id(self) -> int | None:
        return None if self.meta is None else self.meta.id

    def _require(self) -> tuple[GameMeta, Game]:
        if self.meta is None or self.game is None:
            raise GameError("no game in progress: start a new game first")
        return self.meta, self.game

    # -- starting games ------------------------------------------------------------------

    def new_game(
        self,
        players: Sequence[str],
        teams: bool | Sequence[Sequence[str]] = False,
        first: int | None = 0,
        hands: Sequence[Sequence[Tile]] | None = None,
        mode: str = "normal",
        source: str = "manual",
        variant: Variant = SPECTRANGLE36,
    ) -> int:
        names = tuple(p.strip() for p in players)
        if mode == "solo":
            if len(names) != 1:
                raise GameError("the solo variant is for one player")
            teams = False
        elif not 2 <= len(names) <= variant.max_players:
            raise GameError(f"a game has 2 to {variant.max_players} players, not {len(names)}")
        team_list: tuple[tuple[str, ...], ...] | None = None
        if isinstance(teams, Sequence):
            team_list = tuple(tuple(t) for t in teams)
        elif teams:
            if len(names) != 4:
                raise GameError("teams are two teams of two: give four names")
            team_list = ((names[0], names[2]), (names[1], names[3]))
        # Let the engine check names, teams, first player and hands before storing anything.
        Game(names, variant, teams=team_list, first=first, hands=hands)
        meta = GameMeta(
            players=names,
            teams=team_list,
            variant=variant.name,
            mode=mode,
            source=source,
            first=first,
            hands=None if hands is None else tuple(tuple(map(str, h)) for h in hands),
            started=self.clock(),
        )
        with self.lock:
            game_id = self.store.create_game(meta)
            self.camera.frame = None
            self.load(game_id)
        return game_id

    def import_record(self, text: str) -> int:
        """Store a JSON game record as a new (finished or unfinished) game."""
        record = GameRecord.loads(text)
        game = score_record(record).game
        meta = GameMeta(
            players=record.players,
            teams=record.teams,
            variant=record.variant,
            first=None,
            source="import",
            started=self.clock(),
        )
        game_id = self.store.create_game(meta)
        self.store.append_events(game_id, [event_to_json(o.event) for o in game.history], {})
        self.store.set_totals(game_id, game.totals())
        if game.is_over():
            self.store.set_status(game_id, "finished", self.clock())
        return game_id

    # -- changing the current game ---------------------------------------------------------

    def _record(self, act: Callable[[Game], Outcome]) -> Outcome:
        """Apply one event, commit it, then tell the pages."""
        with self.lock:
            meta, game = self._require()
            outcome = act(game)
            self.notice = ""
            try:
                self.store.append_event(meta.id, event_to_json(outcome.event), game.totals())
            except Exception:
                game.undo()
                raise
            self._after_change(meta, game)
            return outcome

    def _after_change(self, meta: GameMeta, game: Game) -> None:
        if meta.mode == "solo" and not game.is_over():
            report = solo_report(game, meta.started, self.clock())
            if report.completed or report.stuck:
                outcome = game.finish({meta.players[0]: []})
                self.store.append_event(meta.id, event_to_json(outcome.event), game.totals())
        if game.is_over() and meta.status != "finished":
            ended = self.clock()
            self.store.set_status(meta.id, "finished", ended)
            self.meta = replace(meta, status="finished", ended=ended)
        elif not game.is_over() and meta.status == "finished":
            self.store.set_status(meta.id, "active", None)
            self.meta = replace(meta, status="active", ended=None)
        self._publish()

    def place(self, placement: Placement, player: int | str | None = None) -> Outcome:
        self.uncertain = None
        return self._record(lambda g: g.place(placement, player))

    def pass_turn(self) -> Outcome:
        return self._record(lambda g: g.pass_turn())

    def exchange(self, returned: Tile | None = None, drawn: Tile | None = None) -> Outcome:
        return self._record(lambda g: g.exchange(None, returned, drawn))

    def draw(self, player: int | str, tile: Tile) -> Outcome:
        return self._record(lambda g: g.draw(player, tile))

    def finish(self, remaining: Mapping[str, Sequence[int]] | None = None) -> Outcome:
        with self.lock:
            _, game = self._require()
            if game.is_over():
                raise GameError("the game is already over (undo the end to change it)")
            return self._record(lambda g: g.finish(remaining))

    def undo(self) -> Outcome:
        """Drop the last event (legal or not)."""
        with self.lock:
            meta, game = self._require()
            outcome = game.undo()
            try:
                self.store.delete_last_event(meta.id, game.totals())
            except Exception:
                game.apply(outcome.event)
                raise
            self.meta = replace(meta, status="active", ended=None)
            self.notice = f"undone: {describe(outcome.event, game)}"
            self._publish()
            return outcome

    def take_back(self) -> Outcome:
        """The illegal tile was taken back from the board: remove its event."""
        with self.lock:
            self._require()
            if self.alert() is None:
                raise GameError("there is no illegal tile to take back")
            outcome = self.undo()
            self.notice = f"{outcome.player} took back the illegal tile"
            self._publish()
            return outcome

    def fix(self, position: int, placement: Placement) -> tuple[Outcome, ...]:
        """Correct a misread tile: replace placement number ``position`` (0-based)."""
        with self.lock:
            meta, game = self._require()
            history = game.history
            if not history:
                raise GameError("there are no moves to fix yet")
            if not 0 <= position < len(history):
                raise GameError(f"there is no move {position + 1} to fix (1..{len(history)})")
            old = history[position].event
            if not isinstance(old, Place):
                raise GameError(f"move {position + 1} is not a placement: nothing to fix")
            try:
                outcomes = game.correct(position, Place(old.player, placement))
            except SpectrangleError:
                self.load(meta.id)  # the engine stopped half-way: start again from the store
                raise
            self.store.replace_event(
                meta.id, position, event_to_json(outcomes[0].event), game.totals()
            )
            self.notice = f"move {position + 1} fixed: {old.placement} -> {placement}"
            self._after_change(meta, game)
            return outcomes

    # -- the tracker's seam ----------------------------------------------------------------

    def observe(self, event: Mapping[str, Any]) -> Outcome | None:
        """Apply one tracker event (see the README section of the web page).

        ``placement`` ({index, value, edges, player?}), ``removal`` ({index}), ``uncertain``
        ({index, candidates: [{index, value, edges}, ...]}), ``status`` ({status, message?}); the
        demo also sends ``pass``, ``exchange`` ({player?}) and ``finish`` ({remaining}).
        Extra members (frame, legal, score, points) are accepted; the engine decides.
        """
        if not isinstance(event, Mapping):
            raise InputError(f"a tracker event is a JSON object, not {type(event).__name__}")
        kind = event.get("type")
        with self.lock:
            if isinstance(event.get("frame"), str):
                self.camera.frame = event["frame"]
            if kind == "status":
                status = event.get("status")
                if status not in CAMERA_STATUSES:
                    raise InputError(
                        f"camera status {status!r} is not one of {', '.join(CAMERA_STATUSES)}",
                        "status",
                    )
                self.camera.status = str(status)
                message = event.get("message")
                if isinstance(message, str):
                    self.camera.message = message[:300]
                self._publish()
                return None
            if kind == "placement":
                placement = _placement_from_event(event)
                player = self._player_arg(event.get("player"))
                return self._observed_placement(placement, player)
            if kind == "removal":
                index = _int_field(event, "index")
                return self._observed_removal(index)
            if kind == "uncertain":
                self._observed_uncertain(event)
                return None
            if kind in ("pass", "exchange"):
                player = self._player_arg(event.get("player"))
                if player is not None:
                    self._infer_passes(player)
                if kind == "pass":
                    return self.pass_turn()
                return self.exchange()
            if kind == "finish":
                raw = event.get("remaining", {})
                return self.finish(_remaining_values(raw))
            raise InputError(
                f"unknown tracker event type {kind!r} (placement, removal, uncertain, status)",
                "type",
            )

    def _player_arg(self, raw: Any) -> int | None:
        if raw is None:
            return None
        _, game = self._require()
        if isinstance(raw, str):
            if raw not in game.players:
                raise InputError(f"no player {raw!r} in this game", "player")
            return game.players.index(raw)
        if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < len(game.players):
            return raw
        raise InputError(f"player must be a name or an index, not {raw!r}", "player")

    def _infer_passes(self, player: int) -> None:
        """The camera only sees tiles: a player skipped over has passed."""
        meta, game = self._require()
        if not game.history and game.state.turn not in (None, player):
            # Nothing played yet: whoever the camera saw first is the starting player.
            self.store.set_first(meta.id, player)
            self.load(meta.id)
            return
        for _ in range(len(game.players)):
            turn = game.state.turn
            if turn is None or turn == player or game.is_over():
                return
            outcome = self._record(lambda g: g.pass_turn())
            if not outcome.legal:
                return

    def _observed_placement(self, placement: Placement, player: int | None) -> Outcome:
        _, game = self._require()
        if player is not None:
            self._infer_passes(player)
        elif game.state.turn is None:
            player = 0
        return self.place(placement, player)

    def _observed_removal(self, index: int) -> Outcome | None:
        _, game = self._require()
        history = game.history
        last = history[-1] if history else None
        if (
            last is not None
            and isinstance(last.event, Place)
            and last.event.placement.index == index
        ):
            return self.undo() if last.legal else self.take_back()
        self.notice = f"the camera saw a tile leave cell {index}, which was not the last move"
        log.warning(self.notice)
        self._publish()
        return None

    def _observed_uncertain(self, event: Mapping[str, Any]) -> None:
        _, game = self._require()
        raw = event.get("candidates")
        if not isinstance(raw, list) or not raw:
            raise InputError("an uncertain event lists its candidates", "candidates")
        candidates = []
        for i, cand in enumerate(raw):
            if not isinstance(cand, Mapping):
                raise InputError(f"candidate {i} is not an object", "candidates")
            p = _placement_from_event({"index": event.get("index"), **cand})
            verdict = check_placement(game.board, p, game.variant)
            candidates.append(
                {
                    "placement": p.notation(),
                    "tile": str(p.tile),
                    "index": p.index,
                    "edges": {e.value: p.colour(e).value for e in EDGE_ORDER},
                    "value": p.value,
                    "legal": verdict.legal,
                    "points": verdict.points,
                    "reason": verdict.reason,
                }
            )
        player = self._player_arg(event.get("player"))
        self.uncertain = {
            "index": candidates[0]["index"],
            "candidates": candidates,
            "player": player,
        }
        self._publish()

    def pick(self, choice: int) -> Outcome:
        """The players chose candidate ``choice`` of an uncertain reading."""
        with self.lock:
            if self.uncertain is None:
                raise GameError("there is no uncertain reading to choose for")
            candidates = self.uncertain["candidates"]
            if not 0 <= choice < len(candidates):
                raise InputError(f"choose a candidate 0..{len(candidates) - 1}", "choice")
            placement = Placement.from_notation(candidates[choice]["placement"])
            player = self.uncertain["player"]
            self.uncertain = None
            outcome = self._observed_placement(placement, player)
            if self.on_pick is not None:
                try:
                    self.on_pick(placement)
                except Exception:  # the tracker's memory is a helper; the table decides
                    log.exception("the tracker could not take the pick %s", placement)
            return outcome

    def dismiss_uncertain(self) -> None:
        with self.lock:
            self.uncertain = None
            self._publish()

    # -- reading ---------------------------------------------------------------------------

    def alert(self) -> dict[str, Any] | None:
        """The illegal placement to show full screen (the last event, until taken back)."""
        if self.game is None or not self.game.history:
            return None
        last = self.game.history[-1]
        if last.legal or not isinstance(last.event, Place):
            return None
        return {
            "reason": last.reason,
            "player": last.player,
            "placement": last.event.placement.notation(),
            "index": last.event.placement.index,
            "tile": str(last.event.placement.tile),
        }

    def options(self, index: int) -> list[dict[str, Any]]:
        """The tiles and rotations a player may put on cell ``index``, legal ones first."""
        with self.lock:
            _, game = self._require()
            variant = game.variant
            if not 0 <= index < len(variant.geometry):
                raise InputError(
                    f"there is no cell {index} (0..{len(variant.geometry) - 1})", "index"
                )
            if game.board[index] is not None:
                raise GameError(f"cell {index} already holds {game.board[index]}")
            turn = game.state.turn
            hand = game.hand(turn) if turn is not None else None
            pool = sorted(hand) if hand is not None else sorted(variant.all_tiles)
            on_board = game.board.tiles
            out = []
            for tile in pool:
                if tile in on_board:
                    continue
                for r, p in enumerate(rotations(variant.set_tile(tile), index, variant.geometry)):
                    verdict = check_placement(game.board, p, variant, hand)
                    out.append(
                        {
                            "placement": p.notation(),
                            "tile": str(tile),
                            "rotation": r,
                            "edges": {e.value: p.colour(e).value for e in EDGE_ORDER},
                            "value": p.value,
                            "legal": verdict.legal,
                            "points": verdict.points,
                            "reason": verdict.reason,
                        }
                    )
            out.sort(key=lambda o: (not o["legal"], -o["points"]))
            return out

    def state(self) -> dict[str, Any]:
        with self.lock:
            state = build_state(self.meta, self.game, self.clock())
            state.update(
                version=self.version,
                live=True,
                alert=self.alert(),
                uncertain=self.uncertain,
                camera={
                    "mode": self.camera.mode,
                    "status": self.camera.status,
                    "frame": self.camera.frame,
                    "message": self.camera.message,
                    "view": self.camera.view,
                },
                notice=self.notice,
                load_error=self.load_error,
            )
            return state

    def _publish(self) -> None:
        self.version += 1
        self.hub.publish("state", json.dumps(self.state()))

    def set_camera(self, **changes: Any) -> None:
        with self.lock:
            for key, value in changes.items():
                setattr(self.camera, key, value)
            self._publish()

    # -- stored games ----------------------------------------------------------------------

    def stored(self, game_id: int) -> tuple[GameMeta, Game]:
        meta = self.store.game(game_id)
        return meta, replay(meta, self.store.events(game_id))

    def export_record(self, game_id: int) -> str:
        _, game = self.stored(game_id)
        return json.dumps(record_from_game(game).to_json(), indent=2) + "\n"

    def export_csv(self, game_id: int) -> str:
        meta, game = self.stored(game_id)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            [
                "move",
                "player",
                "type",
                "cell",
                "left",
                "right",
                "base",
                "value",
                "legal",
                "points",
                "arithmetic",
                "reason",
                "total",
            ]
        )
        running = dict.fromkeys(game.players, 0)
        for n, outcome in enumerate(game.history, start=1):
            event = outcome.event
            row: list[Any] = [n, outcome.player or "", _kind(event)]
            if isinstance(event, Place):
                p = event.placement
                row += [p.index, p.left.value, p.right.value, p.base.value, p.value]
            else:
                row += ["", "", "", "", ""]
            if outcome.player is not None:
                running[outcome.player] += outcome.points
            arithmetic = outcome.score.arithmetic() if outcome.score is not None else ""
            total: Any = running[outcome.player] if outcome.player is not None else ""
            if isinstance(event, Finish):
                arithmetic = "; ".join(
                    f"{name} -{sum(vals)}"
                    for name, vals in zip(game.players, event.remaining, strict=True)
                )
            row += [outcome.legal, outcome.points, arithmetic, outcome.reason, total]
            writer.writerow(row)
        for name, total in game.totals().items():
            writer.writerow(["total", name, "", "", "", "", "", "", "", "", "", "", total])
        del meta
        return out.getvalue()


# -- the state snapshot (shared by the live page, its stream and the history pages) ------------


def _kind(event: Event) -> str:
    return {Place: "place", Pass: "pass", Exchange: "exchange", Draw: "draw", Finish: "finish"}[
        type(event)
    ]


def describe(event: Event, game: Game) -> str:
    if isinstance(event, Place):
        return f"place {event.placement.index} {event.placement.field()}"
    if isinstance(event, Exchange):
        if event.returned is not None:
            return f"exchange {event.returned} for {event.drawn}"
        return "exchange"
    if isinstance(event, Draw):
        return f"draws {event.tile}"
    if isinstance(event, Finish):
        parts = [f"{name} -{sum(v)}" for name, v in zip(game.players, event.remaining, strict=True)]
        return "end of game: " + ", ".join(parts)
    return "pass"


def build_state(meta: GameMeta | None, game: Game | None, now: float) -> dict[str, Any]:
    """Everything the page draws, as JSON-ready data."""
    if meta is None or game is None:
        return {"game": None}
    board = [
        None
        if p is None
        else {
            "index": p.index,
            "notation": p.notation(),
            "tile": str(p.tile),
            "value": p.value,
            "edges": {e.value: p.colour(e).value for e in EDGE_ORDER},
        }
        for p in game.board.cells
    ]
    log_rows = []
    last_index = None
    for n, outcome in enumerate(game.history):
        event = outcome.event
        if isinstance(event, Place) and outcome.legal:
            last_index = event.placement.index
        log_rows.append(
            {
                "n": n + 1,
                "position": n,
                "player": outcome.player,
                "kind": _kind(event),
                "text": describe(event, game),
                "legal": outcome.legal,
                "points": outcome.points,
                "arithmetic": outcome.score.arithmetic() if outcome.score is not None else "",
                "reason": outcome.reason,
            }
        )
    hands = None
    if game.hands_known:
        hands = {name: [str(t) for t in game.hand(name) or ()] for name in game.players}
    state: dict[str, Any] = {
        "game": {
            "id": meta.id,
            "players": list(game.players),
            "teams": None if meta.teams is None else [list(t) for t in meta.teams],
            "mode": meta.mode,
            "source": meta.source,
            "status": meta.status,
            "created": meta.created,
            "variant": meta.variant,
        },
        "board": board,
        "last": last_index,
        "totals": game.totals(),
        "team_totals": game.team_totals(),
        "deductions": dict(zip(game.players, game.state.deductions, strict=True)),
        "track": track(game),
        "turn": None if game.is_over() else game.current_player,
        "bag": game.bag_size,
        "hands": hands,
        "log": log_rows,
        "finished": game.is_over(),
        "winners": game.winners() if game.history else [],
        "solo": None,
        "server_time": now,
    }
    if meta.mode == "solo":
        end = meta.ended if meta.ended is not None else now
        report = solo_report(game, meta.started, end)
        state["solo"] = {
            "limit": report.time_limit,
            "elapsed": round(report.elapsed, 1),
            "placed": report.placed,
            "cells": report.cells,
            "completed": report.completed,
            "stuck": report.stuck,
            "within_limit": report.within_limit,
            "running": meta.ended is None and not game.is_over(),
        }
    return state


def track(game: Game) -> list[dict[str, Any]]:
    """The pegs of the score track: per player (or team) the front and rear peg.

    Pegs leap-frog: when a side scores, its rear peg jumps to the new total, so the
    front peg is the total and the rear peg the total before the last scoring move.
    """
    if game.teams is not None:
        sides = [(" & ".join(game.players[i] for i in team), tuple(team)) for team in game.teams]
    else:
        sides = [(name, (i,)) for i, name in enumerate(game.players)]
    side_of = {i: s for s, (_, members) in enumerate(sides) for i in members}
    front = [0] * len(sides)
    rear = [0] * len(sides)
    for outcome in game.history:
        event = outcome.event
        if isinstance(event, Finish):
            for s, (_, members) in enumerate(sides):
                deduction = sum(sum(event.remaining[i]) for i in members)
                if deduction:
                    rear[s], front[s] = front[s], front[s] - deduction
            continue
        if outcome.points and not isinstance(event, Draw):
            s = side_of[event.player]
            rear[s], front[s] = front[s], front[s] + outcome.points
    return [
        {
            "label": label,
            "colour": PEG_COLOURS[s % len(PEG_COLOURS)],
            "front": front[s],
            "rear": rear[s],
            "lap": max(0, (front[s] - 1) // 100),
        }
        for s, (label, _) in enumerate(sides)
    ]


# -- parsing tracker events ---------------------------------------------------------------------


def _int_field(data: Mapping[str, Any], name: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{name} must be a whole number, not {value!r}", name)
    return value


def _placement_from_event(data: Mapping[str, Any]) -> Placement:
    index = _int_field(data, "index")
    value = _int_field(data, "value")
    edges = data.get("edges")
    if not isinstance(edges, Mapping):
        raise InputError(f"edges must be an object with left, right and base, not {edges!r}")
    extra = set(edges) - {e.value for e in EDGE_ORDER}
    if extra:
        raise InputError(f"unknown edges {sorted(extra)} (left, right, base)", "edges")
    return Placement.from_edges(index, edges, value)


def _remaining_values(raw: Any) -> dict[str, list[int]]:
    """``{"Ann": [5, 3]}``; tile notations (``"RRY5"``) are read as their values."""
    if not isinstance(raw, Mapping):
        raise InputError(f"remaining must be an object of name -> values, not {raw!r}")
    out: dict[str, list[int]] = {}
    for name, values in raw.items():
        if not isinstance(values, list):
            raise InputError(f"remaining {name}: a list of values, not {values!r}", "remaining")
        row = []
        for v in values:
            if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                row.append(v)
            elif isinstance(v, str):
                row.append(Tile.from_notation(v).value)
            else:
                raise InputError(f"remaining {name}: {v!r} is not a tile value", "remaining")
        out[str(name)] = row
    return out
