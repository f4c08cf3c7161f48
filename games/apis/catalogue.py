"""The games the engine plays, with their options and reference bots."""

from __future__ import annotations

from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.api import E429, name_nested_serializers

from .. import schema
from ..engine import game_ids, get_game


class GameListApi(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        id = schema.GameIdField()
        name = serializers.CharField()
        min_players = serializers.IntegerField()
        max_players = serializers.IntegerField()
        default_players = serializers.IntegerField()
        options = serializers.ListField(child=serializers.DictField(),
                                        help_text="Name, default, type, bounds and doc of each.")
        bots = serializers.ListField(child=serializers.CharField(),
                                     help_text="Reference bots usable as seats.")

    @extend_schema(tags=["games"], operation_id="games_list", summary="The games and their options",
                   responses={200: OutputSerializer(many=True), 429: E429})
    def get(self, request: Request) -> Response:
        out = []
        for game_id in game_ids():
            game = get_game(game_id)  # a game that does not import is a bug: fail loudly
            out.append({"id": game.id, "name": game.name, "min_players": game.min_players,
                        "max_players": game.max_players, "default_players": game.default_players,
                        "options": game.describe_options(), "bots": list(game.bots)})
        return Response(self.OutputSerializer(out, many=True).data)


name_nested_serializers(globals())
