"""The pieces every game's table is drawn with: card faces and backs, piles, dice and hidden
dice, chips and tokens, speech bubbles and tags, and labelled areas. Each returns escaped HTML
(``format_html``) styled by ``config/static/table.css``; areas hold only inline pieces (spans),
so a test can read an area's contents without an HTML parser."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

NOTHING = mark_safe('<span class="muted">none</span>')
EMPTY = mark_safe("")
#: One card face down (a Dutch slot, a held card nobody else sees).
BACK = mark_safe('<span class="pcard back"></span>')


def face(rank: str, suit: str = "", *, title: str = "", cls: str = "") -> SafeString:
    """A face-up card: its rank large, its suit (or mark) under it."""
    return format_html('<span class="pcard face{}" title="{}"><b>{}</b><i>{}</i></span>',
                       f" {cls}" if cls else "", title or f"{rank}{suit}", rank, suit)


def join(pieces: Iterable[SafeString], empty: SafeString = NOTHING) -> SafeString:
    """Pieces side by side (``empty`` when there are none)."""
    html = format_html_join("", "{}", ((p,) for p in pieces))
    return html or empty


def expand(counts: Mapping[str, int]) -> list[str]:
    """A counts-by-rank mapping as one rank per card, in the mapping's order."""
    return [rank for rank, n in counts.items() for _ in range(n)]


def backs(count: int, title: str = "hidden cards") -> SafeString:
    """A hidden hand: one card back per card, fanned (tighter when many), and how many."""
    if not count:
        return format_html('<span class="count" title="{}">0</span>', title)
    fan = format_html_join("", "{}", ((BACK,) for _ in range(count)))
    return format_html('<span class="fan{}" title="{}">{}</span><span class="count">{}</span>',
                       " many" if count > 8 else "", title, fan, count)


def stack(count: int, title: str) -> SafeString:
    """A face-down pile (draw pile, deck): one back with its size on it."""
    return format_html('<span class="stack" title="{}: {}"><span class="pcard back pile">'
                       '</span><span class="count">{}</span></span>', title, count, count)


def die(value: int) -> SafeString:
    """A die showing ``value`` as pips (pure CSS: no font needed)."""
    pips = mark_safe("<i></i>" * value)
    return format_html('<span class="die pips-{}" title="{}">{}</span>', value, value, pips)


def dice(values: Iterable[int]) -> SafeString:
    return join(map(die, values))


def hidden_dice(count: int) -> SafeString:
    """Dice under the cup: their number, never their faces."""
    return mark_safe('<span class="die hidden" title="hidden die">?</span>' * count)


def token(text: object, *, cls: str = "", title: str = "") -> SafeString:
    """A round chip or token with its number or label."""
    return format_html('<span class="token{}" title="{}">{}</span>',
                       f" {cls}" if cls else "", title or text, text)


def bubble(text: object, cls: str = "") -> SafeString:
    """What a seat says at the table: an offer, a claim, a call, an answer."""
    return format_html('<div class="says"><span class="bubble{}">{}</span></div>',
                       f" {cls}" if cls else "", text)


def tag(text: object, cls: str = "") -> SafeString:
    return format_html('<span class="tag{}">{}</span>', f" {cls}" if cls else "", text)


def phase(view: Mapping[str, object]) -> SafeString:
    """The step of the game under way, as a tag in the middle."""
    return tag(f"phase: {view.get('phase')}", "phase")


def area(name: str, body: SafeString, label: str = "") -> SafeString:
    """A labelled spot of the table (a hand, a pile, a pool); ``data-area`` names it."""
    return format_html('<div class="area" data-area="{}">{}{}</div>', name,
                       format_html('<span class="label">{}</span>', label) if label else "",
                       body)


def count_words(count: int, value: object) -> str:
    """A claim as a player says it: ``2 × 4``."""
    return f"{count} × {value}"
