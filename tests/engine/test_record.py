"""Game records: validation with precise errors, scoring, export and re-import."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine import RecordError
from engine.record import GameRecord, record_from_game, score_record
from engine.simulate import random_game

BASE: dict[str, Any] = {
    "variant": "spectrangle36",
    "players": ["Ann", "Bob"],
    "moves": [
        {
            "player": "Ann",
            "type": "place",
            "index": 6,
            "value": 5,
            "edges": {"left": "red", "right": "red", "base": "yellow"},
        },
        {
            "player": "Bob",
            "type": "place",
            "index": 5,
            "value": 5,
            "edges": {"left": "yellow", "right": "purple", "base": "purple"},
        },
        {
            "player": "Bob",
            "type": "place",
            "index": 5,
            "value": 4,
            "edges": {"left": "blue", "right": "red", "base": "red"},
        },
        {"player": "Ann", "type": "pass"},
        {"player": "Bob", "type": "exchange"},
        {
            "player": "Ann",
            "type": "place",
            "index": 4,
            "value": 6,
            "edges": {"left": "blue", "right": "blue", "base": "blue"},
        },
    ],
    "remaining": {"Ann": [5, 3], "Bob": [6]},
}


def test_scores_a_record_with_an_illegal_move() -> None:
    result = score_record(GameRecord.from_json(BASE)).to_json()
    assert [m["score"] for m in result["moves"]] == [5, 0, 4, 0, 0, 6]
    assert [m["legal"] for m in result["moves"]] == [True, False, True, True, True, True]
    assert "purple" in result["moves"][1]["reason"] and "red" in result["moves"][1]["reason"]
    assert "reason" not in result["moves"][0]
    assert result["totals"] == {"Ann": 5 + 6 - 8, "Bob": 4 - 6}
    assert "team_totals" not in result


def test_team_totals() -> None:
    data = copy.deepcopy(BASE)
    data["players"] = ["Ann", "Bob", "Cid", "Dan"]
    data["teams"] = [["Ann", "Cid"], ["Bob", "Dan"]]
    data["moves"] = [
        {
            "player": "Ann",
            "type": "place",
            "index": 6,
            "value": 5,
            "edges": {"left": "red", "right": "red", "base": "yellow"},
        },
        {
            "player": "Bob",
            "type": "place",
            "index": 5,
            "value": 4,
            "edges": {"left": "blue", "right": "red", "base": "red"},
        },
        {
            "player": "Cid",
            "type": "place",
            "index": 4,
            "value": 6,
            "edges": {"left": "blue", "right": "blue", "base": "blue"},
        },
    ]
    data["remaining"] = {"Dan": [1]}
    result = score_record(GameRecord.from_json(data)).to_json()
    assert result["totals"] == {"Ann": 5, "Bob": 4, "Cid": 6, "Dan": -1}
    assert result["team_totals"] == {"Ann & Cid": 11, "Bob & Dan": 3}


def test_out_of_turn_move_is_illegal() -> None:
    data = copy.deepcopy(BASE)
    data["moves"] = [BASE["moves"][0], BASE["moves"][5]]
    result = score_record(GameRecord.from_json(data)).to_json()
    assert result["moves"][1] == {
        "score": 0,
        "legal": False,
        "reason": "it is Bob's turn, not Ann's",
    }


def _set(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    node: Any = out
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    last = keys[-1]
    if value is KeyError:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


# (change, words the error must contain)
BAD = [
    (("players", "Ann"), ["players"]),
    (("players", []), ["players"]),
    (("players", ["Ann", "Ann"]), ["distinct"]),
    (("players", ["A", "B", "C", "D", "E"]), ["at most 4"]),
    (("variant", "chess"), ["variant", "chess"]),
    (("moves", {}), ["moves", "list"]),
    (("moves.2", "place"), ["move 3", "object"]),
    (("moves.2.player", "Zed"), ["move 3", "player", "Zed"]),
    (("moves.3.type", "jump"), ["move 4", "type", "jump"]),
    (("moves.2.index", "5"), ["move 3", "index"]),
    (("moves.2.index", KeyError), ["move 3", "index"]),
    (("moves.2.value", 4.5), ["move 3", "value"]),
    (("moves.2.value", True), ["move 3", "value"]),
    (("moves.2.edges", ["blue"]), ["move 3", "edges"]),
    (("moves.2.edges.left", "pink"), ["move 3", "edges.left", "pink"]),
    (("moves.2.edges.base", KeyError), ["move 3", "edges.base"]),
    (("remaining", [5]), ["remaining"]),
    (("remaining.Ann", [5, "x"]), ["remaining.Ann"]),
    (("remaining.Zed", [5]), ["remaining", "Zed"]),
    (("teams", [["Ann", "Zed"], ["Bob"]]), ["teams[0]", "Zed"]),
    (("teams", [["Ann"]]), ["teams"]),
]


@pytest.mark.parametrize(("change", "words"), BAD, ids=lambda c: str(c))
def test_malformed_records_name_the_problem(change: tuple[str, Any], words: list[str]) -> None:
    data = _set(BASE, *change)
    with pytest.raises(RecordError) as info:
        GameRecord.from_json(data)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"record"'])
def test_not_a_record(text: str) -> None:
    with pytest.raises(RecordError):
        GameRecord.loads(text)


def test_unreadable_file(tmp_path: Any) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        GameRecord.load(tmp_path / "missing.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError):
        GameRecord.load(tmp_path / "bin.json")


@pytest.mark.parametrize("seed", range(10))
def test_exported_games_score_the_same(seed: int) -> None:
    rng = random.Random(seed)
    players = ["Ann", "Bob", "Cid", "Dan"][: 2 + seed % 3]
    teams = [["Ann", "Cid"], ["Bob", "Dan"]] if len(players) == 4 else None
    game = random_game(players, rng, teams=teams)
    record = record_from_game(game)
    again = GameRecord.loads(json.dumps(record.to_json()))
    assert again == record
    result = score_record(again)
    assert result.totals == game.totals()
    assert result.team_totals == game.team_totals()
