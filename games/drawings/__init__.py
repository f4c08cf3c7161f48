"""Each game's view drawn as it looks at a table (cards, offers and claims, dice, chips,
pools, tokens), for the replay page and the play page. A drawing takes only a view dict (a
seat's or the public one, exactly as the engine gives it, never the state), so it can show
nothing that seat may not see; a game without a drawing falls back to the generic one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.utils.safestring import SafeString

from . import dice_cup, dot, dtc, dutch, great_dalmuti
from .generic import view_html

Drawing = Callable[..., SafeString]
DRAWINGS: dict[str, Drawing] = {
    "dtc": dtc.draw,
    "great_dalmuti": great_dalmuti.draw,
    "dutch": dutch.draw,
    "dice_cup": dice_cup.draw,
    "dot": dot.draw,
}


def draw_view(game: str, view: dict[str, Any], players: int,
              names: Sequence[str] | None = None) -> SafeString:
    """The view drawn as the game's table; ``names`` label the seats (optional)."""
    drawing = DRAWINGS.get(game)
    if drawing is None:
        return view_html(view, players)
    return drawing(view, players, list(names) if names else None)
