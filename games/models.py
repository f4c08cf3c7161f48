"""Matches, their seats, the event log and the record of applied actions.

The engine state lives in ``Match.state`` as the engine's own JSON (``State.to_json``); every
rule stays in ``games/engine``. ``Match.version`` grows by one with every change a client could
see (an applied action, a default action at a deadline, a resignation), so a client that posts
an action with the version it saw can be told, cheaply and exactly, that it is stale.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


def default_move_time_limit() -> int:
    return settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT


def default_strike_limit() -> int:
    return settings.BLUFF_MAX_STRIKES


class Match(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "open (waiting for players)"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"

    game = models.CharField(max_length=32, help_text="Engine game id, e.g. dtc.")
    options = models.JSONField(default=dict, blank=True,
                               help_text="The options merged over the game's defaults.")
    seed = models.BigIntegerField(help_text="Seeds every shuffle, deal and roll; secret until "
                                            "the match is over.")
    players = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    state = models.JSONField(help_text="The engine's State.to_json(events=False) once the match "
                                       "runs: the event log lives in MatchLogPage rows.")
    version = models.PositiveIntegerField(default=0)
    step_version = models.PositiveIntegerField(
        default=0, help_text="The version at which the current set of seats to act began: an "
                             "answer posted for any version from here on is not stale (the "
                             "seats of a simultaneous step answer in any order).")
    move_time_limit = models.PositiveIntegerField(
        default=default_move_time_limit, help_text="Seconds a seat has to act before it gets the "
                                                   "game's default action and a strike.")
    strike_limit = models.PositiveSmallIntegerField(
        default=default_strike_limit, help_text="Strikes (missed deadlines, failed webhook "
                                                "calls) that forfeit a seat; 0 = never.")
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="When the polling seats to act get the default action and "
                                         "a strike; null while only automatic seats (bots, "
                                         "judged on their own calls) are to act.")
    lease_until = models.DateTimeField(
        null=True, blank=True, help_text="Until when one worker's task that asks the match's "
                                         "out-of-process seats (webhook bots) holds the match: "
                                         "renewed with each stored batch, so one task at a time "
                                         "asks them (games.services.automatic).")
    resumed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the stalled-match sweep last queued the match "
                                         "again: at most once per BLUFF_STALLED_SECONDS.")
    result = models.JSONField(null=True, blank=True)
    series = models.CharField(
        max_length=32, blank=True, default="",
        help_text="What the match is part of, '' for a match on its own: set by the app that "
                  "created it ('tournament', 'league'), so that the receivers of "
                  "match_finished pick their own matches without a query.")
    sealed = models.BooleanField(
        default=False, help_text="Even once over, its seed, actions and hidden details stay out "
                                 "of sight until it is unsealed (a duplicate tournament's deal "
                                 "whose other rotations are still to be played).")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="created_matches")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"
        # A batch of moves that sets a new deadline makes PostgreSQL write an entry in each
        # index (no HOT update): only the indexes look-ups use. (status,
        # deadline) serves status alone and the deadline sweep; a CharField's db_index would
        # also add a LIKE index nobody uses.
        indexes = [models.Index(fields=["status", "deadline"], name="match_status_deadline"),
                   models.Index(fields=["game"], name="match_game"),
                   # The stalled-match sweep's look for leases that ran out (finished
                   # matches too): only matches a task holds are in it.
                   models.Index(fields=["lease_until"], condition=models.Q(
                       lease_until__isnull=False), name="match_leased")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.game} ({self.status}, v{self.version})"

    @property
    def disclosed(self) -> bool:
        """Over and not sealed: everything may be shown (seed, actions, private details)."""
        return self.status == self.Status.FINISHED and not self.sealed


class Seat(models.Model):
    """Who sits at seat ``number``: a polling player, a reference bot, or a registered kind."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    # Not a choices field: other apps register kinds (games.seats.register_seat_kind).
    kind = models.CharField(max_length=32, default="player")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="seats")
    bot_name = models.CharField(max_length=100, blank=True, default="")
    strikes = models.PositiveSmallIntegerField(default=0)
    forfeited = models.BooleanField(default=False)
    joined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="seat_unique_number")]

    def __str__(self) -> str:
        who = self.user.get_username() if self.user_id else (self.bot_name or "open")
        return f"match {self.match_id} seat {self.number}: {self.kind} {who}"

    @property
    def is_open(self) -> bool:
        return self.kind == "player" and self.user_id is None


class MatchLogPage(models.Model):
    """The log entries one save of a match wrote (an action and the engine events it produced,
    public and private, or the start, a timeout, a resignation), so any match can be replayed.
    Written and read only through ``games.log``, which says what an entry holds."""

    # No index of its own (the unique (match, first) serves every look-up by match) and no
    # foreign key constraint: its per-row check was a quarter of the database's time for log
    # rows (bench/tournament.py). A page is written only in the transaction that stores its
    # match, and the ORM still deletes it with it.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="log_pages",
                              db_index=False, db_constraint=False)
    first = models.PositiveIntegerField(help_text="n of the page's first entry.")
    last = models.PositiveIntegerField(help_text="n of the page's last entry.")
    event_count = models.PositiveIntegerField(
        help_text="Engine events of the match up to and including the page's last entry.")
    entries = models.TextField(help_text="The entries, a JSON array (games.log).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "first"]
        constraints = [models.UniqueConstraint(fields=["match", "first"],
                                               name="matchlogpage_unique_first")]

    def __str__(self) -> str:
        return f"match {self.match_id} log {self.first}..{self.last}"


class AppliedAction(models.Model):
    """The answer given to an action posted for (match, version, seat), so a retry gets it again."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="applied_actions")
    version = models.PositiveIntegerField(help_text="The version the action was posted for.")
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "version"]
        # Several seats of one simultaneous step may each answer for the same version.
        constraints = [models.UniqueConstraint(fields=["match", "version", "seat"],
                                               name="appliedaction_unique_version_seat")]

    def __str__(self) -> str:
        return f"match {self.match_id} v{self.version} seat {self.seat}"
