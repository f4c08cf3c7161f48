"""The table every game is drawn on: a place per seat around a felt middle, the viewing seat at
the bottom (a spectator sees seats clockwise from the top left), whose turn it is lit up, and
under the table every view key the game's drawing did not place, drawn generically, so nothing
the seat may see is lost."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from ..numbering import seat_word
from .generic import HEADER_KEYS, view_html
from .parts import tag

#: Keys the table itself draws for every game (the header, results, forfeits).
TABLE_KEYS = HEADER_KEYS | {"result", "forfeited"}


def seat_order(view: dict[str, Any], players: int) -> tuple[list[int], list[int]]:
    """Seats along the top and the bottom of the table, clockwise as seen from above."""
    me = view.get("seat")
    if me is not None:
        return [(me + k) % players for k in range(1, players)], [me]
    half = (players + 1) // 2
    return list(range(half)), list(range(players - 1, half - 1, -1))


@dataclass(frozen=True)
class Laid:
    """What a drawing put on the table for one view, before it is drawn: each seat's place
    and tags, the middle and the view keys placed (see :func:`laid_out`)."""

    places: Sequence[SafeString]
    middle: SafeString
    used: frozenset[str]
    seat_tags: Sequence[Sequence[SafeString]]


_LAYING: ContextVar[list[Laid] | None] = ContextVar("laying", default=None)


@contextmanager
def laid_out() -> Iterator[list[Laid]]:
    """Inside, :func:`draw_table` draws nothing and keeps what each drawing laid out, so a
    finished match's table can take each seat's place from that seat's own view (every hand
    face up, ``games.drawings.draw_face_up``) without a drawing knowing of it."""
    laid: list[Laid] = []
    token = _LAYING.set(laid)
    try:
        yield laid
    finally:
        _LAYING.reset(token)


def draw_table(view: dict[str, Any], players: int, places: Sequence[SafeString],
               middle: SafeString, used: Iterable[str], *,
               seat_tags: Sequence[Sequence[SafeString]] = (),
               names: Sequence[str] | None = None) -> SafeString:
    """The whole table: ``places[s]`` is what lies in front of seat ``s``, ``middle`` what lies
    between them; ``used`` are the view keys these show (the rest go under the table)."""
    laying = _LAYING.get()
    if laying is not None:
        laying.append(Laid(list(places), middle, frozenset(used), list(seat_tags)))
        return SafeString("")
    top, bottom = seat_order(view, players)

    def row(seats: list[int], side: str) -> SafeString:
        return format_html('<div class="table-row {}">{}</div>', side, format_html_join(
            "", "{}", ((_place(view, s, places[s], seat_tags[s] if seat_tags else (), names),)
                       for s in seats)))

    placed = TABLE_KEYS | set(used)
    rest = {k: v for k, v in view.items() if k not in placed}
    notes = format_html('<div class="table-notes">{}</div>', view_html(rest, players)) \
        if rest else ""
    return format_html('<div class="game-table" data-game="{}">{}<div class="felt">{}</div>'
                       '{}</div>{}', view.get("game", ""), row(top, "top"), middle,
                       row(bottom, "bottom"), notes)


def _place(view: dict[str, Any], seat: int, body: SafeString, extra: Sequence[SafeString],
           names: Sequence[str] | None) -> SafeString:
    """One seat's place: its name slot and tags, then what lies in front of it."""
    classes = "place"
    tags = []
    if seat == view.get("seat"):
        classes += " me"
        tags.append(tag("you", "you"))
    if seat in view.get("to_act", ()):
        classes += " turn"
        tags.append(tag("to act", "turn"))
    if seat in view.get("forfeited", ()):
        tags.append(tag("forfeited", "bad"))
    result = view.get("result")
    if result:
        tags.append(tag(f"rank {result['ranks'][seat]} · score {result['scores'][seat]}",
                        "result"))
    tags.extend(extra)
    name = names[seat] if names and seat < len(names) else ""
    return format_html(
        '<section class="{}" data-seat="{}"><header><strong>{}</strong>{}{}</header>'
        '{}</section>', classes, seat, seat_word(seat).capitalize(),
        format_html(' <span class="name">{}</span>', name) if name else "",
        format_html_join("", " {}", ((t,) for t in tags)), body)
