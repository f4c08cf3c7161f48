"""A bot version's provisional run on the ladder (docs/ladder.md, "Versions"): an ordinary
unrated tournament the one runner plays, in the ``benchmark`` format: the candidate (the
bot's secret at its new URL: the ``candidate`` seat kind, ``bots.versions``) and the bot as it
plays now each meet the same fixed field, the game's reference bots and the top of its ladder,
on the same deals; and its comparison, read side by side. An in-place version (a redeploy at
the bot's own URL declaring a new ``version``) plays the field alone, its old code gone: its
comparison is with the bot's ladder rating, and the bot is paused on its ladders until it is
decided (:func:`hold`, :func:`release`). Promoting a version gives the bot the ladder's burst
of a changed bot (:func:`bot_changed`). Bots are named as seats name them (a
kind and a ``bot`` string): tournaments never imports bots; ``config.versions`` joins the two.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from games.engine import get_game
from games.errors import BadSeats
from games.seats import REFERENCE, get_seat_kind

from ..formats.benchmark import CHALLENGERS
from ..models import LadderEntry, Tournament
from ..runner import kinds
from ..scoring.leaderboard import entrant_key, key_ratings, rating_against
from ..scoring.ratings import ratings
from ..scoring.standings import match_points, standings
from ..selectors import tournament_results
from ..services import tournament_cancel, tournament_create
from .kind import SERIES
from .selectors import INTERVAL_SIGMAS, ladder_entries, ladder_get
from .services import VERSION_HELD, ladder_seats

JSON = dict[str, Any]
#: A bot as seats name it: (kind, bot).
Key = tuple[str, str]


def run_seats(*, game: str, kind: str, bot: str, seats: int | None = None) -> int:
    """The table size a provisional run of ``game`` plays at: ``seats`` if the game is played
    by so many (``BadLadder`` if not); by default the size of the one ladder of the game the
    bot is on (a run is worth most at the table the bot plays), else the game's first
    (:func:`ladder_seats`), as when it is on none or on several (its owner says which)."""
    if seats is None:
        sizes = set(LadderEntry.objects.filter(kind=kind, bot=bot, left_at__isnull=True,
                                               ladder__game=game)
                    .values_list("ladder__seats", flat=True))
        if len(sizes) == 1:
            seats = sizes.pop()
    return ladder_seats(game, seats)


def benchmark_field(*, game: str, kind: str, bot: str, seats: int | None = None
                    ) -> list[dict[str, str]]:
    """The fixed field of a provisional run of ``game`` at tables of ``seats`` (default: the
    game's first ladder's, :func:`ladder_seats`), as entrant specs: the game's reference bots,
    then the best ``BOT_VERSION_BENCHMARK_TOP`` bots of its ladder of that size that may be
    seated now (never the bot itself: ``kind``, ``bot``), then reference bots again while a
    table of that size is not filled (a reference bot may be entered more than once)."""
    seats = ladder_seats(game, seats)
    field = [{"kind": REFERENCE, "bot": name} for name in get_game(game).bots]
    top: list[dict[str, str]] = []
    for entry in ladder_entries(ladder=ladder_get(game=game, seats=seats)).filter(paused=False):
        if len(top) >= settings.BOT_VERSION_BENCHMARK_TOP:
            break
        spec = {"kind": entry.kind, "bot": entry.bot}
        if spec in field or (entry.kind, entry.bot) == (kind, bot):
            continue
        try:
            get_seat_kind(entry.kind).check_bot(game, entry.bot, None)
        except (KeyError, ValueError, BadSeats):
            continue
        top.append(spec)
    field += top
    references = [spec for spec in field if spec["kind"] == REFERENCE]
    while len(field) < seats - 1:
        field.append(references[len(field) % len(references)])
    return field


def provisional_run_create(*, organiser: AbstractBaseUser, name: str, game: str,
                           candidate: Mapping[str, str], current: Mapping[str, str],
                           seats: int | None = None, in_place: bool = False) -> Tournament:
    """Start the run (call in the transaction that records the version): ``candidate`` and
    ``current`` (entrant specs, named) against :func:`benchmark_field` at tables of ``seats``
    (:func:`run_seats`: by default the size of the current's one ladder of the game, else the
    game's first), ``BOT_VERSION_MEETINGS`` deals per table, each played once per seat
    rotation by each. ``in_place``: the current's code no longer answers (the candidate is
    it, redeployed), so the candidate plays the field alone (one challenger); ``current``
    still says which bot the field leaves out. Unrated: it never moves the leaderboard. The
    organiser's limits apply."""
    seats = run_seats(game=game, kind=current["kind"], bot=current["bot"], seats=seats)
    challengers = [dict(candidate)] if in_place else [dict(candidate), dict(current)]
    return tournament_create(
        organiser=organiser, name=name, game=game,
        participants=[*challengers, *benchmark_field(
            game=game, kind=current["kind"], bot=current["bot"], seats=seats)],
        format=Tournament.Format.BENCHMARK, table_size=seats,
        meetings=settings.BOT_VERSION_MEETINGS, duplicate=True, provisional=True,
        challengers=len(challengers))


def run_playing(run_id: int | None) -> str | None:
    """The run's status while it is still to play (scheduled, running), else None."""
    return Tournament.objects.filter(
        pk=run_id, status__in=[Tournament.Status.SCHEDULED, Tournament.Status.RUNNING]
    ).values_list("status", flat=True).first()


def run_cancel(*, run_id: int, user: AbstractBaseUser) -> None:
    """Stop a run still playing (its candidate was discarded)."""
    if run_playing(run_id):
        tournament_cancel(tournament_id=run_id, user=user)


def hold(*, kind: str, bot: str, declared: str) -> int:
    """An in-place version plays its run: on every ladder the bot is on (left ones too, so a
    join does not bring it back: ``ladder_join`` keeps the hold) it is paused, whatever it
    was paused for, so its one rating does not move with code not yet promoted. Only a
    decision lifts it (:func:`release`): the ladder's look at seatability leaves it alone.
    Returns how many entries."""
    reason = f"version {declared[:100]} {VERSION_HELD}"
    return LadderEntry.objects.filter(kind=kind, bot=bot).update(
        paused=True, paused_reason=reason, paused_at=timezone.now())


def release(*, kind: str, bot: str) -> int:
    """The in-place version is decided: the bot plays its ladders again (one that cannot be
    seated is paused again at the ladder's next look). Each ladder is asked at once."""
    entries = list(LadderEntry.objects.filter(kind=kind, bot=bot, paused=True,
                                              paused_reason__endswith=VERSION_HELD)
                   .values_list("pk", "ladder_id"))
    LadderEntry.objects.filter(pk__in=[pk for pk, _ in entries]).update(
        paused=False, paused_reason="", paused_at=None)
    for ladder_id in {ladder for _, ladder in entries}:
        kinds.enqueue("advance", SERIES, ladder_id)
    return len(entries)


def bot_changed(*, kind: str, bot: str) -> int:
    """A bot plays new code: on each ladder it is on it plays the burst of a new or changed bot
    (``Ladder.burst`` matches first, the matchmaker's priority), asked for at once. Returns
    how many ladders."""
    entries = list(LadderEntry.objects.filter(kind=kind, bot=bot, left_at__isnull=True)
                   .select_related("ladder"))
    for entry in entries:
        LadderEntry.objects.filter(pk=entry.pk).update(burst_left=entry.ladder.burst)
        kinds.enqueue("advance", SERIES, entry.ladder_id)
    return len(entries)


# ---- the comparison -----------------------------------------------------------------------

def run_comparisons(runs: Mapping[int, Key]) -> dict[int, JSON]:
    """The comparison of each run found (:func:`comparison`), by run id: ``runs`` names the
    bot (kind, bot) each run tries a version of."""
    return {pk: comparison(run, bot=runs[pk])
            for pk, run in Tournament.objects.in_bulk(list(runs)).items()}


def comparison(run: Tournament, *, bot: Key) -> JSON:
    """Candidate and current side by side in their provisional run, as far as it is played:
    matches, first places (wins), points (1 first to 0 last a match, ``match_points``), their
    OpenSkill ratings over the run; the rating difference (candidate - current, mu) with its
    95% interval (1.96 times the two sigmas combined); and the paired score difference: the
    mean, over the places both have played (one deal, one seat, one field), of the candidate's
    points less the current's, with its 95% interval (1.96 standard errors). ``seats``: the
    run's table size, the ladder's it was played for (the run is its one record).

    An in-place version's run (one challenger) has no current in it: its current is ``bot``'s
    standing on the game's leaderboard (the one rating its ladders show), and the candidate's
    rating is on that scale (:func:`in_place_rating`); no place is paired."""
    results = tournament_results(tournament=run)
    count = run.participants.count()
    rows = {row.participant: row for row in standings(results, count)}
    candidate, current = CHALLENGERS

    def side(index: int, mu: float, sigma: float) -> JSON:
        row = rows[index]
        return {"matches": row.matches, "wins": row.firsts, "forfeits": row.forfeits,
                "points": float(row.points * row.matches) if row.points is not None else 0.0,
                "mean_points": row.points, "mu": mu, "sigma": sigma}

    if run.challengers == 1:  # in place: the bot's standing is the current
        ours = side(candidate, *in_place_rating(run, results)[:2])
        theirs = _standing(key_ratings(game=run.game, keys=[bot])[0])
        paired: list[float] = []
    else:
        rated = {r.participant: r for r in ratings(results, count)}
        ours = side(candidate, rated[candidate].mu, rated[candidate].sigma)
        theirs = side(current, rated[current].mu, rated[current].sigma)
        paired = _paired_differences(results)
    difference = ours["mu"] - theirs["mu"]
    spread = INTERVAL_SIGMAS * math.hypot(ours["sigma"], theirs["sigma"])
    mean, half = _mean_interval(paired)
    return {
        "run": run.pk, "run_status": run.status, "seats": run.table_size,
        "matches_total": run.match_total, "matches_played": len(results),
        "candidate": ours, "current": theirs,
        "rating_difference": difference,
        "rating_interval": [difference - spread, difference + spread],
        "paired_places": len(paired), "score_difference": mean,
        "score_interval": None if half is None else [mean - half, mean + half],
    }


def in_place_rating(run: Tournament, results: Sequence[Any]) -> tuple[float, float, int]:
    """An in-place candidate's rating on its game's leaderboard scale: from the board's
    starting rating, its run's matches rated against the field held at their board ratings
    (``leaderboard.rating_against``; forfeits not rated). Returns mu, sigma, matches rated."""
    candidate = CHALLENGERS[0]
    people = {p.index: entrant_key(p) for p in run.participants.all()}
    return rating_against(game=run.game, results=[
        ([None if seat == candidate else people[seat] for seat in result.seats],
         result.ranks, result.forfeited) for result in results])


def _standing(rating: Any) -> JSON:
    """An in-place version's current side: the bot's standing on the leaderboard (it did not
    play the run: ``matches`` are the rated matches its rating rests on, the rest null)."""
    return {"matches": rating.matches, "wins": None, "forfeits": None, "points": None,
            "mean_points": None, "mu": rating.mu, "sigma": rating.sigma}


def _paired_differences(results: Sequence[Any]) -> list[float]:
    """Per place both challengers played (one deal, the same field in the same seats), the
    candidate's match points less the current's."""
    candidate, current = CHALLENGERS
    by_place: dict[tuple[Any, ...], dict[int, float]] = {}
    for result in results:
        for challenger in CHALLENGERS:
            if challenger in result.seats:
                place = (result.deal, tuple(-1 if s == challenger else s for s in result.seats))
                points = match_points(result.ranks)[result.seats.index(challenger)]
                by_place.setdefault(place, {})[challenger] = float(points)
    return [both[candidate] - both[current] for both in by_place.values() if len(both) == 2]


def _mean_interval(values: Sequence[float]) -> tuple[float | None, float | None]:
    """The mean and the half-width of its 95% interval (None below two values)."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, INTERVAL_SIGMAS * math.sqrt(variance / len(values))

