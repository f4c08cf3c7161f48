"""The API's one exception handler: every error body is ``{"code": ..., "detail": ...}``.

Domain errors (``games.errors.DomainError`` and subclasses from any app) carry their code and
HTTP status; DRF's own errors keep their status and get a code from DRF (``not_authenticated``,
``throttled``, ...); validation errors add the per-field messages under ``fields``.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from django.urls import Resolver404, resolve
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games.errors import DomainError


def _first_message(data: Any) -> str:
    if isinstance(data, dict):
        for key, value in data.items():
            message = _first_message(value)
            return message if key == "non_field_errors" else f"{key}: {message}"
        return "invalid input"
    if isinstance(data, list):
        return _first_message(data[0]) if data else "invalid input"
    return str(data)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Map ``exc`` to a response; ``None`` lets Django answer 500 (a bug, never bad input)."""
    if isinstance(exc, DomainError):
        set_rollback()
        return Response({"code": exc.code, "detail": exc.detail, **exc.extra}, status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None
    set_rollback()
    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(exc.wait))
    if isinstance(exc, exceptions.ValidationError):
        body = {"code": "invalid", "detail": _first_message(exc.detail), "fields": exc.detail}
        if not isinstance(exc.detail, dict):
            body["fields"] = {"non_field_errors": exc.detail}
        return Response(body, status=status.HTTP_400_BAD_REQUEST, headers=headers)
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else "error"
    return Response({"code": code, "detail": str(exc.detail)}, status=exc.status_code,
                    headers=headers)


def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Every ``/api/`` URL no view answers (unknown paths, non-numeric ids): a JSON 404 with the
    usual error body, never Django's HTML page."""
    detail = f"no API endpoint at {request.path}"
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            pass
        else:
            if match.func is not api_not_found:
                detail += f" (did you mean {request.path}/ ?)"
    return JsonResponse({"code": "not_found", "detail": detail}, status=404)
