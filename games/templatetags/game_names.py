"""``{{ match.game|game_name }}``: a game as people name it ("The Great Dalmuti"), never its
id (``great_dalmuti``), on every page; a builtin of the site's templates (config/settings.py).
URLs and the API keep the id."""

from __future__ import annotations

from django import template

from games.engine import BadOptions, get_game

register = template.Library()


@register.filter
def game_name(game_id: str) -> str:
    """The game's own name; an unknown id is shown as it is."""
    try:
        return get_game(game_id).name
    except BadOptions:
        return game_id
