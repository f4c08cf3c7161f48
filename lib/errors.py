"""The errors services raise on purpose, and every code an error body can carry.

Services raise :class:`DomainError` subclasses (each app has its own ``errors`` module); one
exception handler (``config.exceptions``) turns them into ``{"code": ..., "detail": ...}`` with
``status`` as the HTTP status. ``status`` is only a hint for that handler: services never deal
with HTTP otherwise. :func:`error_codes` is what the OpenAPI schema's one ``Error`` body
documents (``lib.api``), so a new error class is documented by being written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from rest_framework.exceptions import APIException


class DomainError(Exception):
    """Base of every error a service raises on purpose."""

    code: ClassVar[str] = "error"
    status: ClassVar[int] = 400
    default_detail: ClassVar[str] = "The request cannot be carried out."

    def __init__(self, detail: str | None = None, **extra: Any) -> None:
        self.detail = detail or self.default_detail
        self.extra = extra  # extra keys of the error body, e.g. current_version
        super().__init__(self.detail)


#: The codes ``config.exceptions`` answers with outside DRF's views (handler400, handler500).
OUTSIDE_VIEW_CODES = ("bad_request", "server_error")


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def error_codes() -> list[str]:
    """Every code an error body can carry, sorted: each :class:`DomainError` subclass's, each
    API exception's (DRF's: ``invalid``, ``throttled``, ...; ours: ``account_locked``,
    ``request_too_large``) and :data:`OUTSIDE_VIEW_CODES`. Complete once the apps' error
    modules are imported (their views import them; the schema is built after the URLs)."""
    codes = {sub.code for sub in _subclasses(DomainError)}
    codes |= {sub.default_code for sub in _subclasses(APIException)}
    return sorted(codes | set(OUTSIDE_VIEW_CODES))
