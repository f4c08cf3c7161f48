"""Admin for matches: useful filters, seats inline, and logs that cannot be edited."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import AppliedAction, Match, MatchEvent, Seat


class ReadOnlyMixin:
    """The log is an audit trail: nobody edits or deletes it by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("number", "kind", "user", "bot_name", "strikes", "forfeited", "joined_at")
    readonly_fields = ("number", "joined_at")
    raw_id_fields = ("user",)
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MatchEventInline(ReadOnlyMixin, admin.TabularInline):
    model = MatchEvent
    extra = 0
    fields = ("n", "version", "kind", "seat", "action", "events", "created_at")
    readonly_fields = fields
    ordering = ("n",)
    show_change_link = True


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "players", "version", "deadline", "created_by",
                    "created_at", "finished_at")
    list_filter = ("game", "status", "players", "created_at", "finished_at")
    search_fields = ("=id", "seats__user__username", "seats__bot_name")
    readonly_fields = ("game", "options", "seed", "players", "state", "version", "result",
                       "created_by", "created_at", "updated_at", "started_at", "finished_at")
    date_hierarchy = "created_at"
    inlines = (SeatInline, MatchEventInline)
    list_select_related = ("created_by",)


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("match", "number", "kind", "user", "bot_name", "strikes", "forfeited")
    list_filter = ("kind", "forfeited", "match__game", "match__status")
    search_fields = ("user__username", "bot_name", "=match__id")
    raw_id_fields = ("match", "user")
    list_select_related = ("match", "user")


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("match", "n", "version", "kind", "seat", "created_at")
    list_filter = ("kind", "match__game", "created_at")
    search_fields = ("=match__id",)
    readonly_fields = ("match", "n", "version", "kind", "seat", "action", "events", "created_at")


@admin.register(AppliedAction)
class AppliedActionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("match", "version", "seat", "created_at")
    list_filter = ("match__game", "created_at")
    search_fields = ("=match__id",)
    readonly_fields = ("match", "version", "seat", "action", "response", "created_at")
