"""The ladder's pages (docs/ladder.md): a game's ladder and its standings, 50 a page."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from games.engine import game_ids, get_game
from games.links import BotStanding, SeriesLink
from games.models import Match
from games.names import Sitter, seat_labels
from games.pages import match_rows
from lib.charts import line_chart
from lib.errors import DomainError

from ..errors import GameNotFound
from ..ladders import selectors, services
from ..ladders.errors import BadLadder
from ..models import LadderEntry, LadderMatch

#: Standings a page.
PER_PAGE = 50
#: The latest matches shown under the standings.
MATCHES_SHOWN = 20


def ladder(request: HttpRequest, game: str) -> HttpResponse:
    """A game's ladder: its figures and its standings, best ordinal first, each with its
    interval, matches, last match and chance to be ahead of the next; a paused bot's owner
    reads why."""
    seats, entry = request.GET.get("seats", ""), request.GET.get("entry", "")
    try:
        seats = int(seats) if seats else None
        found = selectors.ladder_get(game=game, seats=seats)
        of = None if not entry else LadderEntry.objects.get(pk=int(entry), ladder=found)
    except (ValueError, GameNotFound, BadLadder, LadderEntry.DoesNotExist):
        raise Http404("no such ladder or entry") from None
    entries = selectors.ladder_entries(ladder=found)
    page = Paginator(entries, PER_PAGE).get_page(request.GET.get("page"))
    viewer = request.user if request.user.is_authenticated else None
    played = selectors.ladder_matches(ladder=found, entry=of and of.pk).filter(
        match__isnull=False)
    latest = (Match.objects.filter(ladder_match__in=played).order_by("-created_at", "-id")
              .select_related("ladder_match").prefetch_related("seats__user")
              .defer("state")[:MATCHES_SHOWN]
              if found is not None else [])
    rows = selectors.standings_rows(entries=entries, page=list(page.object_list),
                                    viewer=viewer)
    for row in rows:  # a sparkline of its latest ratings: why the rank moved
        row["spark"] = line_chart({"rating": row["trend"]}, width=80, height=20, pad=2)
        row["spark_label"] = f"rating after each of its last {len(row['trend'])} rated matches"
    matches = match_rows(latest)
    for row in matches if of is not None else ():
        row["rating_change"] = _rating_change(row["match"].ladder_match, of.pk)
    return render(request, "tournaments/ladder.html", {
        "game": get_game(game),
        "summary": selectors.ladder_summary(game=game, ladder=found, seats=seats),
        "filters": f"seats={seats}" if seats else "",
        "page": page, "rows": rows, "trend_points": selectors.TREND_POINTS,
        "matches": matches,
        "entry": of and {"pk": of.pk, "name": seat_labels([Sitter(of.kind, of.bot)])[0]},
    })


def _rating_change(row: LadderMatch, entry: int) -> str | None:
    """How far a ladder match moved ``entry``'s rating, signed ("+0.84"); "unrated" once
    finished without moving it (a forfeit, new code); None while in play."""
    if row.rating_changes is not None:
        return f"{row.rating_changes[row.seats.index(entry)]:+.2f}"
    return "unrated" if row.status == LadderMatch.Status.FINISHED else None


def ladder_match_links(match_ids: Sequence[int]) -> dict[int, SeriesLink]:
    """Each ladder match's link to its ladder's page (``games.links``)."""
    rows = (LadderMatch.objects.filter(match_id__in=match_ids)
            .values_list("match_id", "ladder__game", "number"))
    return {match: SeriesLink(f"{get_game(game).name} ladder, match {number + 1}",
                              reverse("ladder-page", args=[game]))
            for match, game, number in rows}


def bot_ladders(kind: str, bot: str, games: Sequence[str], owner: bool) -> list[BotStanding]:
    """Where a bot stands on the ladders of the games it plays, for its owner on its page
    (``games.links``): its rank and rating where it is on one, whether it is paused and why,
    and a button that puts it on, back on, or takes it off. Nothing (and no query) for
    anyone else: the public page stays as cheap as it was; the ladders' pages are public."""
    if not owner:
        return []
    games = [game for game in games if game in game_ids()]
    entries = selectors.bot_entries(kind=kind, bot=bot, games=games)
    found = []
    # Each game's first ladder, and any other it was put on.
    ladders = sorted({*((game, services.ladder_seats(game)) for game in games), *entries},
                     key=lambda key: (games.index(key[0]), key[1]))
    for game, seats in ladders:
        entry, name = entries.get((game, seats)), get_game(game).name
        first = seats == services.ladder_seats(game)
        name += "" if first else f" ({seats} seats)"
        query = "" if first else f"?seats={seats}"
        url = reverse("ladder-page", args=[game]) + query
        join = reverse("ladder-enter", args=[game]) + query
        if entry is None or entry.left_at is not None:
            found.append(BotStanding(f"Not on the {name} ladder", url, action_url=join,
                                     action_label="Put it on the ladder"))
            continue
        rating = entry.rating
        url += ("&" if query else "?") + f"entry={entry.pk}#matches"  # its ladder history
        text = (f"On the {name} ladder: rank {selectors.entry_rank(entry)}, rating "
                f"{rating.ordinal:.1f} over {rating.matches} rated matches"
                + (", paused" if entry.paused else ""))
        if entry.paused:
            found.append(BotStanding(text, url, note=f"Paused: {entry.paused_reason}. Fix it, "
                                                     f"then put it back on.",
                                     action_url=join, action_label="Put it back on"))
        else:
            found.append(BotStanding(text, url, action_url=reverse(
                "ladder-leave", args=[game]) + query, action_label="Take it off the ladder"))
    return found


@login_required
@require_POST
def ladder_enter(request: HttpRequest, game: str, leave: bool = False) -> HttpResponse:
    """Put a bot of yours on a game's ladder, back on it, or (``leave``) take it off, from its
    page (``POST /api/ladders/{game}/entries/`` and ``DELETE``); back to the bot's page."""
    bot, seats = request.POST.get("bot", ""), request.GET.get("seats", "")
    if not bot.isdigit() or not (seats.isdigit() or not seats):
        raise Http404("no such bot or ladder")
    seats = int(seats) if seats else None
    try:
        if leave:
            services.ladder_leave(game=game, user=request.user, bot=bot, seats=seats)
            messages.success(request, f"Off the {get_game(game).name} ladder.")
        else:
            services.ladder_join(game=game, user=request.user, bot=bot, seats=seats)
            messages.success(request, f"On the {get_game(game).name} ladder: its first "
                                      f"matches start within seconds.")
    except GameNotFound:
        raise Http404("no such game") from None
    except DomainError as error:
        messages.error(request, f"{error.detail} ({error.code})")
    return redirect("bot-page", int(bot))
