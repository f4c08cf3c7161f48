"""``{{ match.game|game_name }}``: a game as people name it ("The Great Dalmuti"), never its
id (``great_dalmuti``), on every page; a builtin of the site's templates (config/settings.py).
URLs and the API keep the id."""

from __future__ import annotations

from django import template

from games import numbering
from games.engine import BadOptions, get_game

register = template.Library()


@register.filter
def game_name(game_id: str) -> str:
    """The game's own name; an unknown id is shown as it is."""
    try:
        return get_game(game_id).name
    except BadOptions:
        return game_id


@register.filter
def seat_number(seat: int) -> int:
    """``{{ seat.number|seat_number }}``: the seat as people number it, from 1
    (``games.numbering``); the API's ``seat`` fields stay 0-based."""
    return numbering.seat_number(int(seat))
