"""What every app's REST API shares in its OpenAPI schema: the error body, the documented error
responses built on it, and the component names of views' nested serializers.

Every error answer is ``{"code": ..., "detail": ...}`` (the exception handler,
``config.exceptions``, builds it from the domain errors' ``code`` and ``status`` and DRF's own
codes). :data:`ERROR_CODES` documents the codes of matches, accounts, tournaments and leagues
as one enum (``Error``); the bots API documents its own codes in its error component
(``bots.apis``). tests/lib/test_api.py checks that every domain error's code is documented.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_serializer
from rest_framework import serializers
from rest_framework.views import APIView

ERROR_CODES = (
    "invalid", "parse_error", "not_authenticated", "authentication_failed", "permission_denied",
    "not_found", "method_not_allowed", "not_acceptable", "unsupported_media_type", "throttled",
    "match_not_found", "seat_not_found", "bad_options", "bad_seats", "match_not_open",
    "no_open_seat", "already_seated", "not_your_seat", "match_not_running", "seat_forfeited",
    "stale_version", "illegal_action", "bad_credentials", "not_seated", "request_too_large",
    "bad_request", "server_error", "account_locked",
    # tournaments.apis
    "tournament_not_found", "not_your_tournament", "bad_tournament", "tournament_limit",
    "tournament_not_running", "game_not_found",
    # tournaments.league_apis
    "league_not_found", "not_your_league", "bad_league", "night_not_open",
)


class ErrorSerializer(serializers.Serializer):
    """Every error body. ``code`` is stable; ``detail`` is for humans."""

    code = serializers.ChoiceField(choices=ERROR_CODES)
    detail = serializers.CharField()
    current_version = serializers.IntegerField(
        required=False, help_text="With stale_version: the version to poll for.")
    fields = serializers.DictField(required=False,
                                   help_text="With invalid: the messages per field.")
    retry_after = serializers.IntegerField(
        required=False, help_text="With throttled and account_locked: seconds to wait (the "
                                  "Retry-After header).")


#: One documented example error: (code, detail, extra keys of the body or None).
Example = tuple[str, str, dict[str, Any] | None]


def error_response(description: str, *examples: Example,
                   serializer: type[serializers.Serializer] = ErrorSerializer) -> OpenApiResponse:
    """An error answer for ``extend_schema(responses=...)``: the error body with one example
    per ``(code, detail, extra)``."""
    return OpenApiResponse(
        serializer, description=description,
        examples=[OpenApiExample(code, value={"code": code, "detail": detail, **(extra or {})},
                                 response_only=True)
                  for code, detail, extra in examples],
    )


E400 = error_response("Malformed request.",
                      ("invalid", "version: A valid integer is required.", None))
E401 = error_response("No or bad token.", ("not_authenticated",
                                           "Authentication credentials were not provided.", None))
E429 = error_response(
    "Too many requests.",
    ("throttled", "Request was throttled. Expected available in 5 seconds.", {"retry_after": 5}))


def name_nested_serializers(namespace: dict[str, Any]) -> None:
    """Nested ``InputSerializer``/``OutputSerializer`` classes all share a name; give each of
    the views in ``namespace`` (a module's ``globals()``) its own OpenAPI component name
    (``SeatActInput``, ``MatchLogOutput``, ...)."""
    for view in list(namespace.values()):
        if not (isinstance(view, type) and issubclass(view, APIView) and view is not APIView):
            continue
        prefix = view.__name__.removesuffix("Api")
        for attr, value in vars(view).items():
            if (isinstance(value, type) and issubclass(value, serializers.Serializer)
                    and attr.endswith("Serializer")):
                extend_schema_serializer(component_name=prefix + attr.removesuffix("Serializer"))(
                    value)
