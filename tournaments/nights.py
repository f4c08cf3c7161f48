"""League nights: start them when due, record their hands, stop them, reap (docs/leagues.md;
the policies every series shares: docs/series.md). Playing the hands is
``tournaments.night_hands``; what both read of a night's plan is ``tournaments.night_plan``.

How a night runs: when it is due, one conditional UPDATE claims it (scheduled -> running), so
two beat processes or two workers racing start it once. It cuts the league's social order
into tables (``league_rules.split_tables``), and each group of tables
(``night_plan.table_groups``) goes on by itself, on any worker: ``night_hands.tables_advance``
starts the next hand of each of its tables, as the night's format plans it
(``formats.league_night``), as an ordinary games match (so every rule, strike, log and replay
of matches applies). Hands of in-process bots finish inside that call and are recorded at once;
hands with webhook bots or players go on in the games workers and are recorded when their match
finishes (``series.on_match_finished``), which queues their group's next advance. Hands are
started in short transactions holding the group's hand rows, so a crash loses at most the hands
not yet committed: a stored hand is never played again, and the reaper advances every group of
a night whose lease expired. The last group to finish finishes the night, under the night row
lock.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import get_game
from games.models import Match
from games.services import match_stop

from . import league_rules, series
from .formats import PlannedMatch
from .formats.league_night import hand_key
from .models import Hand, League, Member, Night
from .night_plan import (
    group_of,
    night_format,
    score_hand,
    table_groups,
    unseatable,
)
from .selectors import latest_recurring_start

log = logging.getLogger(__name__)

#: ``Match.series`` of league hands.
SERIES = "league"

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
    queue its first hands; or mark it failed with the reason (too few members, a bot that
    cannot be seated). False if another dispatcher claimed it first, or another night of the
    league is running (claimed at the same moment by another dispatcher: the database keeps
    one running night per league)."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint: the constraint's error ends it alone
                claimed = Night.objects.filter(pk=night_id, status=Night.Status.SCHEDULED).update(
                    status=Night.Status.RUNNING, started_at=now,
                    lease_until=series.lease_until(now))
        except IntegrityError:  # another night of the league runs (night_one_running_per_league)
            return False
        if not claimed:
            return False
        night = Night.objects.select_related("league__organiser").get(pk=night_id)
        league = night.league
        members = list(league.members.filter(left_at__isnull=True))
        try:
            order = _night_order(league, members)
            tables = league_rules.split_tables(
                order, table_size=league.table_size,
                min_players=get_game(league.game).min_players)
        except ValueError as exc:
            Night.objects.filter(pk=night_id).update(
                status=Night.Status.FAILED, reason=str(exc)[:300], finished_at=now,
                lease_until=None)
            log.info("league %s night %s could not start: %s", league.pk, night.number, exc)
            return True
        Night.objects.filter(pk=night_id).update(tables=tables, order_before=order,
                                                 withdrawn=unseatable(league, members))
        transaction.on_commit(lambda: night_advance(night_id=night_id))
    return True


def _night_order(league: League, members: Sequence[Member]) -> list[int]:
    """The league's order without those who left, with those who joined since (GD-12)."""
    present = {m.index for m in members}
    order = league_rules.without_leavers(league.order, set(league.order) - present)
    newcomers = sorted(present - set(order))
    if not league.ordered:
        return [*order, *newcomers]  # no order yet: the first hands set it
    return league_rules.with_newcomers(order, newcomers)


def next_night_number(league: League) -> int:
    last = league.nights.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


def night_advance(*, night_id: int) -> int:
    """Queue the advance of every group of tables of a running night (its start, and the
    reaper's wake-up after a crash): the groups play their hands independently, on any
    worker. Returns how many groups were queued."""
    tables = (Night.objects.filter(pk=night_id, status=Night.Status.RUNNING)
              .values_list("tables", flat=True).first())
    groups = table_groups(len(tables or ()))
    for first, count in groups:
        series.enqueue("advance_tables", night_id, first, count)
    return len(groups)

# --------------------------------------------------------------------------------------------
# Recording hands, stopping, the reaper
# --------------------------------------------------------------------------------------------


def hand_record(*, match_id: int) -> bool:
    """Record a finished games match as its hand's outcome (once), and queue the night's next
    step. False if there was nothing to record."""
    with transaction.atomic():
        found = series.locked_for_recording(
            Hand.objects.select_related("night__league").filter(status=Hand.Status.RUNNING),
            match_id)
        if found is None:
            return False
        hand, match = found
        plan = PlannedMatch(key=hand_key(hand.table, hand.number), seats=tuple(hand.seats),
                            seed=match.seed, number=hand.number, table=hand.table,
                            options=dict(match.options))
        score_hand(hand, night_format(hand.night), plan, match.result,
                     series.forfeited_seats([match_id]).get(match_id, ()))
        hand.save(update_fields=["status", "finished_at", "points", "finish", "order_after"])
        night_id, group = hand.night_id, group_of(hand.table, len(hand.night.tables))
        series.enqueue("advance_tables", night_id, *group)
    return True


def hands_stop(night_id: int, *, reason: str) -> int:
    """Stop the running hands of a night that is over (cancelled): each is marked cancelled and
    its match ended at once, every seat forfeited (``games.services.match_stop``)."""
    with transaction.atomic():
        running = list(Hand.objects.select_for_update()
                       .filter(night_id=night_id, status=Hand.Status.RUNNING)
                       .values_list("pk", "match_id"))
        Hand.objects.filter(pk__in=[pk for pk, _ in running]).update(
            status=Hand.Status.CANCELLED, finished_at=timezone.now())
    for _, match_id in running:
        if match_id is not None:
            match_stop(match_id=match_id, reason=reason)
    return len(running)


def nights_reap(*, now: datetime | None = None) -> int:
    """Periodic: record hands whose match finished unnoticed, stop hands still running in a
    cancelled night (one started as it was cancelled), and advance running nights whose lease
    expired (a worker died between two hands). Returns how many it touched."""
    now = now or timezone.now()
    fixed = 0
    for night_id in set(Hand.objects.filter(status=Hand.Status.RUNNING,
                                            night__status=Night.Status.CANCELLED)
                        .values_list("night_id", flat=True)):
        fixed += hands_stop(night_id, reason="league night cancelled")
    unrecorded = Hand.objects.filter(status=Hand.Status.RUNNING,
                                     match__status=Match.Status.FINISHED)
    for match_id in list(unrecorded.values_list("match_id", flat=True)[:1000]):
        fixed += hand_record(match_id=match_id)
    stale = Night.objects.filter(status=Night.Status.RUNNING, lease_until__lt=now)
    for night_id in stale.values_list("pk", flat=True):
        Night.objects.filter(pk=night_id).update(lease_until=series.lease_until(now))
        night_advance(night_id=night_id)
        fixed += 1
    return fixed


series.register(series.SeriesKind(name=SERIES, record=hand_record, reap=nights_reap))
