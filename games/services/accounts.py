"""Accounts: a player's sign-up and API token (the token is how polling clients log in)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token


def user_sign_up(*, username: str, password: str, email: str = "") -> tuple[Any, str]:
    """Create a player account and its API token."""
    user = get_user_model().objects.create_user(username=username, password=password, email=email)
    token = Token.objects.create(user=user)
    return user, token.key


def user_token(*, user: AbstractBaseUser) -> str:
    """The user's API token, created on first use."""
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def user_token_rotate(*, user: AbstractBaseUser) -> str:
    """Replace the user's API token: the old one stops working at once (a leaked token is
    useless from here on). Returns the new one."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user).key
