"""Matches: list and create, detail, join and leave."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

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

from .. import fields, schema, selectors, services
from ..models import Match
from ..names import seat_labels, seat_labels_of
from ..seats import bot_reference
from .common import DEADLINE_HELP, E404, MATCH_ID, RESULT_HELP


def _seat_of(user: Any, match: Match) -> list[int]:
    return [seat.number for seat in match.seats.all() if user.is_authenticated
            and seat.user_id == user.pk]


class SeatOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.CharField(help_text='"player", "reference", or a kind another app registers.')
    name = serializers.CharField(help_text='Who sits there, as every page names them: a '
                                           'person\'s username, a webhook bot\'s name and its '
                                           'owner, "dice_bot (alice)", "heuristic (reference '
                                           'bot)", or "open seat".')
    user = serializers.CharField(allow_null=True, help_text="The player's username.")
    bot = fields.BotReferenceField(allow_null=True)
    open = serializers.BooleanField(help_text="Waiting for a player to join.")
    strikes = serializers.IntegerField()
    forfeited = serializers.BooleanField()


class MatchOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = schema.GameIdField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    players = serializers.IntegerField()
    options = serializers.DictField()
    version = serializers.IntegerField()
    move_time_limit = serializers.IntegerField(help_text="Seconds per move.")
    strike_limit = serializers.IntegerField(
        help_text="Strikes (missed deadlines, failed webhook calls) that forfeit a seat; "
                  "0 = never.")
    deadline = serializers.DateTimeField(allow_null=True, help_text=DEADLINE_HELP)
    seed = fields.SeedField(allow_null=True, help_text="Revealed once the match is over.")
    result = serializers.DictField(allow_null=True, help_text=RESULT_HELP)
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = SeatOutputSerializer(many=True)
    your_seats = serializers.ListField(child=serializers.IntegerField(),
                                       help_text="Seats of the requesting user.")


def _match_data(match: Match, user: Any, names: list[str] | None = None) -> dict[str, Any]:
    """The match as the API shows it; ``names`` its seats' labels in seat order (a list
    names every match's seats at once: ``_matches_data``)."""
    seats = list(match.seats.all())
    names = names if names is not None else seat_labels(seats)
    return {
        "id": match.pk, "game": match.game, "status": match.status, "players": match.players,
        "options": match.options, "version": match.version,
        "move_time_limit": match.move_time_limit, "strike_limit": match.strike_limit,
        "deadline": match.deadline,
        "seed": match.seed if match.disclosed else None,
        "result": match.result,
        "created_by": match.created_by.get_username() if match.created_by_id else None,
        "created_at": match.created_at, "started_at": match.started_at,
        "finished_at": match.finished_at,
        "seats": [{"number": s.number, "kind": s.kind, "name": name,
                   "user": s.user.get_username() if s.user_id else None,
                   "bot": bot_reference(s.kind, s.bot_name), "open": s.is_open, "strikes": s.strikes,
                   "forfeited": s.forfeited} for s, name in zip(seats, names)],
        "your_seats": _seat_of(user, match),
    }


class MatchListCreateApi(APIView):
    #: Read by drf-spectacular, so the schema shows the paginated envelope the GET returns.
    pagination_class = Pagination

    class FilterSerializer(serializers.Serializer):
        game = schema.GameIdField(required=False, max_length=32, registered=True)
        status = serializers.ChoiceField(choices=Match.Status.choices, required=False)
        player = serializers.CharField(required=False, max_length=150,
                                       help_text="A player's username.")
        bot = serializers.CharField(required=False, max_length=100,
                                    help_text='A seat\'s bot: a webhook bot\'s id or a '
                                              'reference bot\'s name ("heuristic").')

    class SeatSpecSerializer(serializers.Serializer):
        kind = serializers.CharField(default="player", max_length=32,
                                     help_text='"player" (open, to be joined) or "reference" '
                                               '(a reference bot, named in bot).')
        bot = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                    help_text='Bot name, e.g. "random" or "heuristic".')

    class InputSerializer(serializers.Serializer):
        game = schema.GameIdField(max_length=32, help_text="Engine game id.")
        players = serializers.IntegerField(required=False, min_value=1, max_value=64,
                                           help_text="Defaults to len(seats), else the game's "
                                                     "default.")
        options = serializers.JSONField(required=False,
                                        help_text="Game options; see GET /api/games/.")
        seats = serializers.ListField(required=False, max_length=64, min_length=1,
                                      child=serializers.DictField())
        seed = fields.SeedField(required=False, help_text="Default: random, revealed at the end.")
        move_time_limit = serializers.IntegerField(required=False, min_value=1,
                                                   max_value=30 * 24 * 3600)
        strike_limit = serializers.IntegerField(
            required=False, min_value=0, max_value=1000,
            help_text="Strikes (missed deadlines, failed webhook calls) that forfeit a seat; "
                      "0 = never. Default: the server's BLUFF_MAX_STRIKES.")
        join = serializers.BooleanField(default=True,
                                        help_text="Seat the creator at the first open seat.")

        def validate_seats(self, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
            specs = []
            for i, spec in enumerate(value):
                inner = MatchListCreateApi.SeatSpecSerializer(data=spec)
                if not inner.is_valid():
                    raise serializers.ValidationError({i: inner.errors})
                specs.append(inner.validated_data)
            return specs

    @extend_schema(
        tags=["matches"], operation_id="matches_list", summary="List and filter matches",
        parameters=[FilterSerializer],
        responses={200: MatchOutputSerializer(many=True), 400: E400, 429: E429},
    )
    def get(self, request: Request) -> Response:
        matches = selectors.match_list(**valid_query(self.FilterSerializer, request))

        def render(page: list[Match]) -> Any:
            labels = seat_labels_of(m.seats.all() for m in page)
            data = [_match_data(m, request.user, names) for m, names in zip(page, labels)]
            return MatchOutputSerializer(data, many=True).data

        return page_response(self, request, matches, render)

    @extend_schema(
        tags=["matches"], operation_id="matches_create",
        summary="Create a match (it starts when every seat is filled)",
        request=InputSerializer,
        responses={
            201: MatchOutputSerializer, 401: E401, 429: E429,
            400: error_response("Bad request, options or seats.",
                        ("bad_options", "option 'rounds' must be >= 1, not 0", None),
                        ("bad_seats", ("seat 1: no reference bot 'smart' for dot "
                                       "(have: random, heuristic)"), None),
                        ("invalid", "players: Ensure this value is greater than or equal to 1.",
                         None)),
        },
        examples=[
            OpenApiExample("against a reference bot", request_only=True,
                           value={"game": "dot", "seats": [{"kind": "player"},
                                                           {"kind": "reference",
                                                            "bot": "heuristic"}]}),
            OpenApiExample("three players, two open seats", request_only=True,
                           value={"game": "dice_cup", "players": 3,
                                  "options": {"target_points": 20}, "move_time_limit": 300,
                                  "strike_limit": 2}),
        ],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        match = services.match_create(created_by=request.user, **data.validated_data)
        match = selectors.match_get(match_id=match.pk)
        return Response(MatchOutputSerializer(_match_data(match, request.user)).data,
                        status=status.HTTP_201_CREATED)


class MatchDetailApi(APIView):
    @extend_schema(tags=["matches"], operation_id="matches_detail", summary="One match",
                   parameters=[MATCH_ID],
                   responses={200: MatchOutputSerializer, 404: E404, 429: E429})
    def get(self, request: Request, match_id: int) -> Response:
        match = selectors.match_get(match_id=match_id)
        return Response(MatchOutputSerializer(_match_data(match, request.user)).data)


class MatchJoinApi(APIView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(required=False, min_value=0, max_value=63,
                                        help_text="Default: the first open seat.")

    @extend_schema(
        tags=["matches"], operation_id="matches_join", summary="Take an open seat",
        parameters=[MATCH_ID], request=InputSerializer,
        responses={200: MatchOutputSerializer, 400: E400, 401: E401, 404: E404, 429: E429,
                   409: error_response("Cannot join.", ("match_not_open", ("The match is not waiting "
                                                                   "for players."), None),
                               ("no_open_seat", "seat 1 is not open", None),
                               ("already_seated", "You already have a seat in this match.",
                                None))},
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.match_join(match_id=match_id, user=request.user,
                            seat_number=data.validated_data.get("seat"))
        match = selectors.match_get(match_id=match_id)
        return Response(MatchOutputSerializer(_match_data(match, request.user)).data)


class MatchLeaveApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["matches"], operation_id="matches_leave",
        summary="Give up your seat before the match starts",
        description="The seat is open again. Once the match runs, resign instead.",
        parameters=[MATCH_ID], request=None,
        responses={200: MatchOutputSerializer, 401: E401, 404: E404, 429: E429,
                   409: error_response("Cannot leave.",
                               ("match_not_open", ("the match has started: resign your seat "
                                                   "instead"), None),
                               ("not_seated", "You have no seat in this match.", None))},
    )
    def post(self, request: Request, match_id: int) -> Response:
        services.match_leave(match_id=match_id, user=request.user)
        match = selectors.match_get(match_id=match_id)
        return Response(MatchOutputSerializer(_match_data(match, request.user)).data)


name_nested_serializers(globals())
