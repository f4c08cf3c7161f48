"""Asking webhook bots over HTTP for one match: request bodies, signatures, concurrent calls, and
their answers read into :class:`games.seats.SeatAnswer` values for the match driver. No
database: the ``webhook`` seat kind (:mod:`bots.webhook`) wraps a caller with the registered
bots and writes its records as call log rows; offline play (:mod:`bots.offline`: ``check_bot``,
tests, researchers) uses it as it is.

What a failure means is decided in one place, the match driver (``games.driver``): a caller
only says what went wrong, as a strike reason when the bot is at fault (``protocol.Failure``).
Whose fault a failure in transport is (a timeout, a connection error) the caller settles first
(:mod:`bots.reachability`): the platform's own network's, and the move is asked again, never
judged; else it is asked once more, and only a second failure is the bot's.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from games.engine import State
from games.seats import PlatformOutage, SeatAnswer

from . import protocol
from .net import BotClient, Call, CallLoop, Reply
from .protocol import JSON, MatchInfo
from .reachability import Reachability

#: Failures in transport: the bot's, or the platform's own network's (:mod:`bots.reachability`);
#: a resolver that does not answer is always the platform's.
_TRANSPORT = frozenset({protocol.TIMEOUT, protocol.CONNECTION_ERROR,
                        protocol.RESOLVER_UNAVAILABLE})

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Endpoint:
    """Where a seat's bot answers, the secret its calls are signed with (and the previous one
    while a rotation's overlap lasts), and whether its handshake accepts ``legal_description``
    alone for long legal lists."""

    url: str
    secret: str
    compact_legal_actions: bool = False
    previous_secret: str = ""
    #: The most calls it is sent at once from this process (0: no limit; ``Call.limit``).
    max_concurrency: int = 0


@dataclass
class CallRecord:
    """One call to a seat's bot as its developer needs to see it: what, how long, and how it
    failed (``reason`` empty: it did not). ``strike``: the failure was the bot's fault."""

    seat: int
    path: str
    turn: int
    elapsed_ms: float
    status: int | None = None
    reason: str = ""
    detail: str = ""
    strike: bool = False
    log: str = ""


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


class WebhookCaller:
    """Calls the bots of some seats of one match: ``/move`` for answers, ``/start`` and
    ``/end`` to tell them. Keeps a :class:`CallRecord` per call (and per body we could not
    build: a ``platform_error``, never sent, never a strike) until :meth:`take_records`."""

    def __init__(self, info: MatchInfo, endpoints: dict[int, Endpoint],
                 client: BotClient | Callable[[], BotClient],
                 reachability: Reachability | None = None, outage_wait: float = 15.0) -> None:
        """``reachability``: the platform's own (none: nothing of its own to check, as
        offline); ``outage_wait``: how long to wait for it to come back before the batch is
        dropped (:class:`games.seats.PlatformOutage`)."""
        self.info = info
        self.endpoints = endpoints
        self._client = client
        self.reachability = reachability or Reachability([])
        self.outage_wait = outage_wait
        self.records: list[CallRecord] = []
        #: The ``version`` each seat's /start answer declared, if it declared one (kept until
        #: the session reads it: ``bots.webhook.WebhookSession``).
        self.versions: dict[int, str] = {}

    @property
    def client(self) -> BotClient:
        """The client given, or made by the factory given on first use (once per caller)."""
        if not isinstance(self._client, BotClient):
            self._client = self._client()
        return self._client

    def take_records(self) -> list[CallRecord]:
        records, self.records = self.records, []
        return records

    def ask(self, state: State, seats: Sequence[int]) -> dict[int, SeatAnswer]:
        """``/move`` to every seat at once, all from ``state``, waiting here for the answers; an
        answer per seat (a seat whose body could not be built gets a platform failure: the
        default, no strike)."""
        answers, calls = self._calls(state, seats, "move", self._move_body)
        if calls:
            answers.update(self._judge_here(_MoveCalls(self, state, calls)))
        return answers

    def ask_one(self, state: State, seat: int) -> SeatAnswer:
        """:meth:`ask` of one seat: what most steps ask, with no mappings built."""
        call = self._prepare(state, seat, "move", self._move_body)
        if isinstance(call, SeatAnswer):
            return call
        started = self.reachability.clock()
        reply = self.client.call(call)
        if reply.failure is not None and reply.failure.reason in _TRANSPORT:
            moves = _MoveCalls(self, state, {seat: call}, sent_at=started)
            moves.judge({seat: reply})
            return self._judge_here(moves)[seat]
        return self._answer(state, seat, reply)

    def send(self, state: State, seats: Sequence[int], loop: CallLoop,
             answered: Mapping[int, SeatAnswer] | None = None) -> PendingMoves:
        """:meth:`ask` without waiting: the calls go out on ``loop`` and the answers are read,
        judged the same way, as the loop hands the replies back (:class:`PendingMoves`);
        ``answered``: seats of the step answered already (a bot that is gone)."""
        answers, calls = self._calls(state, seats, "move", self._move_body)
        return PendingMoves(_MoveCalls(self, state, calls), loop, {**(answered or {}), **answers})

    def _judge_here(self, moves: _MoveCalls) -> dict[int, SeatAnswer]:
        """Make ``moves``' calls from this thread until each has its answer: sent together,
        then again as the judging says (:class:`_MoveCalls`), waiting here for the platform's
        own network while it is down."""
        while not moves.done:
            seats = moves.take_sendable()
            if not seats:
                moves.wait_for_network()
                continue
            replies = self.client.call_many([moves.calls[seat] for seat in seats])
            moves.judge(dict(zip(seats, replies, strict=True)))
        return moves.answers

    def _set_aside(self, state: State, seat: int, reply: Reply, why: str, *,
                   platform: bool) -> None:
        """The record of an attempt that is not judged: never a strike."""
        assert reply.failure is not None
        record = self._record(seat, "move", state, reply)
        record.reason = protocol.PLATFORM_ERROR if platform else reply.failure.reason
        record.detail = f"{reply.failure.detail} ({why})"
        self.records.append(record)

    def _answer(self, state: State, seat: int, reply: Reply) -> SeatAnswer:
        """The seat's answer in ``reply`` to /move, read now, and the call's record."""
        outcome = reply.failure or protocol.parse_move_answer(
            state, seat, reply.body, compact=self.endpoints[seat].compact_legal_actions)
        record = self._record(seat, "move", state, reply)
        record.log = outcome.log or ""
        self.records.append(record)
        if isinstance(outcome, protocol.MoveAnswer):
            return SeatAnswer(action=outcome.action)
        record.reason, record.detail = outcome.reason, outcome.detail
        record.strike = outcome.is_bot_fault
        return SeatAnswer(strike=outcome.reason if record.strike else None,
                          detail=outcome.detail)

    def notify(self, state: State, seats: Sequence[int], path: str) -> None:
        """``/start`` or ``/end`` to every seat at once, waiting here; answers are ignored but
        for the ``version`` a /start answer may declare (:attr:`versions`), failures recorded
        (never a strike)."""
        make = protocol.start_body if path == "start" else protocol.end_body
        _, calls = self._calls(state, seats, path, make)
        replies = self.client.call_many(list(calls.values())) if calls else []
        for seat, reply in zip(calls, replies, strict=True):
            self._noticed(state, seat, path, reply)

    def notify_later(self, state: State, seats: Sequence[int], path: str, loop: CallLoop,
                     then: Callable[[], None] | None = None) -> PendingNotices:
        """:meth:`notify` without waiting: the calls go out on ``loop``; ``then`` runs once
        every one has come back (and is recorded)."""
        make = protocol.start_body if path == "start" else protocol.end_body
        _, calls = self._calls(state, seats, path, make)
        pending = PendingNotices(then)
        pending.left = len(calls)
        for seat, call in calls.items():
            loop.start(call, functools.partial(pending.back, self, state, seat, path))
        return pending

    def _noticed(self, state: State, seat: int, path: str, reply: Reply) -> None:
        """A /start or /end reply: its record; a /start answer's ``version`` kept
        (:attr:`versions`), or why it was ignored in the record's detail (never a strike)."""
        record = self._record(seat, path, state, reply)
        if reply.failure is not None:
            record.reason, record.detail = reply.failure.reason, reply.failure.detail
            if record.reason == protocol.WORKER_LATE:
                record.reason = protocol.PLATFORM_ERROR
        elif path == "start":
            version, record.detail = protocol.parse_start_answer(reply.body)
            if version:
                self.versions[seat] = version
        self.records.append(record)

    def _move_body(self, info: MatchInfo, state: State, seat: int) -> JSON:
        return protocol.move_body(info, state, seat,
                                  compact=self.endpoints[seat].compact_legal_actions)

    def _calls(self, state: State, seats: Sequence[int], path: str,
               make_body: Callable[[MatchInfo, State, int], JSON],
               ) -> tuple[dict[int, SeatAnswer], dict[int, Call]]:
        """Each seat's call, or its platform failure answer if its body could not be built."""
        answers: dict[int, SeatAnswer] = {}
        calls: dict[int, Call] = {}
        for seat in seats:
            call = self._prepare(state, seat, path, make_body)
            if isinstance(call, SeatAnswer):
                answers[seat] = call
            else:
                calls[seat] = call
        return answers, calls

    def _prepare(self, state: State, seat: int, path: str,
                 make_body: Callable[[MatchInfo, State, int], JSON]) -> Call | SeatAnswer:
        """The seat's call, or, if its body could not be built (our bug: it must not stop the
        match), a platform failure answer and its record."""
        endpoint = self.endpoints[seat]
        try:
            body = protocol.encode(make_body(self.info, state, seat))
        except Exception as exc:
            log.exception("match %s seat %s: building /%s failed", self.info.id, seat, path)
            self.records.append(CallRecord(seat=seat, path=path, turn=state.moves,
                                           elapsed_ms=0.0, reason=protocol.PLATFORM_ERROR,
                                           detail=repr(exc)))
            return SeatAnswer(detail=f"platform error: {exc!r}")
        return Call(url=endpoint.url, path=path, body=body, secret=endpoint.secret,
                    previous_secret=endpoint.previous_secret,
                    timeout=self.info.timeout_ms / 1000, limit=endpoint.max_concurrency)

    @staticmethod
    def _record(seat: int, path: str, state: State, reply: Reply) -> CallRecord:
        return CallRecord(seat=seat, path=path, turn=state.moves,
                          elapsed_ms=reply.elapsed * 1000, status=reply.status)


class _MoveCalls:
    """The /move calls of one step and their judging (module doc): whose fault a failure in
    transport is, settled in this one place whether the calls are made from the asking thread
    (:meth:`WebhookCaller.ask`) or in flight with hundreds of other matches' (:class:`PendingMoves`).

    A call failing in transport while the platform's own network failed (now, or at any time
    since the call was sent), or its resolver did not answer, is set aside (recorded, never a
    strike) and sent again once the network is back, waiting at most the caller's
    ``outage_wait`` (else :class:`PlatformOutage`); with the network fine it is sent once more,
    and only a second failure is the bot's. A call the worker read too late to judge
    (``worker_late``) is set aside and sent again at once.
    """

    def __init__(self, caller: WebhookCaller, state: State, calls: dict[int, Call], *,
                 sent_at: float | None = None) -> None:
        self.caller, self.state, self.calls = caller, state, calls
        self.answers: dict[int, SeatAnswer] = {}
        self.reachability = caller.reachability
        now = self.reachability.clock()
        self.give_up = now + caller.outage_wait
        #: When each seat's call was last sent (the judging asks about the network since).
        self.sent_at: dict[int, float] = dict.fromkeys(calls, now if sent_at is None
                                                       else sent_at)
        #: Seats whose call was sent once more with the network fine (a second failure stands).
        self.retried: set[int] = set()
        #: Seats to send now, and those waiting for the platform's own network.
        self.sendable: list[int] = [] if sent_at is not None else list(calls)
        self.waiting: set[int] = set()
        self.not_before = now  # after a resolver failure: a moment before sending again
        self.outage: PlatformOutage | None = None

    @property
    def done(self) -> bool:
        return len(self.answers) == len(self.calls)

    def take_sendable(self) -> list[int]:
        """The seats to send now (noted as sent now)."""
        seats, self.sendable = self.sendable, []
        now = self.reachability.clock()
        for seat in seats:
            self.sent_at[seat] = now
        return seats

    def judge(self, replies: Mapping[int, Reply], came_back: float | None = None) -> None:
        """Take replies that came back (by the reachability clock's ``came_back``, default
        now), judged together: one look at the network for all, made after they came back."""
        failed: list[int] = []
        for seat, reply in replies.items():
            if reply.failure is not None and reply.failure.reason in _TRANSPORT:
                failed.append(seat)
            elif reply.failure is not None and reply.failure.reason == protocol.WORKER_LATE:
                self.caller._set_aside(self.state, seat, reply, "asked again", platform=True)
                self.sendable.append(seat)
            else:
                self.answers[seat] = self.caller._answer(self.state, seat, reply)
        if not failed:
            return
        reachability = self.reachability
        resolver_down = any(replies[seat].failure.reason == protocol.RESOLVER_UNAVAILABLE
                            for seat in failed)  # type: ignore[union-attr]
        if came_back is None:
            came_back = reachability.clock()
        network_ok = not resolver_down and reachability.check(since=came_back)
        for seat in failed:
            reply = replies[seat]
            if not network_ok or reachability.last_failed >= self.sent_at[seat]:
                self.caller._set_aside(self.state, seat, reply, "the platform's own network "
                                       "failed meanwhile: asked again", platform=True)
                self.retried.discard(seat)
                self.waiting.add(seat)
            elif seat not in self.retried:
                self.caller._set_aside(self.state, seat, reply, "asked once more before it "
                                       "counts", platform=False)
                self.retried.add(seat)
                self.sendable.append(seat)
            else:  # failed twice with a live route between: the bot's own fault
                self.answers[seat] = self.caller._answer(self.state, seat, reply)
        if resolver_down:  # its services may answer and its resolver not yet: a moment
            self.not_before = reachability.clock() + 0.25

    def wait_for_network(self) -> None:
        """Wait here until the platform's network is back, then make the waiting seats
        sendable; :class:`PlatformOutage` past ``give_up``."""
        reachability = self.reachability
        left = self.give_up - reachability.clock()
        if left <= 0 or not reachability.wait(most=left):
            raise self._outage()
        pause = min(self.not_before - reachability.clock(), self.give_up - reachability.clock())
        if pause > 0:
            time.sleep(pause)
        self._resume()

    def look_at_network(self) -> None:
        """:meth:`wait_for_network` without waiting: the waiting seats are made sendable if the
        network is back (looked at no more than every 0.25 s, however many calls wait)."""
        reachability = self.reachability
        now = reachability.clock()
        if now >= self.give_up:
            self.outage = self._outage()
        elif now >= self.not_before and reachability.check(max_age=0.25):
            self._resume()

    def _resume(self) -> None:
        self.sendable.extend(sorted(self.waiting))
        self.waiting.clear()

    def _outage(self) -> PlatformOutage:
        return PlatformOutage(f"match {self.caller.info.id}: the platform cannot reach its own "
                              f"services for {self.caller.outage_wait:.0f} s")


class PendingMoves:
    """The /move calls of one step in flight on a :class:`CallLoop` (``games.seats.Pending``):
    each reply is judged as :class:`_MoveCalls` says when the loop's owner polls, calls sent
    again go out on the same loop."""

    def __init__(self, moves: _MoveCalls, loop: CallLoop,
                 answers: dict[int, SeatAnswer]) -> None:
        self.moves, self.loop = moves, loop
        self._unbuilt = answers
        self._replies: dict[int, Reply] = {}
        self._came_back = float("-inf")
        #: Called when a reply comes back (``games.seats.Pending``), if the poller set it.
        self.wake: Callable[[], None] | None = None
        self._send()

    def poll(self) -> bool:
        """Judge the replies come back, send what is to be sent again; True once every seat
        has its answer (or the platform's network stayed down too long)."""
        moves = self.moves
        if self._replies:
            replies, self._replies = self._replies, {}
            moves.judge(replies, self._came_back)
        if moves.waiting and not moves.sendable:
            moves.look_at_network()
        self._send()
        return moves.done or moves.outage is not None

    def answers(self) -> dict[int, SeatAnswer]:
        """Each seat's answer, once :meth:`poll` said so; :class:`PlatformOutage` if the
        platform's own network stayed down past the wait."""
        if self.moves.outage is not None:
            raise self.moves.outage
        return {**self._unbuilt, **self.moves.answers}

    def _send(self) -> None:
        for seat in self.moves.take_sendable():
            self.loop.start(self.moves.calls[seat], functools.partial(self._back, seat))

    def _back(self, seat: int, reply: Reply) -> None:
        self._replies[seat] = reply
        self._came_back = self.moves.reachability.clock()
        if self.wake is not None:
            self.wake()


class PendingNotices:
    """/start or /end calls in flight on a :class:`CallLoop` (a ``games.seats.Pending`` with
    no answers); ``then`` runs once, when the last is back."""

    def __init__(self, then: Callable[[], None] | None) -> None:
        self.then = then
        self.left = 0
        self.wake: Callable[[], None] | None = None

    def back(self, caller: WebhookCaller, state: State, seat: int, path: str,
             reply: Reply) -> None:
        self.left -= 1
        caller._noticed(state, seat, path, reply)
        if not self.left and self.wake is not None:
            self.wake()

    def poll(self) -> bool:
        if self.left:
            return False
        if self.then is not None:
            then, self.then = self.then, None
            then()
        return True

    def answers(self) -> dict[int, SeatAnswer]:
        return {}
