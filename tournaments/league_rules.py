"""Leagues: how a night's tables are cut, how each hand is seated and scored, how tables move.

Pure functions, no Django. A league is a standing group of members (opaque hashable ids) with a
social order (best first) and points carried across hands and nights. Each hand at each table is
one engine match; these functions turn the league's state into that match's seats and options
(:func:`hand_plan`) and its result back into league points and the next order
(:func:`hand_outcome`). The rules are in ``docs/leagues.md``; house-rule ids (GD-2, GD-5, GD-9,
GD-12) are those of ``/work/shared/rules/house-rules.md``.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from typing import Any, TypeVar

from games.engine import get_game
from games.engine.base import players_range
from games.engine.great_dalmuti import order_with_newcomer

M = TypeVar("M", bound=Hashable)

#: Games whose league points are better when lower: a Dutch round scores its card total (DU-8).
LOWER_IS_BETTER: frozenset[str] = frozenset({"dutch"})

_GREAT_DALMUTI = "great_dalmuti"


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

    Dalmuti seats the table in social order (GD-2) and hands the engine that order (GD-12),
    because each hand is a one-hand match and the order must survive between matches. Other
    games have no social order in play, so the first seat rotates hand by hand for fairness.
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
    merged = copy.deepcopy(dict(options))
    if engine.id != _GREAT_DALMUTI:
        shift = (hand_number - 1) % n
        return HandPlan(tuple(members[shift:] + members[:shift]), merged)
    merged["hands"] = 1  # each league hand is its own match
    # GD-12: carry the league's order in (seat i = social position i); None: draw it (GD-2).
    merged["initial_order"] = list(range(n)) if ordered else None
    if not first_of_season:
        # GD-5: the engine applies the option to a match's first hand, i.e. to every league
        # hand; the league wants it on the season's first hand only.
        merged["first_deal_revolution"] = False
    return HandPlan(tuple(members), merged)


def hand_outcome(game: str, plan: HandPlan, result: Mapping[str, Any],
                 forfeited: Collection[Any] = ()) -> HandOutcome:
    """League points, next social order and finishing places from one match's ``result()``.

    ``result`` is the engine's ``{"ranks": [...], "scores": [...]}`` by seat. Members in
    ``forfeited`` score nothing (the table's worst score where lower is better), finish last
    and go to the bottom of the order. Ties in rank keep
    the seating order of that hand in the next order. For great_dalmuti, ``result`` may also
    carry ``"out_order"`` (the ``hand_end`` event's seats in going-out order): with the
    philanthropic bonus (GD-9) two members can tie on points though one went out first, and
    only the going-out order says who (GD-2).
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
    if engine.id == _GREAT_DALMUTI:
        points = {member: int(scores[seat]) for seat, member in enumerate(seats)}  # GD-9
        out_order = result.get("out_order")
        if out_order is not None:
            if sorted(out_order) != list(range(n)):
                raise ValueError(f"out_order must list each seat 0..{n - 1} once: {out_order!r}")
            by_rank = list(out_order)
            finish = {seats[seat]: place for place, seat in enumerate(out_order, start=1)}
    elif engine.id in LOWER_IS_BETTER:
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
        worst = max(points.values()) if engine.id in LOWER_IS_BETTER else 0
        points.update({member: worst for member in out})
        finish.update({member: n for member in out})  # last, also when every seat forfeited
        order = [member for member in order if member not in out] + out
    return HandOutcome(points, order, finish)


# --------------------------------------------------------------------------------------------
# Between hands and nights
# --------------------------------------------------------------------------------------------

#: Games whose table order changes hand by hand (the social order, GD-2); at the others a
#: table keeps its seating all night and the first player rotates (``hand_plan``).
ORDER_CARRYING_GAMES: frozenset[str] = frozenset({_GREAT_DALMUTI})


def carries_order(game: str) -> bool:
    """The finishing order of a hand seats the table's next hand (GD-2)."""
    return game in ORDER_CARRYING_GAMES


def table_order_after_night(game: str, seated: Sequence[M], *, last: Sequence[M],
                            points: Mapping[M, int]) -> list[M]:
    """A table's order at the end of a night, which ``between_nights`` moves members by:
    great_dalmuti, the social order after its last hand (``last``); the other games, the
    members by their points of the night (lower first for LOWER_IS_BETTER games), ties in
    the table's seating order ``seated``."""
    if game in ORDER_CARRYING_GAMES:
        return list(last)
    return by_points(game, seated, points)


def by_points(game: str, seated: Sequence[M], points: Mapping[M, int]) -> list[M]:
    """A table's members by their points, best first (fewest first for LOWER_IS_BETTER
    games), ties in seating order."""
    sign = 1 if game in LOWER_IS_BETTER else -1
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
        min(moves, min(len(upper), len(lower)) // 2) for upper, lower in zip(rows, rows[1:])
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

    Highest total first (lowest for :data:`LOWER_IS_BETTER` games); members who have not played
    come after everyone who has, whatever their points. Equal points and played-or-not share a
    place; within it the social order decides the listing.
    """
    lower = get_game(game).id in LOWER_IS_BETTER
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


def latest_weekly_start(*, weekday: int, at: time, zone: tzinfo, now: datetime) -> datetime:
    """The latest ``weekday`` (0 = Monday) at local wall time ``at`` in ``zone`` that is at or
    before ``now``: 20:00 Europe/Paris stays 20:00 across a daylight-saving change (18:00
    UTC in summer, 19:00 in winter)."""
    local = now.astimezone(zone)
    day = local.date() - timedelta(days=(local.weekday() - weekday) % 7)
    start = datetime.combine(day, at, tzinfo=zone)
    if start > now:
        start = datetime.combine(day - timedelta(days=7), at, tzinfo=zone)
    return start

