"""Reads of ladders (docs/ladder.md): every game's ladder with its counts, and a ladder's
standings, read from the game's leaderboard rows its entries point at (the one rating), best
``ordinal`` (mu - 3 sigma) first, each with its interval and the probability that it is
really ahead of the next."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from games.engine import game_ids
from games.names import Sitter, seat_labels
from games.seats import bot_reference

from ..errors import GameNotFound
from ..models import Ladder, LadderEntry, LadderMatch, RatingPoint
from ..runner.kinds import FINISHED, OPEN
from .services import ladder_seats

JSON = dict[str, Any]
#: The standings' interval: mu plus or minus this many sigma (about 95%).
INTERVAL_SIGMAS = 1.96
#: A standings row's trend: its rating after each of its latest rated matches.
TREND_POINTS = 20


def ladder_get(*, game: str, seats: int | None = None) -> Ladder | None:
    """The game's ladder of ``seats`` (default: its first, ``services.ladder_seats``), None if
    no bot has joined it yet; ``GameNotFound`` for a game the engine does not have,
    ``BadLadder`` for a table it is not played at."""
    if game not in game_ids():
        raise GameNotFound(f"no game {game!r} (have: {', '.join(game_ids())})")
    return Ladder.objects.filter(game=game, seats=ladder_seats(game, seats)).first()


def ladder_list() -> list[JSON]:
    """Every game's ladder, in the engine's order of games: its first (a game no bot has
    joined yet is listed with nothing on it: its ladder is made by the first join), then any
    other table size a bot was put on, smallest first."""
    stored = {(ladder.game, ladder.seats): ladder for ladder in Ladder.objects.annotate(
        entrants=Count("entries", filter=Q(entries__left_at__isnull=True), distinct=True))}
    counts = {(ladder_id, status): n for ladder_id, status, n in
              Ladder.objects.values_list("pk", "matches__status")
              .annotate(n=Count("matches")).values_list("pk", "matches__status", "n")}
    out = []
    for game in game_ids():
        first = ladder_seats(game)
        out.append(ladder_summary(game=game, ladder=stored.get((game, first)), counts=counts))
        out += [ladder_summary(game=game, ladder=stored[key], counts=counts)
                for key in sorted(stored) if key[0] == game and key[1] != first]
    return out


def ladder_summary(*, game: str, ladder: Ladder | None, seats: int | None = None,
                   counts: dict[tuple[int, str], int] | None = None) -> JSON:
    """A ladder's figures: entrants on it (paused ones too), matches played and in play."""
    if ladder is None:
        return {"game": game, "seats": ladder_seats(game, seats), "started_at": None,
                "entrants": 0, "matches": 0, "in_flight": 0, "max_in_flight": None,
                "pair_cap_per_day": None}
    if counts is None:
        counts = {(ladder.pk, status): n for status, n in ladder.matches.values_list("status")
                  .annotate(n=Count("pk")).values_list("status", "n")}
    entrants = getattr(ladder, "entrants", None)
    if entrants is None:
        entrants = ladder.entries.filter(left_at__isnull=True).count()
    return {"game": game, "seats": ladder.seats, "started_at": ladder.started_at,
            "entrants": entrants, "matches": counts.get((ladder.pk, FINISHED), 0),
            "in_flight": sum(counts.get((ladder.pk, status), 0) for status in OPEN),
            "max_in_flight": ladder.max_in_flight,
            "pair_cap_per_day": ladder.pair_cap_per_day}


def ladder_entries(*, ladder: Ladder | None) -> QuerySet[LadderEntry]:
    """The bots on the ladder (paused ones too), with their ratings and ``ordinal``: what the
    standings page through, best first."""
    if ladder is None:
        return LadderEntry.objects.none().annotate(ordinal=F("rating__ordinal"))
    return (LadderEntry.objects.filter(ladder=ladder, left_at__isnull=True)
            .select_related("rating").annotate(ordinal=F("rating__ordinal"))
            .order_by("-ordinal", "id"))


def entry_rank(entry: LadderEntry) -> int:
    """Its place in its ladder's standings (``entry`` annotated with ``ordinal``)."""
    entries = ladder_entries(ladder=entry.ladder)
    return 1 + entries.filter(Q(ordinal__gt=entry.ordinal) | Q(ordinal=entry.ordinal,
                                                              id__lt=entry.id)).count()


def bot_entries(*, kind: str, bot: str, games: Sequence[str]
                ) -> dict[tuple[str, int], LadderEntry]:
    """The bot's entries on the ladders of ``games`` (on them or left), by (game, seats),
    each with its rating and ``ordinal``."""
    found = (LadderEntry.objects.filter(kind=kind, bot=bot, ladder__game__in=list(games))
             .select_related("ladder", "rating").annotate(ordinal=F("rating__ordinal")))
    return {(entry.ladder.game, entry.ladder.seats): entry for entry in found}


def _after(entries: QuerySet[LadderEntry], entry: LadderEntry) -> QuerySet[LadderEntry]:
    return entries.filter(Q(ordinal__lt=entry.ordinal) | Q(ordinal=entry.ordinal,
                                                           id__gt=entry.id))


def ahead(a: Any, b: Any) -> float:
    """The probability that ``a``'s skill is above ``b``'s, both ratings normal."""
    spread = math.sqrt(a.sigma**2 + b.sigma**2) or 1e-12
    return 0.5 * math.erfc(-(a.mu - b.mu) / (spread * math.sqrt(2)))


def standings_rows(*, entries: QuerySet[LadderEntry], page: Sequence[LadderEntry],
                   viewer: AbstractBaseUser | None = None) -> list[JSON]:
    """One page of standings (``page``: consecutive ``entries``, best first): rank, name,
    rating with its interval, the matches it rests on, the last one, and the chance to be
    ahead of the next bot (on this page or the next), its trend (:func:`rating_trends`). Why a
    bot is paused is its owner's (and staff's) to read; everyone sees that it is. Four queries
    a page, whatever its size."""
    if not page:
        return []
    first, last = page[0], page[-1]
    trends = rating_trends(rating_ids=[entry.rating_id for entry in page])
    rank = 1 + entries.filter(Q(ordinal__gt=first.ordinal) | Q(ordinal=first.ordinal,
                                                              id__lt=first.id)).count()
    after = _after(entries, last).first()
    names = seat_labels(Sitter(entry.kind, entry.bot) for entry in page)
    nexts = [*page[1:], after]
    rows = []
    for offset, (entry, name, following) in enumerate(zip(page, names, nexts)):
        rating = entry.rating
        sees = viewer is not None and (viewer.is_staff or viewer.pk == entry.owner_id)
        rows.append({
            "rank": rank + offset, "entry": entry.pk, "kind": entry.kind,
            "bot": bot_reference(entry.kind, entry.bot), "name": name,
            "mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal,
            "interval": [rating.mu - INTERVAL_SIGMAS * rating.sigma,
                         rating.mu + INTERVAL_SIGMAS * rating.sigma],
            "matches": rating.matches, "last_played_at": rating.last_played_at,
            "trend": trends.get(entry.rating_id, []),
            "ahead_of_next": None if following is None else ahead(rating, following.rating),
            "joined_at": entry.joined_at, "paused": entry.paused,
            "paused_reason": (entry.paused_reason or None) if sees else None,
        })
    return rows


def rating_trends(*, rating_ids: Sequence[int], points: int = TREND_POINTS
                  ) -> dict[int, list[float]]:
    """Each leaderboard row's rating (``ordinal``) after each of its latest ``points`` rated
    matches, oldest first (every series of the game: the one rating), in one query: why a
    rank moved, at a glance."""
    latest = (RatingPoint.objects.filter(entry_id__in=list(rating_ids))
              .annotate(back=Window(RowNumber(), partition_by=[F("entry_id")],
                                    order_by=[F("played_at").desc(), F("id").desc()]))
              .filter(back__lte=points).order_by("entry_id", "played_at", "id")
              .values_list("entry_id", "ordinal"))
    trends: dict[int, list[float]] = {}
    for entry_id, ordinal in latest:
        trends.setdefault(entry_id, []).append(ordinal)
    return trends


def ladder_matches(*, ladder: Ladder | None, entry: int | None = None
                   ) -> QuerySet[LadderMatch]:
    """The ladder's matches, latest planned first (those to start and in play too); with
    ``entry``, those of that entry alone (a bot's ladder history)."""
    if ladder is None:
        return LadderMatch.objects.none()
    matches = LadderMatch.objects.filter(ladder=ladder)
    if entry is not None:  # by seat, as every database reads a JSON array
        seated = Q()
        for seat in range(ladder.seats):
            seated |= Q(**{f"seats__{seat}": entry})
        matches = matches.filter(seated)
    return matches.order_by("-number")


def match_rows(*, page: Sequence[LadderMatch]) -> list[JSON]:
    """A page of ladder matches: who sat where (entries named as every page names them), the
    places once finished, who forfeited, whose bot played new code (a version other than its
    own), whether it was rated (finished, neither) and how far it moved each seat's rating,
    the games match to replay. Two queries a page."""
    ids = {i for row in page for i in row.seats}
    entries = {e.pk: e for e in LadderEntry.objects.filter(pk__in=ids)}
    order = sorted(ids)
    names = dict(zip(order, seat_labels(Sitter(entries[i].kind, entries[i].bot)
                                        for i in order)))
    return [{"number": row.number, "status": row.status, "match": row.match_id,
             "seats": [{"entry": i, "name": names[i]} for i in row.seats],
             "places": row.ranks, "forfeited": row.forfeited, "new_code": row.new_code,
             "rated": row.status == FINISHED and not row.forfeited and not row.new_code,
             "rating_changes": row.rating_changes,
             "planned_at": row.created_at,
             "finished_at": row.finished_at} for row in page]
