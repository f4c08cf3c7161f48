"""The OpenAPI schema (games.schema and the views' documentation): every endpoint with its error
bodies, a view, action and poll component per game, the paginated envelope."""

from __future__ import annotations

import pytest

from tests.helpers.matches import documented_keys

pytestmark = pytest.mark.django_db


def test_schema_documents_every_endpoint_with_error_bodies(anon_api) -> None:
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    expected = {
        ("/api/auth/signup/", "post"), ("/api/auth/token/", "post"), ("/api/games/", "get"),
        ("/api/matches/", "get"), ("/api/matches/", "post"),
        ("/api/matches/{match_id}/", "get"), ("/api/matches/{match_id}/join/", "post"),
        ("/api/matches/{match_id}/view/", "get"), ("/api/matches/{match_id}/log/", "get"),
        ("/api/matches/{match_id}/log.jsonl", "get"),
        ("/api/matches/{match_id}/seats/{seat}/", "get"),
        ("/api/matches/{match_id}/seats/{seat}/actions/", "post"),
        ("/api/matches/{match_id}/seats/{seat}/resign/", "post"),
    }
    assert {(p, m) for p, ops in paths.items() for m in ops} >= expected
    act = paths["/api/matches/{match_id}/seats/{seat}/actions/"]["post"]
    assert {"200", "400", "401", "403", "404", "409", "422"} <= set(act["responses"])
    error = act["responses"]["409"]["content"]["application/json"]
    assert error["schema"]["$ref"].endswith("/Error")
    assert "StaleVersion" in error["examples"]
    assert "SeatActInputRequest" in schema["components"]["schemas"]
    assert "stale_version" in schema["components"]["schemas"]["CodeEnum"]["enum"]


def test_schema_has_a_view_action_and_poll_component_per_game(anon_api) -> None:
    from games.engine import game_ids

    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    components = schema["components"]["schemas"]
    names = {"".join(p.capitalize() for p in g.split("_")): g for g in game_ids()}
    for camel, game_id in names.items():
        assert {f"{camel}View", f"{camel}Action", f"SeatPoll{camel}"} <= set(components), camel
        assert components[f"{camel}GameId"]["enum"] == [game_id]
        assert components[f"SeatPoll{camel}"]["properties"]["game"]["$ref"].endswith(
            f"/{camel}GameId")
    assert components["GameId"]["enum"] == list(game_ids())
    # The act body does not name the game and games share action types: anyOf, not oneOf.
    assert components["ActionRequest"] == {
        "anyOf": [{"$ref": f"#/components/schemas/{camel}ActionRequest"} for camel in names],
        "description": components["ActionRequest"]["description"]}
    poll = components["SeatPoll"]
    assert poll["discriminator"]["propertyName"] == "game"
    assert set(poll["discriminator"]["mapping"]) == set(game_ids())
    op = schema["paths"]["/api/matches/{match_id}/seats/{seat}/"]["get"]
    examples = op["responses"]["200"]["content"]["application/json"]["examples"]
    assert len(examples) == len(game_ids())
    assert any(e["value"]["game"] == "great_dalmuti" for e in examples.values())
    act = schema["paths"]["/api/matches/{match_id}/seats/{seat}/actions/"]["post"]
    request = act["requestBody"]["content"]["application/json"]
    assert {e["value"]["action"]["type"] for e in request["examples"].values()}
    assert len(request["examples"]) == len(game_ids())
    assert "not_seated" in components["CodeEnum"]["enum"]
    assert ("/api/matches/{match_id}/leave/", "post") in {
        (p, m) for p, ops in schema["paths"].items() for m in ops}


def test_the_match_list_schema_is_the_paginated_envelope_it_returns(alice_api) -> None:
    page = alice_api.get("/api/matches/").json()
    schema = alice_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert documented_keys(schema, "/api/matches/", "get") == set(page) == {
        "count", "next", "previous", "results"}
