"""The series runner: the one loop every series plays through, a tournament or a league night
alike (docs/series.md has the diagram and the policies).

A kind of series (:class:`series.SeriesKind`: ``tournament_kind``, ``night_kind``) says where
its rows and entrants are and how an outcome is stored on a row; its format says what to
start and when it is over, from the finished matches, those in flight and the time. The rest
is here, once: planning (keys unique per series, so two workers planning at once store each
match once), claiming (``FOR UPDATE SKIP LOCKED``: a task run twice plays a match once), the
withdrawal rule, recording (once, under the row's lock), finishing, cancelling, the reaper.
A transaction that may wait on a lock a silent worker host holds waits at most
``TOURNAMENT_RECORD_LOCK_SECONDS``, then gives way to the reaper.
"""

from __future__ import annotations

import logging
import time as clock
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from games.db import locks_waited_at_most, update_rows
from games.errors import BadSeats
from games.models import Match
from games.seats import PLAYER, get_seat_kind
from games.services import match_stop, matches_save

from . import series
from .formats import Outcome, SeriesState
from .series import CANCELLED, FINISHED, OPEN, PENDING, RUNNING, Loaded, SeriesKind, get_kind

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Matches of in-process bots chained by one chunk (a table's next match planned and played
#: as soon as its last ends) are stored in one transaction for at most this long.
BATCH_SECONDS = 1.0
#: A play task goes on with further chunks for at most this long, then queues itself again.
TASK_SECONDS = 60.0
_NOTHING = {"started": 0, "finished": 0, "forfeit": 0}


def _bounded(work: Callable[[], T], held: Callable[[], T]) -> T:
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
    now = now or timezone.now()
    _settle(get_kind(kind), series_id, now=now, wait=True, queue=False)
    return dispatch(kind=kind, series_id=series_id, now=now)


def dispatch(*, kind: str, series_id: int, now: datetime | None = None,
             lost_only: bool = False) -> int:
    """Queue a play task per chunk of a running series' pending rows, leasing them for
    ``TOURNAMENT_LEASE_SECONDS`` (their message may wait that long); rows a chunk holds are
    skipped. ``lost_only`` (the reaper): only rows whose lease ran out. Returns tasks queued."""
    k, now = get_kind(kind), now or timezone.now()
    pending = _open_rows(k, series_id)
    if lost_only:
        pending = pending.filter(Q(lease_until__lt=now) | Q(lease_until__isnull=True))
    free = pending.select_for_update(skip_locked=True, of=("self",)).values("pk")
    with transaction.atomic():
        count = k.model.objects.filter(pk__in=free).update(lease_until=series.lease_until(now))
    tasks = -(-count // k.chunk())
    for _ in range(tasks):
        series.enqueue("play", kind, series_id)
    return tasks


def _plan(k: SeriesKind, loaded: Loaded, *, now: datetime,
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
        k.model.objects.bulk_create([k.new_row(loaded, m) for m in start],
                                    ignore_conflicts=True)
        return len(start)
    if plan.over and lanes is None:
        k.finish(loaded, now=now)
        # Stamped when it happens: ``now`` is when the chunk began (or a reaper's clock).
        k.series_model.objects.filter(pk=loaded.series.pk, status=RUNNING).update(
            status=FINISHED, finished_at=max(now, timezone.now()))
        return -1
    return 0


def _settle(k: SeriesKind, series_id: int, *, now: datetime, wait: bool = False,
            queue: bool = True, loaded: Loaded | None = None) -> bool:
    """At the end of every transaction that closes matches: under the series row's lock, plan
    what comes next (queued once this commits, if ``queue``) or finish the series. A closing
    transaction never waits for that lock (``wait`` False): held by another, this runs again
    once it commits, waiting at most ``TOURNAMENT_RECORD_LOCK_SECONDS`` (else the reaper
    comes). Locks are taken rows first, then the series row. True if it did something."""

    def work() -> bool:
        running = k.series_model.objects.filter(pk=series_id, status=RUNNING)
        row = running.select_for_update(skip_locked=not wait, of=("self",)).first()
        if row is None:
            if not wait and running.exists():  # held by another: again after our commit
                transaction.on_commit(lambda: _settle(k, series_id, now=now, wait=True),
                                      robust=True)
            return False
        if loaded is not None:
            k.refresh(loaded)  # the chunk's or the recording's: who left since
        planned = _plan(k, loaded or k.load(row), now=now)
        if planned > 0 and queue:
            transaction.on_commit(lambda: dispatch(kind=k.name, series_id=series_id, now=now))
        return bool(planned)

    if not wait:
        return work()
    return _bounded(work, held=lambda: log.info(
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
                           now=now or timezone.now())
        total = {key: total[key] + done[key] for key in total}
        if not any(done.values()) or only is not None or once:
            return total
        if clock.monotonic() > stop_at:
            series.enqueue("play", kind, series_id)
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
        return _bounded(lambda: _chunk(k, series_id, list(claim[:limit]), limit=limit,
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
            status=RUNNING, attempts=F("attempts") + 1, lease_until=series.lease_until(now))
        ended = _start(k, loaded, rows, now=now, counts=counts, unstored=unstored)
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
            rows = [k.new_row(loaded, m) for m in _plan(
                k, loaded, now=now, lanes=lanes, store=False, state=SeriesState(
                    now=now, finished=len(apart), open=0, withdrawn=loaded.withdrawn,
                    outcomes=lambda known=apart: known))]
            for row in rows:
                row.status, row.attempts = RUNNING, 1
            continue
        if not _plan(k, loaded, now=now, lanes=lanes):
            break
        chained = True
        rows = list(_open_rows(k, series_id).filter(**k.on_lanes(lanes))
                    .select_for_update(skip_locked=True, of=("self",))
                    .order_by(*k.order)[:limit])
    if unstored:
        _store(k, unstored)
    if k.series_model.objects.filter(pk=series_id, status=CANCELLED).exists():
        raise _CancelledMeanwhile()  # nothing of it counts; its rows are cancelled after
    _closed(k, loaded, closed, now=now)
    _settle(k, series_id, now=now, loaded=loaded)
    if chained:  # what the chain planned and did not claim: any worker may take it
        transaction.on_commit(lambda: dispatch(kind=k.name, series_id=series_id))
    return counts


def _start(k: SeriesKind, loaded: Loaded, rows: Sequence[Any], *, now: datetime,
           counts: dict[str, int], unstored: list[tuple[Any, Any]] | None = None
           ) -> list[tuple[Any, Outcome]]:
    """Start claimed ``rows`` as games matches and record those that end here. A withdrawn
    entrant's match is scored unplayed, or played with its seat forfeited if the format plays
    every match (``Format.plays_withdrawn``). Stored at once, or put in ``unstored`` for
    :func:`_store` (a chain of tables that play apart). Returns the rows closed here, with
    their outcomes."""
    seated = {i for row in rows for i in row.seats}
    _withdraw_unseatable(k, loaded, seated)
    for attempt in range(2):
        plans = [(row, k.planned(row, forfeited=loaded.withdrawn)) for row in rows]
        plays = loaded.format.plays_withdrawn
        unplayed = [(row, plan) for row, plan in plans if plan.forfeited and not plays]
        to_play = [(row, plan) for row, plan in plans if plays or not plan.forfeited]
        try:
            built = series.matches_play(loaded, [plan for _, plan in to_play])
            break
        except BadSeats:  # a bot went away since the check: check every seat again
            if attempt:
                raise
            _withdraw_unseatable(k, loaded, seated)
    closed = []
    for row, plan in unplayed:
        closed.append((row, _close(k, row, loaded.format.score(plan, None, plan.forfeited),
                                   now=now)))
        counts["forfeit"] += 1
    for (row, plan), new in zip(to_play, built):
        row.lease_until, row.status = None, RUNNING
        if new.over:
            out = {plan.seats[n] for n in new.forfeited}
            closed.append((row, _close(k, row, loaded.format.score(plan, new.result, out),
                                       now=now)))
            counts["finished"] += 1
        else:
            counts["started"] += 1
    made = {id(row): new for (row, _), new in zip(to_play, built)}
    done = [(row, made.get(id(row))) for row in rows]
    if unstored is None:
        _store(k, done)
    else:
        unstored += done
    return closed


def _store(k: SeriesKind, done: Sequence[tuple[Any, Any]]) -> None:
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


def _close(k: SeriesKind, row: Any, outcome: Outcome, *, now: datetime) -> Outcome:
    row.status, row.finished_at, row.lease_until = FINISHED, now, None
    k.take(row, outcome)
    return outcome


def _closed(k: SeriesKind, loaded: Loaded, rows: Sequence[Any], *, now: datetime) -> None:
    """After rows closed: the kind's bookkeeping (ratings), then the withdrawal rule for those
    who forfeited in them (their last ``SERIES_FORFEITS_TO_WITHDRAW`` matches in a row)."""
    if not rows:
        return
    k.closed(loaded, rows, now=now)
    forfeiters = {i for row in rows for i in k.forfeited(row)} - loaded.withdrawn
    limit = settings.SERIES_FORFEITS_TO_WITHDRAW
    if not forfeiters or not limit:
        return
    newest_first = list(reversed(k.outcomes(loaded)))
    reason = f"forfeited {limit} matches in a row" if limit > 1 else "forfeited a match"
    _withdraw(k, loaded, {i: reason for i in forfeiters if series.withdraws(
        [i in o.forfeited for o in newest_first if i in o.seats])})


def _withdraw_unseatable(k: SeriesKind, loaded: Loaded, entrants: Iterable[int]) -> None:
    """Withdraw every entrant whose bot can no longer be seated (disabled, deleted, failed
    handshake): the seat kind's own check says why."""
    out = {}
    for index in entrants:
        entrant = loaded.entrants[index]
        if index in loaded.withdrawn or entrant.kind == PLAYER:
            continue
        try:
            get_seat_kind(entrant.kind).check_bot(loaded.game, entrant.bot, loaded.organiser)
        except (KeyError, ValueError, BadSeats) as exc:
            out[index] = f"cannot be seated: {exc}"
    _withdraw(k, loaded, out)


def _withdraw(k: SeriesKind, loaded: Loaded, reasons: Mapping[int, str]) -> None:
    if reasons:
        reasons = {index: reason[:200] for index, reason in reasons.items()}
        k.withdraw(loaded, reasons)
        loaded.withdrawn |= set(reasons)
        log.info("%s %s: withdrawn %s", k.name, loaded.series.pk, reasons)


# ------------------------------------------------------------------------------------------
# Record, cancel, reap
# ------------------------------------------------------------------------------------------


def record(*, kind: str, match_id: int, now: datetime | None = None) -> bool:
    """Record a finished games match as its row's outcome (once: the row is locked and must
    still be running), apply the withdrawal rule, plan what comes next or finish the series.
    False if there was nothing to record, or not now: a lock it needs was held longer than
    ``TOURNAMENT_RECORD_LOCK_SECONDS`` (the reaper records it later)."""
    k, now = get_kind(kind), now or timezone.now()

    def work() -> bool:
        found = series.locked_for_recording(k.model.objects.filter(status=RUNNING), match_id)
        if found is None:
            return False
        row, match = found
        loaded = k.load(k.series_model.objects.get(pk=getattr(row, f"{k.link}_id")))
        plan = k.planned(row)
        out = {plan.seats[n] for n in series.forfeited_seats([match_id]).get(match_id, ())}
        _close(k, row, loaded.format.score(plan, match.result, out), now=now)
        row.save(update_fields=["status", "finished_at", "lease_until", *k.result_fields])
        _closed(k, loaded, [row], now=now)
        if _plan(k, loaded, now=now, lanes={k.lane(row)}):  # its table's next, unlocked
            transaction.on_commit(lambda: dispatch(kind=kind, series_id=loaded.series.pk))
        _settle(k, loaded.series.pk, now=now, loaded=loaded)
        return True

    return _bounded(work, held=lambda: log.warning(
        "match %s: not recorded yet: a lock it needs is held (the reaper records it later)",
        match_id) or False)


def on_match_finished(sender: Any, match_ids: Sequence[int], series: Mapping[int, str],
                      **kwargs: Any) -> None:
    """The one receiver of ``games.signals.match_finished``. Never fails the caller (the
    reaper records what this misses); matches of no series cost nothing."""
    for match_id in match_ids:
        if series.get(match_id) in _kinds():
            try:
                record(kind=series[match_id], match_id=match_id)
            except Exception:
                log.exception("recording match %s failed", match_id)


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


def reap(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Periodic, for every kind: stop what a cancel could not reach, record matches that ended
    unnoticed, release rows whose chunk died before making their match, queue again pending
    rows whose message is lost, and ask every running series' format again (a stop time, a
    lost finish). Returns how many rows or series it fixed."""
    now, fixed = now or timezone.now(), 0
    for k in _kinds().values():
        rows, link = k.model.objects.all(), f"{k.link}_id"
        for series_id in set(rows.filter(status__in=OPEN, **{f"{k.link}__status": CANCELLED})
                             .values_list(link, flat=True)[:limit]):
            fixed += cancel_open(kind=k.name, series_id=series_id)
        for match_id in list(rows.filter(status=RUNNING, match__status=Match.Status.FINISHED)
                             .values_list("match_id", flat=True)[:limit]):
            fixed += record(kind=k.name, match_id=match_id, now=now)
        fixed += rows.filter(status=RUNNING, match__isnull=True, lease_until__lt=now).update(
            status=PENDING)
        lost = rows.filter(status=PENDING, **{f"{k.link}__status": RUNNING}).filter(
            Q(lease_until__lt=now) | Q(lease_until__isnull=True))
        for series_id in set(lost.values_list(link, flat=True)[:limit]):
            fixed += dispatch(kind=k.name, series_id=series_id, now=now, lost_only=True)
        for series_id in k.series_model.objects.filter(status=RUNNING).values_list(
                "pk", flat=True):
            fixed += _settle(k, series_id, now=now, wait=True)
    return fixed


def _kinds() -> dict[str, SeriesKind]:
    return series.kinds()
