"""The match lifecycle: create, join, leave, act, resign, and the deadline sweep.

Each service is one transaction holding the match row lock (``select_for_update``), so changes
to one match are applied one at a time, in version order, whatever the number of web workers.
The rules are the engine's and the failure policy the match driver's (``games.driver``): a
service loads the match into a driver, tells it what happened, lets seats that answer by
themselves act (forfeited seats play their default action, reference bots choose at once,
out-of-process seats are asked by a Celery task queued on commit) and stores the result
(``store.save_locked``).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from ..driver import MatchDriver
from ..engine import BadOptions, IllegalAction, State, get_game
from ..engine.rng import SEED_BITS
from ..errors import (
    AlreadySeated,
    BadMatchOptions,
    BadSeats,
    IllegalMove,
    MatchNotOpen,
    MatchNotRunning,
    NoOpenSeat,
    NotSeated,
    NotYourSeat,
    SeatForfeited,
    StaleVersion,
)
from ..models import AppliedAction, Match, Seat
from ..seats import PLAYER, get_seat_kind
from ..states import load_state
from .store import (
    Started,
    driver_for,
    locked_match,
    save_locked,
    save_new,
    seat_of,
    take_started,
)

JSON = dict[str, Any]


def _start(match: Match, state: State, seats: Sequence[Seat], *, now: datetime) -> None:
    """Every seat of a stored match is taken: it runs, and seats that answer by themselves
    act."""
    match.status = Match.Status.RUNNING
    match.started_at = now
    save_locked(match, _started_driver(match, state, seats), seats=seats, now=now, started=True)


def _started_driver(match: Match, state: State, seats: Sequence[Seat],
                    forfeited: Sequence[int] = ()) -> MatchDriver:
    driver = driver_for(match, state, seats=seats)
    driver.start()
    for number in forfeited:
        driver.resign(number, reason="forfeited before the match")
    driver.settle()
    return driver


@dataclass(frozen=True)
class NewMatch:
    """One match of :func:`matches_create`: its seat specs, seed and pre-seated users.
    ``forfeited``: seats that start forfeited (e.g. a league member out for the rest of the
    night): they play default actions at once and are ranked last."""

    seats: Sequence[Mapping[str, Any]]
    seed: int | None = None
    seat_users: Mapping[int, AbstractBaseUser] = field(default_factory=dict)
    forfeited: Sequence[int] = ()


def match_create(*, game: str, created_by: AbstractBaseUser | None,
                 players: int | None = None, options: Mapping[str, Any] | None = None,
                 seats: Sequence[Mapping[str, Any]] | None = None, seed: int | None = None,
                 move_time_limit: int | None = None, strike_limit: int | None = None,
                 join: bool = False,
                 seat_users: Mapping[int, AbstractBaseUser] | None = None) -> Match:
    """Create a match; it starts at once if no seat is left open.

    ``seats``: one spec per seat, ``{"kind": "player"}`` for an open seat to be joined or
    ``{"kind": "reference", "bot": "heuristic"}`` (or any registered kind). ``join`` seats the
    creator at the first open seat; ``seat_users`` (for the platform's own callers, such as
    tournaments, never for API input) seats those users at those player seats. ``strike_limit``:
    strikes that forfeit a seat (0 = never; default ``BLUFF_MAX_STRIKES``). The engine
    validates game, player count and options.
    """
    engine = _engine(game)
    if players is None:
        players = len(seats) if seats else engine.default_players
    specs = [dict(spec) for spec in seats] if seats is not None else [{"kind": PLAYER}] * players
    if len(specs) != players:
        raise BadSeats(f"{len(specs)} seat(s) given for {players} players")
    if join and created_by is None:
        raise BadSeats("an anonymous creator cannot join")
    if join and not any(spec.get("kind", PLAYER) == PLAYER for spec in specs):
        raise BadSeats("join is set but no seat is open")
    _check_seats(game, specs, created_by, set())
    built = _build(engine, created_by, [NewMatch(specs, seed, seat_users or {})],
                   options=options, move_time_limit=move_time_limit,
                   strike_limit=strike_limit, join=join)
    matches_save(built)
    return built[0].match


def matches_create(*, game: str, created_by: AbstractBaseUser | None,
                   matches: Sequence[NewMatch], options: Mapping[str, Any] | None = None,
                   move_time_limit: int | None = None, strike_limit: int | None = None,
                   sealed: bool = False, series: str = "",
                   announce: bool = True) -> list[Match]:
    """Create many matches of one game at once, as :func:`match_create` would one by one (each
    bot checked once), in a few statements whatever their number: matches whose seats are
    all in-process bots are played to the end right here. ``sealed``: their seeds, actions and
    private details stay hidden even once over, until :func:`matches_unseal`. ``series``: what
    they are part of (``Match.series``), handed to the receivers of ``match_finished``.
    ``announce=False``: the caller records the matches that finish inside this call itself
    (tournaments and leagues do, in the same transaction), so ``match_finished`` is not sent
    for them; those that finish later are announced as always."""
    built = matches_build(game=game, created_by=created_by, matches=matches, options=options,
                          move_time_limit=move_time_limit, strike_limit=strike_limit,
                          sealed=sealed, series=series)
    matches_save(built, announce=announce)
    return [new.match for new in built]


@dataclass(frozen=True)
class BuiltMatch:
    """A match of :func:`matches_build`: not stored yet; played to the end already if every
    seat is an in-process bot (``over``). ``started``: what its driver made, once it started
    (every seat taken), the driver itself let go (``store.take_started``)."""

    match: Match
    seats: list[Seat]
    started: Started | None

    @property
    def over(self) -> bool:
        return self.match.status == Match.Status.FINISHED

    @property
    def result(self) -> JSON | None:
        """The engine's ``result()`` once :attr:`over` (what the match will store)."""
        return self.match.result if self.over else None

    @property
    def forfeited(self) -> list[int]:
        """Its seats that forfeited (started forfeited, or struck out)."""
        return [seat.number for seat in self.seats if seat.forfeited]


def matches_build(*, game: str, created_by: AbstractBaseUser | None,
                  matches: Sequence[NewMatch], options: Mapping[str, Any] | None = None,
                  move_time_limit: int | None = None, strike_limit: int | None = None,
                  sealed: bool = False, series: str = "") -> list[BuiltMatch]:
    """:func:`matches_create` without storing anything yet: the seats are checked and the
    in-process matches played in memory; :func:`matches_save` stores them. For a caller that
    plays rounds of matches, each seated from the results of the one before (a league table's
    hands), and stores the rounds together: a few statements a batch, not a round."""
    engine = _engine(game)
    checked: set[tuple[str, str]] = set()
    for new in matches:
        _check_seats(game, new.seats, created_by, checked, forfeited=new.forfeited)
    return _build(engine, created_by, matches, options=options,
                  move_time_limit=move_time_limit, strike_limit=strike_limit, join=False,
                  sealed=sealed, series=series)


def matches_save(built: Sequence[BuiltMatch], *, announce: bool = True) -> None:
    """Store matches of :func:`matches_build` (of one or several calls) in one
    ``store.save_new``: a few statements whatever their number. ``announce`` as for
    :func:`matches_create`."""
    if not built:
        return
    # One match is one statement (store.save_new), which needs no transaction of its own.
    with transaction.atomic() if len(built) > 1 else nullcontext():
        save_new([(new.match, new.seats, new.started) for new in built], announce=announce)


def matches_unseal(*, match_ids: Sequence[int]) -> int:
    """Let these matches show everything once over (see ``Match.sealed``)."""
    return Match.objects.filter(pk__in=match_ids, sealed=True).update(sealed=False,
                                                                      updated_at=timezone.now())


def _engine(game: str) -> Any:
    try:
        return get_game(game)
    except BadOptions as exc:
        raise BadMatchOptions(str(exc)) from None


def _check_seats(game: str, specs: Sequence[Mapping[str, Any]], created_by: Any,
                 checked: set[tuple[str, str]], *, forfeited: Sequence[int] = ()) -> None:
    """Every seat's kind exists and its bot may be seated (the same bot checked once). A seat
    that starts ``forfeited`` is never asked anything, so its bot need not be seatable (a
    league member whose bot was disabled stays at its table, forfeited)."""
    for number, spec in enumerate(specs):
        try:
            kind = get_seat_kind(spec.get("kind", PLAYER))
        except KeyError:
            raise BadSeats(f"seat {number}: unknown seat kind {spec.get('kind')!r}") from None
        bot = spec.get("bot") or ""
        if kind.check_bot is not None:
            if (kind.name, str(bot)) in checked or number in forfeited:
                continue
            try:
                kind.check_bot(game, bot, created_by)
            except ValueError as exc:
                raise BadSeats(f"seat {number}: {exc}") from None
            checked.add((kind.name, str(bot)))
        elif bot:
            raise BadSeats(f"seat {number}: a {kind.name!r} seat takes no bot")


def _build(engine: Any, created_by: Any, matches: Sequence[NewMatch], *,
            options: Mapping[str, Any] | None, move_time_limit: int | None,
            strike_limit: int | None, join: bool, sealed: bool = False,
            series: str = "") -> list[BuiltMatch]:
    now = timezone.now()
    built = []
    for new in matches:
        seed = secrets.randbits(SEED_BITS) if new.seed is None else new.seed
        try:
            state = engine.new_match(players=len(new.seats), seed=seed,
                                     options={} if options is None else options)
        except BadOptions as exc:
            raise BadMatchOptions(str(exc)) from None
        match = Match(
            game=engine.id, options=state.options, seed=seed, players=len(new.seats),
            created_by=created_by, sealed=sealed, series=series,
            move_time_limit=move_time_limit or settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT,
            strike_limit=settings.BLUFF_MAX_STRIKES if strike_limit is None else strike_limit)
        seats = _seats(match, new, created_by, join, now)
        started = None
        if not any(seat.is_open for seat in seats):
            match.status, match.started_at = Match.Status.RUNNING, now
            started = take_started(match, seats,
                                   _started_driver(match, state, seats, new.forfeited), now=now)
        else:
            match.state = state.to_json()
        built.append(BuiltMatch(match, seats, started))
    return built


def _seats(match: Match, new: NewMatch, created_by: Any, join: bool, now: datetime
           ) -> list[Seat]:
    joined = False
    seats = []
    for number, spec in enumerate(new.seats):
        kind = spec.get("kind", PLAYER)
        seat = Seat(match=match, number=number, kind=kind, bot_name=spec.get("bot") or "")
        if kind == PLAYER and number in new.seat_users:
            seat.user, seat.joined_at = new.seat_users[number], now
        elif kind == PLAYER and join and not joined:
            seat.user, seat.joined_at, joined = created_by, now, True
        elif kind != PLAYER:
            seat.joined_at = now
        seats.append(seat)
    return seats


def match_join(*, match_id: int, user: AbstractBaseUser, seat_number: int | None = None) -> Match:
    """Take an open seat (the given one, or the first open); the match starts when none is left."""
    with transaction.atomic():
        match = locked_match(match_id)
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
            seat = seat_of(match, seat_number)
            if not seat.is_open:
                raise NoOpenSeat(f"seat {seat_number} is not open")
        now = timezone.now()
        seat.user, seat.joined_at = user, now
        seat.save(update_fields=["user", "joined_at"])
        if any(other.is_open for other in seats):
            match.save(update_fields=["updated_at"])  # a visible change: new ETag
        else:
            _start(match, load_state(match, for_update=True), seats, now=now)
    return match


def match_leave(*, match_id: int, user: AbstractBaseUser) -> Match:
    """Give up the user's seat before the match starts: it is open again. Once the match runs,
    leaving is resigning (:func:`match_resign`)."""
    with transaction.atomic():
        match = locked_match(match_id)
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
        match = locked_match(match_id)
        seat = seat_of(match, seat_number)
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
        driver = driver_for(match, state)
        try:
            driver.act(seat_number, action)
        except IllegalAction as exc:
            raise IllegalMove(str(exc)) from None
        driver.settle()
        save_locked(match, driver, previous_to_act=previous)
        response = _response(match, seat_number, version)
        AppliedAction.objects.create(match=match, version=version, seat=seat_number,
                                     action=action, response=response)
    return response


def match_resign(*, match_id: int, seat_number: int, user: AbstractBaseUser) -> JSON:
    """Resign the user's seat: the engine ranks it last and it plays default actions from now."""
    with transaction.atomic():
        match = locked_match(match_id)
        seat = seat_of(match, seat_number)
        if seat.user_id is None or seat.user_id != user.pk:
            raise NotYourSeat()
        if match.status != Match.Status.RUNNING:
            raise MatchNotRunning(f"the match is {match.status}")
        if seat.forfeited:
            raise SeatForfeited()
        version = match.version
        state = load_state(match, for_update=True)
        previous = state.to_act()
        driver = driver_for(match, state)
        driver.resign(seat_number, "resigned")
        driver.settle()
        save_locked(match, driver, previous_to_act=previous)
        return _response(match, seat_number, version)


def match_stop(*, match_id: int, reason: str) -> Match:
    """End a running match now (e.g. its tournament was cancelled): every seat forfeits with
    ``reason``, so default actions play it to the end at once; the log says why. A match that
    is not running is left as it is."""
    with transaction.atomic():
        match = locked_match(match_id)
        if match.status != Match.Status.RUNNING:
            return match
        driver = driver_for(match, load_state(match, for_update=True))
        for seat in range(match.players):
            if seat not in driver.forfeited and not driver.state.is_over:
                driver.resign(seat, reason)
        driver.settle()
        save_locked(match, driver)
    return match


def match_expire_deadlines(*, now: datetime | None = None, limit: int = 500) -> int:
    """Every seat past its deadline gets the game's default action and a strike (the match
    driver's policy: at the match's ``strike_limit`` it forfeits). Returns how many default
    actions were applied.

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
            driver = driver_for(match, load_state(match, for_update=True))
            applied += driver.expire()
            driver.settle()
            save_locked(match, driver, now=now)
    return applied
