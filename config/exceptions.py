"""The API's one exception handler: every error body is ``{"code": ..., "detail": ...}``.

Domain errors (``lib.errors.DomainError``: its subclasses in every app) carry their code and
HTTP status; DRF's own errors keep their status and get a code from DRF (``not_authenticated``,
``throttled``, ...); validation errors add the per-field messages under ``fields``. Outside
DRF's views, ``/api/`` URLs still answer JSON: no endpoint (``api_not_found``), a body over the
upload limit (``ApiBodyLimitMiddleware``), a bad request or a bug (``handler400``/``handler500``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from lib.authentication import refused_token
from lib.errors import DomainError

from .parsers import RequestTooLarge


def _first_message(data: Any) -> str:
    if isinstance(data, dict):
        for key, value in data.items():
            message = _first_message(value)
            return message if key == "non_field_errors" else f"{key}: {message}"
        return "invalid input"
    if isinstance(data, list):
        return _first_message(data[0]) if data else "invalid input"
    return str(data)


def renderable(data: Any) -> Any:
    """``data`` with every string made encodable as UTF-8 (a lone surrogate echoed from input
    becomes ``\\ud800``), so rendering an error can never fail."""
    if isinstance(data, str):
        return data.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(data, dict):
        return {renderable(key): renderable(value) for key, value in data.items()}
    if isinstance(data, list):
        return [renderable(item) for item in data]
    return data


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Map ``exc`` to a response; ``None`` lets Django answer 500 (a bug, never bad input)."""
    if isinstance(exc, exceptions.NotAuthenticated):
        # A bad token read as none (lib.authentication) where a token is needed.
        failure = refused_token(context.get("request"))
        if failure is not None:
            failure.auth_header = getattr(exc, "auth_header", None)
            exc = failure
    response = _error_response(exc)
    if response is not None:
        response.data = renderable(response.data)
    return response


def _error_response(exc: Exception) -> Response | None:
    if isinstance(exc, DomainError):
        set_rollback()
        return Response({"code": exc.code, "detail": exc.detail, **exc.extra}, status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        exc = RequestTooLarge()
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
    body = {"code": code, "detail": str(exc.detail)}
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["retry_after"] = int(exc.wait)  # = the Retry-After header, for clients that log bodies
    return Response(body, status=exc.status_code, headers=headers)


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def error_json(code: str, detail: str, status: int) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail}, status=status)


@csrf_exempt  # a write to a URL with no endpoint is a 404, not an HTML CSRF 403
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Every ``/api/`` URL no view answers (unknown paths, non-numeric ids, any method): a JSON
    404 with the usual error body, never Django's HTML page."""
    detail = f"no API endpoint at {request.path}"
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            pass
        else:
            if match.func is not api_not_found:
                detail += f" (did you mean {request.path}/ ?)"
    return error_json("not_found", renderable(detail), 404)


def _json_under_api(html_view: Callable[..., HttpResponse], code: str, detail: str,
                    status: int) -> Callable[..., HttpResponse]:
    def view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if is_api(request):
            return error_json(code, detail, status)
        return html_view(request, *args, **kwargs)

    view.__doc__ = f"Django's {html_view.__name__} page, or a JSON {status} under /api/."
    return view


#: ``handler400``/``handler500`` of config.urls: outside DRF's views (a suspicious request, a
#: bug in a middleware or view), /api/ still answers with the error body.
bad_request = _json_under_api(defaults.bad_request, "bad_request", "bad request", 400)
server_error = _json_under_api(defaults.server_error, "server_error",
                               "internal server error: the platform failed; it is logged", 500)


class ApiBodyLimitMiddleware:
    """Refuse an ``/api/`` body whose declared length is over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
    with a JSON 413 before anything reads it (Django would answer an HTML 400)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and is_api(request):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > limit:
                return error_json("request_too_large", str(RequestTooLarge().detail), 413)
        return self.get_response(request)
