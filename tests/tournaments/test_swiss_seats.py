"""Swiss seats, pure (no database): in each pair the entrant due the first seat takes it, the
pairing keeps entrants of one score group due the same seat apart where it can, and nobody's
first seats and second seats differ by more than two after any round of a Swiss shorter than
a round robin, whatever the results; a history past that (from before the rule) is paired
back within it (docs/series.md, Swiss)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.rng import secret_from_seed
from tournaments.formats.base import Outcome
from tournaments.formats.swiss import Swiss

#: Places by seat of a two-seat match: the first seat wins, the second wins, a draw.
RESULTS = ((1, 2), (2, 1), (1, 1))


def play(swiss: Swiss, result: Callable[[tuple[int, int]], tuple[int, int]]):
    """Play ``swiss`` to the end; yield each round's pairs and everyone's seat balance (first
    seats minus second seats) before and after it."""
    outcomes: dict[str, Outcome] = {}
    balance = [0] * swiss.participants
    while planned := swiss.plan(outcomes):
        before = list(balance)
        for match in planned:
            first, second = match.seats
            balance[first] += 1
            balance[second] -= 1
            outcomes[match.key] = Outcome(match.key, match.seats, result(match.seats),
                                          (0.0, 0.0))
        yield [match.seats for match in planned], before, list(balance)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(participants=st.integers(3, 24), seed=st.integers(0, 2**63 - 1), data=st.data())
def test_nobodys_seats_differ_by_more_than_two_after_any_round(participants: int, seed: int,
                                                                data) -> None:
    longest = participants - 2 + participants % 2  # one round short of a round robin
    rounds = data.draw(st.integers(1, longest), label="rounds")
    swiss = Swiss(participants=participants, rounds=rounds,
                  secret=secret_from_seed(seed))
    mode = data.draw(st.sampled_from(["first wins", "second wins", "drawn"]))
    draw_result = (lambda seats: RESULTS[0]) if mode == "first wins" else (
        (lambda seats: RESULTS[1]) if mode == "second wins" else
        (lambda seats: data.draw(st.sampled_from(RESULTS))))
    for pairs, before, after in play(swiss, draw_result):
        assert max(map(abs, after)) <= 2, (pairs, before, after)
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
    pairs, _before, after = rounds[1]
    assert {frozenset(pair) for pair in pairs} == {frozenset(p) for p in ((0, 5), (2, 7),
                                                                          (1, 4), (3, 6))}
    assert after == [0] * 8


def test_when_the_first_seat_always_wins_nobody_takes_a_seat_three_times_more() -> None:
    """Every winner is due the second seat, so winners must sometimes meet both due it; the
    pairing still keeps everyone within two."""
    for participants in (8, 12, 16, 20, 32):
        swiss = Swiss(participants=participants, rounds=Swiss.default_rounds(participants) + 1,
                      secret=secret_from_seed(participants))
        for _pairs, _before, after in play(swiss, lambda seats: RESULTS[0]):
            assert max(map(abs, after)) <= 2, participants


def test_a_history_past_two_is_paired_back_within_it() -> None:
    """Three rounds seated before this rule (0, 1 and 2 first every time, 3, 4 and 5 second):
    the fourth pairs each of the first three with one of the others, and it takes the second
    seat."""
    seats = [(0, 3), (1, 4), (2, 5), (0, 4), (1, 5), (2, 3), (0, 5), (1, 3), (2, 4)]
    outcomes = {str(n): Outcome(str(n), pair, RESULTS[2], (0.0, 0.0))
                for n, pair in enumerate(seats)}
    planned = Swiss(participants=6, rounds=4, secret=secret_from_seed(1)).plan(outcomes)
    assert all(first >= 3 and second < 3 for first, second in (m.seats for m in planned))
