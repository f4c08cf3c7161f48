"""A seat's poll (conditional and long), its actions and resignation, and the public view."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.api import E400, E401, E429, error_response, name_nested_serializers, valid_query
from lib.throttling import ScopedRateThrottle

from .. import schema, selectors, services
from ..models import Match
from .common import DEADLINE_HELP, E403, E404, MATCH_ID, MAX_STORED_INT, SEAT, ActionField


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


def _not_modified(request: Request, q: dict[str, Any], parts: tuple[Any, ...],
                  current: Any, check: Any = None) -> Response | None:
    """The conditional and long poll, shared by a seat's poll and the public view: a 304 while
    the answer the client holds (If-None-Match) is still current, at once or after ``?wait=N``;
    None once an answer is due. It reads only the poll key (one small query: no seat or match
    object, no state); ``check`` as in :func:`_wait_for_change`."""
    seen = _if_none_match(request)
    if not (seen or _waits(q, seen)):
        return None
    etag = _wait_for_change(q, seen, parts, current, check=check).etag(*parts)
    if etag not in seen:
        return None
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
        q = valid_query(PollQuerySerializer, request)
        parts = (seat, int(q["legal"]), q.get("events_since", "-"))
        unchanged = _not_modified(
            request, q, parts,
            lambda: selectors.seat_poll_key(match_id=match_id, seat_number=seat),
            check=lambda k: selectors.seat_check_owner(key=k, user=request.user))
        if unchanged is not None:
            return unchanged
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
        q = valid_query(self.QuerySerializer, request)
        since = q.get("events_since")
        parts = ("public", "-" if since is None else since)
        unchanged = _not_modified(
            request, q, parts, lambda: selectors.seat_poll_key(match_id=match_id,
                                                               seat_number=None))
        if unchanged is not None:
            return unchanged
        match = selectors.match_get(match_id=match_id)
        data = selectors.match_public_view(match=match, events_since=since)
        etag = selectors.PollKey(None, match.version, match.status, match.updated_at).etag(*parts)
        return Response(self.OutputSerializer(data).data, headers={"ETag": etag})


name_nested_serializers(globals())
