"""Property tests over random legal games (hypothesis, derandomized in conftest)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import SPECTRANGLE36, Board, check_placement
from engine.game import Game, Place
from engine.rules import legal_placements
from engine.simulate import random_game

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=2, max_value=4)


@settings(max_examples=30)
@given(seed=seeds, n=player_counts)
def test_every_listed_placement_is_accepted(seed: int, n: int) -> None:
    game = random_game([f"P{i}" for i in range(n)], random.Random(seed))
    board = Board.empty(SPECTRANGLE36.geometry)
    rng = random.Random(seed)
    for outcome in game.history:
        if isinstance(outcome.event, Place) and outcome.legal:
            listed = legal_placements(board, SPECTRANGLE36)
            for p in rng.sample(listed, min(20, len(listed))):
                assert check_placement(board, p, SPECTRANGLE36).legal
            assert outcome.event.placement in listed
            board = board.place(outcome.event.placement)
    assert board == game.board


@settings(max_examples=30)
@given(seed=seeds, n=player_counts)
def test_scores_minus_deductions_equal_totals(seed: int, n: int) -> None:
    game = random_game([f"P{i}" for i in range(n)], random.Random(seed))
    moves = sum(o.points for o in game.history)
    assert moves - sum(game.state.deductions) == sum(game.totals().values())
    assert all(o.points == 0 for o in game.history if not o.legal)
    assert all(0 < o.points <= 72 for o in game.history if isinstance(o.event, Place) and o.legal)


@settings(max_examples=25)
@given(seed=seeds, n=player_counts, data=st.data())
def test_undo_restores_the_exact_earlier_state(seed: int, n: int, data: st.DataObject) -> None:
    played = random_game([f"P{i}" for i in range(n)], random.Random(seed))
    events = [o.event for o in played.history]
    cut = data.draw(st.integers(min_value=0, max_value=len(events)))
    first = played.history[0].event.player if events and hasattr(events[0], "player") else 0
    hands = played.initial_state.hands
    replayed = Game(played.players, hands=hands, first=first)
    snapshots = [replayed.state]
    for event in events:
        replayed.apply(event)
        snapshots.append(replayed.state)
    assert replayed.totals() == played.totals()
    for k in range(len(events), cut, -1):
        undone = replayed.undo()
        assert undone.event == events[k - 1]
        assert replayed.state == snapshots[k - 1]
        assert replayed.board.notation() == snapshots[k - 1].board.notation()
    assert len(replayed.history) == cut
