"""Migration 0012: dates stored before every date input kept to lib.dates' range are moved into
it, and the pages of a league whose season began at 0001-01-01 (500 before) answer again."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from django.utils import timezone

from lib.dates import EARLIEST

from ..migrations import migrate, migrate_to_latest

BEFORE = [("tournaments", "0011_deal_secrets")]
AFTER = [("tournaments", "0012_dates_in_range")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_dates_out_of_range_are_moved_in_and_the_pages_answer(alice, client) -> None:
    apps = migrate(BEFORE)
    try:
        League = apps.get_model("tournaments", "League")
        Tournament = apps.get_model("tournaments", "Tournament")
        now = timezone.now()
        common = {"game": "dice_cup", "organiser_id": alice.pk, "table_size": 2,
                  "strike_limit": 3, "move_time_limit": 60, "seed": 1}
        # As league_create stored "0001-01-01T00:00:00Z", recurring, in Etc/GMT+12.
        year_one = League.objects.create(
            name="year one", season_start=datetime.min.replace(tzinfo=UTC),
            season_end=now + timedelta(days=7), weekday=0, night_time=time(0, 0),
            timezone="Etc/GMT+12", **common)
        over = League.objects.create(
            name="over", season_start=datetime(1, 1, 1, 12, tzinfo=UTC),
            season_end=datetime(1, 1, 2, 12, tzinfo=UTC), **common)
        fine = League.objects.create(name="fine", season_start=now,
                                     season_end=now + timedelta(days=7), **common)
        early = Tournament.objects.create(name="t", starts_at=datetime(1, 1, 1, tzinfo=UTC),
                                          meetings=1, **common)

        apps = migrate(AFTER)
        League = apps.get_model("tournaments", "League")
        Tournament = apps.get_model("tournaments", "Tournament")
        earliest = EARLIEST.replace(tzinfo=UTC)
        assert League.objects.get(pk=year_one.pk).season_start == earliest
        assert (League.objects.get(pk=over.pk).season_start,
                League.objects.get(pk=over.pk).season_end) == (earliest, earliest)
        assert League.objects.get(pk=fine.pk).season_start == now, "in range: untouched"
        assert Tournament.objects.get(pk=early.pk).starts_at == earliest
    finally:
        migrate_to_latest()
    for url in ["/", "/leagues/", f"/leagues/{year_one.pk}/", f"/api/leagues/{year_one.pk}/"]:
        assert client.get(url).status_code == 200, url
