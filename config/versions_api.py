"""The REST API of a bot's versions (docs/ladder.md, "Versions"): register one (its provisional
run starts), list them with their comparisons, promote or discard one. Owner only, as every
bot endpoint: 401 anonymous, 403 ``not_your_bot``, 404 ``bot_not_found`` and
``version_not_found``. Thin views over ``config.versions``; errors mapped by
``config.exceptions``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.apis import BOT_ID, E403, E404, E422, BotPagination, BotUrlField
from bots.models import BotVersion
from bots.versions import version_note
from lib.api import E401, E429, error_response, name_nested_serializers, page_response

from . import versions

NUMBER = OpenApiParameter("number", int, OpenApiParameter.PATH,
                          description="The version's number (2, 3 ...; 1 is the bot as "
                                      "registered).")
E400 = error_response(
    "Malformed request, or not a new version.",
    ("invalid", "url: This field is required.", None),
    ("bad_url", "a bot URL must be http:// or https://, not ftp", None),
    ("bad_version", ("https://ada.example.com/bot is the bot's URL already and its handshake "
                    "declares no version: a redeploy at the same URL is a version only when "
                    "its handshake declares a new `version`; otherwise a version is a new URL, "
                    "played beside the bot (a secret rotation is not a version)"), None),
    ("bad_ladder", "dice_cup is played by 2 to 6 players: it has no ladder of 9 seats", None))
E404V = error_response("No such bot, or no such version of it.",
                       ("bot_not_found", "No such bot.", None),
                       ("version_not_found", "bot 3 has no version 9", None))
E409 = error_response(
    "A version is pending: one candidate at a time; its run still plays; decided already.",
    ("version_pending", ("bot 3 has a candidate version already: promote or discard it before "
                        "registering another"), None),
    ("version_pending", ("version 2's provisional run is still playing (running): promote it "
                        "once it is over, or discard it"), None))
E429V = error_response(
    "Too many requests, or too many of your matches queued (the run is a tournament of yours).",
    ("throttled", "Request was throttled. Expected available in 5 seconds.", {"retry_after": 5}),
    ("tournament_limit", "you already have 5 scheduled or running tournaments (at most 5)",
     None))


class SideSerializer(serializers.Serializer):
    """One side of a comparison. An in-place version's current side did not play the run: it
    is the bot's standing on the game's leaderboard (its ladder rating), its run figures
    null."""

    matches = serializers.IntegerField(
        help_text="Matches played (forfeits included); an in-place version's current: the "
                  "rated matches its leaderboard rating rests on.")
    wins = serializers.IntegerField(allow_null=True,
                                    help_text="Matches it placed first in (ties included).")
    forfeits = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField(allow_null=True,
                                    help_text="1 a match for first to 0 for last, summed.")
    mean_points = serializers.FloatField(allow_null=True)
    mu = serializers.FloatField(
        help_text="Its OpenSkill rating over the run (from 25). In place: on the leaderboard's "
                  "scale (the candidate's from the board's starting rating, against the field "
                  "held at their board ratings; the current's, the bot's board rating).")
    sigma = serializers.FloatField()


class ComparisonSerializer(serializers.Serializer):
    """The candidate beside the bot as it plays now, in the version's provisional run, as far
    as it is played (docs/ladder.md, "The comparison")."""

    run = serializers.IntegerField(help_text="The run: /api/tournaments/{run}/.")
    run_status = serializers.CharField(help_text="scheduled, running, finished or cancelled.")
    seats = serializers.IntegerField(help_text="The run's table size (its tournament's "
                                               "table_size).")
    matches_total = serializers.IntegerField()
    matches_played = serializers.IntegerField()
    candidate = SideSerializer()
    current = SideSerializer()
    rating_difference = serializers.FloatField(help_text="Candidate mu less current mu.")
    rating_interval = serializers.ListField(
        child=serializers.FloatField(), help_text="Its 95% interval: ± 1.96 times the two "
                                                  "sigmas combined.")
    paired_places = serializers.IntegerField(
        help_text="Places (deal, seat, field) both have played (0 in place: nothing plays "
                  "beside the candidate).")
    score_difference = serializers.FloatField(
        allow_null=True, help_text="Mean over those places of the candidate's points less the "
                                   "current's (-1 to 1).")
    score_interval = serializers.ListField(
        child=serializers.FloatField(), allow_null=True,
        help_text="Its 95% interval (± 1.96 standard errors); null below two places.")


class VersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    url = serializers.CharField()
    declared_version = serializers.CharField(help_text='What its handshake says ("version"), '
                                                       'or "".')
    in_place = serializers.BooleanField(
        help_text="A redeploy at the bot's own URL whose handshake declared a new version: it "
                  "plays its run alone (the old code no longer answers), is compared with the "
                  "bot's ladder rating, and holds the bot paused on its ladders until decided.")
    note = serializers.CharField(
        allow_null=True, help_text="For an in-place version: what holds (the bot paused while "
                                   "it is a candidate; once discarded, the URL still serves "
                                   "it). Null for others.")
    status = serializers.ChoiceField(choices=BotVersion.Status.values)
    created_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)
    run = serializers.IntegerField(allow_null=True, help_text="Its provisional run's "
                                                              "tournament id.")
    seats = serializers.IntegerField(
        allow_null=True, help_text="The ladder table size its run plays at (the run "
                                   "tournament's table_size); null without a run.")
    comparison = ComparisonSerializer(allow_null=True)


def _rendered(rows: list[BotVersion]) -> Any:
    compared = versions.version_comparisons(rows)
    return VersionSerializer([{
        "number": v.number, "url": v.url, "declared_version": v.declared_version,
        "in_place": v.in_place, "note": version_note(v), "status": v.status, "created_at": v.created_at, "decided_at": v.decided_at,
        "run": v.run, "seats": compared[v.pk]["seats"] if compared[v.pk] else None,
        "comparison": compared[v.pk]} for v in rows], many=True).data


def _one(version: BotVersion, code: int = status.HTTP_200_OK) -> Response:
    return Response(_rendered([version])[0], status=code)


REGISTERED = OpenApiExample("registered", response_only=True, status_codes=["201"], value={
    "number": 2, "url": "https://ada.example.com/bot-v2", "declared_version": "2.0.0",
    "in_place": False, "note": None, "status": "candidate", "created_at": "2025-01-01T12:00:00Z", "decided_at": None,
    "run": 41, "seats": 2, "comparison": {
        "run": 41, "run_status": "running", "seats": 2, "matches_total": 40,
        "matches_played": 0,
        "candidate": {"matches": 0, "wins": 0, "forfeits": 0, "points": 0.0,
                      "mean_points": None, "mu": 25.0, "sigma": 8.333},
        "current": {"matches": 0, "wins": 0, "forfeits": 0, "points": 0.0,
                    "mean_points": None, "mu": 25.0, "sigma": 8.333},
        "rating_difference": 0.0, "rating_interval": [-23.1, 23.1], "paired_places": 0,
        "score_difference": None, "score_interval": None}})


class BotVersionsApi(APIView):
    permission_classes = [IsAuthenticated]
    pagination_class = BotPagination

    class InputSerializer(serializers.Serializer):
        url = BotUrlField(
            max_length=500, required=False, allow_blank=True,
            help_text="The new version's base URL. Omitted, empty or the bot's own: an "
                      "in-place version, if the handshake there declares a new `version` "
                      "(400 bad_version if not).")
        game = serializers.CharField(required=False, max_length=32,
                                     help_text="The game its run plays (default: the bot's "
                                               "first).")
        seats = serializers.IntegerField(
            required=False, allow_null=True,
            help_text="The ladder table size its run plays at: one the game is played by "
                      "(400 bad_ladder if not). Default: the size of the game's one ladder "
                      "the bot is on, else the game's first ladder's.")

    @extend_schema(tags=["bots"], operation_id="bots_versions_list",
                   summary="Your bot's versions, newest first, each with its comparison",
                   parameters=[BOT_ID],
                   responses={200: VersionSerializer(many=True), 400: E400, 401: E401,
                              403: E403, 404: E404, 429: E429})
    def get(self, request: Request, bot_id: int) -> Response:
        rows = versions.version_list(bot_id=bot_id, user=request.user)
        return page_response(self, request, rows, lambda page: _rendered(list(page)))

    @extend_schema(
        tags=["bots"], operation_id="bots_versions_register",
        summary="Register a new version of your bot: its provisional run starts",
        description="The platform calls `GET {url}/` signed with the bot's secret (the "
                    "handshake must pass and list the game; its `version`, if any, is "
                    "recorded). The version, a candidate, then plays a provisional run beside "
                    "the bot as it plays now: both meet the game's reference bots and the top "
                    "of its ladder of `seats` on the same deals (an unrated tournament at that "
                    "table size). Nothing of the "
                    "bot changes until you promote it. A secret rotation is not a version.\n\n"
                    "`url` omitted or the bot's own: an in-place version (a redeploy), if the "
                    "handshake there declares a `version` other than the bot's recorded one. It "
                    "plays the field alone, its comparison is with the bot's ladder rating "
                    "(no paired places), and the bot is paused on its ladders until you "
                    "promote or discard it.",
        parameters=[BOT_ID], request=InputSerializer,
        responses={201: VersionSerializer, 400: E400, 401: E401, 403: E403, 404: E404,
                   409: E409, 422: E422, 429: E429V},
        examples=[OpenApiExample("register", request_only=True,
                                 value={"url": "https://ada.example.com/bot-v2"}), REGISTERED])
    def post(self, request: Request, bot_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = versions.version_register(bot_id=bot_id, user=request.user,
                                            **data.validated_data)
        return _one(version, status.HTTP_201_CREATED)


class BotVersionPromoteApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["bots"], operation_id="bots_versions_promote",
                   summary="Promote a version once its run is over: the bot plays at its URL",
                   description="The bot's URL becomes the version's (the handshake runs "
                               "again and must pass); its id, matches, rating and history "
                               "stay; on each ladder it is on it plays the burst of a changed "
                               "bot. In place: the handshake at the bot's URL must still "
                               "declare the version (400 bad_version if it serves another), "
                               "which becomes the bot's, and the bot plays its ladders again. "
                               "409 while the run still plays, or once decided.",
                   parameters=[BOT_ID, NUMBER], request=None,
                   responses={200: VersionSerializer, 400: E400, 401: E401, 403: E403,
                              404: E404V, 409: E409, 422: E422, 429: E429})
    def post(self, request: Request, bot_id: int, number: int) -> Response:
        return _one(versions.version_promote(bot_id=bot_id, user=request.user, number=number))


class BotVersionDiscardApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["bots"], operation_id="bots_versions_discard",
                   summary="Discard a candidate version (its run is stopped if it plays)",
                   description="Nothing of the bot changes. In place, the bot plays its "
                               "ladders again, but its URL still serves the discarded code "
                               "(`note`): redeploy the version you want. 409 once decided.",
                   parameters=[BOT_ID, NUMBER], request=None,
                   responses={200: VersionSerializer, 401: E401, 403: E403, 404: E404V,
                              409: E409, 429: E429})
    def post(self, request: Request, bot_id: int, number: int) -> Response:
        return _one(versions.version_discard(bot_id=bot_id, user=request.user, number=number))


name_nested_serializers(globals())
