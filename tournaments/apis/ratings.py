"""A game's rating leaderboard over all its tournaments."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.api import E400, E429, error_response, name_nested_serializers, valid_query

from .. import selectors
from .common import EntrantKindField, entrant_name_field


class RatingLeaderboardApi(APIView):
    permission_classes = [AllowAny]

    class QuerySerializer(serializers.Serializer):
        limit = serializers.IntegerField(required=False, default=100, min_value=1,
                                         max_value=1000, help_text="Rows to return.")

    class OutputSerializer(serializers.Serializer):
        rank = serializers.IntegerField()
        kind = EntrantKindField()
        name = entrant_name_field()
        mu = serializers.FloatField()
        sigma = serializers.FloatField()
        ordinal = serializers.FloatField(help_text="mu - 3 sigma; the board is sorted by it.")
        matches = serializers.IntegerField(help_text="Rated matches (forfeits are not).")
        last_played_at = serializers.DateTimeField(
            help_text="When its latest rated match was recorded.")

    @extend_schema(
        tags=["tournaments"], operation_id="ratings_leaderboard",
        summary="A game's OpenSkill leaderboard over all its tournaments",
        description="Every recorded tournament match of the game, each applied as its result "
                    "was recorded (a table kept up to date then, not recomputed per request); "
                    "an entrant is a webhook bot, a person, or a reference bot (however often "
                    "it was entered, under whatever label).",
        parameters=[OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH,
                                     description="Engine game id."), QuerySerializer],
        responses={200: OutputSerializer(many=True), 400: E400, 429: E429,
                   404: error_response("No such game.", (
                       "game_not_found", "no game 'chess' (have: dtc, dot, ...)", None))},
    )
    def get(self, request: Request, game: str) -> Response:
        board = selectors.ratings_leaderboard(game=game,
                                              **valid_query(self.QuerySerializer, request))
        return Response(self.OutputSerializer(board, many=True).data)


name_nested_serializers(globals())
