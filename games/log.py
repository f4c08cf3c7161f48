"""The match log: the one place where the driver's moves are written as log pages and read back
as entries.

Every save of a match (a person's action, a batch of bot moves, a match played to the end in
one go) writes the entries it made as one :class:`~games.models.MatchLogPage` row: a JSON array
in a text column, written by orjson. A row per entry cost far more than its content (their
jsonb, their index entries: docs/performance.md); a text column because PostgreSQL parses
and compresses a large jsonb value several times slower than text, and nobody queries inside
the log with SQL; compressed with lz4 on PostgreSQL (migration 0010).

An entry (:class:`LogEntry`) holds what ``games.driver.Entry`` says, and its page's
``created_at``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from .driver import Entry, Move
from .models import MatchLogPage

JSON = dict[str, Any]

#: Pages read from the database at a time (a page holds one save's entries: one for a
#: person's action, up to a whole match for bots).
PAGES_AT_ONCE = 50


@dataclass(slots=True)
class LogEntry(Entry):
    """A stored entry of a match's log, with the time its page was written."""

    created_at: datetime


def page_row(match_id: int, moves: Sequence[Move]) -> dict[str, Any]:
    """The ``MatchLogPage`` row (for ``games.db.insert_rows``) of one save's ``moves``."""
    return {"match_id": match_id, "first": moves[0].n, "last": moves[-1].n,
            "event_count": moves[-1].event_count,
            "entries": orjson.dumps([
                {"n": m.n, "kind": m.kind, "seat": m.seat, "action": m.action,
                 "events": m.events, "event_count": m.event_count} for m in moves]).decode()}


def entries(match_id: int, *, since: int = 0, until: int | None = None,
            events_after: int | None = None) -> Iterator[LogEntry]:
    """The entries of a match in order, from ``n >= since`` to ``n <= until``; with
    ``events_after``, only those that hold engine events after that count. Read page by page:
    a long match's log is never all in memory."""
    pages = MatchLogPage.objects.filter(match_id=match_id)
    if since > 0:
        pages = pages.filter(last__gte=since)
    if until is not None:
        pages = pages.filter(first__lte=until)
    if events_after is not None:
        pages = pages.filter(event_count__gt=events_after)
    for page in pages.order_by("first").iterator(chunk_size=PAGES_AT_ONCE):
        for entry in page_entries(page):
            if entry.n < since or (events_after is not None
                                   and entry.event_count <= events_after):
                continue
            if until is not None and entry.n > until:
                return
            yield entry


def page_entries(page: MatchLogPage) -> list[LogEntry]:
    """The entries one page holds."""
    return [LogEntry(n=e["n"], kind=e["kind"], seat=e["seat"], action=e["action"],
                     events=e["events"], event_count=e["event_count"],
                     created_at=page.created_at)
            for e in orjson.loads(page.entries)]


__all__ = ["LogEntry", "entries", "page_entries", "page_row"]
