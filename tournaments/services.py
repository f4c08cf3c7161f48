"""Tournament services: create, start, play each scheduled match, record outcomes, cancel.

The schedule is made at creation (``tournaments.scheduling``), one :class:`TournamentMatch`
row per match. Playing one is a claim (a conditional UPDATE: a task that runs twice plays it
once) and an ordinary ``games`` match created in the same transaction, so matches of
tournaments follow every rule of matches; webhook bots are then asked by the games task like in
any match. A finished match is recorded when ``games.signals.match_finished`` arrives (and by
the reaper, should that be missed); the tournament finishes when its last match is recorded:
fan-in through the database, no chords.

Withdrawal (docs/tournaments.md): a participant whose bot cannot be seated when one of its
matches is due (disabled, failed handshake), or who forfeited its last
``SERIES_FORFEITS_TO_WITHDRAW`` matches in a row (``series.withdraws``), is withdrawn: its
remaining matches are
recorded as forfeits (it is ranked last in them) and the tournament goes on.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from games.db import update_rows
from games.engine.base import counted
from games.errors import BadSeats
from games.models import Match, Seat
from games.seats import get_seat_kind
from games.services import match_stop, matches_unseal

from .entrants import entered_twice, entrant_fields, game_table
from .errors import (
    BadTournament,
    NotYourTournament,
    TournamentLimit,
    TournamentNotFound,
    TournamentNotRunning,
)
from . import series
from .formats import Format, Outcome, PlannedMatch, get_format
from .formats.swiss import Swiss
from .models import Participant, Tournament, TournamentMatch
from .scheduling import balance_figures
from .standings import forfeit_result

log = logging.getLogger(__name__)

#: ``Match.series`` of a tournament's matches.
SERIES = "tournament"

SEED_BITS = 63
OPEN = (TournamentMatch.Status.PENDING, TournamentMatch.Status.RUNNING)


# --------------------------------------------------------------------------------------------
# Creating, starting, cancelling
# --------------------------------------------------------------------------------------------


def tournament_create(*, organiser: AbstractBaseUser, name: str, game: str,
                      participants: Sequence[Mapping[str, Any]],
                      options: Mapping[str, Any] | None = None, table_size: int | None = None,
                      meetings: int = 1, duplicate: bool = False,
                      format: str = Tournament.Format.ROUND_ROBIN,  # noqa: A002
                      rounds: int | None = None,
                      strike_limit: int | None = None, move_time_limit: int | None = None,
                      starts_at: datetime | None = None, seed: int | None = None) -> Tournament:
    """Check everything, plan the first matches and make their rows; start at once unless
    ``starts_at`` is in the future (then ``tournaments.start_due`` starts it).

    ``participants``: ``{"kind": "webhook", "bot": <id>}``, ``{"kind": "reference", "bot":
    "heuristic"}`` or ``{"kind": "player", "user": "<username>"}``, each with an optional
    ``name``. ``format`` ``round_robin``: two seats, each pair meets ``meetings`` times (seats
    swapped); more seats, ``meetings`` rounds of balanced tables; the whole schedule is made
    now. ``swiss``: two seats, ``rounds`` rounds (default ceil(log2 participants)), each
    paired by score when the one before is done (:func:`_plan_next`).
    """
    if format == Tournament.Format.SWISS and table_size is None:
        table_size = 2  # Swiss pairs
    try:
        _, size, merged = game_table(game, table_size, options, default="default_players")
    except ValueError as exc:
        raise BadTournament(str(exc)) from None
    count = len(participants)
    most = settings.TOURNAMENT_MAX_PARTICIPANTS
    if not max(2, size) <= count <= most:
        raise BadTournament(f"{counted(count, 'participant')}: a tournament of tables of "
                            f"{size} takes {max(2, size)} to {most}")
    if not 1 <= meetings <= settings.TOURNAMENT_MAX_MEETINGS:
        raise BadTournament(f"meetings must be 1 to {settings.TOURNAMENT_MAX_MEETINGS}")
    if format == Tournament.Format.SWISS:
        if size != 2 or duplicate or meetings != 1:
            raise BadTournament("a Swiss tournament is of two-seat matches, without meetings "
                                "or duplicate deals (its rounds set how many it plays)")
        rounds = Swiss.default_rounds(count) if rounds is None else rounds
    elif rounds is not None:
        raise BadTournament("rounds is for a Swiss tournament (a round robin takes meetings)")
    entrants = [_entrant(game, index, spec, organiser) for index, spec in enumerate(participants)]
    if (twice := entered_twice(entrants)) is not None:
        raise BadTournament(f"participant {twice.index} ({twice.name}) is entered twice")
    seed = secrets.randbits(SEED_BITS) if seed is None else seed
    try:
        plan = _format(format, participants=count, table_size=size, meetings=meetings,
                       rounds=rounds, seed=seed, duplicate=duplicate)
    except ValueError as exc:
        raise BadTournament(str(exc)) from None
    scheduled = plan.plan({})
    _check_limits(organiser, plan.match_count())
    now = timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name, game=game, options=merged, organiser=organiser, table_size=size,
            format=format, meetings=meetings, rounds=rounds, match_total=plan.match_count(),
            duplicate=duplicate, seed=seed, starts_at=starts_at,
            strike_limit=settings.BLUFF_MAX_STRIKES if strike_limit is None else strike_limit,
            move_time_limit=move_time_limit or settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT,
            balance=asdict(balance_figures(schedule_of(scheduled), count)))
        for entrant in entrants:
            entrant.tournament = tournament
        Participant.objects.bulk_create(entrants)
        _add_rows(tournament, scheduled)
        if starts_at is None or starts_at <= now:
            tournament_start(tournament_id=tournament.pk, now=now)
            tournament.refresh_from_db()
    return tournament


def _add_rows(tournament: Tournament, planned: Sequence[PlannedMatch]) -> None:
    """The rows of newly planned matches; (tournament, number) is unique, so a racing
    worker's second insert of the same plan is a no-op."""
    TournamentMatch.objects.bulk_create(
        [TournamentMatch(tournament=tournament, number=m.number, round=m.round, deal=m.deal,
                         seed=m.seed, seats=list(m.seats)) for m in planned],
        ignore_conflicts=True)


def tournament_format(tournament: Tournament) -> Format:
    """The format a stored tournament plays (``tournaments.formats``)."""
    return _format(tournament.format, participants=tournament.participants.count(),
                   table_size=tournament.table_size, meetings=tournament.meetings,
                   rounds=tournament.rounds, seed=tournament.seed,
                   duplicate=tournament.duplicate)


def _format(name: str, *, participants: int, table_size: int, meetings: int,
            rounds: int | None, seed: int, duplicate: bool) -> Format:
    """A tournament's format: Swiss, a two-seat round robin, or rounds of balanced tables."""
    if name == Tournament.Format.SWISS:
        return get_format("swiss", participants=participants, rounds=rounds, seed=seed)
    if table_size == 2:
        return get_format("round_robin", participants=participants, meetings=meetings,
                          seed=seed, duplicate=duplicate)
    return get_format("tables", participants=participants, seats=table_size, rounds=meetings,
                      seed=seed, duplicate=duplicate)


def schedule_of(planned: Sequence[PlannedMatch]) -> list[list[tuple[int, ...]]]:
    """The rounds of tables of planned matches (one table per deal), for ``balance_figures``."""
    rounds: dict[int, dict[int, tuple[int, ...]]] = {}
    for match in planned:
        rounds.setdefault(match.round, {}).setdefault(match.deal, match.seats)
    return [list(rounds[r].values()) for r in sorted(rounds)]


def _entrant(game: str, index: int, spec: Mapping[str, Any],
             organiser: AbstractBaseUser) -> Participant:
    try:
        fields = entrant_fields(game, spec, organiser)
    except ValueError as exc:
        raise BadTournament(f"participant {index}: {exc}") from None
    return Participant(index=index, **fields)


def _check_limits(organiser: AbstractBaseUser, new_matches: int) -> None:
    """One account cannot flood the workers (staff can)."""
    if organiser.is_staff:
        return
    active = Tournament.objects.filter(
        organiser=organiser,
        status__in=[Tournament.Status.SCHEDULED, Tournament.Status.RUNNING]).count()
    if active >= settings.TOURNAMENT_MAX_ACTIVE:
        raise TournamentLimit(f"you already have {active} scheduled or running tournaments "
                              f"(at most {settings.TOURNAMENT_MAX_ACTIVE})")
    queued = TournamentMatch.objects.filter(tournament__organiser=organiser,
                                            status__in=OPEN).count()
    if queued + new_matches > settings.TOURNAMENT_MAX_QUEUED_MATCHES:
        raise TournamentLimit(f"{queued} of your matches are still to play and this adds "
                              f"{new_matches} (at most "
                              f"{settings.TOURNAMENT_MAX_QUEUED_MATCHES} at once)")


def tournament_start(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Scheduled -> running (a conditional UPDATE: two dispatchers start it once), and queue
    its matches when the transaction commits. False if it was not scheduled."""
    now = now or timezone.now()
    started = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.SCHEDULED
                                        ).update(status=Tournament.Status.RUNNING,
                                                 started_at=now)
    if started:
        series.enqueue("dispatch", tournament_id)
    return bool(started)


def tournaments_start_due(*, now: datetime | None = None) -> int:
    """Periodic: start every scheduled tournament whose start time has come."""
    now = now or timezone.now()
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, starts_at__lte=now)
    return sum(tournament_start(tournament_id=pk, now=now)
               for pk in due.values_list("pk", flat=True))


def tournament_dispatch(*, tournament_id: int, now: datetime | None = None) -> int:
    """Queue enough play tasks for the pending matches of a running tournament (each task
    claims up to ``TOURNAMENT_CHUNK`` of them). Their ``lease_until`` says until when those
    messages may be in flight: the reaper queues again what is still pending afterwards
    (playing is idempotent). Returns how many tasks were queued."""
    now = now or timezone.now()
    pending = TournamentMatch.objects.filter(
        tournament_id=tournament_id, tournament__status=Tournament.Status.RUNNING,
        status=TournamentMatch.Status.PENDING)
    count = pending.update(lease_until=series.lease_until(now))
    tasks = -(-count // settings.TOURNAMENT_CHUNK)
    for _ in range(tasks):
        series.enqueue("play_matches", tournament_id)
    return tasks


def tournament_cancel(*, tournament_id: int, user: AbstractBaseUser) -> Tournament:
    """Stop a scheduled or running tournament: matches not started never will be, matches in
    progress are stopped (every seat forfeits, so they end at once) and not counted; finished
    ones are kept."""
    tournament = tournament_get_changeable(tournament_id=tournament_id, user=user)
    with transaction.atomic():
        # Match rows first, then the tournament row: the order every transaction that closes
        # matches takes them in (see _finish_if_done).
        open_rows = list(TournamentMatch.objects.select_for_update()
                         .filter(tournament=tournament, status__in=OPEN)
                         .values_list("pk", "status", "match_id"))
        cancelled = Tournament.objects.filter(
            pk=tournament.pk, status__in=[Tournament.Status.SCHEDULED,
                                          Tournament.Status.RUNNING]
        ).update(status=Tournament.Status.CANCELLED, finished_at=timezone.now())
        if not cancelled:
            raise TournamentNotRunning(f"the tournament is {tournament.status}")
        running = [match_id for _, status, match_id in open_rows
                   if status == TournamentMatch.Status.RUNNING and match_id is not None]
        TournamentMatch.objects.filter(pk__in=[pk for pk, _, _ in open_rows]).update(
            status=TournamentMatch.Status.CANCELLED, lease_until=None)
    for match_id in running:
        match_stop(match_id=match_id, reason="tournament cancelled")
    _unseal(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def tournament_get_changeable(*, tournament_id: int, user: AbstractBaseUser) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound()
    if tournament.organiser_id != user.pk and not user.is_staff:
        raise NotYourTournament()
    return tournament


# --------------------------------------------------------------------------------------------
# Playing and recording matches
# --------------------------------------------------------------------------------------------


def tournament_play(*, tournament_id: int, limit: int | None = None, only: int | None = None,
                    now: datetime | None = None) -> dict[str, int]:
    """Claim up to ``limit`` (default ``TOURNAMENT_CHUNK``) pending matches of a running
    tournament, in schedule order, skipping rows another worker holds, and start them all as
    games matches in one transaction: a task that runs twice plays each match once, and a
    worker that dies mid-chunk rolls the whole claim back. Matches of in-process bots are
    played to the end here and recorded at once; matches with webhook bots or players go on
    in the games workers and are recorded when they finish. A withdrawn participant's
    matches are recorded as forfeits. ``only``: that one match. Returns counts by outcome."""
    now = now or timezone.now()
    outcome = {"started": 0, "finished": 0, "forfeit": 0}
    with transaction.atomic():
        pending = TournamentMatch.objects.filter(
            tournament_id=tournament_id, status=TournamentMatch.Status.PENDING,
            tournament__status=Tournament.Status.RUNNING)
        if only is not None:
            pending = pending.filter(pk=only)
        rows = list(pending.select_for_update(skip_locked=True, of=("self",))
                    .order_by("number")[:limit or settings.TOURNAMENT_CHUNK])
        if not rows:
            return outcome
        TournamentMatch.objects.filter(pk__in=[r.pk for r in rows]).update(
            status=TournamentMatch.Status.RUNNING, attempts=F("attempts") + 1,
            lease_until=series.lease_until(now))
        tournament = Tournament.objects.select_related("organiser").get(pk=tournament_id)
        people = {p.index: p for p in tournament.participants.all()}
        to_start = _forfeit_or_keep(tournament, rows, people, now=now, outcome=outcome)
        try:
            matches = _start_matches(tournament, to_start, people)
        except BadSeats:  # a bot went away between our check and the match's own: again
            _withdraw_unseatable(tournament, [people[i] for r in to_start for i in r.seats],
                                 checked={})
            to_start = _forfeit_or_keep(tournament, to_start, people, now=now, outcome=outcome)
            matches = _start_matches(tournament, to_start, people)
        for row, match in zip(to_start, matches):
            row.match, row.lease_until = match, None
            if match.status == Match.Status.FINISHED:
                row.status, row.finished_at = TournamentMatch.Status.DONE, now
                row.ranks, row.scores = match.result["ranks"], match.result["scores"]
                outcome["finished"] += 1
            else:
                row.status = TournamentMatch.Status.RUNNING
                outcome["started"] += 1
        update_rows(TournamentMatch, [
            {"pk": row.pk, "match_id": row.match.pk, "lease_until": None, "status": row.status,
             "finished_at": row.finished_at, "ranks": row.ranks, "scores": row.scores}
            for row in to_start], fields=["match_id", "lease_until", "status", "finished_at",
                                          "ranks", "scores"])
        _finish_if_done(tournament_id, now=now)
    return outcome


def tournament_match_play(*, tournament_match_id: int, now: datetime | None = None) -> str:
    """Play one scheduled match (:func:`tournament_play` of just that row): ``"started"`` (or
    ``"finished"``, for in-process bots), ``"forfeit"``, or ``"skipped"`` (claimed already,
    done, or its tournament is not running)."""
    row = TournamentMatch.objects.filter(pk=tournament_match_id).values("tournament_id").first()
    if row is None:
        return "skipped"
    outcome = tournament_play(tournament_id=row["tournament_id"], only=tournament_match_id,
                              limit=1, now=now)
    return next((key for key, count in outcome.items() if count), "skipped")


def _forfeit_or_keep(tournament: Tournament, rows: Sequence[TournamentMatch],
                     people: Mapping[int, Participant], *, now: datetime,
                     outcome: dict[str, int]) -> list[TournamentMatch]:
    """Record as forfeits the rows where a withdrawn (or now unseatable) participant sits; the
    rows left to play."""
    checked: dict[int, bool] = {}
    keep = []
    for row in rows:
        seated = [people[index] for index in row.seats]
        _withdraw_unseatable(tournament, seated, checked=checked)
        withdrawn = [p.index for p in seated if p.withdrawn]
        if withdrawn:
            _record_forfeit(row, withdrawn, now=now)
            outcome["forfeit"] += 1
        else:
            keep.append(row)
    return keep


def _start_matches(tournament: Tournament, rows: Sequence[TournamentMatch],
                   people: Mapping[int, Participant]) -> list[Match]:
    return series.matches_start(
        game=tournament.game, organiser=tournament.organiser, options=tournament.options,
        move_time_limit=tournament.move_time_limit, strike_limit=tournament.strike_limit,
        # A duplicate deal is played once per rotation: no finished rotation may show it
        # while another is still to play.
        sealed=tournament.duplicate, series=SERIES, entrants=people,
        planned=[PlannedMatch(key=str(row.number), seats=tuple(row.seats), seed=row.seed)
                 for row in rows])


def _withdraw_unseatable(tournament: Tournament, seated: Sequence[Participant], *,
                         checked: dict[int, bool]) -> None:
    """Withdraw every bot at the table that can no longer be seated (disabled, deleted, failed
    handshake): the seat kind's own check says why. ``checked``: participants already checked
    in this chunk."""
    for participant in seated:
        if (participant.withdrawn or participant.kind == Participant.Kind.PLAYER
                or participant.index in checked):
            continue
        checked[participant.index] = True
        try:
            get_seat_kind(participant.kind).check_bot(tournament.game, participant.bot,
                                                      tournament.organiser)
        except (KeyError, ValueError, BadSeats) as exc:
            _withdraw(participant, f"cannot be seated: {exc}")


def _withdraw(participant: Participant, reason: str) -> None:
    Participant.objects.filter(pk=participant.pk, withdrawn=False).update(
        withdrawn=True, withdrawn_reason=reason[:200])
    participant.withdrawn, participant.withdrawn_reason = True, reason[:200]
    log.info("tournament %s: participant %s withdrawn: %s", participant.tournament_id,
             participant.index, reason)


def _record_forfeit(row: TournamentMatch, withdrawn: Sequence[int], *, now: datetime) -> None:
    result = forfeit_result(row.seats, withdrawn)
    TournamentMatch.objects.filter(pk=row.pk).update(
        status=TournamentMatch.Status.DONE, ranks=list(result.ranks), scores=None,
        forfeited=sorted(result.forfeited), finished_at=now, lease_until=None)
    _finish_if_done(row.tournament_id, now=now)


def tournament_match_record(*, match_id: int, now: datetime | None = None) -> bool:
    """Record a finished games match as its tournament match's outcome (once: the row is
    locked and must still be running). Withdraws participants who keep forfeiting, and
    finishes the tournament if it was its last match. False if there was nothing to record."""
    now = now or timezone.now()
    with transaction.atomic():
        row = (TournamentMatch.objects.select_for_update()
               .filter(match_id=match_id, status=TournamentMatch.Status.RUNNING).first())
        if row is None:
            return False
        match = Match.objects.filter(pk=match_id, status=Match.Status.FINISHED).first()
        if match is None:
            return False
        row.status, row.finished_at, row.lease_until = TournamentMatch.Status.DONE, now, None
        row.ranks, row.scores = match.result["ranks"], match.result["scores"]
        row.save(update_fields=["status", "finished_at", "lease_until", "ranks", "scores"])
        forfeited = set(Seat.objects.filter(match_id=match_id, forfeited=True)
                        .values_list("number", flat=True))
        for number in forfeited:
            _withdraw_if_forfeiting(row.tournament_id, row.seats[number])
        _finish_if_done(row.tournament_id, now=now)
    return True


def _withdraw_if_forfeiting(tournament_id: int, index: int) -> None:
    """Withdraw a participant by the rule of every series (``series.withdraws``) over its
    played matches, newest first (one query)."""
    limit = settings.SERIES_FORFEITS_TO_WITHDRAW
    if not limit:
        return
    played = Seat.objects.filter(
        match__tournament_match__tournament_id=tournament_id,
        match__tournament_match__status=TournamentMatch.Status.DONE,
    ).order_by("-match__tournament_match__finished_at", "-match__tournament_match__number"
               ).values_list("match__tournament_match__seats", "number", "forfeited")
    forfeits = [forfeited for seats, number, forfeited in played if seats[number] == index]
    if series.withdraws(forfeits):
        participant = Participant.objects.get(tournament_id=tournament_id, index=index)
        _withdraw(participant, f"forfeited {limit} matches in a row")


def _finish_if_done(tournament_id: int, *, now: datetime) -> bool:
    """Finish a running tournament with no match left to play.

    Called at the end of every transaction that closes matches, after its own updates. It
    first locks the tournament row: two workers closing the last two chunks at once would
    otherwise each see the other's rows still open (neither committed) and neither would
    finish it. With the lock the second waits for the first to commit, and its next
    statement (READ COMMITTED) sees every closed row. Lock order is always match rows, then
    the tournament row (:func:`tournament_cancel` too), so this cannot deadlock."""
    with transaction.atomic():
        tournament = (Tournament.objects.select_for_update()
                      .filter(pk=tournament_id, status=Tournament.Status.RUNNING).first())
        if tournament is None or TournamentMatch.objects.filter(tournament_id=tournament_id,
                                                                status__in=OPEN).exists():
            return False
        if _plan_next(tournament):
            return False
        Tournament.objects.filter(pk=tournament_id).update(
            status=Tournament.Status.FINISHED, finished_at=now)
        _unseal(tournament_id)
    return True


def _plan_next(tournament: Tournament) -> int:
    """Every planned match is done: ask the format for more (a Swiss round, paired on the
    outcomes so far), add their rows and queue them. Called under the tournament row lock
    (:func:`_finish_if_done`), so one worker plans each round. Returns how many it added."""
    if TournamentMatch.objects.filter(tournament=tournament).count() >= tournament.match_total:
        return 0  # all planned already (a round robin's whole schedule, at creation)
    plan = tournament_format(tournament)
    rows = TournamentMatch.objects.filter(tournament=tournament,
                                          status=TournamentMatch.Status.DONE)
    outcomes = {str(number): Outcome(str(number), tuple(seats), tuple(ranks),
                                     None if scores is None else tuple(scores),
                                     frozenset(forfeited))
                for number, seats, ranks, scores, forfeited
                in rows.values_list("number", "seats", "ranks", "scores", "forfeited")}
    planned = plan.plan(outcomes)
    if not planned:
        return 0
    _add_rows(tournament, planned)
    series.enqueue("dispatch", tournament.pk)
    return len(planned)


def _unseal(tournament_id: int) -> None:
    """The tournament is over: its duplicate deals may be shown."""
    matches_unseal(match_ids=list(TournamentMatch.objects.filter(
        tournament_id=tournament_id, match__isnull=False).values_list("match_id", flat=True)))


# --------------------------------------------------------------------------------------------
# The reaper
# --------------------------------------------------------------------------------------------


def tournaments_reap(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Periodic: put right what a crash or a lost message left. Records finished matches not
    recorded yet; queues again pending matches whose queued message should have been taken
    by now (``lease_until`` passed); releases running rows whose lease expired before their
    match was made; finishes tournaments with nothing left. Returns how many rows it fixed."""
    now = now or timezone.now()
    fixed = 0
    unrecorded = TournamentMatch.objects.filter(status=TournamentMatch.Status.RUNNING,
                                                match__status=Match.Status.FINISHED)
    for match_id in list(unrecorded.values_list("match_id", flat=True)[:limit]):
        fixed += tournament_match_record(match_id=match_id, now=now)
    fixed += TournamentMatch.objects.filter(
        status=TournamentMatch.Status.RUNNING, match__isnull=True, lease_until__lt=now,
    ).update(status=TournamentMatch.Status.PENDING)
    lost = TournamentMatch.objects.filter(
        status=TournamentMatch.Status.PENDING, tournament__status=Tournament.Status.RUNNING,
    ).filter(Q(lease_until__lt=now) | Q(lease_until__isnull=True))
    for tournament_id in set(lost.values_list("tournament_id", flat=True)[:limit]):
        fixed += tournament_dispatch(tournament_id=tournament_id, now=now)
    for pk in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list(
            "pk", flat=True):
        fixed += _finish_if_done(pk, now=now)
    return fixed


series.register(series.SeriesKind(name=SERIES, record=tournament_match_record,
                                  reap=tournaments_reap))
