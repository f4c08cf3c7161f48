"""Le Dutch at the table: each seat's face-down slots (a slot face up only where the view
knows its card, with who knows it), its total and whether it said "J'ai terminé"; the card in
hand by the seat on turn; in the middle the draw pile, the face-up discard and the snap or
power step under way."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from ..numbering import seat_word
from .parts import BACK, area, bubble, face, join, phase, stack, tag, token
from .table import draw_table

USED = ("round", "rounds", "first_player", "phase", "current", "hands", "pile", "discard",
        "discard_top_dead", "held", "held_from", "first_done", "totals", "snap", "power",
        "power_card", "history")
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card(name: str, cls: str = "") -> SafeString:
    """``"QH"`` as Q♥ (hearts and diamonds red), ``"Joker"`` as a starred card."""
    if name == "Joker":
        return face("★", "Joker", title="Joker", cls=f"joker {cls}".strip())
    rank, suit = name[:-1], name[-1]
    red = " red" if suit in "HD" else ""
    return face(rank, SUITS.get(suit, suit), title=name, cls=f"{cls}{red}".strip())


def said(name: str) -> str:
    """A card as text in a bubble: ``Q♥``."""
    return name if name == "Joker" else name[:-1] + SUITS.get(name[-1], name[-1])


def _slot(slot: dict[str, Any]) -> SafeString:
    known = ", ".join(map(seat_word, slot["known_by"])) or "nobody"
    shown = card(slot["card"]) if slot["card"] is not None else BACK
    return format_html('<span class="slot" title="slot {}, known by {}">{}<small>#{}{}</small>'
                       '</span>', slot["slot"], known, shown, slot["slot"],
                       format_html(" · seen by {}", known) if slot["known_by"] else "")


def draw(view: dict[str, Any], players: int, names: list[str] | None = None) -> SafeString:
    me, snap = view.get("seat"), view.get("snap")
    places, seat_tags = [], []
    for hand in view["hands"]:
        s = hand["seat"]
        slots = format_html_join("", "{}", ((_slot(x),) for x in hand["slots"]))
        body = [area("hand", slots, f"slots ({len(hand['slots'])})")]
        if s == view["current"] and view.get("held_from"):
            held = card(view["held"]) if view.get("held") else BACK
            body.insert(0, area("held", held, f"in hand, from the {view['held_from']}"))
        if snap and snap["discarder"] == s:
            body.insert(0, bubble(f"discards {said(snap['card'])}: snap?"))
        if snap and s == me and snap.get("my_answer"):
            answer = snap["my_answer"]
            body.insert(0, bubble("snaps slot #{}".format(answer["slot"]["slot"])
                                  if answer["type"] == "snap" else "passes"))
        if view.get("power") and s == view["current"]:
            body.insert(0, bubble(f"{view['power']} power ({said(view['power_card'])})"))
        rounds = " + ".join(str(scores[s]) for scores in view["history"])
        body.append(area("total", token(view["totals"][s], cls="points", title="total points"),
                         f"total (rounds: {rounds})" if rounds else "total"))
        places.append(join(body))
        tags = []
        if s == view["first_player"]:
            tags.append(tag("first player"))
        if hand["done"]:
            tags.append(tag("J'ai terminé" + (" (first)" if view["first_done"] == s else ""),
                            "claim"))
        if snap and s in snap["asked"]:
            tags.append(tag("may snap"))
        seat_tags.append(tags)
    return draw_table(view, players, places, _middle(view), USED, seat_tags=seat_tags,
                      names=names)


def _middle(view: dict[str, Any]) -> SafeString:
    state = [tag(f"round {view['round']} of {view['rounds']}"), phase(view)]
    if view.get("discard_top_dead"):
        state.append(tag("top discard is dead", "bad"))
    discard = join(card(name, "stacked") for name in view["discard"])
    parts = [area("pile", stack(view["pile"], "draw pile"), "draw pile"),
             area("discard", discard, f"discard ({len(view['discard'])}, top last)")]
    return format_html("{}{}", join(state), join(parts))
