"""The tournaments API: create, list, inspect, standings, matches, cancel.

A tournament's deal secret keys every match's seed, so it stays hidden until the tournament is
over (finished or cancelled); a match's own seed is shown once that match is over (it tells
nothing of the others': docs/tournaments.md, "What is public when").
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import fields, schema
from games.converters import ID_SCHEMA
from games.seats import bot_reference
from lib import dates
from lib.api import (
    E400,
    E401,
    E429,
    Pagination,
    error_response,
    name_nested_serializers,
    page_response,
    valid_query,
)

from .. import selectors, services
from ..models import ORGANISER_FORMATS, Tournament, TournamentMatch
from .common import (
    MAX_MOVE_TIME_LIMIT,
    MAX_SEED,
    EntrantKindField,
    TournamentParticipantSpecSerializer,
    TournamentRatingSerializer,
    entrant_label_field,
    entrant_name_field,
)

E404 = error_response("No such tournament.", ("tournament_not_found", "No such tournament.", None))


TOURNAMENT_ID = OpenApiParameter("tournament_id", ID_SCHEMA, OpenApiParameter.PATH,
                                 description="The tournament id.")


class TournamentBalanceSerializer(serializers.Serializer):
    """How even the schedule is (docs/tournaments.md, ``balance_figures``)."""

    pair_meetings_min = serializers.IntegerField(
        help_text="Fewest times any two participants share a table.")
    pair_meetings_max = serializers.IntegerField(
        help_text="Most times any two participants share a table.")
    seat_spread = serializers.IntegerField(
        help_text="Over participants: most minus fewest times one took a seat position.")
    matches_min = serializers.IntegerField(
        help_text="Fewest tables any participant sits at: its matches, or with duplicate, "
                  "its deals (each played table_size times).")
    matches_max = serializers.IntegerField(help_text="Most tables any participant sits at.")


class TournamentProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    finished = serializers.IntegerField(help_text="Recorded, forfeits included.")
    running = serializers.IntegerField()
    pending = serializers.IntegerField()
    cancelled = serializers.IntegerField()
    forfeits = serializers.IntegerField(
        help_text="Recorded without being played: a withdrawn participant sat at the table.")
    retried = serializers.IntegerField(help_text="Matches a worker had to take up again.")


class TournamentParticipantSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="0, 1, 2 ... in the order entered; standings "
                                               "and match seats refer to it.")
    name = entrant_name_field()
    label = entrant_label_field()
    kind = EntrantKindField()
    bot = fields.BotReferenceField(allow_null=True, help_text="The webhook bot's id (a "
                                                              "number) or the reference bot's "
                                                              "name.")
    user = serializers.CharField(allow_null=True, help_text="A player's username.")
    withdrawn = serializers.BooleanField(help_text="Its remaining matches are forfeits.")
    withdrawn_reason = serializers.CharField(allow_null=True)


class TournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = schema.GameIdField()
    options = serializers.DictField(help_text="The options, merged over the game's defaults.")
    organiser = serializers.CharField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    table_size = serializers.IntegerField(help_text="Seats per match.")
    meetings = serializers.IntegerField(
        help_text="Two seats: times each pair meets; more seats: rounds of tables.")
    rounds = serializers.IntegerField(allow_null=True, help_text="Swiss: how many rounds.")
    in_flight = serializers.IntegerField(
        allow_null=True, help_text="Continuous: matches kept going at once.")
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="Continuous: no match starts from then on.")
    duplicate = serializers.BooleanField(
        help_text="Each table's deal is played once per seat rotation.")
    strike_limit = serializers.IntegerField(help_text="Per match; 0 = never forfeit.")
    move_time_limit = serializers.IntegerField(help_text="Seconds per move, per match.")
    seed = fields.SeedField(allow_null=True, help_text="Revealed once the tournament is over.")
    deal_secret = serializers.CharField(
        allow_null=True, help_text="Revealed once the tournament is over (null before): the "
        "secret that keyed every deal, 64 hex digits. A match's seed is "
        "games.engine.rng.deal_seed(deal_secret, \"deal\", deal), or (Swiss) "
        "deal_seed(deal_secret, \"swiss\", number); `manage.py deals tournament ID` checks "
        "them all (docs/tournaments.md, \"What is public when\").")
    participant_count = serializers.IntegerField()
    entries_open = serializers.BooleanField(
        help_text="Bot owners and people enter it themselves (POST .../entries/) until it "
                  "starts; its schedule (and balance) is made then.")
    entry_cap = serializers.IntegerField(
        allow_null=True, help_text="Open for entries: at most this many participants (null: "
                                   "TOURNAMENT_MAX_PARTICIPANTS).")
    reason = serializers.CharField(
        allow_null=True, help_text="Why it was cancelled at its start (too few entries).")
    balance = TournamentBalanceSerializer(
        allow_null=True, help_text="Null while it is open for entries: no schedule yet.")
    starts_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class TournamentDetailSerializer(TournamentSerializer):
    participants = TournamentParticipantSerializer(many=True)
    progress = TournamentProgressSerializer()


def _tournament_data(tournament: Tournament, participant_count: int) -> dict[str, Any]:
    return {
        "id": tournament.pk, "name": tournament.name, "game": tournament.game,
        "options": tournament.options, "organiser": tournament.organiser.get_username(),
        "status": tournament.status, "format": tournament.format,
        "table_size": tournament.table_size, "meetings": tournament.meetings,
        "rounds": tournament.rounds,
        "in_flight": tournament.in_flight, "ends_at": tournament.ends_at,
        "duplicate": tournament.duplicate,
        "strike_limit": tournament.strike_limit,
        "move_time_limit": tournament.move_time_limit,
        "seed": tournament.seed if tournament.is_over else None,
        "deal_secret": tournament.deal_secret if tournament.is_over else None,
        "participant_count": participant_count, "entries_open": tournament.entries_open,
        "entry_cap": tournament.entry_cap, "reason": tournament.reason or None,
        "balance": tournament.balance or None,
        "starts_at": tournament.starts_at, "created_at": tournament.created_at,
        "started_at": tournament.started_at, "finished_at": tournament.finished_at,
    }


def _detail(tournament_id: int) -> dict[str, Any]:
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    entered = list(selectors.tournament_participants(tournament=tournament))
    names = selectors.entrant_labels(entered)
    people = [{"index": p.index, "name": names[p.index], "label": p.name, "kind": p.kind,
               "bot": bot_reference(p.kind, p.bot),
               "user": p.user.get_username() if p.user_id else None,
               "withdrawn": p.withdrawn, "withdrawn_reason": p.withdrawn_reason or None}
              for p in entered]
    data = {**_tournament_data(tournament, len(people)), "participants": people,
            "progress": selectors.tournament_progress(tournament=tournament)}
    return TournamentDetailSerializer(data).data


class TournamentListCreateApi(APIView):
    #: Read by drf-spectacular, so the schema shows the paginated envelope the GET returns.
    pagination_class = Pagination

    class FilterSerializer(serializers.Serializer):
        game = schema.GameIdField(required=False, max_length=32, registered=True)
        status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)
        organiser = serializers.CharField(required=False, max_length=150,
                                          help_text="The organiser's username.")
        taking_entries = serializers.BooleanField(
            required=False, allow_null=True,  # absent: None (DRF reads it as False else)
            help_text="true: only those open for entries and not started (POST "
                      ".../entries/ to enter); false: only the others.")

    class InputSerializer(fields.StrictSerializer):
        name = serializers.CharField(max_length=100)
        game = schema.GameIdField(max_length=32, help_text="Engine game id.")
        format = serializers.ChoiceField(
            choices=ORGANISER_FORMATS, required=False,
            default=Tournament.Format.ROUND_ROBIN,
            help_text="round_robin: the whole schedule now (two seats: every pair meets "
                      "`meetings` times; more: `meetings` rounds of balanced tables). swiss: "
                      "two seats, `rounds` rounds, each paired by score when the one before is "
                      "done. continuous: two seats, `in_flight` matches kept going (a new one "
                      "as one ends, least-met pairs first) until `ends_at` (docs/series.md).")
        rounds = serializers.IntegerField(
            required=False, min_value=1, max_value=settings.TOURNAMENT_MAX_PARTICIPANTS,
            help_text="Swiss only: how many rounds (default ceil(log2 participants); at most "
                      "participants - 1, or participants if odd).")
        in_flight = serializers.IntegerField(
            required=False, min_value=1, max_value=settings.TOURNAMENT_MAX_PARTICIPANTS // 2,
            help_text="Continuous only: matches kept going at once (default: participants "
                      "// 2, everyone busy; at most that).")
        ends_at = dates.DateTimeField(
            required=False, help_text="Continuous only (and required there): no match starts "
                                      "from then on; the tournament is over once the last in "
                                      "flight ends. " + dates.BOUNDS_HELP)
        participants = TournamentParticipantSpecSerializer(
            many=True, max_length=1000, required=False, default=list,
            help_text="In entry order (default none: a tournament open for entries may start "
                      "empty). How many a tournament takes (at least 2 and the table "
                      "size, at most TOURNAMENT_MAX_PARTICIPANTS) is checked with the rest "
                      "(bad_tournament). A reference bot may be entered many times; a webhook "
                      "bot or a person once.")
        options = serializers.DictField(required=False,
                                        help_text="Game options; see GET /api/games/.")
        table_size = serializers.IntegerField(required=False, min_value=2, max_value=8,
                                              help_text="Seats per match; default: the game's "
                                                        "default players, or its fewest with "
                                                        "fewer participants than that.")
        meetings = serializers.IntegerField(
            required=False, default=1, min_value=1, max_value=settings.TOURNAMENT_MAX_MEETINGS,
            help_text="Two seats: times each pair meets (seats swapped); more seats: rounds "
                      "of tables.")
        duplicate = serializers.BooleanField(
            required=False, default=False,
            help_text="Play each table's deal once per seat rotation (the luck of the deal "
                      "cancels).")
        strike_limit = serializers.IntegerField(
            required=False, min_value=0, max_value=100,
            help_text="Per match; 0 = never forfeit. Default: the server's BLUFF_MAX_STRIKES.")
        move_time_limit = serializers.IntegerField(
            required=False, min_value=1, max_value=MAX_MOVE_TIME_LIMIT,
            help_text="Seconds per move. Default: BLUFF_DEFAULT_MOVE_TIME_LIMIT.")
        starts_at = dates.DateTimeField(
            required=False, help_text="ISO 8601 (without an offset: UTC); default (or past): "
                                      "now; at most SERIES_MAX_SCHEDULE_AHEAD_DAYS ahead. "
                                      + dates.BOUNDS_HELP)
        seed = fields.SeedField(required=False, min_value=0, max_value=MAX_SEED,
                                help_text="Makes its deals reproducible: the deal secret is "
                                          "then games.engine.rng.secret_from_seed(seed), known "
                                          "to whoever knows the seed. Default: random seed and "
                                          "secret, revealed once it is over.")
        open_entries = serializers.BooleanField(
            required=False, default=False,
            help_text="Open for entries until starts_at (then required, in the future): bot "
                      "owners enter their bots and people themselves (POST "
                      "/api/tournaments/{id}/entries/), and may leave before the start. "
                      "`participants` are then your own entries (any number up to the cap, "
                      "none too); the schedule is made at the start for those entered, and a "
                      "tournament with too few is cancelled then, its reason kept. Unless "
                      "given, table_size is the game's smallest.")
        entry_cap = serializers.IntegerField(
            required=False, min_value=2, max_value=settings.TOURNAMENT_MAX_PARTICIPANTS,
            help_text="With open_entries: at most this many participants (default "
                      "TOURNAMENT_MAX_PARTICIPANTS).")

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_list",
        summary="List and filter tournaments", parameters=[FilterSerializer],
        responses={200: TournamentSerializer(many=True), 400: E400, 429: E429},
    )
    def get(self, request: Request) -> Response:
        found = selectors.tournament_list(**valid_query(self.FilterSerializer, request))
        return page_response(self, request, found, lambda page: TournamentSerializer(
            [_tournament_data(t, t.participant_count) for t in page], many=True).data)

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_create",
        summary="Create a tournament (it starts at once, or at starts_at)",
        description="The schedule is made now; its balance figures are in the answer. Matches "
                    "are then played by the workers. At most TOURNAMENT_MAX_ACTIVE scheduled "
                    "or running tournaments and TOURNAMENT_MAX_QUEUED_MATCHES matches still to "
                    "play per organiser (staff are exempt).",
        request=InputSerializer,
        responses={
            201: TournamentDetailSerializer, 401: E401,
            400: error_response("Bad request, or it cannot be a tournament.",
                        ("bad_tournament", "dice_cup is played by 2 to 6 players, not 8", None),
                        ("bad_tournament", ("starts_at is more than 365 days ahead "
                                            "(SERIES_MAX_SCHEDULE_AHEAD_DAYS)"), None),
                        ("bad_tournament", ("participant 1: no reference bot 'smart' for dot "
                                            "(have: random, heuristic)"), None),
                        ("invalid", ("meetings: Ensure this value is greater than or equal to "
                                     "1."), None)),
            429: error_response("Too many tournaments or queued matches, or too many requests.",
                        ("tournament_limit", ("you already have 3 scheduled or running "
                                              "tournaments (at most 3)"), None),
                        ("throttled", "Request was throttled.", None)),
        },
        examples=[OpenApiExample(
            "reference bots, a webhook bot and a person", request_only=True,
            value={"name": "Friday cup", "game": "dice_cup", "table_size": 2, "meetings": 2,
                   "participants": [{"kind": "reference", "bot": "heuristic"},
                                    {"kind": "reference", "bot": "random"},
                                    {"kind": "webhook", "bot": 7},
                                    {"kind": "player", "user": "alice"}]}),
            OpenApiExample(
                "a Swiss tournament of 8 in 3 rounds", request_only=True,
                value={"name": "Swiss night", "game": "dot", "format": "swiss", "rounds": 3,
                       "participants": [{"kind": "reference", "bot": "heuristic"}] * 8})],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create(organiser=request.user, **data.validated_data)
        return Response(_detail(tournament.pk), status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_detail",
        summary="One tournament: participants, balance figures and progress",
        parameters=[TOURNAMENT_ID],
        responses={200: TournamentDetailSerializer, 404: E404, 429: E429},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(_detail(tournament_id))


class TournamentStandingsApi(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        place = serializers.IntegerField()
        participant = serializers.IntegerField(help_text="The participant's index.")
        name = entrant_name_field()
        label = entrant_label_field()
        kind = EntrantKindField()
        bot = fields.BotReferenceField(allow_null=True)
        user = serializers.CharField(allow_null=True)
        matches = serializers.IntegerField(help_text="Recorded, forfeits included.")
        points = serializers.FloatField(
            allow_null=True, help_text="Mean points a match, 0..1 (first 1, last 0); null "
                                       "before it has played.")
        score = serializers.FloatField(allow_null=True,
                                       help_text="Mean engine score over matches played.")
        head_to_head = serializers.IntegerField(
            help_text="Among those tied on points and score (Swiss: on total, Buchholz Cut-1 "
                      "and Buchholz, FIDE's direct encounter): won minus lost against them.")
        total = serializers.FloatField(
            allow_null=True, help_text="Swiss only (else null): match points in all, a bye "
                                       "counting as a win; the standings' first key.")
        buchholz_cut1 = serializers.FloatField(
            allow_null=True, help_text="Swiss only: Buchholz less the lowest opponent's total; "
                                       "the first tie-break.")
        buchholz = serializers.FloatField(
            allow_null=True, help_text="Swiss only: the sum of the opponents' totals (a bye: "
                                       "an opponent with 0); the second tie-break.")
        firsts = serializers.IntegerField(help_text="Matches ranked first in, ties included.")
        forfeits = serializers.IntegerField()
        withdrawn = serializers.BooleanField()
        withdrawn_reason = serializers.CharField(allow_null=True)
        interval = serializers.ListField(
            child=serializers.FloatField(), allow_null=True, min_length=2, max_length=2,
            help_text="95% bootstrap interval [low, high] of points; null without matches.")
        ahead_of_next = serializers.FloatField(
            allow_null=True, help_text="Probability this row is really ahead of the next one; "
                                       "null for the last row.")
        rating = TournamentRatingSerializer(
            help_text="The entrant's rating on the game's leaderboard now (every series' "
                      "rated matches, this one's included): one number per entrant per game.")

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_standings",
        summary="The standings, with how sure each place is",
        description="Computed from the recorded matches in schedule order (docs/tournaments.md: "
                    "points, tie-breaks, forfeits, bootstrap intervals, ratings), so the same "
                    "results always give the same table.",
        parameters=[TOURNAMENT_ID],
        responses={200: OutputSerializer(many=True), 404: E404, 429: E429},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.tournament_get(tournament_id=tournament_id)
        rows = selectors.tournament_standings(tournament=tournament)
        return Response(self.OutputSerializer(rows, many=True).data)


class TournamentMatchesApi(APIView):
    permission_classes = [AllowAny]
    pagination_class = Pagination

    class FilterSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=TournamentMatch.Status.choices, required=False)
        round = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1)

    class OutputSerializer(serializers.Serializer):
        number = serializers.IntegerField(help_text="0, 1, 2 ... in schedule order.")
        round = serializers.IntegerField()
        deal = serializers.IntegerField(help_text="Matches of one deal share their seed.")
        seed = fields.SeedField(allow_null=True, help_text="Revealed once the tournament is over.")
        seats = serializers.ListField(child=serializers.IntegerField(),
                                      help_text="Participant indices in seat order.")
        status = serializers.ChoiceField(choices=TournamentMatch.Status.choices)
        ranks = serializers.ListField(child=serializers.IntegerField(), allow_null=True,
                                      help_text="By seat, 1 = best; once done.")
        scores = serializers.ListField(child=serializers.FloatField(), allow_null=True,
                                       help_text="By seat; null for a forfeit.")
        forfeited = serializers.ListField(
            child=serializers.IntegerField(),
            help_text="Participants scored as forfeits (withdrawn): the match was not played.")
        match = serializers.IntegerField(allow_null=True, help_text="The games match id.")
        log = serializers.URLField(allow_null=True,
                                   help_text="The match's event log (GET /api/matches/{id}/log/).")
        view = serializers.URLField(allow_null=True,
                                    help_text="The match's public view (GET "
                                              "/api/matches/{id}/view/).")
        finished_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_matches",
        summary="The scheduled matches, in schedule order",
        parameters=[TOURNAMENT_ID, FilterSerializer],
        responses={200: OutputSerializer(many=True), 400: E400, 404: E404, 429: E429},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.tournament_get(tournament_id=tournament_id)
        rows = selectors.tournament_matches(tournament=tournament,
                                            **valid_query(self.FilterSerializer, request))
        return page_response(self, request, rows, lambda page: self.OutputSerializer(
            [self._row(request, tournament, row) for row in page], many=True).data)

    @staticmethod
    def _row(request: Request, tournament: Tournament, row: TournamentMatch) -> dict[str, Any]:
        def link(name: str) -> str | None:
            if row.match_id is None:
                return None
            return request.build_absolute_uri(reverse(name, args=[row.match_id]))

        return {"number": row.number, "round": row.round, "deal": row.deal,
                "seed": row.seed if tournament.is_over else None, "seats": row.seats,
                "status": row.status, "ranks": row.ranks, "scores": row.scores,
                "forfeited": row.forfeited, "match": row.match_id,
                "log": link("games:match-log"), "view": link("games:match-view"),
                "finished_at": row.finished_at}


class TournamentCancelApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_cancel",
        summary="Cancel a scheduled or running tournament (organiser or staff)",
        description="Matches not started never will be; matches in progress are stopped (every "
                    "seat forfeits) and not counted; finished matches are kept.",
        parameters=[TOURNAMENT_ID], request=None,
        responses={200: TournamentDetailSerializer, 401: E401, 404: E404, 429: E429,
                   403: error_response("Not your tournament.",
                               ("not_your_tournament", ("Only the tournament's organiser (or "
                                                        "staff) may change it."), None)),
                   409: error_response("Already over.", ("tournament_not_running",
                                                 "the tournament is finished", None)),
                   503: error_response("Its row is held elsewhere; nothing changed.",
                                       ("tournament_busy", ("The tournament is being changed "
                                                            "elsewhere; try again in a "
                                                            "minute."), None))},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_cancel(tournament_id=tournament_id, user=request.user)
        return Response(_detail(tournament_id))


name_nested_serializers(globals())
