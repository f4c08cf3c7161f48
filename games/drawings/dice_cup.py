"""Dice cup bluff at the table: each seat's chips (number and points) and score, the roller's
cup (its dice face up only when the view holds them, else hidden dice), the call in the
roller's bubble; in the middle the chips still there and how the last turn went."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.engine.dice_cup import POINTS

from ..numbering import seat_word
from .parts import area, bubble, dice, hidden_dice, join, phase, tag, token
from .table import draw_table

USED = ("phase", "roller", "turn", "turn_cap", "target_points", "middle", "chips", "points",
        "dice", "dice_revealed", "call", "last", "honesty", "answers", "end_reason")
DICE_PER_ROLL = 3  # DC: the roller rolls three dice


def chips(numbers: list[int]) -> SafeString:
    """Chips by number, their points as dots under the number."""
    return join(token(format_html("{}<small>{}</small>", n, "•" * POINTS.get(n, 0)),
                      cls="chip-token", title=f"chip {n}: {POINTS.get(n, 0)} points")
                for n in numbers)


def draw(view: dict[str, Any], players: int, names: list[str] | None = None) -> SafeString:
    call, phase = view.get("call"), view["phase"]
    places, seat_tags = [], []
    for s in range(players):
        body = []
        if s == view["roller"] and phase != "over":
            cup = dice(view["dice"]) if view.get("dice") else hidden_dice(DICE_PER_ROLL)
            label = "dice, shown" if view.get("dice_revealed") else "cup"
            if call:
                body.append(bubble(f"calls {call['number']} on {seat_word(call['target'])}"
                                   + (" (its own chip)" if call["from_target"] else "")))
            body.append(area("cup", cup, label))
        body.append(area("chips", chips(view["chips"][s]), "chips"))
        true, bluffs = view["honesty"][s]
        truth, bluff = view["answers"][s]
        body.append(area("record", format_html(
            "{}{}", token(view["points"][s], cls="points", title="points"),
            format_html('<small class="muted">calls {} true / {} bluffs · said truth {} / '
                        'bluff {}</small>', true, bluffs, truth, bluff)), "points"))
        places.append(join(body))
        tags = []
        if call and call["target"] == s and phase == "answer":
            tags.append(tag("truth or bluff?", "claim"))
        seat_tags.append(tags)
    return draw_table(view, players, places, _middle(view), USED, seat_tags=seat_tags,
                      names=names)


def _last(last: dict[str, Any], phase: str) -> str:
    """The last turn (in the give step, this one) as a sentence."""
    if last["kind"] == "trade":
        given = ", ".join(map(str, last["give"]))
        return f"{seat_word(last['roller'])} traded chips {given} for chip {last['take']}"
    said = (f"{seat_word(last['roller'])} called {last['number']} on {seat_word(last['target'])}, "
            f"who said {last['answer']}: the call was "
            f"{'true' if last['truthful'] else 'a bluff'}")
    if last.get("scorer") is not None:
        said += f"; {seat_word(last['scorer'])} takes chip {last['number']}"
    if last.get("gave") is not None:
        said += f"; {seat_word(last['roller'])} gives chip {last['gave']}"
    elif phase == "give":
        said += f"; {seat_word(last['target'])} keeps its chip and {seat_word(last['roller'])} gives it one"
    return said


def _middle(view: dict[str, Any]) -> SafeString:
    state = [tag(f"turn {view['turn']} of {view['turn_cap']}"), phase(view)]
    if view.get("target_points") is not None:
        state.append(tag(f"first to {view['target_points']} points"))
    if view.get("end_reason"):
        state.append(tag(f"ended: {view['end_reason']}", "phase"))
    parts = [area("middle", chips(view["middle"]), "middle")]
    last = view.get("last")
    if last:
        parts.append(area("last", dice(last["dice"]), _last(last, view["phase"])))
    return format_html("{}{}", join(state), join(parts))
