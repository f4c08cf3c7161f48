"""The Great Dalmuti at the table: each seat with its title, points and hand (the viewer's
face up, the others as backs); in the middle the trick to beat with who played it, the passes,
the cards played this hand, and a revolution when one is declared."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.engine.great_dalmuti import KEY

from ..numbering import seat_word
from .parts import EMPTY, area, backs, bubble, expand, face, join, phase, tag, token
from .table import draw_table

USED = ("hand_number", "hands", "phase", "order", "positions", "titles", "hand_sizes", "points",
        "hand_points", "out", "played", "turn", "trick", "passes", "revolution",
        "automatic_revolution", "answered", "hand", "my_answer", "exchanges", "my_exchanges")


def card(rank: str, cls: str = "", suit: str = "") -> SafeString:
    """Ranks 1 (best) .. 12 as numbers, a Jester as a star."""
    if rank == "jester":
        return face("★", suit or "jester", title="jester", cls=f"joker {cls}".strip())
    return face(rank, suit, title=rank, cls=cls)


def cards(counts: dict[str, int], cls: str = "") -> SafeString:
    return join(card(rank, cls) for rank in expand(counts))


def _exchange(x: dict[str, Any]) -> str:
    """A public exchange record: a tax or a give-back, or the Merchant's choice."""
    if "merchant" in x:
        with_ = "nobody" if x["with"] is None else seat_word(x["with"])
        return f"Merchant {seat_word(x['merchant'])} exchanges with {with_}"
    return f"{seat_word(x['from'])} → {seat_word(x['to'])}: {x['count']} cards"


def _answer(answer: dict[str, Any]) -> str:
    """The seat's own sealed answer, as it would say it."""
    if answer.get("type") == "give_back":
        given = ", ".join(f"{n} × {rank}" for rank, n in answer["cards"].items())
        return f"gives back {given}"
    if answer.get("type") == "exchange":
        return f"exchanges with {seat_word(answer['with'])}"
    return str(answer.get("type", ""))


def draw(view: dict[str, Any], players: int, names: list[str] | None = None) -> SafeString:
    me = view.get("seat")
    trick = view.get("trick")
    places, seat_tags = [], []
    for s in range(players):
        hand = cards(view["hand"]) if s == me and "hand" in view else backs(
            view["hand_sizes"][s])
        said = EMPTY
        if trick and trick["seat"] == s:
            said = bubble(f"plays {trick['count']} × {KEY[trick['rank']]}")
        if s == me and view.get("my_answer"):
            said = bubble(_answer(view["my_answer"]))
        scores = format_html("{}{}", token(view["points"][s], cls="points", title="points"),
                             token(f"+{view['hand_points'][s]}", cls="small",
                                   title="points this hand"))
        mine = view.get("my_exchanges") if s == me else None
        places.append(join([said, area("hand", hand, "hand"), area("points", scores, "points"),
                            *(area("exchange", format_html("{}{}", cards(x["gave"], "mini"),
                                                           cards(x["received"], "mini")),
                                   f"gave {sum(x['gave'].values())} to {seat_word(x['with'])}, "
                                   f"received {sum(x['received'].values())}")
                              for x in mine or ())]))
        tags = [tag(view["titles"][s], "title")]
        if s in view["out"]:
            tags.append(tag(f"out #{view['out'].index(s) + 1}", "good"))
        if s in view["answered"]:
            tags.append(tag("answered"))
        seat_tags.append(tags)
    return draw_table(view, players, places, _middle(view), USED, seat_tags=seat_tags,
                      names=names)


def _middle(view: dict[str, Any]) -> SafeString:
    trick = view.get("trick")
    state = [tag(f"hand {view['hand_number']} of {view['hands']}"), phase(view)]
    if view.get("turn") is not None:
        state.append(tag(f"turn: {seat_word(view['turn'])}"))
    if view["passes"]:
        state.append(tag(f"passes: {view['passes']}"))
    revolution = view.get("revolution")
    if revolution:
        kind = "greater revolution" if revolution.get("greater") else "revolution"
        state.append(tag(f"{kind} by {seat_word(revolution['seat'])}", "claim"))
    if view.get("automatic_revolution"):
        state.append(tag("automatic revolution", "claim"))
    parts = [area("trick", cards(trick["cards"]) if trick else
                  format_html('<span class="muted">{}</span>', "a lead is due"),
                  f"trick of {seat_word(trick['seat'])}" if trick else "trick")]
    if view["exchanges"]:
        parts.append(area("exchanges", join(tag(_exchange(x)) for x in view["exchanges"]),
                          "exchanges this hand"))
    played = join(card(rank, "mini", f"×{n}") for rank, n in view["played"].items() if n)
    parts.append(area("played", played, "played this hand"))
    return format_html("{}{}", join(state), join(parts))
