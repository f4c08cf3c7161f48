"""Admin for webhook bots: filters, stats at a glance, the call log read-only, the signing
secret never shown, and nothing of a running match a bot said or tried (its log line, a failed
answer's detail, which can hold a sealed choice) shown to staff until the match is over: an
organiser with admin access must not peek during a tournament."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Bot, BotCall, BotSeat, BotVersion


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "owner", "url", "enabled", "public", "handshake_ok",
                    "handshake_at", "created_at")
    list_filter = ("enabled", "public", "handshake_ok", "created_at")
    search_fields = ("name", "url", "owner__username", "remote_name")
    raw_id_fields = ("owner",)
    # The signing secrets are never shown, not even to staff: their owner saw them once.
    exclude = ("secret", "previous_secret")
    readonly_fields = ("secret_hint", "previous_secret_expires_at", "games", "handshake_at",
                       "handshake_error", "remote_name", "remote_author", "created_at",
                       "updated_at")

    @admin.display(description="secret")
    def secret_hint(self, bot: Bot) -> str:
        if not bot.secret:
            return "none"
        return "whsec_•••• (set; shown to its owner once; rotate it with the API's rotate-secret)"


def _running(row: Any) -> bool:
    match = getattr(row, "match", None)
    return match is not None and not match.disclosed


@admin.register(BotSeat)
class BotSeatAdmin(admin.ModelAdmin):
    list_display = ("match", "number", "bot", "started_at", "ended_at")
    list_filter = (("ended_at", admin.EmptyFieldListFilter),)
    raw_id_fields = ("match", "bot")

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        # A failed answer's detail can quote the bot's sealed choice.
        return ("last_error",) if _running(obj) else ()


@admin.register(BotCall)
class BotCallAdmin(admin.ModelAdmin):
    list_display = ("id", "bot", "path", "match", "seat", "turn", "elapsed_ms", "status",
                    "reason", "strike", "created_at")
    list_filter = ("path", "reason", "strike", "created_at")
    # Not "detail" or "log": a search would show which running match's lines match.
    search_fields = ("bot__name",)
    raw_id_fields = ("bot", "match")

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("detail", "log") if _running(obj) else ()

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    """A bot's versions (docs/ladder.md, "Versions"), read-only: the owner registers, promotes
    and discards them (the API, the bot's page)."""

    list_display = ("id", "bot", "number", "status", "url", "declared_version", "run",
                    "created_at", "decided_at")
    list_filter = ("status", "created_at")
    search_fields = ("bot__name", "url", "declared_version", "bot__owner__username")
    raw_id_fields = ("bot",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
