"""Playing a match where some seats are webhook bots: the engine plus HTTP, no models.

The failure policy lives here, once: any failure of a webhook seat's /move call gives that seat
the game's documented ``default_action`` and a strike with its reason; at ``strike_limit``
strikes the seat forfeits (``state.forfeit``: ranked last) and from then on plays default
actions without being called. Failures that are ours (a bug, a corrupt stored secret) are
recorded as platform errors and never strike the bot. Nothing a bot does can raise out of
:func:`play_webhook_match` or make it wait longer than the per-call timeout.

The ``games`` app is expected to plug a "webhook" seat kind into matches by calling
:func:`decide_webhook_seats` / :func:`apply_decision` per step, or this whole loop for
matches between bots.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import Bot, EngineError, State, get_game

from . import protocol
from .net import BotClient, Call, Reply
from .protocol import JSON, PLATFORM_ERROR, Failure, MatchInfo, MoveAnswer

log = logging.getLogger(__name__)

#: How many of a bot's own ``log`` lines a report keeps (the newest).
KEPT_LOGS = 50


@dataclass(frozen=True)
class WebhookSeat:
    """A seat played by a developer's HTTP bot at ``url``, signing calls with ``secret``."""

    url: str
    secret: str
    name: str = "webhook bot"


@dataclass(frozen=True)
class ReferenceSeat:
    """A seat played in-process by one of the game's reference bots (``random``, ``heuristic``)."""

    bot: str = "random"

    @property
    def name(self) -> str:
        return f"reference {self.bot}"


SeatSpec = WebhookSeat | ReferenceSeat


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


@dataclass
class SeatStats:
    """What a developer needs to debug a seat: strikes by reason, latencies, the last error."""

    seat: int
    name: str
    webhook: bool
    moves: int = 0  # decisions the seat was asked for
    defaults: int = 0  # of which played by the default action
    strikes: Counter = field(default_factory=Counter)
    platform_errors: int = 0
    call_errors: Counter = field(default_factory=Counter)  # /start and /end: never strikes
    latencies_ms: list[float] = field(default_factory=list)
    last_error: JSON | None = None
    logs: list[tuple[int, str]] = field(default_factory=list)
    forfeited: bool = False

    @property
    def strike_count(self) -> int:
        return sum(self.strikes.values())

    def summary(self) -> JSON:
        lat = self.latencies_ms
        return {
            "seat": self.seat, "name": self.name, "webhook": self.webhook,
            "moves": self.moves, "defaults": self.defaults, "forfeited": self.forfeited,
            "strikes": dict(self.strikes), "platform_errors": self.platform_errors,
            "call_errors": dict(self.call_errors), "last_error": self.last_error,
            "latency_ms": {"p50": percentile(lat, 50), "p95": percentile(lat, 95),
                           "max": max(lat) if lat else None, "count": len(lat)},
        }


@dataclass
class Decision:
    """How one seat's action for one step was obtained."""

    seat: int
    action: JSON
    source: str  # "bot", "reference", "default"
    failure: Failure | None = None


@dataclass
class MatchReport:
    """The finished (or aborted) match and what happened per seat."""

    state: State
    seats: list[SeatStats]
    history: list[Decision] = field(default_factory=list)
    platform_errors: list[JSON] = field(default_factory=list)
    aborted: str | None = None  # set only if the engine itself could not go on


class WebhookMatch:
    """One match in progress with its seats, stats and the failure policy.

    Kept as a class (not one function body) so a polling-driven match in the ``games`` app can
    drive it step by step: ``start()``, then ``step()`` until the state is over, then ``end()``.
    """

    def __init__(self, state: State, seats: Sequence[SeatSpec], *, match: MatchInfo,
                 client: BotClient, strike_limit: int | None = None, seed: int = 0) -> None:
        if len(seats) != state.players:
            raise ValueError(f"{len(seats)} seat specs for {state.players} players")
        self.state = state
        self.specs = list(seats)
        self.match = match
        self.client = client
        self.strike_limit = strike_limit
        self.timeout = match.timeout_ms / 1000
        self.stats = [SeatStats(seat=i, name=s.name, webhook=isinstance(s, WebhookSeat))
                      for i, s in enumerate(self.specs)]
        game = get_game(match.game)
        self.bots: dict[int, Bot] = {i: game.make_bot(s.bot, i, seed)
                                     for i, s in enumerate(self.specs)
                                     if isinstance(s, ReferenceSeat)}
        self.report = MatchReport(state=state, seats=self.stats)

    # ---- calls -----------------------------------------------------------------------------

    def _call(self, seat: int, path: str, body: JSON) -> Call:
        spec = self.specs[seat]
        assert isinstance(spec, WebhookSeat)
        return Call(url=spec.url, path=path, body=protocol.encode(body), secret=spec.secret,
                    timeout=self.timeout)

    def _webhook_seats(self, seats: Sequence[int]) -> list[int]:
        return [s for s in seats if isinstance(self.specs[s], WebhookSeat)
                and not self.stats[s].forfeited]

    def _notify(self, path: str, make_body: Callable[[MatchInfo, State, int], JSON]) -> None:
        """/start or /end to every webhook seat at once; answers are ignored, failures noted."""
        seats = self._webhook_seats(range(self.state.players))
        calls = []
        for seat in seats:
            try:
                calls.append(self._call(seat, path, make_body(self.match, self.state, seat)))
            except Exception as exc:  # noqa: BLE001 - a bug of ours must not stop the match
                self._platform_error(seat, f"building /{path}", exc)
                return
        for seat, reply in zip(seats, self.client.call_many(calls)):
            if reply.failure is not None:
                self.stats[seat].call_errors[reply.failure.reason] += 1
                self.stats[seat].last_error = {"path": path, "turn": self.state.moves,
                                               "reason": reply.failure.reason,
                                               "detail": reply.failure.detail}

    def start(self) -> None:
        self._notify("start", protocol.start_body)

    def end(self) -> None:
        self._notify("end", protocol.end_body)

    # ---- one step ----------------------------------------------------------------------------

    def _platform_error(self, seat: int | None, where: str, exc: BaseException) -> None:
        log.exception("platform error in match %s (%s)", self.match.id, where,
                      exc_info=exc)
        if seat is not None:
            self.stats[seat].platform_errors += 1
        self.report.platform_errors.append({"seat": seat, "turn": self.state.moves,
                                            "where": where, "detail": repr(exc)})

    def _request_moves(self, seats: list[int]) -> dict[int, Reply]:
        """/move to every asked webhook seat concurrently, all from the same state."""
        calls: dict[int, Call] = {}
        for seat in seats:
            try:
                calls[seat] = self._call(seat, "move", protocol.move_body(self.match, self.state,
                                                                         seat))
            except Exception as exc:  # noqa: BLE001
                self._platform_error(seat, "building /move", exc)
        return dict(zip(calls, self.client.call_many(list(calls.values()))))

    def _decide(self, seat: int, reply: Reply | None) -> Decision:
        """The seat's action now: its bot's if valid, else the default (with a strike if the
        bot is at fault)."""
        stats = self.stats[seat]
        stats.moves += 1
        failure: Failure | None
        if seat in self.bots:
            try:
                action = self.bots[seat].choose(self.state.view(seat),
                                                self.state.legal_actions(seat))
                self.state.validate(seat, action)
                return Decision(seat, action, "reference")
            except Exception as exc:  # noqa: BLE001
                self._platform_error(seat, "reference bot", exc)
                failure = Failure(PLATFORM_ERROR, repr(exc))
        elif reply is None:  # forfeited, or we could not build the call
            failure = None
        else:
            stats.latencies_ms.append(reply.elapsed * 1000)
            outcome: MoveAnswer | Failure = reply.failure or protocol.parse_move_answer(
                self.state, seat, reply.body)
            if isinstance(outcome, MoveAnswer):
                if outcome.log:
                    stats.logs = [*stats.logs[-(KEPT_LOGS - 1):], (self.state.moves, outcome.log)]
                return Decision(seat, outcome.action, "bot")
            failure = outcome
            if failure.is_bot_fault:
                self._strike(seat, failure)
            else:
                stats.platform_errors += 1
                self.report.platform_errors.append({"seat": seat, "turn": self.state.moves,
                                                    "where": "call", "detail": failure.detail})
        stats.defaults += 1
        return Decision(seat, self.state.default_action(seat), "default", failure)

    def _strike(self, seat: int, failure: Failure) -> None:
        stats = self.stats[seat]
        stats.strikes[failure.reason] += 1
        stats.last_error = {"path": "move", "turn": self.state.moves, "reason": failure.reason,
                            "detail": failure.detail}
        if self.strike_limit is not None and stats.strike_count >= self.strike_limit:
            stats.forfeited = True
            self.state.forfeit(seat, reason="strikes")

    def step(self) -> None:
        """Ask every seat in ``to_act()`` (webhook seats concurrently) and apply the answers.

        Raises :class:`EngineError` only if even a default action cannot be applied (an engine
        bug); :func:`play_webhook_match` turns that into an aborted report.
        """
        to_act = self.state.to_act()
        replies = self._request_moves(self._webhook_seats(to_act))
        for seat in to_act:
            if self.state.is_over or seat not in self.state.to_act():
                continue
            decision = self._decide(seat, replies.get(seat))
            try:
                self.state.apply(seat, decision.action)
            except EngineError as exc:
                # Valid when checked, refused now: our bug (e.g. an engine inconsistency).
                self._platform_error(seat, "apply", exc)
                decision = Decision(seat, self.state.default_action(seat), "default",
                                    Failure(PLATFORM_ERROR, str(exc)))
                self.state.apply(seat, decision.action)
            self.report.history.append(decision)


def play_webhook_match(game_id: str, seats: Sequence[SeatSpec], *, client: BotClient,
                       seed: int = 0, options: JSON | None = None, match_id: str | None = None,
                       timeout_ms: int = 1000, strike_limit: int | None = 5,
                       on_step: Callable[[WebhookMatch], Any] | None = None) -> MatchReport:
    """Play a whole match: /start to every webhook seat, steps until over, /end to every one.

    Never raises because of a bot; if the engine itself fails, returns the report with
    ``aborted`` set.
    """
    game = get_game(game_id)
    state = game.new_match(players=len(seats), seed=seed, options=options)
    match = MatchInfo(id=match_id or uuid.uuid4().hex, game=game_id, options=state.options,
                      seats=[s.name for s in seats], timeout_ms=timeout_ms,
                      strike_limit=strike_limit)
    runner = WebhookMatch(state, seats, match=match, client=client, strike_limit=strike_limit,
                          seed=seed)
    runner.start()
    while not state.is_over:
        moves = state.moves
        try:
            runner.step()
        except Exception as exc:  # noqa: BLE001 - the engine could not go on: stop, report
            runner._platform_error(None, "step", exc)
            runner.report.aborted = repr(exc)
            break
        if state.moves == moves and not state.is_over:  # no progress would loop forever
            runner.report.aborted = "no progress in a step"
            break
        if on_step is not None:
            on_step(runner)
    runner.end()
    return runner.report
