"""Migration 0009: a tournament match and a league hand that are over say ``finished``, the
word their games match uses (they said ``done``), and say ``done`` again when migrated back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ..migrations import migrate, migrate_to_latest

BEFORE = [("tournaments", "0008_night_one_running_per_league")]
AFTER = [("tournaments", "0009_finished_not_done")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_done_rows_become_finished_and_back(alice) -> None:
    apps = migrate(BEFORE)
    try:
        Tournament = apps.get_model("tournaments", "Tournament")
        TournamentMatch = apps.get_model("tournaments", "TournamentMatch")
        League = apps.get_model("tournaments", "League")
        Night = apps.get_model("tournaments", "Night")
        Hand = apps.get_model("tournaments", "Hand")
        now = timezone.now()
        tournament = Tournament.objects.create(name="t", game="dice_cup",
                                               organiser_id=alice.pk, seed=1, table_size=2,
                                               meetings=1, strike_limit=3,
                                               move_time_limit=60)
        done, pending = (TournamentMatch.objects.create(
            tournament=tournament, number=n, round=0, deal=n, seed=n, seats=[0, 1],
            status=status).pk for n, status in enumerate(["done", "pending"]))
        league = League.objects.create(name="l", game="dice_cup", organiser_id=alice.pk,
                                       table_size=2, strike_limit=3, move_time_limit=60,
                                       seed=1, season_start=now,
                                       season_end=now + timedelta(days=7))
        night = Night.objects.create(league=league, number=1, starts_at=now)
        hand = Hand.objects.create(night=night, table=0, number=1, seats=[0, 1],
                                   status="done").pk

        apps = migrate(AFTER)
        TournamentMatch = apps.get_model("tournaments", "TournamentMatch")
        Hand = apps.get_model("tournaments", "Hand")
        assert TournamentMatch.objects.get(pk=done).status == "finished"
        assert TournamentMatch.objects.get(pk=pending).status == "pending"
        assert Hand.objects.get(pk=hand).status == "finished"

        apps = migrate(BEFORE)
        assert apps.get_model("tournaments", "TournamentMatch").objects.get(pk=done).status \
            == "done"
        assert apps.get_model("tournaments", "Hand").objects.get(pk=hand).status == "done"
    finally:
        migrate_to_latest()
