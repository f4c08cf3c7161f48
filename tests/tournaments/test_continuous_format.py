"""The continuous format (``tournaments.formats.continuous``): matches kept in flight while
others run, least-met pairs first, until a stop time; then over once the last ends. Pure: no
database. Its run through the runner is in ``test_continuous_tournament.py``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import combinations

import pytest

from tournaments.formats import Outcome, PlannedMatch, SeriesState, get_format

NOON = datetime(2026, 12, 5, 12, tzinfo=UTC)


def ladder(participants: int = 6, in_flight: int = 2, **kw):
    return get_format("continuous", participants=participants, in_flight=in_flight,
                      ends_at=NOON + timedelta(hours=1), secret="00" * 32, **kw)


def state(running: list[PlannedMatch], done: list[PlannedMatch], *, now=NOON,
          withdrawn=()) -> SeriesState:
    outcomes = {m.key: Outcome(m.key, m.seats, (1, 2), (1.0, 0.0)) for m in done}
    return SeriesState(now=now, finished=len(done), open=len(running), withdrawn=withdrawn,
                       outcomes=lambda: outcomes, running=lambda: {m.key: m for m in running})


def test_it_keeps_its_matches_in_flight_and_never_seats_a_busy_entrant() -> None:
    fmt = ladder(6, in_flight=2)
    first = fmt.next(state([], [])).start
    assert [m.key for m in first] == ["0", "1"] and len({*first[0].seats, *first[1].seats}) == 4
    assert not fmt.next(state(list(first), [])).start, "two in flight already"
    later = fmt.next(state([first[1]], [first[0]])).start
    assert len(later) == 1 and later[0].key == "2"
    assert not set(later[0].seats) & set(first[1].seats), "an entrant plays one at a time"


def test_every_pair_meets_about_as_often_as_every_other() -> None:
    fmt, done, running = ladder(5, in_flight=2), [], []
    for _ in range(100):
        running += fmt.next(state(running, done)).start
        done.append(running.pop(0))  # the oldest match in flight ends
    met = {pair: 0 for pair in combinations(range(5), 2)}
    for match in done:
        met[tuple(sorted(match.seats))] += 1
    assert max(met.values()) - min(met.values()) <= 1, met
    firsts = [sum(m.seats[0] == p for m in done) for p in range(5)]
    assert max(firsts) - min(firsts) <= 2, firsts


def test_two_workers_asking_at_once_plan_the_same_keys() -> None:
    fmt = ladder(8, in_flight=3)
    assert fmt.next(state([], [])) == fmt.next(state([], []))
    assert len({m.seed for m in fmt.next(state([], [])).start}) == 3, "a deal per match"


def test_at_its_stop_time_it_starts_nothing_and_is_over_once_nothing_runs() -> None:
    fmt = ladder()
    at_six = NOON + timedelta(hours=1)
    match = PlannedMatch(key="0", seats=(0, 1), seed=1)
    assert fmt.next(state([match], [], now=at_six)).start == ()
    assert not fmt.next(state([match], [], now=at_six)).over
    assert fmt.next(state([], [match], now=at_six)).over


def test_a_withdrawn_entrant_is_paired_no_more() -> None:
    fmt = ladder(4, in_flight=2)
    plan = fmt.next(state([], [], withdrawn={3})).start
    assert len(plan) == 1 and 3 not in plan[0].seats


@pytest.mark.parametrize("participants, in_flight", [(1, 1), (4, 0), (4, 3)])
def test_impossible_settings_are_refused_with_the_reason(participants, in_flight) -> None:
    with pytest.raises(ValueError, match="continuous series|in flight"):
        ladder(participants, in_flight)
