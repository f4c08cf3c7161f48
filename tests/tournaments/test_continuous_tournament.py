"""A continuous tournament through the one series runner: matches start while others run, a
new one as one ends, until its ``ends_at``; then it is over once the last ends. Nothing in the
runner knows the format (``tournaments/formats/continuous.py``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.services import match_stop
from tournaments import selectors, services
from tournaments.errors import BadTournament
from tournaments.models import Tournament, TournamentMatch

#: Tasks run as a worker runs them, once the transaction that queued them commits.
pytestmark = pytest.mark.django_db(transaction=True)


def players(count: int) -> list[dict[str, str]]:
    users = get_user_model().objects
    return [{"kind": "player", "user": users.create_user(f"p{i}", password="x").username}
            for i in range(count)]


def test_it_keeps_its_matches_in_flight_and_ends_at_its_time(alice: Any, inline_tasks: Any,
                                                             settings: Any) -> None:
    settings.SERIES_FORFEITS_TO_WITHDRAW = 0  # the test ends matches by stopping them
    tournament = services.tournament_create(
        organiser=alice, name="ladder", game="dice_cup", format="continuous",
        participants=players(4), in_flight=2, ends_at=timezone.now() + timedelta(hours=1))
    rows = TournamentMatch.objects.filter(tournament=tournament).order_by("number")
    first = list(rows.all())
    assert [(r.number, r.status) for r in first] == [(0, "running"), (1, "running")]
    assert not set(first[0].seats) & set(first[1].seats), "everyone busy, once each"

    match_stop(match_id=first[0].match_id, reason="ended")  # one ends: another starts
    assert [(r.number, r.status) for r in rows] == [(0, "finished"), (1, "running"),
                                                          (2, "running")]
    assert set(rows.get(number=2).seats) == set(first[0].seats), "the two idle ones"

    Tournament.objects.filter(pk=tournament.pk).update(
        ends_at=timezone.now() - timedelta(seconds=1))  # its time is up: nothing new
    for row in rows.filter(status="running"):
        match_stop(match_id=row.match_id, reason="ended")
    tournament.refresh_from_db()
    assert tournament.status == "finished" and rows.count() == 3
    assert set(rows.values_list("status", flat=True)) == {"finished"}
    progress = selectors.tournament_progress(tournament=tournament)
    assert progress["finished"] == progress["total"] == 3


def test_reference_bots_play_match_after_match_until_its_time(alice: Any, inline_tasks: Any,
                                                              settings: Any) -> None:
    tournament = services.tournament_create(
        organiser=alice, name="ladder", game="dice_cup", format="continuous",
        participants=[{"kind": "reference", "bot": bot} for bot in ("heuristic", "random") * 3],
        ends_at=timezone.now() + timedelta(seconds=1))
    from tournaments import runner

    while Tournament.objects.get(pk=tournament.pk).status == "running":
        runner.reap()  # the beat's sweep: its time comes, the last in flight end
    rows = list(TournamentMatch.objects.filter(tournament=tournament).order_by("number"))
    assert len(rows) >= 3 and [r.number for r in rows] == list(range(len(rows)))
    assert {r.status for r in rows} == {"finished"}
    met: dict[frozenset[int], int] = {}
    for row in rows:
        met[frozenset(row.seats)] = met.get(frozenset(row.seats), 0) + 1
    if len(rows) >= 15:  # every pair of six has met: least-met pairs first (a round of
        # three where each pair has met as often may hold no matching without a rematch)
        assert len(met) == 15 and max(met.values()) - min(met.values()) <= 2, met


@pytest.mark.parametrize("kwargs, reason", [
    ({}, "needs ends_at"),
    ({"ends_at": "past"}, "needs ends_at after its start"),
    ({"in_flight": 3}, "keep 1 to 2 matches in flight"),
    ({"table_size": 3}, "two-seat matches"),
])
def test_impossible_settings_are_refused_with_the_reason(alice: Any, kwargs: dict,
                                                         reason: str) -> None:
    if kwargs.get("ends_at") == "past":
        kwargs["ends_at"] = timezone.now() - timedelta(minutes=1)
    kwargs.setdefault("ends_at", None) if "ends_at" not in kwargs and not kwargs else None
    with pytest.raises(BadTournament, match=reason):
        services.tournament_create(
            organiser=alice, name="x", game="dice_cup", format="continuous",
            participants=[{"kind": "reference", "bot": "random"}] * 4,
            **({"ends_at": timezone.now() + timedelta(hours=1)} | kwargs
               if kwargs else {}))
