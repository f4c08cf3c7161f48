"""Tournament services: create (check everything, plan the first matches), start, cancel.
Playing them is the series runner's (``tournaments.runner``, as ``tournaments.runner.tournament``);
the policies, ``docs/series.md``."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games.db import locks_waited_at_most
from games.engine.base import counted
from games.engine.rng import SEED_BITS, new_secret, secret_from_seed

from .entrants import entered_twice, entrant_fields, game_table
from .errors import (
    BadTournament,
    NotYourTournament,
    TournamentBusy,
    TournamentLimit,
    TournamentNotFound,
    TournamentNotRunning,
)
from .formats import PlannedMatch
from .formats.swiss import Swiss
from .models import Participant, Tournament, TournamentMatch
from .runner import cancel_open, kinds
from .runner.kinds import OPEN
from .runner.tournament import SERIES, format_named, new_row, unseal_deals
from .scheduling import balance_figures


def tournament_create(*, organiser: AbstractBaseUser, name: str, game: str,
                      participants: Sequence[Mapping[str, Any]],
                      options: Mapping[str, Any] | None = None, table_size: int | None = None,
                      meetings: int = 1, duplicate: bool = False,
                      format: str = Tournament.Format.ROUND_ROBIN,
                      rounds: int | None = None, in_flight: int | None = None,
                      ends_at: datetime | None = None,
                      strike_limit: int | None = None, move_time_limit: int | None = None,
                      starts_at: datetime | None = None, seed: int | None = None,
                      open_entries: bool = False, entry_cap: int | None = None,
                      provisional: bool = False, challengers: int = 2) -> Tournament:
    """Check everything, plan the first matches and make their rows; start at once unless
    ``starts_at`` is in the future (then ``tournaments.start_due`` starts it). Raises the
    first of :func:`tournament_problems` (a form shows them all).

    ``participants``: ``{"kind": "webhook", "bot": <id>}``, ``{"kind": "reference", "bot":
    "heuristic"}`` or ``{"kind": "player", "user": "<username>"}``, each with an optional
    ``name``. ``format`` ``round_robin``: two seats, each pair meets ``meetings`` times (seats
    swapped); more seats, ``meetings`` rounds of balanced tables; the whole schedule is made
    now. ``swiss``: two seats, ``rounds`` rounds (default ceil(log2 participants)), each
    paired by score when the one before is done. ``continuous``: two seats, ``in_flight``
    matches (default: everyone busy) kept going, least-met pairs first, until ``ends_at``.

    ``open_entries``: bot owners and people enter themselves until ``starts_at`` (required,
    in the future), at most ``entry_cap`` in all (``tournaments.entries``); ``participants``
    are the organiser's own entries, any number up to the cap. Its schedule is made when it
    starts (:func:`tournament_start`), for those entered then; its table size, unless given,
    is the game's smallest (any number of entrants fills it).

    ``provisional``: a bot version's provisional run (``tournaments.ladders.versions``): of the
    ``benchmark`` format (no other tournament may be), its candidate a seat kind nobody enters
    (``candidate``), unrated (its matches never move the leaderboard); ``challengers``: how
    many of its first entrants play the field (1 for an in-place version: ``formats.benchmark``).
    """
    checked = _check(organiser=organiser, game=game, participants=participants,
                     options=options, table_size=table_size, meetings=meetings,
                     duplicate=duplicate, format=format, rounds=rounds, in_flight=in_flight,
                     ends_at=ends_at, starts_at=starts_at, open_entries=open_entries,
                     entry_cap=entry_cap, provisional=provisional)
    if checked.problems:
        raise checked.problems[0]
    size, count, rounds, in_flight = checked.size, len(participants), checked.rounds, \
        checked.in_flight
    secret = new_secret() if seed is None else secret_from_seed(seed)
    seed = secrets.randbits(SEED_BITS) if seed is None else seed
    fields = {"name": name, "game": game, "options": checked.options, "organiser": organiser,
              "table_size": size, "format": format, "meetings": meetings, "rounds": rounds,
              "in_flight": in_flight, "ends_at": ends_at, "duplicate": duplicate,
              "rated": not provisional, "challengers": challengers,
              "seed": seed, "deal_secret": secret, "starts_at": starts_at,
              "strike_limit": settings.BLUFF_MAX_STRIKES if strike_limit is None
              else strike_limit,
              "move_time_limit": move_time_limit or settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT}
    if open_entries:  # no schedule until it starts (_plan_open)
        _check_limits(organiser, 0)
        with transaction.atomic():
            tournament = Tournament.objects.create(**fields, entries_open=True,
                                                   entry_cap=entry_cap)
            _enter(tournament, checked.entrants)
        return tournament
    try:
        plan = format_named(format, participants=count, table_size=size, meetings=meetings,
                            rounds=rounds, seed=seed, secret=secret, duplicate=duplicate,
                            in_flight=in_flight, ends_at=ends_at, challengers=challengers)
    except ValueError as exc:
        raise BadTournament(str(exc)) from None
    scheduled = plan.plan({})
    _check_limits(organiser, plan.match_count() or 0)
    now = timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.create(
            **fields, match_total=plan.match_count() or 0,
            balance=asdict(balance_figures(schedule_of(scheduled), count)))
        _enter(tournament, checked.entrants)
        TournamentMatch.objects.bulk_create([new_row(tournament, m) for m in scheduled])
        if starts_at is None or starts_at <= now:
            tournament_start(tournament_id=tournament.pk, now=now)
            tournament.refresh_from_db()
    return tournament


def tournament_problems(**arguments: Any) -> list[BadTournament]:
    """Every reason :func:`tournament_create`'s ``arguments`` cannot make a tournament, not
    only the first, each naming its field or participant (``participant 2: ...``), so a form
    shows them all in one answer. Empty: only the plan and the organiser's limits are left
    to check."""
    shape_only = {"name", "seed", "strike_limit", "move_time_limit"}  # serializers check them
    return _check(**{key: value for key, value in arguments.items()
                     if key not in shape_only}).problems


@dataclass
class _Checked:
    """What checking a new tournament found: its problems, else what creating it takes."""

    problems: list[BadTournament] = field(default_factory=list)
    size: int = 2
    options: dict[str, Any] = field(default_factory=dict)
    rounds: int | None = None
    in_flight: int | None = None
    entrants: list[Participant] = field(default_factory=list)


def _check(*, organiser: AbstractBaseUser, game: str,
           participants: Sequence[Mapping[str, Any]],
           options: Mapping[str, Any] | None = None, table_size: int | None = None,
           meetings: int = 1, duplicate: bool = False,
           format: str = Tournament.Format.ROUND_ROBIN, rounds: int | None = None,
           in_flight: int | None = None, ends_at: datetime | None = None,
           starts_at: datetime | None = None, open_entries: bool = False,
           entry_cap: int | None = None, provisional: bool = False) -> _Checked:
    """Each check on its own, every failure kept (a check that needs the table size is
    skipped when the game refused it)."""
    checked = _Checked(rounds=rounds, in_flight=in_flight)
    problems = checked.problems

    def refuse(reason: str) -> None:
        problems.append(BadTournament(reason))

    if format in (Tournament.Format.SWISS, Tournament.Format.CONTINUOUS) and table_size is None:
        table_size = 2  # Swiss pairs
    if (format == Tournament.Format.BENCHMARK) != provisional:
        refuse("a benchmark tournament is a bot version's provisional run: register a version "
               "of your bot (POST /api/bots/{id}/versions/)" if not provisional
               else "a provisional run is of the benchmark format")
    count = len(participants)
    most = settings.TOURNAMENT_MAX_PARTICIPANTS
    size = None
    try:
        engine, size, checked.options = game_table(game, table_size, options,
                                                   default="default_players")
        if table_size is None and (count < size or open_entries):
            # too few for the usual table, or who enters is not known yet: the smallest
            engine, size, checked.options = game_table(game, engine.min_players, options,
                                                       default="default_players")
        checked.size = size
    except ValueError as exc:
        refuse(str(exc))
    now = timezone.now()
    if open_entries:
        if starts_at is None or starts_at <= now:
            refuse("starts_at is needed in the future for a tournament open for entries: "
                   "entries close when it starts")
        cap = most if entry_cap is None else entry_cap
        if size is not None and not max(2, size) <= cap <= most:
            refuse(f"entry_cap must be {max(2, size)} to {most} (tables of {size})")
        elif count > cap:
            refuse(f"{counted(count, 'participant')} entered by you, over the entry_cap of "
                   f"{cap}; raise the cap or remove some")
    else:
        if entry_cap is not None:
            refuse("entry_cap is for a tournament open for entries (open_entries)")
        if size is not None and not max(2, size) <= count <= most:
            fix = "remove some" if count > most else (
                "add participants" + (f" or choose tables of {engine.min_players}"
                                      if engine.min_players < size else ""))
            refuse(f"{counted(count, 'participant')}: a tournament of tables of {size} takes "
                   f"{max(2, size)} to {most}; {fix}")
    if starts_at is not None:
        try:
            kinds.check_ahead(starts_at, "starts_at")
        except ValueError as exc:
            refuse(str(exc))
    if not 1 <= meetings <= settings.TOURNAMENT_MAX_MEETINGS:
        refuse(f"meetings must be 1 to {settings.TOURNAMENT_MAX_MEETINGS}")
    pairs = size is None or (size == 2 and not duplicate and meetings == 1)
    if format == Tournament.Format.SWISS:
        if not pairs:
            refuse("a Swiss tournament is of two-seat matches, without meetings or duplicate "
                   "deals (its rounds set how many it plays)")
        if rounds is None and not open_entries and count >= 2:  # open: at the start
            checked.rounds = Swiss.default_rounds(count)
    elif rounds is not None:
        refuse("rounds is for a Swiss tournament (a round robin takes meetings)")
    if format == Tournament.Format.CONTINUOUS:
        if not pairs:
            refuse("a continuous tournament is of two-seat matches, without meetings or "
                   "duplicate deals (its ends_at sets how long)")
        if ends_at is None or ends_at <= max(starts_at or now, now):
            refuse("a continuous tournament needs ends_at after its start")
        else:
            try:
                kinds.check_ahead(ends_at, "ends_at")
            except ValueError as exc:
                refuse(str(exc))
        if in_flight is None and not open_entries:
            checked.in_flight = count // 2
    elif in_flight is not None or ends_at is not None:
        refuse("in_flight and ends_at are for a continuous tournament")
    for index, spec in enumerate(participants):
        try:
            checked.entrants.append(Participant(
                index=index, **entrant_fields(game, spec, organiser, provisional=provisional)))
        except ValueError as exc:
            refuse(f"participant {index}: {exc}")
    if (twice := entered_twice(checked.entrants)) is not None:
        _, again = twice
        refuse(f"participant {again.index} ({again.name}) is entered twice")
    return checked


def _enter(tournament: Tournament, entrants: Sequence[Participant]) -> None:
    for entrant in entrants:
        entrant.tournament = tournament
    Participant.objects.bulk_create(entrants)


def _plan_open(tournament: Tournament) -> None:
    """The schedule of a tournament open for entries, for those entered now, its rows made
    and its figures stored. Raises :class:`BadTournament` if they cannot make one (too few).
    Call holding the tournament's row lock (no entry or leave meanwhile)."""
    count = tournament.participants.count()
    least = max(2, tournament.table_size)
    if count < least:
        raise BadTournament(f"{counted(count, 'participant')} entered by the start: a "
                            f"tournament of tables of {tournament.table_size} takes at "
                            f"least {least}")
    if tournament.format == Tournament.Format.SWISS and tournament.rounds is None:
        tournament.rounds = Swiss.default_rounds(count)
    if tournament.format == Tournament.Format.CONTINUOUS and tournament.in_flight is None:
        tournament.in_flight = count // 2
    try:
        plan = format_named(tournament.format, participants=count,
                            table_size=tournament.table_size, meetings=tournament.meetings,
                            rounds=tournament.rounds, seed=tournament.seed,
                            secret=tournament.deal_secret, duplicate=tournament.duplicate,
                            in_flight=tournament.in_flight, ends_at=tournament.ends_at)
    except ValueError as exc:
        raise BadTournament(f"{counted(count, 'participant')} entered by the start: "
                            f"{exc}") from None
    scheduled = plan.plan({})
    tournament.match_total = plan.match_count() or 0
    tournament.balance = asdict(balance_figures(schedule_of(scheduled), count))
    tournament.save(update_fields=["rounds", "in_flight", "match_total", "balance"])
    TournamentMatch.objects.bulk_create([new_row(tournament, m) for m in scheduled])


def schedule_of(planned: Sequence[PlannedMatch]) -> list[list[tuple[int, ...]]]:
    """The rounds of tables of planned matches (one table per deal), for ``balance_figures``."""
    rounds: dict[int, dict[int, tuple[int, ...]]] = {}
    for match in planned:
        rounds.setdefault(match.round, {}).setdefault(match.deal, match.seats)
    return [list(rounds[r].values()) for r in sorted(rounds)]


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
    its matches when the transaction commits. False if it was not scheduled.

    One open for entries is planned first, under its row's lock (an entry waits for it, then
    finds it started); with too few entries to play it is cancelled, the reason kept."""
    now = now or timezone.now()
    with transaction.atomic():
        found = (Tournament.objects.select_for_update()
                 .filter(pk=tournament_id, status=Tournament.Status.SCHEDULED,
                         entries_open=True).first())
        if found is not None:
            try:
                _plan_open(found)
            except BadTournament as exc:
                Tournament.objects.filter(pk=found.pk).update(
                    status=Tournament.Status.CANCELLED, finished_at=now,
                    reason=exc.detail[:300])
                return False
            return _started(tournament_id, now)
    return _started(tournament_id, now)


def _started(tournament_id: int, now: datetime) -> bool:
    started = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.SCHEDULED
                                        ).update(status=Tournament.Status.RUNNING,
                                                 started_at=now)
    if started:
        kinds.enqueue("advance", SERIES, tournament_id)
    return bool(started)


def tournaments_start_due(*, now: datetime | None = None) -> int:
    """Periodic: start every scheduled tournament whose start time has come."""
    now = now or timezone.now()
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, starts_at__lte=now)
    return sum(tournament_start(tournament_id=pk, now=now)
               for pk in due.values_list("pk", flat=True))


def tournament_cancel(*, tournament_id: int, user: AbstractBaseUser) -> Tournament:
    """Stop a scheduled or running tournament: matches not started never will be, matches in
    progress are stopped (every seat forfeits, so they end at once) and not counted; finished
    ones are kept.

    It waits for nobody for long: the tournament's row at most
    ``TOURNAMENT_RECORD_LOCK_SECONDS`` (:class:`TournamentBusy` if another transaction held it
    longer), and not at all for the rows a play task has claimed (its transaction open, maybe
    on a worker host cut off inside it): those are cancelled when it has ended, by the chunk
    itself (which gives up once its tournament is no longer running) or by the reaper
    (``runner.cancel_open``)."""
    tournament = tournament_get_changeable(tournament_id=tournament_id, user=user)

    def held() -> int:
        raise TournamentBusy()

    cancelled = locks_waited_at_most(
        settings.TOURNAMENT_RECORD_LOCK_SECONDS, lambda: Tournament.objects.filter(
            pk=tournament.pk, status__in=[Tournament.Status.SCHEDULED,
                                          Tournament.Status.RUNNING]
        ).update(status=Tournament.Status.CANCELLED, finished_at=timezone.now()),
        # As a transaction of its own only: the bound lasts until the transaction ends.
        bounded=not transaction.get_connection().in_atomic_block, held=held)
    if not cancelled:
        raise TournamentNotRunning(f"the tournament is {tournament.status}")
    cancel_open(kind=SERIES, series_id=tournament.pk)
    unseal_deals(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def tournament_get_changeable(*, tournament_id: int, user: AbstractBaseUser) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound()
    if tournament.organiser_id != user.pk and not user.is_staff:
        raise NotYourTournament()
    return tournament
