"""The API docs pages load nothing from the internet: no font, script or stylesheet from
another origin (Swagger UI and Redoc come from drf-spectacular-sidecar, fonts from the system),
so they work offline and tell no third party who reads them."""

from __future__ import annotations

import re

import pytest


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_the_docs_pages_fetch_nothing_from_another_origin(client, page: str) -> None:
    html = client.get(page).content.decode()
    assert "<script" in html, "the page itself"
    loaded = re.findall(r'(?:src|href)\s*=\s*["\']([^"\']+)', html)
    assert loaded and all(not re.match(r"(https?:)?//", url) for url in loaded), loaded
    assert "fonts.googleapis" not in html and "cdn." not in html
