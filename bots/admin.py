"""Admin for webhook bots: filters, stats at a glance, the call log read-only, the signing
secret never shown."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Bot, BotCall, BotSeat


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "owner", "url", "enabled", "public", "handshake_ok",
                    "handshake_at", "created_at")
    list_filter = ("enabled", "public", "handshake_ok", "created_at")
    search_fields = ("name", "url", "owner__username", "remote_name")
    raw_id_fields = ("owner",)
    # The signing secret is never shown, not even to staff: its owner saw it once.
    exclude = ("secret",)
    readonly_fields = ("secret_hint", "games", "handshake_at", "handshake_error", "remote_name",
                       "remote_author", "created_at", "updated_at")

    @admin.display(description="secret")
    def secret_hint(self, bot: Bot) -> str:
        if not bot.secret:
            return "none"
        return "whsec_•••• (set; shown to its owner once; rotate it with the API's rotate-secret)"


@admin.register(BotSeat)
class BotSeatAdmin(admin.ModelAdmin):
    list_display = ("match", "number", "bot", "started_at", "ended_at")
    list_filter = (("ended_at", admin.EmptyFieldListFilter),)
    raw_id_fields = ("match", "bot")


@admin.register(BotCall)
class BotCallAdmin(admin.ModelAdmin):
    list_display = ("id", "bot", "path", "match", "seat", "turn", "elapsed_ms", "status",
                    "reason", "strike", "created_at")
    list_filter = ("path", "reason", "strike", "created_at")
    search_fields = ("bot__name", "detail", "log")
    raw_id_fields = ("bot", "match")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
