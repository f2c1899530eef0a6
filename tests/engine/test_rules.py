"""Tables of scoring and legality cases."""

from __future__ import annotations

import pytest

from engine import SPECTRANGLE36, Board, Colour, Placement, Refusal, Tile, check_placement
from engine.errors import IllegalPlacementError
from engine.rules import legal_placements, score_placement, validate_placement
from tests.engine.helpers import GEO, board_of, surround

RED_NEIGHBOURS = ["RRY5", "RRP5", "RRB4"]

# (cell, bonus, touching edges, tile placed, expected arithmetic)
SCORING = [
    (6, 1, 1, "RRR6", "6 x 1 edge = 6"),
    (6, 1, 2, "RRR6", "6 x 2 edges = 12"),
    (6, 1, 3, "RRR6", "6 x 3 edges = 18"),
    (10, 2, 1, "RRR6", "6 x 1 edge x bonus 2 = 12"),
    (14, 2, 2, "RRR6", "6 x 2 edges x bonus 2 = 24"),
    (30, 2, 3, "RRR6", "6 x 3 edges x bonus 2 = 36"),
    (2, 3, 1, "RRR6", "6 x 1 edge x bonus 3 = 18"),
    (26, 3, 2, "RRR6", "6 x 2 edges x bonus 3 = 36"),
    (34, 3, 3, "RRR6", "6 x 3 edges x bonus 3 = 54"),
    (11, 4, 1, "RRR6", "6 x 1 edge x bonus 4 = 24"),
    (13, 4, 2, "RRR6", "6 x 2 edges x bonus 4 = 48"),
    (20, 4, 3, "RRR6", "6 x 3 edges x bonus 4 = 72"),
    (20, 4, 3, "WWW1", "1 x 3 edges x bonus 4 = 12"),
    (12, 1, 2, "WWW1", "1 x 2 edges = 2"),
]


@pytest.mark.parametrize(("index", "bonus", "edges", "tile", "arithmetic"), SCORING)
def test_scoring_table(index: int, bonus: int, edges: int, tile: str, arithmetic: str) -> None:
    assert GEO[index].bonus == bonus
    board = surround(index, Colour.RED, edges, RED_NEIGHBOURS)
    placement = Placement.from_notation(f"{index}:{tile}")
    verdict = check_placement(board, placement, SPECTRANGLE36)
    assert verdict.legal, verdict.reason
    assert verdict.score is not None
    assert verdict.score.edges == edges
    assert verdict.score.arithmetic() == arithmetic
    assert verdict.points == int(arithmetic.rsplit("= ", 1)[1])


def test_first_tile_scores_its_value_on_any_plain_cell() -> None:
    empty = Board.empty(GEO)
    for cell in GEO:
        verdict = check_placement(
            empty, Placement.from_notation(f"{cell.index}:RRY5"), SPECTRANGLE36
        )
        assert verdict.legal is (cell.bonus == 1)
        if verdict.legal:
            assert verdict.points == 5
            assert verdict.score is not None
            assert verdict.score.arithmetic() == "5 (first tile) = 5"


def test_maximum_is_72() -> None:
    best = 0
    for index in (11, 13, 20):
        board = surround(index, Colour.RED, 3, RED_NEIGHBOURS)
        best = max(best, score_placement(board, Placement.from_notation(f"{index}:RRR6")).points)
    assert best == 72


@pytest.mark.parametrize("colour", [c for c in Colour if c is not Colour.WHITE])
def test_joker_on_the_board_matches_every_colour(colour: Colour) -> None:
    # The joker at cell 6; a one-colour tile of any colour may touch it.
    board = board_of("6:WWW1")
    letter = colour.letter
    tile = f"{letter}{letter}{letter}6"
    verdict = check_placement(board, Placement.from_notation(f"5:{tile}"), SPECTRANGLE36)
    assert verdict.legal, verdict.reason
    assert verdict.points == 6


@pytest.mark.parametrize("colour", [c for c in Colour if c is not Colour.WHITE])
def test_joker_placed_matches_every_colour(colour: Colour) -> None:
    letter = colour.letter
    board = board_of(f"6:{letter}{letter}{letter}6", f"4:{letter}{letter}{letter}6")
    verdict = check_placement(board, Placement.from_notation("5:WWW1"), SPECTRANGLE36)
    assert verdict.legal, verdict.reason
    assert verdict.score is not None and verdict.score.arithmetic() == "1 x 2 edges = 2"


# (board, placement, hand, refusal, words the reason must contain)
REFUSALS = [
    ([], "40:RRY5", None, Refusal.NO_SUCH_CELL, ["40"]),
    ([], "6:RRR5", None, Refusal.NOT_A_TILE, ["RRR5"]),
    (["6:RRY5"], "6:GGG6", None, Refusal.OCCUPIED, ["cell 6", "RRY5"]),
    (["6:RRY5"], "5:YRR5", None, Refusal.ALREADY_PLAYED, ["RRY5", "cell 6"]),
    (["6:RRY5"], "5:BRR4", ["GGG6"], Refusal.NOT_IN_HAND, ["RRB4", "GGG6"]),
    ([], "2:RRY5", None, Refusal.FIRST_ON_BONUS, ["cell 2", "x3"]),
    ([], "20:RRY5", None, Refusal.FIRST_ON_BONUS, ["cell 20", "x4"]),
    (["6:RRY5"], "30:GGG6", None, Refusal.NOT_TOUCHING, ["cell 30"]),
    (
        ["6:RRY5"],
        "5:YPP5",
        None,
        Refusal.COLOUR_MISMATCH,
        ["right edge of cell 5", "purple", "cell 6's left edge", "red"],
    ),
    (
        ["6:RRY5", "4:BBB6"],
        "5:GRG5",
        None,
        Refusal.COLOUR_MISMATCH,
        ["left edge of cell 5 is green", "cell 4's right edge is blue"],
    ),
]


@pytest.mark.parametrize(("placed", "move", "hand", "refusal", "words"), REFUSALS)
def test_refusal_table(
    placed: list[str], move: str, hand: list[str] | None, refusal: Refusal, words: list[str]
) -> None:
    board = board_of(*placed)
    tiles = None if hand is None else [Tile.from_notation(t) for t in hand]
    verdict = check_placement(board, Placement.from_notation(move), SPECTRANGLE36, tiles)
    assert not verdict.legal
    assert verdict.refusal is refusal
    assert verdict.points == 0
    for word in words:
        assert word in verdict.reason
    with pytest.raises(IllegalPlacementError) as info:
        validate_placement(board, Placement.from_notation(move), SPECTRANGLE36, tiles)
    assert info.value.refusal is refusal
    assert isinstance(info.value, ValueError)


def test_legal_placements_agree_with_check_placement() -> None:
    board = board_of("6:RRY5", "5:BRR4", "12:YBY4")
    listed = set(legal_placements(board, SPECTRANGLE36))
    brute = set()
    for cell in GEO:
        for st in SPECTRANGLE36.tiles:
            for r in range(3):
                cw = st.clockwise[r:] + st.clockwise[:r]
                edges = dict(zip(cell.edges_clockwise, cw, strict=True))
                p = Placement.from_edges(cell.index, edges, st.value)
                if check_placement(board, p, SPECTRANGLE36).legal:
                    brute.add(p)
    assert listed == brute
    assert listed
