"""``spectrangle replay`` end to end on the bundled filmed game (vision.replay_cli)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.record import GameRecord, score_record
from spectrangle.cli import main

REPO = Path(__file__).resolve().parents[2]
GAME = REPO / "sample_images" / "game"
#: A placement is reported within this many frames of the first still frame after it.
MAX_LATENCY_FRAMES = 2


def frame_number(name: str) -> int:
    return int(Path(name).stem)


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("replay") / "out.json"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(["replay", str(GAME), "--json"])
    assert status == 0
    out.write_text(buffer.getvalue())
    return json.loads(buffer.getvalue())  # type: ignore[no-any-return]


def test_sample_game_events_match_the_expected_events(replay: dict[str, Any]) -> None:
    expected = json.loads((GAME / "events.json").read_text())["events"]
    record = json.loads((GAME / "record.json").read_text())
    players = record["players"]
    got = [e for e in replay["events"] if e["type"] in ("placement", "removal")]
    others = [e["type"] for e in replay["events"] if e["type"] not in ("placement", "removal")]
    assert others == ["located"]  # no look, uncertain, correction or phantom
    assert len(got) == len(expected)
    starts = [frame_number(e["frame"]) for e in expected] + [10**9]
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        where = f"event {k} (expected at {e['frame']})"
        assert g["type"] == e["type"], where
        assert g["index"] == e["index"], where
        assert players[g["player"] - 1] == e["player"], where
        if e["type"] == "placement":
            assert (g["edges"], g["value"]) == (e["edges"], e["value"]), where
            assert (g["legal"], g["score"]) == (e["legal"], e["points"]), where
            if not e["legal"]:
                assert g["reason"], where
        latency = frame_number(g["frame"]) - frame_number(e["frame"])
        assert 0 <= latency <= MAX_LATENCY_FRAMES, where
        assert frame_number(g["frame"]) < starts[k + 1], where


def test_sample_game_scores_match_the_scored_record(replay: dict[str, Any]) -> None:
    record = json.loads((GAME / "record.json").read_text())
    # The camera cannot see the tiles left in the hands at the end: score without them.
    remaining = record.pop("remaining")
    result = score_record(GameRecord.from_json(record))
    names = record["players"]
    assert {names[int(k) - 1]: v for k, v in replay["scores"].items()} == result.totals
    placed = [e for e in replay["events"] if e["type"] == "placement"]
    scored = zip(record["moves"], result.to_json()["moves"], strict=True)
    assert [(e["score"], e["legal"]) for e in placed] == [
        (m["score"], m["legal"]) for move, m in scored if move["type"] == "place"
    ]
    final = score_record(GameRecord.from_json({**record, "remaining": remaining})).totals
    assert {n: result.totals[n] - sum(remaining[n]) for n in names} == final


def test_readable_log_on_a_short_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for n in range(16):
        shutil.copy(GAME / f"{n:04d}.jpg", tmp_path / f"{n:04d}.jpg")
    assert main(["replay", str(tmp_path), "--players", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "0000.jpg: board located"
    assert "player 1 put YGY5 on cell 6: 5 (first tile) = 5" in out[1]
    assert "player 2 put RGY3 on cell 12: 3 x 1 edge = 3" in out[2]
    assert out[-1] == "scores: player 1: 5, player 2: 3, player 3: 0"


def test_unreadable_source_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path / "missing.mp4"), "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("spectrangle replay: ")
    assert main(["replay", str(tmp_path)]) == 2  # an empty folder
    assert "no images" in capsys.readouterr().err
