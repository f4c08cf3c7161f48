"""Leagues: how a night's tables are cut, how each hand is seated and scored, how tables move.

Pure functions, no Django. A league is a standing group of members (opaque hashable ids) with a
social order (best first) and points carried across hands and nights. Each hand at each table is
one engine match; these functions turn the league's state into that match's seats and options
(:func:`hand_plan`) and its result back into league points and the next order
(:func:`hand_outcome`). The rules are in ``docs/leagues.md``; house-rule ids (GD-2, GD-5, GD-9,
GD-12) are those of ``/work/shared/rules/house-rules.md``.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from itertools import pairwise
from typing import Any, TypeVar

from games.engine import get_game
from games.engine.base import players_range
from games.engine.results import order_with_newcomer

M = TypeVar("M", bound=Hashable)


def lower_is_better(game: str) -> bool:
    """League points are better when lower: the game's scores are its league points and the
    lowest wins (a Dutch round scores its card total, DU-8)."""
    engine = get_game(game)
    return engine.scores_add_up and engine.lower_score_wins


@dataclass(frozen=True)
class HandPlan:
    """How one hand at one table is played: ``seats[i]`` is the member at match seat i."""

    seats: tuple[Any, ...]
    #: The engine options of this hand's match.
    options: dict[str, Any]


@dataclass(frozen=True)
class HandOutcome:
    """What one played hand gives the league, by member."""

    #: League points each member of the table won in this hand.
    points: dict[Any, int]
    #: The table's social order for its next hand, best first.
    order: list[Any]
    #: Each member's finishing place in this hand, 1 = best (competition ranks, ties share).
    finish: dict[Any, int]


@dataclass(frozen=True)
class HandRecord:
    """One finished hand at one table, as the league stored it."""

    night: int
    points: Mapping[Any, int]
    finish: Mapping[Any, int]


@dataclass(frozen=True)
class SeasonRow:
    """One member's line in the season table."""

    member: Any
    #: 1 = top of the season table; equal points (among those who played) share a place.
    place: int
    #: Total league points.
    points: int
    #: Hands played.
    hands: int
    average_finish: float | None
    #: Index in the current social order (0 = best); members who left go after, in table order.
    position: int
    #: Positions gained since the previous order (positive = up); None if not in it.
    movement: int | None


# --------------------------------------------------------------------------------------------
# Tables of a night
# --------------------------------------------------------------------------------------------


def split_tables(order: Sequence[M], *, table_size: int, min_players: int) -> list[list[M]]:
    """Cut the social order into contiguous tables, top table first.

    ``ceil(n / table_size)`` tables, sizes as even as possible and the larger ones on top, so
    the best members play at the fullest tables. That is the fewest tables, hence the largest
    smallest table: if even it is under ``min_players``, no cut works and ValueError says why.
    """
    members = list(order)
    _check_distinct(members, "the social order")
    if table_size < 1 or min_players < 1:
        raise ValueError(f"table sizes must be positive, not {min_players}..{table_size}")
    n = len(members)
    if n == 0:
        raise ValueError(f"0 members cannot fill a table of at least {min_players}")
    count = -(-n // table_size)
    base, extra = divmod(n, count)
    sizes = [base + 1] * extra + [base] * (count - extra)
    if base < min_players:
        shown = ", ".join(map(str, sizes))
        raise ValueError(
            f"{n} members cannot fill tables of at least {min_players} and at most "
            f"{table_size} players (the best cut is {count} table(s) of {shown})"
        )
    tables, start = [], 0
    for size in sizes:
        tables.append(members[start : start + size])
        start += size
    return tables


# --------------------------------------------------------------------------------------------
# One hand at one table
# --------------------------------------------------------------------------------------------


def table_shortage(game: str, *, table_size: int, members: int) -> str | None:
    """Why ``members`` present members cannot fill one night's tables (:func:`split_tables`,
    e.g. 2 members of a Great Dalmuti league), or None if they can."""
    try:
        split_tables(range(members), table_size=table_size,
                     min_players=get_game(game).min_players)
    except ValueError as exc:
        return str(exc)
    return None


def hand_plan(
    game: str,
    table_order: Sequence[M],
    *,
    hand_number: int,
    options: Mapping[str, Any],
    ordered: bool,
    first_of_season: bool,
) -> HandPlan:
    """The seats and engine options of one hand (one match) at a table.

    A game whose finishing order carries over (``Game.order_carries_over``: Dalmuti, GD-2)
    seats the table in social order, and its ``series_options`` hand the engine that order
    (GD-12), because each hand is a match of its own and the order must survive between
    matches. Other games have no social order in play, so the first seat rotates hand by hand
    for fairness and the options pass unchanged.
    """
    members = list(table_order)
    _check_distinct(members, "a table")
    engine = get_game(game)
    n = len(members)
    if not engine.min_players <= n <= engine.max_players:
        raise ValueError(
            f"{engine.id} is played by {players_range(engine.min_players, engine.max_players)}, "
            f"not {n}"
        )
    if hand_number < 1:
        raise ValueError(f"hands are numbered from 1, not {hand_number}")
    merged = engine.series_options(options, players=n, ordered=ordered, first=first_of_season)
    if engine.order_carries_over:
        return HandPlan(tuple(members), merged)  # seat i = social position i
    shift = (hand_number - 1) % n
    return HandPlan(tuple(members[shift:] + members[:shift]), merged)


def hand_outcome(game: str, plan: HandPlan, result: Mapping[str, Any],
                 forfeited: Collection[Any] = ()) -> HandOutcome:
    """League points, next social order and finishing places from one match's ``result()``.

    ``result`` is the engine's ``{"ranks": [...], "scores": [...]}`` by seat. Members in
    ``forfeited`` score nothing (the table's worst score where lower is better), finish last
    and go to the bottom of the order. Ties in rank keep the seating order of that hand in the
    next order. Where the engine's result carries an ``"order"`` (the seats best first; for
    Dalmuti the going-out order, GD-2) the next order and the finishing places follow it: with
    the philanthropic bonus (GD-9) two members can tie on points though one went out first,
    and only that order says who.
    """
    engine = get_game(game)
    seats = plan.seats
    n = len(seats)
    ranks = list(result["ranks"])
    scores = list(result["scores"])
    if not len(ranks) == len(scores) == n:
        raise ValueError(f"a result for {n} seats needs {n} ranks and {n} scores")
    finish = {member: int(ranks[seat]) for seat, member in enumerate(seats)}
    by_rank = sorted(range(n), key=lambda seat: (ranks[seat], seat))  # stable: ties by seat
    finished_order = result.get("order")
    if finished_order is not None:
        if sorted(finished_order) != list(range(n)):
            raise ValueError(f"order must list each seat 0..{n - 1} once: {finished_order!r}")
        by_rank = list(finished_order)
        finish = {seats[seat]: place for place, seat in enumerate(finished_order, start=1)}
    if engine.scores_add_up:
        # GD-9 points of a Dalmuti hand; a Dutch card total, lower is better (DU-8).
        points = {member: int(scores[seat]) for seat, member in enumerate(seats)}
    else:
        # Like GD-9: one point per member of the table ranked strictly below.
        points = {
            member: sum(1 for other in ranks if other > ranks[seat])
            for seat, member in enumerate(seats)
        }
    order = [seats[seat] for seat in by_rank]
    out = [member for member in order if member in set(forfeited)]
    if out:
        # A member who forfeited the hand (strikes) or sat it out forfeited (out of the night)
        # scores nothing, finishes last and goes to the bottom of the order.
        worst = max(points.values()) if lower_is_better(game) else 0
        points.update({member: worst for member in out})
        finish.update({member: n for member in out})  # last, also when every seat forfeited
        order = [member for member in order if member not in out] + out
    return HandOutcome(points, order, finish)


# --------------------------------------------------------------------------------------------
# Between hands and nights
# --------------------------------------------------------------------------------------------

def carries_order(game: str) -> bool:
    """The finishing order of a hand seats the table's next hand (``Game.order_carries_over``:
    Dalmuti's social order, GD-2); at the other games a table keeps its seating all night and
    the first player rotates (``hand_plan``)."""
    return get_game(game).order_carries_over


def table_order_after_night(game: str, seated: Sequence[M], *, last: Sequence[M],
                            points: Mapping[M, int]) -> list[M]:
    """A table's order at the end of a night, which ``between_nights`` moves members by:
    where the order carries over (:func:`carries_order`), the social order after its last
    hand (``last``); at the other games, the members by their points of the night (lower
    first where :func:`lower_is_better`), ties in the table's seating order ``seated``."""
    if carries_order(game):
        return list(last)
    return by_points(game, seated, points)


def by_points(game: str, seated: Sequence[M], points: Mapping[M, int]) -> list[M]:
    """A table's members by their points, best first (fewest first where
    :func:`lower_is_better`), ties in seating order."""
    sign = 1 if lower_is_better(game) else -1
    place = {m: i for i, m in enumerate(seated)}
    return sorted(seated, key=lambda m: (sign * points.get(m, 0), place[m]))


def table_points(hands: Iterable[tuple[int, Sequence[M], Sequence[int] | None]],
                 table: int) -> dict[M, int]:
    """Each member's points at ``table`` over ``hands`` given as (table, seats, points by
    seat); hands not done yet (points None) count nothing."""
    totals: dict[M, int] = {}
    for at, seats, points in hands:
        if at == table and points:
            for member, value in zip(seats, points):
                totals[member] = totals.get(member, 0) + value
    return totals



def between_nights(tables: Sequence[Sequence[M]], *, moves: int = 1) -> list[M]:
    """Promotion and relegation: the league order for the next night, from the tables' orders.

    At each boundary the best ``moves`` of the lower table swap with the worst ``moves`` of the
    upper one (at most half the smaller table, so nobody is both promoted and relegated). All
    swaps use the tables as given: one night moves a member by one table at most.
    """
    if moves < 0:
        raise ValueError(f"moves cannot be negative, not {moves}")
    rows = [list(table) for table in tables]
    _check_distinct([m for row in rows for m in row], "the tables")
    swaps = [
        min(moves, min(len(upper), len(lower)) // 2) for upper, lower in pairwise(rows)
    ]
    order: list[M] = []
    for t, row in enumerate(rows):
        up = swaps[t - 1] if t > 0 else 0  # promoted from this table to the one above
        down = swaps[t] if t < len(swaps) else 0  # relegated from this table to the one below
        relegated_in = rows[t - 1][len(rows[t - 1]) - up :] if up else []
        promoted_in = rows[t + 1][:down] if down else []
        order += relegated_in + row[up : len(row) - down] + promoted_in
    return order


def with_newcomers(order: Sequence[M], newcomers: Sequence[M]) -> list[M]:
    """GD-12 for every game: each newcomer in turn enters in the middle (upper middle)."""
    result = list(order)
    for newcomer in newcomers:
        result = order_with_newcomer(result, newcomer)
    return result


def without_leavers(order: Sequence[M], leavers: Collection[M]) -> list[M]:
    """The order without the leavers; the others keep their relative order (unknowns ignored)."""
    gone = set(leavers)
    return [member for member in order if member not in gone]


# --------------------------------------------------------------------------------------------
# Season table
# --------------------------------------------------------------------------------------------


def season_table(
    game: str,
    hands: Sequence[HandRecord],
    *,
    order: Sequence[M],
    previous_order: Sequence[M] | None,
) -> list[SeasonRow]:
    """Total points per member over the season's hands, best first.

    Highest total first (lowest where :func:`lower_is_better`); members who have not played
    come after everyone who has, whatever their points. Equal points and played-or-not share a
    place; within it the social order decides the listing.
    """
    lower = lower_is_better(game)
    current = list(order)
    _check_distinct(current, "the social order")
    points: dict[Any, int] = {m: 0 for m in current}
    played: dict[Any, int] = {m: 0 for m in current}
    finishes: dict[Any, list[int]] = {m: [] for m in current}
    for hand in hands:
        for member in {**hand.points, **hand.finish}:
            points.setdefault(member, 0)
            played[member] = played.get(member, 0) + 1
            finishes.setdefault(member, [])
        for member, value in hand.points.items():
            points[member] += value
        for member, place in hand.finish.items():
            finishes[member].append(place)

    def level(member: Any) -> tuple[bool, int]:
        """What a shared place is made of: played or not, and the points (better first)."""
        return (played[member] == 0, points[member] if lower else -points[member])

    index = {m: i for i, m in enumerate(current)}
    first_seen = {m: i for i, m in enumerate(points)}  # leavers: stable by first appearance
    listing = sorted(
        points, key=lambda m: (level(m), m not in index, index.get(m, first_seen[m]))
    )
    leavers = [m for m in listing if m not in index]
    position = {**index, **{m: len(current) + i for i, m in enumerate(leavers)}}
    before = {m: i for i, m in enumerate(previous_order)} if previous_order is not None else {}
    rows = []
    for i, member in enumerate(listing):
        place = i + 1 if i == 0 or level(listing[i - 1]) != level(member) else rows[-1].place
        done = finishes[member]
        rows.append(
            SeasonRow(
                member=member,
                place=place,
                points=points[member],
                hands=played[member],
                average_finish=sum(done) / len(done) if done else None,
                position=position[member],
                movement=(
                    before[member] - index[member]
                    if member in before and member in index
                    else None
                ),
            )
        )
    return rows


def _check_distinct(members: Sequence[Any], what: str) -> None:
    if len(set(members)) != len(members):
        raise ValueError(f"{what} names a member twice: {list(members)!r}")


# --------------------------------------------------------------------------------------------
# Recurring nights
# --------------------------------------------------------------------------------------------


def local_moment(day: date, at: time, zone: tzinfo) -> datetime:
    """Wall time ``at`` on ``day`` in ``zone``, in UTC. Where daylight saving makes it
    ambiguous (the fall-back hour) it is the earlier of the two, summer time; where it does
    not exist (the spring-forward gap) it is shifted forward by the gap (02:30 in Paris on the
    last Sunday of March is 03:30 summer time, 01:30 UTC): zoneinfo's ``fold=0``, so a naive
    ``starts_at`` read in the league's zone and a weekly night agree (docs/leagues.md)."""
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)


def in_zone(moment: datetime, zone: tzinfo) -> datetime:
    """``moment`` in UTC; a naive one is a wall time in ``zone`` (:func:`local_moment`): a
    league's dates without an offset are read in the league's time zone (docs/api.md)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        return local_moment(moment.date(), moment.time(), zone)
    return moment.astimezone(UTC)


def latest_weekly_start(*, weekday: int, at: time, zone: tzinfo, now: datetime) -> datetime:
    """The latest ``weekday`` (0 = Monday) at local wall time ``at`` in ``zone`` that is at or
    before ``now``, in UTC (:func:`local_moment`): 20:00 Europe/Paris stays 20:00 across a
    daylight-saving change (18:00 UTC in summer, 19:00 in winter)."""
    day = now.astimezone(zone).date()
    day -= timedelta(days=(day.weekday() - weekday) % 7)
    start = local_moment(day, at, zone)
    if start > now:
        start = local_moment(day - timedelta(days=7), at, zone)
    return start


def next_weekly_start(*, weekday: int, at: time, zone: tzinfo, after: datetime) -> datetime:
    """The first ``weekday`` at wall time ``at`` in ``zone`` strictly after ``after``, in
    UTC: the week after :func:`latest_weekly_start`'s (however far ahead ``after`` is)."""
    latest = latest_weekly_start(weekday=weekday, at=at, zone=zone, now=after)
    return local_moment(latest.astimezone(zone).date() + timedelta(days=7), at, zone)
