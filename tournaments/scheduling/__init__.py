"""Who plays whom, in which seat, with which deal: pure functions, no Django.

A schedule is an ordered list of rounds; a round is a list of tables; a table is a tuple of
participant indices (``0..participants-1``) in seat order. Nobody sits at two tables of one
round. ``docs/tournaments.md`` describes the algorithms and what each one guarantees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from games.engine.rng import Rng, deal_seed

from .designs import resolvable_design
from .groupings import balanced_groupings
from .seating import balanced_seating

Table = tuple[int, ...]
Round = list[Table]
Schedule = list[Round]

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
    """``rounds`` rounds of tables of exactly ``seats`` seats, pairs and seats balanced.

    Who sits together comes from a known resolvable design when one fits the shape
    (``designs``), else from a bounded simulated annealing seeded by ``seed`` that lowers the
    spread of pair meetings, then their sum of squares (``groupings``). Sit-outs
    (``participants % seats`` a round) differ by at most one between participants. Then seat
    positions are balanced exactly over the whole schedule (``seating``): each participant's
    counts over the positions differ by at most one, and by none when its number of tables is a
    multiple of ``seats``.
    """
    if not 2 <= seats <= participants:
        raise ValueError(f"cannot seat {participants} participants at tables of {seats}")
    if rounds < 1:
        raise ValueError(f"a schedule needs at least one round, not {rounds}")
    rng = Rng(seed)
    groups = (_design_rounds(participants, seats, rounds, rng)
              or balanced_groupings(participants, seats, rounds, rng))
    seated = iter(balanced_seating([table for tables in groups for table in tables],
                                   participants))
    return [[next(seated) for _ in tables] for tables in groups]


def pair_spread_bound(participants: int, *, seats: int, rounds: int) -> int:
    """A lower bound on the pair spread (most minus fewest meetings of two participants): 0
    when the schedule's pair slots divide evenly over the pairs, else 1. Often out of reach
    (sit-outs alone can force more; docs/tournaments.md)."""
    slots = rounds * (participants // seats) * seats * (seats - 1) // 2
    return 0 if slots % (participants * (participants - 1) // 2) == 0 else 1


def pair_spread_floor(participants: int, *, seats: int, rounds: int) -> int:
    """A lower bound on the pair spread that counts sit-outs, at least
    :func:`pair_spread_bound`: a participant playing ``g`` tables meets the other
    ``participants - 1`` in ``g * (seats - 1)`` pair slots, so one of them at least
    ``ceil(g (seats - 1) / (participants - 1))`` times and one at most the floor of it. With
    sit-outs within one of each other the most playing play ``ceil(G / participants)`` tables
    and the fewest ``floor(G / participants)`` (``G`` seats filled over the rounds): the
    spread is at least the one's ceiling minus the other's floor. Five in fours for seven rounds
    (sit-outs 1 or 2): 5 - 3 = 2, where the slots alone say 1."""
    others = participants - 1
    filled = rounds * (participants // seats) * seats
    fewest, most = filled // participants, -(-filled // participants)
    return -(-most * (seats - 1) // others) - fewest * (seats - 1) // others


def _design_rounds(participants: int, seats: int, rounds: int, rng: Rng) -> Schedule | None:
    """Rounds cycling through a resolvable design's classes, participants and classes in a
    seeded order: every pair meets ``rounds // r`` or one more times, the best possible."""
    classes = (round_robin(participants) if seats == 2 and participants % 2 == 0
               else resolvable_design(participants, seats))
    if classes is None:
        return None
    label = list(range(participants))
    rng.shuffle(label)
    rng.shuffle(classes)
    return [[tuple(label[p] for p in table) for table in classes[r % len(classes)]]
            for r in range(rounds)]


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
    schedule: Sequence[Sequence[Table]], *, secret: str, duplicate: bool = False
) -> list[ScheduledMatch]:
    """The matches of a schedule, each table its own deal, seeded by its number keyed with
    the series' ``secret`` (``rng.deal_seed(secret, "deal", number)``: no published seed
    gives away another).

    With ``duplicate``, a table of k seats becomes k matches on one deal: the seat order
    rotated by 0..k-1, so each participant plays every seat of that deal once (ACPC practice,
    generalised from two seats to k).
    """
    matches: list[ScheduledMatch] = []
    deal = 0
    for round_index, tables in enumerate(schedule):
        for table in tables:
            seed = deal_seed(secret, "deal", deal)
            rotations = range(len(table)) if duplicate else range(1)
            matches += [
                ScheduledMatch(round_index, table[shift:] + table[:shift], deal, seed)
                for shift in rotations
            ]
            deal += 1
    return matches
