"""Seat orders for fixed tables, balanced exactly: pure functions, no Django.

Who sits at which table is decided elsewhere (``tournaments.scheduling``); here each table's
members get seat positions ``0..k-1`` so that every participant's counts over the positions
differ by at most one, and are equal when its number of tables is a multiple of ``k``.

This is an equitable edge colouring of the bipartite multigraph joining each participant to
each table it sits at, with the seat positions as colours (de Werra, 1971: one always exists
for bipartite multigraphs). It is computed, not hoped for: start from any seating and, while
some participant sits at least twice more in position ``a`` than in ``b``, rebalance the pair of
positions ``(a, b)`` over the whole schedule. Restricted to those two positions every table is
one edge between the member in ``a`` and the member in ``b``; orienting those edges along
Euler trails (the member the edge leaves takes ``a``) leaves every participant with
``|count_a - count_b| <= 1``. Each rebalancing keeps every table's members in distinct
positions and lowers the sum over participants of their counts squared, so the loop ends.
"""

from __future__ import annotations

from collections.abc import Sequence

Table = tuple[int, ...]


def balanced_seating(tables: Sequence[Sequence[int]], participants: int) -> list[Table]:
    """``tables`` (all of a schedule's tables, each a group of distinct participants) with their
    members reordered into seat positions balanced as the module says.

    Tables may differ in size (positions a table lacks are simply not counted for it); the
    guarantee is stated for tables of one size ``k``. The result depends only on the input
    order, so a seeded caller gets a reproducible seating.
    """
    seats = max((len(table) for table in tables), default=0)
    seated = [list(table) for table in tables]
    counts = [[0] * seats for _ in range(participants)]
    for table in seated:
        for position, participant in enumerate(table):
            counts[participant][position] += 1
    while (pair := _unbalanced_positions(counts)) is not None:
        _rebalance(seated, counts, *pair)
    return [tuple(table) for table in seated]


def seat_spreads(tables: Sequence[Sequence[int]], participants: int) -> list[int]:
    """Each participant's most minus fewest times in one seat position (0 if it never sat)."""
    seats = max((len(table) for table in tables), default=0)
    counts = [[0] * seats for _ in range(participants)]
    for table in tables:
        for position, participant in enumerate(table):
            counts[participant][position] += 1
    return [max(row) - min(row) if any(row) else 0 for row in counts]


def _unbalanced_positions(counts: list[list[int]]) -> tuple[int, int] | None:
    """Positions ``(a, b)`` some participant took at least twice more often a than b."""
    for row in counts:
        most, fewest = max(row), min(row)
        if most - fewest >= 2:
            return row.index(most), row.index(fewest)
    return None


def _rebalance(seated: list[list[int]], counts: list[list[int]], a: int, b: int) -> None:
    """Re-assign positions ``a`` and ``b`` at every table holding both, so that each
    participant's counts in ``a`` and ``b`` differ by at most one (an Euler orientation)."""
    edges = [(t, table[a], table[b]) for t, table in enumerate(seated) if len(table) > max(a, b)]
    incident: dict[int, list[int]] = {}
    for e, (_, x, y) in enumerate(edges):
        for member in (x, y):
            counts[member][a if member == x else b] -= 1
            incident.setdefault(member, []).append(e)
    used = [False] * len(edges)
    cursor = dict.fromkeys(incident, 0)
    remaining = {member: len(es) for member, es in incident.items()}

    def walk(start: int) -> None:
        """Follow unused edges from ``start`` until stuck, each leaving member taking ``a``."""
        here = start
        while remaining[here]:
            es = incident[here]
            while used[es[cursor[here]]]:
                cursor[here] += 1
            e = es[cursor[here]]
            used[e] = True
            t, x, y = edges[e]
            there = y if x == here else x
            remaining[here] -= 1
            remaining[there] -= 1
            seated[t][a], seated[t][b] = here, there
            counts[here][a] += 1
            counts[there][b] += 1
            here = there

    # Open trails first, each from a member of odd degree (it ends at another one), so nobody
    # ends two trails; what is left has even degrees everywhere and splits into closed trails.
    for member in incident:
        if remaining[member] % 2:
            walk(member)
    for member in incident:
        walk(member)
