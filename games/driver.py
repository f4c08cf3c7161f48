"""The match driver: every change to a match's engine state goes through here, once.

A :class:`MatchDriver` holds one engine state, the seats' strikes and forfeits and the match
version, and turns whatever happens into log entries (:class:`Move`): a player's action, a
resignation, a missed deadline, and the answers of seats that act by themselves. It has no
database and no network of its own: the services load a match into a driver and store what it
made, and offline users (``check_bot``, benches, researchers) drive one directly.

The failure policy, written once (docs/api.md, docs/bot-protocol.md):

* An automatic seat's answer (:class:`games.seats.SeatAnswer`) with a legal action is applied.
* Otherwise the seat gets the game's default action; if the seat is at fault (the answer names a
  strike reason, or its action was illegal: ``illegal_action``) it also gets a strike. An answer
  with neither is a platform failure: the default action and no strike.
* A missed deadline is the default action and a ``timeout`` strike. Only polling seats (a
  person or a program that polls) have a deadline: an automatic seat is judged on its own
  answers only (a webhook bot on each call's timeout), so time the platform spent not asking
  it (a dead worker, a backlog) never counts against it.
* At the match's strike limit (0 = never) the seat forfeits (``strikes``, or ``timeouts`` when
  the last strike was a missed deadline): the engine ranks it last and from then on it plays the
  default action without being asked.

Versions: every applied action, default action and resignation bumps the version by one;
``step_version`` is the version at which the current set of seats to act began (the seats of
a simultaneous step may answer with any version since then).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from lib.steps import answer_here

from .engine import IllegalAction, State
from .seats import (
    Answered,
    Pending,
    PlatformOutage,
    SeatAnswer,
    SeatKind,
    SeatSession,
    Table,
    get_seat_kind,
)

log = logging.getLogger(__name__)

JSON = dict[str, Any]

class EntryKind(StrEnum):
    """What made a log entry (``games.log`` stores the value; the API shows it)."""

    START = "start"  # the deal
    ACTION = "action"  # a seat's own action
    DEFAULT = "default"  # the game's default action, played for a seat (forfeited, or failed)
    TIMEOUT = "timeout"  # the default action of a seat past its deadline
    RESIGN = "resign"  # a resignation or a forfeit: the seat is out, nothing applied


#: The kinds of entry whose action the engine applied.
APPLIED = frozenset({EntryKind.ACTION, EntryKind.DEFAULT, EntryKind.TIMEOUT})

#: Strike reasons the driver gives itself (a seat kind names its own, e.g. ``http_status``).
ILLEGAL_ACTION = "illegal_action"
MISSED_DEADLINE = "timeout"


_NO_ANSWER = SeatAnswer(detail="platform error: no answer")


@dataclass(slots=True)
class Entry:
    """What every entry of the match log holds (``games.log`` stores them).

    ``n``: 0, 1, 2, ... without gaps, the match version after the entry; ``kind``: its
    :class:`EntryKind`; ``events``: the engine events it produced, each seat's
    private part under ``private[str(seat)]``; ``event_count``: engine events up to and
    including it.
    """

    # Not frozen: a frozen dataclass sets each field through object.__setattr__, a good part of
    # the driver's own time per move. Nothing changes an entry once made.

    n: int
    kind: EntryKind
    seat: int | None
    action: JSON | None
    events: list[JSON]
    event_count: int

    @property
    def version(self) -> int:
        return self.n


@dataclass(slots=True)
class Move(Entry):
    """An entry as the driver makes it: ``turn`` is the engine's move count before it (what a
    seat was asked at); ``strike`` the reason the seat got a strike with it (its detail in
    ``detail``)."""

    turn: int = 0
    strike: str | None = None
    detail: str = ""


def replay(state: State, entries: Iterable[Any]) -> State:
    """``state`` (a new match) after ``entries`` of its log, in order (anything with ``kind``,
    ``seat`` and ``action``: the driver's entries, ``games.log``'s): each applied action again,
    each resignation's forfeit. The one replay of a logged match (the replay page); the
    engine's ``games.engine.play.replay`` takes plain actions, with no resignations."""
    for entry in entries:
        if entry.kind in APPLIED:
            state.apply(entry.seat, entry.action)
        elif entry.kind == EntryKind.RESIGN:
            state.forfeit(entry.seat, (entry.action or {}).get("reason", "resigned"))
    return state


class MatchDriver:
    """One match's engine state and seats, changed only through the failure policy above.

    ``kinds`` overrides registered seat kinds by name (offline play plugs in a webhook kind
    that needs no database this way); ``sessions`` hands over sessions already open (a driver
    rebuilt on a newer state keeps the records of the one before). Other automatic kinds open
    their sessions when first asked.
    """

    def __init__(self, state: State, table: Table, *, version: int = 0, step_version: int = 0,
                 strikes: Sequence[int] | None = None, forfeited: Iterable[int] = (),
                 kinds: Mapping[str, SeatKind] | None = None,
                 sessions: Mapping[str, SeatSession] | None = None) -> None:
        if len(table.seats) != state.players:
            raise ValueError(f"{len(table.seats)} seats for {state.players} players")
        self.state = state
        self.table = table
        self.version = version
        self.step_version = step_version
        self.strikes = list(strikes) if strikes is not None else [0] * state.players
        self.forfeited = set(forfeited)
        self._kinds = dict(kinds or {})
        #: Each seat's kind, by seat number.
        self.kinds: list[SeatKind] = [self._kind(seat.kind) for seat in table.seats]
        #: Open sessions by kind name.
        self.sessions: dict[str, SeatSession] = dict(sessions or {})
        self._moves: list[Move] = []
        #: Each seat's kind name where that kind is inline and automatic (:meth:`settle` asks
        #: it), else None: looked up once, not once a move.
        self._inline: list[str | None] = [
            seat.kind if kind.automatic is not None and kind.inline else None
            for seat, kind in zip(table.seats, self.kinds)]

    # ---- what the driver made ------------------------------------------------------------

    @property
    def moves(self) -> list[Move]:
        """Log entries made since the driver was built or :meth:`take_moves` was last called."""
        return self._moves

    def take_moves(self) -> list[Move]:
        moves, self._moves = self._moves, []
        return moves

    def session(self, kind: str) -> SeatSession:
        """The open session of ``kind`` at this table (opened on first use)."""
        session = self.sessions.get(kind)
        if session is None:
            automatic = self._kind(kind).automatic
            if automatic is None:
                raise ValueError(f"seat kind {kind!r} is not automatic")
            session = self.sessions[kind] = automatic.session(self.table)
        return session

    def out_of_process_sessions(self) -> list[SeatSession]:
        """A session of every out-of-process kind seated here (opened if need be)."""
        names = dict.fromkeys(seat.kind for seat, kind in zip(self.table.seats, self.kinds)
                              if kind.out_of_process)
        return [self.session(name) for name in names]

    def tell(self, *, over: bool) -> None:
        """The match's notices, for real matches and offline play alike: tell every
        out-of-process kind seated here that the match runs (:meth:`SeatSession.started`, a
        webhook bot's /start) or, ``over``, that it ended (:meth:`SeatSession.finished`, its
        /end); who is told is the kind's ``Table.notified_seats``. A failing hook is logged,
        never fatal to the match."""
        for session in self.out_of_process_sessions():
            try:
                if over:
                    session.finished(self.state)
                else:
                    session.started(self.state)
            except Exception:
                log.exception("match %s: %s of %s failed", self.table.match_id,
                              "finished" if over else "started", type(session).__name__)

    # ---- changes -------------------------------------------------------------------------

    def start(self) -> None:
        """The log's first entry (the deal): no version change."""
        self._log(EntryKind.START, None, None, since=0)

    def act(self, seat: int, action: JSON, *, kind: EntryKind = EntryKind.ACTION,
            strike: str | None = None, detail: str = "",
            before: Sequence[int] | None = None) -> None:
        """Apply ``action`` for ``seat`` (:class:`IllegalAction` propagates, nothing changed).
        ``before``: the seats to act now, if the caller has them (:meth:`settle` does)."""
        self._act(seat, action, kind, strike, detail, before)

    def _act(self, seat: int, action: JSON, kind: EntryKind, strike: str | None, detail: str,
             before: Sequence[int] | None) -> None:
        """:meth:`act` with every argument positional, as the driver calls it once a move (a
        call with keywords costs about twice as much)."""
        state = self.state
        since, turn = state.event_count, state.moves
        if before is None:
            before = state.to_act()
        state.apply(seat, action)
        self.version += 1
        # The step goes on only while the seats left are a strict subset of those asked before:
        # a seat asked again right after its own action faces a new decision.
        after = state.to_act()
        if not (len(after) < len(before) and set(after) <= set(before)):
            self.step_version = self.version
        self._log(kind, seat, action, since, turn, strike, detail)

    def resign(self, seat: int, reason: str = "resigned") -> None:
        """Forfeit ``seat``: ranked last, and it plays default actions from now on."""
        state = self.state
        since = state.event_count
        before = set(state.to_act())
        state.forfeit(seat, reason)
        self.forfeited.add(seat)
        self.version += 1
        if not set(state.to_act()) <= before:
            self.step_version = self.version
        self._log(EntryKind.RESIGN, seat, {"type": "resign", "reason": reason}, since=since)

    def decide(self, seat: int, answer: SeatAnswer) -> bool:
        """Apply an automatic seat's answer under the failure policy; False if the seat is not
        (or no longer) asked, or is forfeited (then :meth:`settle` plays its default)."""
        state = self.state
        if state.is_over or seat not in state.to_act() or seat in self.forfeited:
            return False
        self._take_answer(seat, answer)
        return True

    def _take_answer(self, seat: int, answer: SeatAnswer,
                     before: Sequence[int] | None = None) -> None:
        """:meth:`decide` for a seat known to be asked and not forfeited (``before`` as for
        :meth:`act`)."""
        if answer.action is not None:
            try:
                self._act(seat, answer.action, EntryKind.ACTION, None, "", before)
                return
            except IllegalAction as exc:
                log.info("match %s seat %s chose an illegal action: %s", self.table.match_id,
                         seat, exc)
                if answer.ours:  # the platform's own bot: our bug, not the seat's
                    strike, detail = None, f"platform error: reference bot: {exc!r}"
                else:
                    strike, detail = answer.strike or ILLEGAL_ACTION, str(exc)
        else:
            strike, detail = answer.strike, answer.detail
        self.act(seat, self.state.default_action(seat), kind=EntryKind.DEFAULT, strike=strike,
                 detail=detail)
        if strike:
            self._strike(seat, forfeit_reason="strikes")

    def submit(self, answers: Mapping[int, SeatAnswer]) -> int:
        """:meth:`decide` each answer in order; how many were applied."""
        return sum(self.decide(seat, answer) for seat, answer in answers.items())

    def miss_deadline(self, seat: int) -> None:
        """``seat`` let its deadline pass: the default action and a strike."""
        state = self.state
        self.act(seat, state.default_action(seat), kind=EntryKind.TIMEOUT, strike=MISSED_DEADLINE,
                 detail="the deadline passed")
        self._strike(seat, forfeit_reason="timeouts")

    def polling_due(self) -> list[int]:
        """The seats to act that have a deadline: those a person or program plays by polling
        (not automatic, not forfeited). An automatic seat answers when the platform asks it,
        so only the platform can keep it waiting."""
        kinds, forfeited = self.kinds, self.forfeited
        return [seat for seat in self.state.to_act()
                if kinds[seat].automatic is None and seat not in forfeited]

    def expire(self) -> int:
        """The deadline passed: every polling seat still to act missed it (automatic seats
        are left to be asked); how many default actions were applied."""
        applied = 0
        for seat in self.polling_due():
            if self.state.is_over or seat not in self.state.to_act():
                continue
            self.miss_deadline(seat)
            applied += 1
        return applied

    def _strike(self, seat: int, *, forfeit_reason: str) -> None:
        self.strikes[seat] += 1
        limit = self.table.strike_limit
        if limit and self.strikes[seat] >= limit and seat not in self.forfeited:
            self.resign(seat, forfeit_reason)

    # ---- seats that act by themselves ----------------------------------------------------

    def settle(self) -> None:
        """Forfeited seats play their default action and inline automatic seats (reference
        bots) choose, until only polling or out-of-process seats are due or the match is over
        (the engine's move cap guarantees that it ends)."""
        state, forfeited = self.state, self.forfeited
        inline = self._inline
        while not state.is_over:
            progressed = False
            to_act = state.to_act()
            for i, seat in enumerate(to_act):
                # After the first seat has acted, the others of the step may be asked no more.
                if i and (state.is_over or seat not in state.to_act()):
                    continue
                if seat in forfeited:
                    self._act(seat, state.default_action(seat), EntryKind.DEFAULT, None, "",
                              None if i else to_act)
                elif (name := inline[seat]) is not None:
                    self._take_answer(seat, self._ask_seat(name, seat),
                                      None if i else to_act)
                else:
                    continue
                progressed = True
            if not progressed:
                break

    def due_out_of_process(self) -> tuple[list[int], bool]:
        """The due out-of-process seats (not forfeited), and whether any other seat is due too
        (after :meth:`settle` that can only be a polling player)."""
        due: list[int] = []
        others = False
        for seat in self.state.to_act():
            if self.kinds[seat].out_of_process and seat not in self.forfeited:
                due.append(seat)
            else:
                others = True
        return due, others

    def ask(self, seats: Sequence[int]) -> dict[int, SeatAnswer]:
        """Answers of ``seats`` (several seats of one kind at once), from the state as it is;
        nothing is applied. A kind that raises is a platform failure: no strike."""
        answers: dict[int, SeatAnswer] = {}
        for name, numbers in self._by_kind(seats).items():
            answers.update(self._ask_kind(name, numbers))
        return {seat: answers[seat] for seat in seats}

    def _ask_kind(self, name: str, seats: Sequence[int]) -> dict[int, SeatAnswer]:
        """:meth:`ask` of seats all of kind ``name`` (what :meth:`settle` asks, one seat at a
        time, without grouping by kind)."""
        try:
            answers = self.session(name).ask(self.state, seats, self.version)
        except PlatformOutage:
            raise
        except Exception as exc:  # noqa: BLE001 - another app's bug must not stall a match (logged)
            failure = self._kind_failed(name, exc)
            return {seat: failure for seat in seats}
        return {seat: answers.get(seat) or _NO_ANSWER for seat in seats}

    def _ask_seat(self, name: str, seat: int) -> SeatAnswer:
        """:meth:`_ask_kind` of one seat, as :meth:`settle` asks inline seats and :meth:`run`
        a step of one seat, once a move (``SeatSession.ask_one``: no mappings built and taken
        apart for every move)."""
        try:
            answer = self.session(name).ask_one(self.state, seat, self.version)
        except PlatformOutage:
            raise
        except Exception as exc:  # noqa: BLE001 - another app's bug must not stall a match (logged)
            return self._kind_failed(name, exc)
        return answer or _NO_ANSWER

    def _kind_failed(self, name: str, exc: Exception) -> SeatAnswer:
        log.exception("match %s: seat kind %r failed to answer", self.table.match_id, name)
        return SeatAnswer(detail=f"platform error: {exc!r}")

    def steps(self, *, max_moves: int = 1 << 30, until: float | None = None,
              max_steps: int = 1 << 30) -> Generator[Ask, dict[int, SeatAnswer], tuple[int, int]]:
        """Ask and apply out-of-process seats step by step while only they are due (a step that
        also waits for a polling player is left to the caller), as a generator: it yields an
        :class:`Ask` for each step and is resumed with the answers, however the caller gets
        them (:meth:`run` here and now; the multiplexed worker with hundreds of other
        matches' in flight). Stops after ``max_moves`` log entries, at ``until``
        (``time.monotonic()``) or after ``max_steps`` steps; returns the steps played and the
        answers applied."""
        steps = applied = 0
        while steps < max_steps and not self.state.is_over:
            due, others = self.due_out_of_process()
            if not due or others:
                break
            answers = yield Ask(self, due)
            if len(due) == 1:  # most steps: one seat
                self._take_answer(due[0], answers[due[0]], due)
                applied += 1
            else:
                applied += self.submit(answers)
            self.settle()
            steps += 1
            if len(self._moves) >= max_moves or (until is not None
                                                  and time.monotonic() > until):
                break
        return steps, applied

    def run(self, *, max_moves: int = 1 << 30, until: float | None = None,
            max_steps: int = 1 << 30) -> tuple[int, int]:
        """:meth:`steps`, each step's seats asked here and now."""
        return answer_here(self.steps(max_moves=max_moves, until=until, max_steps=max_steps))

    def ask_here(self, seats: Sequence[int]) -> dict[int, SeatAnswer]:
        """:meth:`ask`, one seat without building mappings (``SeatSession.ask_one``)."""
        if len(seats) == 1:
            seat = seats[0]
            return {seat: self._ask_seat(self.table.seats[seat].kind, seat)}
        return self.ask(seats)

    def send(self, seats: Sequence[int]) -> Pending:
        """:meth:`ask` without waiting for the answers (``SeatSession.send``): a kind that
        raises is a platform failure, as for :meth:`ask`."""
        parts: list[Pending] = []
        for name, numbers in self._by_kind(seats).items():
            try:
                parts.append(self.session(name).send(self.state, numbers, self.version))
            except PlatformOutage:
                raise
            except Exception as exc:  # noqa: BLE001 - another app's bug must not stall a match
                failure = self._kind_failed(name, exc)
                parts.append(Answered(dict.fromkeys(numbers, failure)))
        return _AllOf(parts, seats)

    def announce(self, *, over: bool) -> Pending:
        """:meth:`tell` without waiting (``SeatSession.announce``); a failing kind is logged,
        never fatal to the match."""
        parts: list[Pending] = []
        for session in self.out_of_process_sessions():
            try:
                parts.append(session.announce(self.state, over=over))
            except Exception:
                log.exception("match %s: %s of %s failed", self.table.match_id,
                              "finished" if over else "started", type(session).__name__)
        return _AllOf(parts, ())

    # ---- helpers -------------------------------------------------------------------------

    def _by_kind(self, seats: Sequence[int]) -> dict[str, list[int]]:
        """``seats`` grouped by their kind's name (one session asks several at once)."""
        by_kind: dict[str, list[int]] = {}
        for seat in seats:
            by_kind.setdefault(self.table.seats[seat].kind, []).append(seat)
        return by_kind

    def _kind(self, name: str) -> SeatKind:
        return self._kinds.get(name) or get_seat_kind(name)

    def _log(self, kind: EntryKind, seat: int | None, action: JSON | None, since: int,
             turn: int | None = None, strike: str | None = None, detail: str = "") -> None:
        state = self.state  # Move's fields in order (positional: the driver logs every move)
        self._moves.append(Move(self.version, kind, seat, action, state.log_since(since),
                                state.event_count, state.moves if turn is None else turn,
                                strike, detail))


@dataclass(slots=True)
class Ask:
    """What a match waits for: the answers of its due out-of-process ``seats``, asked from the
    driver's state as it is (:meth:`MatchDriver.steps` yields it). :meth:`here` asks from this
    thread; :meth:`later` sends without waiting."""

    driver: MatchDriver
    seats: list[int]

    def here(self) -> dict[int, SeatAnswer]:
        return self.driver.ask_here(self.seats)

    def later(self) -> Pending:
        return self.driver.send(self.seats)


@dataclass(slots=True)
class Tell:
    """What a match waits for: its out-of-process seats told that it runs (or, ``over``, that
    it ended); answered with None."""

    driver: MatchDriver
    over: bool

    def here(self) -> None:
        self.driver.tell(over=self.over)

    def later(self) -> Pending:
        return self.driver.announce(over=self.over)


class _AllOf:
    """Several kinds' :class:`Pending` as one (a step's seats, of one kind or several, or every
    kind's notices)."""

    __slots__ = ("parts", "seats")

    def __init__(self, parts: list[Pending], seats: Sequence[int]) -> None:
        self.parts, self.seats = parts, seats

    @property
    def wake(self) -> Callable[[], None] | None:
        return self.parts[0].wake if self.parts else None

    @wake.setter
    def wake(self, wake: Callable[[], None] | None) -> None:
        for part in self.parts:
            part.wake = wake

    def poll(self) -> bool:
        done = [part.poll() for part in self.parts]  # every part polled, each time
        return all(done)

    def answers(self) -> dict[int, SeatAnswer]:
        """Every part's answers, in the order the seats were asked (as :meth:`MatchDriver.ask`
        gives them: a step's answers are applied in that order, however they came back)."""
        merged: dict[int, SeatAnswer] = {}
        for part in self.parts:
            merged.update(part.answers())
        return {seat: merged[seat] for seat in self.seats} if self.seats else merged


__all__ = ["APPLIED", "ILLEGAL_ACTION", "MISSED_DEADLINE", "Ask", "Entry", "EntryKind",
           "MatchDriver", "Move", "Tell", "answer_here", "replay"]
