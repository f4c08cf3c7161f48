"""Playing a league night's hands: each group of tables (``night_plan.table_groups``) goes on
by itself, on any worker (:func:`tables_advance`), rounds of in-process hands stored together
in batches (:class:`_Batch`); the last group to finish finishes the night
(docs/leagues.md; how a night runs: ``tournaments.nights``)."""

from __future__ import annotations

import time as clock
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from games.db import insert_models
from games.errors import BadSeats
from games.services import BuiltMatch, matches_save

from . import league_rules, series
from .formats import Outcome, PlannedMatch
from .formats.league_night import hand_key
from .models import Hand, League, Member, Night
from .night_plan import (
    first_night_number,
    night_format,
    outcomes_of,
    score_hand,
    unseatable,
)
from .nights import SERIES

#: Rounds of in-process hands played one after another by a group of tables are stored in one
#: transaction for at most this long (one commit and one lease renewal per batch, not per
#: round). A crash loses that batch only; its hands are played again from their seeds,
#: identically.
HANDS_BATCH_SECONDS = 1.0


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
                # Drained: the group had nothing more to start (every table has played its
                # hands, or waits for one that finishes elsewhere), so no batch after this one.
                drained = False
                while True:
                    new_hands = _start_ready_hands(night, tables, batch)
                    if not new_hands:
                        drained = True
                        break
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
        if drained:
            break
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
    #: The indices of the league's members who left, read again each round (built once: a
    #: clone of it runs the query without building the filter again).
    leavers: QuerySet | None = None

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
        # No ordering: Member's default (by league) joins the league table for nothing.
        self.leavers = (league.members.filter(left_at__isnull=False).order_by()
                        .values_list("index", flat=True))
        self.outcomes = outcomes_of(hands)
        self.keys = {hand_key(h.table, h.number) for h in hands}
        self.first_of_season = (len({h.table for h in hands}) < len(tables)
                                and night.number == first_night_number(league))
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
        insert_models(self.hands)


def _start_ready_hands(night: Night, tables: Sequence[int], batch: _Batch) -> list[Hand]:
    """Make the next hand (its match and row, stored by ``batch.store``) of every table of
    ``tables`` that is ready, as the night's format plans it; in-process hands come back
    done. The first round of a batch opens it (:meth:`_Batch.open`); members who left since
    are read again each round (removed between hands)."""
    if not batch.opened and not batch.open(night, tables):
        return []
    league = night.league
    left = set(batch.leavers.all())
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
            withdrawn = {**night.withdrawn, **unseatable(league, seated)}
            if withdrawn == night.withdrawn:
                raise
            raise _Withdrawn(withdrawn) from None
        for plan, new in zip(group, built):
            hand = Hand(night=night, table=plan.table, number=plan.number,
                        seats=list(plan.seats), match=new.match)
            outcome = (score_hand(hand, night_plan, plan, new.result, new.forfeited)
                       if new.over else None)
            batch.add(hand, new, outcome)
            new_hands.append(hand)
    return new_hands


def _by_options(planned: Sequence[PlannedMatch]) -> list[tuple[dict, list[PlannedMatch]]]:
    """Planned hands grouped by their engine options (one ``matches_create`` per group)."""
    groups: dict[str, tuple[dict, list[PlannedMatch]]] = {}
    for plan in planned:
        key = repr(sorted(plan.options.items()))
        groups.setdefault(key, (dict(plan.options), []))[1].append(plan)
    return list(groups.values())


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
