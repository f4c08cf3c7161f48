"""Who sits at a seat, as every page, chart, replay and API ``name`` field says it: one place.

A person shows by username; a webhook bot by the name its owner gave it and its owner's
username, "dice_bot (alice)"; a reference bot as "heuristic (reference bot)"; an empty
player seat as "open seat". A series' own label for an entrant (a tournament participant's
``name``) is never used here, so entering someone's bot under another label renames nothing.

``games`` never imports the apps that add seat kinds: a kind names its own bots through
``SeatKind.bot_names`` (one query for all the bots of a page), as the webhook kind does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model

from .numbering import seat_word
from .seats import PLAYER, REFERENCE, get_seat_kind

OPEN_SEAT = "open seat"


@dataclass(frozen=True)
class Sitter:
    """Who sits at a seat, as far as naming needs it (a ``Seat``, a ``TableSeat``, a
    tournament participant or a league member all reduce to this: :func:`sitter`)."""

    kind: str
    bot: str = ""
    user_id: int | None = None
    #: The username when the caller already has it (no query).
    username: str | None = None


def sitter(seat: Any) -> Sitter:
    """The :class:`Sitter` of anything with ``kind``, ``bot`` (or ``bot_name``) and
    ``user_id``; a user already loaded with it (``select_related``) costs no query."""
    bot = getattr(seat, "bot_name", None)
    if bot is None:
        bot = getattr(seat, "bot", "") or ""
    user_id = getattr(seat, "user_id", None)
    username = None
    field = getattr(type(seat), "user", None)
    if user_id is not None and hasattr(field, "is_cached") and field.is_cached(seat):
        username = seat.user.get_username()
    return Sitter(kind=seat.kind, bot=str(bot), user_id=user_id, username=username)


def seat_labels(seats: Iterable[Any], *,
                known_bots: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
    """Each seat's label (see the module), in the order given; at most one query for the
    usernames not loaded and one per bot kind, however many seats (pages list hundreds).
    ``known_bots``: labels the caller has already, by kind and bot (a kind whose bots are all
    in it costs no query)."""
    sitters = [s if isinstance(s, Sitter) else sitter(s) for s in seats]
    known_bots = known_bots or {}
    missing = {s.user_id for s in sitters if s.user_id is not None and s.username is None}
    usernames = dict(get_user_model().objects.filter(pk__in=missing)
                     .values_list("pk", "username")) if missing else {}
    bot_names: dict[str, dict[str, str]] = {}
    for kind in {s.kind for s in sitters if s.bot and s.kind not in (PLAYER, REFERENCE)}:
        wanted = {s.bot for s in sitters if s.kind == kind}
        if wanted <= known_bots.get(kind, {}).keys():
            bot_names[kind] = dict(known_bots[kind])
            continue
        try:
            namer = get_seat_kind(kind).bot_names
        except KeyError:
            namer = None
        if namer is not None:
            bot_names[kind] = dict(namer({s.bot for s in sitters if s.kind == kind}))
    return [_label(s, usernames, bot_names) for s in sitters]


def _label(seat: Sitter, usernames: dict[int, str], bot_names: dict[str, dict[str, str]]
           ) -> str:
    if seat.user_id is not None:
        return seat.username or usernames.get(seat.user_id, "deleted user")
    if seat.kind == PLAYER:
        return OPEN_SEAT
    if seat.kind == REFERENCE:
        return f"{seat.bot} (reference bot)"
    if seat.kind in bot_names:
        return bot_names[seat.kind].get(seat.bot, "deleted bot")
    return f"{seat.kind} {seat.bot}".strip()


def distinct_labels(labels: Sequence[str]) -> list[str]:
    """The labels of one match's seats, in seat order, each naming one seat: a label two seats
    share (two copies of a reference bot) gets its seat's number as people read it,
    "random (reference bot, seat 2)", "bob (seat 3)", so a caption, a move or a result says
    which; a label no other seat has is left as it is."""
    repeated = {label for label in labels if labels.count(label) > 1}
    return [_with_seat(label, seat) if label in repeated else label
            for seat, label in enumerate(labels)]


def _with_seat(label: str, seat: int) -> str:
    if label.endswith(")"):
        return f"{label[:-1]}, {seat_word(seat)})"
    return f"{label} ({seat_word(seat)})"


def seat_labels_of(groups: Iterable[Sequence[Any]]) -> list[list[str]]:
    """The labels of several matches' seats (a list page), each group's in its order, with
    the queries of one :func:`seat_labels` call for them all."""
    groups = [list(group) for group in groups]
    labels = iter(seat_labels([seat for group in groups for seat in group]))
    return [[next(labels) for _ in group] for group in groups]


def seat_url(seat: Any) -> str | None:
    """The page of the seat's bot, if its kind has one (``SeatKind.bot_url``; no query)."""
    seat = seat if isinstance(seat, Sitter) else sitter(seat)
    if seat.user_id is not None or not seat.bot:
        return None
    try:
        page = get_seat_kind(seat.kind).bot_url
    except KeyError:
        return None
    return page(seat.bot) if page is not None else None


def seated(seats: Iterable[Any], labels: Sequence[str]) -> list[dict[str, str | None]]:
    """Each seat's ``name`` (its label) and ``url`` (:func:`seat_url`), for the templates
    that link a bot's name to its page (``games/_seated.html``)."""
    return [{"name": label, "url": seat_url(seat)} for seat, label in zip(seats, labels)]


def seat_label(seat: Any) -> str:
    """One seat's label (:func:`seat_labels` for many)."""
    return seat_labels([seat])[0]


__all__ = ["OPEN_SEAT", "Sitter", "distinct_labels", "seat_label", "seat_labels",
           "seat_labels_of", "seat_url", "seated", "sitter"]

