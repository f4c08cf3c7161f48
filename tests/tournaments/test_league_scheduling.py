"""League scheduling as an organiser meets it through the API (issue 21, "League scheduling"):
the next night of a season that starts weeks ahead, dates without an offset, nights in the
past, outside the season or at the weekly night, leagues that cannot fill a table, how far
ahead a series may be scheduled, and weekly nights across daylight-saving changes, both in
``next_night`` and in the beat dispatcher (``nights_start_due``)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from tests.helpers.tasks import hold_tasks
from tournaments.leagues import night_kind, nights
from tournaments.models import League, Night

URL = "/api/leagues/"
PARIS, NEW_YORK = ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York")

pytestmark = pytest.mark.django_db


def refs(count: int) -> list[dict[str, Any]]:
    return [{"kind": "reference", "bot": "random", "name": f"ref{i}"} for i in range(count)]


def spec(**overrides: Any) -> dict[str, Any]:
    """Four reference bots of a Great Dalmuti league, no recurring night, the season from
    yesterday for 60 days."""
    now = timezone.now()
    return {"name": "club", "game": "great_dalmuti", "members": refs(4), "table_size": 5,
            "hands_per_night": 1, "season_start": (now - timedelta(days=1)).isoformat(),
            "season_end": (now + timedelta(days=60)).isoformat(), "seed": 1, **overrides}


def create(client: APIClient, **overrides: Any) -> Any:
    return client.post(URL, spec(**overrides), format="json")


def created(client: APIClient, **overrides: Any) -> dict[str, Any]:
    response = create(client, **overrides)
    assert response.status_code == 201, response.json()
    return response.json()


def moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def refused(response: Any, code: str, words: str) -> None:
    body = response.json()
    assert response.status_code == 400 and body["code"] == code, body
    assert words in body["detail"], body


@pytest.fixture
def no_worker(monkeypatch: Any) -> None:
    """A started night queues nothing (its hands are not what these tests look at)."""
    hold_tasks(monkeypatch, "tournaments.")


@pytest.fixture
def clock(monkeypatch: Any) -> list[datetime]:
    """The server's now (``django.utils.timezone.now``: the API, ``created_at`` and the
    services read it), set by the test: ``clock[0] = ...``."""
    at = [timezone.now()]
    monkeypatch.setattr(timezone, "now", lambda: at[0])
    return at


# --------------------------------------------------------------------------------------------
# next_night of a season that starts weeks ahead
# --------------------------------------------------------------------------------------------


def test_next_night_says_when_the_first_night_of_a_season_weeks_ahead_is(
        alice_api, anon_api, no_worker) -> None:
    now = timezone.now()
    opens = now + timedelta(days=30)
    body = created(alice_api, weekday=3, night_time="20:00", timezone="Europe/Paris",
                   season_start=opens.isoformat(),
                   season_end=(opens + timedelta(days=60)).isoformat())
    first = moment(body["next_night"])
    assert first is not None, "a season a month ahead still has a first night"
    local = first.astimezone(PARIS)
    assert (local.weekday(), local.time()) == (3, time(20, 0))
    assert opens <= first < opens + timedelta(days=7), "the first Thursday of the season"
    assert moment(anon_api.get(f"{URL}{body['id']}/").json()["next_night"]) == first

    # The beat dispatcher starts that very night when it comes, not before.
    assert nights.nights_start_due(now=first - timedelta(seconds=1)) == 0
    assert nights.nights_start_due(now=first + timedelta(seconds=1)) == 1
    night = Night.objects.get(league_id=body["id"])
    assert (night.number, night.starts_at, night.status) == (1, first, "running")


def test_a_one_off_night_later_does_not_stand_in_for_the_weekly_one(alice_api,
                                                                     no_worker) -> None:
    now = timezone.now()
    body = created(alice_api, weekday=(now.weekday() + 1) % 7, night_time="20:00")
    weekly = moment(body["next_night"])
    one_off = weekly + timedelta(days=1)
    assert alice_api.post(f"{URL}{body['id']}/nights/", {"starts_at": one_off.isoformat()},
                          format="json").status_code == 201
    assert nights.nights_start_due(now=weekly + timedelta(seconds=1)) == 1
    assert list(Night.objects.filter(league_id=body["id"]).order_by("starts_at")
                .values_list("starts_at", "status")) == [(weekly, "running"),
                                                         (one_off, "scheduled")]


def test_the_first_night_of_the_season_is_the_first_to_start_not_the_first_scheduled(
        alice_api, no_worker) -> None:
    now = timezone.now()
    body = created(alice_api, weekday=(now.weekday() + 1) % 7, night_time="20:00")
    weekly = moment(body["next_night"])
    later = alice_api.post(f"{URL}{body['id']}/nights/",
                           {"starts_at": (weekly + timedelta(days=10)).isoformat()},
                           format="json")
    assert later.json()["number"] == 1
    assert nights.nights_start_due(now=weekly + timedelta(seconds=1)) == 1
    league = League.objects.get(pk=body["id"])
    first = league.nights.get(starts_at=weekly)
    assert first.number == 2 and night_kind.first_night_number(league) == 2, \
        "night 2 starts first: its first hand draws the order (GD-2), night 1's will not"


def test_a_night_due_while_another_runs_waits_for_it(alice_api, no_worker) -> None:
    now = timezone.now()
    body = created(alice_api)
    nights_url = f"{URL}{body['id']}/nights/"
    for hours in (0, 1):
        assert alice_api.post(nights_url, {"starts_at": (now + timedelta(hours=hours))
                                           .isoformat()}, format="json").status_code == 201
    assert nights.nights_start_due(now=now + timedelta(hours=2)) == 1, "the earliest only"
    first, second = Night.objects.filter(league_id=body["id"]).order_by("number")
    assert (first.status, second.status) == ("running", "scheduled")
    assert nights.nights_start_due(now=now + timedelta(hours=2)) == 0, "night 1 still runs"
    Night.objects.filter(pk=first.pk).update(status="finished")
    assert nights.nights_start_due(now=now + timedelta(hours=2)) == 1
    second.refresh_from_db()
    assert second.status == "running"


# --------------------------------------------------------------------------------------------
# Dates without an offset: wall times in the league's time zone
# --------------------------------------------------------------------------------------------


def test_a_date_without_an_offset_is_a_wall_time_in_the_leagues_zone(alice_api) -> None:
    day = (timezone.now() + timedelta(days=10)).date()
    start, end = day - timedelta(days=5), day + timedelta(days=20)
    body = created(alice_api, timezone="Europe/Paris", season_start=f"{start}T00:00",
                   season_end=f"{end}T23:59:00")
    assert moment(body["season_start"]) == datetime.combine(start, time(0), tzinfo=PARIS)
    assert moment(body["season_end"]) == datetime.combine(end, time(23, 59), tzinfo=PARIS)

    nights_url = f"{URL}{body['id']}/nights/"
    naive = alice_api.post(nights_url, {"starts_at": f"{day} 21:00"}, format="json")
    assert naive.status_code == 201, naive.json()
    at = moment(naive.json()["starts_at"])
    assert at == datetime.combine(day, time(21), tzinfo=PARIS), "21:00 in Paris, not in UTC"
    assert at.astimezone(PARIS).hour == 21 and at.astimezone(UTC).hour in (19, 20)

    # With an offset it is that instant, whatever the league's zone.
    utc = alice_api.post(nights_url, {"starts_at": f"{day}T21:00:00Z"}, format="json")
    assert moment(utc.json()["starts_at"]) == datetime.combine(day, time(21), tzinfo=UTC)
    # The same wall time again is the same night.
    refused(alice_api.post(nights_url, {"starts_at": f"{day}T21:00"}, format="json"),
            "bad_league", "already has a night")


def test_a_naive_date_reads_the_gap_and_the_repeated_hour_as_the_weekly_night_does(
        alice_api, clock) -> None:
    clock[0] = datetime(2027, 3, 1, tzinfo=UTC)
    body = created(alice_api, timezone="Europe/Paris", season_end="2027-12-01T00:00")
    nights_url = f"{URL}{body['id']}/nights/"
    gap = alice_api.post(nights_url, {"starts_at": "2027-03-28T02:30"}, format="json")
    assert moment(gap.json()["starts_at"]) == datetime(2027, 3, 28, 1, 30, tzinfo=UTC), \
        "02:30 does not exist in Paris that day: shifted forward by the gap, to 03:30"
    twice = alice_api.post(nights_url, {"starts_at": "2027-10-31T02:30"}, format="json")
    assert moment(twice.json()["starts_at"]) == datetime(2027, 10, 31, 0, 30, tzinfo=UTC), \
        "02:30 happens twice in Paris that day: the earlier, summer time"


# --------------------------------------------------------------------------------------------
# One-off nights refused: in the past, outside the season, at the weekly night, too far ahead
# --------------------------------------------------------------------------------------------


def test_a_one_off_night_in_the_past_or_outside_the_season_is_refused(alice_api) -> None:
    now = timezone.now()
    body = created(alice_api, season_start=(now - timedelta(days=10)).isoformat())
    nights_url = f"{URL}{body['id']}/nights/"
    for starts_at, words in [(now - timedelta(days=2), "in the past"),
                             (now - timedelta(minutes=5), "in the past"),
                             (now - timedelta(days=20), "within the season"),
                             (now + timedelta(days=61), "within the season")]:
        refused(alice_api.post(nights_url, {"starts_at": starts_at.isoformat()},
                               format="json"), "bad_league", words)
    assert not Night.objects.exists()
    # "Now" (a request a few seconds old) is not the past.
    assert alice_api.post(nights_url, {"starts_at": (now - timedelta(seconds=5)).isoformat()},
                          format="json").status_code == 201


def test_a_one_off_night_at_the_weekly_nights_time_is_refused(alice_api) -> None:
    now = timezone.now()
    body = created(alice_api, weekday=(now.weekday() + 3) % 7, night_time="21:15",
                   timezone="America/New_York")
    weekly = moment(body["next_night"])
    nights_url = f"{URL}{body['id']}/nights/"
    refused(alice_api.post(nights_url, {"starts_at": weekly.isoformat()}, format="json"),
            "bad_league", "weekly night is at that time already")
    a_week_later = weekly.astimezone(NEW_YORK).date() + timedelta(days=7)  # its wall time
    refused(alice_api.post(nights_url, {"starts_at": f"{a_week_later}T21:15"}, format="json"),
            "bad_league", "weekly night")
    assert alice_api.post(nights_url, {"starts_at": (weekly + timedelta(hours=1)).isoformat()},
                          format="json").status_code == 201


def test_a_series_is_scheduled_at_most_the_settings_days_ahead(alice_api, settings) -> None:
    refused(create(alice_api, season_end="9998-12-31T00:00:00Z"), "bad_league",
            "season_end is more than 365 days ahead (SERIES_MAX_SCHEDULE_AHEAD_DAYS)")
    now = timezone.now()
    refused(create(alice_api, season_start=(now + timedelta(days=366)).isoformat(),
                   season_end=(now + timedelta(days=380)).isoformat()),
            "bad_league", "season_start is more than 365 days ahead")
    assert not League.objects.exists()
    assert create(alice_api, season_end=(now + timedelta(days=364)).isoformat()
                  ).status_code == 201

    settings.SERIES_MAX_SCHEDULE_AHEAD_DAYS = 10
    body = created(alice_api, season_end=(now + timedelta(days=10)).isoformat())
    nights_url = f"{URL}{body['id']}/nights/"
    League.objects.filter(pk=body["id"]).update(season_end=now + timedelta(days=60))
    refused(alice_api.post(nights_url, {"starts_at": (now + timedelta(days=11)).isoformat()},
                           format="json"), "bad_league", "starts_at is more than 10 days ahead")
    assert alice_api.post(nights_url, {"starts_at": (now + timedelta(days=9)).isoformat()},
                          format="json").status_code == 201


# --------------------------------------------------------------------------------------------
# Leagues whose members cannot fill a table
# --------------------------------------------------------------------------------------------


def test_a_league_that_cannot_fill_a_table_is_refused_with_the_reason(alice_api) -> None:
    refused(create(alice_api, members=refs(2)), "bad_league",
            "no night could start: 2 members cannot fill tables of at least 4 and at most 5 "
            "players")
    refused(create(alice_api, game="dot", table_size=2, members=refs(1)), "bad_league",
            "1 members cannot fill tables of at least 2")
    assert not League.objects.exists()
    assert create(alice_api, members=refs(4)).status_code == 201


def test_a_member_may_not_leave_a_league_it_would_leave_unplayable_while_nights_are_to_come(
        alice_api, anon_api) -> None:
    now = timezone.now()
    body = created(alice_api)
    base = f"{URL}{body['id']}/"
    night = alice_api.post(base + "nights/", {"starts_at": (now + timedelta(days=1)).isoformat()},
                           format="json")
    assert night.status_code == 201
    refused(alice_api.post(base + "members/2/leave/"), "bad_league",
            "member 2 cannot leave while nights are to come: 3 members cannot fill tables of "
            "at least 4")
    assert anon_api.get(base).json()["member_count"] == 4

    # With a fifth member, one may leave.
    assert alice_api.post(base + "members/", refs(1)[0], format="json").status_code == 201
    assert alice_api.post(base + "members/2/leave/").status_code == 200
    refused(alice_api.post(base + "members/3/leave/"), "bad_league", "cannot leave")

    # No night to come (the night cancelled, no weekly night): leaving is accepted, the
    # league says no night can start, and a new night is refused with the reason.
    assert alice_api.post(base + "nights/1/cancel/").status_code == 200
    assert anon_api.get(base).json()["next_night"] is None
    assert alice_api.post(base + "members/3/leave/").status_code == 200
    detail = anon_api.get(base).json()
    assert detail["member_count"] == 3
    assert detail["cannot_start"].startswith("3 members cannot fill tables of at least 4")
    assert detail["cannot_start"] in Client().get(f"/leagues/{body['id']}/").content.decode()
    refused(alice_api.post(base + "nights/", {"starts_at": (now + timedelta(days=2)).isoformat()},
                           format="json"),
            "bad_league", "the night could not start: 3 members cannot fill")


def test_a_recurring_league_keeps_its_members_until_the_season_is_over(alice_api,
                                                                        clock) -> None:
    body = created(alice_api, weekday=4, night_time="19:00",
                   season_end=(clock[0] + timedelta(days=20)).isoformat())
    refused(alice_api.post(f"{URL}{body['id']}/members/0/leave/"), "bad_league", "cannot leave")
    clock[0] += timedelta(days=21)
    assert alice_api.post(f"{URL}{body['id']}/members/0/leave/").status_code == 200


# --------------------------------------------------------------------------------------------
# Daylight saving: next_night and the dispatcher
# --------------------------------------------------------------------------------------------


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize("zone, weekday, at, before, weekly", [
    # Europe/Paris, Thursdays 20:00: 19:00 UTC in winter, 18:00 in summer (clocks forward on
    # Sunday 28 March 2027, back on Sunday 31 October 2027).
    ("Europe/Paris", 3, "20:00", utc(2027, 3, 20), [utc(2027, 3, 25, 19), utc(2027, 4, 1, 18)]),
    ("Europe/Paris", 3, "20:00", utc(2027, 10, 23),
     [utc(2027, 10, 28, 18), utc(2027, 11, 4, 19)]),
    # America/New_York, Thursdays 20:00: the next day in UTC, 01:00 in winter, 00:00 in
    # summer (forward on Sunday 14 March 2027, back on Sunday 7 November 2027).
    ("America/New_York", 3, "20:00", utc(2027, 3, 6),
     [utc(2027, 3, 12, 1), utc(2027, 3, 19, 0)]),
    ("America/New_York", 3, "20:00", utc(2027, 10, 30),
     [utc(2027, 11, 5, 0), utc(2027, 11, 12, 1)]),
    # Sundays 02:30 in Paris: on 28 March 2027 that time does not exist; shifted forward by
    # the gap to 03:30 summer time (01:30 UTC, the offset of the hour before).
    ("Europe/Paris", 6, "02:30", utc(2027, 3, 20),
     [utc(2027, 3, 21, 1, 30), utc(2027, 3, 28, 1, 30), utc(2027, 4, 4, 0, 30)]),
    ("America/New_York", 6, "02:30", utc(2027, 3, 6),
     [utc(2027, 3, 7, 7, 30), utc(2027, 3, 14, 7, 30), utc(2027, 3, 21, 6, 30)]),
    # Sundays 02:30 in Paris, 01:30 in New York: on the day the clocks go back that time
    # happens twice; the night is the earlier one, in summer time.
    ("Europe/Paris", 6, "02:30", utc(2027, 10, 23),
     [utc(2027, 10, 24, 0, 30), utc(2027, 10, 31, 0, 30), utc(2027, 11, 7, 1, 30)]),
    ("America/New_York", 6, "01:30", utc(2027, 10, 30),
     [utc(2027, 10, 31, 5, 30), utc(2027, 11, 7, 5, 30), utc(2027, 11, 14, 6, 30)]),
])
def test_weekly_nights_keep_their_wall_time_across_daylight_saving(
        alice_api, anon_api, clock, no_worker, zone, weekday, at, before, weekly) -> None:
    clock[0] = before
    body = created(alice_api, weekday=weekday, night_time=at, timezone=zone,
                   season_start=before.isoformat(),
                   season_end=(before + timedelta(days=40)).isoformat())
    detail = f"{URL}{body['id']}/"
    for number, start in enumerate(weekly, start=1):
        assert moment(anon_api.get(detail).json()["next_night"]) == start, number
        local = start.astimezone(ZoneInfo(zone))
        assert local.weekday() == weekday
        # The dispatcher, a second before and a second after.
        assert nights.nights_start_due(now=start - timedelta(seconds=1)) == 0
        assert nights.nights_start_due(now=start + timedelta(seconds=1)) == 1
        assert Night.objects.get(league_id=body["id"], number=number).starts_at == start
        # An hour later (on the day the clocks go back, the second 02:30 or 01:30): the
        # night is not started again.
        assert nights.nights_start_due(now=start + timedelta(hours=1)) == 0
        clock[0] = start + timedelta(seconds=1)
        Night.objects.filter(league_id=body["id"]).update(status="finished")
    assert Night.objects.filter(league_id=body["id"]).count() == len(weekly)


def test_a_join_that_would_leave_the_tables_uncuttable_is_refused_while_nights_are_to_come(
        alice_api, anon_api) -> None:
    """Five members at tables of up to 5 fill one table; six (3 and 3) and seven (4 and 3)
    cannot, Dalmuti needing 4 a table; eight can (4 and 4)."""
    now = timezone.now()
    body = created(alice_api, members=refs(5))
    base = f"{URL}{body['id']}/"
    assert alice_api.post(base + "nights/", {"starts_at": (now + timedelta(days=1)).isoformat()},
                          format="json").status_code == 201
    refused(alice_api.post(base + "members/", refs(1)[0], format="json"), "bad_league",
            "1 member cannot join while nights are to come: 6 members cannot fill tables of at "
            "least 4 and at most 5 players (the best cut is 2 table(s) of 3, 3); add them with "
            "the members the tables need (a list)")
    refused(alice_api.post(base + "members/", refs(2), format="json"), "bad_league",
            "2 members cannot join while nights are to come: 7 members cannot fill")
    assert anon_api.get(base).json()["member_count"] == 5

    # Three together make 8: two tables of 4. All or none, in the order given.
    joined = alice_api.post(base + "members/", refs(3), format="json")
    assert joined.status_code == 201, joined.json()
    assert [(m["index"], m["label"]) for m in joined.json()] == [(5, "ref0"), (6, "ref1"),
                                                                (7, "ref2")]
    assert anon_api.get(base).json()["member_count"] == 8
    assert anon_api.get(base).json()["cannot_start"] is None

    # A join that keeps a cuttable count (9: 5 and 4) is one object in, one object out.
    one = alice_api.post(base + "members/", refs(1)[0], format="json")
    assert one.status_code == 201 and one.json()["index"] == 8
    # An empty list adds nobody.
    refused(alice_api.post(base + "members/", [], format="json"), "bad_league", "no member")


def test_with_no_night_to_come_a_join_is_accepted_and_the_league_says_why_it_cannot_start(
        alice_api, anon_api) -> None:
    body = created(alice_api, members=refs(5))
    base = f"{URL}{body['id']}/"
    assert alice_api.post(base + "members/", refs(1)[0], format="json").status_code == 201
    detail = anon_api.get(base).json()
    assert detail["member_count"] == 6
    assert detail["cannot_start"].startswith("6 members cannot fill tables of at least 4")
