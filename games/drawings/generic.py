"""Any view (plain JSON) drawn as labelled parts, with dice as dice, card counts as cards and
per-seat lists as rows of seats: the drawing of a game without its own, and of the keys a game's
drawing does not place (so nothing a seat may see is lost). Every value is escaped."""

from __future__ import annotations

from typing import Any

from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from ..numbering import seat_word
from .parts import dice

#: Keys every view has; the page shows them in its header instead.
HEADER_KEYS = {"game", "players", "seat", "moves", "to_act", "is_over"}
DICE_KEYS = {"dice", "my_dice", "roll"}


def view_html(view: dict[str, Any], players: int) -> SafeString:
    """The view's parts, in the engine's order."""
    return _mapping({k: v for k, v in view.items() if k not in HEADER_KEYS}, players)


def _mapping(data: dict[str, Any], players: int) -> SafeString:
    rows = format_html_join("", "<dt>{}</dt><dd>{}</dd>",
                            ((key.replace("_", " "), _value(key, value, players))
                             for key, value in data.items()))
    return format_html('<dl class="view">{}</dl>', rows)


def _value(key: str, value: Any, players: int) -> SafeString:
    if value is None:
        return mark_safe('<span class="muted">–</span>')
    if isinstance(value, bool):
        return mark_safe("yes" if value else "no")
    if isinstance(value, (int, float, str)):
        return escape(value)
    if key in DICE_KEYS and isinstance(value, list) and all(
            isinstance(d, int) and 1 <= d <= 6 for d in value):
        return dice(value)
    if isinstance(value, dict):
        if value and all(isinstance(v, int) and not isinstance(v, bool)
                         for v in value.values()):
            return _cards(value)
        return _mapping(value, players)
    if isinstance(value, list):
        if len(value) == players and players > 1 and any(
                isinstance(v, (list, dict)) for v in value):
            return format_html('<table class="seats">{}</table>', format_html_join(
                "", "<tr><th>{}</th><td>{}</td></tr>",
                ((seat_word(seat), _value(key, v, players)) for seat, v in enumerate(value))))
        if all(not isinstance(v, (list, dict)) for v in value):
            return format_html_join(" ", '<span class="chip">{}</span>',
                                    ((_value(key, v, players),) for v in value)) or \
                mark_safe('<span class="muted">none</span>')
        return format_html_join("", "<div>{}</div>", ((_value(key, v, players),)
                                                      for v in value))
    return escape(repr(value))


def _cards(counts: dict[str, int]) -> SafeString:
    """A counts-by-rank mapping (a hand, a pile): a card per rank held, with its count."""
    held = [(rank, n) for rank, n in counts.items() if n]
    if not held:
        return mark_safe('<span class="muted">none</span>')
    return format_html_join(" ", '<span class="card-face">{}<small>×{}</small></span>', held)
