"""The solo variant: fill the whole board legally, against the clock.

>>> clock = iter([0.0, 95.5]).__next__
>>> solo = SoloGame(clock=clock)
>>> solo.place(Placement.from_notation("6:RRY5")).legal
True
>>> report = solo.report()
>>> report.completed, report.placed, report.elapsed, report.within_limit
(False, 1, 95.5, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.board import Board
from engine.rules import Verdict, check_placement, legal_placements
from engine.tiles import Placement
from engine.variant import SPECTRANGLE36, Variant


@dataclass(frozen=True)
class SoloReport:
    """How a solo attempt went."""

    completed: bool
    placed: int
    cells: int
    elapsed: float
    time_limit: int
    stuck: bool  # no legal placement is left although the board is not full

    @property
    def within_limit(self) -> bool:
        return self.elapsed <= self.time_limit


class SoloGame:
    """One player, every tile available, the board to fill; the clock starts at creation."""

    def __init__(
        self, variant: Variant = SPECTRANGLE36, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.variant = variant
        self.board = Board.empty(variant.geometry)
        self._clock = clock
        self._start = clock()
        self._history: list[Board] = []

    def place(self, placement: Placement) -> Verdict:
        """Check and, when legal, put a tile on the board."""
        verdict = check_placement(self.board, placement, self.variant)
        if verdict.legal:
            self._history.append(self.board)
            self.board = self.board.place(placement)
        return verdict

    def undo(self) -> None:
        if self._history:
            self.board = self._history.pop()

    def report(self) -> SoloReport:
        completed = self.board.is_full()
        stuck = not completed and not legal_placements(self.board, self.variant)
        return SoloReport(
            completed=completed,
            placed=len(self.board.placements),
            cells=len(self.board),
            elapsed=self._clock() - self._start,
            time_limit=self.variant.solo_seconds,
            stuck=stuck,
        )
