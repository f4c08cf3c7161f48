"""Migration 0008: a database that already holds two running nights of one league (two
dispatchers raced before the constraint) migrates; the league keeps the night that started
first running, the other is cancelled with the reason, and the reaper then stops its hands."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..migrations import migrate, migrate_to_latest

BEFORE = [("tournaments", "0007_night_number_help")]
AFTER = [("tournaments", "0008_night_one_running_per_league")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_extra_running_nights_are_cancelled_then_their_hands_stopped(alice) -> None:
    apps = migrate(BEFORE)
    try:
        League = apps.get_model("tournaments", "League")
        Night = apps.get_model("tournaments", "Night")
        Hand = apps.get_model("tournaments", "Hand")
        now = timezone.now()

        def league(name: str):
            return League.objects.create(name=name, game="dice_cup", organiser_id=alice.pk,
                                         table_size=2, strike_limit=3, move_time_limit=60,
                                         seed=1, season_start=now - timedelta(days=30),
                                         season_end=now + timedelta(days=30))

        def night(league, number: int, status: str, started_minutes_ago: int | None):
            started = (None if started_minutes_ago is None
                       else now - timedelta(minutes=started_minutes_ago))
            return Night.objects.create(league=league, number=number, status=status,
                                        starts_at=now - timedelta(days=10 - number),
                                        started_at=started, lease_until=now)

        raced = league("raced")
        # Night 2 started before night 1 (its claim won first): it is the one kept.
        first = night(raced, 1, "running", 5)
        kept = night(raced, 2, "running", 9)
        third = night(raced, 3, "running", None)
        waiting = night(raced, 4, "scheduled", None)
        hand = Hand.objects.create(night=first, table=0, number=1, seats=[0, 1]).pk
        alone = night(league("alone"), 1, "running", 1)

        apps = migrate(AFTER)
        Night = apps.get_model("tournaments", "Night")
        status = dict(Night.objects.values_list("pk", "status"))
        assert [status[n.pk] for n in (first, kept, third, waiting, alone)] == [
            "cancelled", "running", "cancelled", "scheduled", "running"]
        settled = Night.objects.get(pk=first.pk)
        assert settled.reason == ("cancelled: night 2 of this league was running too, and a "
                                  "league runs one night at a time (migration 0008)")
        assert settled.finished_at is not None and settled.lease_until is None
        assert Night.objects.get(pk=kept.pk).reason == ""
        with pytest.raises(IntegrityError), transaction.atomic():  # the constraint is there
            Night.objects.filter(pk=waiting.pk).update(status="running")

        migrate(BEFORE)  # back: nothing is undone
        assert apps.get_model("tournaments", "Night").objects.get(pk=first.pk).status \
            == "cancelled"
    finally:
        migrate_to_latest()

    from tournaments import runner
    from tournaments.models import Hand as LatestHand

    # The running hand of the cancelled night (migrated to the runner's hands by 0016): the
    # reaper cancels it, as every open row of a cancelled series.
    assert runner.reap() >= 1
    assert LatestHand.objects.get(pk=hand).status == "cancelled"
    assert runner.reap() == 0
