"""Authentication for endpoints anyone may read: a stale or mistyped token must not lock a
person out of what needs no token at all."""

from __future__ import annotations

from typing import Any

from drf_spectacular.drainage import set_override
from rest_framework import authentication, exceptions
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request


class PublicReadTokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, except that on a safe method (GET, HEAD, OPTIONS) a bad
    token reads as no token: public reads answer as for anyone. Writes still get ``401
    authentication_failed``, so a client learns its token is wrong when it matters."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            if request.method in SAFE_METHODS:
                return None
            raise


# The same "Authorization: Token" scheme in the OpenAPI schema as DRF's class (``tokenAuth``).
set_override(PublicReadTokenAuthentication, "suppress_collision_warning", True)

#: ``authentication_classes`` of views whose reads are public (the match list, a match, the
#: spectator view, logs, the games).
PUBLIC_READ_AUTHENTICATION = [PublicReadTokenAuthentication,
                              authentication.SessionAuthentication]
