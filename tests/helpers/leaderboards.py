"""A finished tournament recorded on the ratings leaderboard, made by hand (no match played)."""

from __future__ import annotations

from django.utils import timezone

from bots.models import Bot
from tournaments.models import Participant, Tournament, TournamentMatch
from tournaments.scoring import leaderboard


def recorded(organiser, bot: Bot, label: str) -> Tournament:
    """A finished tournament of ``bot`` (entered under ``label``) against a reference bot."""
    tournament = Tournament.objects.create(name="cup", game="dice_cup", organiser=organiser,
                                           status="finished", table_size=2, meetings=1,
                                           strike_limit=3, move_time_limit=5, seed=1,
                                           balance={"pair_meetings_min": 1,
                                                    "pair_meetings_max": 1, "seat_spread": 0,
                                                    "matches_min": 1, "matches_max": 1})
    Participant.objects.create(tournament=tournament, index=0, kind="webhook", bot=str(bot.pk),
                               name=label)
    Participant.objects.create(tournament=tournament, index=1, kind="reference",
                               bot="random", name="the house")
    row = TournamentMatch.objects.create(tournament=tournament, number=0, round=0, deal=0,
                                         seed=1, seats=[0, 1], status="finished", ranks=[1, 2],
                                         scores=[1, 0], finished_at=timezone.now())
    leaderboard.record(tournament_id=tournament.pk, rows=[row], played_at=row.finished_at)
    return tournament
