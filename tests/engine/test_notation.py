"""Round-trips of the text notation for tiles, placements and boards."""

from __future__ import annotations

import itertools
import random

import pytest

from engine import SPECTRANGLE36, Board, Colour, Edge, InvalidNotationError, Placement, Tile
from engine.rules import rotations
from engine.simulate import random_game
from tests.engine.helpers import GEO


@pytest.mark.parametrize("st", SPECTRANGLE36.tiles, ids=lambda t: t.clockwise_notation)
def test_every_tile_round_trips_in_every_order(st: object) -> None:
    tile = st.tile  # type: ignore[attr-defined]
    text = tile.notation()
    assert Tile.from_notation(text) == tile
    assert Tile.from_notation(text).notation() == text
    letters = "".join(c.letter for c in st.clockwise)  # type: ignore[attr-defined]
    for perm in set(itertools.permutations(letters)):
        assert Tile.from_notation("".join(perm) + str(tile.value)) == tile
        assert Tile.from_notation("".join(perm).lower() + str(tile.value)) == tile
    assert eval(repr(tile)) == tile


def test_every_placement_of_every_tile_round_trips() -> None:
    count = 0
    for cell in GEO:
        for st in SPECTRANGLE36.tiles:
            for p in rotations(st, cell.index, GEO):
                assert Placement.from_notation(p.notation()) == p
                assert Placement.from_edges(p.index, p.to_json()["edges"], p.value) == p  # type: ignore[arg-type]
                count += 1
    # 5 one-colour tiles + the joker have one rotation, the other 30 tiles three.
    assert count == 36 * (6 * 1 + 30 * 3)


def test_rotations_keep_the_clockwise_order() -> None:
    st = SPECTRANGLE36.set_tile(Tile.from_notation("RBY1"))  # clockwise R, B, Y
    for cell in (GEO[0], GEO[2]):  # an up and a down cell
        for p in rotations(st, cell.index, GEO):
            seen = [p.colour(e) for e in cell.edges_clockwise]
            k = seen.index(Colour.RED)
            assert seen[k:] + seen[:k] == [Colour.RED, Colour.BLUE, Colour.YELLOW]


def test_boards_from_many_games_round_trip() -> None:
    for seed in range(25):
        game = random_game(["A", "B", "C"], random.Random(seed))
        board = game.board
        for _ in range(3):
            text = board.notation()
            assert Board.from_notation(text, GEO) == board
            assert Board.from_notation(text.replace(" / ", " "), GEO) == board
            board = board.rotated()
        assert board == game.board  # three turns bring it back


def test_rotation_keeps_legality_and_scores() -> None:
    game = random_game(["A", "B"], random.Random(3))
    board = Board.empty(GEO)
    turned = Board.empty(GEO)
    from engine.rules import check_placement

    for outcome in game.history:
        p = getattr(outcome.event, "placement", None)
        if p is None or not outcome.legal:
            continue
        q = board.place(p).rotated()[GEO.rotation[p.index]]
        assert q is not None
        v1 = check_placement(board, p, SPECTRANGLE36)
        v2 = check_placement(turned, q, SPECTRANGLE36)
        # The first tile may land on a cell whose bonus differs? No: bonus is symmetric.
        assert GEO[p.index].bonus == GEO[q.index].bonus
        assert v1.points == v2.points and v1.legal == v2.legal
        board, turned = board.place(p), turned.place(q)


def test_rotation_maps_edges_to_edges_of_the_same_neighbour() -> None:
    for cell in GEO:
        for edge in Edge:
            across = GEO.across(cell.index, edge)
            target, new_edge = GEO.edge_rotation[(cell.index, edge)]
            assert target == GEO.rotation[cell.index]
            if across is None:
                assert GEO.across(target, new_edge) is None
            else:
                assert GEO.across(target, new_edge) == GEO.edge_rotation[across]


@pytest.mark.parametrize("text", ["", "RRY", "RR5", "RRX5", "RRYY5", "RRY-1", "1RRY", None, 5])
def test_bad_tile_notation(text: object) -> None:
    with pytest.raises(InvalidNotationError) as info:
        Tile.from_notation(text)  # type: ignore[arg-type]
    assert info.value.value == text


@pytest.mark.parametrize("text", ["20RBY1", "x:RBY1", "20:RB1", "20:RBQ1", ""])
def test_bad_placement_notation(text: str) -> None:
    with pytest.raises(InvalidNotationError, match=r"placement|colour"):
        Placement.from_notation(text)


@pytest.mark.parametrize(
    "text",
    [". . .", " ".join(["."] * 37), ". / . . / " + " ".join(["."] * 32), " ".join(["?"] * 36)],
)
def test_bad_board_notation(text: str) -> None:
    with pytest.raises(InvalidNotationError):
        Board.from_notation(text, GEO)


def test_geometry_facts() -> None:
    assert len(GEO) == 36
    assert sum(c.orientation == "up" for c in GEO) == 21
    assert {c.index: c.bonus for c in GEO if c.bonus > 1} == {
        2: 3,
        26: 3,
        34: 3,
        10: 2,
        14: 2,
        30: 2,
        11: 4,
        13: 4,
        20: 4,
    }
    for cell in GEO:
        assert cell.index == cell.row**2 + cell.col
        for edge in Edge:
            across = GEO.across(cell.index, edge)
            if across is not None:
                assert GEO.across(*across) == (cell.index, edge)
    assert sorted(GEO.rotation) == list(range(36))
    assert all(GEO[GEO.rotation[i]].bonus == GEO[i].bonus for i in range(36))
