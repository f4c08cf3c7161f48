"""The leagues API: create and list leagues, a league with its live night, the season table.

A league's deal secret keys every night's, and a league has no end after which showing it
would be harmless, so it is never shown; each night's own secret is, once that night is over
(``league_nights``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
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

from .. import selectors
from ..leagues import services as leagues
from ..models import League, Member
from .common import (
    MAX_MOVE_TIME_LIMIT,
    MAX_SEED,
    EntrantKindField,
    TournamentParticipantSpecSerializer,
    TournamentRatingSerializer,
    entrant_label_field,
    entrant_name_field,
)

E404 = error_response("No such league (or member).",
                      ("league_not_found", "No such league.", None),
                      ("league_not_found", "league 3 has no member 9", None))
E403 = error_response("Not your league.", (
    "not_your_league", "Only the league's organiser (or staff) may change it.", None))


LEAGUE_ID = OpenApiParameter("league_id", ID_SCHEMA, OpenApiParameter.PATH,
                             description="The league id.")


#: ``HH:MM``, two digits each: the schema's pattern and the field's check.
HH_MM = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"


@extend_schema_field({"type": "string", "pattern": HH_MM, "example": "20:00"})
class NightTimeField(serializers.TimeField):
    """A local wall time as ``HH:MM``, in and out. ``strptime`` alone would take "9:00"."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%H:%M", input_formats=["%H:%M"], **kwargs)

    def to_internal_value(self, value: Any) -> Any:
        if isinstance(value, str) and not re.fullmatch(HH_MM, value):
            self.fail("invalid", format="hh:mm")
        return super().to_internal_value(value)


@extend_schema_field({"type": "string", "example": "2026-12-10T21:00:00+01:00",
                      "description": "ISO 8601. Without an offset (2026-12-10T21:00), a wall "
                                     "time in the league's time zone: the earlier of two in "
                                     "the hour a clock goes back, shifted forward by the gap "
                                     "in the hour it skips (docs/leagues.md). "
                                     + dates.BOUNDS_HELP})
class LeagueDateTimeField(dates.DateTimeField):
    """A date and time as sent: naive stays naive, for the service to read in the league's
    time zone (``rules.in_zone``), not in the server's."""

    def enforce_timezone(self, value: Any) -> Any:
        return value


class LeagueMemberSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="0, 1, 2 ... in the order they joined; the "
                                               "order, tables and season table refer to it.")
    name = entrant_name_field()
    label = entrant_label_field()
    kind = EntrantKindField()
    bot = fields.BotReferenceField(allow_null=True, help_text="The webhook bot's id (a "
                                                              "number) or the reference bot's "
                                                              "name.")
    user = serializers.CharField(allow_null=True, help_text="A player's username.")
    left_at = serializers.DateTimeField(allow_null=True,
                                        help_text="When the member left (null: still a member).")


class LeagueSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = schema.GameIdField()
    options = serializers.DictField(help_text="Engine options of every hand's match.")
    organiser = serializers.CharField()
    table_size = serializers.IntegerField(help_text="Most seats at one table.")
    hands_per_night = serializers.IntegerField()
    moves_between_tables = serializers.IntegerField(
        help_text="How many move up and down between adjacent tables after a night.")
    strike_limit = serializers.IntegerField(help_text="Per hand; 0 = never forfeit.")
    move_time_limit = serializers.IntegerField(help_text="Seconds per move.")
    season_start = serializers.DateTimeField()
    season_end = serializers.DateTimeField()
    weekday = serializers.IntegerField(allow_null=True, help_text="Recurring nights: 0 = Monday "
                                                                  "... 6 = Sunday; null: none.")
    night_time = NightTimeField(allow_null=True, help_text="Recurring nights: local start time.")
    timezone = serializers.CharField(help_text="IANA zone of night_time, e.g. Europe/Paris.")
    member_count = serializers.IntegerField(help_text="Members who have not left.")
    created_at = serializers.DateTimeField()


class LeagueLiveStandingSerializer(serializers.Serializer):
    member = serializers.IntegerField(help_text="The member's index.")
    name = entrant_name_field()
    label = entrant_label_field()
    points = serializers.IntegerField(help_text="League points so far this night, this table.")


class LeagueLiveTableSerializer(serializers.Serializer):
    members = serializers.ListField(child=serializers.IntegerField(),
                                    help_text="Member indexes as seated at the start, best first.")
    hands_done = serializers.IntegerField(help_text="Hands finished at this table.")
    standings = LeagueLiveStandingSerializer(
        many=True, help_text="Best first (lower points first for Le Dutch); ties in seating "
                             "order.")


class LeagueLiveNightSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    hands_per_night = serializers.IntegerField(help_text="Hands each table plays this night.")
    started_at = serializers.DateTimeField(allow_null=True)
    tables = LeagueLiveTableSerializer(many=True, help_text="Top table first.")


class LeagueDetailSerializer(LeagueSerializer):
    members = LeagueMemberSerializer(many=True, help_text="Every member, those who left too.")
    order = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The social order (member indexes, best first) after the last finished night; "
                  "empty before the first.")
    next_night = serializers.DateTimeField(
        allow_null=True, help_text="When the next night starts (a night scheduled, or the next "
                                   "weekly one of a recurring league); null: none.")
    cannot_start = serializers.CharField(
        allow_null=True, help_text="Why a night cannot start now (its members cannot fill the "
                                   "tables); null: one can.")
    live_night = LeagueLiveNightSerializer(allow_null=True,
                                           help_text="The night being played; null: none.")


def _rating(rating: Any) -> dict[str, float]:
    return {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal,
            "matches": rating.matches}


def _league_data(league: League, member_count: int) -> dict[str, Any]:
    return {
        "id": league.pk, "name": league.name, "game": league.game, "options": league.options,
        "organiser": league.organiser.get_username(), "table_size": league.table_size,
        "hands_per_night": league.hands_per_night,
        "moves_between_tables": league.moves_between_tables,
        "strike_limit": league.strike_limit, "move_time_limit": league.move_time_limit,
        "season_start": league.season_start, "season_end": league.season_end,
        "weekday": league.weekday, "night_time": league.night_time, "timezone": league.timezone,
        "member_count": member_count, "created_at": league.created_at,
    }


def members_data(members: Sequence[Member]) -> list[dict[str, Any]]:
    """The members as the API shows them: ``name`` the bot's own (or the username), beside
    it the league's ``label`` (``selectors.entrant_labels``)."""
    names = selectors.entrant_labels(members)
    return [{"index": member.index, "name": names[member.index], "label": member.name,
             "kind": member.kind, "bot": bot_reference(member.kind, member.bot),
             "user": member.user.get_username() if member.user_id else None,
             "left_at": member.left_at} for member in members]


def _detail(league_id: int) -> dict[str, Any]:
    league = selectors.league_get(league_id=league_id)
    members = list(league.members.select_related("user").order_by("index"))
    data = {**_league_data(league, sum(1 for m in members if m.left_at is None)),
            "members": members_data(members), "order": list(league.order),
            "next_night": selectors.league_next_night(league=league),
            "cannot_start": selectors.league_cannot_start(league=league),
            "live_night": selectors.league_live_night(league=league)}
    return LeagueDetailSerializer(data).data


class LeagueListCreateApi(APIView):
    #: Read by drf-spectacular, so the schema shows the paginated envelope the GET returns.
    pagination_class = Pagination

    class FilterSerializer(serializers.Serializer):
        game = schema.GameIdField(required=False, max_length=32, registered=True)

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        game = schema.GameIdField(max_length=32, help_text="Engine game id.")
        members = TournamentParticipantSpecSerializer(
            many=True, max_length=1000,
            help_text="In joining order (at most LEAGUE_MAX_MEMBERS, checked with the rest: "
                      "bad_league); more may join later. A reference bot may be a member many "
                      "times.")
        options = serializers.DictField(required=False,
                                        help_text="Game options of every hand; see GET "
                                                  "/api/games/ (not those the game passes from "
                                                  "hand to hand, e.g. Dalmuti's hands and "
                                                  "initial_order: the league sets them).")
        table_size = serializers.IntegerField(required=False, min_value=2, max_value=8,
                                              help_text="Most seats at one table; default: "
                                                        "the game's most players.")
        hands_per_night = serializers.IntegerField(
            required=False, default=20, min_value=1,
            max_value=settings.LEAGUE_MAX_HANDS_PER_NIGHT,
            help_text="Hands each table plays in a night.")
        moves_between_tables = serializers.IntegerField(
            required=False, default=1, min_value=0, max_value=8,
            help_text="How many move up and down between adjacent tables after a night (at "
                      "most half the smaller table).")
        season_start = LeagueDateTimeField(help_text="ISO 8601 (naive: in timezone), at most "
                                                     "SERIES_MAX_SCHEDULE_AHEAD_DAYS ahead.")
        season_end = LeagueDateTimeField(help_text="ISO 8601 (naive: in timezone), after "
                                                   "season_start, at most "
                                                   "SERIES_MAX_SCHEDULE_AHEAD_DAYS ahead.")
        weekday = serializers.IntegerField(
            required=False, allow_null=True, min_value=0, max_value=6,
            help_text="Recurring nights (with night_time): 0 = Monday ... 6 = Sunday.")
        night_time = NightTimeField(required=False, allow_null=True,
                                    help_text="Recurring nights (with weekday): local start "
                                              "time, HH:MM.")
        timezone = serializers.CharField(
            required=False, default="UTC", max_length=64,
            help_text="IANA zone of night_time, e.g. Europe/Paris (the night stays at its local "
                      "time across daylight-saving changes).")
        strike_limit = serializers.IntegerField(
            required=False, min_value=0, max_value=100,
            help_text="Per hand; 0 = never forfeit. Default: the server's BLUFF_MAX_STRIKES.")
        move_time_limit = serializers.IntegerField(
            required=False, min_value=1, max_value=MAX_MOVE_TIME_LIMIT,
            help_text="Seconds per move. Default: BLUFF_DEFAULT_MOVE_TIME_LIMIT.")
        seed = fields.SeedField(required=False, min_value=0, max_value=MAX_SEED,
                                help_text="Makes its deals reproducible: its deal secret is "
                                          "then games.engine.rng.secret_from_seed(seed). "
                                          "Default: random; never shown.")

    @extend_schema(
        tags=["leagues"], operation_id="leagues_list", summary="List leagues",
        parameters=[FilterSerializer],
        responses={200: LeagueSerializer(many=True), 400: E400, 429: E429},
    )
    def get(self, request: Request) -> Response:
        found = selectors.league_list(**valid_query(self.FilterSerializer, request))
        return page_response(self, request, found, lambda page: LeagueSerializer(
            [_league_data(league, league.member_count) for league in page], many=True).data)

    @extend_schema(
        tags=["leagues"], operation_id="leagues_create",
        summary="Create a league",
        description="Nights recur every week on weekday at night_time (in timezone) within the "
                    "season, or are scheduled one by one (POST /api/leagues/{id}/nights/). "
                    "Rules: docs/leagues.md.",
        request=InputSerializer,
        responses={
            201: LeagueDetailSerializer, 401: E401, 429: E429,
            400: error_response("Bad request, or it cannot be a league.",
                        ("bad_league", "the season must end after it starts", None),
                        ("bad_league", ("no night could start: 2 members cannot fill tables of "
                                        "at least 4 and at most 5 players (the best cut is 1 "
                                        "table(s) of 2)"), None),
                        ("bad_league", ("season_end is more than 365 days ahead "
                                        "(SERIES_MAX_SCHEDULE_AHEAD_DAYS)"), None),
                        ("bad_league", "a recurring night needs both weekday and night_time",
                         None),
                        ("bad_league", ("member 1: no reference bot 'smart' for dot (have: "
                                        "random, heuristic)"), None),
                        ("invalid", "weekday: Ensure this value is less than or equal to 6.",
                         None)),
        },
        examples=[OpenApiExample(
            "Thursday nights in Paris", request_only=True,
            value={"name": "Thursday club", "game": "great_dalmuti", "table_size": 6,
                   "hands_per_night": 20, "season_start": "2025-09-01T00:00:00+02:00",
                   "season_end": "2025-12-31T23:59:00+01:00", "weekday": 3,
                   "night_time": "20:00", "timezone": "Europe/Paris",
                   "members": [{"kind": "reference", "bot": "heuristic"},
                               {"kind": "reference", "bot": "random"},
                               {"kind": "webhook", "bot": 7},
                               {"kind": "player", "user": "alice"}]})],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        league = leagues.league_create(organiser=request.user,
                                       timezone_name=fields.pop("timezone"), **fields)
        return Response(_detail(league.pk), status=status.HTTP_201_CREATED)


class LeagueDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["leagues"], operation_id="leagues_detail",
        summary="One league: members, order, next night and the night being played",
        parameters=[LEAGUE_ID],
        responses={200: LeagueDetailSerializer, 404: E404, 429: E429},
    )
    def get(self, request: Request, league_id: int) -> Response:
        return Response(_detail(league_id))


class LeagueTableApi(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        place = serializers.IntegerField(help_text="1 = top; equal points share a place.")
        member = serializers.IntegerField(help_text="The member's index.")
        name = entrant_name_field()
        label = entrant_label_field()
        points = serializers.IntegerField(help_text="League points over the season.")
        hands = serializers.IntegerField(help_text="Hands played.")
        average_finish = serializers.FloatField(
            allow_null=True, help_text="Mean finishing place in a hand (1 = best); null before "
                                       "a first hand.")
        position = serializers.IntegerField(
            help_text="Index in the current social order (0 = best); members who left after.")
        movement = serializers.IntegerField(
            allow_null=True, help_text="Positions gained since the previous order (positive = "
                                       "up); null if not in it.")
        rating = TournamentRatingSerializer(
            help_text="The member's rating on the game's leaderboard, which rates every hand "
                      "(finishing places as ranks) as every series' matches: one number per "
                      "entrant per game.")

    @extend_schema(
        tags=["leagues"], operation_id="leagues_table",
        summary="The season table",
        description="Every recorded hand of the league's nights added up (docs/leagues.md), "
                    "highest points first (lowest for Le Dutch).",
        parameters=[LEAGUE_ID],
        responses={200: OutputSerializer(many=True), 404: E404, 429: E429},
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id)
        members = list(league.members.select_related("user"))
        names = selectors.entrant_labels(members)
        labels = {member.index: member.name for member in members}
        rated = selectors.league_ratings(league_id=league.pk)
        rows = [{"place": row.place, "member": row.member, "name": names.get(row.member, ""),
                 "label": labels.get(row.member, ""),
                 "points": row.points, "hands": row.hands,
                 "average_finish": row.average_finish, "position": row.position,
                 "movement": row.movement, "rating": _rating(rated[row.member])}
                for row in selectors.league_table(league_id=league.pk)]
        return Response(self.OutputSerializer(rows, many=True).data)


name_nested_serializers(globals())
