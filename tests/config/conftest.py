"""Fixtures of the pages' tests: a site with tournaments and a league to show."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.helpers.tasks import run_tasks
from tournaments import services
from tournaments.leagues import nights
from tournaments.leagues import services as leagues

REFS = [{"kind": "reference", "bot": ("heuristic", "random")[i % 2], "name": f"ref{i}"}
        for i in range(4)]


@pytest.fixture
def site(alice: Any, monkeypatch: Any) -> dict[str, Any]:
    """A finished tournament, a scheduled one, and a league with a finished night and a
    recurring next one, all played in-process."""
    run_tasks(monkeypatch, "tournaments.")
    cup = services.tournament_create(organiser=alice, name="Friday cup", game="dice_cup",
                                      participants=REFS, table_size=2, seed=424242424242)
    later = services.tournament_create(organiser=alice, name="Next cup", game="dot",
                                       participants=REFS[:2], table_size=2,
                                       starts_at=timezone.now() + timedelta(days=2))
    now = timezone.now()
    club = leagues.league_create(
        organiser=alice, name="Thursday club", game="great_dalmuti", members=REFS + REFS[:1],
        table_size=5, hands_per_night=2, season_start=now - timedelta(days=1),
        season_end=now + timedelta(days=30), weekday=3, night_time=now.time().replace(
            microsecond=0), timezone_name="Europe/Paris", seed=515151515151)
    leagues.night_schedule(league_id=club.pk, user=alice, starts_at=now)
    nights.nights_start_due()
    return {"cup": cup, "later": later, "club": club}
