"""Out-of-process automatic seats (e.g. webhook bots): asked by the Celery task, with no
transaction open and no row locked while they are asked.

The task reads the match, builds a match driver (``games.driver``) and lets it ask the due
seats and apply their answers, step after step, in memory: a *batch*. The batch is then stored
in one statement (``games.services.store.save_batch``), guarded by the match version and the
task's lease, and the seat kinds write their records of it after. If anyone changed the match
meanwhile (a player resigned, the deadline sweep struck a seat, another task got there first)
nothing of the batch is stored, the seats' late answers are thrown away (their kinds still
record the calls, marked as not applied) and the task looks at the match again. So a resign
or a join never waits on a stranger's server, and no answer is ever applied twice.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from lib.clock import platform_now

from ..db import Steps
from ..driver import Ask, MatchDriver, Move, Tell, answer_here
from ..models import Match, Seat
from ..seats import PlatformOutage, SeatAnswer, get_seat_kind, seat_kinds
from ..states import load_state
from .store import (
    Lease,
    driver_for,
    enqueue_advance,
    flush,
    locked_match,
    read_match,
    save_locked,
    saving_batch,
)

log = logging.getLogger(__name__)


def match_advance_automatic_seats(*, match_id: int, max_steps: int = 10_000,
                                  max_seconds: float = 120.0, batch_moves: int = 256,
                                  batch_seconds: float = 1.0) -> int:
    """Ask the due out-of-process seats of a match, step by step, from this thread; returns
    how many of their answers were applied (:func:`advancing`, each request answered here)."""
    return answer_here(advancing(match_id=match_id, max_steps=max_steps,
                                 max_seconds=max_seconds, batch_moves=batch_moves,
                                 batch_seconds=batch_seconds))


def advancing(*, match_id: int, max_steps: int = 10_000, max_seconds: float = 120.0,
              batch_moves: int = 256, batch_seconds: float = 1.0
              ) -> Generator[Ask | Tell | Write, Any, int]:
    """Ask the due out-of-process seats of a match, step by step; returns how many of their
    answers were applied. A generator: it yields what the match waits for (an
    :class:`~games.driver.Ask` of its seats, a :class:`~games.driver.Tell` of its notices, a
    :class:`Write` of its batch) and is resumed with the answers, from the asking thread
    (:func:`match_advance_automatic_seats`) or by the thread that plays many matches at once
    (``games.services.multiplexed``): the same moves, batches, leases and records either way.

    One task at a time asks a match's seats: the task claims the match's :class:`Lease` first
    and a task that finds it held by another stops at once (that one asks, and looks at the
    match again after it lets go, so nothing that became due meanwhile waits).

    While only such seats are due, a batch goes on in memory until it has ``batch_moves`` log
    entries, has lasted ``batch_seconds``, a polling seat becomes due or the match ends; then it
    is stored at once (one statement whatever its length, then the seat kinds' records). A
    crash loses the unstored batch only (and, between the two, the kinds' records of it); the task is idempotent and resumes from the last stored
    version, asking the seats again.

    A step that also waits for polling seats (a simultaneous step) is asked the same way, and
    its answers are stored under the per-step rule of ``match_submit_action``: still valid
    while ``step_version <= the version they were asked at <= match.version`` and the seat is
    still asked, so a polling seat answering meanwhile does not make the bot be asked twice.

    Out-of-process kinds are also told when the match has started and when it is over. After
    ``max_seconds`` the task stops and queues itself again, so one long match never holds a
    worker past its time limit.
    """
    applied = steps = 0
    stop_at = time.monotonic() + max_seconds
    while steps < max_steps:
        claimed = Lease.claim_and_read(match_id)
        if claimed is None:
            return applied
        lease, match, seats = claimed
        try:
            done, answered, outcome = yield from _advance(
                match_id, lease, (match, seats), stop_at=stop_at, batch_moves=batch_moves,
                batch_seconds=batch_seconds, max_steps=max_steps - steps)
        except PlatformOutage as exc:
            # Not the seats' fault: the batch in memory is dropped unplayed, the match asked
            # again from its last stored position (now if the database and broker answer,
            # else by the stalled-match sweep: docs/bot-protocol.md).
            log.warning("%s; the batch is dropped, the match is asked again", exc)
            try:
                lease.release()
                enqueue_advance(match_id)
            except Exception:  # noqa: BLE001 - still cut off: the sweep takes it up
                log.warning("match %s: left to the stalled-match sweep", match_id)
            return applied
        except BaseException:
            lease.release()
            raise
        yield Write(lease.releasing)  # the multiplexed worker sends it with others' writes
        steps += done
        applied += answered
        if outcome == _REQUEUE:
            enqueue_advance(match_id)
            return applied
        # _WAITING: a polling seat (or nobody) was due when the task last looked. A task
        # queued meanwhile found the lease held and stopped: look once more now it is free.
        if outcome != _WAITING or not _out_of_process_due(match_id):
            return applied
    return applied


#: How :func:`_advance` stopped: the match needs nothing more from out-of-process seats (over,
#: open, the lease lost to another task); only others are due; the time budget ran out.
_DONE, _WAITING, _REQUEUE = "done", "waiting", "requeue"


def _advance(match_id: int, lease: Lease, found: tuple[Match, list[Seat]] | None, *,
             stop_at: float, batch_moves: int, batch_seconds: float,
             max_steps: int) -> Generator[Ask | Tell | Write, Any, tuple[int, int, str]]:
    """Play the match's out-of-process seats while ``lease`` is held, from ``found`` (the
    match and its seats as the claim read them); the steps played, the answers applied and
    how it stopped."""
    applied = steps = 0
    told_start = False
    while steps < max_steps:
        if found is None:
            found = read_match(match_id)
        if found is None or not found[1] or found[0].status == Match.Status.OPEN:
            return steps, applied, _DONE
        match, seats = found
        if not lease.held_by_me(match):  # ran out and another task took it: that one asks
            return steps, applied, _DONE
        driver = driver_for(match, load_state(match, for_update=True), seats=seats)
        if not told_start:
            yield Tell(driver, over=False)
            told_start = True
        if match.status == Match.Status.FINISHED:
            yield Tell(driver, over=True)
            return steps, applied, _DONE
        done, answered, outcome = yield from _play(
            match, seats, driver, lease, stop_at=stop_at, batch_moves=batch_moves,
            batch_seconds=batch_seconds, max_steps=max_steps - steps)
        found = None
        steps += done
        applied += answered
        if outcome is not None:
            return steps, applied, outcome
    return steps, applied, _WAITING


def _play(match: Match, seats: list[Seat], driver: MatchDriver, lease: Lease, *,
          stop_at: float, batch_moves: int, batch_seconds: float,
          max_steps: int) -> Generator[Ask | Tell | Write, Any, tuple[int, int, str | None]]:
    """Batches on one loaded match until the match ends, a polling seat or nobody is due, or
    the time or step budget is spent. Returns the steps played, the answers applied, and how
    it stopped (None: the match must be read again, since a polling seat of a shared step
    answered or someone else changed the match meanwhile)."""
    steps = applied = 0
    outcome: str | None = _WAITING
    while steps < max_steps:
        if time.monotonic() > stop_at:
            outcome = _REQUEUE
            break
        due, others = driver.due_out_of_process()
        if not due:
            break
        if others:
            steps += 1
            applied += _store_shared_step(match.pk, driver, (yield Ask(driver, due)), lease)
            outcome = None
            break
        base_version = driver.version
        previous = driver.state.to_act()
        batch_end = min(stop_at, time.monotonic() + batch_seconds)
        done, answered = yield from driver.steps(max_moves=batch_moves, until=batch_end,
                                                 max_steps=max_steps - steps)
        steps += done
        stored, moves = yield Write(functools.partial(
            _store_batch, match, driver, seats=seats, previous_to_act=previous,
            base_version=base_version, lease=lease))
        if not stored:
            # Operators (and the several-hosts test) read this: a host cut off for longer
            # than its lease comes back to find its batch refused, not stored late.
            log.info("match %s: late batch refused (the lease ran out or the match moved on "
                     "from version %s); its moves are thrown away", match.pk, base_version)
            outcome = None
            break
        applied += answered
        if driver.state.is_over:
            # Told first: a kind may write the batch's records with its /end claim (the
            # webhook kind does, in one round trip); the flush writes what is left.
            yield Tell(driver, over=True)
            flush(driver, moves, applied=True)
            outcome = _DONE
            break
    # Records the sessions still hold (e.g. /start calls of a run that found no bot due).
    flush(driver, [], applied=True)
    return steps, applied, outcome


@dataclass(slots=True)
class Write:
    """What a match waits for: a write of its own to the database, answered with what it
    returns. ``steps`` starts it: a write that yields its statements (``games.db.together``).
    :meth:`here` writes from this thread, a statement per round trip; the thread that plays
    many matches at once hands it to its writer's (``games.services.multiplexed``), which
    sends the statements of many matches' writes in one, and plays other matches meanwhile."""

    steps: Callable[[], Steps[Any]]

    def here(self) -> Any:
        return answer_here(self.steps())


def _store_batch(match: Match, driver: MatchDriver, **batch: Any
                 ) -> Steps[tuple[bool, list[Move]]]:
    """:func:`~games.services.store.saving_batch`, then the seat kinds' records of its moves
    (those of a batch that ends the match wait for its /end notices: :func:`_play`); whether
    it was stored, and its moves."""
    stored = yield from saving_batch(match, driver, **batch)
    moves = driver.take_moves()
    if not stored:
        flush(driver, moves, applied=False)
    elif not driver.state.is_over:
        flush(driver, moves, applied=True)
    return stored, moves


def _out_of_process_due(match_id: int) -> bool:
    """Whether the match has an out-of-process seat to ask, or ended meanwhile (its seats are
    told; a task that finds them told already sends nothing)."""
    found = read_match(match_id)
    if found is None or found[0].status == Match.Status.OPEN:
        return False
    match, seats = found
    if match.status == Match.Status.FINISHED:
        return True
    due, _ = driver_for(match, load_state(match), seats=seats).due_out_of_process()
    return bool(due)


def _store_shared_step(match_id: int, driver: MatchDriver, answers: dict[int, SeatAnswer],
                       lease: Lease) -> int:
    """Store the answers of a step shared with polling seats, asked at ``driver.version``,
    under the per-step rule, if ``lease`` is still held; how many were applied."""
    asked_at = driver.version
    with transaction.atomic():
        locked = locked_match(match_id)
        if (locked.status != Match.Status.RUNNING or not lease.held_by_me(locked)
                or not locked.step_version <= asked_at <= locked.version):
            flush(driver, driver.take_moves(), applied=False)  # a new step began meanwhile
            return 0
        if locked.version != asked_at:  # a polling seat of this step answered meanwhile
            driver = driver_for(locked, load_state(locked, for_update=True),
                                sessions=driver.sessions)
        previous = driver.state.to_act()
        applied = driver.submit(answers)
        driver.settle()
        save_locked(locked, driver, previous_to_act=previous, enqueue=False, lease=lease)
        return applied


def matches_resume_stalled(*, limit: int = 500) -> int:
    """Queue the task again for running matches whose out-of-process seat is due and that no
    task is asking. Two signs, one for each way a match is left:

    - **a lease that ran out** (``lease_until`` in the past: a task holding it died, or its host
      was cut off for longer than the lease): at once. A task that lets go clears its lease
      and a live one renews it with every batch, so no healthy match has one;
    - **no lease and nothing changed for** ``BLUFF_STALLED_SECONDS`` (its message was lost): a
      healthy match waiting for a worker in a queue backlog looks the same for a while, so
      only after that quiet period;
    - **a finished match whose lease ran out**: a task holds the lease until it has told the
      seats the match ended, so its worker died before it could (the task sends what is
      still unsent, once).

    Each match is claimed first (a conditional update that also clears the lease that ran out
    and sets ``Match.resumed_at``), so it is queued once, then at most once per
    ``BLUFF_STALLED_SECONDS``, however often the sweep runs or however many sweeps run at once.
    The task is idempotent, so a false alarm costs one look at the match. Run every
    ``BLUFF_RESUME_SWEEP_SECONDS`` (default half the lease), a killed worker's match is asked
    again within two leases of the worker's last batch. Returns how many were queued."""
    kinds = [name for name in seat_kinds() if get_seat_kind(name).out_of_process]
    if not kinds:
        return 0
    now = timezone.now()
    quiet = now - timedelta(seconds=settings.BLUFF_STALLED_SECONDS)
    ran_out = Q(lease_until__lt=platform_now())  # leases are on the platform's clock
    lost = (Q(lease_until__isnull=True, updated_at__lte=quiet)
            & (Q(resumed_at__isnull=True) | Q(resumed_at__lte=quiet)))

    def found(condition: Q) -> list[Match]:
        return list(Match.objects.filter(condition, seats__kind__in=kinds).distinct()
                    .prefetch_related("seats").order_by("updated_at")[:limit])

    # Two looks, each on its own index: finished matches are most of the table.
    matches = (found(Q(ran_out, status=Match.Status.FINISHED))
               + found(Q(ran_out | lost, status=Match.Status.RUNNING)))
    queued = 0
    for match in matches:
        if match.status == Match.Status.FINISHED:
            claim = Match.objects.filter(ran_out, pk=match.pk)
        else:
            claim = Match.objects.filter(ran_out | lost, pk=match.pk)
            waiting = {s.number for s in match.seats.all() if s.kind in kinds and not s.forfeited}
            if not waiting & set(load_state(match).to_act()):
                claim.filter(ran_out).update(lease_until=None)  # nobody's: not looked at again
                continue
        if claim.update(resumed_at=now, lease_until=None):
            enqueue_advance(match.pk)
            queued += 1
    return queued
