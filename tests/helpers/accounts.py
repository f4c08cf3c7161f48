"""Users and API clients for every test folder (a pytest plugin, tests/conftest.py): alice,
bob and charlie, each with a DRF ``APIClient`` authenticated with their token; ``make_user`` for
more. Throttle counters are cleared and passwords hashed fast before every test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from games import services


@pytest.fixture(autouse=True)
def _fresh_throttles() -> None:
    cache.clear()  # throttle counters live in the cache


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    from django.contrib.auth import get_user_model

    def make(username: str, password: str = "correct horse battery") -> Any:
        return get_user_model().objects.create_user(username=username, password=password)

    return make


@pytest.fixture
def alice(make_user: Callable[..., Any]) -> Any:
    return make_user("alice")


@pytest.fixture
def bob(make_user: Callable[..., Any]) -> Any:
    return make_user("bob")


@pytest.fixture
def charlie(make_user: Callable[..., Any]) -> Any:
    return make_user("charlie")


@pytest.fixture
def client_for() -> Callable[[Any], APIClient]:
    def make(user: Any) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {services.user_token(user=user)}")
        return client

    return make


@pytest.fixture
def alice_api(alice: Any, client_for: Callable[[Any], APIClient]) -> APIClient:
    return client_for(alice)


@pytest.fixture
def bob_api(bob: Any, client_for: Callable[[Any], APIClient]) -> APIClient:
    return client_for(bob)


@pytest.fixture
def charlie_api(charlie: Any, client_for: Callable[[Any], APIClient]) -> APIClient:
    return client_for(charlie)


@pytest.fixture
def anon_api() -> APIClient:
    return APIClient()
