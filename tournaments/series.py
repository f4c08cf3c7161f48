"""The series runner's one copy of what every kind of series (a tournament, a league night)
shares: how its work is queued, how long a claim holds, how a finished games match finds the
series it belongs to, the reaper, the withdrawal rule, and how planned matches become games
matches. ``docs/series.md`` has the policies.

A kind of series registers a :class:`SeriesKind` under its ``Match.series`` value
(``tournaments.playing`` for tournaments, ``tournaments.nights`` for league hands), as seat
kinds register in ``games.seats``: the one ``match_finished`` receiver and the one reaper here
go through the registry, so a new kind is one registration, not another receiver.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils import timezone

from games.models import Match, Seat
from games.seats import PLAYER
from games.services import BuiltMatch, NewMatch, matches_build, matches_save
from lib import queueing

from .entrants import seat_spec
from .formats import PlannedMatch, withdrawn_after

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeriesKind:
    """What the runner needs of one kind of series."""

    #: Its ``Match.series`` value.
    name: str
    #: Record a finished games match of this kind (once: False if there was nothing to do).
    record: Callable[..., bool]
    #: Periodic repair (``now`` keyword): returns how many rows it fixed.
    reap: Callable[..., int]


_KINDS: dict[str, SeriesKind] = {}


def register(kind: SeriesKind) -> SeriesKind:
    if kind.name in _KINDS and _KINDS[kind.name] != kind:
        raise ValueError(f"series kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


def enqueue(task: str, *args: int) -> None:
    """Queue ``tournaments.<task>(*args)`` once the current transaction commits (at once
    outside one), through the platform's one seam for it (``lib.queueing``; tests hold it or
    run it here). The task is found by name (``tournaments.apps`` imports the tasks module at
    startup): the tasks call the services that call this, so this never imports them."""
    queueing.enqueue(f"tournaments.{task}", *args)


def lease_until(now: datetime | None = None) -> datetime:
    """Until when a claim (a queued chunk, a running night) holds before the reaper takes it
    again: ``TOURNAMENT_LEASE_SECONDS`` from ``now``."""
    return (now or timezone.now()) + timedelta(seconds=settings.TOURNAMENT_LEASE_SECONDS)


def check_ahead(moment: datetime, what: str, *, now: datetime | None = None) -> None:
    """ValueError if ``moment`` is more than ``SERIES_MAX_SCHEDULE_AHEAD_DAYS`` ahead: a
    series dated in the year 9999 is a typo, and a row that waits forever."""
    days = settings.SERIES_MAX_SCHEDULE_AHEAD_DAYS
    if moment > (now or timezone.now()) + timedelta(days=days):
        raise ValueError(f"{what} is more than {days} days ahead "
                         f"(SERIES_MAX_SCHEDULE_AHEAD_DAYS)")


def on_match_finished(sender: Any, match_ids: Sequence[int], series: Mapping[int, str],
                      **kwargs: Any) -> None:
    """The one receiver of ``games.signals.match_finished``: each finished match is recorded by
    its series' kind. Never fails the caller that finished the matches (the reaper records
    what this misses); matches of no series cost nothing."""
    for match_id in match_ids:
        kind = _KINDS.get(series.get(match_id, ""))
        if kind is None:
            continue
        try:
            kind.record(match_id=match_id)
        except Exception:
            log.exception("recording match %s for its %s failed", match_id, kind.name)


def reap(*, now: datetime | None = None) -> int:
    """Periodic: every kind's repair (record what a lost signal missed, queue again what a
    dead worker held, finish what is over). Returns how many rows were fixed."""
    now = now or timezone.now()
    return sum(kind.reap(now=now) for kind in _KINDS.values())


def locked_for_recording(running: QuerySet[Any], match_id: int) -> tuple[Any, Match] | None:
    """The row of ``running`` (a series' running rows) that plays ``match_id``, locked, with
    its games match, if that match has finished: what recording it needs, once (a second
    recorder waits for the lock, then finds the row no longer running). None if there is
    nothing to record. Call inside a transaction. Only that row is locked (``of=self``): the
    rows' default ordering joins their series' row, which FOR UPDATE would lock too, first,
    against the order every closing transaction takes (its rows, the entrants' leaderboard
    rows, then the series' row): two recordings and a chunk deadlocked so, and a recording
    waited on a series row a silent host held."""
    row = running.select_for_update(of=("self",)).filter(match_id=match_id).first()
    if row is None:
        return None
    match = Match.objects.filter(pk=match_id, status=Match.Status.FINISHED).first()
    return None if match is None else (row, match)


def forfeited_seats(match_ids: Sequence[int]) -> dict[int, list[int]]:
    """The seats that forfeited, by games match (one query): what the forfeit rule of every
    series (``formats.places_with_forfeits``) and the withdrawal rule read."""
    found: dict[int, list[int]] = {}
    if match_ids:
        for match_id, number in (Seat.objects.filter(match_id__in=match_ids, forfeited=True)
                                 .values_list("match_id", "number")):
            found.setdefault(match_id, []).append(number)
    return found


def withdraws(forfeits: Sequence[bool]) -> bool:
    """:func:`formats.withdrawn_after` at ``SERIES_FORFEITS_TO_WITHDRAW``: ``forfeits`` are an
    entrant's matches in the series, newest first (docs/series.md)."""
    return withdrawn_after(forfeits, settings.SERIES_FORFEITS_TO_WITHDRAW)


def matches_start(*, game: str, organiser: AbstractBaseUser, options: Mapping[str, Any],
                  move_time_limit: int, strike_limit: int, series: str,
                  entrants: Mapping[int, Any], planned: Sequence[PlannedMatch],
                  sealed: bool = False) -> list[Match]:
    """The games matches of ``planned`` (``entrants``: entrant id -> participant or member),
    stored at once: :func:`matches_play` and ``games.services.matches_save``. Matches of
    in-process bots come back finished; the runner records them itself (``announce`` off)."""
    built = matches_play(game=game, organiser=organiser, options=options,
                         move_time_limit=move_time_limit, strike_limit=strike_limit,
                         series=series, entrants=entrants, planned=planned, sealed=sealed)
    matches_save(built, announce=False)
    return [new.match for new in built]


def matches_play(*, game: str, organiser: AbstractBaseUser, options: Mapping[str, Any],
                 move_time_limit: int, strike_limit: int, series: str,
                 entrants: Mapping[int, Any], planned: Sequence[PlannedMatch],
                 sealed: bool = False) -> list[BuiltMatch]:
    """The games matches of ``planned``, built by ``games.services.matches_build`` (every rule
    of matches applies; in-process ones are played to the end in memory), not stored yet: a
    runner that plans its next matches from these results (a league table's next hand) stores
    several rounds together (``games.services.matches_save``, ``announce=False``)."""
    if not planned:
        return []
    return matches_build(
        game=game, created_by=organiser, options=options, move_time_limit=move_time_limit,
        strike_limit=strike_limit, sealed=sealed, series=series,
        matches=[NewMatch(seats=[seat_spec(entrants[i]) for i in plan.seats], seed=plan.seed,
                          seat_users={n: entrants[i].user for n, i in enumerate(plan.seats)
                                      if entrants[i].kind == PLAYER},
                          forfeited=[n for n, i in enumerate(plan.seats) if i in plan.forfeited])
                 for plan in planned])
