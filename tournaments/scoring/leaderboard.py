"""Each game's one rating of every entrant: the rating leaderboard across its tournaments, its
ladder and its league nights, kept as a table (``LeaderboardEntry``, with a ``RatingPoint``
per rated match for the rating over time). A tournament's standings and a league's table show
this number too (:func:`ratings_of`): one number per entrant per game wherever it is shown.

A result is rated in the transaction that records it (the series runner's), the entrants' rows
locked in one order, so the board is never recomputed from every match on a request and two
workers recording at once cannot lose an update. An entrant is a webhook bot, a person or one
reference bot, whatever its label in each series: entering someone's bot under another label
renames nothing and splits nothing. The ratings are OpenSkill (Plackett-Luce, default
parameters, each seat a one-player team, the engine's ranks as they are), each match applied
in the order its result was recorded, whatever series it is of (:func:`record_results`). Not
rated: forfeits (the match was not played), a table where one reference bot sits twice (it
says nothing of its skill), a tournament made unrated (a version's provisional run), and a
ladder match that a bot's new code played (``LadderMatch.new_code``).
:func:`rebuild` replays every recorded result (the migrations that changed what is rated run
it; so can an operator).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from django.apps import apps as installed_apps
from django.db.models import F, Q, QuerySet
from openskill.models import PlackettLuce

from ..models import LeaderboardEntry, Participant, RatingPoint, Tournament, TournamentMatch

MODEL = PlackettLuce()
Key = tuple[str, str]


def entrant_key(participant: Any) -> Key:
    """The entrant a participant is on its game's board: (kind, bot id, user id or reference
    bot's name)."""
    return (participant.kind, str(participant.user_id) if participant.user_id
            else participant.bot)


def record(*, tournament_id: int, rows: Iterable[TournamentMatch], played_at: datetime
           ) -> int:
    """Rate the finished ``rows`` of one tournament (in the order given) on its game's board:
    call it in the transaction that records them. Returns how many were rated."""
    rows = [row for row in rows if row.status == TournamentMatch.Status.FINISHED]
    if not rows:
        return 0
    people = {p.index: entrant_key(p) for p in
              Participant.objects.filter(tournament_id=tournament_id)}
    game = Tournament.objects.values_list("game", flat=True).get(pk=tournament_id)
    changes = record_results(game=game, played_at=played_at, results=[
        ([people[i] for i in row.seats], row.ranks, row.forfeited) for row in rows])
    return sum(change is not None for change in changes)


def record_results(*, game: str, results: Iterable[tuple[Sequence[Key], Sequence[int] | None,
                                                          Sequence[int] | None]],
                   played_at: datetime) -> list[list[float] | None]:
    """Rate finished matches of any series on ``game``'s board, in the order given: each is
    (its seats' entrant keys, its ranks, who forfeited). Call it in the transaction that
    records them. Returns each one's rating changes by seat (:func:`_rate`), None for one not
    rated (forfeits and a bot seated twice are not)."""
    results = list(results)
    changes: list[list[float] | None] = [None] * len(results)
    rated = [(index, keys, ranks) for index, (keys, ranks, forfeited) in enumerate(results)
             if _counts(ranks, forfeited, keys)]
    if not rated:
        return changes
    entries = _locked(game, sorted({key for _, keys, _ in rated for key in keys}))
    points = []
    for index, keys, ranks in rated:
        changes[index] = _rate(entries, keys, ranks, played_at)
        points += [RatingPoint(entry=entries[key], played_at=played_at,
                               ordinal=entries[key].ordinal) for key in keys]
    LeaderboardEntry.objects.bulk_update(
        entries.values(), ["mu", "sigma", "ordinal", "matches", "last_played_at"])
    RatingPoint.objects.bulk_create(points)
    return changes


def _counts(ranks: Sequence[int] | None, forfeited: Sequence[int] | None,
            keys: Sequence[Key]) -> bool:
    return ranks is not None and not forfeited and len(set(keys)) == len(keys)


def ratings_of(*, game: str, entrants: Iterable[Any]) -> list[LeaderboardEntry]:
    """The one rating on ``game``'s board of each of ``entrants`` (a tournament's participants,
    a league's members), in their order: its row, or the starting rating (unsaved, no
    matches) for one never rated. One query."""
    return key_ratings(game=game, keys=[entrant_key(entrant) for entrant in entrants])


def key_ratings(*, game: str, keys: Sequence[Key]) -> list[LeaderboardEntry]:
    """The one rating on ``game``'s board of each entrant key (:func:`entrant_key`), in their
    order: its row, or the starting rating (unsaved, no matches). One query."""
    found = {(entry.kind, entry.ref): entry
             for entry in _entries(game, keys)} if keys else {}
    return [found.get(key) or _new_entry(game, key) for key in keys]


def rating_against(*, game: str, results: Iterable[tuple[Sequence[Key | None],
                                                          Sequence[int] | None,
                                                          Sequence[int] | None]]
                   ) -> tuple[float, float, int]:
    """The rating on ``game``'s board of a newcomer who played ``results`` (each: its seats'
    entrant keys, None at the newcomer's own; the ranks; who forfeited), without moving the
    board: from the board's starting rating, each match rated as :func:`record_results` rates
    one (the same model, each seat a team), the others at their ratings on the board now and
    held there, so only the newcomer's moves (an in-place version's candidate, whose old code
    no longer answers: its rating is compared with the bot's). Forfeits are not rated, as on
    the board; a held entrant seated twice is (it moves nothing). Returns mu, sigma and the
    matches rated."""
    results = [(list(keys), list(ranks)) for keys, ranks, forfeited in results
               if ranks is not None and not forfeited]
    held = sorted({key for keys, _ in results for key in keys if key is not None})
    board = dict(zip(held, key_ratings(game=game, keys=held)))
    rating = MODEL.rating()
    for keys, ranks in results:
        teams = [[rating if key is None else MODEL.rating(mu=board[key].mu,
                                                          sigma=board[key].sigma)]
                 for key in keys]
        rating = MODEL.rate(teams, ranks=ranks)[keys.index(None)][0]
    return rating.mu, rating.sigma, len(results)


def _entries(game: str, keys: Iterable[Key]) -> QuerySet[LeaderboardEntry]:
    wanted = Q()
    for kind, ref in keys:
        wanted |= Q(kind=kind, ref=ref)
    return LeaderboardEntry.objects.filter(wanted, game=game)


def _new_entry(game: str, key: Key) -> LeaderboardEntry:
    start = MODEL.rating()
    return LeaderboardEntry(game=game, kind=key[0], ref=key[1], mu=start.mu, sigma=start.sigma,
                            ordinal=start.ordinal())


def _locked(game: str, keys: Sequence[Key]) -> dict[Key, LeaderboardEntry]:
    """The entrants' rows, made if new, locked in (kind, ref) order (no deadlock between
    two recordings)."""
    LeaderboardEntry.objects.bulk_create([_new_entry(game, key) for key in keys],
                                         ignore_conflicts=True)
    found = _entries(game, keys).select_for_update().order_by("kind", "ref")
    return {(entry.kind, entry.ref): entry for entry in found}


def _rate(entries: Mapping[Key, Any], keys: Sequence[Key], ranks: Sequence[int],
          played_at: datetime) -> list[float]:
    """Apply one match (its seats' entrants, its ranks) to ``entries``, changed in place.
    Returns by seat how far it moved each one's rating (the ordinal the boards sort by)."""
    teams = [[MODEL.rating(mu=entries[key].mu, sigma=entries[key].sigma)] for key in keys]
    changes = []
    for key, (rated,) in zip(keys, MODEL.rate(teams, ranks=list(ranks))):
        entry = entries[key]
        changes.append(rated.ordinal() - entry.ordinal)
        entry.mu, entry.sigma, entry.ordinal = rated.mu, rated.sigma, rated.ordinal()
        entry.matches += 1
        entry.last_played_at = max(played_at, entry.last_played_at or played_at)
    return changes


def rebuild(apps: Any = installed_apps) -> int:
    """Make every game's board again from every recorded result, in the order they were
    recorded (then schedule order). ``apps``: a migration's historical models. Returns the
    matches rated."""
    entry_model = apps.get_model("tournaments", "LeaderboardEntry")
    point_model = apps.get_model("tournaments", "RatingPoint")
    match_model = apps.get_model("tournaments", "TournamentMatch")
    people = {(p.tournament_id, p.index): entrant_key(p)
              for p in apps.get_model("tournaments", "Participant").objects.all()}
    # Rows are reset, not deleted: a ladder entry points at its bot's row (the one rating).
    point_model.objects.all().delete()
    start = MODEL.rating()
    kept = {(e.game, (e.kind, e.ref)): e for e in entry_model.objects.all()}
    for entry in kept.values():
        entry.mu, entry.sigma, entry.ordinal = start.mu, start.sigma, start.ordinal()
        entry.matches, entry.last_played_at = 0, None
    entries: dict[tuple[str, Key], Any] = dict(kept)
    timeline: list[tuple[tuple[str, Key], datetime, float]] = []
    finished = match_model.objects.filter(status="finished")
    if any(f.name == "rated" for f in apps.get_model("tournaments", "Tournament")._meta.fields):
        finished = finished.filter(tournament__rated=True)  # (a migration's older models: all)
    rows = [(finished_at or created_at, 0, game, [people.get((tournament_id, seat))
                                                  for seat in seats], ranks, forfeited, None)
            for tournament_id, game, seats, ranks, forfeited, finished_at, created_at in
            finished.order_by(F("finished_at").asc(nulls_first=True), "tournament_id", "number")
            .values_list("tournament_id", "tournament__game", "seats", "ranks", "forfeited",
                         "finished_at", "tournament__created_at")]
    rows += _ladder_results(apps) + _league_results(apps)
    # Tournaments', ladders' and league nights' results interleaved as they were recorded
    # (stable: each source keeps its own order among results of one moment).
    rows.sort(key=lambda row: (row[0], row[1]))
    rated, ladder_changes = 0, {}
    for played_at, _, game, keys, ranks, forfeited, ladder_match in rows:
        if None in keys or not _counts(ranks, forfeited, keys):  # a seat nobody holds: unratable
            continue
        board = {}
        for key in keys:
            board[key] = entries.setdefault((game, key), entry_model(
                game=game, kind=key[0], ref=key[1], mu=start.mu, sigma=start.sigma,
                ordinal=start.ordinal()))
        changes = _rate(board, keys, ranks, played_at)
        if ladder_match is not None:
            ladder_changes[ladder_match] = changes
        timeline += [((game, key), played_at, board[key].ordinal) for key in keys]
        rated += 1
    entry_model.objects.bulk_create([e for e in entries.values() if e.pk is None])
    entry_model.objects.bulk_update(kept.values(), ["mu", "sigma", "ordinal", "matches",
                                                    "last_played_at"], batch_size=1000)
    point_model.objects.bulk_create(
        [point_model(entry=entries[key], played_at=at, ordinal=ordinal)
         for key, at, ordinal in timeline], batch_size=1000)
    _store_ladder_changes(apps, ladder_changes)
    return rated


def _store_ladder_changes(apps: Any, changes: Mapping[int, list[float]]) -> None:
    """Each ladder match's rating changes as the replay made them; none for the rest (a
    migration's older models may not have the field yet)."""
    try:
        match_model = apps.get_model("tournaments", "LadderMatch")
    except LookupError:
        return
    if not any(field.name == "rating_changes" for field in match_model._meta.fields):
        return
    match_model.objects.filter(rating_changes__isnull=False).update(rating_changes=None)
    rows = [match_model(pk=pk, rating_changes=change) for pk, change in changes.items()]
    match_model.objects.bulk_update(rows, ["rating_changes"], batch_size=1000)


def _ladder_results(apps: Any
                    ) -> list[tuple[datetime, int, str, list[Key | None], Any, Any, int]]:
    """Every finished ladder match as :func:`rebuild` replays it, with its id (none before
    the ladder's migration: a migration's state may have no ladders yet)."""
    try:
        match_model = apps.get_model("tournaments", "LadderMatch")
        entry_model = apps.get_model("tournaments", "LadderEntry")
    except LookupError:
        return []
    keys = {pk: (kind, bot) for pk, kind, bot in
            entry_model.objects.values_list("pk", "kind", "bot")}
    finished = match_model.objects.filter(status="finished")
    if any(f.name == "new_code" for f in match_model._meta.fields):
        finished = finished.filter(new_code=[])  # new code played: never rated (older: none)
    return [(finished_at or created_at, 1, game, [keys.get(i) for i in seats], ranks,
             forfeited, pk)
            for pk, game, seats, ranks, forfeited, finished_at, created_at in
            finished
            .order_by(F("finished_at").asc(nulls_first=True), "ladder_id", "number")
            .values_list("pk", "ladder__game", "seats", "ranks", "forfeited", "finished_at",
                         "created_at")]


def _league_results(apps: Any
                    ) -> list[tuple[datetime, int, str, list[Key | None], Any, Any, None]]:
    """Every finished hand of a league night as :func:`rebuild` replays it (a migration's
    older models may not have a hand's forfeits or finish time yet: none forfeited then, and
    the night's start stands for the time)."""
    hand_model = apps.get_model("tournaments", "Hand")
    fields = {field.name for field in hand_model._meta.fields}
    if not {"finish", "status"} <= fields:
        return []
    members = {(m.league_id, m.index): entrant_key(m)
               for m in apps.get_model("tournaments", "Member").objects.all()}
    at = "finished_at" if "finished_at" in fields else "night__starts_at"
    out = "forfeited" if "forfeited" in fields else "finish"
    return [(finished_at or starts_at, 2, game, [members.get((league_id, i)) for i in seats],
             finish, forfeited if out == "forfeited" else [], None)
            for league_id, game, seats, finish, forfeited, finished_at, starts_at in
            hand_model.objects.filter(status="finished")
            .order_by(F(at).asc(nulls_first=True), "night_id", "number", "table")
            .values_list("night__league_id", "night__league__game", "seats", "finish", out, at,
                         "night__starts_at")]
