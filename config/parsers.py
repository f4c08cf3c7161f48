"""The API's only request parser: JSON, bounded in size and nesting.

DRF's own JSON parser uses Python's ``json`` module, which recurses once per nesting level: a
body of a thousand nested lists raised ``RecursionError`` (a 500). orjson stops at 1,024 levels
without recursing in Python, refuses lone surrogates (text that cannot be rendered back in an
error message) and is already what the platform uses for JSON. On top of it, bodies nested
deeper than :data:`MAX_JSON_DEPTH` or longer than Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` are
refused, so no view ever sees input its serializers or error messages cannot handle.
"""

from __future__ import annotations

from typing import IO, Any

import orjson
from django.conf import settings
from rest_framework import exceptions, parsers, status

#: Deepest nesting of arrays and objects a request body may have (ours need about 4).
MAX_JSON_DEPTH = 32


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"

    def __init__(self) -> None:
        super().__init__(f"the request body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes")


def nesting_exceeds(data: Any, limit: int) -> bool:
    """Whether ``data`` nests arrays/objects deeper than ``limit`` (iterative: no recursion)."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def read_bounded(stream: IO[bytes]) -> bytes:
    """The body, or :class:`RequestTooLarge` once it passes ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = stream.read(limit + 1) if limit is not None else stream.read()
    if limit is not None and len(body) > limit:
        raise RequestTooLarge()
    return body


class JSONParser(parsers.JSONParser):
    """JSON bodies only (UTF-8, RFC 8259), parsed by orjson and bounded; see the module doc."""

    def parse(self, stream: IO[bytes], media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> Any:
        try:
            data = orjson.loads(read_bounded(stream))
        except orjson.JSONDecodeError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
        if nesting_exceeds(data, MAX_JSON_DEPTH):
            raise exceptions.ParseError(
                f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} arrays/objects")
        return data
