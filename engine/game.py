"""Game state: players or teams, turn order, the bag, hands, events, undo and the end.

A :class:`Game` is a list of events over immutable :class:`GameState` snapshots, so
:meth:`Game.undo` simply drops the last event. Illegal moves are recorded too (they
score 0 and change nothing but the log), as the tracker must report them.

>>> game = Game(["Ann", "Bob"])
>>> game.place(Placement.from_notation("6:RRY5")).points
5
>>> outcome = game.place(Placement.from_notation("5:YPP5"))
>>> outcome.legal, outcome.player, game.current_player
(False, 'Bob', 'Bob')
>>> game.place(Placement.from_notation("5:BRR4")).score.arithmetic()
'4 x 1 edge = 4'
>>> game.totals()
{'Ann': 5, 'Bob': 4}
>>> _ = game.undo(); game.totals()
{'Ann': 5, 'Bob': 0}
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from engine.board import Board
from engine.errors import GameError
from engine.rules import Refusal, Score, Verdict, can_play, check_placement, legal_placements
from engine.tiles import Placement, Tile
from engine.variant import SPECTRANGLE36, Variant

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Place:
    """A tile put on the board."""

    player: int
    placement: Placement


@dataclass(frozen=True)
class Pass:
    """A player who cannot play misses the turn."""

    player: int


@dataclass(frozen=True)
class Exchange:
    """A player who cannot play puts a tile back in the bag, draws another and passes.

    ``returned`` and ``drawn`` are known only when hands are tracked.
    """

    player: int
    returned: Tile | None = None
    drawn: Tile | None = None


@dataclass(frozen=True)
class Draw:
    """A player draws a tile from the bag (only meaningful when hands are tracked)."""

    player: int
    tile: Tile


@dataclass(frozen=True)
class Finish:
    """The players end the game and say the values left in each hand (deducted)."""

    remaining: tuple[tuple[int, ...], ...]


Event = Place | Pass | Exchange | Draw | Finish


@dataclass(frozen=True)
class GameState:
    """Everything that changes during a game, as an immutable snapshot."""

    board: Board
    scores: tuple[int, ...]
    deductions: tuple[int, ...]
    turn: int | None  # whose turn; None until the first move says who started
    hands: tuple[tuple[Tile, ...], ...] | None
    finished: bool = False


@dataclass(frozen=True)
class Outcome:
    """What an event did: its verdict (score or refusal) and the player concerned."""

    event: Event
    verdict: Verdict
    player: str | None

    @property
    def legal(self) -> bool:
        return self.verdict.legal

    @property
    def points(self) -> int:
        return self.verdict.points

    @property
    def score(self) -> Score | None:
        return self.verdict.score

    @property
    def reason(self) -> str:
        return self.verdict.reason


class Game:
    """A game of 1 to ``variant.max_players`` players, optionally in teams.

    ``first`` is the index of the starting player; ``None`` lets the first move decide
    (the tracker and game records do not know who drew the highest tile). ``hands``,
    when given, are the players' tiles: then the engine also checks that a placed tile
    is in the hand and that a player who passes could not have played.
    """

    def __init__(
        self,
        players: Sequence[str],
        variant: Variant = SPECTRANGLE36,
        teams: Sequence[Sequence[str]] | None = None,
        first: int | None = 0,
        hands: Sequence[Iterable[Tile]] | None = None,
    ) -> None:
        names = tuple(players)
        if not 1 <= len(names) <= variant.max_players:
            raise GameError(
                f"a game of {variant.name} has 1 to {variant.max_players} players, "
                f"not {len(names)}",
                names,
            )
        if len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
            raise GameError(f"player names must be distinct and non-empty: {list(names)}", names)
        self.variant = variant
        self.players = names
        self.teams = self._teams(teams)
        if first is not None and not 0 <= first < len(names):
            raise GameError(f"no player {first} to start", first)
        start_hands = None
        if hands is not None:
            start_hands = tuple(tuple(h) for h in hands)
            self._check_hands(start_hands)
        empty = Board.empty(variant.geometry)
        zeros = (0,) * len(names)
        self._states = [GameState(empty, zeros, zeros, first, start_hands)]
        self._events: list[Outcome] = []

    def _teams(self, teams: Sequence[Sequence[str]] | None) -> tuple[tuple[int, ...], ...] | None:
        if teams is None:
            return None
        out = []
        seen: set[str] = set()
        for team in teams:
            members = []
            for name in team:
                if name not in self.players:
                    raise GameError(f"team member {name!r} is not a player", name)
                if name in seen:
                    raise GameError(f"{name!r} is in two teams", name)
                seen.add(name)
                members.append(self.players.index(name))
            out.append(tuple(members))
        if len(out) < 2:
            raise GameError("teams need at least two teams", teams)
        return tuple(out)

    def _check_hands(self, hands: tuple[tuple[Tile, ...], ...]) -> None:
        if len(hands) != len(self.players):
            raise GameError(f"{len(hands)} hands for {len(self.players)} players", hands)
        counts = Counter(t for h in hands for t in h)
        for tile, n in counts.items():
            if not self.variant.has_tile(tile):
                raise GameError(f"no tile {tile} in the set", tile)
            if n > 1:
                raise GameError(f"tile {tile} is in two hands", tile)
        for name, hand in zip(self.players, hands, strict=True):
            if len(hand) > self.variant.hand_size:
                raise GameError(
                    f"{name} holds {len(hand)} tiles (at most {self.variant.hand_size})"
                )

    # -- reading the state -------------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self._states[-1]

    @property
    def initial_state(self) -> GameState:
        """The state before the first event (the hands as dealt, when known)."""
        return self._states[0]

    @property
    def board(self) -> Board:
        return self.state.board

    @property
    def history(self) -> tuple[Outcome, ...]:
        return tuple(self._events)

    @property
    def current_player(self) -> str | None:
        turn = self.state.turn
        return None if turn is None else self.players[turn]

    @property
    def hands_known(self) -> bool:
        return self.state.hands is not None

    def hand(self, player: int | str) -> tuple[Tile, ...] | None:
        hands = self.state.hands
        return None if hands is None else hands[self._index(player)]

    @property
    def bag(self) -> frozenset[Tile] | None:
        """The tiles in the bag when hands are known, else ``None``."""
        hands = self.state.hands
        if hands is None:
            return None
        held = {t for h in hands for t in h}
        return self.variant.all_tiles - self.board.tiles - held

    @property
    def bag_size(self) -> int:
        """Tiles left in the bag (an estimate assuming full hands when hands are unknown)."""
        bag = self.bag
        if bag is not None:
            return len(bag)
        unseen = len(self.variant.tiles) - len(self.board.placements)
        return max(0, unseen - self.variant.hand_size * len(self.players))

    def totals(self) -> dict[str, int]:
        """Each player's score minus deductions for unplayed tiles."""
        s = self.state
        return {name: s.scores[i] - s.deductions[i] for i, name in enumerate(self.players)}

    def team_totals(self) -> dict[str, int] | None:
        """Each team's total (the sum of its players), keyed ``"Ann & Cid"``."""
        if self.teams is None:
            return None
        totals = self.totals()
        return {
            " & ".join(self.players[i] for i in team): sum(totals[self.players[i]] for i in team)
            for team in self.teams
        }

    def winners(self) -> list[str]:
        """The player(s) or team(s) with the highest total (several on a tie)."""
        totals = self.team_totals() or self.totals()
        best = max(totals.values())
        return [name for name, total in totals.items() if total == best]

    def is_over(self) -> bool:
        return self.state.finished

    def legal_placements(self, player: int | str | None = None) -> list[Placement]:
        """Legal placements for a player's hand (all tiles left when hands are unknown)."""
        if player is None:
            player = self.state.turn if self.state.turn is not None else 0
        return legal_placements(self.board, self.variant, self.hand(player))

    # -- changing the state --------------------------------------------------------------

    def _index(self, player: int | str) -> int:
        if isinstance(player, str):
            if player not in self.players:
                raise GameError(
                    f"no player {player!r} (players: {', '.join(self.players)})", player
                )
            return self.players.index(player)
        if not 0 <= player < len(self.players):
            raise GameError(f"no player {player}", player)
        return player

    def _player(self, player: int | str | None) -> int:
        if player is None:
            if self.state.turn is None:
                raise GameError("say which player moves first", player)
            return self.state.turn
        return self._index(player)

    def place(self, placement: Placement, player: int | str | None = None) -> Outcome:
        return self.apply(Place(self._player(player), placement))

    def pass_turn(self, player: int | str | None = None) -> Outcome:
        return self.apply(Pass(self._player(player)))

    def exchange(
        self,
        player: int | str | None = None,
        returned: Tile | None = None,
        drawn: Tile | None = None,
    ) -> Outcome:
        return self.apply(Exchange(self._player(player), returned, drawn))

    def draw(self, player: int | str, tile: Tile) -> Outcome:
        return self.apply(Draw(self._index(player), tile))

    def finish(self, remaining: Mapping[str, Sequence[int]] | None = None) -> Outcome:
        """End the game; ``remaining`` gives the values left in hands (default: known hands)."""
        rows = []
        for i, name in enumerate(self.players):
            if remaining is not None and name in remaining:
                rows.append(tuple(remaining[name]))
            else:
                hand = self.hand(i)
                rows.append(tuple(t.value for t in hand) if hand is not None else ())
        return self.apply(Finish(tuple(rows)))

    def apply(self, event: Event) -> Outcome:
        """Apply an event and record it; an illegal move is recorded with its refusal."""
        state = self.state
        verdict, new_state = self._resolve(state, event)
        player = None if isinstance(event, Finish) else self.players[event.player]
        outcome = Outcome(event, verdict, player)
        if not verdict.legal:
            log.info("refused %s: %s", event, verdict.reason)
        self._events.append(outcome)
        self._states.append(new_state)
        return outcome

    def correct(self, position: int, event: Event) -> tuple[Outcome, ...]:
        """Replace the event at ``position`` (0-based) and replay the later ones.

        This is how a misread tile is fixed: every score after it is redone, and a later
        move that the correction makes illegal is reported as such. Returns the new
        outcomes from ``position`` on.
        """
        if not 0 <= position < len(self._events):
            raise GameError(
                f"no event {position} to correct (0..{len(self._events) - 1})", position
            )
        later = [o.event for o in self._events[position + 1 :]]
        saved_events, saved_states = list(self._events), list(self._states)
        del self._events[position:]
        del self._states[position + 1 :]
        try:
            return tuple(self.apply(e) for e in (event, *later))
        except GameError:
            # An event that cannot be replayed at all (e.g. a draw of a tile that the
            # correction put elsewhere): leave the game exactly as it was.
            self._events, self._states = saved_events, saved_states
            raise

    def undo(self) -> Outcome:
        """Drop the last event (legal or not) and return it."""
        if not self._events:
            raise GameError("there is nothing to undo")
        self._states.pop()
        return self._events.pop()

    # -- the rules of events ---------------------------------------------------------------

    def _resolve(self, state: GameState, event: Event) -> tuple[Verdict, GameState]:
        if isinstance(event, Finish):
            if len(event.remaining) != len(self.players):
                raise GameError("remaining tiles must be given for every player", event)
            deductions = tuple(sum(values) for values in event.remaining)
            return Verdict(), replace(state, deductions=deductions, finished=True)
        if isinstance(event, Draw):
            return self._draw(state, event)
        if state.finished:
            return Verdict.refuse(Refusal.GAME_OVER, "the game is over"), state
        if state.turn is not None and event.player != state.turn:
            refusal = Verdict.refuse(
                Refusal.OUT_OF_TURN,
                f"it is {self.players[state.turn]}'s turn, not {self.players[event.player]}'s",
            )
            return refusal, state
        hand = None if state.hands is None else state.hands[event.player]
        if isinstance(event, Place):
            verdict = check_placement(state.board, event.placement, self.variant, hand)
            if not verdict.legal:
                return verdict, state
            hands = state.hands
            if hands is not None and hand is not None:
                rest = list(hand)
                rest.remove(event.placement.tile)
                hands = _with(hands, event.player, tuple(rest))
            scores = _with(state.scores, event.player, state.scores[event.player] + verdict.points)
            board = state.board.place(event.placement)
            new = replace(state, board=board, scores=scores, hands=hands)
            return verdict, self._next_turn(new, event.player)
        # Pass or Exchange: allowed only to a player who cannot play (when hands are known).
        if hand is not None and can_play(state.board, self.variant, hand):
            what = "exchange" if isinstance(event, Exchange) else "pass"
            return Verdict.refuse(
                Refusal.MUST_PLAY,
                f"{self.players[event.player]} may not {what}: a tile in hand can be played",
            ), state
        if isinstance(event, Exchange) and state.hands is not None and hand is not None:
            return self._exchange(state, event, hand)
        if isinstance(event, Exchange) and self.bag_size == 0 and state.hands is None:
            return Verdict.refuse(Refusal.BAG_EMPTY, "the bag is empty: nothing to exchange"), state
        return Verdict(), self._next_turn(state, event.player)

    def _exchange(
        self, state: GameState, event: Exchange, hand: tuple[Tile, ...]
    ) -> tuple[Verdict, GameState]:
        bag = self.variant.all_tiles - state.board.tiles - {t for h in state.hands or () for t in h}
        if not bag:
            return Verdict.refuse(Refusal.BAG_EMPTY, "the bag is empty: nothing to exchange"), state
        if event.returned is None or event.drawn is None:
            raise GameError("with known hands an exchange says the tile returned and drawn", event)
        if event.returned not in hand:
            return Verdict.refuse(
                Refusal.NOT_IN_HAND, f"tile {event.returned} is not in the player's hand"
            ), state
        if event.drawn not in bag | {event.returned}:
            return Verdict.refuse(
                Refusal.NOT_IN_BAG, f"tile {event.drawn} is not in the bag"
            ), state
        rest = list(hand)
        rest.remove(event.returned)
        hands = _with(state.hands or (), event.player, (*rest, event.drawn))
        return Verdict(), self._next_turn(replace(state, hands=hands), event.player)

    def _draw(self, state: GameState, event: Draw) -> tuple[Verdict, GameState]:
        if state.hands is None:
            raise GameError("draws are tracked only when hands are known", event)
        hand = state.hands[event.player]
        if len(hand) >= self.variant.hand_size:
            raise GameError(
                f"{self.players[event.player]} already holds {self.variant.hand_size} tiles", event
            )
        held = {t for h in state.hands for t in h}
        if event.tile not in self.variant.all_tiles - state.board.tiles - held:
            raise GameError(f"tile {event.tile} is not in the bag", event.tile)
        hands = _with(state.hands, event.player, (*hand, event.tile))
        return Verdict(), self._settle(replace(state, hands=hands))

    def _next_turn(self, state: GameState, player: int) -> GameState:
        return self._settle(replace(state, turn=(player + 1) % len(self.players)))

    def _settle(self, state: GameState) -> GameState:
        """With known hands the game ends by itself: empty bag and nobody can play."""
        if state.hands is None or state.finished:
            return state
        held = {t for h in state.hands for t in h}
        if self.variant.all_tiles - state.board.tiles - held:
            return state
        if any(can_play(state.board, self.variant, h) for h in state.hands):
            return state
        deductions = tuple(sum(t.value for t in h) for h in state.hands)
        return replace(state, deductions=deductions, finished=True)


def _with(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*items[:index], value, *items[index + 1 :])


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as plain JSON (for storage); :func:`event_from_json` reads it back.

    >>> e = Place(1, Placement.from_notation("6:RRY5"))
    >>> event_from_json(event_to_json(e)) == e
    True
    """
    if isinstance(event, Place):
        return {"type": "place", "player": event.player, "placement": event.placement.notation()}
    if isinstance(event, Pass):
        return {"type": "pass", "player": event.player}
    if isinstance(event, Exchange):
        return {
            "type": "exchange",
            "player": event.player,
            "returned": None if event.returned is None else event.returned.notation(),
            "drawn": None if event.drawn is None else event.drawn.notation(),
        }
    if isinstance(event, Draw):
        return {"type": "draw", "player": event.player, "tile": event.tile.notation()}
    return {"type": "finish", "remaining": [list(r) for r in event.remaining]}


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Parse :func:`event_to_json`'s output; :class:`GameError` names what is wrong."""
    try:
        kind = data["type"]
        if kind == "finish":
            return Finish(tuple(tuple(int(v) for v in r) for r in data["remaining"]))
        player = data["player"]
        if not isinstance(player, int) or isinstance(player, bool):
            raise TypeError(f"player must be an index, not {player!r}")
        if kind == "place":
            return Place(player, Placement.from_notation(data["placement"]))
        if kind == "pass":
            return Pass(player)
        if kind == "exchange":
            returned, drawn = data.get("returned"), data.get("drawn")
            return Exchange(
                player,
                None if returned is None else Tile.from_notation(returned),
                None if drawn is None else Tile.from_notation(drawn),
            )
        if kind == "draw":
            return Draw(player, Tile.from_notation(data["tile"]))
        raise ValueError(f"unknown event type {kind!r}")
    except (KeyError, TypeError, ValueError) as exc:
        raise GameError(f"malformed event {dict(data)!r}: {exc}", data) from None
