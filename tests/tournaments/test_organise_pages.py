"""Organising in the browser: /tournaments/new/ and /leagues/new/ through the services the API
calls (each refusal at its field, with the API's code), a tournament's cancellation, a
league's one-off night and a night's cancellation; only the organiser or staff changes a
series; CSRF on every form."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tests.forms import accessibility_problems, field_errors
from tests.helpers.tasks import hold_tasks
from tournaments.leagues import services as leagues
from tournaments.models import League, Night, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

WHEN = "%Y-%m-%dT%H:%M"


def browser_of(user: Any) -> Client:
    web = Client()
    web.force_login(user)
    return web


def cup(**fields: Any) -> dict[str, Any]:
    return {"name": "Friday cup", "reference_heuristic": "2", "reference_random": "2",
            "format": "round_robin", "meetings": "1", "table_size": "2"} | fields


def league_form(**fields: Any) -> dict[str, Any]:
    now = timezone.now()
    return {"name": "Thursday club", "reference_heuristic": "3", "reference_random": "2",
            "table_size": "5", "hands_per_night": "2", "weekday": "3", "night_time": "20:00",
            "timezone_name": "Europe/Paris",
            "season_start": (now - timedelta(days=1)).strftime(WHEN),
            "season_end": (now + timedelta(days=30)).strftime(WHEN)} | fields


@pytest.mark.parametrize("path", ["/tournaments/new/", "/leagues/new/"])
def test_organising_needs_signing_in_and_each_form_labels_every_field(client, alice,
                                                                     path) -> None:
    answer = client.get(path + "?game=dice_cup")
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")
    web = browser_of(alice)
    assert 'href="?game=dice_cup"' in web.get(path).content.decode()
    for game in ("dice_cup", "great_dalmuti", "dot"):
        html = web.get(f"{path}?game={game}").content.decode()
        assert accessibility_problems(html) == [] and field_errors(html) == {}


def test_a_tournament_of_reference_bots_and_a_person_is_created(alice, bob,
                                                                inline_tasks) -> None:
    web = browser_of(alice)
    answer = web.post("/tournaments/new/?game=dice_cup",
                      cup(people="bob", option_target_points="5"))
    tournament = Tournament.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/tournaments/{tournament.pk}/"
    entries = list(tournament.participants.order_by("index"))
    kinds = [(p.kind, p.bot, p.user_id) for p in entries]
    assert sorted(p.name for p in entries[:4]) == ["heuristic 1", "heuristic 2", "random 1",
                                                   "random 2"]
    assert sorted(kinds[:4]) == [("reference", "heuristic", None)] * 2 + [
        ("reference", "random", None)] * 2 and kinds[4] == ("player", "", bob.pk)
    assert tournament.options["target_points"] == 5 and tournament.organiser == alice
    assert 'href="/tournaments/new/"' in web.get("/tournaments/").content.decode()


@pytest.mark.parametrize("fields, at, words", [
    ({"people": "ghost"}, "id_people", "(bad_tournament)"),
    ({"people": "alice alice"}, "id_people", "twice"),
    ({"reference_heuristic": "1", "reference_random": "0"}, "", "(bad_tournament)"),
    ({"meetings": "0"}, "id_meetings", "greater than or equal to 1"),
    ({"option_target_points": "50"}, "id_option_target_points", "less than or equal to 42"),
    ({"starts_at": (timezone.now() + timedelta(days=400)).strftime(WHEN)}, "id_starts_at",
     "(bad_tournament)"),
    ({"format": "swiss", "table_size": "3"}, "", "(bad_tournament)"),
    ({"name": ""}, "id_name", "required"),
])
def test_each_tournament_refusal_is_shown_at_its_field(alice, inline_tasks, fields, at,
                                                       words) -> None:
    html = browser_of(alice).post("/tournaments/new/?game=dice_cup", cup(**fields)
                                  ).content.decode()
    errors = field_errors(html)
    assert list(errors) == [at] and words in " ".join(errors[at]), errors
    assert accessibility_problems(html) == [] and not Tournament.objects.exists()


def test_the_tournament_form_reports_every_mistake_at_once(alice) -> None:
    """The fields' own errors and every refusal of the service, in one answer."""
    html = browser_of(alice).post("/tournaments/new/?game=dice_cup", cup(
        name="", meetings="0", people="ghost", rounds="3", option_target_points="50",
        starts_at=(timezone.now() + timedelta(days=400)).strftime(WHEN))).content.decode()
    errors = field_errors(html)
    assert set(errors) == {"id_name", "id_meetings", "id_people", "id_rounds",
                           "id_option_target_points", "id_starts_at"}, errors
    assert "no user 'ghost'" in " ".join(errors["id_people"])
    assert "rounds is for a Swiss tournament" in " ".join(errors["id_rounds"])
    assert "more than 365 days ahead" in " ".join(errors["id_starts_at"])
    assert accessibility_problems(html) == [] and not Tournament.objects.exists()


def test_a_refusal_above_the_form_comes_with_those_at_fields(alice) -> None:
    html = browser_of(alice).post("/tournaments/new/?game=dice_cup", cup(
        reference_heuristic="1", reference_random="0", rounds="2")).content.decode()
    errors = field_errors(html)
    assert set(errors) == {"", "id_rounds"}, errors
    assert "1 participant: " in " ".join(errors[""])


def test_the_league_form_reports_every_mistake_at_once(alice) -> None:
    html = browser_of(alice).post("/leagues/new/?game=great_dalmuti", league_form(
        name="", people="ghost", hands_per_night="0", night_time="",
        season_end=(timezone.now() - timedelta(days=2)).strftime(WHEN))).content.decode()
    errors = field_errors(html)
    assert set(errors) == {"id_name", "id_people", "id_hands_per_night", "id_night_time",
                           "id_season_end"}, errors
    assert "the season must end after it starts" in " ".join(errors["id_season_end"])
    assert not League.objects.exists()


def test_only_the_organiser_or_staff_cancels_a_tournament(alice, bob, monkeypatch) -> None:

    hold_tasks(monkeypatch, "tournaments.")
    browser_of(alice).post("/tournaments/new/?game=dice_cup", cup(
        starts_at=(timezone.now() + timedelta(days=2)).strftime(WHEN)))
    tournament = Tournament.objects.get()
    path = f"/tournaments/{tournament.pk}/cancel/"
    assert "Cancel the tournament" not in browser_of(bob).get(
        f"/tournaments/{tournament.pk}/").content.decode()
    assert browser_of(bob).post(path).status_code == 403
    assert Client().post(path).status_code == 302
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(alice)
    assert csrf.post(path).status_code == 403
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
    web = browser_of(alice)
    assert "Cancel the tournament" in web.get(f"/tournaments/{tournament.pk}/").content.decode()
    answer = web.post(path)
    assert answer["Location"] == f"/tournaments/{tournament.pk}/"
    tournament.refresh_from_db()
    assert tournament.status == "cancelled"
    html = web.get(answer["Location"]).content.decode()
    assert "Cancelled: no match of it starts any more." in html
    assert "tournament_not_running" in web.post(path, follow=True).content.decode()
    assert browser_of(alice).post("/tournaments/999999/cancel/").status_code == 404


def test_a_league_with_a_weekly_night_is_created(alice) -> None:
    web = browser_of(alice)
    answer = web.post("/leagues/new/?game=great_dalmuti", league_form())
    league = League.objects.get()
    assert answer["Location"] == f"/leagues/{league.pk}/"
    assert (league.weekday, league.night_time.strftime("%H:%M"), league.timezone) == (
        3, "20:00", "Europe/Paris")
    assert league.members.count() == 5 and league.hands_per_night == 2
    html = web.get(answer["Location"]).content.decode()
    assert "Thursdays at 20:00 (Europe/Paris)" in html and "Add a one-off night" in html
    assert accessibility_problems(html) == []


def test_the_league_form_leaves_out_the_options_a_league_sets_itself(alice) -> None:
    html = browser_of(alice).get("/leagues/new/?game=great_dalmuti").content.decode()
    assert 'name="option_hands"' not in html and 'name="option_stripped_deck"' in html


@pytest.mark.parametrize("fields, at, words", [
    ({"season_end": (timezone.now() - timedelta(days=2)).strftime(WHEN)}, "id_season_end",
     "(bad_league)"),
    ({"night_time": ""}, "id_night_time", "(bad_league)"),
    ({"people": "ghost"}, "id_people", "(bad_league)"),
    ({"reference_heuristic": "1"}, "", "(bad_league)"),
    ({"hands_per_night": "0"}, "id_hands_per_night", "greater than or equal to 1"),
    ({"timezone_name": "Mars/Olympus"}, "id_timezone_name", "valid choice"),
])
def test_each_league_refusal_is_shown_at_its_field(alice, fields, at, words) -> None:
    html = browser_of(alice).post("/leagues/new/?game=great_dalmuti", league_form(**fields)
                                  ).content.decode()
    errors = field_errors(html)
    assert list(errors) == [at] and words in " ".join(errors[at]), errors
    assert not League.objects.exists()


def test_the_organiser_adds_a_one_off_night_and_cancels_it(alice, bob) -> None:
    browser_of(alice).post("/leagues/new/?game=great_dalmuti",
                           league_form(weekday="", night_time=""))
    league = League.objects.get()
    path = f"/leagues/{league.pk}/nights/"
    tomorrow = (timezone.now() + timedelta(days=1)).strftime(WHEN)
    assert "Add a one-off night" not in browser_of(bob).get(f"/leagues/{league.pk}/"
                                                             ).content.decode()
    assert browser_of(bob).post(path, {"starts_at": tomorrow}).status_code == 403
    web = browser_of(alice)
    past = (timezone.now() - timedelta(days=3)).strftime(WHEN)
    answer = web.post(path, {"starts_at": past})
    errors = field_errors(answer.content.decode())
    assert list(errors) == ["id_starts_at"] and "(bad_league)" in errors["id_starts_at"][0]
    assert not Night.objects.exists()
    answer = web.post(path, {"starts_at": tomorrow})
    assert answer["Location"] == f"/leagues/{league.pk}/"
    night = Night.objects.get()
    assert "Night 1 scheduled." in web.get(answer["Location"]).content.decode()
    cancel = f"/leagues/{league.pk}/nights/{night.number}/cancel/"
    assert browser_of(bob).post(cancel).status_code == 403
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(alice)
    assert csrf.post(cancel).status_code == 403 and csrf.post(path, {
        "starts_at": tomorrow}).status_code == 403
    web.post(cancel)
    night.refresh_from_db()
    assert night.status == "cancelled"
    assert "night_not_open" in web.post(cancel, follow=True).content.decode()
    assert web.post(f"/leagues/{league.pk}/nights/9/cancel/").status_code == 404


def test_staff_may_change_another_organisers_league(alice, django_user_model) -> None:
    now = timezone.now()
    league = leagues.league_create(
        organiser=alice, name="club", game="great_dalmuti", table_size=5, hands_per_night=1,
        members=[{"kind": "reference", "bot": "random"}] * 5, season_start=now,
        season_end=now + timedelta(days=9))
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    answer = browser_of(staff).post(f"/leagues/{league.pk}/nights/", {
        "starts_at": (timezone.now() + timedelta(days=1)).strftime(WHEN)})
    assert answer.status_code == 302 and Night.objects.filter(league=league).count() == 1


def test_a_tournament_start_is_read_in_the_chosen_time_zone(alice, monkeypatch) -> None:
    """As a league's dates are: 20:00 in Europe/Paris is 19:00 or 18:00 UTC; the form says
    which zone it reads."""
    from zoneinfo import ZoneInfo

    hold_tasks(monkeypatch, "tournaments.")
    web = browser_of(alice)
    assert "In the time zone below" in web.get("/tournaments/new/?game=dice_cup").content.decode()
    wall = (timezone.now() + timedelta(days=3)).astimezone(ZoneInfo("Europe/Paris")).replace(
        hour=20, minute=0, second=0, microsecond=0)
    answer = web.post("/tournaments/new/?game=dice_cup", cup(
        starts_at=wall.strftime(WHEN), timezone_name="Europe/Paris"))
    assert answer.status_code == 302
    assert Tournament.objects.get().starts_at == wall, "20:00 in Paris, stored in UTC"


@pytest.mark.parametrize(("game", "entrants", "table", "words"), [
    ("dice_cup", 3, 2, None),  # the game's usual 4 would need 4: tables of 2
    ("dice_cup", 5, 4, None),
    ("great_dalmuti", 3, None, "add participants"),  # 4 at least: no smaller table to offer
])
def test_the_default_table_fits_the_entrants_or_the_refusal_names_the_fix(
        alice, inline_tasks, game, entrants, table, words) -> None:
    from tournaments import services
    from tournaments.errors import BadTournament

    people = [{"kind": "reference", "bot": "random", "name": f"r{n}"} for n in range(entrants)]
    if words is None:
        made = services.tournament_create(organiser=alice, name="small", game=game,
                                          participants=people)
        assert made.table_size == table
        return
    with pytest.raises(BadTournament, match=words):
        services.tournament_create(organiser=alice, name="small", game=game, participants=people)
