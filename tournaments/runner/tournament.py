"""A tournament as the series runner plays it (``tournaments.runner``): its rows are
``TournamentMatch``, its entrants its participants (by index), its format the one it was
created with (``docs/tournaments.md``). Creating, starting and cancelling one is
``tournaments.services``."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings

from games.services import matches_unseal

from ..formats import Format, Outcome, PlannedMatch, get_format
from ..models import Participant, Tournament, TournamentMatch
from ..scoring import leaderboard
from . import kinds

#: ``Match.series`` of a tournament's matches.
SERIES = "tournament"


def tournament_format(tournament: Tournament) -> Format:
    """The format a stored tournament plays; a Swiss pairs its withdrawn participants no
    more."""
    entrants = dict(tournament.participants.values_list("index", "withdrawn"))
    return format_named(tournament.format, participants=len(entrants),
                        table_size=tournament.table_size, meetings=tournament.meetings,
                        rounds=tournament.rounds, seed=tournament.seed,
                        secret=tournament.deal_secret, duplicate=tournament.duplicate,
                        in_flight=tournament.in_flight, ends_at=tournament.ends_at,
                        withdrawn=[index for index, out in entrants.items() if out],
                        challengers=tournament.challengers)


def format_named(name: str, *, participants: int, table_size: int, meetings: int,
                 rounds: int | None, seed: int, secret: str, duplicate: bool,
                 in_flight: int | None = None, ends_at: datetime | None = None,
                 withdrawn: Collection[int] = (), challengers: int = 2) -> Format:
    """A tournament's format: Swiss, continuous, a two-seat round robin, or rounds of
    balanced tables. ``secret`` keys every deal (``rng.deal_seed``); ``seed`` only the
    tables' search."""
    if name == Tournament.Format.CONTINUOUS:
        if ends_at is None:
            raise ValueError("a continuous tournament needs ends_at")
        return get_format("continuous", participants=participants, secret=secret,
                          in_flight=in_flight or participants // 2, ends_at=ends_at,
                          withdrawn=withdrawn)
    if name == Tournament.Format.BENCHMARK:
        return get_format("benchmark", participants=participants, seats=table_size,
                          secret=secret, meetings=meetings, challengers=challengers)
    if name == Tournament.Format.SWISS:
        return get_format("swiss", participants=participants, rounds=rounds, secret=secret,
                          withdrawn=withdrawn)
    if table_size == 2:
        return get_format("round_robin", participants=participants, meetings=meetings,
                          secret=secret, duplicate=duplicate)
    return get_format("tables", participants=participants, seats=table_size, rounds=meetings,
                      seed=seed, secret=secret, duplicate=duplicate)


def new_row(tournament: Tournament, planned: PlannedMatch) -> TournamentMatch:
    return TournamentMatch(tournament=tournament, number=planned.number, round=planned.round,
                           deal=planned.deal, seed=planned.seed, seats=list(planned.seats))


def unseal_deals(tournament_id: int) -> None:
    """The tournament is over: its duplicate deals may be shown."""
    matches_unseal(match_ids=list(TournamentMatch.objects.filter(
        tournament_id=tournament_id, match__isnull=False).values_list("match_id", flat=True)))


class TournamentKind(kinds.SeriesKind):
    name, label = SERIES, "tournament"
    model, series_model, link = TournamentMatch, Tournament, "tournament"
    order = ("number",)
    result_fields = ("ranks", "scores", "forfeited")

    def chunk(self) -> int:
        return settings.TOURNAMENT_CHUNK

    def load(self, row: Any) -> kinds.Loaded:
        tournament = Tournament.objects.select_related("organiser").get(pk=row.pk)
        people = {p.index: p for p in tournament.participants.all()}
        return kinds.Loaded(
            kind=SERIES, series=tournament, format=tournament_format(tournament),
            entrants=people, withdrawn={i for i, p in people.items() if p.withdrawn},
            game=tournament.game, organiser=tournament.organiser, options=tournament.options,
            move_time_limit=tournament.move_time_limit, strike_limit=tournament.strike_limit,
            # A duplicate deal is played once per rotation: no finished rotation may show it
            # while another is still to play.
            sealed=tournament.duplicate)

    def planned(self, row: Any, *, forfeited: Collection[int] = ()) -> PlannedMatch:
        return PlannedMatch(key=str(row.number), seats=tuple(row.seats), seed=row.seed,
                            round=row.round, number=row.number, deal=row.deal,
                            forfeited=tuple(i for i in row.seats if i in forfeited))

    def new_row(self, loaded: kinds.Loaded, planned: PlannedMatch) -> TournamentMatch:
        return new_row(loaded.series, planned)

    def take(self, row: Any, outcome: Outcome) -> None:
        """The forfeit rule of every series: forfeiters share the last place, are listed in
        ``forfeited`` (standings count them; ratings leave the match out)."""
        row.ranks, row.forfeited = list(outcome.places), sorted(outcome.forfeited)
        row.scores = None if outcome.scores is None else list(outcome.scores)

    def outcomes(self, loaded: kinds.Loaded, *, tables: Collection[int] | None = None
                 ) -> list[Outcome]:
        rows = (TournamentMatch.objects.filter(tournament=loaded.series,
                                               status=kinds.FINISHED)
                .order_by("finished_at", "number")
                .values_list("number", "round", "seats", "ranks", "scores", "forfeited"))
        return [Outcome(str(number), tuple(seats), tuple(ranks),
                        None if scores is None else tuple(scores), frozenset(forfeited),
                        round=round_index)
                for number, round_index, seats, ranks, scores, forfeited in rows]

    def withdraw(self, loaded: kinds.Loaded, reasons: Mapping[int, str]) -> None:
        for index, reason in reasons.items():
            Participant.objects.filter(tournament=loaded.series, index=index,
                                       withdrawn=False).update(withdrawn=True,
                                                               withdrawn_reason=reason)
            person = loaded.entrants[index]
            person.withdrawn, person.withdrawn_reason = True, reason
        loaded.format = tournament_format(loaded.series)  # a Swiss pairs them no more

    def closed(self, loaded: kinds.Loaded, rows: Sequence[Any], *, now: datetime) -> None:
        if loaded.series.rated:  # a bot version's provisional run never moves a rating
            leaderboard.record(tournament_id=loaded.series.pk, rows=list(rows), played_at=now)

    def finish(self, loaded: kinds.Loaded, *, now: datetime) -> None:
        unseal_deals(loaded.series.pk)


kinds.register(TournamentKind())
