"""Ladders (docs/ladder.md): every game's ladder, one ladder's standings (cursor pages), and a
bot owner's opt in and out."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import fields
from games.seats import bot_reference
from lib.api import E401, E429, error_response, name_nested_serializers, valid_query

from ..ladders import selectors, services
from ..models import LadderEntry
from .common import entrant_name_field

GAME = OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH,
                        description="Engine game id.")
SEATS = OpenApiParameter("seats", OpenApiTypes.INT, OpenApiParameter.QUERY,
                         description="The ladder's table size (default: two seats where the "
                                     "game allows them, else its smallest).")


class SeatsQuerySerializer(serializers.Serializer):
    seats = serializers.IntegerField(required=False, min_value=2, max_value=8)


class EntryQuerySerializer(SeatsQuerySerializer):
    entry = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)


ENTRY = OpenApiParameter("entry", OpenApiTypes.INT, OpenApiParameter.QUERY,
                         description="Only this entry's matches (a standings row's `entry`): "
                                     "a bot's history on the ladder.")


def seats_asked(request: Request) -> int | None:
    """The ``?seats=`` of a request (a 400 ``invalid`` if it is no table size)."""
    return valid_query(SeatsQuerySerializer, request).get("seats")


CURSOR = OpenApiParameter("cursor", OpenApiTypes.STR, OpenApiParameter.QUERY,
                          description="From `next` or `previous`.")
LIMIT = OpenApiParameter("limit", OpenApiTypes.INT, OpenApiParameter.QUERY,
                         description="Rows a page (1 to 200, default 50).")
E400_SEATS = error_response("A table size the game is not played at, or malformed.", (
    "bad_ladder", "dot is played by 2 players: it has no ladder of 4 seats", None),
    ("invalid", "seats: Ensure this value is less than or equal to 8.", None))
E404_GAME = error_response("No such game.", ("game_not_found",
                                             "no game 'chess' (have: dtc, dot, ...)", None))
E403 = error_response("Not your bot.", (
    "not_your_bot", ("webhook bot 7 is not yours: only its owner may put it on a ladder or "
                     "take it off"), None))


class StandingsCursor(CursorPagination):
    """The standings' pages: best ``ordinal`` first; a cursor stays on its place while ratings
    move (a bot that rose past it is not shown twice)."""

    ordering = ("-ordinal", "id")
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200


class LadderSummarySerializer(serializers.Serializer):
    game = serializers.CharField()
    seats = serializers.IntegerField(help_text="Seats per match.")
    started_at = serializers.DateTimeField(
        allow_null=True, help_text="When its first bot joined; null: nobody has yet.")
    entrants = serializers.IntegerField(help_text="Bots on it, paused ones too.")
    matches = serializers.IntegerField(help_text="Matches played (forfeits too).")
    in_flight = serializers.IntegerField(help_text="Matches planned or in play now.")
    max_in_flight = serializers.IntegerField(allow_null=True,
                                             help_text="At most this many in play at once.")
    pair_cap_per_day = serializers.IntegerField(
        allow_null=True, help_text="A pair starts at most this many matches in 24 hours.")


class LadderStandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 = best ordinal (mu - 3 sigma).")
    entry = serializers.IntegerField(help_text="The bot's entry id on this ladder.")
    kind = serializers.CharField(help_text="webhook or reference.")
    bot = fields.BotReferenceField(help_text="The webhook bot's id, or the reference bot's "
                                             "name.")
    name = entrant_name_field()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the standings are sorted by it.")
    interval = serializers.ListField(
        child=serializers.FloatField(), min_length=2, max_length=2,
        help_text="Its skill, about 95% sure: [mu - 1.96 sigma, mu + 1.96 sigma].")
    matches = serializers.IntegerField(
        help_text="Rated matches its rating rests on (the game's, ladder and tournaments).")
    trend = serializers.ListField(
        child=serializers.FloatField(),
        help_text="Its ordinal after each of its latest rated matches (at most 20, every "
                  "series of the game), oldest first: why its rank moved.")
    last_played_at = serializers.DateTimeField(allow_null=True,
                                               help_text="Its latest rated match.")
    ahead_of_next = serializers.FloatField(
        allow_null=True, help_text="The probability that its skill is above the next bot's "
                                   "(null for the last).")
    joined_at = serializers.DateTimeField()
    paused = serializers.BooleanField(help_text="No match seats it until it resumes.")
    paused_reason = serializers.CharField(
        allow_null=True, help_text="Why, for its owner (and staff) only; null for others.")


class LadderEntrySerializer(serializers.Serializer):
    entry = serializers.IntegerField(source="pk")
    game = serializers.CharField(source="ladder.game")
    seats = serializers.IntegerField(source="ladder.seats", help_text="The ladder's table.")
    kind = serializers.CharField()
    bot = serializers.SerializerMethodField()
    joined_at = serializers.DateTimeField()
    left_at = serializers.DateTimeField(allow_null=True,
                                        help_text="Off the ladder since; null: on it.")
    paused = serializers.BooleanField()
    paused_reason = serializers.CharField(help_text="Why it is paused (\"\" if it is not): "
                                                    "join again to resume it once fixed.")
    burst_left = serializers.IntegerField(help_text="Matches left of its first burst.")

    def get_bot(self, entry: LadderEntry) -> int | str | None:
        return bot_reference(entry.kind, entry.bot)


class LadderListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["ladders"], operation_id="ladders_list",
        summary="Every game's ladder",
        description="One always-on ladder per game (two seats, or the game's smallest table); "
                    "a game nobody has joined yet shows none on it (docs/ladder.md).",
        responses={200: LadderSummarySerializer(many=True), 429: E429},
    )
    def get(self, request: Request) -> Response:
        return Response(LadderSummarySerializer(selectors.ladder_list(), many=True).data)


class LadderDetailApi(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(LadderSummarySerializer):
        next = serializers.URLField(allow_null=True, help_text="The next page of standings.")
        previous = serializers.URLField(allow_null=True,
                                        help_text="The page of standings before.")
        standings = LadderStandingSerializer(many=True)

    @extend_schema(
        tags=["ladders"], operation_id="ladders_retrieve",
        summary="A game's ladder and its standings (a page)",
        description="Its figures, and a page of its standings, best ordinal first: each bot's "
                    "rating with its interval, the rated matches it rests on, its last, and the "
                    "probability that it is ahead of the next. Pages follow `next` and "
                    "`previous` (a cursor; `limit` 1 to 200, default 50).",
        parameters=[GAME, SEATS, CURSOR, LIMIT],
        responses={200: OutputSerializer, 404: E404_GAME, 400: E400_SEATS, 429: E429},
    )
    def get(self, request: Request, game: str) -> Response:
        seats = seats_asked(request)
        ladder = selectors.ladder_get(game=game, seats=seats)
        entries = selectors.ladder_entries(ladder=ladder)
        paginator = StandingsCursor()
        page = paginator.paginate_queryset(entries, request, view=self) or []
        viewer = request.user if request.user.is_authenticated else None
        body = {**selectors.ladder_summary(game=game, ladder=ladder, seats=seats),
                "next": paginator.get_next_link(), "previous": paginator.get_previous_link(),
                "standings": selectors.standings_rows(entries=entries, page=page,
                                                      viewer=viewer)}
        return Response(self.OutputSerializer(body).data)


class LadderSeatSerializer(serializers.Serializer):
    entry = serializers.IntegerField(help_text="The bot's entry on the ladder.")
    name = entrant_name_field()


class LadderMatchSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="0, 1, 2 ... in the order planned.")
    status = serializers.ChoiceField(choices=["pending", "running", "finished",
                                              "cancelled"])
    match = serializers.IntegerField(allow_null=True,
                                     help_text="The games match (its replay); null "
                                               "before it starts or if scored unplayed.")
    seats = LadderSeatSerializer(many=True, help_text="By seat.")
    places = serializers.ListField(child=serializers.IntegerField(), allow_null=True,
                                   help_text="By seat, 1 = best; forfeiters last.")
    forfeited = serializers.ListField(child=serializers.IntegerField(),
                                      help_text="Entries scored as forfeits (unrated).")
    new_code = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Entries whose bot played code other than its own: its /start answer "
                  "declared another version than the bot's (a redeploy not registered as a "
                  "version). Recorded, unrated; the bot is paused.")
    rated = serializers.BooleanField(
        help_text="Whether it moved the ratings: finished, no forfeit, no new code.")
    rating_changes = serializers.ListField(
        child=serializers.FloatField(), allow_null=True,
        help_text="By seat, how far it moved each bot's rating (the standings' ordinal, "
                  "mu - 3 sigma, after it minus before it); null unless rated. A rebuild of "
                  "the board recomputes them.")
    planned_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class LadderMatchesCursor(CursorPagination):
    """The matches' pages, latest planned first."""

    ordering = ("-number",)
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200


class LadderMatchesApi(APIView):
    permission_classes = [AllowAny]
    pagination_class = LadderMatchesCursor

    class PageSerializer(serializers.Serializer):
        next = serializers.URLField(allow_null=True, help_text="The next page (older).")
        previous = serializers.URLField(allow_null=True, help_text="The page before.")
        results = LadderMatchSerializer(many=True)

    @extend_schema(
        tags=["ladders"], operation_id="ladders_matches",
        summary="A game's ladder matches, latest first (a page)",
        description="Each with its seats (entries, named), places once finished, forfeits, "
                    "how far a rated one moved each seat's rating, and the games match to "
                    "replay (`/api/matches/{id}/log/`). Pages follow "
                    "`next` and `previous` (a cursor; `limit` 1 to 200, default 50).",
        parameters=[GAME, SEATS, ENTRY, CURSOR, LIMIT],
        responses={200: PageSerializer, 404: E404_GAME, 400: E400_SEATS, 429: E429},
    )
    def get(self, request: Request, game: str) -> Response:
        paginator = self.pagination_class()
        asked = valid_query(EntryQuerySerializer, request)
        ladder = selectors.ladder_get(game=game, seats=asked.get("seats"))
        matches = selectors.ladder_matches(ladder=ladder, entry=asked.get("entry"))
        page = paginator.paginate_queryset(matches, request, view=self) or []
        return paginator.get_paginated_response(
            LadderMatchSerializer(selectors.match_rows(page=page), many=True).data)


E400_ENTRY = error_response(
    "Bad request, or the bot cannot play on the ladder.",
    ("bad_ladder_entry", ("bot 7 is disabled: a ladder seats bots any match may seat (public, "
                          "enabled, through their handshake, playing dice_cup); fix it on its "
                          "page, then join again"), None),
    ("bad_ladder", "dot is played by 2 players: it has no ladder of 4 seats", None),
    ("invalid", "bot: This field is required.", None))


class LadderEntriesApi(APIView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(fields.StrictSerializer):
        bot = serializers.IntegerField(min_value=1, max_value=10**18 - 1,
                                       help_text="Your webhook bot's id.")
        seats = serializers.IntegerField(
            required=False, min_value=2, max_value=8,
            help_text="The ladder's table size (default: two seats where the game allows "
                      "them, else its smallest).")

    @extend_schema(
        tags=["ladders"], operation_id="ladders_entries_join",
        summary="Put your bot on a game's ladder (or back on it)",
        description="Your webhook bot joins the game's ladder (made by the first join) and "
                    "plays its first matches within seconds, a burst of them first. Joining "
                    "again after leaving, or while paused (once you fixed what paused it), "
                    "puts it back: 201 if it changed, 200 if it was on and playing already. "
                    "The bot must be public, enabled, through its handshake and play the game.",
        parameters=[GAME], request=InputSerializer,
        responses={201: LadderEntrySerializer, 200: LadderEntrySerializer, 400: E400_ENTRY,
                   401: E401, 403: E403, 429: E429,
                   404: error_response("No such game or bot.", (
                       "game_not_found", "no game 'chess' (have: dtc, dot, ...)", None),
                       ("bot_not_found", "no webhook bot 99", None))},
    )
    def post(self, request: Request, game: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry, changed = services.ladder_join(game=game, user=request.user,
                                              bot=str(data.validated_data["bot"]),
                                              seats=data.validated_data.get("seats"))
        return Response(LadderEntrySerializer(entry).data,
                        status=status.HTTP_201_CREATED if changed else status.HTTP_200_OK)


class LadderEntryLeaveApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["ladders"], operation_id="ladders_entries_leave",
        summary="Take your bot off a game's ladder",
        description="No new match seats it; its matches in play end as they would and count. "
                    "Its rating stays (the game's leaderboard).",
        parameters=[GAME, OpenApiParameter("bot", OpenApiTypes.INT, OpenApiParameter.PATH,
                                           description="Your webhook bot's id."), SEATS],
        request=None,
        responses={200: LadderEntrySerializer, 400: E400_SEATS, 401: E401, 403: E403,
                   429: E429,
                   404: error_response("No such game or bot, or not on the ladder.", (
                       "not_on_ladder", ("webhook bot 7 is not on the dice_cup ladder of 2 "
                                         "seats"), None),
                       ("bot_not_found", "no webhook bot 99", None))},
    )
    def delete(self, request: Request, game: str, bot: int) -> Response:
        entry = services.ladder_leave(game=game, user=request.user, bot=str(bot),
                                      seats=seats_asked(request))
        return Response(LadderEntrySerializer(entry).data)


name_nested_serializers(globals())
