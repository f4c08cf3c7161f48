"""Round robins: every match known from the start. Two seats: each pair meets ``meetings``
times, seats swapped (``scheduling.round_robin``); more seats: ``rounds`` rounds of balanced
tables (``scheduling.table_schedule``). Duplicate deals are an option of both: each table's
deal is played once per seat rotation (``scheduling.scheduled_matches``). No Django."""

from __future__ import annotations

from collections.abc import Mapping

from .. import scheduling
from .base import Format, Outcome, Plan, PlannedMatch, SeriesState, register


class _Scheduled(Format):
    """A format whose whole schedule is made up front."""

    def __init__(self, schedule: scheduling.Schedule, *, secret: str, duplicate: bool) -> None:
        self.schedule = schedule
        self.matches = [
            PlannedMatch(key=str(number), seats=tuple(m.seats), seed=m.seed, round=m.round,
                         number=number, deal=m.deal)
            for number, m in enumerate(scheduling.scheduled_matches(
                schedule, secret=secret, duplicate=duplicate))]

    def next(self, state: SeriesState) -> Plan:
        if state.finished + state.open >= len(self.matches):  # all planned: read nothing
            return Plan(over=not state.open)
        return super().next(state)

    def plan(self, outcomes: Mapping[str, Outcome]) -> list[PlannedMatch]:
        return [match for match in self.matches if match.key not in outcomes]

    def is_over(self, outcomes: Mapping[str, Outcome]) -> bool:
        return all(match.key in outcomes for match in self.matches)

    def match_count(self) -> int:
        return len(self.matches)


@register
class RoundRobin(_Scheduled):
    """Two seats: everyone meets everyone ``meetings`` times (Berger tables)."""

    name = "round_robin"

    def __init__(self, *, participants: int, secret: str, meetings: int = 1,
                 duplicate: bool = False) -> None:
        super().__init__(scheduling.round_robin(participants, meetings=meetings),
                         secret=secret, duplicate=duplicate)


@register
class Tables(_Scheduled):
    """N seats: ``rounds`` rounds of tables balanced by local search."""

    name = "tables"

    def __init__(self, *, participants: int, seats: int, seed: int, secret: str,
                 rounds: int = 1, duplicate: bool = False) -> None:
        """``seed``: the tables' search (the schedule is public); ``secret``: the deals."""
        super().__init__(scheduling.table_schedule(participants, seats=seats, rounds=rounds,
                                                   seed=seed), secret=secret,
                         duplicate=duplicate)
