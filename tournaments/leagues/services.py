"""League services: create a league, its members (join, leave), schedule and cancel its
nights (docs/leagues.md). Running a night is ``tournaments.leagues.nights``; what every series
shares, ``tournaments.runner.kinds`` (docs/series.md)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import BadOptions
from games.engine.base import counted
from games.engine.rng import SEED_BITS, new_secret, secret_from_seed

from .. import selectors
from ..entrants import entered_twice, entrant_fields, game_table
from ..errors import BadLeague, LeagueNotFound, NightNotOpen, NotYourLeague
from ..models import League, Member, Night
from ..runner import cancel_open, kinds
from . import rules
from .night_kind import SERIES
from .nights import next_night_number

#: A one-off night may start this long before the request reaches us ("now", give or take the
#: clocks); earlier is in the past and refused.
NIGHT_PAST_GRACE = timedelta(minutes=1)


def league_create(*, organiser: AbstractBaseUser, name: str, game: str,
                  members: Sequence[Mapping[str, Any]], season_start: datetime,
                  season_end: datetime, options: Mapping[str, Any] | None = None,
                  table_size: int | None = None, hands_per_night: int = 20,
                  moves_between_tables: int = 1, weekday: int | None = None,
                  night_time: time | None = None, timezone_name: str = "UTC",
                  strike_limit: int | None = None, move_time_limit: int | None = None,
                  seed: int | None = None) -> League:
    """Check everything and create the league with its members. Recurring nights: ``weekday``
    (0 = Monday) and ``night_time`` in ``timezone_name``, from ``season_start`` to
    ``season_end``; one-off nights are added with :func:`night_schedule`. Naive dates are
    wall times in ``timezone_name`` (``rules.in_zone``). Raises the first of
    :func:`league_problems` (a form shows them all)."""
    checked = _check(organiser=organiser, game=game, members=members,
                     season_start=season_start, season_end=season_end, options=options,
                     table_size=table_size, hands_per_night=hands_per_night, weekday=weekday,
                     night_time=night_time, timezone_name=timezone_name)
    if checked.problems:
        raise checked.problems[0]
    with transaction.atomic():
        league = League.objects.create(
            name=name, game=game, options=checked.options, organiser=organiser,
            table_size=checked.size, hands_per_night=hands_per_night,
            moves_between_tables=moves_between_tables, season_start=checked.season_start,
            season_end=checked.season_end, weekday=weekday, night_time=night_time,
            timezone=timezone_name,
            strike_limit=settings.BLUFF_MAX_STRIKES if strike_limit is None else strike_limit,
            move_time_limit=move_time_limit or settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT,
            seed=secrets.randbits(SEED_BITS) if seed is None else seed,
            deal_secret=new_secret() if seed is None else secret_from_seed(seed))
        for row in checked.members:
            row.league = league
        Member.objects.bulk_create(checked.members)
    return league


def league_problems(**arguments: Any) -> list[BadLeague]:
    """Every reason :func:`league_create`'s ``arguments`` cannot make a league, not only the
    first, each naming its field or member (``member 2: ...``), so a form shows them all in
    one answer; a missing season date (``None``) is left unchecked."""
    shape_only = {"name", "seed", "strike_limit", "move_time_limit", "moves_between_tables"}
    return _check(**{key: value for key, value in arguments.items()
                     if key not in shape_only}).problems


@dataclass
class _Checked:
    """What checking a new league found: its problems, else what creating it takes."""

    problems: list[BadLeague] = field(default_factory=list)
    size: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    season_start: datetime | None = None
    season_end: datetime | None = None
    members: list[Member] = field(default_factory=list)


def _check(*, organiser: AbstractBaseUser, game: str, members: Sequence[Mapping[str, Any]],
           season_start: datetime | None, season_end: datetime | None,
           options: Mapping[str, Any] | None = None, table_size: int | None = None,
           hands_per_night: int = 20, weekday: int | None = None,
           night_time: time | None = None, timezone_name: str = "UTC") -> _Checked:
    """Each check on its own, every failure kept (one that needs the table size or the time
    zone is skipped when it was refused)."""
    checked = _Checked(options=dict(options or {}))
    problems = checked.problems

    def refuse(reason: str) -> None:
        problems.append(BadLeague(reason))

    try:
        zone = _zone(timezone_name)
    except BadLeague as exc:
        problems.append(exc)
    else:
        if season_start is not None:
            checked.season_start = rules.in_zone(season_start, zone)
        if season_end is not None:
            checked.season_end = rules.in_zone(season_end, zone)
    league_options = checked.options
    size = None
    try:
        engine, size, _ = game_table(game, table_size, league_options, default="max_players")
        checked.size = size
    except ValueError as exc:
        refuse(str(exc))
    if size is not None:
        # A night's tables seat from the game's fewest players to ``size``: the options must
        # hold at each (Le Dutch's rounds are a multiple of the players, DU-8).
        for players in range(engine.min_players, size):
            try:
                engine.check_options(league_options, players)
            except BadOptions as exc:
                refuse(f"{exc} (a night may seat a table of {players})")
                break
        # The options each hand's match takes from the series, not from the organiser (the
        # game says which: Game.series_options; for Dalmuti one hand a match, the order
        # carried over).
        owned = sorted(set(engine.series_options({}, players=size, ordered=True, first=True))
                       & set(league_options))
        if owned:
            refuse(f"{' and '.join(owned)} set by the league, one hand a match: use "
                   "hands_per_night")
    if not 1 <= hands_per_night <= settings.LEAGUE_MAX_HANDS_PER_NIGHT:
        refuse(f"hands_per_night must be 1 to {settings.LEAGUE_MAX_HANDS_PER_NIGHT}")
    start, end = checked.season_start, checked.season_end
    if start is not None and end is not None and end <= start:
        refuse("the season must end after it starts")
    for moment, what in ((start, "season_start"), (end, "season_end")):
        if moment is not None:
            try:
                _check_ahead(moment, what)
            except BadLeague as exc:
                problems.append(exc)
    if (weekday is None) != (night_time is None):
        refuse("a recurring night needs both weekday and night_time")
    if weekday is not None and not 0 <= weekday <= 6:
        refuse("weekday must be 0 (Monday) to 6 (Sunday)")
    if len(members) > settings.LEAGUE_MAX_MEMBERS:
        refuse(f"at most {settings.LEAGUE_MAX_MEMBERS} members")
    for index, spec in enumerate(members):
        try:
            checked.members.append(_member(game, index, spec, organiser))
        except BadLeague as exc:
            problems.append(exc)
    if (twice := entered_twice(checked.members)) is not None:
        _, again = twice
        refuse(f"member {again.index} ({again.name}) is entered twice")
    if size is not None and len(checked.members) == len(members) and (
            short := rules.table_shortage(game, table_size=size,
                                          members=len(members))) is not None:
        refuse(f"no night could start: {short}")
    return checked


def _member(game: str, index: int, spec: Mapping[str, Any],
            organiser: AbstractBaseUser) -> Member:
    try:
        return Member(index=index, **entrant_fields(game, spec, organiser))
    except ValueError as exc:
        raise BadLeague(f"member {index}: {exc}") from None


def _check_ahead(moment: datetime, what: str) -> None:
    try:
        kinds.check_ahead(moment, what)
    except ValueError as exc:
        raise BadLeague(str(exc)) from None


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: "America" is a folder
        raise BadLeague(f"unknown time zone {name!r}") from None


def league_get_changeable(*, league_id: int, user: AbstractBaseUser) -> League:
    league = League.objects.filter(pk=league_id).first()
    if league is None:
        raise LeagueNotFound()
    if league.organiser_id != user.pk and not user.is_staff:
        raise NotYourLeague()
    return league


def member_join(*, league_id: int, user: AbstractBaseUser, spec: Mapping[str, Any]) -> Member:
    """A new member: enters the social order at the next night, as a Merchant in the middle
    (GD-12). :func:`members_join` of one."""
    return members_join(league_id=league_id, user=user, specs=[spec])[0]


def members_join(*, league_id: int, user: AbstractBaseUser,
                 specs: Sequence[Mapping[str, Any]]) -> list[Member]:
    """New members, all or none, each entering the order at the next night in the middle
    (GD-12), in the order given. Refused while the league has a night to come if the members
    could fill its tables before and could not with the newcomers (as a leave is): a sixth
    member at tables of up to 5 joins together with a seventh."""
    league = league_get_changeable(league_id=league_id, user=user)
    if not specs:
        raise BadLeague("no member to add")
    with transaction.atomic():
        League.objects.select_for_update().filter(pk=league.pk).first()  # one change at a time
        present = list(league.members.filter(left_at__isnull=True).order_by("index"))
        if len(present) + len(specs) > settings.LEAGUE_MAX_MEMBERS:
            raise BadLeague(f"the league would have {len(present) + len(specs)} members (at "
                            f"most {settings.LEAGUE_MAX_MEMBERS})")
        last = (Member.objects.filter(league=league).order_by("-index")
                .values_list("index", flat=True).first())
        first = 0 if last is None else last + 1
        joining = []
        for offset, spec in enumerate(specs):
            member = _member(league.game, first + offset, spec, league.organiser)
            member.league = league
            twice = entered_twice([*joining, member, *present])
            if twice is not None and twice[0] is member:
                raise BadLeague(f"{member.name} is a member already (member {twice[1].index})")
            if twice is not None and twice[1] is member:  # the same twice in one list
                raise BadLeague(f"member {member.index} ({member.name}) is entered twice")
            joining.append(member)
        _check_still_cuttable(league, len(present), len(present) + len(joining),
                              f"{counted(len(joining), 'member')} cannot join",
                              "; add them with the members the tables need (a list)")
        Member.objects.bulk_create(joining)
    return joining


def _check_still_cuttable(league: League, before: int, after: int, what: str,
                          hint: str) -> None:
    """Refuse a change of the present members from ``before`` to ``after`` that leaves a
    league whose members could fill its tables unable to, while it has a night to come."""
    short = rules.table_shortage(league.game, table_size=league.table_size,
                                 members=after)
    if (short is not None and rules.table_shortage(
            league.game, table_size=league.table_size, members=before) is None
            and selectors.league_next_night(league=league) is not None):
        raise BadLeague(f"{what} while nights are to come: {short}{hint}")


def member_leave(*, league_id: int, user: AbstractBaseUser, index: int) -> Member:
    """The member leaves: removed from the order before the next night. Refused while the
    league has a night to come that the members left could not fill the tables of (add a
    member first): accepting it would only make that night fail."""
    league = league_get_changeable(league_id=league_id, user=user)
    with transaction.atomic():
        League.objects.select_for_update().filter(pk=league.pk).first()  # one leave at a time
        member = Member.objects.filter(league=league, index=index).first()
        if member is None:
            raise LeagueNotFound(f"league {league.pk} has no member {index}")
        if member.left_at is None:
            staying = league.members.filter(left_at__isnull=True).count() - 1
            short = rules.table_shortage(league.game, table_size=league.table_size,
                                         members=staying)
            if short is not None and selectors.league_next_night(league=league) is not None:
                raise BadLeague(f"member {index} cannot leave while nights are to come: "
                                f"{short}; add a member first")
            Member.objects.filter(pk=member.pk).update(left_at=timezone.now())
    member.refresh_from_db()
    return member


def night_schedule(*, league_id: int, user: AbstractBaseUser, starts_at: datetime) -> Night:
    """A one-off night at ``starts_at`` (naive: a wall time in the league's time zone): not in
    the past, within the season and ``SERIES_MAX_SCHEDULE_AHEAD_DAYS``, not at the time of the
    league's own weekly night, and only if its members can fill its tables."""
    league = league_get_changeable(league_id=league_id, user=user)
    starts_at = rules.in_zone(starts_at, _zone(league.timezone))
    if not league.season_start <= starts_at <= league.season_end:
        raise BadLeague("the night must start within the season")
    if starts_at < timezone.now() - NIGHT_PAST_GRACE:
        raise BadLeague("the night must not start in the past")
    _check_ahead(starts_at, "starts_at")
    if selectors.latest_recurring_start(league, starts_at) == starts_at:
        raise BadLeague("the league's weekly night is at that time already")
    present = league.members.filter(left_at__isnull=True).count()
    if (short := rules.table_shortage(league.game, table_size=league.table_size,
                                      members=present)) is not None:
        raise BadLeague(f"the night could not start: {short}")
    try:
        with transaction.atomic():
            return Night.objects.create(league=league, number=next_night_number(league),
                                        starts_at=starts_at)
    except IntegrityError:
        raise BadLeague("the league already has a night at that time") from None


def night_cancel(*, league_id: int, number: int, user: AbstractBaseUser) -> Night:
    """Cancel a scheduled or running night (organiser or staff). Hands not started never will
    be; hands in progress are stopped (every seat forfeits) and marked cancelled; the night
    then counts for nothing: its finished hands stay (their replays) but add nothing to the
    season table, and the league's order does not move (docs/series.md)."""
    league = league_get_changeable(league_id=league_id, user=user)
    now = timezone.now()
    with transaction.atomic():
        # The night row first, then its hands (a chunk of hands sees the cancel at its end
        # and rolls back: runner.loop._chunk).
        night = Night.objects.select_for_update().filter(league=league, number=number).first()
        if night is None:
            raise LeagueNotFound(f"league {league.pk} has no night {number}")
        if night.status not in (Night.Status.SCHEDULED, Night.Status.RUNNING):
            raise NightNotOpen(f"night {number} is {night.status}")
        Night.objects.filter(pk=night.pk).update(status=Night.Status.CANCELLED,
                                                 finished_at=now)
    cancel_open(kind=SERIES, series_id=night.pk)
    night.refresh_from_db()
    return night
