"""A continuous series: no rounds and no fixed total. It keeps ``in_flight`` matches going among
its entrants, starting one as soon as another ends, until ``ends_at``; then it starts nothing
more and is over once the last match in flight ends. Who meets next: the idle entrants are paired
by a minimum-cost matching (rustworkx's blossom algorithm, as the Swiss pairs), a pair costing
how often it has met (in flight counted), then how much its two have played, so every pair
meets about as often as every other however long it runs; the cheapest pairs start first. The entrant who sat
first less often takes the first seat. A ladder or an arena is this with its own choice of
pairs. No Django.

It is the worked example of a format that plans from what is running and the time
(docs/series.md): the runner asks it after every match, and its keys make two workers asking
at once start one match: the n-th match planned is key ``n`` whoever plans it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from datetime import datetime
from itertools import combinations
from typing import Any

import rustworkx

from games.engine.rng import deal_seed

from .base import Format, Outcome, Plan, PlannedMatch, SeriesState, register


@register
class Continuous(Format):
    name = "continuous"
    keys_fixed = False  # numbered in the order planned, from what is in flight

    def __init__(self, *, participants: int, in_flight: int, ends_at: datetime, secret: str,
                 withdrawn: Collection[int] = (), **_: Any) -> None:
        """``in_flight``: matches kept going at once (each entrant plays one at a time, so at
        most ``participants // 2``); ``ends_at``: no match starts from then on."""
        if participants < 2:
            raise ValueError(f"a continuous series needs 2 or more participants, "
                             f"not {participants}")
        if not 1 <= in_flight <= participants // 2:
            raise ValueError(f"{participants} participants keep 1 to {participants // 2} "
                             f"matches in flight, not {in_flight}")
        self.participants, self.in_flight, self.ends_at = participants, in_flight, ends_at
        self.secret, self.withdrawn = secret, frozenset(withdrawn)

    def next(self, state: SeriesState) -> Plan:
        if state.now >= self.ends_at:
            return Plan(over=not state.open)
        free = self.in_flight - state.open
        if free <= 0:
            return Plan()
        running, done = state.running.values(), state.outcomes.values()
        busy = {entrant for match in running for entrant in match.seats}
        out = self.withdrawn | state.withdrawn
        met = Counter(frozenset(m.seats) for m in [*running, *done])
        played = Counter(entrant for m in [*running, *done] for entrant in m.seats)
        first = Counter(m.seats[0] for m in [*running, *done])
        idle = [p for p in range(self.participants) if p not in busy and p not in out]
        start, number = [], state.finished + state.open
        for a, b in _least_met_pairs(idle, met, played)[:free]:
            seats = (a, b) if (first[a], -played[a]) <= (first[b], -played[b]) else (b, a)
            start.append(PlannedMatch(key=str(number), seats=seats, number=number,
                                      seed=deal_seed(self.secret, "continuous", number)))
            number += 1
        return Plan(start)

    def plan(self, outcomes: Mapping[str, Outcome]) -> list[PlannedMatch]:
        return []  # nothing is known ahead: what starts depends on what runs and the time

    def is_over(self, outcomes: Mapping[str, Outcome]) -> bool:
        return False  # only its time ends it (:meth:`next`)

    def match_count(self) -> int | None:
        return None


def _least_met_pairs(idle: list[int], met: Counter[frozenset[int]],
                     played: Counter[int]) -> list[tuple[int, int]]:
    """The idle entrants paired (as many pairs as they make) at the least total cost, the
    cheapest pair first: a pair costs its meetings so far, then its two's matches played,
    then entry order (so the same counts always give the same pairs)."""
    if len(idle) < 2:
        return []
    n = len(idle)

    def cost(a: int, b: int) -> int:
        return (met[frozenset((a, b))] * 1_000_000 + (played[a] + played[b]) * 1_000
                + min(a, b))

    pairs = list(combinations(range(n), 2))
    top = 1 + max(cost(idle[i], idle[j]) for i, j in pairs)
    graph = rustworkx.PyGraph()
    graph.add_nodes_from(idle)
    graph.add_edges_from([(i, j, top - cost(idle[i], idle[j])) for i, j in pairs])
    matched = rustworkx.max_weight_matching(graph, max_cardinality=True,
                                            weight_fn=lambda weight: weight)
    chosen = [tuple(sorted((idle[i], idle[j]))) for i, j in matched]
    return sorted(chosen, key=lambda pair: (cost(*pair), pair))
