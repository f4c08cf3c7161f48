"""Admin for tournaments: participants and matches inline, filters, and a cancel action.

What the schedule, the workers or the engine own (status, times, balance, seed, who plays, every
match row) is read-only: a tournament is created through its service (API or ``manage.py
run_tournament --create``), which checks everything and makes the schedule. Staff may organise
tournaments too, so the seed, which deals every match, is left out of the page until the
tournament is over (as the games admin hides a match's seed).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from games.admin import HiddenUntilOverMixin, ReadOnlyMixin
from games.errors import DomainError

from . import services
from .models import Participant, Tournament, TournamentMatch


class ParticipantInline(admin.TabularInline):
    """Who plays is fixed by the schedule; staff may rename or withdraw a participant (its
    remaining matches are then recorded as forfeits)."""

    model = Participant
    extra = 0
    fields = ("index", "kind", "bot", "user", "name", "withdrawn", "withdrawn_reason")
    readonly_fields = ("index", "kind", "bot", "user")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TournamentMatchInline(ReadOnlyMixin, admin.TabularInline):
    model = TournamentMatch
    extra = 0
    fields = ("number", "round", "deal", "seats", "status", "match", "attempts", "ranks",
              "scores", "forfeited", "lease_until", "finished_at")
    readonly_fields = fields
    ordering = ("number",)


@admin.register(Tournament)
class TournamentAdmin(HiddenUntilOverMixin, admin.ModelAdmin):
    list_display = ("id", "name", "game", "status", "organiser", "table_size", "meetings",
                    "duplicate", "starts_at", "created_at", "finished_at")
    list_filter = ("status", "game", "duplicate", "created_at")
    search_fields = ("=id", "name", "organiser__username")
    readonly_fields = ("game", "options", "organiser", "status", "table_size", "meetings",
                       "duplicate", "seed", "balance", "created_at", "started_at",
                       "finished_at")
    hidden_until_over = ("seed",)
    date_hierarchy = "created_at"
    inlines = (ParticipantInline, TournamentMatchInline)
    list_select_related = ("organiser",)
    actions = ("cancel",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def is_over(self, obj: Tournament | None) -> bool:
        return obj is not None and obj.is_over

    @admin.action(description="Cancel the selected tournaments (finished matches are kept)")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        cancelled = 0
        for tournament in queryset:
            try:
                services.tournament_cancel(tournament_id=tournament.pk, user=request.user)
            except DomainError as exc:
                self.message_user(request, f"{tournament}: {exc.detail}", messages.WARNING)
            else:
                cancelled += 1
        self.message_user(request, f"{cancelled} tournament(s) cancelled.", messages.SUCCESS)
