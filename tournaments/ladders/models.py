"""The ladder's rows (docs/ladder.md): one :class:`Ladder` per game and table size, the bots on
it (:class:`LadderEntry`) and its matches (:class:`LadderMatch`, the series runner's rows).
Imported by ``tournaments.models``, so they are models of the tournaments app.

A ladder keeps no rating of its own: an entry points at its game's leaderboard row
(``LeaderboardEntry``), which every rated match of the game moves, whatever series it is of.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Ladder(models.Model):
    """A game's ladder at one table size: always running (the runner plays a series whose
    status is running), never finished; its format never says it is over."""

    class Status(models.TextChoices):
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    game = models.CharField(max_length=32)
    seats = models.PositiveSmallIntegerField(help_text="Seats per match: the game's 2-seat "
                                                       "table, or its smallest.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    options = models.JSONField(default=dict, blank=True,
                               help_text="The game's default options, merged when it was made.")
    strike_limit = models.PositiveSmallIntegerField(help_text="Per match; 0 = never forfeit.")
    move_time_limit = models.PositiveIntegerField(help_text="Seconds per move, per match.")
    max_in_flight = models.PositiveSmallIntegerField(
        help_text="Matches in play at once on the whole ladder (LADDER_MAX_IN_FLIGHT).")
    in_flight_per_entrant = models.PositiveSmallIntegerField(
        help_text="Matches in play at once per bot (LADDER_IN_FLIGHT_PER_BOT).")
    pair_cap_per_day = models.PositiveSmallIntegerField(
        help_text="Matches a pair starts in 24 hours at most (LADDER_PAIR_CAP_PER_DAY).")
    starve_after_seconds = models.PositiveIntegerField(
        help_text="A bot without a match for this long goes first (LADDER_STARVE_SECONDS).")
    burst = models.PositiveSmallIntegerField(
        help_text="Matches a newly joined bot plays first (LADDER_BURST).")
    deal_secret = models.CharField(
        max_length=64, editable=False,
        help_text="Keys every deal seed (games.engine.rng.deal_seed). A ladder never ends, so "
                  "it is never shown.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seats"]
        constraints = [models.UniqueConstraint(fields=["game", "seats"],
                                               name="ladder_unique_game_seats")]

    def __str__(self) -> str:
        return f"{self.game} ladder ({self.seats} seats)"


class LadderEntry(models.Model):
    """A bot on a ladder: a webhook bot its owner opted in, or a reference bot staff entered.
    Its id is its entrant id in the ladder's matches (``LadderMatch.seats``). Leaving keeps
    the row (its matches name it); joining again takes it back."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entries")
    kind = models.CharField(max_length=32, help_text="A seat kind that names a bot: webhook "
                                                     "or reference.")
    bot = models.CharField(max_length=100, help_text="The webhook bot's id or the reference "
                                                     "bot's name.")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+",
                              help_text="The bot's owner (two of one owner never meet).")
    rating = models.ForeignKey("tournaments.LeaderboardEntry", on_delete=models.PROTECT,
                               related_name="+", help_text="Its game's leaderboard row: the "
                                                           "one rating.")
    joined_at = models.DateTimeField()
    left_at = models.DateTimeField(null=True, blank=True, help_text="Opted out: no new match.")
    paused = models.BooleanField(default=False)
    paused_reason = models.CharField(max_length=500, blank=True, default="",
                                     help_text="What its owner reads (a redeploy's names the "
                                               "URL and what to do).")
    paused_at = models.DateTimeField(null=True, blank=True)
    burst_left = models.PositiveSmallIntegerField(
        default=0, help_text="Matches left of the burst a newly joined bot plays first.")
    last_match_at = models.DateTimeField(null=True, blank=True,
                                         help_text="When its latest ladder match ended.")

    class Meta:
        ordering = ["ladder", "id"]
        constraints = [models.UniqueConstraint(fields=["ladder", "kind", "bot"],
                                               name="ladder_entry_unique_bot")]

    def __str__(self) -> str:
        return f"{self.ladder} {self.kind} {self.bot}"

    @property
    def user(self) -> None:
        """An entry is a bot, never a person (what the runner's seat specs ask)."""
        return None


class LadderMatch(models.Model):
    """One ladder match: the runner's row, planned pending, claimed, played as a games match
    and closed with its outcome, as a tournament's ``TournamentMatch``."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveIntegerField(help_text="0, 1, 2 ... in the order planned.")
    deal = models.PositiveIntegerField(help_text="Matches of one duplicate table share it.")
    seed = models.BigIntegerField()
    seats = models.JSONField(help_text="Ladder entry ids in seat order.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING,
                              db_index=True)
    match = models.OneToOneField("games.Match", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="ladder_match")
    lease_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    ranks = models.JSONField(null=True, blank=True, help_text="By seat, 1 = best.")
    scores = models.JSONField(null=True, blank=True, help_text="By seat; null for a forfeit.")
    forfeited = models.JSONField(default=list, blank=True,
                                 help_text="Entries scored as forfeits in it.")
    new_code = models.JSONField(
        default=list, blank=True,
        help_text="Entries whose bot played code other than its own in it (its /start answer "
                  "declared another version than the bot's): recorded, never rated.")
    rating_changes = models.JSONField(
        null=True, blank=True,
        help_text="By seat, how far this match moved each bot's rating (mu - 3 sigma on the "
                  "game's leaderboard); null while unrated (not finished, a forfeit, new code).")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["ladder", "number"]
        constraints = [models.UniqueConstraint(fields=["ladder", "number"],
                                               name="laddermatch_unique_number")]
        indexes = [models.Index(fields=["status", "lease_until"], name="lmatch_status_lease")]

    def __str__(self) -> str:
        return f"{self.ladder_id}#{self.number} {self.status}"
