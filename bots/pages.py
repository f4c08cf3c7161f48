"""The pages of bots: a developer's own list, and each bot's page, public (its name, owner,
games, latest matches and latency, as anyone may seat a public bot) with, for its owner, what
the API's bot endpoints show only them (settings, strikes, the call log with the bot's own log
lines) as a person would rather look at it: strike reasons per day, a latency chart (inline
SVG, no script) and the last errors; and the secret's rotation (owner only: another user's is
a 404, as in the API).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_POST

from games.charts import line_chart
from games.errors import DomainError
from games.pages import match_rows

from . import selectors, services
from .models import Bot, BotCall

#: Days of strikes shown per reason, move calls drawn in the latency chart, matches listed.
STRIKE_DAYS = 14
LATENCY_CALLS = 200
MATCHES_SHOWN = 20
CHART_W, CHART_H = 600, 120


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    return render(request, "bots/my_bots.html",
                  {"bots": selectors.bot_list(owner=request.user)})


def bot_page(request: HttpRequest, bot_id: int, new_secret: str | None = None) -> HttpResponse:
    """A bot's public page: its name, owner, games, latest matches (with their replays) and
    latency; its owner also sees what the API shows only them: the URL and settings, strikes
    per day and by reason, the last errors, and the secret's rotation."""
    bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
    if bot is None:
        raise Http404("no such bot")
    owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    seats = list(selectors.bot_matches(bot=bot).prefetch_related("match__seats__user")
                 [:MATCHES_SHOWN])
    rows = match_rows(seat.match for seat in seats)
    context: dict[str, Any] = {
        "bot": bot, "owner": owner, "stats": selectors.bot_stats(bot=bot),
        "chart": latency_chart(bot),
        "matches": [{"seat": seat, "rank": selectors.seat_rank(seat), **row}
                    for seat, row in zip(seats, rows)],
    }
    if owner:
        context.update({"new_secret": new_secret, "strikes": strikes_per_day(bot),
                        "errors": selectors.bot_calls(bot=bot, failed=True)[:10]})
    return render(request, "bots/bot.html", context)


@login_required
@require_POST
def rotate_secret(request: HttpRequest, bot_id: int) -> HttpResponse:
    """A new secret, shown once on the page; the old one keeps working for the overlap."""
    bot = _owned(request, bot_id)
    _, secret = services.bot_rotate_secret(bot_id=bot.pk, user=request.user)
    return bot_page(request, bot.pk, new_secret=secret)


def _owned(request: HttpRequest, bot_id: int) -> Bot:
    try:
        return selectors.bot_get_owned(bot_id=bot_id, user=request.user)
    except DomainError:
        raise Http404("no such bot of yours") from None


def strikes_per_day(bot: Bot) -> dict[str, Any]:
    """Strikes of the last ``STRIKE_DAYS`` days by reason: ``days`` (newest first), ``reasons``
    and ``rows`` (per day, a count per reason)."""
    since = timezone.now() - timedelta(days=STRIKE_DAYS)
    counts = (BotCall.objects.filter(bot=bot, strike=True, created_at__gte=since)
              .annotate(day=TruncDate("created_at")).values("day", "reason")
              .annotate(n=Count("id")))
    by_day: dict[Any, dict[str, int]] = {}
    for row in counts:
        by_day.setdefault(row["day"], {})[row["reason"]] = row["n"]
    reasons = sorted({reason for day in by_day.values() for reason in day})
    return {"reasons": reasons,
            "rows": [{"day": day, "counts": [by_day[day].get(r, 0) for r in reasons]}
                     for day in sorted(by_day, reverse=True)]}


def latency_chart(bot: Bot) -> dict[str, Any] | None:
    """The last ``LATENCY_CALLS`` /move calls' times as a line from 0 ms (oldest left)."""
    times = list(BotCall.objects.filter(bot=bot, path=BotCall.Path.MOVE)
                 .order_by("-id").values_list("elapsed_ms", flat=True)[:LATENCY_CALLS])[::-1]
    chart = line_chart({"latency (ms)": times}, width=CHART_W, height=CHART_H, low=0)
    return chart and {**chart, "count": len(times)}
