"""A league night as the series runner plays it (``tournaments.runner``): its rows are
``Hand`` (one a hand at one table), its entrants the league's members (by index), its format
``formats.league_night`` (each table's next hand once its last is done). When it is over the
league's order moves on. Starting nights when due is ``tournaments.leagues.nights``; the rules
are in docs/leagues.md."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings

from games.engine.rng import derived_secret

from ..formats import Outcome, PlannedMatch, get_format
from ..formats.league_night import LeagueNight, hand_key
from ..models import Hand, League, Night
from ..runner import kinds
from ..scoring import leaderboard
from . import rules

log = logging.getLogger(__name__)

#: ``Match.series`` of league hands.
SERIES = "league"


def night_format(night: Night, *, left: Collection[int] = (),
                 first_of_season: bool = False) -> LeagueNight:
    """The night as its format sees it (``formats.league_night``)."""
    league = night.league
    return get_format("league_night", game=league.game, tables=night.tables,
                      hands=league.hands_per_night, secret=night_secret(night),
                      options=league.options, ordered=league.ordered,
                      first_of_season=first_of_season, left=left)


def night_secret(night: Night) -> str:
    """The night's deal secret: from its league's, which is never shown, so publishing a
    night's once it is over tells nothing of any other night's deals."""
    return derived_secret(night.league.deal_secret, "night", night.number)


def published_secret(night: Night) -> str | None:
    """The night's deal secret once it is over (docs/tournaments.md, "What is public when"),
    else None."""
    return night_secret(night) if night.is_over else None


def first_night_number(league: League) -> int:
    """The season's first night: the earliest to start (a one-off night scheduled weeks ahead
    has a lower number than the weekly nights played before it)."""
    return (league.nights.exclude(status=Night.Status.FAILED).order_by("starts_at", "number")
            .values_list("number", flat=True).first() or 1)


class NightKind(kinds.SeriesKind):
    name, label = SERIES, "league night"
    model, series_model, link = Hand, Night, "night"
    order = ("number", "table")
    result_fields = ("points", "finish", "order_after", "forfeited")
    tables_apart = True

    def chunk(self) -> int:
        return settings.LEAGUE_TABLES_PER_TASK

    def load(self, row: Any) -> kinds.Loaded:
        night = Night.objects.select_related("league__organiser").get(pk=row.pk)
        league = night.league
        members = {m.index: m for m in league.members.all()}
        left = {i for i, m in members.items() if m.left_at is not None}
        return kinds.Loaded(
            kind=SERIES, series=night, entrants=members,
            format=night_format(night, left=left, first_of_season=(
                night.number == first_night_number(league))),
            # Members who left stay seated, forfeited, where their table cannot lose them.
            withdrawn={int(i) for i in night.withdrawn} | left,
            game=league.game, organiser=league.organiser, options=league.options,
            move_time_limit=league.move_time_limit, strike_limit=league.strike_limit)

    def planned(self, row: Any, *, forfeited: Collection[int] = ()) -> PlannedMatch:
        return PlannedMatch(key=hand_key(row.table, row.number), seats=tuple(row.seats),
                            seed=row.seed, round=row.number - 1, number=row.number,
                            table=row.table, options=row.options,
                            forfeited=tuple(i for i in row.seats if i in forfeited))

    def new_row(self, loaded: kinds.Loaded, planned: PlannedMatch) -> Hand:
        return Hand(night=loaded.series, table=planned.table, number=planned.number,
                    seats=list(planned.seats), seed=planned.seed,
                    options=dict(planned.options), status=Hand.Status.PENDING)

    def take(self, row: Any, outcome: Outcome) -> None:
        row.points, row.finish = list(outcome.points), list(outcome.places)
        row.order_after, row.forfeited = list(outcome.order), sorted(outcome.forfeited)

    def outcomes(self, loaded: kinds.Loaded, *, tables: Collection[int] | None = None
                 ) -> list[Outcome]:
        done = Hand.objects.filter(night=loaded.series, status=kinds.FINISHED)
        if tables is not None:
            done = done.filter(table__in=sorted(tables))
        done = (done
                .order_by("number", "table")
                .values_list("table", "number", "seats", "finish", "points", "order_after",
                             "forfeited"))
        return [Outcome(hand_key(table, number), tuple(seats), tuple(finish), None,
                        frozenset(forfeited), points=tuple(points), order=tuple(order))
                for table, number, seats, finish, points, order, forfeited in done]

    def withdraw(self, loaded: kinds.Loaded, reasons: Mapping[int, str]) -> None:
        night = loaded.series
        night.withdrawn = {**night.withdrawn, **{str(i): r for i, r in reasons.items()}}
        Night.objects.filter(pk=night.pk).update(withdrawn=night.withdrawn)

    def refresh(self, loaded: kinds.Loaded) -> None:
        """Members who left the league since: removed from their table's next hand, or seated
        forfeited in it where the table cannot lose them (GD-12)."""
        left = set(loaded.series.league.members.filter(left_at__isnull=False).order_by()
                   .values_list("index", flat=True))
        if not left <= loaded.withdrawn:
            loaded.withdrawn |= left
            loaded.format = night_format(loaded.series, left=left,
                                         first_of_season=loaded.format.first_of_season)

    def closed(self, loaded: kinds.Loaded, rows: Sequence[Any], *, now: datetime) -> None:
        """Hands rated on the game's leaderboard, as any series' matches are (the one
        rating): finishing places as ranks; a hand with a forfeit is not rated."""
        members = loaded.entrants
        leaderboard.record_results(game=loaded.game, played_at=now, results=[
            ([leaderboard.entrant_key(members[i]) for i in row.seats], row.finish,
             row.forfeited) for row in rows if row.status == kinds.FINISHED])

    def lane(self, row: Any) -> int:
        return row.table

    def on_lanes(self, lanes: Collection[int]) -> dict[str, Any]:
        return {"table__in": sorted(lanes)}

    def finish(self, loaded: kinds.Loaded, *, now: datetime) -> None:
        """Every table played its hands: the league's order moves on (promotion and
        relegation between tables, ``rules.between_nights``)."""
        night, league = loaded.series, loaded.series.league
        last = {h.table: h.order_after for h in night.hands.filter(
            number=league.hands_per_night, status=kinds.FINISHED)}
        everything = [(h.table, h.seats, h.points) for h in night.hands.filter(
            status=kinds.FINISHED)] if not rules.carries_order(league.game) else []
        final = [rules.table_order_after_night(
                     league.game, night.tables[table], last=last[table],
                     points=rules.table_points(everything, table))
                 for table in range(len(night.tables))]
        League.objects.filter(pk=league.pk).update(
            order=rules.between_nights(final, moves=league.moves_between_tables),
            ordered=True)


kinds.register(NightKind())
