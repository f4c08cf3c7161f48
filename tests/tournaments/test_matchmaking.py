"""The ladder's matchmaker (``tournaments.scheduling.matchmaking``, issue 47): which tables start
now. Pure: no database. Its rules hold on any ladder (Hypothesis), and each priority is tried
on a small ladder where it decides the answer."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.scheduling.matchmaking import (
    BLOCK,
    Entrant,
    Policy,
    Table,
    choose,
    information,
)

NOW = 10_000.0
FAST = settings(max_examples=150, deadline=None, derandomize=True)
#: Played a minute ago: neither starving nor new.
SETTLED = NOW - 60


def settled(id: int, mu: float = 25.0, sigma: float = 3.0, **kw) -> Entrant:
    return Entrant(id, mu, sigma, matches=20, last_played=SETTLED, **kw)


def seated(tables: list[Table]) -> Counter[int]:
    """Matches each entrant is put in by ``tables``."""
    return Counter(e for table in tables for seats in table.seatings for e in set(seats))


@st.composite
def ladders(draw, most: int = 24) -> tuple[list[Entrant], dict[frozenset[int], int], Policy]:
    size = draw(st.sampled_from([2, 2, 3, 4]))
    duplicate = draw(st.booleans())
    per_entrant = draw(st.integers(size if duplicate else 1, size + 1 if duplicate else 3))
    rows = draw(st.lists(st.tuples(
        st.floats(0, 50), st.floats(0.5, 8.5), st.integers(0, per_entrant), st.integers(0, 3),
        st.none() | st.floats(NOW - 600, NOW), st.none() | st.integers(0, 3),
        st.booleans()), max_size=most))
    entrants = [Entrant(i, mu, sigma, 5, flying, burst, last, owner, paused)
                for i, (mu, sigma, flying, burst, last, owner, paused) in enumerate(rows)]
    room = draw(st.integers(-2, 24))  # matches the ladder may start, over what runs
    policy = Policy(table_size=size, duplicate=duplicate,
                    max_in_flight=max(0, sum(e.in_flight for e in entrants) + room),
                    max_in_flight_per_entrant=per_entrant,
                    pair_cap_per_day=draw(st.integers(1, 4)), starve_after_seconds=300,
                    neighbours=draw(st.integers(1, 4)))
    pairs = list(combinations(range(len(entrants)), 2))
    counted = draw(st.lists(st.sampled_from(pairs), max_size=30)) if pairs else []
    counts = {frozenset(pair): draw(st.integers(0, 5)) for pair in counted}
    return entrants, counts, policy


@FAST
@given(ladder=ladders(), seed=st.integers(0, 2**32))
def test_no_table_breaks_a_rule(ladder, seed) -> None:
    entrants, counts, policy = ladder
    tables = choose(entrants, counts, policy, now=NOW, seed=seed)
    by_id = {e.id: e for e in entrants}
    per_table = policy.table_size if policy.duplicate else 1
    for table in tables:
        assert len(set(table.seats)) == len(table.seats) == policy.table_size, "once a table"
        assert not any(by_id[e].paused for e in table.seats), "a paused entrant plays"
        owners = [by_id[e].owner for e in table.seats if by_id[e].owner is not None]
        assert len(set(owners)) == len(owners), "two entrants of one owner met"
        rotations = [table.seats[k:] + table.seats[:k] for k in range(per_table)]
        assert list(table.seatings) == rotations, "a duplicate group rotates its seats"
    assert len({t.deal for t in tables}) == len(tables), "each table its own deal"
    flying = sum(e.in_flight for e in entrants)
    assert flying + per_table * len(tables) <= max(policy.max_in_flight, flying), "ladder cap"
    for entrant, matches in seated(tables).items():
        assert by_id[entrant].in_flight + matches <= policy.max_in_flight_per_entrant
    met = Counter(frozenset(pair) for t in tables for seats in t.seatings
                  for pair in combinations(seats, 2))
    for pair, matches in met.items():
        assert counts.get(pair, 0) + matches <= policy.pair_cap_per_day, "pair cap"


@FAST
@given(ladder=ladders(), seed=st.integers(0, 2**32))
def test_the_same_ladder_and_seed_give_the_same_tables(ladder, seed) -> None:
    entrants, counts, policy = ladder
    first = choose(entrants, counts, policy, now=NOW, seed=seed)
    shuffled = random.Random(seed).sample(entrants, len(entrants))
    assert choose(shuffled, dict(counts), policy, now=NOW, seed=seed) == first


@pytest.mark.parametrize("size", [2, 3])
def test_a_seed_breaks_ties_between_equal_ratings(size) -> None:
    field = [Entrant(i, 25.0, 8.3) for i in range(12)]
    policy = Policy(table_size=size)
    answers = {frozenset(frozenset(t.seats) for t in choose(field, {}, policy, now=NOW, seed=seed))
               for seed in range(10)}
    assert len(answers) > 1, "new bots of one rating always meet by id"


@FAST
@given(rows=st.lists(st.tuples(st.floats(0, 50), st.booleans(), st.booleans(),
                               st.none() | st.integers(0, 3)), min_size=4, max_size=90),
       room=st.integers(1, 8), cap=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_starving_entrants_are_served_first(rows, room, cap, seed) -> None:
    """Tables seating more starving entrants come first, and a starving entrant is left out
    only when the room went to starving ones, or when each entrant it may meet sits beside a
    starving one (2 seats, one match each; fields past one block too)."""
    entrants = [Entrant(i, mu, 3.0, 5, int(busy), last_played=SETTLED if fed else None,
                        owner=owner) for i, (mu, fed, busy, owner) in enumerate(rows)]
    counts = {frozenset((i, i + 1)): i % 4 for i in range(0, len(rows) - 1, 3)}
    policy = Policy(max_in_flight=room + sum(e.in_flight for e in entrants),
                    pair_cap_per_day=cap, starve_after_seconds=300, neighbours=2)
    tables = choose(entrants, counts, policy, now=NOW, seed=seed)
    by_id = {e.id: e for e in entrants}

    def starving(e: Entrant) -> bool:
        return e.last_played is None or NOW - e.last_played >= 300

    def may_meet(a: Entrant, b: Entrant) -> bool:
        return (a.owner is None or a.owner != b.owner) and (
            counts.get(frozenset((a.id, b.id)), 0) < policy.pair_cap_per_day)

    served = [sum(starving(by_id[e]) for e in t.seats) for t in tables]
    assert served == sorted(served, reverse=True)
    beside = {a: by_id[b] for t in tables for a, b in (t.seats, t.seats[::-1])}
    free = [e for e in entrants if not e.paused and not e.in_flight]
    for s in free:
        if not starving(s) or s.id in beside or all(served):
            continue
        for other in free:
            if other is not s and may_meet(s, other):
                assert other.id in beside and starving(beside[other.id]), (s, other)


def test_a_starving_entrant_far_down_the_ranking_gets_the_one_table() -> None:
    field = [settled(i, mu=30 + i / 10, sigma=6) for i in range(8)]
    hungry = Entrant(99, 5.0, 1.0, matches=50, last_played=NOW - 3601)
    [table] = choose([*field, hungry], {}, Policy(max_in_flight=1), now=NOW, seed=0)
    assert 99 in table.seats


@pytest.mark.parametrize("size", [2, 3])
def test_a_starving_entrant_looks_past_the_neighbours_it_may_not_meet(size) -> None:
    mates = [settled(0, mu=20, owner=1), settled(1, mu=22, owner=1)]
    hungry = Entrant(2, 21.0, 3.0, matches=50, last_played=NOW - 3601, owner=1)
    far = [settled(3, mu=40), settled(4, mu=41)]
    policy = Policy(table_size=size, max_in_flight=1, neighbours=size - 1)
    [table] = choose([*mates, hungry, *far], {}, policy, now=NOW, seed=0)
    assert set(table.seats) == {2, 3, 4} if size == 3 else {2, 3}


def test_a_starving_entrant_finds_the_one_it_may_meet_in_another_block() -> None:
    house = [settled(i, mu=20 + i / 10, owner=1) for i in range(BLOCK)]
    hungry = Entrant(100, 5.0, 3.0, matches=50, last_played=NOW - 3601, owner=1)
    outsider = settled(101, mu=45)
    for seed in range(5):
        tables = choose([*house, hungry, outsider], {}, Policy(), now=NOW, seed=seed)
        assert [set(t.seats) for t in tables] == [{100, 101}]


def test_a_bot_never_played_counts_as_starving() -> None:
    field = [settled(i, mu=30 + i / 10, sigma=6) for i in range(8)]
    new = Entrant(99, 5.0, 1.0)
    [table] = choose([*field, new], {}, Policy(max_in_flight=1), now=NOW, seed=0)
    assert 99 in table.seats


def test_a_burst_entrant_is_chosen_before_settled_ones() -> None:
    field = [settled(i, mu=25 + i / 10, sigma=6) for i in range(8)]
    changed = settled(99, mu=45.0, sigma=1.0, burst=3)
    for seed in range(5):
        [table] = choose([*field, changed], {}, Policy(max_in_flight=1), now=NOW, seed=seed)
        assert 99 in table.seats
    [table] = choose([*field, replace_burst(changed, 0)], {}, Policy(max_in_flight=1), now=NOW,
                     seed=0)
    assert 99 not in table.seats, "without its burst it is the least useful match"


def replace_burst(entrant: Entrant, burst: int) -> Entrant:
    return Entrant(entrant.id, entrant.mu, entrant.sigma, entrant.matches, entrant.in_flight,
                   burst, entrant.last_played, entrant.owner, entrant.paused)


def test_overlapping_intervals_are_preferred_to_a_far_apart_pair() -> None:
    low, near, nearer = settled(0, mu=10), settled(1, mu=30), settled(2, mu=31)
    assert information(near, nearer) > 10 * information(low, near)
    [table] = choose([low, near, nearer], {}, Policy(), now=NOW, seed=0)
    assert set(table.seats) == {1, 2}
    # Of two even pairs, the more uncertain one teaches more.
    unsure = [settled(3, mu=20, sigma=6), settled(4, mu=23, sigma=6)]
    [table] = choose([low, near, nearer, *unsure], {}, Policy(max_in_flight=1), now=NOW, seed=0)
    assert set(table.seats) == {3, 4}


def test_the_matching_takes_the_best_total_not_the_best_pair_first() -> None:
    """a-b-c-d in a row, b and c closest: b-c first would leave a-d, far apart."""
    row = [settled(0, mu=20), settled(1, mu=22), settled(2, mu=23), settled(3, mu=25)]
    tables = choose(row, {}, Policy(), now=NOW, seed=0)
    assert sorted(sorted(t.seats) for t in tables) == [[0, 1], [2, 3]]


def test_a_pair_at_its_daily_cap_does_not_meet() -> None:
    pair = [settled(0), settled(1)]
    assert choose(pair, {frozenset((0, 1)): 9}, Policy(pair_cap_per_day=10), now=NOW, seed=0)
    assert not choose(pair, {frozenset((0, 1)): 10}, Policy(pair_cap_per_day=10), now=NOW, seed=0)


def test_one_owners_entrants_and_paused_entrants_never_play() -> None:
    field = [settled(0, owner=7), settled(1, owner=7), settled(2, paused=True), settled(3)]
    tables = choose(field, {}, Policy(), now=NOW, seed=0)
    assert len(tables) == 1 and 3 in tables[0].seats and 2 not in tables[0].seats


def test_an_entrant_with_room_for_several_matches_meets_several_opponents() -> None:
    field = [settled(i, mu=25 + i) for i in range(4)]
    tables = choose(field, {}, Policy(max_in_flight_per_entrant=3), now=NOW, seed=0)
    pairs = [frozenset(t.seats) for t in tables]
    assert len(pairs) == 6 == len(set(pairs)), "every pair once, nobody over 3"
    busy = [settled(i, mu=25 + i, in_flight=2) for i in range(4)]
    assert len(choose(busy, {}, Policy(max_in_flight_per_entrant=3), now=NOW, seed=0)) == 2


def test_a_duplicate_group_rotates_seats_on_one_deal_and_counts_every_match() -> None:
    field = [settled(i, mu=25 + i) for i in range(6)]
    policy = Policy(table_size=3, duplicate=True, max_in_flight=6, max_in_flight_per_entrant=3)
    tables = choose(field, {}, policy, now=NOW, seed=0)
    assert len(tables) == 2 and all(len(t.seatings) == 3 for t in tables)
    a, b, c = tables[0].seats
    assert tables[0].seatings == ((a, b, c), (b, c, a), (c, a, b))
    assert len(choose(field, {}, Policy(**{**policy.__dict__, "max_in_flight": 5}), now=NOW,
                      seed=0)) == 1, "a group of 3 matches needs room for 3"
    with pytest.raises(ValueError, match="duplicate"):
        Policy(duplicate=True)  # two matches at once, one allowed


@pytest.mark.parametrize("bad", [{"table_size": 1}, {"pair_cap_per_day": 0},
                                 {"max_in_flight_per_entrant": 0}, {"neighbours": 0}])
def test_impossible_policies_are_refused(bad) -> None:
    with pytest.raises(ValueError):
        Policy(**bad)


def test_entrant_ids_are_unique() -> None:
    with pytest.raises(ValueError, match="unique"):
        choose([settled(1), settled(1)], {}, Policy(), now=NOW, seed=0)


def test_a_large_field_pairs_neighbours_in_the_ranking_and_seats_nearly_everyone() -> None:
    """Past one block the candidates are sparse: each pair is near in the rating order."""
    rng = random.Random(3)
    field = [settled(i, mu=rng.uniform(0, 50), sigma=rng.uniform(1, 6),
                     owner=rng.randrange(100)) for i in range(5 * BLOCK)]
    policy = Policy(max_in_flight=len(field))
    rank = {e.id: k for k, e in enumerate(sorted(field, key=lambda e: e.mu))}
    for seed in range(3):
        tables = choose(field, {}, policy, now=NOW, seed=seed)
        assert len(tables) >= 0.98 * len(field) / 2
        gaps = [abs(rank[a] - rank[b]) for a, b in (t.seats for t in tables)]
        assert max(gaps) <= policy.neighbours and sum(gaps) <= 3 * len(gaps), gaps


def test_entrants_being_placed_meet_random_opponents_not_their_neighbours() -> None:
    """Above ``placing_sigma`` the ratings say little: opponents are drawn across the block,
    so the first results are decisive (the module's docstring); below it, neighbours."""
    policy = Policy(max_in_flight=BLOCK // 2)
    for sigma, far in ((7.0, True), (5.0, False)):
        field = [settled(i, mu=i / 2, sigma=sigma) for i in range(BLOCK)]
        gaps = [abs(a - b) for seed in range(3)
                for a, b in (t.seats for t in choose(field, {}, policy, now=NOW, seed=seed))]
        assert (sum(gaps) / len(gaps) > 10) == far, gaps


def test_who_a_block_cut_leaves_out_meets_its_neighbour_across_it() -> None:
    """Close couples, far apart, the cuts between two of a couple: each couple meets."""
    field = [settled(i, mu=5 * ((i + 1) // 2) + i % 2 / 10) for i in range(3 * BLOCK)]
    tables = choose(field, {}, Policy(max_in_flight=999), now=NOW, seed=0)
    couples = {frozenset((i, i + 1)) for i in range(1, len(field) - 1, 2)}
    assert {frozenset(t.seats) for t in tables} == couples
