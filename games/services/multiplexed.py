"""One thread plays the out-of-process seats of many matches at once.

A webhook match spends nearly all its time waiting for bots: a dice cup match of about 69 moves
against bots 50 ms away waits 3.5 s and computes for a few ms. A worker that gives each match a
thread of its own keeps as many matches in flight as it has threads (32 as deployed), and its
CPU mostly waits. With ``BLUFF_MULTIPLEXED_WORKER`` on, a worker hands every
``games.advance_automatic_seats`` task to its process's :class:`MatchLoop` instead: one thread
that holds each match's play (:func:`games.services.automatic.advancing`, the same generator the
threaded worker answers from its own thread, so the same moves, batches, leases, strikes and
records), sends what a match waits for without waiting (``SeatSession.send``,
``SeatSession.announce``), drives every kind's calls in flight together
(``PumpedSeat.pump``: a webhook bot's over one libcurl multi handle) and resumes each match as
its answers arrive.

A match's writes of its batches (:class:`~games.services.automatic.Write`) go to the loop's
writer thread, which has its own connection: the loop plays other matches while the database
writes (at 500 matches in flight, a quarter of the loop's time had been spent waiting for it).
The writer takes the writes waiting and sends them together: their statements in one round
trip, their call log rows in one statement (:class:`_Writer`).

The task's own thread only waits for its match: it holds the broker's message until the match
is done (``acks_late``), so a worker that dies gives every message back as before, and it
touches no database, so two connections serve every match in flight (a worker of 500
threads would otherwise hold 500). How many matches one process keeps in flight is the
worker's thread count (``--pool threads --concurrency N``: docs/deploy.md).
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, connections

from ..db import Rows, Statement, Steps, run_together, unflushed_rows_held
from ..driver import Ask, Tell
from ..seats import Pending, get_seat_kind, seat_kinds
from .automatic import Write, advancing

log = logging.getLogger(__name__)

Play = Generator[Ask | Tell | Write, Any, int]


class _OwnThread:
    """Something that runs its ``_run`` on a daemon thread of its own, started on first use
    and again in a forked child (a worker process) or after it ended."""

    _thread: threading.Thread | None = None
    _pid = 0

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def _ensure_running(self, name: str) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name=name, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        raise NotImplementedError


class _Match:
    """One match held by the loop: its play, where it waits, and who waits for its end."""

    __slots__ = ("future", "match_id", "pending", "play")

    def __init__(self, match_id: int, play: Play, future: Future[int]) -> None:
        self.match_id, self.play, self.future = match_id, play, future
        self.pending: Pending | None = None


class MatchLoop(_OwnThread):
    """The thread that plays many matches' out-of-process seats (module doc). :meth:`play`
    may be called from any thread; everything else runs in the loop's own.

    ``sweep_seconds``: how often every waiting match is polled, woken or not (a call waiting
    for the platform's own network is looked at on that beat); ``pump_seconds``: the longest
    the loop waits for sockets before it looks for new matches; ``round_seconds``: how long it
    goes on starting and resuming matches before it reads the sockets again (the rest wait
    for the next round), so answers are read soon after they come, however many matches are
    due at once (a call's time limit is judged by when the loop looked: ``bots.net.CallLoop``).
    """

    def __init__(self, *, sweep_seconds: float = 0.25, pump_seconds: float = 0.02,
                 round_seconds: float = 0.05) -> None:
        self.sweep_seconds = sweep_seconds
        self.pump_seconds = pump_seconds
        self.round_seconds = round_seconds
        self._inbox: queue.SimpleQueue[tuple[int, Future[int]] | None] = queue.SimpleQueue()
        self._waiting: set[_Match] = set()
        self._woken: list[_Match] = []
        super().__init__()
        self._writer = _Writer()

    def __len__(self) -> int:
        """Matches held now (waiting for their seats)."""
        return len(self._waiting)

    def play(self, match_id: int) -> Future[int]:
        """Play the match's out-of-process seats on the loop (as the task does,
        :func:`~games.services.automatic.match_advance_automatic_seats`); the future holds
        how many answers were applied, or the exception the play raised."""
        future: Future[int] = Future()
        self._inbox.put((match_id, future))
        self._ensure_running("match-loop")
        return future

    def stop(self) -> None:
        """Let the thread end once it has nothing in flight (tests)."""
        self._inbox.put(None)
        thread = self._thread
        if thread is not None:
            thread.join(timeout=60)
        self._writer.stop()

    # ---- the loop's thread ---------------------------------------------------------------

    def _run(self) -> None:
        stopping = False
        next_sweep = 0.0
        try:
            while not (stopping and not self._waiting):
                try:
                    round_ends = time.monotonic() + self.round_seconds
                    stopping |= self._take_new(round_ends)
                    self._pump()
                    woken, self._woken = self._woken, []
                    now = time.monotonic()
                    if now >= next_sweep:
                        woken = [*woken, *self._waiting]
                        next_sweep = now + self.sweep_seconds
                    round_ends = now + self.round_seconds
                    woken = list(dict.fromkeys(woken))
                    for i, match in enumerate(woken):
                        if time.monotonic() >= round_ends:  # the sockets first
                            self._woken.extend(woken[i:])
                            break
                        self._poll(match)
                except Exception:  # a bug of the loop's own must not strand every match
                    log.exception("the match loop failed a round; it goes on")
                    time.sleep(self.pump_seconds)
        finally:
            connections.close_all()

    def _take_new(self, until: float) -> bool:
        """Start the matches handed over since the last round, until the monotonic time
        ``until`` (waiting for one when there is nothing else to do); True when told to
        stop."""
        block = not self._waiting and not self._woken
        while block or time.monotonic() < until:
            try:
                item = self._inbox.get(timeout=1.0) if block else self._inbox.get_nowait()
            except queue.Empty:
                return False
            if item is None:
                return True
            block = False
            match_id, future = item
            if not future.set_running_or_notify_cancel():
                continue
            play = advancing(match_id=match_id,
                             batch_seconds=settings.BLUFF_MULTIPLEXED_BATCH_SECONDS)
            self._resume(_Match(match_id, play, future))
        return False

    def _pump(self) -> None:
        """Drive every kind's calls in flight, waiting at most ``pump_seconds`` if no match
        is ready to go on."""
        pumps = _pumps()
        wait = 0.0 if self._woken or not self._inbox.empty() else self.pump_seconds
        if not pumps:
            if wait:
                time.sleep(wait)
            return
        for pump in pumps:
            pump(wait / len(pumps))

    def _poll(self, match: _Match) -> None:
        pending = match.pending
        if pending is None or match not in self._waiting or not pending.poll():
            return
        self._waiting.discard(match)
        match.pending = None
        try:
            answers = pending.answers()
        except BaseException as exc:  # noqa: BLE001 - raised inside the play, where it asked
            self._resume(match, error=exc)
        else:
            self._resume(match, answers)

    def _wake(self, match: _Match) -> None:
        self._woken.append(match)

    def _resume(self, match: _Match, reply: Any = None, error: BaseException | None = None
                ) -> None:
        """Run the match's play on from where it waited until it waits for something not in
        yet, or ends (its future then holds the outcome)."""
        while True:
            try:
                request = match.play.throw(error) if error is not None else match.play.send(reply)
            except StopIteration as stop:
                match.future.set_result(stop.value)
                return
            except BaseException as exc:  # noqa: BLE001 - the task's thread raises it
                close_old_connections()  # a broken connection is not the next match's
                match.future.set_exception(exc)
                return
            reply = error = None
            try:
                pending = (self._writer.submit(request.steps) if isinstance(request, Write)
                           else request.later())
            except BaseException as exc:  # noqa: BLE001 - raised inside the play
                error = exc
                continue
            if pending.poll():  # answered already (a kind with no I/O of its own)
                try:
                    reply = pending.answers()
                except BaseException as exc:  # noqa: BLE001 - raised inside the play
                    error = exc
                continue
            pending.wake = functools.partial(self._wake, match)
            match.pending = pending
            self._waiting.add(match)
            return


class _Written:
    """A :class:`Write` handed to the :class:`_Writer` (a ``games.seats.Pending`` whose
    answer is what the write returned): its steps, run on until each statement it waits for
    (:attr:`statement`), or its end."""

    __slots__ = ("done", "error", "result", "start", "statement", "steps", "wake")

    def __init__(self, start: Callable[[], Steps[Any]]) -> None:
        self.start = start
        self.steps: Steps[Any] | None = None
        self.statement: Statement | None = None
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.wake: Callable[[], None] | None = None

    def advance(self, rows: Rows | None = None, error: BaseException | None = None) -> None:
        """Run the write on with its statement's ``rows`` (or its ``error``, raised inside
        it), until it waits for its next statement or ends."""
        try:
            if self.steps is None:
                self.steps = self.start()
                self.statement = self.steps.send(None)
            elif error is not None:
                self.statement = self.steps.throw(error)
            else:
                self.statement = self.steps.send(rows)
        except StopIteration as stop:
            self.result, self.done = stop.value, True
        except BaseException as exc:  # noqa: BLE001 - raised inside the play
            close_old_connections()  # a broken connection is not the next write's
            self.error, self.done = exc, True

    def run_alone(self) -> None:
        """The whole write, each statement in a round trip of its own."""
        self.advance()
        while not self.done:
            self.send_alone()

    def send_alone(self) -> None:
        """Send the statement it waits for in a round trip of its own, and run it on."""
        try:
            rows = self.statement.here()
        except Exception as exc:  # noqa: BLE001 - raised inside the write
            self.advance(error=exc)
        else:
            self.advance(rows)

    def poll(self) -> bool:
        return self.done

    def answers(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


class _Writer(_OwnThread):
    """The loop's thread for matches' writes, in the order they came, on a connection of its
    own (started on first use, in this process). It takes the writes waiting, up to
    ``group``, and writes them together: their statements in one round trip and one commit
    (``games.db.run_together``; if one fails, none is written and each is sent again alone,
    so only its own write fails), their unflushed log rows in one statement at the end
    (``games.db.unflushed_rows_held``). At 500 matches in flight each statement had waited
    about 4 ms for a thread that shares its interpreter with the loop: with two statements a
    write, the writer was the worker's bottleneck. Each match is resumed once its write and
    rows are written. On SQLite (the embedded default), which takes one writer at a time and
    whose test databases lock whole tables, the loop writes itself, a write at a time."""

    #: The most writes sent together.
    group = 64

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Written | None] = queue.SimpleQueue()
        super().__init__()

    def submit(self, start: Callable[[], Steps[Any]]) -> _Written:
        job = _Written(start)
        if connection.vendor == "sqlite":
            job.run_alone()
            return job
        self._ensure_running("match-loop-writer")
        self._jobs.put(job)
        return job

    def stop(self) -> None:
        with self._lock:
            thread = self._thread
        if thread is not None and thread.is_alive():
            self._jobs.put(None)
            thread.join(timeout=60)

    def _run(self) -> None:
        try:
            stopping = False
            while not stopping:
                jobs: list[_Written] = []
                item = self._jobs.get()
                while item is not None:
                    jobs.append(item)
                    if len(jobs) >= self.group:
                        break
                    try:
                        item = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                stopping = item is None
                self._write(jobs)
                for job in jobs:
                    if job.wake is not None:
                        job.wake()
        finally:
            connections.close_all()

    @staticmethod
    def _write(jobs: list[_Written]) -> None:
        with unflushed_rows_held():
            for job in jobs:
                job.advance()
            waiting = [job for job in jobs if not job.done]
            while waiting:
                try:
                    found = run_together([job.statement for job in waiting])
                except Exception:  # none was written: each alone, so only its own fails
                    log.warning("%d writes sent together failed; each is sent again alone",
                                len(waiting), exc_info=True)
                    close_old_connections()
                    for job in waiting:
                        job.send_alone()
                else:
                    for job, rows in zip(waiting, found, strict=True):
                        job.advance(rows)
                waiting = [job for job in waiting if not job.done]


def _pumps() -> list[Callable[[float], None]]:
    """The ``pump`` of every out-of-process kind that has calls of its own to drive."""
    found = []
    for name in seat_kinds():
        kind = get_seat_kind(name)
        pump = getattr(kind.automatic, "pump", None)
        if kind.out_of_process and pump is not None:
            found.append(pump)
    return found


_LOOP = MatchLoop()


def match_loop() -> MatchLoop:
    """This process's :class:`MatchLoop` (its thread started on first use)."""
    return _LOOP
