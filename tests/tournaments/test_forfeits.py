"""One forfeit rule in every series (docs/series.md, "Forfeits rank last"): a seat that
forfeits a match it played (the match's strike limit) ranks last in it, is listed in the
match's ``forfeited``, is counted in standings, and the match earns nothing in ratings; a
match whose every seat forfeited has no winner. Tried for every tournament format (round
robin, tables, duplicate, Swiss) through the runner, with two people who never move; league
nights follow the same rule (tests/tournaments/test_series.py, test_leagues.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.services import match_expire_deadlines
from tournaments import selectors
from tournaments.models import LeaderboardEntry, RatingPoint, Tournament, TournamentMatch
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db(transaction=True)

SILENT = [{"kind": "player", "user": "bob"}, {"kind": "player", "user": "charlie"}]
REFS = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]

FORMATS: dict[str, dict[str, Any]] = {
    "round_robin": {"table_size": 2},
    "tables": {"table_size": 3, "meetings": 2},
    "duplicate": {"table_size": 2, "duplicate": True},
    "swiss": {"format": "swiss", "rounds": 3},
}


def played_out(tournament: Tournament) -> Tournament:
    """Expire the silent people's deadlines until the tournament is over."""
    later = timezone.now()
    for _ in range(200):
        tournament.refresh_from_db()
        if tournament.is_over:
            return tournament
        later += timedelta(seconds=10)
        match_expire_deadlines(now=later)
    raise AssertionError(f"tournament still {tournament.status}")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_seat_that_forfeits_at_the_strike_limit_ranks_last_listed_counted_unrated(
        name: str, alice, bob, charlie, inline_tasks, settings) -> None:
    settings.SERIES_FORFEITS_TO_WITHDRAW = 0  # they are asked (and forfeit) in every match
    tournament = played_out(tournament_create(
        organiser=alice, name=name, game="dice_cup", participants=SILENT + REFS,
        strike_limit=1, move_time_limit=5, seed=11, **FORMATS[name]))
    assert tournament.status == Tournament.Status.FINISHED
    rows = list(TournamentMatch.objects.filter(tournament=tournament).order_by("number"))
    silent_rows = [row for row in rows if {0, 1} & set(row.seats)]
    assert silent_rows and all(row.match_id for row in silent_rows), "played, not withdrawn"
    for row in silent_rows:
        n = len(row.seats)
        out = sorted(p for p in row.seats if p in (0, 1))
        assert row.forfeited == out, f"match {row.number}: {row.forfeited} != {out}"
        for seat, participant in enumerate(row.seats):
            if participant in out:
                assert row.ranks[seat] == n, f"match {row.number}: a forfeit ranks last"
        if len(out) == n:
            assert 1 not in row.ranks, f"match {row.number}: every seat forfeited, no winner"
    forfeits = {row["participant"]: row["forfeits"]
                for row in selectors.tournament_standings(tournament=tournament)}
    for participant in (0, 1):
        assert forfeits[participant] == sum(participant in row.forfeited for row in rows)
        assert forfeits[participant] > 0
    rated = RatingPoint.objects.filter(entry__game="dice_cup")
    assert not LeaderboardEntry.objects.filter(kind="player").exists(), \
        "a match with a forfeit earns nobody a rating"
    clean = [row for row in rows if not {0, 1} & set(row.seats)]
    assert rated.count() == sum(len(row.seats) for row in clean)


def test_a_two_seat_match_both_seats_forfeit_has_no_winner(alice, bob, charlie,
                                                          inline_tasks) -> None:
    tournament = played_out(tournament_create(
        organiser=alice, name="both", game="dice_cup", participants=SILENT, table_size=2,
        strike_limit=1, move_time_limit=5, seed=3))
    row = TournamentMatch.objects.get(tournament=tournament)
    assert row.forfeited == [0, 1] and row.ranks == [2, 2]
    standings = selectors.tournament_standings(tournament=tournament)
    assert [s["forfeits"] for s in standings] == [1, 1]
