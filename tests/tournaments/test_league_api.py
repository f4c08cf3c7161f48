"""The leagues API from alice (organiser), bob (another user) and anonymous: create with its
refusals, the public reads (detail with next and live night, season table, nights), a night
scheduled through the API and played in-process by reference bots, members joining and leaving,
and a schema and docs that name every key and code the API returns."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from tests.helpers.leagues import URL, create, iso, refs, schedule_now, spec
from tests.helpers.tasks import hold_tasks
from tests.openapi import schema_answer as answer_of
from tests.openapi import schema_properties as properties_of
from tournaments.leagues import nights
from tournaments.leagues import services as leagues
from tournaments.models import Hand, League, Night

pytestmark = pytest.mark.django_db(transaction=True)  # nights start in on_commit callbacks

OPERATIONS = {
    ("/api/leagues/", "get"): "leagues_list",
    ("/api/leagues/", "post"): "leagues_create",
    ("/api/leagues/{league_id}/", "get"): "leagues_detail",
    ("/api/leagues/{league_id}/table/", "get"): "leagues_table",
    ("/api/leagues/{league_id}/nights/", "get"): "leagues_nights",
    ("/api/leagues/{league_id}/nights/", "post"): "leagues_nights_schedule",
    ("/api/leagues/{league_id}/nights/{number}/cancel/", "post"): "leagues_nights_cancel",
    ("/api/leagues/{league_id}/members/", "post"): "leagues_members_join",
    ("/api/leagues/{league_id}/members/{index}/leave/", "post"): "leagues_members_leave",
}


@pytest.fixture
def league(alice_api: APIClient) -> dict[str, Any]:
    response = create(alice_api)
    assert response.status_code == 201, response.json()
    return response.json()


def test_create_answers_the_detail(league) -> None:
    assert league["name"] == "Thursday club" and league["game"] == "great_dalmuti"
    assert league["organiser"] == "alice" and league["member_count"] == 5
    assert (league["table_size"], league["hands_per_night"], league["moves_between_tables"]) \
        == (5, 3, 1)
    assert league["weekday"] is None and league["night_time"] is None
    assert league["timezone"] == "UTC" and league["options"] == {}
    assert [(m["index"], m["name"], m["label"], m["kind"], m["bot"], m["user"], m["left_at"])
            for m in league["members"][:2]] == [
        (0, "heuristic (reference bot)", "ref0", "reference", "heuristic", None, None),
        (1, "random (reference bot)", "ref1", "reference", "random", None, None)], \
        "a member by its bot's own name, the league's label beside it"
    assert league["order"] == [] and league["next_night"] is None
    assert league["live_night"] is None
    assert "seed" not in league, "the seed deals every hand: never shown"
    assert League.objects.get(pk=league["id"]).seed == 11


def test_a_recurring_league_shows_its_next_weekly_night(alice_api) -> None:
    now = timezone.now()
    body = create(alice_api, weekday=(now.weekday() + 2) % 7, night_time="20:00",
                  timezone="Europe/Paris").json()
    assert body["weekday"] == (now.weekday() + 2) % 7 and body["night_time"] == "20:00"
    assert body["timezone"] == "Europe/Paris"
    upcoming = datetime.fromisoformat(body["next_night"])
    assert now < upcoming <= now + timedelta(days=7)
    local = upcoming.astimezone(leagues._zone("Europe/Paris"))
    assert (local.weekday(), local.hour, local.minute) == (body["weekday"], 20, 0)

    # A night scheduled sooner comes first.
    soon = now + timedelta(hours=1)
    assert alice_api.post(f"{URL}{body['id']}/nights/", {"starts_at": iso(soon)},
                          format="json").status_code == 201
    detail = alice_api.get(f"{URL}{body['id']}/").json()
    assert datetime.fromisoformat(detail["next_night"]) == soon

    # Past the season's end there is no next night.
    ended = create(alice_api, weekday=0, night_time="20:00",
                   season_end=iso(now + timedelta(minutes=1))).json()
    assert ended["next_night"] is None


@pytest.mark.parametrize("overrides, code, words", [
    ({"game": "chess"}, "bad_league", "chess"),
    ({"table_size": 3}, "bad_league", "4 to 8"),
    ({"season_end": "2000-01-01T00:00:00Z"}, "bad_league", "end after it starts"),
    ({"weekday": 3}, "bad_league", "both weekday and night_time"),
    ({"timezone": "Mars/Olympus"}, "bad_league", "Mars/Olympus"),
    ({"timezone": "America"}, "bad_league", "America"),
    ({"members": [{"kind": "reference", "bot": "smart"}]}, "bad_league", "smart"),
    ({"members": [{"kind": "player", "user": "ghost"}]}, "bad_league", "ghost"),
    ({"options": {"hands": 3}}, "bad_league", "hands_per_night"),
    ({"options": {"no_such_option": 1}}, "bad_league", "no_such_option"),
    ({"members": [{"kind": "alien"}]}, "invalid", "alien"),
    ({"weekday": 7, "night_time": "20:00"}, "invalid", "weekday"),
    ({"weekday": 1, "night_time": "8pm"}, "invalid", "night_time"),
    ({"hands_per_night": 0}, "invalid", "hands_per_night"),
    ({"table_size": 9}, "invalid", "table_size"),
    ({"seed": -1}, "invalid", "seed"),
    ({"season_start": "yesterday"}, "invalid", "season_start"),
    ({"timezone": "x" * 65}, "invalid", "timezone"),
])
def test_create_refuses_bad_input_with_the_reason(alice_api, overrides, code, words) -> None:
    response = create(alice_api, **overrides)
    body = response.json()
    assert response.status_code == 400 and body["code"] == code, body
    assert words in str(body)
    assert not League.objects.exists()


def test_writes_need_a_token(league, anon_api) -> None:
    base = f"{URL}{league['id']}/"
    for path, body in [(URL, spec()), (base + "nights/", {"starts_at": iso(timezone.now())}),
                       (base + "members/", refs(1)[0]), (base + "members/0/leave/", None)]:
        response = anon_api.post(path, body, format="json")
        assert response.status_code == 401, path
        assert response.json()["code"] == "not_authenticated"
    assert League.objects.count() == 1 and not Night.objects.exists()


def test_only_the_organiser_or_staff_changes_a_league(league, bob_api, bob) -> None:
    base = f"{URL}{league['id']}/"
    for path, body in [(base + "nights/", {"starts_at": iso(timezone.now())}),
                       (base + "members/", refs(1)[0]), (base + "members/0/leave/", None)]:
        refused = bob_api.post(path, body, format="json")
        assert refused.status_code == 403 and refused.json()["code"] == "not_your_league", path
    assert not Night.objects.exists()
    bob.is_staff = True
    bob.save()
    assert schedule_now(bob_api, league["id"]).status_code == 201


def test_an_unknown_league_or_member_is_a_404(league, alice_api, anon_api) -> None:
    for path in ["999999/", "999999/table/", "999999/nights/"]:
        missing = anon_api.get(URL + path)
        assert missing.status_code == 404 and missing.json()["code"] == "league_not_found", path
    for path, body in [("999999/nights/", {"starts_at": iso(timezone.now())}),
                       ("999999/members/", refs(1)[0]), ("999999/members/0/leave/", None),
                       (f"{league['id']}/members/99/leave/", None)]:
        missing = alice_api.post(URL + path, body, format="json")
        assert missing.status_code == 404 and missing.json()["code"] == "league_not_found", path
    huge = anon_api.get(f"{URL}{10**30}/")  # no id of ours: no URL of ours
    assert huge.status_code == 404 and huge.json()["code"] == "not_found"


def test_scheduling_refuses_a_night_outside_the_season_or_twice(league, alice_api) -> None:
    nights = f"{URL}{league['id']}/nights/"
    outside = alice_api.post(nights, {"starts_at": "2000-01-01T00:00:00Z"}, format="json")
    assert outside.status_code == 400 and outside.json()["code"] == "bad_league"
    assert "within the season" in outside.json()["detail"]
    later = iso(timezone.now() + timedelta(days=2))
    first = alice_api.post(nights, {"starts_at": later}, format="json")
    assert first.status_code == 201
    assert first.json() == {**first.json(), "number": 1, "status": "scheduled", "tables": [],
                            "hands": 0, "reason": None, "started_at": None}
    again = alice_api.post(nights, {"starts_at": later}, format="json")
    assert again.status_code == 400 and "already has a night" in again.json()["detail"]
    bad = alice_api.post(nights, {}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_a_night_played_in_process_fills_the_table_and_the_nights(
        alice_api, anon_api, inline_tasks) -> None:
    body = create(alice_api, members=refs(8), table_size=4).json()
    league_id = body["id"]
    night = schedule_now(alice_api, league_id)
    assert night.status_code == 201 and night.json()["status"] == "scheduled"
    assert nights.nights_start_due() == 1

    listed = anon_api.get(f"{URL}{league_id}/nights/").json()
    assert listed["count"] == 1
    played = listed["results"][0]
    assert played["status"] == "finished", played["reason"]
    assert played["number"] == 1 and played["hands"] == 2 * 3 and played["reason"] is None
    assert len(played["tables"]) == 2
    assert sorted(m for table in played["tables"] for m in table) == list(range(8))
    assert played["started_at"] and played["finished_at"]

    table = anon_api.get(f"{URL}{league_id}/table/").json()
    totals: dict[int, int] = {}
    for hand in Hand.objects.filter(night__league_id=league_id):
        for member, points in zip(hand.seats, hand.points):
            totals[member] = totals.get(member, 0) + points
    assert {row["member"]: row["points"] for row in table} == totals
    assert [row["points"] for row in table] == sorted(totals.values(), reverse=True)
    assert table[0]["place"] == 1 and all(row["hands"] == 3 for row in table)
    assert {row["label"] for row in table} == {f"ref{i}" for i in range(8)}
    assert {row["name"] for row in table} == {"heuristic (reference bot)",
                                              "random (reference bot)"}
    assert all(1 <= row["average_finish"] <= 4 for row in table)
    assert sorted(row["position"] for row in table) == list(range(8))
    assert all(set(row["rating"]) == {"mu", "sigma", "ordinal", "matches"} for row in table)
    assert {row["rating"]["matches"] for row in table} == {0}, (
        "the game's one rating: a table where one reference bot sits twice is not rated")

    detail = anon_api.get(f"{URL}{league_id}/").json()
    assert detail["live_night"] is None and sorted(detail["order"]) == list(range(8))
    assert detail["next_night"] is None

    # A second night: newest first.
    schedule_now(alice_api, league_id)
    assert nights.nights_start_due() == 1
    page = anon_api.get(f"{URL}{league_id}/nights/?limit=1").json()
    assert page["count"] == 2 and [n["number"] for n in page["results"]] == [2]
    assert all(row["movement"] is not None
               for row in anon_api.get(f"{URL}{league_id}/table/").json())


def test_a_night_that_cannot_start_says_why(alice_api, anon_api, inline_tasks) -> None:
    league_id = create(alice_api, members=refs(4)).json()["id"]
    assert anon_api.get(f"{URL}{league_id}/").json()["cannot_start"] is None
    assert schedule_now(alice_api, league_id).status_code == 201
    # A member gone without the service's check (a league stored before it refused that).
    League.objects.get(pk=league_id).members.filter(index=3).update(left_at=timezone.now())
    nights.nights_start_due()
    night = anon_api.get(f"{URL}{league_id}/nights/").json()["results"][0]
    assert night["status"] == "failed" and "3 members" in night["reason"]
    why = anon_api.get(f"{URL}{league_id}/").json()["cannot_start"]
    assert why.startswith("3 members cannot fill tables of at least 4"), why
    page = Client().get(f"/leagues/{league_id}/").content.decode()
    assert "No night can start:" in page and why in page


def test_the_live_night_shows_each_tables_hands_and_points(alice_api, anon_api,
                                                           monkeypatch) -> None:
    hold_tasks(monkeypatch, "tournaments.")  # no worker
    body = create(alice_api, game="dutch", members=refs(5), table_size=3).json()
    league_id = body["id"]
    schedule_now(alice_api, league_id)
    assert nights.nights_start_due() == 1
    live = anon_api.get(f"{URL}{league_id}/").json()["live_night"]
    night = Night.objects.get(league_id=league_id)
    assert night.status == "running"
    assert list(night.hands.values_list("table", "number", "status")) == [
        (0, 1, "pending"), (1, 1, "pending")], "each table's first hand, planned, not played"
    assert live["number"] == 1 and live["hands_per_night"] == 3 and live["started_at"]
    assert [t["members"] for t in live["tables"]] == night.tables == [[0, 1, 2], [3, 4]]
    assert [t["hands_done"] for t in live["tables"]] == [0, 0]
    assert [[(s["member"], s["points"]) for s in t["standings"]] for t in live["tables"]] == [
        [(0, 0), (1, 0), (2, 0)], [(3, 0), (4, 0)]]

    # A hand done at the top table: Le Dutch scores card totals, so lower is better; a hand
    # still running does not count.
    night.hands.filter(table=0).update(seats=[1, 2, 0], status="finished", points=[9, 2, 5],
                                       finish=[3, 1, 2])
    night.hands.filter(table=1).update(status="running")
    live = anon_api.get(f"{URL}{league_id}/").json()["live_night"]
    top, bottom = live["tables"]
    assert top["hands_done"] == 1 and bottom["hands_done"] == 0
    assert [(s["member"], s["label"], s["points"]) for s in top["standings"]] == [
        (2, "ref2", 2), (0, "ref0", 5), (1, "ref1", 9)]
    assert top["standings"][1]["name"] == "heuristic (reference bot)"
    assert anon_api.get(f"{URL}{league_id}/nights/").json()["results"][0]["hands"] == 1


def test_members_join_and_leave(league, alice_api, anon_api, bob) -> None:
    base = f"{URL}{league['id']}/members/"
    joined = alice_api.post(base, {"kind": "player", "user": "bob"}, format="json")
    assert joined.status_code == 201
    assert joined.json() == {"index": 5, "name": "bob", "label": "bob", "kind": "player",
                             "bot": None, "user": "bob", "left_at": None}
    refused = alice_api.post(base, {"kind": "reference", "bot": "smart"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "bad_league"
    invalid = alice_api.post(base, {"kind": "alien"}, format="json")
    assert invalid.status_code == 400 and invalid.json()["code"] == "invalid"

    left = alice_api.post(f"{base}1/leave/")
    assert left.status_code == 200 and left.json()["index"] == 1 and left.json()["left_at"]
    assert alice_api.post(f"{base}1/leave/").json()["left_at"] == left.json()["left_at"]
    detail = anon_api.get(f"{URL}{league['id']}/").json()
    assert detail["member_count"] == 5 and len(detail["members"]) == 6
    assert detail["members"][1]["left_at"] == left.json()["left_at"]


def test_anyone_lists_and_filters_leagues(league, bob_api, anon_api) -> None:
    create(bob_api, name="bob's", game="dice_cup", table_size=2, members=refs(2))
    page = anon_api.get(URL).json()
    assert page["count"] == 2 and [row["name"] for row in page["results"]] == ["bob's",
                                                                            "Thursday club"]
    assert page["results"][1]["member_count"] == 5 and "members" not in page["results"][1]
    assert [row["name"] for row in anon_api.get(URL + "?game=dice_cup").json()["results"]] == [
        "bob's"]
    assert anon_api.get(URL + "?game=dot").json()["count"] == 0
    assert anon_api.get(URL + "?limit=1&offset=1").json()["results"][0]["name"] == (
        "Thursday club")


def test_the_schema_documents_every_operation_key_and_code(alice_api, anon_api,
                                                            monkeypatch) -> None:
    hold_tasks(monkeypatch, "tournaments.")
    body = create(alice_api, game="dutch", members=refs(4), table_size=2).json()
    league_id = body["id"]
    schedule_now(alice_api, league_id)
    nights.nights_start_due()
    night = Night.objects.get(league_id=league_id)
    night.hands.filter(table=0, number=1).update(status="finished", points=[3, 1],
                                                 finish=[2, 1])
    detail = anon_api.get(f"{URL}{league_id}/").json()
    assert detail["live_night"] is not None

    schema = Client().get("/api/schema/?format=json").json()
    for (path, method), operation_id in OPERATIONS.items():
        operation = schema["paths"][path][method]
        assert operation["operationId"] == operation_id and operation["tags"] == ["leagues"]
        assert operation["summary"]

    documented = properties_of(schema, answer_of(schema, "/api/leagues/{league_id}/", "get"))
    assert set(documented) == set(detail)
    assert set(properties_of(schema, answer_of(schema, "/api/leagues/", "post", "201"))) == set(
        detail)
    assert set(properties_of(schema, documented["members"]["items"])) == set(detail["members"][0])
    live = properties_of(schema, documented["live_night"])
    assert set(live) == set(detail["live_night"])
    table = properties_of(schema, live["tables"]["items"])
    assert set(table) == set(detail["live_night"]["tables"][0])
    assert set(properties_of(schema, table["standings"]["items"])) == set(
        detail["live_night"]["tables"][0]["standings"][0])

    listed = properties_of(schema, answer_of(schema, "/api/leagues/", "get"))
    page = anon_api.get(URL).json()
    assert set(listed) == set(page) == {"count", "next", "previous", "results"}
    assert set(properties_of(schema, listed["results"]["items"])) == set(page["results"][0])

    night_page = anon_api.get(f"{URL}{league_id}/nights/").json()
    documented = properties_of(schema, answer_of(schema, "/api/leagues/{league_id}/nights/", "get"))
    assert set(documented) == set(night_page)
    assert set(properties_of(schema, documented["results"]["items"])) == set(
        night_page["results"][0])

    row = anon_api.get(f"{URL}{league_id}/table/").json()[0]
    assert set(properties_of(schema, answer_of(schema, "/api/leagues/{league_id}/table/", "get")[
        "items"])) == set(row)

    schedule = schema["paths"]["/api/leagues/{league_id}/nights/"]["post"]["responses"]
    assert {"201", "400", "401", "403", "404", "429"} <= set(schedule)
    codes = set(schema["components"]["schemas"]["CodeEnum"]["enum"])
    assert {"league_not_found", "not_your_league", "bad_league"} <= codes


def test_docs_name_every_key_and_error_code_the_api_returns(alice_api, anon_api,
                                                            monkeypatch) -> None:
    """docs/api.md is what outside testers write clients from."""
    hold_tasks(monkeypatch, "tournaments.")
    league_id = create(alice_api, game="dutch", members=refs(4), table_size=2).json()["id"]
    schedule_now(alice_api, league_id)
    nights.nights_start_due()
    detail = anon_api.get(f"{URL}{league_id}/").json()
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    section = text[text.index("### Leagues"):text.index("## Playing by polling")]
    named = set(re.findall(r"\w+", " ".join(re.findall(r"`([^`]*)`", section))))
    live = detail["live_night"]
    answers = [detail, detail["members"][0], live, live["tables"][0],
               live["tables"][0]["standings"][0],
               anon_api.get(f"{URL}{league_id}/table/").json()[0],
               anon_api.get(f"{URL}{league_id}/nights/").json()["results"][0],
               anon_api.get(URL).json()["results"][0]]
    missing = {key for answer in answers for key in answer} - named
    assert not missing, f"docs/api.md's Leagues section does not name {missing}"
    errors = text[text.index("## Errors"):]
    for code in ("bad_league", "not_your_league", "league_not_found"):
        assert f"`{code}`" in errors, code
    for name in [n for n in dir(settings) if n.startswith("LEAGUE_")]:
        assert f"| `{name}` |" in text, f"{name} is missing from the settings table"


def test_the_league_admin_pages_load_without_the_seed(client, django_user_model, alice_api,
                                                      inline_tasks) -> None:
    """(Here rather than in test_admin.py: the admin of what this API creates.)"""
    league_id = create(alice_api, seed=987654321).json()["id"]
    schedule_now(alice_api, league_id)
    nights.nights_start_due()
    night = Night.objects.get(league_id=league_id)
    hand = Hand.objects.filter(night=night).first()
    client.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    for path in ["league/", "league/?game=great_dalmuti", "league/?q=Thursday",
                 f"league/{league_id}/change/", "night/", f"night/{night.pk}/change/", "hand/",
                 f"hand/{hand.pk}/change/"]:
        page = client.get(f"/admin/tournaments/{path}")
        assert page.status_code == 200, path
        assert b"987654321" not in page.content, path
    html = client.get(f"/admin/tournaments/league/{league_id}/change/").content.decode()
    assert 'name="name"' in html and 'name="seed"' not in html and 'name="game"' not in html
    assert 'name="members-0-name"' in html and 'name="members-0-bot"' not in html
    assert "Thursday club" in client.get("/admin/tournaments/night/").content.decode()
    assert client.get("/admin/tournaments/league/add/").status_code == 403


def test_staff_schedule_a_night_in_the_admin_through_the_service(client, django_user_model,
                                                                 alice_api) -> None:
    league_id = create(alice_api).json()["id"]
    league = League.objects.get(pk=league_id)
    client.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    assert client.get("/admin/tournaments/night/add/").status_code == 200
    at = league.season_start + timedelta(days=1)
    fields = {"league": league_id, "starts_at_0": at.strftime("%Y-%m-%d"),
              "starts_at_1": at.strftime("%H:%M:%S")}
    answer = client.post("/admin/tournaments/night/add/", fields)
    assert answer.status_code == 302, answer.content.decode()[-2000:]
    night = Night.objects.get(league=league)
    assert night.number == 1 and night.status == "scheduled"
    again = client.post("/admin/tournaments/night/add/", fields)
    assert again.status_code == 200 and b"already has a night at that time" in again.content
    late = client.post("/admin/tournaments/night/add/", {
        **fields, "starts_at_0": (league.season_end + timedelta(days=2)).strftime("%Y-%m-%d")})
    assert b"within the season" in late.content and Night.objects.count() == 1
    night_page = client.get(f"/admin/tournaments/night/{night.pk}/change/").content.decode()
    assert 'name="starts_at_0"' not in night_page, "a night once made is read-only"
