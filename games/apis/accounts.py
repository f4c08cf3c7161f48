"""Accounts: sign up, and a token for a username and password."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.api import E400, E429, error_response, name_nested_serializers
from lib.throttling import ScopedRateThrottle, password_accepted, password_attempt

from .. import services


class SignUpApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "signup" rate (settings, docs/api.md)
    throttle_scope = "signup"
    authentication_classes: list[type] = []  # a stale token must not block getting a new one
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(r"^[\w.@+-]+\Z", max_length=150)
        password = serializers.CharField(write_only=True, min_length=8, max_length=128,
                                         style={"input_type": "password"})
        email = serializers.EmailField(required=False, allow_blank=True)

        def validate_username(self, value: str) -> str:
            if get_user_model().objects.filter(username__iexact=value).exists():
                raise serializers.ValidationError("this username is taken")
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            try:
                validate_password(attrs["password"],
                                  get_user_model()(username=attrs["username"]))
            except DjangoValidationError as exc:
                raise serializers.ValidationError({"password": list(exc.messages)}) from None
            return attrs

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")

    @extend_schema(
        tags=["accounts"], operation_id="signup", auth=[],
        summary="Sign up a player and get an API token",
        request=InputSerializer,
        responses={201: OutputSerializer, 400: E400, 429: E429},
        examples=[OpenApiExample("sign up", request_only=True,
                                 value={"username": "alice", "password": "a long passphrase"}),
                  OpenApiExample("signed up", response_only=True, status_codes=["201"],
                                 value={"username": "alice", "token": "9944b0...c2e1"})],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            with transaction.atomic():  # no user without its token
                user, token = services.user_sign_up(**data.validated_data)
        except IntegrityError:
            # Another signup took the name between the check above and the insert.
            raise serializers.ValidationError({"username": ["this username is taken"]}) from None
        return Response(self.OutputSerializer({"username": user.get_username(), "token": token}).data,
                        status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    throttle_classes = [ScopedRateThrottle]  # the "signup" rate (settings, docs/api.md)
    throttle_scope = "signup"
    authentication_classes: list[type] = []  # a stale token must not block getting a new one
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, style={"input_type": "password"})

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

    def get_authenticate_header(self, request: Request) -> str:
        # With no authentication classes DRF would turn bad_credentials into a 403.
        return "Token"

    @extend_schema(
        tags=["accounts"], operation_id="token", auth=[],
        summary="Exchange a username and password for the API token",
        request=InputSerializer,
        responses={200: OutputSerializer, 400: E400,
                   401: error_response("Wrong username or password.",
                               ("bad_credentials", "wrong username or password", None)),
                   429: error_response(
                       "Too many requests from this address, or too many wrong passwords for "
                       "this account (locked for BLUFF_LOGIN_LOCKOUT_SECONDS).",
                       ("throttled", "Request was throttled. Expected available in 5 seconds.",
                        {"retry_after": 5}),
                       ("account_locked", ("Too many wrong passwords for this account. Try "
                                           "again in 900 seconds."), {"retry_after": 900}))},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # Counted before the password is checked: racing guesses count too.
        attempt = password_attempt(data.validated_data["username"])
        user = authenticate(request=request._request, **data.validated_data)
        if user is None:
            raise BadCredentials()
        password_accepted(attempt)
        return Response(self.OutputSerializer({"token": services.user_token(user=user)}).data)


class BadCredentials(exceptions.AuthenticationFailed):
    default_detail = "wrong username or password"
    default_code = "bad_credentials"


name_nested_serializers(globals())
