"""Swiss through the API, played to the end by the workers' code path in-process: each round
planned only once the one before is done, paired by score with no rematch seats do not need, one
bye a round to the lowest-ranked entrant without one, seats alternated; the detail shows the format
and the progress counts the rounds to come; standings and ratings as for round robins; and
create bodies refuse what they do not know."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.helpers.tasks import hold_tasks
from tournaments import selectors
from tournaments.models import Tournament, TournamentMatch

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/tournaments/"


def swiss(client: APIClient, participants: int, **overrides: Any) -> Any:
    entrants = [{"kind": "reference", "bot": ("heuristic", "random")[i % 2], "name": f"r{i}"}
                for i in range(participants)]
    body = {"name": "swiss", "game": "dice_cup", "format": "swiss", "participants": entrants,
            "seed": 5, **overrides}
    return client.post(URL, body, format="json")


@pytest.mark.parametrize("participants, rounds", [(6, 3), (5, 5), (8, None)])
def test_a_swiss_tournament_plays_round_after_round_to_the_end(alice_api, anon_api,
                                                               inline_tasks, participants,
                                                               rounds) -> None:
    answer = swiss(alice_api, participants, **({} if rounds is None else {"rounds": rounds}))
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    rounds = rounds or 3  # ceil(log2 8)
    assert (body["format"], body["rounds"], body["status"]) == ("swiss", rounds, "finished")
    per_round = participants // 2
    assert body["progress"]["total"] == body["progress"]["finished"] == rounds * per_round

    rows = list(TournamentMatch.objects.filter(tournament_id=body["id"]).order_by("number"))
    assert [row.round for row in rows] == [r for r in range(rounds) for _ in range(per_round)]
    assert all(row.status == "finished" and row.match_id for row in rows)
    pairs = Counter(frozenset(row.seats) for row in rows)
    assert max(pairs.values()) == 1, "no rematch while one is avoidable"
    for r in range(rounds):
        seated = [p for row in rows if row.round == r for p in row.seats]
        assert len(seated) == len(set(seated)) == 2 * per_round, "everyone once a round"
    if participants % 2:
        byes = [next(p for p in range(participants)
                     if p not in {q for row in rows if row.round == r for q in row.seats})
                for r in range(rounds)]
        assert len(set(byes)) == rounds, "a bye to someone without one"
    balance = Counter()
    for row in rows:
        balance.update({row.seats[0]: 1, row.seats[1]: -1})
    assert max(map(abs, balance.values())) <= (1 if rounds <= participants // 2 else 2), \
        "seats alternate: first seats minus second seats within one where the field allows"

    standings = anon_api.get(f"{URL}{body['id']}/standings/").json()
    assert len(standings) == participants and all(r["matches"] for r in standings)
    assert anon_api.get(f"{URL}{body['id']}/").json()["format"] == "swiss"
    assert sum(r["total"] for r in standings) == rounds * (per_round + participants % 2), \
        "a point a match, a bye a win"
    ordered = [(r["total"], r["buchholz_cut1"], r["buchholz"]) for r in standings]
    assert ordered == sorted(ordered, reverse=True), "FIDE tie-breaks"


def test_the_swiss_tie_breaks_are_on_the_page_and_only_for_a_swiss(alice_api, client,
                                                                    inline_tasks) -> None:
    body = swiss(alice_api, 5, rounds=3).json()
    page = client.get(f"/tournaments/{body['id']}/").content.decode()
    assert "Buchholz" in page and "BH C1" in page
    other = swiss(alice_api, 4, format="round_robin").json()
    assert "Buchholz" not in client.get(f"/tournaments/{other['id']}/").content.decode()
    rows = alice_api.get(f"{URL}{other['id']}/standings/").json()
    assert {(r["total"], r["buchholz"], r["buchholz_cut1"]) for r in rows} == {(None,) * 3}


def test_the_next_round_is_planned_only_when_the_last_is_done(alice_api, monkeypatch) -> None:
    queued = hold_tasks(monkeypatch, "tournaments.")
    body = swiss(alice_api, 6, rounds=3).json()
    tournament = Tournament.objects.get(pk=body["id"])
    assert tournament.matches.count() == 3, "round 1 only"
    assert body["progress"]["total"] == 9 and body["progress"]["pending"] == 3
    from tests.helpers.series import TOURNAMENT
    from tournaments import runner

    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=2)
    assert tournament.matches.count() == 3, "round 1 is not done yet"
    # The last match of round 1: round 2 is paired as it ends, and (in-process bots) the
    # chunk goes on with what it may claim of it (one), the rest queued.
    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=1)
    assert tournament.matches.count() == 6, "round 2 paired as round 1 ended, not round 3"
    assert tournament.matches.filter(round=1, status="finished").count() == 1
    assert ("tournaments.play", TOURNAMENT, tournament.pk) in queued
    first = {frozenset(r.seats) for r in tournament.matches.filter(round=0)}
    second = {frozenset(r.seats) for r in tournament.matches.filter(round=1)}
    assert not first & second


def test_a_withdrawn_participant_is_paired_no_more_from_the_next_round(alice_api,
                                                                        monkeypatch) -> None:
    hold_tasks(monkeypatch, "tournaments.")
    body = swiss(alice_api, 6, rounds=3).json()
    tournament = Tournament.objects.get(pk=body["id"])
    from tests.helpers.series import TOURNAMENT
    from tournaments import runner

    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=2)
    tournament.participants.filter(index=5).update(withdrawn=True, withdrawn_reason="gone")
    progress = selectors.tournament_progress(tournament=tournament)
    assert progress["total"] == 3 + 2 * 2, "the rounds to come pair the five left, not six"
    while tournament.matches.filter(status__in=("pending", "running")).exists():
        runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    rows = list(tournament.matches.order_by("number"))
    assert [row.round for row in rows] == [0, 0, 0, 1, 1, 2, 2], "five left: two pairs a round"
    assert all(5 not in row.seats for row in rows if row.round > 0)
    [forfeit] = [row for row in rows if 5 in row.seats]
    assert forfeit.forfeited == [5] and forfeit.match_id is None
    assert selectors.tournament_progress(tournament=tournament)["total"] == len(rows) == 7


@pytest.mark.parametrize("overrides, field, words", [
    ({"format": "knockout"}, "format", "knockout"),
    ({"formt": "swiss"}, "formt", "unknown field"),
    ({"rounds": 0}, "rounds", "greater than or equal to 1"),
])
def test_a_create_body_is_checked_field_by_field(alice_api, overrides, field, words) -> None:
    answer = swiss(alice_api, 4, **overrides)
    body = answer.json()
    assert answer.status_code == 400 and body["code"] == "invalid", body
    assert field in body["fields"] and words in str(body["fields"][field])
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("overrides, words", [
    ({"rounds": 4}, "4 participants play 1 to 3 Swiss rounds, not 4"),
    ({"table_size": 3}, "two-seat"),
    ({"duplicate": True}, "duplicate"),
    ({"format": "round_robin", "rounds": 2}, "rounds is for a Swiss tournament"),
])
def test_what_cannot_be_a_swiss_tournament_is_refused(alice_api, overrides, words) -> None:
    answer = swiss(alice_api, 4, **overrides)
    body = answer.json()
    assert answer.status_code == 400 and body["code"] == "bad_tournament", body
    assert words in body["detail"]


def test_every_pair_of_a_long_swiss_meets_at_most_once_until_it_must(alice_api,
                                                                     inline_tasks) -> None:
    """4 entrants, 3 rounds: a full round robin by pairing alone."""
    body = swiss(alice_api, 4, rounds=3).json()
    pairs = {frozenset(r.seats) for r in TournamentMatch.objects.filter(tournament_id=body["id"])}
    assert pairs == {frozenset(p) for p in combinations(range(4), 2)}
