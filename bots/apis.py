"""The REST API of webhook bots: register, list, inspect, read the call log, update,
enable/disable, delete, rotate the secret, re-check. Owner only: 401 anonymous, 403
``not_your_bot`` for someone else's bot (bot ids are public: anyone may seat a public bot),
404 ``bot_not_found``.

Thin views: an Input serializer checks the shape, one service or selector does the work, an
Output serializer renders; errors are raised and mapped by ``config.exceptions``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.converters import ID_SCHEMA
from lib.api import (
    E401,
    E429,
    Pagination,
    error_response,
    name_nested_serializers,
    page_response,
    valid_query,
)

from . import selectors, services
from .models import Bot, BotCall


class BotUrlField(serializers.CharField):
    """A bot's base URL: a JSON string (a number is refused, not turned into one). Whether it
    can be a bot URL (scheme, host, port) is the service's check: ``bad_url``."""

    default_error_messages = {"not_a_string": "Must be a string: the bot's base URL "
                                              "(http:// or https://), not {kind}."}
    JSON_KINDS = {bool: "a boolean", int: "a number", float: "a number", list: "a list",
                  dict: "an object"}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_a_string", kind=self.JSON_KINDS.get(type(data), type(data).__name__))
        return super().to_internal_value(data)


E400 = error_response("Malformed request or URL.",
                      ("invalid", "url: This field is required.", None),
                      ("bad_url", "a bot URL must be http:// or https://, not ftp", None))
E403 = error_response("Someone else's bot.",
                      ("not_your_bot", "This bot belongs to someone else.", None))
E404 = error_response("No such bot.", ("bot_not_found", "No such bot.", None))
E409 = error_response("Name taken.",
                      ("bot_name_taken", "you already have a bot named 'ada'", None))
E422 = error_response("The handshake failed: nothing was changed.",
                      ("handshake_failed", ("connection_error: ConnectError: [Errno 111] "
                                            "Connection refused"), {"reason": "connection_error"}),
                      ("handshake_failed", 'bad_shape: "apiversion" must be "1", not None',
                       {"reason": "bad_shape"}))
BOT_ID = OpenApiParameter("bot_id", ID_SCHEMA, OpenApiParameter.PATH,
                          description="The bot id (use it in a webhook seat spec).")


@extend_schema_serializer(component_name="BotLatency")
class LatencySerializer(serializers.Serializer):
    p50 = serializers.FloatField(allow_null=True)
    p95 = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)
    count = serializers.IntegerField(help_text="Calls measured (the latest 1,000 /move calls).")


@extend_schema_serializer(component_name="BotLastError")
class LastErrorSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    path = serializers.CharField(help_text="handshake, start, move or end.")
    match = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField()
    detail = serializers.CharField()
    status = serializers.IntegerField(allow_null=True, help_text="HTTP status, if one came.")


@extend_schema_serializer(component_name="BotStats")
class StatsSerializer(serializers.Serializer):
    """Matches from the bot's seats; calls, strikes and latency over the kept call log (the
    last ``BOTS_CALL_LOG_DAYS`` days, 30 by default)."""

    matches_played = serializers.IntegerField()
    matches_running = serializers.IntegerField()
    moves = serializers.IntegerField(help_text="/move calls made.")
    strikes = serializers.DictField(child=serializers.IntegerField(),
                                    help_text="Strikes by reason (timeout, http_status, ...).")
    strike_total = serializers.IntegerField()
    platform_errors = serializers.IntegerField(help_text="Our failures: never a strike.")
    call_errors = serializers.DictField(child=serializers.IntegerField(),
                                        help_text='Failed handshake, /start and /end calls '
                                                  'by "path:reason" (never a strike).')
    latency_ms = LatencySerializer()
    last_error = LastErrorSerializer(allow_null=True)


@extend_schema_serializer(component_name="Bot")
class BotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.CharField()
    enabled = serializers.BooleanField()
    public = serializers.BooleanField(help_text="Anyone may seat it (true), or only you.")
    seatable = serializers.BooleanField(help_text="Enabled and the last handshake passed.")
    games = serializers.ListField(child=serializers.CharField(),
                                  help_text="Our game ids the last good handshake listed.")
    unknown_games = serializers.ListField(
        child=serializers.CharField(),
        help_text="Ids the last good handshake listed that are not games here (a typo?): "
                  "ignored.")
    handshake_ok = serializers.BooleanField()
    handshake_at = serializers.DateTimeField(allow_null=True)
    handshake_error = serializers.CharField()
    remote_name = serializers.CharField(help_text="The name in the bot's handshake.")
    remote_author = serializers.CharField()
    previous_secret_expires_at = serializers.DateTimeField(
        allow_null=True, help_text="After a rotation: until when calls are also signed with "
                                   "the previous secret (BOTS_SECRET_OVERLAP_HOURS, 24 by "
                                   "default), so the bot keeps working until it is redeployed "
                                   "with the new one. null: only the current secret signs.")
    compact_legal_actions = serializers.BooleanField(
        help_text="The last handshake said compact_legal_actions: true, so /move bodies leave "
                  "out legal_actions lists over 256 actions (legal_description is sent).")
    max_concurrency = serializers.IntegerField(
        read_only=True, allow_null=True, min_value=1, max_value=256,
        help_text="How many requests at once the last good handshake declared it takes "
                  "(max_concurrency, 1..256); null: it declared none.")
    concurrency_limit = serializers.IntegerField(
        read_only=True, min_value=1,
        help_text="The most requests it is sent at once from one worker process: "
                  "max_concurrency, else the platform's default (BOTS_MAX_CONCURRENCY, 8 "
                  "unless set otherwise).")
    declared_version = serializers.CharField(
        help_text='The version ("version" in the handshake) taken as the bot\'s: at '
                  "registration, a move to a new URL, a promoted version; \"\" for none.")
    serving_version = serializers.CharField(
        help_text="The version its URL serves now, as last seen (every handshake that passed, "
                  "and /start answers that declare one). Another non-empty one than "
                  "declared_version is a redeploy: the ladder pauses the bot until you "
                  "register it as a version (POST /api/bots/{id}/versions/) or serve the "
                  "declared one again.")
    created_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="BotWithSecret")
class BotWithSecretSerializer(BotSerializer):
    secret = serializers.CharField(help_text="whsec_...: shown only now. Verify every call's "
                                             "webhook-signature with it.")


@extend_schema_serializer(component_name="BotCall")
class CallSerializer(serializers.Serializer):
    at = serializers.DateTimeField(source="created_at")
    path = serializers.CharField()
    match = serializers.IntegerField(source="match_id", allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True)
    elapsed_ms = serializers.FloatField()
    status = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(help_text="Empty when the call succeeded.")
    strike = serializers.BooleanField()
    detail = serializers.CharField()
    log = serializers.CharField(help_text="The bot's own log line.")
    applied = serializers.BooleanField(
        help_text="False: the match changed while the bot was asked (a resignation, a "
                  "deadline), so this answer was not used and the bot was asked again.")


class BotMatchSerializer(serializers.Serializer):
    match = serializers.IntegerField(source="match_id")
    game = serializers.CharField(source="match.game")
    seat = serializers.IntegerField(source="number")
    status = serializers.CharField(source="match.status",
                                   help_text="open, running or finished.")
    rank = serializers.SerializerMethodField(
        help_text="The seat's rank (1 = best) once the match is over; null before, and while "
                  "a duplicate tournament keeps the deal sealed.")
    strikes = serializers.DictField(child=serializers.IntegerField(),
                                    help_text="Strikes the bot earned there, by reason.")
    started_at = serializers.DateTimeField(allow_null=True, help_text="When /start was sent.")
    ended_at = serializers.DateTimeField(allow_null=True, help_text="When /end was sent.")
    new_version = serializers.CharField(
        help_text="The version the bot's /start answer declared there when it was not the "
                  "bot's own: new code not registered yet played this seat, and a ladder does "
                  "not rate the match (docs/ladder.md, In place). Empty otherwise.")

    def get_rank(self, seat: Any) -> int | None:
        return selectors.seat_rank(seat)


@extend_schema_serializer(component_name="BotDetail")
class BotDetailSerializer(BotSerializer):
    stats = StatsSerializer()
    recent_calls = CallSerializer(many=True)


def _bot_data(bot: Bot, **extra: Any) -> dict[str, Any]:
    return {"id": bot.pk, "name": bot.name, "url": bot.url, "enabled": bot.enabled,
            "public": bot.public,
            "seatable": bot.seatable, "games": bot.games, "unknown_games": bot.unknown_games,
            "handshake_ok": bot.handshake_ok,
            "handshake_at": bot.handshake_at, "handshake_error": bot.handshake_error,
            "remote_name": bot.remote_name, "remote_author": bot.remote_author,
            "compact_legal_actions": bot.compact_legal_actions,
            "max_concurrency": bot.max_concurrency,
            "concurrency_limit": selectors.bot_concurrency(bot),
            "previous_secret_expires_at": (bot.previous_secret_expires_at
                                           if selectors.bot_previous_secret(bot=bot) else None),
            "declared_version": bot.declared_version, "serving_version": bot.serving_version,
            "created_at": bot.created_at, **extra}


def _detail(bot: Bot) -> dict[str, Any]:
    return BotDetailSerializer(_bot_data(
        bot, stats=selectors.bot_stats(bot=bot),
        recent_calls=selectors.bot_recent_calls(bot=bot))).data


REGISTERED = {"id": 3, "name": "ada", "url": "https://ada.example.com/bot", "enabled": True,
              "public": True, "seatable": True, "games": ["dtc", "dot"], "unknown_games": [],
              "handshake_ok": True,
              "handshake_at": "2025-01-01T12:00:00Z", "handshake_error": "",
              "remote_name": "Ada", "remote_author": "alice", "compact_legal_actions": False,
              "max_concurrency": None, "concurrency_limit": 8,
              "previous_secret_expires_at": None, "declared_version": "2.1.0",
              "serving_version": "2.1.0", "created_at": "2025-01-01T12:00:00Z",
              "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
SECRET_EXAMPLE = OpenApiExample("registered", response_only=True, status_codes=["201"],
                                value=REGISTERED)
ROTATED_EXAMPLE = OpenApiExample(
    "rotated", response_only=True, status_codes=["200"],
    value={**REGISTERED, "secret": "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
           "previous_secret_expires_at": "2025-01-03T09:30:00Z"})


class BotListCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        url = BotUrlField(max_length=500, help_text="The bot's base URL (http/https).")
        public = serializers.BooleanField(
            default=True, help_text="Who may seat the bot: anyone (true), or only you (false).")

    @extend_schema(tags=["bots"], operation_id="bots_list", summary="Your bots",
                   responses={200: BotSerializer(many=True), 401: E401, 429: E429})
    def get(self, request: Request) -> Response:
        bots = selectors.bot_list(owner=request.user)
        return Response(BotSerializer([_bot_data(b) for b in bots], many=True).data)

    @extend_schema(
        tags=["bots"], operation_id="bots_register", summary="Register a webhook bot",
        description="The platform calls `GET {url}/` signed with the bot's new secret; the "
                    "handshake must pass (protocol v1, at least one of our games). The secret "
                    "is in this answer only.",
        request=InputSerializer,
        responses={201: BotWithSecretSerializer, 400: E400, 401: E401, 409: E409, 422: E422,
                   429: E429},
        examples=[OpenApiExample("register", request_only=True,
                                 value={"name": "ada", "url": "https://ada.example.com/bot"}),
                  SECRET_EXAMPLE],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot, secret = services.bot_register(owner=request.user, **data.validated_data)
        return Response(BotWithSecretSerializer(_bot_data(bot, secret=secret)).data,
                        status=status.HTTP_201_CREATED)


class BotDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100, required=False)
        url = BotUrlField(max_length=500, required=False)
        public = serializers.BooleanField(
            required=False, help_text="Who may seat the bot: anyone (true), or only you (false).")

    @extend_schema(tags=["bots"], operation_id="bots_detail",
                   summary="Your bot, its stats and its latest calls", parameters=[BOT_ID],
                   responses={200: BotDetailSerializer, 401: E401, 403: E403, 404: E404,
                              429: E429})
    def get(self, request: Request, bot_id: int) -> Response:
        return Response(_detail(selectors.bot_get_owned(bot_id=bot_id, user=request.user)))

    @extend_schema(tags=["bots"], operation_id="bots_update",
                   summary="Rename or move your bot (the handshake runs again), or make it "
                           "public or private",
                   parameters=[BOT_ID], request=InputSerializer,
                   responses={200: BotDetailSerializer, 400: E400, 401: E401, 403: E403,
                              404: E404, 409: E409, 422: E422, 429: E429})
    def patch(self, request: Request, bot_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = services.bot_update(bot_id=bot_id, user=request.user, **data.validated_data)
        return Response(_detail(bot))

    @extend_schema(tags=["bots"], operation_id="bots_delete", summary="Delete your bot",
                   description="Its seats in running matches play default actions from now on.",
                   parameters=[BOT_ID],
                   responses={204: None, 401: E401, 403: E403, 404: E404, 429: E429})
    def delete(self, request: Request, bot_id: int) -> Response:
        services.bot_delete(bot_id=bot_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class _BotActionApi(APIView):
    permission_classes = [IsAuthenticated]


class BotEnableApi(_BotActionApi):
    @extend_schema(tags=["bots"], operation_id="bots_enable", summary="Enable your bot",
                   parameters=[BOT_ID], request=None,
                   responses={200: BotSerializer, 401: E401, 403: E403, 404: E404, 429: E429})
    def post(self, request: Request, bot_id: int) -> Response:
        bot = services.bot_set_enabled(bot_id=bot_id, user=request.user, enabled=True)
        return Response(BotSerializer(_bot_data(bot)).data)


class BotDisableApi(_BotActionApi):
    @extend_schema(tags=["bots"], operation_id="bots_disable", summary="Disable your bot",
                   description="No new seats; in running matches its seats play default "
                               "actions with a bot_unavailable strike.",
                   parameters=[BOT_ID], request=None,
                   responses={200: BotSerializer, 401: E401, 403: E403, 404: E404, 429: E429})
    def post(self, request: Request, bot_id: int) -> Response:
        bot = services.bot_set_enabled(bot_id=bot_id, user=request.user, enabled=False)
        return Response(BotSerializer(_bot_data(bot)).data)


class BotRotateSecretApi(_BotActionApi):
    @extend_schema(tags=["bots"], operation_id="bots_rotate_secret",
                   summary="Replace your bot's secret (shown once)",
                   description="Calls are signed with the new secret from now on, and also "
                               "with the previous one until previous_secret_expires_at "
                               "(BOTS_SECRET_OVERLAP_HOURS after the rotation, 24 by default): "
                               "redeploy the bot with the new secret before then. A second "
                               "rotation within the overlap cuts the oldest secret at once.",
                   parameters=[BOT_ID], request=None,
                   responses={200: BotWithSecretSerializer, 401: E401, 403: E403, 404: E404,
                              429: E429},
                   examples=[ROTATED_EXAMPLE])
    def post(self, request: Request, bot_id: int) -> Response:
        bot, secret = services.bot_rotate_secret(bot_id=bot_id, user=request.user)
        return Response(BotWithSecretSerializer(_bot_data(bot, secret=secret)).data)


class BotCheckApi(_BotActionApi):
    @extend_schema(tags=["bots"], operation_id="bots_check",
                   summary="Run the handshake now and record the result",
                   description="A failed check makes the bot unseatable until one passes; the "
                               "answer says why in handshake_error.",
                   parameters=[BOT_ID], request=None,
                   responses={200: BotDetailSerializer, 401: E401, 403: E403, 404: E404,
                              429: E429})
    def post(self, request: Request, bot_id: int) -> Response:
        return Response(_detail(services.bot_check_owned(bot_id=bot_id, user=request.user)))


class BotPagination(Pagination):
    default_limit = 50
    max_limit = 500


class BotCallsApi(APIView):
    permission_classes = [IsAuthenticated]
    #: Read by drf-spectacular, so the schema shows the paginated envelope.
    pagination_class = BotPagination

    class FilterSerializer(serializers.Serializer):
        path = serializers.ChoiceField(choices=BotCall.Path.values, required=False)
        match = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                         help_text="A match id.")
        reason = serializers.CharField(required=False, max_length=32,
                                       help_text="e.g. timeout, illegal_action, "
                                                 "platform_error.")
        failed = serializers.BooleanField(required=False, allow_null=True, default=None,
                                          help_text="true: failed calls only; false: "
                                                    "successful ones only.")

    @extend_schema(tags=["bots"], operation_id="bots_calls",
                   summary="Your bot's call log, newest first, filtered",
                   description="Every call the platform made to the bot (kept "
                               "BOTS_CALL_LOG_DAYS, 30 by default): latency, HTTP status, the "
                               "failure and its detail, the bot's own log line.",
                   parameters=[BOT_ID, FilterSerializer],
                   responses={200: CallSerializer(many=True), 400: E400, 401: E401,
                              403: E403, 404: E404, 429: E429})
    def get(self, request: Request, bot_id: int) -> Response:
        bot = selectors.bot_get_owned(bot_id=bot_id, user=request.user)
        calls = selectors.bot_calls(bot=bot, **valid_query(self.FilterSerializer, request))
        return page_response(self, request, calls,
                             lambda page: CallSerializer(page, many=True).data)


class BotMatchesApi(APIView):
    permission_classes = [IsAuthenticated]
    pagination_class = BotPagination

    @extend_schema(tags=["bots"], operation_id="bots_matches",
                   summary="Your bot's matches, newest first",
                   description="Every match the bot was seated in: its seat, the match's "
                               "status, the seat's rank once over, the strikes it earned there, "
                               "when /start and /end were sent and whether new code played it "
                               "(new_version). The match's log and replay "
                               "are at /api/matches/{match}/ and /matches/{match}/.",
                   parameters=[BOT_ID],
                   responses={200: BotMatchSerializer(many=True), 400: E400, 401: E401,
                              403: E403, 404: E404, 429: E429})
    def get(self, request: Request, bot_id: int) -> Response:
        bot = selectors.bot_get_owned(bot_id=bot_id, user=request.user)
        return page_response(self, request, selectors.bot_matches(bot=bot),
                             lambda page: BotMatchSerializer(page, many=True).data)


name_nested_serializers(globals())
