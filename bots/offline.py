"""Whole matches with webhook bots and no database: ``check_bot``, tests and researchers.

The match is played by the same match driver as real matches (``games.driver``: one failure
policy, one way to ask seats) with the same caller (:mod:`bots.caller`: bodies, signatures,
the SSRF-guarded client, answers), only without rows: the webhook seats are plain
:class:`WebhookSeat` values and the report is built from what the driver logged and the caller
recorded.
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.driver import EntryKind, MatchDriver, Move
from games.engine import State, get_game
from games.seats import REFERENCE, SeatAnswer, SeatKind, SeatSession, Table, TableSeat

from .caller import CallRecord, Endpoint, WebhookCaller, percentile
from .net import BotClient
from .protocol import JSON, PLATFORM_ERROR, MatchInfo

log = logging.getLogger(__name__)

WEBHOOK = "webhook"
#: How many of a bot's own ``log`` lines a report keeps (the newest).
KEPT_LOGS = 50


@dataclass(frozen=True)
class WebhookSeat:
    """A seat played by a developer's HTTP bot at ``url``, signing calls with ``secret``;
    ``compact_legal_actions`` as its handshake says."""

    url: str
    secret: str
    name: str = "webhook bot"
    compact_legal_actions: bool = False


@dataclass(frozen=True)
class ReferenceSeat:
    """A seat played in-process by one of the game's reference bots (``random``, ``heuristic``)."""

    bot: str = "random"

    @property
    def name(self) -> str:
        return f"reference {self.bot}"


SeatSpec = WebhookSeat | ReferenceSeat


@dataclass
class SeatStats:
    """What a developer needs to debug a seat: strikes by reason, latencies, the last error."""

    seat: int
    name: str
    webhook: bool
    moves: int = 0  # decisions the seat made or was given
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


@dataclass(frozen=True)
class Decision:
    """How one seat's action for one step was obtained: ``source`` is ``bot``, ``reference``
    or ``default``."""

    seat: int
    action: JSON
    source: str


@dataclass
class MatchReport:
    """The finished (or aborted) match and what happened per seat."""

    state: State
    seats: list[SeatStats]
    history: list[Decision] = field(default_factory=list)
    platform_errors: list[JSON] = field(default_factory=list)
    aborted: str | None = None  # set only if the engine itself could not go on
    stopped: str | None = None  # set if a FailureStreak stopped the match early: why


@dataclass
class FailureStreak:
    """Consecutive failed moves (strikes) of a match's webhook seats, carried across matches:
    offline play stops once it reaches ``limit`` (0: never), so a bot that times out on every
    move is not waited on for a whole series of matches to learn that it is slow."""

    limit: int
    count: int = 0
    last: Move | None = None

    def note(self, move: Move) -> None:
        self.count = self.count + 1 if move.strike else 0
        self.last = move

    @property
    def reached(self) -> bool:
        return 0 < self.limit <= self.count

    def why(self) -> str:
        last = self.last
        return (f"{self.count} consecutive failed moves (the last: {last.strike}: "
                f"{last.detail})" if last else "")


class _OfflineWebhookSession(SeatSession):
    """The webhook seats of an offline match: a caller over plain endpoints, records kept;
    /start and /end when the driver tells the match runs and ended (``MatchDriver.tell``),
    to the seats a real match tells (``Table.notified_seats``)."""

    def __init__(self, caller: WebhookCaller, table: Table) -> None:
        self.caller = caller
        self.notified = table.notified_seats(WEBHOOK)

    def ask(self, state: State, seats: Sequence[int], version: int) -> dict[int, SeatAnswer]:
        return self.caller.ask(state, seats)

    def ask_one(self, state: State, seat: int, version: int) -> SeatAnswer:
        return self.caller.ask_one(state, seat)

    def started(self, state: State) -> None:
        self._notify(state, "start")

    def finished(self, state: State) -> None:
        self._notify(state, "end")

    def _notify(self, state: State, path: str) -> None:
        if self.notified:
            self.caller.notify(state, self.notified, path)


class _OfflineWebhookKind:
    def __init__(self, session: _OfflineWebhookSession) -> None:
        self._session = session

    def session(self, table: Table) -> _OfflineWebhookSession:
        return self._session


def play_webhook_match(game_id: str, seats: Sequence[SeatSpec], *, client: BotClient,
                       seed: int = 0, options: JSON | None = None, match_id: int | None = None,
                       timeout_ms: int = 1000, strike_limit: int | None = 5,
                       streak: FailureStreak | None = None) -> MatchReport:
    """Play a whole match: /start to every webhook seat, steps until over, /end to every one
    (forfeited too), told by the driver as in a real match (``MatchDriver.tell``).
    ``strike_limit`` None: never forfeit. ``streak``: stop early (no /end, the match is not over) once it is reached, with
    ``stopped`` set. Never raises because of a bot; if the engine itself fails, returns the
    report with ``aborted`` set."""
    game = get_game(game_id)
    state = game.new_match(players=len(seats), seed=seed, options=options)
    if match_id is None:  # an integer, as real matches have: a JavaScript-safe random one
        match_id = secrets.randbelow(2**53 - 1) + 1
    info = MatchInfo(id=match_id, game=game_id, options=state.options,
                     seats=[s.name for s in seats], timeout_ms=timeout_ms,
                     strike_limit=strike_limit)
    endpoints = {n: Endpoint(s.url, s.secret, s.compact_legal_actions)
                 for n, s in enumerate(seats) if isinstance(s, WebhookSeat)}
    table = Table(match_id=match_id, game=game_id, options=state.options, seed=seed,
                  seats=tuple(TableSeat(number=n, kind=WEBHOOK) if isinstance(s, WebhookSeat)
                              else TableSeat(number=n, kind=REFERENCE, bot=s.bot)
                              for n, s in enumerate(seats)),
                  move_time_limit=max(1, -(-timeout_ms // 1000)),
                  strike_limit=strike_limit or 0)
    session = _OfflineWebhookSession(WebhookCaller(info, endpoints, client), table)
    kinds = {WEBHOOK: SeatKind(WEBHOOK, automatic=_OfflineWebhookKind(session), inline=False)}
    driver = MatchDriver(state, table, kinds=kinds)
    driver.tell(over=False)
    aborted = stopped = None
    moves: list[Move] = []
    while not state.is_over and stopped is None:
        version = driver.version
        try:
            driver.settle()
            driver.run(max_steps=1)
        except Exception as exc:  # the engine could not go on: stop, report
            log.exception("offline match %s could not go on", match_id)
            aborted = repr(exc)
            break
        step = driver.take_moves()
        moves += step
        if streak is not None:
            for move in step:
                if move.kind in (EntryKind.ACTION, EntryKind.DEFAULT) and move.seat in endpoints:
                    streak.note(move)
            stopped = streak.why() if streak.reached else None
        if driver.version == version and not state.is_over:  # would loop forever
            aborted = "no progress in a step"
            break
    moves += driver.take_moves()
    if stopped is None:
        driver.tell(over=True)
    report = _report(state, seats, moves, session.caller.take_records(), driver, aborted)
    report.stopped = stopped
    return report


def _report(state: State, seats: Sequence[SeatSpec], moves: Sequence[Move],
            records: Sequence[CallRecord], driver: MatchDriver, aborted: str | None
            ) -> MatchReport:
    stats = [SeatStats(seat=n, name=s.name, webhook=isinstance(s, WebhookSeat),
                       forfeited=n in driver.forfeited) for n, s in enumerate(seats)]
    report = MatchReport(state=state, seats=stats, aborted=aborted)
    for move in moves:
        if move.kind not in (EntryKind.ACTION, EntryKind.DEFAULT) or move.seat is None:
            continue
        seat = stats[move.seat]
        seat.moves += 1
        source = "bot" if seat.webhook else "reference"
        if move.kind == EntryKind.DEFAULT:
            source = "default"
            seat.defaults += 1
            if move.strike:
                seat.strikes[move.strike] += 1
                seat.last_error = {"path": "move", "turn": move.turn, "reason": move.strike,
                                   "detail": move.detail}
            elif move.detail:  # no strike, but a reason: a platform failure of ours
                seat.platform_errors += 1
                report.platform_errors.append({"seat": move.seat, "turn": move.turn,
                                               "detail": move.detail})
        report.history.append(Decision(move.seat, move.action, source))
    for record in records:
        seat = stats[record.seat]
        if record.path == "move":
            if record.reason != PLATFORM_ERROR:
                seat.latencies_ms.append(record.elapsed_ms)
            if record.log:
                seat.logs = [*seat.logs[-(KEPT_LOGS - 1):], (record.turn, record.log)]
        elif record.reason:
            seat.call_errors[record.reason] += 1
            seat.last_error = {"path": record.path, "turn": record.turn,
                               "reason": record.reason, "detail": record.detail}
    return report


__all__ = ["Decision", "FailureStreak", "MatchReport", "ReferenceSeat", "SeatSpec", "SeatStats",
           "WebhookSeat", "play_webhook_match"]
