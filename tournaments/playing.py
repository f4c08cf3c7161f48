"""Playing a tournament: claim its pending matches in chunks, start them as ordinary games
matches, record each outcome once, plan what its format plays next (a Swiss round), finish it,
and the reaper. ``docs/series.md`` has the policies, ``docs/tournaments.md`` the details.

Playing one match is a claim (``SELECT ... FOR UPDATE SKIP LOCKED`` and a conditional UPDATE: a
task that runs twice plays it once) and an ordinary ``games`` match created in the same
transaction, so matches of tournaments follow every rule of matches; webhook bots are then
asked by the games task like in any match. A finished match is recorded when
``games.signals.match_finished`` arrives (``series.on_match_finished``; the reaper catches what
that misses); the tournament finishes when its last match is recorded and its format plans
nothing more: fan-in through the database, no chords.

Withdrawal (``series.withdraws``): a participant whose bot cannot be seated when one of its
matches is due, or who forfeited its last ``SERIES_FORFEITS_TO_WITHDRAW`` matches in a row, is
withdrawn: its remaining matches are recorded as forfeits (ranked last) and the tournament goes
on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from games.db import lock_not_available, update_rows, wait_for_locks_at_most
from games.errors import BadSeats
from games.models import Match, Seat
from games.seats import get_seat_kind
from games.services import match_stop, matches_unseal

from . import leaderboard, series
from .formats import Format, Outcome, PlannedMatch, get_format, places_with_forfeits
from .models import Participant, Tournament, TournamentMatch
from .standings import forfeit_result

log = logging.getLogger(__name__)
T = TypeVar("T")

#: ``Match.series`` of a tournament's matches.
SERIES = "tournament"
OPEN = (TournamentMatch.Status.PENDING, TournamentMatch.Status.RUNNING)


# --------------------------------------------------------------------------------------------
# The format, and the rows of what it plans
# --------------------------------------------------------------------------------------------


def tournament_format(tournament: Tournament) -> Format:
    """The format a stored tournament plays (``tournaments.formats``); a Swiss pairs its
    withdrawn participants no more."""
    entrants = dict(tournament.participants.values_list("index", "withdrawn"))
    return format_named(tournament.format, participants=len(entrants),
                        table_size=tournament.table_size, meetings=tournament.meetings,
                        rounds=tournament.rounds, seed=tournament.seed,
                        secret=tournament.deal_secret, duplicate=tournament.duplicate,
                        withdrawn=[index for index, out in entrants.items() if out])


def format_named(name: str, *, participants: int, table_size: int, meetings: int,
                 rounds: int | None, seed: int, secret: str, duplicate: bool,
                 withdrawn: Collection[int] = ()) -> Format:
    """A tournament's format: Swiss, a two-seat round robin, or rounds of balanced tables.
    ``secret`` keys every deal (``rng.deal_seed``); ``seed`` only the tables' search."""
    if name == Tournament.Format.SWISS:
        return get_format("swiss", participants=participants, rounds=rounds, secret=secret,
                          withdrawn=withdrawn)
    if table_size == 2:
        return get_format("round_robin", participants=participants, meetings=meetings,
                          secret=secret, duplicate=duplicate)
    return get_format("tables", participants=participants, seats=table_size, rounds=meetings,
                      seed=seed, secret=secret, duplicate=duplicate)


def add_rows(tournament: Tournament, planned: Sequence[PlannedMatch]) -> None:
    """The rows of newly planned matches; (tournament, number) is unique, so a racing
    worker's second insert of the same plan is a no-op."""
    TournamentMatch.objects.bulk_create(
        [TournamentMatch(tournament=tournament, number=m.number, round=m.round, deal=m.deal,
                         seed=m.seed, seats=list(m.seats)) for m in planned],
        ignore_conflicts=True)


# --------------------------------------------------------------------------------------------
# Claiming, playing and recording matches
# --------------------------------------------------------------------------------------------


def tournament_dispatch(*, tournament_id: int, now: datetime | None = None,
                        lost_only: bool = False) -> int:
    """Queue enough play tasks for the pending matches of a running tournament (each task
    claims up to ``TOURNAMENT_CHUNK`` of them). Their ``lease_until`` says until when those
    messages may be in flight: the reaper queues again what is still pending afterwards
    (playing is idempotent). Rows a play task has locked (claimed, its transaction still open)
    are skipped, not waited for: that task plays them, and a worker host cut off in the middle
    of one must not hold up the reaper (found by ``tests/tournaments/test_hosts.py``).
    ``lost_only`` (the reaper): only rows whose lease ran out, not those whose message still
    waits in the queue. Returns how many tasks were queued."""
    now = now or timezone.now()
    pending = TournamentMatch.objects.filter(
        tournament_id=tournament_id, tournament__status=Tournament.Status.RUNNING,
        status=TournamentMatch.Status.PENDING)
    if lost_only:
        pending = pending.filter(Q(lease_until__lt=now) | Q(lease_until__isnull=True))
    free = pending.select_for_update(skip_locked=True, of=("self",)).values("pk")
    with transaction.atomic():  # one statement; FOR UPDATE wants a transaction
        count = TournamentMatch.objects.filter(pk__in=free).update(
            lease_until=series.lease_until(now))
    tasks = -(-count // settings.TOURNAMENT_CHUNK)
    for _ in range(tasks):
        series.enqueue("play_matches", tournament_id)
    return tasks


def tournament_play(*, tournament_id: int, limit: int | None = None, only: int | None = None,
                    now: datetime | None = None) -> dict[str, int]:
    """Claim up to ``limit`` (default ``TOURNAMENT_CHUNK``) pending matches of a running
    tournament, in schedule order, skipping rows another worker holds, and start them all as
    games matches in one transaction: a task that runs twice plays each match once, and a
    worker that dies mid-chunk rolls the whole claim back. Matches of in-process bots are
    played to the end here and recorded at once; matches with webhook bots or players go on
    in the games workers and are recorded when they finish. A withdrawn participant's
    matches are recorded as forfeits. ``only``: that one match. Returns counts by outcome.

    Its transaction waits at most ``TOURNAMENT_RECORD_LOCK_SECONDS`` for a lock another holds
    (its last statements rate its in-process results on the leaderboard, whose rows a silent
    host's transaction may hold): then the whole chunk is rolled back, its rows pending again
    for the reaper, instead of holding them, and the leaderboard rows it took, meanwhile."""
    now = now or timezone.now()
    bounded = not transaction.get_connection().in_atomic_block  # as in recording
    if bounded:
        _mark_taken(tournament_id, limit=limit, only=only, now=now)
    claimed: list[int] = []

    def held() -> dict[str, int]:
        log.warning("tournament %s: a chunk waited too long for a lock another transaction "
                    "holds; rolled back, the reaper queues its matches again", tournament_id)
        _release(claimed, now=now)
        return {"started": 0, "finished": 0, "forfeit": 0}

    try:
        return locks_waited_at_most(
            lambda: _play_chunk(tournament_id, limit=limit, only=only, now=now,
                                claimed=claimed),
            bounded=bounded, held=held)
    except _CancelledMeanwhile:
        log.info("tournament %s: cancelled while a chunk played; rolled back", tournament_id)
        tournament_cancel_open(tournament_id)
        return {"started": 0, "finished": 0, "forfeit": 0}


def _pending(tournament_id: int, *, only: int | None) -> QuerySet[TournamentMatch]:
    """The pending rows of a running tournament (``only``: that one) that a play task takes."""
    pending = TournamentMatch.objects.filter(
        tournament_id=tournament_id, status=TournamentMatch.Status.PENDING,
        tournament__status=Tournament.Status.RUNNING)
    return pending if only is None else pending.filter(pk=only)


def _mark_taken(tournament_id: int, *, limit: int | None, only: int | None,
                now: datetime) -> None:
    """Before a play task's transaction, committed on its own: the rows it is about to claim
    get the short ``TOURNAMENT_CLAIM_LEASE_SECONDS`` in place of their queued message's long
    ``TOURNAMENT_LEASE_SECONDS``. A task that dies inside its transaction leaves them pending
    again with that short lease, which the reaper takes at its next run after it: a killed
    worker's chunk is played again within two claim leases. A live chunk's rows are locked,
    and the reaper's dispatch skips locked rows, so no healthy match is queued again; rows
    still waiting in a queue backlog keep their long lease."""
    rows = (_pending(tournament_id, only=only).select_for_update(skip_locked=True, of=("self",))
            .order_by("number").values("pk")[:limit or settings.TOURNAMENT_CHUNK])
    soon = now + timedelta(seconds=settings.TOURNAMENT_CLAIM_LEASE_SECONDS)
    with transaction.atomic():
        TournamentMatch.objects.filter(pk__in=rows, lease_until__gt=soon).update(
            lease_until=soon)


def _release(claimed: Sequence[int], *, now: datetime) -> None:
    """The rows a rolled-back chunk had claimed (pending again) are due for the reaper's next
    run, not only once the lease their queued message was given runs out
    (``TOURNAMENT_LEASE_SECONDS``): their message is spent. Not played again at once: the lock
    that rolled the chunk back may still be held. Rows another chunk has claimed since are
    left alone."""
    if claimed:
        free = TournamentMatch.objects.filter(
            pk__in=claimed, status=TournamentMatch.Status.PENDING,
            lease_until__gt=now).select_for_update(skip_locked=True).values("pk")
        with transaction.atomic():
            TournamentMatch.objects.filter(pk__in=free).update(lease_until=now)


class _CancelledMeanwhile(Exception):
    """A chunk's tournament was cancelled while it played: roll it back."""


def tournament_cancel_open(tournament_id: int) -> int:
    """Cancel the open (pending or running) rows of a cancelled tournament and stop their
    matches. Rows a play task holds (claimed, its transaction open) are skipped, not waited
    for: the chunk gives up when it sees the cancel, and if it committed anyway (a worker
    host cut off at its COMMIT) the reaper calls this again. Returns how many rows."""
    with transaction.atomic():
        rows = list(TournamentMatch.objects.filter(
            tournament_id=tournament_id, tournament__status=Tournament.Status.CANCELLED,
            status__in=OPEN).select_for_update(skip_locked=True, of=("self",))
            .values_list("pk", "status", "match_id"))
        TournamentMatch.objects.filter(pk__in=[pk for pk, _, _ in rows]).update(
            status=TournamentMatch.Status.CANCELLED, lease_until=None)
    for _, status, match_id in rows:
        if status == TournamentMatch.Status.RUNNING and match_id is not None:
            match_stop(match_id=match_id, reason="tournament cancelled")
    return len(rows)


def _play_chunk(tournament_id: int, *, limit: int | None, only: int | None,
                now: datetime, claimed: list[int]) -> dict[str, int]:
    """:func:`tournament_play`'s transaction; the rows it claims go into ``claimed``."""
    outcome = {"started": 0, "finished": 0, "forfeit": 0}
    rows = list(_pending(tournament_id, only=only).select_for_update(skip_locked=True,
                                                                      of=("self",))
                .order_by("number")[:limit or settings.TOURNAMENT_CHUNK])
    if not rows:
        return outcome
    claimed.extend(r.pk for r in rows)
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
    out = series.forfeited_seats([m.pk for m in matches if m.status == Match.Status.FINISHED])
    for row, match in zip(to_start, matches):
        row.match, row.lease_until = match, None
        if match.status == Match.Status.FINISHED:
            row.status, row.finished_at = TournamentMatch.Status.FINISHED, now
            _take_result(row, match.result, out.get(match.pk, ()))
            outcome["finished"] += 1
        else:
            row.status = TournamentMatch.Status.RUNNING
            outcome["started"] += 1
    update_rows(TournamentMatch, [
        {"pk": row.pk, "match_id": row.match.pk, "lease_until": None, "status": row.status,
         "finished_at": row.finished_at, "ranks": row.ranks, "scores": row.scores,
         "forfeited": row.forfeited}
        for row in to_start], fields=["match_id", "lease_until", "status", "finished_at",
                                      "ranks", "scores", "forfeited"])
    if Tournament.objects.filter(pk=tournament_id,
                                 status=Tournament.Status.CANCELLED).exists():
        # Cancelled while this chunk played (the cancel skipped its claimed rows): nothing of
        # it counts; rolled back, its rows are cancelled after.
        raise _CancelledMeanwhile()
    leaderboard.record(tournament_id=tournament_id, rows=to_start, played_at=now)
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
        status=TournamentMatch.Status.FINISHED, ranks=list(result.ranks), scores=None,
        forfeited=sorted(result.forfeited), finished_at=now, lease_until=None)
    _finish_if_done(row.tournament_id, now=now)


def tournament_match_record(*, match_id: int, now: datetime | None = None) -> bool:
    """Record a finished games match as its tournament match's outcome (once: the row is
    locked and must still be running). Withdraws participants who keep forfeiting, and
    finishes the tournament if it was its last match. False if there was nothing to record,
    or not now: a lock it needs (the entrants' leaderboard rows, the tournament's row) was held
    longer than ``TOURNAMENT_RECORD_LOCK_SECONDS`` by another transaction, as by a worker host
    cut off inside one (a chunk's last statements); it stays finished and unrecorded, and the
    reaper records it once that transaction has ended. So a worker whose match just finished
    never waits for a host that went silent."""
    now = now or timezone.now()
    # Only as a transaction of its own: the bound lasts until the transaction ends, and a
    # caller's own transaction keeps its own rules.
    bounded = not transaction.get_connection().in_atomic_block

    def held() -> bool:
        log.warning("match %s: not recorded yet: a lock it needs is held by another "
                    "transaction (the reaper records it later)", match_id)
        return False

    return locks_waited_at_most(lambda: _record(match_id, now=now), bounded=bounded, held=held)


def locks_waited_at_most(work: Callable[[], T], *, bounded: bool, held: Callable[[], T]) -> T:
    """``work()`` in a transaction that waits at most ``TOURNAMENT_RECORD_LOCK_SECONDS`` for
    any lock (if ``bounded``); a lock held longer rolls it back and ``held()`` answers."""
    try:
        with transaction.atomic():
            if bounded:
                wait_for_locks_at_most(settings.TOURNAMENT_RECORD_LOCK_SECONDS)
            return work()
    except OperationalError as exc:
        if not lock_not_available(exc):
            raise
        return held()


def _record(match_id: int, *, now: datetime) -> bool:
    """:func:`tournament_match_record`'s transaction."""
    found = series.locked_for_recording(
        TournamentMatch.objects.filter(status=TournamentMatch.Status.RUNNING), match_id)
    if found is None:
        return False
    row, match = found
    row.status, row.finished_at, row.lease_until = TournamentMatch.Status.FINISHED, now, None
    forfeited = series.forfeited_seats([match_id]).get(match_id, ())
    _take_result(row, match.result, forfeited)
    row.save(update_fields=["status", "finished_at", "lease_until", "ranks", "scores",
                            "forfeited"])
    leaderboard.record(tournament_id=row.tournament_id, rows=[row], played_at=now)
    for number in forfeited:
        _withdraw_if_forfeiting(row.tournament_id, row.seats[number])
    _finish_if_done(row.tournament_id, now=now)
    return True


def _take_result(row: TournamentMatch, result: Mapping[str, Any],
                 forfeited_seats: Collection[int]) -> None:
    """A played match's result on its row, by the forfeit rule of every series
    (``formats.places_with_forfeits``, docs/series.md): the seats that forfeited share the
    last place, never a better one (also when every seat forfeited: no winner), and are
    listed in ``forfeited``, so standings count them and ratings leave the match out."""
    row.ranks = list(places_with_forfeits(result["ranks"], forfeited_seats))
    row.scores = result["scores"]
    row.forfeited = sorted({row.seats[seat] for seat in forfeited_seats})


def _withdraw_if_forfeiting(tournament_id: int, index: int) -> None:
    """Withdraw a participant by the rule of every series (``series.withdraws``) over its
    played matches, newest first (one query)."""
    limit = settings.SERIES_FORFEITS_TO_WITHDRAW
    if not limit:
        return
    played = Seat.objects.filter(
        match__tournament_match__tournament_id=tournament_id,
        match__tournament_match__status=TournamentMatch.Status.FINISHED,
    ).order_by("-match__tournament_match__finished_at", "-match__tournament_match__number"
               ).values_list("match__tournament_match__seats", "number", "forfeited")
    forfeits = [forfeited for seats, number, forfeited in played if seats[number] == index]
    if series.withdraws(forfeits):
        participant = Participant.objects.get(tournament_id=tournament_id, index=index)
        _withdraw(participant, f"forfeited {limit} matches in a row")


# --------------------------------------------------------------------------------------------
# Finishing, and the reaper
# --------------------------------------------------------------------------------------------


def _finish_if_done(tournament_id: int, *, now: datetime, wait: bool = False) -> bool:
    """Finish a running tournament with no match left to play.

    Called at the end of every transaction that closes matches, after its own updates. It
    first locks the tournament row: two workers closing the last two chunks at once would
    otherwise each see the other's rows still open (neither committed) and neither would
    finish it. A closing transaction never waits for that lock, though (``wait`` False): if
    another transaction holds it (another worker's check, or one that a worker host cut off
    inside it left open, until PostgreSQL ends its session), this one skips the check and,
    once it has committed, checks again on its own (:func:`_finish_check`), waiting for the
    row at most ``TOURNAMENT_RECORD_LOCK_SECONDS``: by then the other has committed, and the
    check's next statement (READ COMMITTED) sees every closed row; if the holder went silent,
    the reaper finishes the tournament later. Lock order is always match rows, then the
    tournament row (a cancel takes the tournament row in a transaction of its own, then the
    rows in another), so this cannot deadlock."""
    with transaction.atomic():
        running = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING)
        tournament = running.select_for_update(skip_locked=not wait).first()
        if tournament is None and not wait and running.exists():  # held by someone else
            transaction.on_commit(lambda: _finish_check(tournament_id, now=now), robust=True)
            return False
        if tournament is None or TournamentMatch.objects.filter(tournament_id=tournament_id,
                                                                status__in=OPEN).exists():
            return False
        if _plan_next(tournament):
            return False
        Tournament.objects.filter(pk=tournament_id).update(
            status=Tournament.Status.FINISHED, finished_at=now)
        unseal_deals(tournament_id)
    return True


def _finish_check(tournament_id: int, *, now: datetime) -> bool:
    """:func:`_finish_if_done` in a transaction of its own that waits for the tournament's
    row at most ``TOURNAMENT_RECORD_LOCK_SECONDS`` (False if it was held longer)."""

    def held() -> bool:
        log.info("tournament %s: its row is held by another transaction; the reaper checks "
                 "whether it is over later", tournament_id)
        return False

    return locks_waited_at_most(lambda: _finish_if_done(tournament_id, now=now, wait=True),
                                 bounded=True, held=held)


def _plan_next(tournament: Tournament) -> int:
    """Every planned match is done: ask the format for more (a Swiss round, paired on the
    outcomes so far), add their rows and queue them. Called under the tournament row lock
    (:func:`_finish_if_done`), so one worker plans each round. Returns how many it added."""
    if TournamentMatch.objects.filter(tournament=tournament).count() >= tournament.match_total:
        return 0  # all planned already (a round robin's whole schedule, at creation)
    plan = tournament_format(tournament)
    rows = TournamentMatch.objects.filter(tournament=tournament,
                                          status=TournamentMatch.Status.FINISHED)
    outcomes = {str(number): Outcome(str(number), tuple(seats), tuple(ranks),
                                     None if scores is None else tuple(scores),
                                     frozenset(forfeited), round=round_index)
                for number, round_index, seats, ranks, scores, forfeited
                in rows.values_list("number", "round", "seats", "ranks", "scores", "forfeited")}
    planned = plan.plan(outcomes)
    if not planned:
        return 0
    add_rows(tournament, planned)
    series.enqueue("dispatch", tournament.pk)
    return len(planned)


def unseal_deals(tournament_id: int) -> None:
    """The tournament is over: its duplicate deals may be shown."""
    matches_unseal(match_ids=list(TournamentMatch.objects.filter(
        tournament_id=tournament_id, match__isnull=False).values_list("match_id", flat=True)))


def tournaments_reap(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Periodic: put right what a crash or a lost message left. Records finished matches not
    recorded yet; queues again pending matches whose queued message should have been taken
    by now (``lease_until`` passed); cancels open rows of cancelled tournaments (claimed by a
    chunk when it was cancelled); releases running rows whose lease expired before their
    match was made; finishes tournaments with nothing left. Returns how many rows it fixed."""
    now = now or timezone.now()
    fixed = 0
    for tournament_id in set(TournamentMatch.objects.filter(
            status__in=OPEN, tournament__status=Tournament.Status.CANCELLED)
            .values_list("tournament_id", flat=True)[:limit]):
        fixed += tournament_cancel_open(tournament_id)  # what its cancel could not reach
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
        fixed += tournament_dispatch(tournament_id=tournament_id, now=now, lost_only=True)
    for pk in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list(
            "pk", flat=True):
        fixed += _finish_check(pk, now=now)  # a silent holder of its row: the next run
    return fixed


series.register(series.SeriesKind(name=SERIES, record=tournament_match_record,
                                  reap=tournaments_reap))
