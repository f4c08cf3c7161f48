"""Selectors: reads of matches, seat views and logs. No writes here.

The poll path is built to be cheap when nothing changed: :func:`seat_poll_key` reads one row
(the seat joined with its match) and the ETag comes from it, so a 304 never loads the engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet, prefetch_related_objects
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from lib.clock import platform_now
from lib.filtering import filtered

from . import db, log
from .driver import replay
from .engine import State, get_game
from .errors import MatchNotFound, NotYourSeat, SeatNotFound
from .filters import MatchFilter
from .log import LogEntry
from .models import Match, Seat
from .seats import bot_reference
from .states import cache_state, cached_state, load_state

JSON = dict[str, Any]


def match_events(*, match_id: int, since: int, seat: int | None = None) -> list[JSON]:
    """Engine events ``since, since+1, ...`` of a match from its log (the stored state has none),
    as ``State.events_since(since, seat)`` gives them: public, plus ``seat``'s own private
    details under ``"private"``."""
    out = []
    key = None if seat is None else str(seat)
    for entry in log.entries(match_id, events_after=since):
        for event in entry.events:
            if event["n"] < since:
                continue
            private = event.get("private")
            event = {k: v for k, v in event.items() if k != "private"}
            if key is not None and private and key in private:
                event["private"] = private[key]
            out.append(event)
    return out


def match_list(*, game: str | None = None, status: str | None = None,
               player: str | None = None, bot: str | None = None) -> QuerySet[Match]:
    """Matches, newest first, filtered by game id, status, a player's username and a seat's
    bot (a webhook bot's id or a reference bot's name, as a seat spec gives it)."""
    qs = Match.objects.select_related("created_by").prefetch_related("seats__user").defer(
        "state")
    return filtered(MatchFilter, qs, {"game": game, "status": status, "player": player,
                                      "bot": bot})


def matches_being_advanced(*, match_ids: Iterable[int]) -> list[int]:
    """Which of these running matches a task is asking the out-of-process seats of right now
    (its lease on them has not run out, ``games.services.store.Lease``): another process is
    playing them, and they move without the caller. A lease of a task that died runs out, and
    then the match is anyone's again."""
    return list(Match.objects.filter(pk__in=list(match_ids), status=Match.Status.RUNNING,
                                     lease_until__gt=platform_now())
                .order_by("pk").values_list("pk", flat=True))


def seats_to_act(*, user: AbstractBaseUser) -> list[Seat]:
    """The user's seats the engine is asking now, soonest deadline first: in running matches
    with a deadline (only polling seats to act have one, so a match waiting on bots alone costs
    no state), not forfeited; each with its match and the match's seats and their users. Plain
    matches, tournament matches and league hands alike (each is a match with the person's
    seat). A state not in this process's cache is read, by match, only for those matches."""
    seats = list(Seat.objects.filter(user=user, forfeited=False, match__status=Match.Status.RUNNING,
                                     match__deadline__isnull=False)
                 .select_related("match").defer("match__state")
                 .order_by("match__deadline", "match_id"))
    asked = [seat for seat in seats if seat.number in load_state(seat.match).to_act()]
    prefetch_related_objects([seat.match for seat in asked], "seats__user")
    return asked


def match_get(*, match_id: int) -> Match:
    match = Match.objects.prefetch_related("seats__user").filter(pk=match_id).first()
    if match is None:
        raise MatchNotFound()
    return match


@dataclass(frozen=True)
class PollKey:
    user_id: int | None
    version: int
    status: str
    updated_at: datetime

    def etag(self, *parts: Any) -> str:
        tag = ".".join(str(p) for p in (self.version, self.status,
                                          int(self.updated_at.timestamp() * 1_000_000), *parts))
        return f'"{tag}"'


def _aware(value: datetime | str) -> datetime:
    """A raw column value as the ORM would give it: an aware datetime (SQLite may hand back a
    string, or a naive UTC datetime)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if timezone.is_naive(value):
        value = value.replace(tzinfo=UTC)
    return value


@dataclass(frozen=True)
class PollRow:
    """One seat (or, without a seat, the match) as a poll needs it, from one raw query."""

    key: PollKey
    match_id: int
    game: str
    deadline: datetime | None
    strikes: int | None
    forfeited: bool | None


def seat_poll_key(*, match_id: int, seat_number: int | None) -> PollKey:
    """What the ETag of a seat's (or, with ``None``, the public) view depends on: one small
    query (raw SQL: ``games.db.poll_row``)."""
    return seat_poll_row(match_id=match_id, seat_number=seat_number).key


def seat_poll_row(*, match_id: int, seat_number: int | None) -> PollRow:
    """The seat and match columns a poll answer needs, in one query without the stored state."""
    row = db.poll_row(match_id=match_id, seat_number=seat_number)
    if row is None:
        if seat_number is None or not Match.objects.filter(pk=match_id).exists():
            raise MatchNotFound()
        raise SeatNotFound(f"match {match_id} has no seat {seat_number}")
    user_id, version, status, updated_at, game, deadline, strikes, forfeited = row
    return PollRow(key=PollKey(user_id, version, status, _aware(updated_at)), match_id=match_id,
                   game=game, deadline=None if deadline is None else _aware(deadline),
                   strikes=strikes, forfeited=None if forfeited is None else bool(forfeited))


def _state_for_row(row: PollRow) -> State | None:
    """The state the row's key names: from the cache, else from the database if the match has
    not moved since the row was read (``None`` then: read the row again)."""
    key = (row.match_id, row.key.version, row.key.updated_at)
    state = cached_state(key)
    if state is None:
        data = (Match.objects.filter(pk=row.match_id, version=row.key.version,
                                     updated_at=row.key.updated_at)
                .values_list("state", flat=True).first())
        if data is None:
            return None
        state = get_game(row.game).from_json(data)
        cache_state(key, state)
    return state


def seat_check_owner(*, key: PollKey, user: AbstractBaseUser) -> None:
    """Only the seat's player may read its private view."""
    if key.user_id is None or key.user_id != user.pk:
        raise NotYourSeat("only the seat's player may read its view")


def poll_wait(*, current: Callable[[], PollKey], changed: Callable[[PollKey], bool],
              wait: float, interval: float = 0.2) -> PollKey:
    """Wait up to ``wait`` seconds until ``changed(key)``; return the last key read.

    A simple re-read loop: one indexed single-row query per ``interval``, no extra services.
    """
    key = current()
    stop = time.monotonic() + wait
    while not changed(key) and time.monotonic() < stop:
        sleep(min(interval, max(stop - time.monotonic(), 0)))
        key = current()
    return key


def sleep(seconds: float) -> None:  # a seam for tests
    time.sleep(seconds)


def _legal_list(legal: Any) -> tuple[list[JSON], Any]:
    summary = legal.describe() if hasattr(legal, "describe") else None
    return list(legal), summary


def seat_view(*, match_id: int, seat_number: int, user: AbstractBaseUser,
              with_legal: bool = True, events_since: int | None = None) -> tuple[JSON, PollKey]:
    """The poll answer for a seat (the engine's view of that seat plus the match's clock) and
    the key its ETag comes from. Only the seat's player may read it. One raw query, plus the
    stored state only when the per-process cache does not hold it."""
    for _ in range(5):  # the match may move between the row and its state: read again
        row = seat_poll_row(match_id=match_id, seat_number=seat_number)
        seat_check_owner(key=row.key, user=user)
        state = _state_for_row(row)
        if state is not None:
            break
    else:
        raise RuntimeError(f"match {match_id} kept changing while it was read")
    to_act = state.to_act()
    your_turn = seat_number in to_act and not row.forfeited
    out: JSON = {
        "match": match_id, "game": row.game, "seat": seat_number, "status": row.key.status,
        "version": row.key.version, "deadline": row.deadline, "to_act": to_act,
        "your_turn": your_turn, "strikes": row.strikes, "forfeited": row.forfeited,
        "legal_actions": None, "view": state.view(seat_number),
    }
    if your_turn and with_legal:
        out["legal_actions"], summary = _legal_list(state.legal_actions(seat_number))
        if summary is not None:
            out["legal_actions_summary"] = summary
    if events_since is not None:
        out["events"] = match_events(match_id=match_id, since=events_since, seat=seat_number)
    return out, row.key


def match_public_view(*, match: Match, events_since: int | None = None) -> JSON:
    """What a spectator may see now."""
    state = load_state(match)
    out: JSON = {"match": match.pk, "game": match.game, "status": match.status,
                 "version": match.version, "deadline": match.deadline,
                 "to_act": state.to_act(), "view": state.public_view()}
    if events_since is not None:
        out["events"] = match_events(match_id=match.pk, since=events_since)
    return out


def _public_entry(entry: LogEntry, complete: bool) -> JSON:
    out: JSON = {"n": entry.n, "version": entry.version, "kind": entry.kind, "seat": entry.seat,
                 "created_at": entry.created_at}
    if complete:
        out["action"] = entry.action
        out["events"] = entry.events
    else:
        # Until the end, actions may be sealed choices and events carry hidden details.
        out["events"] = [{k: v for k, v in e.items() if k != "private"} for e in entry.events]
    return out


def match_log(*, match: Match, since: int = 0, entries: bool = True) -> JSON:
    """The audit log: public parts while the match runs; every action, private detail and the
    seed once it is over, so anyone can replay it with the engine. ``entries=False``: the
    header alone (stream the entries with :func:`match_log_entries`)."""
    complete = match.disclosed
    out: JSON = {
        "match": match.pk, "game": match.game, "players": match.players,
        "options": match.options, "status": match.status, "version": match.version,
        "complete": complete, "seed": match.seed if complete else None,
        "result": match.result,
        "seats": [{"number": s.number, "kind": s.kind,
                   "user": s.user.get_username() if s.user_id else None,
                   "bot": bot_reference(s.kind, s.bot_name)} for s in match.seats.all()],
    }
    if entries:
        out["entries"] = list(match_log_entries(match=match, since=since))
    return out


def match_log_entries(*, match: Match, since: int = 0) -> Iterator[JSON]:
    """The log's entries one at a time, read from the database in chunks (a long match's log
    is never all in memory), shown as :func:`match_log` shows them."""
    complete = match.disclosed
    for entry in log.entries(match.pk, since=max(since, 0)):
        yield _public_entry(entry, complete)


def match_entries(*, match: Match, since: int = 0) -> list[LogEntry]:
    """The match's log entries from ``n >= since``, in order (for the replay's move list: the
    caller shows an entry's action only once the match is disclosed)."""
    return list(log.entries(match.pk, since=since))


def match_state_at(*, match: Match, turn: int) -> tuple[State, list[LogEntry]]:
    """The match replayed by the engine up to and including log entry ``turn`` (0 = the deal),
    from its seed and logged actions, and the entries so far. For the replay page: the caller
    shows only what may be shown (the public view while the match is not disclosed)."""
    state = get_game(match.game).new_match(players=match.players, seed=match.seed,
                                           options=match.options, replay=True)
    entries = list(log.entries(match.pk, until=turn))
    return replay(state, entries), entries
