"""Registered webhook bots, their seats in matches, and the log of every call made to them.

Stats per bot (matches played, strikes by reason, latency p50/p95/max, last error) are read
from :class:`BotCall` by ``bots.selectors``: one row per call, written once, never updated, so
recording a move costs one INSERT and concurrent matches of one bot never contend for a row.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

#: ``Match.series`` of a bot's test matches (``services.bot_test``): pages say "test of <bot>".
TEST_SERIES = "bot_test"


class Bot(models.Model):
    """A developer's HTTP bot. ``secret`` signs every call (shown to the owner only when it is
    created or rotated); a bot can be seated only while ``enabled`` and ``handshake_ok``."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="bots")
    name = models.CharField(max_length=100)
    url = models.CharField(max_length=500, help_text="Base URL; the platform calls GET {url}/ "
                                                     "and POST {url}/start, /move, /end.")
    secret = models.CharField(max_length=100, help_text="whsec_...: signs every call.")
    previous_secret = models.CharField(
        max_length=100, blank=True, default="",
        help_text="The secret before the last rotation: it also signs calls until "
                  "previous_secret_expires_at.")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    enabled = models.BooleanField(default=True)
    public = models.BooleanField(default=True,
                                 help_text="Anyone may seat it; off: only its owner may.")
    games = models.JSONField(default=list, blank=True,
                             help_text="Game ids from the last good handshake.")
    unknown_games = models.JSONField(
        default=list, blank=True,
        help_text="Ids the last good handshake listed that are not games here (ignored).")
    handshake_ok = models.BooleanField(default=False)
    handshake_at = models.DateTimeField(null=True, blank=True)
    handshake_error = models.TextField(blank=True, default="")
    remote_name = models.CharField(max_length=100, blank=True, default="",
                                   help_text="The name the bot gives in its handshake.")
    remote_author = models.CharField(max_length=100, blank=True, default="")
    compact_legal_actions = models.BooleanField(
        default=False, help_text="From the last good handshake: the bot reads legal_description "
                                 "when a long legal_actions list is left out.")
    max_concurrency = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="How many requests the bot takes at once, declared in the handshake (1..256, "
                  "per worker process); None: the platform default BOTS_MAX_CONCURRENCY.")
    declared_version = models.CharField(
        max_length=100, blank=True, default="",
        help_text="The version string (\"version\") the handshake declared when the platform "
                  "took the code at its URL as the bot's: at registration, a move to a new URL, "
                  "a promoted version. Not on routine re-handshakes, so a redeploy declaring "
                  "another is seen as an in-place version.")
    serving_version = models.CharField(
        max_length=100, blank=True, default="",
        help_text="The version string its URL serves now, as far as the platform saw: from "
                  "every handshake that passed (registration, a move, a check, the health "
                  "check, a promotion) and every /start answer that declares one. Another "
                  "non-empty one than declared_version is new code at the same URL: the "
                  "ladder pauses the bot until it is registered as a version or served no "
                  "more.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["owner", "name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"],
                                               name="bot_unique_name_per_owner")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name} ({self.owner_id})"

    @property
    def seatable(self) -> bool:
        return self.enabled and self.handshake_ok


#: Bots whose URL serves, as last seen, a non-empty version other than the one taken as the
#: bot's: new code nobody registered as a version (a ladder pauses such a bot). A bot that
#: declares no version anywhere is never one.
REDEPLOYED = (~models.Q(serving_version="")
              & ~models.Q(serving_version=models.F("declared_version")))


class BotSeat(models.Model):
    """A bot's seat in one match: whether /start and /end were sent (each exactly once, claimed
    with one conditional upsert), and the strikes it earned there by reason."""

    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="bot_seats")
    number = models.PositiveSmallIntegerField()
    bot = models.ForeignKey(Bot, null=True, on_delete=models.SET_NULL, related_name="seats")
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    strikes = models.JSONField(default=dict, blank=True, help_text="Strikes by reason.")
    last_error = models.JSONField(null=True, blank=True)
    new_version = models.CharField(
        max_length=100, blank=True, default="",
        help_text="The version its /start answer declared when it was not the bot's "
                  "declared_version: new code played this seat (a ladder does not rate the "
                  "match). Empty otherwise, so an ordinary match writes nothing here.")

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"],
                                               name="botseat_unique_number")]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.number}: bot {self.bot_id}"


class BotCall(models.Model):
    """One call to a bot: what, how long, and how it failed (if it did)."""

    class Path(models.TextChoices):
        HANDSHAKE = "handshake", "GET /"
        START = "start", "POST /start"
        MOVE = "move", "POST /move"
        END = "end", "POST /end"

    # A row per bot call, written by COPY, so every index and constraint costs on the hottest
    # insert path: the bot's own index is the composite one below (bot first), failures have a
    # partial index of their own, and neither key has a foreign key constraint (a per-row
    # check each; the rows are written only with their match's moves, and the ORM still
    # deletes them with their bot and clears them with their match).
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="calls", db_index=False,
                            db_constraint=False)
    match = models.ForeignKey("games.Match", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+", db_constraint=False)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    path = models.CharField(max_length=16, choices=Path.choices)
    turn = models.PositiveIntegerField(null=True, blank=True)
    elapsed_ms = models.FloatField()
    status = models.PositiveSmallIntegerField(null=True, blank=True, help_text="HTTP status.")
    reason = models.CharField(max_length=32, blank=True, default="",
                              help_text="Empty: success. A strike reason (the bot's fault on "
                                        "/move), or platform_error (ours, never a strike).")
    strike = models.BooleanField(default=False)
    detail = models.TextField(blank=True, default="")
    log = models.CharField(max_length=1000, blank=True, default="",
                           help_text="The bot's own log line from its /move answer.")
    applied = models.BooleanField(
        default=True, help_text="False: the match changed while the bot was asked (a "
                                "resignation, a deadline), so its answer was not used.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["bot", "path", "-id"], name="botcall_bot_path"),
                   models.Index(fields=["bot", "-id"], condition=~models.Q(reason=""),
                                name="botcall_bot_failed")]

    def __str__(self) -> str:
        return f"bot {self.bot_id} {self.path} {self.reason or 'ok'} {self.elapsed_ms:.1f} ms"


class BotVersion(models.Model):
    """A new version of a bot: another URL (and the version string its handshake declared, if
    any), played beside the live bot in a provisional run before it may replace it; or, in
    place, the bot's own URL once its handshake declares a new version (a redeploy). The bot's
    row is untouched until the version is promoted (its URL, or its declared version, becomes
    the bot's), so the bot's matches, rating and history stay one bot's; discarding changes
    nothing. A secret rotation is never a version."""

    class Status(models.TextChoices):
        CANDIDATE = "candidate", "candidate (its provisional run plays, or is to be decided)"
        PROMOTED = "promoted", "promoted (the bot plays at its URL)"
        DISCARDED = "discarded", "discarded"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="2, 3 ... per bot (version 1: as registered).")
    url = models.CharField(max_length=500)
    declared_version = models.CharField(max_length=100, blank=True, default="",
                                        help_text="The version string its handshake said.")
    compact_legal_actions = models.BooleanField(
        default=False, help_text="From its handshake: what its seats are sent, whatever the "
                                 "bot's own handshake says.")
    in_place = models.BooleanField(
        default=False, help_text="A redeploy at the bot's own URL whose handshake declared a new "
                                 "version: the old code no longer answers, so it plays its run "
                                 "alone and is compared with the bot's ladder rating.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE)
    run = models.PositiveBigIntegerField(
        null=True, blank=True,
        help_text="The provisional run: a tournaments.Tournament id (bots never imports "
                  "tournaments, so no foreign key).")
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True,
                                      help_text="When it was promoted or discarded.")

    class Meta:
        ordering = ["bot", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.UniqueConstraint(fields=["bot"], condition=models.Q(status="candidate"),
                                    name="botversion_one_candidate"),
        ]

    def __str__(self) -> str:
        return f"bot {self.bot_id} v{self.number} ({self.status})"
