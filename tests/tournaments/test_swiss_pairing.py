"""Swiss pairing, pure (no database): each round is the pairing of least total cost
(checked against every pairing of fields up to 10), withdrawn entrants leave the pairing from
the next round, and each call pairs one round on the rounds stored, as they were stored
(docs/series.md, Swiss)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.rng import secret_from_seed
from tournaments.formats.base import Outcome, PlannedMatch
from tournaments.formats.swiss import BYE, DENSE_UP_TO, RoundCosts, Swiss

#: Places by seat of a two-seat match: the first seat wins, the second wins, a draw.
RESULTS = ((1, 2), (2, 1), (1, 1))


def played(match: PlannedMatch, places: tuple[int, int]) -> Outcome:
    return Outcome(match.key, match.seats, places, (0.0, 0.0), round=match.round)


def pairings(nodes: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every perfect matching of ``nodes``."""
    if not nodes:
        yield []
        return
    first, rest = nodes[0], nodes[1:]
    for k, other in enumerate(rest):
        for tail in pairings(rest[:k] + rest[k + 1:]):
            yield [(first, other), *tail]


def cost_of(costs: RoundCosts, planned: list[PlannedMatch]) -> int:
    """What ``planned`` (one round) costs, its bye included."""
    seated = {p for match in planned for p in match.seats}
    pairs = [match.seats for match in planned]
    pairs += [(p, BYE) for p in costs.nodes if p != BYE and p not in seated]
    return sum(costs.cost(a, b) for a, b in pairs)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(participants=st.integers(2, 10), seed=st.integers(0, 2**32), data=st.data())
def test_no_pairing_of_a_round_costs_less_than_the_one_made(participants: int, seed: int,
                                                            data) -> None:
    """Each round of a random run, paired as its last round (no look ahead), against every
    perfect matching of the same entrants (and the bye)."""
    most = participants - 1 + participants % 2
    rounds = data.draw(st.integers(1, most), label="rounds")
    withdrawn = data.draw(st.sets(st.integers(0, participants - 1), max_size=participants - 2),
                          label="withdrawn after round 1")
    rng = random.Random(seed)
    outcomes: dict[str, Outcome] = {}
    for round_index in range(rounds):
        swiss = Swiss(participants=participants, rounds=round_index + 1,
                      secret=secret_from_seed(seed), withdrawn=withdrawn if round_index else ())
        costs = swiss.round_costs(outcomes)
        planned = swiss.plan(outcomes)
        least = min(sum(costs.cost(a, b) for a, b in pairing)
                    for pairing in pairings(costs.nodes))
        assert cost_of(costs, planned) == least, (round_index, planned)
        for match in planned:
            outcomes[match.key] = played(match, rng.choice(RESULTS))


def test_seats_within_one_come_before_score_gaps() -> None:
    """Round 1 of 6: the first seat wins every match, so the winners 0, 2 and 4 are all due
    the second seat: two of them cannot meet without one passing a balance of one. Each meets
    a loser instead (greedy pairing by score paired 0-2), the loser taking the first seat."""
    swiss = Swiss(participants=6, rounds=3, secret=secret_from_seed(1))
    first = swiss.plan({})
    assert [m.seats for m in first] == [(0, 1), (2, 3), (4, 5)]
    second = swiss.plan({m.key: played(m, (1, 2)) for m in first})
    assert all(a % 2 == 1 and b % 2 == 0 for a, b in (m.seats for m in second)), second


def test_a_withdrawn_entrant_is_paired_no_more_from_the_next_round() -> None:
    secret = secret_from_seed(3)
    swiss = Swiss(participants=6, rounds=4, secret=secret)
    first = swiss.plan({})
    outcomes = {m.key: played(m, (1, 2)) for m in first}
    # Entrant 2 withdraws after round 1: the runner builds the format with it withdrawn.
    later = Swiss(participants=6, rounds=4, secret=secret, withdrawn={2})
    for round_index in (1, 2, 3):
        planned = later.plan(outcomes)
        seated = [p for m in planned for p in m.seats]
        assert 2 not in seated and len(seated) == 4, (round_index, planned)
        assert {m.round for m in planned} == {round_index}
        outcomes.update((m.key, played(m, (2, 1))) for m in planned)
    assert later.plan(outcomes) == [] and later.is_over(outcomes)
    sat_out = [set(range(6)) - {2} - {p for o in outcomes.values() if o.round == r
                                      for p in o.seats} for r in (1, 2, 3)]
    assert all(len(bye) == 1 for bye in sat_out) and len(set.union(*sat_out)) == 3, \
        "five left: one bye a round, to one who had none"


def test_withdrawn_down_to_one_entrant_the_swiss_is_over() -> None:
    swiss = Swiss(participants=3, rounds=3, secret=secret_from_seed(1), withdrawn={0, 2})
    assert swiss.plan({}) == [] and swiss.is_over({})


def test_each_call_pairs_the_next_round_on_the_rounds_as_stored() -> None:
    """The stored rounds are the pairings: here round 1 paired 0-5, 1-4, 2-3 and round 2,
    after entrant 3 withdrew, only two pairs. The next call pairs round 3 alone, numbered after
    them, on that history (no rematch of it); pairing round 1 or 2 again would have given
    other pairs (round 1 pairs 0-1, 2-3, 4-5) and a third board for round 2 (key "5")."""
    stored = [((0, 5), 0), ((4, 1), 0), ((2, 3), 0), ((1, 0), 1), ((5, 2), 1)]
    outcomes = {str(n): Outcome(str(n), seats, (1, 2), (0.0, 0.0), round=r)
                for n, (seats, r) in enumerate(stored)}
    swiss = Swiss(participants=6, rounds=4, secret=secret_from_seed(2), withdrawn={3})
    planned = swiss.plan(outcomes)
    assert [m.key for m in planned] == ["5", "6"] and {m.round for m in planned} == {2}
    met = {frozenset(seats) for seats, _ in stored}
    assert not met & {frozenset(m.seats) for m in planned}
    assert swiss.plan(outcomes) == planned, "the same stored rounds, the same next round"


def test_a_round_still_being_played_is_not_paired_past() -> None:
    swiss = Swiss(participants=6, rounds=3, secret=secret_from_seed(1))
    first = swiss.plan({})
    with pytest.raises(ValueError, match="still being played"):
        swiss.plan({first[0].key: played(first[0], (1, 2))})


def test_a_large_field_pairs_on_its_sparse_graph_as_well_as_on_the_complete_one() -> None:
    """Past ``DENSE_UP_TO`` entrants each is joined to its nearest-ranked only: a run of
    random results pairs everyone once a round, no rematch, and each round costs what the
    complete graph's best would."""
    participants = DENSE_UP_TO + 73
    swiss = Swiss(participants=participants, rounds=6, secret=secret_from_seed(5))
    rng = random.Random(5)
    outcomes: dict[str, Outcome] = {}
    met: set[frozenset[int]] = set()
    while planned := swiss.plan(outcomes):
        costs = swiss.round_costs(outcomes)
        complete = costs.best(lookahead=False, window=participants)
        assert cost_of(costs, planned) == sum(costs.cost(a, b) for a, b in complete)
        seated = [p for m in planned for p in m.seats]
        assert len(seated) == len(set(seated)) == participants - 1
        assert not met & {frozenset(m.seats) for m in planned}
        met |= {frozenset(m.seats) for m in planned}
        outcomes.update((m.key, played(m, rng.choice(RESULTS))) for m in planned)
