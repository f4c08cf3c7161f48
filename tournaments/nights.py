"""League nights: start them when due and play each hand by hand on the workers
(docs/leagues.md; the policies every series shares: docs/series.md).

How a night runs: when it is due, one conditional UPDATE claims it (scheduled -> running), so
two beat processes or two workers racing start it once. It cuts the league's social order
into tables (``league_rules.split_tables``), and each group of tables (``table_groups``) goes
on by itself, on any worker: :func:`tables_advance` starts the next hand of each of its tables,
as the night's format plans it (``formats.league_night``), as an ordinary games match (so every
rule, strike, log and replay of matches applies). Hands of in-process bots finish inside that
call and are recorded at once; hands with webhook bots or players go on in the games workers
and are recorded when their match finishes (``series.on_match_finished``), which queues their
group's next advance. Hands are started in short transactions holding the group's hand rows, so
a crash loses at most the hands not yet committed: a stored hand is never played again, and the
reaper advances every group of a night whose lease expired. The last group to finish finishes
the night, under the night row lock.
"""

from __future__ import annotations

import logging
import time as clock
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import get_game
from games.errors import BadSeats
from games.models import Match, Seat
from games.seats import PLAYER, get_seat_kind
from games.services import BuiltMatch, match_stop, matches_save

from . import league_rules, series
from .formats import Outcome, PlannedMatch, get_format
from .formats.league_night import LeagueNight, hand_key
from .models import Hand, League, Member, Night
from .selectors import latest_recurring_start

log = logging.getLogger(__name__)

#: ``Match.series`` of league hands.
SERIES = "league"
#: Rounds of in-process hands played one after another by a group of tables are stored in one
#: transaction for at most this long (one commit and one lease renewal per batch, not per
#: round). A crash loses that batch only; its hands are played again from their seeds,
#: identically.
HANDS_BATCH_SECONDS = 1.0


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
                                                 withdrawn=_unseatable(league, members))
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


def _unseatable(league: League, members: Iterable[Member]) -> dict[str, str]:
    """The members whose bot cannot be seated now (disabled, deleted, failed handshake), by
    index (a JSON key), with the seat kind's own reason: withdrawn for the night, seated
    forfeited, as a tournament withdraws an unseatable participant (docs/series.md)."""
    out = {}
    for member in members:
        if member.kind == PLAYER:
            continue
        try:
            get_seat_kind(member.kind).check_bot(league.game, member.bot, league.organiser)
        except (KeyError, ValueError, BadSeats) as exc:
            out[str(member.index)] = f"cannot be seated: {exc}"[:200]
            log.info("league %s member %s withdrawn for the night: %s", league.pk,
                     member.index, exc)
    return out


def next_night_number(league: League) -> int:
    last = league.nights.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


# --------------------------------------------------------------------------------------------
# Playing a night, hand by hand
# --------------------------------------------------------------------------------------------


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


def table_groups(tables: int) -> list[tuple[int, int]]:
    """The night's tables cut into groups of ``LEAGUE_TABLES_PER_TASK`` (first table, how
    many): each group is one task, so a night uses up to that many worker processes at once,
    while the hands of a group's tables are stored together (a statement per group of
    hands, not per hand)."""
    return [_group_of(first, tables)
            for first in range(0, tables, settings.LEAGUE_TABLES_PER_TASK)]


def tables_advance(*, night_id: int, first: int, count: int,
                   max_seconds: float = 60.0) -> int:
    """Start the next hand of every table ``first .. first + count - 1`` of a running night
    whose last hand is done; score at once the hands that finish here (in-process bots) and
    go on while they do, playing such rounds of hands in memory and storing them together in
    one transaction (:class:`_Batch`) for at most :data:`HANDS_BATCH_SECONDS`; once the group
    has nothing left to start, finish the night if every table has played its hands.
    Idempotent: the group's hand rows are locked while hands are started and (night, table,
    number) is unique, so two workers on one group start each hand once (the second waits for
    the first's batch, then finds its hands taken). Returns how many hands it started."""
    tables = range(first, first + count)
    started = 0
    stop_at = clock.monotonic() + max_seconds
    while True:
        batch_end = clock.monotonic() + HANDS_BATCH_SECONDS
        batch = _Batch()
        try:
            with transaction.atomic():
                night = (Night.objects.select_related("league__organiser")
                         .filter(pk=night_id, status=Night.Status.RUNNING).first())
                if night is None:
                    return started
                while new_hands := _start_ready_hands(night, tables, batch):
                    finished_here = any(h.status == Hand.Status.FINISHED for h in new_hands)
                    if not finished_here or clock.monotonic() > batch_end:
                        break
                batch.store()
        except IntegrityError:
            return started  # another worker started these hands meanwhile
        except _Withdrawn as exc:  # the batch is rolled back; its hands are planned again
            Night.objects.filter(pk=night_id).update(withdrawn=exc.withdrawn)
            continue
        started += len(batch.hands)
        if not batch.hands:
            break
        Night.objects.filter(pk=night_id).update(lease_until=series.lease_until())
        if not finished_here:
            return started  # each is recorded when its match finishes (hand_record)
        if clock.monotonic() > stop_at:
            series.enqueue("advance_tables", night_id, first, count)
            return started
    with transaction.atomic():
        night = (Night.objects.select_for_update().select_related("league")
                 .filter(pk=night_id, status=Night.Status.RUNNING).first())
        if night is not None:
            _finish_if_done(night)
    return started


class _Withdrawn(Exception):  # not an error: a member to withdraw, then plan again
    def __init__(self, withdrawn: dict[str, str]) -> None:
        self.withdrawn = withdrawn


@dataclass
class _Batch:
    """Rounds of a group's hands started in one transaction: what the first round read (the
    group's hand rows, locked; its outcomes; the members) kept for the next rounds, and the
    hands and matches made, stored together by :meth:`store` (a few statements a batch, not a
    round: a hand's seats come from the hand before, so rounds are played one after another in
    memory)."""

    opened: bool = False
    members: dict[int, Member] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    #: Keys of the group's hands, stored or made in this batch.
    keys: set[str] = field(default_factory=set)
    first_of_season: bool = False
    hands: list[Hand] = field(default_factory=list)
    built: list[BuiltMatch] = field(default_factory=list)

    def open(self, night: Night, tables: Sequence[int]) -> bool:
        """Lock the tables' hand rows, then read the night's status again (a night cancelled
        meanwhile, which locked the night before its hands, starts nothing more), and what the
        rounds need. False if the night is no longer running."""
        league = night.league
        hands = list(Hand.objects.select_for_update().filter(night=night, table__in=tables)
                     .order_by("table", "number"))
        if not Night.objects.filter(pk=night.pk, status=Night.Status.RUNNING).exists():
            return False
        self.opened = True
        self.members = {m.index: m for m in league.members.all()}
        self.outcomes = _outcomes(hands)
        self.keys = {hand_key(h.table, h.number) for h in hands}
        self.first_of_season = (len({h.table for h in hands}) < len(tables)
                                and night.number == _first_night_number(league))
        return True

    def add(self, hand: Hand, built: BuiltMatch, outcome: Outcome | None) -> None:
        self.hands.append(hand)
        self.built.append(built)
        self.keys.add(hand_key(hand.table, hand.number))
        if outcome is not None:  # done here; else recorded when its match finishes
            self.outcomes[outcome.key] = outcome

    def store(self) -> None:
        """The batch's matches and hands, in a few statements (a hand already taken by another
        worker raises ``IntegrityError``, and the whole batch is rolled back)."""
        matches_save(self.built, announce=False)
        Hand.objects.bulk_create(self.hands)


def _start_ready_hands(night: Night, tables: Sequence[int], batch: _Batch) -> list[Hand]:
    """Make the next hand (its match and row, stored by ``batch.store``) of every table of
    ``tables`` that is ready, as the night's format plans it; in-process hands come back
    done. The first round of a batch opens it (:meth:`_Batch.open`); members who left since
    are read again each round (removed between hands)."""
    if not batch.opened and not batch.open(night, tables):
        return []
    league = night.league
    left = set(league.members.filter(left_at__isnull=False).values_list("index", flat=True))
    night_plan = night_format(night, left=left, first_of_season=batch.first_of_season)
    planned = [match for match in night_plan.plan_tables(batch.outcomes, tables)
               if match.key not in batch.keys]
    if not planned:
        return []
    new_hands = []
    for options, group in _by_options(planned):
        try:
            built = series.matches_play(
                game=league.game, organiser=league.organiser, options=options,
                move_time_limit=league.move_time_limit, strike_limit=league.strike_limit,
                series=SERIES, entrants=batch.members, planned=group)
        except BadSeats:  # a bot became unseatable during the night
            seated = {batch.members[i] for plan in group for i in plan.seats}
            withdrawn = {**night.withdrawn, **_unseatable(league, seated)}
            if withdrawn == night.withdrawn:
                raise
            raise _Withdrawn(withdrawn) from None
        for plan, new in zip(group, built):
            hand = Hand(night=night, table=plan.table, number=plan.number,
                        seats=list(plan.seats), match=new.match)
            outcome = (_fill_result(hand, night_plan, plan, new.result, new.forfeited)
                       if new.over else None)
            batch.add(hand, new, outcome)
            new_hands.append(hand)
    return new_hands


def night_format(night: Night, *, left: Collection[int] = (),
                 first_of_season: bool = False) -> LeagueNight:
    """The night as its format sees it (``formats.league_night``), with the withdrawal rule
    of every series (``SERIES_FORFEITS_TO_WITHDRAW``)."""
    league = night.league
    return get_format("league_night", game=league.game, tables=night.tables,
                      hands=league.hands_per_night, seed=league.seed, night=night.number,
                      options=league.options, ordered=league.ordered,
                      first_of_season=first_of_season, left=left,
                      withdrawn={int(index) for index in night.withdrawn},
                      forfeits_to_withdraw=settings.SERIES_FORFEITS_TO_WITHDRAW)


def _outcomes(hands: Sequence[Hand]) -> dict[str, Outcome]:
    """The done hands as their format's outcomes (who forfeited each: one query)."""
    done = [h for h in hands if h.status == Hand.Status.FINISHED]
    forfeits = _forfeited_seats([h.match_id for h in done if h.match_id is not None])
    return {hand_key(h.table, h.number): Outcome(
                hand_key(h.table, h.number), tuple(h.seats), tuple(h.finish), None,
                frozenset(h.seats[n] for n in forfeits.get(h.match_id, ())),
                points=tuple(h.points), order=tuple(h.order_after))
            for h in done}


def _by_options(planned: Sequence[PlannedMatch]) -> list[tuple[dict, list[PlannedMatch]]]:
    """Planned hands grouped by their engine options (one ``matches_create`` per group)."""
    groups: dict[str, tuple[dict, list[PlannedMatch]]] = {}
    for plan in planned:
        key = repr(sorted(plan.options.items()))
        groups.setdefault(key, (dict(plan.options), []))[1].append(plan)
    return list(groups.values())


def _first_night_number(league: League) -> int:
    """The season's first night: the earliest to start (a one-off night scheduled weeks ahead
    has a lower number than the weekly nights played before it)."""
    return (league.nights.exclude(status=Night.Status.FAILED).order_by("starts_at", "number")
            .values_list("number", flat=True).first() or 1)


def _group_of(table: int, tables: int) -> tuple[int, int]:
    """The group (:func:`table_groups`) that ``table`` is in."""
    size = settings.LEAGUE_TABLES_PER_TASK
    first = table - table % size
    return first, min(size, tables - first)


def out_of_night(night: Night) -> set[int]:
    """Members out for the rest of the night, withdrawn by the rule of every series: their
    bot could not be seated, or their seat forfeited (the match's strike limit: a polling
    player absent or gone silent, a bot that keeps failing) their last
    ``SERIES_FORFEITS_TO_WITHDRAW`` hands in a row. They stay seated, forfeited from the start
    of each later hand: default actions at once, no points, last place (docs/leagues.md)."""
    return night_format(night).out_of_night(_outcomes(list(night.hands.all())))


def _forfeited_seats(match_ids: Sequence[int]) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for match_id, number in (Seat.objects.filter(match_id__in=match_ids, forfeited=True)
                             .values_list("match_id", "number")):
        found.setdefault(match_id, []).append(number)
    return found


def _fill_result(hand: Hand, night_plan: LeagueNight, plan: PlannedMatch,
                 result: Mapping[str, Any], forfeited_seats: Sequence[int]) -> Outcome:
    """Score a finished hand from its match's ``result()`` (which carries the finishing order
    where the game has one, GD-2); returns the outcome."""
    outcome = night_plan.score(plan, result, forfeited={plan.seats[n] for n in forfeited_seats})
    hand.status, hand.finished_at = Hand.Status.FINISHED, timezone.now()
    hand.points, hand.finish = list(outcome.points), list(outcome.places)
    hand.order_after = list(outcome.order)
    return outcome


# --------------------------------------------------------------------------------------------
# Recording hands, finishing, stopping, the reaper
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
        _fill_result(hand, night_format(hand.night), plan, match.result,
                     _forfeited_seats([match_id]).get(match_id, ()))
        hand.save(update_fields=["status", "finished_at", "points", "finish", "order_after"])
        night_id, group = hand.night_id, _group_of(hand.table, len(hand.night.tables))
        series.enqueue("advance_tables", night_id, *group)
    return True


def _finish_if_done(night: Night) -> bool:
    """Every table played its hands: the night is over, and the league's order moves on
    (promotion and relegation between tables, ``league_rules.between_nights``). Called with
    the night row locked."""
    league = night.league
    hands = list(night.hands.filter(number=league.hands_per_night))
    if len(hands) < len(night.tables) or any(h.status != Hand.Status.FINISHED for h in hands):
        return False
    everything = [(h.table, h.seats, h.points) for h in night.hands.all()] \
        if not league_rules.carries_order(league.game) else []
    final = [league_rules.table_order_after_night(
                 league.game, night.tables[table],
                 last=next(h for h in hands if h.table == table).order_after,
                 points=league_rules.table_points(everything, table))
             for table in range(len(night.tables))]
    now = timezone.now()
    League.objects.filter(pk=league.pk).update(
        order=league_rules.between_nights(final, moves=league.moves_between_tables),
        ordered=True)
    Night.objects.filter(pk=night.pk).update(status=Night.Status.FINISHED, finished_at=now,
                                             lease_until=None)
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
