"""One rating per entrant per game (docs/tournaments.md, "Ratings"): a tournament's standings,
a league's season table and the game's leaderboard show one number, the leaderboard's, which
every series' rated matches move: tournaments, the ladder and league nights' hands;
``leaderboard.rebuild`` replays them all to the same board."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.helpers.series import TOURNAMENT
from tests.helpers.tasks import hold_tasks
from tournaments import runner, selectors, services
from tournaments.leagues import nights
from tournaments.leagues import services as leagues
from tournaments.models import LeaderboardEntry
from tournaments.scoring import leaderboard

pytestmark = pytest.mark.django_db(transaction=True)

PAIR = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]


@pytest.fixture
def queued(monkeypatch: Any) -> None:
    hold_tasks(monkeypatch, "tournaments.")


def board() -> dict[str, tuple[float, float, int]]:
    return {row["name"]: (row["mu"], row["sigma"], row["matches"])
            for row in selectors.ratings_leaderboard(game="dice_cup")}


def played_tournament(organiser: Any, meetings: int) -> Any:
    tournament = services.tournament_create(organiser=organiser, name="cup", game="dice_cup",
                                            seed=7, table_size=2, meetings=meetings,
                                            participants=PAIR)
    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=1000)
    return tournament


def played_league_night(organiser: Any) -> Any:
    now = timezone.now()
    league = leagues.league_create(
        organiser=organiser, name="club", game="dice_cup", table_size=2, hands_per_night=3,
        members=[dict(member, name=member["bot"]) for member in PAIR], seed=5,
        season_start=now - timedelta(days=1), season_end=now + timedelta(days=60))
    leagues.night_schedule(league_id=league.pk, user=organiser, starts_at=now)
    assert nights.nights_start_due() == 1
    runner.reap()  # what the start queued, played here
    return league


def test_standings_show_the_games_one_rating_not_the_tournaments_own(alice, queued) -> None:
    first = played_tournament(alice, 3)
    second = played_tournament(alice, 2)
    names = {"heuristic": "heuristic (reference bot)", "random": "random (reference bot)"}
    for tournament in (first, second):
        for row in selectors.tournament_standings(tournament=tournament):
            mu, sigma, matches = board()[names[row["bot"]]]
            rating = row["rating"]
            assert (rating["mu"], rating["sigma"], rating["matches"]) == (mu, sigma, matches)
            assert rating["ordinal"] == pytest.approx(mu - 3 * sigma)
            assert matches == 5, "both tournaments' matches: one entrant, one number"


def test_an_entrant_never_rated_shows_the_starting_rating(alice, queued) -> None:
    tournament = services.tournament_create(organiser=alice, name="cup", game="dice_cup",
                                            seed=7, table_size=2, participants=PAIR)
    ratings = [row["rating"] for row in selectors.tournament_standings(tournament=tournament)]
    start = leaderboard.MODEL.rating()
    assert ratings == [{"mu": start.mu, "sigma": start.sigma, "ordinal": start.ordinal(),
                        "matches": 0}] * 2
    assert not LeaderboardEntry.objects.exists(), "reading a rating stores nothing"


def test_league_hands_move_the_board_and_the_table_shows_it(alice, inline_tasks) -> None:
    league = played_league_night(alice)
    hands = 3
    assert {matches for _, _, matches in board().values()} == {hands}, "every hand rated"
    rated = selectors.league_ratings(league_id=league.pk)
    by_bot = {member.index: member.bot for member in league.members.all()}
    for index, rating in rated.items():
        mu, sigma, matches = board()[f"{by_bot[index]} (reference bot)"]
        assert (rating.mu, rating.sigma, rating.matches) == (mu, sigma, matches)


def test_rebuild_replays_tournaments_and_league_hands_to_the_same_board(alice,
                                                                        inline_tasks) -> None:
    played_tournament(alice, 2)
    played_league_night(alice)
    played_tournament(alice, 1)
    before = board()
    assert sum(matches for _, _, matches in before.values()) == 2 * (2 + 3 + 1)
    assert leaderboard.rebuild() == 2 + 3 + 1
    after = board()
    assert after.keys() == before.keys()
    for name, (mu, sigma, matches) in before.items():
        assert after[name] == (pytest.approx(mu), pytest.approx(sigma), matches)
