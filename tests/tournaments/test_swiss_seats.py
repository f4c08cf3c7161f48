"""Swiss seats, pure (no database): nobody takes the same seat three games in a row, and
nobody's first seats and second seats differ by more than one after a round unless no pairing
of that round could keep them within one, a rematch if need be (issue 45: seats before
rematches), in a Swiss of any length up to a round robin's, whatever the results; in each pair
the entrant due the first seat takes it; a history past that (from before the rule) is paired
back within it (docs/series.md, Swiss)."""

from __future__ import annotations

from collections.abc import Callable

import rustworkx
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.rng import secret_from_seed
from tournaments.formats.base import Outcome
from tournaments.formats.swiss import Swiss

#: Places by seat of a two-seat match: the first seat wins, the second wins, a draw.
RESULTS = ((1, 2), (2, 1), (1, 1))


def play(swiss: Swiss, result: Callable[[tuple[int, int]], tuple[int, int]]):
    """Play ``swiss`` to the end; yield each round's pairs, everyone's seat balance (first
    seats minus second seats) before and after it, and its seats in order."""
    outcomes: dict[str, Outcome] = {}
    balance = [0] * swiss.participants
    seats: list[list[int]] = [[] for _ in range(swiss.participants)]
    while planned := swiss.plan(outcomes):
        before = list(balance)
        for match in planned:
            first, second = match.seats
            balance[first] += 1
            balance[second] -= 1
            seats[first].append(0)
            seats[second].append(1)
            outcomes[match.key] = Outcome(match.key, match.seats, result(match.seats),
                                          (0.0, 0.0), round=match.round)
        yield [match.seats for match in planned], before, list(balance), seats


def three_in_a_row(seats: list[list[int]]) -> list[int]:
    return [p for p, taken in enumerate(seats)
            if any(taken[k] == taken[k + 1] == taken[k + 2] for k in range(len(taken) - 2))]


def within_one_was_possible(pairs: list[tuple[int, int]], before: list[int]) -> bool:
    """Whether the entrants of ``pairs``, all within one before, could have been paired (any
    two, rematches too) so that all stay within one: none of two due the same seat."""
    entrants = sorted({p for pair in pairs for p in pair})
    graph = rustworkx.PyGraph()
    graph.add_nodes_from(entrants)
    graph.add_edges_from([(i, j, 1) for i, a in enumerate(entrants)
                          for j, b in enumerate(entrants[i + 1:], start=i + 1)
                          if before[a] * before[b] <= 0])
    found = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return len(found) == len(entrants) // 2


@settings(max_examples=400, deadline=None, derandomize=True)
@given(participants=st.integers(3, 24), seed=st.integers(0, 2**63 - 1), data=st.data())
def test_seats_stay_within_one_where_a_pairing_allows_and_never_three_in_a_row(
        participants: int, seed: int, data) -> None:
    longest = participants - 1 + participants % 2  # as long as a round robin
    rounds = data.draw(st.integers(1, longest), label="rounds")
    swiss = Swiss(participants=participants, rounds=rounds,
                  secret=secret_from_seed(seed))
    mode = data.draw(st.sampled_from(["first wins", "second wins", "drawn"]))
    draw_result = (lambda seats: RESULTS[0]) if mode == "first wins" else (
        (lambda seats: RESULTS[1]) if mode == "second wins" else
        (lambda seats: data.draw(st.sampled_from(RESULTS))))
    for pairs, before, after, seats in play(swiss, draw_result):
        assert max(map(abs, after)) <= 2 and not three_in_a_row(seats), (pairs, before, after)
        if max(map(abs, after)) > 1 and max(map(abs, before)) <= 1:
            assert not within_one_was_possible(pairs, before), (pairs, before, after)
        if max(map(abs, before)) <= 1:
            for first, second in pairs:  # the one due the first seat (fewer so far) takes it
                assert before[first] <= before[second]


def test_in_a_score_group_entrants_due_the_same_seat_are_kept_apart() -> None:
    """Round 1: (0, 1), (2, 3), (4, 5), (6, 7); 0, 2, 5 and 7 win. The winners 0 and 2 sat
    first, 5 and 7 second: nearest-ranked pairs (0-2, 5-7) would give two of them the same
    seat twice; the score groups pair each with one due the other seat instead."""
    winners = {0, 2, 5, 7}
    rounds = list(play(Swiss(participants=8, rounds=2, secret=secret_from_seed(1)),
                       lambda seats: RESULTS[0] if seats[0] in winners else RESULTS[1]))
    assert rounds[0][0] == [(0, 1), (2, 3), (4, 5), (6, 7)]
    pairs, _before, after, _seats = rounds[1]
    assert {frozenset(pair) for pair in pairs} == {frozenset(p) for p in ((0, 5), (2, 7),
                                                                          (1, 4), (3, 6))}
    assert after == [0] * 8


def test_when_the_first_seat_always_wins_everyone_stays_within_one() -> None:
    """Every winner is due the second seat, so winners never meet each other while a loser
    is there for them: everyone stays within one, at the cost of score gaps (the old greedy
    pairing let them meet and reach two)."""
    for participants in (8, 12, 16, 20, 32):
        swiss = Swiss(participants=participants, rounds=Swiss.default_rounds(participants) + 1,
                      secret=secret_from_seed(participants))
        for _pairs, _before, after, seats in play(swiss, lambda seats: RESULTS[0]):
            assert max(map(abs, after)) <= 1 and not three_in_a_row(seats), participants


def test_a_history_past_two_is_paired_back_within_it() -> None:
    """Three rounds seated before this rule (0, 1 and 2 first every time, 3, 4 and 5 second):
    the fourth pairs each of the first three with one of the others, and it takes the second
    seat."""
    seats = [(0, 3), (1, 4), (2, 5), (0, 4), (1, 5), (2, 3), (0, 5), (1, 3), (2, 4)]
    outcomes = {str(n): Outcome(str(n), pair, RESULTS[2], (0.0, 0.0), round=n // 3)
                for n, pair in enumerate(seats)}
    planned = Swiss(participants=6, rounds=4, secret=secret_from_seed(1)).plan(outcomes)
    assert all(first >= 3 and second < 3 for first, second in (m.seats for m in planned))
