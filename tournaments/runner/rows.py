"""A series row's life as a games match: the rows a chunk claimed started as matches (or
scored unplayed, for a withdrawn entrant), stored in a few statements, and closed with their
outcome, then the kind's bookkeeping and the withdrawal rule. The loop (``loop``) and the
recording of a match that ended elsewhere (``upkeep``) both close rows here."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from games.db import update_rows
from games.errors import BadSeats
from games.services import matches_save

from ..formats import Outcome
from . import kinds
from .kinds import CANCELLED, FINISHED, RUNNING, Loaded, SeriesKind
from .withdrawal import withdraw_forfeiters, withdraw_unseatable

log = logging.getLogger(__name__)


def start_rows(k: SeriesKind, loaded: Loaded, rows: Sequence[Any], *, now: datetime,
           counts: dict[str, int], unstored: list[tuple[Any, Any]] | None = None
           ) -> list[tuple[Any, Outcome]]:
    """Start claimed ``rows`` as games matches and record those that end here. A withdrawn
    entrant's match is scored unplayed, or played with its seat forfeited if the format plays
    every match (``Format.plays_withdrawn``), or cancelled if its kind drops it
    (``SeriesKind.dropped``: counted nowhere). Stored at once, or put in ``unstored`` for
    :func:`store` (a chain of tables that play apart). Returns the rows closed here, with
    their outcomes."""
    seated = {i for row in rows for i in row.seats}
    withdraw_unseatable(k, loaded, seated)
    for attempt in range(2):
        plans = [(row, k.planned(row, forfeited=loaded.withdrawn)) for row in rows]
        # Cancelled, not scored (a ladder's match of a bot that left before it started).
        for row, plan in plans:
            if plan.forfeited and k.dropped(loaded, plan):
                row.status, row.finished_at, row.lease_until = CANCELLED, now, None
                log.info("%s %s: match %s cancelled: %s out before it started", k.name,
                         loaded.series.pk, plan.key, sorted(plan.forfeited))
        plans = [(row, plan) for row, plan in plans if row.status != CANCELLED]
        plays = loaded.format.plays_withdrawn
        unplayed = [(row, plan) for row, plan in plans if plan.forfeited and not plays]
        to_play = [(row, plan) for row, plan in plans if plays or not plan.forfeited]
        try:
            built = kinds.matches_play(loaded, [plan for _, plan in to_play])
            break
        except BadSeats:  # a bot went away since the check: check every seat again
            if attempt:
                raise
            withdraw_unseatable(k, loaded, seated)
    closed = []
    for row, plan in unplayed:
        closed.append((row, close_row(k, row, loaded.format.score(plan, None, plan.forfeited),
                                      now=now)))
        counts["forfeit"] += 1
    for (row, plan), new in zip(to_play, built):
        row.lease_until, row.status = None, RUNNING
        if new.over:
            out = {plan.seats[n] for n in new.forfeited}
            closed.append((row, close_row(k, row, loaded.format.score(plan, new.result, out),
                                          now=now)))
            counts["finished"] += 1
        else:
            counts["started"] += 1
    made = {id(row): new for (row, _), new in zip(to_play, built)}
    done = [(row, made.get(id(row))) for row in rows]
    if unstored is None:
        store(k, done)
    else:
        unstored += done
    return closed


def store(k: SeriesKind, done: Sequence[tuple[Any, Any]]) -> None:
    """Rows started (with the games match each made, None if scored unplayed), in a few
    statements: their matches, the rows claimed, the rows a chain planned."""
    matches_save([new for _, new in done if new is not None], announce=False)
    for row, new in done:
        if new is not None:
            row.match = new.match
    fields = ["match_id", "lease_until", "status", "finished_at", *k.result_fields]
    update_rows(k.model, [{"pk": row.pk, **{name: getattr(row, name) for name in fields}}
                          for row, _ in done if row.pk], fields=fields)
    k.model.objects.bulk_create([row for row, _ in done if not row.pk])  # a chain's next


def close_row(k: SeriesKind, row: Any, outcome: Outcome, *, now: datetime) -> Outcome:
    row.status, row.finished_at, row.lease_until = FINISHED, now, None
    k.take(row, outcome)
    return outcome


def after_close(k: SeriesKind, loaded: Loaded, rows: Sequence[Any], *, now: datetime) -> None:
    """After rows closed: the kind's bookkeeping (ratings), then the withdrawal rule for those
    who forfeited in them (:func:`withdrawal.withdraw_forfeiters`)."""
    if rows:
        k.closed(loaded, rows, now=now)
        withdraw_forfeiters(k, loaded, rows)
