"""Authentication of every API view (``DEFAULT_AUTHENTICATION_CLASSES``): a stale or mistyped
token must not lock a person out of what needs no token at all.

The rule, one for every route: on a safe method (GET, HEAD, OPTIONS) a bad token reads as no
token, so whatever anyone may read answers as for anyone; where a token is needed (a seat's
poll, your bots) the answer is the ``401 authentication_failed`` of the bad token, never a
``not_authenticated`` that would say none was sent (:func:`refused_token`, used by the
exception handler). Writes with a bad token are refused at once, as DRF does.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.drainage import set_override
from rest_framework import authentication, exceptions
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

#: Where the ignored failure is kept on the request (:func:`refused_token`).
_IGNORED = "_bluff_ignored_token_failure"


class PublicReadTokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, except that on a safe method a bad token reads as no token
    (anonymous); the failure is kept on the request for :func:`refused_token`."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed as failure:
            if request.method in SAFE_METHODS:
                setattr(request, _IGNORED, failure)
                return None
            raise


def refused_token(request: Request | None) -> exceptions.AuthenticationFailed | None:
    """The bad token's ``authentication_failed`` if ``request`` came with one that was read as
    no token: what to answer instead of ``not_authenticated`` where a token is needed."""
    return getattr(request, _IGNORED, None)


# The same "Authorization: Token" scheme in the OpenAPI schema as DRF's class (``tokenAuth``).
set_override(PublicReadTokenAuthentication, "suppress_collision_warning", True)
