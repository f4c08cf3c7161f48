"""Each game's view drawn as it looks at a table (cards, offers and claims, dice, chips,
pools, tokens), for the replay page and the play page. A drawing takes only a view dict (a
seat's or the public one, exactly as the engine gives it, never the state), so it can show
nothing that seat may not see; a game without a drawing falls back to the generic one. Once a
match is over, :func:`draw_face_up` lays one table from every seat's face-up view (each seat's
place from its own: ``State.face_up_view``), which shows what those views hold and nothing
more."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.utils.safestring import SafeString

from . import dice_cup, dot, dtc, dutch, great_dalmuti
from .generic import view_html
from .table import draw_table, laid_out

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


def draw_face_up(game: str, public: dict[str, Any], views: Sequence[dict[str, Any]],
                 players: int, names: Sequence[str] | None = None) -> SafeString | None:
    """One spectator's table with every hand face up: the middle and the header from the
    public view, each seat's place (its hand, its sealed answer) from that seat's view in
    ``views``: its ``face_up_view`` (every card it holds named, a Le Dutch slot nobody has
    looked at too), as a drawing never reads the state. Only for a disclosed match (the
    caller's rule: every seat's view may be shown). None for a game without a drawing of its
    own (the page shows the seats' views instead). A card no view names stays a back."""
    drawing = DRAWINGS.get(game)
    if drawing is None:
        return None
    labels = list(names) if names else None
    with laid_out() as laid:
        drawing(public, players, labels)
        for view in views:
            drawing(view, players, labels)
    if len(laid) != players + 1:
        return None
    table, seats = laid[0], laid[1:]
    return draw_table(public, players, [seats[s].places[s] for s in range(players)],
                      table.middle, table.used | {k for s in seats for k in s.used},
                      seat_tags=[seats[s].seat_tags[s] if seats[s].seat_tags else ()
                                 for s in range(players)], names=labels)
