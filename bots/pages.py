"""The pages of bots: a developer's own list, registering a bot, and each bot's page, public
(its name, owner, games, latest matches and latency, as anyone may seat a public bot) with, for
its owner, what the API's bot endpoints show only them (settings, strikes, the call log with the
bot's own log lines) as a person would rather look at it: strike reasons per day, a latency
chart (inline SVG, no script) and the last errors; and what the API lets them change: the name,
URL and who may seat it (the handshake runs again), enabled or not, the secret's rotation, a
handshake now. Every change goes through the API's services (``bots.services``), so the rules
and their errors are the same; another user's bot is a 404 for each of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from games.forms import show_refusal
from games.links import SeriesLink, bot_standings, rating_history, run_comparisons
from games.models import Seat
from games.pages import match_rows
from lib.charts import line_chart
from lib.errors import DomainError
from lib.live import live_part

from . import selectors, services
from .errors import BadBotUrl, BotNameTaken, HandshakeFailed
from .models import Bot, BotCall, BotVersion
from .versions import version_note
from .webhook import WEBHOOK

#: Days of strikes shown per reason, move calls drawn in the latency chart, matches listed.
STRIKE_DAYS = 14
LATENCY_CALLS = 200
MATCHES_SHOWN = 20
#: Versions listed on the owner's page (every one: ``GET /api/bots/{id}/versions/``).
VERSIONS_SHOWN = 10
CHART_W, CHART_H = 600, 120


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    return render(request, "bots/my_bots.html",
                  {"bots": selectors.bot_list(owner=request.user)})


class BotForm(forms.Form):
    """A bot's name, URL and who may seat it: the API's fields (``POST /api/bots/``); the
    games come from the bot's own handshake."""

    name = forms.CharField(max_length=100, help_text="How every page and table names it, "
                                                     "with your username beside it.")
    url = forms.CharField(label="URL", max_length=500, widget=forms.URLInput,
                          help_text="Its base URL, http:// or https://. The platform calls "
                                    "GET {url}/ at once (the handshake), then POST {url}/start, "
                                    "/move and /end in matches.")
    public = forms.BooleanField(label="Anyone may seat it", required=False, initial=True,
                                help_text="Unticked, only you can seat it in a match or enter "
                                          "it in a tournament.")


#: Where each refusal of the bot services is shown on a BotForm.
REFUSAL_FIELDS = {BadBotUrl: "url", HandshakeFailed: "url", BotNameTaken: "name"}

#: How often a bot's owner's page fetches its test matches' part while they are played: every
#: second, so "finished" shows within a second of the last match (a handful of short matches;
#: an unchanged part is a 304).
TESTS_REFRESH_SECONDS = 1


def _show(form: forms.Form, error: DomainError) -> None:
    show_refusal(form, error, REFUSAL_FIELDS.get(type(error)))


@login_required
def bot_new(request: HttpRequest) -> HttpResponse:
    """Register a bot as ``POST /api/bots/`` does: its handshake must pass; the bot's page
    then shows what the handshake said and the secret, this once."""
    form = BotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            bot, secret = services.bot_register(owner=request.user, **form.cleaned_data)
        except DomainError as error:
            _show(form, error)
        else:
            return bot_page(request, bot.pk, new_secret=secret, registered=True)
    return render(request, "bots/new_bot.html", {"form": form})


def bot_page(request: HttpRequest, bot_id: int, new_secret: str | None = None,
             registered: bool = False, settings_form: BotForm | None = None,
             version_form: VersionForm | None = None) -> HttpResponse:
    """A bot's public page: its name, owner, games, latest matches (with their replays) and
    latency; its owner also sees what the API shows only them: the URL and settings, strikes
    per day and by reason, the last errors, and the forms that change the bot (``new_secret``
    just made, shown once; ``settings_form`` as sent, with its errors). While its test
    matches are played, their part alone (``?part=tests``) is fetched again by htmx."""
    bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
    if bot is None:
        raise Http404("no such bot")
    owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    if owner and request.GET.get("part") == "tests":  # the tests' part alone, polled by htmx
        return live_part(request, render(request, "bots/_tests_live.html", {
            "tests": selectors.bot_test_runs(bot=bot),
            "live_seconds": TESTS_REFRESH_SECONDS}))
    seats = list(selectors.bot_matches(bot=bot).prefetch_related("match__seats__user")
                 [:MATCHES_SHOWN])
    rows = match_rows(seat.match for seat in seats)
    context: dict[str, Any] = {
        "bot": bot, "owner": owner, "stats": selectors.bot_stats(bot=bot),
        "chart": latency_chart(bot), "ratings": rating_charts(bot),
        "ladders": bot_standings("webhook", str(bot.pk), bot.games, owner),
        "matches": [{"seat": seat, "rank": selectors.seat_rank(seat),
                     "forfeited": _forfeited(seat), **row} for seat, row in zip(seats, rows)],
    }
    if owner:
        context.update({
            "new_secret": new_secret, "registered": registered,
            "concurrency_limit": selectors.bot_concurrency(bot),
            "strikes": strikes_per_day(bot),
            "errors": selectors.bot_calls(bot=bot, failed=True)[:10],
            "settings_form": settings_form or BotForm(
                initial={"name": bot.name, "url": bot.url, "public": bot.public}),
            "test_form": TestForm(bot), "tests": selectors.bot_test_runs(bot=bot),
            "versions": version_rows(bot), "version_form": version_form or VersionForm(bot),
            "live_seconds": TESTS_REFRESH_SECONDS,  # while tests are played
        })
    return render(request, "bots/bot.html", context)


@login_required
@require_POST
def bot_settings(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Rename or move the bot, or say who may seat it (``PATCH /api/bots/{id}/``): a new name
    or URL runs the handshake again, which must pass, or nothing changes."""
    bot = _owned(request, bot_id)
    form = BotForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        changed = {key: value for key, value in data.items() if value != getattr(bot, key)}
        try:
            services.bot_update(bot_id=bot.pk, user=request.user, **changed)
        except DomainError as error:
            _show(form, error)
        else:
            messages.success(request, "Saved." + (" The handshake passed."
                                                  if {"name", "url"} & set(changed) else ""))
            return redirect("bot-page", bot.pk)
    return bot_page(request, bot.pk, settings_form=form)


@login_required
@require_POST
def bot_enable(request: HttpRequest, bot_id: int, enabled: bool) -> HttpResponse:
    """Enable or disable the bot (a disabled bot gets no new seat)."""
    bot = _owned(request, bot_id)
    services.bot_set_enabled(bot_id=bot.pk, user=request.user, enabled=enabled)
    messages.success(request, "Enabled: it can be seated again." if enabled else
                     "Disabled: no new seat; in running matches it plays default actions.")
    return redirect("bot-page", bot.pk)


class VersionForm(forms.Form):
    """A new version: its URL, the game its provisional run plays and at which ladder table
    size (the API's fields, ``POST /api/bots/{id}/versions/``; its service checks the size)."""

    url = forms.CharField(label="URL", max_length=500, widget=forms.URLInput,
                          required=False,
                          help_text="Where the new version answers, beside the bot's own URL; "
                                    "its handshake is signed with the bot's secret. Empty "
                                    "(same URL): a redeploy there whose handshake declares a "
                                    "new version, played in place.")

    def __init__(self, bot: Bot, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"] = forms.ChoiceField(choices=[(g, g) for g in bot.games],
                                                help_text="The game its provisional run plays.")
        self.fields["seats"] = forms.IntegerField(
            label="Table size", required=False,
            help_text="The ladder table size its run plays at. Empty: the size of the game's "
                      "one ladder the bot is on, else the game's first ladder's.")


def version_rows(bot: Bot) -> list[dict[str, Any]]:
    """The bot's latest versions, each with its comparison in its provisional run (the app
    that plays runs reads them: ``games.links.run_comparisons``)."""
    versions = list(BotVersion.objects.filter(bot=bot)[:VERSIONS_SHOWN])
    compared = run_comparisons({v.run: (WEBHOOK, str(bot.pk)) for v in versions
                                if v.run is not None})
    return [{"version": v, "comparison": compared.get(v.run), "note": version_note(v)}
            for v in versions]


class TestForm(forms.Form):
    """A test run's game (one the bot's handshake lists) and its reference opponent."""

    def __init__(self, bot: Bot, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"] = forms.ChoiceField(choices=[(g, g) for g in bot.games])
        self.fields["opponent"] = forms.ChoiceField(
            choices=[(name, f"{name} (reference bot)") for name in ("heuristic", "random")])


@login_required
@require_POST
def bot_test(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Start a test run (``services.bot_test``): a few matches against a reference bot, played
    by the workers; the page lists them and sums them up as ``check_bot`` does."""
    bot = _owned(request, bot_id)
    form = TestForm(bot, request.POST)
    if not form.is_valid():
        messages.error(request, "Pick one of the games the bot plays.")
        return redirect("bot-page", bot.pk)
    try:
        started = services.bot_test(bot_id=bot.pk, user=request.user, **form.cleaned_data)
    except DomainError as error:
        messages.error(request, f"{error.detail} ({error.code})")
    else:
        messages.success(request, f"{len(started)} test matches of {form.cleaned_data['game']} "
                                  f"started: they are listed under Test runs as they are played.")
    return redirect(reverse("bot-page", args=[bot.pk]) + "#tests")


def test_match_links(match_ids: Sequence[int]) -> dict[int, SeriesLink]:
    """"test of sly" for a bot's test matches, to its page (``games.links``), one query."""
    rows = (Seat.objects.filter(match_id__in=match_ids, kind="webhook")
            .values_list("match_id", "bot_name"))
    bot_of = {match: bot for match, bot in rows if bot.isdigit()}
    names = dict(Bot.objects.filter(pk__in={int(b) for b in bot_of.values()})
                 .values_list("pk", "name"))
    return {match: SeriesLink(f"test of {names[int(bot)]}", reverse("bot-page", args=[int(bot)]))
            for match, bot in bot_of.items() if int(bot) in names}


@login_required
@require_POST
def bot_check(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Run the handshake now and record it (``POST /api/bots/{id}/check/``)."""
    bot = services.bot_check_owned(bot_id=_owned(request, bot_id).pk, user=request.user)
    if bot.handshake_ok:
        messages.success(request, "The handshake passed.")
    else:
        messages.error(request, f"The handshake failed: {bot.handshake_error}")
    return redirect("bot-page", bot.pk)


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
    """Strikes of the last ``STRIKE_DAYS`` days by reason: ``reasons`` (each its ``code`` and
    its ``parts`` between underscores, where a narrow column's heading may break) and ``rows``
    (per day, newest first, a cell per reason: its ``reason`` and count ``n``, the reason
    labelling the count once a phone stacks the row)."""
    since = timezone.now() - timedelta(days=STRIKE_DAYS)
    counts = (BotCall.objects.filter(bot=bot, strike=True, created_at__gte=since)
              .annotate(day=TruncDate("created_at")).values("day", "reason")
              .annotate(n=Count("id")))
    by_day: dict[Any, dict[str, int]] = {}
    for row in counts:
        by_day.setdefault(row["day"], {})[row["reason"]] = row["n"]
    reasons = sorted({reason for day in by_day.values() for reason in day})
    return {"reasons": [{"code": r, "parts": r.split("_")} for r in reasons],
            "rows": [{"day": day, "cells": [{"reason": r, "n": by_day[day].get(r, 0)}
                                            for r in reasons]}
                     for day in sorted(by_day, reverse=True)]}


def rating_charts(bot: Bot) -> list[dict[str, Any]]:
    """The bot's leaderboard rating (mu - 3 sigma) after each of its rated matches, one
    chart per game (``games.links.rating_history``: the series apps rate it), oldest left."""
    charts = []
    for game, points in sorted(rating_history("webhook", str(bot.pk)).items()):
        chart = line_chart({"rating": [ordinal for _, ordinal in points]},
                           width=CHART_W, height=CHART_H)
        if chart:
            charts.append({"game": game, "chart": chart, "count": len(points),
                           "first": points[0][0], "last": points[-1][0],
                           "now": points[-1][1]})
    return charts


def latency_chart(bot: Bot) -> dict[str, Any] | None:
    """The last ``LATENCY_CALLS`` /move calls' times as a line from 0 ms (oldest left)."""
    times = list(BotCall.objects.filter(bot=bot, path=BotCall.Path.MOVE)
                 .order_by("-id").values_list("elapsed_ms", flat=True)[:LATENCY_CALLS])[::-1]
    chart = line_chart({"latency (ms)": times}, width=CHART_W, height=CHART_H, low=0)
    return chart and {**chart, "count": len(times)}


def _forfeited(seat: Any) -> bool:
    """The bot's seat forfeited its match (the strike limit, a withdrawal): from the match's
    seats, prefetched."""
    return any(s.number == seat.number and s.forfeited for s in seat.match.seats.all())
