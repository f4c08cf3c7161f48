"""Every answer under /api/ has the documented JSON error shape, whatever a client sends:
deeply nested or unrenderable JSON, forms, oversized bodies, writes to URLs with no endpoint,
and bugs (a 500)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from games import selectors

pytestmark = pytest.mark.django_db


def _assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert body["code"] == code and isinstance(body["detail"], str), body
    return body


@pytest.mark.parametrize("body", [b"[" * 100_000 + b"]" * 100_000,
                                  b'{"a": ' * 1000 + b"1" + b"}" * 1000,
                                  b"[" * 40 + b"]" * 40],
                         ids=["100k lists", "1000 objects", "40 lists"])
def test_deeply_nested_json_is_a_parse_error(body: bytes) -> None:
    response = Client().post("/api/auth/signup/", body, content_type="application/json")
    _assert_error(response, 400, "parse_error")


def test_json_nested_as_deep_as_allowed_is_parsed() -> None:
    # Depth 32, the documented limit: parsed, then refused for its shape only.
    body = b'{"username": ' + b"[" * 31 + b"]" * 31 + b"}"
    response = Client().post("/api/auth/signup/", body, content_type="application/json")
    _assert_error(response, 400, "invalid")


def test_a_lone_surrogate_in_an_option_name_is_a_json_error() -> None:
    from django.contrib.auth import get_user_model

    api = APIClient()
    api.force_authenticate(get_user_model().objects.create_user(username="dora"))
    response = api.post("/api/matches/", b'{"game": "dice_cup", "options": {"\\ud800": 1}}',
                        content_type="application/json")
    _assert_error(response, 400, "parse_error")


def test_error_details_that_hold_unencodable_text_still_render() -> None:
    from django.test import RequestFactory
    from rest_framework.renderers import JSONRenderer

    from config.exceptions import exception_handler
    from games.errors import BadMatchOptions

    response = exception_handler(BadMatchOptions("unknown option(s): \ud800"), {})
    response.accepted_renderer = JSONRenderer()
    response.accepted_media_type = "application/json"
    response.renderer_context = {"request": RequestFactory().get("/api/")}
    response.render()
    assert b"bad_options" in response.content


def test_a_form_encoded_body_is_unsupported_media_type() -> None:
    response = Client().post("/api/auth/signup/", {"username": "x", "password": "y" * 10})
    _assert_error(response, 415, "unsupported_media_type")


@pytest.mark.parametrize("method", ["post", "patch", "delete", "put"])
def test_writes_to_an_api_url_without_endpoint_are_json_404_even_with_csrf_checks(
        method: str) -> None:
    client = Client(enforce_csrf_checks=True)
    response = getattr(client, method)("/api/matches", b"{}", content_type="application/json")
    body = _assert_error(response, 404, "not_found")
    assert "did you mean /api/matches/" in body["detail"]


def test_a_body_over_the_upload_limit_is_413_with_the_error_shape() -> None:
    size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1
    body = b'{"username": "' + b"a" * size + b'"}'
    response = Client().post("/api/auth/signup/", body, content_type="application/json")
    _assert_error(response, 413, "request_too_large")


def test_a_form_body_over_the_upload_limit_is_413_too() -> None:
    size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1
    response = Client().post("/api/auth/signup/", b"a=" + b"b" * size,
                             content_type="application/x-www-form-urlencoded")
    _assert_error(response, 413, "request_too_large")


def test_a_bug_under_api_is_a_json_500(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(**kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors, "match_list", broken)
    response = Client(raise_request_exception=False).get("/api/matches/")
    body = _assert_error(response, 500, "server_error")
    assert "a bug" not in body["detail"], "internals are not shown"


def test_docs_state_the_body_limits() -> None:
    from config.parsers import MAX_JSON_DEPTH

    docs = (settings.BASE_DIR / "docs" / "api.md").read_text()
    assert f"at\nmost {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes" in docs
    assert f"nested at most {MAX_JSON_DEPTH} arrays" in docs


def test_a_request_django_refuses_as_suspicious_is_json_under_api() -> None:
    response = Client(HTTP_HOST="evil.example").get("/api/games/")
    _assert_error(response, 400, "bad_request")


@pytest.mark.parametrize("url", ["/api/matches/", "/api/tournaments/", "/api/leagues/"])
def test_an_unknown_game_in_a_lists_filter_is_invalid_naming_the_games(url: str) -> None:
    """Not an empty page, which reads as "none yet": the client mistyped the game."""
    from games.engine import game_ids

    body = _assert_error(APIClient().get(url, {"game": "chess"}), 400, "invalid")
    assert body["fields"]["game"] == [f"no game 'chess' (have: {', '.join(game_ids())})"]
    assert APIClient().get(url, {"game": "dot"}).status_code == 200


@pytest.mark.parametrize("url, query, field", [
    ("/api/matches/", {"status": "sleeping"}, "status"),
    ("/api/tournaments/", {"status": "sleeping"}, "status"),
    ("/api/tournaments/", {"organiser": "x" * 151}, "organiser"),
])
def test_a_bad_value_in_a_lists_filter_is_the_error_body_naming_the_field(
        url: str, query: dict[str, str], field: str) -> None:
    """Checked before the selector's FilterSet runs (lib.filtering): the documented 400, never
    the filter left out."""
    body = _assert_error(APIClient().get(url, query), 400, "invalid")
    assert list(body["fields"]) == [field] and body["detail"].startswith(f"{field}: ")


@pytest.mark.parametrize("method, path", [
    ("get", "/api/matches/abc/"),
    ("get", "/api/matches/1/seats/x/"),
    ("post", "/api/matches/abc/seats/0/actions/"),
    ("get", "/api/nothing-here/"),
    ("delete", "/api/matches/1/log/extra"),
    ("get", "/api/"),
])
def test_unknown_api_urls_get_a_json_404(anon_api, alice_api, method, path) -> None:
    for client in (anon_api, alice_api):
        response = getattr(client, method)(path)
        assert response.status_code == 404
        assert response["Content-Type"].startswith("application/json")
        assert response.json()["code"] == "not_found" and path in response.json()["detail"]


def test_a_missing_trailing_slash_gets_a_hint(anon_api) -> None:
    response = anon_api.get("/api/matches/1")  # whether match 1 exists or not
    assert response.status_code == 404 and "did you mean" in response.json()["detail"]
