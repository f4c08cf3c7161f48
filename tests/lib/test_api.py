"""The one error body of the schema (lib.api): its code enum is the error classes' codes."""

from __future__ import annotations

import pytest

import bots.errors
import tournaments.errors
from lib.errors import DomainError, error_codes


def _codes(cls: type[DomainError]) -> set[str]:
    """The codes of ``cls``'s subclasses, at any depth."""
    return {code for sub in cls.__subclasses__() for code in {sub.code, *_codes(sub)}}


def test_every_domain_error_code_is_listed() -> None:
    assert bots.errors and tournaments.errors  # imported: their errors are DomainError's too
    raised = _codes(DomainError)
    assert {"match_not_found", "bot_not_found", "tournament_not_found"} <= raised
    assert raised <= set(error_codes())


def test_the_codes_are_sorted_once_with_the_frameworks() -> None:
    codes = error_codes()
    assert codes == sorted(set(codes))
    assert {"invalid", "throttled", "not_authenticated", "account_locked", "request_too_large",
            "bad_request", "server_error"} <= set(codes)
    assert "error" not in codes  # the bases' code is never raised


@pytest.fixture(scope="module")
def schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def test_the_schema_has_one_error_body_with_every_code(schema: dict) -> None:
    components = schema["components"]["schemas"]
    assert "BotError" not in components
    assert components["CodeEnum"]["enum"] == error_codes()
    assert set(components["Error"]["properties"]) == {
        "code", "detail", "current_version", "fields", "retry_after", "reason"}
    bot_404 = schema["paths"]["/api/bots/{bot_id}/"]["get"]["responses"]["404"]
    assert bot_404["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error"
