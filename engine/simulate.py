"""Random legal games, for tests, benchmarks and generated photo sets.

>>> import random
>>> game = random_game(["Ann", "Bob"], random.Random(7))
>>> game.is_over(), len(game.board.placements) > 20
(True, True)
>>> sum(o.points for o in game.history) - sum(game.state.deductions) == sum(game.totals().values())
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.game import Game
from engine.variant import SPECTRANGLE36, Variant

#: After this many turns in a row without a placement the simulated players give up.
MAX_IDLE_TURNS = 40


def random_game(
    players: Sequence[str],
    rng: random.Random,
    variant: Variant = SPECTRANGLE36,
    teams: Sequence[Sequence[str]] | None = None,
) -> Game:
    """Play a whole game with known hands, each player choosing a random legal move.

    Players pass or exchange only when they cannot play, as the rules demand. The game
    ends by itself (empty bag, nobody can play) or, if players keep exchanging without
    ever being able to play, after :data:`MAX_IDLE_TURNS` idle turns.
    """
    bag = sorted(variant.all_tiles)
    rng.shuffle(bag)
    hands = [[bag.pop() for _ in range(variant.hand_size)] for _ in players]
    game = Game(players, variant, teams=teams, first=0, hands=hands)
    idle = 0
    while not game.is_over() and idle < MAX_IDLE_TURNS:
        player = game.state.turn
        assert player is not None
        options = game.legal_placements(player)
        if options:
            outcome = game.place(rng.choice(options))
            assert outcome.legal, outcome.reason
            idle = 0
            if bag and not game.is_over():
                game.draw(player, bag.pop())
            continue
        idle += 1
        hand = game.hand(player)
        if bag and hand and rng.random() < 0.5:
            returned = rng.choice(hand)
            drawn = bag.pop()
            bag.insert(0, returned)
            rng.shuffle(bag)
            game.exchange(player, returned, drawn)
        else:
            game.pass_turn(player)
    if not game.is_over():
        game.finish()
    return game
