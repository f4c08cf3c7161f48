"""Services: every change to a match goes through here (HackSoft style ``<entity>_<action>``).

Each service is one transaction holding the match row lock (``select_for_update``), so actions
on one match are applied one at a time, in version order, whatever the number of web workers.
The rules are the engine's: services load ``Match.state`` with ``Game.from_json``, call
``State.apply``/``forfeit``, log what changed (``MatchEvent``, with the engine events) and store
``to_json(events=False)`` back: the event log lives in the ``MatchEvent`` rows only, so a row
write does not grow with the length of the match.

After every change, seats that answer by themselves are settled: forfeited seats get their
default action, in-process ("inline") automatic seats such as reference bots choose right away,
in the same transaction; other automatic kinds are asked by a Celery task queued on commit.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from .engine import BadOptions, IllegalAction, State, get_game
from .errors import (
    AlreadySeated,
    BadMatchOptions,
    BadSeats,
    IllegalMove,
    MatchNotFound,
    MatchNotOpen,
    MatchNotRunning,
    NoOpenSeat,
    NotSeated,
    NotYourSeat,
    SeatForfeited,
    SeatNotFound,
    StaleVersion,
)
from .models import AppliedAction, Match, MatchEvent, Seat
from .seats import PLAYER, SeatAnswer, SeatKind, get_seat_kind
from .selectors import engine_events, load_state, remember_state

log = logging.getLogger(__name__)

JSON = dict[str, Any]
SEED_BITS = 63  # fits a signed BigIntegerField


# --------------------------------------------------------------------------------------------
# Accounts
# --------------------------------------------------------------------------------------------


def user_sign_up(*, username: str, password: str, email: str = "") -> tuple[Any, str]:
    """Create a player account and its API token (the token is how polling clients log in)."""
    user = get_user_model().objects.create_user(username=username, password=password, email=email)
    token = Token.objects.create(user=user)
    return user, token.key


def user_token(*, user: AbstractBaseUser) -> str:
    """The user's API token, created on first use."""
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


# --------------------------------------------------------------------------------------------
# Helpers shared by the services (call them inside a transaction holding the match row lock)
# --------------------------------------------------------------------------------------------


def _locked_match(match_id: int) -> Match:
    match = (Match.objects.select_for_update().prefetch_related("seats")
             .filter(pk=match_id).first())
    if match is None:
        raise MatchNotFound()
    return match


def _seat(match: Match, number: int) -> Seat:
    for seat in match.seats.all():
        if seat.number == number:
            return seat
    raise SeatNotFound(f"match {match.pk} has no seat {number!r}")


def _log(match: Match, state: State, *, kind: str, seat: int | None, action: JSON | None,
         since: int, pending: list[MatchEvent] | None = None) -> MatchEvent:
    """Log one entry; with ``pending`` it is only appended there (the caller bulk-creates)."""
    entry = MatchEvent(match=match, n=match.version, version=match.version, kind=kind,
                       seat=seat, action=action, events=engine_events(state, since),
                       event_count=state.event_count)
    if pending is None:
        entry.save(force_insert=True)
    else:
        pending.append(entry)
    return entry


def _new_step_unless(match: Match, same_step: bool) -> None:
    """After a version bump: a new decision point starts unless the seats to act are the rest of
    the same simultaneous step (``Match.step_version``)."""
    if not same_step:
        match.step_version = match.version


def _apply(match: Match, state: State, *, seat: int, action: JSON, kind: str,
           pending: list[MatchEvent] | None = None) -> None:
    """Apply through the engine (IllegalAction propagates, nothing changed), bump the version
    and log it."""
    since = state.event_count
    before = set(state.to_act())
    state.apply(seat, action)
    match.version += 1
    # The step goes on only while the seats left are a strict subset of those asked before:
    # a seat asked again right after its own action faces a new decision.
    _new_step_unless(match, set(state.to_act()) < before)
    _log(match, state, kind=kind, seat=seat, action=action, since=since, pending=pending)


def _forfeit(match: Match, state: State, seat: Seat, *, reason: str,
             pending: list[MatchEvent] | None = None) -> None:
    since = state.event_count
    before = set(state.to_act())
    state.forfeit(seat.number, reason)
    seat.forfeited = True
    seat.save(update_fields=["forfeited"])
    match.version += 1
    _new_step_unless(match, set(state.to_act()) <= before)
    _log(match, state, kind=MatchEvent.Kind.RESIGN, seat=seat.number,
         action={"type": "resign", "reason": reason}, since=since, pending=pending)


def _play_inline(match: Match, state: State, *,
                 pending: list[MatchEvent] | None = None) -> dict[int, Seat]:
    """Forfeited seats play their default action, inline automatic seats (reference bots)
    choose, until only humans or out-of-process seats are due or the match is over (the
    engine's move cap guarantees that it ends). Returns the seats by number."""
    seats = {seat.number: seat for seat in match.seats.all()}
    while not state.is_over:
        progressed = False
        for number in state.to_act():
            if state.is_over or number not in state.to_act():
                continue
            seat = seats[number]
            kind = get_seat_kind(seat.kind)
            if seat.forfeited:
                _apply(match, state, seat=number, action=state.default_action(number),
                       kind=MatchEvent.Kind.DEFAULT, pending=pending)
            elif kind.automatic is not None and kind.inline:
                action = kind.automatic.choose(match, number, state.view(number),
                                               state.legal_actions(number))
                try:
                    _apply(match, state, seat=number, action=action, kind=MatchEvent.Kind.ACTION,
                           pending=pending)
                except IllegalAction as exc:  # a bot bug must not stall the match
                    log.warning("match %s seat %s (%s) chose an illegal action: %s",
                                match.pk, number, seat.kind, exc)
                    _apply(match, state, seat=number, action=state.default_action(number),
                           kind=MatchEvent.Kind.DEFAULT, pending=pending)
            else:
                continue
            progressed = True
        if not progressed:
            break

    return seats


def _settle(match: Match, state: State, *, now: datetime | None = None,
            previous_to_act: Sequence[int] | None = None, enqueue: bool = True,
            started: bool = False, pending: list[MatchEvent] | None = None) -> None:
    """Let every seat that answers by itself act, then store the state and the deadline.

    Forfeited seats get the game's default action; inline automatic seats (reference bots)
    choose now. Stops when only humans or out-of-process seats are due, or the match is over
    (the engine's move cap guarantees that it ends).
    """
    seats = _play_inline(match, state, pending=pending)
    if pending:
        MatchEvent.objects.bulk_create(pending)
        pending.clear()

    now = now or timezone.now()
    match.state = state.to_json(events=False)
    # Out-of-process seats are also told when the match starts and ends (the task does it).
    wake = enqueue and (started or state.is_over) and _has_out_of_process(seats.values())
    if state.is_over:
        match.status = Match.Status.FINISHED
        match.result = state.result()
        match.finished_at = now
        match.deadline = None
    else:
        to_act = state.to_act()
        # The same simultaneous step going on (some seats answered) keeps its deadline.
        same_step = (previous_to_act is not None and match.deadline is not None
                     and set(to_act) < set(previous_to_act))
        if not same_step:
            match.deadline = now + timedelta(seconds=match.move_time_limit)
        if enqueue and any(get_seat_kind(seats[n].kind).automatic is not None
               and not get_seat_kind(seats[n].kind).inline and not seats[n].forfeited
               for n in to_act):
            wake = True
    if wake:
        match_id = match.pk
        transaction.on_commit(lambda: _enqueue_advance(match_id))
    match.save()
    # From here on this State object is never changed: readers may share it once committed.
    transaction.on_commit(lambda: remember_state(match, state))


def _has_out_of_process(seats: Any) -> bool:
    return any(get_seat_kind(seat.kind).automatic is not None
               and not get_seat_kind(seat.kind).inline for seat in seats)


def _enqueue_advance(match_id: int) -> None:
    from .tasks import advance_automatic_seats

    advance_automatic_seats.delay(match_id)


def _start(match: Match, state: State, *, now: datetime) -> None:
    match.status = Match.Status.RUNNING
    match.started_at = now
    _log(match, state, kind=MatchEvent.Kind.START, seat=None, action=None, since=0)
    _settle(match, state, now=now, started=True)


# --------------------------------------------------------------------------------------------
# Matches
# --------------------------------------------------------------------------------------------


def match_create(*, game: str, created_by: AbstractBaseUser | None,
                 players: int | None = None, options: Mapping[str, Any] | None = None,
                 seats: Sequence[Mapping[str, Any]] | None = None, seed: int | None = None,
                 move_time_limit: int | None = None, strike_limit: int | None = None,
                 join: bool = False) -> Match:
    """Create a match; it starts at once if no seat is left open.

    ``seats``: one spec per seat, ``{"kind": "player"}`` for an open seat to be joined or
    ``{"kind": "reference", "bot": "heuristic"}`` (or any registered kind). ``join`` seats the
    creator at the first open seat. ``strike_limit``: strikes that forfeit a seat (0 = never;
    default ``BLUFF_MAX_STRIKES``). The engine validates game, player count and options.
    """
    try:
        engine = get_game(game)
    except BadOptions as exc:
        raise BadMatchOptions(str(exc)) from None
    specs = [dict(spec) for spec in seats] if seats is not None else None
    if players is None:
        players = len(specs) if specs else engine.default_players
    if specs is None:
        specs = [{"kind": PLAYER}] * players
    if len(specs) != players:
        raise BadSeats(f"{len(specs)} seat(s) given for {players} players")
    if seed is None:
        seed = secrets.randbits(SEED_BITS)
    try:
        state = engine.new_match(players=players, seed=seed,
                                 options={} if options is None else options)
    except BadOptions as exc:
        raise BadMatchOptions(str(exc)) from None
    checked: set[tuple[str, str]] = set()  # the same bot in several seats is checked once
    for number, spec in enumerate(specs):
        try:
            kind = get_seat_kind(spec.get("kind", PLAYER))
        except KeyError:
            raise BadSeats(f"seat {number}: unknown seat kind {spec.get('kind')!r}") from None
        bot = spec.get("bot") or ""
        if kind.check_bot is not None:
            if (kind.name, str(bot)) in checked:
                continue
            try:
                kind.check_bot(game, bot, created_by)
            except ValueError as exc:
                raise BadSeats(f"seat {number}: {exc}") from None
            checked.add((kind.name, str(bot)))
        elif bot:
            raise BadSeats(f"seat {number}: a {kind.name!r} seat takes no bot")
    if join and created_by is None:
        raise BadSeats("an anonymous creator cannot join")
    if join and not any(spec.get("kind", PLAYER) == PLAYER for spec in specs):
        raise BadSeats("join is set but no seat is open")

    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.create(
            game=game, options=state.options, seed=seed, players=players, state=state.to_json(),
            move_time_limit=move_time_limit or settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT,
            strike_limit=settings.BLUFF_MAX_STRIKES if strike_limit is None else strike_limit,
            created_by=created_by,
        )
        joined = False
        new_seats = []
        for number, spec in enumerate(specs):
            kind = spec.get("kind", PLAYER)
            seat = Seat(match=match, number=number, kind=kind, bot_name=spec.get("bot") or "")
            if kind == PLAYER and join and not joined:
                seat.user, seat.joined_at, joined = created_by, now, True
            elif kind != PLAYER:
                seat.joined_at = now
            new_seats.append(seat)
        Seat.objects.bulk_create(new_seats)
        match = _locked_match(match.pk)
        if not any(seat.is_open for seat in match.seats.all()):
            _start(match, state, now=now)
    return match


def match_join(*, match_id: int, user: AbstractBaseUser, seat_number: int | None = None) -> Match:
    """Take an open seat (the given one, or the first open); the match starts when none is left."""
    with transaction.atomic():
        match = _locked_match(match_id)
        if match.status != Match.Status.OPEN:
            raise MatchNotOpen()
        seats = list(match.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise AlreadySeated()
        if seat_number is None:
            seat = next((seat for seat in seats if seat.is_open), None)
            if seat is None:
                raise NoOpenSeat("no seat is open")
        else:
            seat = _seat(match, seat_number)
            if not seat.is_open:
                raise NoOpenSeat(f"seat {seat_number} is not open")
        now = timezone.now()
        seat.user, seat.joined_at = user, now
        seat.save(update_fields=["user", "joined_at"])
        if any(other.is_open for other in seats):
            match.save(update_fields=["updated_at"])  # a visible change: new ETag
        else:
            _start(match, load_state(match, for_update=True), now=now)
    return match


def match_leave(*, match_id: int, user: AbstractBaseUser) -> Match:
    """Give up the user's seat before the match starts: it is open again. Once the match runs,
    leaving is resigning (:func:`match_resign`)."""
    with transaction.atomic():
        match = _locked_match(match_id)
        if match.status != Match.Status.OPEN:
            raise MatchNotOpen("the match has started: resign your seat instead")
        seat = next((seat for seat in match.seats.all() if seat.user_id == user.pk), None)
        if seat is None:
            raise NotSeated()
        seat.user, seat.joined_at = None, None
        seat.save(update_fields=["user", "joined_at"])
        match.save(update_fields=["updated_at"])  # a visible change: new ETag
    return match


def _response(match: Match, seat: int, version: int) -> JSON:
    return {"match": match.pk, "seat": seat, "applied_version": version,
            "version": match.version, "status": match.status}


def match_submit_action(*, match_id: int, seat_number: int, user: AbstractBaseUser,
                        version: int, action: Any) -> JSON:
    """Apply ``action`` for the user's seat if ``version`` is not stale.

    ``version`` is current when ``match.step_version <= version <= match.version``: any version
    since the current set of seats to act began, so the seats of a simultaneous step each answer
    with the version they polled, whoever answered first. A retry (this seat, this version, the
    same action) gets the first answer again; anything else for a version this seat already
    answered, or from before the step, is :class:`StaleVersion` with the current version.
    Illegal: :class:`IllegalMove` with the engine's reason, nothing changed. Automatic seats due
    next act before the answer (inline kinds) or right after commit (a Celery task).
    """
    with transaction.atomic():
        match = _locked_match(match_id)
        seat = _seat(match, seat_number)
        if seat.user_id is None or seat.user_id != user.pk:
            raise NotYourSeat()
        if version < match.version:
            prior = AppliedAction.objects.filter(match=match, version=version,
                                                 seat=seat_number).first()
            if prior is not None:
                if prior.action == action:
                    return prior.response
                raise StaleVersion(f"seat {seat_number} already answered at version {version}; "
                                   f"the match is at version {match.version}",
                                   current_version=match.version)
        if not match.step_version <= version <= match.version:
            raise StaleVersion(f"the match is at version {match.version}, not {version}"
                               + (f" (answers for this step are valid from version "
                                  f"{match.step_version})" if match.step_version < match.version
                                  else ""),
                               current_version=match.version)
        if match.status != Match.Status.RUNNING:
            raise MatchNotRunning(f"the match is {match.status}")
        if seat.forfeited:
            raise SeatForfeited()
        state = load_state(match, for_update=True)
        previous = state.to_act()
        try:
            _apply(match, state, seat=seat_number, action=action, kind=MatchEvent.Kind.ACTION)
        except IllegalAction as exc:
            raise IllegalMove(str(exc)) from None
        _settle(match, state, previous_to_act=previous)
        response = _response(match, seat_number, version)
        AppliedAction.objects.create(match=match, version=version, seat=seat_number,
                                     action=action, response=response)
    return response


def match_resign(*, match_id: int, seat_number: int, user: AbstractBaseUser) -> JSON:
    """Resign the user's seat: the engine ranks it last and it plays default actions from now."""
    with transaction.atomic():
        match = _locked_match(match_id)
        seat = _seat(match, seat_number)
        if seat.user_id is None or seat.user_id != user.pk:
            raise NotYourSeat()
        if match.status != Match.Status.RUNNING:
            raise MatchNotRunning(f"the match is {match.status}")
        if seat.forfeited:
            raise SeatForfeited()
        version = match.version
        state = load_state(match, for_update=True)
        previous = state.to_act()
        _forfeit(match, state, seat, reason="resigned")
        _settle(match, state, previous_to_act=previous)
        return _response(match, seat_number, version)


def match_expire_deadlines(*, now: datetime | None = None, limit: int = 500) -> int:
    """Give every seat past its deadline the game's default action and a strike; a seat that
    reaches the match's ``strike_limit`` is forfeited. Returns how many default actions were
    applied.

    Each match is its own transaction; a match locked by a request is skipped (next sweep).
    """
    now = now or timezone.now()
    due = list(Match.objects.filter(status=Match.Status.RUNNING, deadline__lte=now)
               .order_by("deadline").values_list("pk", flat=True)[:limit])
    applied = 0
    for match_id in due:
        with transaction.atomic():
            match = (Match.objects.select_for_update(skip_locked=True).prefetch_related("seats")
                     .filter(pk=match_id, status=Match.Status.RUNNING, deadline__lte=now).first())
            if match is None:
                continue
            state = load_state(match, for_update=True)
            for number in list(state.to_act()):
                if state.is_over or number not in state.to_act():
                    continue
                seat = _seat(match, number)
                _apply(match, state, seat=number, action=state.default_action(number),
                       kind=MatchEvent.Kind.TIMEOUT)
                applied += 1
                seat.strikes += 1
                seat.save(update_fields=["strikes"])
                limit_strikes = match.strike_limit
                if limit_strikes and seat.strikes >= limit_strikes and not seat.forfeited:
                    _forfeit(match, state, seat, reason="timeouts")
            _settle(match, state, now=now)
    return applied


def _call_out_of_process_hooks(match: Match, hook: str, *, in_savepoint: bool = False) -> None:
    """Call the optional ``hook`` (``match_started``, ``match_finished``, ``flush``) of every
    out-of-process kind seated in ``match``; a failing hook is logged, never fatal to the match.
    ``in_savepoint``: the hook writes inside the caller's transaction (``flush`` writes records
    of the moves being stored), and its failure undoes its own writes only."""
    for name in dict.fromkeys(seat.kind for seat in match.seats.all()):
        kind = get_seat_kind(name)
        method = getattr(kind.automatic, hook, None) if not kind.inline else None
        if method is None:
            continue
        try:
            with transaction.atomic() if in_savepoint else nullcontext():
                method(match)
        except Exception:  # noqa: BLE001 - another app's bug must not stall or lose the moves
            log.exception("match %s: %s hook of seat kind %r failed", match.pk, hook, name)


def _ask_out_of_process(match: Match, state: State,
                        due: list[tuple[int, SeatKind]]) -> dict[int, SeatAnswer]:
    """Answers of the due out-of-process seats, asked outside any lock (several seats of one
    kind at once when the kind has ``choose_many``). A kind that raises is a platform failure:
    default actions, no strike."""
    answers: dict[int, SeatAnswer] = {}
    by_kind: dict[str, list[int]] = {}
    for number, kind in due:
        by_kind.setdefault(kind.name, []).append(number)
    for name, numbers in by_kind.items():
        automatic = get_seat_kind(name).automatic
        try:
            choose_many = getattr(automatic, "choose_many", None)
            if choose_many is not None:
                answers.update(choose_many(match, state, numbers))
            else:
                for number in numbers:
                    answers[number] = SeatAnswer(action=automatic.choose(
                        match, number, state.view(number), state.legal_actions(number)))
        except Exception as exc:  # noqa: BLE001
            log.exception("match %s: seat kind %r failed to answer", match.pk, name)
            for number in numbers:
                answers.setdefault(number, SeatAnswer(detail=f"platform error: {exc!r}"))
    return answers


def _strike(match: Match, state: State, seat: Seat,
            pending: list[MatchEvent] | None = None) -> None:
    """One more strike for ``seat``; at the match's ``strike_limit`` it forfeits."""
    seat.strikes += 1
    seat.save(update_fields=["strikes"])
    limit_strikes = match.strike_limit
    if limit_strikes and seat.strikes >= limit_strikes and not seat.forfeited:
        _forfeit(match, state, seat, reason="strikes", pending=pending)


def _due_out_of_process(match: Match, state: State) -> tuple[list[tuple[int, SeatKind]], bool]:
    """The due out-of-process seats (not forfeited), and whether any other seat is due too
    (after :func:`_play_inline` that can only be a polling player)."""
    due: list[tuple[int, SeatKind]] = []
    others = False
    for number in state.to_act():
        seat = _seat(match, number)
        kind = get_seat_kind(seat.kind)
        if kind.automatic is not None and not kind.inline and not seat.forfeited:
            due.append((number, kind))
        else:
            others = True
    return due, others


def _submit_answers(match: Match, state: State, due: list[tuple[int, SeatKind]],
                    answers: Mapping[int, SeatAnswer], pending: list[MatchEvent]) -> int:
    """Apply the answers of the due seats still asked (default action, plus a strike when the
    seat is at fault, for a failed or illegal one); returns how many were applied."""
    applied = 0
    for number, kind in due:
        if state.is_over or number not in state.to_act():
            continue
        seat = _seat(match, number)
        if seat.forfeited:
            continue  # forfeited meanwhile: _play_inline plays its default
        answer = answers.get(number) or SeatAnswer(detail="no answer")
        strike = answer.strike
        if answer.action is not None:
            try:
                _apply(match, state, seat=number, action=answer.action,
                       kind=MatchEvent.Kind.ACTION, pending=pending)
                applied += 1
                continue
            except IllegalAction as exc:
                log.info("match %s seat %s (%s) chose an illegal action: %s",
                         match.pk, number, kind.name, exc)
                strike = strike or "illegal_action"
        _apply(match, state, seat=number, action=state.default_action(number),
               kind=MatchEvent.Kind.DEFAULT, pending=pending)
        applied += 1
        if strike:
            _strike(match, state, seat, pending)
    return applied


def match_advance_automatic_seats(*, match_id: int, max_steps: int = 10_000,
                                  max_seconds: float = 120.0, batch_moves: int = 256,
                                  batch_seconds: float = 1.0) -> int:
    """Ask out-of-process automatic seats (e.g. webhook bots) that are due, step by step.

    While only such seats are due, the task holds the match row lock and plays a *batch*: the
    match and its engine state stay in memory across steps, the log rows are bulk-created and
    the match is saved once, when the batch has ``batch_moves`` log entries, has lasted
    ``batch_seconds``, a polling seat becomes due or the match ends. A crash loses the
    unflushed moves only (the transaction rolls back); the task is idempotent and resumes from
    the last saved state. Every due seat of a step is asked at once.

    A step that also waits for polling seats (a simultaneous step) is asked outside any lock,
    and the answers are submitted under the per-step rule of :func:`match_submit_action`: valid
    while ``step_version <= the version they were asked at <= match.version`` and the seat is
    still asked, so a polling seat answering meanwhile does not make the bot be asked twice.

    A failed answer gets the default action, plus a strike if the seat is at fault
    (:class:`SeatAnswer`). Also tells those kinds when the match has started and when it is
    over. After ``max_seconds`` it stops and queues itself again, so one long match never holds
    a worker past its time limit. Returns how many answers were applied.
    """
    applied = 0
    steps = 0
    told_start = False
    deadline = time.monotonic() + max_seconds
    while steps < max_steps:
        match = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
        if match is None or match.status == Match.Status.OPEN:
            return applied
        if not told_start:
            _call_out_of_process_hooks(match, "match_started")
            told_start = True
        if match.status == Match.Status.FINISHED:
            _call_out_of_process_hooks(match, "match_finished")
            return applied
        if time.monotonic() > deadline:
            transaction.on_commit(lambda: _enqueue_advance(match_id))
            return applied
        state = load_state(match)
        due, others = _due_out_of_process(match, state)
        if not due:
            return applied
        pending: list[MatchEvent] = []
        if others:
            # A step shared with polling seats: ask outside the lock, submit per-step.
            steps += 1
            answers = _ask_out_of_process(match, state, due)
            with transaction.atomic():
                locked = _locked_match(match_id)
                _call_out_of_process_hooks(match, "flush", in_savepoint=True)
                if (locked.status != Match.Status.RUNNING
                        or not locked.step_version <= match.version <= locked.version):
                    continue  # a new step began meanwhile: look again
                state = load_state(locked, for_update=True)
                previous = state.to_act()
                applied += _submit_answers(locked, state, due, answers, pending)
                _settle(locked, state, previous_to_act=previous, enqueue=False, pending=pending)
            continue
        with transaction.atomic():
            locked = _locked_match(match_id)
            if locked.version != match.version or locked.status != Match.Status.RUNNING:
                continue  # someone moved first: look again
            state = load_state(locked, for_update=True)
            batch_end = min(deadline, time.monotonic() + batch_seconds)
            while True:
                steps += 1
                answers = _ask_out_of_process(locked, state, due)
                previous = state.to_act()
                applied += _submit_answers(locked, state, due, answers, pending)
                _play_inline(locked, state, pending=pending)
                if (state.is_over or steps >= max_steps or len(pending) >= batch_moves
                        or time.monotonic() > batch_end):
                    break
                due, others = _due_out_of_process(locked, state)
                if not due or others:
                    break
            _call_out_of_process_hooks(locked, "flush", in_savepoint=True)
            _settle(locked, state, previous_to_act=previous, enqueue=False, pending=pending)
    return applied
