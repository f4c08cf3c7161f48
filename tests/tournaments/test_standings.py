"""Points, tie-breaks and forfeits on hand-made results."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import competition_ranks
from tournaments.scoring.standings import MatchResult, forfeit_result, match_points, standings


def result(seats, ranks, scores=None, deal=None) -> MatchResult:
    scores = tuple(scores) if scores is not None else tuple(0 for _ in seats)
    return MatchResult(tuple(seats), tuple(ranks), scores, deal)


def test_points_spread_first_to_last_and_ties_share() -> None:
    assert match_points([1, 2, 3, 4]) == [1, Fraction(2, 3), Fraction(1, 3), 0]
    assert match_points([1, 1, 3, 4]) == [Fraction(5, 6), Fraction(5, 6), Fraction(1, 3), 0]
    assert match_points([2, 1]) == [0, 1]
    assert match_points([1, 1]) == [Fraction(1, 2), Fraction(1, 2)]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(keys=st.lists(st.integers(0, 3), min_size=2, max_size=8))
def test_a_tables_points_sum_to_half_its_size(keys: list[int]) -> None:
    points = match_points(competition_ranks(keys))
    assert sum(points) == Fraction(len(keys), 2)
    assert all(0 <= p <= 1 for p in points)


def order(rows) -> list[int]:
    return [row.participant for row in rows]


def test_points_come_first_then_score() -> None:
    results = [
        result((0, 1), (1, 2), (5, 1)),
        result((1, 2), (1, 2), (9, 0)),
        result((2, 0), (1, 2), (3, 2)),
    ]  # everyone won once: equal points; mean scores 3.5, 5, 1.5
    rows = standings(results, 3)
    assert order(rows) == [1, 0, 2]
    assert [row.place for row in rows] == [1, 2, 3]
    assert {row.points for row in rows} == {0.5}
    assert rows[0].score == 5.0 and rows[0].head_to_head == 0


def test_head_to_head_breaks_a_tie_on_points_and_score() -> None:
    # 0 and 1 both win twice, but 1 beat 0; 2 and 3 both win once, but 3 beat 2.
    results = [
        result((0, 1), (2, 1)),
        result((0, 2), (1, 2)),
        result((0, 3), (1, 2)),
        result((1, 2), (2, 1)),
        result((1, 3), (1, 2)),
        result((2, 3), (2, 1)),
    ]
    rows = standings(results, 4)
    assert order(rows) == [1, 0, 3, 2]
    # Only the tied count: over all opponents 0 and 1 would both be +1 and 0 would win on index.
    assert [row.head_to_head for row in rows] == [1, -1, 1, -1]


def test_more_first_places_break_a_tie_that_head_to_head_leaves() -> None:
    # 1 is first once and last once, 0 second twice: equal mean points, they never met.
    results = [
        result((1, 2, 3), (1, 2, 3)),
        result((1, 2, 3), (3, 1, 2)),
        result((0, 2, 3), (2, 1, 3)),
        result((0, 2, 3), (2, 3, 1)),
    ]
    rows = {row.participant: row for row in standings(results, 4)}
    assert rows[0].points == rows[1].points == 0.5 and rows[0].score == rows[1].score
    assert (rows[1].firsts, rows[0].firsts) == (1, 0)
    assert rows[1].place < rows[0].place


def test_the_index_settles_what_nothing_else_does() -> None:
    rows = standings([result((1, 0), (1, 1))], 2)
    assert order(rows) == [0, 1]
    assert rows[0].points == rows[1].points == 0.5 and rows[0].firsts == rows[1].firsts == 1


def test_withdrawn_participants_forfeit_last_and_are_marked() -> None:
    forfeit = forfeit_result((3, 0, 1), withdrawn={1})
    assert forfeit.ranks == (1, 1, 3) and forfeit.scores is None and forfeit.forfeited == {1}
    assert match_points(forfeit.ranks) == [Fraction(3, 4), Fraction(3, 4), 0]
    assert forfeit_result((2, 1), withdrawn={1, 2}).ranks == (1, 1)
    with pytest.raises(ValueError):
        forfeit_result((0, 3), withdrawn={1})
    results = [
        result((1, 0), (1, 2), (4, 1)),  # 1 won while it played
        result((1, 2), (1, 2), (4, 1)),
        forfeit_result((1, 3), withdrawn={1}),
        forfeit_result((0, 1), withdrawn={1}),
        result((0, 2), (1, 2), (1, 1)),
        result((2, 3), (1, 2), (1, 1)),
        result((3, 0), (1, 2), (1, 1)),
    ]
    rows = {row.participant: row for row in standings(results, 4, withdrawn={1})}
    assert rows[1].withdrawn and rows[1].forfeits == 2 and rows[1].matches == 4
    assert rows[1].score == 4.0  # the mean over the matches it played
    assert not rows[0].withdrawn and rows[0].forfeits == 0
    assert rows[3].points == pytest.approx(2 / 3)  # the forfeit counted as its win


def test_a_participant_without_matches_is_last_with_no_figures() -> None:
    rows = standings([result((0, 1), (2, 1))], 3)
    assert order(rows) == [1, 0, 2]
    assert rows[2].points is None and rows[2].score is None and rows[2].matches == 0


def test_a_result_must_be_whole() -> None:
    with pytest.raises(ValueError):
        MatchResult((0, 1), (1,), (0, 0))
    with pytest.raises(ValueError):
        MatchResult((0, 0), (1, 2), (0, 0))
