"""Bluff League's rules engine: pure Python, no Django, usable offline.

    from games.engine import get_game, game_ids
    state = get_game("dtc").new_match(players=4, seed=7)

See ``docs/engine.md`` for the interface.
"""

from .actions import LazyActions
from .base import Bot, Game, RandomBot, State
from .errors import BadOptions, CorruptState, EngineError, IllegalAction
from .options import Option
from .registry import game_ids, get_game
from .results import competition_ranks
from .rng import Rng

__all__ = [
    "BadOptions", "Bot", "CorruptState", "EngineError", "Game", "IllegalAction", "LazyActions",
    "Option", "RandomBot", "Rng", "State", "competition_ranks", "game_ids", "get_game",
]
