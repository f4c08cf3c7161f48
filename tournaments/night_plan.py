"""A night as its format plans and scores it, and who sits out: what starting, playing and
recording a league night share (``tournaments.nights``, ``tournaments.night_hands``)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.engine.rng import derived_secret
from games.errors import BadSeats
from games.seats import PLAYER, get_seat_kind

from . import series
from .formats import Outcome, PlannedMatch, get_format
from .formats.league_night import LeagueNight, hand_key
from .models import Hand, League, Member, Night

log = logging.getLogger(__name__)


def night_format(night: Night, *, left: Collection[int] = (),
                 first_of_season: bool = False) -> LeagueNight:
    """The night as its format sees it (``formats.league_night``), with the withdrawal rule
    of every series (``SERIES_FORFEITS_TO_WITHDRAW``)."""
    league = night.league
    return get_format("league_night", game=league.game, tables=night.tables,
                      hands=league.hands_per_night, secret=night_secret(night),
                      options=league.options, ordered=league.ordered,
                      first_of_season=first_of_season, left=left,
                      withdrawn={int(index) for index in night.withdrawn},
                      forfeits_to_withdraw=settings.SERIES_FORFEITS_TO_WITHDRAW)


def night_secret(night: Night) -> str:
    """The night's deal secret: from its league's, which is never shown, so publishing a
    night's once it is over tells nothing of any other night's deals."""
    return derived_secret(night.league.deal_secret, "night", night.number)


def published_secret(night: Night) -> str | None:
    """The night's deal secret once it is over (docs/tournaments.md, "What is public when"),
    else None."""
    return night_secret(night) if night.is_over else None


def outcomes_of(hands: Sequence[Hand]) -> dict[str, Outcome]:
    """The done hands as their format's outcomes (who forfeited each: one query)."""
    done = [h for h in hands if h.status == Hand.Status.FINISHED]
    forfeits = series.forfeited_seats([h.match_id for h in done if h.match_id is not None])
    return {hand_key(h.table, h.number): Outcome(
                hand_key(h.table, h.number), tuple(h.seats), tuple(h.finish), None,
                frozenset(h.seats[n] for n in forfeits.get(h.match_id, ())),
                points=tuple(h.points), order=tuple(h.order_after))
            for h in done}


def score_hand(hand: Hand, night_plan: LeagueNight, plan: PlannedMatch,
                 result: Mapping[str, Any], forfeited_seats: Sequence[int]) -> Outcome:
    """Score a finished hand from its match's ``result()`` (which carries the finishing order
    where the game has one, GD-2); returns the outcome."""
    outcome = night_plan.score(plan, result, forfeited={plan.seats[n] for n in forfeited_seats})
    hand.status, hand.finished_at = Hand.Status.FINISHED, timezone.now()
    hand.points, hand.finish = list(outcome.points), list(outcome.places)
    hand.order_after = list(outcome.order)
    return outcome


def out_of_night(night: Night) -> set[int]:
    """Members out for the rest of the night, withdrawn by the rule of every series: their
    bot could not be seated, or their seat forfeited (the match's strike limit: a polling
    player absent or gone silent, a bot that keeps failing) their last
    ``SERIES_FORFEITS_TO_WITHDRAW`` hands in a row. They stay seated, forfeited from the start
    of each later hand: default actions at once, no points, last place (docs/leagues.md)."""
    return night_format(night).out_of_night(outcomes_of(list(night.hands.all())))


def unseatable(league: League, members: Iterable[Member]) -> dict[str, str]:
    """The members whose bot cannot be seated now (disabled, deleted, failed handshake), by
    index (a JSON key), with the seat kind's own reason: withdrawn for the night, seated
    forfeited, as a tournament withdraws an unseatable participant (docs/series.md)."""
    out = {}
    for member in members:
        if member.kind == PLAYER:
            continue
        try:
            get_seat_kind(member.kind).check_bot(league.game, member.bot, league.organiser)
        except (KeyError, ValueError, BadSeats) as exc:
            out[str(member.index)] = f"cannot be seated: {exc}"[:200]
            log.info("league %s member %s withdrawn for the night: %s", league.pk,
                     member.index, exc)
    return out


def table_groups(tables: int) -> list[tuple[int, int]]:
    """The night's tables cut into groups of ``LEAGUE_TABLES_PER_TASK`` (first table, how
    many): each group is one task, so a night uses up to that many worker processes at once,
    while the hands of a group's tables are stored together (a statement per group of
    hands, not per hand)."""
    return [group_of(first, tables)
            for first in range(0, tables, settings.LEAGUE_TABLES_PER_TASK)]


def group_of(table: int, tables: int) -> tuple[int, int]:
    """The group (:func:`table_groups`) that ``table`` is in."""
    size = settings.LEAGUE_TABLES_PER_TASK
    first = table - table % size
    return first, min(size, tables - first)


def first_night_number(league: League) -> int:
    """The season's first night: the earliest to start (a one-off night scheduled weeks ahead
    has a lower number than the weekly nights played before it)."""
    return (league.nights.exclude(status=Night.Status.FAILED).order_by("starts_at", "number")
            .values_list("number", flat=True).first() or 1)
