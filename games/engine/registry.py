"""Where games are found by id. Each game module defines ``GAME``; this maps ids to modules."""

from __future__ import annotations

import importlib

from .base import Game
from .errors import BadOptions

# Order is the product's order of games; every id here must have a module ``games.engine.<id>``.
GAME_MODULES: dict[str, str] = {
    "dtc": "games.engine.dtc",
    "great_dalmuti": "games.engine.great_dalmuti",
    "dutch": "games.engine.dutch",
    "dice_cup": "games.engine.dice_cup",
    "dot": "games.engine.dot",
}

_cache: dict[str, Game] = {}


def game_ids() -> list[str]:
    """Ids of every registered game, in the product's order."""
    return list(GAME_MODULES)


def get_game(game_id: str) -> Game:
    """The game with this id; :class:`BadOptions` for an unknown id."""
    try:
        return _cache[game_id]
    except (KeyError, TypeError):
        pass
    if not isinstance(game_id, str) or game_id not in GAME_MODULES:
        raise BadOptions(f"unknown game {game_id!r} (known: {', '.join(GAME_MODULES)})")
    game = importlib.import_module(GAME_MODULES[game_id]).GAME
    _cache[game_id] = game
    return game
