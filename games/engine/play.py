"""Playing matches in-process: reference bots against each other, or uniform random play.

Used by the ``play`` command, the benchmarks and the property tests, and handy offline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .base import JSON, Bot, State
from .registry import get_game
from .rng import Rng


def play_bots(game_id: str, bots: Sequence[str], seed: int = 0, options: JSON | None = None,
              on_move: Callable[[State, int, JSON], Any] | None = None) -> State:
    """Play a whole match between reference bots named per seat (e.g. ``["heuristic", "random"]``).

    ``on_move(state, seat, action)`` is called before each action is applied.
    """
    game = get_game(game_id)
    state = game.new_match(players=len(bots), seed=seed, options=options)
    players: list[Bot] = [game.make_bot(name, seat, seed) for seat, name in enumerate(bots)]
    while not state.is_over:
        # In a simultaneous step every asked seat answers; answers stay sealed until all are in.
        for seat in state.to_act():
            if seat not in state.to_act():
                continue
            action = players[seat].choose(state.view(seat), state.legal_actions(seat))
            if on_move is not None:
                on_move(state, seat, action)
            state.apply(seat, action)
    return state


def random_playout(state: State, rng: Rng) -> list[tuple[int, JSON]]:
    """Play ``state`` to the end uniformly at random; return the ``(seat, action)`` list.

    Within a simultaneous step the answering order is random too.
    """
    taken: list[tuple[int, JSON]] = []
    while not state.is_over:
        to_act = state.to_act()
        seat = to_act[rng.below(len(to_act))] if len(to_act) > 1 else to_act[0]
        legal = state.legal_actions(seat)
        action = legal[rng.below(len(legal))]
        state.apply(seat, action)
        taken.append((seat, action))
    return taken


def replay(game_id: str, players: int, seed: int, options: JSON | None,
           actions: Sequence[tuple[int, JSON]]) -> State:
    """Rebuild a match from its seed and recorded actions (G-1). A platform match's log, with
    its resignations and forfeits, is replayed by ``games.driver.replay``."""
    state = get_game(game_id).new_match(players=players, seed=seed, options=options)
    for seat, action in actions:
        state.apply(seat, action)
    return state
