"""Game state: turns, hands, bag, pass and exchange, undo, the end and the winner."""

from __future__ import annotations

import pytest

from engine import SPECTRANGLE36, GameError, Placement, Refusal, Tile
from engine.game import Game
from engine.solo import SoloGame


def tiles(*names: str) -> list[Tile]:
    return [Tile.from_notation(n) for n in names]


def test_turns_rotate_and_an_illegal_move_keeps_the_turn() -> None:
    game = Game(["Ann", "Bob", "Cid"])
    assert game.place(Placement.from_notation("6:RRY5")).legal
    assert game.current_player == "Bob"
    bad = game.place(Placement.from_notation("30:GGG6"))
    assert bad.verdict.refusal is Refusal.NOT_TOUCHING
    assert game.current_player == "Bob"
    assert game.board[30] is None
    assert game.pass_turn().legal
    assert game.current_player == "Cid"
    out = game.place(Placement.from_notation("5:BRR4"), player="Ann")
    assert out.verdict.refusal is Refusal.OUT_OF_TURN
    assert "Cid's turn" in out.reason
    assert game.totals() == {"Ann": 5, "Bob": 0, "Cid": 0}


def test_first_mover_decides_the_order_when_unknown() -> None:
    game = Game(["Ann", "Bob"], first=None)
    assert game.current_player is None
    assert game.place(Placement.from_notation("6:RRY5"), player="Bob").legal
    assert game.current_player == "Ann"


def test_known_hands_refuse_tiles_not_held_and_passes_of_players_who_can_play() -> None:
    hands = [tiles("RRY5", "GGG6", "BBB6", "PPP6"), tiles("RRB4", "YYY6", "GGY4", "PPG5")]
    game = Game(["Ann", "Bob"], hands=hands)
    out = game.place(Placement.from_notation("6:BRR4"))
    assert out.verdict.refusal is Refusal.NOT_IN_HAND
    assert game.place(Placement.from_notation("6:RRY5")).legal
    assert game.hand("Ann") == tuple(tiles("GGG6", "BBB6", "PPP6"))
    # Bob holds RRB4, which fits next to red: he may not pass.
    refused = game.pass_turn()
    assert refused.verdict.refusal is Refusal.MUST_PLAY
    assert game.current_player == "Bob"
    assert game.bag is not None and len(game.bag) == 36 - 1 - 3 - 4
    with pytest.raises(GameError, match="not in the bag"):
        game.draw("Ann", Tile.from_notation("GGG6"))
    game.draw("Ann", Tile.from_notation("WWW1"))
    assert Tile.from_notation("WWW1") in (game.hand("Ann") or ())
    with pytest.raises(GameError, match="already holds"):
        game.draw("Ann", Tile.from_notation("RRP5"))


def test_exchange_with_known_hands() -> None:
    hands = [tiles("RRY5"), tiles("GGG6", "BBB6", "PPP6", "RRB4")]
    game = Game(["Ann", "Bob"], hands=hands)
    game.place(Placement.from_notation("0:RRY5"))
    # Only cell 2 touches cell 0, across its yellow base; Bob holds no yellow or white.
    assert not game.legal_placements("Bob")
    out = game.exchange(returned=Tile.from_notation("GGG6"), drawn=Tile.from_notation("YYB5"))
    assert out.legal, out.reason
    assert Tile.from_notation("YYB5") in (game.hand("Bob") or ())
    assert game.current_player == "Ann"
    game.undo()
    assert game.hand("Bob") == tuple(tiles("GGG6", "BBB6", "PPP6", "RRB4"))
    out = game.exchange(returned=Tile.from_notation("RRY5"), drawn=Tile.from_notation("YYB5"))
    assert out.verdict.refusal is Refusal.NOT_IN_HAND


@pytest.mark.parametrize("seed", range(8))
def test_game_with_known_hands_ends_by_itself_and_deducts_hands(seed: int) -> None:
    import random

    from engine.rules import can_play
    from engine.simulate import MAX_IDLE_TURNS, random_game

    game = random_game(["Ann", "Bob", "Cid"], random.Random(seed))
    assert game.is_over()
    idle_end = sum(1 for o in game.history[-MAX_IDLE_TURNS:] if o.verdict.score is None)
    if game.bag == frozenset() and idle_end < MAX_IDLE_TURNS:
        for name in game.players:
            hand = game.hand(name)
            assert hand is not None
            assert not can_play(game.board, SPECTRANGLE36, hand)
    deducted = {name: sum(t.value for t in game.hand(name) or ()) for name in game.players}
    assert dict(zip(game.players, game.state.deductions, strict=True)) == deducted
    gross = {name: 0 for name in game.players}
    for outcome in game.history:
        if outcome.player is not None:
            gross[outcome.player] += outcome.points
    assert game.totals() == {n: gross[n] - deducted[n] for n in game.players}


def test_finish_deducts_remaining_and_names_the_winner() -> None:
    game = Game(["Ann", "Bob"])
    game.place(Placement.from_notation("6:RRY5"))
    game.place(Placement.from_notation("5:BRR4"))
    game.finish({"Ann": [6, 1], "Bob": []})
    assert game.is_over()
    assert game.totals() == {"Ann": -2, "Bob": 4}
    assert game.winners() == ["Bob"]
    assert game.place(Placement.from_notation("4:BBB6")).verdict.refusal is Refusal.GAME_OVER


def test_teams_sum_their_players() -> None:
    game = Game(["Ann", "Bob", "Cid", "Dan"], teams=[["Ann", "Cid"], ["Bob", "Dan"]])
    game.place(Placement.from_notation("6:RRY5"))
    game.place(Placement.from_notation("5:BRR4"))
    game.place(Placement.from_notation("4:BBB6"))
    assert game.team_totals() == {"Ann & Cid": 5 + 6, "Bob & Dan": 4}
    assert game.winners() == ["Ann & Cid"]


@pytest.mark.parametrize(
    ("players", "teams", "message"),
    [
        (["Ann"] * 2, None, "distinct"),
        ([], None, "1 to 4 players"),
        (["A", "B", "C", "D", "E"], None, "1 to 4 players"),
        (["Ann", "Bob"], [["Ann", "Zed"], ["Bob"]], "not a player"),
        (["Ann", "Bob"], [["Ann", "Bob"], ["Bob"]], "two teams"),
        (["Ann", "Bob"], [["Ann", "Bob"]], "at least two"),
    ],
)
def test_bad_games(players: list[str], teams: list[list[str]] | None, message: str) -> None:
    with pytest.raises(GameError, match=message):
        Game(players, teams=teams)


def test_bad_hands() -> None:
    with pytest.raises(GameError, match="two hands"):
        Game(["A", "B"], hands=[tiles("RRY5"), tiles("RRY5")])
    with pytest.raises(GameError, match="at most 4"):
        Game(["A", "B"], hands=[tiles("RRY5", "GGG6", "BBB6", "PPP6", "YYY6"), []])


def test_undo_with_nothing_to_undo() -> None:
    with pytest.raises(GameError, match="nothing to undo"):
        Game(["A", "B"]).undo()


def test_solo_completed_and_stuck() -> None:
    clock = iter(float(i) for i in range(1000)).__next__
    solo = SoloGame(clock=clock)
    assert not solo.place(Placement.from_notation("2:RRY5")).legal
    assert solo.place(Placement.from_notation("6:RRY5")).legal
    report = solo.report()
    assert (report.completed, report.placed, report.cells, report.stuck) == (False, 1, 36, False)
    assert report.time_limit == 180
    solo.undo()
    assert solo.board.is_empty()


def test_correcting_a_misread_tile_redoes_later_scores() -> None:
    from engine.game import Place

    game = Game(["Ann", "Bob"])
    game.place(Placement.from_notation("6:RRY5"))
    game.place(Placement.from_notation("5:BRR4"))  # touches cell 6 across red
    game.place(Placement.from_notation("4:BBB6"))  # touches cell 5 across blue
    assert game.totals() == {"Ann": 11, "Bob": 4}
    # The camera misread the first tile: it was RRP5 with red on the left too.
    outcomes = game.correct(0, Place(0, Placement.from_notation("6:RRP5")))
    assert [o.legal for o in outcomes] == [True, True, True]
    assert game.board[6] == Placement.from_notation("6:RRP5")
    # A correction that makes a later move illegal says so and that move scores 0.
    outcomes = game.correct(1, Place(1, Placement.from_notation("5:GRR4")))
    assert outcomes[0].legal
    assert not outcomes[1].legal and "blue" in outcomes[1].reason
    assert game.totals() == {"Ann": 5, "Bob": 4}
    with pytest.raises(GameError, match="no event 9"):
        game.correct(9, Place(0, Placement.from_notation("6:RRP5")))


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"type": "place", "player": "0", "placement": "6:RRY5"},
        {"type": "place", "player": 0, "placement": "6RRY5"},
        {"type": "fly", "player": 0},
        {"type": "finish", "remaining": [["x"]]},
    ],
)
def test_malformed_stored_events(data: dict[str, object]) -> None:
    from engine.game import event_from_json

    with pytest.raises(GameError, match="malformed event"):
        event_from_json(data)


def test_a_correction_that_cannot_be_replayed_changes_nothing() -> None:
    from engine.game import Pass

    hands = [tiles("RRY5", "GGG6", "BBB6", "PPP6"), tiles("RRB4", "YYY6")]
    game = Game(["Ann", "Bob"], hands=hands)
    game.place(Placement.from_notation("6:RRY5"))
    game.draw("Ann", Tile.from_notation("WWW1"))
    before = (game.state, game.history)
    # Turning the placement into a pass leaves Ann a full hand: the draw cannot replay.
    with pytest.raises(GameError, match="already holds"):
        game.correct(0, Pass(0))
    assert (game.state, game.history) == before
