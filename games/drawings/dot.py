"""D.O.T at the table: each seat's hand (the viewer's face up, the other's as backs), draw
pile, remaining star cards, face-up pool with its dots, tokens won and whether it has
committed; in the middle the round's rule, the tokens on offer and the last shared pool with
how each colour was scored. A card shows its blue, black and red dots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from ..numbering import seat_word
from .parts import area, backs, bubble, join, phase, stack, tag, token
from .table import draw_table

USED = ("round", "phase", "rule", "pot", "supply", "unclaimed", "tokens", "token_totals",
        "pools", "pool_dots", "stars_left", "hand_sizes", "deck_sizes", "discarded",
        "committed", "discard", "last_round", "winner", "hand", "my_commit")
COLOURS = ("blue", "black", "red")
ROUNDS = 3


def card(key: str, cls: str = "") -> SafeString:
    """A card as its dots, one row per colour (a star card holds four of one colour), and
    its code, which the actions name ("012": blue, black, red)."""
    rows = format_html_join("", '<i class="{}">{}</i>',
                            ((colour, "●" * int(n)) for colour, n in zip(COLOURS, key)))
    star = " star" if "4" in key else ""
    title = ", ".join(f"{n} {colour}" for colour, n in zip(COLOURS, key))
    return format_html('<span class="pcard face dotcard{}{}" title="{}: {}">{}'
                       '<small class="code">{}</small></span>',
                       star, f" {cls}" if cls else "", key, title, rows, key)


def cards(keys: Sequence[str], cls: str = "") -> SafeString:
    return join(card(key, cls) for key in keys)


def tokens(counts: Sequence[int], what: str) -> SafeString:
    """Tokens per colour, each with its count."""
    return join(token(n, cls=colour, title=f"{n} {colour} {what}")
                for colour, n in zip(COLOURS, counts))


def dots(counts: Sequence[int]) -> str:
    return " / ".join(f"{n} {colour}" for colour, n in zip(COLOURS, counts))


def draw(view: dict[str, Any], players: int, names: list[str] | None = None) -> SafeString:
    me, step, commit = view.get("seat"), view.get("discard"), view.get("my_commit")
    places, seat_tags = [], []
    for s in range(players):
        body = []
        if step and step["seat"] == s:
            body.append(bubble(f"removes {step['count']} from {seat_word(step['pool'])}'s pool"))
        if s == me and commit:
            body.append(bubble(format_html("commits star {}, shared {}", commit["star"],
                                           " ".join(commit["shared"]))))
        hand = cards(view["hand"]) if s == me and "hand" in view else backs(
            view["hand_sizes"][s])
        body += [area("hand", hand, "hand"),
                 area("deck", stack(view["deck_sizes"][s], "draw pile"), "draw pile"),
                 area("stars", cards(view["stars_left"][s], "mini"), "stars left"),
                 area("pool", cards(view["pools"][s]),
                      f"pool: {dots(view['pool_dots'][s])}"),
                 area("tokens", tokens(view["tokens"][s], "tokens won"),
                      f"tokens: {view['token_totals'][s]}")]
        if view["discarded"][s]:
            body.append(area("discarded", cards(view["discarded"][s], "mini"), "discarded"))
        places.append(join(body))
        tags = []
        if view["committed"][s]:
            tags.append(tag("committed", "good"))
        if view.get("winner") == s:
            tags.append(tag("wins with five tokens", "good"))
        seat_tags.append(tags)
    return draw_table(view, players, places, _middle(view), USED, seat_tags=seat_tags,
                      names=names)


def _middle(view: dict[str, Any]) -> SafeString:
    state = [tag(f"round {view['round']} of {ROUNDS}"),
             tag(f"{view['rule']} difference wins", "claim"), phase(view)]
    parts = [area("pot", tokens(view["pot"], "on offer"), "tokens on offer"),
             area("supply", tokens(view["supply"], "in the supply"), "supply")]
    if any(view["unclaimed"]):
        parts.append(area("unclaimed", tokens(view["unclaimed"], "unclaimed"), "unclaimed"))
    last = view.get("last_round")
    if last:
        shared = [key for keys in last["shared"] for key in keys]
        parts.append(area("shared", cards(shared),
                          f"shared pool of round {last['round']}: {dots(last['shared_dots'])}"))
        parts += [area("added", cards(added, "mini"), f"{seat_word(seat)} added to its pool: "
                       f"{dots(last['own_dots'][seat])}")
                  for seat, added in enumerate(last["pool_added"])]
        parts.append(area("scoring", join(tag(_scored(x)) for x in last["scoring"]),
                          f"round {last['round']} ({last['rule']} difference)"))
    return format_html("{}{}", join(state), join(parts))


def _scored(line: dict[str, Any]) -> str:
    diffs = " vs ".join(map(str, line["differences"]))
    if line["outcome"] == "won":
        return f"{line['colour']} {diffs}: {seat_word(line['winner'])} wins {line['tokens']}"
    return f"{line['colour']} {diffs}: {line['outcome']}"
