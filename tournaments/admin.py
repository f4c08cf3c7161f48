"""Admin for tournaments: participants and matches inline, filters, and a cancel action.

What the schedule, the workers or the engine own (status, times, balance, seed, who plays, every
match row) is read-only: a tournament is created through its service (API or ``manage.py
run_tournament --create``), which checks everything and makes the schedule. Staff may organise
tournaments too, so the seed, which deals every match, is left out of the page until the
tournament is over (as the games admin hides a match's seed).

Leagues likewise: created through their service (``POST /api/leagues/``); staff may rename a
league and its members or mark a member as left. Nights and hands are the workers' and
read-only; a league's seed deals every hand of every night, so it is never shown.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from games.admin import HiddenUntilOverMixin, ReadOnlyMixin
from lib.errors import DomainError

from . import services
from .entrants import entrant_kind_label
from .leagues import services as leagues
from .models import Hand, League, Member, Night, Participant, Tournament, TournamentMatch


class EntrantKindMixin:
    """An entrant's kind as the seat-kind registry calls it ("webhook bot"): the model field
    has no choices to show it by, since any app may register a kind."""

    @admin.display(description="kind", ordering="kind")
    def entrant_kind(self, obj: Participant | Member) -> str:
        return entrant_kind_label(obj.kind)


class ParticipantInline(EntrantKindMixin, admin.TabularInline):
    """Who plays is fixed by the schedule; staff may rename or withdraw a participant (its
    remaining matches are then recorded as forfeits)."""

    model = Participant
    extra = 0
    fields = ("index", "entrant_kind", "bot", "user", "name", "withdrawn", "withdrawn_reason")
    readonly_fields = ("index", "entrant_kind", "bot", "user")
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


# --------------------------------------------------------------------------------------------
# Leagues
# --------------------------------------------------------------------------------------------


class MemberInline(EntrantKindMixin, admin.TabularInline):
    """Who a member is stays fixed (the order and every hand refer to its index); staff may
    rename one or mark it as left (as ``POST /api/leagues/{id}/members/{index}/leave/``)."""

    model = Member
    extra = 0
    fields = ("index", "entrant_kind", "bot", "user", "name", "joined_at", "left_at")
    readonly_fields = ("index", "entrant_kind", "bot", "user", "joined_at")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "game", "organiser", "season_start", "season_end")
    list_filter = ("game", "season_start", "created_at")
    search_fields = ("=id", "name", "organiser__username")
    #: ``seed`` is left out: it deals every hand, and a league is never over.
    fields = ("name", "game", "options", "organiser", "table_size", "hands_per_night",
              "moves_between_tables", "strike_limit", "move_time_limit", "season_start",
              "season_end", "weekday", "night_time", "timezone", "order", "ordered",
              "created_at")
    readonly_fields = fields[1:]
    date_hierarchy = "created_at"
    inlines = (MemberInline,)
    list_select_related = ("organiser",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class HandInline(ReadOnlyMixin, admin.TabularInline):
    model = Hand
    extra = 0
    fields = ("table", "number", "seats", "status", "match", "attempts", "points", "finish",
              "forfeited", "order_after", "lease_until", "finished_at")
    readonly_fields = fields
    ordering = ("number", "table")


@admin.register(Night)
class NightAdmin(admin.ModelAdmin):
    """Staff schedule a one-off night here (league and start time, through
    ``leagues.night_schedule``, as ``POST /api/leagues/{id}/nights/``); once made, a night is
    the workers' and read-only."""

    list_display = ("id", "league", "number", "starts_at", "status", "reason")
    list_filter = ("status", "starts_at")
    search_fields = ("=id", "=league__id", "league__name")
    fields = ("league", "number", "starts_at", "status", "reason", "tables", "order_before",
              "withdrawn", "started_at", "finished_at")
    readonly_fields = fields
    inlines = (HandInline,)
    list_select_related = ("league",)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("league", "starts_at") if obj is None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return () if obj is None else self.readonly_fields

    def get_inlines(self, request: HttpRequest, obj: Any) -> tuple:
        return () if obj is None else self.inlines

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False,
                 **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None:
            return form

        class ScheduleNightForm(form):  # type: ignore[valid-type, misc]
            """The service checks (season, organiser or staff, a free start time) and
            schedules; its reason shows on the form."""

            def clean(self) -> dict[str, Any]:
                data = super().clean()
                if not self.errors:
                    try:
                        self.instance = leagues.night_schedule(
                            league_id=data["league"].pk, user=request.user,
                            starts_at=data["starts_at"])
                    except DomainError as exc:
                        raise ValidationError(str(exc.detail)) from None
                return data

            def _post_clean(self) -> None:
                """The service checked everything and made the night: nothing to build or
                validate again (its unique start would now say it exists)."""

        return ScheduleNightForm

    def save_model(self, request: HttpRequest, obj: Night, form: Any, change: bool) -> None:
        """The service saved it already (in the form's ``clean``)."""


@admin.register(Hand)
class HandAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "night", "table", "number", "status", "match", "finished_at")
    list_filter = ("status",)
    search_fields = ("=id", "=night__id", "=match__id", "night__league__name")
    fields = ("night", "table", "number", "seats", "status", "match", "points", "finish",
              "order_after", "finished_at")
    readonly_fields = fields
    list_select_related = ("night__league",)
