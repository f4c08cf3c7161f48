"""Tournaments: who takes part, the schedule of matches, and each match's outcome.

A tournament's schedule is made once, when it is created (``tournaments.scheduling``), as one
:class:`TournamentMatch` row per match to play; workers claim those rows with a conditional
UPDATE and play them as ordinary ``games.Match`` rows, so every rule, failure policy, log and
replay of matches applies unchanged. Standings and a tournament's ratings are computed from
the stored outcomes (``tournaments.selectors``); a game's leaderboard across tournaments
(:class:`LeaderboardEntry`) is kept up to date in the very transaction that stores each
outcome, so a crash loses both or neither (``tournaments.scoring.leaderboard`` can rebuild it).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .entrants import validate_entrant_kind


def entrant_kind_field() -> models.CharField:
    """An entrant's ``kind``, of no fixed choices: the seat-kind registry (``games.seats``)
    says which exist (``entrants.entrant_kinds``), checked where entrants are made and by
    ``full_clean``; as long as a games seat's kind."""
    return models.CharField(max_length=32, validators=[validate_entrant_kind], help_text=(
        "An entrant kind of the seat-kind registry (games.seats): player, reference, webhook "
        "or a kind another app registers."))


class Tournament(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "scheduled (waiting for its start time)"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    name = models.CharField(max_length=100)
    game = models.CharField(max_length=32, db_index=True)
    options = models.JSONField(default=dict, blank=True,
                               help_text="The options merged over the game's defaults.")
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="tournaments")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED,
                              db_index=True)
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin (two seats), or rounds of tables (more)"
        SWISS = "swiss", "Swiss: rounds paired by score, each when the last is done"
        CONTINUOUS = "continuous", "continuous: matches kept in flight until ends_at"
        BENCHMARK = "benchmark", ("benchmark: two challengers each play one field on the same "
                                  "deals (a bot version's provisional run)")

    format = models.CharField(max_length=16, choices=Format.choices,
                              default=Format.ROUND_ROBIN, help_text="tournaments.formats.")
    table_size = models.PositiveSmallIntegerField(help_text="Seats per match.")
    meetings = models.PositiveSmallIntegerField(
        default=1, help_text="Two seats: how many times each pair meets (seats swapped). More "
                             "seats: how many rounds of tables.")
    rounds = models.PositiveSmallIntegerField(null=True, blank=True,
                                              help_text="Swiss: how many rounds.")
    in_flight = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Continuous: matches kept going at once.")
    ends_at = models.DateTimeField(null=True, blank=True,
                                   help_text="Continuous: no match starts from then on.")
    match_total = models.PositiveIntegerField(
        default=0, help_text="How many matches its format plays (a Swiss round is planned "
                             "when the one before is done: its rows come then).")
    duplicate = models.BooleanField(
        default=False, help_text="Each table's deal is played once per seat rotation.")
    challengers = models.PositiveSmallIntegerField(
        default=2, help_text="Benchmark: how many challengers (entrants 0, 1) play its field: 2 "
                             "(a version beside the bot), or 1 (an in-place version, whose old "
                             "code no longer answers). Other formats: unused.")
    rated = models.BooleanField(
        default=True, help_text="Its matches move the game's leaderboard (a bot version's "
                                "provisional run does not).")
    strike_limit = models.PositiveSmallIntegerField(help_text="Per match; 0 = never forfeit.")
    move_time_limit = models.PositiveIntegerField(help_text="Seconds per move, per match.")
    seed = models.BigIntegerField(help_text="Seeds the schedule's search (tables of 3 or more) "
                                            "and the standings' bootstrap.")
    deal_secret = models.CharField(
        max_length=64, editable=False,
        help_text="Keys every deal seed (games.engine.rng.deal_seed, 32 bytes in hex); shown "
                  "once the tournament is over, never before.")
    starts_at = models.DateTimeField(null=True, blank=True,
                                     help_text="When it starts by itself (null: at once).")
    balance = models.JSONField(default=dict, blank=True,
                               help_text="The schedule's balance figures.")
    entries_open = models.BooleanField(
        default=False, help_text="Bot owners and people enter (and leave) until it starts; its "
                                 "schedule is made then, for those entered (docs/tournaments.md).")
    entry_cap = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Open for entries: at most this many participants "
                                         "(null: TOURNAMENT_MAX_PARTICIPANTS).")
    reason = models.CharField(max_length=300, blank=True, default="",
                              help_text="Why it was cancelled at its start (too few entries).")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name} ({self.game}, {self.status})"

    @property
    def taking_entries(self) -> bool:
        """Open for entries and not started: someone may enter or leave now."""
        return self.entries_open and self.status == self.Status.SCHEDULED

    @property
    def is_over(self) -> bool:
        """Finished or cancelled: no match of it will be played any more, so its seed and deal
        secret may be shown."""
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


#: The formats an organiser chooses from (a benchmark is a bot version's provisional run only).
ORGANISER_FORMATS = [(value, label) for value, label in Tournament.Format.choices
                     if value != Tournament.Format.BENCHMARK]


class Participant(models.Model):
    """One entrant: a person polling the API or a bot of any seat kind that names one (a
    webhook bot, a reference bot, ...: ``entrants.entrant_kinds``)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="participants")
    index = models.PositiveSmallIntegerField(help_text="0, 1, 2 ... in the order entered.")
    kind = entrant_kind_field()
    bot = models.CharField(max_length=100, blank=True, default="",
                           help_text="The webhook bot's id or the reference bot's name.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=100)
    withdrawn = models.BooleanField(default=False)
    withdrawn_reason = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["tournament", "index"]
        constraints = [models.UniqueConstraint(fields=["tournament", "index"],
                                               name="participant_unique_index")]

    def __str__(self) -> str:
        return f"{self.tournament_id}/{self.index} {self.name}"


class TournamentMatch(models.Model):
    """One scheduled match. ``status`` moves pending -> running -> finished (or cancelled); a
    worker claims a pending row with a conditional UPDATE, so a task run twice plays it once.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveIntegerField(help_text="0, 1, 2 ... in schedule order.")
    round = models.PositiveIntegerField()
    deal = models.PositiveIntegerField(help_text="Matches with one deal share their seed.")
    seed = models.BigIntegerField()
    seats = models.JSONField(help_text="Participant indices in seat order.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING,
                              db_index=True)
    match = models.OneToOneField("games.Match", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="tournament_match")
    lease_until = models.DateTimeField(
        null=True, blank=True, help_text="A running row whose lease expired is claimed again.")
    attempts = models.PositiveSmallIntegerField(default=0)
    ranks = models.JSONField(null=True, blank=True, help_text="By seat, 1 = best.")
    scores = models.JSONField(null=True, blank=True, help_text="By seat; null for a forfeit.")
    forfeited = models.JSONField(
        default=list, blank=True, help_text="Participants scored as forfeits (withdrawn).")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"],
                                               name="tournamentmatch_unique_number")]
        indexes = [models.Index(fields=["status", "lease_until"], name="tmatch_status_lease")]

    def __str__(self) -> str:
        return f"{self.tournament_id}#{self.number} {self.status}"


# --------------------------------------------------------------------------------------------
# Leagues (docs/leagues.md)
# --------------------------------------------------------------------------------------------


class League(models.Model):
    """A standing group of members that meets on league nights; each night plays
    ``hands_per_night`` hands at tables cut from the league's social order, and the season
    table adds the hands up. The order and the points are carried by the league
    (``tournaments.leagues.rules``); the engine plays one hand per match."""

    name = models.CharField(max_length=100)
    game = models.CharField(max_length=32, db_index=True)
    options = models.JSONField(default=dict, blank=True,
                               help_text="Engine options of every hand's match.")
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="leagues")
    table_size = models.PositiveSmallIntegerField(help_text="Most seats at one table.")
    hands_per_night = models.PositiveSmallIntegerField(default=20)
    moves_between_tables = models.PositiveSmallIntegerField(
        default=1, help_text="How many move up and down between adjacent tables after a night.")
    strike_limit = models.PositiveSmallIntegerField(help_text="Per hand; 0 = never forfeit.")
    move_time_limit = models.PositiveIntegerField(help_text="Seconds per move.")
    season_start = models.DateTimeField()
    season_end = models.DateTimeField()
    weekday = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Recurring nights: 0 = Monday ... 6 = Sunday (null: "
                                         "only nights scheduled one by one).")
    night_time = models.TimeField(null=True, blank=True,
                                  help_text="Recurring nights: local start time.")
    timezone = models.CharField(max_length=64, default="UTC",
                                help_text="IANA zone of the recurring time, e.g. Europe/Paris.")
    order = models.JSONField(default=list, blank=True,
                             help_text="The social order (member indexes, best first) after "
                                       "the last finished night.")
    ordered = models.BooleanField(
        default=False, help_text="False until a first hand has set the order (GD-2 draw).")
    seed = models.BigIntegerField(help_text="The seed it was created with.")
    deal_secret = models.CharField(
        max_length=64, editable=False,
        help_text="Keys each night's deal secret (games.engine.rng.derived_secret), which is "
                  "shown once that night is over; this one never is.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name} ({self.game})"


class Member(models.Model):
    """One member of a league: a person polling the API or a bot of any seat kind that names
    one, as a tournament's :class:`Participant`."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="members")
    index = models.PositiveSmallIntegerField(help_text="0, 1, 2 ... in the order they joined.")
    kind = entrant_kind_field()
    bot = models.CharField(max_length=100, blank=True, default="")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=100)
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True,
                                   help_text="Left the league: removed before the next night.")

    class Meta:
        ordering = ["league", "index"]
        constraints = [models.UniqueConstraint(fields=["league", "index"],
                                               name="member_unique_index")]

    def __str__(self) -> str:
        return f"{self.league_id}/{self.index} {self.name}"


class Night(models.Model):
    """One league night. ``status`` moves scheduled -> running -> finished (or failed, with
    the reason, or cancelled); it is claimed with a conditional UPDATE when due, so two
    dispatchers start it once. ``tables``: the members at each table when it started (best
    first); each table then goes on hand by hand (:class:`Hand`)."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "scheduled"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        FAILED = "failed", "could not start"
        CANCELLED = "cancelled", "cancelled"

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="nights")
    number = models.PositiveIntegerField(
        help_text="1, 2, 3 ... in the order nights were scheduled.")
    starts_at = models.DateTimeField(db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED,
                              db_index=True)
    reason = models.CharField(max_length=300, blank=True, default="",
                              help_text="Why it could not start.")
    tables = models.JSONField(default=list, blank=True,
                              help_text="Member indexes per table when it started, best first.")
    order_before = models.JSONField(default=list, blank=True,
                                    help_text="The league's order when the night started.")
    withdrawn = models.JSONField(
        default=dict, blank=True, help_text="Members whose bot could not be seated this night "
                                            "(member index -> why): seated forfeited.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["league", "number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="night_unique_number"),
            models.UniqueConstraint(fields=["league", "starts_at"], name="night_unique_start"),
            # A league plays one night at a time: two dispatchers claiming two due nights of
            # one league at once cannot both win (the second claim's UPDATE fails).
            models.UniqueConstraint(fields=["league"], condition=models.Q(status="running"),
                                    name="night_one_running_per_league"),
        ]

    def __str__(self) -> str:
        return f"{self.league_id} night {self.number} {self.status}"

    @property
    def is_over(self) -> bool:
        """No hand of it will be played any more, so its deal secret may be shown."""
        return self.status in (self.Status.FINISHED, self.Status.FAILED, self.Status.CANCELLED)


class Hand(models.Model):
    """One hand at one table of a night: one games match. Planned pending (its seats, seed and
    options from the hand before), claimed and played by the series runner like a
    tournament's match, done once its result is recorded (never replayed: a resumed night
    goes on from the next hand)."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled (its night was)"

    night = models.ForeignKey(Night, on_delete=models.CASCADE, related_name="hands")
    table = models.PositiveSmallIntegerField(help_text="0 = top table.")
    number = models.PositiveSmallIntegerField(help_text="1, 2, 3 ... within the night.")
    seats = models.JSONField(help_text="Member indexes by match seat.")
    seed = models.BigIntegerField(default=0, help_text="Its deal's seed (secret until the "
                                                       "night is over).")
    options = models.JSONField(default=dict, blank=True,
                               help_text="Engine options of this hand over the league's.")
    match = models.OneToOneField("games.Match", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="league_hand")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING,
                              db_index=True)
    lease_until = models.DateTimeField(
        null=True, blank=True, help_text="A pending hand whose lease ran out is queued again.")
    attempts = models.PositiveSmallIntegerField(default=0)
    points = models.JSONField(null=True, blank=True, help_text="League points by seat.")
    finish = models.JSONField(null=True, blank=True, help_text="Places by seat, 1 = best.")
    order_after = models.JSONField(null=True, blank=True,
                                   help_text="The table's social order for its next hand.")
    forfeited = models.JSONField(default=list, blank=True,
                                 help_text="Members scored as forfeits in it.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["night", "number", "table"]
        constraints = [models.UniqueConstraint(fields=["night", "table", "number"],
                                               name="hand_unique_number")]
        indexes = [models.Index(fields=["status", "lease_until"], name="hand_status_lease")]

    def __str__(self) -> str:
        return f"night {self.night_id} table {self.table} hand {self.number}"


class LeaderboardEntry(models.Model):
    """One entrant's rating on its game's leaderboard over every tournament: updated in the
    transaction that records each of its results (``tournaments.scoring.leaderboard``), so a page or
    the API reads it instead of replaying every match. An entrant is a webhook bot, a person
    or one reference bot (or a bot of any kind another app registers), however often entered
    and under whatever label."""

    game = models.CharField(max_length=32)
    kind = entrant_kind_field()
    ref = models.CharField(max_length=100, help_text="The webhook bot's id, the person's user "
                                                     "id or the reference bot's name.")
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(help_text="mu - 3 sigma: the board is sorted by it.")
    matches = models.PositiveIntegerField(default=0, help_text="Rated matches.")
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "kind", "ref"],
                                               name="leaderboard_unique_entrant")]
        indexes = [models.Index(fields=["game", "-ordinal"], name="leaderboard_by_ordinal")]

    def __str__(self) -> str:
        return f"{self.game} {self.kind} {self.ref}: {self.ordinal:.2f}"


class RatingPoint(models.Model):
    """An entrant's rating just after one of its rated matches: its rating over time."""

    entry = models.ForeignKey(LeaderboardEntry, on_delete=models.CASCADE,
                              related_name="points")
    played_at = models.DateTimeField()
    ordinal = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["entry", "played_at"], name="rating_point_by_time")]


# The ladder's models (docs/ladder.md) live beside its code; imported here, they are this app's.
from .ladders.models import Ladder, LadderEntry, LadderMatch  # noqa: F401
