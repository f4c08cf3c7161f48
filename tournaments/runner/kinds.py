"""What the series runner (``tournaments.runner``) stands on: the kinds of series and their
registry, how work is queued, how long a claim holds, the withdrawal rule's limit, and how
planned matches become games matches. ``docs/series.md`` has the policies.

A kind of series (a tournament: ``tournaments.runner.tournament``; a league night:
``tournaments.leagues.night_kind``) registers a :class:`SeriesKind` under its ``Match.series``
value, as seat kinds register in ``games.seats``; the runner's one receiver and one reaper go
through the registry, so a new kind is one registration.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import models
from django.db.models import QuerySet
from django.utils import timezone

from games.models import Match, Seat
from games.seats import PLAYER
from games.services import BuiltMatch, NewMatch, matches_build
from lib import queueing
from lib.clock import platform_now

from ..entrants import seat_spec
from ..formats import Format, Outcome, PlannedMatch, withdrawn_after

log = logging.getLogger(__name__)


#: The states of a series' rows (``TournamentMatch``, ``Hand``): planned, claimed and playing,
#: done, or stopped with their series.
PENDING, RUNNING, FINISHED, CANCELLED = "pending", "running", "finished", "cancelled"
OPEN = (PENDING, RUNNING)


@dataclass
class Loaded:
    """A series as the runner plays it: its row, format, entrants (entrant id -> participant or
    member) and the settings of its matches."""

    #: The kind's name (``Match.series`` of its matches).
    kind: str
    series: Any
    format: Format
    entrants: Mapping[int, Any]
    #: Entrants out of the series (withdrawn, or gone): their seats forfeit.
    withdrawn: set[int]
    game: str
    organiser: AbstractBaseUser
    options: Mapping[str, Any]
    move_time_limit: int
    strike_limit: int
    #: Deals hidden until the series is over (duplicate deals).
    sealed: bool = False


class SeriesKind(ABC):
    """What the runner (``tournaments.runner``) needs of one kind of series: where its rows
    and entrants are and how an outcome is stored on a row. Registered under its
    ``Match.series`` value, as seat kinds are in ``games.seats``."""

    #: Its ``Match.series`` value.
    name: ClassVar[str]
    #: How people call it ("tournament").
    label: ClassVar[str]
    #: The rows of its matches and the series they belong to (``link``: the rows' key to it).
    model: ClassVar[type[models.Model]]
    series_model: ClassVar[type[models.Model]]
    link: ClassVar[str]
    #: The order pending rows are claimed in.
    order: ClassVar[tuple[str, ...]]
    #: Each table plays by itself: its next match depends on its own matches alone (a league
    #: night), so a chunk holding a table plans its next from what it read and played.
    tables_apart: ClassVar[bool] = False
    #: The row's fields an outcome is stored in (:meth:`take`).
    result_fields: ClassVar[tuple[str, ...]]

    def rows(self, series_id: int) -> QuerySet[Any]:
        return self.model.objects.filter(**{f"{self.link}_id": series_id})

    @abstractmethod
    def chunk(self) -> int:
        """How many pending rows one play task claims at a time."""

    @abstractmethod
    def load(self, row: Any) -> Loaded:
        """The series ``row`` as the runner plays it."""

    @abstractmethod
    def planned(self, row: Any, *, forfeited: Collection[int] = ()) -> PlannedMatch:
        """A stored row as its format planned it; ``forfeited``: entrants out (seated
        forfeited, if the row has them)."""

    @abstractmethod
    def new_row(self, loaded: Loaded, planned: PlannedMatch) -> models.Model:
        """An unsaved pending row for a planned match."""

    @abstractmethod
    def take(self, row: Any, outcome: Outcome) -> None:
        """Store an outcome on its row (:attr:`result_fields`)."""

    @abstractmethod
    def outcomes(self, loaded: Loaded, *, tables: Collection[int] | None = None
                 ) -> list[Outcome]:
        """Every finished row's outcome (on ``tables`` only, if given and the kind has
        tables), in the order they were played."""

    @abstractmethod
    def withdraw(self, loaded: Loaded, reasons: Mapping[int, str]) -> None:
        """Store that these entrants are out, and why."""

    def refresh(self, loaded: Loaded) -> None:
        """Read again what may change between two matches of a table (a league member who
        left): a chunk chaining a table's matches calls it before planning the next."""

    def dropped(self, loaded: Loaded, plan: PlannedMatch) -> bool:
        """Whether a planned match that seats an entrant out of the series (``plan.forfeited``)
        is cancelled when its chunk comes to start it, rather than scored unplayed: a match
        that never counted for anyone (default: none is; a ladder's of a bot that left)."""
        return False

    def forfeited(self, row: Any) -> Collection[int]:
        """The entrants a closed row scored as forfeits."""
        return row.forfeited

    def closed(self, loaded: Loaded, rows: Sequence[Any], *, now: datetime) -> None:
        """Rows just closed (ratings)."""

    def finish(self, loaded: Loaded, *, now: datetime) -> None:
        """The series is over (unseal deals, move a league's order on)."""

    def lane(self, row: Any) -> int:
        """The table a row plays on: a chunk chains a table's next match after its last."""
        return 0

    def on_lanes(self, lanes: Collection[int]) -> dict[str, Any]:
        """A filter of rows to those tables."""
        return {}


_KINDS: dict[str, SeriesKind] = {}


def register(kind: SeriesKind) -> SeriesKind:
    if kind.name in _KINDS and type(_KINDS[kind.name]) is not type(kind):
        raise ValueError(f"series kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


def get_kind(name: str) -> SeriesKind:
    return _KINDS[name]


def kinds() -> dict[str, SeriesKind]:
    return dict(_KINDS)


def enqueue(task: str, *args: int) -> None:
    """Queue ``tournaments.<task>(*args)`` once the current transaction commits (at once
    outside one), through the platform's one seam for it (``lib.queueing``; tests hold it or
    run it here). The task is found by name (``tournaments.apps`` imports the tasks module at
    startup): the tasks call the services that call this, so this never imports them."""
    queueing.enqueue(f"tournaments.{task}", *args)


def lease_until(now: datetime | None = None) -> datetime:
    """Until when a claim (a queued chunk, a running night) holds before the reaper takes it
    again: ``TOURNAMENT_LEASE_SECONDS`` from ``now``."""
    return (now or platform_now()) + timedelta(seconds=settings.TOURNAMENT_LEASE_SECONDS)


def check_ahead(moment: datetime, what: str, *, now: datetime | None = None) -> None:
    """ValueError if ``moment`` is more than ``SERIES_MAX_SCHEDULE_AHEAD_DAYS`` ahead: a
    series dated in the year 9999 is a typo, and a row that waits forever."""
    days = settings.SERIES_MAX_SCHEDULE_AHEAD_DAYS
    if moment > (now or timezone.now()) + timedelta(days=days):
        raise ValueError(f"{what} is more than {days} days ahead "
                         f"(SERIES_MAX_SCHEDULE_AHEAD_DAYS)")


def locked_for_recording(running: QuerySet[Any], match_id: int) -> tuple[Any, Match] | None:
    """The row of ``running`` (a series' running rows) that plays ``match_id``, locked, with
    its games match, if that match has finished: what recording it needs, once (a second
    recorder waits for the lock, then finds the row no longer running). None if there is
    nothing to record. Call inside a transaction. Only that row is locked (``of=self``): the
    rows' default ordering joins their series' row, which FOR UPDATE would lock too, first,
    against the order every closing transaction takes (its rows, the entrants' leaderboard
    rows, then the series' row): two recordings and a chunk deadlocked so, and a recording
    waited on a series row a silent host held."""
    row = running.select_for_update(of=("self",)).filter(match_id=match_id).first()
    if row is None:
        return None
    match = Match.objects.filter(pk=match_id, status=Match.Status.FINISHED).first()
    return None if match is None else (row, match)


def forfeited_seats(match_ids: Sequence[int]) -> dict[int, list[int]]:
    """The seats that forfeited, by games match (one query): what the forfeit rule of every
    series (``formats.places_with_forfeits``) and the withdrawal rule read."""
    found: dict[int, list[int]] = {}
    if match_ids:
        for match_id, number in (Seat.objects.filter(match_id__in=match_ids, forfeited=True)
                                 .values_list("match_id", "number")):
            found.setdefault(match_id, []).append(number)
    return found


def withdraws(forfeits: Sequence[bool]) -> bool:
    """:func:`formats.withdrawn_after` at ``SERIES_FORFEITS_TO_WITHDRAW``: ``forfeits`` are an
    entrant's matches in the series, newest first (docs/series.md)."""
    return withdrawn_after(forfeits, settings.SERIES_FORFEITS_TO_WITHDRAW)


def matches_play(loaded: Loaded, planned: Sequence[PlannedMatch]) -> list[BuiltMatch]:
    """The games matches of ``planned``, built by ``games.services.matches_build`` (every rule
    of matches applies; in-process ones are played to the end in memory), in order, not stored
    yet (``games.services.matches_save``, ``announce=False``: the runner records the ones that
    ended itself). A match's options are the series' and its plan's over them."""
    groups: dict[str, list[int]] = {}
    for i, plan in enumerate(planned):
        groups.setdefault(repr(sorted(plan.options.items())), []).append(i)
    built: list[BuiltMatch | None] = [None] * len(planned)
    for places in groups.values():
        options = {**loaded.options, **planned[places[0]].options}
        made = matches_build(
            game=loaded.game, created_by=loaded.organiser, options=options,
            move_time_limit=loaded.move_time_limit, strike_limit=loaded.strike_limit,
            sealed=loaded.sealed, series=loaded.kind,
            matches=[_new_match(loaded, planned[i]) for i in places])
        for i, new in zip(places, made):
            built[i] = new
    return [new for new in built if new is not None]


def _new_match(loaded: Loaded, plan: PlannedMatch) -> NewMatch:
    seated = [loaded.entrants[i] for i in plan.seats]
    return NewMatch(seats=[seat_spec(e) for e in seated], seed=plan.seed,
                    seat_users={n: e.user for n, e in enumerate(seated) if e.kind == PLAYER},
                    forfeited=[n for n, i in enumerate(plan.seats) if i in plan.forfeited])
