"""Migration 0023 gives every ladder match its rating changes (``LadderMatch.rating_changes``)
from the results recorded before it existed (``leaderboard.rebuild`` on the historical models):
a rated match's by seat, adding up to each bot's rating; none for a forfeit or a match new
code played."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments.scoring.leaderboard import MODEL

from ..migrations import migrate, migrate_to_latest

BEFORE = [("tournaments", "0022_ladder_new_code")]
AFTER = [("tournaments", "0023_ladder_rating_changes")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_ladder_matches_played_before_get_their_rating_changes() -> None:
    apps = migrate(BEFORE)
    try:
        Ladder = apps.get_model("tournaments", "Ladder")
        LadderEntry = apps.get_model("tournaments", "LadderEntry")
        LadderMatch = apps.get_model("tournaments", "LadderMatch")
        Board = apps.get_model("tournaments", "LeaderboardEntry")
        now = timezone.now()
        start = MODEL.rating()
        ladder = Ladder.objects.create(
            game="dice_cup", seats=2, strike_limit=3, move_time_limit=60, max_in_flight=4,
            in_flight_per_entrant=1, pair_cap_per_day=10, starve_after_seconds=60, burst=0,
            deal_secret="x" * 64)
        entries = []
        for name in ("heuristic", "random"):
            rating = Board.objects.create(game="dice_cup", kind="reference", ref=name,
                                          mu=start.mu, sigma=start.sigma,
                                          ordinal=start.ordinal())
            entries.append(LadderEntry.objects.create(ladder=ladder, kind="reference", bot=name,
                                                      rating=rating, joined_at=now).pk)
        first, second = entries
        for number, (seats, ranks, forfeited, new_code) in enumerate([
                ([first, second], [1, 2], [], []),
                ([second, first], [2, 1], [], []),
                ([first, second], [2, 1], [first], []),
                ([second, first], [1, 2], [], [second])]):
            LadderMatch.objects.create(
                ladder=ladder, number=number, deal=number, seed=number, seats=seats,
                status="finished", ranks=ranks, forfeited=forfeited, new_code=new_code,
                finished_at=now + timedelta(minutes=number))

        apps = migrate(AFTER)
        LadderMatch = apps.get_model("tournaments", "LadderMatch")
        changes = list(LadderMatch.objects.order_by("number").values_list("rating_changes",
                                                                          flat=True))
        assert changes[2:] == [None, None], "a forfeit, new code: unrated"
        won, lost = changes[0]
        assert won > 0 > lost, "the winner's rating rose, the loser's fell"
        heuristic = apps.get_model("tournaments", "LeaderboardEntry").objects.get(
            ref="heuristic")
        assert heuristic.matches == 2
        assert changes[0][0] + changes[1][1] == pytest.approx(
            heuristic.ordinal - start.ordinal())
    finally:
        migrate_to_latest()
