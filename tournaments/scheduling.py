"""Who plays whom, in which seat, with which deal: pure functions, no Django.

A schedule is an ordered list of rounds; a round is a list of tables; a table is a tuple of
participant indices (``0..participants-1``) in seat order. Nobody sits at two tables of one
round. ``docs/tournaments.md`` describes the algorithms and what each one guarantees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from games.engine.rng import Rng

Table = tuple[int, ...]
Round = list[Table]
Schedule = list[Round]

#: Engine seeds are non-negative 63-bit integers.
_SEED_BITS = 63


def round_robin(participants: int, *, meetings: int = 1) -> Schedule:
    """A two-player round robin by the circle method (Berger tables).

    Each pair meets ``meetings`` times, alternating who takes the first seat, and every
    participant's first-seat and second-seat counts differ by at most one over the whole
    tournament. With an odd count a phantom participant is added; whoever meets it has a bye
    (no table that round).
    """
    if participants < 2:
        raise ValueError(f"a round robin needs 2 or more participants, not {participants}")
    if meetings < 1:
        raise ValueError(f"each pair must meet at least once, not {meetings}")
    circle = participants - 1 + participants % 2  # odd: the circle turns around one hub
    hub = circle  # the fixed participant, or the phantom whose opponent has a bye
    half_of_two = (circle + 1) // 2  # the inverse of 2 modulo the odd circle size
    one_cycle: Schedule = []
    for turn in range(circle):
        partner = turn * half_of_two % circle  # the one with 2 * partner == turn (mod circle)
        tables: Round = []
        if hub < participants:  # the hub alternates seats, like board 1 of a Berger table
            tables.append((hub, partner) if turn % 2 == 0 else (partner, hub))
        for first in range(circle):
            second = (turn - first) % circle
            # A regular tournament on the circle: each one takes the first seat against the
            # next (circle - 1) / 2 clockwise, so first and second seats are equal on it.
            if first != second and (second - first) % circle <= (circle - 1) // 2:
                tables.append((first, second))
        one_cycle.append(tables)
    return [
        [table[::-1] if cycle % 2 else table for table in tables]
        for cycle in range(meetings)
        for tables in one_cycle
    ]


def table_schedule(participants: int, *, seats: int, rounds: int, seed: int) -> Schedule:
    """``rounds`` rounds of tables of exactly ``seats`` seats, balanced by local search.

    Sit-outs (``participants % seats`` a round) go to those who sat out least (ties by a draw
    from ``seed``). Tables start greedy and are improved by exchanging two participants of a
    round (or a player and one sitting out) while the sum over pairs of meetings cubed falls:
    round by round, then in passes over the whole schedule until no exchange helps. Last, each
    table's seat order is the one that best evens out its players' seat positions so far.
    """
    if not 2 <= seats <= participants:
        raise ValueError(f"cannot seat {participants} participants at tables of {seats}")
    if rounds < 1:
        raise ValueError(f"a schedule needs at least one round, not {rounds}")
    rng = Rng(seed)
    meetings = [[0] * participants for _ in range(participants)]
    sit_outs = [0] * participants
    arrangement: list[tuple[list[list[int]], list[int]]] = []
    for _ in range(rounds):
        order = list(range(participants))
        rng.shuffle(order)
        order.sort(key=sit_outs.__getitem__)  # stable: the shuffle breaks ties
        bench, playing = order[: participants % seats], order[participants % seats :]
        for participant in bench:
            sit_outs[participant] += 1
        groups = _greedy_tables(playing, seats, meetings)
        _swap_minimal(groups, bench, meetings, sit_outs)
        _count_meetings(meetings, groups, +1)
        arrangement.append((groups, bench))
    changed = True
    while changed:  # a round placed early did not know the later ones
        changed = False
        for groups, bench in arrangement:
            _count_meetings(meetings, groups, -1)
            changed |= _swap_minimal(groups, bench, meetings, sit_outs)
            _count_meetings(meetings, groups, +1)
    seat_counts = [[0] * seats for _ in range(participants)]
    schedule: Schedule = []
    for groups, _bench in arrangement:
        tables = [_balanced_seat_order(group, seat_counts) for group in groups]
        for table in tables:
            for seat, participant in enumerate(table):
                seat_counts[participant][seat] += 1
        schedule.append(tables)
    return schedule


def pair_cost(meetings: int) -> int:
    """The cost of one more meeting of a pair that has met ``meetings`` times.

    Convex (the marginal cost of meetings cubed), so two pairs meeting once cost less than
    one pair meeting twice and the local search spreads meetings evenly.
    """
    return 3 * meetings * meetings + 3 * meetings + 1


def _count_meetings(meetings: list[list[int]], groups: list[list[int]], step: int) -> None:
    for group in groups:
        for a, b in combinations(group, 2):
            meetings[a][b] += step
            meetings[b][a] += step


def _greedy_tables(playing: list[int], seats: int, meetings: list[list[int]]) -> list[list[int]]:
    """A first split: each participant in turn joins the open table it has met least."""
    groups: list[list[int]] = [[] for _ in range(len(playing) // seats)]
    for participant in playing:
        open_groups = [group for group in groups if len(group) < seats]
        best = min(
            open_groups, key=lambda group: sum(pair_cost(meetings[participant][m]) for m in group)
        )
        best.append(participant)
    return groups


def _swap_minimal(
    groups: list[list[int]], bench: list[int], meetings: list[list[int]], sit_outs: list[int]
) -> bool:
    """Exchange participants between tables, or with the bench, while that lowers the cost.

    ``affinity[p][g]`` (p's pair costs with table g's members) makes each candidate exchange
    O(1). One on the bench only changes place with a player who has sat out once less, so the
    multiset of sit-out counts stays the same. The cost is a positive integer that falls at
    every exchange, so the search ends.
    """
    participants = len(meetings)
    cost = [[pair_cost(m) for m in row] for row in meetings]
    for p in range(participants):
        cost[p][p] = 0  # so affinity[p][g] counts p's table mates only
    tables = len(groups)
    everyone = groups + [bench]  # the bench is a group whose costs never count
    affinity = [[sum(row[m] for m in group) for group in groups] + [0] for row in cost]
    exchanged, improved = False, True
    while improved:
        improved = False
        for g, h in combinations(range(tables + 1), 2):
            for i, p in enumerate(everyone[g]):
                for j, q in enumerate(everyone[h]):
                    if h == tables and sit_outs[q] != sit_outs[p] + 1:
                        continue
                    change = affinity[q][g] - affinity[p][g] - cost[p][q]
                    if h < tables:
                        change += affinity[p][h] - affinity[q][h] - cost[p][q]
                    if change < 0:
                        everyone[g][i], everyone[h][j] = q, p
                        for r in range(participants):
                            affinity[r][g] += cost[r][q] - cost[r][p]
                            if h < tables:
                                affinity[r][h] += cost[r][p] - cost[r][q]
                        if h == tables:
                            sit_outs[p], sit_outs[q] = sit_outs[q], sit_outs[p]
                        p = q
                        exchanged = improved = True
    return exchanged


def _balanced_seat_order(group: list[int], seat_counts: list[list[int]]) -> Table:
    """The seat order minimising the sum of ``seat_counts[participant][seat]`` (exact).

    A dynamic programme over the subsets of seats already given (at most 2**8 of them): the
    participants take seats in ``group`` order, so each subset has one best completion.
    """
    size = len(group)
    full = (1 << size) - 1
    best_cost = [0] * (1 << size)
    best_seat = [0] * (1 << size)
    for taken in range(full - 1, -1, -1):  # subsets from the fullest down
        index = taken.bit_count()  # the participant who chooses next
        choices = [
            (seat_counts[group[index]][seat] + best_cost[taken | 1 << seat], seat)
            for seat in range(size)
            if not taken & 1 << seat
        ]
        best_cost[taken], best_seat[taken] = min(choices)
    seated = [0] * size
    taken = 0
    for participant in group:
        seat = best_seat[taken]
        seated[seat] = participant
        taken |= 1 << seat
    return tuple(seated)


@dataclass(frozen=True)
class BalanceFigures:
    """How even a schedule is; shown when a tournament is created."""

    #: Fewest and most times any two participants share a table.
    pair_meetings_min: int
    pair_meetings_max: int
    #: Over participants, the largest (most - fewest) times one participant took a seat position.
    seat_spread: int
    #: Fewest and most matches any participant plays.
    matches_min: int
    matches_max: int


def balance_figures(schedule: Sequence[Sequence[Table]], participants: int) -> BalanceFigures:
    """Count what :func:`round_robin` and :func:`table_schedule` aim to keep even."""
    seats = max((len(table) for tables in schedule for table in tables), default=0)
    meetings = [[0] * participants for _ in range(participants)]
    seat_counts = [[0] * seats for _ in range(participants)]
    for tables in schedule:
        for table in tables:
            for seat, participant in enumerate(table):
                seat_counts[participant][seat] += 1
            for a, b in combinations(table, 2):
                meetings[min(a, b)][max(a, b)] += 1
    pairs = [meetings[a][b] for a, b in combinations(range(participants), 2)]
    matches = [sum(counts) for counts in seat_counts]
    return BalanceFigures(
        pair_meetings_min=min(pairs, default=0),
        pair_meetings_max=max(pairs, default=0),
        seat_spread=max((max(c) - min(c) for c in seat_counts if c), default=0),
        matches_min=min(matches, default=0),
        matches_max=max(matches, default=0),
    )


@dataclass(frozen=True)
class ScheduledMatch:
    """One match to create: its round, participants in seat order, and its deal.

    Matches with the same ``deal`` are dealt from the same ``seed``: with duplicate matches,
    the same table plays one deal once per seat rotation, so standings compare on equal deals.
    """

    round: int
    seats: Table
    deal: int
    seed: int


def scheduled_matches(
    schedule: Sequence[Sequence[Table]], *, seed: int, duplicate: bool = False
) -> list[ScheduledMatch]:
    """The matches of a schedule, each table its own deal with a seed drawn from ``seed``.

    With ``duplicate``, a table of k seats becomes k matches on one deal: the seat order
    rotated by 0..k-1, so each participant plays every seat of that deal once (ACPC practice,
    generalised from two seats to k).
    """
    rng = Rng(seed)
    matches: list[ScheduledMatch] = []
    deal = 0
    for round_index, tables in enumerate(schedule):
        for table in tables:
            deal_seed = rng.next64() >> (64 - _SEED_BITS)
            rotations = range(len(table)) if duplicate else range(1)
            matches += [
                ScheduledMatch(round_index, table[shift:] + table[:shift], deal, deal_seed)
                for shift in rotations
            ]
            deal += 1
    return matches
