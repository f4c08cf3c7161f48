"""OpenSkill (Plackett-Luce) ratings from match results, one seat per team. No Django."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .standings import MatchResult


@dataclass(frozen=True)
class Rating:
    """A participant's skill estimate: ``ordinal`` (mu - 3 sigma) is the cautious one to sort by."""

    participant: int
    mu: float
    sigma: float
    ordinal: float
    matches: int


def ratings(results: Sequence[MatchResult], participants: int) -> list[Rating]:
    """Rate every participant from the default rating, one match after another in order.

    Each seat is a one-player team; the engine's ranks (ties share a rank) go to
    ``PlackettLuce.rate`` as they are. Forfeited matches are skipped: they were not played,
    so they say nothing about skill (the standings count them).
    """
    model = PlackettLuce()
    current = [model.rating(name=str(p)) for p in range(participants)]
    played = [0] * participants
    for result in results:
        if result.forfeited:
            continue
        teams = [[current[p]] for p in result.seats]
        for p, (rated,) in zip(result.seats, model.rate(teams, ranks=list(result.ranks))):
            current[p] = rated
            played[p] += 1
    return [
        Rating(p, rating.mu, rating.sigma, rating.ordinal(), played[p])
        for p, rating in enumerate(current)
    ]
