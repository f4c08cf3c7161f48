"""Reads of tournaments: lists, progress, standings with their certainty, ratings.

Standings and ratings are computed from the recorded outcomes in schedule order every time
(``tournaments.scoring.standings``, ``ratings``, ``confidence``), so they never depend on the
order in which workers happened to finish matches, and a rerun with the same seeds gives the
same table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from games.engine import game_ids
from games.names import Sitter, seat_labels
from games.seats import PLAYER, bot_reference
from lib.filtering import filtered

from .errors import GameNotFound, LeagueNotFound, TournamentNotFound
from .formats.swiss import byes as swiss_byes
from .leagues import rules
from .models import (
    Hand,
    LeaderboardEntry,
    League,
    Member,
    Night,
    Participant,
    RatingPoint,
    Tournament,
    TournamentMatch,
)
from .scoring import leaderboard
from .scoring.confidence import certainty
from .scoring.standings import MatchResult, standings
from .web.filters import LeagueFilter, TournamentFilter, TournamentMatchFilter

JSON = dict[str, Any]


def tournament_list(*, game: str | None = None, status: str | None = None,
                    organiser: str | None = None,
                    taking_entries: bool | None = None) -> QuerySet[Tournament]:
    """Tournaments, newest first, filtered by game, status, organiser's username and whether
    they take entries now; each with ``participant_count``. A bot version's provisional run
    (the benchmark format) is not listed: its bot's page links it."""
    qs = (Tournament.objects.exclude(format=Tournament.Format.BENCHMARK)
          .select_related("organiser")
          .annotate(participant_count=Count("participants"))
          .order_by("-created_at", "-id"))  # Meta.ordering is not applied with GROUP BY
    return filtered(TournamentFilter, qs, {"game": game, "status": status,
                                           "organiser": organiser,
                                           "taking_entries": taking_entries})


def tournament_get(*, tournament_id: int) -> Tournament:
    tournament = (Tournament.objects.select_related("organiser")
                  .filter(pk=tournament_id).first())
    if tournament is None:
        raise TournamentNotFound()
    return tournament


def tournament_participants(*, tournament: Tournament) -> QuerySet[Participant]:
    """In entry order (``index``), with their users."""
    return Participant.objects.filter(tournament=tournament).select_related("user").order_by(
        "index")


def entrant_labels(entrants: Iterable[Participant | Member]) -> dict[int, str]:
    """Each participant or member (by index) named as everywhere else (``games.names``: a
    bot by the name its owner gave it, a person by username): the API's ``name``. The
    series' own label for it (its ``name`` column) is the API's ``label``, shown beside it
    and never renaming the bot. One query per kind of bot, however many entrants."""
    entrants = list(entrants)
    return {entrant.index: label for entrant, label in zip(entrants, seat_labels(entrants))}


def tournament_matches(*, tournament: Tournament, status: str | None = None,
                       round: int | None = None) -> QuerySet[TournamentMatch]:
    """The scheduled matches in schedule order, filtered by status and round."""
    qs = TournamentMatch.objects.filter(tournament=tournament).order_by("number")
    return filtered(TournamentMatchFilter, qs, {"status": status, "round": round})


def tournament_progress(*, tournament: Tournament) -> JSON:
    """Matches by state: ``finished`` includes ``forfeits`` (recorded, not played because a
    participant withdrew); ``retried`` counts matches a worker had to take up again."""
    rows = TournamentMatch.objects.filter(tournament=tournament)
    counts = Counter(rows.values_list("status", flat=True))
    return {
        "total": _match_total(tournament, rows, planned=sum(counts.values())),
        "finished": counts[TournamentMatch.Status.FINISHED],
        "running": counts[TournamentMatch.Status.RUNNING],
        "pending": counts[TournamentMatch.Status.PENDING],
        "cancelled": counts[TournamentMatch.Status.CANCELLED],
        "forfeits": rows.filter(status=TournamentMatch.Status.FINISHED, match__isnull=True).count(),
        "retried": rows.filter(attempts__gt=1).count(),
    }


def _match_total(tournament: Tournament, rows: QuerySet[TournamentMatch], *,
                 planned: int) -> int:
    """The matches planned, and those of the rounds a Swiss has still to pair: a pair a round
    for each two entrants not withdrawn (a withdrawn one is paired no more)."""
    if tournament.format != Tournament.Format.SWISS:
        return max(planned, tournament.match_total)  # its whole schedule, planned at creation
    if tournament.is_over:
        return planned
    paired = (rows.aggregate(last=Max("round"))["last"] + 1) if planned else 0
    playing = tournament.participants.filter(withdrawn=False).count()
    return planned + max(0, (tournament.rounds or 0) - paired) * (playing // 2)


def tournament_results(*, tournament: Tournament) -> list[MatchResult]:
    """The recorded outcomes, in schedule order."""
    rows = (TournamentMatch.objects.filter(tournament=tournament,
                                           status=TournamentMatch.Status.FINISHED)
            .order_by("number").values_list("seats", "ranks", "scores", "deal", "forfeited"))
    return [MatchResult(tuple(seats), tuple(ranks),
                        None if scores is None else tuple(scores),
                        deal if tournament.duplicate else None, frozenset(forfeited))
            for seats, ranks, scores, deal, forfeited in rows]


def tournament_standings(*, tournament: Tournament) -> list[JSON]:
    """Places with the documented tie-breaks, each with its bootstrap interval, the probability
    that it is really ahead of the next row, and its rating: the game's one rating of that
    entrant (the leaderboard's, now), not one of this tournament alone."""
    people = list(tournament_participants(tournament=tournament))
    names = entrant_labels(people)
    count = len(people)
    results = tournament_results(tournament=tournament)
    withdrawn = [p.index for p in people if p.withdrawn]
    rows = standings(results, count, withdrawn=withdrawn,
                     byes=_swiss_byes(tournament, count, withdrawn))
    sure = {c.participant: c for c in certainty(results, [r.participant for r in rows],
                                                seed=tournament.seed)}
    rated = leaderboard.ratings_of(game=tournament.game, entrants=people)
    out = []
    for row in rows:
        person = people[row.participant]
        cert, rating = sure[row.participant], rated[row.participant]
        out.append({
            "place": row.place, "participant": row.participant,
            "name": names[row.participant], "label": person.name,
            "kind": person.kind, "bot": bot_reference(person.kind, person.bot),
            "user": person.user.get_username() if person.user_id else None,
            "matches": row.matches, "points": row.points, "score": row.score,
            "head_to_head": row.head_to_head, "firsts": row.firsts, "forfeits": row.forfeits,
            "total": row.total, "buchholz_cut1": row.buchholz_cut1, "buchholz": row.buchholz,
            "withdrawn": row.withdrawn, "withdrawn_reason": person.withdrawn_reason or None,
            "interval": None if cert.low is None else [cert.low, cert.high],
            "ahead_of_next": cert.ahead_of_next,
            "rating": {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal,
                       "matches": rating.matches},
        })
    return out


def _swiss_byes(tournament: Tournament, count: int, withdrawn: list[int]) -> list[int] | None:
    """A Swiss tournament's byes by participant, from who sits in each round paired so far
    (``formats.swiss.byes``); None for other formats."""
    if tournament.format != Tournament.Format.SWISS:
        return None
    seated: list[set[int]] = []
    for round_index, seats in (TournamentMatch.objects.filter(tournament=tournament)
                               .values_list("round", "seats")):
        seated += [set() for _ in range(round_index + 1 - len(seated))]
        seated[round_index].update(seats)
    return swiss_byes(seated, count, withdrawn)


def ratings_leaderboard(*, game: str, limit: int = 100) -> list[JSON]:
    """A game's OpenSkill leaderboard across its tournaments, best ``ordinal`` first: read
    from the table kept as results are recorded (``tournaments.scoring.leaderboard``), an entrant
    being a person or one bot of an entrant kind (a webhook bot, a reference bot however often
    it was entered, ...), named as its owner names it, never by an entrant's label. Raises
    ``GameNotFound`` for a game the engine does not have."""
    if game not in game_ids():
        raise GameNotFound(f"no game {game!r} (have: {', '.join(game_ids())})")
    board = list(LeaderboardEntry.objects.filter(game=game, matches__gt=0)
                 .order_by("-ordinal", "kind", "ref")[:limit])
    names = seat_labels(_sitter(entry.kind, entry.ref) for entry in board)
    return [{"rank": place, "kind": entry.kind, "name": name, "mu": entry.mu,
             "sigma": entry.sigma, "ordinal": entry.ordinal, "matches": entry.matches,
             "last_played_at": entry.last_played_at}
            for place, (entry, name) in enumerate(zip(board, names), start=1)]


def _sitter(kind: str, ref: str) -> Sitter:
    """A board's entrant as ``games.names`` names it (a person is there by user id)."""
    if kind == PLAYER and ref.isdigit():
        return Sitter(kind, "", int(ref))
    return Sitter(kind, ref)


#: At most this many of an entrant's latest rating points are read (a page's chart).
RATING_POINTS_SHOWN = 500


def rating_history(*, kind: str, ref: str) -> dict[str, list[tuple[datetime, float]]]:
    """An entrant's leaderboard rating (``ordinal``) after each of its latest rated
    tournament matches (``RATING_POINTS_SHOWN`` in all), oldest first, by game: its rating
    over time. One query."""
    history: dict[str, list[tuple[datetime, float]]] = {}
    points = (RatingPoint.objects.filter(entry__kind=kind, entry__ref=ref)
              .order_by("-played_at", "-id")
              .values_list("entry__game", "played_at", "ordinal")[:RATING_POINTS_SHOWN])
    for game, at, ordinal in reversed(points):
        history.setdefault(game, []).append((at, ordinal))
    return history


#: Nights whose hands count in the season: a cancelled one counts for nothing (docs/series.md).
COUNTED_NIGHTS = (Night.Status.RUNNING, Night.Status.FINISHED)


def _counted_hands(*, league_id: int) -> QuerySet[Hand]:
    return Hand.objects.filter(night__league_id=league_id, status=Hand.Status.FINISHED,
                               night__status__in=COUNTED_NIGHTS)


def league_table(*, league_id: int) -> list[rules.SeasonRow]:
    """The season table: every recorded hand of the league's nights added up, in the order
    of ``rules.season_table`` (movement since the last finished night)."""
    league = League.objects.get(pk=league_id)
    records = []
    for night_number, seats, points, finish in (
            _counted_hands(league_id=league.pk)
            .values_list("night__number", "seats", "points", "finish")):
        records.append(rules.HandRecord(
            night=night_number, points=dict(zip(seats, points)), finish=dict(zip(seats, finish))))
    last = (league.nights.filter(status=Night.Status.FINISHED).order_by("-number")
            .values_list("order_before", flat=True).first())
    order = list(league.order) or list(league.members.filter(left_at__isnull=True)
                                       .values_list("index", flat=True))
    return rules.season_table(league.game, records, order=order, previous_order=last)


def league_history(*, league_id: int) -> JSON:
    """Each member's season points and place in the social order night by night, for the
    league page's charts: ``nights`` (the numbers of the nights played, in order), and per
    member ``points`` (season total at the start and after each of those nights) and
    ``positions`` (place in the order, 1 = top, at the same moments; None once it left)."""
    league = League.objects.get(pk=league_id)
    played = list(league.nights.filter(status__in=COUNTED_NIGHTS)
                  .order_by("number").values_list("number", "order_before"))
    per_night: dict[int, Counter[int]] = {number: Counter() for number, _ in played}
    for number, seats, points in (_counted_hands(league_id=league.pk)
                                  .values_list("night__number", "seats", "points")):
        per_night[number].update(dict(zip(seats, points)))
    # The order at the start of each night played, then the league's order now.
    orders = [*(order for _, order in played), list(league.order)] if played else []
    members = list(league.members.order_by("index").values_list("index", flat=True))
    totals = Counter({m: 0 for m in members})
    points: dict[int, list[int]] = {m: [0] for m in members}
    for number, _ in played:
        totals.update(per_night[number])
        for member in members:
            points[member].append(totals[member])
    positions = {m: [order.index(m) + 1 if m in order else None for order in orders]
                 for m in members}
    return {"nights": [number for number, _ in played], "points": points,
            "positions": positions}


def league_ratings(*, league_id: int) -> dict[int, LeaderboardEntry]:
    """Each member's rating, by member index: the game's one rating of that entrant (the
    leaderboard's, which rates every hand as it is recorded), as a tournament's standings
    show it."""
    league = League.objects.get(pk=league_id)
    members = list(league.members.all())
    return dict(zip((m.index for m in members),
                    leaderboard.ratings_of(game=league.game, entrants=members)))


# --------------------------------------------------------------------------------------------
# Leagues
# --------------------------------------------------------------------------------------------

def latest_recurring_start(league: League, now: datetime) -> datetime | None:
    """The latest start of the league's recurring night at or before ``now``
    (``rules.latest_weekly_start``), or None if it is not recurring or that start is
    outside the season or before the league was created (a league made on Friday does not
    start last Thursday's night)."""
    if league.weekday is None or league.night_time is None:
        return None
    start = rules.latest_weekly_start(weekday=league.weekday, at=league.night_time,
                                      zone=ZoneInfo(league.timezone), now=now)
    if not (league.season_start <= start <= league.season_end and start >= league.created_at):
        return None
    return start


#: A season starting at the very moment of a weekly night has that night.
_JUST_BEFORE = timedelta(microseconds=1)


def next_recurring_start(league: League, now: datetime) -> datetime | None:
    """The first start of the league's recurring night after ``now`` and not before the
    season starts, however far ahead that is (``rules.next_weekly_start``); None if it
    is not recurring or that start is past the season's end."""
    if league.weekday is None or league.night_time is None:
        return None
    after = max(now, league.season_start - _JUST_BEFORE)
    start = rules.next_weekly_start(weekday=league.weekday, at=league.night_time,
                                    zone=ZoneInfo(league.timezone), after=after)
    return start if start <= league.season_end else None


def league_get(*, league_id: int) -> League:
    league = League.objects.select_related("organiser").filter(pk=league_id).first()
    if league is None:
        raise LeagueNotFound()
    return league


#: A league's state, from its season: to come, under way, or over.
LEAGUE_STATES = {"upcoming": "season to come", "running": "in season",
                 "finished": "season over"}


def league_state(league: League, now: datetime | None = None) -> str:
    """``upcoming``, ``running`` or ``finished`` (``LEAGUE_STATES``), by its season."""
    now = now or timezone.now()
    if league.season_start > now:
        return "upcoming"
    return "finished" if league.season_end < now else "running"


def league_list(*, game: str | None = None, state: str | None = None,
                now: datetime | None = None) -> QuerySet[League]:
    """Leagues, newest first, filtered by game and by state (``LEAGUE_STATES``: by their
    season, now); each with ``member_count`` (present members)."""
    qs = (League.objects.select_related("organiser")
          .annotate(member_count=Count("members", filter=Q(members__left_at__isnull=True)))
          .order_by("-created_at", "-id"))  # Meta.ordering is not applied with GROUP BY
    return filtered(LeagueFilter, qs, {"game": game, "state": state}, now=now)


def league_nights(*, league: League) -> QuerySet[Night]:
    """All nights, newest first, each with ``hands_done``."""
    return (Night.objects.filter(league=league).select_related("league")
            .annotate(hands_done=Count("hands", filter=Q(hands__status=Hand.Status.FINISHED)))
            .order_by("-number"))


def night_tables(*, night: Night) -> list[dict[str, Any]]:
    """A night's tables, best first: each with its members by points that night (best first,
    as :func:`league_live_night`) and its hands in order (table, number, status, seats,
    points and finish by seat, match id), in one query, however many hands."""
    hands = list(night.hands.order_by("table", "number")
                 .values("table", "number", "status", "seats", "points", "finish", "match_id"))
    done = [(h["table"], h["seats"], h["points"]) for h in hands
            if h["status"] == Hand.Status.FINISHED]
    game = night.league.game
    tables = []
    for table, seated in enumerate(night.tables):
        points = rules.table_points(done, table)
        tables.append({"number": table + 1, "members": list(seated),
                       "hands": [h for h in hands if h["table"] == table],
                       "standings": [{"member": m, "points": points.get(m, 0)}
                                     for m in rules.by_points(game, seated, points)]})
    return tables


def league_next_night(*, league: League, now: datetime | None = None) -> datetime | None:
    """When the next night starts: the earliest night still scheduled or, if sooner, the next
    weekly start of a recurring league (within the season, however far ahead it starts);
    None if neither."""
    now = now or timezone.now()
    candidates = []
    scheduled = (league.nights.filter(status=Night.Status.SCHEDULED).order_by("starts_at")
                 .values_list("starts_at", flat=True).first())
    if scheduled is not None:
        candidates.append(scheduled)
    recurring = next_recurring_start(league, now)
    if recurring is not None:
        candidates.append(recurring)
    return min(candidates) if candidates else None


def league_cannot_start(*, league: League) -> str | None:
    """Why a night of the league cannot start now (its present members cannot fill its tables,
    ``rules.table_shortage``), or None if one can."""
    present = league.members.filter(left_at__isnull=True).count()
    return rules.table_shortage(league.game, table_size=league.table_size,
                                members=present)


def league_live_night(*, league: League) -> dict[str, Any] | None:
    """The running night (if any): each table's seating, its hands done, and its members'
    points so far that night, best first (lower first where ``rules.lower_is_better``;
    ties in seating order)."""
    night = league.nights.filter(status=Night.Status.RUNNING).order_by("-number").first()
    if night is None:
        return None
    members = list(league.members.select_related("user"))
    names = entrant_labels(members)
    labels = {member.index: member.name for member in members}
    hands = list(night.hands.filter(status=Hand.Status.FINISHED).values_list("table", "seats",
                                                                         "points"))
    tables = []
    for table, seated in enumerate(night.tables):
        points = rules.table_points(hands, table)
        tables.append({"members": list(seated),
                       "hands_done": sum(1 for at, _, _ in hands if at == table),
                       "standings": [{"member": m, "name": names.get(m, ""),
                                      "label": labels.get(m, ""),
                                      "points": points.get(m, 0)}
                                     for m in rules.by_points(league.game, seated,
                                                              points)]})
    return {"number": night.number, "hands_per_night": league.hands_per_night,
            "started_at": night.started_at, "tables": tables}
