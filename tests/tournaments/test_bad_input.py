"""Bad input to the series APIs gets a 400 naming what is wrong, and nothing is written (issue
45, item 6): dates at the ends of Python's range, read in an extreme time zone, overflowed (500,
and a league stored with one answered 500 on every page); a member list took the same person
twice; ``?limit=-1`` was read as the default; "9:00" passed where the schema says HH:MM."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.leagues import URL, create, refs
from tournaments.models import League, Member, Night, Tournament

pytestmark = pytest.mark.django_db

RANGE = "Ensure this date is between 1970-01-01 and 9998-12-31."


def refused(response: Any, field: str, message: str) -> None:
    assert response.status_code == 400, response.content
    assert response.json() == {"code": "invalid", "detail": f"{field}: {message}",
                               "fields": {field: [message]}}


@pytest.mark.parametrize("zone, season_start", [
    ("Etc/GMT+12", "0001-01-01T00:00:00"),  # stored as 0001-01-01 12:00 UTC, pages then 500
    ("Etc/GMT-14", "0001-01-01T00:00:00"),  # before year 1 in UTC
    ("UTC", "0001-01-01T00:00:00+14:00"),
    ("Etc/GMT+12", "9999-12-31T23:00:00"),  # after 9999 in UTC
    ("UTC", "9999-12-31T23:00:00-12:00"),
    ("UTC", "1969-12-31T23:59:00"),
])
def test_a_league_dated_out_of_range_is_refused_naming_the_field(alice_api, zone,
                                                                  season_start) -> None:
    refused(create(alice_api, timezone=zone, season_start=season_start), "season_start", RANGE)
    refused(create(alice_api, timezone=zone, season_end=season_start), "season_end", RANGE)
    assert not League.objects.exists()


@pytest.mark.parametrize("zone", ["Etc/GMT+12", "Etc/GMT-14", "UTC"])
@pytest.mark.parametrize("starts_at", ["0001-01-01T00:00:00", "0001-01-01T00:00:00+14:00",
                                       "9999-12-31T23:59:00", "9999-12-31T23:59:00-12:00"])
def test_a_night_dated_out_of_range_is_refused_naming_the_field(alice_api, zone,
                                                                 starts_at) -> None:
    league_id = create(alice_api, timezone=zone).json()["id"]
    refused(alice_api.post(f"{URL}{league_id}/nights/", {"starts_at": starts_at},
                           format="json"), "starts_at", RANGE)
    assert not Night.objects.exists()


def test_a_tournament_dated_out_of_range_is_refused_naming_the_field(alice_api) -> None:
    response = alice_api.post("/api/tournaments/", {
        "name": "cup", "game": "dice_cup", "participants": refs(2),
        "starts_at": "0001-01-01T00:00:00"}, format="json")
    refused(response, "starts_at", RANGE)
    assert not Tournament.objects.exists()


def test_a_member_list_that_names_a_person_twice_is_refused(alice_api, bob) -> None:
    league_id = create(alice_api).json()["id"]
    bob_twice = [{"kind": "player", "user": "bob"}, {"kind": "player", "user": "bob",
                                                     "name": "bobby"}]
    response = alice_api.post(f"{URL}{league_id}/members/", bob_twice, format="json")
    assert response.status_code == 400 and response.json() == {
        "code": "bad_league", "detail": "member 6 (bobby) is entered twice"}
    assert Member.objects.filter(league_id=league_id).count() == 5, "all or none"
    twice_a_reference_bot = alice_api.post(f"{URL}{league_id}/members/", refs(2)[:1] * 2,
                                           format="json")
    assert twice_a_reference_bot.status_code == 201, "a program anyone may seat, many times"


@pytest.mark.parametrize("url", [URL, "/api/tournaments/", "/api/matches/"])
@pytest.mark.parametrize("query, message", [
    ("limit=-1", "Ensure this value is greater than or equal to 1."),
    ("limit=0", "Ensure this value is greater than or equal to 1."),
    ("limit=201", "Ensure this value is less than or equal to 200."),
    ("limit=abc", "A valid integer is required."),
    ("offset=-1", "Ensure this value is greater than or equal to 0."),
])
def test_a_page_out_of_bounds_is_refused_naming_the_parameter(anon_api, url, query,
                                                              message) -> None:
    refused(anon_api.get(f"{url}?{query}"), query.split("=")[0], message)


def test_the_page_bounds_are_in_the_schema(anon_api) -> None:
    operation = anon_api.get("/api/schema/?format=json").json()["paths"][URL]["get"]
    schemas = {p["name"]: p["schema"] for p in operation["parameters"]}
    assert schemas["limit"] == {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}
    assert schemas["offset"] == {"type": "integer", "minimum": 0, "default": 0}
    assert "400" in operation["responses"]


@pytest.mark.parametrize("night_time", ["9:00", "09:0", "24:00", "09:00:00", " 09:00"])
def test_a_night_time_is_hh_mm_as_the_schema_says(alice_api, anon_api, night_time) -> None:
    pattern = (anon_api.get("/api/schema/?format=json").json()["components"]["schemas"]
               ["LeagueListCreateInputRequest"]["properties"]["night_time"]["pattern"])
    assert pattern == r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
    refused(create(alice_api, weekday=3, night_time=night_time), "night_time",
            "Time has wrong format. Use one of these formats instead: hh:mm.")
    assert create(alice_api, weekday=3, night_time="09:00").json()["night_time"] == "09:00"
