"""A ladder as the series runner plays it (``tournaments.runner``): its rows are
``LadderMatch``, its entrants its entries (by id), its format ``formats.ladder`` built from the
entries' leaderboard ratings (docs/ladder.md). It never finishes. The runner's withdrawal rule
pauses an entry (with the reason its owner sees) instead of taking it out of a series that
ends; a bot paused because it could not be seated resumes by itself once it can be.

Started when its first bot joins (``ladders.services``) and kept going by what keeps every
series going: the ``match_finished`` receiver, the play tasks and the reaper's sweep, which
asks the format again every ``TOURNAMENT_REAP_SECONDS`` (a pair's daily cap ending, a bot
that joined or came back)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.seats import new_code_seats, redeployed, unseatable

from ..formats import Outcome, PlannedMatch, get_format
from ..models import Ladder, LadderEntry, LadderMatch
from ..runner import kinds
from ..scheduling.matchmaking import Entrant, Policy
from ..scoring import leaderboard

#: ``Match.series`` of ladder matches.
SERIES = "ladder"
#: The runner's reason for a bot it cannot seat starts so (``runner.withdrawal``): such a pause
#: ends by itself once the bot can be seated again.
UNSEATABLE = "cannot be seated"
#: The reason of a bot whose URL serves new code nobody registered as a version (its
#: ``serving_version`` is not its ``declared_version``) starts so: it ends by itself once the
#: two agree again (rolled back, or the in-place version promoted).
REDEPLOYED = "redeployed"
#: The pauses the ladder's look (:func:`follow_seatability`) makes, and so may lift.
LOOKED_AT = (UNSEATABLE, REDEPLOYED)
#: The window of a pair's cap (``Ladder.pair_cap_per_day``).
DAY = timedelta(hours=24)


def policy_of(ladder: Ladder) -> Policy:
    return Policy(table_size=ladder.seats, max_in_flight=ladder.max_in_flight,
                  max_in_flight_per_entrant=ladder.in_flight_per_entrant,
                  pair_cap_per_day=ladder.pair_cap_per_day,
                  starve_after_seconds=float(ladder.starve_after_seconds))


def pair_counts(ladder_id: int, *, now: datetime) -> dict[frozenset[int], int]:
    """Matches each pair of entries started in the last 24 hours (in play ones too; not
    cancelled ones, never played)."""
    counts: Counter[frozenset[int]] = Counter()
    for seats in (LadderMatch.objects.filter(ladder_id=ladder_id, created_at__gte=now - DAY)
                  .exclude(status=kinds.CANCELLED).values_list("seats", flat=True)):
        counts.update(frozenset(pair) for pair in combinations(seats, 2))
    return dict(counts)


def entrant_of(entry: LadderEntry) -> Entrant:
    """An entry as the matchmaker sees it: its leaderboard rating, burst, last match, owner."""
    rating = entry.rating
    return Entrant(id=entry.pk, mu=rating.mu, sigma=rating.sigma, matches=rating.matches,
                   burst=entry.burst_left, owner=entry.owner_id,
                   last_played=entry.last_match_at.timestamp() if entry.last_match_at else None,
                   paused=entry.paused or entry.left_at is not None)


def out_of_play(entries: Mapping[int, LadderEntry]) -> set[int]:
    """Entries no match may seat now: paused or gone (the runner's ``withdrawn``: a match of
    theirs planned and not started is scored unplayed, a forfeit, never rated, if paused;
    cancelled if gone, :meth:`LadderKind.dropped`)."""
    return {pk for pk, e in entries.items() if e.paused or e.left_at is not None}


def follow_seatability(ladder: Ladder, entries: Mapping[int, LadderEntry]) -> None:
    """Look at every present entry's bot as the runner would seat it, on each ask: one that
    cannot be seated now (disabled, its handshake or the periodic health check failed, no
    longer public or playing the game) is paused with the reason its owner sees, before any
    match seats it (none is forfeited for it); so is one whose URL serves new code nobody
    registered as a version (``games.seats.redeployed``: its rating must not move with it);
    one paused so whose bot can be seated, its own code, again is back on ("resumes when it
    answers again"). A pause the look did not make (forfeits, an in-place version's run) is
    left alone. Two queries a seat kind where it can (``games.seats.unseatable``)."""
    watched = [e for e in entries.values() if e.left_at is None
               and (not e.paused or e.paused_reason.startswith(LOOKED_AT))]
    reasons: dict[int, str] = {}
    for kind in {e.kind for e in watched}:
        mine = {e.bot: e.pk for e in watched if e.kind == kind}
        reasons.update((mine[bot], f"{REDEPLOYED}: {why}")
                       for bot, why in redeployed(kind, set(mine)).items())
        reasons.update((mine[bot], f"{UNSEATABLE}: {why}") for bot, why in
                       unseatable(kind, ladder.game, set(mine)).items())
    now, longest = timezone.now(), LadderEntry._meta.get_field("paused_reason").max_length
    for entry in watched:
        reason = reasons.get(entry.pk)
        if entry.paused and reason is None:
            changed = LadderEntry.objects.filter(pk=entry.pk, paused=True).update(
                paused=False, paused_reason="", paused_at=None)
            if changed:
                entry.paused, entry.paused_reason, entry.paused_at = False, "", None
        elif reason is not None and reason[:longest] != entry.paused_reason:
            # Paused now, or paused for another of the look's reasons (the owner reads the one
            # that holds it now; it was paused since then).
            reason, since = reason[:longest], entry.paused_at if entry.paused else now
            changed = LadderEntry.objects.filter(pk=entry.pk, paused=entry.paused,
                                                 paused_reason=entry.paused_reason).update(
                paused=True, paused_reason=reason, paused_at=since)
            if changed:
                entry.paused, entry.paused_reason, entry.paused_at = True, reason, since


def new_code(entries: Mapping[int, LadderEntry], rows: Sequence[Any]) -> dict[int, list[int]]:
    """Of finished rows, the entries whose bot played code other than its own in them (it said
    so when the match started: ``games.seats.new_code_seats``), by row id: those matches are
    not rated. One query a seat kind that can tell."""
    matches: dict[str, set[int]] = {}
    for row in rows:
        if row.match_id is not None:
            for entry in row.seats:
                matches.setdefault(entries[entry].kind, set()).add(row.match_id)
    found = {kind: new_code_seats(kind, ids) for kind, ids in matches.items()}
    out: dict[int, list[int]] = {}
    for row in rows:
        played = sorted(entry for seat, entry in enumerate(row.seats)
                        if seat in found.get(entries[entry].kind, {}).get(row.match_id, {}))
        if played:
            out[row.pk] = played
    return out


class LadderKind(kinds.SeriesKind):
    name, label = SERIES, "ladder"
    model, series_model, link = LadderMatch, Ladder, "ladder"
    order = ("number",)
    result_fields = ("ranks", "scores", "forfeited")

    def chunk(self) -> int:
        return settings.TOURNAMENT_CHUNK

    def load(self, row: Any) -> kinds.Loaded:
        ladder = Ladder.objects.get(pk=row.pk)
        entries = {e.pk: e for e in LadderEntry.objects.filter(ladder=ladder)
                   .select_related("rating")}
        follow_seatability(ladder, entries)
        return kinds.Loaded(
            kind=SERIES, series=ladder, format=self._format(ladder, entries),
            entrants=entries, withdrawn=out_of_play(entries), game=ladder.game,
            organiser=None,  # the platform's: only public bots may be seated
            options=ladder.options, move_time_limit=ladder.move_time_limit,
            strike_limit=ladder.strike_limit)

    @staticmethod
    def _format(ladder: Ladder, entries: Mapping[int, LadderEntry]) -> Any:
        return get_format("ladder", entrants=[entrant_of(e) for e in entries.values()],
                          policy=policy_of(ladder), secret=ladder.deal_secret,
                          pair_counts_today=pair_counts(ladder.pk, now=timezone.now()),
                          cancelled=LadderMatch.objects.filter(
                              ladder=ladder, status=kinds.CANCELLED).count())

    def refresh(self, loaded: kinds.Loaded) -> None:
        """Entries, ratings and the day's pairs read again: who joined, left, was paused or
        resumed since, and the pairs the matches just planned used up."""
        ladder = loaded.series
        entries = {e.pk: e for e in LadderEntry.objects.filter(ladder=ladder)
                   .select_related("rating")}
        loaded.entrants = entries
        loaded.withdrawn = out_of_play(entries)
        loaded.format = self._format(ladder, entries)

    def dropped(self, loaded: kinds.Loaded, plan: PlannedMatch) -> bool:
        """A match planned for a bot that has left since is cancelled, not scored a forfeit:
        its owner took it off the ladder before the match was offered to it, so it forfeited
        nothing (no forfeit in its history, none towards a pause when it comes back), and its
        opponent did not play it (its burst and last match stand; it is planned another)."""
        return any(loaded.entrants[i].left_at is not None for i in plan.forfeited)

    def planned(self, row: Any, *, forfeited: Collection[int] = ()) -> PlannedMatch:
        return PlannedMatch(key=str(row.number), seats=tuple(row.seats), seed=row.seed,
                            number=row.number, deal=row.deal,
                            forfeited=tuple(i for i in row.seats if i in forfeited))

    def new_row(self, loaded: kinds.Loaded, planned: PlannedMatch) -> LadderMatch:
        return LadderMatch(ladder=loaded.series, number=planned.number, deal=planned.deal,
                           seed=planned.seed, seats=list(planned.seats))

    def take(self, row: Any, outcome: Outcome) -> None:
        """The forfeit rule of every series: forfeiters share the last place, are listed in
        ``forfeited``, and the match is not rated."""
        row.ranks, row.forfeited = list(outcome.places), sorted(outcome.forfeited)
        row.scores = None if outcome.scores is None else list(outcome.scores)

    def outcomes(self, loaded: kinds.Loaded, *, tables: Collection[int] | None = None
                 ) -> list[Outcome]:
        """The latest ``LADDER_RECENT_RESULTS`` results, oldest first: a ladder never ends, so
        what reads its outcomes (the withdrawal rule's forfeits in a row) reads its recent
        ones; its format reads none."""
        rows = list(LadderMatch.objects.filter(ladder=loaded.series, status=kinds.FINISHED)
                    .order_by("-finished_at", "-number")
                    .values_list("number", "seats", "ranks", "scores", "forfeited")
                    [:settings.LADDER_RECENT_RESULTS])
        return [Outcome(str(number), tuple(seats), tuple(ranks),
                        None if scores is None else tuple(scores), frozenset(forfeited))
                for number, seats, ranks, scores, forfeited in reversed(rows)]

    def withdraw(self, loaded: kinds.Loaded, reasons: Mapping[int, str]) -> None:
        """Pause, never remove: the entry keeps its place and rating, its owner sees why."""
        now = timezone.now()
        for pk, reason in sorted(reasons.items()):  # in id order, as :meth:`closed` locks
            LadderEntry.objects.filter(pk=pk, paused=False).update(
                paused=True, paused_reason=reason, paused_at=now)
            entry = loaded.entrants[pk]
            entry.paused, entry.paused_reason, entry.paused_at = True, reason, now

    def closed(self, loaded: kinds.Loaded, rows: Sequence[Any], *, now: datetime) -> None:
        """Rated on the game's leaderboard (the one rating), each rated match keeping how far
        it moved each seat's rating (``rating_changes``), but for a match that new code
        played (a bot whose /start answer declared another version than its own:
        :func:`new_code`): recorded with who did (``new_code``), never rated, as a forfeit
        is not; the look at the next ask pauses that bot. Each entry's burst counts down and
        its last match is now."""
        entries = loaded.entrants
        done = [row for row in rows if row.status == kinds.FINISHED]
        for pk, played in new_code(entries, done).items():
            LadderMatch.objects.filter(pk=pk).update(new_code=played)
            next(row for row in done if row.pk == pk).new_code = played
        rated = [row for row in done if not row.new_code]
        changes = leaderboard.record_results(game=loaded.game, played_at=now, results=[
            ([(entries[i].kind, entries[i].bot) for i in row.seats], row.ranks, row.forfeited)
            for row in rated])
        for row, change in zip(rated, changes):  # how far it moved each seat's rating
            if change is not None:
                row.rating_changes = change
                LadderMatch.objects.filter(pk=row.pk).update(rating_changes=change)
        played = Counter(i for row in done for i in row.seats)
        # Locked in id order: two recordings of forfeits (not rated, so not serialised by the
        # leaderboard's rows) never lock two entries each the other way round.
        locked = list(LadderEntry.objects.select_for_update().filter(pk__in=sorted(played))
                      .order_by("pk").only("pk", "burst_left"))
        for entry in locked:
            entry.burst_left = max(0, entry.burst_left - played[entry.pk])
            entry.last_match_at = now
        LadderEntry.objects.bulk_update(locked, ["burst_left", "last_match_at"])

kinds.register(LadderKind())
