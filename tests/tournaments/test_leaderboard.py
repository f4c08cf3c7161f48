"""A game's leaderboard is a table kept as results are recorded
(tournaments.scoring.leaderboard): the workers' recording updates it (ratings as OpenSkill over
the results in recording order, the matches count and the last played time), it is read in a
constant number of queries however many matches were played, and rebuild() makes the same table
again from the recorded rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.helpers.series import TOURNAMENT
from tests.helpers.tasks import hold_tasks
from tournaments import runner, selectors, services
from tournaments.models import LeaderboardEntry, Participant, RatingPoint, TournamentMatch
from tournaments.scoring import leaderboard
from tournaments.scoring.ratings import ratings
from tournaments.scoring.standings import MatchResult

pytestmark = pytest.mark.django_db

@pytest.fixture
def queued(monkeypatch) -> None:
    """Tournament tasks are held: each test plays its tournaments itself."""
    hold_tasks(monkeypatch, "tournaments.")


PAIR = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]


def played(organiser, meetings: int, participants=PAIR):
    """A tournament of reference bots, played to the end as a worker does (in-process
    matches are recorded when they are started)."""
    tournament = services.tournament_create(organiser=organiser, name="cup", game="dice_cup",
                                            seed=7, table_size=2, meetings=meetings,
                                            participants=participants)
    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=1000)
    return tournament


def board_figures() -> list[tuple]:
    return [(row["name"], round(row["mu"], 9), round(row["sigma"], 9), row["matches"])
            for row in selectors.ratings_leaderboard(game="dice_cup")]


def test_recording_a_result_updates_the_board_as_a_replay_would(alice, queued) -> None:
    played(alice, 3)
    played(alice, 2)
    rows = (TournamentMatch.objects.filter(tournament__game="dice_cup", status="finished")
            .order_by("finished_at", "tournament_id", "number").select_related("tournament"))
    bots = {"heuristic": 0, "random": 1}
    entrant = {(p.tournament_id, p.index): bots[p.bot]
               for p in Participant.objects.filter(tournament__game="dice_cup")}
    replayed = ratings([MatchResult(tuple(entrant[(r.tournament_id, s)] for s in r.seats),
                                    tuple(r.ranks), None) for r in rows], 2)
    board = {row["name"]: row for row in selectors.ratings_leaderboard(game="dice_cup")}
    for name, rating in zip(("heuristic (reference bot)", "random (reference bot)"), replayed):
        assert board[name]["mu"] == pytest.approx(rating.mu)
        assert board[name]["sigma"] == pytest.approx(rating.sigma)
        assert board[name]["matches"] == 5 == rating.matches, "both tournaments: one entrant"
    latest = max(r.finished_at for r in rows)
    assert {row["last_played_at"] for row in board.values()} == {latest}
    assert RatingPoint.objects.count() == 2 * 5, "a point per entrant per rated match"


def test_the_board_is_read_in_the_same_queries_for_few_and_many_matches(alice, queued,
                                                                        client) -> None:
    played(alice, 1)

    def queries() -> tuple[int, int]:
        with CaptureQueriesContext(connection) as api:
            assert client.get("/api/ratings/dice_cup/").status_code == 200
        with CaptureQueriesContext(connection) as page:
            assert client.get("/games/dice_cup/").status_code == 200
        return len(api), len(page)

    few = queries()
    played(alice, 12)
    assert queries() == few, "no match is read to draw the board"
    page = client.get("/games/dice_cup/").content.decode()
    assert "Last played" in page and "<td class=\"more\"><time datetime=" in page


def test_rebuild_makes_the_same_board_from_the_recorded_results(alice, queued) -> None:
    played(alice, 3)
    played(alice, 2, participants=[*PAIR, {"kind": "reference", "bot": "heuristic"}])
    before, points = board_figures(), RatingPoint.objects.count()
    LeaderboardEntry.objects.all().delete()
    assert selectors.ratings_leaderboard(game="dice_cup") == []
    assert leaderboard.rebuild() == 5 + 2, "a table where one reference bot sits twice is not rated"
    assert board_figures() == before and RatingPoint.objects.count() == points
