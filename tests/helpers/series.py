"""Series runner shorthands for tests: the kinds' names, and one row played by hand."""

from __future__ import annotations

from tournaments import runner
from tournaments.models import TournamentMatch

TOURNAMENT, LEAGUE = "tournament", "league"


def play_one(tournament_match_id: int) -> str:
    """Play one scheduled tournament match (the runner's ``play`` of that row only):
    ``"started"``, ``"finished"`` (in-process bots), ``"forfeit"`` or ``"skipped"``."""
    row = TournamentMatch.objects.filter(pk=tournament_match_id).values("tournament_id").first()
    if row is None:
        return "skipped"
    counts = runner.play(kind=TOURNAMENT, series_id=row["tournament_id"],
                         only=tournament_match_id)
    return next((key for key, count in counts.items() if count), "skipped")
