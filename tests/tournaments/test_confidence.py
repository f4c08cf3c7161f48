"""Bootstrap intervals and P(ahead): deterministic, sensible, deal-aware."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Rng, competition_ranks
from games.engine.rng import secret_from_seed
from tournaments.scheduling import round_robin, scheduled_matches
from tournaments.scoring.confidence import certainty, result_units
from tournaments.scoring.standings import MatchResult, standings


def noisy_results(strengths: list[int], seed: int, meetings: int = 3) -> list[MatchResult]:
    """Two-player round robin where a higher strength usually (not always) wins."""
    rng = Rng(seed)
    results = []
    for match in scheduled_matches(round_robin(len(strengths), meetings=meetings),
                                   secret=secret_from_seed(seed)):
        draws = [strengths[p] + rng.randint(0, 6) for p in match.seats]
        ranks = competition_ranks([-d for d in draws])
        results.append(MatchResult(match.seats, tuple(ranks), tuple(draws), match.deal))
    return results


def test_interval_holds_the_mean_and_is_reproducible() -> None:
    results = noisy_results([0, 1, 2, 3, 4], seed=1)
    order = [row.participant for row in standings(results, 5)]
    rows = certainty(results, order, resamples=1000, seed=7)
    for row in rows:
        assert row.low <= row.mean <= row.high and row.low < row.high
    assert rows == certainty(results, order, resamples=1000, seed=7)
    assert rows != certainty(results, order, resamples=1000, seed=8)
    wider = certainty(results, order, level=0.99, resamples=1000, seed=7)
    assert all(w.low <= r.low and r.high <= w.high for w, r in zip(wider, rows))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32), strengths=st.lists(st.integers(0, 4), min_size=2, max_size=6))
def test_probabilities_are_probabilities(seed: int, strengths: list[int]) -> None:
    results = noisy_results(strengths, seed, meetings=1)
    order = [row.participant for row in standings(results, len(strengths))]
    rows = certainty(results, order, resamples=200, seed=seed)
    assert all(0 <= row.ahead_of_next <= 1 for row in rows[:-1])
    assert rows[-1].ahead_of_next is None


def test_a_dominant_player_is_almost_surely_ahead_and_equals_are_not() -> None:
    results = noisy_results([20, 0, 0], seed=3, meetings=6)
    order = [row.participant for row in standings(results, 3)]
    rows = certainty(results, order, resamples=1000)
    assert order[0] == 0 and rows[0].ahead_of_next > 0.99
    assert 0.05 < rows[1].ahead_of_next < 0.95


def test_a_duplicate_deal_is_one_unit() -> None:
    results = [
        MatchResult((0, 1), (1, 2), (1, 0), deal=0),
        MatchResult((1, 0), (2, 1), (0, 1), deal=0),
        MatchResult((0, 1), (1, 1), (0, 0), deal=1),
        MatchResult((1, 0), (2, 1), (0, 1), deal=1),
        MatchResult((0, 2), (2, 1), (0, 1)),
    ]
    assert result_units(results, 3) == [[1.0, 0.75, 0.0], [0.0, 0.25], [1.0]]


def test_a_participant_who_has_not_played_has_no_interval() -> None:
    results = [MatchResult((0, 1), (1, 2), (1, 0))]
    rows = certainty(results, [0, 1, 2], resamples=100)
    assert rows[2].mean is None and rows[2].low is None
    assert rows[1].ahead_of_next is None  # nothing to compare with
    assert rows[0].ahead_of_next == 1.0
