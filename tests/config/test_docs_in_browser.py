"""The API docs pages work in a real browser: Swagger UI and Redoc render the operations."""

from __future__ import annotations

import subprocess
import tempfile

import pytest


def _rendered_dom(url: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
             "--dump-dom", url],
            capture_output=True, text=True, timeout=120, check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("page, marker", [
    ("/api/docs/", 'class="opblock-summary-path"'),
    ("/api/redoc/", "operation/"),
])
def test_docs_page_renders_the_operations(live_server, page: str, marker: str) -> None:
    dom = _rendered_dom(live_server.url + page)
    # Only the page's JavaScript, fed by /api/schema/, writes these into the DOM.
    assert marker in dom
    assert "/api/matches/" in dom
