"""Schemathesis over the whole published schema, in-process (WSGI): whatever a client sends,
valid or not, the server never answers 5xx and every answer conforms to the schema (status code,
content type, headers and body).

Bounded so CI stays quick (about a minute): at most 100 derandomized examples per operation, no
shrinking and no example database. Requests are made as a signed-up player who sits in a
running match; besides fuzzed ids, some examples use that match's id and seat, so the
authenticated operations reach real objects. Bot registration and updates are left to their own
tests: they call the URL in the body, and fuzzed URLs would leave the machine.

Schemathesis' own pytest loaders are not used: its lazy loader breaks on pytest 9.2's node ids,
and the eager one would build the schema at every collection. The operations are run here with
Hypothesis directly, and every operation's failures are reported together.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from games import services

#: Operations that make network calls to a URL taken from the request (bots/urls.py).
NETWORK_CALLS = (("POST", "/api/bots/"), ("PATCH", "/api/bots/{bot_id}/"),
                 ("POST", "/api/bots/{bot_id}/check/"))
EXAMPLES_PER_OPERATION = 100
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]
BOUNDS = hypothesis_settings(max_examples=EXAMPLES_PER_OPERATION, derandomize=True, deadline=None,
                             database=None, phases=[Phase.explicit, Phase.generate],
                             suppress_health_check=list(HealthCheck))


@pytest.fixture
def connections_kept_open() -> Iterator[None]:
    """The real WSGI app closes database connections around each request; as Django's test
    client does, keep them open, or the test's transaction (PostgreSQL) dies with the first."""
    signals = (request_started, request_finished)
    for signal in signals:
        signal.disconnect(close_old_connections)
    try:
        yield
    finally:
        for signal in signals:
            signal.connect(close_old_connections)


def case_strategy(operation: Any, real_ids: dict[str, int]) -> st.SearchStrategy:
    """Valid and invalid requests with fuzzed ids, and valid ones at the real match's seat."""
    strategies = [operation.as_strategy(GenerationMode.POSITIVE),
                  operation.as_strategy(GenerationMode.NEGATIVE)]
    names = {parameter.name for parameter in operation.path_parameters}
    if names and names <= set(real_ids):
        strategies.append(operation.as_strategy(
            GenerationMode.POSITIVE, path_parameters={n: real_ids[n] for n in names}))
    return st.one_of(strategies)


@pytest.mark.schemathesis
@pytest.mark.django_db
@pytest.mark.usefixtures("connections_kept_open")
def test_no_server_error_and_every_answer_conforms(settings: Any) -> None:
    settings.BLUFF_POLL_MAX_WAIT = 0  # fuzzed ?wait=N long polls answer at once
    user, token = services.user_sign_up(username="fuzzer", password="a long passphrase")
    match = services.match_create(game="dice_cup", created_by=user, players=2, seed=1,
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "random"}])
    real_ids = {"match_id": match.pk, "seat": 0}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    every_operation = [result.ok() for result in schema.get_all_operations()]
    for method, path in NETWORK_CALLS:
        schema = schema.exclude(method=method, path=path)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == len(every_operation) - len(NETWORK_CALLS), "only those excluded"

    failures: dict[str, str] = {}
    for operation in operations:

        @BOUNDS
        @given(case=case_strategy(operation, real_ids))
        def call(case: Any) -> None:
            cache.clear()  # throttle counters: every example is judged on its own
            case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=CHECKS)

        try:
            call()
        except (Exception, BaseExceptionGroup) as error:  # noqa: BLE001 - reported below
            failures[operation.label] = str(error)
    assert not failures, "\n\n".join(f"{label}:\n{error}" for label, error in failures.items())
