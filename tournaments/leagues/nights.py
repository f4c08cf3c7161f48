"""League nights on the calendar: add the nights of recurring leagues and start each when it
is due (docs/leagues.md). A started night is played by the series runner
(``tournaments.runner``) as ``tournaments.leagues.night_kind`` describes it: each table's next
hand as an ordinary games match, once its last hand is done.

When a night is due, one conditional UPDATE claims it (scheduled -> running), so two beat
processes or two workers racing start it once; it cuts the league's social order into tables
(``rules.split_tables``) and asks the runner to plan the first hands.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import get_game

from ..models import League, Member, Night
from ..runner import advance
from ..selectors import latest_recurring_start
from . import rules
from .night_kind import SERIES

log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------
# Starting nights when due
# --------------------------------------------------------------------------------------------


def nights_start_due(*, now: datetime | None = None) -> int:
    """Periodic (django-celery-beat): add the night of each recurring league whose time has
    come (no schedule row per night: the latest due start is computed, and the unique
    (league, starts_at) makes a second dispatcher's insert a no-op; a one-off night scheduled
    later does not stand in for it), then start every due night of each league that is not
    playing one (the earliest first). Returns how many started."""
    now = now or timezone.now()
    recurring = League.objects.filter(weekday__isnull=False, season_start__lte=now,
                                      season_end__gte=now - timedelta(days=7))
    for league in recurring:
        start = latest_recurring_start(league, now)
        if start is None or league.nights.filter(starts_at=start).exists():
            continue
        Night.objects.bulk_create([Night(league=league, number=next_night_number(league),
                                         starts_at=start)], ignore_conflicts=True)
    due = list(Night.objects.filter(status=Night.Status.SCHEDULED, starts_at__lte=now)
               .order_by("starts_at", "number").values_list("pk", "league_id"))
    # A league plays one night at a time, each from the order the one before left: a night due
    # while another runs waits for a later sweep.
    busy = set(Night.objects.filter(status=Night.Status.RUNNING,
                                    league_id__in={league for _, league in due})
               .values_list("league_id", flat=True))
    started = 0
    for pk, league_id in due:
        if league_id in busy:
            continue
        started += night_start(night_id=pk, now=now)
        busy.add(league_id)  # started, failed or claimed by another: the next sweep looks again
    return started


def night_start(*, night_id: int, now: datetime | None = None) -> bool:
    """Claim a due night (scheduled -> running, one conditional UPDATE), seat its tables and
    queue its first hands; or mark it failed with the reason (too few members). False if another dispatcher claimed it first, or another night of the
    league is running (claimed at the same moment by another dispatcher: the database keeps
    one running night per league)."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint: the constraint's error ends it alone
                claimed = Night.objects.filter(pk=night_id, status=Night.Status.SCHEDULED).update(
                    status=Night.Status.RUNNING, started_at=now)
        except IntegrityError:  # another night of the league runs (night_one_running_per_league)
            return False
        if not claimed:
            return False
        night = Night.objects.select_related("league__organiser").get(pk=night_id)
        league = night.league
        members = list(league.members.filter(left_at__isnull=True))
        try:
            order = night_order(league, members)
            tables = rules.split_tables(
                order, table_size=league.table_size,
                min_players=get_game(league.game).min_players)
        except ValueError as exc:
            Night.objects.filter(pk=night_id).update(
                status=Night.Status.FAILED, reason=str(exc)[:300], finished_at=now)
            log.info("league %s night %s could not start: %s", league.pk, night.number, exc)
            return True
        Night.objects.filter(pk=night_id).update(tables=tables, order_before=order)
        transaction.on_commit(lambda: advance(kind=SERIES, series_id=night_id))
    return True


def night_order(league: League, members: Sequence[Member]) -> list[int]:
    """The league's order without those who left, with those who joined since (GD-12)."""
    present = {m.index for m in members}
    order = rules.without_leavers(league.order, set(league.order) - present)
    newcomers = sorted(present - set(order))
    if not league.ordered:
        return [*order, *newcomers]  # no order yet: the first hands set it
    return rules.with_newcomers(order, newcomers)


def next_night_number(league: League) -> int:
    last = league.nights.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1
