"""Migration 0014: a series stored with an option new matches refuse gets its default; here a
Le Dutch series whose ``rounds`` its tables cannot share out evenly (DU-8) plays one round per
player from then on, and one that can keeps its own."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ..migrations import migrate, migrate_to_latest

BEFORE = [("tournaments", "0013_forfeits_recorded")]
AFTER = [("tournaments", "0014_options_new_matches_take")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_uneven_rounds_become_one_per_player_and_even_ones_stay(alice) -> None:
    apps = migrate(BEFORE)
    try:
        Tournament = apps.get_model("tournaments", "Tournament")
        League = apps.get_model("tournaments", "League")

        def tournament(rounds: int, size: int) -> int:
            return Tournament.objects.create(
                name="t", game="dutch", organiser_id=alice.pk, seed=1, table_size=size,
                meetings=1, strike_limit=3, move_time_limit=60,
                options={"rounds": rounds}).pk

        uneven, even = tournament(5, 4), tournament(8, 4)
        now = timezone.now()
        league = League.objects.create(
            name="l", game="dutch", organiser_id=alice.pk, table_size=4, strike_limit=3,
            move_time_limit=60, seed=1, season_start=now, season_end=now + timedelta(days=7),
            options={"rounds": 4}).pk  # a night's table of 3 could not share 4 out

        apps = migrate(AFTER)
        Tournament = apps.get_model("tournaments", "Tournament")
        League = apps.get_model("tournaments", "League")
        assert Tournament.objects.get(pk=uneven).options["rounds"] is None
        assert Tournament.objects.get(pk=even).options["rounds"] == 8
        assert League.objects.get(pk=league).options["rounds"] is None
    finally:
        migrate_to_latest()
