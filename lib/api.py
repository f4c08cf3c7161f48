"""What every app's REST API shares in its OpenAPI schema: the one error body (``Error``), the
documented error responses built on it, the component names of views' nested serializers, and
how a view reads its query and answers a page of a list.

Every error answer is ``{"code": ..., "detail": ...}`` (the exception handler,
``config.exceptions``, builds it from the domain errors' ``code`` and ``status`` and DRF's own
codes). The body's ``code`` enum (``CodeEnum``) is :func:`lib.errors.error_codes`: the codes of
the error classes themselves, of every app, read when the schema is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_serializer
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .errors import error_codes


class ErrorCodeField(serializers.ChoiceField):
    """The error codes, read anew each time the field is made (a serializer copies its fields
    for each instance), so every app's error classes are in it once the apps are loaded."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=error_codes(), **kwargs)


@extend_schema_serializer(component_name="Error")
class ErrorSerializer(serializers.Serializer):
    """Every error body. ``code`` is stable; ``detail`` is for humans."""

    code = ErrorCodeField()
    detail = serializers.CharField()
    current_version = serializers.IntegerField(
        required=False, help_text="With stale_version: the version to poll for.")
    fields = serializers.DictField(required=False,
                                   help_text="With invalid: the messages per field.")
    retry_after = serializers.IntegerField(
        required=False, help_text="With throttled and account_locked: seconds to wait (the "
                                  "Retry-After header).")
    reason = serializers.CharField(
        required=False, help_text="With handshake_failed: timeout, connection_error, "
                                  "blocked_address, http_status, invalid_json, oversized_body, "
                                  "bad_shape or no_games.")


#: One documented example error: (code, detail, extra keys of the body or None).
Example = tuple[str, str, dict[str, Any] | None]


def error_response(description: str, *examples: Example) -> OpenApiResponse:
    """An error answer for ``extend_schema(responses=...)``: the error body with one example
    per ``(code, detail, extra)``."""
    return OpenApiResponse(
        ErrorSerializer, description=description,
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


def valid_query(serializer_class: type[serializers.Serializer], request: Request) -> Any:
    """``request``'s query parameters as ``serializer_class`` (a view's Filter or Query
    serializer, which also documents them) validates them; a bad one raises ``ValidationError``,
    the 400 ``invalid`` of every malformed request."""
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data


def page_response(view: APIView, request: Request, rows: Any,
                  render: Callable[[list[Any]], Any]) -> Response:
    """The page of ``rows`` (a queryset) that ``?limit`` and ``?offset`` ask for, cut by the
    view's ``pagination_class`` (which drf-spectacular reads for the schema's envelope), in its
    envelope; ``render`` makes the answer's ``results`` of the page's rows."""
    paginator = view.pagination_class()
    page = paginator.paginate_queryset(rows, request, view=view)
    return paginator.get_paginated_response(render(page))


class Pagination(LimitOffsetPagination):
    """Every list's ``?limit`` (1 to ``max_limit``, default ``default_limit``) and ``?offset``
    (0 or more), checked as the schema states them: DRF's own would read ``limit=-1`` or
    ``limit=abc`` as the default and ``limit=1000`` as the most, where a bad query is the
    400 ``invalid`` of every other parameter, naming it."""

    default_limit = 50
    max_limit = 200

    def _query(self, request: Request) -> dict[str, int]:
        fields = {self.limit_query_param: serializers.IntegerField(
                      required=False, default=self.default_limit, min_value=1,
                      max_value=self.max_limit),
                  self.offset_query_param: serializers.IntegerField(
                      required=False, default=0, min_value=0)}
        return valid_query(type("PageQuery", (serializers.Serializer,), fields), request)

    def get_limit(self, request: Request) -> int:
        return self._query(request)[self.limit_query_param]

    def get_offset(self, request: Request) -> int:
        return self._query(request)[self.offset_query_param]

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        bounds = {self.limit_query_param: {"minimum": 1, "maximum": self.max_limit,
                                           "default": self.default_limit},
                  self.offset_query_param: {"minimum": 0, "default": 0}}
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"].update(bounds[parameter["name"]])
        return parameters
