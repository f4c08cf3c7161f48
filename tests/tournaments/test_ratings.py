"""OpenSkill ratings from results: order, ties, forfeits skipped."""

from __future__ import annotations

import pytest

from tournaments.scheduling import table_schedule
from tournaments.scoring.ratings import ratings
from tournaments.scoring.standings import MatchResult, forfeit_result


def test_a_clearly_stronger_player_is_rated_above() -> None:
    # Participant p beats everyone with a lower index: 3 > 2 > 1 > 0 at every table.
    schedule = table_schedule(6, seats=3, rounds=8, seed=4)
    results = [
        MatchResult(table, tuple(1 + sum(o > p for o in table) for p in table), (0, 0, 0))
        for tables in schedule
        for table in tables
    ]
    rated = ratings(results, 6)
    by_ordinal = sorted(rated, key=lambda r: r.ordinal, reverse=True)
    assert [r.participant for r in by_ordinal] == [5, 4, 3, 2, 1, 0]
    assert all(r.ordinal == pytest.approx(r.mu - 3 * r.sigma) for r in rated)
    assert all(r.sigma < 25 / 3 for r in rated), "every match played made the rating surer"


def test_a_tie_moves_equal_players_equally_and_forfeits_are_skipped() -> None:
    results = [
        MatchResult((0, 1, 2), (1, 1, 3), (2, 2, 0)),
        forfeit_result((0, 2), withdrawn={0}),
    ]
    first, second, third = ratings(results, 3)
    assert first.mu == pytest.approx(second.mu) and first.mu > 25 > third.mu
    assert (first.matches, third.matches) == (1, 1)
    assert ratings(results[:1], 3) == ratings(results, 3)
