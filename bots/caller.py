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

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from games.engine import State
from games.seats import PlatformOutage, SeatAnswer

from . import protocol
from .net import BotClient, Call, Reply
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
        """``/move`` to every seat at once, all from ``state``; an answer per seat (a seat
        whose body could not be built gets a platform failure: the default, no strike)."""
        replies, answers = self._call(state, seats, "move", self._move_body, judged=True)
        for seat, reply in replies.items():
            answers[seat] = self._answer(state, seat, reply)
        return answers

    def ask_one(self, state: State, seat: int) -> SeatAnswer:
        """:meth:`ask` of one seat: what most steps ask, with no mappings built."""
        call = self._prepare(state, seat, "move", self._move_body)
        if isinstance(call, SeatAnswer):
            return call
        started = self.reachability.clock()
        reply = self.client.call(call)
        if reply.failure is not None and reply.failure.reason in _TRANSPORT:
            reply = self._judged(state, [seat], [call], [reply], started)[0]
        return self._answer(state, seat, reply)

    def _judged(self, state: State, seats: Sequence[int], calls: Sequence[Call],
                replies: Sequence[Reply], started: float) -> list[Reply]:
        """``replies`` (to ``calls``, sent at ``started``) with every failure in transport
        settled (:mod:`bots.reachability`): while the platform's own network fails, or failed
        since the call began, the call is made again when it is back (waiting at most
        ``outage_wait``, else :class:`PlatformOutage`); with the network fine, it is made once
        more, and a second failure stands as the bot's. Each attempt set aside is recorded,
        never as a strike."""
        replies, tries = list(replies), [0] * len(calls)
        give_up = self.reachability.clock() + self.outage_wait
        while failed := [i for i, r in enumerate(replies)
                         if r.failure is not None and r.failure.reason in _TRANSPORT]:
            resolver_down = any(replies[i].failure.reason == protocol.RESOLVER_UNAVAILABLE
                                for i in failed)  # type: ignore[union-attr]
            if resolver_down or self.reachability.at_fault_since(started):
                why = "the platform's own network failed meanwhile: asked again"
                for i in failed:
                    self._set_aside(state, seats[i], replies[i], why, platform=True)
                    tries[i] = 0
                left = give_up - self.reachability.clock()
                if left <= 0 or not self.reachability.wait(most=left):
                    raise PlatformOutage(f"match {self.info.id}: the platform cannot reach its "
                                         f"own services for {self.outage_wait:.0f} s")
                if resolver_down:  # its services answer, its resolver not yet: a moment
                    time.sleep(min(0.25, left))
            else:
                failed = [i for i in failed if not tries[i]]
                if not failed:
                    break  # failed twice with a live route between: the bot's own fault
                for i in failed:
                    self._set_aside(state, seats[i], replies[i], "asked once more before it "
                                    "counts", platform=False)
                    tries[i] = 1
            started = self.reachability.clock()
            again = [calls[i] for i in failed]
            answered = (self.client.call_many(again) if len(again) > 1
                        else [self.client.call(again[0])])
            for i, reply in zip(failed, answered, strict=True):
                replies[i] = reply
        return replies

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
        """``/start`` or ``/end`` to every seat at once; answers are ignored, failures
        recorded (never a strike)."""
        make = protocol.start_body if path == "start" else protocol.end_body
        replies, _ = self._call(state, seats, path, make)
        for seat, reply in replies.items():
            record = self._record(seat, path, state, reply)
            if reply.failure is not None:
                record.reason, record.detail = reply.failure.reason, reply.failure.detail
            self.records.append(record)

    def _move_body(self, info: MatchInfo, state: State, seat: int) -> JSON:
        return protocol.move_body(info, state, seat,
                                  compact=self.endpoints[seat].compact_legal_actions)

    def _call(self, state: State, seats: Sequence[int], path: str,
              make_body: Callable[[MatchInfo, State, int], JSON], *, judged: bool = False,
              ) -> tuple[dict[int, Reply], dict[int, SeatAnswer]]:
        """Build each seat's body and call those bots at once: their replies by seat (with
        failures in transport settled if ``judged``: :meth:`_judged`), and a platform failure
        answer for each body we could not build."""
        calls: list[Call] = []
        asked: list[int] = []
        failed: dict[int, SeatAnswer] = {}
        for seat in seats:
            call = self._prepare(state, seat, path, make_body)
            if isinstance(call, SeatAnswer):
                failed[seat] = call
            else:
                calls.append(call)
                asked.append(seat)
        started = self.reachability.clock()
        replies = self.client.call_many(calls) if calls else []
        if judged and any(r.failure is not None and r.failure.reason in _TRANSPORT
                          for r in replies):
            replies = self._judged(state, asked, calls, replies, started)
        return dict(zip(asked, replies, strict=True)), failed

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
                    timeout=self.info.timeout_ms / 1000)

    @staticmethod
    def _record(seat: int, path: str, state: State, reply: Reply) -> CallRecord:
        return CallRecord(seat=seat, path=path, turn=state.moves,
                          elapsed_ms=reply.elapsed * 1000, status=reply.status)
