"""DTC at the table: each seat's hand (the viewer's face up, the others as backs) and its
face-up penalty pile; in the middle the draw pile, the pending offer face down (face up only
to its giver) with its claim in the giver's bubble, the claim to beat, and the last call's
turned-up cards."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

from ..numbering import seat_word
from .parts import EMPTY, area, backs, bubble, count_words, expand, face, join, phase, stack, tag
from .table import draw_table

USED = ("phase", "first_player", "variant_2a", "hand_sizes", "pile", "penalty",
        "penalty_sizes", "offer", "to_beat", "last_call", "ended", "hand")


def card(rank: str, cls: str = "") -> SafeString:
    """Values 1..6 as numbers, the Joker as a star."""
    if rank == "joker":
        return face("★", "joker", title="joker", cls=f"joker {cls}".strip())
    return face(rank, title=rank, cls=f"v{rank} {cls}".strip())


def cards(counts: dict[str, int], cls: str = "") -> SafeString:
    return join(card(rank, cls) for rank in expand(counts))


def draw(view: dict[str, Any], players: int, names: list[str] | None = None) -> SafeString:
    me = view.get("seat")
    offer = view.get("offer")
    places, seat_tags = [], []
    for s in range(players):
        hand = (area("hand", cards(view["hand"]), "hand") if s == me and "hand" in view
                else area("hand", backs(view["hand_sizes"][s]), "hand"))
        penalty = (area("penalty", cards(view["penalty"][s], "mini"),
                        f"penalty {view['penalty_sizes'][s]}")
                   if view["penalty_sizes"][s] else EMPTY)
        said = bubble(f"offers {seat_word(offer['to'])}: {count_words(offer['count'], offer['value'])}"
                      ) if offer and offer["giver"] == s else EMPTY
        places.append(format_html("{}{}{}", said, hand, penalty))
        seat_tags.append([tag("first player")] if view["first_player"] == s else [])
    return draw_table(view, players, places, _middle(view), USED, seat_tags=seat_tags,
                      names=names)


def _middle(view: dict[str, Any]) -> SafeString:
    offer, beat, last = view.get("offer"), view.get("to_beat"), view.get("last_call")
    parts = [area("pile", stack(view["pile"], "draw pile"), "draw pile")]
    if offer:
        shown = cards(offer["cards"]) if "cards" in offer else backs(offer["count"], "offered")
        parts.append(area("offer", shown, f"offer {seat_word(offer['giver'])} → {seat_word(offer['to'])}: "
                          f"{count_words(offer['count'], offer['value'])}"))
    if beat:
        parts.append(tag(f"to beat: {count_words(beat['count'], beat['value'])}", "claim"))
    if last:
        verdict = "true" if last["true"] else "a bluff"
        parts.append(area("last-call", cards(last["cards"]),
                          f"{seat_word(last['challenger'])} called {seat_word(last['giver'])}'s "
                          f"{count_words(last['count'], last['value'])}: {verdict}, "
                          f"{seat_word(last['taker'])} takes them"))
    state = [phase(view)]
    if view.get("variant_2a"):
        state.append(tag("variant 2a"))
    if view.get("ended"):
        state.append(tag(f"ended: {view['ended']}", "phase"))
    return format_html("{}{}", join(state), join(parts))
