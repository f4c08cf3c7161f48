"""A match's log: paginated, and exported as JSON lines."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.api import E400, E429, name_nested_serializers, valid_query
from lib.throttling import ScopedRateThrottle

from .. import fields, schema, selectors
from ..models import Match
from .common import E404, MATCH_ID, MAX_STORED_INT, RESULT_HELP


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
        query = valid_query(self.QuerySerializer, request)
        match = selectors.match_get(match_id=match_id)
        data = selectors.match_log(match=match, since=query["since"])
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
