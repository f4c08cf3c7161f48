"""The tournaments API from alice (organiser), bob (another user) and anonymous: create with its
refusals and limits, the public reads of a tournament played to the end by reference bots,
seeds hidden until it is over, cancelling, the rating leaderboard, and a schema that documents
every key the API returns."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from tests.helpers.series import play_one
from tests.helpers.tasks import hold_tasks
from tests.openapi import schema_answer as answer_of
from tests.openapi import schema_properties as properties_of
from tournaments.models import Tournament, TournamentMatch

from .conftest import REFERENCE

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/tournaments/"


def spec(**overrides: Any) -> dict[str, Any]:
    """A round robin of the two reference bots at dice cup, meeting three times."""
    return {"name": "cup", "game": "dice_cup", "participants": REFERENCE, "table_size": 2,
            "meetings": 3, "seed": 11, **overrides}


def create(client: APIClient, **overrides: Any) -> Any:
    return client.post(URL, spec(**overrides), format="json")


def later() -> str:
    return (timezone.now() + timedelta(hours=1)).isoformat()


@pytest.fixture
def finished(alice_api: APIClient, inline_tasks: Any) -> dict[str, Any]:
    """A tournament the reference bots played to the end, as its creation answered it."""
    response = create(alice_api)
    assert response.status_code == 201, response.json()
    return response.json()


def test_create_answers_the_detail_with_balance_and_progress(finished) -> None:
    assert finished["status"] == "finished" and finished["organiser"] == "alice"
    assert finished["game"] == "dice_cup" and finished["meetings"] == 3
    assert finished["participant_count"] == 2 and finished["seed"] == "11"
    assert [(p["index"], p["kind"], p["bot"], p["user"], p["withdrawn"])
            for p in finished["participants"]] == [(0, "reference", "heuristic", None, False),
                                                   (1, "reference", "random", None, False)]
    assert finished["balance"] == {"pair_meetings_min": 3, "pair_meetings_max": 3,
                                   "seat_spread": 1, "matches_min": 3, "matches_max": 3}
    assert finished["progress"]["total"] == finished["progress"]["finished"] == 3


def test_create_needs_a_token(anon_api) -> None:
    response = create(anon_api)
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("overrides, code, words", [
    ({"game": "chess"}, "bad_tournament", "chess"),
    ({"table_size": 7}, "bad_tournament", "2 to 6"),
    ({"participants": REFERENCE[:1]}, "bad_tournament", "1 participant: "),
    ({"participants": [{"kind": "reference", "bot": "smart"}, *REFERENCE]}, "bad_tournament",
     "smart"),
    ({"participants": [{"kind": "player", "user": "ghost"}, *REFERENCE]}, "bad_tournament",
     "ghost"),
    ({"options": {"no_such_option": 1}}, "bad_tournament", "no_such_option"),
    ({"participants": [{"kind": "alien"}, *REFERENCE]}, "invalid", "alien"),
    ({"table_size": 9}, "invalid", "table_size"),
    ({"meetings": 0}, "invalid", "meetings"),
    ({"meetings": 21}, "invalid", "meetings"),
    ({"seed": -1}, "invalid", "seed"),
    ({"seed": 2**63}, "invalid", "seed"),
    ({"strike_limit": 101}, "invalid", "strike_limit"),
    ({"move_time_limit": 0}, "invalid", "move_time_limit"),
    ({"move_time_limit": 30 * 24 * 3600 + 1}, "invalid", "move_time_limit"),
    ({"starts_at": "tomorrow"}, "invalid", "starts_at"),
    ({"options": [1, 2]}, "invalid", "options"),
])
def test_create_refuses_bad_input_with_the_reason(alice_api, overrides, code, words) -> None:
    response = create(alice_api, **overrides)
    body = response.json()
    assert response.status_code == 400 and body["code"] == code, body
    assert words in str(body)
    assert not Tournament.objects.exists()


def test_a_tournament_starts_at_most_the_settings_days_ahead(alice_api, settings) -> None:
    year_9998 = create(alice_api, starts_at="9998-12-31T20:00:00Z")
    assert year_9998.status_code == 400 and year_9998.json()["code"] == "bad_tournament"
    assert year_9998.json()["detail"] == ("starts_at is more than 365 days ahead "
                                          "(SERIES_MAX_SCHEDULE_AHEAD_DAYS)")
    settings.SERIES_MAX_SCHEDULE_AHEAD_DAYS = 2
    too_far = create(alice_api, starts_at=(timezone.now() + timedelta(days=3)).isoformat())
    assert too_far.status_code == 400 and "2 days ahead" in too_far.json()["detail"]
    assert not Tournament.objects.exists()
    in_time = create(alice_api, starts_at=(timezone.now() + timedelta(days=1)).isoformat())
    assert in_time.status_code == 201 and in_time.json()["status"] == "scheduled"


def test_one_organiser_is_limited_but_others_are_not(alice_api, bob_api, settings) -> None:
    settings.TOURNAMENT_MAX_ACTIVE = 1
    assert create(alice_api, starts_at=later()).status_code == 201
    response = create(alice_api, starts_at=later())
    assert response.status_code == 429 and response.json()["code"] == "tournament_limit"
    assert "at most 1" in response.json()["detail"]
    assert create(bob_api, starts_at=later()).status_code == 201


def test_anyone_lists_and_filters_tournaments(finished, bob_api, anon_api) -> None:
    create(bob_api, starts_at=later(), name="bob's")
    page = anon_api.get(URL).json()
    assert page["count"] == 2 and [t["name"] for t in page["results"]] == ["bob's", "cup"]
    assert page["results"][1]["participant_count"] == 2

    def names(query: str) -> list[str]:
        return [t["name"] for t in anon_api.get(URL + query).json()["results"]]

    assert names("?organiser=alice") == ["cup"]
    assert names("?status=scheduled") == ["bob's"]
    assert names("?game=dice_cup&status=finished") == ["cup"]
    assert names("?game=dot") == []
    assert anon_api.get(URL + "?limit=1&offset=1").json()["results"][0]["name"] == "cup"
    bad = anon_api.get(URL + "?status=sleeping")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_anyone_reads_the_detail_standings_and_matches(finished, anon_api) -> None:
    base = f"{URL}{finished['id']}/"
    assert anon_api.get(base).json() == finished
    missing = anon_api.get(f"{URL}999999/")
    assert missing.status_code == 404 and missing.json()["code"] == "tournament_not_found"
    huge = anon_api.get(f"{URL}{10**30}/standings/")  # no id of ours: no URL of ours
    assert huge.status_code == 404 and huge.json()["code"] == "not_found"

    standings = anon_api.get(base + "standings/").json()
    assert [row["place"] for row in standings] == [1, 2]
    assert {row["bot"] for row in standings} == {"heuristic", "random"}
    top, bottom = standings
    assert top["matches"] == 3 and top["points"] >= bottom["points"]
    assert top["interval"][0] <= top["points"] <= top["interval"][1]
    assert 0 <= top["ahead_of_next"] <= 1 and bottom["ahead_of_next"] is None
    assert top["rating"]["ordinal"] == pytest.approx(top["rating"]["mu"]
                                                     - 3 * top["rating"]["sigma"])

    page = anon_api.get(base + "matches/").json()
    rows = TournamentMatch.objects.filter(tournament_id=finished["id"]).order_by("number")
    assert page["count"] == 3
    for row, match in zip(rows, page["results"], strict=True):
        assert (match["number"], match["seats"], match["status"], match["match"]) == (
            row.number, row.seats, "finished", row.match_id)
        assert match["seed"] == str(row.seed), "shown: the tournament is over"
        assert match["ranks"] == row.ranks and match["scores"] == row.scores
        assert match["log"].endswith(f"/api/matches/{row.match_id}/log/")
        assert match["view"].endswith(f"/api/matches/{row.match_id}/view/")
    log = anon_api.get(page["results"][0]["log"]).json()
    assert log["complete"] and log["result"]["ranks"] == page["results"][0]["ranks"]
    assert anon_api.get(page["results"][0]["view"]).status_code == 200
    assert [m["number"] for m in anon_api.get(base + "matches/?round=1").json()["results"]] == [1]
    assert anon_api.get(base + "matches/?status=pending").json()["count"] == 0
    assert anon_api.get(base + "matches/?round=-1").json()["code"] == "invalid"


def test_seeds_stay_hidden_until_the_tournament_is_over(alice_api, anon_api) -> None:
    body = create(alice_api, starts_at=later()).json()
    tournament_id = body["id"]
    assert body["status"] == "scheduled" and body["seed"] is None
    # Start it by hand and play its first match only: the tournament is running.
    Tournament.objects.filter(pk=tournament_id).update(status="running")
    first = TournamentMatch.objects.filter(tournament_id=tournament_id).order_by("number")[0]
    assert play_one(first.pk) == "finished"
    page = anon_api.get(f"{URL}{tournament_id}/matches/").json()
    assert [m["status"] for m in page["results"]] == ["finished", "pending", "pending"]
    assert all(m["seed"] is None for m in page["results"]), "a seed deals every match"
    assert page["results"][0]["match"] and page["results"][1]["match"] is None
    assert page["results"][1]["log"] is None and page["results"][1]["view"] is None
    assert anon_api.get(f"{URL}{tournament_id}/").json()["seed"] is None
    assert anon_api.get(URL).json()["results"][0]["seed"] is None
    cancelled = alice_api.post(f"{URL}{tournament_id}/cancel/").json()
    assert cancelled["status"] == "cancelled" and cancelled["seed"] == "11"
    page = anon_api.get(f"{URL}{tournament_id}/matches/").json()
    assert page["results"][1]["seed"] == str(TournamentMatch.objects.get(
        tournament_id=tournament_id, number=1).seed)


def test_only_the_organiser_or_staff_cancels(alice_api, bob_api, anon_api, bob) -> None:
    tournament_id = create(alice_api, starts_at=later()).json()["id"]
    cancel = f"{URL}{tournament_id}/cancel/"
    assert anon_api.post(cancel).json()["code"] == "not_authenticated"
    refused = bob_api.post(cancel)
    assert refused.status_code == 403 and refused.json()["code"] == "not_your_tournament"
    assert Tournament.objects.get(pk=tournament_id).status == "scheduled"
    done = alice_api.post(cancel)
    assert done.status_code == 200 and done.json()["status"] == "cancelled"
    assert done.json()["progress"]["cancelled"] == 3
    again = alice_api.post(cancel)
    assert again.status_code == 409 and again.json()["code"] == "tournament_not_running"
    assert alice_api.post(f"{URL}999999/cancel/").json()["code"] == "tournament_not_found"
    other = create(alice_api, starts_at=later()).json()["id"]
    bob.is_staff = True
    bob.save()
    assert bob_api.post(f"{URL}{other}/cancel/").json()["status"] == "cancelled"


def test_the_rating_leaderboard_of_a_game(finished, anon_api) -> None:
    board = anon_api.get("/api/ratings/dice_cup/").json()
    assert [row["rank"] for row in board] == [1, 2]
    assert {row["name"] for row in board} == {"heuristic (reference bot)", "random (reference bot)"}
    assert board[0]["ordinal"] >= board[1]["ordinal"] and board[0]["matches"] == 3
    assert [row["rank"] for row in anon_api.get("/api/ratings/dice_cup/?limit=1").json()] == [1]
    assert anon_api.get("/api/ratings/dot/").json() == []
    unknown = anon_api.get("/api/ratings/chess/")
    assert unknown.status_code == 404 and unknown.json()["code"] == "game_not_found"
    assert anon_api.get("/api/ratings/dice_cup/?limit=0").json()["code"] == "invalid"


def test_the_schema_documents_every_key_the_api_returns(finished, alice_api, anon_api) -> None:
    schema = Client().get("/api/schema/?format=json").json()
    tid = finished["id"]
    detail = properties_of(schema, answer_of(schema, "/api/tournaments/{tournament_id}/", "get"))
    assert set(detail) == set(finished)
    assert set(properties_of(schema, answer_of(schema, "/api/tournaments/", "post", "201"))) == set(
        finished)
    assert set(properties_of(schema, detail["participants"]["items"])) == set(
        finished["participants"][0])
    assert set(properties_of(schema, detail["balance"])) == set(finished["balance"])
    assert set(properties_of(schema, detail["progress"])) == set(finished["progress"])

    page = anon_api.get(URL).json()
    listed = properties_of(schema, answer_of(schema, "/api/tournaments/", "get"))
    assert set(listed) == set(page) == {"count", "next", "previous", "results"}
    assert set(properties_of(schema, listed["results"]["items"])) == set(page["results"][0])

    matches = anon_api.get(f"{URL}{tid}/matches/").json()
    documented = properties_of(schema, answer_of(
        schema, "/api/tournaments/{tournament_id}/matches/", "get"))
    assert set(documented) == set(matches)
    assert set(properties_of(schema, documented["results"]["items"])) == set(
        matches["results"][0])

    row = anon_api.get(f"{URL}{tid}/standings/").json()[0]
    standing = properties_of(schema, answer_of(
        schema, "/api/tournaments/{tournament_id}/standings/", "get")["items"])
    assert set(standing) == set(row)
    assert set(properties_of(schema, standing["rating"])) == set(row["rating"])

    entry = anon_api.get("/api/ratings/dice_cup/").json()[0]
    assert set(properties_of(schema, answer_of(schema, "/api/ratings/{game}/", "get")["items"])) \
        == set(entry)

    cancel = schema["paths"]["/api/tournaments/{tournament_id}/cancel/"]["post"]["responses"]
    assert {"200", "401", "403", "404", "409", "429"} <= set(cancel)
    codes = set(schema["components"]["schemas"]["CodeEnum"]["enum"])
    assert {"tournament_not_found", "not_your_tournament", "bad_tournament", "tournament_limit",
            "tournament_not_running", "game_not_found"} <= codes


def test_docs_name_every_key_and_error_code_the_api_returns(finished, anon_api) -> None:
    """docs/api.md is what outside testers write clients from."""
    import re
    from pathlib import Path

    from django.conf import settings

    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    section = text[text.index("### Tournaments"):text.index("## Playing by polling")]
    named = set(re.findall(r"\w+", " ".join(re.findall(r"`([^`]*)`", section))))
    base = f"{URL}{finished['id']}/"
    standing = anon_api.get(base + "standings/").json()[0]
    answers = [finished, finished["participants"][0], finished["balance"], finished["progress"],
               standing, standing["rating"], anon_api.get(base + "matches/").json()["results"][0],
               anon_api.get("/api/ratings/dice_cup/").json()[0]]
    missing = {key for answer in answers for key in answer} - named
    assert not missing, f"docs/api.md's Tournaments section does not name {missing}"
    errors = text[text.index("## Errors"):]
    for code in ("bad_tournament", "not_your_tournament", "tournament_not_found",
                 "game_not_found", "tournament_not_running", "tournament_limit"):
        assert f"`{code}`" in errors, code
    for name in [n for n in dir(settings) if n.startswith("TOURNAMENT_")]:
        assert f"| `{name}` |" in text, f"{name} is missing from the settings table"


def test_a_webhook_participant_s_bot_is_its_id_as_a_number(alice, alice_api, inline_tasks,
                                                            monkeypatch) -> None:
    """Ids are numbers everywhere else in the API; a webhook participant's ``bot`` was the
    string "7". Its standings row and a league member say the same."""
    from bots.models import Bot
    from games.engine import game_ids

    bot = Bot.objects.create(owner=alice, name="local", url="http://127.0.0.1:9/",
                             secret="whsec_x", games=list(game_ids()), handshake_ok=True)
    hold_tasks(monkeypatch, "games.advance_automatic_seats")
    response = create(alice_api, participants=[{"kind": "webhook", "bot": bot.pk},
                                                {"kind": "reference", "bot": "random"}],
                      meetings=1)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert [p["bot"] for p in body["participants"]] == [bot.pk, "random"]
    standings = alice_api.get(f"{URL}{body['id']}/standings/").json()
    assert sorted(row["bot"] for row in standings if row["kind"] == "webhook") == [bot.pk]
    league = alice_api.post("/api/leagues/", {
        "name": "club", "game": "dice_cup", "table_size": 2,
        "season_start": timezone.now().isoformat(),
        "season_end": (timezone.now() + timedelta(days=30)).isoformat(),
        "members": [{"kind": "webhook", "bot": str(bot.pk)},
                    {"kind": "reference", "bot": "random"}]}, format="json")
    assert league.status_code == 201, league.json()
    assert [m["bot"] for m in league.json()["members"]] == [bot.pk, "random"]
