"""Schedules keep the promises docs/tournaments.md makes, for 2..64 participants."""

from __future__ import annotations

import pathlib
import re
from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.scheduling import (
    BalanceFigures,
    balance_figures,
    round_robin,
    scheduled_matches,
    table_schedule,
)

FAST = settings(max_examples=60, deadline=None, derandomize=True)


def pair_counts(schedule) -> Counter:
    return Counter(
        frozenset(pair)
        for tables in schedule
        for table in tables
        for pair in combinations(table, 2)
    )


def seat_counts(schedule) -> Counter:
    return Counter(
        (p, seat) for tables in schedule for table in tables for seat, p in enumerate(table)
    )


def sit_out_counts(schedule, participants: int) -> Counter:
    return Counter(
        p for tables in schedule for p in set(range(participants)) - {q for t in tables for q in t}
    )


def check_rounds(schedule, participants: int, seats: int) -> None:
    for tables in schedule:
        seated = [p for table in tables for p in table]
        assert len(seated) == len(set(seated)), "nobody sits at two tables of one round"
        assert set(seated) <= set(range(participants))
        assert all(len(table) == seats for table in tables)


@FAST
@given(participants=st.integers(2, 64), meetings=st.integers(1, 3))
def test_round_robin_pairs_meet_equally_with_seats_balanced(
    participants: int, meetings: int
) -> None:
    schedule = round_robin(participants, meetings=meetings)
    check_rounds(schedule, participants, 2)
    assert len(schedule) == meetings * (participants - 1 + participants % 2)
    pairs = pair_counts(schedule)
    assert len(pairs) == participants * (participants - 1) // 2
    assert set(pairs.values()) == {meetings}
    seats = seat_counts(schedule)
    for p in range(participants):
        assert abs(seats[p, 0] - seats[p, 1]) <= 1
    firsts = Counter(table for tables in schedule for table in tables)
    for a, b in combinations(range(participants), 2):  # each pair swaps seats between meetings
        assert abs(firsts[a, b] - firsts[b, a]) <= 1
    byes = sit_out_counts(schedule, participants)
    assert byes == (Counter({p: meetings for p in range(participants)}) if participants % 2 else {})


def test_round_robin_of_four_is_the_berger_table() -> None:
    assert round_robin(4) == [[(3, 0), (1, 2)], [(2, 3), (0, 1)], [(3, 1), (2, 0)]]
    assert round_robin(3, meetings=2)[0::3] == [[(1, 2)], [(2, 1)]]  # 0 has a bye; seats swap


@FAST
@given(
    participants=st.integers(2, 64),
    seats=st.integers(2, 8),
    rounds=st.integers(1, 6),
    seed=st.integers(0, 2**63 - 1),
)
def test_table_schedule_keeps_its_guarantees(
    participants: int, seats: int, rounds: int, seed: int
) -> None:
    seats = min(seats, participants)
    schedule = table_schedule(participants, seats=seats, rounds=rounds, seed=seed)
    assert len(schedule) == rounds
    check_rounds(schedule, participants, seats)
    assert all(len(tables) == participants // seats for tables in schedule)
    sit_outs = sit_out_counts(schedule, participants)
    counts = [sit_outs[p] for p in range(participants)]
    assert max(counts) - min(counts) <= 1
    assert schedule == table_schedule(participants, seats=seats, rounds=rounds, seed=seed)
    assert improving_exchange(schedule, participants) is None
    check_seat_orders_are_optimal(schedule)


def meeting_cubes(schedule) -> int:
    return sum(count**3 for count in pair_counts(schedule).values())


def improving_exchange(schedule, participants: int):
    """Any exchange of two participants in one round that lowers the sum of meetings cubed."""
    sit_outs = sit_out_counts(schedule, participants)
    best = meeting_cubes(schedule)
    for index, tables in enumerate(schedule):
        bench = sorted(set(range(participants)) - {p for t in tables for p in t})
        groups = [list(t) for t in tables] + [bench]
        for g, h in combinations(range(len(groups)), 2):
            for i, j in ((i, j) for i in range(len(groups[g])) for j in range(len(groups[h]))):
                p, q = groups[g][i], groups[h][j]
                if h == len(tables) and sit_outs[q] != sit_outs[p] + 1:
                    continue  # the exchange would unbalance the sit-outs
                trial = [list(group) for group in groups[:-1]]
                trial[g][i] = q
                if h < len(tables):
                    trial[h][j] = p
                changed = schedule[:index] + [[tuple(t) for t in trial]] + schedule[index + 1:]
                if meeting_cubes(changed) < best:
                    return index, p, q
    return None


def check_seat_orders_are_optimal(schedule) -> None:
    """Each table's order minimises the sum of its players' earlier counts in the seats given."""
    earlier: Counter = Counter()
    for tables in schedule:
        for table in tables:
            if len(table) <= 5:  # 5! orders; larger tables are checked by the same code path
                cost = min(
                    sum(earlier[p, seat] for seat, p in enumerate(order))
                    for order in permutations(table)
                )
                assert sum(earlier[p, seat] for seat, p in enumerate(table)) == cost
        for table in tables:
            for seat, p in enumerate(table):
                earlier[p, seat] += 1


@FAST
@given(participants=st.integers(3, 30), seats=st.integers(2, 8), rounds=st.integers(1, 5))
def test_balance_figures_count_what_the_schedule_holds(
    participants: int, seats: int, rounds: int
) -> None:
    seats = min(seats, participants)
    schedule = table_schedule(participants, seats=seats, rounds=rounds, seed=participants)
    pairs = pair_counts(schedule)
    all_pairs = [pairs[frozenset(pair)] for pair in combinations(range(participants), 2)]
    seats_taken = seat_counts(schedule)
    played = Counter(p for tables in schedule for table in tables for p in table)
    assert balance_figures(schedule, participants) == BalanceFigures(
        pair_meetings_min=min(all_pairs),
        pair_meetings_max=max(all_pairs),
        seat_spread=max(
            max(seats_taken[p, s] for s in range(seats))
            - min(seats_taken[p, s] for s in range(seats))
            for p in range(participants)
        ),
        matches_min=min(played[p] for p in range(participants)),
        matches_max=max(played[p] for p in range(participants)),
    )


def test_round_robin_figures_are_perfect() -> None:
    figures = balance_figures(round_robin(9, meetings=2), 9)
    assert figures == BalanceFigures(2, 2, 0, 16, 16)


def test_a_resolvable_design_is_found_where_the_search_reaches_it() -> None:
    """Nine players in threes for four rounds: everyone meets everyone exactly once."""
    figures = balance_figures(table_schedule(9, seats=3, rounds=4, seed=0), 9)
    assert (figures.pair_meetings_min, figures.pair_meetings_max) == (1, 1)


@pytest.mark.parametrize("participants, seats", [(1, 2), (3, 4), (5, 1)])
def test_impossible_tables_are_refused(participants: int, seats: int) -> None:
    with pytest.raises(ValueError):
        table_schedule(participants, seats=seats, rounds=1, seed=0)


def test_round_robin_needs_two() -> None:
    with pytest.raises(ValueError):
        round_robin(1)


@FAST
@given(participants=st.integers(2, 20), seats=st.integers(2, 8), seed=st.integers(0, 2**63 - 1))
def test_duplicate_matches_rotate_everyone_through_every_seat_of_a_deal(
    participants: int, seats: int, seed: int
) -> None:
    seats = min(seats, participants)
    schedule = table_schedule(participants, seats=seats, rounds=2, seed=seed)
    matches = scheduled_matches(schedule, seed=seed, duplicate=True)
    by_deal: dict[int, list] = {}
    for match in matches:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == sum(len(tables) for tables in schedule)
    for deal_matches in by_deal.values():
        assert len({m.seed for m in deal_matches}) == 1
        assert len({m.round for m in deal_matches}) == 1
        table_size = len(deal_matches[0].seats)
        assert len(deal_matches) == table_size
        players = set(deal_matches[0].seats)
        for p in players:
            assert sorted(m.seats.index(p) for m in deal_matches) == list(range(table_size))
    assert len({m.seed for m in matches}) == len(by_deal), "each deal has its own seed"


def test_without_duplicates_each_table_is_one_match_with_its_own_deal() -> None:
    schedule = round_robin(4)
    matches = scheduled_matches(schedule, seed=1)
    assert [(m.round, m.seats) for m in matches] == [
        (r, table) for r, tables in enumerate(schedule) for table in tables
    ]
    assert [m.deal for m in matches] == list(range(6))
    assert matches == scheduled_matches(schedule, seed=1)
    assert [m.seed for m in matches] != [m.seed for m in scheduled_matches(schedule, seed=2)]
    assert all(0 <= m.seed < 2**63 for m in matches)


def test_the_figures_in_the_docs_are_what_the_code_computes() -> None:
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "tournaments.md").read_text()
    row = r"^\| (\d+) \| (\d+) \| (\d+) \| (\d+)\.\.(\d+) \| (\d+) \| (\d+)\.\.(\d+) \|$"
    rows = re.findall(row, doc, re.M)
    assert len(rows) >= 5
    for participants, seats, rounds, *figures in (map(int, row) for row in rows):
        schedule = table_schedule(participants, seats=seats, rounds=rounds, seed=0)
        f = balance_figures(schedule, participants)
        assert [f.pair_meetings_min, f.pair_meetings_max, f.seat_spread, f.matches_min,
                f.matches_max] == figures, f"docs row {participants}/{seats}/{rounds}"
