"""The REST API of accounts and matches: thin views, one service or selector call each.

Each view checks the request's shape with its Input serializer, calls a service or selector,
and renders with its Output serializer. Errors are raised, never built here: the exception
handler (``config.exceptions``) turns them into ``{"code": ..., "detail": ...}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.api import E400, E401, E429, error_response, name_nested_serializers
from lib.throttling import ScopedRateThrottle, password_accepted, password_attempt

from . import fields, schema, selectors, services
from .converters import ID_SCHEMA
from .engine import game_ids, get_game
from .models import Match
from .names import seat_labels, seat_labels_of
from .seats import bot_reference

# --------------------------------------------------------------------------------------------
# Shared pieces of the schema
# --------------------------------------------------------------------------------------------

#: The ``deadline`` of every answer that has one.
DEADLINE_HELP = ("When the polling seats to act (people, programs) get the default action and a "
                 "strike; null when none is to act (only bots are: a bot is judged on its own "
                 "calls, never on this) or the match is not running.")
#: The ``result`` of a match in every answer that has one.
RESULT_HELP = ("Once over (null before): scores and ranks by seat (rank 1 is best, ties share). "
               "A game whose finishing order the ranks do not imply adds order, every seat "
               "once, best first, forfeited seats last: The Great Dalmuti's order of going out "
               "of the last hand (GD-2), public at the table.")


E403 = error_response("Not your seat.", ("not_your_seat", "This seat is not yours.", None))
E404 = error_response("No such match or seat.", ("match_not_found", "No such match.", None),
              ("seat_not_found", "match 7 has no seat 5", None))
#: The largest integer a client may send where the database stores it (a PostgreSQL integer):
#: beyond it a query would overflow (a 500) instead of answering 400 ``invalid``.
MAX_STORED_INT = 2**31 - 1


class ActionField(schema.AnyGameActionField):
    """An action of the match's game, documented as ``ActionRequest`` (any game's action).
    Anything but a JSON object is ``invalid`` here, before the engine is asked."""

    default_error_messages = {
        "not_an_object": "An action is a JSON object with a \"type\", not {input_type}."}

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            self.fail("not_an_object", input_type=type(data).__name__)
        return super().to_internal_value(data)


def _seat_of(user: Any, match: Match) -> list[int]:
    return [seat.number for seat in match.seats.all() if user.is_authenticated
            and seat.user_id == user.pk]


MATCH_ID = OpenApiParameter("match_id", ID_SCHEMA, OpenApiParameter.PATH,
                            description="The match id.")
SEAT = OpenApiParameter("seat", ID_SCHEMA, OpenApiParameter.PATH,
                        description="Seat number, 0..players-1 (clockwise).")


# --------------------------------------------------------------------------------------------
# Accounts
# --------------------------------------------------------------------------------------------


class SignUpApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "signup" rate (settings, docs/api.md)
    throttle_scope = "signup"
    authentication_classes: list[type] = []  # a stale token must not block getting a new one
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(r"^[\w.@+-]+\Z", max_length=150)
        password = serializers.CharField(write_only=True, min_length=8, max_length=128,
                                         style={"input_type": "password"})
        email = serializers.EmailField(required=False, allow_blank=True)

        def validate_username(self, value: str) -> str:
            if get_user_model().objects.filter(username__iexact=value).exists():
                raise serializers.ValidationError("this username is taken")
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            try:
                validate_password(attrs["password"],
                                  get_user_model()(username=attrs["username"]))
            except DjangoValidationError as exc:
                raise serializers.ValidationError({"password": list(exc.messages)}) from None
            return attrs

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")

    @extend_schema(
        tags=["accounts"], operation_id="signup", auth=[],
        summary="Sign up a player and get an API token",
        request=InputSerializer,
        responses={201: OutputSerializer, 400: E400, 429: E429},
        examples=[OpenApiExample("sign up", request_only=True,
                                 value={"username": "alice", "password": "a long passphrase"}),
                  OpenApiExample("signed up", response_only=True, status_codes=["201"],
                                 value={"username": "alice", "token": "9944b0...c2e1"})],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            with transaction.atomic():  # no user without its token
                user, token = services.user_sign_up(**data.validated_data)
        except IntegrityError:
            # Another signup took the name between the check above and the insert.
            raise serializers.ValidationError({"username": ["this username is taken"]}) from None
        return Response(self.OutputSerializer({"username": user.get_username(), "token": token}).data,
                        status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "signup" rate (settings, docs/api.md)
    throttle_scope = "signup"
    authentication_classes: list[type] = []  # a stale token must not block getting a new one
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, style={"input_type": "password"})

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

    def get_authenticate_header(self, request: Request) -> str:
        # With no authentication classes DRF would turn bad_credentials into a 403.
        return "Token"

    @extend_schema(
        tags=["accounts"], operation_id="token", auth=[],
        summary="Exchange a username and password for the API token",
        request=InputSerializer,
        responses={200: OutputSerializer, 400: E400,
                   401: error_response("Wrong username or password.",
                               ("bad_credentials", "wrong username or password", None)),
                   429: error_response(
                       "Too many requests from this address, or too many wrong passwords for "
                       "this account (locked for BLUFF_LOGIN_LOCKOUT_SECONDS).",
                       ("throttled", "Request was throttled. Expected available in 5 seconds.",
                        {"retry_after": 5}),
                       ("account_locked", ("Too many wrong passwords for this account. Try "
                                           "again in 900 seconds."), {"retry_after": 900}))},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # Counted before the password is checked: racing guesses count too.
        attempt = password_attempt(data.validated_data["username"])
        user = authenticate(request=request._request, **data.validated_data)
        if user is None:
            raise BadCredentials()
        password_accepted(attempt)
        return Response(self.OutputSerializer({"token": services.user_token(user=user)}).data)


class BadCredentials(exceptions.AuthenticationFailed):
    default_detail = "wrong username or password"
    default_code = "bad_credentials"


# --------------------------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Matches
# --------------------------------------------------------------------------------------------


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
    class Pagination(LimitOffsetPagination):
        default_limit = 50
        max_limit = 200

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
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        qs = selectors.match_list(**filters.validated_data)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(qs, request, view=self)
        labels = seat_labels_of(m.seats.all() for m in page)
        data = [_match_data(m, request.user, names) for m, names in zip(page, labels)]
        return paginator.get_paginated_response(MatchOutputSerializer(data, many=True).data)

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


def _if_none_match(request: Request) -> set[str]:
    header = request.headers.get("If-None-Match", "")
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _waits(q: dict[str, Any], seen: set[str]) -> bool:
    return q.get("wait", 0) > 0 and bool(seen or q.get("after") is not None)


def _wait_for_change(q: dict[str, Any], seen: set[str], parts: tuple[Any, ...],
                     current: Any, check: Any = None) -> selectors.PollKey:
    """The poll key now, or (``?wait=N`` with an ETag or ``after``) once it changes, at most
    ``min(N, BLUFF_POLL_MAX_WAIT)`` seconds later. ``check(key)`` runs on the first key read
    (e.g. the seat's owner) before any waiting."""
    key = current()
    if check is not None:
        check(key)
    if not _waits(q, seen):
        return key
    after = q.get("after")

    def changed(k: selectors.PollKey) -> bool:
        if seen and k.etag(*parts) not in seen:
            return True
        return after is not None and (k.version > after or k.status != key.status)

    return selectors.poll_wait(current=current, changed=changed,
                               wait=min(q["wait"], settings.BLUFF_POLL_MAX_WAIT))


def _not_modified(etag: str) -> Response:
    return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})


E304 = OpenApiResponse(description="Not modified: the ETag in If-None-Match is still current.")


class WaitQuerySerializer(serializers.Serializer):
    wait = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=3600,
        help_text="Long poll: wait up to this many seconds (capped by the server, "
                  "BLUFF_POLL_MAX_WAIT) for a change: with If-None-Match until the ETag "
                  "differs (304 if it never does), with after until the version exceeds it or "
                  "the status changes (then the current view, whatever it is).")
    after = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_STORED_INT,
        help_text="With wait: the version you already have (no ETag needed).")


class PollQuerySerializer(WaitQuerySerializer):
    legal = serializers.BooleanField(required=False, default=True,
                                     help_text="Include legal_actions when it is your turn.")
    events_since = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_STORED_INT,
        help_text="Also return engine events from this index (yours with your private "
                  "details).")


class SeatViewApi(APIView):
    """Poll a seat: the private view, whose turn it is, legal actions, version and deadline."""

    throttle_classes = [ScopedRateThrottle]  # the "play" rate (settings, docs/api.md)
    throttle_scope = "play"
    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        match = serializers.IntegerField()
        game = schema.GameIdField()
        seat = serializers.IntegerField()
        status = serializers.ChoiceField(choices=Match.Status.choices)
        version = serializers.IntegerField(help_text="Post it back with your action.")
        deadline = serializers.DateTimeField(allow_null=True, help_text=DEADLINE_HELP)
        to_act = serializers.ListField(child=serializers.IntegerField(),
                                       help_text="Seats asked now; several = a simultaneous "
                                                 "step.")
        your_turn = serializers.BooleanField()
        strikes = serializers.IntegerField()
        forfeited = serializers.BooleanField()
        legal_actions = serializers.ListField(child=serializers.DictField(), allow_null=True,
                                              help_text="The complete legal actions, when it "
                                                        "is your turn.")
        legal_actions_summary = serializers.JSONField(required=False)
        view = serializers.DictField(help_text="The engine's view of this seat: common keys "
                                               "game, players, seat, moves, to_act, is_over "
                                               "(result once over), then the game's own.")
        events = serializers.ListField(child=serializers.DictField(), required=False)

    @extend_schema(
        tags=["play"], operation_id="seat_poll", summary="Poll your seat's view",
        parameters=[MATCH_ID, SEAT, PollQuerySerializer,
                    OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER,
                                     description="The ETag of the last answer: 304 if unchanged.")],
        responses={200: schema.seat_poll_proxy(OutputSerializer), 304: E304, 400: E400,
                   401: E401, 403: E403, 404: E404, 429: E429},
        examples=schema.poll_examples(),
    )
    def get(self, request: Request, match_id: int, seat: int) -> Response:
        query = PollQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        parts = (seat, int(q["legal"]), q.get("events_since", "-"))
        seen = _if_none_match(request)
        if seen or _waits(q, seen):
            # The conditional path: one small query (no seat or match object, no state); the
            # seat and its match are fetched only when an answer is due.
            key = _wait_for_change(
                q, seen, parts,
                lambda: selectors.seat_poll_key(match_id=match_id, seat_number=seat),
                check=lambda k: selectors.seat_check_owner(key=k, user=request.user))
            if key.etag(*parts) in seen:
                return _not_modified(key.etag(*parts))
        # One raw query for seat and match (the stored state only if the cache misses).
        data, key = selectors.seat_view(match_id=match_id, seat_number=seat, user=request.user,
                                        with_legal=q["legal"],
                                        events_since=q.get("events_since"))
        # ``data`` is already JSON-ready and shaped as OutputSerializer documents it; running
        # the serializer over every legal action would be the poll's largest cost.
        return Response(data, headers={"ETag": key.etag(*parts)})


class SeatActApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "play" rate (settings, docs/api.md)
    throttle_scope = "play"
    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=0, max_value=MAX_STORED_INT,
                                           help_text="The version your poll returned.")
        action = ActionField(
            help_text="One of your legal_actions (an object with a type): any game's action "
                      "(anyOf); the shapes of your match's game are <Game>Action, and "
                      "docs/rules/<game>.md.")

    class OutputSerializer(serializers.Serializer):
        match = serializers.IntegerField()
        seat = serializers.IntegerField()
        applied_version = serializers.IntegerField(help_text="The version you acted on.")
        version = serializers.IntegerField(help_text="The version after your action and the "
                                                     "automatic seats that followed it.")
        status = serializers.ChoiceField(choices=Match.Status.choices)

    @extend_schema(
        tags=["play"], operation_id="seat_act", summary="Act for your seat",
        description="Applied atomically. Posting the same action for the same version again "
                    "(a retry) applies it once and returns the same answer.",
        parameters=[MATCH_ID, SEAT], request=InputSerializer,
        responses={
            200: OutputSerializer, 400: E400, 401: E401, 403: E403, 404: E404, 429: E429,
            409: error_response("Stale version or the match is not running.",
                        ("stale_version", "the match is at version 12, not 11",
                         {"current_version": 12}),
                        ("match_not_running", "the match is finished", None),
                        ("seat_forfeited", "This seat has resigned or forfeited.", None)),
            422: error_response("The engine refused the action; nothing changed.",
                        ("illegal_action", "seat 1 is not asked to act now (to act: [0])",
                         None)),
        },
        examples=schema.action_examples()
        + [OpenApiExample("applied", response_only=True, status_codes=["200"],
                          value={"match": 7, "seat": 0, "applied_version": 3, "version": 5,
                                 "status": "running"})],
    )
    def post(self, request: Request, match_id: int, seat: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = services.match_submit_action(match_id=match_id, seat_number=seat,
                                              user=request.user, **data.validated_data)
        return Response(self.OutputSerializer(answer).data)


class SeatResignApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "play" rate (settings, docs/api.md)
    throttle_scope = "play"
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["play"], operation_id="seat_resign", summary="Resign your seat",
        description="The seat is ranked last and plays the game's default actions from now on.",
        parameters=[MATCH_ID, SEAT], request=None,
        responses={200: SeatActApi.OutputSerializer, 401: E401, 403: E403, 404: E404,
                   429: E429,
                   409: error_response("Cannot resign.", ("match_not_running", "the match is open", None),
                               ("seat_forfeited", "This seat has resigned or forfeited.", None))},
    )
    def post(self, request: Request, match_id: int, seat: int) -> Response:
        answer = services.match_resign(match_id=match_id, seat_number=seat, user=request.user)
        return Response(SeatActApi.OutputSerializer(answer).data)


class PublicViewApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "spectate" rate (settings, docs/api.md)
    throttle_scope = "spectate"
    permission_classes = [AllowAny]

    class QuerySerializer(WaitQuerySerializer):
        events_since = serializers.IntegerField(
            required=False, min_value=0, max_value=MAX_STORED_INT,
            help_text="Also return the public engine events from this index.")

    class OutputSerializer(serializers.Serializer):
        match = serializers.IntegerField()
        game = schema.GameIdField()
        status = serializers.ChoiceField(choices=Match.Status.choices)
        version = serializers.IntegerField()
        deadline = serializers.DateTimeField(allow_null=True, help_text=DEADLINE_HELP)
        to_act = serializers.ListField(child=serializers.IntegerField())
        view = serializers.DictField(help_text="The engine's public (spectator) view.")
        events = serializers.ListField(child=serializers.DictField(), required=False)

    @extend_schema(
        tags=["spectate"], operation_id="match_public_view", summary="What a spectator sees",
        description="Long poll as a seat's poll: `?wait=N` with If-None-Match (304 if the ETag "
                    "never changes) or with `after=V` (the current view once the version is "
                    "above V or the status changes), capped by BLUFF_POLL_MAX_WAIT.",
        parameters=[MATCH_ID, QuerySerializer,
                    OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER,
                                     description="The ETag of the last answer: 304 if "
                                                 "unchanged.")],
        responses={200: OutputSerializer, 304: E304, 400: E400, 404: E404, 429: E429},
    )
    def get(self, request: Request, match_id: int) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        since = q.get("events_since")
        parts = ("public", "-" if since is None else since)
        seen = _if_none_match(request)
        if seen or _waits(q, seen):
            key = _wait_for_change(
                q, seen, parts, lambda: selectors.seat_poll_key(match_id=match_id,
                                                                seat_number=None))
            if key.etag(*parts) in seen:
                return _not_modified(key.etag(*parts))
        match = selectors.match_get(match_id=match_id)
        data = selectors.match_public_view(match=match, events_since=since)
        etag = selectors.PollKey(None, match.version, match.status, match.updated_at).etag(*parts)
        return Response(self.OutputSerializer(data).data, headers={"ETag": etag})


class LogEntrySerializer(serializers.Serializer):
    n = serializers.IntegerField()
    version = serializers.IntegerField()
    kind = serializers.CharField(help_text="start, action, timeout, default or resign.")
    seat = serializers.IntegerField(allow_null=True)
    action = serializers.JSONField(required=False, help_text="Only once the match is over.")
    events = serializers.ListField(child=serializers.DictField(),
                                   help_text="Engine events; private parts once over.")
    created_at = serializers.DateTimeField()


class LogSeatSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.CharField()
    user = serializers.CharField(allow_null=True)
    bot = fields.BotReferenceField(allow_null=True)


class MatchLogApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "spectate" rate (settings, docs/api.md)
    throttle_scope = "spectate"
    permission_classes = [AllowAny]

    class QuerySerializer(serializers.Serializer):
        since = serializers.IntegerField(required=False, default=0, min_value=0,
                                         max_value=MAX_STORED_INT,
                                         help_text="First entry n to return.")

    class OutputSerializer(serializers.Serializer):
        match = serializers.IntegerField()
        game = schema.GameIdField()
        players = serializers.IntegerField()
        options = serializers.DictField()
        status = serializers.ChoiceField(choices=Match.Status.choices)
        version = serializers.IntegerField()
        complete = serializers.BooleanField(help_text="Over: actions, private details, seed.")
        seed = fields.SeedField(allow_null=True)
        result = serializers.DictField(allow_null=True, help_text=RESULT_HELP)
        seats = LogSeatSerializer(many=True)
        entries = LogEntrySerializer(many=True)

    @extend_schema(
        tags=["spectate"], operation_id="match_log", summary="The public event log",
        description="Public events while the match runs; once over, every action, every "
                    "private detail and the seed, so `games.engine.play.replay` rebuilds it.",
        parameters=[MATCH_ID, QuerySerializer],
        responses={200: OutputSerializer, 400: E400, 404: E404, 429: E429},
    )
    def get(self, request: Request, match_id: int) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        match = selectors.match_get(match_id=match_id)
        data = selectors.match_log(match=match, since=query.validated_data["since"])
        return Response(self.OutputSerializer(data).data)


class MatchLogExportApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "spectate" rate (settings, docs/api.md)
    throttle_scope = "spectate"
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["spectate"], operation_id="match_log_export", summary="The event log as JSON Lines",
        description="First line: the match (game, players, options, seats, seed once over, "
                    "result); then one line per log entry, as in GET .../log/.",
        parameters=[MATCH_ID],
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR, 404: E404, 429: E429},
    )
    def get(self, request: Request, match_id: int) -> StreamingHttpResponse:
        match = selectors.match_get(match_id=match_id)
        header = MatchLogApi.OutputSerializer({**selectors.match_log(match=match, entries=False),
                                               "entries": []}).data
        header.pop("entries")

        def lines() -> Iterator[str]:
            # One line at a time, read in chunks: a long match's log is never all in memory.
            yield json.dumps({"type": "match", **header}) + "\n"
            for entry in selectors.match_log_entries(match=match):
                yield json.dumps({"type": "entry", **LogEntrySerializer(entry).data}) + "\n"

        response = StreamingHttpResponse(lines(), content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.jsonl"'
        return response


name_nested_serializers(globals())
