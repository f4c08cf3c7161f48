"""Migration 0010 makes the leaderboard table and fills it from the results recorded before
it existed (``leaderboard.rebuild`` on the historical models): a bot entered in two
tournaments under two labels is one entrant, rated over its matches, with its last played
time and a rating point per match."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ..migrations import migrate, migrate_to_latest

BEFORE = [("tournaments", "0009_finished_not_done")]
AFTER = [("tournaments", "0010_leaderboard")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_board_is_filled_from_the_recorded_results(alice) -> None:
    apps = migrate(BEFORE)
    try:
        Tournament = apps.get_model("tournaments", "Tournament")
        Participant = apps.get_model("tournaments", "Participant")
        TournamentMatch = apps.get_model("tournaments", "TournamentMatch")
        now = timezone.now()
        for number, label in enumerate(("first", "second")):
            tournament = Tournament.objects.create(
                name=label, game="dice_cup", organiser_id=alice.pk, seed=1, table_size=2,
                meetings=1, strike_limit=3, move_time_limit=60)
            Participant.objects.create(tournament=tournament, index=0, kind="reference",
                                       bot="heuristic", name=label)
            Participant.objects.create(tournament=tournament, index=1, kind="player",
                                       user_id=alice.pk, name="alice")
            TournamentMatch.objects.create(
                tournament=tournament, number=0, round=0, deal=0, seed=1, seats=[0, 1],
                status="finished", ranks=[1, 2], finished_at=now + timedelta(minutes=number))
            TournamentMatch.objects.create(tournament=tournament, number=1, round=0, deal=1,
                                           seed=2, seats=[1, 0], status="pending")

        apps = migrate(AFTER)
        Entry = apps.get_model("tournaments", "LeaderboardEntry")
        board = {(e.kind, e.ref): e for e in Entry.objects.all()}
        assert set(board) == {("reference", "heuristic"), ("player", str(alice.pk))}
        bot = board[("reference", "heuristic")]
        assert bot.game == "dice_cup" and bot.matches == 2, "two labels, one entrant"
        assert bot.ordinal > board[("player", str(alice.pk))].ordinal, "it won both"
        assert bot.last_played_at == now + timedelta(minutes=1)
        assert apps.get_model("tournaments", "RatingPoint").objects.count() == 4
    finally:
        migrate_to_latest()
