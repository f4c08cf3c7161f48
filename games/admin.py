"""Admin for matches: useful filters, seats inline, and logs that cannot be edited.

Staff may organise tournaments, so the admin must not let them peek: until a match is over its
hidden information (engine state, seed, the actions and private event details in the log, the
recorded answers) is left out of every page, and what the engine decides (status, deadline,
seats' users, strikes, forfeits) is read-only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .log import page_entries
from .models import AppliedAction, Match, MatchLogPage, Seat


class ReadOnlyMixin:
    """The log is an audit trail: nobody edits or deletes it by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class HiddenUntilOverMixin:
    """Leaves ``hidden_until_over`` out of the page until ``is_over(obj)``: by default, until
    the match (the object, or its ``match``) is finished."""

    hidden_until_over: tuple[str, ...] = ()

    def is_over(self, obj: Any) -> bool:
        """Overridden by admins of other things that hide a seed (tournaments)."""
        match = obj if isinstance(obj, Match) else getattr(obj, "match", None)
        return match is not None and match.disclosed

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_fields(request, obj))  # type: ignore[misc]
        if self.is_over(obj):
            return fields
        return [name for name in fields if name not in self.hidden_until_over]


SEAT_FIELDS = ("number", "kind", "user", "bot_name", "strikes", "forfeited", "joined_at")


class SeatInline(ReadOnlyMixin, admin.TabularInline):
    model = Seat
    extra = 0
    fields = SEAT_FIELDS
    readonly_fields = SEAT_FIELDS


class LogPageFields:
    """A log page shown as it may be: who did what (``summary``) always, the actions and
    engine events (``entries``, private details included) once the match is disclosed."""

    fields = ("first", "last", "summary", "entries", "created_at")
    readonly_fields = fields
    hidden_until_over = ("entries",)

    @admin.display(description="entries (n: kind, seat)")
    def summary(self, page: MatchLogPage) -> str:
        return "; ".join(f"{e.n}: {e.kind}" + ("" if e.seat is None else f" seat {e.seat}")
                         for e in page_entries(page))


class MatchLogPageInline(LogPageFields, HiddenUntilOverMixin, ReadOnlyMixin,
                         admin.TabularInline):
    model = MatchLogPage
    extra = 0
    ordering = ("first",)
    show_change_link = True


@admin.register(Match)
class MatchAdmin(HiddenUntilOverMixin, admin.ModelAdmin):
    list_display = ("id", "game", "status", "players", "version", "deadline", "created_by",
                    "created_at", "finished_at")
    list_filter = ("game", "status", "players", "created_at", "finished_at")
    search_fields = ("=id", "seats__user__username", "seats__bot_name")
    readonly_fields = ("game", "options", "seed", "players", "state", "status", "version",
                       "step_version", "deadline", "result", "created_by", "created_at",
                       "updated_at", "started_at", "finished_at")
    hidden_until_over = ("state", "seed")
    date_hierarchy = "created_at"
    inlines = (SeatInline, MatchLogPageInline)
    list_select_related = ("created_by",)


@admin.register(Seat)
class SeatAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("match", "number", "kind", "user", "bot_name", "strikes", "forfeited")
    list_filter = ("kind", "forfeited", "match__game", "match__status")
    search_fields = ("user__username", "bot_name", "=match__id")
    readonly_fields = ("match", *SEAT_FIELDS)
    list_select_related = ("match", "user")


@admin.register(MatchLogPage)
class MatchLogPageAdmin(LogPageFields, HiddenUntilOverMixin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("match", "first", "last", "created_at")
    list_filter = ("match__game", "created_at")
    search_fields = ("=match__id",)
    fields = ("match", *LogPageFields.fields)
    readonly_fields = fields


@admin.register(AppliedAction)
class AppliedActionAdmin(HiddenUntilOverMixin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("match", "version", "seat", "created_at")
    list_filter = ("match__game", "created_at")
    search_fields = ("=match__id",)
    readonly_fields = ("match", "version", "seat", "action", "response", "created_at")
    hidden_until_over = ("action", "response")
