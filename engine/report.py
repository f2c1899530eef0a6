"""A readable account of a scored record: each move with its arithmetic, then totals.

>>> from engine.record import GameRecord, score_record
>>> record = GameRecord.from_json({"players": ["Ann", "Bob"], "moves": [
...     {"player": "Ann", "type": "place", "index": 6, "value": 5,
...      "edges": {"left": "red", "right": "red", "base": "yellow"}},
...     {"player": "Bob", "type": "place", "index": 5, "value": 4,
...      "edges": {"left": "blue", "right": "red", "base": "red"}}]})
>>> print(format_result(score_record(record)))
  #  player  move          score
  1  Ann     place 6 RRY5  5 (first tile) = 5
  2  Bob     place 5 BRR4  4 x 1 edge = 4
<BLANKLINE>
Totals: Ann 5, Bob 4
Winner: Ann
"""

from __future__ import annotations

from engine.game import Exchange, Pass, Place
from engine.record import RecordResult


def _describe(result: RecordResult, i: int) -> tuple[str, str, str]:
    outcome = result.outcomes[i]
    event = outcome.event
    if isinstance(event, Place):
        p = event.placement
        move = f"place {p.index} {p.field()}"
    elif isinstance(event, Pass):
        move = "pass"
    elif isinstance(event, Exchange):
        move = "exchange"
    else:  # pragma: no cover - records hold only the three kinds above
        move = type(event).__name__.lower()
    if not outcome.legal:
        score = f"ILLEGAL, 0: {outcome.reason}"
    elif outcome.score is not None:
        score = outcome.score.arithmetic()
    else:
        score = "0"
    return outcome.player or "", move, score


def format_result(result: RecordResult) -> str:
    """The table of moves, deductions for unplayed tiles, totals and the winner."""
    rows = [_describe(result, i) for i in range(len(result.outcomes))]
    wp = max([len("player"), *(len(r[0]) for r in rows)])
    wm = max([len("move"), *(len(r[1]) for r in rows)])
    wn = len(str(len(rows)))
    lines = [f"{'#':>{wn + 2}}  {'player':<{wp}}  {'move':<{wm}}  score"]
    for n, (player, move, score) in enumerate(rows, start=1):
        lines.append(f"{n:>{wn + 2}}  {player:<{wp}}  {move:<{wm}}  {score}")
    lines.append("")
    game = result.game
    deductions = game.state.deductions
    if any(deductions):
        parts = [f"{name} -{d}" for name, d in zip(game.players, deductions, strict=True) if d]
        lines.append("Unplayed tiles: " + ", ".join(parts))
    lines.append("Totals: " + ", ".join(f"{k} {v}" for k, v in result.totals.items()))
    if result.team_totals is not None:
        lines.append("Teams: " + ", ".join(f"{k} {v}" for k, v in result.team_totals.items()))
    if result.outcomes:
        winners = game.winners()
        label = "Winners (tie)" if len(winners) > 1 else "Winner"
        lines.append(f"{label}: {', '.join(winners)}")
    return "\n".join(lines)
