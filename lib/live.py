"""A page's live part (``?part=...``), fetched again on its own by htmx while what it shows
can change: sent with an ETag of its bytes, so a poller that has it already gets a 304 (a
few bytes) instead of the part. One place for the tournament, league, night and bot pages."""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import quote_etag


def live_part(request: HttpRequest, answer: HttpResponse) -> HttpResponse:
    """``answer`` (a rendered live part) with an ETag of its bytes: a 304 when the poller's
    ``If-None-Match`` has it. A part with a form token differs on every render (the token is
    masked anew), so an organiser's part is always sent again: correct, only less thrifty."""
    etag = quote_etag(hashlib.blake2b(answer.content, digest_size=12).hexdigest())
    answer["ETag"] = etag
    return get_conditional_response(request, etag=etag, response=answer)
