"""A ladder: an always-on series with no end and no fixed total (docs/ladder.md). Whenever the
runner asks, it starts the tables the matchmaker (``scheduling.matchmaking.choose``) picks
from the entrants as they stand now: their ratings, the matches each has in flight (read from
the series' running matches), who is paused or gone (``SeriesState.withdrawn``), how often each
pair started a match in the last day. It is never over. No Django.

The entrants, their ratings and the day's pair counts are read by the ladder's kind
(``tournaments.ladders.kind``) when it builds the format; what is in flight comes from the
state, so two asks a moment apart never both fill one free place. Keys are ``str(n)`` for the
n-th match planned, as in the continuous format: two workers asking at once store one match.
Each table's deal is ``deal_seed(secret, "ladder", n)`` with ``n`` its first match's number
(a duplicate table's rotations share it); the matchmaker's own tie-breaking is seeded from
``deal_seed(secret, "ladder-choose", n)``, so the same state gives the same tables.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from games.engine.rng import deal_seed

from ..scheduling.matchmaking import Entrant, Policy, choose
from .base import Format, Outcome, Plan, PlannedMatch, SeriesState, register


@register
class Ladder(Format):
    name = "ladder"
    keys_fixed = False  # numbered in the order planned, from what is in flight

    def __init__(self, *, entrants: Sequence[Entrant], policy: Policy, secret: str,
                 pair_counts_today: Mapping[frozenset[int], int] | None = None,
                 cancelled: int = 0, **_: Any) -> None:
        """``entrants``: every entrant that may be seated (``in_flight`` is read from the
        state, not from here); ``pair_counts_today``: matches each pair started in the last
        24 hours; ``cancelled``: matches of the series cancelled (a ladder stopped and
        started again keeps them, and a match of a bot that left before it started is
        cancelled while it runs): their keys are taken."""
        self.entrants, self.policy, self.secret = list(entrants), policy, secret
        self.pair_counts_today = dict(pair_counts_today or {})
        self.cancelled = cancelled

    def next(self, state: SeriesState) -> Plan:
        running = state.running.values()
        in_flight = Counter(entrant for match in running for entrant in match.seats)
        out = state.withdrawn
        field = [replace(e, in_flight=in_flight[e.id], paused=e.paused or e.id in out)
                 for e in self.entrants]
        number = state.finished + state.open + self.cancelled
        tables = choose(field, self.pair_counts_today, self.policy,
                        now=state.now.timestamp(), in_flight=state.open,
                        seed=deal_seed(self.secret, "ladder-choose", number))
        start = []
        for table in tables:
            deal = number
            seed = deal_seed(self.secret, "ladder", deal)
            for seats in table.seatings:
                start.append(PlannedMatch(key=str(number), seats=tuple(seats), seed=seed,
                                          number=number, deal=deal))
                number += 1
        return Plan(start)

    def plan(self, outcomes: Mapping[str, Outcome]) -> list[PlannedMatch]:
        return []  # nothing is known ahead: what starts depends on what runs and the ratings

    def is_over(self, outcomes: Mapping[str, Outcome]) -> bool:
        return False  # always on

    def match_count(self) -> int | None:
        return None
