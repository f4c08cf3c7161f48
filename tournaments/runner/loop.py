"""The series runner's loop: the one loop every series plays through, a tournament or a league
night alike (docs/series.md has the diagram and the policies).

A kind of series (:class:`kinds.SeriesKind`: ``runner.tournament``, ``leagues.night_kind``)
says where its rows and entrants are and how an outcome is stored on a row; its format says
what to start and when it is over, from the finished matches, those in flight and the time.
The rest is here, once: planning (keys unique per series, so two workers planning at once store
each match once), claiming (``FOR UPDATE SKIP LOCKED``: a task run twice plays a match once),
recording what ends in a chunk, finishing, cancelling. Starting a chunk's rows as games
matches and closing them with their outcomes is ``rows``'; recording a match that ended
elsewhere (once, under the row's lock), the receiver and the reaper are ``upkeep``'s; the
withdrawal rule is ``withdrawal``'s.
A transaction that may wait on a lock a silent worker host holds waits at most
``TOURNAMENT_RECORD_LOCK_SECONDS``, then gives way to the reaper."""

from __future__ import annotations

import logging
import time as clock
from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from games.db import locks_waited_at_most
from games.services import match_stop
from lib.clock import platform_now

from ..formats import Outcome, SeriesState
from . import kinds
from .kinds import CANCELLED, FINISHED, OPEN, PENDING, RUNNING, Loaded, SeriesKind, get_kind
from .rows import after_close, start_rows, store

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Matches of in-process bots chained by one chunk (a table's next match planned and played
#: as soon as its last ends) are stored in one transaction for at most this long.
BATCH_SECONDS = 1.0
#: A play task goes on with further chunks for at most this long, then queues itself again.
TASK_SECONDS = 60.0
_NOTHING = {"started": 0, "finished": 0, "forfeit": 0}


def bounded(work: Callable[[], T], held: Callable[[], T]) -> T:
    """``work()`` in a transaction waiting at most ``TOURNAMENT_RECORD_LOCK_SECONDS`` for a
    lock (if it is a transaction of its own), else ``held()``."""
    return locks_waited_at_most(settings.TOURNAMENT_RECORD_LOCK_SECONDS, work, held=held,
                                bounded=not transaction.get_connection().in_atomic_block)


def _open_rows(k: SeriesKind, series_id: int) -> QuerySet[Any]:
    """The pending rows of a running series."""
    return k.rows(series_id).filter(status=PENDING, **{f"{k.link}__status": RUNNING})


# ------------------------------------------------------------------------------------------
# Plan, dispatch, settle
# ------------------------------------------------------------------------------------------


def advance(*, kind: str, series_id: int, now: datetime | None = None) -> int:
    """Ask a running series' format what to start, and queue play tasks for every pending row
    (its start); finish it if it is over. Returns how many play tasks were queued."""
    now = now or platform_now()
    settle(get_kind(kind), series_id, now=now, wait=True, queue=False)
    return dispatch(kind=kind, series_id=series_id, now=now)


def dispatch(*, kind: str, series_id: int, now: datetime | None = None,
             lost_only: bool = False) -> int:
    """Queue a play task per chunk of a running series' pending rows, leasing them for
    ``TOURNAMENT_LEASE_SECONDS`` (their message may wait that long); rows a chunk holds are
    skipped. ``lost_only`` (the reaper): only rows whose lease ran out. Returns tasks queued."""
    k, now = get_kind(kind), now or platform_now()
    pending = _open_rows(k, series_id)
    if lost_only:
        pending = pending.filter(Q(lease_until__lt=now) | Q(lease_until__isnull=True))
    free = pending.select_for_update(skip_locked=True, of=("self",)).values("pk")
    with transaction.atomic():
        count = k.model.objects.filter(pk__in=free).update(lease_until=kinds.lease_until(now))
    tasks = -(-count // k.chunk())
    for _ in range(tasks):
        kinds.enqueue("play", kind, series_id)
    return tasks


def plan_next(k: SeriesKind, loaded: Loaded, *, now: datetime,
              lanes: Collection[int] | None = None, state: SeriesState | None = None,
              store: bool = True) -> Any:
    """Store what the format starts now (only on ``lanes``' tables, if given; a key planned
    twice is stored once), asking it with ``state`` or, by default, the series as stored.
    Without ``lanes`` (under the series row's lock) finish the series if the format says it
    is over. Returns how many it planned, -1 if it finished; or (``store`` False) the
    planned matches themselves, not stored."""
    if state is None:
        rows = k.rows(loaded.series.pk)
        counts = dict(rows.values_list("status").annotate(n=Count("pk"))
                      .values_list("status", "n"))
        state = SeriesState(
            now=now, finished=counts.get(FINISHED, 0),
            open=counts.get(PENDING, 0) + counts.get(RUNNING, 0), withdrawn=loaded.withdrawn,
            outcomes=lambda: {o.key: o for o in k.outcomes(loaded)},
            running=lambda: {m.key: m for m in map(k.planned, rows.filter(status__in=OPEN))})
    plan = loaded.format.next(state)
    start = [m for m in plan.start if lanes is None or m.table in lanes]
    if not store:
        return start
    if start:
        # In the kind's order: two planners storing the same keys at once insert them in one
        # order, so one waits for the other, never each for the other (a deadlock).
        rows = sorted((k.new_row(loaded, m) for m in start),
                      key=lambda row: tuple(getattr(row, name) for name in k.order))
        k.model.objects.bulk_create(rows, ignore_conflicts=True)
        return len(start)
    if plan.over and lanes is None:
        k.finish(loaded, now=now)
        # Stamped when it happens: ``now`` is when the chunk began (or a reaper's clock).
        k.series_model.objects.filter(pk=loaded.series.pk, status=RUNNING).update(
            status=FINISHED, finished_at=max(now, timezone.now()))
        return -1
    return 0


def plan_lane(k: SeriesKind, loaded: Loaded, *, now: datetime, lanes: Collection[int]) -> int:
    """Plan the next matches of the tables whose last match just ended, without the series
    row's lock, where that is safe: tables that play apart (a league night's: a table's next
    depends on that table alone) and formats whose keys are fixed (``Format.keys_fixed``),
    so two planners store the same rows. A format planning from what is in flight (a
    continuous one, a ladder) is left to :func:`settle`, under the lock, at the end of the
    transaction: two planners reading it at different moments would store different matches
    under one key, or deadlock inserting them. Returns how many it planned."""
    if k.tables_apart or loaded.format.keys_fixed:
        return plan_next(k, loaded, now=now, lanes=lanes)
    return 0


def settle(k: SeriesKind, series_id: int, *, now: datetime, wait: bool = False,
           queue: bool = True, loaded: Loaded | None = None) -> bool:
    """At the end of every transaction that closes matches: under the series row's lock, plan
    what comes next (queued once this commits, if ``queue``) or finish the series. A closing
    transaction never waits for that lock (``wait`` False): held by another, this runs again
    once it commits, waiting at most ``TOURNAMENT_RECORD_LOCK_SECONDS`` (else the reaper
    comes). Locks are taken rows first, then the series row. True if it did something."""

    def work() -> bool:
        running = k.series_model.objects.filter(pk=series_id, status=RUNNING)
        # FOR NO KEY UPDATE: one settler at a time, while a chunk storing rows that refer to
        # the series (their foreign key's KEY SHARE lock) goes on; FOR UPDATE would make it
        # wait for us while we wait for a key it stored (a deadlock, seen under load).
        row = running.select_for_update(skip_locked=not wait, of=("self",),
                                        no_key=True).first()
        if row is None:
            if not wait and running.exists():  # held by another: again after our commit
                transaction.on_commit(lambda: settle(k, series_id, now=now, wait=True),
                                      robust=True)
            return False
        if loaded is not None:
            k.refresh(loaded)  # the chunk's or the recording's: who left since
        planned = plan_next(k, loaded or k.load(row), now=now)
        if planned > 0 and queue:
            transaction.on_commit(lambda: dispatch(kind=k.name, series_id=series_id, now=now))
        return bool(planned)

    if not wait:
        return work()
    return bounded(work, held=lambda: log.info(
        "%s %s: its row is held; the reaper settles it", k.name, series_id) or False)


# ------------------------------------------------------------------------------------------
# Play: claim a chunk, start it, record what ends here
# ------------------------------------------------------------------------------------------


def play(*, kind: str, series_id: int, limit: int | None = None, only: int | None = None,
         now: datetime | None = None, once: bool = False) -> dict[str, int]:
    """Claim up to ``limit`` (the kind's chunk) pending rows of a running series in order,
    skipping rows another worker holds, and start them as games matches in one transaction;
    in-process matches end here, are recorded, and their tables' next matches are planned and
    played on in the same transaction for up to :data:`BATCH_SECONDS`. Then the next chunk,
    for up to :data:`TASK_SECONDS` (``once``: one chunk; ``only``: that one row). A chunk
    that waits too long for a lock is rolled back, its rows due for the reaper at once.
    Returns counts by outcome."""
    k, total = get_kind(kind), dict(_NOTHING)
    stop_at = clock.monotonic() + TASK_SECONDS
    while True:
        done = _play_chunk(k, series_id, limit=limit or k.chunk(), only=only,
                           now=now or platform_now())
        total = {key: total[key] + done[key] for key in total}
        if not any(done.values()) or only is not None or once:
            return total
        if clock.monotonic() > stop_at:
            kinds.enqueue("play", kind, series_id)
            return total


class _CancelledMeanwhile(Exception):
    """A chunk's series was cancelled while it played: roll it back."""


def _play_chunk(k: SeriesKind, series_id: int, *, limit: int, only: int | None,
                now: datetime) -> dict[str, int]:
    pending = _open_rows(k, series_id)
    if only is not None:
        pending = pending.filter(pk=only)
    claim = pending.select_for_update(skip_locked=True, of=("self",)).order_by(*k.order)
    if not transaction.get_connection().in_atomic_block:
        # Committed first: a worker killed inside the chunk leaves its rows to the reaper
        # within a claim lease, not the long lease of their queued message.
        soon = now + timedelta(seconds=settings.TOURNAMENT_CLAIM_LEASE_SECONDS)
        with transaction.atomic():
            k.model.objects.filter(pk__in=claim.values("pk")[:limit],
                                   lease_until__gt=soon).update(lease_until=soon)
    claimed: list[int] = []

    def held() -> dict[str, int]:
        log.warning("%s %s: a chunk waited too long for a lock; rolled back, the reaper "
                    "queues its matches again", k.name, series_id)
        with transaction.atomic():
            k.model.objects.filter(pk__in=claimed, status=PENDING,
                                   lease_until__gt=now).update(lease_until=now)
        return dict(_NOTHING)

    try:
        return bounded(lambda: _chunk(k, series_id, list(claim[:limit]), limit=limit,
                                      now=now, claimed=claimed), held=held)
    except _CancelledMeanwhile:
        cancel_open(kind=k.name, series_id=series_id)
        return dict(_NOTHING)


def _chunk(k: SeriesKind, series_id: int, rows: list[Any], *, limit: int, now: datetime,
           claimed: list[int]) -> dict[str, int]:
    """The chunk's transaction: start ``rows``, record what ends here, chain its tables."""
    counts = dict(_NOTHING)
    if not rows:
        return counts
    loaded = k.load(k.series_model.objects.get(pk=series_id))
    batch_end, closed, chained = clock.monotonic() + BATCH_SECONDS, [], False
    #: Tables that play apart: their outcomes, read once and kept up as they end here; the
    #: rows and matches started, stored together at the end.
    apart: dict[str, Outcome] | None = None
    unstored: list[tuple[Any, Any]] | None = [] if k.tables_apart else None
    while rows:
        claimed.extend(r.pk for r in rows if r.pk)
        k.model.objects.filter(pk__in=[r.pk for r in rows if r.pk]).update(
            status=RUNNING, attempts=F("attempts") + 1, lease_until=kinds.lease_until(now))
        ended = start_rows(k, loaded, rows, now=now, counts=counts, unstored=unstored)
        closed += [row for row, _ in ended]
        lanes = {k.lane(row) for row, _ in ended}
        if not lanes or clock.monotonic() > batch_end:
            break
        k.refresh(loaded)  # who left since: seated forfeited from the next match on
        if k.tables_apart:  # nobody else plays the tables this chunk holds: their next
            # matches are planned from what it read and played, and stored as they start
            if apart is None:
                apart = {o.key: o for o in k.outcomes(loaded, tables=lanes)}
            apart.update((o.key, o) for _, o in ended)
            rows = [k.new_row(loaded, m) for m in plan_next(
                k, loaded, now=now, lanes=lanes, store=False, state=SeriesState(
                    now=now, finished=len(apart), open=0, withdrawn=loaded.withdrawn,
                    outcomes=lambda known=apart: known))]
            for row in rows:
                row.status, row.attempts = RUNNING, 1
            continue
        if not plan_lane(k, loaded, now=now, lanes=lanes):
            break
        chained = True
        rows = list(_open_rows(k, series_id).filter(**k.on_lanes(lanes))
                    .select_for_update(skip_locked=True, of=("self",))
                    .order_by(*k.order)[:limit])
    if unstored:
        store(k, unstored)
    if k.series_model.objects.filter(pk=series_id, status=CANCELLED).exists():
        raise _CancelledMeanwhile()  # nothing of it counts; its rows are cancelled after
    after_close(k, loaded, closed, now=now)
    settle(k, series_id, now=now, loaded=loaded)
    if chained:  # what the chain planned and did not claim: any worker may take it
        transaction.on_commit(lambda: dispatch(kind=k.name, series_id=series_id))
    return counts


# ------------------------------------------------------------------------------------------
# Cancel
# ------------------------------------------------------------------------------------------


def cancel_open(*, kind: str, series_id: int) -> int:
    """Cancel the open rows of a cancelled series and stop their matches (every seat
    forfeits). Rows a chunk holds are skipped: it sees the cancel and rolls back, or the
    reaper comes back. Returns how many rows."""
    k = get_kind(kind)
    with transaction.atomic():
        rows = list(k.rows(series_id).filter(status__in=OPEN, **{f"{k.link}__status": CANCELLED})
                    .select_for_update(skip_locked=True, of=("self",))
                    .values_list("pk", "status", "match_id"))
        k.model.objects.filter(pk__in=[pk for pk, _, _ in rows]).update(
            status=CANCELLED, lease_until=None, finished_at=timezone.now())
    for _, status, match_id in rows:
        if status == RUNNING and match_id is not None:
            match_stop(match_id=match_id, reason=f"{k.label} cancelled")
    return len(rows)
