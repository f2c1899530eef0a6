"""Game records (the JSON that ``spectrangle score`` reads) and their scoring.

The record's shape is fixed because other tools read it::

    {"variant": "spectrangle36", "players": ["Ann", "Bob"],
     "teams": [["Ann", "Cid"], ["Bob", "Dan"]],            (optional)
     "moves": [{"player": "Ann", "type": "place", "index": 7,
                "edges": {"left": "red", "right": "red", "base": "yellow"}, "value": 5},
               {"player": "Bob", "type": "pass"}, {"player": "Ann", "type": "exchange"}],
     "remaining": {"Ann": [5, 3], "Bob": [6]}}              (optional)

>>> record = GameRecord.from_json({"variant": "spectrangle36", "players": ["Ann", "Bob"],
...     "moves": [{"player": "Ann", "type": "place", "index": 6, "value": 5,
...                "edges": {"left": "red", "right": "red", "base": "yellow"}},
...               {"player": "Bob", "type": "pass"}],
...     "remaining": {"Bob": [6]}})
>>> result = score_record(record).to_json()
>>> result["moves"]
[{'score': 5, 'legal': True}, {'score': 0, 'legal': True}]
>>> result["totals"]
{'Ann': 5, 'Bob': -6}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.colours import EDGE_ORDER, Colour
from engine.errors import InvalidNotationError, RecordError, VariantError
from engine.game import Exchange, Finish, Game, Outcome, Pass, Place
from engine.rules import Refusal
from engine.tiles import Placement
from engine.variant import load_variant

MOVE_TYPES = ("place", "pass", "exchange")


@dataclass(frozen=True)
class RecordMove:
    """One move of a record; ``placement`` is set for ``type == "place"``."""

    player: str
    type: str
    placement: Placement | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "type": self.type}
        if self.placement is not None:
            out.update(self.placement.to_json())
        return out


@dataclass(frozen=True)
class GameRecord:
    """A parsed and validated game record."""

    variant: str
    players: tuple[str, ...]
    moves: tuple[RecordMove, ...]
    teams: tuple[tuple[str, ...], ...] | None = None
    remaining: Mapping[str, tuple[int, ...]] | None = None

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record file; :class:`RecordError` names what is wrong."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(f"cannot read {path}: {exc}", str(path)) from None
        return cls.loads(text)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(
                f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", text[:80]
            ) from None
        return cls.from_json(data)

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        if not isinstance(data, dict):
            raise RecordError(f"a record is a JSON object, not {_kind(data)}", data)
        variant = data.get("variant", "spectrangle36")
        if not isinstance(variant, str):
            raise RecordError(f"must be a string, not {_kind(variant)}", variant, field="variant")
        try:
            rules = load_variant(variant)
        except VariantError as exc:
            raise RecordError(str(exc), variant, field="variant") from None
        players = data.get("players")
        if not isinstance(players, list) or not players:
            raise RecordError("must be a non-empty list of names", players, field="players")
        for i, name in enumerate(players):
            if not isinstance(name, str) or not name:
                raise RecordError(
                    "a player name is a non-empty string", name, field=f"players[{i}]"
                )
        if len(set(players)) != len(players):
            raise RecordError("player names must be distinct", players, field="players")
        if len(players) > rules.max_players:
            raise RecordError(
                f"{variant} has at most {rules.max_players} players", players, field="players"
            )
        teams = _teams(data.get("teams"), players)
        moves_raw = data.get("moves")
        if not isinstance(moves_raw, list):
            raise RecordError(f"must be a list, not {_kind(moves_raw)}", moves_raw, field="moves")
        moves = tuple(_move(m, n, players) for n, m in enumerate(moves_raw, start=1))
        remaining = _remaining(data.get("remaining"), players)
        return cls(variant, tuple(players), moves, teams, remaining)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": self.variant, "players": list(self.players)}
        if self.teams is not None:
            out["teams"] = [list(t) for t in self.teams]
        out["moves"] = [m.to_json() for m in self.moves]
        if self.remaining is not None:
            out["remaining"] = {k: list(v) for k, v in self.remaining.items()}
        return out


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


def _teams(raw: Any, players: list[str]) -> tuple[tuple[str, ...], ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) < 2:
        raise RecordError("must be a list of at least two teams", raw, field="teams")
    seen: set[str] = set()
    for t, team in enumerate(raw):
        if not isinstance(team, list) or not team:
            raise RecordError("a team is a non-empty list of names", team, field=f"teams[{t}]")
        for name in team:
            if name not in players:
                raise RecordError(f"{name!r} is not a player", name, field=f"teams[{t}]")
            if name in seen:
                raise RecordError(f"{name!r} is in two teams", name, field=f"teams[{t}]")
            seen.add(name)
    return tuple(tuple(team) for team in raw)


def _move(raw: Any, number: int, players: list[str]) -> RecordMove:
    if not isinstance(raw, dict):
        raise RecordError(f"a move is an object, not {_kind(raw)}", raw, move=number)
    player = raw.get("player")
    if player not in players:
        raise RecordError(
            f"{player!r} is not a player ({', '.join(players)})", player, number, "player"
        )
    kind = raw.get("type")
    if kind not in MOVE_TYPES:
        raise RecordError(f"{kind!r} is not one of {', '.join(MOVE_TYPES)}", kind, number, "type")
    if kind != "place":
        return RecordMove(player, kind)
    index = raw.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise RecordError(f"a cell index is a whole number, not {index!r}", index, number, "index")
    value = raw.get("value")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RecordError(f"a tile value is a whole number, not {value!r}", value, number, "value")
    edges = raw.get("edges")
    if not isinstance(edges, dict):
        raise RecordError(f"must be an object, not {_kind(edges)}", edges, number, "edges")
    colours: dict[str, Colour] = {}
    for edge in EDGE_ORDER:
        name = edges.get(edge.value)
        try:
            colours[edge.value] = Colour.parse(name)
        except InvalidNotationError:
            names = " ".join(c.value for c in Colour)
            raise RecordError(
                f"{name!r} is not a colour ({names})", name, number, f"edges.{edge.value}"
            ) from None
    return RecordMove(player, kind, Placement.from_edges(index, colours, value))


def _remaining(raw: Any, players: list[str]) -> dict[str, tuple[int, ...]] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise RecordError(f"must be an object, not {_kind(raw)}", raw, field="remaining")
    out = {}
    for name, values in raw.items():
        if name not in players:
            raise RecordError(f"{name!r} is not a player", name, field="remaining")
        ok = isinstance(values, list) and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values
        )
        if not ok:
            raise RecordError(
                f"a list of tile values, not {values!r}", values, field=f"remaining.{name}"
            )
        out[name] = tuple(values)
    return out


@dataclass(frozen=True)
class RecordResult:
    """The scored record: one outcome per move, then totals."""

    game: Game
    outcomes: tuple[Outcome, ...]

    @property
    def totals(self) -> dict[str, int]:
        return self.game.totals()

    @property
    def team_totals(self) -> dict[str, int] | None:
        return self.game.team_totals()

    def to_json(self) -> dict[str, Any]:
        moves = []
        for outcome in self.outcomes:
            entry: dict[str, Any] = {"score": outcome.points, "legal": outcome.legal}
            if not outcome.legal:
                entry["reason"] = outcome.reason
            moves.append(entry)
        out: dict[str, Any] = {"moves": moves, "totals": self.totals}
        if self.team_totals is not None:
            out["team_totals"] = self.team_totals
        return out


def score_record(record: GameRecord) -> RecordResult:
    """Replay a record through the rules. Illegal moves score 0 and change nothing.

    The player of the first move is taken to have started; afterwards a move out of
    turn is refused. Hands are unknown, so passes and exchanges are accepted.
    """
    game = Game(record.players, load_variant(record.variant), teams=record.teams, first=None)
    outcomes = []
    for move in record.moves:
        player = record.players.index(move.player)
        if move.type == "place":
            assert move.placement is not None
            outcomes.append(game.apply(Place(player, move.placement)))
        elif move.type == "pass":
            outcomes.append(game.apply(Pass(player)))
        else:
            outcomes.append(game.apply(Exchange(player)))
    if record.remaining is not None:
        game.finish(record.remaining)
    return RecordResult(game, tuple(outcomes))


#: Refusals that depend on the hands; a record does not carry hands, so moves refused
#: for these reasons are left out of an exported record (re-scoring could not refuse them).
HAND_REFUSALS = frozenset({Refusal.NOT_IN_HAND, Refusal.MUST_PLAY, Refusal.NOT_IN_BAG})


def record_from_game(game: Game) -> GameRecord:
    """The record of a game: its placements, passes and exchanges and what was left.

    Illegal placements are kept (they score 0 when the record is scored again), except
    those refused for a reason the record cannot show (see :data:`HAND_REFUSALS`).
    """
    moves = []
    remaining = None
    for outcome in game.history:
        event = outcome.event
        if outcome.verdict.refusal in HAND_REFUSALS:
            continue
        if isinstance(event, Place):
            moves.append(RecordMove(game.players[event.player], "place", event.placement))
        elif isinstance(event, Pass):
            moves.append(RecordMove(game.players[event.player], "pass"))
        elif isinstance(event, Exchange):
            moves.append(RecordMove(game.players[event.player], "exchange"))
        elif isinstance(event, Finish):
            remaining = dict(zip(game.players, event.remaining, strict=True))
    if game.is_over() and remaining is None:
        remaining = {}
        for name in game.players:
            hand = game.hand(name)
            remaining[name] = tuple(t.value for t in hand) if hand is not None else ()
    teams = None
    if game.teams is not None:
        teams = tuple(tuple(game.players[i] for i in team) for team in game.teams)
    return GameRecord(game.variant.name, game.players, tuple(moves), teams, remaining)
