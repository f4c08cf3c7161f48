"""Loading a match into the match driver and storing what the driver made: the one place where
a driver's moves become rows (a log page, ``Seat``, ``Match``).

Two ways in: :func:`save_locked`, inside the caller's transaction, holding the match's row lock
(the request paths), and :func:`save_batch` for the Celery task, which holds no lock while it
asks bots: its write happens only if nobody else changed the match since the version the driver
started from and its lease is still its own, in one statement when no seat changed (then no
transaction at all). :func:`save_new` inserts new matches.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from lib import queueing
from lib.clock import platform_now
from lib.steps import answer_here

from ..db import (
    Steps,
    claim_match,
    insert_models,
    insert_rows,
    insert_tree,
    savepoint,
    update_then_insert,
    updating_then_inserting,
)
from ..driver import MatchDriver, Move
from ..engine import State
from ..errors import MatchNotFound, SeatNotFound
from ..log import page_row
from ..models import Match, MatchLogPage, Seat
from ..seats import SeatSession, Table, TableSeat
from ..signals import match_finished
from ..states import remember_state

log = logging.getLogger(__name__)

#: The Match columns a save writes.
SAVED_FIELDS = ("version", "step_version", "state", "status", "result", "finished_at",
                "deadline", "started_at", "updated_at")


def locked_match(match_id: int) -> Match:
    """The match with its seats, its row locked until the transaction ends."""
    match = (Match.objects.select_for_update().prefetch_related("seats")
             .filter(pk=match_id).first())
    if match is None:
        raise MatchNotFound()
    return match


def read_match(match_id: int) -> tuple[Match, list[Seat]] | None:
    """The match and its seats in one query (no lock), or None."""
    seats = list(Seat.objects.select_related("match").filter(match_id=match_id)
                 .order_by("number"))
    return (seats[0].match, seats) if seats else None


def seat_of(match: Match, number: int) -> Seat:
    for seat in match.seats.all():
        if seat.number == number:
            return seat
    raise SeatNotFound(f"match {match.pk} has no seat {number!r}")


def table_of(match: Match, seats: Sequence[Seat] | None = None) -> Table:
    """The match as its automatic seats may know it (``seats``: default the prefetched ones)."""
    seats = list(match.seats.all()) if seats is None else seats
    return Table(match_id=match.pk, game=match.game, options=match.options, seed=match.seed,
                 seats=tuple(TableSeat(number=s.number, kind=s.kind, bot=s.bot_name,
                                       user_id=s.user_id)
                             for s in sorted(seats, key=lambda s: s.number)),
                 move_time_limit=match.move_time_limit, strike_limit=match.strike_limit,
                 created_by_id=match.created_by_id)


def driver_for(match: Match, state: State, *, seats: Sequence[Seat] | None = None,
               sessions: dict[str, SeatSession] | None = None) -> MatchDriver:
    """A driver over ``state`` (a private copy: the driver changes it) and the match's seats."""
    seats = sorted(match.seats.all() if seats is None else seats, key=lambda s: s.number)
    return MatchDriver(state, table_of(match, seats), version=match.version,
                       step_version=match.step_version, strikes=[s.strikes for s in seats],
                       forfeited=[s.number for s in seats if s.forfeited], sessions=sessions)


def enqueue_advance(match_id: int) -> None:
    """Queue the task that asks out-of-process seats (when the current transaction commits,
    at once outside one), through the one seam every task is queued by."""
    queueing.enqueue("games.advance_automatic_seats", match_id)


class Lease:
    """One task's hold on a match's out-of-process seats (``Match.lease_until``): while it
    holds it no other task asks them, so a duplicate message (a re-queue, a redelivery) costs
    one statement, not a second round of bot calls. Claimed when the task starts (with its
    first read: :meth:`claim_and_read`), renewed by each batch it stores (:func:`save_batch`
    writes only while the lease is still its own, the batch that ends the match too) and
    released when it stops (:meth:`release`), once its seats have been told what they must be
    told: that the match ended too. A worker that dies keeps it until it runs out, then the
    match is anyone's again: the stalled-match sweep queues it, a finished one too (a worker
    killed between the moves that end a match and their /end notices left them untold).

    Times are the platform's (``lib.clock``), whatever the worker host's clock says: the
    database judges the lease by its own clock when a batch is stored, and other hosts' sweeps
    judge it by theirs.
    """

    def __init__(self, match_id: int, until: datetime) -> None:
        self.match_id = match_id
        #: The lease_until this task wrote last: the match is its own while the row holds it.
        self.until = until
        #: Let go already (:meth:`release`).
        self.released = False

    @staticmethod
    def seconds() -> timedelta:
        return timedelta(seconds=settings.BLUFF_ADVANCE_LEASE_SECONDS)

    @classmethod
    def claim(cls, match_id: int) -> Lease | None:
        """The match's lease if nobody holds it (none, or run out), else None."""
        claimed = cls.claim_and_read(match_id)
        return None if claimed is None else claimed[0]

    @classmethod
    def claim_and_read(cls, match_id: int) -> tuple[Lease, Match, list[Seat]] | None:
        """:meth:`claim`, and the match and its seats as :func:`read_match` reads them, in
        one statement (the task's first read: ``games.db.claim_match``); None if the lease is
        held by another task or the match is gone."""
        now = platform_now()
        until = now + cls.seconds()
        found = claim_match(match_id, until=until, now=now)
        return None if found is None else (cls(match_id, until), *found)

    def held_by_me(self, match: Match) -> bool:
        """``match`` (as just read) still holds this lease, and it has not run out: a task
        whose lease ran out stops even if nobody took the match yet (a host cut off for
        longer than its lease must not store what it saw meanwhile)."""
        return (not self.released and match.lease_until == self.until
                and platform_now() < self.until)

    def renewal(self) -> datetime:
        """A later end for the lease, to be written with the next stored batch."""
        return platform_now() + self.seconds()

    def release(self) -> None:
        """Let go (if still held): the next task may claim the match at once."""
        answer_here(self.releasing())

    def releasing(self) -> Steps[None]:
        """:meth:`release` as a write that may share its round trip (``games.db.together``).
        Its commit does not wait for the disk: a database crash that undid it would leave the
        lease to run out, and the sweep's task would find nothing to do."""
        if not self.released:
            yield from updating_then_inserting(
                Match, {"pk": self.match_id, "lease_until": self.until}, {"lease_until": None},
                MatchLogPage, [], durable=False)
            self.released = True


def save_locked(match: Match, driver: MatchDriver, *, seats: Sequence[Seat] | None = None,
                now: datetime | None = None, previous_to_act: Sequence[int] | None = None,
                started: bool = False, enqueue: bool = True, lease: Lease | None = None) -> None:
    """The request path: store the driver's state and moves into ``match`` (and its seats),
    whose row the caller holds locked (``locked_match``), and let each seat session write its
    own records of them; once committed the state is cached for readers.

    ``previous_to_act``: the seats asked before these moves; while the same simultaneous step
    goes on (fewer of them are still asked) the deadline stays. ``started``: the match starts
    with these moves. ``enqueue``: queue the task for out-of-process seats now due (and, with
    ``started`` or at the end, to tell them). ``lease``: the task's, which the caller saw was
    still its own (a step shared with polling seats): renewed by this write.
    """
    now = now or timezone.now()
    seats = _by_number(match, seats)
    finishing = _take_state(match, driver, now=now, previous_to_act=previous_to_act)
    if lease is not None:
        match.lease_until = lease.until = lease.renewal()
    match.save()
    moves = driver.take_moves()
    if moves:
        insert_rows(MatchLogPage, [page_row(match.pk, moves)])
    _save_seats(_seat_changes(driver, seats))
    flush(driver, moves, applied=True)
    _after_commit([(match, enqueue and _wakes_out_of_process(driver, started), driver.state,
                    finishing)])


def save_batch(match: Match, driver: MatchDriver, *, seats: Sequence[Seat],
               previous_to_act: Sequence[int], base_version: int, lease: Lease) -> bool:
    """The task's guarded batch: store the moves its driver made from ``base_version`` on
    (``driver.moves``, left there for the caller's :func:`flush`) in one guarded UPDATE with
    their log page, no row locked (the task asked bots meanwhile). Returns False, having
    written nothing, when the match is no longer at ``base_version`` (or not running) or
    ``lease`` is no longer held. The write renews the lease, also when these moves end the
    match: the task still tells the seats (:class:`Lease`). Run outside a transaction: that
    statement is one of its own (its commit waits for the disk: these are the match's moves)
    unless a seat's strikes or forfeit changed too, which are written with it in one
    transaction. The sessions write their records after it (:func:`flush`), so a failing one
    never undoes the moves and costs the batch no savepoint. The state is not cached: a
    worker's readers are web processes. :func:`saving_batch` is the same for a writer that
    sends its statement with others'."""
    return answer_here(saving_batch(match, driver, seats=seats, previous_to_act=previous_to_act,
                                    base_version=base_version, lease=lease))


def saving_batch(match: Match, driver: MatchDriver, *, seats: Sequence[Seat],
                 previous_to_act: Sequence[int], base_version: int, lease: Lease
                 ) -> Steps[bool]:
    """:func:`save_batch` as a write whose guarded statement may be sent with other writes'
    (``games.db.together``), unless a seat's strikes or forfeit changed too: those are
    written at once in a transaction of their own, which no other write's statement may
    join."""
    now = timezone.now()
    finishing = _take_state(match, driver, now=now, previous_to_act=previous_to_act)
    if lease.released or platform_now() >= lease.until:
        return False  # ran out: another task may be asking these seats already
    changed = _seat_changes(driver, _by_number(match, seats))
    guard = {"pk": match.pk, "version": base_version, "status": Match.Status.RUNNING,
             "lease_until": lease.until}
    fields = {field: getattr(match, field) for field in SAVED_FIELDS}
    fields["lease_until"] = renewed = lease.renewal()
    # The moves' log page goes with the guarded UPDATE, in the same statement. The lease must
    # still hold when the database writes it, not only when it was sent: a host cut off just
    # after sending comes back with it seconds later, maybe before anyone took the match over,
    # and what it saw while cut off (its bots' timeouts) is not stored.
    page = [page_row(match.pk, driver.moves)] if driver.moves else []
    if changed:
        with transaction.atomic():
            if not update_then_insert(Match, guard, fields, MatchLogPage, page,
                                      still_ahead="lease_until"):
                return False
            _save_seats(changed)
    elif not (yield from updating_then_inserting(Match, guard, fields, MatchLogPage, page,
                                                 still_ahead="lease_until")):
        return False
    match.lease_until = lease.until = renewed
    _after_commit([(match, False, None, finishing)])
    return True


def _by_number(match: Match, seats: Sequence[Seat] | None) -> list[Seat]:
    return sorted(match.seats.all() if seats is None else seats, key=lambda s: s.number)


def _seat_changes(driver: MatchDriver, seats: Sequence[Seat]) -> list[tuple[Seat, int, bool]]:
    """(seat, strikes, forfeited) for each seat whose strikes or forfeit the driver changed."""
    changed = []
    for seat in seats:
        strikes, forfeited = driver.strikes[seat.number], seat.number in driver.forfeited
        if (seat.strikes, seat.forfeited) != (strikes, forfeited):
            changed.append((seat, strikes, forfeited))
    return changed


def _save_seats(changed: Sequence[tuple[Seat, int, bool]]) -> None:
    """Write :func:`_seat_changes` (a statement per seat) and set them on the seats."""
    for seat, strikes, forfeited in changed:
        Seat.objects.filter(pk=seat.pk).update(strikes=strikes, forfeited=forfeited)
        seat.strikes, seat.forfeited = strikes, forfeited


@dataclass(frozen=True, slots=True)
class Started:
    """A new match's driver once it has started (:func:`take_started`), reduced at once to
    what storing the match writes beyond its row and its seats' rows (whose fields it set).
    A caller that keeps many matches before storing them (a league batch, up to a second of
    hands) then keeps a log page's text, not every move's objects for the collector to walk
    again and again (docs/performance.md)."""

    #: Its log page row but for the match id, or None if the driver made no moves.
    page: dict[str, Any] | None
    #: This save finishes the match (``match_finished`` once committed).
    finishing: bool
    #: Its out-of-process seats are to be asked, or told it started or ended (the task).
    wakes: bool
    #: The state to share with readers once committed; None once over (:func:`take_started`).
    state: State | None


def take_started(match: Match, seats: Sequence[Seat], driver: MatchDriver, *,
                 now: datetime) -> Started:
    """Copy what ``driver`` made of a new match onto ``match`` and ``seats`` (not saved)
    and keep the rest for :func:`save_new`; the driver is not needed after this."""
    finishing = _take_state(match, driver, now=now, previous_to_act=None)
    for seat in seats:
        seat.strikes = driver.strikes[seat.number]
        seat.forfeited = seat.number in driver.forfeited
    moves = driver.take_moves()
    # Matches over already (a tournament's or a league's bots played them here) are not
    # cached: their readers are web processes, not this one, and hundreds of them would only
    # churn the cache (each holds its whole event log for the collector to walk;
    # docs/performance.md).
    return Started(page=page_row(0, moves) if moves else None, finishing=finishing,
                   wakes=_wakes_out_of_process(driver, started=True),
                   state=None if driver.state.is_over else driver.state)


def save_new(matches: Sequence[tuple[Match, Sequence[Seat], Started | None]], *,
             announce: bool = True) -> None:
    """Insert new matches with their seats, and for those that started
    (:func:`take_started`) their first moves: a few statements in the caller's transaction
    whatever their number (a tournament creates many at once); one match, one statement
    (``games.db.insert_tree``: no transaction needed on PostgreSQL)."""
    for match, seats, _ in matches:
        for seat in seats:
            seat.match = match
    if len(matches) == 1:  # POST /api/matches/: one statement (no transaction needed)
        [(match, seats, started)] = matches
        page = started.page if started is not None else None
        insert_tree(match, [seats, [MatchLogPage(**page)] if page else []])
    else:
        insert_models([match for match, _, _ in matches])
        insert_models([seat for _, seats, _ in matches for seat in seats])
        insert_rows(MatchLogPage, [{**page, "match_id": match.pk}
                                   for match, _, started in matches
                                   if started is not None and (page := started.page)])
    _after_commit([(match, started.wakes, started.state, started.finishing)
                   for match, _, started in matches if started is not None],
                  announce=announce)


def _take_state(match: Match, driver: MatchDriver, *, now: datetime,
                previous_to_act: Sequence[int] | None) -> bool:
    """Copy the driver's state, version, status, result and deadline onto ``match`` (not
    saved); True if this finishes the match."""
    state = driver.state
    finishing = state.is_over and match.status != Match.Status.FINISHED
    match.version, match.step_version = driver.version, driver.step_version
    match.state = state.to_json(events=False)
    match.updated_at = now
    if state.is_over:
        match.status = Match.Status.FINISHED
        match.result = state.result()
        match.finished_at = now
        match.deadline = None
    elif not driver.polling_due():
        # Only automatic seats are to act: no deadline (a bot is judged on its own calls).
        match.deadline = None
    else:
        to_act = state.to_act()
        # The same simultaneous step going on (some seats answered) keeps its deadline.
        same_step = (previous_to_act is not None and match.deadline is not None
                     and set(to_act) < set(previous_to_act))
        if not same_step:
            match.deadline = now + timedelta(seconds=match.move_time_limit)
    return finishing


def _after_commit(stored: Sequence[tuple[Match, bool, State | None, bool]], *,
                  announce: bool = True) -> None:
    """Once committed, for each (match, wakes, state, finishing): queue the task for its
    out-of-process seats if ``wakes``, share ``state`` with readers (the driver will not
    change it again), and tell whoever listens which matches finished (unless not
    ``announce``: their creator records them itself)."""
    for match, wakes, _, _ in stored:
        if wakes:
            enqueue_advance(match.pk)
    # From here on these State objects are never changed: readers may share them.
    states = [(match, state) for match, _, state, _ in stored if state is not None]
    if states:
        transaction.on_commit(lambda: [remember_state(m, s) for m, s in states])
    finished = {match.pk: match.series for match, _, _, finishing in stored if finishing}
    if finished and announce:
        transaction.on_commit(lambda: match_finished.send(
            sender=Match, match_ids=list(finished), series=finished))


def flush(driver: MatchDriver, moves: Sequence[Move], *, applied: bool) -> None:
    """Each session writes its own records of ``moves`` (``SeatSession.flush``). Inside a
    transaction (:func:`save_locked`'s) each in a savepoint, so a failing one loses only its
    own rows, never the moves; outside one (after a task's batch) on their own. Either way an
    error is logged, never raised: another app's bug must not stall or lose the moves."""
    in_transaction = transaction.get_connection().in_atomic_block
    for session in driver.sessions.values():
        try:
            with savepoint() if in_transaction else nullcontext():
                session.flush(moves, applied)
        except Exception:
            log.exception("match %s: flush of %s failed", driver.table.match_id,
                          type(session).__name__)


def _wakes_out_of_process(driver: MatchDriver, started: bool) -> bool:
    kinds = driver.kinds
    if not any(kind.out_of_process for kind in kinds):
        return False
    if started or driver.state.is_over:
        return True  # they are told the match started / ended
    due, _ = driver.due_out_of_process()
    return bool(due)


__all__ = ["Lease", "Started", "driver_for", "enqueue_advance", "flush", "locked_match",
           "save_batch", "save_locked", "save_new", "saving_batch", "seat_of", "table_of",
           "take_started"]
