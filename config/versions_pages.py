"""The bot page's forms for versions (docs/ladder.md, "Versions"): register one, promote or
discard it, through the API's services (``config.versions``), so the rules and their errors
are the same; back to the bot page's Versions section with what happened."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from bots import pages as bot_pages
from bots.selectors import bot_get_owned
from games.forms import show_refusal
from lib.errors import DomainError

from . import versions

#: Refusals shown under the field they are about (others above the form).
FIELD_REFUSALS = {"bad_url": "url", "bad_version": "url", "handshake_failed": "url",
                  "bad_ladder": "seats"}


def _back(bot_id: int) -> HttpResponse:
    return redirect(reverse("bot-page", args=[bot_id]) + "#versions")


def _owned_bot_id(request: HttpRequest, bot_id: int) -> int:
    try:
        return bot_get_owned(bot_id=bot_id, user=request.user).pk
    except DomainError:
        raise Http404("no such bot of yours") from None


@login_required
@require_POST
def version_new(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Register a version and start its run (``POST /api/bots/{id}/versions/``); a refusal is
    shown on the form."""
    bot = bot_get_owned(bot_id=_owned_bot_id(request, bot_id), user=request.user)
    form = bot_pages.VersionForm(bot, request.POST)
    if form.is_valid():
        try:
            version = versions.version_register(bot_id=bot.pk, user=request.user,
                                                **form.cleaned_data)
        except DomainError as error:
            show_refusal(form, error, FIELD_REFUSALS.get(error.code))
        else:
            messages.success(request, f"Version {version.number} registered: its provisional "
                                      f"run plays now.")
            return _back(bot.pk)
    return bot_pages.bot_page(request, bot.pk, version_form=form)


@login_required
@require_POST
def version_decide(request: HttpRequest, bot_id: int, number: int,
                   promote: bool) -> HttpResponse:
    """Promote (``.../promote/``) or discard (``.../discard/``) a version."""
    bot_id = _owned_bot_id(request, bot_id)
    decide = versions.version_promote if promote else versions.version_discard
    try:
        decide(bot_id=bot_id, user=request.user, number=number)
    except DomainError as error:
        messages.error(request, f"{error.detail} ({error.code})")
    else:
        messages.success(request, f"Version {number} promoted: the bot plays at its URL."
                         if promote else f"Version {number} discarded.")
    return _back(bot_id)
