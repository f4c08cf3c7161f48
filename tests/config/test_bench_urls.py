"""The bench's bare endpoint is never part of the production URLconf, whatever the environment
says; only the bench's own settings mount it."""

from __future__ import annotations

import importlib

import pytest
from django.urls import resolve

from config import urls as production_urls
from config.exceptions import api_not_found


def test_production_urls_never_mount_the_bench_endpoint(settings) -> None:
    settings.BLUFF_BENCH_VIEWS = True  # the switch that used to mount it
    try:
        importlib.reload(production_urls)
        patterns = [str(p.pattern) for p in production_urls.urlpatterns]
    finally:
        del settings.BLUFF_BENCH_VIEWS
        importlib.reload(production_urls)
    assert not any("bench" in p for p in patterns), patterns
    assert resolve("/api/bench/bare/").func is api_not_found


@pytest.mark.django_db
@pytest.mark.urls("bench.urls")
def test_the_bench_urlconf_serves_it_and_the_platform(client) -> None:
    assert client.get("/api/bench/bare/").json() == {"ok": True}
    assert client.get("/api/games/").status_code == 200
    assert client.get("/api/nothing/").json()["code"] == "not_found"
