"""A league's nights: list them, schedule a one-off night, cancel one."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.converters import ID_SCHEMA
from lib.api import (
    E400,
    E401,
    E429,
    Pagination,
    error_response,
    name_nested_serializers,
    page_response,
)

from .. import selectors
from ..leagues import services as leagues
from ..leagues.night_kind import published_secret
from ..models import Hand, Night
from .leagues import E403, E404, LEAGUE_ID, LeagueDateTimeField


@extend_schema_field({"type": "string", "enum": list(Night.Status.values),
                      "description": "scheduled, running, finished, failed (could not start: "
                                     "see reason) or cancelled."})
class NightStatusField(serializers.CharField):
    """A night's status, documented inline (one enum per ``status`` name is in the settings'
    ENUM_NAME_OVERRIDES; this keeps the schema free of a generated name)."""


class LeagueNightSerializer(serializers.Serializer):
    number = serializers.IntegerField(
        help_text="1, 2, 3 ... in the order the nights were scheduled (a one-off night set "
                  "weeks ahead has a lower number than the weekly nights before it).")
    starts_at = serializers.DateTimeField()
    status = NightStatusField()
    reason = serializers.CharField(
        allow_null=True, help_text="Why it could not start (failed), or why the platform "
                                   "cancelled it (docs/leagues.md).")
    withdrawn = serializers.DictField(
        child=serializers.CharField(),
        help_text="Members out of the rest of this night (member index -> why: their bot "
                  "could not be seated, or they forfeited their last "
                  "SERIES_FORFEITS_TO_WITHDRAW hands in a row): seated forfeited in each of "
                  "their later hands (docs/series.md).")
    tables = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Member indexes per table when it started, top table first, best first.")
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    hands = serializers.IntegerField(help_text="Hands done, over all tables.")
    deal_secret = serializers.CharField(
        allow_null=True, help_text="Once the night is over (null before): the secret that "
        "keyed every hand's deal, 64 hex digits; each hand's seed is "
        "games.engine.rng.deal_seed(deal_secret, table, hand), and `manage.py deals night "
        "LEAGUE NIGHT` checks them (docs/tournaments.md, \"What is public when\").")


def _night_data(night: Night, hands_done: int) -> dict[str, Any]:
    return {"number": night.number, "starts_at": night.starts_at, "status": night.status,
            "reason": night.reason or None, "withdrawn": night.withdrawn, "tables": night.tables,
            "started_at": night.started_at, "finished_at": night.finished_at,
            "hands": hands_done, "deal_secret": published_secret(night)}


class LeagueNightsApi(APIView):
    pagination_class = Pagination

    class InputSerializer(serializers.Serializer):
        starts_at = LeagueDateTimeField(
            help_text="ISO 8601 (naive: in the league's time zone); not in the past, within "
                      "the season, at most SERIES_MAX_SCHEDULE_AHEAD_DAYS ahead.")

    @extend_schema(
        tags=["leagues"], operation_id="leagues_nights",
        summary="The league's nights, newest first",
        parameters=[LEAGUE_ID],
        responses={200: LeagueNightSerializer(many=True), 400: E400, 404: E404,
                   429: E429},
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id)
        return page_response(self, request, selectors.league_nights(league=league),
                             lambda page: LeagueNightSerializer(
                                 [_night_data(night, night.hands_done) for night in page],
                                 many=True).data)

    @extend_schema(
        tags=["leagues"], operation_id="leagues_nights_schedule",
        summary="Schedule a one-off night (organiser or staff)",
        description="It starts by itself at starts_at (the workers play it).",
        parameters=[LEAGUE_ID], request=InputSerializer,
        responses={201: LeagueNightSerializer, 401: E401, 403: E403, 404: E404, 429: E429,
                   400: error_response("Bad request, or no night then.",
                               ("bad_league", "the night must not start in the past", None),
                               ("bad_league", "the night must start within the season", None),
                               ("bad_league", ("the league's weekly night is at that time "
                                               "already"), None),
                               ("bad_league", "the league already has a night at that time",
                                None),
                               ("invalid", "starts_at: This field is required.", None))},
    )
    def post(self, request: Request, league_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = leagues.night_schedule(league_id=league_id, user=request.user,
                                       **data.validated_data)
        return Response(LeagueNightSerializer(_night_data(night, 0)).data,
                        status=status.HTTP_201_CREATED)


NIGHT_NUMBER = OpenApiParameter("number", ID_SCHEMA, OpenApiParameter.PATH,
                                description="The night's number (1, 2, 3 ... in the order the "
                                            "nights were scheduled).")


class LeagueNightCancelApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["leagues"], operation_id="leagues_nights_cancel",
        summary="Cancel a scheduled or running night (organiser or staff)",
        description="Hands not started never will be; hands in progress are stopped (every "
                    "seat forfeits) and marked cancelled. A cancelled night counts for nothing: "
                    "its finished hands keep their replays but add nothing to the season table, "
                    "and the league's order does not move (docs/series.md).",
        parameters=[LEAGUE_ID, NIGHT_NUMBER], request=None,
        responses={200: LeagueNightSerializer, 401: E401, 403: E403, 429: E429,
                   404: error_response("No such league or night.",
                               ("league_not_found", "No such league.", None),
                               ("league_not_found", "league 3 has no night 9", None)),
                   409: error_response("The night is over.",
                               ("night_not_open", "night 2 is finished", None))},
    )
    def post(self, request: Request, league_id: int, number: int) -> Response:
        night = leagues.night_cancel(league_id=league_id, number=number, user=request.user)
        hands = night.hands.filter(status=Hand.Status.FINISHED).count()
        return Response(LeagueNightSerializer(_night_data(night, hands)).data)


name_nested_serializers(globals())
